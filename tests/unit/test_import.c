/*
 * test_import.c - `import "PATH";` in the front end: parser/import.c (what
 * is read, in what order, what is refused, where an error is located),
 * diag.c's #line mapping, and codegen/cimport.c's signatures of imported
 * C (sonde's embedded stdlib module, and a file clang compiles when a
 * clang is on the machine).
 *
 * Files live in a private directory made per test (mkdtemp: mode 0700, as
 * an import from a directory anyone may write is refused).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "codegen/program.h"
#include "common/arena.h"
#include "common/diag.h"
#include "parser/ast.h"
#include "parser/parser.h"
#include "stdlib/stdlib.h"

/* ---- harness --------------------------------------------------------------- */

static char dir[64];

static int dir_setup(void **state)
{
	snprintf(dir, sizeof(dir), "/tmp/sonde-import-XXXXXX");
	return mkdtemp(dir) ? 0 : -1;
}

static int dir_teardown(void **state)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

/* write dir/name (making its directory) */
static void put(const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	char *slash = strrchr(path, '/');
	*slash = '\0';
	mkdir(path, 0755);
	*slash = '/';
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

struct parsed {
	struct arena *arena;
	struct diag diag;
	FILE *out;
	char *msgs;
	size_t msgs_size;
	struct ast_node *root;
	char file[512];
};

/* parse src as the script dir/main.bt */
static void parse(struct parsed *p, const char *src)
{
	memset(p, 0, sizeof(*p));
	p->out = open_memstream(&p->msgs, &p->msgs_size);
	assert_non_null(p->out);
	p->arena = arena_new();
	snprintf(p->file, sizeof(p->file), "%s/main.bt", dir);
	put("main.bt", src);
	diag_init(&p->diag, p->file, src, p->out);
	p->root = parse_program(p->arena, &p->diag, src);
	fflush(p->out);
}

static void parsed_free(struct parsed *p)
{
	fclose(p->out);
	free(p->msgs);
	arena_free(p->arena);
}

/* the attach points of the program's probes, in order, one a line */
static char *probes_of(struct parsed *p)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	for (const struct ast_node *it = p->root->program.items; it; it = it->next)
		if (it->kind == N_PROBE)
			fprintf(f, "%s\n", it->probe.attach->raw);
		else if (it->kind == N_STRUCT_DEF)
			fprintf(f, "struct %s\n", it->sdef.name);
	fclose(f);
	return s;
}

static void expect_probes(const char *src, const char *want)
{
	struct parsed p;
	parse(&p, src);
	if (!p.root)
		fail_msg("parse failed: %s", p.msgs);
	char *got = probes_of(&p);
	assert_string_equal(got, want);
	free(got);
	parsed_free(&p);
}

/* refused: the messages hold want (%s in it: the test's directory) */
static void expect_error(const char *src, const char *want_fmt)
{
	struct parsed p;
	parse(&p, src);
	char want[1024];
	snprintf(want, sizeof(want), want_fmt, dir, dir, dir);
	assert_null(p.root);
	if (!strstr(p.msgs, want))
		fail_msg("got '%s', want '%s'", p.msgs, want);
	parsed_free(&p);
}

/* ---- what is read --------------------------------------------------------------- */

/* a script's probes and macros join the importer's, the imported first;
 * the importer's own keep their lines */
static void test_script(void **state)
{
	put("helpers.bt", "macro two() { 2 }\nBEGIN { print(1) }\n");
	struct parsed p;
	parse(&p, "import \"helpers.bt\";\nEND { print(two()) }\n");
	assert_non_null(p.root);
	char *got = probes_of(&p);
	assert_string_equal(got, "BEGIN\nEND\n");
	free(got);
	const struct ast_node *end = p.root->program.items->next;
	/* the macro expanded into END, END still on its own line 2 */
	assert_int_not_equal(end->probe.body->block.stmts->expr_stmt.expr->call.args->kind, N_CALL);
	/* its line counts the spliced text; diag names the script's line 2 */
	diag_error(&p.diag, end->loc, "here");
	fflush(p.out);
	char want[600];
	snprintf(want, sizeof(want), "%s:2:1: error: here\nEND { print(two()) }\n^", p.file);
	if (!strstr(p.msgs, want))
		fail_msg("got '%s', want '%s'", p.msgs, want);
	assert_true(p.root->program.newer);
	parsed_free(&p);
}

/* nested and repeated imports: each file once, a file's imports first */
static void test_nested_once(void **state)
{
	put("sub/a.bt", "import \"b.bt\";\nimport \"../c.bt\";\nt:a:a { }\n");
	put("sub/b.bt", "t:b:b { }\n");
	put("c.bt", "t:c:c { }\n");
	expect_probes("import \"sub/a.bt\";\nimport \"c.bt\";\nimport \"sub/b.bt\";\nBEGIN { }\n",
		      "t:b:b\nt:c:c\nt:a:a\nBEGIN\n");
}

/* a directory: its .bt, .h and .bpf.c files in name order, not its
 * subdirectories nor other files */
static void test_directory(void **state)
{
	put("lib/z.bt", "t:z:z { }\n");
	put("lib/a.bt", "t:a:a { }\n");
	put("lib/t.h", "struct lt { int x; };\n");
	put("lib/f.bpf.c", "int __f(void) { return 1; }\n");
	put("lib/notes.txt", "not sonde\n");
	put("lib/deeper/d.bt", "t:d:d { }\n");
	struct parsed p;
	parse(&p, "import \"lib\";\nBEGIN { }\n");
	assert_non_null(p.root);
	char *got = probes_of(&p);
	assert_string_equal(got, "t:a:a\nstruct lt\nt:z:z\nBEGIN\n");
	free(got);
	const struct ast_cimport *ci = p.root->program.cimports;
	assert_non_null(ci);
	assert_null(ci->next);
	char want[512];
	snprintf(want, sizeof(want), "%s/lib/f.bpf.c", dir);
	assert_string_equal(ci->path, want);
	assert_null(ci->module);
	parsed_free(&p);
}

/* a header brings its struct definitions and #defines */
static void test_header(void **state)
{
	put("types.h", "#ifndef T_H\n#define T_H\n#define SIZE 7\nstruct pt { int x; int y; };\n"
		       "#endif\n");
	struct parsed p;
	parse(&p, "import \"types.h\";\nBEGIN { @ = SIZE; }\n");
	assert_non_null(p.root);
	char *got = probes_of(&p);
	assert_string_equal(got, "struct pt\nBEGIN\n");
	free(got);
	const struct ast_node *b = p.root->program.items->next;
	assert_int_equal(b->probe.body->block.stmts->assign.value->i.value, 7);
	parsed_free(&p);
}

/* "stdlib/..." found nowhere on disk is a module of sonde's own */
static void test_stdlib_module(void **state)
{
	struct parsed p;
	parse(&p, "import \"stdlib/test\";\nBEGIN { }\n");
	assert_non_null(p.root);
	const struct ast_cimport *ci = p.root->program.cimports;
	assert_non_null(ci);
	assert_string_equal(ci->module, "stdlib/test");
	assert_null(ci->path);
	/* located at the path, in the script */
	diag_error(&p.diag, ci->loc, "here");
	fflush(p.out);
	char want[600];
	snprintf(want, sizeof(want), "%s:1:8: error: here\nimport \"stdlib/test\";\n       ^~~~~~~~~~~~~\n",
		 p.file);
	assert_string_equal(p.msgs, want);
	parsed_free(&p);
}

/* ---- what is refused ------------------------------------------------------------ */

static void test_errors(void **state)
{
	expect_error("BEGIN { }\nimport \"x.bt\";\n",
		     "%s/main.bt:2:1: error: import \"x.bt\" comes after a probe: imports go after "
		     "the C definitions and before the probes, macros and map declarations\n");
	expect_error("macro m() { 1 }\nimport \"x.bt\";\nBEGIN { }\n", "comes after a macro");
	expect_error("import 0;\nBEGIN { }\n", "main.bt:1:8: error: syntax error: unexpected "
		     "integer '0', expecting string\n");
	expect_error("BEGIN { import \"x.bt\"; }\n", "main.bt:1:9: error: import is at the top level "
		     "only, before the probes: sonde has no imports inside a probe's body\n");
	expect_error("import \"nothere.bt\";\nBEGIN { }\n",
		     "%s/main.bt:1:8: error: import \"nothere.bt\": no such file or directory: "
		     "%s/nothere.bt (an import is looked for beside the script that imports it; "
		     "for -e and stdin, in the current directory)\n");
	put("notes.txt", "x\n");
	expect_error("import \"notes.txt\";\nBEGIN { }\n",
		     "import \"notes.txt\": unknown kind of file 'notes.txt': sonde imports .bt "
		     "scripts, .h headers, .bpf.c BPF C and directories of them");
	put("cfg.bt", "config = { max_map_keys = 10 }\nt:x:y { }\n");
	expect_error("import \"cfg.bt\";\nBEGIN { }\n",
		     "%s/cfg.bt:1:12: error: an imported script has no config block");
	put("probe.h", "struct ok { int a; };\nBEGIN { }\n");
	expect_error("import \"probe.h\";\nBEGIN { }\n", "a header (.h) brings C definitions "
		     "only, and %s/probe.h has a probe");
}

/* a cycle names the chain; the script itself counts */
static void test_cycle(void **state)
{
	put("one.bt", "import \"two.bt\";\nt:1:1 { }\n");
	put("two.bt", "import \"one.bt\";\nt:2:2 { }\n");
	expect_error("import \"one.bt\";\nBEGIN { }\n",
		     "%s/two.bt:1:8: error: import \"one.bt\": an import cycle: %s/one.bt imports "
		     "%s/two.bt, which imports");
	put("back.bt", "import \"main.bt\";\nt:1:1 { }\n");
	expect_error("import \"back.bt\";\nBEGIN { }\n", "an import cycle: ");
}

/* a file or directory anyone may write, or in a directory anyone may
 * write, is refused with bpftrace's words */
static void test_world_writable(void **state)
{
	put("ww/x.bt", "t:x:x { }\n");
	char path[512];
	snprintf(path, sizeof(path), "%s/ww", dir);
	assert_int_equal(chmod(path, 0777), 0);
	expect_error("import \"ww/x.bt\";\nBEGIN { }\n",
		     "cowardly refusing to import from a directory with global write permissions: "
		     "%s/ww/x.bt");
	expect_error("import \"ww\";\nBEGIN { }\n", "global write permissions: %s/ww (");
	assert_int_equal(chmod(path, 0755), 0);
	expect_probes("import \"ww\";\nBEGIN { }\n", "t:x:x\nBEGIN\n");
}

/* an error in an imported file names that file and its line: first
 * parse (syntax), then the spliced text through the #line markers */
static void test_located(void **state)
{
	put("syn.bt", "BEGIN {\n  print(1 }\n");
	expect_error("import \"syn.bt\";\nBEGIN { }\n", "%s/syn.bt:2:11: error: syntax error");

	/* diag: a location after a marker is that file's */
	char *out = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&out, &n);
	const char *text = "import \"x\";\n#line 1 \"other.bt\"\nfirst\nsecond line\n"
			   "#line 1 \"main.bt\"\n           BEGIN\n";
	struct diag d;
	diag_init(&d, "main.bt", text, f);
	diag_error(&d, (struct src_loc){.line = 4, .col = 1, .end_line = 4, .end_col = 7}, "here");
	diag_error(&d, (struct src_loc){.line = 6, .col = 12, .end_line = 6, .end_col = 17}, "there");
	diag_error(&d, (struct src_loc){.line = 1, .col = 1, .end_line = 1, .end_col = 7}, "top");
	fclose(f);
	assert_string_equal(out, "other.bt:2:1: error: here\nsecond line\n^~~~~~\n"
				 "main.bt:1:12: error: there\n           BEGIN\n           ^~~~~\n"
				 "main.bt:1:1: error: top\nimport \"x\";\n^~~~~~\n");
	free(out);
}

/* ---- imported C: signatures ----------------------------------------------------- */

static const struct cg_cfunc *find_func(const struct cg_cimports *ci, const char *name)
{
	for (int i = 0; i < ci->nfuncs; i++)
		if (!strcmp(ci->funcs[i].name, name))
			return &ci->funcs[i];
	return NULL;
}

/* sonde's module stdlib/test: embedded bitcode, no clang needed */
static void test_module_signature(void **state)
{
	struct parsed p;
	parse(&p, "import \"stdlib/test\";\nBEGIN { }\n");
	assert_non_null(p.root);
	struct cg_cmodule mods[STDLIB_MAX_CMODULES];
	int nm = stdlib_cmodules(mods, STDLIB_MAX_CMODULES);
	assert_true(nm >= 1);
	struct cg_cimports ci;
	assert_int_equal(cg_cimport_load(p.arena, &p.diag, p.root, mods, nm, &ci), 0);
	const struct cg_cfunc *f = find_func(&ci, "__always_true");
	assert_non_null(f);
	assert_int_equal(f->nparams, 0);
	assert_int_equal(f->ret.bits, 32);
	assert_true(f->ret.is_signed);
	assert_null(f->unsupported);
	assert_int_equal(ci.n, 1);
	parsed_free(&p);

	parse(&p, "import \"stdlib/nope\";\nBEGIN { }\n");
	assert_non_null(p.root);
	assert_int_equal(cg_cimport_load(p.arena, &p.diag, p.root, mods, nm, &ci), -1);
	fflush(p.out);
	if (!strstr(p.msgs, "sonde's stdlib has no module of that name (it has: stdlib/test)"))
		fail_msg("got '%s'", p.msgs);
	parsed_free(&p);
}

/* a file clang compiles: integer widths and signedness through typedefs,
 * pointers, void, and what the script cannot pass */
static void test_c_signatures(void **state)
{
	if (system("command -v clang-14 >/dev/null 2>&1 || command -v clang >/dev/null 2>&1")) {
		fprintf(stderr, "test_c_signatures: skipped: no clang-14 or clang in PATH (make deps "
			"installs clang-14)\n");
		skip();
		return;
	}
	put("sig.bpf.c", "typedef unsigned int u32;\n"
			 "int __add_one(int val) { return 1 + val; }\n"
			 "u32 __u(const u32 x) { return x; }\n"
			 "unsigned long long __p(const char *s, unsigned char c) { return s[0] + c; }\n"
			 "void __v(long x) { }\n"
			 "_Bool __b(void) { return 1; }\n"
			 "struct pt { int x, y; };\n"
			 "int __s(struct pt p) { return p.x; }\n"
			 "static int hidden(int x) { return x; }\n"
			 "int __h(int x) { return hidden(x); }\n"
			 "int __va(int n, ...) { return n; }\n");
	struct parsed p;
	parse(&p, "import \"sig.bpf.c\";\nBEGIN { }\n");
	assert_non_null(p.root);
	struct cg_cimports ci;
	int rc = cg_cimport_load(p.arena, &p.diag, p.root, NULL, 0, &ci);
	fflush(p.out);
	if (rc)
		fail_msg("load failed: %s", p.msgs);
	const struct cg_cfunc *f = find_func(&ci, "__add_one");
	assert_non_null(f);
	assert_int_equal(f->nparams, 1);
	assert_int_equal(f->params[0].bits, 32);
	assert_true(f->params[0].is_signed);
	assert_true(f->ret.is_signed);
	f = find_func(&ci, "__u");
	assert_non_null(f);
	assert_false(f->ret.is_signed);
	assert_false(f->params[0].is_signed);
	f = find_func(&ci, "__p");
	assert_non_null(f);
	assert_true(f->params[0].is_ptr);
	assert_int_equal(f->params[1].bits, 8);
	assert_false(f->params[1].is_signed);
	assert_int_equal(f->ret.bits, 64);
	assert_false(f->ret.is_signed);
	f = find_func(&ci, "__v");
	assert_non_null(f);
	assert_int_equal(f->ret.bits, 0);
	f = find_func(&ci, "__b");
	assert_non_null(f);
	assert_false(f->ret.is_signed);
	f = find_func(&ci, "__s");
	assert_non_null(f);
	assert_non_null(f->unsupported);
	assert_string_equal(f->unsupported, "its argument 1 is 'pt' (a struct, union or array by "
					    "value)");
	assert_null(find_func(&ci, "hidden"));	/* static: not the script's */
	f = find_func(&ci, "__va");
	assert_non_null(f);
	assert_string_equal(f->unsupported, "it takes a variable number of arguments");
	assert_non_null(find_func(&ci, "__h"));
	parsed_free(&p);

	put("broken.bpf.c", "int f( {\n");
	parse(&p, "import \"broken.bpf.c\";\nBEGIN { }\n");
	assert_non_null(p.root);
	int saved = dup(2), null = open("/dev/null", 1);	/* clang's own messages */
	dup2(null, 2);
	rc = cg_cimport_load(p.arena, &p.diag, p.root, NULL, 0, &ci);
	dup2(saved, 2);
	close(saved);
	close(null);
	fflush(p.out);
	assert_int_equal(rc, -1);
	if (!strstr(p.msgs, "could not compile it (its messages are above)"))
		fail_msg("got '%s'", p.msgs);
	parsed_free(&p);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_script, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_nested_once, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_directory, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_header, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_stdlib_module, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_errors, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_cycle, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_world_writable, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_located, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_module_signature, dir_setup, dir_teardown),
		cmocka_unit_test_setup_teardown(test_c_signatures, dir_setup, dir_teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
