/*
 * json.c - the JSON writer: one {"type": T, "data": D} object a line.
 *
 * Maps print as one line `{"type": T, "data": {"@m": V}}` with T "map"
 * (ints, strings), "stats" (avg and stats) or "hist" (hist and lhist);
 * keyed maps nest `{"k1,k2": V, ...}`; an empty map prints nothing.
 * printf, time, cat and system() output are {"type": "printf"|..., "data":
 * "text"}.  Strings stay valid JSON for any input bytes (bpftrace 0.17
 * writes bytes >= 0x80 as "\uffffffc3").  Everything goes to the output
 * stream, "attached_probes" and "lost_events" included, as bpftrace does.
 */
#include "output/out_int.h"

#include <inttypes.h>
#include <string.h>

/*
 * Length of the well-formed UTF-8 sequence at s (at most n bytes), or 0 if
 * the bytes there are not one: overlong forms, surrogates and code points
 * above U+10FFFF are rejected, as RFC 3629 requires.
 */
size_t pr_utf8_seq_len(const unsigned char *s, size_t n)
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
			size_t n = pr_utf8_seq_len(p + i, len - i);
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

/* a double's 53-bit significand holds v exactly */
static bool fits_double(uint64_t v)
{
	if (!v)
		return true;
	return (v >> __builtin_ctzll(v)) < (1ull << 53);
}

void pr_json_u64(FILE *out, uint64_t v)
{
	fprintf(out, fits_double(v) ? "%" PRIu64 : "\"%" PRIu64 "\"", v);
}

void pr_json_i64(FILE *out, int64_t v)
{
	uint64_t mag = v < 0 ? -(uint64_t)v : (uint64_t)v;
	fprintf(out, fits_double(mag) ? "%" PRId64 : "\"%" PRId64 "\"", v);
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

static void hist_json(FILE *out, const uint64_t *b, int n, int bits, uint32_t div)
{
	int first, last;
	uint64_t max;

	fputc('[', out);
	if (b && pr_bucket_range(b, pr_clamp_hist_n(n), &first, &last, &max)) {
		for (int i = first; i <= last; i++) {
			if (i > first)
				fputs(", ", out);
			if (i == 0) {
				fputs("{\"max\": -1, ", out);
			} else {
				/* the top bucket's bound, 2^64, saturates: its max is 2^64 - 1;
				 * a bound a double cannot hold exactly (2^63 - 1, 2^64 - 1,
				 * 2^62 * 3 - 1) is a string of its digits, as the newest
				 * bpftrace writes it, not a number a reader would round */
				uint64_t hi = pr_hist_upper(i, bits);
				fputs("{\"min\": ", out);
				pr_json_u64(out, pr_hist_upper(i - 1, bits));
				fputs(", \"max\": ", out);
				pr_json_u64(out, hi == UINT64_MAX ? hi : hi - 1);
				fputs(", ", out);
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
	if (b && pr_bucket_range(b, n, &first, &last, &top)) {
		for (int i = first; i <= last; i++) {
			if (i > first)
				fputs(", ", out);
			if (i == 0) {
				fprintf(out, "{\"max\": %" PRId64 ", ",
					pr_lhist_bound(min, 1, -1));
			} else if (i == n - 1) {
				fprintf(out, "{\"min\": %" PRId64 ", ", max);
			} else {
				fprintf(out, "{\"min\": %" PRId64 ", \"max\": %" PRId64 ", ",
					pr_lhist_bound(min, step, i - 1),
					pr_lhist_bound(pr_lhist_bound(min, step, i), 1, -1));
			}
			fprintf(out, "\"count\": %" PRIu64 "}", b[i]);
		}
	}
	fputc(']', out);
}

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
	case PR_TSERIES:
		return "tseries";
	}
	return "map";
}

/* the key as one JSON string, elements joined by "," as bpftrace does;
 * a record's without its blanks */
static void json_key(FILE *out, const struct pr_entry *e)
{
	fputc('"', out);
	for (int i = 0; i < pr_entry_nkey(e); i++) {
		const char *t = e->key[i].text ? e->key[i].text : "";
		if (i)
			fputc(',', out);
		if (!e->key[i].json_compact) {
			json_escape(out, t, strlen(t));
			continue;
		}
		for (const char *c = t; *c;) {
			size_t n = strcspn(c, " ");
			json_escape(out, c, n);
			c += n;
			c += strspn(c, " ");
		}
	}
	fputc('"', out);
}

static void json_value(FILE *out, const struct pr_map *m,
		       const struct pr_entry *e, uint32_t div)
{
	switch (m->kind) {
	case PR_INT:
	case PR_AVG:
		pr_number_value(out, m, e, div);
		break;
	case PR_STATS:
		fprintf(out, "{\"count\": %" PRId64 ", \"average\": %" PRId64
			", \"total\": %" PRId64 "}",
			e->count, pr_entry_average(e), e->total);
		break;
	case PR_HIST:
		hist_json(out, e->buckets, e->nbuckets, m->hist_bits, div);
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
	case PR_TSERIES:
		pr_tseries_json(out, m, e);
		break;
	}
}

static void map_json(FILE *out, const struct pr_map *m, size_t first,
		     uint32_t div)
{
	bool keyed = pr_entry_nkey(&m->entries[first]) > 0;

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

static void json_map(FILE *out, struct pr_map *m, uint32_t top, uint32_t div)
{
	size_t first = pr_map_order(m, &top, &div);

	if (m->nentries && m->entries)
		map_json(out, m, first, div);
}

static void json_message(FILE *out, const char *type, const char *text, size_t len)
{
	fputs("{\"type\": ", out);
	json_cstring(out, type);
	fputs(", \"data\": ", out);
	pr_json_string(out, text, len);
	fputs("}\n", out);
}

/* bpftrace: {"type": "value", "data": V}, V already JSON (a tuple as [1,"a"]) */
static void json_value_line(FILE *out, const char *rendered)
{
	pr_json_event(out, "value", rendered);
}

static void json_join(FILE *out, const char *text, size_t len)
{
	json_message(out, "join", text, len);
}

static void json_attached(FILE *out, FILE *diag, int nprobes)
{
	fprintf(out, "{\"type\": \"attached_probes\", \"data\": {\"probes\": %d}}\n",
		nprobes);
}

static void json_maps_begin(FILE *out)
{
}

static void json_lost_events(FILE *out, FILE *diag, uint64_t lost)
{
	fprintf(out, "{\"type\": \"lost_events\", \"data\": {\"events\": %" PRIu64 "}}\n",
		lost);
}

static void json_helper_error(FILE *out, const char *helper, int64_t retcode, const char *msg,
			      int line, int col)
{
	fputs("{\"type\": \"helper_error\", \"msg\": ", out);
	json_cstring(out, msg);
	fputs(", \"helper\": ", out);
	json_cstring(out, helper);
	fprintf(out, ", \"retcode\": %" PRId64 ", \"line\": %d, \"col\": %d}\n", retcode, line, col);
}

/* --bench: {"type": "benchmark_result", "data": {"a": {"average": N, "iters": N}}} */
static void json_benchmark(FILE *out, const char *const *names, int n, int index, bool first,
			   uint64_t avg_ns, uint64_t iters)
{
	fputs("{\"type\": \"benchmark_result\", \"data\": {", out);
	json_cstring(out, names[index]);
	fprintf(out, ": {\"average\": %" PRIu64 ", \"iters\": %" PRIu64 "}}}\n", avg_ns, iters);
}

const struct output_writer output_json = {
	.name = "json",
	.render = PR_RENDER_JSON,
	.attached = json_attached,
	.message = json_message,
	.value = json_value_line,
	.join = json_join,
	.maps_begin = json_maps_begin,
	.map = json_map,
	.lost_events = json_lost_events,
	.helper_error = json_helper_error,
	.benchmark = json_benchmark,
};
