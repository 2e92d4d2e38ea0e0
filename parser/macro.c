/*
 * macro.c - bpftrace's hygienic macros, expanded right after parsing.
 *
 *   macro add_one(x) { x + 1 }                 x: any expression
 *   macro bump($a, @b) { $a += 1; @b += 1; }   $a: any expression, @b: a map
 *
 * A call add_one(1 + 1), or a bare add_one for a macro without parameters,
 * becomes a copy of the body as a block expression ({ ...; value }): an
 * expression parameter is replaced by a copy of its argument (evaluated
 * where the body names it, as often as it does), a map parameter by the
 * name of the map passed.  A $ parameter is the variable passed (so the
 * body may assign to it: the caller's variable changes), or, passed any
 * other expression, that expression as an expression parameter is (the
 * body may not assign to it then).  The body's other
 * variables are renamed per expansion, so they never meet the caller's;
 * a map the body names must be a parameter.  Macros may call macros
 * (nesting stops at MACRO_DEPTH).  The later passes never see a macro.
 *
 * The standard macros of newer bpftrace are defined here in the language
 * itself (std_macros); their expansions are located at the call.
 */
#include "parser/parse_impl.h"

#include <string.h>

#include "lexer/lexer.h"

enum { MACRO_DEPTH = 16 };

/* assert(cond, msg): bpftrace's stdlib macro: a located error on stderr
 * and exit status 1.
 * find(@m, key, $v): true when @m holds key, and then $v is its value;
 * false leaves $v as it was (two lookups: has_key, then the read; the
 * key expression is evaluated by each).
 * ppid(task), pcomm(task), leader_comm(task), leader_tid(task): the
 * parent's pid and name, the thread group leader's name and tid of a
 * task_struct pointer (alone, the builtins of the current task). */
static const char std_macros[] =
	"macro assert(cond, msg) {\n"
	"  if (!cond) {\n"
	"    errorf(\"assert failed: %s\", msg);\n"
	"    exit(1);\n"
	"  }\n"
	"}\n"
	"macro ppid(task) {\n"
	"  task->real_parent->pid\n"
	"}\n"
	"macro pcomm(task) {\n"
	"  task->real_parent->comm\n"
	"}\n"
	"macro leader_comm(task) {\n"
	"  task->group_leader->comm\n"
	"}\n"
	"macro leader_tid(task) {\n"
	"  task->group_leader->pid\n"
	"}\n"
	"macro find(@m, key, $v) {\n"
	"  let $found = has_key(@m, key);\n"
	"  if ($found) {\n"
	"    $v = @m[key];\n"
	"  }\n"
	"  $found\n"
	"}\n";

struct macro_ctx {
	struct parse_ctx *px;
	struct ast_node *macros;	/* N_MACRO, the script's then the standard ones */
	int serial;			/* per expansion: names of the body's variables */
	int depth;
};

/* one expansion: the macro, its arguments and where it was called */
struct expansion {
	struct macro_ctx *mc;
	const struct ast_node *macro;
	struct ast_node **args;
	bool is_std;
	struct src_loc at;
	int serial;
};

static void expand(struct macro_ctx *mc, struct ast_node *n);

static const struct ast_node *find(struct macro_ctx *mc, const char *name, int nargs, bool *other)
{
	*other = false;
	for (const struct ast_node *m = mc->macros; m; m = m->next) {
		if (strcmp(m->macro.name, name))
			continue;
		if (m->macro.nparams == nargs)
			return m;
		/* a macro with other arguments leaves the call to the builtin
		 * of its name: ppid() is the builtin, ppid(t) the macro; a
		 * script's macro cpu(x) leaves cpu() to the builtin */
		if (m->loc.line)
			*other = true;
	}
	return NULL;
}

static int param_index(const struct ast_node *m, enum node_kind kind, const char *name)
{
	int i = 0;
	for (const struct ast_node *p = m->macro.params; p; p = p->next, i++) {
		if (p->kind != kind)
			continue;
		const char *pn = kind == N_VAR ? p->var.name : kind == N_MAP ? p->map.name : p->ident.name;
		if (!strcmp(pn, name))
			return i;
	}
	return -1;
}

static void relocate(const struct ast_node *n, void *ctx)
{
	struct ast_node *w = (struct ast_node *)n;
	w->loc = *(const struct src_loc *)ctx;
	ast_each_child(n, relocate, ctx);
}

/* the body assigns to target: a $ parameter there must have been passed
 * a variable (an expression has nowhere to store the value) */
static void assigned_param(struct expansion *x, const struct ast_node *target)
{
	int i;
	if (target->kind != N_VAR || (i = param_index(x->macro, N_VAR, target->var.name)) < 0 ||
	    x->args[i]->kind == N_VAR)
		return;
	parse_error(x->mc->px, x->args[i]->loc, "macro '%s' assigns to its parameter $%s, so it "
		    "takes a variable ($name) there, not an expression", x->macro->macro.name,
		    target->var.name);
}

/* the body's names: parameters become the arguments, other variables
 * names of this expansion */
static void subst(const struct ast_node *cn, void *ctx)
{
	struct expansion *x = ctx;
	struct ast_node *n = (struct ast_node *)cn;
	int i;
	switch (n->kind) {
	case N_IDENT:
		if ((i = param_index(x->macro, N_IDENT, n->ident.name)) >= 0) {
			/* the caller's expression, in the caller's names */
			struct ast_node *next = n->next, *arg = ast_copy(x->mc->px->arena, x->args[i]);
			*n = *arg;
			n->next = next;
			return;
		}
		break;
	case N_VAR:
		if ((i = param_index(x->macro, N_VAR, n->var.name)) >= 0 && x->args[i]->kind != N_VAR) {
			/* $x passed an expression: a copy of it, as for x */
			struct ast_node *next = n->next, *arg = ast_copy(x->mc->px->arena, x->args[i]);
			*n = *arg;
			n->next = next;
			return;
		}
		if (i >= 0)
			n->var.name = x->args[i]->var.name;
		else
			n->var.name = arena_printf(x->mc->px->arena, "%s'm%d", n->var.name, x->serial);
		break;
	case N_MAP:
		if ((i = param_index(x->macro, N_MAP, n->map.name)) >= 0)
			n->map.name = x->args[i]->map.name;
		else
			parse_error(x->mc->px, n->loc, "macro '%s' uses map '%s', which is not one of its "
				    "parameters (a macro reaches only the maps passed to it)",
				    x->macro->macro.name, n->map.name);
		break;
	case N_INCDEC:
		assigned_param(x, n->incdec.target);
		break;
	case N_ASSIGN:
		assigned_param(x, n->assign.target);
		break;
	case N_INT: case N_STR: case N_POSITIONAL: case N_CALL: case N_BINARY: case N_UNARY:
	case N_TERNARY: case N_FIELD: case N_INDEX: case N_CAST: case N_SIZEOF:
	case N_TUPLE: case N_EXPR_STMT: case N_IF: case N_WHILE: case N_UNROLL:
	case N_FOR: case N_RETURN: case N_BREAK: case N_CONTINUE: case N_BLOCK: case N_MACRO:
	case N_PROBE: case N_STRUCT_DEF: case N_PROGRAM:
		break;
	}
	ast_each_child(n, subst, ctx);
}

/* a map parameter takes a map (without keys) */
static bool args_fit(struct macro_ctx *mc, const struct ast_node *m, struct ast_node **args)
{
	int i = 0;
	for (const struct ast_node *p = m->macro.params; p; p = p->next, i++) {
		if (p->kind == N_MAP && (args[i]->kind != N_MAP || args[i]->map.nkeys)) {
			parse_error(mc->px, args[i]->loc, "macro '%s': parameter %s takes a map (@name)",
				    m->macro.name, p->map.name);
			return false;
		}
	}
	return true;
}

/* n (a call or a bare name) becomes the block the macro expands to */
static void expand_call(struct macro_ctx *mc, struct ast_node *n, const struct ast_node *m,
			struct ast_node *arglist)
{
	if (mc->depth >= MACRO_DEPTH) {
		parse_error(mc->px, n->loc, "macro '%s': macros nested deeper than %d (a macro that "
			    "calls itself?)", m->macro.name, MACRO_DEPTH);
		return;
	}
	struct expansion x = {.mc = mc, .macro = m, .at = n->loc, .serial = ++mc->serial};
	x.args = arena_new_array(mc->px->arena, struct ast_node *, m->macro.nparams ? m->macro.nparams : 1);
	int i = 0;
	for (struct ast_node *a = arglist; a; a = a->next)
		x.args[i++] = a;
	if (!args_fit(mc, m, x.args))
		return;
	struct ast_node *body = ast_copy(mc->px->arena, m->macro.body);
	/* the standard macros' text is not the script's: point at the call */
	x.is_std = m->loc.file == NULL;
	if (x.is_std)
		relocate(body, &x.at);
	ast_each_child(body, subst, &x);
	ast_block_take_value(body);
	mc->depth++;
	expand(mc, body);
	mc->depth--;
	/* a body that is only a string literal is that literal, so that it
	 * can be printf's format: macro fmt() { "%d\n" } */
	if (body->kind == N_BLOCK && !body->block.stmts && body->block.value &&
	    body->block.value->kind == N_STR)
		body = body->block.value;
	struct ast_node *next = n->next;
	*n = *body;
	n->next = next;
	n->loc = x.at;
}

static void expand_cb(const struct ast_node *n, void *ctx)
{
	expand(ctx, (struct ast_node *)n);
}

static void expand(struct macro_ctx *mc, struct ast_node *n)
{
	if (mc->px->failed)
		return;
	ast_each_child(n, expand_cb, mc);	/* arguments first */
	bool other;
	const struct ast_node *m;
	if (n->kind == N_CALL) {
		if ((m = find(mc, n->call.name, n->call.nargs, &other)))
			expand_call(mc, n, m, n->call.args);
		else if (other)	/* a builtin of the name, or sema's error */
			n->call.macro_other = true;
	} else if (n->kind == N_IDENT && (m = find(mc, n->ident.name, 0, &other))) {
		expand_call(mc, n, m, NULL);
	}
}

/* the standard macros, parsed once per program (their locations cleared:
 * an expansion is located at its call) */
static struct ast_node *std_defs(struct parse_ctx *px)
{
	struct parse_ctx std = {.arena = px->arena, .diag = px->diag};
	std.lx = lex_new(px->arena, px->diag, std_macros);
	int rc = parse_yyparse(&std);
	lex_free(std.lx);
	if (rc || !std.root)
		return NULL;
	struct src_loc none = {0};
	for (struct ast_node *m = std.root->program.items; m; m = m->next)
		m->loc = none;
	return std.root->program.items;
}

bool parse_expand_macros(struct parse_ctx *px, struct ast_node *prog)
{
	struct macro_ctx mc = {.px = px};
	struct ast_node **tail = &mc.macros;
	/* take the script's macros out of the items */
	for (struct ast_node **it = &prog->program.items; *it;) {
		struct ast_node *m = *it;
		if (m->kind != N_MACRO) {
			it = &m->next;
			continue;
		}
		bool other;
		if (find(&mc, m->macro.name, m->macro.nparams, &other)) {
			parse_error(px, m->loc, "macro '%s' with %d parameters is defined twice",
				    m->macro.name, m->macro.nparams);
			return false;
		}
		*it = m->next;
		m->next = NULL;
		*tail = m;
		tail = &m->next;
	}
	*tail = std_defs(px);
	for (struct ast_node *it = prog->program.items; it; it = it->next)
		if (it->kind == N_PROBE)
			expand(&mc, it);
	return !px->failed;
}
