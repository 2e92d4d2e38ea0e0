/*
 * tseries.c - tseries() maps: the text graph, the JSON array and the
 * Prometheus gauge's value, byte-compatible with bpftrace 0.26.
 *
 * The reader (runtime/maps.c) hands each key's intervals as points
 * (epoch, value), epoch being the interval's number on the TAI clock
 * (TAI ns / interval).  Which intervals print is bpftrace's rule: the
 * window is the last num_intervals intervals up to the newest interval of
 * ANY key of the map; a key prints from its own first interval in the
 * window to the window's end, an interval without a value as "-" (text)
 * or left out (JSON).
 *
 * The text graph (bpftrace's output/text.cpp): the least and greatest
 * value above and below a 53-column plot ("|" edges, "*" the value, "." the
 * zero line when the values span it), one row per interval stamped with
 * its local start time to the precision of the interval (s, ms, us, ns).
 * The point's column is computed in single-precision floats and truncated,
 * as bpftrace does, so that every row lands where bpftrace puts it.
 */
#include "output/out_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TS_WIDTH 53	/* the plot's columns, edges included */

/* a value, or none (an interval nobody wrote: bpftrace's monostate, which
 * orders before every number and prints as "null") */
struct tv {
	bool has;
	int64_t v;
};

struct ts_row {
	uint64_t epoch;
	struct tv val;
};

void pr_tseries_window(const struct pr_map *m, uint64_t *first, uint64_t *last)
{
	uint64_t hi = 0;
	bool any = false;
	for (size_t i = 0; i < m->nentries; i++)
		for (int j = 0; j < m->entries[i].nts; j++) {
			any = true;
			if (m->entries[i].ts[j].epoch > hi)
				hi = m->entries[i].ts[j].epoch;
		}
	*last = any ? hi : UINT64_MAX;
	/* bpftrace's first = last - n + 1 wraps when the window reaches back
	 * past 1970 (1000d intervals, 4096 of them) and prints nothing; sonde
	 * starts it at epoch 1 then.  Only zeroed slots (epoch 0): bpftrace's
	 * empty window, "<no data>" */
	if (*last + 1 >= m->ts_nintervals || *last == 0)
		*first = *last - m->ts_nintervals + 1;
	else
		*first = 1;
}

static int point_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct pr_ts_point *)a)->epoch, y = ((const struct pr_ts_point *)b)->epoch;
	return (x > y) - (x < y);
}

/* e's rows in the window [first, last]; malloc'd, *n of them.  The points
 * sorted by epoch, then one walk beside the rows: a million intervals of a
 * full series cost a sort, not a search per row */
static struct ts_row *rows_of(const struct pr_entry *e, uint64_t first, uint64_t last, size_t *n)
{
	*n = 0;
	if (first > last)
		return NULL;
	struct pr_ts_point *pt = pr_xrealloc(NULL, (size_t)(e->nts ? e->nts : 1) * sizeof(*pt));
	int np = 0;
	for (int j = 0; j < e->nts; j++)
		if (e->ts[j].epoch >= first && e->ts[j].epoch <= last)
			pt[np++] = e->ts[j];
	qsort(pt, (size_t)np, sizeof(*pt), point_cmp);
	/* from the key's first interval in the window (its end when it has none) */
	uint64_t from = np ? pt[0].epoch : last;
	struct ts_row *r = pr_xrealloc(NULL, (size_t)(last - from + 1) * sizeof(*r));
	int j = 0;
	for (uint64_t ep = from;; ep++) {
		struct ts_row *row = &r[(*n)++];
		row->epoch = ep;
		row->val.has = false;
		row->val.v = 0;
		while (j < np && pt[j].epoch < ep)
			j++;
		if (j < np && pt[j].epoch == ep) {
			row->val.has = true;
			row->val.v = pt[j].value;
		}
		if (ep == last)
			break;
	}
	free(pt);
	return r;
}

static bool tv_lt(struct tv a, struct tv b, bool uns)
{
	if (a.has != b.has)
		return !a.has;
	if (!a.has)
		return false;
	return uns ? (uint64_t)a.v < (uint64_t)b.v : a.v < b.v;
}

static bool tv_eq(struct tv a, struct tv b)
{
	return a.has == b.has && (!a.has || a.v == b.v);
}

static int64_t wrap_sub(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a - (uint64_t)b);
}

/* bpftrace's distance(p, other): p - other, 0 when p has no value */
static int64_t dist_i(struct tv p, int64_t other, bool uns)
{
	if (!p.has)
		return 0;
	if (!uns)
		return wrap_sub(p.v, other);
	uint64_t v = (uint64_t)p.v;
	if (other < 0)
		return (int64_t)((uint64_t)0 - (uint64_t)other + v);
	if (v > (uint64_t)other)
		return (int64_t)(v - (uint64_t)other);
	return -(int64_t)((uint64_t)other - v);
}

static int64_t dist(struct tv p, struct tv o, bool uns)
{
	return o.has ? dist_i(p, o.v, uns) : 0;
}

/* (int)(scale * a / b) in floats, as x86 truncates out-of-range floats */
static int float_col(int scale, int64_t a, int64_t b)
{
	float f = (float)scale * (float)a / (float)b;
	if (!(f > -2147483648.0f && f < 2147483648.0f))
		return INT32_MIN;
	return (int)f;
}

static void tv_print(FILE *out, const char *fmt_w, struct tv v, bool uns)
{
	char buf[32];
	if (!v.has)
		snprintf(buf, sizeof(buf), "null");
	else if (uns)
		snprintf(buf, sizeof(buf), "%" PRIu64, (uint64_t)v.v);
	else
		snprintf(buf, sizeof(buf), "%" PRId64, v.v);
	fprintf(out, fmt_w, buf);
}

/* fraction digits of the time stamps: bpftrace's DisplayUnit for a duration */
static int unit_digits(uint64_t ns, const char **name)
{
	if (ns >= 1000000000ull) {
		*name = "";
		return 0;
	}
	if (ns >= 1000000ull) {
		*name = ".ms";
		return 3;
	}
	if (ns >= 1000ull) {
		*name = ".\xce\xbcs";	/* μs, as bpftrace spells it */
		return 6;
	}
	*name = ".ns";
	return 9;
}

/* an interval's start as wall-clock nanoseconds */
static int64_t wall_ns(const struct pr_map *m, uint64_t epoch)
{
	return (int64_t)(epoch * m->ts_interval) - m->ts_tai_offset;
}

/* ns split into whole seconds and the nanoseconds after them (>= 0) */
static time_t split_ns(int64_t ns, int64_t *frac)
{
	time_t t = (time_t)(ns / 1000000000);
	*frac = ns % 1000000000;
	if (*frac < 0) {
		*frac += 1000000000;
		t--;
	}
	return t;
}

static void stamp(FILE *out, int64_t ns, int digits)
{
	int64_t frac;
	time_t t = split_ns(ns, &frac);
	struct tm tm;
	char buf[64];
	localtime_r(&t, &tm);
	strftime(buf, sizeof(buf), "%H:%M:%S", &tm);
	fputs(buf, out);
	if (digits == 3)
		fprintf(out, ".%03" PRId64, frac / 1000000);
	else if (digits == 6)
		fprintf(out, ".%06" PRId64, frac / 1000);
	else if (digits == 9)
		fprintf(out, ".%09" PRId64, frac);
}

static void labels_line(FILE *out, int tsize, struct tv lo, struct tv hi, bool uns)
{
	fprintf(out, "%*s", tsize + 1, "");
	tv_print(out, "%-21s", lo, uns);
	tv_print(out, "%32s", hi, uns);
	fputc('\n', out);
}

void pr_tseries_text(FILE *out, const struct pr_map *m, const struct pr_entry *e)
{
	uint64_t first, last;
	size_t n;
	bool uns = m->is_unsigned;
	pr_tseries_window(m, &first, &last);
	struct ts_row *r = rows_of(e, first, last, &n);
	if (!n) {
		fputs("<no data>", out);
		free(r);
		return;
	}
	struct tv lo = r[0].val, hi = r[0].val;
	for (size_t i = 0; i < n; i++) {
		if (!r[i].val.has)
			continue;
		if (tv_lt(r[i].val, lo, uns))
			lo = r[i].val;
		if (tv_lt(hi, r[i].val, uns))
			hi = r[i].val;
	}
	if (tv_eq(lo, hi) && lo.has) {	/* room on both sides, without overflowing */
		if (uns ? (uint64_t)lo.v > 0 : lo.v > INT64_MIN)
			lo.v = (int64_t)((uint64_t)lo.v - 1);
		if (uns ? (uint64_t)hi.v < UINT64_MAX : hi.v < INT64_MAX)
			hi.v = (int64_t)((uint64_t)hi.v + 1);
	}
	const char *unit;
	int digits = unit_digits(n > 1 ? m->ts_interval : 0, &unit);
	int tsize = 8 + (digits ? 1 + digits : 0);
	char fmt[16];
	snprintf(fmt, sizeof(fmt), "hh:mm:ss%s", unit);

	labels_line(out, tsize, lo, hi, uns);
	fprintf(out, "%-*s|", tsize + 1, fmt);
	for (int i = 0; i < TS_WIDTH - 2; i++)
		fputc('_', out);
	fputs("|\n", out);
	int zero = 0;
	struct tv z = {true, 0};
	if (dist_i(lo, 0, uns) < 0 && dist(z, hi, false) < 0)
		zero = float_col(TS_WIDTH, dist_i(lo, 0, uns), dist(lo, hi, uns));
	for (size_t i = 0; i < n; i++) {
		char line[TS_WIDTH + 1];
		memset(line, ' ', TS_WIDTH);
		line[TS_WIDTH] = '\0';
		line[0] = '|';
		line[TS_WIDTH - 1] = '|';
		if (zero > 0 && zero < TS_WIDTH)
			line[zero] = '.';
		stamp(out, wall_ns(m, r[i].epoch), digits);
		fputc(' ', out);
		if (r[i].val.has) {
			int col = TS_WIDTH / 2;
			if (!tv_eq(lo, hi))
				col = float_col(TS_WIDTH - 1, dist(lo, r[i].val, uns), dist(lo, hi, uns));
			col = col < 0 ? 0 : col > TS_WIDTH - 1 ? TS_WIDTH - 1 : col;
			line[col] = '*';
			fprintf(out, "%s ", line);
			tv_print(out, "%s", r[i].val, uns);
		} else {
			fprintf(out, "%s -", line);
		}
		fputc('\n', out);
	}
	fprintf(out, "%*s v", tsize, "");
	for (int i = 0; i < TS_WIDTH - 2; i++)
		fputc('_', out);
	fputs("v\n", out);
	labels_line(out, tsize, lo, hi, uns);
	free(r);
}

/* "@m[k]:\n" and the graph, then "\n", for each entry from `first` on */
void pr_tseries_text_map(FILE *out, const struct pr_map *m, size_t first)
{
	for (size_t i = first; i < m->nentries; i++) {
		const struct pr_entry *e = &m->entries[i];
		fputs(m->name ? m->name : "@", out);
		if (pr_entry_nkey(e)) {
			fputc('[', out);
			for (int k = 0; k < e->nkey; k++)
				fprintf(out, "%s%s", k ? ", " : "", e->key[k].text ? e->key[k].text : "");
			fputc(']', out);
		}
		fputs(":\n", out);
		pr_tseries_text(out, m, e);
		fputc('\n', out);
	}
}

/* [{"interval_start":"2025-01-02 03:04:05.000000000","value":5},...]: the
 * intervals that have a value, their start in UTC with nanoseconds, as
 * C++'s chrono prints a system_clock time (bpftrace's json.cpp) */
void pr_tseries_json(FILE *out, const struct pr_map *m, const struct pr_entry *e)
{
	uint64_t first, last;
	size_t n;
	pr_tseries_window(m, &first, &last);
	struct ts_row *r = rows_of(e, first, last, &n);
	bool sep = false;
	fputc('[', out);
	for (size_t i = 0; i < n; i++) {
		if (!r[i].val.has)
			continue;
		int64_t frac;
		time_t t = split_ns(wall_ns(m, r[i].epoch), &frac);
		struct tm tm;
		char buf[64];
		gmtime_r(&t, &tm);
		strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M:%S", &tm);
		fprintf(out, "%s{\"interval_start\":\"%s.%09" PRId64 "\",\"value\":", sep ? "," : "",
			buf, frac);
		if (m->is_unsigned)
			fprintf(out, "%" PRIu64 "}", (uint64_t)r[i].val.v);
		else
			fprintf(out, "%" PRId64 "}", r[i].val.v);
		sep = true;
	}
	fputc(']', out);
	free(r);
}

bool pr_tseries_latest(const struct pr_map *m, const struct pr_entry *e, int64_t *v)
{
	bool found = false;
	uint64_t best = 0;
	for (int j = 0; j < e->nts; j++) {
		uint64_t ep = e->ts[j].epoch;
		/* the interval now running is not complete; epoch 0 is a zeroed slot */
		if (ep == 0 || (m->ts_now_epoch && ep >= m->ts_now_epoch))
			continue;
		if (m->ts_now_epoch && ep + m->ts_nintervals < m->ts_now_epoch)
			continue;	/* older than the window */
		if (!found || ep > best) {
			best = ep;
			*v = e->ts[j].value;
			found = true;
		}
	}
	return found;
}
