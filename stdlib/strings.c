/*
 * strings.c - str, strncmp and friends.
 *
 * Strings are fixed-size NUL-padded arrays (64 bytes unless the source is
 * smaller, like comm's 16; str() values are BPFTRACE_STRLEN bytes).  str(p) reads a NUL-terminated string from
 * memory with bpf_probe_read_str, which on x86-64 serves user and kernel
 * addresses alike.
 *
 * strcontains(haystack, needle) searches with two bounded loops (the
 * verifier accepts bounded loops since 5.3) rather than unrolling: two
 * 64-byte strings would unroll into 4096 comparisons.
 */
#include <inttypes.h>
#include <string.h>

#include "codegen/codegen.h"
#include "common/settings.h"
#include "stdlib/stdlib.h"

#define STR_MAX 64

/* str(ptr [, len]) */
static void check_str(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	/* str($1) is the parameter's text, "1" for 1, as in bpftrace */
	struct type *t = a->kind == N_POSITIONAL ? sema_positional_text(s, a) : sema_expr(s, a);
	/* BPFTRACE_STRLEN: bytes of the value, the NUL included */
	uint32_t size = (uint32_t)settings_int(SET_STRLEN);
	if (a->next) {
		int64_t len;
		struct type *lt = sema_expr(s, a->next);
		if (sema_fold_const(a->next, &len)) {
			if (len < 1 || len > size - 1)
				sema_error(s, a->next->loc, "str() length must be 1 to %u (BPFTRACE_STRLEN - 1)",
					   size - 1);
			else
				size = (uint32_t)len + 1;
		} else if (lt->kind != TY_INT && lt->kind != TY_ERROR) {
			sema_error(s, a->next->loc, "str() length must be an integer, not %s",
				   type_str(sema_arena(s), lt));
		}
		/* a length known only at run time (str(args->buf, args->count))
		 * reads at most that many bytes into a BPFTRACE_STRLEN value */
	}
	if (t->kind == TY_STR) {
		/* str("hello", 3) is "hel", as str(ptr, 3) reads 3 bytes */
		n->type = *t;
		if (size < t->size)
			n->type = ty_str(size);
		return;
	}
	if (t->kind != TY_INT && t->kind != TY_PTR && t->kind != TY_ERROR) {
		sema_error(s, a->loc, "str() needs an address or a string, not %s",
			   type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = ty_str(size);
	n->type.trunc_mark = true;
}

static void str_into(struct cg_ctx *cg, struct ast_node *n, LLVMValueRef dst, uint32_t size)
{
	struct ast_node *a = n->call.args;
	if (a->type.kind == TY_STR) {
		uint32_t keep = n->type.size < size ? n->type.size : size;
		cg_expr_store(cg, a, dst, keep);
		if (n->type.size < a->type.size && keep == n->type.size)	/* cut short */
			LLVMBuildStore(cg_builder(cg), LLVMConstInt(cg_i8(cg), 0, 0), cg_gep(cg, dst, keep - 1));
		return;
	}
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef v = cg_expr(cg, a);
	LLVMValueRef src = LLVMBuildIntToPtr(b, v, cg_ptr(cg), "");
	uint32_t max = n->type.size < size ? n->type.size : size;
	LLVMValueRef len = LLVMConstInt(cg_i32(cg), max, 0);
	int64_t k;
	if (a->next && !sema_fold_const(a->next, &k)) {
		/* the length and its NUL, unsigned-clamped to the value's size:
		 * the verifier sees the bound on the size it is given */
		LLVMValueRef want = LLVMBuildAdd(b, cg_expr(cg, a->next), cg_const(cg, 1), "");
		LLVMValueRef fits = LLVMBuildICmp(b, LLVMIntULT, want, cg_const(cg, max), "");
		want = LLVMBuildSelect(b, fits, want, cg_const(cg, max), "");
		len = LLVMBuildTrunc(b, want, cg_i32(cg), "strlen");
	}
	LLVMValueRef args[] = {dst, len, src};
	cg_helper_call(cg, BPF_FUNC_probe_read_str, args, 3);
}

static LLVMValueRef lower_str(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	if (a->type.kind == TY_STR && n->type.size == a->type.size)
		return cg_expr(cg, a);
	LLVMValueRef buf = cg_alloca(cg, n->type.size, "str");
	str_into(cg, n, buf, n->type.size);
	return buf;
}

/* strncmp(a, b, n): 0 when the first n bytes match, else 1 (as bpftrace) */
static void check_strncmp(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args, *b = a->next, *len = b->next;
	struct type *ta = sema_expr(s, a), *tb = sema_expr(s, b);
	int64_t l;
	sema_expr(s, len);
	n->type = ty_int64;
	if ((ta->kind != TY_STR && ta->kind != TY_ERROR) || (tb->kind != TY_STR && tb->kind != TY_ERROR))
		sema_error(s, n->loc, "strncmp() compares two strings");
	int64_t max = settings_int(SET_STRLEN) > STR_MAX ? settings_int(SET_STRLEN) : STR_MAX;
	if (sema_const_int(s, len, &l) && (l < 0 || l > max))
		sema_error(s, len->loc, "strncmp() length must be 0 to %" PRId64 " (max_strlen)", max);
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
	/* 1 when they differ: bpftrace returns 0 or 1, not C's difference */
	return LLVMBuildZExt(bld, LLVMBuildICmp(bld, LLVMIntNE, result, cg_const(cg, 0), ""), cg_i64(cg), "");
}

/* strcontains(haystack, needle): 1 when needle occurs in haystack */
static void check_strcontains(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *h = n->call.args, *nd = h->next;
	struct type *th = sema_expr(s, h), *tn = sema_expr(s, nd);
	/* a bool in the newest bpftrace; 1 or 0 here, as bpftrace 0.17 prints
	 * it (docs/differences.md) */
	n->type = ty_uint64;
	if (th->kind == TY_ERROR || tn->kind == TY_ERROR)
		return;
	if (th->kind != TY_STR || tn->kind != TY_STR)
		sema_error(s, th->kind != TY_STR ? h->loc : nd->loc,
			   "strcontains(haystack, needle) needs two strings, not %s",
			   type_str(sema_arena(s), th->kind != TY_STR ? th : tn));
}

/* a byte of string p at i64 index i, as an i64 */
static LLVMValueRef byte_at(struct cg_ctx *cg, LLVMValueRef p, LLVMValueRef i)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef at = LLVMBuildGEP2(b, cg_i8(cg), p, &i, 1, "");
	return LLVMBuildZExt(b, LLVMBuildLoad2(b, cg_i8(cg), at, ""), cg_i64(cg), "");
}

static LLVMValueRef lower_strcontains(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMBuilderRef b = cg_builder(cg);
	struct ast_node *h = n->call.args, *nd = h->next;
	LLVMValueRef ph = cg_expr(cg, h), pn = cg_expr(cg, nd);
	uint64_t hsize = h->type.size, nsize = nd->type.size;
	LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
	LLVMContextRef c = cg_context(cg);
	LLVMBasicBlockRef outer = LLVMAppendBasicBlockInContext(c, fn, "sc.outer"),
			  inner = LLVMAppendBasicBlockInContext(c, fn, "sc.inner"),
			  cmp = LLVMAppendBasicBlockInContext(c, fn, "sc.cmp"),
			  step = LLVMAppendBasicBlockInContext(c, fn, "sc.step"),
			  miss = LLVMAppendBasicBlockInContext(c, fn, "sc.miss"),
			  found = LLVMAppendBasicBlockInContext(c, fn, "sc.found"),
			  done = LLVMAppendBasicBlockInContext(c, fn, "sc.done");
	LLVMValueRef res = cg_alloca_nozero(cg, 8, "sc.res"), vi = cg_alloca_nozero(cg, 8, "sc.i"),
		     vj = cg_alloca_nozero(cg, 8, "sc.j");
	cg_store_i64(cg, cg_const(cg, 0), res);
	cg_store_i64(cg, cg_const(cg, 0), vi);
	LLVMBuildBr(b, outer);
	/* outer: for i in [0, hsize): try a match at i */
	LLVMPositionBuilderAtEnd(b, outer);
	LLVMValueRef i = cg_load_i64(cg, vi);
	cg_store_i64(cg, cg_const(cg, 0), vj);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, i, cg_const(cg, hsize), ""), inner, done);
	/* inner: for j in [0, nsize): the needle's end is a match */
	LLVMPositionBuilderAtEnd(b, inner);
	LLVMValueRef j = cg_load_i64(cg, vj);
	LLVMValueRef jin = LLVMBuildICmp(b, LLVMIntULT, j, cg_const(cg, nsize), "");
	LLVMBasicBlockRef inner2 = LLVMAppendBasicBlockInContext(c, fn, "sc.inner2");
	LLVMBuildCondBr(b, jin, inner2, found);
	LLVMPositionBuilderAtEnd(b, inner2);
	LLVMValueRef nc = byte_at(cg, pn, j);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, nc, cg_const(cg, 0), ""), found, cmp);
	/* cmp: haystack[i + j] == needle[j], within the haystack */
	LLVMPositionBuilderAtEnd(b, cmp);
	LLVMValueRef k = LLVMBuildAdd(b, i, j, "");
	LLVMBasicBlockRef cmp2 = LLVMAppendBasicBlockInContext(c, fn, "sc.cmp2");
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, k, cg_const(cg, hsize), ""), cmp2, miss);
	LLVMPositionBuilderAtEnd(b, cmp2);
	LLVMValueRef hc = byte_at(cg, ph, k);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, hc, nc, ""), step, miss);
	LLVMPositionBuilderAtEnd(b, step);
	cg_store_i64(cg, LLVMBuildAdd(b, j, cg_const(cg, 1), ""), vj);
	LLVMBuildBr(b, inner);
	/* miss: stop at the haystack's end, else try i + 1 */
	LLVMPositionBuilderAtEnd(b, miss);
	LLVMValueRef hi = byte_at(cg, ph, i);
	cg_store_i64(cg, LLVMBuildAdd(b, i, cg_const(cg, 1), ""), vi);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, hi, cg_const(cg, 0), ""), done, outer);
	LLVMPositionBuilderAtEnd(b, found);
	cg_store_i64(cg, cg_const(cg, 1), res);
	LLVMBuildBr(b, done);
	LLVMPositionBuilderAtEnd(b, done);
	return cg_load_i64(cg, res);
}

const struct builtin stdlib_strings[] = {
	{.name = "str", .kind = BI_FUNC, .min_args = 1, .max_args = 2, .check = check_str,
	 .lower = lower_str, .lower_into = str_into, .user = true, .summary = "read a NUL-terminated string: str(addr [, len])"},
	{.name = "strncmp", .kind = BI_FUNC, .min_args = 3, .max_args = 3, .check = check_strncmp,
	 .lower = lower_strncmp, .summary = "0 when the first n bytes of two strings match, else 1"},
	{.name = "strcontains", .kind = BI_FUNC, .min_args = 2, .max_args = 2,
	 .check = check_strcontains, .lower = lower_strcontains,
	 .summary = "1 when a string contains another: strcontains(comm, \"bash\")"},
	{0},
};
