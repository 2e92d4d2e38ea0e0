/*
 * kernel.c - kernel types and address spaces: curtask, uptr(), kptr().
 *
 * curtask is the current task_struct, typed from the kernel's BTF so that
 * `curtask->real_parent->pid` reads as C would (uint64 on a kernel without
 * BTF).  A pointer carries its address space in its type (is_user): the
 * pointer arguments of syscall tracepoints point into the calling process,
 * curtask and what it leads to into the kernel.  uptr(p) and kptr(p) say
 * which, where sonde cannot know: the value is unchanged, reads through it
 * use bpf_probe_read_user or bpf_probe_read_kernel.
 */
#include <string.h>

#include "stdlib/stdlib_int.h"

static void check_curtask(struct sema_ctx *s, struct ast_node *n)
{
	n->type = sema_kernel_ptr(s, "task_struct");
}

static LLVMValueRef lower_curtask(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_helper_call(cg, BPF_FUNC_get_current_task, NULL, 0);
}

/* uptr(p), kptr(p): p's type (an integer becomes a pointer to int64) in
 * the named address space */
static void check_addrspace(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	struct type *t = sema_expr(s, a);
	if (t->kind == TY_ERROR) {
		n->type = *t;
		return;
	}
	if (t->kind != TY_PTR && t->kind != TY_INT) {
		sema_error(s, a->loc, "%s() needs a pointer or an integer address, not %s",
			   n->call.name, type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = *t;
	if (t->kind == TY_INT) {
		struct type *el = arena_new_obj(sema_arena(s), struct type);
		*el = ty_int64;
		n->type = (struct type){.kind = TY_PTR, .size = 8, .elem = el};
	}
	n->type.is_user = n->call.name[0] == 'u';
}

static LLVMValueRef lower_addrspace(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_expr(cg, n->call.args);
}

const struct builtin stdlib_kernel[] = {
	{.name = "curtask", .kind = BI_VAR, .check = check_curtask, .lower = lower_curtask,
	 .summary = "the current task_struct (typed from the kernel's BTF)"},
	{.name = "uptr", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_addrspace,
	 .lower = lower_addrspace, .summary = "the pointer, read as user memory"},
	{.name = "kptr", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_addrspace,
	 .lower = lower_addrspace, .summary = "the pointer, read as kernel memory"},
	{0},
};
