/*
 * text.c - the text writer: bpftrace's terminal output, byte for byte.
 *
 * `@m[k1, k2]: V` lines joined by "\n" and followed by one "\n" (an empty
 * map prints just "\n"); avg and stats maps are followed by an extra "\n";
 * a hist/lhist entry is `@m[k]: \n` plus its bar lines, and entries are
 * separated by "\n" with one more "\n" at the end.  A rendered value that
 * already ends in "\n" (a stack) is not followed by the separator, as
 * bpftrace does for stacks.  printf and the other messages are written
 * verbatim; "Attached N probes" and "Lost N events" go to the diagnostic
 * stream.
 */
#include "output/out_int.h"

#include <inttypes.h>
#include <string.h>

#define PR_BAR_WIDTH 52

/*
 * One bar line.  `shown` is the printed count (divided by print()'s div),
 * the bar is drawn from the raw `count` against the raw `max`, as bpftrace
 * does.  Integer floor(count * 52 / max) equals bpftrace's float
 * computation for every count we could check (max up to 20000, all counts).
 */
static void bar_line(FILE *out, const char *label, uint64_t shown,
		     uint64_t count, uint64_t max)
{
	int w = max ? (int)((unsigned __int128)count * PR_BAR_WIDTH / max) : 0;

	fprintf(out, "%-16s%8" PRIu64 " |", label, shown);
	for (int i = 0; i < PR_BAR_WIDTH; i++)
		fputc(i < w ? '@' : ' ', out);
	fputs("|\n", out);
}

static void hist_text(FILE *out, const uint64_t *b, int n, int bits, uint32_t div)
{
	int first, last;
	uint64_t max;
	char label[48];

	if (!b || !pr_bucket_range(b, pr_clamp_hist_n(n), &first, &last, &max))
		return;
	for (int i = first; i <= last; i++) {
		pr_hist_label(label, sizeof(label), i, bits);
		bar_line(out, label, b[i] / div, b[i], max);
	}
}

void pr_hist_text(FILE *out, const uint64_t *buckets, int nbuckets)
{
	hist_text(out, buckets, nbuckets, 0, 1);
}

/* an lhist bound: plain decimal, or nM / nK when a non-zero multiple */
static void lhist_num_label(char *buf, size_t len, int64_t v)
{
	if (v != 0 && v % 1048576 == 0)
		snprintf(buf, len, "%" PRId64 "M", v / 1048576);
	else if (v != 0 && v % 1024 == 0)
		snprintf(buf, len, "%" PRId64 "K", v / 1024);
	else
		snprintf(buf, len, "%" PRId64, v);
}

void pr_lhist_label(char *buf, size_t len, int i, int nbuckets,
		    int64_t min, int64_t max, int64_t step)
{
	char lo[32], hi[32];

	if (i == 0) {
		lhist_num_label(lo, sizeof(lo), min);
		snprintf(buf, len, "(..., %s)", lo);
	} else if (i == nbuckets - 1) {
		lhist_num_label(lo, sizeof(lo), max);
		snprintf(buf, len, "[%s, ...)", lo);
	} else {
		lhist_num_label(lo, sizeof(lo), pr_lhist_bound(min, step, i - 1));
		lhist_num_label(hi, sizeof(hi), pr_lhist_bound(min, step, i));
		snprintf(buf, len, "[%s, %s)", lo, hi);
	}
}

void pr_lhist_text(FILE *out, const uint64_t *buckets, int nbuckets,
		   int64_t min, int64_t max, int64_t step)
{
	int first, last;
	uint64_t top;
	char label[80];

	if (!buckets || !pr_bucket_range(buckets, nbuckets, &first, &last, &top))
		return;
	for (int i = first; i <= last; i++) {
		pr_lhist_label(label, sizeof(label), i, nbuckets, min, max, step);
		bar_line(out, label, buckets[i], buckets[i], top);
	}
}

static void text_key(FILE *out, const struct pr_entry *e)
{
	if (pr_entry_nkey(e) == 0)
		return;
	fputc('[', out);
	for (int i = 0; i < e->nkey; i++) {
		if (i)
			fputs(", ", out);
		fputs(e->key[i].text ? e->key[i].text : "", out);
	}
	fputc(']', out);
}

static void text_value(FILE *out, const struct pr_map *m,
		       const struct pr_entry *e, uint32_t div)
{
	switch (m->kind) {
	case PR_INT:
	case PR_AVG:
		pr_number_value(out, m, e, div);
		break;
	case PR_STATS:
		fprintf(out, "count %" PRId64 ", average %" PRId64 ", total %" PRId64,
			e->count, pr_entry_average(e), e->total);
		break;
	case PR_HIST:
		fputc('\n', out);
		hist_text(out, e->buckets, e->nbuckets, m->hist_bits, div);
		break;
	case PR_LHIST:
		fputc('\n', out);
		pr_lhist_text(out, e->buckets, e->nbuckets, m->lh_min,
			      m->lh_max, m->lh_step);
		break;
	case PR_TEXT_VAL:
		fputs(e->text ? e->text : "", out);
		break;
	case PR_TSERIES:	/* map_text hands these to tseries.c */
		break;
	}
}

/* no "\n" between entries after a value that ends in one (stacks) */
static bool ends_in_newline(const struct pr_map *m, const struct pr_entry *e)
{
	size_t n;

	if (m->kind != PR_TEXT_VAL || !e->text)
		return false;
	n = strlen(e->text);
	return n && e->text[n - 1] == '\n';
}

static void map_text(FILE *out, const struct pr_map *m, size_t first,
		     uint32_t div)
{
	const char *name = m->name ? m->name : "@";

	if (m->kind == PR_TSERIES) {	/* an empty one prints nothing, as bpftrace */
		pr_tseries_text_map(out, m, first);
		return;
	}
	for (size_t i = first; i < m->nentries; i++) {
		const struct pr_entry *e = &m->entries[i];

		if (i > first && !ends_in_newline(m, &m->entries[i - 1]))
			fputc('\n', out);
		fputs(name, out);
		text_key(out, e);
		fputs(": ", out);
		text_value(out, m, e, div);
	}
	fputc('\n', out);
	if (m->kind == PR_AVG || m->kind == PR_STATS)
		fputc('\n', out);
}

void pr_text_map(FILE *out, struct pr_map *m, uint32_t top, uint32_t div)
{
	size_t first = pr_map_order(m, &top, &div);

	map_text(out, m, first, div);
}

void pr_text_message(FILE *out, const char *type, const char *text, size_t len)
{
	if (len)
		fwrite(text, 1, len, out);
}

void pr_text_value(FILE *out, const char *rendered)
{
	fprintf(out, "%s\n", rendered);
}

void pr_text_join(FILE *out, const char *text, size_t len)
{
	fwrite(text, 1, len, out);
	fputc('\n', out);
}

void pr_text_attached(FILE *out, FILE *diag, int nprobes)
{
	fprintf(diag, "Attached %d probe%s\n", nprobes, nprobes == 1 ? "" : "s");
}

/* as bpftrace, two newlines before the maps at exit, even with no maps */
void pr_text_maps_begin(FILE *out)
{
	fputs("\n\n", out);
}

/* --bench's table, as the newest bpftrace lays it out: the name in the
 * longest name's width (at least 40) and one, the time in 15, then the
 * iterations; the header and a rule before the first row */
void pr_text_benchmark(FILE *out, const char *const *names, int n, int index, bool first,
		       uint64_t avg_ns, uint64_t iters)
{
	int w = 40;
	for (int i = 0; i < n; i++)
		if ((int)strlen(names[i]) > w)
			w = (int)strlen(names[i]);
	if (first) {
		fprintf(out, "%-*s%-15s%s\n", w + 1, "Benchmark", "Time(ns)", "Iterations");
		for (int i = 0; i < w + 1 + 15 + 10; i++)
			fputc('-', out);
		fputc('\n', out);
	}
	char t[24];
	snprintf(t, sizeof(t), "%" PRIu64, avg_ns);
	fprintf(out, "%-*s%-15s%" PRIu64 "\n", w + 1, names[index], t, iters);
}

void pr_text_lost_events(FILE *out, FILE *diag, uint64_t lost)
{
	fprintf(diag, "Lost %" PRIu64 " events\n", lost);
}

const struct output_writer output_text = {
	.name = "text",
	.render = PR_RENDER_TEXT,
	.attached = pr_text_attached,
	.message = pr_text_message,
	.value = pr_text_value,
	.join = pr_text_join,
	.maps_begin = pr_text_maps_begin,
	.map = pr_text_map,
	.lost_events = pr_text_lost_events,
	.benchmark = pr_text_benchmark,
};
