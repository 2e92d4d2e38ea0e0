/*
 * scope.c - block scope for `let` and `for` variables, by renaming.
 *
 * A variable bpftrace 0.17 style (`$x = 1` with no `let`) lives in the whole
 * probe, so 0.17 scripts keep working.  A variable declared with `let $x`,
 * and the variable of a `for` loop, lives from its declaration to the end
 * of its block (the loop's body).  This pass runs once per probe before
 * the type checks and gives each such declaration a name of its own
 * ("x'1"; a quote cannot appear in a written name), renaming the uses it
 * reaches.  The checks and codegen then know only probe-wide names, and a
 * use past the end of the block is the probe-wide `$x`, which nothing
 * assigned: "used before it is assigned".
 */
#include "sema/sema_int.h"

#include <string.h>

struct scope_var {
	struct scope_var *next;
	const char *name, *renamed;
	int depth;		/* the block that declared it */
};

struct scope {
	struct sema_ctx *s;
	struct scope_var *vars;	/* innermost first */
	int depth;
	int serial;		/* per probe: renames are unique within it */
};

static void walk(struct scope *c, struct ast_node *n);

static void walk_list(struct scope *c, struct ast_node *n)
{
	for (; n; n = n->next)
		walk(c, n);
}

/* the variables declared inside end with the block */
static void walk_block(struct scope *c, struct ast_node *b)
{
	struct scope_var *saved = c->vars;
	c->depth++;
	if (b && b->kind == N_BLOCK) {
		walk_list(c, b->block.stmts);
		walk(c, b->block.value);
	} else
		walk(c, b);
	c->depth--;
	c->vars = saved;
}

static void declare(struct scope *c, struct ast_node *var)
{
	for (struct scope_var *v = c->vars; v && v->depth == c->depth; v = v->next)
		if (!strcmp(v->name, var->var.name)) {
			sema_error(c->s, var->loc, "variable '$%s' is already declared in this block",
				   var->var.name);
			return;
		}
	struct scope_var *v = arena_new_obj(c->s->a, struct scope_var);
	v->name = var->var.name;
	v->renamed = arena_printf(c->s->a, "%s'%d", var->var.name, ++c->serial);
	v->depth = c->depth;
	v->next = c->vars;
	c->vars = v;
	var->var.name = v->renamed;
}

static void walk(struct scope *c, struct ast_node *n)
{
	if (!n)
		return;
	switch (n->kind) {
	case N_VAR:
		for (struct scope_var *v = c->vars; v; v = v->next)
			if (!strcmp(v->name, n->var.name)) {
				n->var.name = v->renamed;
				break;
			}
		return;
	case N_INT: case N_STR: case N_IDENT: case N_POSITIONAL: case N_SIZEOF:
	case N_RETURN: case N_BREAK: case N_CONTINUE: case N_STRUCT_DEF: case N_MACRO:
		if (n->kind == N_SIZEOF)
			walk(c, n->size_of.expr);
		if (n->kind == N_RETURN)
			walk(c, n->ret.value);
		return;
	case N_MAP:
		walk_list(c, n->map.keys);
		return;
	case N_CALL:
		walk_list(c, n->call.args);
		return;
	case N_BINARY:
		walk(c, n->bin.lhs);
		walk(c, n->bin.rhs);
		return;
	case N_UNARY:
		walk(c, n->un.operand);
		return;
	case N_INCDEC:
		walk(c, n->incdec.target);
		return;
	case N_TERNARY:
		walk(c, n->tern.cond);
		walk(c, n->tern.then);
		walk(c, n->tern.els);
		return;
	case N_FIELD:
		walk(c, n->field.base);
		return;
	case N_INDEX:
		walk(c, n->index.base);
		walk(c, n->index.index);
		return;
	case N_CAST:
		walk(c, n->cast.ctype.of);
		walk(c, n->cast.operand);
		return;
	case N_TUPLE:
		walk_list(c, n->tuple.elems);
		return;
	case N_EXPR_STMT:
		walk(c, n->expr_stmt.expr);
		return;
	case N_ASSIGN:
		/* "let $x = $x + 1": the value reads the outer $x */
		walk(c, n->assign.ctype.of);
		walk(c, n->assign.value);
		if (n->assign.is_let && n->assign.target->kind == N_VAR)
			declare(c, n->assign.target);
		else
			walk(c, n->assign.target);
		return;
	case N_IF:
		walk(c, n->if_.cond);
		walk_block(c, n->if_.then);
		if (n->if_.els)
			walk_block(c, n->if_.els);
		return;
	case N_WHILE:
		walk(c, n->while_.cond);
		walk_block(c, n->while_.body);
		return;
	case N_UNROLL:
		walk(c, n->unroll.count);
		walk_block(c, n->unroll.body);
		return;
	case N_FOR: {
		walk(c, n->for_.map);
		walk(c, n->for_.start);
		walk(c, n->for_.end);
		struct scope_var *saved = c->vars;
		c->depth++;
		declare(c, n->for_.var);
		walk_block(c, n->for_.body);
		c->depth--;
		c->vars = saved;
		return;
	}
	case N_BLOCK:
		walk_block(c, n);
		return;
	case N_PROBE:
		walk(c, n->probe.pred);
		walk_block(c, n->probe.body);
		return;
	case N_PROGRAM:
		walk_list(c, n->program.items);
		return;
	}
}

const char *sema_var_shown(struct sema_ctx *s, const char *name)
{
	const char *q = strchr(name, '\'');
	return q ? arena_strndup(s->a, name, (size_t)(q - name)) : name;
}

void sema_scope_probe(struct sema_ctx *s, struct ast_node *probe)
{
	struct scope c = {.s = s};
	walk(&c, probe);
}
