/*
 * test_prometheus.c - the Prometheus and OpenMetrics writers
 * (output/prometheus.c), golden: counters, gauges, avg, stats, hist and
 * lhist buckets, label escaping and repair, the series cap and the byte
 * limit, the health families; and the label names sema gives map keys.  tests/e2e/t_serve.sh checks the same
 * exposition with promtool and a real Prometheus server.
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
#include "output/output.h"
#include "parser/parser.h"
#include "sema/sema.h"
#include "stdlib/stdlib.h"
#include "harness.h"

static char *render(const struct output_writer *w, struct pr_map *m)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	w->map(f, m, 0, 0);
	fclose(f);
	return buf;
}

static void test_counter_labels(void **state)
{
	struct pr_label l1[] = {{"pid", "12"}, {"comm", "a\"b\\c\nd"}};
	struct pr_label l2[] = {{"pid", "7"}, {"comm", "bad\xff" "utf8"}};
	struct pr_entry e[] = {
		{.ival = 5, .labels = l1, .nlabels = 2},
		{.ival = 9, .labels = l2, .nlabels = 2},
	};
	struct pr_map m = {.name = "@calls", .kind = PR_INT, .counter = true, .entries = e, .nentries = 2};
	char *s = render(&output_prometheus, &m);
	assert_string_equal(s,
		"# HELP sonde_calls_total count() of @calls\n"
		"# TYPE sonde_calls_total counter\n"
		"sonde_calls_total{pid=\"7\",comm=\"bad\xef\xbf\xbdutf8\"} 9\n"
		"sonde_calls_total{pid=\"12\",comm=\"a\\\"b\\\\c\\nd\"} 5\n");
	free(s);
	s = render(&output_openmetrics, &m);
	assert_non_null(strstr(s, "# TYPE sonde_calls counter\n"));
	assert_non_null(strstr(s, "\nsonde_calls_total{pid=\"7\""));
	free(s);
}

static void test_gauges(void **state)
{
	struct pr_label bad[] = {{"le", "1"}, {"__x", "2"}, {"0a", "3"}};
	struct pr_entry e[] = {{.ival = -3, .labels = bad, .nlabels = 3}};
	struct pr_map m = {.name = "@", .kind = PR_INT, .entries = e, .nentries = 1};
	char *s = render(&output_prometheus, &m);
	assert_string_equal(s,
		"# HELP sonde_map value of @\n# TYPE sonde_map gauge\n"
		"sonde_map{key_le=\"1\",key___x=\"2\",key_0a=\"3\"} -3\n");
	free(s);
	struct pr_entry a[] = {{.count = 3, .total = 10}};
	struct pr_map avg = {.name = "@lat", .kind = PR_AVG, .entries = a, .nentries = 1};
	s = render(&output_prometheus, &avg);
	assert_string_equal(s, "# HELP sonde_lat avg() of @lat\n# TYPE sonde_lat gauge\n"
			       "sonde_lat 3.3333333333333335\n");
	free(s);
	struct pr_map st = {.name = "@s", .kind = PR_STATS, .entries = a, .nentries = 1};
	s = render(&output_prometheus, &st);
	assert_string_equal(s,
		"# HELP sonde_s stats() count and sum of @s\n# TYPE sonde_s summary\n"
		"sonde_s_count 3\nsonde_s_sum 10\n"
		"# HELP sonde_s_avg stats() average of @s\n# TYPE sonde_s_avg gauge\n"
		"sonde_s_avg 3.3333333333333335\n");
	free(s);
}

static void test_hist(void **state)
{
	uint64_t b[PR_HIST_BUCKETS] = {0};
	b[3] = 2;	/* [2, 4) */
	b[5] = 1;	/* [8, 16) */
	struct pr_label l[] = {{"comm", "x"}};
	struct pr_entry e[] = {{.buckets = b, .nbuckets = PR_HIST_BUCKETS, .total = 17, .has_sum = true,
				.labels = l, .nlabels = 1}};
	struct pr_map m = {.name = "@h", .kind = PR_HIST, .entries = e, .nentries = 1};
	char *s = render(&output_prometheus, &m);
	assert_string_equal(s,
		"# HELP sonde_h hist() of @h\n# TYPE sonde_h histogram\n"
		/* the empty bucket below: histogram_quantile's lower bound */
		"sonde_h_bucket{comm=\"x\",le=\"2\"} 0\n"
		"sonde_h_bucket{comm=\"x\",le=\"4\"} 2\n"
		"sonde_h_bucket{comm=\"x\",le=\"8\"} 2\n"
		"sonde_h_bucket{comm=\"x\",le=\"16\"} 3\n"
		"sonde_h_bucket{comm=\"x\",le=\"+Inf\"} 3\n"
		"sonde_h_count{comm=\"x\"} 3\n"
		"sonde_h_sum{comm=\"x\"} 17\n");
	free(s);
	s = render(&output_openmetrics, &m);
	assert_non_null(strstr(s, "sonde_h_bucket{comm=\"x\",le=\"16.0\"} 3\n"));
	free(s);
	/* negatives (bucket 0, le 0) and the top bucket (2^64); no sum in
	 * OpenMetrics when it is negative */
	memset(b, 0, sizeof(b));
	b[0] = 1;
	b[65] = 1;
	e[0].total = -5;
	e[0].nlabels = 0;
	s = render(&output_openmetrics, &m);
	assert_non_null(strstr(s, "sonde_h_bucket{le=\"0.0\"} 1\n"));
	assert_non_null(strstr(s, "sonde_h_bucket{le=\"18446744073709551616.0\"} 2\n"));
	assert_null(strstr(s, "_sum"));
	free(s);
}

static void test_lhist(void **state)
{
	/* lhist(v, 0, 30, 10): <0, [0,10), [10,20), [20,30), >=30 */
	uint64_t b[5] = {0, 4, 0, 1, 2};
	struct pr_entry e[] = {{.buckets = b, .nbuckets = 5, .total = 99, .has_sum = true}};
	struct pr_map m = {.name = "@l", .kind = PR_LHIST, .lh_min = 0, .lh_max = 30, .lh_step = 10,
			   .entries = e, .nentries = 1};
	char *s = render(&output_prometheus, &m);
	assert_string_equal(s,
		"# HELP sonde_l lhist() of @l\n# TYPE sonde_l histogram\n"
		"sonde_l_bucket{le=\"0\"} 0\n"
		"sonde_l_bucket{le=\"10\"} 4\n"
		"sonde_l_bucket{le=\"20\"} 4\n"
		"sonde_l_bucket{le=\"30\"} 5\n"
		"sonde_l_bucket{le=\"+Inf\"} 7\n"
		"sonde_l_count 7\nsonde_l_sum 99\n");
	free(s);
}

/* a time unit in the name: seconds, values scaled, counts not */
static void test_units(void **state)
{
	uint64_t b[PR_HIST_BUCKETS] = {0};
	b[12] = 3;	/* [1024, 2048) us */
	struct pr_entry e[] = {{.buckets = b, .nbuckets = PR_HIST_BUCKETS, .total = 4000, .has_sum = true}};
	struct pr_map m = {.name = "@ioctl_usecs", .kind = PR_HIST, .entries = e, .nentries = 1};
	char *s = render(&output_prometheus, &m);
	assert_string_equal(s,
		"# HELP sonde_ioctl_seconds hist() of @ioctl_usecs\n# TYPE sonde_ioctl_seconds histogram\n"
		"sonde_ioctl_seconds_bucket{le=\"0.001024\"} 0\n"
		"sonde_ioctl_seconds_bucket{le=\"0.002048\"} 3\n"
		"sonde_ioctl_seconds_bucket{le=\"+Inf\"} 3\n"
		"sonde_ioctl_seconds_count 3\nsonde_ioctl_seconds_sum 0.004\n");
	free(s);
	struct pr_entry g[] = {{.ival = 1500}};
	struct pr_map gm = {.name = "@offcpu_us_total", .kind = PR_INT, .entries = g, .nentries = 1};
	s = render(&output_prometheus, &gm);
	assert_non_null(strstr(s, "\nsonde_offcpu_seconds 0.0015\n"));
	free(s);
	gm.counter = true;
	gm.name = "@calls_ns";
	s = render(&output_prometheus, &gm);
	assert_non_null(strstr(s, "\nsonde_calls_seconds_total 1500\n"));
	free(s);
}

static void test_cap_and_limit(void **state)
{
	enum { N = 50 };
	struct pr_entry e[N];
	struct pr_label l[N];
	char names[N][8];
	memset(e, 0, sizeof(e));
	for (int i = 0; i < N; i++) {
		snprintf(names[i], sizeof(names[i]), "%d", i);
		l[i] = (struct pr_label){"pid", names[i]};
		e[i] = (struct pr_entry){.ival = i, .labels = &l[i], .nlabels = 1};
	}
	struct pr_map m = {.name = "@c", .kind = PR_INT, .counter = true, .entries = e, .nentries = N,
			   .series_cap = 10};
	char *s = render(&output_prometheus, &m);
	/* the 10 largest stay */
	assert_non_null(strstr(s, "{pid=\"49\"} 49\n"));
	assert_non_null(strstr(s, "{pid=\"40\"} 40\n"));
	assert_null(strstr(s, "{pid=\"39\"}"));
	assert_int_equal(m.series_dropped, 40);
	free(s);
	/* a byte limit leaves out whole entries */
	m.series_cap = 0;
	m.series_dropped = 0;
	m.byte_limit = 600;
	s = render(&output_prometheus, &m);
	assert_true(strlen(s) <= 600);
	assert_true(m.series_dropped > 0 && m.series_dropped < N);
	free(s);
}

static void test_health(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct pr_probe_stat ps[] = {{"tracepoint:syscalls:sys_enter_ioctl", 10, 1500}};
	const char *maps[] = {"@calls"};
	uint64_t dropped[] = {4};
	struct pr_health h = {.lost = 2, .probes = ps, .nprobes = 1, .maps = maps, .dropped = dropped,
			      .nmaps = 1, .last_scrape_s = 0.25};
	pr_prom_health(f, true, &h);
	fclose(f);
	assert_non_null(strstr(buf, "# TYPE sonde_events_lost counter\nsonde_events_lost_total 2\n"));
	assert_non_null(strstr(buf, "sonde_series_dropped_total{map=\"@calls\"} 4\n"));
	assert_non_null(strstr(buf, "sonde_probe_hits_total{probe=\"tracepoint:syscalls:sys_enter_ioctl\"} 10\n"));
	assert_non_null(strstr(buf, "sonde_probe_bpf_seconds_total{probe=\"tracepoint:syscalls:sys_enter_ioctl\"} 1.5e-06\n"));
	assert_non_null(strstr(buf, "sonde_probe_bpf_seconds_per_hit{probe=\"tracepoint:syscalls:sys_enter_ioctl\"} 1.5e-07\n"));
	assert_non_null(strstr(buf, "sonde_last_scrape_duration_seconds 0.25\n# EOF\n"));
	free(buf);
}

/* sonde diagnose --serve's family: nanoseconds as seconds, a counter whose
 * OpenMetrics family drops _total, labels escaped; and every category of
 * the report has a state label, none of them twice */
static void test_diagnose_seconds(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	struct pr_label l1[] = {{"container", "0123456789ab"}, {"thread", "a\"b"}, {"state", "waiting_cpu"}};
	struct pr_series s[] = {{l1, 3, 1500000000}, {l1, 2, 7}};
	pr_prom_seconds_total(f, true, "sonde_diagnose_seconds_total", "Time.", s, 2);
	fclose(f);
	assert_string_equal(buf,
		"# HELP sonde_diagnose_seconds Time.\n"
		"# TYPE sonde_diagnose_seconds counter\n"
		"sonde_diagnose_seconds_total{container=\"0123456789ab\",thread=\"a\\\"b\",state=\"waiting_cpu\"} 1.5\n"
		"sonde_diagnose_seconds_total{container=\"0123456789ab\",thread=\"a\\\"b\"} 7e-09\n");
	free(buf);
	for (int c = 0; c < DX_NCAT; c++) {
		assert_non_null(dx_cat_state(c));
		for (int d = 0; d < c; d++)
			assert_string_not_equal(dx_cat_state(c), dx_cat_state(d));
	}
	assert_string_equal(dx_cat_state(DX_RUNQ), "waiting_cpu");
	assert_string_equal(dx_cat_state(DX_FAULT), "major_fault");
	assert_string_equal(dx_cat_state(DX_GPU), "gpu_driver");
}

/* label names come from the key expressions (sema/sema.c key_label) */
static void test_label_names(void **state)
{
	struct checked c;
	struct sema_opts o = {.builtins = stdlib_find};
	checked_run(&c, "BEGIN { $reason = 1; @m[pid, comm, $reason, (uint32)cpu, 1 + 2, pid] = count();"
		    " @n = count(); }", &o);
	assert_non_null(c.r);
	const struct sema_map *m = checked_map(c.r, "@m");
	const char *want[] = {"pid", "comm", "reason", "cpu", "key4", "pid_6"};
	for (int i = 0; i < 6; i++)
		assert_string_equal(m->labels[i], want[i]);
	assert_null(checked_map(c.r, "@n")->labels);
	checked_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_counter_labels),
		cmocka_unit_test(test_gauges),
		cmocka_unit_test(test_hist),
		cmocka_unit_test(test_lhist),
		cmocka_unit_test(test_units),
		cmocka_unit_test(test_cap_and_limit),
		cmocka_unit_test(test_health),
		cmocka_unit_test(test_label_names),
		cmocka_unit_test(test_diagnose_seconds),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
