/*
 * test_dwarf.c - host/dwarf.c: a binary's functions and types from its
 * DWARF, through libdw.
 *
 * The fixture is tests/workloads/dwarf_args.c, built with gcc -g (and once
 * without) into a temporary directory: -lv's type names, the type graph
 * (a struct that points to itself is one node, typedefs looked through,
 * bitfields, an anonymous union, a 2-D array as arrays of arrays, enums),
 * structs by name, and the errors for a file without debug information and
 * for one that is not there.  Then what finds DWARF elsewhere: split DWARF
 * in a .dwo file and in a DWARF package (BINARY.dwp, llvm-dwp: dwp.c, as
 * Debian 12's elfutils 0.188 reads none), a split binary whose parts are
 * gone, --debuginfo DIR for a stripped copy; and a source line's address
 * (uprobe:BIN@FILE:LINE) with the path suffix match it takes.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <limits.h>
#include <string.h>
#include <unistd.h>

#include "host/host.h"

static char tmpdir[256], with_g[512], without_g[512];

static int group_setup(void **state)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/sonde-dwarf-XXXXXX");
	if (!mkdtemp(tmpdir))
		return -1;
	snprintf(with_g, sizeof(with_g), "%s/dw_g", tmpdir);
	snprintf(without_g, sizeof(without_g), "%s/dw_nog", tmpdir);
	char cmd[2048];
	char src[512];
	if (!realpath("tests/workloads/dwarf_args.c", src))
		return -1;
	snprintf(cmd, sizeof(cmd), "gcc -O1 -g -o %s %s && gcc -O1 -o %s %s && "
		 "mkdir %s/dwo %s/pkg %s/miss %s/dbg && "
		 "cd %s/dwo && gcc -O1 -g -gsplit-dwarf -o dw_split %s && "
		 "cd %s/pkg && gcc -O1 -g -gsplit-dwarf -o dw_split %s && "
		 "/usr/lib/llvm-16/bin/llvm-dwp -e dw_split -o dw_split.dwp && rm -f ./*.dwo && "
		 "cp dw_split %s/miss/ && "
		 "objcopy --only-keep-debug %s %s/dbg/dw_strip.debug && "
		 "objcopy --strip-debug %s %s/dw_strip && cp %s/dw_strip %s/dw_strip_nodbg",
		 with_g, src, without_g, src, tmpdir, tmpdir, tmpdir, tmpdir, tmpdir, src, tmpdir, src,
		 tmpdir, with_g, tmpdir, with_g, tmpdir, tmpdir, tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static int group_teardown(void **state)
{
	char cmd[512];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	return system(cmd) == 0 ? 0 : -1;
}

static struct hdw_file *open_g(void)
{
	struct hdw_file *f = NULL;
	char err[512];
	assert_int_equal(hdw_open(with_g, &f, err, sizeof(err)), 0);
	return f;
}

static void test_param_names(void **state)
{
	struct hdw_file *f = open_g();
	const struct hdw_func *fn = hdw_func(f, "typed");
	assert_non_null(fn);
	assert_int_equal(fn->nparams, 5);
	const char *want[][2] = {{"u32_t", "id"}, {"union word", "w"}, {"<unknown type>*", "vp"},
				 {"<unknown type>*", "cb"}, {"char* const", "s"}};
	for (int i = 0; i < 5; i++) {
		assert_string_equal(fn->params[i].ctype, want[i][0]);
		assert_string_equal(fn->params[i].name, want[i][1]);
	}
	fn = hdw_func(f, "mixed");
	assert_non_null(fn);
	assert_string_equal(fn->params[2].ctype, "const <unknown type>*");
	assert_int_equal(fn->params[0].type->kind, HDW_FLOAT);
	/* looked up once, the same answer again; a function DWARF lacks */
	assert_ptr_equal(hdw_func(f, "mixed"), fn);
	assert_null(hdw_func(f, "_start"));
	assert_null(hdw_func(f, "no_such_function"));

	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	hdw_print_params(hdw_func(f, "visit"), out);
	fclose(out);
	assert_string_equal(text, "    struct node* n\n    const char* label\n    int depth\n");
	free(text);
}

static const struct hdw_member *member(const struct hdw_type *t, const char *name)
{
	for (int i = 0; i < t->nmembers; i++)
		if (t->members[i].name && !strcmp(t->members[i].name, name))
			return &t->members[i];
	fail_msg("no member %s", name);
	return NULL;
}

static void test_type_graph(void **state)
{
	struct hdw_file *f = open_g();
	const struct hdw_func *fn = hdw_func(f, "visit");
	const struct hdw_type *p = fn->params[0].type;
	assert_int_equal(p->kind, HDW_PTR);
	const struct hdw_type *node = p->elem;
	assert_int_equal(node->kind, HDW_STRUCT);
	assert_string_equal(node->name, "node");
	assert_int_equal(node->size, 48);
	/* next points back at the same node: a cycle, converted once */
	assert_ptr_equal(member(node, "next")->type->elem, node);
	assert_int_equal(member(node, "pos")->offset, 16);
	assert_int_equal(member(node, "name")->type->kind, HDW_ARRAY);
	assert_int_equal(member(node, "name")->type->count, 8);
	const struct hdw_type *kind = member(node, "kind")->type;
	assert_int_equal(kind->kind, HDW_ENUM);
	assert_int_equal(kind->nenum, 3);
	assert_string_equal(kind->enum_names[2], "BLUE");
	assert_int_equal(kind->enum_values[2], 2);
	/* const char *: the qualifier looked through */
	assert_int_equal(fn->params[1].type->elem->kind, HDW_INT);
	assert_int_equal(fn->params[1].type->elem->size, 1);

	const struct hdw_type *fl = hdw_func(f, "flagged")->params[0].type->elem;
	const struct hdw_member *mode = member(fl, "mode"), *level = member(fl, "level");
	assert_int_equal(mode->bit_size, 3);
	assert_int_equal(mode->offset * 8 + mode->bit_off, 1);
	assert_int_equal(level->bit_size, 4);
	assert_int_equal(level->offset * 8 + level->bit_off, 4);
	assert_true(level->type->is_signed);
	/* the anonymous union is a member without a name */
	int anon = 0;
	for (int i = 0; i < fl->nmembers; i++)
		anon += !fl->members[i].name && fl->members[i].type->kind == HDW_UNION;
	assert_int_equal(anon, 1);
	const struct hdw_type *grid = member(fl, "grid")->type;
	assert_int_equal(grid->count, 2);
	assert_int_equal(grid->elem->kind, HDW_ARRAY);
	assert_int_equal(grid->elem->count, 3);
	assert_int_equal(grid->size, 24);
}

static void test_struct_named(void **state)
{
	struct hdw_file *f = open_g();
	const struct hdw_type *t = hdw_struct_named(f, false, "pair");
	assert_non_null(t);
	assert_int_equal(t->size, 16);
	assert_non_null(hdw_struct_named(f, true, "word"));
	assert_null(hdw_struct_named(f, false, "word"));	/* a union, not a struct */
	assert_null(hdw_struct_named(f, false, "no_such_struct"));
}

static void test_errors(void **state)
{
	struct hdw_file *f = NULL;
	char err[512];
	assert_int_equal(hdw_open(without_g, &f, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, without_g));
	assert_non_null(strstr(err, "-g"));
	assert_int_equal(hdw_open("/nonexistent/binary", &f, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "/nonexistent/binary"));
	/* a file opened once is the same file again */
	struct hdw_file *a = open_g(), *b = open_g();
	assert_ptr_equal(a, b);
}

static const char *in_tmp(const char *rel)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof(buf[k]), "%s/%s", tmpdir, rel);
	return buf[k];
}

static void assert_visit_params(const char *path)
{
	struct hdw_file *f = NULL;
	char err[512];
	assert_int_equal(hdw_open(path, &f, err, sizeof(err)), 0);
	const struct hdw_func *fn = hdw_func(f, "visit");
	assert_non_null(fn);
	assert_int_equal(fn->nparams, 3);
	assert_string_equal(fn->params[0].ctype, "struct node*");
	assert_string_equal(fn->params[1].name, "label");
	/* a type reached through the split unit, with its members */
	const struct hdw_type *node = fn->params[0].type->elem;
	assert_int_equal(node->kind, HDW_STRUCT);
	assert_int_equal(node->nmembers, 6);
	assert_non_null(hdw_struct_named(f, false, "pair"));
	assert_null(hdw_split_missing(f));
}

static void test_split_dwarf(void **state)
{
	/* the .dwo beside the binary (DW_AT_dwo_name under DW_AT_comp_dir),
	 * then the package of it, BINARY.dwp */
	assert_visit_params(in_tmp("dwo/dw_split"));
	assert_visit_params(in_tmp("pkg/dw_split"));
	/* neither there: the skeleton's line table alone, and a message that
	 * names both files */
	struct hdw_file *f = NULL;
	char err[512];
	assert_int_equal(hdw_open(in_tmp("miss/dw_split"), &f, err, sizeof(err)), 0);
	assert_null(hdw_func(f, "visit"));
	const char *why = hdw_split_missing(f);
	assert_non_null(why);
	assert_non_null(strstr(why, "pkg/dw_split-dwarf_args.dwo"));
	assert_non_null(strstr(why, "miss/dw_split.dwp"));
	uint64_t a;
	assert_int_equal(hdw_line_addr(in_tmp("miss/dw_split"), "dwarf_args.c", 75, 0, &a, err,
				       sizeof(err)), 0);
}

static void test_debuginfo_path(void **state)
{
	struct hdw_file *f = NULL;
	char err[512];
	/* no debug file where libdwfl looks by default */
	assert_int_equal(hdw_open(in_tmp("dw_strip_nodbg"), &f, err, sizeof(err)), -ENOENT);
	assert_string_equal(hdw_debuginfo_path(), HDW_DEFAULT_DEBUGINFO);
	/* --debuginfo dbg --debuginfo /nonexistent: dbg is under the binary's
	 * directory, BINARY.debug there, checked by build-id */
	const char *dirs[] = {"dbg", "/nonexistent"};
	assert_int_equal(hdw_set_debuginfo_path(dirs, 2), 0);
	assert_string_equal(hdw_debuginfo_path(), "dbg:/nonexistent::.debug:/usr/lib/debug");
	assert_visit_params(in_tmp("dw_strip"));
}

static void test_path_suffix(void **state)
{
	assert_true(hdw_path_ends_with("/a/src/x.c", "x.c"));
	assert_true(hdw_path_ends_with("/a/src/x.c", "src/x.c"));
	assert_true(hdw_path_ends_with("/a/src/x.c", "./src/x.c"));
	assert_true(hdw_path_ends_with("/a/src/x.c", "/a/src/x.c"));
	assert_true(hdw_path_ends_with("/a//src/x.c", "a/src//x.c"));
	assert_true(hdw_path_ends_with("x.c", "x.c"));
	/* whole components only */
	assert_false(hdw_path_ends_with("/a/src/x.c", "c/x.c"));
	assert_false(hdw_path_ends_with("/a/src/xx.c", "x.c"));
	assert_false(hdw_path_ends_with("/a/src/x.c", "/src/x.c"));
	assert_false(hdw_path_ends_with("src/x.c", "a/src/x.c"));
	assert_false(hdw_path_ends_with("/a/x.c", ""));
}

static void test_line_addr(void **state)
{
	uint64_t a = 0;
	char err[512];
	struct rs_elf_symbol sym;
	/* a function's opening brace is its first instruction */
	assert_int_equal(rs_elf_find_symbol(with_g, "scalars", &sym), 0);
	assert_true(sym.found);
	assert_int_equal(hdw_line_addr(with_g, "dwarf_args.c", 75, 0, &a, err, sizeof(err)), 0);
	assert_int_equal(a, sym.value);
	assert_int_equal(hdw_line_addr(with_g, "workloads/dwarf_args.c", 75, 0, &a, err, sizeof(err)), 0);
	assert_int_equal(a, sym.value);
	/* a statement inside it: within the function (at -O1 its code may start at the entry) */
	assert_int_equal(hdw_line_addr(with_g, "dwarf_args.c", 77, 0, &a, err, sizeof(err)), 0);
	assert_true(a >= sym.value && a < sym.value + sym.size);
	/* a blank line, a file the DWARF does not name, a wrong column */
	assert_int_equal(hdw_line_addr(with_g, "dwarf_args.c", 79, 0, &a, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "line 79"));
	assert_int_equal(hdw_line_addr(with_g, "x/dwarf_args.c", 75, 0, &a, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "'x/dwarf_args.c'"));
	assert_int_equal(hdw_line_addr(with_g, "dwarf_args.c", 77, 999, &a, err, sizeof(err)), -ENOENT);
	assert_non_null(strstr(err, "column 999"));
	/* the unit of the split binary keeps its line table in the binary */
	uint64_t b = 0;
	assert_int_equal(rs_elf_find_symbol(in_tmp("dwo/dw_split"), "scalars", &sym), 0);
	assert_int_equal(hdw_line_addr(in_tmp("dwo/dw_split"), "dwarf_args.c", 75, 0, &b, err,
				       sizeof(err)), 0);
	assert_int_equal(b, sym.value);
	/* no DWARF */
	assert_int_equal(hdw_line_addr(without_g, "dwarf_args.c", 75, 0, &a, err, sizeof(err)), -ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_param_names),
		cmocka_unit_test(test_type_graph),
		cmocka_unit_test(test_struct_named),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_split_dwarf),
		cmocka_unit_test(test_path_suffix),
		cmocka_unit_test(test_line_addr),
		/* last: the search path stays set */
		cmocka_unit_test(test_debuginfo_path),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
