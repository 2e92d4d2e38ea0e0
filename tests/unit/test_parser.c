/*
 * test_parser.c - parse_program() and the AST helpers of ast.c.
 *
 * Most tests print the tree as an S-expression ("(+ 1 (* 2 3))") so that
 * precedence, associativity and statement structure read at a glance; a
 * few compare the full `--emit ast` dump, check locations field by field,
 * or compare the exact text of syntax errors (file:line:col, the source
 * line and the ^~~ underline).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/arena.h"
#include "common/diag.h"
#include "parser/ast.h"
#include "parser/parser.h"

/* ---- harness --------------------------------------------------------------- */

struct parsed {
	struct arena *arena;
	struct diag diag;
	FILE *out;
	char *msgs;
	size_t msgs_size;
	struct ast_node *root;
};

static void parse(struct parsed *p, const char *src)
{
	memset(p, 0, sizeof(*p));
	p->out = open_memstream(&p->msgs, &p->msgs_size);
	assert_non_null(p->out);
	p->arena = arena_new();
	diag_init(&p->diag, "test.bt", src, p->out);
	p->root = parse_program(p->arena, &p->diag, src);
	fflush(p->out);
}

static void parsed_free(struct parsed *p)
{
	fclose(p->out);
	free(p->msgs);
	arena_free(p->arena);
}

static void sexp(FILE *f, const struct ast_node *n);

static void sexp_list(FILE *f, const struct ast_node *n)
{
	for (; n; n = n->next) {
		fputc(' ', f);
		sexp(f, n);
	}
}

static void ctype_sexp(FILE *f, const struct ast_ctype *ct)
{
	fputc('<', f);
	if (ct->is_struct || ct->is_enum)
		fputs(ct->is_enum ? "enum " : ct->is_union ? "union " : "struct ", f);
	else if (ct->is_unsigned && ct->name[0] != 'u')
		fputs("unsigned ", f);
	fputs(ct->name, f);
	for (int i = 0; i < ct->ptr_depth; i++)
		fputs(i ? "*" : " *", f);
	if (ct->array_len >= 0)
		fprintf(f, "[%d]", ct->array_len);
	fputc('>', f);
}

/* The tree as an S-expression; see the file comment. */
static void sexp(FILE *f, const struct ast_node *n)
{
	if (!n) {
		fputs("nil", f);
		return;
	}
	switch (n->kind) {
	case N_INT:
		if (n->i.is_char)
			fprintf(f, "'%c'", (char)n->i.value);
		else
			fprintf(f, "%llu", (unsigned long long)n->i.value);
		break;
	case N_STR:
		fprintf(f, "\"%.*s\"", (int)n->s.len, n->s.value);
		break;
	case N_IDENT:
		fputs(n->ident.name, f);
		break;
	case N_VAR:
		fprintf(f, "$%s", n->var.name);
		break;
	case N_MAP:
		if (!n->map.keys) {
			fputs(n->map.name, f);
			break;
		}
		fprintf(f, "(%s", n->map.name);
		sexp_list(f, n->map.keys);
		fputc(')', f);
		break;
	case N_POSITIONAL:
		if (n->pos.index)
			fprintf(f, "$%d", n->pos.index);
		else
			fputs("$#", f);
		break;
	case N_CALL:
		fprintf(f, "(call %s", n->call.name);
		sexp_list(f, n->call.args);
		fputc(')', f);
		break;
	case N_BINARY:
		fprintf(f, "(%s ", ast_op_text(n->bin.op));
		sexp(f, n->bin.lhs);
		fputc(' ', f);
		sexp(f, n->bin.rhs);
		fputc(')', f);
		break;
	case N_UNARY:
		fprintf(f, "(u%s ", ast_op_text(n->un.op));
		sexp(f, n->un.operand);
		fputc(')', f);
		break;
	case N_INCDEC:
		fprintf(f, "(%s%s ", n->incdec.is_post ? "post" : "pre",
			n->incdec.is_inc ? "++" : "--");
		sexp(f, n->incdec.target);
		fputc(')', f);
		break;
	case N_TERNARY:
		fputs("(? ", f);
		sexp(f, n->tern.cond);
		fputc(' ', f);
		sexp(f, n->tern.then);
		fputc(' ', f);
		sexp(f, n->tern.els);
		fputc(')', f);
		break;
	case N_FIELD:
		fprintf(f, "(%s ", n->field.is_arrow ? "->" : ".");
		sexp(f, n->field.base);
		fprintf(f, " %s)", n->field.name);
		break;
	case N_INDEX:
		fputs("([] ", f);
		sexp(f, n->index.base);
		fputc(' ', f);
		sexp(f, n->index.index);
		fputc(')', f);
		break;
	case N_CAST:
		fputs("(cast ", f);
		ctype_sexp(f, &n->cast.ctype);
		fputc(' ', f);
		sexp(f, n->cast.operand);
		fputc(')', f);
		break;
	case N_SIZEOF:
		fputs("(sizeof ", f);
		if (n->size_of.expr)
			sexp(f, n->size_of.expr);
		else
			ctype_sexp(f, &n->size_of.ctype);
		fputc(')', f);
		break;
	case N_TUPLE:
		fputs(n->tuple.names ? "(record" : "(tuple", f);
		for (int i = 0; n->tuple.names && i < n->tuple.nelems; i++)
			fprintf(f, " %s", n->tuple.names[i]);
		sexp_list(f, n->tuple.elems);
		fputc(')', f);
		break;
	case N_EXPR_STMT:
		sexp(f, n->expr_stmt.expr);
		break;
	case N_ASSIGN:
		if (n->assign.is_let) {
			fputs("(let ", f);
			sexp(f, n->assign.target);
			if (n->assign.has_ctype)
				fprintf(f, " <%s>", n->assign.ctype.name);
		} else {
			fprintf(f, "(%s= ", ast_op_text(n->assign.op));
			sexp(f, n->assign.target);
		}
		if (n->assign.value) {
			fputc(' ', f);
			sexp(f, n->assign.value);
		}
		fputc(')', f);
		break;
	case N_FOR:
		fputs("(for ", f);
		sexp(f, n->for_.var);
		fputc(' ', f);
		if (n->for_.map) {
			sexp(f, n->for_.map);
		} else {
			sexp(f, n->for_.start);
			fputs("..", f);
			sexp(f, n->for_.end);
		}
		fputc(' ', f);
		sexp(f, n->for_.body);
		fputc(')', f);
		break;
	case N_IF:
		fputs("(if ", f);
		sexp(f, n->if_.cond);
		fputc(' ', f);
		sexp(f, n->if_.then);
		if (n->if_.els) {
			fputc(' ', f);
			sexp(f, n->if_.els);
		}
		fputc(')', f);
		break;
	case N_WHILE:
		fputs("(while ", f);
		sexp(f, n->while_.cond);
		fputc(' ', f);
		sexp(f, n->while_.body);
		fputc(')', f);
		break;
	case N_UNROLL:
		fputs("(unroll ", f);
		sexp(f, n->unroll.count);
		fputc(' ', f);
		sexp(f, n->unroll.body);
		fputc(')', f);
		break;
	case N_RETURN:
		fputs("return", f);
		break;
	case N_BREAK:
		fputs("break", f);
		break;
	case N_CONTINUE:
		fputs("continue", f);
		break;
	case N_BLOCK:
		fputc('{', f);
		for (const struct ast_node *s = n->block.stmts; s; s = s->next) {
			sexp(f, s);
			if (s->next)
				fputc(' ', f);
		}
		if (n->block.value) {
			fputs(n->block.stmts ? " => " : "=> ", f);
			sexp(f, n->block.value);
		}
		fputc('}', f);
		break;
	case N_MACRO:	/* expanded away: never in a parsed tree */
		fputs("(macro)", f);
		break;
	case N_PROBE:
		fprintf(f, "(probe#%d ", n->probe.index);
		for (const struct ast_attach *a = n->probe.attach; a; a = a->next)
			fprintf(f, "%s%s", a == n->probe.attach ? "" : ",", a->raw);
		if (n->probe.pred) {
			fputs(" /", f);
			sexp(f, n->probe.pred);
			fputc('/', f);
		}
		fputc(' ', f);
		sexp(f, n->probe.body);
		fputc(')', f);
		break;
	case N_STRUCT_DEF:
		fprintf(f, "(%s %s", n->sdef.tag == TAG_ENUM ? "enum" : n->sdef.tag == TAG_UNION ?
			"union" : "struct", n->sdef.name ? n->sdef.name : "-");
		for (const struct ast_struct_field *m = n->sdef.fields; m;
		     m = m->next) {
			fputc(' ', f);
			if (n->sdef.tag == TAG_ENUM) {
				fputs(m->name, f);
				if (m->value)
					fputc('=', f), sexp(f, m->value);
				continue;
			}
			ctype_sexp(f, &m->ctype);
			fputs(m->name, f);
		}
		fputc(')', f);
		break;
	case N_PROGRAM:
		for (const struct ast_node *i = n->program.items; i; i = i->next) {
			sexp(f, i);
			if (i->next)
				fputc('\n', f);
		}
		break;
	}
}

static char *sexp_str(const struct ast_node *n)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	sexp(f, n);
	fclose(f);
	return buf;
}

/* The whole program as S-expressions, one item a line. */
static void check_program(const char *src, const char *want)
{
	struct parsed p;
	parse(&p, src);
	if (!p.root)
		fail_msg("parse failed: %s", p.msgs);
	char *got = sexp_str(p.root);
	assert_string_equal(got, want);
	assert_int_equal(p.diag.errors, 0);
	free(got);
	parsed_free(&p);
}

/* The statements of "BEGIN { body }" as one block S-expression. */
static void check_body(const char *body, const char *want)
{
	char src[4096];
	snprintf(src, sizeof(src), "BEGIN { %s }", body);
	struct parsed p;
	parse(&p, src);
	if (!p.root)
		fail_msg("parse of '%s' failed: %s", body, p.msgs);
	char *got = sexp_str(p.root->program.items->probe.body);
	assert_string_equal(got, want);
	free(got);
	parsed_free(&p);
}

/* One expression statement. */
static void check_expr(const char *expr, const char *want)
{
	char src[4096];
	snprintf(src, sizeof(src), "BEGIN { %s }", expr);
	struct parsed p;
	parse(&p, src);
	if (!p.root)
		fail_msg("parse of '%s' failed: %s", expr, p.msgs);
	const struct ast_node *s = p.root->program.items->probe.body->block.stmts;
	assert_non_null(s);
	assert_null(s->next);
	char *got = sexp_str(s);
	assert_string_equal(got, want);
	free(got);
	parsed_free(&p);
}

/* A rejected program: NULL, one error, and exactly this text. */
static void check_error(const char *src, const char *want)
{
	struct parsed p;
	parse(&p, src);
	assert_null(p.root);
	assert_int_equal(p.diag.errors, 1);
	assert_string_equal(p.msgs, want);
	parsed_free(&p);
}

/* Rejected, with a message that contains `want`. */
static void check_rejected(const char *src, const char *want)
{
	struct parsed p;
	parse(&p, src);
	assert_null(p.root);
	assert_int_equal(p.diag.errors, 1);
	if (!strstr(p.msgs, want))
		fail_msg("'%s': got '%s', want '%s'", src, p.msgs, want);
	parsed_free(&p);
}

static char *dump_str(const struct ast_node *n)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);
	ast_dump(f, n);
	fclose(f);
	return buf;
}

/* ---- programs and probes ---------------------------------------------------- */

static void test_empty(void **state)
{
	check_program("", "");
	check_program("  // nothing\n/* at all */\n", "");
	check_program("BEGIN {}", "(probe#0 BEGIN {})");
	check_program("BEGIN { ; ; }", "(probe#0 BEGIN {})");
}

static void test_probes(void **state)
{
	check_program("BEGIN { 1 } END { 2; }\ni:s:1 { 3 }",
		      "(probe#0 BEGIN {1})\n(probe#1 END {2})\n(probe#2 i:s:1 {3})");
	check_program("a:b,\n  c:d, e { }", "(probe#0 a:b,c:d,e {})");
	check_program("t:a:b /pid == 1 && comm != \"x\"/ { @ = count() }",
		      "(probe#0 t:a:b /(&& (== pid 1) (!= comm \"x\"))/ "
		      "{(= @ (call count))})");
	check_program("BEGIN/1/{}", "(probe#0 BEGIN /1/ {})");
	check_program("a /$x / 2 > 1/ { }", "(probe#0 a /(> (/ $x 2) 1)/ {})");
	check_program("uprobe:/lib/libc.so.6:malloc /arg0 > 1024/ { @big++ }",
		      "(probe#0 uprobe:/lib/libc.so.6:malloc /(> arg0 1024)/ "
		      "{(post++ @big)})");
	check_program("uretprobe:\"/opt/a b/x\":f { }",
		      "(probe#0 uretprobe:/opt/a b/x:f {})");
}

static void test_struct_defs(void **state)
{
	check_program("struct foo { int a; char name[16]; struct foo *next, **pp; "
		      "unsigned long long x; const char *s; uint32 u; "
		      "unsigned u2; long int l; short s1; signed char sc; }; "
		      "BEGIN { }",
		      "(struct foo <int>a <char[16]>name <struct foo *>next "
		      "<struct foo **>pp <unsigned long>x <char *>s <uint32>u "
		      "<unsigned int>u2 <long>l <short>s1 <signed char>sc)\n"
		      "(probe#0 BEGIN {})");
	check_program("struct a { int x; } struct b { int y; }\nstruct c { };",
		      "(struct a <int>x)\n(struct b <int>y)\n(struct c)");
	check_program("union u { int x; union v *p; } enum e { A, B = 2, } enum { C };",
		      "(union u <int>x <union v *>p)\n(enum e A B=2)\n(enum - C)");

	struct parsed p;
	parse(&p, "struct s { unsigned char *buf[4]; uint64 v; };");
	assert_non_null(p.root);
	const struct ast_node *sd = p.root->program.items;
	assert_int_equal(sd->kind, N_STRUCT_DEF);
	assert_string_equal(sd->sdef.name, "s");
	const struct ast_struct_field *f = sd->sdef.fields;
	assert_string_equal(f->name, "buf");
	assert_string_equal(f->ctype.name, "char");
	assert_true(f->ctype.is_unsigned);
	assert_false(f->ctype.is_struct);
	assert_int_equal(f->ctype.ptr_depth, 1);
	assert_int_equal(f->ctype.array_len, 4);
	assert_int_equal(f->loc.line, 1);
	assert_int_equal(f->loc.col, 26);
	f = f->next;
	assert_string_equal(f->ctype.name, "uint64");
	assert_true(f->ctype.is_unsigned);
	assert_int_equal(f->ctype.array_len, -1);
	assert_null(f->next);
	parsed_free(&p);
}

/* ---- expressions --------------------------------------------------------------- */

static void test_primaries(void **state)
{
	check_expr("42", "42");
	check_expr("'a'", "'a'");
	check_expr("\"s\"", "\"s\"");
	check_expr("pid", "pid");
	check_expr("$x", "$x");
	check_expr("@", "@");
	check_expr("@m", "@m");
	check_expr("@m[1]", "(@m 1)");
	check_expr("@[comm, pid, \"a\"]", "(@ comm pid \"a\")");
	check_expr("$1 + $#", "(+ $1 $#)");
	check_expr("kstack", "kstack");
	check_expr("kstack(5)", "(call kstack 5)");
	check_expr("count()", "(call count)");
	check_expr("hist(arg0)", "(call hist arg0)");
	check_expr("print(@m, 10, 2)", "(call print @m 10 2)");
	check_expr("delete(@m[1, 2])", "(call delete (@m 1 2))");
	check_expr("printf(\"%d %s\\n\", pid, comm)",
		   "(call printf \"%d %s\n\" pid comm)");
	check_expr("(1)", "1");
	check_expr("((($x)))", "$x");
	check_expr("(1, 2)", "(tuple 1 2)");
	check_expr("(1, \"a\", (2, 3))", "(tuple 1 \"a\" (tuple 2 3))");
	check_expr("sizeof(int32)", "(sizeof <int32>)");
	check_expr("sizeof(struct task_struct)", "(sizeof <struct task_struct>)");
	check_expr("sizeof($x + 1)", "(sizeof (+ $x 1))");
	check_expr("sizeof(args)", "(sizeof args)");
}

static void test_precedence(void **state)
{
	check_expr("1 + 2 * 3", "(+ 1 (* 2 3))");
	check_expr("1 * 2 + 3", "(+ (* 1 2) 3)");
	check_expr("1 - 2 - 3", "(- (- 1 2) 3)");
	check_expr("8 / 4 / 2 % 3", "(% (/ (/ 8 4) 2) 3)");
	check_expr("1 << 2 + 3", "(<< 1 (+ 2 3))");
	check_expr("1 < 2 << 3", "(< 1 (<< 2 3))");
	check_expr("1 == 2 < 3", "(== 1 (< 2 3))");
	check_expr("1 != 2 >= 3 <= 4 > 5",
		   "(!= 1 (> (<= (>= 2 3) 4) 5))");
	check_expr("1 & 2 == 3", "(& 1 (== 2 3))");
	check_expr("1 ^ 2 & 3", "(^ 1 (& 2 3))");
	check_expr("1 | 2 ^ 3", "(| 1 (^ 2 3))");
	check_expr("1 && 2 | 3", "(&& 1 (| 2 3))");
	check_expr("1 || 2 && 3", "(|| 1 (&& 2 3))");
	check_expr("1 || 2 || 3", "(|| (|| 1 2) 3)");
	check_expr("(1 + 2) * 3", "(* (+ 1 2) 3)");
	check_expr("1 >> 2 >> 3", "(>> (>> 1 2) 3)");
}

static void test_ternary(void **state)
{
	check_expr("$a ? 1 : 2", "(? $a 1 2)");
	check_expr("$a ? 1 : $b ? 2 : 3", "(? $a 1 (? $b 2 3))");
	check_expr("$a ? $b ? 1 : 2 : 3", "(? $a (? $b 1 2) 3)");
	/* a ?: b has no then: a is not a shared node, evaluated twice */
	check_expr("$a ?: 2", "(? $a nil 2)");
	check_expr("$a || $b ? 1 + 2 : 3 * 4",
		   "(? (|| $a $b) (+ 1 2) (* 3 4))");
}

static void test_unary(void **state)
{
	check_expr("-1", "(u- 1)");
	check_expr("- -$x", "(u- (u- $x))");
	check_expr("!$x == 0", "(== (u! $x) 0)");
	check_expr("~$x & 1", "(& (u~ $x) 1)");
	check_expr("-$x * 2", "(* (u- $x) 2)");
	check_expr("*$p + 1", "(+ (u* $p) 1)");
	check_expr("&$x", "(u& $x)");
	check_expr("*&$x", "(u* (u& $x))");
	check_expr("1 - -1", "(- 1 (u- 1))");
	check_expr("2 * *$p", "(* 2 (u* $p))");
	check_expr("-args->x", "(u- (-> args x))");
	check_expr("!@m[1]", "(u! (@m 1))");
}

static void test_incdec(void **state)
{
	check_expr("$x++", "(post++ $x)");
	check_expr("$x--", "(post-- $x)");
	check_expr("++$x", "(pre++ $x)");
	check_expr("--@m[1]", "(pre-- (@m 1))");
	check_expr("@m[1, 2]++", "(post++ (@m 1 2))");
	check_expr("@++", "(post++ @)");
	check_expr("$x++ + 1", "(+ (post++ $x) 1)");
	check_expr("-$x++", "(u- (post++ $x))");
	check_expr("$x+++$y", "(+ (post++ $x) $y)");
}

static void test_casts(void **state)
{
	check_expr("(uint32)$x", "(cast <uint32> $x)");
	check_expr("(int8)-1", "(cast <int8> (u- 1))");
	check_expr("(uint64)$x + 1", "(+ (cast <uint64> $x) 1)");
	check_expr("(uint8)$x[1]", "(cast <uint8> ([] $x 1))");
	check_expr("(struct foo *)arg0", "(cast <struct foo *> arg0)");
	check_expr("((struct foo *)arg0)->bar",
		   "(-> (cast <struct foo *> arg0) bar)");
	check_expr("(struct foo **)0", "(cast <struct foo **> 0)");
	check_expr("(unsigned long)1", "(cast <unsigned long> 1)");
	check_expr("(unsigned)1", "(cast <unsigned int> 1)");
	check_expr("(long long)1", "(cast <long> 1)");
	check_expr("(unsigned long long int)1", "(cast <unsigned long> 1)");
	check_expr("(signed char)1", "(cast <signed char> 1)");	/* not plain char */
	check_expr("(const char *)$p", "(cast <char *> $p)");
	check_expr("(uint8 *)arg1", "(cast <uint8 *> arg1)");
	check_expr("(bool)1", "(cast <bool> 1)");
	check_expr("(void *)0", "(cast <void *> 0)");
	check_expr("(uint16)(uint32)1", "(cast <uint16> (cast <uint32> 1))");
	check_expr("-(int32)1", "(u- (cast <int32> 1))");
	/* typedef names, as bpftrace reads them: "(name)" casts only what
	 * cannot continue an expression */
	check_expr("(u32)$x", "(cast <u32> $x)");
	check_expr("(u32)(u16)arg0", "(cast <u32> (cast <u16> arg0))");
	check_expr("(u32)!$x", "(cast <u32> (u! $x))");
	check_expr("(u32)~$x", "(cast <u32> (u~ $x))");
	check_expr("(u32)(uint8)$x", "(cast <u32> (cast <uint8> $x))");
	check_expr("(u32)\"s\"", "(cast <u32> \"s\")");
	check_expr("(u32)sizeof($x)", "(cast <u32> (sizeof $x))");
	check_expr("(u64)$x + 1", "(+ (cast <u64> $x) 1)");
	check_expr("(u8)$a[1]", "(cast <u8> ([] $a 1))");
	check_expr("(pid_t *)arg0", "(cast <pid_t *> arg0)");
	check_expr("(u8 **)0", "(cast <u8 **> 0)");
	check_expr("(pid) - 1", "(- pid 1)");
	check_expr("(pid) * 2", "(* pid 2)");
	check_expr("(pid)", "pid");
	check_expr("(pid, tid)", "(tuple pid tid)");
	check_expr("sizeof(u32 *)", "(sizeof <u32 *>)");
	check_program("#define T struct task\nBEGIN { (T *)0 }",
		      "(probe#0 BEGIN {(cast <struct task *> 0)})");
}

static void test_postfix(void **state)
{
	check_expr("args->filename", "(-> args filename)");
	check_expr("args.filename", "(. args filename)");
	check_expr("$t.0", "(. $t 0)");
	check_expr("$t.1.x", "(. (. $t 1) x)");
	check_expr("$a->b->c.d", "(. (-> (-> $a b) c) d)");
	check_expr("$a[1][2]", "([] ([] $a 1) 2)");
	check_expr("@m[1][2]", "([] (@m 1) 2)");
	check_expr("@m[1].x", "(. (@m 1) x)");
	check_expr("args->argv[0]", "([] (-> args argv) 0)");
	check_expr("$p->int", "(-> $p int)");
	check_expr("str(args->buf)[0]", "([] (call str (-> args buf)) 0)");
}

static void test_literal_values(void **state)
{
	struct parsed p;
	parse(&p, "BEGIN { \"a\\0b\\n\"; 0xffffffffffffffff; '\\n'; 1_000 }");
	assert_non_null(p.root);
	const struct ast_node *s = p.root->program.items->probe.body->block.stmts;
	const struct ast_node *e = s->expr_stmt.expr;
	assert_int_equal(e->kind, N_STR);
	assert_int_equal(e->s.len, 4);
	assert_memory_equal(e->s.value, "a\0b\n", 5);
	e = s->next->expr_stmt.expr;
	assert_int_equal(e->kind, N_INT);
	assert_true(e->i.value == UINT64_MAX);
	assert_false(e->i.is_char);
	e = s->next->next->expr_stmt.expr;
	assert_true(e->i.is_char);
	assert_int_equal(e->i.value, 10);
	e = s->next->next->next->expr_stmt.expr;
	assert_int_equal(e->i.value, 1000);
	parsed_free(&p);
}

/* ---- statements ----------------------------------------------------------------- */

static void test_statements(void **state)
{
	check_body("$x = 1; $y = 2", "{(= $x 1) (= $y 2)}");
	check_body("$x = 1; $y = 2;", "{(= $x 1) (= $y 2)}");
	check_body("@m[1, 2] = 3; @ = count(); @x = hist(arg0)",
		   "{(= (@m 1 2) 3) (= @ (call count)) (= @x (call hist arg0))}");
	check_body("printf(\"x\"); exit()", "{(call printf \"x\") (call exit)}");
	check_body("return", "{return}");
	check_body("return; break; continue;", "{return break continue}");
	check_body("{ $x = 1 } { } $y = 2", "{{(= $x 1)} {} (= $y 2)}");
	check_body(";;$x = 1;;", "{(= $x 1)}");
	check_body("if ($x) { $y = 1 } $z = 2",
		   "{(if $x {(= $y 1)}) (= $z 2)}");
	check_body("if ($x) { } ; $z = 2", "{(if $x {}) (= $z 2)}");
}

static void test_compound_assign(void **state)
{
	check_body("$x += 1; $x -= 2; $x *= 3; $x /= 4; $x %= 5; $x &= 6; "
		   "$x |= 7; $x ^= 8; $x <<= 9; @m[1] >>= 10",
		   "{(+= $x 1) (-= $x 2) (*= $x 3) (/= $x 4) (%= $x 5) "
		   "(&= $x 6) (|= $x 7) (^= $x 8) (<<= $x 9) (>>= (@m 1) 10)}");

	struct parsed p;
	parse(&p, "BEGIN { @m -= 1; $x = 2 }");
	assert_non_null(p.root);
	const struct ast_node *s = p.root->program.items->probe.body->block.stmts;
	assert_int_equal(s->kind, N_ASSIGN);
	assert_int_equal(s->assign.op, OP_SUB);
	assert_int_equal(s->assign.target->kind, N_MAP);
	assert_int_equal(s->next->assign.op, OP_NONE);
	parsed_free(&p);
}

static void test_control_flow(void **state)
{
	check_body("if ($x > 1) { $y = 1; } else { $y = 2; }",
		   "{(if (> $x 1) {(= $y 1)} {(= $y 2)})}");
	check_body("if (1) { a() } else if (2) { b() } else if (3) { } else { c() }",
		   "{(if 1 {(call a)} (if 2 {(call b)} (if 3 {} {(call c)})))}");
	check_body("while ($i < 10) { $i++; if ($i == 5) { break } continue }",
		   "{(while (< $i 10) {(post++ $i) (if (== $i 5) {break}) continue})}");
	check_body("unroll(5) { @n++ } unroll (2 + 1) { }",
		   "{(unroll 5 {(post++ @n)}) (unroll (+ 2 1) {})}");
	check_body("if ($a) { if ($b) { while (1) { unroll(2) { return } } } }",
		   "{(if $a {(if $b {(while 1 {(unroll 2 {return})})})})}");
	/* newer bpftrace: let, for over a map and over a range */
	check_body("let $a; let $b = 1; let $c: int32; let $d: uint8 = $b + 1;",
		   "{(let $a) (let $b 1) (let $c <int32>) (let $d <uint8> (+ $b 1))}");
	check_body("for ($kv : @m) { print($kv.0); break } for ($i : 0..5) { continue }",
		   "{(for $kv @m {(call print (. $kv 0)) break}) (for $i 0..5 {continue})}");
	check_body("for ($i : (1 + 1)..@n[2]) { } for ($i : -3..$x) { }",
		   "{(for $i (+ 1 1)..(@n 2) {}) (for $i (u- 3)..$x {})}");
	/* block expressions and if as a value */
	check_body("$a = { let $b = 1; $b }; let $c = if $a { 1 } else if $b { 2 } else { 3 };",
		   "{(= $a {(let $b 1) => $b}) (let $c (? $a {=> 1} (? $b {=> 2} {=> 3})))}");
	check_body("f({ printf(\"x\") }, { 1; 2 })",
		   "{(call f {=> (call printf \"x\")} {1 => 2})}");
	/* as operands wherever one is expected; a statement's '{' and 'if'
	 * stay a block and an if statement */
	check_body("$a = { 1 } + 2 * { 3 }; $b = (if $a { 1 } else { 2 }) * 3; $c = 1 - if $a { 4 } else { 5 };",
		   "{(= $a (+ {=> 1} (* 2 {=> 3}))) (= $b (* (? $a {=> 1} {=> 2}) 3)) (= $c (- 1 (? $a {=> 4} {=> 5})))}");
	check_body("@m[{ 1 }] = $x ? { 2 } : -{ 3 }; { $y = 1 } if $y { }",
		   "{(= (@m {=> 1}) (? $x {=> 2} (u- {=> 3}))) {(= $y 1)} (if $y {})}");
	/* for without parentheses (opensnoop.bt) */
	check_body("for $j : ((uint64)0)..((uint64)$n) { } for $kv : @m { }",
		   "{(for $j (cast <uint64> 0)..(cast <uint64> $n) {}) (for $kv @m {})}");
	/* records: (name=value, ...), a block as a field's value */
	check_body("$r = (a=1, b=\"x\", c=(1, 2)); $s = (foo={ 1 }, bar=(d=2));",
		   "{(= $r (record a b c 1 \"x\" (tuple 1 2))) (= $s (record foo bar {=> 1} (record d 2)))}");
	/* macros: calls become the body, parameters the arguments, the body's
	 * variables names of each expansion */
	check_program("macro inc(x) { x + 1 } macro two() { 2 } macro bump($v, @m) { let $t = $v; $v += 1; @m = $t }"
		      " begin { $r = inc(inc(two)); bump($r, @q); }",
		      "(probe#0 begin {(= $r {=> (+ {=> (+ {=> 2} 1)} 1)}) {(let $t'm4 $r) (+= $r 1) (= @q $t'm4)}})");
	/* a $ parameter passed an expression (not a variable) is that
	 * expression wherever the body names it, as an expression parameter */
	check_program("macro twice($x) { $x + $x } begin { $r = twice(1 + 2); }",
		      "(probe#0 begin {(= $r {=> (+ (+ 1 2) (+ 1 2))})})");
	/* newer bpftrace's "if cond {": the same tree as with parentheses */
	check_body("if $x > 1 { $y = 1 } else if $x { } else { $y = 2 }",
		   "{(if (> $x 1) {(= $y 1)} (if $x {} {(= $y 2)}))}");
}

/* newer bpftrace's config block: kept as written, before the probes; a
 * probe named config (no '=' after it) is still an attach point */
static void check_config(const char *src, const char *want)
{
	struct parsed p;
	parse(&p, src);
	if (!p.root)
		fail_msg("parse failed: %s", p.msgs);
	char got[256] = "";
	size_t o = 0;
	for (const struct ast_config *c = p.root->program.config; c; c = c->next)
		o += (size_t)snprintf(got + o, sizeof(got) - o, "%s%s=%s", o ? " " : "", c->name,
				      c->value);
	assert_string_equal(got, want);
	parsed_free(&p);
}

static void test_config_block(void **state)
{
	check_config("config = { max_strlen = 100; stack_mode = perf; x = \"s\" }\nBEGIN { }",
		     "max_strlen=100 stack_mode=perf x=s");
	check_config("config = {\n  missing_probes = warn;\n}\nBEGIN { }", "missing_probes=warn");
	check_config("config = { } BEGIN { }", "");
	/* no blanks: "config=" is not an attach point named so */
	check_config("config={license=\"Dual BSD/GPL\"} BEGIN { }", "license=Dual BSD/GPL");
	check_program("config = { a = 1 }\nBEGIN { }", "(probe#0 BEGIN {})");
	/* the preamble's pieces in any order, config among them (the newest
	 * language.md's: #include, #define, a struct, config, let @a) */
	check_config("struct S { int x; }\nconfig = { stack_mode = perf }\n"
		     "let @a = lruhash(100);\nBEGIN { @a[1] = 1; }",
		     "stack_mode=perf");
	check_error("BEGIN { } config = { a = 1 }",
		    "test.bt:1:11: error: the config block comes before the probes (in the "
		    "preamble, with the #includes, types and map declarations)\n"
		    "BEGIN { } config = { a = 1 }\n"
		    "          ^~~~~~\n");
	check_error("config = { a = 1 } config = { b = 2 } BEGIN { }",
		    "test.bt:1:20: error: a second config block: a script has one, before its probes\n"
		    "config = { a = 1 } config = { b = 2 } BEGIN { }\n"
		    "                   ^~~~~~\n");
	(void)state;
}

static void test_defines(void **state)
{
	check_program("#include <linux/sched.h>\n#define MAX 10\n"
		      "#define NAME \"sshd\"\n#define TWICE (MAX * 2)\n"
		      "BEGIN /comm == NAME/ { if ($x < TWICE) { @[MAX] = 1 } }",
		      "(probe#0 BEGIN /(== comm \"sshd\")/ "
		      "{(if (< $x (* 10 2)) {(= (@ 10) 1)})})");
	check_program("#!/usr/bin/bpftrace\n#ifndef BPFTRACE_HAVE_BTF\n"
		      "struct old { int a; }\n#else\nstruct new { int b; }\n"
		      "#endif\nBEGIN { }",
		      "(struct new <int>b)\n(probe#0 BEGIN {})");
}

/* ---- locations ------------------------------------------------------------------- */

static void assert_loc(struct src_loc l, int line, int col, int end_line,
		       int end_col)
{
	if (l.line != line || l.col != col || l.end_line != end_line ||
	    l.end_col != end_col)
		fail_msg("loc %d:%d-%d:%d, want %d:%d-%d:%d", l.line, l.col,
			 l.end_line, l.end_col, line, col, end_line, end_col);
	assert_string_equal(l.file, "test.bt");
}

static void test_locations(void **state)
{
	struct parsed p;
	/*        123456789012345678901234567890 */
	parse(&p, "BEGIN { $x = a + b * c; }\n"
		  "k:f /pid/ {\n"
		  "  @m[1, 2] = hist(-arg0); $t.0 }");
	assert_non_null(p.root);
	const struct ast_node *pr = p.root->program.items;
	assert_loc(pr->loc, 1, 1, 1, 26);
	assert_loc(pr->probe.attach->loc, 1, 1, 1, 6);
	assert_loc(pr->probe.body->loc, 1, 7, 1, 26);
	const struct ast_node *as = pr->probe.body->block.stmts;
	assert_loc(as->loc, 1, 9, 1, 23);
	assert_loc(as->assign.target->loc, 1, 9, 1, 11);
	const struct ast_node *add = as->assign.value;
	assert_int_equal(add->kind, N_BINARY);
	assert_loc(add->loc, 1, 14, 1, 23);
	assert_loc(add->bin.lhs->loc, 1, 14, 1, 15);
	assert_loc(add->bin.rhs->loc, 1, 18, 1, 23);

	pr = pr->next;
	assert_loc(pr->loc, 2, 1, 3, 33);
	assert_loc(pr->probe.attach->loc, 2, 1, 2, 4);
	assert_loc(pr->probe.pred->loc, 2, 6, 2, 9);
	as = pr->probe.body->block.stmts;
	assert_loc(as->loc, 3, 3, 3, 25);
	assert_loc(as->assign.target->loc, 3, 3, 3, 11);
	assert_loc(as->assign.target->map.keys->loc, 3, 6, 3, 7);
	const struct ast_node *call = as->assign.value;
	assert_loc(call->loc, 3, 14, 3, 25);
	assert_loc(call->call.args->loc, 3, 19, 3, 24);
	assert_loc(as->next->loc, 3, 27, 3, 31);
	parsed_free(&p);

	parse(&p, "BEGIN { (uint8)$x; $a ? 1 : 2; if (1) { } else { } "
		  "$x++; ++$x; (1, 2) }");
	assert_non_null(p.root);
	const struct ast_node *s = p.root->program.items->probe.body->block.stmts;
	assert_loc(s->loc, 1, 9, 1, 18);			/* cast */
	assert_loc(s->next->loc, 1, 20, 1, 30);		/* ternary */
	assert_loc(s->next->next->loc, 1, 32, 1, 51);	/* if/else */
	assert_loc(s->next->next->next->loc, 1, 52, 1, 56);	/* $x++ */
	assert_loc(s->next->next->next->next->loc, 1, 58, 1, 62);
	assert_loc(s->next->next->next->next->next->loc, 1, 64, 1, 70);
	parsed_free(&p);
}

/* ---- errors ---------------------------------------------------------------------- */

/* a line past DIAG_LINE_MAX columns is quoted around the column, with
 * "..." where it was cut, and the caret still under the token */
static void test_long_line_error(void **state)
{
	char src[512] = "BEGIN { ";
	for (int i = 0; i < 40; i++)
		strcat(src, "$a = 1; ");
	strcat(src, "$x = ; }");	/* 336 columns, the ';' at 334 */
	char want[1024];
	/* near the end: the last 120 columns, cut before them only */
	snprintf(want, sizeof(want), "test.bt:1:334: error: syntax error: unexpected ';', "
		 "expecting an expression\n...%s\n...%*s^\n", src + 336 - DIAG_LINE_MAX,
		 DIAG_LINE_MAX - 3, "");
	check_error(src, want);
	/* in the middle: cut on both sides, 40 columns before the column */
	char mid[512] = "BEGIN { ";
	for (int i = 0; i < 40; i++)
		strcat(mid, "$a = 1; ");
	strcat(mid, "$x = ; ");
	for (int i = 0; i < 20; i++)
		strcat(mid, "$a = 1; ");
	strcat(mid, "}");
	snprintf(want, sizeof(want), "test.bt:1:334: error: syntax error: unexpected ';', "
		 "expecting an expression\n...%.*s...\n...%*s^\n", DIAG_LINE_MAX, mid + 333 - 40,
		 40, "");
	check_error(mid, want);
}

static void test_syntax_errors(void **state)
{
	check_error("BEGIN { $x = 1 $y = 2 }",
		    "test.bt:1:16: error: syntax error: unexpected variable '$y', "
		    "expecting ';' or '}'\n"
		    "BEGIN { $x = 1 $y = 2 }\n"
		    "               ^~\n");
	check_error("BEGIN { printf(\"%d\\n\" pid); }",
		    "test.bt:1:23: error: syntax error: unexpected identifier "
		    "'pid', expecting ',' or ')'\n"
		    "BEGIN { printf(\"%d\\n\" pid); }\n"
		    "                      ^~~\n");
	check_error("BEGIN { if ($x) { } else }",
		    "test.bt:1:26: error: syntax error: unexpected '}', "
		    "expecting 'if' or '{'\n"
		    "BEGIN { if ($x) { } else }\n"
		    "                         ^\n");
	check_error("BEGIN { $r = (a=1, a=2); }",
		    "test.bt:1:20: error: record field 'a' is given twice\n"
		    "BEGIN { $r = (a=1, a=2); }\n"
		    "                   ^\n");
	check_error("BEGIN { $x = }",
		    "test.bt:1:14: error: syntax error: unexpected '}', "
		    "expecting an expression\n"
		    "BEGIN { $x = }\n"
		    "             ^\n");
	check_error("BEGIN { $x = 1 }}",
		    "test.bt:1:17: error: syntax error: unexpected '}', "
		    "expecting end of input, attach point, 'import', 'let', 'macro', 'struct', 'config', 'union' or 'enum'\n"
		    "BEGIN { $x = 1 }}\n"
		    "                ^\n");
	check_error("BEGIN { if ($x) { print(1);\n",
		    "test.bt:1:28: error: syntax error: unexpected end of input, "
		    "expecting ';' or '}'\n"
		    "BEGIN { if ($x) { print(1);\n"
		    "                           ^\n");
	check_error("kprobe:f /pid == 1 { }",
		    "test.bt:1:20: error: syntax error: unexpected '{', "
		    "expecting '/'\n"
		    "kprobe:f /pid == 1 { }\n"
		    "                   ^\n");
	check_error("BEGIN",
		    "test.bt:1:6: error: syntax error: unexpected end of input, "
		    "expecting ',', '/' or '{'\n"
		    "BEGIN\n"
		    "     ^\n");
	check_error("{ }",
		    "test.bt:1:1: error: syntax error: unexpected '{', "
		    "expecting end of input, attach point, 'import', 'let', 'macro', 'struct', 'config', 'union' or 'enum'\n"
		    "{ }\n"
		    "^\n");
	check_error("BEGIN { @x[1 = 2] }",
		    "test.bt:1:14: error: syntax error: unexpected '=', "
		    "expecting ',' or ']'\n"
		    "BEGIN { @x[1 = 2] }\n"
		    "             ^\n");
	check_error("BEGIN { $a ? 1 2 }",
		    "test.bt:1:16: error: syntax error: unexpected integer '2', "
		    "expecting ':'\n"
		    "BEGIN { $a ? 1 2 }\n"
		    "               ^\n");
	/* "if $x {" is valid (newer bpftrace); while still takes parentheses */
	check_error("BEGIN { while $x { } }",
		    "test.bt:1:15: error: syntax error: unexpected variable '$x', "
		    "expecting '('\n"
		    "BEGIN { while $x { } }\n"
		    "              ^~\n");
	check_error("BEGIN { x = 1 }",
		    "test.bt:1:9: error: cannot assign to 'x': assign to a $variable or an @map, "
		    "or discard a value with `_ = e;`\n"
		    "BEGIN { x = 1 }\n"
		    "        ^\n");
	check_error("BEGIN { \"a\" \"b\" }",
		    "test.bt:1:13: error: syntax error: unexpected string \"b\", "
		    "expecting ';' or '}'\n"
		    "BEGIN { \"a\" \"b\" }\n"
		    "            ^~~\n");
	check_error("BEGIN { 1 'a' }",
		    "test.bt:1:11: error: syntax error: unexpected character "
		    "literal 'a', expecting ';' or '}'\n"
		    "BEGIN { 1 'a' }\n"
		    "          ^~~\n");
	check_error("struct { int a; }",
		    "test.bt:1:8: error: syntax error: unexpected '{', "
		    "expecting identifier\n"
		    "struct { int a; }\n"
		    "       ^\n");
	check_error("BEGIN { }\n  ,END { }",
		    "test.bt:2:3: error: syntax error: unexpected ',', "
		    "expecting end of input, attach point, 'import', 'let', 'macro', 'struct', 'config', 'union' or 'enum'\n"
		    "  ,END { }\n"
		    "  ^\n");
}

static void test_other_errors(void **state)
{
	check_error("BEGIN { (1 + 2)++; }",
		    "test.bt:1:10: error: the operand of '++' must be a variable "
		    "or a map\n"
		    "BEGIN { (1 + 2)++; }\n"
		    "         ^~~~~\n");
	check_error("BEGIN { --pid }",
		    "test.bt:1:11: error: the operand of '--' must be a variable "
		    "or a map\n"
		    "BEGIN { --pid }\n"
		    "          ^~~\n");
	check_error("BEGIN { (unsigned uint64)1 }",
		    "test.bt:1:10: error: invalid type 'unsigned uint64'\n"
		    "BEGIN { (unsigned uint64)1 }\n"
		    "         ^~~~~~~~~~~~~~~\n");
	/* x[0] is a trailing array of any length, as C's; past the limit: */
	check_error("struct s { char x[2000000]; }",
		    "test.bt:1:19: error: array length of field 'x' must be 0 "
		    "to 1048576\n"
		    "struct s { char x[2000000]; }\n"
		    "                  ^~~~~~~\n");
	check_rejected("BEGIN { (const)1 }", "invalid type 'const'");
	check_rejected("BEGIN { (long long long)1 }", "invalid type");
	check_rejected("BEGIN { (struct a int)1 }", "invalid type 'struct a int'");
	check_rejected("BEGIN { (short long)1 }", "invalid type");
	check_rejected("BEGIN { (char int)1 }", "invalid type");
	check_rejected("BEGIN { (signed unsigned)1 }", "invalid type");
	check_rejected("BEGIN { (void bool)1 }", "invalid type");
	check_rejected("struct s { uint32 int x; }", "invalid type");
	/* lexical errors surface once, through parse_program */
	check_error("BEGIN { printf(\"oops); }",
		    "test.bt:1:16: error: unterminated string literal\n"
		    "BEGIN { printf(\"oops); }\n"
		    "               ^~~~~~~~~\n");
	check_error("BEGIN { $x = 1 # 2 }",
		    "test.bt:1:16: error: invalid character '#'\n"
		    "BEGIN { $x = 1 # 2 }\n"
		    "               ^\n");
	check_rejected("BEGIN { 99999999999999999999 }", "is out of range");
	check_rejected("BEGIN { /* x", "unterminated comment");
}

static void test_bad_inputs_never_crash(void **state)
{
	static const char *bad[] = {
		"/", "//", "/*/", "}", ";", ",", "@", "$", "\"", "'", "#",
		"struct", "struct s", "struct s {", "struct s { int", "BEGIN,",
		"BEGIN /", "BEGIN / 1", "BEGIN /1/", "BEGIN {", "BEGIN { (",
		"BEGIN { (uint32", "BEGIN { sizeof(", "BEGIN { @x[", "BEGIN { f(",
		"BEGIN { $x.", "BEGIN { $x->", "BEGIN { 1 ?", "BEGIN { 1 ? 2 :",
		"BEGIN { if", "BEGIN { if (1)", "BEGIN { while (1) {",
		"BEGIN { unroll", "BEGIN { (1,)", "BEGIN { () }", "a b c",
		"BEGIN { } /", "BEGIN { $x = = 1 }", "BEGIN { += 1 }",
		"#define", "#define X", "#if", "#ifdef", "\xff\xfe", "\t\r\n",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct parsed p;
		parse(&p, bad[i]);
		/* every failure says so exactly once */
		if (p.root)
			assert_int_equal(p.diag.errors, 0);
		else
			assert_int_equal(p.diag.errors, 1);
		parsed_free(&p);
	}
}

static void test_nesting_limits(void **state)
{
	/* deep but sane nesting parses */
	enum { DEPTH = 500, HUGE = 20000 };
	char *src = malloc(HUGE * 2 + 64 > 16000 ? HUGE * 2 + 64 : 16000);
	char *s = src + sprintf(src, "BEGIN { $x = ");
	for (int i = 0; i < DEPTH; i++)
		*s++ = '(';
	*s++ = '1';
	for (int i = 0; i < DEPTH; i++)
		*s++ = ')';
	strcpy(s, " }");
	struct parsed p;
	parse(&p, src);
	assert_non_null(p.root);
	parsed_free(&p);

	/* absurd nesting is an error, not a crash */
	s = src + sprintf(src, "BEGIN { $x = ");
	for (int i = 0; i < HUGE; i++)
		*s++ = '(';
	strcpy(s, "1 }");
	check_rejected(src, "error: nested deeper than 200 levels");

	/* one limit for every pass after the parser: 2,500 casts and 2,000
	 * nested `(1 +` are refused where the tree passes it, not by a stack
	 * overflow in sema or codegen (issue 14) */
	s = src + sprintf(src, "BEGIN { $x = ");
	for (int i = 0; i < 2500; i++)
		s += sprintf(s, "(uint8)");
	strcpy(s, "1; }");
	check_rejected(src, "1:1393: error: nested deeper than 200 levels");
	s = src + sprintf(src, "BEGIN { $x = ");
	for (int i = 0; i < 2000; i++)
		s += sprintf(s, "(1 + ");
	*s++ = '1';
	for (int i = 0; i < 2000; i++)
		*s++ = ')';
	strcpy(s, "; }");
	check_rejected(src, "error: nested deeper than 200 levels");
	s = src + sprintf(src, "BEGIN { ");
	for (int i = 0; i < 1000; i++)
		s += sprintf(s, "if (1) { ");
	for (int i = 0; i < 1000; i++)
		*s++ = '}';
	strcpy(s, " }");
	check_rejected(src, "error: nested deeper than 200 levels");

	/* so is an absurdly long expression: every later pass recurses */
	s = src + sprintf(src, "BEGIN { $x = 1");
	for (int i = 0; i < 5000; i++)
		s += sprintf(s, "+1");
	strcpy(s, "; }");
	check_rejected(src, "error: expression too large (more than 4096 "
			    "operands and operators)");
	s = src + sprintf(src, "BEGIN /1");
	for (int i = 0; i < 5000; i++)
		s += sprintf(s, "[0]");
	strcpy(s, "/ { }");
	check_rejected(src, "error: expression too large");
	/* ... but the count is per statement */
	s = src + sprintf(src, "BEGIN { ");
	for (int i = 0; i < 1000; i++)
		s += sprintf(s, "$x = 1 + 2 + 3; ");
	strcpy(s, "}");
	parse(&p, src);
	assert_non_null(p.root);
	parsed_free(&p);

	/* long flat lists are fine (left recursion) */
	size_t n = 50000;
	char *big = malloc(n * 8 + 64);
	s = big + sprintf(big, "BEGIN { ");
	for (size_t i = 0; i < n; i++)
		s += sprintf(s, "@x++; ");
	strcpy(s, "}");
	parse(&p, big);
	assert_non_null(p.root);
	int count = 0;
	for (const struct ast_node *st = p.root->program.items->probe.body->block.stmts;
	     st; st = st->next)
		count++;
	assert_int_equal(count, (int)n);
	parsed_free(&p);
	free(big);
	free(src);
}

/* ---- ast.c: dump, names, types ---------------------------------------------------- */

static void test_dump(void **state)
{
	struct parsed p;
	parse(&p, "struct s { char name[16]; struct s *next; unsigned long v; }\n"
		  "BEGIN, k:f /pid == 1/ {\n"
		  "  @lat[comm, $1] = hist((nsecs - $t) / 1000);\n"
		  "  $c = 'x'; $s = \"a\\tb\"; @n -= 1; $p = (struct s *)arg0;\n"
		  "  if ($p->next.v) { $y = -$x++ } else { unroll(2) { } }\n"
		  "  while (!$d) { break } $z = sizeof(uint8) ? $q.0 : *$r[1];\n"
		  "  print(@n, 10); $t = (1, $#); return\n"
		  "}\n");
	assert_non_null(p.root);
	char *got = dump_str(p.root);
	assert_string_equal(got,
		"program\n"
		"  struct_def s\n"
		"    member char name[16]\n"
		"    member struct s *next\n"
		"    member unsigned long v\n"
		"  probe #0 BEGIN, k:f\n"
		"    binary ==\n"
		"      ident pid\n"
		"      int 1\n"
		"    block\n"
		"      assign =\n"
		"        map @lat\n"
		"          ident comm\n"
		"          positional $1\n"
		"        call hist\n"
		"          binary /\n"
		"            binary -\n"
		"              ident nsecs\n"
		"              var $t\n"
		"            int 1000\n"
		"      assign =\n"
		"        var $c\n"
		"        int 'x'\n"
		"      assign =\n"
		"        var $s\n"
		"        string \"a\\tb\"\n"
		"      assign -=\n"
		"        map @n\n"
		"        int 1\n"
		"      assign =\n"
		"        var $p\n"
		"        cast (struct s *)\n"
		"          ident arg0\n"
		"      if\n"
		"        field .v\n"
		"          field ->next\n"
		"            var $p\n"
		"        block\n"
		"          assign =\n"
		"            var $y\n"
		"            unary -\n"
		"              incdec ++ post\n"
		"                var $x\n"
		"        block\n"
		"          unroll\n"
		"            int 2\n"
		"            block\n"
		"      while\n"
		"        unary !\n"
		"          var $d\n"
		"        block\n"
		"          break\n"
		"      assign =\n"
		"        var $z\n"
		"        ternary\n"
		"          sizeof (uint8)\n"
		"          field .0\n"
		"            var $q\n"
		"          unary *\n"
		"            index\n"
		"              var $r\n"
		"              int 1\n"
		"      expr_stmt\n"
		"        call print\n"
		"          map @n\n"
		"          int 10\n"
		"      assign =\n"
		"        var $t\n"
		"        tuple\n"
		"          int 1\n"
		"          positional $#\n"
		"      return\n");
	free(got);
	parsed_free(&p);
}

static void test_dump_types(void **state)
{
	/* once sema typed a node, the dump shows the type */
	struct parsed p;
	parse(&p, "BEGIN { @h = hist(arg0 / 2) }");
	assert_non_null(p.root);
	struct ast_node *as = p.root->program.items->probe.body->block.stmts;
	struct ast_node *call = as->assign.value;
	call->type.kind = TY_HIST;
	call->call.args->type = (struct type){ .kind = TY_INT, .size = 8 };
	char *got = dump_str(call);
	assert_string_equal(got, "call hist : hist\n"
				 "  binary / : uint64\n"
				 "    ident arg0\n"
				 "    int 2\n");
	free(got);
	parsed_free(&p);
}

static void test_type_str(void **state)
{
	struct arena *a = arena_new();
	struct type u64 = { .kind = TY_INT, .size = 8 };
	struct type i32 = { .kind = TY_INT, .size = 4, .is_signed = true };
	struct type s16 = { .kind = TY_STR, .size = 16 };
	assert_string_equal(type_str(a, &u64), "uint64");
	assert_string_equal(type_str(a, &i32), "int32");
	assert_string_equal(type_str(a, &s16), "string[16]");
	struct type_field tf[2] = { { .type = i32 }, { .type = s16 } };
	struct type tup = { .kind = TY_TUPLE, .fields = tf, .nfields = 2 };
	assert_string_equal(type_str(a, &tup), "(int32, string[16])");
	struct type st = { .kind = TY_STRUCT, .sname = "task_struct" };
	struct type p1 = { .kind = TY_PTR, .size = 8, .elem = &st };
	struct type p2 = { .kind = TY_PTR, .size = 8, .elem = &p1 };
	assert_string_equal(type_str(a, &p1), "struct task_struct *");
	assert_string_equal(type_str(a, &p2), "struct task_struct **");
	struct type u8 = { .kind = TY_INT, .size = 1 };
	struct type arr = { .kind = TY_ARRAY, .elem = &u8, .count = 4 };
	assert_string_equal(type_str(a, &arr), "uint8[4]");
	struct type vp = { .kind = TY_PTR, .size = 8 };
	assert_string_equal(type_str(a, &vp), "void *");
	struct type buf = { .kind = TY_BUF, .size = 32 };
	assert_string_equal(type_str(a, &buf), "buffer[32]");
	static const struct { enum type_kind k; const char *s; } simple[] = {
		{ TY_NONE, "none" }, { TY_VOID, "void" }, { TY_COUNT, "count" },
		{ TY_SUM, "sum" }, { TY_AVG, "avg" }, { TY_MIN, "min" },
		{ TY_MAX, "max" }, { TY_STATS, "stats" }, { TY_HIST, "hist" },
		{ TY_LHIST, "lhist" }, { TY_USYM, "usym" }, { TY_KSYM, "ksym" },
		{ TY_USTACK, "ustack" }, { TY_KSTACK, "kstack" },
		{ TY_INET, "inet" }, { TY_TIMESTAMP, "timestamp" },
		{ TY_USERNAME, "username" }, { TY_CGROUP_PATH, "cgroup_path" },
		{ TY_CONTAINER, "container" }, { TY_PROBE, "probe" },
		{ TY_ERROR, "error" },
	};
	for (size_t i = 0; i < sizeof(simple) / sizeof(simple[0]); i++) {
		struct type t = { .kind = simple[i].k };
		assert_string_equal(type_str(a, &t), simple[i].s);
	}
	/* a cyclic type graph does not hang */
	struct type loop = { .kind = TY_PTR };
	loop.elem = &loop;
	assert_non_null(strstr(type_str(a, &loop), "..."));
	arena_free(a);
}

static void test_names_and_ops(void **state)
{
	for (int k = N_INT; k <= N_PROGRAM; k++)
		assert_string_not_equal(ast_kind_name((enum node_kind)k), "?");
	assert_string_equal(ast_kind_name(N_EXPR_STMT), "expr_stmt");
	assert_string_equal(ast_kind_name(N_STRUCT_DEF), "struct_def");
	static const char *ops[] = {
		"", "+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>", "&&",
		"||", "==", "!=", "<", "<=", ">", ">=", "-", "!", "~", "*", "&",
	};
	for (int o = OP_NONE; o <= OP_ADDR; o++)
		assert_string_equal(ast_op_text((enum ast_op)o), ops[o]);

	struct arena *a = arena_new();
	struct src_loc l = { "f", 2, 3, 2, 5 };
	struct ast_node *n = ast_new(a, N_VAR, l);
	assert_int_equal(n->kind, N_VAR);
	assert_int_equal(n->loc.col, 3);
	assert_int_equal(n->type.kind, TY_NONE);
	assert_null(n->next);
	arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_long_line_error),
		cmocka_unit_test(test_probes),
		cmocka_unit_test(test_struct_defs),
		cmocka_unit_test(test_primaries),
		cmocka_unit_test(test_precedence),
		cmocka_unit_test(test_ternary),
		cmocka_unit_test(test_unary),
		cmocka_unit_test(test_incdec),
		cmocka_unit_test(test_casts),
		cmocka_unit_test(test_postfix),
		cmocka_unit_test(test_literal_values),
		cmocka_unit_test(test_statements),
		cmocka_unit_test(test_compound_assign),
		cmocka_unit_test(test_control_flow),
		cmocka_unit_test(test_config_block),
		cmocka_unit_test(test_defines),
		cmocka_unit_test(test_locations),
		cmocka_unit_test(test_syntax_errors),
		cmocka_unit_test(test_other_errors),
		cmocka_unit_test(test_bad_inputs_never_crash),
		cmocka_unit_test(test_nesting_limits),
		cmocka_unit_test(test_dump),
		cmocka_unit_test(test_dump_types),
		cmocka_unit_test(test_type_str),
		cmocka_unit_test(test_names_and_ops),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
