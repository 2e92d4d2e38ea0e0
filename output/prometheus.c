/*
 * prometheus.c - maps as Prometheus metrics: the text exposition format
 * 0.0.4 and OpenMetrics 1.0 (docs/metrics.md has the whole mapping).
 *
 * Each map is one metric family named sonde_<map>: count() a counter,
 * plain integers, sum, avg, min and max gauges, stats a summary (count and
 * sum) plus a gauge <name>_avg, hist and lhist histograms.  A histogram
 * bucket's le is the upper bound of bpftrace's half-open bucket [lo, hi):
 * values are integers, and every bucket holds the values below its le, so
 * le="1024" counts values up to 1023.  The negative-values bucket of hist
 * gets le="0"; lhist's "below min" bucket gets le=min and its ">= max"
 * bucket is +Inf alone.  Only buckets from the one before the first
 * non-empty one (an le that bounds the values from below, at count 0) to
 * the last non-empty one are written (cumulative counts are zero before
 * and equal to the count after), plus +Inf, _count and _sum (the sum kept
 * exactly in BPF).
 *
 * The labels of an entry come ready from the runtime (names from the key
 * expressions, container ids expanded to Kubernetes names); here they are
 * only made valid: names that Prometheus reserves get a "key_" prefix,
 * values are escaped and made valid UTF-8.  A per-map cap on series keeps
 * the entries with the largest values and counts what it leaves out, and
 * a byte limit stops a response that would grow beyond what the server
 * sends.  Events (printf and friends) are not metrics: they go to the diag
 * stream as text.
 */
#include "output/out_int.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ---- names and values ------------------------------------------------------ */

/*
 * sonde_<map without '@'> ("sonde_map" for the anonymous @).  A counter's
 * samples add _total even to @calls_total: syscount has both @syscalls and
 * @syscalls_total, and the two families must not collide.
 * A time unit among the name's words (offcpu_us, cuda_usecs, lat_ns)
 * becomes Prometheus's base unit, seconds: the word is replaced and the
 * measured values (not the counts) are divided by the return value
 * (a division by a power of ten rounds to the shortest decimal).
 */
static double family_name(char *buf, size_t len, const struct pr_map *m)
{
	static const struct { const char *word; double scale; } units[] = {
		{"ns", 1e9}, {"nsecs", 1e9}, {"us", 1e6}, {"usecs", 1e6},
		{"ms", 1e3}, {"msecs", 1e3},
	};
	const char *n = m->name[0] == '@' ? m->name + 1 : m->name;
	char tmp[200];
	snprintf(tmp, sizeof(tmp), "%s", *n ? n : "map");
	double scale = 1;
	size_t used = (size_t)snprintf(buf, len, "sonde");
	for (char *save = NULL, *w = strtok_r(tmp, "_", &save); w && used < len;
	     w = strtok_r(NULL, "_", &save)) {
		const char *word = w;
		for (size_t i = 0; scale == 1 && i < sizeof(units) / sizeof(units[0]); i++)
			if (!strcmp(w, units[i].word)) {
				word = "seconds";
				scale = units[i].scale;
			}
		used += (size_t)snprintf(buf + used, len - used, "_%s", word);
	}
	for (char *p = buf; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		      *p == '_' || *p == ':'))
			*p = '_';
	return scale;
}

/* label names: [a-zA-Z_][a-zA-Z0-9_]*, not __*, and not le or quantile */
static void label_name(FILE *out, const char *n)
{
	bool reserved = !*n || !strcmp(n, "le") || !strcmp(n, "quantile") || !strncmp(n, "__", 2) ||
			(*n >= '0' && *n <= '9');
	if (reserved)
		fputs("key_", out);
	for (const char *p = n; *p; p++)
		fputc((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ?
		      *p : '_', out);
}

/* backslash, quote and newline escaped; bytes that are not UTF-8 become
 * U+FFFD (both formats require UTF-8; comm and paths need not be) */
static void label_value(FILE *out, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = strlen(s);
	for (size_t i = 0; i < len;) {
		if (p[i] < 0x80) {
			if (p[i] == '\\')
				fputs("\\\\", out);
			else if (p[i] == '"')
				fputs("\\\"", out);
			else if (p[i] == '\n')
				fputs("\\n", out);
			else
				fputc(p[i], out);
			i++;
			continue;
		}
		size_t n = pr_utf8_seq_len(p + i, len - i);
		if (n) {
			fwrite(p + i, 1, n, out);
			i += n;
		} else {
			fputs("\xef\xbf\xbd", out);
			i++;
		}
	}
}

/* {k="v",...} with extra (le) last; nothing for no labels */
static void labels(FILE *out, const struct pr_entry *e, const char *extra_name, const char *extra)
{
	if (!e->nlabels && !extra_name)
		return;
	fputc('{', out);
	for (int i = 0; i < e->nlabels; i++) {
		if (i)
			fputc(',', out);
		label_name(out, e->labels[i].name);
		fputs("=\"", out);
		label_value(out, e->labels[i].value);
		fputc('"', out);
	}
	if (extra_name)
		fprintf(out, "%s%s=\"%s\"", e->nlabels ? "," : "", extra_name, extra);
	fputc('}', out);
}

/* shortest form that reads back as the same double */
static void format_number(char *buf, size_t len, double v)
{
	if (isinf(v))
		snprintf(buf, len, "%s", v > 0 ? "+Inf" : "-Inf");
	else if (isnan(v))
		snprintf(buf, len, "NaN");
	else if (v == floor(v) && fabs(v) < 1e21)
		snprintf(buf, len, "%.0f", v);	/* integers (2^64) in full */
	else {
		snprintf(buf, len, "%.15g", v);
		if (strtod(buf, NULL) != v)
			snprintf(buf, len, "%.17g", v);
	}
}

static void number(FILE *out, double v)
{
	char buf[48];
	format_number(buf, sizeof(buf), v);
	fputs(buf, out);
}

/* " <v / scale>\n" */
static void scaled(FILE *out, double v, double scale)
{
	fputc(' ', out);
	number(out, v / scale);
	fputc('\n', out);
}

/* the same for an integer, exact (not through a double) when unscaled */
static void scaled_int(FILE *out, int64_t v, double scale)
{
	if (scale == 1)
		fprintf(out, " %" PRId64 "\n", v);
	else
		scaled(out, (double)v, scale);
}

static void help_type(FILE *out, const char *family, const struct pr_map *m, const char *what,
		      const char *type)
{
	fprintf(out, "# HELP %s %s of %s\n# TYPE %s %s\n", family, what, m->name, family, type);
}

/* ---- series cap ---------------------------------------------------------------- */

static uint64_t bucket_total(const struct pr_entry *e)
{
	uint64_t t = 0;
	for (int i = 0; i < e->nbuckets; i++)
		t += e->buckets[i];
	return t;
}

static double entry_value(const struct pr_map *m, const struct pr_entry *e)
{
	switch (m->kind) {
	case PR_INT: return m->is_unsigned ? (double)(uint64_t)e->ival : (double)e->ival;
	case PR_AVG: case PR_STATS: return e->count ? (double)e->total / (double)e->count : 0;
	case PR_HIST: case PR_LHIST: return (double)bucket_total(e);
	case PR_TSERIES: {
		int64_t v = 0;
		if (!pr_tseries_latest(m, e, &v))
			return 0;
		return m->is_unsigned ? (double)(uint64_t)v : (double)v;
	}
	case PR_TEXT_VAL: break;
	}
	return 0;
}

static const struct pr_map *cmp_map;
static int by_value_desc(const void *a, const void *b)
{
	double x = entry_value(cmp_map, a), y = entry_value(cmp_map, b);
	return x < y ? 1 : x > y ? -1 : 0;
}

/* the hist/lhist buckets written for e: [first, last] of the finite
 * bounds (first > last when none) */
static void finite_range(const struct pr_map *m, const struct pr_entry *e, int *first, int *last)
{
	uint64_t max;
	int n = m->kind == PR_HIST ? pr_clamp_hist_n(e->nbuckets) : e->nbuckets;
	if (!pr_bucket_range(e->buckets, n, first, last, &max)) {
		*first = 0;
		*last = -1;
		return;
	}
	/* lhist's last bucket (>= max) has no finite upper bound */
	if (m->kind == PR_LHIST && *last == e->nbuckets - 1)
		(*last)--;
	/* the empty bucket below the first one too: its le is the lower bound
	 * of the values, which histogram_quantile() interpolates from (without
	 * it, from 0: a median of 12 ms sleeps read as 8.4 ms, the middle of
	 * [0, 16.8 ms)) */
	if (*first > 0 && *first <= *last)
		(*first)--;
}

static size_t series_of(const struct pr_map *m, const struct pr_entry *e)
{
	int first, last;
	switch (m->kind) {
	case PR_INT: case PR_AVG: return 1;
	case PR_TSERIES: {
		int64_t v;
		return pr_tseries_latest(m, e, &v) ? 1 : 0;
	}
	case PR_STATS: return 3;
	case PR_HIST: case PR_LHIST:
		finite_range(m, e, &first, &last);
		return (size_t)(last >= first ? last - first + 1 : 0) + 3;
	case PR_TEXT_VAL: break;
	}
	return 0;
}

/* ---- families -------------------------------------------------------------------- */

static void histogram(FILE *out, bool om, const struct pr_map *m, const char *fam, double scale,
		      const struct pr_entry *e)
{
	int first, last;
	char le[48];
	uint64_t cum = 0;
	finite_range(m, e, &first, &last);
	for (int i = 0; i < first; i++)
		cum += e->buckets[i];
	for (int i = first; i <= last; i++) {
		cum += e->buckets[i];
		double ub = m->kind == PR_HIST ? (double)pr_hist_upper(i, m->hist_bits)
					       : (double)pr_lhist_bound(m->lh_min, m->lh_step, i);
		format_number(le, sizeof(le), ub / scale);
		if (om && !strpbrk(le, ".e"))	/* OpenMetrics writes bounds as floats */
			strcat(le, ".0");
		fprintf(out, "%s_bucket", fam);
		labels(out, e, "le", le);
		fprintf(out, " %" PRIu64 "\n", cum);
	}
	uint64_t count = bucket_total(e);
	fprintf(out, "%s_bucket", fam);
	labels(out, e, "le", "+Inf");
	fprintf(out, " %" PRIu64 "\n%s_count", count, fam);
	labels(out, e, NULL, NULL);
	fprintf(out, " %" PRIu64 "\n", count);
	/* OpenMetrics: a histogram's sum is a counter, never negative */
	if (e->has_sum && !(om && e->total < 0)) {
		fprintf(out, "%s_sum", fam);
		labels(out, e, NULL, NULL);
		scaled_int(out, e->total, scale);
	}
}

/* name{labels} total/count for the first n entries (avg, stats) */
static void averages(FILE *out, const char *name, const struct pr_map *m, size_t n, double scale)
{
	for (size_t i = 0; i < n; i++) {
		fputs(name, out);
		labels(out, &m->entries[i], NULL, NULL);
		scaled(out, entry_value(m, &m->entries[i]), scale);
	}
}

static void write_family(FILE *out, bool om, struct pr_map *m, size_t n)
{
	char fam[256], sample[300];
	double scale = family_name(fam, sizeof(fam), m);
	switch (m->kind) {
	case PR_INT:
		if (m->counter) {
			snprintf(sample, sizeof(sample), "%s_total", fam);
			help_type(out, om ? fam : sample, m, "count()", "counter");
		} else {
			/* a gauge's name never ends in _total (that says counter;
			 * promtool refuses it) */
			size_t l = strlen(fam);
			if (l > 6 + 6 && !strcmp(fam + l - 6, "_total"))
				fam[l - 6] = '\0';
			snprintf(sample, sizeof(sample), "%s", fam);
			help_type(out, fam, m, "value", "gauge");
		}
		for (size_t i = 0; i < n; i++) {
			fputs(sample, out);
			labels(out, &m->entries[i], NULL, NULL);
			if (m->is_unsigned && m->entries[i].ival < 0)	/* past INT64_MAX */
				scaled(out, (double)(uint64_t)m->entries[i].ival, m->counter ? 1 : scale);
			else
				scaled_int(out, m->entries[i].ival, m->counter ? 1 : scale);
		}
		break;
	case PR_AVG:
		help_type(out, fam, m, "avg()", "gauge");
		averages(out, fam, m, n, scale);
		break;
	case PR_STATS:
		help_type(out, fam, m, "stats() count and sum", "summary");
		for (size_t i = 0; i < n; i++) {
			const struct pr_entry *e = &m->entries[i];
			fprintf(out, "%s_count", fam);
			labels(out, e, NULL, NULL);
			fprintf(out, " %" PRId64 "\n", e->count);
			if (!(om && e->total < 0)) {
				fprintf(out, "%s_sum", fam);
				labels(out, e, NULL, NULL);
				scaled_int(out, e->total, scale);
			}
		}
		snprintf(sample, sizeof(sample), "%s_avg", fam);
		help_type(out, sample, m, "stats() average", "gauge");
		averages(out, sample, m, n, scale);
		break;
	case PR_HIST:
	case PR_LHIST:
		help_type(out, fam, m, m->kind == PR_HIST ? "hist()" : "lhist()", "histogram");
		for (size_t i = 0; i < n; i++)
			histogram(out, om, m, fam, scale, &m->entries[i]);
		break;
	case PR_TSERIES:	/* a gauge: the latest complete interval (docs/metrics.md) */
		help_type(out, fam, m, "tseries() latest complete interval", "gauge");
		for (size_t i = 0; i < n; i++) {
			int64_t v;
			if (!pr_tseries_latest(m, &m->entries[i], &v))
				continue;
			fputs(fam, out);
			labels(out, &m->entries[i], NULL, NULL);
			if (m->is_unsigned && v < 0)
				scaled(out, (double)(uint64_t)v, scale);
			else
				scaled_int(out, v, scale);
		}
		break;
	case PR_TEXT_VAL:
		break;
	}
}

/*
 * The `map` hook of both writers.  Strings and tuples are not numbers:
 * such maps are left out (docs/metrics.md).  top and div are print()'s
 * and mean nothing to a scraper.
 */
static void prom_map(FILE *out, bool om, struct pr_map *m)
{
	if (m->kind == PR_TEXT_VAL)
		return;
	/* the keyless count() that never fired is an entry with value 0 */
	cmp_map = m;
	if (m->nentries > 1)
		qsort(m->entries, m->nentries, sizeof(*m->entries), by_value_desc);
	size_t kept = 0, series = 0;
	for (; kept < m->nentries; kept++) {
		size_t s = series_of(m, &m->entries[kept]);
		if (m->series_cap && series + s > m->series_cap)
			break;
		series += s;
	}
	for (size_t i = kept; i < m->nentries; i++)
		m->series_dropped += series_of(m, &m->entries[i]);
	long at = ftell(out);
	/* a response byte limit: estimate before writing (a line is short)
	 * and keep the family whole rather than cut a histogram */
	if (m->byte_limit && at >= 0) {
		size_t per = 0;
		for (size_t i = 0; i < kept; i++)
			per += series_of(m, &m->entries[i]) * (64 + 48 * (size_t)m->entries[i].nlabels);
		while (kept && (size_t)at + per > m->byte_limit) {
			kept--;
			size_t s = series_of(m, &m->entries[kept]);
			m->series_dropped += s;
			per -= s * (64 + 48 * (size_t)m->entries[kept].nlabels);
		}
	}
	if (kept || !m->nentries)
		write_family(out, om, m, kept);
}

static void prom_map_text(FILE *out, struct pr_map *m, uint32_t top, uint32_t div)
{
	prom_map(out, false, m);
}

static void om_map(FILE *out, struct pr_map *m, uint32_t top, uint32_t div)
{
	prom_map(out, true, m);
}

/* ---- sonde's own health -------------------------------------------------------- */

/* HELP and TYPE of one of sonde's own families, named after its samples
 * (a counter's family drops _total in OpenMetrics) */
static void own_family(FILE *out, bool om, const char *sample, const char *type, const char *help)
{
	size_t len = strlen(sample);
	if (om && !strcmp(type, "counter"))
		len -= strlen("_total");
	fprintf(out, "# HELP %.*s %s\n# TYPE %.*s %s\n", (int)len, sample, help, (int)len, sample, type);
}

/* name{label="value"}, or name alone */
static void own_sample(FILE *out, const char *name, const char *label, const char *value)
{
	struct pr_label l = {label, value};
	struct pr_entry e = {.labels = &l, .nlabels = label ? 1 : 0};
	fputs(name, out);
	labels(out, &e, NULL, NULL);
}

/* a family of one unlabelled integer sample */
static void own_u64(FILE *out, bool om, const char *name, const char *type, const char *help, uint64_t v)
{
	own_family(out, om, name, type, help);
	own_sample(out, name, NULL, NULL);
	fprintf(out, " %" PRIu64 "\n", v);
}

void pr_prom_seconds_total(FILE *out, bool om, const char *name, const char *help,
			   const struct pr_series *s, size_t n)
{
	own_family(out, om, name, "counter", help);
	for (size_t i = 0; i < n; i++) {
		struct pr_entry e = {.labels = s[i].labels, .nlabels = s[i].nlabels};
		fputs(name, out);
		labels(out, &e, NULL, NULL);
		scaled(out, (double)s[i].ns, 1e9);
	}
}

void pr_prom_health(FILE *out, bool om, const struct pr_health *h)
{
	own_u64(out, om, "sonde_events_lost_total", "counter",
		"Events the BPF ring buffer had no room for.", h->lost);
	own_family(out, om, "sonde_series_dropped_total", "counter",
		   "Series the per-map cap or the response size limit left out.");
	for (int i = 0; i < h->nmaps; i++) {
		own_sample(out, "sonde_series_dropped_total", "map", h->maps[i]);
		fprintf(out, " %" PRIu64 "\n", h->dropped[i]);
	}
	if (h->nprobes) {
		own_family(out, om, "sonde_probe_hits_total", "counter", "Times each probe's BPF program ran.");
		for (int i = 0; i < h->nprobes; i++) {
			own_sample(out, "sonde_probe_hits_total", "probe", h->probes[i].probe);
			fprintf(out, " %" PRIu64 "\n", h->probes[i].hits);
		}
		own_family(out, om, "sonde_probe_bpf_seconds_total", "counter",
			   "Time each probe's BPF program ran.");
		for (int i = 0; i < h->nprobes; i++) {
			own_sample(out, "sonde_probe_bpf_seconds_total", "probe", h->probes[i].probe);
			scaled(out, (double)h->probes[i].run_ns, 1e9);
		}
		own_family(out, om, "sonde_probe_bpf_seconds_per_hit", "gauge",
			   "Average time a probe's BPF program takes (1e-7 is 100 ns).");
		for (int i = 0; i < h->nprobes; i++) {
			const struct pr_probe_stat *p = &h->probes[i];
			own_sample(out, "sonde_probe_bpf_seconds_per_hit", "probe", p->probe);
			scaled(out, p->hits ? (double)p->run_ns / (double)p->hits : 0, 1e9);
		}
	}
	if (h->procs) {
		own_u64(out, om, "sonde_processes_kept", "gauge",
			"Processes whose state (mappings) sonde keeps to name their stacks.", h->procs_kept);
		own_u64(out, om, "sonde_processes_evicted_total", "counter",
			"Processes whose state the cap dropped before their stacks were printed.",
			h->procs_evicted);
	}
	own_family(out, om, "sonde_last_scrape_duration_seconds", "gauge",
		   "How long the previous scrape took to read the maps.");
	own_sample(out, "sonde_last_scrape_duration_seconds", NULL, NULL);
	scaled(out, h->last_scrape_s, 1);
	if (om)
		fputs("# EOF\n", out);
}

/* ---- the writers ------------------------------------------------------------------ */

static void prom_attached(FILE *out, FILE *diag, int n)
{
	fprintf(diag, "Attached %d probe%s\n", n, n == 1 ? "" : "s");
}

/* events are not metrics: the runtime gives them a stream of their own
 * (stdout) and they read as in the text format there */
static void prom_message(FILE *out, const char *type, const char *text, size_t len)
{
	fwrite(text, 1, len, out);
}
static void prom_value(FILE *out, const char *rendered) { fprintf(out, "%s\n", rendered); }
static void prom_join(FILE *out, const char *text, size_t len)
{
	fwrite(text, 1, len, out);
	fputc('\n', out);
}
static void prom_maps_begin(FILE *out) {}
static void prom_lost(FILE *out, FILE *diag, uint64_t lost)
{
	fprintf(diag, "Lost %" PRIu64 " events\n", lost);
}

const struct output_writer output_prometheus = {
	.name = "prometheus",
	.render = PR_RENDER_TEXT,
	.scrape = true,
	.attached = prom_attached,
	.message = prom_message,
	.value = prom_value,
	.join = prom_join,
	.maps_begin = prom_maps_begin,
	.map = prom_map_text,
	.lost_events = prom_lost,
};

const struct output_writer output_openmetrics = {
	.name = "openmetrics",
	.render = PR_RENDER_TEXT,
	.scrape = true,
	.openmetrics = true,
	.attached = prom_attached,
	.message = prom_message,
	.value = prom_value,
	.join = prom_join,
	.maps_begin = prom_maps_begin,
	.map = om_map,
	.lost_events = prom_lost,
};
