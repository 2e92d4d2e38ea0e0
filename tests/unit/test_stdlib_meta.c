/*
 * test_stdlib_meta.c - the newest bpftrace's standard library helpers
 * (stdlib/meta.c, strings.c, debug.c): what they fold into at
 * compile time, the types sema gives them, and the exact text of their
 * errors, static_assert's and fail()'s own among them.  No root, no
 * kernel: every probe is BEGIN.
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
#include "parser/parser.h"
#include "sema/sema.h"
#include "harness.h"
#include "stdlib/stdlib.h"

static void check_pos(struct checked *c, const char *src, const char **pos, int npos)
{
	struct sema_opts o = {.builtins = stdlib_find, .pos_args = pos, .npos_args = npos};
	checked_run(c, src, &o);
	assert_non_null(c->ast);
}

/* the first line of the messages, "t.bt:1:COL: error: ..." */
static void expect_error_pos(const char *src, const char **pos, int npos, const char *first_line)
{
	struct checked c;
	check_pos(&c, src, pos, npos);
	if (c.r)
		fail_msg("no error for: %s", src);
	char line[512];
	assert_string_equal(checked_first_line(&c, line, sizeof(line)), first_line);
	checked_free(&c);
}

static void expect_error(const char *src, const char *first_line)
{
	expect_error_pos(src, NULL, 0, first_line);
}

static void expect_ok(const char *src, const char **pos, int npos)
{
	struct checked c;
	check_pos(&c, src, pos, npos);
	if (!c.r)
		fail_msg("error for: %s\n%s", src, c.msgs);
	checked_free(&c);
}

/* is_*(): the bool literal their answer folds into, the argument never run */
static void test_introspection_folds(void **state)
{
	struct checked c;
	check_pos(&c, "BEGIN { @a = is_str(\"x\"); @b = is_integer(pid); @c = is_unsigned_integer(-1);"
		  " @d = is_ptr(curtask); @e = is_literal(1); @f = is_literal(pid); @g = has_cpid;"
		  " @h = static_assert(1, \"x\"); }", NULL, 0);
	/* static_assert returns nothing: the last one is an error */
	assert_null(c.r);
	checked_free(&c);
	check_pos(&c, "BEGIN { @a = is_str(\"x\"); @b = is_integer(pid); @c = is_unsigned_integer(-1);"
		  " @d = is_ptr(curtask); @e = is_literal(1); @f = is_literal(pid); @g = has_cpid; }",
		  NULL, 0);
	assert_non_null(c.r);
	const char *names[] = {"@a", "@b", "@c", "@d", "@e", "@f", "@g"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		const struct sema_map *m = checked_map(c.r, names[i]);
		assert_int_equal(m->value.kind, TY_INT);
		assert_true(m->value.is_bool);
	}
	checked_free(&c);
}

static void test_static_assert(void **state)
{
	expect_ok("BEGIN { static_assert(sizeof(comm) == 16 && is_str(comm), \"comm\"); }", NULL, 0);
	expect_error("BEGIN { static_assert(is_str(pid), \"pid is no string\"); }",
		     "t.bt:1:9: error: pid is no string");
	expect_error("BEGIN { static_assert(!is_integer(pid) || 1 > 2, \"m\"); }",
		     "t.bt:1:9: error: m");
	expect_error("BEGIN { static_assert(pid == 1, \"x\"); }",
		     "t.bt:1:23: error: static_assert() needs a condition known at compile time "
		     "(literals, sizeof, is_str(...) and the like), not one computed when the probe "
		     "runs: use assert(cond, msg) for that");
	expect_error("BEGIN { static_assert(1, comm); }",
		     "t.bt:1:26: error: static_assert(cond, msg): msg must be a string literal");
	/* in a branch a constant condition never takes, it is not reached */
	expect_ok("BEGIN { if (is_str(1)) { static_assert(0, \"no\"); } }", NULL, 0);
	expect_ok("BEGIN { if (1) { } else { static_assert(0, \"no\"); } }", NULL, 0);
}

static void test_fail(void **state)
{
	expect_error("BEGIN { fail(\"bad %s: %d %5x|%-3c|%%\", \"x\", -3, 255, 65); }",
		     "t.bt:1:9: error: bad x: -3    ff|A  |%");
	expect_error("BEGIN { fail(\"bad %d\", pid); }",
		     "t.bt:1:24: error: fail() is checked at compile time: its arguments must be "
		     "literals (\"text\", 42, $1), not uint64");
	expect_error("BEGIN { fail(\"%d %d\", 1); }",
		     "t.bt:1:14: error: fail(): the format has more conversions than arguments");
	expect_error("BEGIN { fail(\"%d\", 1, 2); }",
		     "t.bt:1:23: error: fail(): more arguments than the format's conversions");
	expect_error("BEGIN { fail(\"%s\", 1); }", "t.bt:1:20: error: fail(): %s needs a string argument");
	/* the reference's example: a positional parameter decides */
	const char *five[] = {"5"}, *one[] = {"1"};
	const char *src = "BEGIN { if ($1 < 2) { fail(\"Expected the first positional param to be "
			  "greater than 1. Got %d\", $1); } }";
	expect_ok(src, five, 1);
	expect_error_pos(src, one, 1, "t.bt:1:23: error: Expected the first positional param to be "
			 "greater than 1. Got 1");
}

static void test_kfunc_exist_probetype(void **state)
{
	expect_error("BEGIN { $x = kfunc_exist(comm); }",
		     "t.bt:1:26: error: kfunc_exist() takes a function's name as a string literal: "
		     "kfunc_exist(\"vfs_read\")");
	struct checked c;
	check_pos(&c, "BEGIN { @t = probetype; }", NULL, 0);
	assert_non_null(c.r);
	/* "special" and its NUL */
	assert_int_equal(checked_map(c.r, "@t")->value.kind, TY_STR);
	assert_int_equal(checked_map(c.r, "@t")->value.size, 8);
	checked_free(&c);
}

/* strstr, strlen, strcap, memcmp: types, strcap's fold, the errors */
static void test_strings(void **state)
{
	struct checked c;
	check_pos(&c, "BEGIN { @i = strstr(comm, \"sh\"); @l = strlen(comm); @c = strcap(\"hello\");"
		  " @m = memcmp(comm, \"bash\", 4); }", NULL, 0);
	assert_non_null(c.r);
	assert_true(checked_map(c.r, "@i")->value.is_signed);
	assert_false(checked_map(c.r, "@l")->value.is_signed);
	assert_true(checked_map(c.r, "@m")->value.is_signed);
	checked_free(&c);
	expect_error("BEGIN { $x = strstr(1, \"a\"); }",
		     "t.bt:1:21: error: strstr(haystack, needle) needs two strings, not int64");
	expect_error("BEGIN { $x = strstr(comm, curtask); }",
		     "t.bt:1:27: error: strstr(haystack, needle) needs two strings, not struct task_struct *: "
		     "read it with str(p)");
	expect_error("BEGIN { $x = strlen(5); }",
		     "t.bt:1:21: error: strlen() needs a string, a char array or a char pointer, not int64");
	expect_error("BEGIN { $x = memcmp(comm, 1, 4); }",
		     "t.bt:1:27: error: memcmp() compares values held in memory (strings, arrays, structs, "
		     "tuples), not int64");
	expect_error("BEGIN { $x = memcmp(comm, \"ab\", 4); }",
		     "t.bt:1:33: error: memcmp(): count 4 is more than the 3 bytes of the smaller value");
	expect_error("BEGIN { $x = memcmp(comm, \"ab\", \"x\"); }",
		     "t.bt:1:33: error: memcmp(): the count must be an integer, not string[2]");
}

static void test_globmatch_errors(void **state)
{
	expect_ok("BEGIN { $x = globmatch(comm, \"[a-z]*?[!0-9]\"); }", NULL, 0);
	expect_error("BEGIN { $p = \"a*\"; $x = globmatch(comm, $p); }",
		     "t.bt:1:41: error: globmatch(): the pattern must be a string literal (sonde compiles "
		     "it into the program): globmatch(comm, \"ba*\")");
	expect_error("BEGIN { $x = globmatch(curtask, \"a\"); }",
		     "t.bt:1:24: error: globmatch(str, pattern) needs a string first, not struct "
		     "task_struct *: read it with str(p)");
}

static void test_debugf(void **state)
{
	expect_ok("BEGIN { debugf(\"%d %s %lx\\n\", pid, comm, 1); }", NULL, 0);
	expect_error("BEGIN { debugf(\"%d %s\\n\", 1); }",
		     "t.bt:1:9: error: debugf(): the format has 2 conversions but 1 argument follows");
	expect_error("BEGIN { debugf(\"%f\\n\", 1); }",
		     "t.bt:1:16: error: debugf(): bpf_trace_printk has no conversion '%f' "
		     "(use %d %i %u %x %o %p %s %c)");
	expect_error("BEGIN { debugf(comm); }",
		     "t.bt:1:16: error: debugf() takes a format string literal first: debugf(\"pid %d\\n\", pid)");
	expect_error("BEGIN { debugf(\"%d\\n\", (1, 2)); }",
		     "t.bt:1:24: error: debugf() prints integers, pointers and strings, not (int64, int64)");
}

/* the newest stdlib's other small helpers */
static void test_small_helpers(void **state)
{
	struct checked c;
	check_pos(&c, "BEGIN { @l = default_str_length; @s = signal_name(2); @p = ppid(curtask);"
		  " @c = pcomm(curtask); }", NULL, 0);
	assert_non_null(c.r);
	assert_int_equal(checked_map(c.r, "@l")->value.kind, TY_INT);
	assert_int_equal(checked_map(c.r, "@s")->value.kind, TY_DECODED);
	assert_string_equal(checked_map(c.r, "@s")->value.decoder->render(c.a, 2), "Interrupt");
	assert_string_equal(checked_map(c.r, "@s")->value.decoder->render(c.a, 65), "N/A");
	assert_int_equal(checked_map(c.r, "@c")->value.kind, TY_STR);
	checked_free(&c);
	expect_error("BEGIN { assert_str(1); }",
		     "t.bt:1:20: error: string-like values must be either strings, arrays or pointers, not int64");
	expect_error("BEGIN { signal_thread(9); }",
		     "t.bt:1:9: error: signal_thread() acts on processes: allow it with --unsafe");
	/* ppid() stays the builtin beside the one-parameter macro */
	expect_ok("BEGIN { $a = ppid(); $b = ppid; }", NULL, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_introspection_folds),
		cmocka_unit_test(test_static_assert),
		cmocka_unit_test(test_fail),
		cmocka_unit_test(test_kfunc_exist_probetype),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_globmatch_errors),
		cmocka_unit_test(test_debugf),
		cmocka_unit_test(test_small_helpers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
