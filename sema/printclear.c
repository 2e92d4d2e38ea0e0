/*
 * printclear.c - print(@m); followed at once by clear(@m); or zero(@m);
 * becomes one event.
 *
 * Read and cleared as two steps, the map loses every update a probe makes
 * between the runtime's read for the print and its delete for the clear
 * (one in six runs of the offcpu recipe on a busy machine).  Joined, the
 * print's event carries the clear (the runtime takes each entry out of
 * the map as it reads it: runtime/maps.c), and the clear sends nothing.
 * Only adjacent statements of one block, on the whole map, and a print
 * without a top (print(@m, 10) keeps the two steps: the keys it does not
 * print are cleared as before, updates between included).
 */
#include "sema/sema_int.h"

#include <string.h>

/* the call of a statement `name(@m, ...);`, with @m unkeyed, or NULL */
static struct ast_node *map_call(struct ast_node *st, const char *name)
{
	if (!st || st->kind != N_EXPR_STMT || st->expr_stmt.discard)
		return NULL;
	struct ast_node *c = st->expr_stmt.expr;
	if (c->kind != N_CALL || strcmp(c->call.name, name) || !c->call.args)
		return NULL;
	struct ast_node *a = c->call.args;
	return a->kind == N_MAP && !a->map.nkeys ? c : NULL;
}

void sema_join_print_clear(struct ast_node *stmts)
{
	for (struct ast_node *st = stmts; st; st = st->next) {
		struct ast_node *p = map_call(st, "print");
		if (!p)
			continue;
		struct ast_node *top = p->call.args->next;
		if (top && (top->kind != N_INT || top->i.value))
			continue;
		struct ast_node *c = map_call(st->next, "clear");
		enum print_then then = PRINT_THEN_CLEAR;
		if (!c) {
			c = map_call(st->next, "zero");
			then = PRINT_THEN_ZERO;
		}
		if (!c || c->call.nargs != 1 || strcmp(c->call.args->map.name, p->call.args->map.name))
			continue;
		p->note.value = then;	/* stdlib/output.c: the print's event says it */
		c->note.value = 1;	/* and the clear sends nothing */
	}
}
