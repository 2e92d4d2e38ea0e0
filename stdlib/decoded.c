/*
 * decoded.c - what the builtins that print through a decoder share.
 *
 * ioc_dir(), fdpath(), syscall_name(), disk() and friends take integers
 * and give an integer that a `struct type_decoder` names at print time
 * (parser/ast.h, TY_DECODED).  Their sema check is the same everywhere:
 * every argument an integer, the result typed with the builtin's decoder.
 */
#include "stdlib/stdlib_int.h"

bool stdlib_check_decoded(struct sema_ctx *s, struct ast_node *n, const struct type_decoder *d)
{
	bool ok = true;
	for (struct ast_node *a = n->call.args; a; a = a->next) {
		struct type *t = sema_expr(s, a);
		if (t->kind == TY_ERROR) {
			ok = false;
		} else if (t->kind != TY_INT && t->kind != TY_PTR) {
			sema_error(s, a->loc, "%s() needs integer arguments, not %s", n->call.name,
				   type_str(sema_arena(s), t));
			ok = false;
		}
	}
	if (!ok) {
		n->type = (struct type){.kind = TY_ERROR};
		return false;
	}
	n->type = d ? (struct type){.kind = TY_DECODED, .size = 8, .decoder = d} : ty_uint64;
	return true;
}
