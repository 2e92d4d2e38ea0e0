/*
 * test_verifier.c - vf_failing_line(): from the verifier's log to the
 * script's line, on logs shaped like the kernel's.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "runtime/verifier.h"

static const char *src =
	"rawtracepoint:sched_switch {\n"
	"  @a = arg1;\n"
	"  @b = arg9;\n"
	"}\n";

static void test_last_source_line_wins(void **state)
{
	const char *log =
		"0: R1=ctx() R10=fp0\n"
		"; @a = arg1;\n"
		"0: (79) r1 = *(u64 *)(r1 +8)          ; R1_w=scalar()\n"
		"; @b = arg9;\n"
		"5: (79) r1 = *(u64 *)(r6 +72)\n"
		"invalid bpf_context access off=72 size=8\n"
		"processed 6 insns (limit 1000000)\n";
	int col = 0, end = 0;
	assert_int_equal(vf_failing_line(log, strlen(log), src, &col, &end), 3);
	assert_int_equal(col, 3);
	assert_int_equal(end, 13);
	(void)state;
}

static void test_no_source_lines(void **state)
{
	const char *log = "0: (b7) r0 = 0\nBPF program is too large. Processed 1000001 insn\n";
	int col, end;
	assert_int_equal(vf_failing_line(log, strlen(log), src, &col, &end), 0);
	(void)state;
}

static void test_ambiguous_text(void **state)
{
	const char *dup = "BEGIN {\n  @x++;\n  @x++;\n}\n";
	const char *log = "; @x++;\n3: (85) call bpf_map_lookup_elem#1\nR0 invalid mem access\n";
	int col, end;
	assert_int_equal(vf_failing_line(log, strlen(log), dup, &col, &end), 0);
	assert_int_equal(vf_failing_line(log, strlen(log), NULL, &col, &end), 0);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_last_source_line_wins),
		cmocka_unit_test(test_no_source_lines),
		cmocka_unit_test(test_ambiguous_text),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
