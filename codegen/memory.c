/*
 * memory.c - reads of traced memory: `p->f`, `p->a[i][j]`, `s.f` of a struct
 * that is itself in memory, `*p`, `p[i]`.
 *
 * An expression that names an object in the traced program or the kernel
 * has an address: a pointer's value, plus field offsets and scaled
 * indexes.  cg_addr() computes it without reading the objects on the way,
 * so `$o->grid[1][2]` is one probe read of 4 bytes, not a copy of the
 * whole struct and then of the row.  The address space comes from the
 * type (is_user, set by sema): bpf_probe_read_user for user memory,
 * bpf_probe_read_kernel otherwise (the generic helper in uprobes, see
 * cg_probe_read).  Values on the BPF stack ($variables, map values,
 * tuples) are not in memory: expr.c reads those directly.
 */
#include "codegen/cg_int.h"

#include <string.h>

static bool is_args(const struct ast_node *b)
{
	return b->kind == N_IDENT && !strcmp(b->ident.name, "args");
}

bool cg_in_memory(const struct ast_node *e)
{
	switch (e->kind) {
	case N_UNARY:	/* *p */
		return e->un.op == OP_DEREF && e->un.operand->type.kind == TY_PTR;
	case N_FIELD:	/* p->f, m.f */
		if (is_args(e->field.base) || e->field.base->type.kind == TY_TUPLE)
			return false;
		if (e->field.is_arrow)
			return e->field.base->type.kind == TY_PTR;
		return cg_in_memory(e->field.base);
	case N_INDEX:	/* p[i], a[i] */
		if (e->index.base->type.kind == TY_PTR)
			return true;
		return e->index.base->type.kind == TY_ARRAY && cg_in_memory(e->index.base);
	case N_INT: case N_STR: case N_IDENT: case N_VAR: case N_MAP: case N_POSITIONAL:
	case N_CALL: case N_BINARY: case N_INCDEC: case N_TERNARY: case N_CAST: case N_SIZEOF:
	case N_TUPLE: case N_EXPR_STMT: case N_ASSIGN: case N_IF: case N_WHILE: case N_UNROLL: case N_FOR:
	case N_RETURN: case N_BREAK: case N_CONTINUE: case N_BLOCK: case N_PROBE: case N_MACRO:
	case N_STRUCT_DEF: case N_PROGRAM:
		break;
	}
	return false;
}

const struct type_field *cg_field_of(const struct ast_node *e)
{
	const struct type *st = e->note.record;	/* the struct, resolved by sema */
	for (int i = 0; st && i < st->nfields; i++)
		if (!strcmp(st->fields[i].name, e->field.name))
			return &st->fields[i];
	return NULL;
}

uint32_t cg_elem_size(const struct type *t)
{
	if (!t->elem)
		return 1;	/* void *: bytes */
	return t->elem->size ? t->elem->size : 1;
}

/* is the memory holding e user memory? */
static bool mem_user(const struct ast_node *e)
{
	if (e->kind == N_FIELD)
		return e->field.is_arrow ? e->field.base->type.is_user : mem_user(e->field.base);
	if (e->kind == N_INDEX)
		return e->index.base->type.kind == TY_PTR ? e->index.base->type.is_user
							   : mem_user(e->index.base);
	if (e->kind == N_UNARY)
		return e->un.operand->type.is_user;
	return e->type.is_user;
}

/* only for expressions cg_in_memory() accepts, and *int */
LLVMValueRef cg_addr(struct cg_ctx *cg, struct ast_node *e)
{
	if (e->kind == N_FIELD) {
		const struct type_field *f = cg_field_of(e);
		LLVMValueRef base = e->field.is_arrow ? cg_expr(cg, e->field.base)
						      : cg_addr(cg, e->field.base);
		return LLVMBuildAdd(cg->b, base, cg_const(cg, f ? f->offset : 0), "");
	}
	if (e->kind == N_INDEX) {
		struct ast_node *b = e->index.base;
		LLVMValueRef base = b->type.kind == TY_PTR ? cg_expr(cg, b) : cg_addr(cg, b);
		LLVMValueRef idx = cg_expr(cg, e->index.index);
		LLVMValueRef off = LLVMBuildMul(cg->b, idx, cg_const(cg, cg_elem_size(&b->type)), "");
		return LLVMBuildAdd(cg->b, base, off, "");
	}
	if (e->kind == N_UNARY)
		return cg_expr(cg, e->un.operand);
	if (e->kind == N_VAR)	/* &$v: its slot */
		return LLVMBuildPtrToInt(cg->b, cg_var_slot(cg, e)->slot, cg->i64, "");
	return cg_expr(cg, e);
}

LLVMValueRef cg_bitfield(struct cg_ctx *cg, LLVMValueRef word, const struct type_field *f)
{
	LLVMValueRef v = LLVMBuildLShr(cg->b, word, cg_const(cg, f->bit_off), "");
	if (f->bit_size >= 64)
		return v;
	uint32_t up = 64 - f->bit_size;
	v = LLVMBuildShl(cg->b, v, cg_const(cg, up), "");
	return f->type.is_signed ? LLVMBuildAShr(cg->b, v, cg_const(cg, up), "")
				 : LLVMBuildLShr(cg->b, v, cg_const(cg, up), "");
}

void cg_mem_read_into(struct cg_ctx *cg, struct ast_node *e, LLVMValueRef dst, uint32_t size)
{
	cg_probe_read(cg, dst, size, cg_addr(cg, e), mem_user(e), 0);
}

LLVMValueRef cg_mem_read(struct cg_ctx *cg, struct ast_node *e)
{
	LLVMValueRef addr = cg_addr(cg, e);
	int user = mem_user(e);
	const struct type_field *f = e->kind == N_FIELD ? cg_field_of(e) : NULL;
	if (f && f->bit_size) {
		/* the bytes holding the bits, then shift and mask */
		LLVMValueRef tmp = cg_alloca(cg, 8, "bits");
		cg_probe_read(cg, tmp, ((uint32_t)f->bit_off + f->bit_size + 7) / 8, addr, user, 0);
		return cg_bitfield(cg, cg_load_i64(cg, tmp), f);
	}
	if (e->type.kind == TY_INT || e->type.kind == TY_PTR) {
		uint32_t sz = e->type.kind == TY_PTR ? 8 : e->type.size;
		if (sz != 1 && sz != 2 && sz != 4 && sz != 8)
			sz = 8;
		LLVMValueRef tmp = cg_alloca(cg, 8, "mem");
		cg_probe_read(cg, tmp, sz, addr, user, 0);
		return cg_load_ext(cg, tmp, sz, e->type.kind == TY_INT && e->type.is_signed);
	}
	/* structs, arrays, char arrays as strings: their bytes on the stack */
	LLVMValueRef buf = cg_alloca(cg, e->type.size ? e->type.size : 8, "mem");
	cg_probe_read(cg, buf, e->type.size ? e->type.size : 8, addr, user, 0);
	return buf;
}
