/*
 * net.c - ntop([af,] addr): an IPv4 or IPv6 address as text.
 *
 * The value is TY_INET, {u64 family, u8 address[16]}; userspace prints it
 * with inet_ntop.  addr is an integer (an IPv4 address in network byte
 * order, as in struct in_addr: the first byte in memory is the first
 * octet) or a 4- or 16-byte array (args->saddr, args->daddr_v6).  Without
 * af the family follows from the size: 16 bytes are IPv6, else IPv4.
 */
#include "stdlib/stdlib_int.h"

#define AF_INET_ 2
#define AF_INET6_ 10

static void check_ntop(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *af = n->call.nargs == 2 ? n->call.args : NULL;
	struct ast_node *a = af ? af->next : n->call.args;
	if (af) {
		struct type *t = sema_expr(s, af);
		if (t->kind != TY_INT && t->kind != TY_ERROR) {
			sema_error(s, af->loc, "ntop(af, addr): af must be an integer (2 for AF_INET, 10 for AF_INET6)");
			n->type.kind = TY_ERROR;
			return;
		}
	}
	struct type *t = sema_expr(s, a);
	if (t->kind == TY_ERROR) {
		n->type.kind = TY_ERROR;
		return;
	}
	bool bytes = t->kind == TY_ARRAY && (t->size == 4 || t->size == 16);
	if (!bytes && t->kind != TY_INT && t->kind != TY_PTR) {
		sema_error(s, a->loc, "ntop() needs an integer or a 4- or 16-byte array, not %s",
			   type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = (struct type){.kind = TY_INET, .size = 24};
}

static LLVMValueRef lower_ntop(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *af = n->call.nargs == 2 ? n->call.args : NULL;
	struct ast_node *a = af ? af->next : n->call.args;
	LLVMValueRef out = cg_alloca(cg, 24, "inet");
	LLVMValueRef fam = af ? cg_expr(cg, af) : NULL;
	LLVMValueRef v = cg_expr(cg, a);
	bool bytes = a->type.kind == TY_ARRAY;
	if (!fam)
		fam = cg_const(cg, bytes && a->type.size == 16 ? AF_INET6_ : AF_INET_);
	cg_store_i64(cg, fam, out);
	if (bytes)
		cg_memcpy(cg, cg_gep(cg, out, 8), v, a->type.size);
	else
		cg_store_i64(cg, v, cg_gep(cg, out, 8));
	return out;
}

const struct builtin stdlib_net[] = {
	{.name = "ntop", .kind = BI_FUNC, .min_args = 1, .max_args = 2, .check = check_ntop,
	 .lower = lower_ntop, .summary = "IPv4/IPv6 address as text: ntop([af,] addr)"},
	{0},
};
