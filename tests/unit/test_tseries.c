/*
 * test_tseries.c - tseries() maps: the printers of output/tseries.c as
 * pure functions (golden against bpftrace 0.26's documentation and runtime
 * test outputs: the zigzag and min examples of docs/stdlib.md, the
 * two-key map of tests/runtime/outputs/tseries_multiple.txt, tseries.txt
 * and tseries.json), the JSON
 * records, the Prometheus gauge, the window and edge cases (one interval,
 * zeroed slots, unsigned values, whole seconds), and sema's checks of
 * tseries()'s arguments.  tests/e2e/t_tseries.sh runs it on real BPF.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <cmocka.h>

#include "output/output.h"
#include "harness.h"

/* wall-clock seconds of 2024-01-01 10:00:00 UTC */
#define BASE_S 1704103200ull
#define MS100 100000000ull

static char *text_of(struct pr_map *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	output_text.map(f, m, 0, 0);
	fclose(f);
	return buf;
}

static char *json_of(struct pr_map *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	output_json.map(f, m, 0, 0);
	fclose(f);
	return buf;
}

/* the epoch of wall second s plus ms milliseconds, 100 ms intervals */
static uint64_t ep100(uint64_t s, uint64_t ms)
{
	return (s * 1000000000ull + ms * 1000000ull) / MS100;
}

static struct pr_map ts_map(const char *name, struct pr_entry *e, size_t n, uint64_t interval,
			    uint32_t nint)
{
	return (struct pr_map){.name = name, .kind = PR_TSERIES, .entries = e, .nentries = n,
			       .ts_interval = interval, .ts_nintervals = nint};
}

/* docs/stdlib.md, example two: a zigzag from -5 to 5 and back, 100 ms each */
static void test_zigzag(void **state)
{
	static const int64_t v[] = {-5, -4, -3, -2, -1, 0, 1, 2, 3, 4, 5, 4, 3, 2, 1, 0, -1, -2, -3, -4};
	struct pr_ts_point pt[20];
	uint64_t first = ep100(BASE_S + 39 * 60 + 49, 300);
	for (int i = 0; i < 20; i++)	/* the reader's order is any order */
		pt[i] = (struct pr_ts_point){first + (uint64_t)(19 - i), v[19 - i]};
	struct pr_entry e = {.ts = pt, .nts = 20};
	struct pr_map m = ts_map("@", &e, 1, MS100, 20);
	char *s = text_of(&m);
	assert_string_equal(s,
	"@:\n"
	"             -5                                                  5\n"
	"hh:mm:ss.ms  |___________________________________________________|\n"
	"10:39:49.300 *                         .                         | -5\n"
	"10:39:49.400 |    *                    .                         | -4\n"
	"10:39:49.500 |         *               .                         | -3\n"
	"10:39:49.600 |              *          .                         | -2\n"
	"10:39:49.700 |                   *     .                         | -1\n"
	"10:39:49.800 |                         *                         | 0\n"
	"10:39:49.900 |                         .    *                    | 1\n"
	"10:39:50.000 |                         .         *               | 2\n"
	"10:39:50.100 |                         .              *          | 3\n"
	"10:39:50.200 |                         .                   *     | 4\n"
	"10:39:50.300 |                         .                         * 5\n"
	"10:39:50.400 |                         .                   *     | 4\n"
	"10:39:50.500 |                         .              *          | 3\n"
	"10:39:50.600 |                         .         *               | 2\n"
	"10:39:50.700 |                         .    *                    | 1\n"
	"10:39:50.800 |                         *                         | 0\n"
	"10:39:50.900 |                   *     .                         | -1\n"
	"10:39:51.000 |              *          .                         | -2\n"
	"10:39:51.100 |         *               .                         | -3\n"
	"10:39:51.200 |    *                    .                         | -4\n"
	"             v___________________________________________________v\n"
	"             -5                                                  5\n"
	"\n");
	free(s);
}

/* docs/stdlib.md, example one: the minimum of random values 0..9 per 100 ms */
static void test_min_example(void **state)
{
	static const int64_t v[] = {0, 0, 1, 2, 1, 0, 1, 0, 1, 0, 2, 0, 0, 1, 1, 1, 0, 2, 1, 1};
	struct pr_ts_point pt[20];
	uint64_t first = ep100(BASE_S + 41 * 60 + 46, 700);
	for (int i = 0; i < 20; i++)
		pt[i] = (struct pr_ts_point){first + (uint64_t)i, v[i]};
	struct pr_entry e = {.ts = pt, .nts = 20};
	struct pr_map m = ts_map("@", &e, 1, MS100, 20);
	char *s = text_of(&m);
	assert_string_equal(s,
	"@:\n"
	"             0                                                   2\n"
	"hh:mm:ss.ms  |___________________________________________________|\n"
	"10:41:46.700 *                                                   | 0\n"
	"10:41:46.800 *                                                   | 0\n"
	"10:41:46.900 |                         *                         | 1\n"
	"10:41:47.000 |                                                   * 2\n"
	"10:41:47.100 |                         *                         | 1\n"
	"10:41:47.200 *                                                   | 0\n"
	"10:41:47.300 |                         *                         | 1\n"
	"10:41:47.400 *                                                   | 0\n"
	"10:41:47.500 |                         *                         | 1\n"
	"10:41:47.600 *                                                   | 0\n"
	"10:41:47.700 |                                                   * 2\n"
	"10:41:47.800 *                                                   | 0\n"
	"10:41:47.900 *                                                   | 0\n"
	"10:41:48.000 |                         *                         | 1\n"
	"10:41:48.100 |                         *                         | 1\n"
	"10:41:48.200 |                         *                         | 1\n"
	"10:41:48.300 *                                                   | 0\n"
	"10:41:48.400 |                                                   * 2\n"
	"10:41:48.500 |                         *                         | 1\n"
	"10:41:48.600 |                         *                         | 1\n"
	"             v___________________________________________________v\n"
	"             0                                                   2\n"
	"\n");
	free(s);
}

/* tests/runtime/outputs/tseries_multiple.txt: the window ends at the newest
 * interval of any key; a key prints from its own first interval, its
 * missing intervals as "-" */
static void test_multiple_keys(void **state)
{
	uint64_t e0 = ep100(BASE_S, 0);
	struct pr_ts_point one[] = {{e0, 0}, {e0 + 1, 5}, {e0 + 2, 5}, {e0 + 3, 5}, {e0 + 4, 5}};
	struct pr_ts_point two[] = {{e0 + 9, 4}, {e0 + 8, 4}, {e0 + 7, 4}, {e0 + 6, 4}, {e0 + 5, 4}};
	struct pr_key k2 = {.text = "two", .is_str = true}, k1 = {.text = "one", .is_str = true};
	struct pr_entry e[] = {{.key = &k2, .nkey = 1, .ts = two, .nts = 5},
			       {.key = &k1, .nkey = 1, .ts = one, .nts = 5}};
	struct pr_map m = ts_map("@a", e, 2, MS100, 10);
	char *s = text_of(&m);
	assert_string_equal(s,
	"@a[one]:\n"
	"             0                                                   5\n"
	"hh:mm:ss.ms  |___________________________________________________|\n"
	"10:00:00.000 *                                                   | 0\n"
	"10:00:00.100 |                                                   * 5\n"
	"10:00:00.200 |                                                   * 5\n"
	"10:00:00.300 |                                                   * 5\n"
	"10:00:00.400 |                                                   * 5\n"
	"10:00:00.500 |                                                   | -\n"
	"10:00:00.600 |                                                   | -\n"
	"10:00:00.700 |                                                   | -\n"
	"10:00:00.800 |                                                   | -\n"
	"10:00:00.900 |                                                   | -\n"
	"             v___________________________________________________v\n"
	"             0                                                   5\n"
	"\n"
	"@a[two]:\n"
	"             3                                                   5\n"
	"hh:mm:ss.ms  |___________________________________________________|\n"
	"10:00:00.500 |                         *                         | 4\n"
	"10:00:00.600 |                         *                         | 4\n"
	"10:00:00.700 |                         *                         | 4\n"
	"10:00:00.800 |                         *                         | 4\n"
	"10:00:00.900 |                         *                         | 4\n"
	"             v___________________________________________________v\n"
	"             3                                                   5\n"
	"\n");
	free(s);
	s = json_of(&m);
	assert_string_equal(s,
		"{\"type\": \"tseries\", \"data\": {\"@a\": {\"one\": ["
		"{\"interval_start\":\"2024-01-01 10:00:00.000000000\",\"value\":0},"
		"{\"interval_start\":\"2024-01-01 10:00:00.100000000\",\"value\":5},"
		"{\"interval_start\":\"2024-01-01 10:00:00.200000000\",\"value\":5},"
		"{\"interval_start\":\"2024-01-01 10:00:00.300000000\",\"value\":5},"
		"{\"interval_start\":\"2024-01-01 10:00:00.400000000\",\"value\":5}], \"two\": ["
		"{\"interval_start\":\"2024-01-01 10:00:00.500000000\",\"value\":4},"
		"{\"interval_start\":\"2024-01-01 10:00:00.600000000\",\"value\":4},"
		"{\"interval_start\":\"2024-01-01 10:00:00.700000000\",\"value\":4},"
		"{\"interval_start\":\"2024-01-01 10:00:00.800000000\",\"value\":4},"
		"{\"interval_start\":\"2024-01-01 10:00:00.900000000\",\"value\":4}]}}}\n");
	free(s);
}

/* tests/runtime/outputs/tseries.txt and tseries.json: five intervals of 9,
 * the clock at 1970-01-01 00:00:00.5 (bpftrace's runtime tests pin it) */
static void test_runtime_outputs(void **state)
{
	struct pr_ts_point p[] = {{5, 9}, {6, 9}, {7, 9}, {8, 9}, {9, 9}};
	struct pr_entry e = {.ts = p, .nts = 5};
	struct pr_map m = ts_map("@a", &e, 1, MS100, 5);
	char *s = text_of(&m);
	assert_string_equal(s,
		"@a:\n"
		"             8                                                  10\n"
		"hh:mm:ss.ms  |___________________________________________________|\n"
		"00:00:00.500 |                         *                         | 9\n"
		"00:00:00.600 |                         *                         | 9\n"
		"00:00:00.700 |                         *                         | 9\n"
		"00:00:00.800 |                         *                         | 9\n"
		"00:00:00.900 |                         *                         | 9\n"
		"             v___________________________________________________v\n"
		"             8                                                  10\n"
		"\n");
	free(s);
	s = json_of(&m);
	assert_string_equal(s, "{\"type\": \"tseries\", \"data\": {\"@a\": ["
		"{\"interval_start\":\"1970-01-01 00:00:00.500000000\",\"value\":9},"
		"{\"interval_start\":\"1970-01-01 00:00:00.600000000\",\"value\":9},"
		"{\"interval_start\":\"1970-01-01 00:00:00.700000000\",\"value\":9},"
		"{\"interval_start\":\"1970-01-01 00:00:00.800000000\",\"value\":9},"
		"{\"interval_start\":\"1970-01-01 00:00:00.900000000\",\"value\":9}]}}\n");
	free(s);
}

/* intervals older than the window are left out; a key with nothing left
 * prints one empty row at the window's end, its bounds as "null" (what
 * bpftrace's text.cpp makes of a series of missing values) */
static void test_window(void **state)
{
	uint64_t e0 = BASE_S;	/* 1 s intervals: the epoch is the second */
	struct pr_ts_point a[] = {{e0, 1}, {e0 + 1, 2}, {e0 + 2, 3}, {e0 + 3, 4}};
	struct pr_ts_point b[] = {{e0, 7}};
	struct pr_key ka = {.text = "a", .is_str = true}, kb = {.text = "b", .is_str = true};
	struct pr_entry e[] = {{.key = &ka, .nkey = 1, .ts = a, .nts = 4},
			       {.key = &kb, .nkey = 1, .ts = b, .nts = 1}};
	struct pr_map m = ts_map("@w", e, 2, 1000000000ull, 3);
	uint64_t first, last;
	pr_tseries_window(&m, &first, &last);
	assert_int_equal(first, e0 + 1);
	assert_int_equal(last, e0 + 3);
	char *s = text_of(&m);
	assert_string_equal(s,
		"@w[a]:\n"
		"         2                                                   4\n"
		"hh:mm:ss |___________________________________________________|\n"
		"10:00:01 *                                                   | 2\n"
		"10:00:02 |                         *                         | 3\n"
		"10:00:03 |                                                   * 4\n"
		"         v___________________________________________________v\n"
		"         2                                                   4\n"
		"\n"
		"@w[b]:\n"
		"                   null                                             null\n"
		"hh:mm:ss.ns        |___________________________________________________|\n"
		"10:00:03.000000000 |                                                   | -\n"
		"                   v___________________________________________________v\n"
		"                   null                                             null\n"
		"\n");
	free(s);
	s = json_of(&m);
	assert_string_equal(s,
		"{\"type\": \"tseries\", \"data\": {\"@w\": {\"a\": ["
		"{\"interval_start\":\"2024-01-01 10:00:01.000000000\",\"value\":2},"
		"{\"interval_start\":\"2024-01-01 10:00:02.000000000\",\"value\":3},"
		"{\"interval_start\":\"2024-01-01 10:00:03.000000000\",\"value\":4}], \"b\": []}}}\n");
	free(s);
}

/* one interval: bpftrace's interval is 0 there, so the stamps show
 * nanoseconds; the bounds are the value -1 and +1 */
static void test_single_and_units(void **state)
{
	struct pr_ts_point p[] = {{BASE_S * 1000 + 250, 9}};	/* 1 ms intervals */
	struct pr_entry e = {.ts = p, .nts = 1};
	struct pr_map m = ts_map("@a", &e, 1, 1000000ull, 5);
	char *s = text_of(&m);
	assert_string_equal(s,
		"@a:\n"
		"                   8                                                  10\n"
		"hh:mm:ss.ns        |___________________________________________________|\n"
		"10:00:00.250000000 |                         *                         | 9\n"
		"                   v___________________________________________________v\n"
		"                   8                                                  10\n"
		"\n");
	free(s);
	/* microseconds: bpftrace spells the unit with a mu */
	struct pr_ts_point q[] = {{BASE_S * 1000000 + 7, 1}, {BASE_S * 1000000 + 8, 3}};
	e.ts = q;
	e.nts = 2;
	m.ts_interval = 1000;
	s = text_of(&m);
	assert_string_equal(s,
		"@a:\n"
		"                1                                                   3\n"
		"hh:mm:ss.\xce\xbcs    |___________________________________________________|\n"
		"10:00:00.000007 *                                                   | 1\n"
		"10:00:00.000008 |                                                   * 3\n"
		"                v___________________________________________________v\n"
		"                1                                                   3\n"
		"\n");
	free(s);
}

/* after zero(): every slot holds epoch 0, and bpftrace's window is empty */
static void test_zeroed(void **state)
{
	struct pr_ts_point p[] = {{0, 0}, {0, 0}};
	struct pr_entry e = {.ts = p, .nts = 2};
	struct pr_map m = ts_map("@z", &e, 1, MS100, 4);
	char *s = text_of(&m);
	assert_string_equal(s, "@z:\n<no data>\n");
	free(s);
	s = json_of(&m);
	assert_string_equal(s, "{\"type\": \"tseries\", \"data\": {\"@z\": []}}\n");
	free(s);
	/* a window reaching back past 1970 starts at epoch 1 (bpftrace's wraps
	 * and prints nothing), leaving zeroed slots out */
	struct pr_ts_point far[] = {{0, 0}, {20, 5}};
	e.ts = far;
	m.ts_interval = 1000ull * 86400 * 1000000000;	/* 1000 days */
	m.ts_nintervals = 4096;
	s = json_of(&m);
	assert_string_equal(s, "{\"type\": \"tseries\", \"data\": {\"@z\": ["
			       "{\"interval_start\":\"2024-10-04 00:00:00.000000000\",\"value\":5}]}}\n");
	free(s);
	/* an empty map prints nothing at all */
	m.nentries = 0;
	s = text_of(&m);
	assert_string_equal(s, "");
	free(s);
}

/* unsigned values print and compare as uint64; the zero line only shows
 * when the values span 0 */
static void test_unsigned(void **state)
{
	struct pr_ts_point p[] = {{BASE_S, -1}, {BASE_S + 1, 0}};
	struct pr_entry e = {.ts = p, .nts = 2};
	struct pr_map m = ts_map("@u", &e, 1, 1000000000ull, 2);
	m.is_unsigned = true;
	char *s = text_of(&m);
	assert_string_equal(s,
		"@u:\n"
		"         0                                18446744073709551615\n"
		"hh:mm:ss |___________________________________________________|\n"
		"10:00:00 |                                                   * 18446744073709551615\n"
		"10:00:01 *                                                   | 0\n"
		"         v___________________________________________________v\n"
		"         0                                18446744073709551615\n"
		"\n");
	free(s);
}

/* stamps are local time, and TAI's offset from the wall clock is taken off */
static void test_tai_offset(void **state)
{
	struct pr_ts_point p[] = {{BASE_S + 37, 2}, {BASE_S + 38, 2}};
	struct pr_entry e = {.ts = p, .nts = 2};
	struct pr_map m = ts_map("@t", &e, 1, 1000000000ull, 2);
	m.ts_tai_offset = 37000000000ll;
	char *s = text_of(&m);
	assert_non_null(strstr(s, "\n10:00:00 |                         *                         | 2\n"
				  "10:00:01 |"));
	free(s);
}

/* Prometheus: a gauge of the newest complete interval (not the one running) */
static void test_prometheus(void **state)
{
	struct pr_label l[] = {{"comm", "sh"}};
	struct pr_ts_point p[] = {{100, 5}, {101, 6}, {102, 7}};
	struct pr_entry e[] = {{.labels = l, .nlabels = 1, .ts = p, .nts = 3}};
	struct pr_map m = ts_map("@lat", e, 1, 1000000000ull, 10);
	m.ts_now_epoch = 102;
	int64_t v = 0;
	assert_true(pr_tseries_latest(&m, &e[0], &v));
	assert_int_equal(v, 6);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	output_prometheus.map(f, &m, 0, 0);
	fclose(f);
	assert_non_null(strstr(buf, "# TYPE sonde_lat gauge\n"));
	assert_non_null(strstr(buf, "sonde_lat{comm=\"sh\"} 6\n"));
	free(buf);
	/* only the running interval: no sample */
	m.ts_now_epoch = 100;
	assert_false(pr_tseries_latest(&m, &e[0], &v));
}

/* ---- sema ------------------------------------------------------------------ */

static void expect_error(const char *src, const char *want)
{
	struct checked c;
	char line[512];
	checked_run(&c, src, NULL);
	if (c.r || !strstr(c.msgs, want))
		fail_msg("%s\n  gave: %s\n  want: %s", src, checked_first_line(&c, line, sizeof(line)),
			 want);
	checked_free(&c);
}

static void test_sema_ok(void **state)
{
	struct checked c;
	checked_run(&c, "BEGIN { @a[comm, pid] = tseries(pid, 100ms, 20, \"avg\"); "
			"@b = tseries((uint32)5, 1s, 3); }", NULL);
	assert_non_null(c.r);
	const struct sema_map *a = checked_map(c.r, "@a"), *b = checked_map(c.r, "@b");
	assert_int_equal(a->kind, MK_TSERIES);
	assert_int_equal(a->ts_interval, 100000000);
	assert_int_equal(a->ts_nintervals, 20);
	assert_int_equal(a->ts_agg, TS_AVG);
	assert_int_equal(a->value_size, 24);
	assert_int_equal(a->key_size, 16 + 8 + 8);	/* comm, pid, the slot */
	assert_true(a->percpu);
	assert_int_equal(b->ts_agg, TS_LAST);
	assert_true(b->ts_unsigned);
	assert_int_equal(b->key_size, 16);	/* the dummy key and the slot */
	assert_int_equal(b->array_slots, 0);
	checked_free(&c);
}

static void test_sema_errors(void **state)
{
	expect_error("BEGIN { $i = 5; @a = tseries(1, $i, 5); }",
		     "t.bt:1:33: error: tseries(value, interval, num_intervals): the interval must be "
		     "a constant, like 100ms or 1s");
	expect_error("BEGIN { @a = tseries(1, 0, 5); }",
		     "t.bt:1:25: error: tseries(): the interval must be a positive duration");
	expect_error("BEGIN { @a = tseries(1, 10001d, 5); }",
		     "t.bt:1:25: error: tseries(): the interval must be at most 10000d (27 years)");
	expect_error("BEGIN { @a = tseries(1, 1s, 0); }",
		     "t.bt:1:29: error: tseries(): num_intervals must be 1 to 1000000, not 0");
	expect_error("BEGIN { @a = tseries(1, 1s, 1000001); }",
		     "num_intervals must be 1 to 1000000, not 1000001");
	expect_error("BEGIN { @a = tseries(1, 1s, pid); }",
		     "t.bt:1:29: error: tseries(value, interval, num_intervals): num_intervals must be "
		     "a constant");
	expect_error("BEGIN { @a = tseries(1, 1s, 5, \"p99\"); }",
		     "t.bt:1:32: error: tseries(): unknown aggregation \"p99\": use \"avg\", \"max\", "
		     "\"min\" or \"sum\"");
	expect_error("BEGIN { @a = tseries(1, 1s, 5, comm); }",
		     "tseries(): the aggregation must be a string literal");
	expect_error("BEGIN { @a = tseries(\"x\", 1s, 5); }",
		     "tseries() needs an integer argument, not string");
	expect_error("BEGIN { @a = count(); @a = tseries(1, 1s, 5); }",
		     "map '@a' is used as tseries here but as count elsewhere");
	expect_error("BEGIN { @a = tseries(1, 1s, 5); @a = tseries(1, 2s, 5); }",
		     "map '@a' is a tseries with another interval, num_intervals or aggregation elsewhere");
	expect_error("BEGIN { @a = tseries(1, 1s, 5); @a = tseries(1, 1s, 5, \"max\"); }",
		     "is a tseries with another interval");
	expect_error("BEGIN { @a = tseries(1, 1s, 5); if (@a > 1) { exit(); } }",
		     "map '@a' holds tseries, which cannot be read in an expression");
	expect_error("BEGIN { $x = tseries(1, 1s, 5); }", "tseries");
	expect_error("BEGIN { @a[1] = tseries(1, 1s, 5); if (has_key(@a, 1)) { exit(); } }",
		     "has_key() of tseries map '@a' is not supported (it stores a slot per interval)");
	expect_error("BEGIN { @a[1] = tseries(1, 1s, 5); $n = len(@a); }",
		     "len() of tseries map '@a' is not supported (it stores a slot per interval)");
	expect_error("BEGIN { @a[1] = tseries(1, 1s, 5); for ($kv : @a) { exit(); } }",
		     "map '@a' holds tseries");
	expect_error("let @a = percpuarray(1); BEGIN { @a = tseries(1, 1s, 5); }",
		     "map '@a' is a tseries, a slot per interval: declare it percpuhash or percpulruhash");
	expect_error("BEGIN { @a[1] = tseries(1, 1s, 5000); delete(@a, 1); }",
		     "delete() of one key of '@a' deletes each of its 5000 interval slots in BPF: at most 4096");
}

int main(void)
{
	setenv("TZ", "UTC", 1);
	tzset();
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zigzag),
		cmocka_unit_test(test_min_example),
		cmocka_unit_test(test_multiple_keys),
		cmocka_unit_test(test_runtime_outputs),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_single_and_units),
		cmocka_unit_test(test_zeroed),
		cmocka_unit_test(test_unsigned),
		cmocka_unit_test(test_tai_offset),
		cmocka_unit_test(test_prometheus),
		cmocka_unit_test(test_sema_ok),
		cmocka_unit_test(test_sema_errors),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
