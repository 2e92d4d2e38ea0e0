/*
 * cg_int.h - state shared by the files of codegen/ (not a public header).
 */
#ifndef SONDE_CG_INT_H
#define SONDE_CG_INT_H

#include <stdbool.h>

#include <llvm-c/Core.h>
#include <llvm-c/DebugInfo.h>

#include "codegen/codegen.h"


struct cg_loop {
	LLVMBasicBlockRef cont, brk;
	struct cg_loop *outer;
};

struct cg_var {
	struct cg_var *next;
	const char *name;
	LLVMValueRef slot;	/* alloca: i64 or bytes */
	uint32_t size;		/* its bytes */
	struct src_loc loc;	/* its first assignment */
};

struct cg_fn_stack {
	LLVMValueRef fn;
	uint32_t max_temps;		/* bytes one statement holds at once */
	struct src_loc temps_loc;	/* that statement */
	const struct cg_var *vars;	/* its $variables, the last made first */
};

struct cg_ctx {
	struct arena *a;
	const struct sema_result *r;
	const struct cg_opts *opts;
	LLVMContextRef ctx;
	LLVMModuleRef mod;
	LLVMBuilderRef b;
	LLVMDIBuilderRef dib;
	LLVMMetadataRef di_file, di_cu, di_int, di_ptr, di_sp;
	LLVMTypeRef i1, i8, i32, i64, ptr;
	LLVMValueRef *map_globals;	/* by sema_map id, in this module */
	bool *map_declared;		/* by sema_map id, in any module */
	bool split;			/* several modules, linked into one object */
	LLVMValueRef ringbuf, lost;
	LLVMValueRef map_fails;	/* per-CPU counters of refused updates, by map id */
	/* the function being generated */
	LLVMValueRef fn;
	LLVMValueRef ctx_arg;
	LLVMBasicBlockRef entry;	/* the allocas, then a branch to init */
	LLVMBasicBlockRef init;		/* zeroing of variables, the frame's slots */
	/* values too big for the 512-byte stack (a 1024-byte string) live in
	 * this function's per-CPU frame: frame_base points into it (loaded in
	 * init), frame_size bytes are taken so far */
	LLVMValueRef frame_slot, frame_base;
	uint32_t frame_size;
	const struct sema_probe *probe;
	const struct sema_attach *attach;
	struct cg_var *vars;
	struct cg_loop *loop;
	/* stack slots of the statement being lowered (cg_stmt): their lifetime
	 * ends with it, so 100 unrolled copies of `@x = 1` share one slot
	 * instead of adding up past the 512-byte stack */
	LLVMValueRef *temps;
	uint32_t *temp_sizes;
	int ntemps;
	bool track_temps;
	/* per generated function, for the message when it needs more stack
	 * than BPF has: the statement with the most temporaries, and where
	 * the first $variable is assigned */
	struct cg_fn_stack *stacks;
	int nstacks;
	bool reads_cookie;		/* cg_attach_cookie was called for it */
	LLVMValueRef ret_flag;	/* in a for loop's callback (loops.c): the word a
				 * `return` sets before it stops the iteration */
	int nprogs;
	struct cg_prog *progs;
	/* -k: where the code being generated comes from, and the checked
	 * helper calls so far */
	struct src_loc expr_loc;
	struct cg_site *sites;
	int nsites;
};

void cg_set_loc(struct cg_ctx *cg, struct src_loc loc);
/* bpf.c: an event's buffer (on the stack, or per-CPU scratch when large)
 * with its header written; cg_event_end sends it.  expr.c's cg_event_emit
 * stores the arguments between the two. */
LLVMValueRef cg_event_begin(struct cg_ctx *cg, const struct sema_event *ev);
void cg_event_end(struct cg_ctx *cg, const struct sema_event *ev, LLVMValueRef buf);
/* emit.c: --emit ir / asm text with each run of code headed by the
 * script line it came from */
void cg_print_ir(FILE *out, const char *text, const char *src);
void cg_print_asm(FILE *out, const char *text, const char *src);
void cg_stmt(struct cg_ctx *cg, struct ast_node *st);
/* expr.c: the stack slot of variable node v (made, zeroed, on first use) */
struct cg_var *cg_var_slot(struct cg_ctx *cg, struct ast_node *v);
/* bpf.c: an uninitialised slot on the BPF stack even when it is larger
 * than on_stack_limit (a helper that takes only stack, as bpf_loop's
 * callback context) */
LLVMValueRef cg_alloca_stack(struct cg_ctx *cg, uint32_t size, const char *name);
/* the entry block's slot of that name, or NULL */
LLVMValueRef cg_find_alloca(struct cg_ctx *cg, const char *name);
/* unwind.c: LLVM bitcode (bc, size bytes, named name) parsed into the
 * module's context and linked into it, its maps weak in a split compile:
 * 0, -EBADMSG when it does not parse, -EINVAL when it does not link */
int cg_link_bitcode(struct cg_ctx *cg, const void *bc, size_t size, const char *name);
/* loops.c: for ($kv : @m) {..}, for ($i : a..b) {..} */
void cg_for(struct cg_ctx *cg, struct ast_node *st);
/* i1 truth value of an integer expression */
LLVMValueRef cg_cond(struct cg_ctx *cg, struct ast_node *e);
/* bpf.c: a BTF-defined map global in ".maps" (key_size 0: none) */
LLVMValueRef cg_declare_map(struct cg_ctx *cg, const char *name, uint32_t type,
			    uint32_t max_entries, uint32_t key_size, uint32_t value_size,
			    uint32_t map_flags);
/* bpf.c: a new module's maps every program may use (the script's are
 * declared when first referred to, cg_map_ref) */
void cg_maps_declare(struct cg_ctx *cg);
/* bpf.c: the script's maps no program of any module referred to (only
 * printed or cleared from userspace: the runtime still reads them) */
void cg_maps_declare_unused(struct cg_ctx *cg);
/* maps.c */
LLVMValueRef cg_map_read(struct cg_ctx *cg, struct ast_node *map);	/* expression value */
/* an aggregation's value at key (a pointer): every CPU's slot folded */
LLVMValueRef cg_agg_read(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key);
void cg_map_assign(struct cg_ctx *cg, struct ast_node *map, struct ast_node *value);
void cg_map_compound(struct cg_ctx *cg, struct ast_node *map, enum ast_op op,
		     LLVMValueRef v, LLVMValueRef *old_out, LLVMValueRef *new_out);
LLVMValueRef cg_arith(struct cg_ctx *cg, enum ast_op op, LLVMValueRef l, LLVMValueRef r,
		      bool is_signed);

/* memory.c: objects in traced memory (p->f, p[i], *p, and fields and
 * elements of those) */
bool cg_in_memory(const struct ast_node *e);
LLVMValueRef cg_addr(struct cg_ctx *cg, struct ast_node *e);	/* its address, an i64 */
LLVMValueRef cg_mem_read(struct cg_ctx *cg, struct ast_node *e);	/* its value */
/* a struct, array or string in memory straight into dst (no stack copy) */
void cg_mem_read_into(struct cg_ctx *cg, struct ast_node *e, LLVMValueRef dst, uint32_t size);
const struct type_field *cg_field_of(const struct ast_node *field);
uint32_t cg_elem_size(const struct type *ptr_or_array);
LLVMValueRef cg_bitfield(struct cg_ctx *cg, LLVMValueRef word, const struct type_field *f);
/* the builtin sema resolved a call or identifier to (NULL for any other node) */
static inline const struct builtin *cg_builtin_of(const struct ast_node *e)
{
	return e->kind == N_CALL || e->kind == N_IDENT ? e->note.builtin : NULL;
}

/* expr.c: `size` bytes at ptr, sign- or zero-extended to an i64 */
LLVMValueRef cg_load_ext(struct cg_ctx *cg, LLVMValueRef ptr, uint32_t size, bool is_signed);

/* bpf.c: at the end of a function's entry block: look up its per-CPU
 * frame (the frame_size bytes its big temporaries took) and store its
 * address in frame_slot, where init loads it */
void cg_emit_frame(struct cg_ctx *cg, const char *name);

/* cimport.c: link the imported C (cg->opts->cimports) into cg->mod;
 * 0 or -errno after a message */
int cg_cimport_link(struct cg_ctx *cg);
/* before a module is optimized: inline the imported functions */
void cg_cimport_inline(struct cg_ctx *cg);

/* bpf.c: return e, the program's return value (e an i64) */
void cg_return_value(struct cg_ctx *cg, LLVMValueRef v);

#endif
