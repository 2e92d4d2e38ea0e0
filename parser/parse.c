/*
 * parse.c - parse_program(), and the node builders the grammar calls.
 *
 * parse_program() ties the flex scanner (lexer/lexer.l) to the bison grammar
 * (parser/grammar.y) for one source text and hands back the N_PROGRAM root,
 * or NULL once an error was reported.  The builders below are the only
 * place nodes are made: each takes the pieces of one grammar rule and its
 * location, so grammar.y stays a grammar.  A few also check what the
 * grammar cannot say: that '++' has a variable or map operand, that a C
 * type's words go together ("unsigned long" yes, "uint32 long" no), that
 * an array length is sane, and that no statement's expression is absurdly
 * large.  Those report a located error and return NULL (or false), and the
 * grammar stops.
 */
#include "parser/parser.h"

#include <stdarg.h>
#include <string.h>

#include "parser/parse_impl.h"

void parse_error(struct parse_ctx *px, struct src_loc loc, const char *fmt, ...)
{
	px->failed = true;
	if (px->diag->errors)
		return;
	va_list ap;
	va_start(ap, fmt);
	diag_verror(px->diag, loc, fmt, ap);
	va_end(ap);
}

/*
 * The one nesting limit of the front end.  Every pass after the parser
 * (sema, codegen, the AST dump) walks the tree recursively, with frames of
 * a few hundred bytes (a few KB under ASan); a tree no deeper than this
 * fits any of them in a 1 MB stack, and no real program comes near it.
 * The check itself recurses at most PARSE_MAX_DEPTH + 1 frames deep.
 */
static bool parse_depth_ok(struct parse_ctx *px, const struct ast_node *n, int depth);

static bool parse_depth_list(struct parse_ctx *px, const struct ast_node *n, int depth)
{
	for (; n; n = n->next)
		if (!parse_depth_ok(px, n, depth))
			return false;
	return true;
}

static bool parse_depth_ok(struct parse_ctx *px, const struct ast_node *n, int depth)
{
	if (!n)
		return true;
	if (depth > PARSE_MAX_DEPTH) {
		parse_error(px, n->loc, "nested deeper than %d levels", PARSE_MAX_DEPTH);
		return false;
	}
	int d = depth + 1;
	switch (n->kind) {
	case N_INT: case N_STR: case N_IDENT: case N_VAR: case N_POSITIONAL:
	case N_BREAK: case N_CONTINUE: case N_STRUCT_DEF:
		return true;
	case N_RETURN: return parse_depth_ok(px, n->ret.value, d);
	case N_MAP: return parse_depth_list(px, n->map.keys, d);
	case N_CALL: return parse_depth_list(px, n->call.args, d);
	case N_BINARY:
		return parse_depth_ok(px, n->bin.lhs, d) && parse_depth_ok(px, n->bin.rhs, d);
	case N_UNARY: return parse_depth_ok(px, n->un.operand, d);
	case N_INCDEC: return parse_depth_ok(px, n->incdec.target, d);
	case N_TERNARY:
		return parse_depth_ok(px, n->tern.cond, d) && parse_depth_ok(px, n->tern.then, d) &&
		       parse_depth_ok(px, n->tern.els, d);
	case N_FIELD: return parse_depth_ok(px, n->field.base, d);
	case N_INDEX:
		return parse_depth_ok(px, n->index.base, d) && parse_depth_ok(px, n->index.index, d);
	case N_CAST: return parse_depth_ok(px, n->cast.operand, d);
	case N_SIZEOF: return parse_depth_ok(px, n->size_of.expr, d);
	case N_TUPLE: return parse_depth_list(px, n->tuple.elems, d);
	case N_EXPR_STMT: return parse_depth_ok(px, n->expr_stmt.expr, d);
	case N_ASSIGN:
		return parse_depth_ok(px, n->assign.target, d) && parse_depth_ok(px, n->assign.value, d);
	case N_IF:
		/* else-if chains are siblings in the source, not nesting */
		return parse_depth_ok(px, n->if_.cond, d) && parse_depth_ok(px, n->if_.then, d) &&
		       parse_depth_ok(px, n->if_.els, n->if_.els && n->if_.els->kind == N_IF ? depth : d);
	case N_WHILE:
		return parse_depth_ok(px, n->while_.cond, d) && parse_depth_ok(px, n->while_.body, d);
	case N_UNROLL:
		return parse_depth_ok(px, n->unroll.count, d) && parse_depth_ok(px, n->unroll.body, d);
	case N_FOR:
		return parse_depth_ok(px, n->for_.map, d) && parse_depth_ok(px, n->for_.start, d) &&
		       parse_depth_ok(px, n->for_.end, d) && parse_depth_ok(px, n->for_.body, d);
	case N_BLOCK:
		return parse_depth_list(px, n->block.stmts, d) && parse_depth_ok(px, n->block.value, d);
	case N_MACRO: return parse_depth_ok(px, n->macro.body, d);
	case N_PROBE:
		return parse_depth_ok(px, n->probe.pred, d) && parse_depth_ok(px, n->probe.body, d);
	case N_PROGRAM: return parse_depth_list(px, n->program.items, d);
	}
	return true;
}

bool parse_grammar(struct parse_ctx *px, const char *src)
{
	px->lx = lex_new(px->arena, px->diag, src ? src : "");
	int rc = lex_pre_includes(px->lx) ? 1 : parse_yyparse(px);
	bool bad = rc != 0 || px->failed || lex_failed(px->lx) || !px->root;
	lex_free(px->lx);
	px->lx = NULL;
	return !bad;
}

struct ast_node *parse_program(struct arena *a, struct diag *d,
			       const char *src)
{
	struct parse_ctx px = { .arena = a, .diag = d };
	if (!parse_grammar(&px, src))
		return NULL;
	struct ast_node *root = px.root;
	if (px.imports && !(root = parse_imports(&px, &src)))
		return NULL;
	bool bad = false;
	if (!parse_depth_ok(&px, root, 0))
		bad = true;
	if (!bad && !parse_expand_macros(&px, root))
		bad = true;
	return bad ? NULL : root;
}

/* ---- lists ------------------------------------------------------------- */

/* append x to a {head, tail} list of nodes linked by ->next */
#define LIST_APPEND(l, x)			\
	do {					\
		if ((l).tail)			\
			(l).tail->next = (x);	\
		else				\
			(l).head = (x);		\
		(l).tail = (x);			\
	} while (0)

struct parse_list parse_list_add(struct parse_list l, struct ast_node *n)
{
	if (!n)
		return l;
	LIST_APPEND(l, n);
	l.n++;
	return l;
}

/* attach = raw text of one attach point */
struct parse_attach_list parse_attach_add(struct parse_ctx *px,
	struct parse_attach_list l, const char *raw, struct src_loc loc)
{
	struct ast_attach *at = arena_new_obj(px->arena, struct ast_attach);
	at->raw = raw;
	at->loc = loc;
	LIST_APPEND(l, at);
	return l;
}

struct parse_field_list parse_field_add(struct parse_field_list l,
					struct ast_struct_field *f)
{
	LIST_APPEND(l, f);
	return l;
}

/* ---- C types ------------------------------------------------------------- */

/* type_item = TYPE_WORD | TYPE_QUAL: one word, counted by kind */
struct parse_type parse_type_word(struct parse_ctx *px, const char *word,
				  struct src_loc loc)
{
	(void)px;
	struct parse_type t = { .loc = loc, .text = word };
	if (!strcmp(word, "signed"))
		t.n_signed = 1;
	else if (!strcmp(word, "unsigned"))
		t.n_unsigned = 1;
	else if (!strcmp(word, "char"))
		t.n_char = 1;
	else if (!strcmp(word, "short"))
		t.n_short = 1;
	else if (!strcmp(word, "int"))
		t.n_int = 1;
	else if (!strcmp(word, "long"))
		t.n_long = 1;
	else if (strcmp(word, "const") && strcmp(word, "volatile")) {
		t.word = word;	/* int8 ... uint64, void, bool */
		t.n_other = 1;
	}
	return t;
}

/* type_item = ("struct" | "union" | "enum") NAME */
struct parse_type parse_type_tag(struct parse_ctx *px, enum ast_tag tag,
				 const char *name, struct src_loc loc)
{
	struct parse_type t = { .loc = loc, .word = name, .is_struct = tag != TAG_ENUM,
				.is_union = tag == TAG_UNION, .is_enum = tag == TAG_ENUM };
	t.text = arena_printf(px->arena, "%s %s", tag == TAG_ENUM ? "enum" : tag == TAG_UNION ?
			      "union" : "struct", name);
	t.n_other = 1;
	return t;
}

/* type_spec = type_spec type_item: words add up; the check comes at the end */
void parse_type_add(struct parse_ctx *px, struct parse_type *t,
		    struct parse_type w)
{
	t->loc = diag_span(t->loc, w.loc);
	t->text = arena_printf(px->arena, "%s %s", t->text, w.text);
	if (w.n_other) {
		t->word = w.word;
		t->is_struct = w.is_struct;
		t->is_union = w.is_union;
		t->is_enum = w.is_enum;
	}
	t->n_signed += w.n_signed;
	t->n_unsigned += w.n_unsigned;
	t->n_char += w.n_char;
	t->n_short += w.n_short;
	t->n_int += w.n_int;
	t->n_long += w.n_long;
	t->n_other += w.n_other;
}

/* unary = "(" name ")" cast_operand: the name as the whole type */
struct ast_ctype parse_typedef(struct parse_ctx *px, const char *name)
{
	(void)px;
	struct ast_ctype ct = { .name = name, .array_len = -1 };
	return ct;
}

/*
 * ctype = type_spec "*"*
 * Folds C's multi-word integer names into one base name: char, short,
 * int, long ("long long" and "long int" are long); "unsigned" alone is
 * unsigned int; "signed" is dropped but from "signed char", which is
 * not plain char (an array of it is not a string).  intN/uintN/void/bool, typedef names
 * ("u32 *") and struct names stand alone.  is_unsigned is also set for
 * uintN.
 */
static bool ctype_fold(const struct parse_type *t, int ptr_depth, struct ast_ctype *out)
{
	memset(out, 0, sizeof(*out));
	out->ptr_depth = ptr_depth;
	out->array_len = -1;
	int ints = t->n_signed + t->n_unsigned + t->n_char + t->n_short +
		   t->n_int + t->n_long;
	bool ok;
	if (t->n_other) {
		ok = t->n_other == 1 && ints == 0;
		out->name = t->word;
		out->is_struct = t->is_struct;
		out->is_union = t->is_union;
		out->is_enum = t->is_enum;
		out->is_unsigned = !t->is_struct && !t->is_enum &&
				   strncmp(t->word, "uint", 4) == 0;
	} else {
		ok = ints > 0 && t->n_signed + t->n_unsigned <= 1 &&
		     t->n_int <= 1 && t->n_char + t->n_short + (t->n_long > 0) <= 1 &&
		     t->n_long <= 2 && !(t->n_char && t->n_int);
		out->is_unsigned = t->n_unsigned > 0;
		out->name = t->n_char ? (t->n_signed ? "signed char" : "char") : t->n_short ? "short" :
			    t->n_long ? "long" : "int";
	}
	return ok;
}

bool parse_ctype_finish(struct parse_ctx *px, const struct parse_type *t,
			int ptr_depth, struct ast_ctype *out)
{
	if (ctype_fold(t, ptr_depth, out))
		return true;
	parse_error(px, t->loc, "invalid type '%s'", t->text);
	return false;
}

bool parse_ctype_text(struct arena *a, const char *text, struct ast_ctype *out)
{
	struct parse_ctx px = {.arena = a};
	struct parse_type t = {.text = ""};
	struct src_loc loc = {0};
	int ptr_depth = 0, nwords = 0;
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, " \t*");
		if (!n) {
			ptr_depth += *p++ == '*';
			continue;
		}
		const char *w = arena_strndup(a, p, n);
		p += n;
		if (!strcmp(w, "__user"))	/* the kernel's address-space mark */
			continue;
		struct parse_type one;
		if (!strcmp(w, "struct") || !strcmp(w, "union") || !strcmp(w, "enum")) {
			p += strspn(p, " \t");
			n = strcspn(p, " \t*");
			if (!n)
				return false;
			one = parse_type_tag(&px, w[0] == 'e' ? TAG_ENUM : w[0] == 'u' ? TAG_UNION :
					     TAG_STRUCT, arena_strndup(a, p, n), loc);
			p += n;
		} else {
			one = parse_type_word(&px, w, loc);
		}
		if (nwords++)
			parse_type_add(&px, &t, one);
		else
			t = one;
	}
	return nwords && ctype_fold(&t, ptr_depth, out);
}

/* ---- expressions ------------------------------------------------------------ */

/*
 * Every expression node goes through here.  Left-associative chains
 * ("1+1+1+...", "$a[0][0]...") do not deepen the parser's stack but do
 * deepen the tree, and every later pass walks trees recursively; so one
 * statement's expressions are capped at PARSE_MAX_EXPR_NODES nodes.  The
 * error is reported when the cap is passed; the statement's builder then
 * returns NULL and the grammar stops.
 */
enum { PARSE_MAX_EXPR_NODES = 4096 };

static struct ast_node *parse_expr_new(struct parse_ctx *px,
				       enum node_kind kind, struct src_loc loc)
{
	if (++px->expr_nodes == PARSE_MAX_EXPR_NODES + 1) {
		parse_error(px, loc,
			   "expression too large (more than %d operands and operators)",
			   PARSE_MAX_EXPR_NODES);
	}
	return ast_new(px->arena, kind, loc);
}

/* A statement (or a probe's predicate) is complete: the next one counts
 * its expression nodes afresh.  false once anything failed. */
static bool parse_stmt_end(struct parse_ctx *px)
{
	px->expr_nodes = 0;
	return !px->failed;
}

/* primary = integer | char */
struct ast_node *parse_int(struct parse_ctx *px, uint64_t v, bool is_char,
			   struct src_loc loc)
{
	struct ast_node *n = parse_expr_new(px, N_INT, loc);
	n->i.value = v;
	n->i.is_char = is_char;
	return n;
}

/* primary = string */
struct ast_node *parse_str(struct parse_ctx *px, const char *s, uint32_t len,
			   struct src_loc loc)
{
	struct ast_node *n = parse_expr_new(px, N_STR, loc);
	n->s.value = s;
	n->s.len = len;
	return n;
}

/* primary = ident | "$" name */
struct ast_node *parse_name(struct parse_ctx *px, enum node_kind kind,
			    const char *name, struct src_loc loc)
{
	struct ast_node *n = parse_expr_new(px, kind, loc);
	if (kind == N_VAR)
		n->var.name = name;
	else
		n->ident.name = name;
	return n;
}

/* primary = "$" N | "$#" */
struct ast_node *parse_positional(struct parse_ctx *px, int index,
				  struct src_loc loc)
{
	struct ast_node *n = parse_expr_new(px, N_POSITIONAL, loc);
	n->pos.index = index;
	return n;
}

/* map = "@" name? ("[" expr ("," expr)* "]")? */
struct ast_node *parse_map(struct parse_ctx *px, const char *name,
			   struct parse_list keys, struct src_loc loc)
{
	struct ast_node *n = parse_expr_new(px, N_MAP, loc);
	n->map.name = name;
	n->map.keys = keys.head;
	n->map.nkeys = keys.n;
	return n;
}

/* primary = ident "(" (expr ("," expr)*)? ")" */
struct ast_node *parse_call(struct parse_ctx *px, const char *name,
			    struct parse_list args, struct src_loc loc)
{
	struct ast_node *n = parse_expr_new(px, N_CALL, loc);
	n->call.name = name;
	n->call.args = args.head;
	n->call.nargs = args.n;
	return n;
}

/* expr = expr binop expr */
struct ast_node *parse_binary(struct parse_ctx *px, enum ast_op op,
			      struct ast_node *l, struct ast_node *r,
			      struct src_loc loc)
{
	struct ast_node *n = parse_expr_new(px, N_BINARY, loc);
	n->bin.op = op;
	n->bin.lhs = l;
	n->bin.rhs = r;
	return n;
}

/* expr = ("-" | "!" | "~" | "*" | "&") expr */
struct ast_node *parse_unary(struct parse_ctx *px, enum ast_op op,
			     struct ast_node *e, struct src_loc loc)
{
	struct ast_node *n = parse_expr_new(px, N_UNARY, loc);
	n->un.op = op;
	n->un.operand = e;
	return n;
}

/* expr = ("++" | "--") expr | expr ("++" | "--"), on $x or @m[..] only */
struct ast_node *parse_incdec(struct parse_ctx *px, struct ast_node *target,
			      bool is_inc, bool is_post, struct src_loc loc)
{
	if (target->kind != N_VAR && target->kind != N_MAP) {
		parse_error(px, target->loc,
			   "the operand of '%s' must be a variable or a map",
			   is_inc ? "++" : "--");
		return NULL;
	}
	struct ast_node *n = parse_expr_new(px, N_INCDEC, loc);
	n->incdec.target = target;
	n->incdec.is_inc = is_inc;
	n->incdec.is_post = is_post;
	return n;
}

/* expr = expr "?" expr ":" expr */
struct ast_node *parse_ternary(struct parse_ctx *px, struct ast_node *c,
			       struct ast_node *a, struct ast_node *b)
{
	struct ast_node *n = parse_expr_new(px, N_TERNARY,
				     diag_span(c->loc, b->loc));
	n->tern.cond = c;
	n->tern.then = a;
	n->tern.els = b;
	return n;
}

/* expr = expr "." name | expr "->" name */
struct ast_node *parse_field(struct parse_ctx *px, struct ast_node *base,
			     const char *name, bool is_arrow, struct src_loc loc)
{
	struct ast_node *n = parse_expr_new(px, N_FIELD, loc);
	n->field.base = base;
	n->field.name = name;
	n->field.is_arrow = is_arrow;
	return n;
}

/* expr = expr "." integer: a tuple element, named by its decimal index */
struct ast_node *parse_tuple_field(struct parse_ctx *px, struct ast_node *base,
				   uint64_t index, struct src_loc loc)
{
	return parse_field(px, base,
			   arena_printf(px->arena, "%llu",
					(unsigned long long)index),
			   false, loc);
}

/* expr = expr "[" expr "]" */
struct ast_node *parse_index(struct parse_ctx *px, struct ast_node *base,
			     struct ast_node *index, struct src_loc loc)
{
	struct ast_node *n = parse_expr_new(px, N_INDEX, loc);
	n->index.base = base;
	n->index.index = index;
	return n;
}

/* expr = "(" ctype ")" expr */
struct ast_node *parse_cast(struct parse_ctx *px, struct ast_ctype ct,
			    struct ast_node *e, struct src_loc loc)
{
	struct ast_node *n = parse_expr_new(px, N_CAST, loc);
	n->cast.ctype = ct;
	n->cast.operand = e;
	return n;
}

/* typeof(e): sema types e (which is never evaluated) and takes its type */
struct ast_ctype parse_typeof(struct parse_ctx *px, struct ast_node *e)
{
	px->newer = true;
	struct ast_ctype ct = {.name = "typeof", .array_len = -1, .of = e};
	return ct;
}

/* expr = "(" ctype "[" N? "]" ")" expr: a cast to an array of N elements */
struct ast_node *parse_array_cast(struct parse_ctx *px, struct ast_ctype ct, uint64_t n,
				  struct src_loc n_loc, struct ast_node *e, struct src_loc loc)
{
	px->newer = true;
	if (n > 4096) {
		parse_error(px, n_loc, "an array cast's length must be at most 4096, not %llu",
			    (unsigned long long)n);
		return NULL;
	}
	struct ast_node *c = parse_cast(px, ct, e, loc);
	c->cast.ctype.ndims = 1;
	c->cast.ctype.dims[0] = (int)n;	/* 0: from the operand's size */
	return c;
}

/* primary = "sizeof" "(" ctype ")" | "sizeof" "(" expr ")" */
struct ast_node *parse_sizeof(struct parse_ctx *px, struct ast_ctype ct,
			      struct ast_node *e, struct src_loc loc)
{
	struct ast_node *n = parse_expr_new(px, N_SIZEOF, loc);
	if (!e)
		n->size_of.ctype = ct;
	else
		n->size_of.ctype.array_len = -1;
	n->size_of.expr = e;
	return n;
}

/* primary = "(" expr ("," expr)+ ")" */
struct ast_node *parse_tuple(struct parse_ctx *px, struct ast_node *first,
			     struct parse_list rest, struct src_loc loc)
{
	struct ast_node *n = parse_expr_new(px, N_TUPLE, loc);
	first->next = rest.head;
	n->tuple.elems = first;
	n->tuple.nelems = rest.n + 1;
	return n;
}

struct ast_node *parse_record_field(struct parse_ctx *px, const char *name,
				    struct src_loc name_loc, struct ast_node *value,
				    struct src_loc loc)
{
	struct ast_node *n = ast_new(px->arena, N_ASSIGN, loc);
	n->assign.target = parse_name(px, N_IDENT, name, name_loc);
	n->assign.value = value;
	return n;
}

/* a record is a tuple whose fields have names, in the order written (the
 * order they are evaluated in); a name given twice is an error */
struct ast_node *parse_record(struct parse_ctx *px, struct parse_list fields,
			      struct src_loc loc)
{
	px->newer = true;
	struct ast_node *n = parse_expr_new(px, N_TUPLE, loc);
	n->tuple.names = arena_new_array(px->arena, const char *, fields.n ? fields.n : 1);
	struct ast_node **tail = &n->tuple.elems;
	for (struct ast_node *f = fields.head, *next; f; f = next) {
		next = f->next;
		const char *name = f->assign.target->ident.name;
		for (int i = 0; i < n->tuple.nelems; i++)
			if (!strcmp(n->tuple.names[i], name)) {
				parse_error(px, f->assign.target->loc,
					    "record field '%s' is given twice", name);
				return NULL;
			}
		n->tuple.names[n->tuple.nelems++] = name;
		*tail = f->assign.value;
		tail = &f->assign.value->next;
	}
	*tail = NULL;
	return n;
}

/* ---- statements -------------------------------------------------------------- */

/* simple_stmt = expr */
struct ast_node *parse_expr_stmt(struct parse_ctx *px, struct ast_node *e)
{
	if (!parse_stmt_end(px))
		return NULL;
	struct ast_node *n = ast_new(px->arena, N_EXPR_STMT, e->loc);
	n->expr_stmt.expr = e;
	return n;
}

/* simple_stmt = lvalue ("=" | "+=" | ...) expr */
struct ast_node *parse_assign(struct parse_ctx *px, struct ast_node *target,
			      enum ast_op op, struct ast_node *value,
			      struct src_loc loc)
{
	if (!parse_stmt_end(px))
		return NULL;
	struct ast_node *n = ast_new(px->arena, N_ASSIGN, loc);
	n->assign.target = target;
	n->assign.op = op;
	n->assign.value = value;
	return n;
}

/* simple_stmt = "let" "$" name (":" ctype)? ("=" expr)?: an assignment
 * that declares a variable of its block (value NULL: zero) */
struct ast_node *parse_let(struct parse_ctx *px, struct ast_node *var,
			   const struct ast_ctype *ct, struct ast_node *value,
			   struct src_loc loc)
{
	px->newer = true;
	if (!parse_stmt_end(px))
		return NULL;
	struct ast_node *n = ast_new(px->arena, N_ASSIGN, loc);
	n->assign.target = var;
	n->assign.value = value;
	n->assign.is_let = true;
	if (ct) {
		n->assign.has_ctype = true;
		n->assign.ctype = *ct;
	}
	return n;
}

/* compound_stmt = "for" "(" "$" name ":" (map | unary ".." unary) ")" block */
struct ast_node *parse_for(struct parse_ctx *px, struct ast_node *var,
			   struct ast_node *start, struct ast_node *end,
			   struct ast_node *body, struct src_loc loc)
{
	px->newer = true;
	if (!parse_stmt_end(px))
		return NULL;
	struct ast_node *n = ast_new(px->arena, N_FOR, loc);
	n->for_.var = var;
	if (end) {
		n->for_.start = start;
		n->for_.end = end;
	} else {
		n->for_.map = start;
	}
	n->for_.body = body;
	return n;
}

/* if_stmt = "if" "(" expr ")" block ("else" (block | if_stmt))? */
struct ast_node *parse_if(struct parse_ctx *px, struct ast_node *cond,
			  struct ast_node *then, struct ast_node *els,
			  struct src_loc loc)
{
	if (!parse_stmt_end(px))
		return NULL;
	struct ast_node *n = ast_new(px->arena, N_IF, loc);
	n->if_.cond = cond;
	n->if_.then = then;
	n->if_.els = els;
	return n;
}

/* compound_stmt = ("while" | "unroll") "(" expr ")" block */
struct ast_node *parse_loop(struct parse_ctx *px, enum node_kind kind,
			    struct ast_node *head, struct ast_node *body,
			    struct src_loc loc)
{
	if (!parse_stmt_end(px))
		return NULL;
	struct ast_node *n = ast_new(px->arena, kind, loc);
	if (kind == N_WHILE) {
		n->while_.cond = head;
		n->while_.body = body;
	} else {
		n->unroll.count = head;
		n->unroll.body = body;
	}
	return n;
}

/* simple_stmt = "_" "=" expr: e is evaluated, its value dropped without
 * the warning a discarded value gets */
struct ast_node *parse_discard(struct parse_ctx *px, const char *name, struct src_loc name_loc,
			       struct ast_node *value)
{
	if (strcmp(name, "_")) {
		parse_error(px, name_loc, "cannot assign to '%s': assign to a $variable or an @map, "
			    "or discard a value with `_ = e;`", name);
		return NULL;
	}
	px->newer = true;
	if (!parse_stmt_end(px))
		return NULL;
	struct ast_node *n = ast_new(px->arena, N_EXPR_STMT, value->loc);
	n->expr_stmt.expr = value;
	n->expr_stmt.discard = true;
	return n;
}

/* simple_stmt = "return" expr: syntax bpftrace 0.17 does not parse */
struct ast_node *parse_return(struct parse_ctx *px, struct ast_node *value, struct src_loc loc)
{
	px->newer = true;
	if (!parse_stmt_end(px))
		return NULL;
	struct ast_node *n = ast_new(px->arena, N_RETURN, loc);
	n->ret.value = value;
	return n;
}

/* simple_stmt = "return" | "break" | "continue" */
struct ast_node *parse_jump(struct parse_ctx *px, enum node_kind kind,
			    struct src_loc loc)
{
	return ast_new(px->arena, kind, loc);
}

/* block = "{" stmts "}" */
struct ast_node *parse_block(struct parse_ctx *px, struct parse_list stmts,
			     struct src_loc loc)
{
	struct ast_node *n = ast_new(px->arena, N_BLOCK, loc);
	n->block.stmts = stmts.head;
	n->block.open_end = stmts.open_end;
	return n;
}

/* value = block: { stmt; ...; expr } */
struct ast_node *parse_block_value(struct parse_ctx *px, struct ast_node *block)
{
	px->newer = true;
	if (!ast_block_take_value(block)) {
		parse_error(px, block->loc, "a block used as a value must end in an expression "
			    "without ';' after it ({ ...; $x })");
		return NULL;
	}
	return block;
}

/* if_value = "if" expr block "else" (block | if_value) */
struct ast_node *parse_if_value(struct parse_ctx *px, struct ast_node *cond,
				struct ast_node *then, struct ast_node *els,
				struct src_loc loc)
{
	if (!parse_block_value(px, then) || (els->kind == N_BLOCK && !parse_block_value(px, els)))
		return NULL;
	struct ast_node *n = parse_ternary(px, cond, then, els);
	n->loc = loc;
	return n;
}

/* macro_def = "macro" name "(" params ")" block */
struct ast_node *parse_macro(struct parse_ctx *px, const char *name,
			     struct parse_list params, struct ast_node *body,
			     struct src_loc loc)
{
	px->newer = true;
	if (!px->body_seen)
		px->body_seen = "a macro";
	struct ast_node *n = ast_new(px->arena, N_MACRO, loc);
	n->macro.name = name;
	n->macro.params = params.head;
	n->macro.nparams = params.n;
	n->macro.body = body;
	return n;
}

/* ---- top level ----------------------------------------------------------- */

/* probe = attach ("," attach)* ("/" expr "/")? block */
struct ast_node *parse_probe(struct parse_ctx *px, struct parse_attach_list at,
			     struct ast_node *pred, struct ast_node *body,
			     struct src_loc loc)
{
	if (!parse_stmt_end(px))
		return NULL;
	struct ast_node *n = ast_new(px->arena, N_PROBE, loc);
	n->probe.attach = at.head;
	n->probe.pred = pred;
	n->probe.body = body;
	n->probe.index = px->nprobes++;
	if (!px->body_seen)
		px->body_seen = "a probe";
	return n;
}

/* declarator = "*"* name */
struct ast_struct_field *parse_declarator(struct parse_ctx *px, int ptr_depth,
	const char *name, struct src_loc loc)
{
	struct ast_struct_field *f = arena_new_obj(px->arena,
						   struct ast_struct_field);
	f->name = name;
	f->loc = loc;
	f->ctype.ptr_depth = ptr_depth;
	f->ctype.array_len = -1;
	return f;
}

/* declarator = "*"* name "[" integer "]" (0: a trailing array of any
 * length, as C's int y[0], indexed past its end) */
struct ast_struct_field *parse_array_declarator(struct parse_ctx *px,
	struct ast_struct_field *f, uint64_t len, struct src_loc len_loc,
	struct src_loc loc)
{
	enum { MAX_ARRAY = 1 << 20 };
	if (len > MAX_ARRAY) {
		parse_error(px, len_loc,
			   "array length of field '%s' must be 0 to %d", f->name,
			   MAX_ARRAY);
		return NULL;
	}
	if (f->ctype.ndims == 4) {
		parse_error(px, len_loc, "field '%s' has more than 4 array dimensions", f->name);
		return NULL;
	}
	if (f->ctype.array_len < 0)
		f->ctype.array_len = (int)len;
	f->ctype.dims[f->ctype.ndims++] = (int)len;
	f->loc = loc;
	return f;
}

/* declarator = ... ":" integer (a bitfield) */
struct ast_struct_field *parse_bitfield(struct parse_ctx *px, struct ast_struct_field *f,
					uint64_t width, struct src_loc wloc)
{
	if (!f)
		return NULL;
	if (width == 0 || width > 64 || f->ctype.ndims || f->ctype.ptr_depth) {
		parse_error(px, wloc, "bitfield '%s' must be an integer of 1 to 64 bits", f->name);
		return NULL;
	}
	f->ctype.bit_width = (int)width;
	return f;
}

/* field_decl = type_spec declarator ("," declarator)* ";" */
bool parse_field_decl(struct parse_ctx *px, const struct parse_type *t,
		      struct parse_field_list decls)
{
	for (struct ast_struct_field *f = decls.head; f; f = f->next) {
		struct ast_ctype ct;
		if (!parse_ctype_finish(px, t, f->ctype.ptr_depth, &ct))
			return false;
		ct.array_len = f->ctype.array_len;
		memcpy(ct.dims, f->ctype.dims, sizeof(ct.dims));
		ct.ndims = f->ctype.ndims;
		ct.bit_width = f->ctype.bit_width;
		f->ctype = ct;
		if (f == decls.tail)
			break;
	}
	return true;
}

/* struct_def = ("struct" | "union") name "{" field_decl* "}" ";"?
 *            | "enum" name? "{" enumerator ("," enumerator)* ","? "}" ";"? */
struct ast_node *parse_struct_def(struct parse_ctx *px, enum ast_tag tag,
				  const char *name, struct parse_field_list fields,
				  struct src_loc loc)
{
	struct ast_node *n = ast_new(px->arena, N_STRUCT_DEF, loc);
	n->sdef.name = name;
	n->sdef.fields = fields.head;
	n->sdef.tag = tag;
	return n;
}

struct parse_type parse_anon_tag(struct parse_ctx *px, enum ast_tag tag,
				 struct parse_field_list fields, struct src_loc loc)
{
	const char *name = arena_printf(px->arena, "(anonymous %s at %d:%d)",
					tag == TAG_UNION ? "union" : "struct", loc.line, loc.col);
	struct ast_node *d = parse_struct_def(px, tag, name, fields, loc);
	if (px->anon_tail)
		px->anon_tail->next = d;
	else
		px->anon_head = d;
	px->anon_tail = d;
	return parse_type_tag(px, tag, name, loc);
}

struct parse_list parse_take_anon(struct parse_ctx *px, struct parse_list l)
{
	for (struct ast_node *d = px->anon_head, *next; d; d = next) {
		next = d->next;
		d->next = NULL;
		l = parse_list_add(l, d);
	}
	px->anon_head = px->anon_tail = NULL;
	return l;
}

struct ast_struct_field *parse_enumerator(struct parse_ctx *px, const char *name,
					  struct ast_node *value, struct src_loc loc)
{
	struct ast_struct_field *f = arena_new_obj(px->arena, struct ast_struct_field);
	f->loc = loc;
	f->name = name;
	f->value = value;
	return f;
}

/* setting = name "=" (word | integer | string): kept as written; the
 * settings module knows the names and checks the values */
struct ast_config *parse_config_item(struct parse_ctx *px, const char *name,
				     struct src_loc name_loc, const char *value,
				     struct src_loc value_loc)
{
	struct ast_config *c = arena_alloc(px->arena, sizeof(*c));
	c->name = name;
	c->value = value;
	c->loc = name_loc;
	c->value_loc = value_loc;
	return c;
}

struct parse_config_list parse_config_add(struct parse_config_list l, struct ast_config *c)
{
	LIST_APPEND(l, c);
	return l;
}

const char *parse_int_text(struct parse_ctx *px, uint64_t v)
{
	return arena_printf(px->arena, "%llu", (unsigned long long)v);
}

/* program = config? (probe | struct_def)* */
/* map_decl = "let" map "=" name "(" integer ")" ";" (sema checks the names) */
void parse_map_decl(struct parse_ctx *px, const char *map, struct src_loc map_loc,
		    const char *type, struct src_loc type_loc, uint64_t entries,
		    struct src_loc entries_loc)
{
	px->newer = true;
	if (!px->body_seen)
		px->body_seen = "a map declaration";
	struct ast_map_decl *d = arena_new_obj(px->arena, struct ast_map_decl);
	d->name = map;
	d->loc = map_loc;
	d->type = type;
	d->type_loc = type_loc;
	d->entries = entries;
	d->entries_loc = entries_loc;
	if (!px->decls_tail)
		px->decls_tail = &px->decls;
	*px->decls_tail = d;
	px->decls_tail = &d->next;
}

/* config = { ... }: one block, before the probes (after #includes, types
 * and map declarations as they come) */
void parse_config_block(struct parse_ctx *px, struct parse_config_list config, struct src_loc loc)
{
	if (px->have_config) {
		parse_error(px, loc, "a second config block: a script has one, before its probes");
		return;
	}
	if (px->nprobes > 0 && !px->combined) {
		parse_error(px, loc, "the config block comes before the probes (in the preamble, "
			    "with the #includes, types and map declarations)");
		return;
	}
	px->have_config = true;
	px->newer = true;	/* 0.17 parses no config block */
	px->config = config;
}

/* import = "import" string ";": at the root, after the C definitions
 * and before the probes, macros and map declarations */
void parse_import(struct parse_ctx *px, const char *path, uint32_t len, struct src_loc path_loc,
		  struct src_loc loc)
{
	px->newer = true;
	if (px->combined)	/* read already (import.c) */
		return;
	if (px->body_seen) {
		parse_error(px, loc, "import \"%s\" comes after %s: imports go after the C "
			    "definitions and before the probes, macros and map declarations",
			    path, px->body_seen);
		return;
	}
	if (!len || strlen(path) != len) {
		parse_error(px, path_loc, "import: the path is empty or holds a NUL byte");
		return;
	}
	struct parse_import *im = arena_new_obj(px->arena, struct parse_import);
	im->path = path;
	im->loc = loc;
	im->path_loc = path_loc;
	if (!px->imports_tail)
		px->imports_tail = &px->imports;
	*px->imports_tail = im;
	px->imports_tail = &im->next;
}

struct ast_node *parse_program_node(struct parse_ctx *px, struct parse_config_list config,
				    struct parse_list items, struct src_loc loc)
{
	struct ast_node *n = ast_new(px->arena, N_PROGRAM, loc);
	n->program.decls = px->decls;
	n->program.newer = px->newer;
	n->program.config = config.head;
	n->program.items = items.head;
	return n;
}
