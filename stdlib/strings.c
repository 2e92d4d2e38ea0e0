/*
 * strings.c - str, strncmp and friends.
 *
 * Strings are fixed-size NUL-padded arrays (64 bytes unless the source is
 * smaller, like comm's 16).  str(p) reads a NUL-terminated string from
 * memory with bpf_probe_read_str, which on x86-64 serves user and kernel
 * addresses alike.
 */
#include <string.h>

#include "codegen/codegen.h"
#include "stdlib/stdlib.h"

#define STR_MAX 64

/* str(ptr [, len]) */
static void check_str(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	struct type *t = sema_expr(s, a);
	uint32_t size = STR_MAX;
	if (a->next) {
		int64_t len;
		sema_expr(s, a->next);
		if (sema_const_int(s, a->next, &len)) {
			if (len < 1 || len > STR_MAX - 1)
				sema_error(s, a->next->loc, "str() length must be 1 to %d", STR_MAX - 1);
			else
				size = (uint32_t)len + 1;
		}
	}
	if (t->kind == TY_STR) {
		n->type = *t;
		return;
	}
	if (t->kind != TY_INT && t->kind != TY_PTR && t->kind != TY_ERROR) {
		sema_error(s, a->loc, "str() needs an address or a string, not %s",
			   type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = ty_str(size);
}

static void str_into(struct cg_ctx *cg, struct ast_node *n, LLVMValueRef dst, uint32_t size)
{
	struct ast_node *a = n->call.args;
	if (a->type.kind == TY_STR) {
		cg_expr_store(cg, a, dst, size);
		return;
	}
	LLVMValueRef v = cg_expr(cg, a);
	LLVMValueRef src = LLVMBuildIntToPtr(cg_builder(cg), v, cg_ptr(cg), "");
	uint32_t len = n->type.size < size ? n->type.size : size;
	LLVMValueRef args[] = {dst, LLVMConstInt(cg_i32(cg), len, 0), src};
	cg_helper_call(cg, BPF_FUNC_probe_read_str, args, 3);
}

static LLVMValueRef lower_str(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	if (a->type.kind == TY_STR)
		return cg_expr(cg, a);
	LLVMValueRef buf = cg_alloca(cg, n->type.size, "str");
	str_into(cg, n, buf, n->type.size);
	return buf;
}

/* strncmp(a, b, n): 0 when the first n bytes match, as C */
static void check_strncmp(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args, *b = a->next, *len = b->next;
	struct type *ta = sema_expr(s, a), *tb = sema_expr(s, b);
	int64_t l;
	sema_expr(s, len);
	n->type = ty_int64;
	if ((ta->kind != TY_STR && ta->kind != TY_ERROR) || (tb->kind != TY_STR && tb->kind != TY_ERROR))
		sema_error(s, n->loc, "strncmp() compares two strings");
	if (sema_const_int(s, len, &l) && (l < 0 || l > STR_MAX))
		sema_error(s, len->loc, "strncmp() length must be 0 to %d", STR_MAX);
}

static LLVMValueRef lower_strncmp(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *a = n->call.args, *b = a->next;
	LLVMBuilderRef bld = cg_builder(cg);
	LLVMValueRef pa = cg_expr(cg, a), pb = cg_expr(cg, b);
	uint64_t len = b->next->i.value;
	uint32_t lim = a->type.size < b->type.size ? a->type.size : b->type.size;
	/* differ = first index where bytes differ before a shared NUL */
	LLVMValueRef result = cg_const(cg, 0), done = LLVMConstInt(LLVMInt1TypeInContext(cg_context(cg)), 0, 0);
	for (uint32_t i = 0; i < len && i < lim; i++) {
		LLVMValueRef x = LLVMBuildZExt(bld, LLVMBuildLoad2(bld, cg_i8(cg), cg_gep(cg, pa, i), ""), cg_i64(cg), "");
		LLVMValueRef y = LLVMBuildZExt(bld, LLVMBuildLoad2(bld, cg_i8(cg), cg_gep(cg, pb, i), ""), cg_i64(cg), "");
		LLVMValueRef ne = LLVMBuildICmp(bld, LLVMIntNE, x, y, "");
		LLVMValueRef take = LLVMBuildAnd(bld, ne, LLVMBuildNot(bld, done, ""), "");
		result = LLVMBuildSelect(bld, take, LLVMBuildSub(bld, x, y, ""), result, "");
		LLVMValueRef nul = LLVMBuildICmp(bld, LLVMIntEQ, x, cg_const(cg, 0), "");
		done = LLVMBuildOr(bld, done, LLVMBuildOr(bld, ne, nul, ""), "");
	}
	return result;
}

const struct builtin stdlib_strings[] = {
	{.name = "str", .kind = BI_FUNC, .min_args = 1, .max_args = 2, .check = check_str,
	 .lower = lower_str, .lower_into = str_into, .summary = "read a NUL-terminated string: str(addr [, len])"},
	{.name = "strncmp", .kind = BI_FUNC, .min_args = 3, .max_args = 3, .check = check_strncmp,
	 .lower = lower_strncmp, .summary = "compare the first n bytes of two strings"},
	{0},
};
