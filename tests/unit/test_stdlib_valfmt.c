/*
 * test_stdlib_valfmt.c - the text of buf(), ntop(), strftime() and stacks
 * (output/valfmt.c), golden against what bpftrace 0.17 prints.
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
#include "output/output.h"

static void test_buf(void **state)
{
	struct arena *a = arena_new();
	/* bpftrace: print(buf(arg2, 8)) of {1, 2, 'a', 0, 255, '\\', '"', 10} */
	const uint8_t b[] = {1, 2, 'a', 0, 255, '\\', '"', 10};
	assert_string_equal(vf_buf(a, b, sizeof(b)), "\\x01\\x02a\\x00\\xff\\\"\\x0a");
	assert_string_equal(vf_buf(a, (const uint8_t *)" ~", 2), " ~");
	assert_string_equal(vf_buf(a, (const uint8_t *)"\x1f\x7f", 2), "\\x1f\\x7f");
	assert_string_equal(vf_buf(a, b, 0), "");
	arena_free(a);
}

static void test_inet(void **state)
{
	struct arena *a = arena_new();
	uint8_t v4[16] = {127, 0, 0, 1};
	assert_string_equal(vf_inet(a, 2, v4), "127.0.0.1");
	uint8_t v6[16] = {0x20, 0x01, 0x0d, 0xb8, [15] = 1};
	assert_string_equal(vf_inet(a, 10, v6), "2001:db8::1");
	uint8_t any[16] = {0};
	assert_string_equal(vf_inet(a, 10, any), "::");
	uint8_t mapped[16] = {[10] = 0xff, [11] = 0xff, 192, 168, 1, 1};
	assert_string_equal(vf_inet(a, 10, mapped), "::ffff:192.168.1.1");
	assert_string_equal(vf_inet(a, 7, v4), "");
	arena_free(a);
}

static void test_strftime(void **state)
{
	struct arena *a = arena_new();
	/* 2026-11-29 09:10:50.270106 UTC */
	struct timespec t = {.tv_sec = 1795943450, .tv_nsec = 270106999};
	assert_string_equal(vf_strftime(a, "%H:%M:%S.%f|%Y", &t, true), "09:10:50.270106|2026");
	assert_string_equal(vf_strftime(a, "%Y-%m-%d %f", &t, true), "2026-11-29 270106");
	/* %% stays a literal percent, so %%f is "%f" */
	assert_string_equal(vf_strftime(a, "100%% %%f", &t, true), "100% %f");
	t.tv_nsec = 5000;
	assert_string_equal(vf_strftime(a, "%f", &t, true), "000005");
	assert_string_equal(vf_strftime(a, "", &t, true), "");
	arena_free(a);
}

static void test_mono_to_wall(void **state)
{
	struct timespec real = {.tv_sec = 1000, .tv_nsec = 500}, mono = {.tv_sec = 10, .tv_nsec = 900};
	/* 9.5 s of monotonic time is 990.5 s (and 500 - 900 ns) of wall time */
	struct timespec w = vf_mono_to_wall(9500000000ull, &real, &mono);
	assert_int_equal(w.tv_sec, 999);
	assert_int_equal(w.tv_nsec, 499999600);
	w = vf_mono_to_wall(10000000900ull, &real, &mono);
	assert_int_equal(w.tv_sec, 1000);
	assert_int_equal(w.tv_nsec, 500);
}

static const struct vf_frame frames[] = {
	{.addr = 0x55f8b6021149, .sym = "work", .off = 0, .module = "/tmp/bt/w2"},
	{.addr = 0x55f8b6021235, .sym = "main", .off = 124, .module = "/tmp/bt/w2"},
	{.addr = 0x7fb0374e624a, .sym = NULL, .module = "/usr/lib/libc.so.6"},
};

static void test_stack_modes(void **state)
{
	struct arena *a = arena_new();
	/* map key (indent 4) and value/print (indent 8), as bpftrace */
	assert_string_equal(vf_stack(a, frames, 3, VF_STACK_BPFTRACE, 4, true),
			    "\n    work+0\n    main+124\n    0x7fb0374e624a\n");
	assert_string_equal(vf_stack(a, frames, 2, VF_STACK_BPFTRACE, 8, true),
			    "\n        work+0\n        main+124\n");
	/* perf: tab, hex address, symbol, module for user frames */
	assert_string_equal(vf_stack(a, frames, 3, VF_STACK_PERF, 4, true),
			    "\n\t55f8b6021149 work+0 (/tmp/bt/w2)\n"
			    "\t55f8b6021235 main+124 (/tmp/bt/w2)\n"
			    "\t7fb0374e624a 0x7fb0374e624a ([unknown])\n");
	struct vf_frame k[] = {{.addr = 0xffffffff821f8298ull, .sym = "__schedule", .off = 1560}};
	assert_string_equal(vf_stack(a, k, 1, VF_STACK_PERF, 4, false),
			    "\n\tffffffff821f8298 __schedule+1560\n");
	assert_string_equal(vf_stack(a, k, 1, VF_STACK_RAW, 4, false), "\nffffffff821f8298\n");
	/* a stack that could not be read prints as nothing ("@[]: 1") */
	assert_string_equal(vf_stack(a, k, 0, VF_STACK_BPFTRACE, 4, false), "");
	/* show_debug_info: "@file:line", an inlined frame "[inlined] name"
	 * without offset; perf mode: no file:line, "(inlined)" for the
	 * module, as the newest bpftrace prints them */
	struct vf_frame d[] = {
		{.addr = 0x1166, .sym = "myclock", .module = "/t/u", .inl = true, .src = "/t/u.c:15"},
		{.addr = 0x1166, .sym = "mywrapper", .off = 48, .module = "/t/u", .src = "/t/u.c:24"},
	};
	assert_string_equal(vf_stack(a, d, 2, VF_STACK_BPFTRACE, 8, true),
			    "\n        [inlined] myclock@/t/u.c:15\n        mywrapper+48@/t/u.c:24\n");
	assert_string_equal(vf_stack(a, d, 2, VF_STACK_PERF, 8, true),
			    "\n\t1166 myclock (inlined)\n\t1166 mywrapper+48 (/t/u)\n");
	arena_free(a);
}

/* C++ names as bpftrace prints them; C names and bad manglings as they are */
static void test_demangle(void **state)
{
	struct arena *a = arena_new();
	assert_string_equal(vf_demangle(a, "_ZN2ns4funcEi"), "ns::func(int)");
	assert_string_equal(vf_demangle(a, "_ZN2ns4pokeEPNS_6WidgetEl"), "ns::poke(ns::Widget*, long)");
	assert_string_equal(vf_demangle(a, "main"), "main");
	assert_string_equal(vf_demangle(a, "_Zjunk"), "_Zjunk");
	assert_null(vf_demangle(a, NULL));
	arena_free(a);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buf),
		cmocka_unit_test(test_inet),
		cmocka_unit_test(test_strftime),
		cmocka_unit_test(test_mono_to_wall),
		cmocka_unit_test(test_stack_modes),
		cmocka_unit_test(test_demangle),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
