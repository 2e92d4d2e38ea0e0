/*
 * test_printers.c - golden tests for the map and event printers
 * (runtime/print.c), text and JSON.
 *
 * Each "oracle" test builds the pr_map that the BPF map of a small bpftrace
 * script would decode to, and compares pr_map's bytes with what bpftrace
 * 0.17 printed for print(@m ...) in that script on this machine (the script
 * is quoted above each test).  The "sonde" tests cover what 0.17 cannot show
 * or gets wrong: hist buckets at and above 2^32, lhist ranges below zero,
 * deterministic order among equal values, and JSON that stays valid for any
 * bytes.  Every JSON line printed here also goes through a small validator.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "output/output.h"

/* ------------------------------------------------------------ helpers */

#define KEYS(...) ((struct pr_key[]){ __VA_ARGS__ })
#define KI(t) { (t), false }
#define KS(t) { (t), true }
#define NELEM(a) (sizeof(a) / sizeof((a)[0]))

/* bucket index of v in a log2 hist, as output/output.h lays them out */
static void hist_add(uint64_t *b, int64_t v, uint64_t n)
{
	int i;

	if (v < 0)
		i = 0;
	else if (v == 0)
		i = 1;
	else
		i = 2 + 63 - __builtin_clzll((uint64_t)v);
	b[i] += n;
}

static void lhist_add(uint64_t *b, int64_t v, int64_t min, int64_t max,
		      int64_t step, uint64_t n)
{
	int64_t nb = (max - min) / step;
	int64_t i;

	if (v < min)
		i = 0;
	else if (v >= max)
		i = nb + 1;
	else
		i = 1 + (v - min) / step;
	if (i > nb + 1)
		i = nb + 1;
	b[i] += n;
}

static int lhist_n(int64_t min, int64_t max, int64_t step)
{
	return (int)((max - min) / step) + 2;
}

/* ---- a small JSON validator (RFC 8259, strict UTF-8 in strings) ---- */

struct jp {
	const unsigned char *s;
	size_t i, n;
};

static void jp_ws(struct jp *p)
{
	while (p->i < p->n && strchr(" \t\r\n", p->s[p->i]))
		p->i++;
}

static bool jp_value(struct jp *p, int depth);

static bool jp_utf8(struct jp *p)
{
	unsigned char c = p->s[p->i];
	unsigned cp;
	int len;

	if (c < 0xc2 || c > 0xf4)
		return false;
	len = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : 2;
	if (p->i + (size_t)len > p->n)
		return false;
	cp = c & (0xff >> (len + 1));
	for (int k = 1; k < len; k++) {
		unsigned char d = p->s[p->i + (size_t)k];
		if ((d & 0xc0) != 0x80)
			return false;
		cp = (cp << 6) | (d & 0x3f);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
		return false;
	p->i += (size_t)len;
	return true;
}

static bool jp_string(struct jp *p)
{
	if (p->i >= p->n || p->s[p->i] != '"')
		return false;
	p->i++;
	while (p->i < p->n) {
		unsigned char c = p->s[p->i];
		if (c == '"') {
			p->i++;
			return true;
		}
		if (c < 0x20)
			return false;
		if (c == '\\') {
			p->i++;
			if (p->i >= p->n)
				return false;
			c = p->s[p->i];
			if (c == 'u') {
				for (int k = 1; k <= 4; k++)
					if (p->i + (size_t)k >= p->n ||
					    !strchr("0123456789abcdefABCDEF", p->s[p->i + (size_t)k]) ||
					    !p->s[p->i + (size_t)k])
						return false;
				p->i += 5;
			} else if (c && strchr("\"\\/bfnrt", c)) {
				p->i++;
			} else {
				return false;
			}
		} else if (c >= 0x80) {
			if (!jp_utf8(p))
				return false;
		} else {
			p->i++;
		}
	}
	return false;
}

static bool jp_number(struct jp *p)
{
	size_t start = p->i;

	if (p->i < p->n && p->s[p->i] == '-')
		p->i++;
	if (p->i >= p->n || p->s[p->i] < '0' || p->s[p->i] > '9')
		return false;
	if (p->s[p->i] == '0')
		p->i++;
	else
		while (p->i < p->n && p->s[p->i] >= '0' && p->s[p->i] <= '9')
			p->i++;
	return p->i > start;
}

static bool jp_value(struct jp *p, int depth)
{
	if (depth > 64)
		return false;
	jp_ws(p);
	if (p->i >= p->n)
		return false;
	switch (p->s[p->i]) {
	case '{':
		p->i++;
		jp_ws(p);
		if (p->i < p->n && p->s[p->i] == '}') {
			p->i++;
			return true;
		}
		for (;;) {
			jp_ws(p);
			if (!jp_string(p))
				return false;
			jp_ws(p);
			if (p->i >= p->n || p->s[p->i] != ':')
				return false;
			p->i++;
			if (!jp_value(p, depth + 1))
				return false;
			jp_ws(p);
			if (p->i < p->n && p->s[p->i] == ',') {
				p->i++;
				continue;
			}
			if (p->i < p->n && p->s[p->i] == '}') {
				p->i++;
				return true;
			}
			return false;
		}
	case '[':
		p->i++;
		jp_ws(p);
		if (p->i < p->n && p->s[p->i] == ']') {
			p->i++;
			return true;
		}
		for (;;) {
			if (!jp_value(p, depth + 1))
				return false;
			jp_ws(p);
			if (p->i < p->n && p->s[p->i] == ',') {
				p->i++;
				continue;
			}
			if (p->i < p->n && p->s[p->i] == ']') {
				p->i++;
				return true;
			}
			return false;
		}
	case '"':
		return jp_string(p);
	case 't':
		if (p->n - p->i >= 4 && !memcmp(p->s + p->i, "true", 4)) {
			p->i += 4;
			return true;
		}
		return false;
	case 'f':
		if (p->n - p->i >= 5 && !memcmp(p->s + p->i, "false", 5)) {
			p->i += 5;
			return true;
		}
		return false;
	case 'n':
		if (p->n - p->i >= 4 && !memcmp(p->s + p->i, "null", 4)) {
			p->i += 4;
			return true;
		}
		return false;
	default:
		return jp_number(p);
	}
}

static bool json_valid(const char *s, size_t n)
{
	struct jp p = { (const unsigned char *)s, 0, n };

	if (!jp_value(&p, 0))
		return false;
	jp_ws(&p);
	return p.i == n;
}

/* every line of `out` is one valid JSON document */
static void assert_json_lines(const char *out, size_t len)
{
	size_t start = 0;

	for (size_t i = 0; i < len; i++) {
		if (out[i] != '\n')
			continue;
		if (!json_valid(out + start, i - start))
			fail_msg("invalid JSON line: %.*s", (int)(i - start), out + start);
		start = i + 1;
	}
	assert_int_equal(start, len);	/* ends with a newline */
}

/* ---- capture ---- */

struct cap {
	char *buf;
	size_t len;
	FILE *f;
};

static void cap_open(struct cap *c)
{
	c->buf = NULL;
	c->len = 0;
	c->f = open_memstream(&c->buf, &c->len);
	assert_non_null(c->f);
}

/* closes the stream, compares, frees */
static void cap_check(struct cap *c, const char *want, size_t want_len,
		      bool json)
{
	fclose(c->f);
	if (c->len != want_len || memcmp(c->buf, want, want_len) != 0)
		fail_msg("output differs\n--- got (%zu bytes) ---\n%s--- want (%zu bytes) ---\n%s---",
			 c->len, c->buf, want_len, want);
	if (json)
		assert_json_lines(c->buf, c->len);
	free(c->buf);
}

#define CHECK(c, want, json) cap_check((c), (want), sizeof(want) - 1, (json))

/* ------------------------------------------------- oracle: text maps */

/* BEGIN { @h = hist(5); @h = hist(0); @h = hist(-1); @h = hist(3000000);
 *         print(@h); } */
static void test_hist_unkeyed(void **state)
{
	uint64_t b[PR_HIST_BUCKETS] = { 0 };
	struct pr_entry e[] = { { .buckets = b, .nbuckets = PR_HIST_BUCKETS } };
	struct pr_map m = { "@h", PR_HIST, 0, 0, 0, e, 1 };
	struct cap c;

	hist_add(b, 5, 1);
	hist_add(b, 0, 1);
	hist_add(b, -1, 1);
	hist_add(b, 3000000, 1);
	cap_open(&c);
	output_text.map(c.f, &m, 0, 0);
	CHECK(&c,
	"@h: \n"
	"(..., 0)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[0]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[1]                    0 |                                                    |\n"
	"[2, 4)                 0 |                                                    |\n"
	"[4, 8)                 1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[8, 16)                0 |                                                    |\n"
	"[16, 32)               0 |                                                    |\n"
	"[32, 64)               0 |                                                    |\n"
	"[64, 128)              0 |                                                    |\n"
	"[128, 256)             0 |                                                    |\n"
	"[256, 512)             0 |                                                    |\n"
	"[512, 1K)              0 |                                                    |\n"
	"[1K, 2K)               0 |                                                    |\n"
	"[2K, 4K)               0 |                                                    |\n"
	"[4K, 8K)               0 |                                                    |\n"
	"[8K, 16K)              0 |                                                    |\n"
	"[16K, 32K)             0 |                                                    |\n"
	"[32K, 64K)             0 |                                                    |\n"
	"[64K, 128K)            0 |                                                    |\n"
	"[128K, 256K)           0 |                                                    |\n"
	"[256K, 512K)           0 |                                                    |\n"
	"[512K, 1M)             0 |                                                    |\n"
	"[1M, 2M)               0 |                                                    |\n"
	"[2M, 4M)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"\n", false);
}

/* BEGIN { @x[1,"a"] = count(); @x[2,"b"] = count(); @x[2,"b"] = count();
 *         print(@x); } */
static void test_count_keyed(void **state)
{
	struct pr_entry e[] = {
		{ .key = KEYS(KI("2"), KS("b")), .nkey = 2, .ival = 2 },
		{ .key = KEYS(KI("1"), KS("a")), .nkey = 2, .ival = 1 },
	};
	struct pr_map m = { "@x", PR_INT, 0, 0, 0, e, NELEM(e) };
	struct cap c;

	cap_open(&c);
	output_text.map(c.f, &m, 0, 1);
	CHECK(&c, "@x[1, a]: 1\n@x[2, b]: 2\n", false);
}

/* BEGIN { @u[1] = (uint64)-1; @u[2] = (uint64)-3; @u[3] = 7; print(@u, 0, 2); }:
 * unsigned values print, sort and divide as uint64 */
static void test_unsigned_values(void **state)
{
	struct pr_entry e[] = {
		{ .key = KEYS(KI("1")), .nkey = 1, .ival = -1 },
		{ .key = KEYS(KI("2")), .nkey = 1, .ival = -3 },
		{ .key = KEYS(KI("3")), .nkey = 1, .ival = 7 },
	};
	struct pr_map m = { "@u", PR_INT, 0, 0, 0, e, NELEM(e), .is_unsigned = true };
	struct cap c;

	cap_open(&c);
	output_text.map(c.f, &m, 0, 2);
	CHECK(&c, "@u[3]: 3\n@u[2]: 9223372036854775806\n@u[1]: 9223372036854775807\n", false);
}

/* BEGIN { @a = avg(10); @a = avg(3); @s = stats(10); @s = stats(-3);
 *         print(@a); print(@s); } */
static void test_avg_stats_unkeyed(void **state)
{
	struct pr_entry ea[] = { { .count = 2, .total = 13 } };
	struct pr_entry es[] = { { .count = 2, .total = 7 } };
	struct pr_map a = { "@a", PR_AVG, 0, 0, 0, ea, 1 };
	struct pr_map s = { "@s", PR_STATS, 0, 0, 0, es, 1 };
	struct cap c;

	cap_open(&c);
	output_text.map(c.f, &a, 0, 1);
	output_text.map(c.f, &s, 0, 1);
	CHECK(&c,
	"@a: 6\n"
	"\n"
	"@s: count 2, average 3, total 7\n"
	"\n", false);
}

/* BEGIN { @a[1] = avg(10); @a[2] = avg(3); @s[1] = stats(10);
 *         @s[2] = stats(-3); @h[1] = hist(1); @h[2] = hist(8);
 *         @h[2] = hist(8); @l[3] = lhist(5, 0, 100, 10);
 *         print(@a); print(@s); print(@h); print(@l); } */
static void test_keyed_kinds(void **state)
{
	uint64_t h1[PR_HIST_BUCKETS] = { 0 }, h2[PR_HIST_BUCKETS] = { 0 };
	uint64_t l3[12] = { 0 };
	struct pr_entry ea[] = {
		{ .key = KEYS(KI("1")), .nkey = 1, .count = 1, .total = 10 },
		{ .key = KEYS(KI("2")), .nkey = 1, .count = 1, .total = 3 },
	};
	struct pr_entry es[] = {
		{ .key = KEYS(KI("1")), .nkey = 1, .count = 1, .total = 10 },
		{ .key = KEYS(KI("2")), .nkey = 1, .count = 1, .total = -3 },
	};
	struct pr_entry eh[] = {
		{ .key = KEYS(KI("2")), .nkey = 1, .buckets = h2, .nbuckets = PR_HIST_BUCKETS },
		{ .key = KEYS(KI("1")), .nkey = 1, .buckets = h1, .nbuckets = PR_HIST_BUCKETS },
	};
	struct pr_entry el[] = {
		{ .key = KEYS(KI("3")), .nkey = 1, .buckets = l3, .nbuckets = 12 },
	};
	struct pr_map a = { "@a", PR_AVG, 0, 0, 0, ea, 2 };
	struct pr_map s = { "@s", PR_STATS, 0, 0, 0, es, 2 };
	struct pr_map h = { "@h", PR_HIST, 0, 0, 0, eh, 2 };
	struct pr_map l = { "@l", PR_LHIST, 0, 100, 10, el, 1 };
	struct cap c;

	hist_add(h1, 1, 1);
	hist_add(h2, 8, 2);
	lhist_add(l3, 5, 0, 100, 10, 1);
	cap_open(&c);
	output_text.map(c.f, &a, 0, 1);
	output_text.map(c.f, &s, 0, 1);
	output_text.map(c.f, &h, 0, 1);
	output_text.map(c.f, &l, 0, 1);
	CHECK(&c,
	"@a[2]: 3\n"
	"@a[1]: 10\n"
	"\n"
	"@s[2]: count 1, average -3, total -3\n"
	"@s[1]: count 1, average 10, total 10\n"
	"\n"
	"@h[1]: \n"
	"[1]                    1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"\n"
	"@h[2]: \n"
	"[8, 16)                2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"\n"
	"@l[3]: \n"
	"[0, 10)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"\n", false);
}

/*
 * BEGIN { @c[1]=sum(1); @c[2]=sum(2); @c[3]=sum(30); @c[4]=sum(100);
 *   @c[5]=sum(55); print(@c,2); print(@c,0,10); print(@c,3,10);
 *   @a[1]=avg(100); @a[2]=avg(200); @a[3]=avg(300); print(@a,2,10);
 *   @s[1]=stats(100); @s[2]=stats(250); @s[3]=stats(300); print(@s,2,10);
 *   @h[1]=hist(100); @h[2]=hist(200) x2; @h[3]=hist(300) x3; @h[3]=hist(30);
 *   print(@h,2,2);
 *   @l[1]=lhist(2048,0,4096,1024) x2; @l[1]=lhist(0,0,4096,1024);
 *   @l[2]=lhist(5000,0,4096,1024); print(@l,1,2); print(@l); }
 * 0.17 ignores top and div for stats (with a warning), and div for lhist;
 * hist shows divided counts but draws bars from the raw ones.
 */
static void test_top_div(void **state)
{
	struct pr_entry ec[] = {
		{ .key = KEYS(KI("3")), .nkey = 1, .ival = 30 },
		{ .key = KEYS(KI("1")), .nkey = 1, .ival = 1 },
		{ .key = KEYS(KI("5")), .nkey = 1, .ival = 55 },
		{ .key = KEYS(KI("2")), .nkey = 1, .ival = 2 },
		{ .key = KEYS(KI("4")), .nkey = 1, .ival = 100 },
	};
	struct pr_entry ea[] = {
		{ .key = KEYS(KI("3")), .nkey = 1, .count = 1, .total = 300 },
		{ .key = KEYS(KI("1")), .nkey = 1, .count = 1, .total = 100 },
		{ .key = KEYS(KI("2")), .nkey = 1, .count = 1, .total = 200 },
	};
	struct pr_entry es[] = {
		{ .key = KEYS(KI("2")), .nkey = 1, .count = 1, .total = 250 },
		{ .key = KEYS(KI("3")), .nkey = 1, .count = 1, .total = 300 },
		{ .key = KEYS(KI("1")), .nkey = 1, .count = 1, .total = 100 },
	};
	uint64_t h1[PR_HIST_BUCKETS] = { 0 }, h2[PR_HIST_BUCKETS] = { 0 },
		 h3[PR_HIST_BUCKETS] = { 0 };
	struct pr_entry eh[] = {
		{ .key = KEYS(KI("3")), .nkey = 1, .buckets = h3, .nbuckets = PR_HIST_BUCKETS },
		{ .key = KEYS(KI("1")), .nkey = 1, .buckets = h1, .nbuckets = PR_HIST_BUCKETS },
		{ .key = KEYS(KI("2")), .nkey = 1, .buckets = h2, .nbuckets = PR_HIST_BUCKETS },
	};
	uint64_t l1[6] = { 0 }, l2[6] = { 0 };
	struct pr_entry el[] = {
		{ .key = KEYS(KI("1")), .nkey = 1, .buckets = l1, .nbuckets = 6 },
		{ .key = KEYS(KI("2")), .nkey = 1, .buckets = l2, .nbuckets = 6 },
	};
	struct pr_map mc = { "@c", PR_INT, 0, 0, 0, ec, NELEM(ec) };
	struct pr_map ma = { "@a", PR_AVG, 0, 0, 0, ea, NELEM(ea) };
	struct pr_map ms = { "@s", PR_STATS, 0, 0, 0, es, NELEM(es) };
	struct pr_map mh = { "@h", PR_HIST, 0, 0, 0, eh, NELEM(eh) };
	struct pr_map ml = { "@l", PR_LHIST, 0, 4096, 1024, el, NELEM(el) };
	struct cap c;

	hist_add(h1, 100, 1);
	hist_add(h2, 200, 2);
	hist_add(h3, 300, 3);
	hist_add(h3, 30, 1);
	lhist_add(l1, 2048, 0, 4096, 1024, 2);
	lhist_add(l1, 0, 0, 4096, 1024, 1);
	lhist_add(l2, 5000, 0, 4096, 1024, 1);
	cap_open(&c);
	output_text.map(c.f, &mc, 2, 1);
	output_text.map(c.f, &mc, 0, 10);
	output_text.map(c.f, &mc, 3, 10);
	output_text.map(c.f, &ma, 2, 10);
	output_text.map(c.f, &ms, 2, 10);
	output_text.map(c.f, &mh, 2, 2);
	output_text.map(c.f, &ml, 1, 2);
	output_text.map(c.f, &ml, 0, 1);
	CHECK(&c,
	"@c[5]: 55\n"
	"@c[4]: 100\n"
	"@c[1]: 0\n"
	"@c[2]: 0\n"
	"@c[3]: 3\n"
	"@c[5]: 5\n"
	"@c[4]: 10\n"
	"@c[3]: 3\n"
	"@c[5]: 5\n"
	"@c[4]: 10\n"
	"@a[2]: 20\n"
	"@a[3]: 30\n"
	"\n"
	"@s[1]: count 1, average 100, total 100\n"
	"@s[2]: count 1, average 250, total 250\n"
	"@s[3]: count 1, average 300, total 300\n"
	"\n"
	"@h[2]: \n"
	"[128, 256)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"\n"
	"@h[3]: \n"
	"[16, 32)               0 |@@@@@@@@@@@@@@@@@                                   |\n"
	"[32, 64)               0 |                                                    |\n"
	"[64, 128)              0 |                                                    |\n"
	"[128, 256)             0 |                                                    |\n"
	"[256, 512)             1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"\n"
	"@l[1]: \n"
	"[0, 1K)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"[1K, 2K)               0 |                                                    |\n"
	"[2K, 3K)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"\n"
	"@l[2]: \n"
	"[4K, ...)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"\n"
	"@l[1]: \n"
	"[0, 1K)                1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"[1K, 2K)               0 |                                                    |\n"
	"[2K, 3K)               2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"\n", false);
}

/* BEGIN { @h=hist(4); @h2[1]=hist(3); @h2[2]=hist(3); zero(@h); zero(@h2);
 *   @c[1]=count(); zero(@c); @s=stats(3); zero(@s); @l=lhist(3,0,10,1);
 *   zero(@l); print(@c); print(@h); print(@h2); print(@l); print(@s); } */
static void test_zeroed(void **state)
{
	uint64_t h[PR_HIST_BUCKETS] = { 0 }, h21[PR_HIST_BUCKETS] = { 0 },
		 h22[PR_HIST_BUCKETS] = { 0 }, l[12] = { 0 };
	struct pr_entry ec[] = { { .key = KEYS(KI("1")), .nkey = 1, .ival = 0 } };
	struct pr_entry eh[] = { { .buckets = h, .nbuckets = PR_HIST_BUCKETS } };
	struct pr_entry eh2[] = {
		{ .key = KEYS(KI("2")), .nkey = 1, .buckets = h22, .nbuckets = PR_HIST_BUCKETS },
		{ .key = KEYS(KI("1")), .nkey = 1, .buckets = h21, .nbuckets = PR_HIST_BUCKETS },
	};
	struct pr_entry el[] = { { .buckets = l, .nbuckets = 12 } };
	struct pr_entry es[] = { { .count = 0, .total = 0 } };
	struct pr_map mc = { "@c", PR_INT, 0, 0, 0, ec, 1 };
	struct pr_map mh = { "@h", PR_HIST, 0, 0, 0, eh, 1 };
	struct pr_map mh2 = { "@h2", PR_HIST, 0, 0, 0, eh2, 2 };
	struct pr_map ml = { "@l", PR_LHIST, 0, 10, 1, el, 1 };
	struct pr_map ms = { "@s", PR_STATS, 0, 0, 0, es, 1 };
	struct cap c;

	cap_open(&c);
	output_text.map(c.f, &mc, 0, 1);
	output_text.map(c.f, &mh, 0, 1);
	output_text.map(c.f, &mh2, 0, 1);
	output_text.map(c.f, &ml, 0, 1);
	output_text.map(c.f, &ms, 0, 1);
	CHECK(&c,
	"@c[1]: 0\n"
	"@h: \n"
	"\n"
	"@h2[1]: \n"
	"\n"
	"@h2[2]: \n"
	"\n"
	"@l: \n"
	"\n"
	"@s: count 0, average 0, total 0\n"
	"\n", false);
}

/* BEGIN { @m = lhist(3000, 2048, 3145728, 1048576);
 *   @m = lhist(5000000, 2048, 3145728, 1048576);
 *   @m = lhist(1024, 2048, 3145728, 1048576);
 *   @n = lhist(25, 30, 60, 7); @n = lhist(38, 30, 60, 7);
 *   @n = lhist(58, 30, 60, 7); @n = lhist(60, 30, 60, 7);
 *   print(@m); print(@n); }
 * The last bucket is labelled with max even when (max - min) is not a
 * multiple of step; labels are nK / nM only for exact multiples. */
static void test_lhist_labels(void **state)
{
	uint64_t bm[4] = { 0 }, bn[6] = { 0 };
	struct pr_entry em[] = { { .buckets = bm, .nbuckets = lhist_n(2048, 3145728, 1048576) } };
	struct pr_entry en[] = { { .buckets = bn, .nbuckets = lhist_n(30, 60, 7) } };
	struct pr_map m = { "@m", PR_LHIST, 2048, 3145728, 1048576, em, 1 };
	struct pr_map n = { "@n", PR_LHIST, 30, 60, 7, en, 1 };
	struct cap c;

	assert_int_equal(em[0].nbuckets, 4);
	assert_int_equal(en[0].nbuckets, 6);
	lhist_add(bm, 3000, 2048, 3145728, 1048576, 1);
	lhist_add(bm, 5000000, 2048, 3145728, 1048576, 1);
	lhist_add(bm, 1024, 2048, 3145728, 1048576, 1);
	lhist_add(bn, 25, 30, 60, 7, 1);
	lhist_add(bn, 38, 30, 60, 7, 1);
	lhist_add(bn, 58, 30, 60, 7, 1);
	lhist_add(bn, 60, 30, 60, 7, 1);
	cap_open(&c);
	output_text.map(c.f, &m, 0, 1);
	output_text.map(c.f, &n, 0, 1);
	CHECK(&c,
	"@m: \n"
	"(..., 2K)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[2K, 1026K)            1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[1026K, 2050K)         0 |                                                    |\n"
	"[3M, ...)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"\n"
	"@n: \n"
	"(..., 30)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"[30, 37)               0 |                                                    |\n"
	"[37, 44)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"[44, 51)               0 |                                                    |\n"
	"[51, 58)               0 |                                                    |\n"
	"[60, ...)              2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"\n", false);
}

/*
 * BEGIN { @s[256]="1"; @s[1]="2"; @s[2]="3"; @s[65536]="4"; @s[255]="5";
 *   @t[-1]="a"; @t[5]="b"; @u["b"]="1"; @u["ab"]="2"; @u["a"]="3";
 *   @u["B"]="4"; @e[2,"x"]="q"; @e[1,"y"]="q"; @e[1,"x"]="q";
 *   @e[10,"a"]="q"; @e[-1,"a"]="q"; @a[3]=avg(1); @a[1]=avg(1); @a[2]=avg(1);
 *   @a[10]=avg(1); @a[-5]=avg(1); @st[1]=stats(10) x3; @st[2]=stats(25);
 *   @st[3]=stats(12) x2; @st[4]=stats(-100); print(...) each }
 * Maps of strings are ordered by key alone; integer keys compare as
 * unsigned 64-bit (so -1 comes last), strings by bytes, element by element.
 */
static void test_key_order(void **state)
{
	struct pr_entry es[] = {
		{ .key = KEYS(KI("256")), .nkey = 1, .text = "1", .text_is_str = true },
		{ .key = KEYS(KI("1")), .nkey = 1, .text = "2", .text_is_str = true },
		{ .key = KEYS(KI("2")), .nkey = 1, .text = "3", .text_is_str = true },
		{ .key = KEYS(KI("65536")), .nkey = 1, .text = "4", .text_is_str = true },
		{ .key = KEYS(KI("255")), .nkey = 1, .text = "5", .text_is_str = true },
	};
	struct pr_entry et[] = {
		{ .key = KEYS(KI("-1")), .nkey = 1, .text = "a", .text_is_str = true },
		{ .key = KEYS(KI("5")), .nkey = 1, .text = "b", .text_is_str = true },
	};
	struct pr_entry eu[] = {
		{ .key = KEYS(KS("b")), .nkey = 1, .text = "1", .text_is_str = true },
		{ .key = KEYS(KS("ab")), .nkey = 1, .text = "2", .text_is_str = true },
		{ .key = KEYS(KS("a")), .nkey = 1, .text = "3", .text_is_str = true },
		{ .key = KEYS(KS("B")), .nkey = 1, .text = "4", .text_is_str = true },
	};
	struct pr_entry ee[] = {
		{ .key = KEYS(KI("2"), KS("x")), .nkey = 2, .text = "q", .text_is_str = true },
		{ .key = KEYS(KI("1"), KS("y")), .nkey = 2, .text = "q", .text_is_str = true },
		{ .key = KEYS(KI("1"), KS("x")), .nkey = 2, .text = "q", .text_is_str = true },
		{ .key = KEYS(KI("10"), KS("a")), .nkey = 2, .text = "q", .text_is_str = true },
		{ .key = KEYS(KI("-1"), KS("a")), .nkey = 2, .text = "q", .text_is_str = true },
	};
	struct pr_entry ea[] = {
		{ .key = KEYS(KI("3")), .nkey = 1, .count = 1, .total = 1 },
		{ .key = KEYS(KI("1")), .nkey = 1, .count = 1, .total = 1 },
		{ .key = KEYS(KI("2")), .nkey = 1, .count = 1, .total = 1 },
		{ .key = KEYS(KI("10")), .nkey = 1, .count = 1, .total = 1 },
		{ .key = KEYS(KI("-5")), .nkey = 1, .count = 1, .total = 1 },
	};
	struct pr_entry est[] = {
		{ .key = KEYS(KI("1")), .nkey = 1, .count = 3, .total = 30 },
		{ .key = KEYS(KI("2")), .nkey = 1, .count = 1, .total = 25 },
		{ .key = KEYS(KI("3")), .nkey = 1, .count = 2, .total = 24 },
		{ .key = KEYS(KI("4")), .nkey = 1, .count = 1, .total = -100 },
	};
	struct pr_map ms = { "@s", PR_TEXT_VAL, 0, 0, 0, es, NELEM(es) };
	struct pr_map mt = { "@t", PR_TEXT_VAL, 0, 0, 0, et, NELEM(et) };
	struct pr_map mu = { "@u", PR_TEXT_VAL, 0, 0, 0, eu, NELEM(eu) };
	struct pr_map me = { "@e", PR_TEXT_VAL, 0, 0, 0, ee, NELEM(ee) };
	struct pr_map ma = { "@a", PR_AVG, 0, 0, 0, ea, NELEM(ea) };
	struct pr_map mst = { "@st", PR_STATS, 0, 0, 0, est, NELEM(est) };
	struct cap c;

	cap_open(&c);
	output_text.map(c.f, &ms, 0, 1);
	output_text.map(c.f, &mt, 0, 1);
	output_text.map(c.f, &mu, 0, 1);
	output_text.map(c.f, &me, 0, 1);
	output_text.map(c.f, &ma, 0, 1);
	output_text.map(c.f, &mst, 0, 1);
	CHECK(&c,
	"@s[1]: 2\n"
	"@s[2]: 3\n"
	"@s[255]: 5\n"
	"@s[256]: 1\n"
	"@s[65536]: 4\n"
	"@t[5]: b\n"
	"@t[-1]: a\n"
	"@u[B]: 4\n"
	"@u[a]: 3\n"
	"@u[ab]: 2\n"
	"@u[b]: 1\n"
	"@e[1, x]: q\n"
	"@e[1, y]: q\n"
	"@e[2, x]: q\n"
	"@e[10, a]: q\n"
	"@e[-1, a]: q\n"
	"@a[1]: 1\n"
	"@a[2]: 1\n"
	"@a[3]: 1\n"
	"@a[10]: 1\n"
	"@a[-5]: 1\n"
	"\n"
	"@st[4]: count 1, average -100, total -100\n"
	"@st[1]: count 3, average 10, total 30\n"
	"@st[3]: count 2, average 12, total 24\n"
	"@st[2]: count 1, average 25, total 25\n"
	"\n", false);
}

/* BEGIN { @c[1]=count(); @a[1]=avg(1); @s[1]=stats(1); @h[1]=hist(1);
 *   @l[1]=lhist(1,0,10,1); clear(...) all; print(@c); printf("|\n");
 *   print(@a); printf("|\n"); ... }  -- and with -f json nothing at all */
static void test_empty(void **state)
{
	enum pr_kind kinds[] = { PR_INT, PR_AVG, PR_STATS, PR_HIST, PR_LHIST, PR_TEXT_VAL };
	struct cap c;

	cap_open(&c);
	for (size_t i = 0; i < NELEM(kinds); i++) {
		struct pr_map m = { "@m", kinds[i], 0, 10, 1, NULL, 0 };
		output_text.map(c.f, &m, 0, 1);
		fputs("|\n", c.f);
	}
	CHECK(&c, "\n|\n\n\n|\n\n\n|\n\n|\n\n|\n\n|\n", false);

	cap_open(&c);
	for (size_t i = 0; i < NELEM(kinds); i++) {
		struct pr_map m = { "@m", kinds[i], 0, 10, 1, NULL, 0 };
		output_json.map(c.f, &m, 3, 2);
	}
	CHECK(&c, "", false);
}

/* BEGIN { @n = -1; @m[1] = -7; @m[2] = 3; @m[3] = -100; print(@n);
 *   print(@m); print(@m, 0, 2); } */
static void test_negative_values(void **state)
{
	struct pr_entry en[] = { { .ival = -1 } };
	struct pr_entry em[] = {
		{ .key = KEYS(KI("1")), .nkey = 1, .ival = -7 },
		{ .key = KEYS(KI("2")), .nkey = 1, .ival = 3 },
		{ .key = KEYS(KI("3")), .nkey = 1, .ival = -100 },
	};
	struct pr_map n = { "@n", PR_INT, 0, 0, 0, en, 1 };
	struct pr_map m = { "@m", PR_INT, 0, 0, 0, em, 3 };
	struct cap c;

	cap_open(&c);
	output_text.map(c.f, &n, 0, 1);
	output_text.map(c.f, &m, 0, 1);
	output_text.map(c.f, &m, 0, 2);
	CHECK(&c,
	"@n: -1\n"
	"@m[3]: -100\n"
	"@m[1]: -7\n"
	"@m[2]: 3\n"
	"@m[3]: -50\n"
	"@m[1]: -3\n"
	"@m[2]: 1\n", false);
}

/* BEGIN { @ = count(); exit(); } and @[1, 2] = count() at exit */
static void test_anonymous_map(void **state)
{
	struct pr_entry e1[] = { { .ival = 1 } };
	struct pr_entry e2[] = { { .key = KEYS(KI("1"), KI("2")), .nkey = 2, .ival = 1 } };
	struct pr_map m1 = { "@", PR_INT, 0, 0, 0, e1, 1 };
	struct pr_map m2 = { "@", PR_INT, 0, 0, 0, e2, 1 };
	struct cap c;

	cap_open(&c);
	output_text.map(c.f, &m1, 0, 1);
	output_text.map(c.f, &m2, 0, 1);
	output_json.map(c.f, &m1, 0, 1);
	CHECK(&c, "@: 1\n@[1, 2]: 1\n{\"type\": \"map\", \"data\": {\"@\": 1}}\n", false);
}

/* a kstack value ends in "\n"; bpftrace puts no separator after it:
 * tracepoint:sched:sched_switch { @s[cpu] = kstack(3); } */
static void test_stack_values(void **state)
{
	struct pr_entry e[] = {
		{ .key = KEYS(KI("1")), .nkey = 1,
		  .text = "\n        __schedule+1560\n        schedule_idle+30\n", .text_is_str = true },
		{ .key = KEYS(KI("0")), .nkey = 1,
		  .text = "\n        __schedule+1560\n        schedule+35\n", .text_is_str = true },
	};
	struct pr_map m = { "@s", PR_TEXT_VAL, 0, 0, 0, e, 2 };
	struct cap c;

	cap_open(&c);
	output_text.map(c.f, &m, 0, 1);
	CHECK(&c,
	"@s[0]: \n"
	"        __schedule+1560\n"
	"        schedule+35\n"
	"@s[1]: \n"
	"        __schedule+1560\n"
	"        schedule_idle+30\n"
	"\n", false);
}

/* ------------------------------------------------- oracle: JSON maps */

/* bpftrace -f json -e 'BEGIN { @c[1,"a"]=count(); @c[2,"b\"q"]=count() x2;
 *   @y=5; @n=-1; @a=avg(10); @ak[3]=avg(4); @s=stats(10); @sk["x"]=stats(3);
 *   @h=hist(5); @h=hist(-1); @h=hist(0); @hk[1]=hist(7);
 *   @l=lhist(5,0,100,10); @l=lhist(-5,0,100,10); @l=lhist(500,0,100,10);
 *   @str="hi\tthere"; @sk2["k"]="v"; print(...) each }' */
static void test_json_kinds(void **state)
{
	uint64_t h[PR_HIST_BUCKETS] = { 0 }, hk[PR_HIST_BUCKETS] = { 0 }, l[12] = { 0 };
	struct pr_entry ec[] = {
		{ .key = KEYS(KI("2"), KS("b\"q")), .nkey = 2, .ival = 2 },
		{ .key = KEYS(KI("1"), KS("a")), .nkey = 2, .ival = 1 },
	};
	struct pr_entry ey[] = { { .ival = 5 } };
	struct pr_entry en[] = { { .ival = -1 } };
	struct pr_entry ea[] = { { .count = 1, .total = 10 } };
	struct pr_entry eak[] = { { .key = KEYS(KI("3")), .nkey = 1, .count = 1, .total = 4 } };
	struct pr_entry es[] = { { .count = 1, .total = 10 } };
	struct pr_entry esk[] = { { .key = KEYS(KS("x")), .nkey = 1, .count = 1, .total = 3 } };
	struct pr_entry eh[] = { { .buckets = h, .nbuckets = PR_HIST_BUCKETS } };
	struct pr_entry ehk[] = { { .key = KEYS(KI("1")), .nkey = 1, .buckets = hk, .nbuckets = PR_HIST_BUCKETS } };
	struct pr_entry el[] = { { .buckets = l, .nbuckets = 12 } };
	struct pr_entry estr[] = { { .text = "hi\tthere", .text_is_str = true } };
	struct pr_entry esk2[] = { { .key = KEYS(KS("k")), .nkey = 1, .text = "v", .text_is_str = true } };
	struct pr_map maps[] = {
		{ "@c", PR_INT, 0, 0, 0, ec, 2 },
		{ "@y", PR_INT, 0, 0, 0, ey, 1 },
		{ "@n", PR_INT, 0, 0, 0, en, 1 },
		{ "@a", PR_AVG, 0, 0, 0, ea, 1 },
		{ "@ak", PR_AVG, 0, 0, 0, eak, 1 },
		{ "@s", PR_STATS, 0, 0, 0, es, 1 },
		{ "@sk", PR_STATS, 0, 0, 0, esk, 1 },
		{ "@h", PR_HIST, 0, 0, 0, eh, 1 },
		{ "@hk", PR_HIST, 0, 0, 0, ehk, 1 },
		{ "@l", PR_LHIST, 0, 100, 10, el, 1 },
		{ "@str", PR_TEXT_VAL, 0, 0, 0, estr, 1 },
		{ "@sk2", PR_TEXT_VAL, 0, 0, 0, esk2, 1 },
	};
	struct cap c;

	hist_add(h, 5, 1);
	hist_add(h, -1, 1);
	hist_add(h, 0, 1);
	hist_add(hk, 7, 1);
	lhist_add(l, 5, 0, 100, 10, 1);
	lhist_add(l, -5, 0, 100, 10, 1);
	lhist_add(l, 500, 0, 100, 10, 1);
	cap_open(&c);
	for (size_t i = 0; i < NELEM(maps); i++)
		output_json.map(c.f, &maps[i], 0, 1);
	CHECK(&c,
	"{\"type\": \"map\", \"data\": {\"@c\": {\"1,a\": 1, \"2,b\\\"q\": 2}}}\n"
	"{\"type\": \"map\", \"data\": {\"@y\": 5}}\n"
	"{\"type\": \"map\", \"data\": {\"@n\": -1}}\n"
	"{\"type\": \"stats\", \"data\": {\"@a\": 10}}\n"
	"{\"type\": \"stats\", \"data\": {\"@ak\": {\"3\": 4}}}\n"
	"{\"type\": \"stats\", \"data\": {\"@s\": {\"count\": 1, \"average\": 10, \"total\": 10}}}\n"
	"{\"type\": \"stats\", \"data\": {\"@sk\": {\"x\": {\"count\": 1, \"average\": 3, \"total\": 3}}}}\n"
	"{\"type\": \"hist\", \"data\": {\"@h\": [{\"max\": -1, \"count\": 1}, {\"min\": 0, \"max\": 0, \"count\": 1}, {\"min\": 1, \"max\": 1, \"count\": 0}, {\"min\": 2, \"max\": 3, \"count\": 0}, {\"min\": 4, \"max\": 7, \"count\": 1}]}}\n"
	"{\"type\": \"hist\", \"data\": {\"@hk\": {\"1\": [{\"min\": 4, \"max\": 7, \"count\": 1}]}}}\n"
	"{\"type\": \"hist\", \"data\": {\"@l\": [{\"max\": -1, \"count\": 1}, {\"min\": 0, \"max\": 9, \"count\": 1}, {\"min\": 10, \"max\": 19, \"count\": 0}, {\"min\": 20, \"max\": 29, \"count\": 0}, {\"min\": 30, \"max\": 39, \"count\": 0}, {\"min\": 40, \"max\": 49, \"count\": 0}, {\"min\": 50, \"max\": 59, \"count\": 0}, {\"min\": 60, \"max\": 69, \"count\": 0}, {\"min\": 70, \"max\": 79, \"count\": 0}, {\"min\": 80, \"max\": 89, \"count\": 0}, {\"min\": 90, \"max\": 99, \"count\": 0}, {\"min\": 100, \"count\": 1}]}}\n"
	"{\"type\": \"map\", \"data\": {\"@str\": \"hi\\tthere\"}}\n"
	"{\"type\": \"map\", \"data\": {\"@sk2\": {\"k\": \"v\"}}}\n", true);
}

/* -f json: the top/div script above, with @c sums 1, 20, 30, 100, and
 * @k["a\"b\\c", 5] = count(); @k["tab\there", 6] = count(); print(@k);
 * @k's two entries tie at 1: 0.17 printed them in hash order ("tab..."
 * first), sonde orders ties by key. */
static void test_json_top_div(void **state)
{
	struct pr_entry ec[] = {
		{ .key = KEYS(KI("1")), .nkey = 1, .ival = 1 },
		{ .key = KEYS(KI("4")), .nkey = 1, .ival = 100 },
		{ .key = KEYS(KI("2")), .nkey = 1, .ival = 20 },
		{ .key = KEYS(KI("3")), .nkey = 1, .ival = 30 },
	};
	struct pr_entry ea[] = {
		{ .key = KEYS(KI("3")), .nkey = 1, .count = 1, .total = 300 },
		{ .key = KEYS(KI("1")), .nkey = 1, .count = 1, .total = 100 },
		{ .key = KEYS(KI("2")), .nkey = 1, .count = 1, .total = 200 },
	};
	uint64_t h1[PR_HIST_BUCKETS] = { 0 }, h2[PR_HIST_BUCKETS] = { 0 },
		 h3[PR_HIST_BUCKETS] = { 0 };
	struct pr_entry eh[] = {
		{ .key = KEYS(KI("3")), .nkey = 1, .buckets = h3, .nbuckets = PR_HIST_BUCKETS },
		{ .key = KEYS(KI("1")), .nkey = 1, .buckets = h1, .nbuckets = PR_HIST_BUCKETS },
		{ .key = KEYS(KI("2")), .nkey = 1, .buckets = h2, .nbuckets = PR_HIST_BUCKETS },
	};
	uint64_t l1[6] = { 0 }, l2[6] = { 0 };
	struct pr_entry el[] = {
		{ .key = KEYS(KI("1")), .nkey = 1, .buckets = l1, .nbuckets = 6 },
		{ .key = KEYS(KI("2")), .nkey = 1, .buckets = l2, .nbuckets = 6 },
	};
	struct pr_entry ek[] = {
		{ .key = KEYS(KS("tab\there"), KI("6")), .nkey = 2, .ival = 1 },
		{ .key = KEYS(KS("a\"b\\c"), KI("5")), .nkey = 2, .ival = 1 },
	};
	struct pr_map mc = { "@c", PR_INT, 0, 0, 0, ec, NELEM(ec) };
	struct pr_map ma = { "@a", PR_AVG, 0, 0, 0, ea, NELEM(ea) };
	struct pr_map mh = { "@h", PR_HIST, 0, 0, 0, eh, NELEM(eh) };
	struct pr_map ml = { "@l", PR_LHIST, 0, 4096, 1024, el, NELEM(el) };
	struct pr_map mk = { "@k", PR_INT, 0, 0, 0, ek, NELEM(ek) };
	struct cap c;

	hist_add(h1, 100, 1);
	hist_add(h2, 200, 2);
	hist_add(h3, 300, 3);
	hist_add(h3, 30, 1);
	lhist_add(l1, 2048, 0, 4096, 1024, 2);
	lhist_add(l1, 0, 0, 4096, 1024, 1);
	lhist_add(l2, 5000, 0, 4096, 1024, 1);
	cap_open(&c);
	output_json.map(c.f, &mc, 2, 10);
	output_json.map(c.f, &ma, 2, 10);
	output_json.map(c.f, &mh, 2, 2);
	output_json.map(c.f, &ml, 1, 2);
	output_json.map(c.f, &ml, 0, 1);
	output_json.map(c.f, &mk, 0, 1);
	CHECK(&c,
	"{\"type\": \"map\", \"data\": {\"@c\": {\"3\": 3, \"4\": 10}}}\n"
	"{\"type\": \"stats\", \"data\": {\"@a\": {\"2\": 20, \"3\": 30}}}\n"
	"{\"type\": \"hist\", \"data\": {\"@h\": {\"2\": [{\"min\": 128, \"max\": 255, \"count\": 1}], \"3\": [{\"min\": 16, \"max\": 31, \"count\": 0}, {\"min\": 32, \"max\": 63, \"count\": 0}, {\"min\": 64, \"max\": 127, \"count\": 0}, {\"min\": 128, \"max\": 255, \"count\": 0}, {\"min\": 256, \"max\": 511, \"count\": 1}]}}}\n"
	"{\"type\": \"hist\", \"data\": {\"@l\": {\"1\": [{\"min\": 0, \"max\": 1023, \"count\": 1}, {\"min\": 1024, \"max\": 2047, \"count\": 0}, {\"min\": 2048, \"max\": 3071, \"count\": 2}]}}}\n"
	"{\"type\": \"hist\", \"data\": {\"@l\": {\"2\": [{\"min\": 4096, \"count\": 1}], \"1\": [{\"min\": 0, \"max\": 1023, \"count\": 1}, {\"min\": 1024, \"max\": 2047, \"count\": 0}, {\"min\": 2048, \"max\": 3071, \"count\": 2}]}}}\n"
	"{\"type\": \"map\", \"data\": {\"@k\": {\"a\\\"b\\\\c,5\": 1, \"tab\\there,6\": 1}}}\n", true);
}

/* -f json: the zeroed script, plus @a=avg(3); zero(@a), then clear(@c);
 * print(@c) (prints nothing) */
static void test_json_zeroed(void **state)
{
	uint64_t h[PR_HIST_BUCKETS] = { 0 }, h21[PR_HIST_BUCKETS] = { 0 },
		 h22[PR_HIST_BUCKETS] = { 0 }, l[12] = { 0 };
	struct pr_entry ea[] = { { .count = 0, .total = 0 } };
	struct pr_entry ec[] = { { .key = KEYS(KI("1")), .nkey = 1, .ival = 0 } };
	struct pr_entry eh[] = { { .buckets = h, .nbuckets = PR_HIST_BUCKETS } };
	struct pr_entry eh2[] = {
		{ .key = KEYS(KI("1")), .nkey = 1, .buckets = h21, .nbuckets = PR_HIST_BUCKETS },
		{ .key = KEYS(KI("2")), .nkey = 1, .buckets = h22, .nbuckets = PR_HIST_BUCKETS },
	};
	struct pr_entry el[] = { { .buckets = l, .nbuckets = 12 } };
	struct pr_entry es[] = { { .count = 0, .total = 0 } };
	struct pr_map maps[] = {
		{ "@a", PR_AVG, 0, 0, 0, ea, 1 },
		{ "@c", PR_INT, 0, 0, 0, ec, 1 },
		{ "@h", PR_HIST, 0, 0, 0, eh, 1 },
		{ "@h2", PR_HIST, 0, 0, 0, eh2, 2 },
		{ "@l", PR_LHIST, 0, 10, 1, el, 1 },
		{ "@s", PR_STATS, 0, 0, 0, es, 1 },
		{ "@c", PR_INT, 0, 0, 0, NULL, 0 },
		{ "@h2", PR_HIST, 0, 0, 0, eh2, 2 },
	};
	struct cap c;

	cap_open(&c);
	for (size_t i = 0; i < NELEM(maps); i++)
		output_json.map(c.f, &maps[i], 0, 1);
	CHECK(&c,
	"{\"type\": \"stats\", \"data\": {\"@a\": 0}}\n"
	"{\"type\": \"map\", \"data\": {\"@c\": {\"1\": 0}}}\n"
	"{\"type\": \"hist\", \"data\": {\"@h\": []}}\n"
	"{\"type\": \"hist\", \"data\": {\"@h2\": {\"1\": [], \"2\": []}}}\n"
	"{\"type\": \"hist\", \"data\": {\"@l\": []}}\n"
	"{\"type\": \"stats\", \"data\": {\"@s\": {\"count\": 0, \"average\": 0, \"total\": 0}}}\n"
	"{\"type\": \"hist\", \"data\": {\"@h2\": {\"1\": [], \"2\": []}}}\n", true);
}

/* bpftrace -f json: printf("x\n%d\n", 3), "Attaching" event, print of a
 * tuple-valued map ({"@t": [1,"a"]}), time() */
static void test_json_events(void **state)
{
	struct pr_entry et[] = { { .text = "[1,\"a\"]", .text_is_str = false } };
	struct pr_map mt = { "@t", PR_TEXT_VAL, 0, 0, 0, et, 1 };
	struct cap c;

	cap_open(&c);
	output_json.attached(c.f, c.f, 1);
	output_json.message(c.f, "printf", "x\n3\n", 4);
	output_json.map(c.f, &mt, 0, 1);
	pr_json_event(c.f, "time", "\"2026\\n\"");
	pr_json_event(c.f, "value", "5");
	output_json.lost_events(c.f, c.f, 17);
	CHECK(&c,
	"{\"type\": \"attached_probes\", \"data\": {\"probes\": 1}}\n"
	"{\"type\": \"printf\", \"data\": \"x\\n3\\n\"}\n"
	"{\"type\": \"map\", \"data\": {\"@t\": [1,\"a\"]}}\n"
	"{\"type\": \"time\", \"data\": \"2026\\n\"}\n"
	"{\"type\": \"value\", \"data\": 5}\n"
	"{\"type\": \"lost_events\", \"data\": {\"events\": 17}}\n", true);

	/* text: printf verbatim (embedded NUL kept), lost events line */
	cap_open(&c);
	output_text.message(c.f, "printf", "a\0b\n", 4);
	output_text.message(c.f, "printf", "", 0);
	output_text.lost_events(c.f, c.f, 3);
	CHECK(&c, "a\0b\nLost 3 events\n", false);

	/* time(), cat() and system() output: verbatim in text; in JSON one
	 * message each, typed as bpftrace types them */
	cap_open(&c);
	output_text.message(c.f, "time", "12:00:00\n", 9);
	output_text.message(c.f, "cat", "Linux\n", 6);
	output_text.message(c.f, "syscall", "", 0);
	CHECK(&c, "12:00:00\nLinux\n", false);
	cap_open(&c);
	output_json.message(c.f, "time", "12:00:00\n", 9);
	output_json.message(c.f, "cat", "", 0);
	output_json.message(c.f, "syscall", "a\n\"c\"", 5);
	CHECK(&c,
	"{\"type\": \"time\", \"data\": \"12:00:00\\n\"}\n"
	"{\"type\": \"cat\", \"data\": \"\"}\n"
	"{\"type\": \"syscall\", \"data\": \"a\\n\\\"c\\\"\"}\n", true);

	/* sonde prints this on stderr after attaching (bpftrace: "Attaching N
	 * probes..." on stdout before) */
	cap_open(&c);
	output_text.attached(c.f, c.f, 1);
	output_text.attached(c.f, c.f, 12);
	CHECK(&c, "Attached 1 probe\nAttached 12 probes\n", false);
}

/* ------------------------------------------------------ sonde-only */

/* values of 2^32 and more get their own buckets (0.17 lumps them into
 * [2G, 4G) and writes garbage bounds in JSON) */
static void test_hist_big_values(void **state)
{
	uint64_t b[PR_HIST_BUCKETS] = { 0 };
	struct pr_entry e[] = { { .buckets = b, .nbuckets = PR_HIST_BUCKETS } };
	struct pr_map m = { "@h", PR_HIST, 0, 0, 0, e, 1 };
	struct cap c;

	hist_add(b, 3000000000LL, 1);	/* [2G, 4G) */
	hist_add(b, 5000000000LL, 3);	/* [4G, 8G) */
	hist_add(b, 1LL << 35, 2);	/* [32G, 64G) */
	cap_open(&c);
	output_text.map(c.f, &m, 0, 1);
	CHECK(&c,
	"@h: \n"
	"[2G, 4G)               1 |@@@@@@@@@@@@@@@@@                                   |\n"
	"[4G, 8G)               3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[8G, 16G)              0 |                                                    |\n"
	"[16G, 32G)             0 |                                                    |\n"
	"[32G, 64G)             2 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                  |\n"
	"\n", false);
	cap_open(&c);
	output_json.map(c.f, &m, 0, 1);
	CHECK(&c,
	"{\"type\": \"hist\", \"data\": {\"@h\": [{\"min\": 2147483648, \"max\": 4294967295, \"count\": 1}, "
	"{\"min\": 4294967296, \"max\": 8589934591, \"count\": 3}, "
	"{\"min\": 8589934592, \"max\": 17179869183, \"count\": 0}, "
	"{\"min\": 17179869184, \"max\": 34359738367, \"count\": 0}, "
	"{\"min\": 34359738368, \"max\": 68719476735, \"count\": 2}]}}\n", true);

	/* the top of the range: [4E, 8E) holds INT64_MAX; index 65 is
	 * [8E, 16E) for unsigned readers */
	memset(b, 0, sizeof(b));
	hist_add(b, INT64_MAX, 1);
	b[65] = 1;
	cap_open(&c);
	pr_hist_text(c.f, b, PR_HIST_BUCKETS);
	CHECK(&c,
	"[4E, 8E)               1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[8E, 16E)              1 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n", false);
	cap_open(&c);
	output_json.map(c.f, &m, 0, 1);
	CHECK(&c,
	/* the maxima a double cannot hold are strings of their digits */
	"{\"type\": \"hist\", \"data\": {\"@h\": [{\"min\": 4611686018427387904, \"max\": \"9223372036854775807\", \"count\": 1}, "
	"{\"min\": 9223372036854775808, \"max\": \"18446744073709551615\", \"count\": 1}]}}\n", true);
}

/* a record key (pr_key.json_compact) drops its blanks in JSON, as the
 * newest bpftrace writes keys; pr_json_u64 writes a number a double holds
 * exactly (2^53, 2^63) and the digits of one it cannot (2^53 + 1) */
static void test_json_compact_key_and_u64(void **state)
{
	struct pr_entry e[] = {
		{ .key = KEYS({ "{ .a = 1, .b = y z }", false, .json_compact = true }), .nkey = 1, .ival = 1 },
	};
	struct pr_map m = { "@r", PR_INT, 0, 0, 0, e, 1 };
	struct cap c;

	cap_open(&c);
	output_json.map(c.f, &m, 0, 1);
	CHECK(&c, "{\"type\": \"map\", \"data\": {\"@r\": {\"{.a=1,.b=yz}\": 1}}}\n", true);
	cap_open(&c);
	pr_json_u64(c.f, 1ull << 53);
	fputc(' ', c.f);
	pr_json_u64(c.f, (1ull << 53) + 1);
	fputc(' ', c.f);
	pr_json_u64(c.f, 1ull << 63);
	fputc(' ', c.f);
	pr_json_i64(c.f, -(1ll << 62) - 1);
	fputc(' ', c.f);
	pr_json_u64(c.f, 0);
	CHECK(&c, "9007199254740992 \"9007199254740993\" 9223372036854775808 \"-4611686018427387905\" 0", false);
}

static void test_hist_labels(void **state)
{
	static const struct { int i; const char *want; } t[] = {
		{ 0, "(..., 0)" }, { 1, "[0]" }, { 2, "[1]" }, { 3, "[2, 4)" },
		{ 11, "[512, 1K)" }, { 12, "[1K, 2K)" }, { 21, "[512K, 1M)" },
		{ 22, "[1M, 2M)" }, { 32, "[1G, 2G)" }, { 33, "[2G, 4G)" },
		{ 34, "[4G, 8G)" }, { 41, "[512G, 1T)" }, { 42, "[1T, 2T)" },
		{ 52, "[1P, 2P)" }, { 61, "[512P, 1E)" }, { 62, "[1E, 2E)" },
		{ 64, "[4E, 8E)" }, { 65, "[8E, 16E)" },
	};
	char buf[32];

	for (size_t k = 0; k < NELEM(t); k++) {
		pr_hist_label(buf, sizeof(buf), t[k].i, 0);
		assert_string_equal(buf, t[k].want);
	}
	/* truncation is the caller's choice, never an overflow */
	pr_hist_label(buf, 4, 12, 0);
	assert_string_equal(buf, "[1K");
	/* hist(v, k): single values up to 2N - 1 (N = 2^k), then N per power
	 * of two, labelled by their bounds as bpftrace 0.2x does: a K/M/... suffix
	 * only from 2^10 * N up (1024 with k = 1, as bpftrace prints it) */
	static const struct { int i, bits; const char *want; uint64_t upper; } k[] = {
		{ 1, 3, "[0]", 1 }, { 16, 3, "[15]", 16 }, { 17, 3, "[16, 18)", 18 },
		{ 24, 3, "[30, 32)", 32 }, { 25, 3, "[32, 36)", 36 },
		{ 5, 1, "[4, 6)", 6 }, { 20, 1, "[768, 1024)", 1024 }, { 21, 1, "[1024, 1536)", 1536 },
		{ 22, 1, "[1536, 2K)", 2048 }, { 23, 1, "[2K, 3K)", 3072 },
		{ 64, 5, "[63]", 64 }, { 65, 5, "[64, 66)", 66 },
		{ 488, 3, "[7680P, 8E)", 1ULL << 63 }, { 1888, 5, "[8064P, 8192P)", 1ULL << 63 },
	};
	for (size_t j = 0; j < NELEM(k); j++) {
		pr_hist_label(buf, sizeof(buf), k[j].i, k[j].bits);
		assert_string_equal(buf, k[j].want);
		assert_int_equal(pr_hist_upper(k[j].i, k[j].bits), k[j].upper);
	}
	assert_int_equal(pr_hist_nbuckets(0), PR_HIST_BUCKETS);
	assert_int_equal(pr_hist_nbuckets(3), 489);
	assert_int_equal(pr_hist_nbuckets(5), PR_HIST_MAX_BUCKETS);
}

/* bar width is floor(count * 52 / max); counts wider than 8 columns push
 * the bar right, as bpftrace's setw does */
static void test_hist_bars(void **state)
{
	uint64_t b[PR_HIST_BUCKETS] = { 0 };
	struct cap c;

	b[2] = 1;
	b[3] = 51;
	b[4] = 52;
	b[5] = 103;
	b[6] = 104;
	cap_open(&c);
	pr_hist_text(c.f, b, PR_HIST_BUCKETS);
	memset(b, 0, sizeof(b));
	b[1] = 123456789012ULL;
	b[2] = 1;
	pr_hist_text(c.f, b, PR_HIST_BUCKETS);
	pr_hist_text(c.f, b, 0);	/* no buckets: nothing */
	CHECK(&c,
	"[1]                    1 |                                                    |\n"
	"[2, 4)                51 |@@@@@@@@@@@@@@@@@@@@@@@@@                           |\n"
	"[4, 8)                52 |@@@@@@@@@@@@@@@@@@@@@@@@@@                          |\n"
	"[8, 16)              103 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@ |\n"
	"[16, 32)             104 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[0]             123456789012 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[1]                    1 |                                                    |\n", false);
}

/* lhist ranges below zero (0.17 rejects a negative min) */
static void test_lhist_negative(void **state)
{
	uint64_t b[10] = { 0 }, k[6] = { 0 };
	struct pr_entry e[] = { { .key = KEYS(KS("x")), .nkey = 1, .buckets = b,
				  .nbuckets = lhist_n(-30, 30, 7) } };
	struct pr_map m = { "@n", PR_LHIST, -30, 30, 7, e, 1 };
	struct cap c;

	assert_int_equal(e[0].nbuckets, 10);
	lhist_add(b, -100, -30, 30, 7, 1);
	lhist_add(b, -30, -30, 30, 7, 2);
	lhist_add(b, -1, -30, 30, 7, 4);
	lhist_add(b, 0, -30, 30, 7, 4);
	lhist_add(b, 29, -30, 30, 7, 1);	/* past the last full step */
	cap_open(&c);
	output_text.map(c.f, &m, 0, 1);
	output_json.map(c.f, &m, 0, 1);
	pr_lhist_text(c.f, k, 6, -2048, 2048, 1024);	/* all zero: nothing */
	k[0] = 1;
	k[1] = 2;
	k[2] = 3;
	k[3] = 4;
	k[5] = 5;
	pr_lhist_text(c.f, k, 6, -2048, 2048, 1024);
	CHECK(&c,
	"@n[x]: \n"
	"(..., -30)             1 |@@@@@@                                              |\n"
	"[-30, -23)             2 |@@@@@@@@@@@@@                                       |\n"
	"[-23, -16)             0 |                                                    |\n"
	"[-16, -9)              0 |                                                    |\n"
	"[-9, -2)               0 |                                                    |\n"
	"[-2, 5)                8 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n"
	"[5, 12)                0 |                                                    |\n"
	"[12, 19)               0 |                                                    |\n"
	"[19, 26)               0 |                                                    |\n"
	"[30, ...)              1 |@@@@@@                                              |\n"
	"\n"
	"{\"type\": \"hist\", \"data\": {\"@n\": {\"x\": [{\"max\": -31, \"count\": 1}, "
	"{\"min\": -30, \"max\": -24, \"count\": 2}, {\"min\": -23, \"max\": -17, \"count\": 0}, "
	"{\"min\": -16, \"max\": -10, \"count\": 0}, {\"min\": -9, \"max\": -3, \"count\": 0}, "
	"{\"min\": -2, \"max\": 4, \"count\": 8}, {\"min\": 5, \"max\": 11, \"count\": 0}, "
	"{\"min\": 12, \"max\": 18, \"count\": 0}, {\"min\": 19, \"max\": 25, \"count\": 0}, "
	"{\"min\": 30, \"count\": 1}]}}}\n"
	"(..., -2K)             1 |@@@@@@@@@@                                          |\n"
	"[-2K, -1K)             2 |@@@@@@@@@@@@@@@@@@@@                                |\n"
	"[-1K, 0)               3 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@                     |\n"
	"[0, 1K)                4 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@           |\n"
	"[1K, 2K)               0 |                                                    |\n"
	"[2K, ...)              5 |@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@|\n", false);
}

/* equal values are ordered by key so output is deterministic (0.17 prints
 * count ties in hash order); top keeps the largest after sorting */
static void test_ties_and_top(void **state)
{
	struct pr_entry e[] = {
		{ .key = KEYS(KS("c")), .nkey = 1, .ival = 1 },
		{ .key = KEYS(KS("a")), .nkey = 1, .ival = 1 },
		{ .key = KEYS(KS("b")), .nkey = 1, .ival = 1 },
		{ .key = KEYS(KS("z")), .nkey = 1, .ival = 0 },
		{ .key = KEYS(KS("y")), .nkey = 1, .ival = 9 },
	};
	struct pr_entry n[] = {
		{ .key = KEYS(KI("100")), .nkey = 1, .ival = 1 },
		{ .key = KEYS(KI("-1")), .nkey = 1, .ival = 1 },
		{ .key = KEYS(KI("9")), .nkey = 1, .ival = 1 },
		{ .key = KEYS(KI("10")), .nkey = 1, .ival = 1 },
		{ .key = KEYS(KI("0x10")), .nkey = 1, .ival = 1 },
		{ .key = KEYS(KI("18446744073709551615")), .nkey = 1, .ival = 1 },
	};
	struct pr_map m = { "@c", PR_INT, 0, 0, 0, e, NELEM(e) };
	struct pr_map mn = { "@n", PR_INT, 0, 0, 0, n, NELEM(n) };
	struct cap c;

	cap_open(&c);
	output_text.map(c.f, &m, 0, 1);
	output_text.map(c.f, &m, 3, 1);
	output_text.map(c.f, &m, 100, 1);
	output_text.map(c.f, &mn, 0, 1);
	CHECK(&c,
	"@c[z]: 0\n@c[a]: 1\n@c[b]: 1\n@c[c]: 1\n@c[y]: 9\n"
	"@c[b]: 1\n@c[c]: 1\n@c[y]: 9\n"
	"@c[z]: 0\n@c[a]: 1\n@c[b]: 1\n@c[c]: 1\n@c[y]: 9\n"
	"@n[9]: 1\n@n[10]: 1\n@n[100]: 1\n@n[-1]: 1\n@n[18446744073709551615]: 1\n"
	"@n[0x10]: 1\n", false);
}

/* avg and stats with negative totals and the division edge cases */
static void test_avg_edges(void **state)
{
	struct pr_entry e[] = {
		{ .key = KEYS(KI("1")), .nkey = 1, .count = 3, .total = -10 },
		{ .key = KEYS(KI("2")), .nkey = 1, .count = 0, .total = 0 },
		{ .key = KEYS(KI("3")), .nkey = 1, .count = -1, .total = INT64_MIN },
	};
	struct pr_map m = { "@a", PR_AVG, 0, 0, 0, e, NELEM(e) };
	struct pr_map s = { "@s", PR_STATS, 0, 0, 0, e, NELEM(e) };
	struct cap c;

	cap_open(&c);
	output_text.map(c.f, &m, 0, 3);
	output_text.map(c.f, &s, 1, 3);	/* top/div ignored for stats */
	CHECK(&c,
	"@a[3]: -3074457345618258602\n@a[1]: -1\n@a[2]: 0\n\n"
	"@s[3]: count -1, average -9223372036854775808, total -9223372036854775808\n"
	"@s[1]: count 3, average -3, total -10\n"
	"@s[2]: count 0, average 0, total 0\n\n", false);
}

/* JSON stays valid for any bytes: names, keys and values */
static void test_json_nasty_strings(void **state)
{
	static const struct { const char *in; size_t len; const char *want; } t[] = {
		{ "\"\\/", 3, "\"\\\"\\\\/\"" },
		{ "\n\r\t\b\f", 5, "\"\\n\\r\\t\\u0008\\u000c\"" },
		{ "\x01\x1f\x7f", 3, "\"\\u0001\\u001f\x7f\"" },
		{ "a\0b", 3, "\"a\\u0000b\"" },
		{ "\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80", 11,
		  "\"\xc3\xa9 \xe2\x82\xac \xf0\x9f\x98\x80\"" },
		{ "\xff\xfe", 2, "\"\\u00ff\\u00fe\"" },
		{ "\xc0\x80", 2, "\"\\u00c0\\u0080\"" },		/* overlong NUL */
		{ "\xe0\x80\xaf", 3, "\"\\u00e0\\u0080\\u00af\"" },	/* overlong '/' */
		{ "\xed\xa0\x80", 3, "\"\\u00ed\\u00a0\\u0080\"" },	/* surrogate */
		{ "\xf4\x90\x80\x80", 4, "\"\\u00f4\\u0090\\u0080\\u0080\"" }, /* > U+10FFFF */
		{ "\xe2\x82", 2, "\"\\u00e2\\u0082\"" },		/* truncated */
		{ "\xe2\x82" "A", 3, "\"\\u00e2\\u0082A\"" },
		{ "\xc3", 1, "\"\\u00c3\"" },
		{ "", 0, "\"\"" },
	};

	for (size_t i = 0; i < NELEM(t); i++) {
		struct cap c;

		cap_open(&c);
		pr_json_string(c.f, t[i].in, t[i].len);
		fclose(c.f);
		if (c.len != strlen(t[i].want) || memcmp(c.buf, t[i].want, c.len))
			fail_msg("case %zu: got %s want %s", i, c.buf, t[i].want);
		assert_true(json_valid(c.buf, c.len));
		free(c.buf);
	}

	/* the same bytes through every place a map puts a string */
	struct pr_entry e[] = {
		{ .key = KEYS(KS("k\xff\"\n"), KI("1")), .nkey = 2,
		  .text = "v\x01\xc3\xa9\xed\xa0\x80\\", .text_is_str = true },
		{ .key = KEYS(KS("\t"), KI("2")), .nkey = 2, .text = "", .text_is_str = true },
	};
	struct pr_map m = { "@m\x80\"", PR_TEXT_VAL, 0, 0, 0, e, 2 };
	struct cap c;

	cap_open(&c);
	output_json.map(c.f, &m, 0, 1);
	output_json.message(c.f, "printf", "\xff\x00\xc3\xa9\n", 5);
	pr_json_event(c.f, "cat\n\xfe", "\"x\"");
	CHECK(&c,
	"{\"type\": \"map\", \"data\": {\"@m\\u0080\\\"\": {\"\\t,2\": \"\", "
	"\"k\\u00ff\\\"\\n,1\": \"v\\u0001\xc3\xa9\\u00ed\\u00a0\\u0080\\\\\"}}}\n"
	"{\"type\": \"printf\", \"data\": \"\\u00ff\\u0000\xc3\xa9\\n\"}\n"
	"{\"type\": \"cat\\n\\u00fe\", \"data\": \"x\"}\n", true);

	/* the validator itself rejects what it should */
	assert_false(json_valid("\"\xff\"", 3));
	assert_false(json_valid("\"\x01\"", 3));
	assert_false(json_valid("{\"a\": 1,}", 9));
	assert_false(json_valid("[1 2]", 5));
	assert_true(json_valid("{\"a\": [1, -2, {\"b\": null}]}", 27));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hist_unkeyed),
		cmocka_unit_test(test_count_keyed),
		cmocka_unit_test(test_unsigned_values),
		cmocka_unit_test(test_avg_stats_unkeyed),
		cmocka_unit_test(test_keyed_kinds),
		cmocka_unit_test(test_top_div),
		cmocka_unit_test(test_zeroed),
		cmocka_unit_test(test_lhist_labels),
		cmocka_unit_test(test_key_order),
		cmocka_unit_test(test_empty),
		cmocka_unit_test(test_negative_values),
		cmocka_unit_test(test_anonymous_map),
		cmocka_unit_test(test_stack_values),
		cmocka_unit_test(test_json_kinds),
		cmocka_unit_test(test_json_top_div),
		cmocka_unit_test(test_json_zeroed),
		cmocka_unit_test(test_json_events),
		cmocka_unit_test(test_hist_big_values),
		cmocka_unit_test(test_json_compact_key_and_u64),
		cmocka_unit_test(test_hist_labels),
		cmocka_unit_test(test_hist_bars),
		cmocka_unit_test(test_lhist_negative),
		cmocka_unit_test(test_ties_and_top),
		cmocka_unit_test(test_avg_edges),
		cmocka_unit_test(test_json_nasty_strings),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
