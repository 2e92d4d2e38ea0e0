/*
 * fuzz_frontend.c - the front end under a fuzzer: bytes in, no crash out.
 *
 * LLVMFuzzerTestOneInput() takes any bytes as a program (up to its first
 * NUL, as a C string), parses it with a fresh arena and diag, dumps the
 * tree when there is one, and frees everything.  Besides the sanitizers it
 * checks the parser's contract and aborts when it is broken:
 *   - a NULL result comes with exactly one error message, a tree with none;
 *   - every node's location lies inside the source and ends after it starts.
 *   - sema either accepts with no message or rejects with one, and codegen
 *     compiles whatever sema accepted, unless it passes a BPF limit only
 *     codegen sees (-E2BIG, the stack), which it reports with a location.
 * `make fuzz` links it with libFuzzer (clang-14); there codegen runs only
 * with FUZZ_CODEGEN=1 in the environment, as LLVM's backend makes each
 * input about a hundred times slower.  tests/fuzz/driver.c supplies main()
 * for `make fuzz-smoke` and feeds it the corpus and deterministic
 * mutations of it, codegen included.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/diag.h"
#include "parser/ast.h"
#include "parser/parser.h"
#include "codegen/codegen.h"
#include "sema/sema.h"
#include "stdlib/stdlib.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct fuzz_src {
	int lines;
	int longest;	/* longest line, in bytes */
};

/* FUZZ_CODEGEN=0 leaves codegen out (the default of `make fuzz`) */
static bool fuzz_codegen(void)
{
	static int on = -1;
	if (on < 0) {
		const char *e = getenv("FUZZ_CODEGEN");
		on = !e || strcmp(e, "0") != 0;
	}
	return on;
}

static void fuzz_fail(const char *what, const struct ast_node *n)
{
	fprintf(stderr, "fuzz_frontend: %s (node %s at %d:%d-%d:%d)\n", what,
		n ? ast_kind_name(n->kind) : "-", n ? n->loc.line : 0,
		n ? n->loc.col : 0, n ? n->loc.end_line : 0,
		n ? n->loc.end_col : 0);
	abort();
}

static void fuzz_check_loc(const struct fuzz_src *s, struct src_loc l,
			   const struct ast_node *n)
{
	if (l.line < 1 || l.col < 1 || l.end_line < l.line ||
	    (l.end_line == l.line && l.end_col <= l.col) ||
	    l.end_line > s->lines || l.col > s->longest + 2 ||
	    l.end_col > s->longest + 2)
		fuzz_fail("location outside the source", n);
}

static void fuzz_walk(const struct fuzz_src *s, const struct ast_node *n,
		      int depth);

static void fuzz_walk_list(const struct fuzz_src *s, const struct ast_node *n,
			   int depth)
{
	for (; n; n = n->next)
		fuzz_walk(s, n, depth);
}

static void fuzz_walk(const struct fuzz_src *s, const struct ast_node *n,
		      int depth)
{
	if (!n)
		return;
	if (n->kind != N_PROGRAM)
		fuzz_check_loc(s, n->loc, n);
	int d = depth + 1;
	switch (n->kind) {
	case N_INT: case N_STR: case N_IDENT: case N_VAR: case N_POSITIONAL:
	case N_RETURN: case N_BREAK: case N_CONTINUE:
		break;
	case N_MAP: fuzz_walk_list(s, n->map.keys, d); break;
	case N_CALL: fuzz_walk_list(s, n->call.args, d); break;
	case N_BINARY:
		fuzz_walk(s, n->bin.lhs, d);
		fuzz_walk(s, n->bin.rhs, d);
		break;
	case N_UNARY: fuzz_walk(s, n->un.operand, d); break;
	case N_INCDEC:
		if (n->incdec.target->kind != N_VAR &&
		    n->incdec.target->kind != N_MAP)
			fuzz_fail("++/-- on something else than $x or @m", n);
		fuzz_walk(s, n->incdec.target, d);
		break;
	case N_TERNARY:
		fuzz_walk(s, n->tern.cond, d);
		fuzz_walk(s, n->tern.then, d);
		fuzz_walk(s, n->tern.els, d);
		break;
	case N_FIELD: fuzz_walk(s, n->field.base, d); break;
	case N_INDEX:
		fuzz_walk(s, n->index.base, d);
		fuzz_walk(s, n->index.index, d);
		break;
	case N_CAST: fuzz_walk(s, n->cast.operand, d); break;
	case N_SIZEOF: fuzz_walk(s, n->size_of.expr, d); break;
	case N_TUPLE:
		/* a record may have one field: (a=1) */
		if (n->tuple.nelems < (n->tuple.names ? 1 : 2))
			fuzz_fail("tuple of fewer than two", n);
		fuzz_walk_list(s, n->tuple.elems, d);
		break;
	case N_EXPR_STMT: fuzz_walk(s, n->expr_stmt.expr, d); break;
	case N_ASSIGN:
		fuzz_walk(s, n->assign.target, d);
		fuzz_walk(s, n->assign.value, d);
		break;
	case N_IF:
		fuzz_walk(s, n->if_.cond, d);
		fuzz_walk(s, n->if_.then, d);
		fuzz_walk(s, n->if_.els, d);
		break;
	case N_WHILE:
		fuzz_walk(s, n->while_.cond, d);
		fuzz_walk(s, n->while_.body, d);
		break;
	case N_UNROLL:
		fuzz_walk(s, n->unroll.count, d);
		fuzz_walk(s, n->unroll.body, d);
		break;
	case N_FOR:
		if (!n->for_.map == !n->for_.start || !n->for_.start != !n->for_.end)
			fuzz_fail("for over neither a map nor a range", n);
		fuzz_walk(s, n->for_.var, d);
		fuzz_walk(s, n->for_.map, d);
		fuzz_walk(s, n->for_.start, d);
		fuzz_walk(s, n->for_.end, d);
		fuzz_walk(s, n->for_.body, d);
		break;
	case N_MACRO:
		fuzz_fail("a macro definition left after expansion", n);
		break;
	case N_BLOCK:
		fuzz_walk_list(s, n->block.stmts, d);
		fuzz_walk(s, n->block.value, d);
		break;
	case N_PROBE:
		if (!n->probe.attach || !n->probe.body)
			fuzz_fail("probe without attach point or body", n);
		for (const struct ast_attach *at = n->probe.attach; at;
		     at = at->next)
			fuzz_check_loc(s, at->loc, n);
		fuzz_walk(s, n->probe.pred, d);
		fuzz_walk(s, n->probe.body, d);
		break;
	case N_STRUCT_DEF:
		for (const struct ast_struct_field *f = n->sdef.fields; f;
		     f = f->next)
			fuzz_check_loc(s, f->loc, n);
		break;
	case N_PROGRAM:
		for (const struct ast_config *c = n->program.config; c; c = c->next) {
			fuzz_check_loc(s, c->loc, n);
			fuzz_check_loc(s, c->value_loc, n);
		}
		for (const struct ast_map_decl *m = n->program.decls; m; m = m->next) {
			fuzz_check_loc(s, m->loc, n);
			fuzz_check_loc(s, m->type_loc, n);
			fuzz_check_loc(s, m->entries_loc, n);
		}
		fuzz_walk_list(s, n->program.items, d);
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *src = malloc(size + 1);
	if (!src)
		return 0;
	memcpy(src, data, size);
	src[size] = '\0';

	struct fuzz_src s = { .lines = 1 };
	int len = 0;
	for (const char *p = src; *p; p++) {
		if (*p == '\n') {
			s.lines++;
			len = 0;
		} else if (++len > s.longest) {
			s.longest = len;
		}
	}

	char *msgs = NULL;
	size_t msgs_size = 0;
	FILE *out = open_memstream(&msgs, &msgs_size);
	if (!out) {
		free(src);
		return 0;
	}
	struct arena *a = arena_new();
	struct diag d;
	diag_init(&d, "fuzz.bt", src, out);
	struct ast_node *root = parse_program(a, &d, src);
	if (!root && d.errors != 1)
		fuzz_fail(d.errors ? "more than one error message"
				   : "rejected without a message", NULL);
	if (root && d.errors)
		fuzz_fail("a tree despite an error", NULL);
	if (root) {
		fuzz_walk(&s, root, 0);
		ast_dump(out, root);
		/* the rest of the front end: sema must either accept (then codegen
		 * must succeed: a program sema accepts is valid IR) or explain */
		int before = d.errors;
		/* $1 a number, $2 text, $3 past 64 bits (an error when used as
		 * a number) */
		static const char *pos[] = {"1", "bash", "18446744073709551616"};
		struct sema_opts so = {.builtins = stdlib_find, .pos_args = pos, .npos_args = 3};
		struct sema_result *r = sema_run(a, &d, root, &so);
		if (!r && d.errors == before)
			fuzz_fail("sema rejected without a message", NULL);
		if (r && d.errors != before)
			fuzz_fail("sema accepted despite an error", NULL);
		if (r && fuzz_codegen()) {
			struct cg_opts co = {.out = out, .src = src};
			struct cg_object obj = {0};
			/* -E2BIG: a BPF limit only codegen sees (the 512-byte
			 * stack), reported with a location like any user error */
			int rc = cg_compile(a, r, &co, &obj);
			if (rc && rc != -E2BIG)
				fuzz_fail("codegen failed on a program sema accepted", NULL);
			free(obj.elf);
		}
	}
	arena_free(a);
	fclose(out);
	free(msgs);
	free(src);
	return 0;
}
