/*
 * test_features.c - host/features.c's table and what sema and codegen do
 * when a row says no.  SONDE_NO_FEATURES turns rows off before the first
 * question (answers are kept for the process), so this file is the kernel
 * of 5.10 for cookies and percpu lookups, whatever the machine runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

/* every row named, described and dated; names unique (SONDE_NO_FEATURES) */
static void test_table(void **state)
{
	for (int i = 0; i < HF__COUNT; i++) {
		assert_true(host_feature_name((enum host_feature)i)[0]);
		assert_true(host_feature_what((enum host_feature)i)[0]);
		assert_true(host_feature_since((enum host_feature)i)[0]);
		for (int j = 0; j < i; j++)
			assert_string_not_equal(host_feature_name((enum host_feature)i),
						host_feature_name((enum host_feature)j));
	}
	assert_int_equal(host_feature_answer(HF_PERCPU_LOOKUP), HF_NO);
	assert_false(host_feature(HF_COOKIE));
}

/* an aggregation read in an expression, without percpu lookups */
static void test_percpu_lookup_error(void **state)
{
	struct checked c;
	char line[512];
	checked_run(&c, "tracepoint:sched:sched_switch { @n = count(); if (@n > 1) { exit(); } }", NULL);
	assert_null(c.r);
	assert_string_equal(checked_first_line(&c, line, sizeof(line)),
			    "t.bt:1:51: error: reading the aggregation '@n' in an expression needs "
			    "bpf_map_lookup_percpu_elem (Linux 5.19), which this kernel does not have");
	checked_free(&c);
	/* printing it needs no lookup in BPF */
	checked_run(&c, "tracepoint:sched:sched_switch { @n = count(); }", NULL);
	assert_non_null(c.r);
	checked_free(&c);
}

/* func without cookies: one program per attach point, func a constant */
static void test_func_without_cookie(void **state)
{
	struct checked c;
	char *ir = NULL;
	checked_run(&c, "uprobe:/bin/sh:main,uretprobe:/bin/sh:main { @[func] = count(); }", NULL);
	assert_non_null(c.r);
	assert_true(c.r->probes[0].uses_args);
	assert_int_equal(checked_codegen(&c, &ir, NULL), 0);
	/* bpf_get_attach_cookie is helper 174 */
	assert_null(strstr(ir, "inttoptr (i64 174"));
	free(ir);
	checked_free(&c);
}

int main(void)
{
	setenv("SONDE_NO_FEATURES", "percpu_lookup,cookie", 1);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),
		cmocka_unit_test(test_percpu_lookup_error),
		cmocka_unit_test(test_func_without_cookie),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
