/*
 * numbers.c - integer conversions: bswap(x); the bool constants true and
 * false (an integer 1 or 0 of type bool, which prints as a word).
 *
 * bswap reverses the bytes of an integer at the integer's own width, as
 * bpftrace does: bswap((uint16)0x1122) is 0x2211, a 64-bit value swaps
 * all eight bytes, an 8-bit one is itself.  The result is unsigned and
 * as wide as the argument.  It lowers to LLVM's llvm.bswap, which the BPF
 * backend turns into one byte-swap instruction (BPF_END).
 *
 * is_err(p): whether a pointer (or integer) is an ERR_PTR, a kernel error
 * code -4095..-1 returned where a pointer was expected, as the kernel's
 * IS_ERR() and the newest bpftrace's is_err (its stdlib's macro) say: a
 * bool, true when the value read unsigned is at least (unsigned long)-4095.
 */
#include "stdlib/stdlib_int.h"

static void check_bswap(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	struct type *t = sema_expr(s, a);
	if (t->kind == TY_ERROR) {
		n->type.kind = TY_ERROR;
		return;
	}
	if (t->kind != TY_INT) {
		sema_error(s, a->loc, "bswap() needs an integer, not %s", type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = (struct type){.kind = TY_INT, .size = t->size ? t->size : 8};
}

static LLVMValueRef lower_bswap(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef v = cg_expr(cg, n->call.args);
	uint32_t bits = n->type.size * 8;
	if (bits <= 8)
		return LLVMBuildAnd(b, v, cg_const(cg, 0xff), "");
	LLVMTypeRef ty = LLVMIntTypeInContext(cg_context(cg), bits);
	LLVMModuleRef mod = LLVMGetGlobalParent(LLVMGetBasicBlockParent(LLVMGetInsertBlock(b)));
	unsigned id = LLVMLookupIntrinsicID("llvm.bswap", 10);
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(mod, id, &ty, 1);
	LLVMValueRef x = bits < 64 ? LLVMBuildTrunc(b, v, ty, "") : v;
	LLVMValueRef r = LLVMBuildCall2(b, LLVMIntrinsicGetType(cg_context(cg), id, &ty, 1), fn, &x, 1,
					"bswap");
	return bits < 64 ? LLVMBuildZExt(b, r, cg_i64(cg), "") : r;
}

static void check_is_err(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	struct type *t = sema_expr(s, a);
	if (t->kind == TY_ERROR) {
		n->type.kind = TY_ERROR;
		return;
	}
	if (t->kind != TY_INT && t->kind != TY_PTR) {
		sema_error(s, a->loc, "is_err() needs a pointer or an integer, not %s",
			   type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = (struct type){.kind = TY_INT, .size = 8, .is_bool = true};
}

static LLVMValueRef lower_is_err(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef v = cg_expr(cg, n->call.args);
	LLVMValueRef ge = LLVMBuildICmp(b, LLVMIntUGE, v, cg_const(cg, (uint64_t)-4095), "is_err");
	return LLVMBuildZExt(b, ge, cg_i64(cg), "");
}

static LLVMValueRef lower_bool_const(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_const(cg, n->ident.name[0] == 't');
}

const struct builtin stdlib_numbers[] = {
	{.name = "true", .kind = BI_VAR, .type = {.kind = TY_INT, .size = 8, .is_bool = true},
	 .lower = lower_bool_const, .user = true, .summary = "the bool true"},
	{.name = "false", .kind = BI_VAR, .type = {.kind = TY_INT, .size = 8, .is_bool = true},
	 .lower = lower_bool_const, .user = true, .summary = "the bool false"},
	{.name = "bswap", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_bswap,
	 .lower = lower_bswap, .summary = "reverse the bytes of an integer at its width: bswap(x)"},
	{.name = "is_err", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_is_err,
	 .lower = lower_is_err, .user = true,
	 .summary = "whether a pointer is a kernel error code (ERR_PTR, -4095..-1): is_err(p)"},
	{0},
};
