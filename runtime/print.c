/*
 * print.c - text and JSON printers for map contents and output events.
 *
 * Everything here is a pure function of the plain structs in print.h and
 * writes only to the FILE* it is given, so the exact bytes are golden-tested
 * without root.  The shapes follow bpftrace 0.17, measured on its output:
 *
 *  - text: `@m[k1, k2]: V` lines joined by "\n" and followed by one "\n"
 *    (an empty map prints just "\n"); avg and stats maps are followed by an
 *    extra "\n"; a hist/lhist entry is `@m[k]: \n` plus its bar lines, and
 *    entries are separated by "\n" with one more "\n" at the end.  A
 *    rendered value that already ends in "\n" (a stack) is not followed by
 *    the separator, as bpftrace does for stacks.
 *  - JSON: one line `{"type": T, "data": {"@m": V}}` with T "map" (ints,
 *    strings), "stats" (avg and stats) or "hist" (hist and lhist); keyed
 *    maps nest `{"k1,k2": V, ...}`; an empty map prints nothing.
 *  - print(@m, top, div): stats maps ignore both, lhist ignores div, hist
 *    divides the shown counts but draws bars from the raw ones.
 *
 * Where 0.17 is wrong sonde is right: hist buckets above 2^32, signed map
 * values, JSON strings that stay valid for any input bytes (0.17 writes
 * bytes >= 0x80 as "\uffffffc3"), deterministic order for equal values, and
 * every ksym/usym/inet value on its own line (0.17 runs them together).
 */
#include "runtime/print.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define PR_BAR_WIDTH 52

/* ---------------------------------------------------------------- JSON */

/*
 * Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0 if
 * the bytes there are not one: overlong forms, surrogates and code points
 * above U+10FFFF are rejected, as RFC 3629 requires.
 */
static size_t utf8_seq_len(const unsigned char *s, size_t n)
{
	unsigned char c = s[0];
	size_t len;
	unsigned char lo = 0x80, hi = 0xbf;	/* bounds for the second byte */

	if (c >= 0xc2 && c <= 0xdf)
		len = 2;
	else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		if (c == 0xe0)
			lo = 0xa0;	/* overlong */
		else if (c == 0xed)
			hi = 0x9f;	/* surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		if (c == 0xf0)
			lo = 0x90;	/* overlong */
		else if (c == 0xf4)
			hi = 0x8f;	/* above U+10FFFF */
	} else
		return 0;
	if (n < len || s[1] < lo || s[1] > hi)
		return 0;
	for (size_t i = 2; i < len; i++)
		if (s[i] < 0x80 || s[i] > 0xbf)
			return 0;
	return len;
}

/*
 * The body of a JSON string: quote, backslash, \n \r \t by name, other
 * control bytes and every byte that is not part of well-formed UTF-8 as
 * \u00XX (lowercase hex, as bpftrace writes control bytes), so the result
 * is valid JSON whatever the input.
 */
static void json_escape(FILE *out, const char *s, size_t len)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		unsigned char c = p[i];

		if (c >= 0x80) {
			size_t n = utf8_seq_len(p + i, len - i);
			if (n) {
				fwrite(p + i, 1, n, out);
				i += n;
			} else {
				fprintf(out, "\\u%04x", c);
				i++;
			}
			continue;
		}
		switch (c) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		default:
			if (c < 0x20)
				fprintf(out, "\\u%04x", c);
			else
				fputc(c, out);
		}
		i++;
	}
}

void pr_json_string(FILE *out, const char *s, size_t len)
{
	fputc('"', out);
	if (s)
		json_escape(out, s, len);
	fputc('"', out);
}

static void json_cstring(FILE *out, const char *s)
{
	pr_json_string(out, s, s ? strlen(s) : 0);
}

void pr_json_event(FILE *out, const char *type, const char *data_json)
{
	fputs("{\"type\": ", out);
	json_cstring(out, type);
	fprintf(out, ", \"data\": %s}\n", data_json ? data_json : "null");
}

void pr_message(FILE *out, enum pr_format f, const char *type, const char *text,
		size_t len)
{
	switch (f) {
	case PR_TEXT:
		if (len)
			fwrite(text, 1, len, out);
		break;
	case PR_JSON:
		fputs("{\"type\": ", out);
		json_cstring(out, type);
		fputs(", \"data\": ", out);
		pr_json_string(out, text, len);
		fputs("}\n", out);
		break;
	}
}

void pr_printf_out(FILE *out, enum pr_format f, const char *text, size_t len)
{
	pr_message(out, f, "printf", text, len);
}

void pr_attached(FILE *out, enum pr_format f, int nprobes)
{
	switch (f) {
	case PR_TEXT:
		fprintf(out, "Attached %d probe%s\n", nprobes,
			nprobes == 1 ? "" : "s");
		break;
	case PR_JSON:
		fprintf(out, "{\"type\": \"attached_probes\", \"data\": {\"probes\": %d}}\n",
			nprobes);
		break;
	}
}

void pr_lost_events(FILE *out, enum pr_format f, uint64_t lost)
{
	switch (f) {
	case PR_TEXT:
		fprintf(out, "Lost %" PRIu64 " events\n", lost);
		break;
	case PR_JSON:
		fprintf(out, "{\"type\": \"lost_events\", \"data\": {\"events\": %" PRIu64 "}}\n",
			lost);
		break;
	}
}

/* ----------------------------------------------------- bucket labels */

/* 2^power as bpftrace writes it: 512, 1K, 2M ... 8E, 16E */
static void pow2_label(char *buf, size_t len, int power)
{
	static const char suffix[] = { 0, 'K', 'M', 'G', 'T', 'P', 'E' };
	int k = power / 10;

	if (k > 6)
		k = 6;
	unsigned long long n = 1ULL << (power - 10 * k);
	if (suffix[k])
		snprintf(buf, len, "%llu%c", n, suffix[k]);
	else
		snprintf(buf, len, "%llu", n);
}

void pr_hist_label(char *buf, size_t len, int i)
{
	char lo[24], hi[24];

	if (i <= 0) {
		snprintf(buf, len, "(..., 0)");
	} else if (i == 1) {
		snprintf(buf, len, "[0]");
	} else if (i == 2) {
		snprintf(buf, len, "[1]");
	} else {
		if (i > PR_HIST_BUCKETS - 1)
			i = PR_HIST_BUCKETS - 1;
		pow2_label(lo, sizeof(lo), i - 2);
		pow2_label(hi, sizeof(hi), i - 1);
		snprintf(buf, len, "[%s, %s)", lo, hi);
	}
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

/* min + i * step without signed overflow (saturating; sema keeps it in range) */
static int64_t lhist_bound(int64_t min, int64_t step, int i)
{
	__int128 v = (__int128)min + (__int128)step * i;

	if (v > INT64_MAX)
		return INT64_MAX;
	if (v < INT64_MIN)
		return INT64_MIN;
	return (int64_t)v;
}

static void lhist_label(char *buf, size_t len, int i, int nbuckets,
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
		lhist_num_label(lo, sizeof(lo), lhist_bound(min, step, i - 1));
		lhist_num_label(hi, sizeof(hi), lhist_bound(min, step, i));
		snprintf(buf, len, "[%s, %s)", lo, hi);
	}
}

/* --------------------------------------------------------- bar lines */

/* first and last non-zero bucket and the largest count; false if all zero */
static bool bucket_range(const uint64_t *b, int n, int *first, int *last,
			 uint64_t *max)
{
	*first = -1;
	*last = -1;
	*max = 0;
	for (int i = 0; i < n; i++) {
		if (!b[i])
			continue;
		if (*first < 0)
			*first = i;
		*last = i;
		if (b[i] > *max)
			*max = b[i];
	}
	return *first >= 0;
}

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

static int clamp_hist_n(int n)
{
	if (n < 0)
		return 0;
	return n > PR_HIST_BUCKETS ? PR_HIST_BUCKETS : n;
}

static void hist_text(FILE *out, const uint64_t *b, int n, uint32_t div)
{
	int first, last;
	uint64_t max;
	char label[48];

	if (!b || !bucket_range(b, clamp_hist_n(n), &first, &last, &max))
		return;
	for (int i = first; i <= last; i++) {
		pr_hist_label(label, sizeof(label), i);
		bar_line(out, label, b[i] / div, b[i], max);
	}
}

void pr_hist_text(FILE *out, const uint64_t *buckets, int nbuckets)
{
	hist_text(out, buckets, nbuckets, 1);
}

void pr_lhist_text(FILE *out, const uint64_t *buckets, int nbuckets,
		   int64_t min, int64_t max, int64_t step)
{
	int first, last;
	uint64_t top;
	char label[80];

	if (!buckets || !bucket_range(buckets, nbuckets, &first, &last, &top))
		return;
	for (int i = first; i <= last; i++) {
		lhist_label(label, sizeof(label), i, nbuckets, min, max, step);
		bar_line(out, label, buckets[i], buckets[i], top);
	}
}

/* ------------------------------------------------------- JSON bodies */

static void hist_json(FILE *out, const uint64_t *b, int n, uint32_t div)
{
	int first, last;
	uint64_t max;

	fputc('[', out);
	if (b && bucket_range(b, clamp_hist_n(n), &first, &last, &max)) {
		for (int i = first; i <= last; i++) {
			if (i > first)
				fputs(", ", out);
			if (i == 0) {
				fputs("{\"max\": -1, ", out);
			} else if (i == 1) {
				fputs("{\"min\": 0, \"max\": 0, ", out);
			} else {
				uint64_t lo = 1ULL << (i - 2);
				fprintf(out, "{\"min\": %" PRIu64 ", \"max\": %" PRIu64 ", ",
					lo, lo + (lo - 1));
			}
			fprintf(out, "\"count\": %" PRIu64 "}", b[i] / div);
		}
	}
	fputc(']', out);
}

static void lhist_json(FILE *out, const uint64_t *b, int n, int64_t min,
		       int64_t max, int64_t step)
{
	int first, last;
	uint64_t top;

	fputc('[', out);
	if (b && bucket_range(b, n, &first, &last, &top)) {
		for (int i = first; i <= last; i++) {
			if (i > first)
				fputs(", ", out);
			if (i == 0) {
				fprintf(out, "{\"max\": %" PRId64 ", ",
					lhist_bound(min, 1, -1));
			} else if (i == n - 1) {
				fprintf(out, "{\"min\": %" PRId64 ", ", max);
			} else {
				fprintf(out, "{\"min\": %" PRId64 ", \"max\": %" PRId64 ", ",
					lhist_bound(min, step, i - 1),
					lhist_bound(lhist_bound(min, step, i), 1, -1));
			}
			fprintf(out, "\"count\": %" PRIu64 "}", b[i]);
		}
	}
	fputc(']', out);
}

/* ------------------------------------------------------------ sorting */

static int64_t entry_average(const struct pr_entry *e)
{
	if (e->count == 0)
		return 0;
	if (e->count == -1)	/* INT64_MIN / -1 would trap */
		return (int64_t)(0 - (uint64_t)e->total);
	return e->total / e->count;
}

static unsigned __int128 entry_bucket_total(const struct pr_entry *e)
{
	unsigned __int128 sum = 0;

	for (int i = 0; e->buckets && i < e->nbuckets; i++)
		sum += e->buckets[i];
	return sum;
}

/* key elements actually there (a reader may leave key NULL with nkey set) */
static int entry_nkey(const struct pr_entry *e)
{
	return e->key && e->nkey > 0 ? e->nkey : 0;
}

/* a key element rendered from an integer: "-5", "42" (not "0x1", "(1, 2)") */
static bool key_as_int(const struct pr_key *k, uint64_t *v)
{
	const char *s = k->text;
	char *end;

	if (k->is_str || !s || !*s)
		return false;
	if (s[0] != '-' && (s[0] < '0' || s[0] > '9'))
		return false;
	if (s[0] == '-' && (s[1] < '0' || s[1] > '9'))
		return false;
	if (s[0] == '0' && s[1] != '\0')
		return false;	/* "0x10" and such are not decimal integers */
	if (s[0] == '-')
		*v = (uint64_t)strtoll(s, &end, 10);
	else
		*v = strtoull(s, &end, 10);
	return *end == '\0';
}

/*
 * Key order, as bpftrace sorts keys: element by element; integers by their
 * 64-bit unsigned value (so -1 sorts after 10, exactly as 0.17 prints it),
 * everything else by bytes.  To stay a total order whatever the reader
 * hands us, integers sort before other text at the same position and equal
 * integers ("-1", "18446744073709551615") fall back to their text.
 */
static int key_cmp(const struct pr_entry *a, const struct pr_entry *b)
{
	int na = entry_nkey(a), nb = entry_nkey(b);
	int n = na < nb ? na : nb;

	for (int i = 0; i < n; i++) {
		const struct pr_key *ka = &a->key[i], *kb = &b->key[i];
		uint64_t va = 0, vb = 0;
		bool ia = key_as_int(ka, &va), ib = key_as_int(kb, &vb);

		if (ia != ib)
			return ia ? -1 : 1;
		if (ia && va != vb)
			return va < vb ? -1 : 1;
		int c = strcmp(ka->text ? ka->text : "", kb->text ? kb->text : "");
		if (c)
			return c;
	}
	return (na > nb) - (na < nb);
}

#define CMP3(x, y) (((x) > (y)) - ((x) < (y)))

static int entry_cmp(const void *pa, const void *pb, void *ctx)
{
	const struct pr_entry *a = pa, *b = pb;
	enum pr_kind kind = *(const enum pr_kind *)ctx;
	int c = 0;

	switch (kind) {
	case PR_INT:
		c = CMP3(a->ival, b->ival);
		break;
	case PR_AVG:
	case PR_STATS:
		c = CMP3(entry_average(a), entry_average(b));
		break;
	case PR_HIST:
	case PR_LHIST:
		c = CMP3(entry_bucket_total(a), entry_bucket_total(b));
		break;
	case PR_TEXT_VAL:
		break;		/* bpftrace orders rendered values by key alone */
	}
	return c ? c : key_cmp(a, b);
}

/* ------------------------------------------------------------- maps */

static const char *json_type(enum pr_kind kind)
{
	switch (kind) {
	case PR_INT:
	case PR_TEXT_VAL:
		return "map";
	case PR_AVG:
	case PR_STATS:
		return "stats";
	case PR_HIST:
	case PR_LHIST:
		return "hist";
	}
	return "map";
}

static void text_key(FILE *out, const struct pr_entry *e)
{
	if (entry_nkey(e) == 0)
		return;
	fputc('[', out);
	for (int i = 0; i < e->nkey; i++) {
		if (i)
			fputs(", ", out);
		fputs(e->key[i].text ? e->key[i].text : "", out);
	}
	fputc(']', out);
}

/* the key as one JSON string, elements joined by "," as bpftrace does */
static void json_key(FILE *out, const struct pr_entry *e)
{
	fputc('"', out);
	for (int i = 0; i < entry_nkey(e); i++) {
		const char *t = e->key[i].text ? e->key[i].text : "";
		if (i)
			fputc(',', out);
		json_escape(out, t, strlen(t));
	}
	fputc('"', out);
}

static void text_value(FILE *out, const struct pr_map *m,
		       const struct pr_entry *e, uint32_t div)
{
	switch (m->kind) {
	case PR_INT:
		fprintf(out, "%" PRId64, e->ival / (int64_t)div);
		break;
	case PR_AVG:
		fprintf(out, "%" PRId64, entry_average(e) / (int64_t)div);
		break;
	case PR_STATS:
		fprintf(out, "count %" PRId64 ", average %" PRId64 ", total %" PRId64,
			e->count, entry_average(e), e->total);
		break;
	case PR_HIST:
		fputc('\n', out);
		hist_text(out, e->buckets, e->nbuckets, div);
		break;
	case PR_LHIST:
		fputc('\n', out);
		pr_lhist_text(out, e->buckets, e->nbuckets, m->lh_min,
			      m->lh_max, m->lh_step);
		break;
	case PR_TEXT_VAL:
		fputs(e->text ? e->text : "", out);
		break;
	}
}

static void json_value(FILE *out, const struct pr_map *m,
		       const struct pr_entry *e, uint32_t div)
{
	switch (m->kind) {
	case PR_INT:
		fprintf(out, "%" PRId64, e->ival / (int64_t)div);
		break;
	case PR_AVG:
		fprintf(out, "%" PRId64, entry_average(e) / (int64_t)div);
		break;
	case PR_STATS:
		fprintf(out, "{\"count\": %" PRId64 ", \"average\": %" PRId64
			", \"total\": %" PRId64 "}",
			e->count, entry_average(e), e->total);
		break;
	case PR_HIST:
		hist_json(out, e->buckets, e->nbuckets, div);
		break;
	case PR_LHIST:
		lhist_json(out, e->buckets, e->nbuckets, m->lh_min, m->lh_max,
			   m->lh_step);
		break;
	case PR_TEXT_VAL:
		if (e->text_is_str)
			json_cstring(out, e->text);
		else
			fputs(e->text && *e->text ? e->text : "null", out);
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

static void map_json(FILE *out, const struct pr_map *m, size_t first,
		     uint32_t div)
{
	bool keyed = entry_nkey(&m->entries[first]) > 0;

	fprintf(out, "{\"type\": \"%s\", \"data\": {", json_type(m->kind));
	json_cstring(out, m->name ? m->name : "@");
	fputs(": ", out);
	if (keyed)
		fputc('{', out);
	for (size_t i = first; i < m->nentries; i++) {
		const struct pr_entry *e = &m->entries[i];

		if (i > first)
			fputs(", ", out);
		if (keyed) {
			json_key(out, e);
			fputs(": ", out);
		}
		json_value(out, m, e, div);
	}
	if (keyed)
		fputc('}', out);
	fputs("}}\n", out);
}

void pr_map(FILE *out, enum pr_format f, struct pr_map *m, uint32_t top, uint32_t div)
{
	size_t first = 0;

	if (m->kind == PR_STATS) {	/* bpftrace ignores both (with a warning) */
		top = 0;
		div = 1;
	}
	if (m->kind == PR_LHIST)	/* bpftrace never divides lhist counts */
		div = 1;
	if (div == 0)
		div = 1;
	if (m->nentries > 1 && m->entries)
		qsort_r(m->entries, m->nentries, sizeof(m->entries[0]),
			entry_cmp, &m->kind);
	if (top > 0 && m->nentries > top)
		first = m->nentries - top;

	switch (f) {
	case PR_TEXT:
		map_text(out, m, first, div);
		break;
	case PR_JSON:
		if (m->nentries && m->entries)
			map_json(out, m, first, div);
		break;
	}
}
