/*
 * test_pictures.c - the picture writers of output/: folded lines (order of
 * key parts, user and kernel stacks; separators in names), the flame
 * graph's boxes (widths from counts, alphabetical siblings, merged paths,
 * escaping), the heatmap's columns and labels, and the pprof profile read
 * back through protobuf-c and zlib.  tests/e2e/t_pictures.sh checks the
 * same writers on real stacks, in Chromium and with go tool pprof.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include <zlib.h>

#include "common/settings.h"
#include "output/output.h"
#include "profile.pb-c.h"

/* leaf first, as the kernel gives them */
static const struct pr_frame uf1[] = {
	{"leaf+4", "leaf", "/bin/w", 0x1004, "/bin/w", true}, {"mid_x+9", "mid_x", "/bin/w", 0x1109, "/bin/w", true},
	{"main+57", "main", "/bin/w", 0x1239, "/bin/w", true},
};
static const struct pr_frame uf2[] = {
	{"leaf+4", "leaf", "/bin/w", 0x1004, "/bin/w", true}, {"mid_y+9", "mid_y", "/bin/w", 0x1309, "/bin/w", true},
	{"main+65", "main", "/bin/w", 0x1241, "/bin/w", true},
};
/* uf1's path with main at another offset, and two frames without a symbol */
static const struct pr_frame uf3[] = {
	{"0x7f0010", "0x7f0010", NULL, 0x7f0010, "/lib/libx.so.1", false},
	{"0x7f9000", "0x7f9000", NULL, 0x7f9000, NULL, false},
	{"leaf+4", "leaf", "/bin/w", 0x1004, "/bin/w", true}, {"mid_x+9", "mid_x", "/bin/w", 0x1109, "/bin/w", true},
	{"main+90", "main", "/bin/w", 0x1262, "/bin/w", true},
};
static const struct pr_frame kf[] = {
	{"do_sys+3", "do_sys", NULL, 0xffffffff81000003, NULL, true},
	{"entry+1", "entry", NULL, 0xffffffff81000101, NULL, true},
};
static const struct pr_stack us1 = {uf1, 3, false}, us2 = {uf2, 3, false}, ks = {kf, 2, true};

static char *run(const struct output_writer *w, struct pr_map *maps, int n, bool finish)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	for (int i = 0; i < n; i++)
		w->map(f, &maps[i], 0, 0);
	if (finish)
		w->finish(f);
	fclose(f);
	return buf;
}

static void test_folded(void **state)
{
	struct pr_key k1[] = {{.text = "\n    leaf+4\n", .stack = &ks}, {.text = "\n", .stack = &us1},
			      {.text = "w;1"}};
	struct pr_key k2[] = {{.text = "", .stack = &ks}, {.text = "", .stack = &us2}, {.text = "w 2"}};
	struct pr_entry e[] = {{.key = k1, .nkey = 3, .ival = 7}, {.key = k2, .nkey = 3, .ival = 3}};
	struct pr_map m = {.name = "@", .kind = PR_INT, .entries = e, .nentries = 2};
	char *s = run(&output_folded, &m, 1, false);
	/* ascending by count; key parts first, then user, then kernel; ";" in
	 * a name is "_"; one frame per function */
	assert_string_equal(s, "w 2;main;mid_y;leaf;entry;do_sys 3\n"
			       "w_1;main;mid_x;leaf;entry;do_sys 7\n");
	free(s);
	/* with folded_offsets, the frames as the text prints them */
	char msg[128];
	assert_int_equal(settings_set(SET_FOLDED_OFFSETS, "a test", "1", msg, sizeof(msg)), 0);
	s = run(&output_folded, &m, 1, false);
	assert_string_equal(s, "w 2;main+65;mid_y+9;leaf+4;entry+1;do_sys+3 3\n"
			       "w_1;main+57;mid_x+9;leaf+4;entry+1;do_sys+3 7\n");
	free(s);
	assert_int_equal(settings_set(SET_FOLDED_OFFSETS, "a test", "0", msg, sizeof(msg)), 0);
	/* two entries that differ only by an offset are one line, their
	 * values summed, in order of the sums; a frame without a symbol is
	 * its file's base name in brackets, or [unknown] */
	static const struct pr_stack us3 = {uf3, 5, false}, us4 = {uf3 + 2, 3, false};
	struct pr_key mk1[] = {{.text = "", .stack = &us1}}, mk2[] = {{.text = "", .stack = &us2}};
	struct pr_key mk3[] = {{.text = "", .stack = &us4}}, mk4[] = {{.text = "", .stack = &us3}};
	struct pr_entry me[] = {{.key = mk2, .nkey = 1, .ival = 4}, {.key = mk4, .nkey = 1, .ival = 5},
				{.key = mk1, .nkey = 1, .ival = 6}, {.key = mk3, .nkey = 1, .ival = 1}};
	struct pr_map mm = {.name = "@", .kind = PR_INT, .entries = me, .nentries = 4};
	s = run(&output_folded, &mm, 1, false);
	assert_string_equal(s, "main;mid_y;leaf 4\n"
			       "main;mid_x;leaf;[unknown];[libx.so.1] 5\n"
			       "main;mid_x;leaf 7\n");
	free(s);
	/* a stack that could not be read is one [unknown] frame */
	static const struct pr_stack none = {NULL, 0, false};
	struct pr_key uk[] = {{.text = "", .stack = &none}, {.text = "w"}};
	struct pr_entry ue[] = {{.key = uk, .nkey = 2, .ival = 2}};
	struct pr_map um = {.name = "@", .kind = PR_INT, .entries = ue, .nentries = 1};
	s = run(&output_folded, &um, 1, false);
	assert_string_equal(s, "w;[unknown] 2\n");
	free(s);
	/* a map without a stack prints nothing */
	struct pr_key nk[] = {{.text = "bash"}};
	struct pr_entry ne[] = {{.key = nk, .nkey = 1, .ival = 1}};
	struct pr_map n = {.name = "@c", .kind = PR_INT, .entries = ne, .nentries = 1};
	s = run(&output_folded, &n, 1, false);
	assert_string_equal(s, "");
	free(s);
}

/* the attribute value after `attr="` in s */
static double attr(const char *s, const char *attr_name)
{
	char pat[64];
	snprintf(pat, sizeof(pat), "%s=\"", attr_name);
	const char *p = strstr(s, pat);
	assert_non_null(p);
	return strtod(p + strlen(pat), NULL);
}

static const char *box(const char *svg, const char *title)
{
	const char *p = strstr(svg, title);
	assert_non_null(p);
	return p;
}

static void test_flamegraph(void **state)
{
	struct pr_key k1[] = {{.text = "", .stack = &us1}, {.text = "a<b"}};
	struct pr_key k2[] = {{.text = "", .stack = &us2}, {.text = "a<b"}};
	struct pr_key k3[] = {{.text = "", .stack = &us1}, {.text = "a<b"}};	/* same path as k1 */
	struct pr_entry e[] = {{.key = k1, .nkey = 2, .ival = 30}, {.key = k2, .nkey = 2, .ival = 20},
			       {.key = k3, .nkey = 2, .ival = 10}};
	struct pr_map maps[] = {
		{.name = "@cpu", .kind = PR_INT, .entries = e, .nentries = 3},
		{.name = "@n", .kind = PR_INT, .entries = (struct pr_entry[]){{.ival = 5}}, .nentries = 1},
	};
	char *buf = NULL;
	size_t len = 0;
	FILE *term = open_memstream(&buf, &len);
	output_flamegraph.map(term, &maps[0], 0, 0);
	output_flamegraph.map(term, &maps[1], 0, 0);
	fclose(term);
	assert_string_equal(buf, "@n: 5\n");	/* other maps: text on the terminal */
	free(buf);
	char *svg = run(&output_flamegraph, NULL, 0, true);
	assert_non_null(strstr(svg, "<text class=\"title\" x=\"600\" y=\"44\">@cpu</text>"));
	/* the key part, escaped, under the stacks; the merged path holds 40 of 60 */
	const char *key = box(svg, "<title>a&lt;b (60, 100.00%)</title>");
	assert_true(attr(key, "width") == 1180);
	const char *x = box(svg, "<title>mid_x (40, 66.67%)</title>");
	const char *y = box(svg, "<title>mid_y (20, 33.33%)</title>");
	assert_true(x < y);	/* alphabetical */
	assert_true(attr(x, "x") == 10);
	assert_true(attr(x, "width") > 786.66 && attr(x, "width") < 786.67);
	assert_true(attr(y, "x") > 796.66 && attr(y, "x") < 796.67);
	assert_non_null(strstr(svg, "class=\"f user\""));
	free(svg);
	/* siblings in flamegraph.pl's order: folded lines sorted as bytes, ";" after a name */
	static const struct pr_frame fa[] = {{"a", "a", NULL, 1}}, fb[] = {{"a.b", "a.b", NULL, 2}},
				     fc[] = {{"a_b", "a_b", NULL, 3}};
	static const struct pr_stack sa = {fa, 1, false}, sb = {fb, 1, false}, sc = {fc, 1, false};
	struct pr_key ka[] = {{.text = "", .stack = &sa}}, kb[] = {{.text = "", .stack = &sb}},
		      kc[] = {{.text = "", .stack = &sc}};
	struct pr_entry oe[] = {{.key = ka, .nkey = 1, .ival = 1}, {.key = kb, .nkey = 1, .ival = 1},
				{.key = kc, .nkey = 1, .ival = 1}};
	struct pr_map om = {.name = "@o", .kind = PR_INT, .entries = oe, .nentries = 3};
	svg = run(&output_flamegraph, &om, 1, true);
	const char *p1 = box(svg, "<title>a.b ("), *p2 = box(svg, "<title>a ("), *p3 = box(svg, "<title>a_b (");
	assert_true(p1 < p2 && p2 < p3);
	assert_null(strstr(svg, "http://www.w3.org/1999/xlink"));	/* nothing linked */
	free(svg);
}

static void test_heatmap(void **state)
{
	uint64_t b1[PR_HIST_BUCKETS] = {[2] = 4, [4] = 1}, b2[PR_HIST_BUCKETS] = {[3] = 9};
	struct pr_key k = {.text = "bash"};
	struct pr_entry e1 = {.key = &k, .nkey = 1, .buckets = b1, .nbuckets = PR_HIST_BUCKETS};
	struct pr_entry e2 = {.key = &k, .nkey = 1, .buckets = b2, .nbuckets = PR_HIST_BUCKETS};
	struct pr_map m[] = {{.name = "@us", .kind = PR_HIST, .entries = &e1, .nentries = 1},
			     {.name = "@us", .kind = PR_HIST, .entries = &e2, .nentries = 1}};
	char *buf = NULL;
	size_t len = 0;
	FILE *term = open_memstream(&buf, &len);
	output_heatmap.map(term, &m[0], 0, 0);
	output_heatmap.map(term, &m[1], 0, 0);
	fclose(term);
	assert_non_null(strstr(buf, "@us[bash]: \n[1]                    4 |"));	/* the text too */
	free(buf);
	char *html = run(&output_heatmap, NULL, 0, true);
	assert_non_null(strstr(html, "<h2>@us[bash]</h2>"));
	/* rows [1] .. [4, 8), labelled as the text output */
	assert_non_null(strstr(html, ">[1]</text>"));
	assert_non_null(strstr(html, ">[2, 4)</text>"));
	assert_non_null(strstr(html, ">[4, 8)</text>"));
	assert_null(strstr(html, ">[8, 16)</text>"));
	/* two columns of three cells; the largest is 9 */
	size_t cells = 0;
	for (const char *p = html; (p = strstr(p, "<rect class=\"cell\"")); p++)
		cells++;
	assert_int_equal(cells, 6);
	assert_non_null(strstr(html, "data-c=\"9\""));
	assert_non_null(strstr(html, "largest cell: 9"));
	assert_non_null(strstr(html, "Content-Security-Policy"));
	free(html);
}

static const char *str(const Perftools__Profiles__Profile *p, int64_t i)
{
	assert_true(i >= 0 && (size_t)i < p->n_string_table);
	return p->string_table[i];
}

static void test_pprof(void **state)
{
	struct pr_key k1[] = {{.text = "", .stack = &ks}, {.text = "", .stack = &us1}, {.text = "w"}};
	struct pr_key k2[] = {{.text = "", .stack = &us2}, {.text = "w"}};
	struct pr_label l1[] = {{"kstack", ""}, {"ustack", ""}, {"comm", "w"}};
	struct pr_entry e1[] = {{.key = k1, .nkey = 3, .ival = 7, .labels = l1, .nlabels = 3}};
	struct pr_entry e2[] = {{.key = k2, .nkey = 2, .ival = 3}};
	struct pr_map maps[] = {
		{.name = "@cpu", .kind = PR_INT, .counter = true, .entries = e1, .nentries = 1},
		{.name = "@bytes", .kind = PR_INT, .entries = e2, .nentries = 1},
	};
	uint8_t *gz;
	size_t gzlen;
	assert_int_equal(pr_pprof_encode(maps, 2, 1000, 2000, &gz, &gzlen), 0);
	assert_true(gz[0] == 0x1f && gz[1] == 0x8b);	/* gzip */
	uint8_t raw[1 << 16];
	z_stream z = {.next_in = gz, .avail_in = (uInt)gzlen, .next_out = raw, .avail_out = sizeof(raw)};
	assert_int_equal(inflateInit2(&z, 15 + 16), Z_OK);
	assert_int_equal(inflate(&z, Z_FINISH), Z_STREAM_END);
	size_t n = z.total_out;
	inflateEnd(&z);
	free(gz);
	Perftools__Profiles__Profile *p = perftools__profiles__profile__unpack(NULL, n, raw);
	assert_non_null(p);
	assert_string_equal(str(p, 0), "");
	assert_int_equal(p->n_sample_type, 2);
	assert_string_equal(str(p, p->sample_type[0]->type), "cpu");
	assert_string_equal(str(p, p->sample_type[0]->unit), "count");
	assert_string_equal(str(p, p->sample_type[1]->type), "bytes");
	assert_string_equal(str(p, p->sample_type[1]->unit), "sum");
	assert_int_equal(p->duration_nanos, 2000);
	assert_int_equal(p->n_sample, 2);
	/* kernel frames, then user frames, leaf first; each value in its own type */
	const Perftools__Profiles__Sample *s = p->sample[0];
	assert_int_equal(s->n_location_id, 5);
	assert_int_equal(s->n_value, 2);
	assert_int_equal(s->value[0], 7);
	assert_int_equal(s->value[1], 0);
	const char *want[] = {"do_sys", "entry", "leaf", "mid_x", "main"};
	for (int i = 0; i < 5; i++) {
		const Perftools__Profiles__Location *l = p->location[s->location_id[i] - 1];
		assert_int_equal(l->id, s->location_id[i]);
		const Perftools__Profiles__Function *f = p->function[l->line[0]->function_id - 1];
		assert_string_equal(str(p, f->name), want[i]);
		const Perftools__Profiles__Mapping *m = NULL;
		for (size_t j = 0; j < p->n_mapping; j++)
			if (p->mapping[j]->id == l->mapping_id)
				m = p->mapping[j];
		assert_non_null(m);
		assert_string_equal(str(p, m->filename), i < 2 ? "[kernel.kallsyms]" : "/bin/w");
	}
	assert_int_equal(s->n_label, 1);
	assert_string_equal(str(p, s->label[0]->key), "comm");
	assert_string_equal(str(p, s->label[0]->str), "w");
	/* leaf and main are shared: 5 + 2 locations, one mapping per file */
	assert_int_equal(p->n_location, 7);
	assert_int_equal(p->n_mapping, 2);
	assert_string_equal(str(p, p->mapping[0]->filename), "/bin/w");	/* the main binary first */
	assert_int_equal(p->sample[1]->value[1], 3);
	assert_string_equal(str(p, p->sample[1]->label[0]->key), "key2");
	perftools__profiles__profile__free_unpacked(p, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_flamegraph),
		cmocka_unit_test(test_heatmap),
		cmocka_unit_test(test_pprof),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
