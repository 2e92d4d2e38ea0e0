/*
 * test_parity.c - the bpftrace-parity pieces that need no root (issue 9):
 * "did you mean" (common/suggest.c and the builtin catalogue), one error
 * per mistake (no "used before it is assigned" after an error), and the
 * types and errors of bswap, pton, macaddr, strcontains, strerror, numaid.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "common/format.h"
#include "common/settings.h"
#include "common/suggest.h"
#include "harness.h"
#include "host/host.h"
#include "output/output.h"
#include "stdlib/stdlib.h"

static void check(struct checked *c, const char *src)
{
	static const struct sema_opts o = {.builtins = stdlib_find, .suggest = stdlib_suggest};
	checked_run(c, src, &o);
}

static int count_errors(const char *msgs)
{
	int n = 0;
	for (const char *p = msgs; (p = strstr(p, ": error: ")); p++)
		n++;
	return n;
}

/* the only error of src is first_line */
static void expect_one_error(const char *src, const char *first_line)
{
	struct checked c;
	check(&c, src);
	if (c.r)
		fail_msg("no error for: %s", src);
	char line[512];
	assert_string_equal(checked_first_line(&c, line, sizeof(line)), first_line);
	if (count_errors(c.msgs) != 1)
		fail_msg("more than one error for: %s\n%s", src, c.msgs);
	checked_free(&c);
}

static void test_distance(void **state)
{
	assert_int_equal(suggest_distance("tracepont", "tracepoint"), 1);
	assert_int_equal(suggest_distance("pirnt", "print"), 1);	/* a swap is one edit */
	assert_int_equal(suggest_distance("", "abc"), 3);
	assert_int_equal(suggest_distance("kitten", "sitting"), 3);
	assert_int_equal(suggest_distance("same", "same"), 0);
	(void)state;
}

static void test_suggest_text(void **state)
{
	struct suggest s;
	char buf[256];
	suggest_init(&s, "cont");
	suggest_add(&s, "count");
	suggest_add(&s, "comm");
	suggest_add(&s, "cont");	/* the word itself is no suggestion */
	suggest_add(&s, "zzzzzzzz");
	/* only the nearest distance is offered */
	assert_string_equal(suggest_text(&s, 3, buf, sizeof(buf)), "; did you mean 'count'?");
	suggest_init(&s, "xyz");
	suggest_add(&s, "pid");
	assert_string_equal(suggest_text(&s, 3, buf, sizeof(buf)), "");
	suggest_init(&s, "sys_enter_opn");
	suggest_add(&s, "sys_enter_open");
	suggest_add(&s, "sys_enter_openat");
	suggest_add(&s, "sys_enter_read");
	assert_string_equal(suggest_text(&s, 3, buf, sizeof(buf)), "; did you mean 'sys_enter_open'?");
	suggest_init(&s, "field");
	suggest_add(&s, "fielda");
	suggest_add(&s, "fieldb");
	suggest_add(&s, "fieldc");
	suggest_add(&s, "fieldd");
	assert_string_equal(suggest_text(&s, 3, buf, sizeof(buf)),
			    "; did you mean 'fielda', 'fieldb' or 'fieldc'?");
	(void)state;
}

/* suggest_add stops a comparison as soon as it must exceed the limit; it
 * must offer exactly what the full distance would, over every pair of a
 * small alphabet's words (swaps, length gaps, the limit's edge) */
static void test_suggest_cutoff_exact(void **state)
{
	static const char *words[] = {
		"syscalls:sys_enter_openat", "syscalls:sys_enter_opnat",
		"syscalls:sys_exit_openat", "sycsalls:sys_enter_openat",
		"sched:sched_switch", "sched:sched_swtich", "sched:sched_wakeup",
		"abcdef", "badcfe", "abc", "abcdefghi", "ab", "ba", "a", "xyz",
		"kitten", "sitting", "ktiten", "kitte",
	};
	size_t n = sizeof(words) / sizeof(words[0]);
	for (size_t i = 0; i < n; i++)
		for (size_t j = 0; j < n; j++) {
			struct suggest s;
			suggest_init(&s, words[i]);
			suggest_add(&s, words[j]);
			int d = suggest_distance(words[i], words[j]);
			bool offered = i != j && d <= s.limit;
			assert_int_equal(s.n, offered);
			if (offered)
				assert_int_equal(s.dist[0], d);
		}
	(void)state;
}

static void test_builtin_suggestions(void **state)
{
	expect_one_error("BEGIN { prnt(\"x\"); }",
			 "t.bt:1:9: error: unknown function 'prnt'; did you mean 'print'?");
	expect_one_error("BEGIN { @x = pidd; }",
			 "t.bt:1:14: error: unknown identifier 'pidd'; did you mean 'pid'?");
	expect_one_error("BEGIN { @x = strcontain(\"a\", \"b\"); }",
			 "t.bt:1:14: error: unknown function 'strcontain'; did you mean 'strcontains'?");
	expect_one_error("BEGIN { @x = qqqqqq(1); }", "t.bt:1:14: error: unknown function 'qqqqqq'");
	/* bpftrace's probe types sonde lacks say so, not "unknown probe type" */
	/* kfunc is fentry now: a misspelled argument is its one error */
	expect_one_error("kfunc:vfs_read { @ = args.coutn; }",
			 "t.bt:1:22: error: fentry:vfs_read has no argument 'coutn'; did you mean 'count'?");
	expect_one_error("watchpoint:0x1000:8:w { }",
			 "t.bt:1:1: error: watchpoint probes (hardware breakpoints) are not supported by "
			 "sonde: a uprobe on the code that writes the address, or a tracepoint, can take "
			 "their place");
	(void)state;
}

static void test_one_error_per_mistake(void **state)
{
	expect_one_error("BEGIN { $x = foo(1); print($x); printf(\"%d\\n\", $x + 1); $x++; $x += 2; }",
			 "t.bt:1:14: error: unknown function 'foo'");
	expect_one_error("BEGIN { $x = 1 + \"a\"; @a[$x] = count(); }",
			 "t.bt:1:14: error: operator '+' cannot take int64 and string[2]");
	expect_one_error("BEGIN { @x = foo(1); print(@x); @y = @x + 1; }",
			 "t.bt:1:14: error: unknown function 'foo'");
	/* a later good assignment gives the variable its type */
	expect_one_error("BEGIN { $x = nosuch; $x = 1; @a = $x + 1; }",
			 "t.bt:1:14: error: unknown identifier 'nosuch'");
	(void)state;
}

static void test_new_builtins(void **state)
{
	struct checked c;
	check(&c, "BEGIN { @a = bswap((uint16)1); @b = bswap(1); @c = strcontains(\"ab\", \"b\");"
		   " @d = numaid; @e = strerror(2); @f = macaddr(0); $p = pton(\"::1\"); @g = ntop($p);"
		   " @h = ntop(pton(\"1.2.3.4\")); }");
	if (!c.r)
		fail_msg("%s", c.msgs);
	/* bswap is as wide as its argument */
	struct ast_node *stmt = c.r->probes[0].node->probe.body->block.stmts;
	assert_int_equal(stmt->assign.value->type.size, 2);
	assert_int_equal(stmt->next->assign.value->type.size, 8);
	checked_free(&c);
	expect_one_error("BEGIN { @x = bswap(\"ab\"); }",
			 "t.bt:1:20: error: bswap() needs an integer, not string[3]");
	expect_one_error("BEGIN { @x = pton(\"1.2.3\"); }",
			 "t.bt:1:19: error: pton() needs a valid IPv4 or IPv6 address, not \"1.2.3\"");
	expect_one_error("BEGIN { @x = pton(comm); }",
			 "t.bt:1:19: error: pton() needs a string literal address, like pton(\"10.0.0.1\")");
	expect_one_error("BEGIN { @x = macaddr(\"abcdef\"); }",
			 "t.bt:1:22: error: macaddr() needs 6 bytes: a u8[6] array or the address of one, not a string literal");
	expect_one_error("BEGIN { @x = strcontains(comm, 1); }",
			 "t.bt:1:32: error: strcontains(haystack, needle) needs two strings, not int64");
	(void)state;
}

/* hop: nop; mov $7, %eax; ret (as tests/workloads/parity.c) */
static void test_instruction_boundaries(void **state)
{
	static const uint8_t hop[] = {0x90, 0xb8, 0x07, 0x00, 0x00, 0x00, 0xc3};
	char err[256];
	assert_int_equal(insn_check_code(hop, sizeof(hop), 0, err, sizeof(err)), 0);
	assert_int_equal(insn_check_code(hop, sizeof(hop), 1, err, sizeof(err)), 0);
	assert_int_equal(insn_check_code(hop, sizeof(hop), 6, err, sizeof(err)), 0);
	assert_int_equal(insn_check_code(hop, sizeof(hop), 3, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "offset +3 is inside the instruction at +1 (mov eax, 7, 5 bytes); "
				 "the nearest instruction boundaries are +1 and +6");
	assert_int_equal(insn_check_code(hop, sizeof(hop), 7, err, sizeof(err)), -ERANGE);
	assert_string_equal(err, "offset +7 is past the end of the function (7 bytes)");
	(void)state;
}

static void test_settings(void **state)
{
	char *msgs = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&msgs, &len);
	unsetenv("SONDE_STRLEN");
	setenv("BPFTRACE_STRLEN", "100", 1);
	setenv("BPFTRACE_STACK_MODE", "perf", 1);
	assert_int_equal(settings_load(f), 0);
	assert_int_equal(settings_int(SET_STRLEN), 100);
	assert_int_equal(settings_int(SET_STACK_MODE), 1);
	assert_int_equal(settings_int(SET_CAT_BYTES_MAX), 10240);
	setenv("SONDE_STRLEN", "32", 1);	/* the SONDE_ name wins */
	assert_int_equal(settings_load(f), 0);
	assert_int_equal(settings_int(SET_STRLEN), 32);
	setenv("SONDE_STRLEN", "40000", 1);
	assert_int_equal(settings_load(f), -EINVAL);
	fclose(f);
	assert_string_equal(msgs, "sonde: SONDE_STRLEN: '40000' is not a number from 1 to 32768\n");
	free(msgs);
	unsetenv("SONDE_STRLEN");
	/* the newest bpftrace's names; its trailer, a string */
	unsetenv("BPFTRACE_STRLEN");
	setenv("BPFTRACE_MAX_STRLEN", "1024", 1);
	setenv("BPFTRACE_MAX_CAT_BYTES", "7", 1);
	setenv("BPFTRACE_MAX_MAP_KEYS", "9", 1);
	setenv("BPFTRACE_STR_TRUNC_TRAILER", "...", 1);
	f = fopen("/dev/null", "w");
	assert_int_equal(settings_load(f), 0);
	assert_int_equal(settings_int(SET_STRLEN), 1024);
	assert_int_equal(settings_int(SET_CAT_BYTES_MAX), 7);
	assert_int_equal(settings_int(SET_MAP_KEYS_MAX), 9);
	assert_string_equal(settings_str(SET_STR_TRUNC_TRAILER), "...");
	assert_true(settings_given(SET_STR_TRUNC_TRAILER));
	assert_false(settings_given(SET_MISSING_PROBES));
	fclose(f);
	unsetenv("BPFTRACE_MAX_STRLEN");
	unsetenv("BPFTRACE_MAX_CAT_BYTES");
	unsetenv("BPFTRACE_MAX_MAP_KEYS");
	unsetenv("BPFTRACE_STR_TRUNC_TRAILER");
	unsetenv("BPFTRACE_STRLEN");
	unsetenv("BPFTRACE_STACK_MODE");
	f = fopen("/dev/null", "w");
	assert_int_equal(settings_load(f), 0);
	fclose(f);
	assert_int_equal(settings_int(SET_STRLEN), 64);
	(void)state;
}

/* a script's config block: short and BPFTRACE_ names, checked values, a
 * did-you-mean for a misspelled name, and the environment winning */
static void test_settings_config(void **state)
{
	char msg[256];
	FILE *f = fopen("/dev/null", "w");
	unsetenv("BPFTRACE_STRLEN");
	unsetenv("SONDE_STRLEN");
	unsetenv("BPFTRACE_STACK_MODE");
	unsetenv("BPFTRACE_MISSING_PROBES");
	assert_int_equal(settings_load(f), 0);
	assert_int_equal(settings_config("max_strlen", "100", msg, sizeof(msg)), 0);
	assert_int_equal(settings_int(SET_STRLEN), 100);
	/* the environment variable's name without its prefix, as the newest
	 * language.md allows (STACK_MODE = stack_mode = BPFTRACE_STACK_MODE) */
	assert_int_equal(settings_config("MAX_BPF_PROGS", "77", msg, sizeof(msg)), 0);
	assert_int_equal(settings_int(SET_MAX_BPF_PROGS), 77);
	/* the newest language.md's license and unstable-feature settings */
	assert_string_equal(settings_word(SET_LICENSE), "GPL");
	assert_int_equal(settings_config("license", "Dual BSD/GPL", msg, sizeof(msg)), 0);
	assert_string_equal(settings_word(SET_LICENSE), "Dual BSD/GPL");
	assert_int_equal(settings_config("unstable_map_decl", "error", msg, sizeof(msg)), 0);
	assert_int_equal(settings_int(SET_UNSTABLE_MAP_DECL), SET_UNSTABLE_ERROR);
	assert_int_equal(settings_config("unstable_addr", "sometimes", msg, sizeof(msg)), -EINVAL);
	assert_int_equal(settings_config("BPFTRACE_STACK_MODE", "raw", msg, sizeof(msg)), 0);
	assert_int_equal(settings_int(SET_STACK_MODE), 2);
	assert_int_equal(settings_config("missing_probes", "ignore", msg, sizeof(msg)), 0);
	assert_int_equal(settings_int(SET_MISSING_PROBES), SET_MISSING_IGNORE);
	assert_int_equal(settings_config("print_maps_on_exit", "false", msg, sizeof(msg)), 0);
	assert_int_equal(settings_int(SET_PRINT_MAPS_ON_EXIT), 0);
	assert_int_equal(settings_config("max_cat_bytes", "99", msg, sizeof(msg)), 0);
	assert_int_equal(settings_int(SET_CAT_BYTES_MAX), 99);
	assert_int_equal(settings_config("BPFTRACE_MAX_MAP_KEYS", "77", msg, sizeof(msg)), 0);
	assert_int_equal(settings_int(SET_MAP_KEYS_MAX), 77);
	assert_int_equal(settings_config("str_trunc_trailer", "[cut]", msg, sizeof(msg)), 0);
	assert_string_equal(settings_str(SET_STR_TRUNC_TRAILER), "[cut]");
	assert_int_equal(settings_config("lazy_symbolication", "true", msg, sizeof(msg)), 0);
	assert_int_equal(settings_config("on_stack_limit", "64", msg, sizeof(msg)), 0);
	assert_int_equal(settings_int(SET_ON_STACK_LIMIT), 64);
	assert_true(settings_given(SET_MISSING_PROBES));
	assert_int_equal(settings_config("max_strln", "5", msg, sizeof(msg)), -ENOENT);
	assert_string_equal(msg, "unknown config 'max_strln'; did you mean 'max_strlen'?");
	assert_int_equal(settings_config("missing_probes", "maybe", msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "missing_probes: 'maybe' is not a missing-probes policy "
			    "(warn, ignore or error)");
	assert_int_equal(settings_config("perf_rb_pages", "3", msg, sizeof(msg)), -EINVAL);
	assert_string_equal(msg, "perf_rb_pages takes a number of pages that is a power of 2 "
			    "(1 to 262144), not '3'");
	/* the environment wins over the script */
	setenv("BPFTRACE_STRLEN", "32", 1);
	assert_int_equal(settings_load(f), 0);
	assert_int_equal(settings_config("max_strlen", "100", msg, sizeof(msg)), 0);
	assert_int_equal(settings_int(SET_STRLEN), 32);
	/* and a flag over both */
	assert_int_equal(settings_set(SET_STRLEN, "--flag", "16", msg, sizeof(msg)), 0);
	assert_int_equal(settings_int(SET_STRLEN), 16);
	unsetenv("BPFTRACE_STRLEN");
	assert_int_equal(settings_load(f), 0);
	fclose(f);
	(void)state;
}

static void test_buf_hex_formats(void **state)
{
	struct arena *a = arena_new();
	static const uint8_t b[] = {'a', 'b', 0x01, 0xff};
	assert_string_equal(vf_buf(a, b, 4), "ab\\x01\\xff");
	assert_string_equal(vf_buf_hex(a, b, 4, 'x'), "\\x61\\x62\\x01\\xff");
	assert_string_equal(vf_buf_hex(a, b, 4, 'h'), "61 62 01 ff");
	struct fmt_spec sp;
	const char *err;
	int off;
	assert_int_equal(fmt_parse(a, "%rx|%rh|%r x", &sp, &err, &off), 0);
	assert_int_equal(sp.nconvs, 3);
	assert_int_equal(sp.convs[0].rmode, 'x');
	assert_int_equal(sp.convs[1].rmode, 'h');
	assert_int_equal(sp.convs[2].rmode, 0);
	arena_free(a);
	(void)state;
}

/* strftime's %f: microseconds of the wall-clock time; a monotonic
 * timestamp whose microseconds carry into the next second rolls over */
static void test_strftime_micros_rollover(void **state)
{
	struct arena *a = arena_new();
	struct timespec real = {.tv_sec = 100, .tv_nsec = 999999000}, mono = {.tv_sec = 10};
	struct timespec w = vf_mono_to_wall(10 * 1000000000ull + 2000, &real, &mono);
	assert_string_equal(vf_strftime(a, "%H:%M:%S.%f", &w, true), "00:01:41.000001");
	w = vf_mono_to_wall(10 * 1000000000ull, &real, &mono);
	assert_string_equal(vf_strftime(a, "%S.%f", &w, true), "40.999999");
	arena_free(a);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_distance),
		cmocka_unit_test(test_suggest_text),
		cmocka_unit_test(test_suggest_cutoff_exact),
		cmocka_unit_test(test_builtin_suggestions),
		cmocka_unit_test(test_one_error_per_mistake),
		cmocka_unit_test(test_new_builtins),
		cmocka_unit_test(test_instruction_boundaries),
		cmocka_unit_test(test_settings),
		cmocka_unit_test(test_settings_config),
		cmocka_unit_test(test_buf_hex_formats),
		cmocka_unit_test(test_strftime_micros_rollover),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
