/*
 * test_dwarf.c - host/dwarf.c: a binary's functions and types from its
 * DWARF, through libdw.
 *
 * The fixture is tests/workloads/dwarf_args.c, built with gcc -g (and once
 * without) into a temporary directory: -lv's type names, the type graph
 * (a struct that points to itself is one node, typedefs looked through,
 * bitfields, an anonymous union, a 2-D array as arrays of arrays, enums),
 * structs by name, and the errors for a file without debug information and
 * for one that is not there.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
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
	snprintf(cmd, sizeof(cmd), "gcc -O1 -g -o %s tests/workloads/dwarf_args.c && "
		 "gcc -O1 -o %s tests/workloads/dwarf_args.c", with_g, without_g);
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_param_names),
		cmocka_unit_test(test_type_graph),
		cmocka_unit_test(test_struct_named),
		cmocka_unit_test(test_errors),
	};
	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
