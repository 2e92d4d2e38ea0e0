/*
 * ast.c - making, naming and printing syntax-tree nodes and types.
 *
 * ast_dump() is what `--emit ast` shows: one node a line, two spaces of
 * indentation a level, the kind name and the node's salient fields, then
 * ": TYPE" once sema has typed the node:
 *
 *   probe #0 kprobe:vfs_read
 *     block
 *       assign =
 *         map @
 *           ident comm
 *         call hist
 *           binary / : uint64
 *
 * Children print in source order (a probe's predicate before its body).
 * type_str() is the text of a type in messages and in the dump: "uint64",
 * "string[64]", "hist", "(int64, string[16])", "struct task_struct *".
 */
#include "parser/ast.h"

#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/text.h"

struct ast_node *ast_new(struct arena *a, enum node_kind kind,
			 struct src_loc loc)
{
	struct ast_node *n = arena_new_obj(a, struct ast_node);
	n->kind = kind;
	n->loc = loc;
	return n;
}

const char *ast_kind_name(enum node_kind kind)
{
	switch (kind) {
	case N_INT:		return "int";
	case N_STR:		return "string";
	case N_IDENT:		return "ident";
	case N_VAR:		return "var";
	case N_MAP:		return "map";
	case N_POSITIONAL:	return "positional";
	case N_CALL:		return "call";
	case N_BINARY:		return "binary";
	case N_UNARY:		return "unary";
	case N_INCDEC:		return "incdec";
	case N_TERNARY:		return "ternary";
	case N_FIELD:		return "field";
	case N_INDEX:		return "index";
	case N_CAST:		return "cast";
	case N_SIZEOF:		return "sizeof";
	case N_TUPLE:		return "tuple";
	case N_EXPR_STMT:	return "expr_stmt";
	case N_ASSIGN:		return "assign";
	case N_IF:		return "if";
	case N_WHILE:		return "while";
	case N_UNROLL:		return "unroll";
	case N_FOR:		return "for";
	case N_RETURN:		return "return";
	case N_BREAK:		return "break";
	case N_CONTINUE:	return "continue";
	case N_BLOCK:		return "block";
	case N_PROBE:		return "probe";
	case N_MACRO:		return "macro";
	case N_STRUCT_DEF:	return "struct_def";
	case N_PROGRAM:		return "program";
	}
	return "?";
}

static void each_list(const struct ast_node *n, void (*fn)(const struct ast_node *, void *), void *ctx)
{
	for (; n; n = n->next)
		fn(n, ctx);
}

#define EACH(x) do { if (x) fn((x), ctx); } while (0)

void ast_each_child(const struct ast_node *n, void (*fn)(const struct ast_node *, void *), void *ctx)
{
	switch (n->kind) {
	case N_INT: case N_STR: case N_IDENT: case N_VAR: case N_POSITIONAL:
	case N_BREAK: case N_CONTINUE: case N_STRUCT_DEF:
		return;
	case N_RETURN: EACH(n->ret.value); return;
	case N_MAP: each_list(n->map.keys, fn, ctx); return;
	case N_CALL: each_list(n->call.args, fn, ctx); return;
	case N_BINARY: EACH(n->bin.lhs); EACH(n->bin.rhs); return;
	case N_UNARY: EACH(n->un.operand); return;
	case N_INCDEC: EACH(n->incdec.target); return;
	case N_TERNARY: EACH(n->tern.cond); EACH(n->tern.then); EACH(n->tern.els); return;
	case N_FIELD: EACH(n->field.base); return;
	case N_INDEX: EACH(n->index.base); EACH(n->index.index); return;
	case N_CAST: EACH(n->cast.ctype.of); EACH(n->cast.operand); return;
	case N_SIZEOF: EACH(n->size_of.expr); return;
	case N_TUPLE: each_list(n->tuple.elems, fn, ctx); return;
	case N_EXPR_STMT: EACH(n->expr_stmt.expr); return;
	case N_ASSIGN: EACH(n->assign.ctype.of); EACH(n->assign.target); EACH(n->assign.value); return;
	case N_IF: EACH(n->if_.cond); EACH(n->if_.then); EACH(n->if_.els); return;
	case N_WHILE: EACH(n->while_.cond); EACH(n->while_.body); return;
	case N_UNROLL: EACH(n->unroll.count); EACH(n->unroll.body); return;
	case N_FOR:
		EACH(n->for_.var); EACH(n->for_.map); EACH(n->for_.start); EACH(n->for_.end);
		EACH(n->for_.body);
		return;
	case N_BLOCK: each_list(n->block.stmts, fn, ctx); EACH(n->block.value); return;
	case N_MACRO: each_list(n->macro.params, fn, ctx); EACH(n->macro.body); return;
	case N_PROBE: EACH(n->probe.pred); EACH(n->probe.body); return;
	case N_PROGRAM: each_list(n->program.items, fn, ctx); return;
	}
}

#undef EACH

static bool if_has_value(const struct ast_node *n);

static const struct ast_node *last_stmt(const struct ast_node *block)
{
	const struct ast_node *s = block->block.stmts;
	while (s && s->next)
		s = s->next;
	return s;
}

/* can block give a value: it has one, or ends in an expression without
 * ';' after it, or in an if-else statement whose branches can */
static bool block_has_value(const struct ast_node *b)
{
	if (b->kind != N_BLOCK)
		return false;
	if (!b->block.stmts || (!b->block.open_end && last_stmt(b)->kind != N_IF))
		return b->block.value != NULL;
	const struct ast_node *last = last_stmt(b);
	return last->kind == N_EXPR_STMT ? b->block.open_end : last->kind == N_IF && if_has_value(last);
}

static bool if_has_value(const struct ast_node *n)
{
	return n->if_.els && block_has_value(n->if_.then) &&
	       (n->if_.els->kind == N_IF ? if_has_value(n->if_.els) : block_has_value(n->if_.els));
}

/* an if-else statement whose branches give values becomes the if
 * expression (a ternary of value blocks), as the newest grammar reads
 * `{ if (c) { 1 } else { 2 } }`: the block's value */
static void if_to_value(struct ast_node *n)
{
	struct ast_node *cond = n->if_.cond, *then = n->if_.then, *els = n->if_.els;
	ast_block_take_value(then);
	if (els->kind == N_IF)
		if_to_value(els);
	else
		ast_block_take_value(els);
	n->kind = N_TERNARY;
	n->tern.cond = cond;
	n->tern.then = then;
	n->tern.els = els;
}

bool ast_block_take_value(struct ast_node *block)
{
	if (!block_has_value(block))
		return false;
	if (block->block.value)
		return true;
	struct ast_node **last = &block->block.stmts;
	while ((*last)->next)
		last = &(*last)->next;
	if ((*last)->kind == N_IF) {
		if_to_value(*last);
		block->block.value = *last;
	} else {
		block->block.value = (*last)->expr_stmt.expr;
	}
	*last = NULL;
	block->block.open_end = false;
	return true;
}

static struct ast_node *copy_list(struct arena *a, const struct ast_node *n)
{
	struct ast_node *head = NULL, **tail = &head;
	for (; n; n = n->next) {
		*tail = ast_copy(a, n);
		tail = &(*tail)->next;
	}
	return head;
}

#define COPY(f) (c->f = ast_copy(a, n->f))
#define COPY_LIST(f) (c->f = copy_list(a, n->f))

struct ast_node *ast_copy(struct arena *a, const struct ast_node *n)
{
	if (!n)
		return NULL;
	struct ast_node *c = ast_new(a, n->kind, n->loc);
	*c = *n;
	c->next = NULL;
	switch (n->kind) {
	case N_INT: case N_STR: case N_IDENT: case N_VAR: case N_POSITIONAL:
	case N_BREAK: case N_CONTINUE: case N_STRUCT_DEF:
		break;
	case N_RETURN: COPY(ret.value); break;
	case N_MAP: COPY_LIST(map.keys); break;
	case N_CALL: COPY_LIST(call.args); break;
	case N_BINARY: COPY(bin.lhs); COPY(bin.rhs); break;
	case N_UNARY: COPY(un.operand); break;
	case N_INCDEC: COPY(incdec.target); break;
	case N_TERNARY: COPY(tern.cond); COPY(tern.then); COPY(tern.els); break;
	case N_FIELD: COPY(field.base); break;
	case N_INDEX: COPY(index.base); COPY(index.index); break;
	case N_CAST: COPY(cast.operand); COPY(cast.ctype.of); break;
	case N_SIZEOF: COPY(size_of.expr); break;
	case N_TUPLE: COPY_LIST(tuple.elems); break;
	case N_EXPR_STMT: COPY(expr_stmt.expr); break;
	case N_ASSIGN: COPY(assign.target); COPY(assign.value); COPY(assign.ctype.of); break;
	case N_IF: COPY(if_.cond); COPY(if_.then); COPY(if_.els); break;
	case N_WHILE: COPY(while_.cond); COPY(while_.body); break;
	case N_UNROLL: COPY(unroll.count); COPY(unroll.body); break;
	case N_FOR: COPY(for_.var); COPY(for_.map); COPY(for_.start); COPY(for_.end); COPY(for_.body); break;
	case N_BLOCK: COPY_LIST(block.stmts); COPY(block.value); break;
	case N_MACRO: COPY_LIST(macro.params); COPY(macro.body); break;
	case N_PROBE: COPY(probe.pred); COPY(probe.body); break;
	case N_PROGRAM: COPY_LIST(program.items); break;
	}
	return c;
}

#undef COPY
#undef COPY_LIST

/* The operator as written; "" for OP_NONE (plain '=' is "" + "="). */
const char *ast_op_text(enum ast_op op)
{
	switch (op) {
	case OP_NONE:	return "";
	case OP_ADD:	return "+";
	case OP_SUB:	return "-";
	case OP_MUL:	return "*";
	case OP_DIV:	return "/";
	case OP_MOD:	return "%";
	case OP_AND:	return "&";
	case OP_OR:	return "|";
	case OP_XOR:	return "^";
	case OP_SHL:	return "<<";
	case OP_SHR:	return ">>";
	case OP_LAND:	return "&&";
	case OP_LOR:	return "||";
	case OP_EQ:	return "==";
	case OP_NE:	return "!=";
	case OP_LT:	return "<";
	case OP_LE:	return "<=";
	case OP_GT:	return ">";
	case OP_GE:	return ">=";
	case OP_NEG:	return "-";
	case OP_LNOT:	return "!";
	case OP_BNOT:	return "~";
	case OP_DEREF:	return "*";
	case OP_ADDR:	return "&";
	}
	return "?";
}

/* ---- types ---------------------------------------------------------------- */

/* Nesting past this prints "..." (a type graph built wrongly must not hang
 * the dump). */
enum { TYPE_PRINT_DEPTH = 16 };

static void type_print(FILE *f, const struct type *t, int depth)
{
	if (depth > TYPE_PRINT_DEPTH) {
		fputs("...", f);
		return;
	}
	switch (t->kind) {
	case TY_NONE:		fputs("none", f); break;
	case TY_VOID:		fputs("void", f); break;
	case TY_INT:
		if (t->is_bool)
			fputs("bool", f);
		else
			fprintf(f, "%s%u", t->is_signed ? "int" : "uint", t->size * 8);
		break;
	case TY_STR:		fprintf(f, "string[%u]", t->size); break;
	case TY_BUF:		fprintf(f, "buffer[%u]", t->size); break;
	case TY_TUPLE:
		fputc('(', f);
		for (int i = 0; i < t->nfields && t->fields; i++) {
			if (i)
				fputs(", ", f);
			if (t->fields[i].name)	/* a record */
				fprintf(f, "%s=", t->fields[i].name);
			type_print(f, &t->fields[i].type, depth + 1);
		}
		fputc(')', f);
		break;
	case TY_PTR:
		if (t->elem)
			type_print(f, t->elem, depth + 1);
		else
			fputs("void", f);
		fputs(t->elem && t->elem->kind == TY_PTR ? "*" : " *", f);
		break;
	case TY_STRUCT:
		fprintf(f, "struct %s", t->sname ? t->sname : "?");
		break;
	case TY_ARRAY:
		if (t->elem)
			type_print(f, t->elem, depth + 1);
		else
			fputs("?", f);
		fprintf(f, "[%u]", t->count);
		break;
	case TY_COUNT:		fputs("count", f); break;
	case TY_SUM:		fputs("sum", f); break;
	case TY_AVG:		fputs("avg", f); break;
	case TY_MIN:		fputs("min", f); break;
	case TY_MAX:		fputs("max", f); break;
	case TY_STATS:		fputs("stats", f); break;
	case TY_HIST:		fputs("hist", f); break;
	case TY_LHIST:		fputs("lhist", f); break;
	case TY_TSERIES:	fputs("tseries", f); break;
	case TY_USYM:		fputs("usym", f); break;
	case TY_KSYM:		fputs("ksym", f); break;
	case TY_USTACK:		fputs("ustack", f); break;
	case TY_KSTACK:		fputs("kstack", f); break;
	case TY_INET:		fputs("inet", f); break;
	case TY_TIMESTAMP:	fputs("timestamp", f); break;
	case TY_USERNAME:	fputs("username", f); break;
	case TY_CGROUP_PATH:	fputs("cgroup_path", f); break;
	case TY_CONTAINER:	fputs("container", f); break;
	case TY_PROBE:		fputs("probe", f); break;
	case TY_DECODED:	fputs(t->decoder ? t->decoder->name : "decoded", f); break;
	case TY_ERROR:		fputs("error", f); break;
	}
}

#define INT8 (TT_INT_STORAGE | TT_INT_VALUE)
#define AGG (TT_AGGREGATE | TT_INT_VALUE)

static const unsigned traits[] = {
	[TY_NONE] = 0,
	[TY_VOID] = 0,
	[TY_INT] = INT8 | TT_PRINTS_NUMBER,
	[TY_STR] = 0,
	[TY_BUF] = 0,
	[TY_TUPLE] = 0,
	[TY_PTR] = INT8 | TT_PRINTS_NUMBER,	/* bpftrace prints pointer values in decimal */
	[TY_STRUCT] = 0,
	[TY_ARRAY] = 0,
	[TY_COUNT] = AGG,
	[TY_SUM] = AGG,
	[TY_AVG] = TT_AGGREGATE,
	[TY_MIN] = AGG,
	[TY_MAX] = AGG,
	[TY_STATS] = TT_AGGREGATE,
	[TY_HIST] = TT_AGGREGATE,
	[TY_LHIST] = TT_AGGREGATE,
	[TY_TSERIES] = TT_AGGREGATE,
	/* {address, pid}: 16 bytes; one function in two processes */
	[TY_USYM] = TT_MANY_TO_ONE,
	[TY_KSYM] = INT8,
	/* a user stack is {pid, id}: one stack in two processes prints once */
	[TY_USTACK] = INT8 | TT_MANY_TO_ONE,
	[TY_KSTACK] = INT8 | TT_MANY_TO_ONE,	/* an empty stack and a lost one */
	[TY_INET] = 0,
	[TY_TIMESTAMP] = INT8,
	[TY_USERNAME] = INT8,
	[TY_CGROUP_PATH] = INT8,
	[TY_CONTAINER] = INT8 | TT_MANY_TO_ONE,
	[TY_PROBE] = INT8,
	[TY_DECODED] = INT8 | TT_MANY_TO_ONE,	/* two descriptors on one file: one fdpath */
	[TY_ERROR] = 0,
};
_Static_assert(sizeof(traits) / sizeof(traits[0]) == TY_ERROR + 1,
	       "every type kind has a row in traits[]");

#undef INT8
#undef AGG

unsigned type_traits(enum type_kind k)
{
	return (unsigned)k < sizeof(traits) / sizeof(traits[0]) ? traits[k] : 0;
}

bool type_is(const struct type *t, unsigned want)
{
	return (type_traits(t->kind) & want) == want;
}

bool type_any(const struct type *t, bool (*pred)(const struct type *t))
{
	if (pred(t))
		return true;
	if (t->kind == TY_TUPLE)
		for (int i = 0; i < t->nfields; i++)
			if (type_any(&t->fields[i].type, pred))
				return true;
	return false;
}

const char *type_str(struct arena *a, const struct type *t)
{
	char *buf;
	size_t size;
	FILE *f = text_memstream(&buf, &size);
	type_print(f, t, 0);
	fclose(f);
	char *s = arena_strndup(a, buf, size);
	free(buf);
	return s;
}

/* ---- the dump ------------------------------------------------------------- */

/* A C type as written: "unsigned long", "struct foo *", "uint8 **". */
static void ctype_print(FILE *f, const struct ast_ctype *ct)
{
	const char *name = ct->name ? ct->name : "?";
	if (ct->is_struct || ct->is_enum)
		fprintf(f, "%s %s", ct->is_enum ? "enum" : ct->is_union ? "union" : "struct", name);
	else if (ct->is_unsigned && name[0] != 'u')
		fprintf(f, "unsigned %s", name);
	else
		fputs(name, f);
	if (ct->ptr_depth > 0) {
		fputc(' ', f);
		for (int i = 0; i < ct->ptr_depth; i++)
			fputc('*', f);
	}
}

static void dump_node(FILE *f, const struct ast_node *n, int depth);

static void dump_list(FILE *f, const struct ast_node *n, int depth)
{
	for (; n; n = n->next)
		dump_node(f, n, depth);
}

static void indent(FILE *f, int depth)
{
	for (int i = 0; i < depth; i++)
		fputs("  ", f);
}

/* The line of one node: kind name and salient fields, no newline. */
static void dump_head(FILE *f, const struct ast_node *n)
{
	fputs(ast_kind_name(n->kind), f);
	switch (n->kind) {
	case N_INT:
		if (n->i.is_char && n->i.value >= 0x20 && n->i.value < 0x7f &&
		    n->i.value != '\'' && n->i.value != '\\')
			fprintf(f, " '%c'", (char)n->i.value);
		else
			fprintf(f, " %llu", (unsigned long long)n->i.value);
		break;
	case N_STR:
		fputc(' ', f);
		text_print_quoted(f, n->s.value, n->s.len);
		break;
	case N_IDENT:
		fprintf(f, " %s", n->ident.name);
		break;
	case N_VAR:
		fprintf(f, " $%s", n->var.name);
		break;
	case N_MAP:
		fprintf(f, " %s", n->map.name);
		break;
	case N_POSITIONAL:
		if (n->pos.index == 0)
			fputs(" $#", f);
		else
			fprintf(f, " $%d", n->pos.index);
		break;
	case N_CALL:
		fprintf(f, " %s", n->call.name);
		break;
	case N_BINARY:
		fprintf(f, " %s", ast_op_text(n->bin.op));
		break;
	case N_UNARY:
		fprintf(f, " %s", ast_op_text(n->un.op));
		break;
	case N_INCDEC:
		fprintf(f, " %s %s", n->incdec.is_inc ? "++" : "--",
			n->incdec.is_post ? "post" : "pre");
		break;
	case N_FIELD:
		fprintf(f, " %s%s", n->field.is_arrow ? "->" : ".",
			n->field.name);
		break;
	case N_CAST:
		fputs(" (", f);
		ctype_print(f, &n->cast.ctype);
		fputc(')', f);
		break;
	case N_SIZEOF:
		if (!n->size_of.expr) {
			fputs(" (", f);
			ctype_print(f, &n->size_of.ctype);
			fputc(')', f);
		}
		break;
	case N_ASSIGN:
		fprintf(f, "%s %s=", n->assign.is_let ? " let" : "", ast_op_text(n->assign.op));
		break;
	case N_PROBE:
		fprintf(f, " #%d", n->probe.index);
		for (const struct ast_attach *at = n->probe.attach; at;
		     at = at->next)
			fprintf(f, "%s %s", at == n->probe.attach ? "" : ",",
				at->raw);
		break;
	case N_STRUCT_DEF:
		fprintf(f, " %s%s%s", n->sdef.tag == TAG_UNION ? "union " : n->sdef.tag == TAG_ENUM ? "enum " : "",
			n->sdef.name ? n->sdef.name : "", n->sdef.name || n->sdef.tag != TAG_ENUM ? "" : "(anonymous)");
		break;
	case N_TERNARY:
	case N_INDEX:
	case N_TUPLE:
	case N_EXPR_STMT:
	case N_IF:
	case N_WHILE:
	case N_UNROLL:
	case N_FOR:
	case N_RETURN:
	case N_BREAK:
	case N_CONTINUE:
	case N_BLOCK:
	case N_PROGRAM:
	case N_MACRO:
		break;
	}
}

static void dump_node(FILE *f, const struct ast_node *n, int depth)
{
	if (!n)
		return;
	indent(f, depth);
	dump_head(f, n);
	if (n->type.kind != TY_NONE) {
		fputs(" : ", f);
		type_print(f, &n->type, 0);
	}
	fputc('\n', f);
	int d = depth + 1;
	switch (n->kind) {
	case N_INT:
	case N_STR:
	case N_IDENT:
	case N_VAR:
	case N_POSITIONAL:
	case N_BREAK:
	case N_CONTINUE:
		break;
	case N_RETURN:
		dump_node(f, n->ret.value, d);
		break;
	case N_MAP:
		dump_list(f, n->map.keys, d);
		break;
	case N_CALL:
		dump_list(f, n->call.args, d);
		break;
	case N_BINARY:
		dump_node(f, n->bin.lhs, d);
		dump_node(f, n->bin.rhs, d);
		break;
	case N_UNARY:
		dump_node(f, n->un.operand, d);
		break;
	case N_INCDEC:
		dump_node(f, n->incdec.target, d);
		break;
	case N_TERNARY:
		dump_node(f, n->tern.cond, d);
		dump_node(f, n->tern.then, d);
		dump_node(f, n->tern.els, d);
		break;
	case N_FIELD:
		dump_node(f, n->field.base, d);
		break;
	case N_INDEX:
		dump_node(f, n->index.base, d);
		dump_node(f, n->index.index, d);
		break;
	case N_CAST:
		dump_node(f, n->cast.operand, d);
		break;
	case N_SIZEOF:
		dump_node(f, n->size_of.expr, d);
		break;
	case N_TUPLE:
		dump_list(f, n->tuple.elems, d);
		break;
	case N_EXPR_STMT:
		dump_node(f, n->expr_stmt.expr, d);
		break;
	case N_ASSIGN:
		dump_node(f, n->assign.target, d);
		dump_node(f, n->assign.value, d);
		break;
	case N_IF:
		dump_node(f, n->if_.cond, d);
		dump_node(f, n->if_.then, d);
		dump_node(f, n->if_.els, d);
		break;
	case N_WHILE:
		dump_node(f, n->while_.cond, d);
		dump_node(f, n->while_.body, d);
		break;
	case N_FOR:
		dump_node(f, n->for_.var, d);
		dump_node(f, n->for_.map, d);
		dump_node(f, n->for_.start, d);
		dump_node(f, n->for_.end, d);
		dump_node(f, n->for_.body, d);
		break;
	case N_UNROLL:
		dump_node(f, n->unroll.count, d);
		dump_node(f, n->unroll.body, d);
		break;
	case N_BLOCK:
		dump_list(f, n->block.stmts, d);
		dump_node(f, n->block.value, d);
		break;
	case N_MACRO:
		dump_list(f, n->macro.params, d);
		dump_node(f, n->macro.body, d);
		break;
	case N_PROBE:
		dump_node(f, n->probe.pred, d);
		dump_node(f, n->probe.body, d);
		break;
	case N_STRUCT_DEF:
		for (const struct ast_struct_field *m = n->sdef.fields; m;
		     m = m->next) {
			indent(f, d);
			if (n->sdef.tag == TAG_ENUM) {
				fprintf(f, "enumerator %s\n", m->name);
				dump_node(f, m->value, d + 1);
				continue;
			}
			fputs("member ", f);
			ctype_print(f, &m->ctype);
			fprintf(f, "%s%s", m->ctype.ptr_depth ? "" : " ",
				m->name);
			if (m->ctype.array_len >= 0)
				fprintf(f, "[%d]", m->ctype.array_len);
			fputc('\n', f);
		}
		break;
	case N_PROGRAM:
		for (const struct ast_config *c = n->program.config; c; c = c->next)
			fprintf(f, "(config %s=%s)\n", c->name, c->value);
		dump_list(f, n->program.items, d);
		break;
	}
}

void ast_dump(FILE *out, const struct ast_node *n)
{
	dump_node(out, n, 0);
}

/* the rank and sign an operand has after C's integer promotions */
static void promoted(const struct type *t, uint32_t *size, bool *sgn)
{
	if (t->kind != TY_INT) {	/* pointers and special integers: 64-bit unsigned */
		*size = 8;
		*sgn = false;
		return;
	}
	*size = t->size ? t->size : 8;
	*sgn = t->is_signed;
	if (*size < 4) {	/* char and short become int */
		*size = 4;
		*sgn = true;
	}
}

bool type_arith_signed(const struct type *l, const struct type *r)
{
	uint32_t ls, rs;
	bool lsg, rsg;
	promoted(l, &ls, &lsg);
	promoted(r, &rs, &rsg);
	if (lsg == rsg)
		return lsg;
	/* the unsigned operand wins unless the signed one is wider */
	return lsg ? ls > rs : rs > ls;
}
