/*
 * codegen.h - typed AST to a BPF ELF object, through the LLVM C API.
 *
 * cg_compile() emits one BPF function per probe (one per attach point when
 * the body reads per-attach data such as tracepoint args), BTF-defined maps
 * in ".maps" (per-CPU hashes for aggregations, one ring buffer for events),
 * and debug info so LLVM writes the BTF libbpf needs.  The result is an ELF
 * image in memory.
 *
 * The second half is the BPF-domain layer over LLVM (cg_map_lookup,
 * cg_helper_call, cg_probe_read ...) that stdlib/ builtins lower through.
 */
#ifndef SONDE_CODEGEN_H
#define SONDE_CODEGEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/bpf.h>
#include <llvm-c/Core.h>

#include "sema/sema.h"

struct cg_opts {
	int emit_ir;		/* print LLVM IR to `out` */
	int emit_asm;		/* print BPF assembly to `out` */
	FILE *out;
	uint64_t start_ns;	/* CLOCK_MONOTONIC at startup, for elapsed */
	int filter_pid;		/* -p: every probe returns unless pid matches */
	uint64_t filter_cgroup;	/* --container: cgroup id every probe requires */
	int filter_cgroup_level;/* its depth under the v2 root: the task's ancestor
				 * at this level must be filter_cgroup (child
				 * cgroups of the container match too) */
	int child_pid;		/* -c: the child's pid, for cpid */
	uint32_t map_keys_max;	/* keys per map (0: CG_MAP_KEYS_MAX) */
	bool map_keys_told;	/* map_keys_max was set (flag, environment, config):
				 * hist(v, k) slots are then not capped */
	int exclude_pid;	/* --exclude-self: sonde's pid, which no probe sees */
	const char *src;	/* program text: put in BTF line info so the verifier's
				 * log quotes the source line of a failing instruction */
	bool hist_sum;		/* hist/lhist also add each value into the slot
				 * CG_HIST_SUM_BUCKET of their key (the exact _sum of a
				 * Prometheus histogram); only scrape formats read it */
	int helper_check;	/* -k (and -kk): map updates and deletes and
				 * memory reads report failures (EV_HELPER_ERROR) */
	int ncpus;		/* per-CPU slots an aggregation read in an expression
				 * folds (0: 1): the possible CPUs, or with
				 * --user-probes the agents' shards (SA_NSHARDS) */
};

/* -k: a helper call whose failure is reported, by EV_HELPER_ERROR id */
struct cg_site {
	struct src_loc loc;	/* the expression or statement that called it */
	const char *helper;	/* "map_update_elem", "probe_read_str" ... */
	const char *map;	/* map_lookup_elem: the map read ("@start"), whose
				 * key was absent (the error code is then 0) */
};

/* the bucket index of a hist/lhist key's sum slot (cg_opts.hist_sum) */
#define CG_HIST_SUM_BUCKET UINT64_MAX

/* One BPF program in the object and the attach points it serves. */
struct cg_prog {
	const char *name;	/* function / program name in the object */
	const struct sema_probe *probe;
	int first_attach, nattach;	/* slice of probe->attach */
	bool reads_cookie;	/* the code reads its BPF cookie (func, probe in a
				 * shared kprobe program): the runtime must set one */
};

struct cg_object {
	void *elf;		/* malloc'd ELF image */
	size_t elf_size;
	struct cg_prog *progs;	/* arena */
	int nprogs;
	struct cg_site *sites;	/* arena; -k only */
	int nsites;
};

/* name of the ring buffer map and the lost-event counter in the object */
#define CG_RINGBUF_MAP "events"
#define CG_LOST_MAP "lost_events"
/* keys a map holds unless told (--map-keys-max, BPFTRACE_MAP_KEYS_MAX), as
 * bpftrace; hist and lhist maps hold this many slots per key (a slot per
 * (key, bucket) in use) */
#define CG_MAP_KEYS_MAX 4096
#define CG_HIST_SLOTS_PER_KEY 16
/* a keyed tseries() holds keys x num_intervals slots, at most this many */
#define CG_TS_SLOTS_MAX 262144
/* hist(v, k)'s slots are CG_HIST_SLOTS_PER_KEY << k per key, at most this
 * many in all when no size was told (a per-CPU hash: 27 MB on 2 CPUs) */
#define CG_HIST_SLOTS_MAX (1u << 18)
/* per-CPU counters, by map id, of updates a full map refused */
#define CG_MAP_FAILS_MAP "map_fails"
/* exit()'s flag: a one-word mmap'able array, present when the script exits */
#define CG_STOP_MAP "sonde_stop"
/* --container on a kernel without the ancestor helper in tracing programs:
 * a cgroup array whose slot 0 the runtime sets to the container's cgroup */
#define CG_CGROUP_MAP "sonde_cgroup"
/* stack traces of depth N: the hash "ustk_N" (user) or "kstk_N" (kernel)
 * from the frames (N u64, zero padded) to a u32 id; CG_STACK_LOST_MAP
 * counts the stacks they had no room for (per CPU), and CG_STACK_LOST_ID
 * is the id such a stack gets.  Kernel and user stacks have maps of their
 * own so that one program run (@[kstack, ustack] in a perf event's NMI)
 * inserts at most one new stack into each: the kernel's allocator for
 * maps that are not preallocated keeps one free element per CPU at first
 * and refills only after the program returns. */
#define CG_STACK_MAP_FMT "%cstk_%u"
#define CG_STACK_MAP_ENTRIES 131072
/* kernel stacks: a preallocated STACK_TRACE map (stdlib/stacks.c) */
#define CG_KSTACK_MAP_ENTRIES 4096
#define CG_STACK_LOST_MAP "stk_lost"
#define CG_STACK_LOST_ID (-28)	/* -ENOSPC */
/* a join() event: header, u64 count, then CG_JOIN_ARGS NUL-terminated
 * slots of CG_JOIN_ARG_SIZE bytes (only `count` of them sent) */
#define CG_JOIN_ARGS 16
#define CG_JOIN_ARG_SIZE 1024
/* BPF map names are at most 15 characters: maps are named m<ID>_<name> */
const char *cg_map_obj_name(struct arena *a, const struct sema_map *m);

/* 0 or -errno after a message on stderr: -E2BIG when the program passes
 * a BPF limit that only code generation sees (the 512-byte stack), a
 * located user error; anything else is sonde's own fault */
int cg_compile(struct arena *a, const struct sema_result *r,
	       const struct cg_opts *opts, struct cg_object *out);

/* ---- the BPF-domain layer, for stdlib/ ------------------------------------ */

struct cg_ctx;

/* BPF helper ids: enum bpf_func_id in <linux/bpf.h> (BPF_FUNC_*) */

LLVMBuilderRef cg_builder(struct cg_ctx *cg);
LLVMContextRef cg_context(struct cg_ctx *cg);
LLVMTypeRef cg_i8(struct cg_ctx *cg);
LLVMTypeRef cg_i32(struct cg_ctx *cg);
LLVMTypeRef cg_i64(struct cg_ctx *cg);
LLVMTypeRef cg_ptr(struct cg_ctx *cg);
LLVMValueRef cg_const(struct cg_ctx *cg, uint64_t v);	/* i64 */
LLVMValueRef cg_ctx_arg(struct cg_ctx *cg);	/* the program's context pointer */
const struct sema_attach *cg_attach(struct cg_ctx *cg);	/* attach point being generated */
const struct sema_result *cg_sema(struct cg_ctx *cg);
/* does the program being generated serve several attach points? */
bool cg_shared_program(struct cg_ctx *cg);
/* bpf_get_attach_cookie(ctx), and the note that the runtime must set it */
LLVMValueRef cg_attach_cookie(struct cg_ctx *cg);
const struct cg_opts *cg_options(struct cg_ctx *cg);

/* integer or pointer-to-bytes, see struct builtin's lower */
LLVMValueRef cg_expr(struct cg_ctx *cg, struct ast_node *e);
/* store e's value into dst (size e->type.size, zero-padded to dst_size) */
void cg_expr_store(struct cg_ctx *cg, struct ast_node *e, LLVMValueRef dst, uint32_t dst_size);
/* the same into memory laid out as `to` (a tuple whose strings are wider
 * than e's: each member goes to its own offset) */
void cg_expr_store_as(struct cg_ctx *cg, struct ast_node *e, LLVMValueRef dst,
		      const struct type *to);
/* stack memory in the entry block, zeroed at the point of the call */
LLVMValueRef cg_alloca(struct cg_ctx *cg, uint32_t size, const char *name);
LLVMValueRef cg_alloca_nozero(struct cg_ctx *cg, uint32_t size, const char *name);
/* a slot that outlives the statement being lowered (a $variable) */
LLVMValueRef cg_alloca_program(struct cg_ctx *cg, uint32_t size, const char *name);
/* a statement's temporaries: every slot made between begin and end is
 * alive from where it is made to end (codegen/expr.c's cg_stmt) */
void cg_temps_begin(struct cg_ctx *cg, int *mark);
void cg_temps_end(struct cg_ctx *cg, int mark, struct src_loc loc);
/* where a stack slot's contents begin (start) and stop mattering */
void cg_lifetime(struct cg_ctx *cg, LLVMValueRef slot, uint32_t size, bool start);
/* one entry-block slot per name and program, not zeroed: for temporaries
 * used in a stretch of code that cannot run itself again before it is done
 * (a helper's key, a fixed-size event), saving BPF stack */
LLVMValueRef cg_alloca_shared(struct cg_ctx *cg, uint32_t size, const char *name);
void cg_memset0(struct cg_ctx *cg, LLVMValueRef dst, uint32_t size);
void cg_memcpy(struct cg_ctx *cg, LLVMValueRef dst, LLVMValueRef src, uint32_t size);
LLVMValueRef cg_gep(struct cg_ctx *cg, LLVMValueRef base, uint32_t off);
LLVMValueRef cg_load_i64(struct cg_ctx *cg, LLVMValueRef ptr);	/* 8-byte load */
/* fentry/fexit: the 8-byte context slot at off as a value of type t (an
 * integer narrower than 8 bytes is its low part, extended as t says) */
LLVMValueRef cg_kfunc_slot(struct cg_ctx *cg, uint32_t off, const struct type *t);
/* uprobe (kf->regs): argument i as a value of type t, from its register or
 * its stack slot (a struct: a pointer to its bytes on the BPF stack) */
LLVMValueRef cg_uarg(struct cg_ctx *cg, const struct sema_kfunc *kf, int i, const struct type *t);
/* args alone in a tracepoint: the record's fields into a value laid out
 * as n's struct type (sema_tp_args) */
LLVMValueRef cg_tp_args(struct cg_ctx *cg, struct ast_node *n);
void cg_store_i64(struct cg_ctx *cg, LLVMValueRef v, LLVMValueRef ptr);

LLVMValueRef cg_helper_call(struct cg_ctx *cg, int helper, LLVMValueRef *args, int nargs);
/* the address of the kernel variable with vmlinux BTF id btf_id, as the
 * verifier resolves it (ld_imm64 with BPF_PSEUDO_BTF_ID: for a per-CPU
 * variable a per-CPU pointer, for bpf_per_cpu_ptr/bpf_this_cpu_ptr) */
LLVMValueRef cg_ksym_btf(struct cg_ctx *cg, uint32_t btf_id);
/* the same, never checked by -k: for calls whose failure is part of the
 * protocol (a BPF_NOEXIST insert that finds the key there) */
LLVMValueRef cg_helper_call_quiet(struct cg_ctx *cg, int helper, LLVMValueRef *args, int nargs);
/* bpf_probe_read_{kernel,user}[_str](dst, size, src) */
LLVMValueRef cg_probe_read(struct cg_ctx *cg, LLVMValueRef dst, uint32_t size,
			   LLVMValueRef src, int user, int str);
/* the map an N_MAP node names */
const struct sema_map *cg_map_of(struct cg_ctx *cg, struct ast_node *map);
/* pointer to the map's definition global, for helper arguments */
LLVMValueRef cg_map_ref(struct cg_ctx *cg, const struct sema_map *m);
LLVMValueRef cg_map_lookup(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key);
/* -k: a lookup p of m that found nothing is reported (EV_HELPER_ERROR of
 * map_lookup_elem, code 0); reads of a value only, not the lookups of an
 * update that creates the key */
void cg_check_lookup(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef p);
/* bpf_map_lookup_percpu_elem: the value a given CPU holds (cpu: i64) */
LLVMValueRef cg_map_lookup_cpu(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key,
			       LLVMValueRef cpu);
LLVMValueRef cg_map_update(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key,
			   LLVMValueRef val, uint64_t flags);
LLVMValueRef cg_map_delete(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key);
/* the key of an N_MAP node built on the stack (extra 8 bytes zeroed at the end
 * when with_bucket, for hist/lhist slot index); returns the pointer */
LLVMValueRef cg_map_key(struct cg_ctx *cg, struct ast_node *map, int with_bucket);
/* delete(@m, k) of a tseries map: each of k's interval slots; an i64,
 * 1 when any was there */
LLVMValueRef cg_tseries_delete(struct cg_ctx *cg, struct ast_node *map);
/* a tseries map deletes a key's slots one by one: at most this many */
#define CG_TS_DELETE_MAX 4096
/* update map node `map` with aggregation call `call` (count(), hist(x) ...) */
void cg_agg_update(struct cg_ctx *cg, struct ast_node *map, struct ast_node *call);
/* send event ev: header {u32 kind, u32 id}, then args laid out per ev->args;
 * extra (if not NULL) are raw i64 words stored first (e.g. top/div) */
void cg_event_emit(struct cg_ctx *cg, const struct sema_event *ev, struct ast_node *args);
void cg_event_raw(struct cg_ctx *cg, enum event_kind kind, uint32_t id,
		  const uint64_t *words, int nwords);
/* exit(): set the stop flag userspace reads from memory, then send EV_EXIT
 * (the event only wakes the consumer; a full ring buffer may drop it) */
/* exit(): code (an i64, or NULL for 0) becomes sonde's exit status */
void cg_stop_request(struct cg_ctx *cg, LLVMValueRef code);
/* the probe returns when exit() has been called (sema_result.stops) */
void cg_return_if_stopped(struct cg_ctx *cg);
/* send `size` bytes at buf as one event (buf starts with the header);
 * size may be a run-time value bounded by the buffer's size */
void cg_event_output(struct cg_ctx *cg, LLVMValueRef buf, LLVMValueRef size);
/* a map beside the program's @maps (stack traces, scratch buffers),
 * declared on first use; the same name always gives the same map */
LLVMValueRef cg_aux_map(struct cg_ctx *cg, const char *name, uint32_t type,
			uint32_t max_entries, uint32_t key_size, uint32_t value_size);
/* the same with map_flags (BPF_F_NO_PREALLOC ...) */
LLVMValueRef cg_aux_map_flags(struct cg_ctx *cg, const char *name, uint32_t type,
			      uint32_t max_entries, uint32_t key_size, uint32_t value_size,
			      uint32_t flags);
/* `size` bytes of per-CPU scratch memory named `name`, for temporaries too
 * big for the 512-byte BPF stack (join buffers ...).  Not zeroed; valid
 * until the program returns; the program returns if the lookup fails. */
LLVMValueRef cg_scratch(struct cg_ctx *cg, const char *name, uint32_t size);
/* number of entries in map m (bpf_for_each_map_elem with a callback that
 * only continues), an i64 */
LLVMValueRef cg_map_count(struct cg_ctx *cg, const struct sema_map *m);
/* i1: does the current task pass -p / --container (true without them) */
LLVMValueRef cg_in_scope(struct cg_ctx *cg);
/* stop the program here: return 0 */
void cg_return(struct cg_ctx *cg);

/* if-then helper: returns the "then" block already positioned; call
 * cg_end_if() to continue after it */
struct cg_if { LLVMBasicBlockRef then_bb, end_bb; };
struct cg_if cg_begin_if(struct cg_ctx *cg, LLVMValueRef cond_i1, const char *name);
void cg_end_if(struct cg_ctx *cg, struct cg_if *b);

#endif
