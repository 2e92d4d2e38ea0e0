/*
 * expr.c - expressions and statements to IR.
 *
 * An integer expression lowers to an i64 value; a string, tuple or buffer
 * lowers to a pointer to stack bytes of the node's type size.  Scratch
 * variables are entry-block stack slots; the optimiser promotes integer
 * slots to registers.  Each case carries the construct it lowers.
 */
#include "codegen/cg_int.h"

#include <stdlib.h>
#include <string.h>

#include "common/arena.h"

static bool is_int_kind(const struct type *t)
{
	return type_is(t, TT_INT_VALUE);
}

/* "text" -> zero-padded bytes at dst, written as 8-byte immediates
 * (size is rounded up to 8: every buffer sonde allocates is) */
static void store_bytes(struct cg_ctx *cg, LLVMValueRef dst, const char *s, uint32_t len,
			uint32_t size)
{
	uint32_t rounded = (size + 7) & ~7u;
	for (uint32_t off = 0; off < rounded; off += 8) {
		uint64_t w = 0;
		for (uint32_t i = 0; i < 8; i++)
			if (off + i < len)
				w |= (uint64_t)(unsigned char)s[off + i] << (8 * i);
		cg_store_i64(cg, cg_const(cg, w), cg_gep(cg, dst, off));
	}
}

static LLVMValueRef const_bytes(struct cg_ctx *cg, const char *s, uint32_t len, uint32_t size)
{
	LLVMValueRef buf = cg_alloca_nozero(cg, size, "str");
	store_bytes(cg, buf, s, len, size);
	return buf;
}

static void tp_field_into(struct cg_ctx *cg, struct ast_node *e, LLVMValueRef dst, uint32_t size);
static bool is_tp_string(struct cg_ctx *cg, struct ast_node *e);

/* a builtin that can write its value straight into memory */
static const struct builtin *into_builtin(struct ast_node *e)
{
	const struct builtin *b = cg_builtin_of(e);
	return b && b->lower_into ? b : NULL;
}

void cg_event_emit(struct cg_ctx *cg, const struct sema_event *ev, struct ast_node *args)
{
	LLVMValueRef buf = cg_event_begin(cg, ev);
	int i = 0;
	for (struct ast_node *a = args; a; a = a->next, i++) {
		const struct type_field *f = &ev->args.fields[i];
		cg_expr_store(cg, a, cg_gep(cg, buf, 8 + f->offset), f->type.size);
	}
	cg_event_end(cg, ev, buf);
}

void cg_expr_store(struct cg_ctx *cg, struct ast_node *e, LLVMValueRef dst, uint32_t dst_size)
{
	if (!is_int_kind(&e->type)) {
		/* strings go straight to their destination: no stack copy */
		const struct builtin *b = into_builtin(e);
		if (b) {
			struct src_loc outer = cg->expr_loc;
			cg->expr_loc = e->loc;	/* -k names the builtin */
			b->lower_into(cg, e, dst, dst_size);
			cg->expr_loc = outer;
			return;
		}
		if (e->kind == N_STR) {
			store_bytes(cg, dst, e->s.value, e->s.len, e->type.size < dst_size ? e->type.size : dst_size);
			return;
		}
		if (is_tp_string(cg, e)) {
			tp_field_into(cg, e, dst, e->type.size < dst_size ? e->type.size : dst_size);
			return;
		}
		if (cg_in_memory(e) && !(e->kind == N_FIELD && cg_field_of(e) && cg_field_of(e)->bit_size)) {
			cg_mem_read_into(cg, e, dst, e->type.size < dst_size ? e->type.size : dst_size);
			return;
		}
	}
	LLVMValueRef v = cg_expr(cg, e);
	if (is_int_kind(&e->type)) {
		cg_store_i64(cg, v, dst);
		return;
	}
	uint32_t n = e->type.size < dst_size ? e->type.size : dst_size;
	cg_memcpy(cg, dst, v, n);
}

/* do values laid out as a and as b have the same bytes? (tuples whose
 * strings differ in width do not) */
static bool same_layout(const struct type *a, const struct type *b)
{
	if (a->size != b->size || a->kind != b->kind)
		return false;
	if (a->kind != TY_TUPLE)
		return true;
	if (a->nfields != b->nfields)
		return false;
	for (int i = 0; i < a->nfields; i++)
		if (a->fields[i].offset != b->fields[i].offset ||
		    (a->fields[i].name != b->fields[i].name &&	/* records in another order */
		     (!a->fields[i].name || !b->fields[i].name ||
		      strcmp(a->fields[i].name, b->fields[i].name))) ||
		    !same_layout(&a->fields[i].type, &b->fields[i].type))
			return false;
	return true;
}

/* copy a value laid out as `from` at src into zeroed dst laid out as `to` */
static void convert_copy(struct cg_ctx *cg, LLVMValueRef src, const struct type *from,
			 LLVMValueRef dst, const struct type *to)
{
	if (from->kind == TY_TUPLE && to->kind == TY_TUPLE && from->nfields == to->nfields) {
		for (int i = 0; i < from->nfields; i++) {
			/* a record's field goes to the field of its name */
			const struct type_field *f = &from->fields[i],
				*t = f->name ? type_record_field(to, f->name) : &to->fields[i];
			if (!t)
				continue;
			convert_copy(cg, cg_gep(cg, src, f->offset), &f->type,
				     cg_gep(cg, dst, t->offset), &t->type);
		}
		return;
	}
	cg_memcpy(cg, dst, src, from->size < to->size ? from->size : to->size);
}

void cg_expr_store_as(struct cg_ctx *cg, struct ast_node *e, LLVMValueRef dst,
		      const struct type *to)
{
	if (e->type.kind == TY_TUPLE && !same_layout(&e->type, to)) {
		convert_copy(cg, cg_expr(cg, e), &e->type, dst, to);
		return;
	}
	cg_expr_store(cg, e, dst, to->size ? to->size : 8);
}

static struct cg_var *var_slot(struct cg_ctx *cg, struct ast_node *v, bool create)
{
	for (struct cg_var *x = cg->vars; x; x = x->next)
		if (!strcmp(x->name, v->var.name))
			return x;
	if (!create)
		return NULL;
	struct cg_var *x = arena_new_obj(cg->a, struct cg_var);
	x->name = v->var.name;
	uint32_t size = ((is_int_kind(&v->type) ? 8 : v->type.size) + 7) & ~7u;
	x->loc = v->loc;
	x->slot = cg_alloca_program(cg, size, v->var.name);
	x->size = LLVMIsAAllocaInst(x->slot) ? size : 0;	/* 0: in the per-CPU frame */
	/* zero once at function entry: a variable read on a path that did not
	 * assign it must not read uninitialised stack */
	LLVMBasicBlockRef cur = LLVMGetInsertBlock(cg->b);
	LLVMPositionBuilderAtEnd(cg->b, cg->init);
	cg_memset0(cg, x->slot, is_int_kind(&v->type) ? 8 : v->type.size);
	LLVMPositionBuilderAtEnd(cg->b, cur);
	x->next = cg->vars;
	cg->vars = x;
	return x;
}

struct cg_var *cg_var_slot(struct cg_ctx *cg, struct ast_node *v)
{
	return var_slot(cg, v, true);
}

LLVMValueRef cg_arith(struct cg_ctx *cg, enum ast_op op, LLVMValueRef l, LLVMValueRef r,
		      bool is_signed)
{
	LLVMBuilderRef b = cg->b;
	switch (op) {
	case OP_ADD: return LLVMBuildAdd(b, l, r, "");
	case OP_SUB: return LLVMBuildSub(b, l, r, "");
	case OP_MUL: return LLVMBuildMul(b, l, r, "");
	case OP_DIV:
	case OP_MOD: {
		/* BPF division by zero yields 0 (mod: the dividend); make it explicit */
		LLVMValueRef zero = LLVMBuildICmp(b, LLVMIntEQ, r, cg_const(cg, 0), "");
		LLVMValueRef safe = LLVMBuildSelect(b, zero, cg_const(cg, 1), r, "");
		LLVMValueRef q;
		if (is_signed) {
			/* BPF (cpu v3) has no signed division: divide the magnitudes,
			 * then give the quotient the sign of l*r and the remainder
			 * the sign of l, as C does */
			LLVMValueRef ln = LLVMBuildICmp(b, LLVMIntSLT, l, cg_const(cg, 0), "");
			LLVMValueRef rn = LLVMBuildICmp(b, LLVMIntSLT, safe, cg_const(cg, 0), "");
			LLVMValueRef la = LLVMBuildSelect(b, ln, LLVMBuildNeg(b, l, ""), l, "");
			LLVMValueRef ra = LLVMBuildSelect(b, rn, LLVMBuildNeg(b, safe, ""), safe, "");
			LLVMValueRef m = op == OP_DIV ? LLVMBuildUDiv(b, la, ra, "") : LLVMBuildURem(b, la, ra, "");
			LLVMValueRef neg = op == OP_DIV ? LLVMBuildXor(b, ln, rn, "") : ln;
			q = LLVMBuildSelect(b, neg, LLVMBuildNeg(b, m, ""), m, "");
		} else {
			q = op == OP_DIV ? LLVMBuildUDiv(b, l, safe, "") : LLVMBuildURem(b, l, safe, "");
		}
		return LLVMBuildSelect(b, zero, op == OP_DIV ? cg_const(cg, 0) : l, q, "");
	}
	case OP_AND: return LLVMBuildAnd(b, l, r, "");
	case OP_OR: return LLVMBuildOr(b, l, r, "");
	case OP_XOR: return LLVMBuildXor(b, l, r, "");
	case OP_SHL: return LLVMBuildShl(b, l, LLVMBuildAnd(b, r, cg_const(cg, 63), ""), "");
	case OP_SHR: {
		LLVMValueRef sh = LLVMBuildAnd(b, r, cg_const(cg, 63), "");
		return is_signed ? LLVMBuildAShr(b, l, sh, "") : LLVMBuildLShr(b, l, sh, "");
	}
	case OP_EQ: case OP_NE: case OP_LT: case OP_LE: case OP_GT: case OP_GE: {
		LLVMIntPredicate p = op == OP_EQ ? LLVMIntEQ
				   : op == OP_NE ? LLVMIntNE
				   : op == OP_LT ? (is_signed ? LLVMIntSLT : LLVMIntULT)
				   : op == OP_LE ? (is_signed ? LLVMIntSLE : LLVMIntULE)
				   : op == OP_GT ? (is_signed ? LLVMIntSGT : LLVMIntUGT)
						 : (is_signed ? LLVMIntSGE : LLVMIntUGE);
		return LLVMBuildZExt(b, LLVMBuildICmp(b, p, l, r, ""), cg->i64, "");
	}
	case OP_NONE: case OP_LAND: case OP_LOR: case OP_NEG: case OP_LNOT: case OP_BNOT:
	case OP_DEREF: case OP_ADDR:
		break;
	}
	return cg_const(cg, 0);
}

LLVMValueRef cg_cond(struct cg_ctx *cg, struct ast_node *e)
{
	LLVMValueRef v = cg_expr(cg, e);
	return LLVMBuildICmp(cg->b, LLVMIntNE, v, cg_const(cg, 0), "");
}

/* strings compare equal when their bytes up to the shorter size match;
 * both are NUL-padded, so this is C string equality */
/* Strings are NUL-padded, so equal strings have equal bytes: compare the
 * shorter one's size, 8 bytes a turn in a bounded loop (an unrolled
 * compare of two 1024-byte strings would spill past the stack), then the
 * last few bytes one by one. */
static LLVMValueRef bytes_eq(struct cg_ctx *cg, LLVMValueRef a, LLVMValueRef b, uint32_t n)
{
	LLVMValueRef diff = cg_const(cg, 0);
	uint32_t words = n / 8;
	if (words > 1) {
		LLVMValueRef acc = cg_alloca(cg, 8, "streq.diff"), i = cg_alloca(cg, 8, "streq.i");
		LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "streq.head");
		LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "streq.body");
		LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "streq.done");
		LLVMBuildBr(cg->b, head);
		LLVMPositionBuilderAtEnd(cg->b, head);
		LLVMValueRef k = cg_load_i64(cg, i);
		LLVMBuildCondBr(cg->b, LLVMBuildICmp(cg->b, LLVMIntULT, k, cg_const(cg, words), ""),
				body, done);
		LLVMPositionBuilderAtEnd(cg->b, body);
		LLVMValueRef off = LLVMBuildShl(cg->b, k, cg_const(cg, 3), "");
		LLVMValueRef x = LLVMBuildLoad2(cg->b, cg->i64, LLVMBuildGEP2(cg->b, cg->i8, a, &off, 1, ""), "");
		LLVMValueRef y = LLVMBuildLoad2(cg->b, cg->i64, LLVMBuildGEP2(cg->b, cg->i8, b, &off, 1, ""), "");
		LLVMSetAlignment(x, 1);
		LLVMSetAlignment(y, 1);
		cg_store_i64(cg, LLVMBuildOr(cg->b, cg_load_i64(cg, acc), LLVMBuildXor(cg->b, x, y, ""), ""), acc);
		cg_store_i64(cg, LLVMBuildAdd(cg->b, k, cg_const(cg, 1), ""), i);
		LLVMBuildBr(cg->b, head);
		LLVMPositionBuilderAtEnd(cg->b, done);
		diff = cg_load_i64(cg, acc);
	} else {
		words = 0;
	}
	for (uint32_t off = words * 8; off < n; off++) {
		LLVMValueRef x = LLVMBuildLoad2(cg->b, cg->i8, cg_gep(cg, a, off), "");
		LLVMValueRef y = LLVMBuildLoad2(cg->b, cg->i8, cg_gep(cg, b, off), "");
		LLVMValueRef d = LLVMBuildZExt(cg->b, LLVMBuildXor(cg->b, x, y, ""), cg->i64, "");
		diff = LLVMBuildOr(cg->b, diff, d, "");
	}
	return LLVMBuildICmp(cg->b, LLVMIntEQ, diff, cg_const(cg, 0), "");
}

static LLVMValueRef str_eq(struct cg_ctx *cg, struct ast_node *l, struct ast_node *r)
{
	LLVMValueRef a = cg_expr(cg, l), b = cg_expr(cg, r);
	return bytes_eq(cg, a, b, l->type.size < r->type.size ? l->type.size : r->type.size);
}

/* two tuples (or their elements) at a and b equal, as sema_tuple_comparable
 * allows them: integers by value, strings up to the shorter size (they
 * are NUL-padded), the rest byte by byte */
static LLVMValueRef tuple_eq(struct cg_ctx *cg, LLVMValueRef a, const struct type *lt, LLVMValueRef b,
			     const struct type *rt)
{
	if (lt->kind == TY_TUPLE) {
		LLVMValueRef eq = LLVMConstInt(LLVMInt1TypeInContext(cg->ctx), 1, 0);
		for (int i = 0; i < lt->nfields; i++)
			eq = LLVMBuildAnd(cg->b, eq, tuple_eq(cg, cg_gep(cg, a, lt->fields[i].offset),
							     &lt->fields[i].type,
							     cg_gep(cg, b, rt->fields[i].offset),
							     &rt->fields[i].type), "");
		return eq;
	}
	if (lt->kind == TY_INT || lt->kind == TY_PTR) {
		LLVMValueRef x = cg_load_ext(cg, a, lt->size, lt->is_signed);
		LLVMValueRef y = cg_load_ext(cg, b, rt->size, rt->is_signed);
		return LLVMBuildICmp(cg->b, LLVMIntEQ, x, y, "");
	}
	return bytes_eq(cg, a, b, lt->size < rt->size ? lt->size : rt->size);
}

/* a && b, a || b with short-circuit */
static LLVMValueRef logical(struct cg_ctx *cg, struct ast_node *e)
{
	bool is_and = e->bin.op == OP_LAND;
	LLVMValueRef res = cg_alloca_nozero(cg, 8, "logic");
	LLVMValueRef l = cg_cond(cg, e->bin.lhs);
	cg_store_i64(cg, LLVMBuildZExt(cg->b, l, cg->i64, ""), res);
	struct cg_if f = cg_begin_if(cg, is_and ? l : LLVMBuildNot(cg->b, l, ""), "rhs");
	LLVMValueRef r = cg_cond(cg, e->bin.rhs);
	cg_store_i64(cg, LLVMBuildZExt(cg->b, r, cg->i64, ""), res);
	cg_end_if(cg, &f);
	return cg_load_i64(cg, res);
}

/* integer read of `size` bytes at ptr, sign- or zero-extended to i64 */
LLVMValueRef cg_load_ext(struct cg_ctx *cg, LLVMValueRef ptr, uint32_t size, bool is_signed)
{
	LLVMTypeRef t = LLVMIntTypeInContext(cg->ctx, size * 8);
	LLVMValueRef v = LLVMBuildLoad2(cg->b, t, ptr, "");
	if (size == 8)
		return v;
	return is_signed ? LLVMBuildSExt(cg->b, v, cg->i64, "") : LLVMBuildZExt(cg->b, v, cg->i64, "");
}

static LLVMValueRef narrow(struct cg_ctx *cg, LLVMValueRef v, uint32_t size, bool is_signed)
{
	if (size >= 8)
		return v;
	LLVMValueRef t = LLVMBuildTrunc(cg->b, v, LLVMIntTypeInContext(cg->ctx, size * 8), "");
	return is_signed ? LLVMBuildSExt(cg->b, t, cg->i64, "") : LLVMBuildZExt(cg->b, t, cg->i64, "");
}

#include "host/host.h"

/* args->field in a tracepoint: the record is the context */
static bool is_tp_field(struct cg_ctx *cg, struct ast_node *e)
{
	return e->kind == N_FIELD && e->field.base->kind == N_IDENT &&
	       !strcmp(e->field.base->ident.name, "args") &&
	       (sema_provider(cg->attach->type)->ctx & PC_TP_ARGS);
}

static bool is_tp_string(struct cg_ctx *cg, struct ast_node *e)
{
	return is_tp_field(cg, e) && e->type.kind == TY_STR;
}

/* a string field of the record into dst: inline char[N] or __data_loc */
static void tp_field_into(struct cg_ctx *cg, struct ast_node *e, LLVMValueRef dst, uint32_t size)
{
	const struct tp_field *f = tfs_field(cg->attach->fmt, e->field.name);
	LLVMValueRef p = cg_gep(cg, cg->ctx_arg, (uint32_t)f->offset);
	if (f->is_data_loc) {
		LLVMValueRef loc = cg_load_ext(cg, p, 4, false);
		LLVMValueRef off = LLVMBuildAnd(cg->b, loc, cg_const(cg, 0xffff), "");
		LLVMValueRef src = LLVMBuildGEP2(cg->b, cg->i8, cg->ctx_arg, &off, 1, "");
		cg_probe_read(cg, dst, size, src, 0, 1);
	} else {
		cg_probe_read(cg, dst, (uint32_t)f->size < size ? (uint32_t)f->size : size, p, 0, 0);
	}
}

static LLVMValueRef tp_field(struct cg_ctx *cg, struct ast_node *e, LLVMValueRef *array_base)
{
	const struct tp_field *f = tfs_field(cg->attach->fmt, e->field.name);
	LLVMValueRef p = cg_gep(cg, cg->ctx_arg, (uint32_t)f->offset);
	if (array_base) {
		*array_base = p;
		return NULL;
	}
	if (e->type.kind == TY_STR) {
		LLVMValueRef buf = cg_alloca(cg, e->type.size, "tpstr");
		tp_field_into(cg, e, buf, e->type.size);
		return buf;
	}
	if (e->type.kind == TY_ARRAY) {
		/* a whole array (ntop(args->daddr), buf(...)): its bytes */
		LLVMValueRef buf = cg_alloca(cg, e->type.size, "tparray");
		cg_probe_read(cg, buf, e->type.size, p, 0, 0);
		return buf;
	}
	/* the declared C type: `int dfd` in an 8-byte slot is its low half */
	uint32_t size = e->type.kind == TY_PTR ? 8 : e->type.size;
	if (size != 1 && size != 2 && size != 4 && size != 8)
		size = 8;
	return cg_load_ext(cg, p, size, e->type.kind == TY_INT && e->type.is_signed);
}

LLVMValueRef cg_tp_args(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMValueRef buf = cg_alloca(cg, n->type.size, "tpargs");
	for (int i = 0; i < n->type.nfields; i++) {
		const struct type_field *m = &n->type.fields[i];
		uint32_t end = i + 1 < n->type.nfields ? n->type.fields[i + 1].offset : n->type.size;
		/* args.NAME, as the script would write it */
		struct ast_node fe = {.kind = N_FIELD, .loc = n->loc, .type = m->type};
		fe.field.base = n;
		fe.field.name = m->name;
		cg_expr_store(cg, &fe, cg_gep(cg, buf, m->offset), end - m->offset);
	}
	return buf;
}

LLVMValueRef cg_kfunc_slot(struct cg_ctx *cg, uint32_t off, const struct type *t)
{
	/* The verifier checks 8-byte loads of the context against BTF, and
	 * before 5.16 or so refuses a pointer to anything but a struct
	 * ("arg3 type INT is not a struct" for vfs_read's loff_t *pos):
	 * such a slot is read as plain memory instead.  A raw tracepoint's
	 * context is plain 8-byte words, each loaded as is. */
	if (t->kind == TY_PTR && !(t->elem && t->elem->kind == TY_STRUCT) &&
	    cg->attach->type != PT_RAWTRACEPOINT) {
		LLVMValueRef tmp = cg_alloca(cg, 8, "kslot");
		cg_probe_read(cg, tmp, 8, LLVMBuildPtrToInt(cg->b, cg_gep(cg, cg->ctx_arg, off),
							     cg->i64, ""), 0, 0);
		return cg_load_i64(cg, tmp);
	}
	LLVMValueRef v = cg_load_i64(cg, cg_gep(cg, cg->ctx_arg, off));
	if (t->kind != TY_INT || t->size >= 8 || !t->size)
		return v;
	LLVMValueRef n = LLVMBuildTrunc(cg->b, v, LLVMIntTypeInContext(cg->ctx, t->size * 8), "");
	return t->is_signed ? LLVMBuildSExt(cg->b, n, cg->i64, "") : LLVMBuildZExt(cg->b, n, cg->i64, "");
}

/* fentry/fexit args.NAME: a parameter's slot of the context */
static bool is_karg_field(struct cg_ctx *cg, struct ast_node *e)
{
	return e->kind == N_FIELD && e->field.base->kind == N_IDENT &&
	       !strcmp(e->field.base->ident.name, "args") && cg->attach->kf;
}

/* uprobe args.NAME (kf->regs): argument i from its register of struct
 * pt_regs, or from user memory above the stack pointer; a struct passed
 * by value is copied to the BPF stack (its registers' bytes in order) */
LLVMValueRef cg_uarg(struct cg_ctx *cg, const struct sema_kfunc *kf, int i, const struct type *t)
{
	enum { PT_REGS_SP = 152 };	/* x86-64 struct pt_regs */
	uint32_t off = kf->offsets[i];
	LLVMValueRef at = NULL;
	if (off >= SEMA_ARG_STACK)
		at = LLVMBuildAdd(cg->b, cg_load_i64(cg, cg_gep(cg, cg->ctx_arg, PT_REGS_SP)),
				  cg_const(cg, off - SEMA_ARG_STACK), "");
	if (t->kind == TY_STRUCT) {
		LLVMValueRef buf = cg_alloca(cg, (t->size + 7) / 8 * 8, "uarg");
		if (at) {
			cg_probe_read(cg, buf, t->size, at, 1, 0);
		} else {
			cg_store_i64(cg, cg_load_i64(cg, cg_gep(cg, cg->ctx_arg, off)), buf);
			if (kf->offsets_hi[i])
				cg_store_i64(cg, cg_load_i64(cg, cg_gep(cg, cg->ctx_arg, kf->offsets_hi[i])),
					     cg_gep(cg, buf, 8));
		}
		return buf;
	}
	LLVMValueRef v;
	if (at) {
		LLVMValueRef tmp = cg_alloca(cg, 8, "uarg");
		cg_probe_read(cg, tmp, 8, at, 1, 0);
		v = cg_load_i64(cg, tmp);
	} else {
		v = cg_load_i64(cg, cg_gep(cg, cg->ctx_arg, off));
	}
	return t->kind == TY_INT ? narrow(cg, v, t->size, t->is_signed) : v;
}

static LLVMValueRef karg_field(struct cg_ctx *cg, struct ast_node *e)
{
	const struct sema_kfunc *kf = cg->attach->kf;
	for (int i = 0; i < kf->nargs; i++)
		if (!strcmp(kf->names[i], e->field.name))
			return kf->regs ? cg_uarg(cg, kf, i, &e->type)
					: cg_kfunc_slot(cg, kf->offsets[i], &e->type);
	return cg_const(cg, 0);	/* sema checked every attach point */
}

/* is `e` args->field with an array type? */
static bool is_tp_array(struct cg_ctx *cg, struct ast_node *e)
{
	return is_tp_field(cg, e) && e->type.kind == TY_ARRAY;
}

static LLVMValueRef cg_index(struct cg_ctx *cg, struct ast_node *e)
{
	struct ast_node *b = e->index.base;
	const struct type *el = b->type.elem;
	uint32_t esz = cg_elem_size(&b->type);
	if (is_tp_array(cg, b)) {
		LLVMValueRef base;
		tp_field(cg, b, &base);
		/* the verifier forbids variable offsets into the context: read
		 * through a probe read at base + i * size */
		LLVMValueRef idx = cg_expr(cg, e->index.index);
		LLVMValueRef addr = LLVMBuildAdd(cg->b, LLVMBuildPtrToInt(cg->b, base, cg->i64, ""),
						 LLVMBuildMul(cg->b, idx, cg_const(cg, esz), ""), "");
		LLVMValueRef tmp = cg_alloca(cg, 8, "elem");
		cg_probe_read(cg, tmp, esz, addr, 0, 0);
		return cg_load_ext(cg, tmp, esz, el->is_signed);
	}
	if (cg_in_memory(e))	/* p[i], p->a[i] */
		return cg_mem_read(cg, e);
	/* a string or an array on the BPF stack: bounds-checked */
	LLVMValueRef base = cg_expr(cg, b);
	LLVMValueRef idx = cg_expr(cg, e->index.index);
	bool isint = is_int_kind(&e->type);
	if (b->type.kind == TY_STR)
		esz = 1;
	uint32_t n = b->type.kind == TY_STR ? b->type.size : b->type.count;
	LLVMValueRef res = isint ? cg_alloca(cg, 8, "elem") : cg_alloca(cg, e->type.size, "elem");
	LLVMValueRef ok = LLVMBuildICmp(cg->b, LLVMIntULT, idx, cg_const(cg, n), "");
	struct cg_if f = cg_begin_if(cg, ok, "inbounds");
	LLVMValueRef off = LLVMBuildMul(cg->b, idx, cg_const(cg, esz), "");
	LLVMValueRef p = LLVMBuildGEP2(cg->b, cg->i8, base, &off, 1, "");
	if (isint)
		cg_store_i64(cg, cg_load_ext(cg, p, esz > 8 ? 8 : esz,
					     b->type.kind == TY_STR || (el && el->is_signed)), res);
	else
		cg_memcpy(cg, res, p, e->type.size);
	cg_end_if(cg, &f);
	return isint ? cg_load_i64(cg, res) : res;
}

static LLVMValueRef cg_field(struct cg_ctx *cg, struct ast_node *e)
{
	struct ast_node *b = e->field.base;
	if (is_tp_field(cg, e))
		return tp_field(cg, e, NULL);
	if (is_karg_field(cg, e))
		return karg_field(cg, e);
	if (cg_in_memory(e))	/* p->f, p->s.f */
		return cg_mem_read(cg, e);
	LLVMValueRef base = cg_expr(cg, b);
	if (b->type.kind == TY_TUPLE) {
		const struct type_field *f = type_is_record(&b->type) ?
			type_record_field(&b->type, e->field.name) : &b->type.fields[atoi(e->field.name)];
		LLVMValueRef p = cg_gep(cg, base, f->offset);
		if (is_int_kind(&f->type))
			return cg_load_i64(cg, p);
		return p;
	}
	/* a field of a struct value on the BPF stack ($s.f, @m.f) */
	const struct type_field *f = cg_field_of(e);
	LLVMValueRef p = cg_gep(cg, base, f->offset);
	if (f->bit_size) {
		LLVMValueRef tmp = cg_alloca(cg, 8, "bits");
		cg_memcpy(cg, tmp, p, ((uint32_t)f->bit_off + f->bit_size + 7) / 8);
		return cg_bitfield(cg, cg_load_i64(cg, tmp), f);
	}
	if (is_int_kind(&e->type))
		return cg_load_ext(cg, p, e->type.kind == TY_PTR ? 8 : f->type.size ? f->type.size : 8,
				   f->type.is_signed);
	return p;
}

static LLVMValueRef cg_ternary(struct cg_ctx *cg, struct ast_node *e)
{
	if (e->type.kind == TY_VOID) {
		/* c ? printf(..) : printf(..); as a statement */
		struct ast_node st = {.kind = N_IF, .loc = e->loc};
		struct ast_node then = {.kind = N_EXPR_STMT, .loc = e->tern.then->loc};
		struct ast_node els = {.kind = N_EXPR_STMT, .loc = e->tern.els->loc};
		then.expr_stmt.expr = e->tern.then;
		els.expr_stmt.expr = e->tern.els;
		st.if_.cond = e->tern.cond;
		st.if_.then = &then;
		st.if_.els = &els;
		cg_stmt(cg, &st);
		return NULL;
	}
	bool isint = is_int_kind(&e->type);
	LLVMValueRef res = isint ? cg_alloca_nozero(cg, 8, "tern") : cg_alloca(cg, e->type.size, "tern");
	bool elvis = !e->tern.then;	/* a ?: b (an integer): a read once */
	LLVMValueRef c;
	if (elvis) {
		LLVMValueRef v = cg_expr(cg, e->tern.cond);
		cg_store_i64(cg, v, res);
		c = LLVMBuildICmp(cg->b, LLVMIntNE, v, cg_const(cg, 0), "");
	} else {
		c = cg_cond(cg, e->tern.cond);
	}
	LLVMBasicBlockRef t = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "then");
	LLVMBasicBlockRef f = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "else");
	LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "endtern");
	LLVMBuildCondBr(cg->b, c, t, f);
	LLVMPositionBuilderAtEnd(cg->b, t);
	if (!elvis)
		cg_expr_store(cg, e->tern.then, res, e->type.size);
	LLVMBuildBr(cg->b, end);
	LLVMPositionBuilderAtEnd(cg->b, f);
	cg_expr_store(cg, e->tern.els, res, e->type.size);
	LLVMBuildBr(cg->b, end);
	LLVMPositionBuilderAtEnd(cg->b, end);
	return isint ? cg_load_i64(cg, res) : res;
}

static LLVMValueRef cg_incdec(struct cg_ctx *cg, struct ast_node *e)
{
	struct ast_node *t = e->incdec.target;
	LLVMValueRef one = cg_const(cg, 1);
	enum ast_op op = e->incdec.is_inc ? OP_ADD : OP_SUB;
	if (t->kind == N_VAR) {
		struct cg_var *v = var_slot(cg, t, true);
		if (t->type.kind == TY_PTR)	/* p++: the next element */
			one = cg_const(cg, cg_elem_size(&t->type));
		LLVMValueRef old = cg_load_i64(cg, v->slot);
		LLVMValueRef nv = cg_arith(cg, op, old, one, true);
		if (e->note.narrow)	/* let $x: int8 = 127; $x++ is -128 */
			nv = narrow(cg, nv, t->type.csize, t->type.is_signed);
		cg_store_i64(cg, nv, v->slot);
		return e->incdec.is_post ? old : nv;
	}
	LLVMValueRef old, nv;
	if (t->type.kind == TY_PTR)	/* @p++: the next element */
		one = cg_const(cg, cg_elem_size(&t->type));
	cg_map_compound(cg, t, op, one, &old, &nv);
	return e->incdec.is_post ? old : nv;
}

static LLVMValueRef expr_value(struct cg_ctx *cg, struct ast_node *e);

LLVMValueRef cg_expr(struct cg_ctx *cg, struct ast_node *e)
{
	/* -k names the innermost expression whose code calls a helper */
	struct src_loc outer = cg->expr_loc;
	cg->expr_loc = e->loc;
	LLVMValueRef v = expr_value(cg, e);
	cg->expr_loc = outer;
	return v;
}

static LLVMValueRef expr_value(struct cg_ctx *cg, struct ast_node *e)
{
	switch (e->kind) {
	case N_INT:	/* 42 */
		return cg_const(cg, e->i.value);
	case N_STR:	/* "text" */
		return const_bytes(cg, e->s.value, e->s.len, e->type.size);
	case N_IDENT:	/* pid, comm, nsecs ... */
		return e->note.builtin->lower(cg, e);
	case N_VAR: {	/* $x */
		struct cg_var *v = var_slot(cg, e, true);
		return is_int_kind(&e->type) ? cg_load_i64(cg, v->slot) : v->slot;
	}
	case N_MAP:	/* @m[k] */
		return cg_map_read(cg, e);
	case N_POSITIONAL:	/* sema rewrote $1.. into literals */
		return cg_const(cg, 0);
	case N_CALL:	/* f(args) */
		return e->note.builtin->lower(cg, e);
	case N_BINARY: {	/* a OP b */
		if (e->bin.op == OP_LAND || e->bin.op == OP_LOR)
			return logical(cg, e);
		if (e->bin.lhs->type.kind == TY_STR || e->bin.lhs->type.kind == TY_ARRAY ||
		    e->bin.lhs->type.kind == TY_BUF || e->bin.lhs->type.kind == TY_TUPLE) {
			LLVMValueRef eq = e->bin.lhs->type.kind != TY_TUPLE ? str_eq(cg, e->bin.lhs, e->bin.rhs)
				: tuple_eq(cg, cg_expr(cg, e->bin.lhs), &e->bin.lhs->type,
					   cg_expr(cg, e->bin.rhs), &e->bin.rhs->type);
			if (e->bin.op == OP_NE)
				eq = LLVMBuildNot(cg->b, eq, "");
			return LLVMBuildZExt(cg->b, eq, cg->i64, "");
		}
		LLVMValueRef l = cg_expr(cg, e->bin.lhs);
		LLVMValueRef r = cg_expr(cg, e->bin.rhs);
		const struct type *lt = &e->bin.lhs->type, *rt = &e->bin.rhs->type;
		if (e->type.kind == TY_PTR) {	/* p + n, n + p, p - n: n elements */
			LLVMValueRef esz = cg_const(cg, cg_elem_size(&e->type));
			if (lt->kind == TY_PTR)
				r = LLVMBuildMul(cg->b, r, esz, "");
			else
				l = LLVMBuildMul(cg->b, l, esz, "");
		} else if (lt->kind == TY_PTR && rt->kind == TY_PTR && e->bin.op == OP_SUB) {
			LLVMValueRef d = LLVMBuildSub(cg->b, l, r, "");
			return cg_arith(cg, OP_DIV, d, cg_const(cg, cg_elem_size(lt)), true);
		}
		bool sgn = type_arith_signed(&e->bin.lhs->type, &e->bin.rhs->type);
		if (e->bin.op == OP_SHR)
			sgn = type_arith_signed(&e->bin.lhs->type, &e->bin.lhs->type);
		return cg_arith(cg, e->bin.op, l, r, sgn);
	}
	case N_UNARY: {	/* -a !a ~a *a &a */
		if (e->un.op == OP_DEREF)	/* *p */
			return cg_mem_read(cg, e);
		if (e->un.op == OP_ADDR)	/* &p->f: sema let only objects in memory here */
			return cg_addr(cg, e->un.operand);
		LLVMValueRef v = cg_expr(cg, e->un.operand);
		if (e->un.op == OP_NEG)
			return LLVMBuildNeg(cg->b, v, "");
		if (e->un.op == OP_LNOT)
			return LLVMBuildZExt(cg->b, LLVMBuildICmp(cg->b, LLVMIntEQ, v, cg_const(cg, 0), ""),
					     cg->i64, "");
		if (e->un.op == OP_BNOT)
			return LLVMBuildNot(cg->b, v, "");
		return v;
	}
	case N_INCDEC:	/* x++ ++x x-- --x */
		return cg_incdec(cg, e);
	case N_TERNARY:	/* c ? a : b */
		return cg_ternary(cg, e);
	case N_FIELD:	/* a.f a->f */
		return cg_field(cg, e);
	case N_INDEX:	/* a[i] */
		return cg_index(cg, e);
	case N_CAST: {	/* (type)e */
		LLVMValueRef v = cg_expr(cg, e->cast.operand);
		if (e->type.is_bool) {
			if (e->cast.operand->type.kind == TY_STR)	/* its first byte */
				v = LLVMBuildZExt(cg->b, LLVMBuildLoad2(cg->b, cg_i8(cg), v, ""), cg->i64, "");
			return LLVMBuildZExt(cg->b, LLVMBuildICmp(cg->b, LLVMIntNE, v, cg_const(cg, 0), ""),
					     cg->i64, "bool");
		}
		if (e->type.kind == TY_STR) {
			/* (string[N])x: x's bytes, cut to end in a NUL or padded */
			uint32_t from = e->cast.operand->type.size, n = e->type.size;
			LLVMValueRef buf = cg_alloca(cg, n, "strcast");
			cg_memcpy(cg, buf, v, from < n ? from : n);
			if (from >= n)
				LLVMBuildStore(cg->b, LLVMConstInt(cg_i8(cg), 0, false),
					       cg_gep(cg, buf, n - 1));
			return buf;
		}
		if (e->type.kind == TY_INT && e->cast.operand->type.kind == TY_ARRAY)
			return cg_load_ext(cg, v, e->type.size, e->type.is_signed);	/* its bytes */
		if (e->type.kind == TY_ARRAY && e->cast.operand->type.kind == TY_STR)
			return v;	/* its bytes, as many as the array holds */
		if (e->type.kind == TY_ARRAY && e->cast.operand->type.kind != TY_ARRAY) {
			/* an integer's bytes, little-endian, as an array */
			LLVMValueRef buf = cg_alloca(cg, e->type.size, "arraycast");
			LLVMTypeRef it = LLVMIntTypeInContext(cg->ctx, e->type.size * 8);
			LLVMBuildStore(cg->b, e->type.size < 8 ? LLVMBuildTrunc(cg->b, v, it, "") : v, buf);
			return buf;
		}
		if (e->type.kind == TY_INT)
			return narrow(cg, v, e->type.size, e->type.is_signed);
		return v;
	}
	case N_SIZEOF:	/* sema rewrote sizeof() into a literal */
		return cg_const(cg, 0);
	case N_TUPLE: {	/* (a, b) */
		LLVMValueRef buf = cg_alloca(cg, e->type.size, "tuple");
		int i = 0;
		for (struct ast_node *x = e->tuple.elems; x; x = x->next, i++) {
			const struct type_field *f = &e->type.fields[i];
			cg_expr_store(cg, x, cg_gep(cg, buf, f->offset), f->type.size);
		}
		return buf;
	}
	case N_BLOCK: {	/* { stmts; value } */
		for (struct ast_node *s = e->block.stmts; s; s = s->next)
			cg_stmt(cg, s);
		return e->block.value ? cg_expr(cg, e->block.value) : cg_const(cg, 0);
	}
	case N_EXPR_STMT: case N_ASSIGN: case N_IF: case N_WHILE: case N_UNROLL: case N_FOR:
	case N_RETURN: case N_BREAK: case N_CONTINUE: case N_PROBE: case N_MACRO:
	case N_STRUCT_DEF: case N_PROGRAM:
		break;
	}
	return cg_const(cg, 0);
}

/* ---- statements ------------------------------------------------------------ */

struct var_use {
	const char *name;
	bool found;
};

static void find_var(const struct ast_node *n, void *ctx)
{
	struct var_use *u = ctx;
	if (n->kind == N_VAR && !strcmp(n->var.name, u->name))
		u->found = true;
	else if (!u->found)
		ast_each_child(n, find_var, ctx);
}

/* does e read $name (so that writing $name while e is lowered could
 * change what e reads)? */
static bool reads_var(const struct ast_node *e, const char *name)
{
	struct var_use u = {.name = name};
	find_var(e, &u);
	return u.found;
}

static void assign_var(struct cg_ctx *cg, struct ast_node *st)
{
	struct ast_node *t = st->assign.target;
	struct cg_var *v = var_slot(cg, t, true);
	if (!st->assign.value) {
		/* "let $x;" starts at zero each time it runs */
		cg_memset0(cg, v->slot, is_int_kind(&t->type) ? 8 : t->type.size);
		return;
	}
	if (st->assign.op != OP_NONE) {
		LLVMValueRef old = cg_load_i64(cg, v->slot);
		LLVMValueRef r = cg_expr(cg, st->assign.value);
		if (t->type.kind == TY_PTR && (st->assign.op == OP_ADD || st->assign.op == OP_SUB))
			r = LLVMBuildMul(cg->b, r, cg_const(cg, cg_elem_size(&t->type)), "");
		LLVMValueRef nv = cg_arith(cg, st->assign.op, old, r, t->type.is_signed);
		if (st->note.narrow)
			nv = narrow(cg, nv, t->type.csize, t->type.is_signed);
		cg_store_i64(cg, nv, v->slot);
		return;
	}
	if (!is_int_kind(&t->type)) {
		const struct builtin *b = into_builtin(st->assign.value);
		if (b && st->assign.value->type.size <= t->type.size &&
		    !reads_var(st->assign.value, t->var.name)) {
			/* $s = str(p), $c = comm: read straight into the slot; a
			 * temporary would cost max_strlen bytes of frame, their
			 * zeroing and a second copy (9999-byte strings: 1,250
			 * stores and a bpf_probe_read_kernel more) */
			if (!b->into_fills || st->assign.value->type.size != t->type.size)
				cg_memset0(cg, v->slot, t->type.size);
			cg_expr_store(cg, st->assign.value, v->slot, t->type.size);
			return;
		}
		/* copy into a temporary first: `$s = $s` style aliasing is harmless */
		LLVMValueRef val = cg_expr(cg, st->assign.value);
		cg_memset0(cg, v->slot, t->type.size);
		convert_copy(cg, val, &st->assign.value->type, v->slot, &t->type);
		return;
	}
	LLVMValueRef val = cg_expr(cg, st->assign.value);
	if (st->note.narrow)	/* let $x: int16 = 70000 holds 4464 */
		val = narrow(cg, val, t->type.csize, t->type.is_signed);
	cg_store_i64(cg, val, v->slot);
}

void cg_stmt(struct cg_ctx *cg, struct ast_node *st)
{
	cg_set_loc(cg, st->loc);
	cg->expr_loc = st->loc;
	int mark;
	switch (st->kind) {
	case N_EXPR_STMT:	/* expr; */
		cg_temps_begin(cg, &mark);
		cg_expr(cg, st->expr_stmt.expr);
		cg_temps_end(cg, mark, st->loc);
		return;
	case N_ASSIGN: {	/* lvalue = e; lvalue OP= e; */
		struct ast_node *t = st->assign.target;
		cg_temps_begin(cg, &mark);
		if (t->kind == N_VAR) {
			assign_var(cg, st);
		} else if (st->assign.op != OP_NONE) {
			LLVMValueRef v = cg_expr(cg, st->assign.value);
			if (t->type.kind == TY_PTR)	/* @p += n: n elements */
				v = LLVMBuildMul(cg->b, v, cg_const(cg, cg_elem_size(&t->type)), "");
			cg_map_compound(cg, t, st->assign.op, v, NULL, NULL);
		} else {
			cg_map_assign(cg, t, st->assign.value);
		}
		cg_temps_end(cg, mark, st->loc);
		return;
	}
	case N_IF: {	/* if (c) {..} else .. */
		LLVMValueRef c = cg_cond(cg, st->if_.cond);
		LLVMBasicBlockRef t = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "if");
		LLVMBasicBlockRef f = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "else");
		LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "endif");
		LLVMBuildCondBr(cg->b, c, t, f);
		LLVMPositionBuilderAtEnd(cg->b, t);
		cg_stmt(cg, st->if_.then);
		if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(cg->b)))
			LLVMBuildBr(cg->b, end);
		LLVMPositionBuilderAtEnd(cg->b, f);
		if (st->if_.els)
			cg_stmt(cg, st->if_.els);
		if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(cg->b)))
			LLVMBuildBr(cg->b, end);
		LLVMPositionBuilderAtEnd(cg->b, end);
		return;
	}
	case N_WHILE: {	/* while (c) {..} */
		LLVMBasicBlockRef cond = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "while");
		LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "do");
		LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "endwhile");
		LLVMBuildBr(cg->b, cond);
		LLVMPositionBuilderAtEnd(cg->b, cond);
		LLVMBuildCondBr(cg->b, cg_cond(cg, st->while_.cond), body, end);
		LLVMPositionBuilderAtEnd(cg->b, body);
		struct cg_loop l = {cond, end, cg->loop};
		cg->loop = &l;
		cg_stmt(cg, st->while_.body);
		cg->loop = l.outer;
		if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(cg->b)))
			LLVMBuildBr(cg->b, cond);
		LLVMPositionBuilderAtEnd(cg->b, end);
		return;
	}
	case N_FOR:	/* for ($kv : @m) {..}  for ($i : a..b) {..} */
		cg_for(cg, st);
		return;
	case N_UNROLL: {	/* unroll(N) {..} */
		uint64_t n = st->unroll.count->kind == N_INT ? st->unroll.count->i.value : 1;
		for (uint64_t i = 0; i < n; i++)
			cg_stmt(cg, st->unroll.body);
		return;
	}
	case N_RETURN:	/* return; return e; */
		if (st->ret.value)
			cg_return_value(cg, cg_expr(cg, st->ret.value));
		else
			cg_return(cg);
		return;
	case N_BREAK:
	case N_CONTINUE: {	/* break; continue; */
		LLVMBuildBr(cg->b, st->kind == N_BREAK ? cg->loop->brk : cg->loop->cont);
		LLVMBasicBlockRef dead = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "after_jump");
		LLVMPositionBuilderAtEnd(cg->b, dead);
		return;
	}
	case N_BLOCK:	/* { stmts } */
		for (struct ast_node *s = st->block.stmts; s; s = s->next)
			cg_stmt(cg, s);
		if (st->block.value)
			cg_expr(cg, st->block.value);
		return;
	case N_INT: case N_STR: case N_IDENT: case N_VAR: case N_MAP: case N_POSITIONAL:
	case N_CALL: case N_BINARY: case N_UNARY: case N_INCDEC: case N_TERNARY: case N_FIELD:
	case N_INDEX: case N_CAST: case N_SIZEOF: case N_TUPLE: case N_PROBE: case N_STRUCT_DEF:
	case N_PROGRAM: case N_MACRO:
		cg_expr(cg, st);
		return;
	}
}
