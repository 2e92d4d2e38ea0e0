/*
 * strings.c - str, strncmp, strcontains, strstr, strlen, strcap, memcmp,
 * globmatch.
 *
 * Strings are fixed-size NUL-padded arrays (64 bytes unless the source is
 * smaller, like comm's 16; str() values are BPFTRACE_STRLEN bytes).  str(p) reads a NUL-terminated string from
 * memory with bpf_probe_read_str, which on x86-64 serves user and kernel
 * addresses alike.
 *
 * strcontains(haystack, needle) and strstr search with two bounded loops
 * (the verifier accepts bounded loops since 5.3) rather than unrolling: two
 * 64-byte strings would unroll into 4096 comparisons.  strlen counts to
 * the first NUL the same way; memcmp unrolls (it compares at most
 * MEMCMP_MAX bytes, once each).
 */
#include <inttypes.h>
#include <string.h>

#include "codegen/codegen.h"
#include "common/arena.h"
#include "common/settings.h"
#include "stdlib/stdlib_int.h"

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

/* f(haystack, needle) of two strings, typed t */
static void check_haystack(struct sema_ctx *s, struct ast_node *n, const char *f, struct type t)
{
	struct ast_node *h = n->call.args, *nd = h->next;
	struct type *th = sema_expr(s, h), *tn = sema_expr(s, nd);
	n->type = t;
	if (th->kind == TY_ERROR || tn->kind == TY_ERROR)
		return;
	stdlib_probe_as_string(s, h);
	stdlib_probe_as_string(s, nd);
	struct type *bad = th->kind != TY_STR ? th : tn;
	if (bad->kind != TY_STR)
		sema_error(s, th->kind != TY_STR ? h->loc : nd->loc,
			   "%s(haystack, needle) needs two strings, not %s%s", f,
			   type_str(sema_arena(s), bad),
			   bad->kind == TY_PTR ? ": read it with str(p)" : "");
}

/* strcontains(haystack, needle): 1 when needle occurs in haystack (a
 * bool in the newest bpftrace; 1 or 0 here, as bpftrace 0.17 prints it:
 * docs/differences.md) */
static void check_strcontains(struct sema_ctx *s, struct ast_node *n)
{
	check_haystack(s, n, "strcontains", ty_uint64);
}

/* a byte of string p at i64 index i, as an i64 */
static LLVMValueRef byte_at(struct cg_ctx *cg, LLVMValueRef p, LLVMValueRef i)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef at = LLVMBuildGEP2(b, cg_i8(cg), p, &i, 1, "");
	return LLVMBuildZExt(b, LLVMBuildLoad2(b, cg_i8(cg), at, ""), cg_i64(cg), "");
}

/* the index of the first occurrence of needle in haystack (two strings),
 * -1 when there is none; an empty needle is found at 0 */
static LLVMValueRef search(struct cg_ctx *cg, struct ast_node *n)
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
	cg_store_i64(cg, cg_const(cg, (uint64_t)-1), res);
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
	cg_store_i64(cg, i, res);
	LLVMBuildBr(b, done);
	LLVMPositionBuilderAtEnd(b, done);
	return cg_load_i64(cg, res);
}

static LLVMValueRef lower_strcontains(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMValueRef at = search(cg, n);
	LLVMValueRef in = LLVMBuildICmp(cg_builder(cg), LLVMIntNE, at, cg_const(cg, (uint64_t)-1), "");
	return LLVMBuildZExt(cg_builder(cg), in, cg_i64(cg), "");
}

/* strstr(haystack, needle): the index of needle in haystack, or -1 */
static void check_strstr(struct sema_ctx *s, struct ast_node *n)
{
	check_haystack(s, n, "strstr", ty_int64);
}

/* a string-like value: a string, or an array of chars */
static bool char_array(const struct type *t)
{
	return t->kind == TY_ARRAY && t->elem && t->elem->kind == TY_INT && t->elem->size == 1;
}

/* strlen(s), strcap(s): s is a string, a char array or a pointer */
static bool check_string_like(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	struct type *t = sema_expr(s, a);
	n->type = ty_uint64;
	if (t->kind == TY_ERROR)
		return false;
	if (t->kind == TY_STR || char_array(t) || t->kind == TY_PTR)
		return true;
	sema_error(s, a->loc, "%s() needs a string, a char array or a char pointer, not %s",
		   n->call.name, type_str(sema_arena(s), t));
	return false;
}

static void check_strlen(struct sema_ctx *s, struct ast_node *n)
{
	check_string_like(s, n);
}

/* strcap(s): a string's or char array's capacity (a constant: its bytes,
 * the NUL's included), a pointer's strlen */
static void check_strcap(struct sema_ctx *s, struct ast_node *n)
{
	if (!check_string_like(s, n) || !sema_final_pass(s))
		return;
	const struct type *t = &n->call.args->type;
	if (t->kind == TY_PTR)
		return;
	n->kind = N_INT;
	n->i.value = t->kind == TY_STR ? t->size : t->count;
	n->i.is_char = false;
	n->i.is_signed = false;
}

/* the index of the first NUL of size bytes at p, size when none */
static LLVMValueRef first_nul(struct cg_ctx *cg, LLVMValueRef p, uint32_t size)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMContextRef c = cg_context(cg);
	LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(c, fn, "nul.head"),
			  body = LLVMAppendBasicBlockInContext(c, fn, "nul.body"),
			  next = LLVMAppendBasicBlockInContext(c, fn, "nul.next"),
			  done = LLVMAppendBasicBlockInContext(c, fn, "nul.done");
	LLVMValueRef vi = cg_alloca_nozero(cg, 8, "nul.i");
	cg_store_i64(cg, cg_const(cg, 0), vi);
	LLVMBuildBr(b, head);
	LLVMPositionBuilderAtEnd(b, head);
	LLVMValueRef i = cg_load_i64(cg, vi);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, i, cg_const(cg, size), ""), body, done);
	LLVMPositionBuilderAtEnd(b, body);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, byte_at(cg, p, i), cg_const(cg, 0), ""), done, next);
	LLVMPositionBuilderAtEnd(b, next);
	cg_store_i64(cg, LLVMBuildAdd(b, i, cg_const(cg, 1), ""), vi);
	LLVMBuildBr(b, head);
	LLVMPositionBuilderAtEnd(b, done);
	return cg_load_i64(cg, vi);
}

/* a pointer's string length: bpf_probe_read_str's count less the NUL,
 * read into a BPFTRACE_STRLEN buffer as str() reads (0 when unreadable) */
static LLVMValueRef ptr_strlen(struct cg_ctx *cg, struct ast_node *a)
{
	LLVMBuilderRef b = cg_builder(cg);
	uint32_t size = (uint32_t)settings_int(SET_STRLEN);
	LLVMValueRef buf = cg_alloca_nozero(cg, size, "strlen.buf");
	LLVMValueRef src = LLVMBuildIntToPtr(b, cg_expr(cg, a), cg_ptr(cg), "");
	LLVMValueRef args[] = {buf, LLVMConstInt(cg_i32(cg), size, 0), src};
	LLVMValueRef r = cg_helper_call(cg, BPF_FUNC_probe_read_str, args, 3);
	LLVMValueRef pos = LLVMBuildICmp(b, LLVMIntSGT, r, cg_const(cg, 0), "");
	return LLVMBuildSelect(b, pos, LLVMBuildSub(b, r, cg_const(cg, 1), ""), cg_const(cg, 0), "strlen");
}

static LLVMValueRef lower_strlen(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	if (a->type.kind == TY_PTR)
		return ptr_strlen(cg, a);
	return first_nul(cg, cg_expr(cg, a), a->type.kind == TY_STR ? a->type.size : a->type.count);
}

/* reached only for a pointer: the others fold into their capacity */
static LLVMValueRef lower_strcap(struct cg_ctx *cg, struct ast_node *n)
{
	return ptr_strlen(cg, n->call.args);
}

/* memcmp(left, right, count): values held in memory (strings, arrays,
 * structs, tuples); 0 when their first count bytes match, else the first
 * differing byte of left less right's (as unsigned bytes), as C's */
enum { MEMCMP_MAX = 256 };

static bool in_memory(const struct type *t)
{
	return t->kind == TY_STR || t->kind == TY_ARRAY || t->kind == TY_STRUCT || t->kind == TY_TUPLE;
}

static void check_memcmp(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *l = n->call.args, *r = l->next, *cnt = r->next;
	struct type *tl = sema_expr(s, l), *tr = sema_expr(s, r), *tc = sema_expr(s, cnt);
	n->type = ty_int64;
	if (tl->kind == TY_ERROR || tr->kind == TY_ERROR || tc->kind == TY_ERROR)
		return;
	for (struct ast_node *a = l; a != cnt; a = a->next)
		if (!in_memory(&a->type)) {
			sema_error(s, a->loc, "memcmp() compares values held in memory (strings, arrays, "
				   "structs, tuples), not %s%s", type_str(sema_arena(s), &a->type),
				   a->type.kind == TY_PTR ? ": read what it points to first (*p, str(p))" : "");
			return;
		}
	if (tc->kind != TY_INT) {
		sema_error(s, cnt->loc, "memcmp(): the count must be an integer, not %s",
			   type_str(sema_arena(s), tc));
		return;
	}
	uint32_t lim = tl->size < tr->size ? tl->size : tr->size;
	int64_t k;
	if (sema_fold_const(cnt, &k) && (k < 0 || k > lim))
		sema_error(s, cnt->loc, "memcmp(): count %" PRId64 " is more than the %u bytes of the "
			   "smaller value", k, lim);
	else if (lim > MEMCMP_MAX && !sema_fold_const(cnt, &k))
		sema_error(s, cnt->loc, "memcmp(): values of more than %d bytes need a constant count",
			   MEMCMP_MAX);
	else if (sema_fold_const(cnt, &k) && k > MEMCMP_MAX)
		sema_error(s, cnt->loc, "memcmp(): count must be at most %d", MEMCMP_MAX);
}

static LLVMValueRef lower_memcmp(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *l = n->call.args, *r = l->next, *cnt = r->next;
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef pl = cg_expr(cg, l), pr = cg_expr(cg, r);
	uint32_t lim = l->type.size < r->type.size ? l->type.size : r->type.size;
	int64_t k;
	LLVMValueRef count = NULL;
	if (sema_fold_const(cnt, &k))
		lim = (uint32_t)k;
	else
		count = cg_expr(cg, cnt);
	/* unrolled: the first byte that differs, within count */
	LLVMValueRef result = cg_const(cg, 0), done = LLVMConstInt(LLVMInt1TypeInContext(cg_context(cg)), 0, 0);
	for (uint32_t i = 0; i < lim; i++) {
		LLVMValueRef x = LLVMBuildZExt(b, LLVMBuildLoad2(b, cg_i8(cg), cg_gep(cg, pl, i), ""), cg_i64(cg), "");
		LLVMValueRef y = LLVMBuildZExt(b, LLVMBuildLoad2(b, cg_i8(cg), cg_gep(cg, pr, i), ""), cg_i64(cg), "");
		LLVMValueRef ne = LLVMBuildICmp(b, LLVMIntNE, x, y, "");
		if (count)
			ne = LLVMBuildAnd(b, ne, LLVMBuildICmp(b, LLVMIntULT, cg_const(cg, i), count, ""), "");
		LLVMValueRef take = LLVMBuildAnd(b, ne, LLVMBuildNot(b, done, ""), "");
		result = LLVMBuildSelect(b, take, LLVMBuildSub(b, x, y, ""), result, "");
		done = LLVMBuildOr(b, done, ne, "");
	}
	return result;
}

/*
 * globmatch(str, "pattern"): the whole string against a glob of literal
 * characters, ? (any one), * (any run, empty too) and classes [abc],
 * [a-z], [!abc] ("[" without its "]" is a literal "[").  The pattern is a
 * string literal, compiled into the program: the set of positions of the
 * string that the pattern read so far can end at is a 64-bit mask (bit i:
 * the first i characters match), so the string holds at most 63
 * characters.  A character token keeps the positions whose next character
 * it matches, moved one on; * keeps every position from the first on.
 * The string matches when its length is in the mask at the end: one
 * bounded loop over the characters per character token.
 */
enum { GLOB_MAX = 64 };

struct glob_tok {
	char kind;		/* 'c' a character, '?', '*', '[' a class */
	bool negate;		/* [!...] */
	unsigned char lo[GLOB_MAX], hi[GLOB_MAX];	/* class ranges (c: lo[0]) */
	int nranges;
};

/* the tokens of pat, into t (at most GLOB_MAX); -1 when there are more */
static int glob_parse(const char *pat, struct glob_tok *t)
{
	int n = 0;
	for (const char *p = pat; *p; n++) {
		if (n == GLOB_MAX)
			return -1;
		struct glob_tok *k = &t[n];
		memset(k, 0, sizeof(*k));
		if (*p == '*' || *p == '?') {
			k->kind = *p++;
			continue;
		}
		const char *q = p + 1;
		bool negate = *q == '!';
		q += negate;
		const char *end = strchr(*q == ']' ? q + 1 : q, ']');
		if (*p != '[' || !end) {	/* a character, '[' without ']' too */
			k->kind = 'c';
			k->lo[0] = k->hi[0] = (unsigned char)*p++;
			k->nranges = 1;
			continue;
		}
		k->kind = '[';
		k->negate = negate;
		while (q < end && k->nranges < GLOB_MAX) {
			unsigned char lo = (unsigned char)*q, hi = lo;
			if (q + 2 < end && q[1] == '-') {
				hi = (unsigned char)q[2];
				q += 3;
			} else {
				q++;
			}
			k->lo[k->nranges] = lo;
			k->hi[k->nranges++] = hi;
		}
		p = end + 1;
	}
	return n;
}

static void check_globmatch(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args, *pat = a->next;
	struct type *t = sema_expr(s, a);
	n->type = ty_bool;
	if (pat->kind != N_STR) {
		sema_expr(s, pat);
		sema_error(s, pat->loc, "globmatch(): the pattern must be a string literal "
			   "(sonde compiles it into the program): globmatch(comm, \"ba*\")");
		return;
	}
	if (t->kind == TY_ERROR)
		return;
	if (t->kind != TY_STR) {
		sema_error(s, a->loc, "globmatch(str, pattern) needs a string first, not %s%s",
			   type_str(sema_arena(s), t), t->kind == TY_PTR ? ": read it with str(p)" : "");
		return;
	}
	if (t->size > GLOB_MAX) {
		sema_error(s, a->loc, "globmatch() matches strings of up to %d characters; this one "
			   "holds %u: cut it with str(s, %d)", GLOB_MAX - 1, t->size - 1, GLOB_MAX - 1);
		return;
	}
	struct glob_tok *toks = arena_alloc(sema_arena(s), sizeof(*toks) * GLOB_MAX);
	if (glob_parse(pat->s.value, toks) < 0)
		sema_error(s, pat->loc, "globmatch(): the pattern has more than %d parts", GLOB_MAX);
}

/* byte c (an i64) is one of the class's characters */
static LLVMValueRef glob_class(struct cg_ctx *cg, const struct glob_tok *k, LLVMValueRef c)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef in = LLVMConstInt(LLVMInt1TypeInContext(cg_context(cg)), 0, 0);
	for (int r = 0; r < k->nranges; r++) {
		LLVMValueRef hit;
		if (k->lo[r] == k->hi[r])
			hit = LLVMBuildICmp(b, LLVMIntEQ, c, cg_const(cg, k->lo[r]), "");
		else
			hit = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntUGE, c, cg_const(cg, k->lo[r]), ""),
					   LLVMBuildICmp(b, LLVMIntULE, c, cg_const(cg, k->hi[r]), ""), "");
		in = LLVMBuildOr(b, in, hit, "");
	}
	return k->negate ? LLVMBuildNot(b, in, "") : in;
}

/* the bits i (i < nch) of the string's characters that token k matches:
 * a bounded loop over the characters (unrolled, 63 bytes live at once
 * would spill past the 512-byte stack) */
static LLVMValueRef glob_mask(struct cg_ctx *cg, const struct glob_tok *k, LLVMValueRef p, uint32_t nch)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMContextRef c = cg_context(cg);
	LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(c, fn, "glob.head"),
			  body = LLVMAppendBasicBlockInContext(c, fn, "glob.body"),
			  done = LLVMAppendBasicBlockInContext(c, fn, "glob.done");
	LLVMValueRef vi = cg_alloca_nozero(cg, 8, "glob.i"), vm = cg_alloca_nozero(cg, 8, "glob.m");
	cg_store_i64(cg, cg_const(cg, 0), vi);
	cg_store_i64(cg, cg_const(cg, 0), vm);
	LLVMBuildBr(b, head);
	LLVMPositionBuilderAtEnd(b, head);
	LLVMValueRef i = cg_load_i64(cg, vi);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, i, cg_const(cg, nch), ""), body, done);
	LLVMPositionBuilderAtEnd(b, body);
	LLVMValueRef ch = byte_at(cg, p, i);
	LLVMValueRef hit = k->kind == 'c' ? LLVMBuildICmp(b, LLVMIntEQ, ch, cg_const(cg, k->lo[0]), "")
					  : glob_class(cg, k, ch);
	LLVMValueRef bit = LLVMBuildShl(b, LLVMBuildZExt(b, hit, cg_i64(cg), ""), i, "");
	cg_store_i64(cg, LLVMBuildOr(b, cg_load_i64(cg, vm), bit, ""), vm);
	cg_store_i64(cg, LLVMBuildAdd(b, i, cg_const(cg, 1), ""), vi);
	LLVMBuildBr(b, head);
	LLVMPositionBuilderAtEnd(b, done);
	return cg_load_i64(cg, vm);
}

static LLVMValueRef lower_globmatch(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	LLVMBuilderRef b = cg_builder(cg);
	struct glob_tok toks[GLOB_MAX];
	int ntok = glob_parse(a->next->s.value, toks);
	uint32_t size = a->type.size, nch = size < GLOB_MAX ? size : GLOB_MAX - 1;
	LLVMValueRef p = cg_expr(cg, a);
	LLVMValueRef len = first_nul(cg, p, nch);	/* at most 63 */
	/* positions 0..len: (2 << len) - 1 (all ones for 63); before it */
	LLVMValueRef upto = LLVMBuildSub(b, LLVMBuildShl(b, cg_const(cg, 2), len, ""), cg_const(cg, 1), "");
	LLVMValueRef before = LLVMBuildSub(b, LLVMBuildShl(b, cg_const(cg, 1), len, ""), cg_const(cg, 1), "");
	LLVMValueRef set = cg_const(cg, 1);
	for (int t = 0; t < ntok; t++) {
		const struct glob_tok *k = &toks[t];
		if (k->kind == '*') {
			for (int sh = 1; sh < 64; sh <<= 1)
				set = LLVMBuildOr(b, set, LLVMBuildShl(b, set, cg_const(cg, (uint64_t)sh), ""), "");
			set = LLVMBuildAnd(b, set, upto, "");
			continue;
		}
		/* the positions before the end whose character the token matches */
		LLVMValueRef m = k->kind == '?' ? before : LLVMBuildAnd(b, glob_mask(cg, k, p, nch), before, "");
		set = LLVMBuildShl(b, LLVMBuildAnd(b, set, m, ""), cg_const(cg, 1), "");
	}
	return LLVMBuildAnd(b, LLVMBuildLShr(b, set, len, ""), cg_const(cg, 1), "globmatch");
}

const struct builtin stdlib_strings[] = {
	{.name = "str", .kind = BI_FUNC, .min_args = 1, .max_args = 2, .check = check_str,
	 .lower = lower_str, .lower_into = str_into, .user = true, .summary = "read a NUL-terminated string: str(addr [, len])"},
	{.name = "strncmp", .kind = BI_FUNC, .min_args = 3, .max_args = 3, .check = check_strncmp,
	 .lower = lower_strncmp, .summary = "0 when the first n bytes of two strings match, else 1"},
	{.name = "strcontains", .kind = BI_FUNC, .min_args = 2, .max_args = 2,
	 .check = check_strcontains, .lower = lower_strcontains,
	 .summary = "1 when a string contains another: strcontains(comm, \"bash\")"},
	{.name = "strstr", .kind = BI_FUNC, .min_args = 2, .max_args = 2, .check = check_strstr,
	 .lower = search, .summary = "index of a string in another, -1 when absent: strstr(comm, \"sh\")"},
	{.name = "strlen", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_strlen,
	 .lower = lower_strlen, .summary = "length of a string, char array or char pointer"},
	{.name = "strcap", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_strcap,
	 .lower = lower_strcap, .summary = "capacity of a string or char array (a constant); a pointer's strlen"},
	{.name = "globmatch", .kind = BI_FUNC, .min_args = 2, .max_args = 2, .check = check_globmatch,
	 .lower = lower_globmatch, .summary = "true when a string matches a glob: globmatch(comm, \"ba*\")"},
	{.name = "memcmp", .kind = BI_FUNC, .min_args = 3, .max_args = 3, .check = check_memcmp,
	 .lower = lower_memcmp, .summary = "compare the first n bytes of two values: 0 when equal, else the first difference"},
	{0},
};
