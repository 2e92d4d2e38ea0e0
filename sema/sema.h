/*
 * sema.h - semantic analysis: from syntax to a typed, checked program.
 *
 * sema_run() resolves every probe's attach points (expanding tracepoint
 * wildcards, reading tracefs formats), types every expression, infers each
 * map's key and value kinds from all of its uses, and collects the tables
 * the later stages need: maps, printf-style events, probes.  Every mismatch
 * is a located error through struct diag.
 *
 * The second half of this header is the interface builtins in stdlib/ use
 * to check their arguments; nothing else should need it.
 */
#ifndef SONDE_SEMA_H
#define SONDE_SEMA_H

#include <regex.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "common/arena.h"
#include "common/diag.h"
#include "parser/ast.h"

struct tp_format;
struct usdt_note;
struct sema_probe;

enum probe_type {
	PT_BEGIN, PT_END,
	PT_TRACEPOINT, PT_RAWTRACEPOINT,
	PT_UPROBE, PT_URETPROBE, PT_USDT,
	PT_KPROBE, PT_KRETPROBE,
	PT_FENTRY, PT_FEXIT,
	PT_INTERVAL, PT_PROFILE, PT_SOFTWARE, PT_HARDWARE,
	PT_SELF,	/* self:signal:SIGUSR1: sonde runs it when it gets the signal */
	PT_BENCH,	/* bench:NAME: --bench runs and times it (an XDP program) */
	PT_ITER,	/* iter:task ...: a BPF iterator sonde reads once (runtime/iter.c) */
};
#define PT_COUNT (PT_ITER + 1)

/* What a probe's context offers builtins (struct probe_provider.ctx). */
enum probe_ctx {
	PC_TASK = 1u << 0,	/* fires in the task it is about: signal(), and
				 * -p/--container filter it (not BEGIN/END/interval) */
	PC_REGS = 1u << 1,	/* the context is a struct pt_regs: reg() */
	PC_ARGN = 1u << 2,	/* arg0..arg9 */
	PC_RETVAL = 1u << 3,	/* retval */
	PC_FUNC = 1u << 4,	/* func names the probed function (site cookie) */
	PC_USER = 1u << 5,	/* probes user-space code: uaddr(), user reads */
	PC_TP_ARGS = 1u << 6,	/* args->FIELD from a tracepoint format */
	PC_KARGS = 1u << 7,	/* args.NAME from a kernel function's BTF (fentry) */
};

/* fentry/fexit: the probed function as BTF declares it.  Each parameter
 * is one or two 8-byte slots of the context (a struct of up to 16 bytes
 * passed by value takes two); fexit's return value follows them.
 * A uprobe's function as its DWARF declares it (regs, sema/dwarf.c): the
 * context is struct pt_regs, offsets[] the register holding a parameter
 * (offsets_hi[] the second one of a 9..16-byte parameter, else 0) or
 * SEMA_ARG_STACK + its place on the stack, in bytes from the stack
 * pointer at entry (the return address is at 0); why_not[] says why a
 * parameter cannot be read (a double in an SSE register), else NULL. */
struct sema_kfunc {
	int nargs;
	const char **names;
	struct type *types;
	uint32_t *offsets;	/* bytes into the context */
	struct type ret;	/* TY_NONE for void */
	uint32_t ret_offset;
	bool regs;
	uint32_t *offsets_hi;
	const char **why_not;
};
#define SEMA_ARG_STACK 0x10000u
/* a uprobe's struct argument passed by value is copied to the BPF stack */
#define SEMA_STRUCT_ARG_MAX 256u
/* func's value without BPF cookies (before Linux 5.15), and in kernel
 * functions' probes: this plus the global attach index, whose function
 * the runtime prints (one program per attach point then); with cookies
 * it is the site's cookie (1 << 20 + i).  A program serving several
 * kernel functions (a kprobe wildcard) has a cookie per function: this
 * value in its low 32 bits, the attach point's global index (probe) in
 * its high 32 bits. */
#define SEMA_FUNC_OF_ATTACH (2u << 20)

/*
 * The provider table: one row per probe type, indexed by enum probe_type.
 * sema parses attach points with it, codegen names sections from it,
 * stdlib checks where builtins are allowed against `ctx`, cli's -l calls
 * `list`, and runtime/run.c keeps one attach function per row.  A new
 * probe type is a row here (sema/probes.c), its case in resolve_one, and
 * its attach function in runtime/run.c.
 */
struct probe_provider {
	enum probe_type type;
	const char *name;	/* "tracepoint" */
	const char *alias;	/* "t", or NULL */
	const char *section;	/* ELF section of its programs (libbpf's program type) */
	bool section_names_point;	/* the section goes on with "/TARGET/FUNC" (or
					 * "/FUNC" without a target), as libbpf expects */
	bool runs_once;		/* BEGIN/END, self: not attached, sonde runs it itself */
	unsigned ctx;		/* enum probe_ctx bits */
	/* -l 'NAME:...' (host/list.c), NULL: listed with the tracepoints */
	int (*list)(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
	/* allowed with --user-probes: run by the agents (uprobes), or in the
	 * kernel beside them without touching their maps (BEGIN, END, interval) */
	bool user_mode;
};

/* The row of t (never NULL for a valid t). */
const struct probe_provider *sema_provider(enum probe_type t);
/* The row named name or alias name ("uretprobe", "ur"), NULL when none. */
const struct probe_provider *sema_provider_named(const char *name);

/* One concrete attach point (wildcards expanded). */
struct sema_attach {
	enum probe_type type;
	const char *name;	/* canonical: "tracepoint:sched:sched_switch" */
	const char *target;	/* tracepoint category, uprobe target, software event,
				 * kprobe module (NULL: vmlinux or any) */
	const char *func;	/* tracepoint name, uprobe or kernel function */
	uint64_t period_ns;	/* interval: period; profile: 0 */
	uint64_t freq;		/* profile:hz */
	uint64_t count;		/* software/hardware:EVENT:count */
	uint64_t offset;	/* kprobe:FUNCTION+OFFSET */
	struct tp_format *fmt;	/* tracepoints */
	const struct usdt_note *usdt;	/* usdt: the note of this location */
	const struct sema_kfunc *kf;	/* fentry/fexit: the function's signature */
	bool src_line;		/* uprobe:TARGET@FILE:LINE: func is the line's address */
	struct src_loc loc;
};

struct sema_probe {
	struct ast_node *node;	/* N_PROBE */
	struct sema_attach *attach;
	int nattach;
	bool uses_args;		/* args/arg0.. differ per attach point: one BPF program each */
	bool func_sites;	/* func without BPF cookies: wildcard uprobes become one
				 * attach point per function (sema_expand_func_sites) */
	int skipped_attach;	/* attach points left out (a kernel function not there) */
	bool skipped_tracepoint;	/* one of them a tracepoint */
	bool left_out;		/* none was there and missing_probes let it go: checked
				 * in the context of its first attach point, never loaded */
	bool btf_ctx;		/* raw tracepoints loaded as tp_btf (BTF-typed), whose
				 * pointers helpers such as bpf_skb_output accept */
	int index;
};

enum map_kind {
	MK_NONE,
	MK_VALUE,	/* '=': integer, string, tuple ... (shared, not per-CPU) */
	MK_COUNT, MK_SUM, MK_AVG, MK_MIN, MK_MAX, MK_STATS, MK_HIST, MK_LHIST,
	MK_TSERIES,	/* tseries(): a ring of intervals per key (output/tseries.c) */
};

/* how tseries() combines the values of one interval: the last one (the
 * default), or avg, max, min, sum of them */
enum ts_agg { TS_LAST, TS_AVG, TS_MAX, TS_MIN, TS_SUM };
/* most intervals a tseries() keeps per key */
#define TS_MAX_INTERVALS 1000000
/* the longest interval: 10000 days, so that now's interval number is not 0 */
#define TS_MAX_INTERVAL_NS (10000ll * 86400 * 1000000000)

struct sema_map {
	const char *name;	/* "@lat" */
	struct src_loc loc;	/* first use */
	enum map_kind kind;
	struct type key;	/* TY_NONE: no key */
	struct type value;	/* MK_VALUE: the stored type; else an aggregate type */
	uint32_t key_size;	/* bytes in BPF (8 for a keyless map's dummy key); +8 for hist buckets */
	uint32_t value_size;	/* bytes of one (per-CPU) value */
	bool percpu;
	bool deleted;		/* the script delete()s entries: per-key bookkeeping (start
				 * timestamps by tid), left out of metrics when MK_VALUE */
	bool bpf_read;		/* an aggregation read in an expression (percpu lookup) */
	bool poisoned;		/* assigned a value that had an error: reads are
				 * quiet errors, not "read but never assigned" */
	uint32_t array_slots;	/* >0: a per-CPU array of this many slots, indexed by a u32 (0, or
				 * the hist/lhist bucket; their last slot is the sum of the
				 * values), for aggregations without keys */
	const struct ast_map_decl *decl;	/* let @m = lruhash(n); or NULL */
	uint32_t max_entries;	/* declared: the BPF map's size (0: max_map_keys) */
	bool lru;		/* declared lruhash or percpulruhash */
	int id;
	int64_t lh_min, lh_max, lh_step;
	int hist_bits;		/* hist(v, k): k, 2^k buckets per power of two (0..5) */
	bool hist_set;		/* a hist() call has set hist_bits */
	/* tseries(v, interval, n[, agg]): key + 8-byte slot (epoch % n), a
	 * per-CPU value {value, meta, epoch}; epoch = TAI ns / interval */
	uint64_t ts_interval;	/* ns, > 0 */
	uint32_t ts_nintervals;	/* 1..TS_MAX_INTERVALS */
	enum ts_agg ts_agg;
	bool ts_unsigned;	/* the values are unsigned (print and compare so) */
	const char **labels;	/* a Prometheus label name per key element, from the
				 * first keyed use (docs/metrics.md); NULL: no key */
};

/* what EV_PRINT_MAP's third word asks after the print: print(@m); clear(@m);
 * is one event (sema/printclear.c), read and cleared in one step */
enum print_then { PRINT_ONLY, PRINT_THEN_CLEAR, PRINT_THEN_ZERO };

/* Events the BPF side sends through the ring buffer. */
enum event_kind {
	EV_PRINTF = 1,	/* printf(fmt, ...) */
	EV_EXIT,	/* exit() */
	EV_PRINT_MAP,	/* print(@m, top, div), then enum print_then */
	EV_CLEAR,	/* clear(@m) */
	EV_ZERO,	/* zero(@m) */
	EV_PRINT_VAL,	/* print(expr) of a non-map value */
	EV_TIME,	/* time(fmt) */
	EV_CAT,		/* cat(fmt, ...) */
	EV_SYSTEM,	/* system(fmt, ...) */
	EV_JOIN,	/* join(argv) */
	EV_PID_SEEN,	/* a pid first met by ustack/usym: read its mappings now */
	EV_EXEC,	/* a process exec'd: its pid and path (runtime/exited.c) */
	EV_HELPER_ERROR,/* -k: a BPF helper failed at site id; the error code follows */
	EV_ERRORF,	/* errorf(fmt, ...): located ERROR on stderr */
	EV_WARNF,	/* warnf(fmt, ...): located WARNING on stderr (--no-warnings) */
	EV_PY_SCAN,	/* pystack met a pid or thread not yet scanned: its pid follows */
	EV_PY_STACK,	/* pystack stored a new stack: its key follows */
	EV_SKBOUTPUT,	/* skboutput(): {u64 boot ns, u64 length}, then the packet
			 * (through the perf event array, not the ring buffer) */
};

/* A printf-like event: format string and the types of its arguments as
 * laid out in the record after the 8-byte header. */
struct sema_event {
	enum event_kind kind;
	const char *fmt;		/* printf/time/cat/system/errorf/warnf */
	struct type args;		/* TY_TUPLE of the argument types, offsets from 0 */
	struct fmt_spec *spec;		/* parsed format (common/format.h) */
	int id;
	struct src_loc loc;
	uint64_t offset;		/* skboutput: bytes of the packet not written (fmt: its path) */
};

/* ---- builtins: what sema checks, what stdlib/ fills and codegen lowers ---- */

struct sema_ctx;
struct cg_ctx;

enum builtin_kind {
	BI_VAR,		/* identifier: pid, comm */
	BI_FUNC,	/* expression call: str(x), ksym(x) */
	BI_STMT,	/* call used as a statement: printf, exit, delete */
	BI_AGG,		/* aggregation, only as '@m[..] = f(..)': count, hist */
};

/* an LLVMValueRef (llvm-c/Types.h): sema only carries the lowering
 * functions, stdlib defines them over codegen's layer */
struct LLVMOpaqueValue;

struct builtin {
	const char *name;
	enum builtin_kind kind;
	int min_args, max_args;
	/* Type the N_IDENT/N_CALL node: set n->type, report errors through s.
	 * NULL: the result is `type` below and arguments are typed generically. */
	void (*check)(struct sema_ctx *s, struct ast_node *n);
	struct type type;
	/* BI_VAR/BI_FUNC/BI_STMT: emit code, return an i64 (integers) or a
	 * pointer to the value's bytes (strings, tuples), NULL for void */
	struct LLVMOpaqueValue *(*lower)(struct cg_ctx *cg, struct ast_node *n);
	/* optional, for values held in memory: write the value straight into
	 * dst (dst_size bytes, already zeroed) instead of a stack temporary,
	 * so big events and keys do not exceed the 512-byte BPF stack */
	void (*lower_into)(struct cg_ctx *cg, struct ast_node *n, struct LLVMOpaqueValue *dst,
			   uint32_t dst_size);
	/* lower_into writes every byte of a dst of type.size bytes (a helper
	 * that pads with zeros): a map key need not be zeroed under it */
	bool into_fills;
	/* BI_AGG: what it stores; codegen/maps.c does the update */
	enum map_kind agg;
	/* also in user-space probes (--user-probes: the agent runs the
	 * bytecode and has the helpers this lowers to) */
	bool user;
	const char *summary;	/* one line for docs and -h */
	const char *signature;	/* optional: the call's form, which an error
				 * about its number of arguments shows:
				 * "lhist(value, min, max, step)" */
};

/* How sema finds a builtin: an identifier (is_call false) or a function
 * (is_call true); NULL when there is none.  stdlib_find in practice. */
typedef const struct builtin *(*sema_builtin_fn)(const char *name, bool is_call);
/* "; did you mean 'print'?" for an unknown builtin, into buf; "" when no
 * name is near.  stdlib_suggest in practice. */
typedef const char *(*sema_suggest_fn)(const char *name, bool is_call, char *buf, size_t len);

struct sema_opts {
	sema_builtin_fn builtins;	/* required */
	sema_suggest_fn suggest;	/* optional: hints for unknown builtins */
	const char **pos_args;	/* positional parameters $1.. */
	int npos_args;
	const char **named_args;	/* "--name" and "--name=value" after the
					 * script, for getopt() (not $N) */
	int nnamed_args;
	bool *named_used;	/* optional, one per named_args: set when getopt()
				 * reads it */
	int target_pid;		/* -p, 0 if none */
	bool unsafe;
	bool has_cpid;		/* -c given */
	bool scoped;		/* -p or --container given */
	bool follow;		/* --follow: uprobe:*: stays one attach point, whose
				 * files the runtime rescans (not one per file now) */
	bool user_probes;	/* --user-probes: uprobe bodies run in the traced
				 * processes' agents (docs/user-probes.md) */
	const regex_t *probe_filter;	/* --probe-filter REGEX: only the attach points
					 * whose name it matches (BEGIN, END, self stay) */
};

struct sema_result {
	struct ast_node *program;
	struct sema_probe *probes;
	int nprobes;
	struct sema_map **maps;	/* sorted by name */
	int nmaps;
	struct sema_event **events;
	int nevents;
	int nattach;		/* total concrete attach points */
	bool ends_itself;	/* a BEGIN/END written "begin"/"end", or syntax 0.17 does
				 * not parse (bpftrace 0.24 on): with only those probes,
				 * the run ends after BEGIN instead of waiting for Ctrl-C
				 * as 0.17 does */
	bool own_scope;		/* the script reads in_scope/scoped: it applies -p and
				 * --container itself, sonde filters none of its probes */
	bool has_self;		/* a self:signal:SIGUSR1 probe: SIGUSR1 runs it instead
				 * of printing the maps */
	bool stops;		/* the script calls exit(): once it has, every probe but
				 * BEGIN and END returns at once, as in the newest
				 * release (0.17 runs them until they are detached) */
	bool has_bench;		/* bench: probes (--bench runs them) */
	bool has_iter;		/* an iter: probe: the run reads it once, then ends */
	struct sema_named_opt *named_opts;	/* getopt()'s options, in source order */
	int nnamed_opts;
};

/* a named option the script reads with getopt("name", default, "description") */
struct sema_named_opt {
	const char *name;
	const char *desc;	/* "" without a description */
};

/* NULL after reporting errors through d. */
struct sema_result *sema_run(struct arena *a, struct diag *d, struct ast_node *prog,
			     const struct sema_opts *opts);
const char *sema_probe_type_name(enum probe_type t);

/* ---- for stdlib/ builtins ------------------------------------------------- */

/* type-check an expression; returns its type (TY_ERROR after an error) */
struct type *sema_expr(struct sema_ctx *s, struct ast_node *e);
/* a positional parameter as the text it was given, numbers too: str($1) */
struct type *sema_positional_text(struct sema_ctx *s, struct ast_node *e);
void sema_error(struct sema_ctx *s, struct src_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* an error of the command line, not of the source: "ERROR: msg" on its
 * own line, as the newest bpftrace says it */
void sema_error_plain(struct sema_ctx *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* an error located as the newest bpftrace's stdlib fail() says it
 * ("stdin:1:40-74: ERROR: msg", the line, ~ under the span), for the
 * constructs 0.17 lacks whose messages the release's tests read */
void sema_error_release(struct sema_ctx *s, struct src_loc loc, const char *msg);
/* getopt("name", ..., "desc"): the option as -- --help lists it (once) */
void sema_named_opt(struct sema_ctx *s, const char *name, const char *desc);
struct arena *sema_arena(struct sema_ctx *s);
const struct sema_opts *sema_options(struct sema_ctx *s);
/* the probe being checked, and its first attach point */
const struct sema_probe *sema_cur_probe(struct sema_ctx *s);
/* args alone in a tracepoint probe: n typed as a struct of the record's
 * fields (print(args)); false when a probe is not a tracepoint */
bool sema_tp_args(struct sema_ctx *s, struct ast_node *n);
/* the current probe's value differs per attach point (probe, args ...):
 * codegen emits one BPF program per attach point */
void sema_need_per_attach(struct sema_ctx *s);
/* the current probe's raw tracepoints pass BTF pointers to helpers:
 * loaded as tp_btf programs, one per attach point */
void sema_need_btf_ctx(struct sema_ctx *s);
/* func in a wildcard uprobe on a kernel without BPF cookies: after this
 * pass the probe's wildcard uprobes become one attach point per function;
 * false when that was tried already (the wildcard matched nothing) */
bool sema_need_func_sites(struct sema_ctx *s);
/* the script applies -p/--container itself (in_scope, scoped) */
void sema_own_scope(struct sema_ctx *s);
/* the script calls exit() */
void sema_script_stops(struct sema_ctx *s);
/* the last check of the probe (the quiet passes before it only learn map
 * kinds): a builtin folds itself into a constant only then */
bool sema_final_pass(struct sema_ctx *s);
/* a located warning, once (in the last pass); --no-warnings silences it */
void sema_warn(struct sema_ctx *s, struct src_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* checking a branch that a constant condition never takes (`if (0)`) */
bool sema_dead_code(struct sema_ctx *s);
/* the kernel's BTF declares a function of this name */
bool sema_kernel_func(struct sema_ctx *s, const char *name);
/* the expression folds to a compile-time integer (no error when not) */
bool sema_fold_const(struct ast_node *e, int64_t *out);
/* the argument must be a compile-time integer; returns false after an error */
bool sema_const_int(struct sema_ctx *s, struct ast_node *e, int64_t *out);
/* register a printf-like event for call `c` whose args (after the format) are `args` */
struct sema_event *sema_add_event(struct sema_ctx *s, enum event_kind kind,
				  struct ast_node *c, const char *fmt,
				  struct ast_node *args);
/* the map named by an N_MAP node (created on first use) */
struct sema_map *sema_map_of(struct sema_ctx *s, struct ast_node *map);
/* check the keys of N_MAP node `m` and unify them with the map's key type
 * (the first use of a map decides it) */
void sema_map_keys(struct sema_ctx *s, struct ast_node *m);
/* the call is the value of '@m[..] = f(..)'; NULL when used elsewhere */
struct ast_node *sema_assign_target(struct sema_ctx *s);
/* declare that map node `m` holds aggregate `kind`; checks consistency */
bool sema_map_set_kind(struct sema_ctx *s, struct ast_node *m, enum map_kind kind,
		       struct src_loc loc);

/* the file a uprobe/usdt TARGET names: a path (inside the -p process's
 * root when it has one there), or a program in PATH; NULL when none */
const char *sema_target_file(struct sema_ctx *s, const char *target);

/* uprobe args (what: "args.n", "args", for messages): every attach point
 * of the current probe gets its function's parameters from DWARF in
 * at->kf (sema/dwarf.c), one program each; false after an error, or in a
 * first pass that leaves a wildcard to be expanded */
bool sema_uprobe_args(struct sema_ctx *s, const char *what, struct src_loc loc);

/* a pointer to the kernel's struct NAME (from BTF), in kernel memory;
 * uint64 when the kernel has no BTF or no such struct */
struct type sema_kernel_ptr(struct sema_ctx *s, const char *name);

/* the common integer types */
extern const struct type ty_int64, ty_uint64, ty_void;
/* a bool: an integer 0 or 1 that prints as false or true */
extern const struct type ty_bool;
struct type ty_str(uint32_t size);

#endif
