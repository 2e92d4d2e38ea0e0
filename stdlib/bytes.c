/*
 * bytes.c - raw memory as values: buf(ptr, len) and join(argv [, sep]).
 *
 * buf() copies up to 64 bytes into a length-prefixed value (TY_BUF:
 * {u64 length, bytes}), printed as bpftrace does: printable ASCII as
 * itself, other bytes as \xNN.  A constant length sizes the value; a
 * run-time one is clamped to 64.  buf(array) takes a whole array.
 *
 * join() reads a NULL-terminated char *[] (argv, envp) of up to
 * CG_JOIN_ARGS strings of CG_JOIN_ARG_SIZE bytes each - 16 KB, too much
 * for the 512-byte BPF stack, so it is assembled in a per-CPU scratch
 * buffer and sent as one EV_JOIN event; userspace prints the strings
 * separated by sep (default " ") and a newline.  Memory is read with the
 * legacy bpf_probe_read helpers, which serve user and kernel addresses
 * alike on x86-64, as str() does.
 */
#include <string.h>

#include "stdlib/stdlib_int.h"

#define BUF_MAX 64

/* buf(ptr, len), buf(array) */
static void check_buf(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args, *len = a->next;
	struct type *t = sema_expr(s, a);
	if (t->kind == TY_ERROR) {
		n->type.kind = TY_ERROR;
		return;
	}
	bool bytes = t->kind == TY_ARRAY || t->kind == TY_STR;
	if (!bytes && t->kind != TY_INT && t->kind != TY_PTR) {
		sema_error(s, a->loc, "buf() needs an address or an array, not %s",
			   type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return;
	}
	uint32_t size = bytes ? t->size : BUF_MAX;
	if (!len && !bytes) {
		sema_error(s, n->loc, "buf(address, length): the length is needed for an address");
		n->type.kind = TY_ERROR;
		return;
	}
	if (len) {
		struct type *lt = sema_expr(s, len);
		int64_t v;
		if (lt->kind != TY_INT && lt->kind != TY_ERROR) {
			sema_error(s, len->loc, "buf() length must be an integer, not %s",
				   type_str(sema_arena(s), lt));
			n->type.kind = TY_ERROR;
			return;
		}
		if (len->kind == N_INT || (len->kind == N_UNARY && len->un.operand->kind == N_INT)) {
			if (!sema_const_int(s, len, &v) || v < 1 || v > BUF_MAX) {
				sema_error(s, len->loc, "buf() length must be 1 to %d", BUF_MAX);
				n->type.kind = TY_ERROR;
				return;
			}
			/* a string is zero-padded as bpftrace's string buffer is:
			 * buf("ok_key", 8) is ok_key\x00\x00 */
			if (!bytes || (uint32_t)v < size || t->kind == TY_STR)
				size = (uint32_t)v;
		}
	}
	if (size > BUF_MAX)
		size = BUF_MAX;
	n->type = (struct type){.kind = TY_BUF, .size = 8 + ((size + 7) & ~7u)};
}

static LLVMValueRef lower_buf(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMBuilderRef b = cg_builder(cg);
	struct ast_node *a = n->call.args, *len = a->next;
	uint32_t cap = n->type.size - 8;
	LLVMValueRef out = cg_alloca(cg, n->type.size, "buf");
	LLVMValueRef src = cg_expr(cg, a);
	if (a->type.kind == TY_ARRAY || a->type.kind == TY_STR) {
		uint32_t k = a->type.size < cap ? a->type.size : cap;
		/* a string's bytes past its end are zeros, up to the length asked */
		uint32_t most = a->type.kind == TY_STR ? cap : k;
		LLVMValueRef nb = cg_const(cg, k);
		if (len && len->kind != N_INT) {
			/* run-time length within the array */
			LLVMValueRef l = cg_expr(cg, len);
			LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGT, l, cg_const(cg, most), "");
			nb = LLVMBuildSelect(b, big, cg_const(cg, most), l, "");
		} else if (len) {
			nb = cg_const(cg, len->i.value < most ? len->i.value : most);
		}
		if (k < cap)
			cg_memset0(cg, cg_gep(cg, out, 8 + k), cap - k);
		cg_memcpy(cg, cg_gep(cg, out, 8), src, k);
		cg_store_i64(cg, nb, out);
		return out;
	}
	LLVMValueRef l = cg_expr(cg, len);
	LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGT, l, cg_const(cg, cap), "");
	LLVMValueRef nb = LLVMBuildSelect(b, big, cg_const(cg, cap), l, "buflen");
	cg_store_i64(cg, nb, out);
	LLVMValueRef args[] = {cg_gep(cg, out, 8), LLVMBuildTrunc(b, nb, cg_i32(cg), ""),
			       LLVMBuildIntToPtr(b, src, cg_ptr(cg), "")};
	cg_helper_call(cg, BPF_FUNC_probe_read, args, 3);
	return out;
}

/* join(argv [, "sep"]) */
static void check_join(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args, *sep = a->next;
	struct type *t = sema_expr(s, a);
	n->type = ty_void;
	if (t->kind != TY_INT && t->kind != TY_PTR && t->kind != TY_ERROR) {
		sema_error(s, a->loc, "join() needs the address of a char *[] (like argv), not %s",
			   type_str(sema_arena(s), t));
		return;
	}
	if (sep && sep->kind != N_STR) {
		sema_error(s, sep->loc, "join() separator must be a string literal");
		return;
	}
	struct sema_event *ev = sema_add_event(s, EV_JOIN, n, NULL, NULL);
	ev->fmt = sep ? sep->s.value : " ";
	n->note.event = ev;
}

static LLVMValueRef lower_join(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMBuilderRef b = cg_builder(cg);
	const struct sema_event *ev = n->note.event;
	const uint32_t hdr = 16;
	LLVMValueRef buf = cg_scratch(cg, "join", hdr + CG_JOIN_ARGS * CG_JOIN_ARG_SIZE);
	LLVMValueRef argv = cg_expr(cg, n->call.args);
	cg_store_i64(cg, cg_const(cg, (uint64_t)EV_JOIN | (uint64_t)ev->id << 32), buf);
	cg_store_i64(cg, cg_const(cg, 0), cg_gep(cg, buf, 8));
	/* argv[i] until the first NULL: each found string nests the next read */
	struct cg_if ifs[CG_JOIN_ARGS];
	LLVMValueRef slot = cg_alloca(cg, 8, "argp");
	for (int i = 0; i < CG_JOIN_ARGS; i++) {
		cg_store_i64(cg, cg_const(cg, 0), slot);
		LLVMValueRef pa[] = {slot, LLVMConstInt(cg_i32(cg), 8, 0),
				     LLVMBuildIntToPtr(b, LLVMBuildAdd(b, argv, cg_const(cg, 8 * (uint64_t)i), ""),
						       cg_ptr(cg), "")};
		cg_helper_call(cg, BPF_FUNC_probe_read, pa, 3);
		LLVMValueRef p = cg_load_i64(cg, slot);
		ifs[i] = cg_begin_if(cg, LLVMBuildICmp(b, LLVMIntNE, p, cg_const(cg, 0), ""), "joinarg");
		LLVMValueRef sa[] = {cg_gep(cg, buf, hdr + (uint32_t)i * CG_JOIN_ARG_SIZE),
				     LLVMConstInt(cg_i32(cg), CG_JOIN_ARG_SIZE, 0),
				     LLVMBuildIntToPtr(b, p, cg_ptr(cg), "")};
		cg_helper_call(cg, BPF_FUNC_probe_read_str, sa, 3);
		cg_store_i64(cg, cg_const(cg, (uint64_t)i + 1), cg_gep(cg, buf, 8));
	}
	for (int i = CG_JOIN_ARGS - 1; i >= 0; i--)
		cg_end_if(cg, &ifs[i]);
	/* send only the slots used: the count, bounded again for the verifier */
	LLVMValueRef cnt = cg_load_i64(cg, cg_gep(cg, buf, 8));
	LLVMValueRef big = LLVMBuildICmp(b, LLVMIntUGT, cnt, cg_const(cg, CG_JOIN_ARGS), "");
	cnt = LLVMBuildSelect(b, big, cg_const(cg, CG_JOIN_ARGS), cnt, "");
	LLVMValueRef size = LLVMBuildAdd(b, LLVMBuildMul(b, cnt, cg_const(cg, CG_JOIN_ARG_SIZE), ""),
					 cg_const(cg, hdr), "joinsize");
	cg_event_output(cg, buf, size);
	return NULL;
}

const struct builtin stdlib_bytes[] = {
	{.name = "buf", .kind = BI_FUNC, .min_args = 1, .max_args = 2, .check = check_buf,
	 .lower = lower_buf, .summary = "bytes at an address, printed \\x-escaped: buf(addr, len)"},
	{.name = "join", .kind = BI_STMT, .min_args = 1, .max_args = 2, .check = check_join,
	 .lower = lower_join, .summary = "print a char *[] like argv: join(argv [, sep])"},
	{0},
};
