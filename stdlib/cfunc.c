/*
 * cfunc.c - functions of imported BPF C as builtins: `import "lib.bpf.c";`
 * then `__add_one(1)`.
 *
 * codegen/cimport.c lists the functions the imported C defines (struct
 * cg_cfunc); stdlib_set_cfuncs() makes each a builtin row, which
 * stdlib_find() returns after the tables' own (a builtin's name wins).
 * An argument is an integer (truncated to the parameter's width) or, for
 * a pointer parameter, a string, buffer, struct or array the script holds
 * (its address on the BPF stack) or an integer address.  The result is an
 * integer of the C type's width and signedness; a pointer result is its
 * address, a uint64; a void function is a statement.  A function whose
 * signature has something else (a struct by value, a float) is refused at
 * the call, naming the function and the type.
 */
#include "stdlib/stdlib_int.h"

#include <string.h>

struct cfunc_row {
	struct builtin b;	/* first: the row sema holds */
	const struct cg_cfunc *f;
};

static struct cfunc_row *rows;
static int nrows;

static const struct cg_cfunc *cfunc_of(const struct ast_node *n)
{
	return ((const struct cfunc_row *)n->note.builtin)->f;
}

static bool in_memory(const struct type *t)
{
	return t->kind == TY_STR || t->kind == TY_BUF || t->kind == TY_STRUCT ||
	       t->kind == TY_ARRAY || t->kind == TY_TUPLE;
}

static void check_cfunc(struct sema_ctx *s, struct ast_node *n)
{
	const struct cg_cfunc *f = cfunc_of(n);
	struct arena *a = sema_arena(s);
	bool bad = false;
	int i = 0;
	for (struct ast_node *arg = n->call.args; arg; arg = arg->next, i++) {
		struct type *t = sema_expr(s, arg);
		if (t->kind == TY_ERROR) {
			bad = true;
			continue;
		}
		if (f->unsupported)
			continue;
		bool ptr = f->params[i].is_ptr;
		if (t->kind == TY_INT || t->kind == TY_PTR || (ptr && in_memory(t)))
			continue;
		sema_error(s, arg->loc, "%s(): argument %d is %s, and the C function takes %s", f->name,
			   i + 1, type_str(a, t),
			   ptr ? "a pointer (an integer address, or a string, buffer, struct or "
				 "array the script holds)" : "an integer");
		bad = true;
	}
	if (f->unsupported) {
		sema_error(s, n->loc, "%s(), of %s, cannot be called from a script: %s (sonde passes "
			   "integers and pointers)", f->name, f->file, f->unsupported);
		bad = true;
	}
	if (bad) {
		n->type.kind = TY_ERROR;
		return;
	}
	if (!f->ret.bits)
		n->type = (struct type){.kind = TY_VOID};
	else
		n->type = (struct type){.kind = TY_INT, .size = f->ret.bits / 8,
					.is_signed = f->ret.is_signed && !f->ret.is_ptr};
}

static LLVMValueRef lower_cfunc(struct cg_ctx *cg, struct ast_node *n)
{
	const struct cg_cfunc *f = cfunc_of(n);
	LLVMValueRef args[CG_CFUNC_MAX_ARGS];
	int i = 0;
	for (struct ast_node *arg = n->call.args; arg && i < CG_CFUNC_MAX_ARGS; arg = arg->next)
		args[i++] = cg_expr(cg, arg);
	return cg_cfunc_call(cg, f, args);
}

void stdlib_set_cfuncs(struct arena *a, const struct cg_cimports *ci)
{
	rows = ci && ci->nfuncs ? arena_new_array(a, struct cfunc_row, ci->nfuncs) : NULL;
	nrows = rows ? ci->nfuncs : 0;
	for (int i = 0; i < nrows; i++) {
		const struct cg_cfunc *f = &ci->funcs[i];
		rows[i].f = f;
		rows[i].b = (struct builtin){
			.name = f->name, .kind = f->ret.bits || f->unsupported ? BI_FUNC : BI_STMT,
			.min_args = f->nparams, .max_args = f->nparams, .check = check_cfunc,
			.lower = lower_cfunc, .summary = "a function of imported C",
		};
	}
}

const struct builtin *stdlib_find_cfunc(const char *name)
{
	for (int i = 0; i < nrows; i++)
		if (!strcmp(rows[i].b.name, name))
			return &rows[i].b;
	return NULL;
}
