/*
 * sema_int.h - state shared by the files of sema/ (not a public header).
 */
#ifndef SONDE_SEMA_INT_H
#define SONDE_SEMA_INT_H

#include "sema/sema.h"

struct sema_var {
	struct sema_var *next;
	const char *name;
	struct type type;
	struct src_loc loc;
	bool declared;		/* let $x: T: what it is assigned becomes a T */
};

struct sema_struct {
	struct sema_struct *next;
	struct type type;	/* TY_STRUCT; TY_INT for an enum */
	bool is_enum;		/* enum NAME: a namespace of its own */
	bool packed;		/* __attribute__((packed)): aligned to 1 */
};

/* an enumerator the script defines: a name for a constant */
struct sema_enumval {
	struct sema_enumval *next;
	const char *name;
	uint64_t value;
	const struct type_enum *ev;	/* the enum it belongs to */
};

/* a kernel struct already converted, by BTF id: each is converted once */
struct btf_done {
	struct btf_done *next;
	uint32_t id;
	struct type *type;
};

struct sema_ctx {
	struct arena *a;
	struct diag *d;
	const struct sema_opts *opts;
	struct sema_result *r;
	bool quiet;		/* first passes: infer map kinds, report nothing */
	int unknown_reads;	/* reads of a map with no kind yet, this pass */
	int errors;
	struct sema_probe *probe;	/* being checked */
	struct sema_var *vars;		/* scratch variables of this probe */
	struct sema_var **learned;	/* per probe: its variables after the first
					 * pass, with the widest string each held */
	struct ast_node *assign_target;	/* map of '@m = call()' while checking call */
	struct sema_struct *structs;	/* struct, union and enum definitions */
	struct sema_enumval *enumvals;	/* the script's enumerators */
	int loop_depth;
	int for_depth;	/* inside a for loop's body (a callback of its own) */
	int dead;		/* inside branches a constant condition never takes */
	struct btf_done *btf_done;
	struct dwarf_done *dwarf_done;	/* dwarf.c: DWARF structs with their fields */
	/* maps: grow-only array, sorted at the end; map_index finds them by
	 * name (open addressing, a power of two of slots, at most half full) */
	struct sema_map **maps;
	int nmaps;
	struct sema_map **map_index;
	uint32_t map_index_cap;
	struct sema_event **events;
	int nevents;
};

#define STR_MAX 64	/* bytes of a string value, NUL included */
#define MAX_TUPLE 16	/* fields of a tuple, keys of a map */
#define SEMA_MAX_QUIET_PASSES 16	/* a chain of maps read before assigned, this deep */

/* what a callback that expands one attach point into many collects into:
 * the probe's new attach points from `at`, n of them so far */
struct sema_collect {
	struct sema_ctx *s;
	struct sema_probe *p;
	struct ast_attach *at;
	int n;
};

/* kprobes.c: kprobe/kretprobe attach points from raw's n parts
 * ("kprobe", ["MODULE",] "FUNCTION[+OFFSET]"), wildcards expanded */
void sema_kprobe_resolve(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
			 enum probe_type type, const char **parts, int n);
/* kprobes.c: fentry/fexit attach points, each with its BTF signature */
void sema_fentry_resolve(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
			 enum probe_type type, const char **parts, int n);
/* btf.c: the signature of kernel function fn (in module, NULL: the
 * kernel's own), NULL when BTF does not declare it */
const struct sema_kfunc *sema_btf_kfunc(struct sema_ctx *s, const char *module, const char *fn);
/* btf.c: the arguments of raw tracepoint name as BTF names them, NULL
 * when it does not */
const struct sema_kfunc *sema_btf_rawtp(struct sema_ctx *s, const char *module, const char *name);
/* kprobes.c: rawtracepoint:[MODULE:]NAME, wildcards expanded against BTF */
void sema_rawtp_resolve(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
			const char **parts, int n);

/* dwarf.c: a uprobe attach point's function from its binary's DWARF
 * (kept in at->kf), for args.NAME; NULL after an error at loc */
const struct sema_kfunc *sema_dwarf_ufunc(struct sema_ctx *s, struct sema_attach *at,
					  struct src_loc loc);
/* dwarf.c: in a uprobe, uretprobe or usdt probe, the struct (union) NAME
 * of the probed binary's DWARF; false when it has none */
bool sema_dwarf_named(struct sema_ctx *s, bool is_union, const char *name, struct type *out);
/* dwarf.c: uprobe:TARGET@FILE:LINE[:COL] (parts as split at ':', n of
 * them): an attach point at the line's address, from the target's DWARF
 * line table; false when the attach point is not of that form (TARGET@X
 * an existing file, or LINE not a number) */
bool sema_uprobe_srcline(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
			 enum probe_type type, const char **parts, int n);
/* dwarf.c: a DWARF struct (st->dwarf set) with its fields */
const struct type *sema_dwarf_complete(struct sema_ctx *s, const struct type *st);

/* types.c */
bool sema_is_int(const struct type *t);		/* an integer or a pointer */
bool sema_is_error(const struct type *t);
bool sema_is_int_storage(const struct type *t);	/* TT_INT_STORAGE */
/* lay out a type for maps and events (integers 8 bytes, tuple fields
 * 8-aligned, sizes rounded to 8); returns the size */
uint32_t sema_layout(struct type *t);
/* do values of type b fit where a is stored?  widen: strings grow a */
bool sema_compatible(struct type *a, const struct type *b, bool widen);
bool sema_tuple_comparable(const struct type *a, const struct type *b);
struct type sema_deep_copy(struct arena *a, const struct type *t);
void sema_define_struct(struct sema_ctx *s, struct ast_node *d);
/* C alignment of a type in a struct (a struct: its widest member) */
uint32_t sema_type_align(struct sema_ctx *s, const struct type *t);
/* a value that is stored or printed needs every field of every struct it
 * holds (not behind pointers): kernel structs are read from BTF lazily */
void sema_complete_deep(struct sema_ctx *s, struct type *t);

/* maps.c */
const char *sema_kind_name(enum map_kind k);
/* the type of a map read in an expression */
struct type sema_map_read_type(struct sema_ctx *s, struct ast_node *m);
/* "map @x is USE but never assigned; did you mean @y?" */
void sema_map_unassigned(struct sema_ctx *s, const struct sema_map *map, struct src_loc loc,
			 const char *use);
/* '@m[..] = v': unify v with the map's value type */
void sema_map_store_value(struct sema_ctx *s, struct ast_node *m, const struct type *v,
			  struct src_loc loc);

/* expr.c */
struct type *sema_set(struct ast_node *e, struct type t);	/* e->type = t */
struct type *sema_err_type(struct ast_node *e);		/* e->type = TY_ERROR */
/* a call, as an expression or (as_stmt) a statement */
struct type *sema_check_call(struct sema_ctx *s, struct ast_node *e, bool as_stmt);
/* an expression whose value is dropped: calls may return nothing, and so
 * may both branches of a ?: */
struct type *sema_check_expr_stmt(struct sema_ctx *s, struct ast_node *e);
/* a pointer whose pointee has its size: a struct named before its
 * definition was complete (`struct node *next` inside node) gets it now */
struct type sema_ptr_complete(struct sema_ctx *s, const struct type *p);
/* args.c: a tracepoint's args.FIELD, fentry/fexit's and a uprobe's args.NAME */
struct type *sema_check_args_field(struct sema_ctx *s, struct ast_node *e);
struct type *sema_check_kargs_field(struct sema_ctx *s, struct ast_node *e);
/* --user-probes and the probe being checked runs in the agents (a uprobe
 * or uretprobe): only builtins marked .user, maps in the shared memory */
bool sema_in_user_probe(struct sema_ctx *s);

/* sema.c */
struct sema_var *sema_var_find(struct sema_ctx *s, const char *name);
void sema_var_assign(struct sema_ctx *s, struct ast_node *target, const struct type *t,
		     struct src_loc loc);

void sema_resolve_attach(struct sema_ctx *s, struct sema_probe *p);
/* sema.c: the statements of a block (not its value) */
void sema_check_stmts(struct sema_ctx *s, struct ast_node *block);
/* print(@m); clear(@m); (or zero) in stmts: one event (printclear.c) */
void sema_join_print_clear(struct ast_node *stmts);
/* scope.c: `let` and `for` variables get names of their own per block */
void sema_scope_probe(struct sema_ctx *s, struct ast_node *probe);
/* scope.c: a variable's name as written, for messages ("x" for "x'2") */
const char *sema_var_shown(struct sema_ctx *s, const char *name);
/* probes.c: limits the kernel puts on attach points, checked once all
 * probes are resolved (programs on one tracepoint) */
void sema_check_attach_limits(struct sema_ctx *s);
/* probes.c: a new, zeroed attach point of p */
struct sema_attach *sema_push_attach(struct sema_ctx *s, struct sema_probe *p);
/* probes.c: wildcard uprobes read by func or probe, one attach point per function */
void sema_expand_func_sites(struct sema_ctx *s, struct sema_probe *p);
/* usdt.c: one attach point per SDT note of `target` matching `pattern`
 * ("NAME" or "PROVIDER:NAME", globs allowed) */
void sema_usdt_expand(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
		      const char *target, const char *pattern);
/* usdt.c: usdt:*:PATTERN with -p: the same for each file the process maps */
void sema_usdt_expand_pid(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
			  const char *pattern);
/* C type written in a cast/sizeof/struct field -> type; false after error */
bool sema_ctype(struct sema_ctx *s, const struct ast_ctype *ct, struct src_loc loc,
		struct type *out);

/* btf.c: the kernel's type NAME (a struct or union when is_struct; else a
 * typedef, integer or enum); false when the kernel has no such type */
bool sema_btf_named(struct sema_ctx *s, const char *name, bool is_struct, struct type *out);
/* the kernel's "union NAME" (a union first, then a struct: one namespace
 * of tags) or "enum NAME" */
bool sema_btf_tagged(struct sema_ctx *s, enum ast_tag tag, const char *name, struct type *out);
/* the value of the kernel's enumerator NAME (BPF_MAP_TYPE_HASH); false
 * when no enum of the kernel has one */
bool sema_btf_enumerator(struct sema_ctx *s, const char *name, uint64_t *value, bool *is_unsigned);
/* the struct with its fields: a BTF struct's read now, a script struct
 * named before its definition looked up (st itself when complete) */
const struct type *sema_struct_complete(struct sema_ctx *s, const struct type *st);

#endif
