/*
 * print.c - what the writers share: bucket labels, entry order, the writer table.
 *
 * Everything here is a pure function of the plain structs in output/output.h and
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
#include "output/out_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* Every -f format: adding one is a file in output/ and a line here. */
static const struct output_writer *const writers[] = {
	&output_text,
	&output_json,
	&output_prometheus,
	&output_openmetrics,
	&output_folded,
	&output_flamegraph,
	&output_heatmap,
	&output_pprof,
};

const struct output_writer *output_find(const char *name)
{
	for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++)
		if (!strcmp(writers[i]->name, name))
			return writers[i];
	return NULL;
}

const char *output_names(void)
{
	static char names[128];

	if (!names[0])
		for (size_t i = 0; i < sizeof(writers) / sizeof(writers[0]); i++) {
			if (i)
				strcat(names, i + 1 < sizeof(writers) / sizeof(writers[0]) ? ", " : " or ");
			strcat(names, writers[i]->name);
		}
	return names;
}

void *pr_xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		abort();	/* as the arena does: no recovery from a few KiB */
	return p;
}

char *pr_xstrdup(const char *s)
{
	return strcpy(pr_xrealloc(NULL, strlen(s) + 1), s);
}

/* text in XML and HTML: the five specials as entities; control bytes,
 * which XML 1.0 does not allow, as "?" */
void pr_xml_text(FILE *out, const char *s)
{
	for (; *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		default: fputc((unsigned char)*s < 0x20 ? '?' : *s, out);
		}
}

/* ----------------------------------------------------- bucket labels */

/*
 * hist(v, k) buckets, as the newest bpftrace lays them out: index 0 counts
 * negative values; indices 1 .. 2N (N = 2^k) count the single values
 * 0 .. 2N-1; above that each power of two is N sub-buckets.  Index i's
 * upper bound (exclusive) is i up to 2N, else 2^p * (N + s) with
 * p = (i >> k) - 1 and s = i mod N.  k = 0 is the classic log2 histogram.
 */
int pr_hist_nbuckets(int bits)
{
	return bits ? ((64 - bits) << bits) + 1 : PR_HIST_BUCKETS;
}

uint64_t pr_hist_upper(int i, int bits)
{
	int n = 1 << bits;
	if (i <= 0)
		return 0;
	if (i <= 2 * n)
		return (uint64_t)i;
	int power = (i >> bits) - 1;
	if (power + bits >= 64)
		return UINT64_MAX;
	return (1ULL << power) * (uint64_t)(n + (i & (n - 1)));
}

/* index i's upper bound as bpftrace labels it: the number up to 2N, above
 * with the suffix of the largest power of 2^10 (512, 1K, 6K, 2M ... 8E) */
static void upper_label(char *buf, size_t len, int i, int bits)
{
	static const char suffix[] = { 0, 'K', 'M', 'G', 'T', 'P', 'E' };
	int n = 1 << bits;

	if (i <= 2 * n) {
		snprintf(buf, len, "%d", i);
		return;
	}
	int power = (i >> bits) - 1, k = power / 10;
	if (k > 6)
		k = 6;
	unsigned long long v = (1ULL << (power - 10 * k)) * (unsigned long long)(n + (i & (n - 1)));
	if (suffix[k])
		snprintf(buf, len, "%llu%c", v, suffix[k]);
	else
		snprintf(buf, len, "%llu", v);
}

void pr_hist_label(char *buf, size_t len, int i, int bits)
{
	char lo[24], hi[24];
	int n = pr_hist_nbuckets(bits);

	if (i <= 0) {
		snprintf(buf, len, "(..., 0)");
	} else if (i <= 2 << bits) {
		snprintf(buf, len, "[%d]", i - 1);
	} else {
		if (i > n - 1)
			i = n - 1;
		upper_label(lo, sizeof(lo), i - 1, bits);
		upper_label(hi, sizeof(hi), i, bits);
		snprintf(buf, len, "[%s, %s)", lo, hi);
	}
}

/* min + i * step without signed overflow (saturating; sema keeps it in range) */
int64_t pr_lhist_bound(int64_t min, int64_t step, int i)
{
	__int128 v = (__int128)min + (__int128)step * i;

	if (v > INT64_MAX)
		return INT64_MAX;
	if (v < INT64_MIN)
		return INT64_MIN;
	return (int64_t)v;
}

/* first and last non-zero bucket and the largest count; false if all zero */
bool pr_bucket_range(const uint64_t *b, int n, int *first, int *last,
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

int pr_clamp_hist_n(int n)
{
	if (n < 0)
		return 0;
	return n > PR_HIST_MAX_BUCKETS ? PR_HIST_MAX_BUCKETS : n;
}

int64_t pr_entry_average(const struct pr_entry *e)
{
	if (e->count == 0)
		return 0;
	if (e->count == -1)	/* INT64_MIN / -1 would trap */
		return (int64_t)(0 - (uint64_t)e->total);
	return e->total / e->count;
}

bool pr_number_value(FILE *out, const struct pr_map *m, const struct pr_entry *e, uint32_t div)
{
	if (m->kind == PR_INT && m->is_unsigned)
		fprintf(out, "%" PRIu64, (uint64_t)e->ival / div);
	else if (m->kind == PR_INT)
		fprintf(out, "%" PRId64, e->ival / (int64_t)div);
	else if (m->kind == PR_AVG)
		fprintf(out, "%" PRId64, pr_entry_average(e) / (int64_t)div);
	else
		return false;
	return true;
}

static unsigned __int128 entry_bucket_total(const struct pr_entry *e)
{
	unsigned __int128 sum = 0;

	for (int i = 0; e->buckets && i < e->nbuckets; i++)
		sum += e->buckets[i];
	return sum;
}

/* key elements actually there (a reader may leave key NULL with nkey set) */
int pr_entry_nkey(const struct pr_entry *e)
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
	int na = pr_entry_nkey(a), nb = pr_entry_nkey(b);
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
	const struct pr_map *m = ctx;
	enum pr_kind kind = m->kind;
	int c = 0;

	switch (kind) {
	case PR_INT:
		c = m->is_unsigned ? CMP3((uint64_t)a->ival, (uint64_t)b->ival) : CMP3(a->ival, b->ival);
		break;
	case PR_AVG:
	case PR_STATS:
		c = CMP3(pr_entry_average(a), pr_entry_average(b));
		break;
	case PR_HIST:
	case PR_LHIST:
		c = CMP3(entry_bucket_total(a), entry_bucket_total(b));
		break;
	case PR_TEXT_VAL:
	case PR_TSERIES:
		break;		/* bpftrace orders rendered values and tseries by key alone */
	}
	return c ? c : key_cmp(a, b);
}

size_t pr_map_order(struct pr_map *m, uint32_t *top, uint32_t *div)
{
	size_t first = 0;

	if (m->kind == PR_STATS || m->kind == PR_TSERIES) {	/* bpftrace ignores both */
		*top = 0;
		*div = 1;
	}
	if (m->kind == PR_LHIST)	/* bpftrace never divides lhist counts */
		*div = 1;
	if (*div == 0)
		*div = 1;
	if (m->nentries > 1 && m->entries)
		qsort_r(m->entries, m->nentries, sizeof(m->entries[0]),
			entry_cmp, m);
	if (*top > 0 && m->nentries > *top)
		first = m->nentries - *top;
	return first;
}
