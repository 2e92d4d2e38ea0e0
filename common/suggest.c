/*
 * suggest.c - nearest names by edit distance, for "did you mean" hints.
 *
 * The distance is the optimal-string-alignment form of Damerau-
 * Levenshtein: insertions, deletions, substitutions and swaps of two
 * neighbouring characters each cost one.  A name is worth offering when it
 * is at most a third of the word's length away (at least 1, at most 3):
 * "tracepont" finds "tracepoint", "xyz" finds nothing rather than "pid".
 * The text of a hint is made here so every caller words it the same.
 */
#include "common/suggest.h"

#include <stdio.h>
#include <string.h>

#define WORD_MAX 128

static int min3(int a, int b, int c)
{
	int m = a < b ? a : b;
	return m < c ? m : c;
}

/* the distance, or limit + 1 as soon as it must exceed limit: lengths
 * further apart than that, or a row whose every cell is past it, end the
 * walk early.  A misspelled tracepoint is compared with every one the
 * kernel has (thousands), so the cut-offs matter. */
static int distance_within(const char *a, const char *b, int limit)
{
	size_t la = strnlen(a, WORD_MAX - 1), lb = strnlen(b, WORD_MAX - 1);
	if ((la > lb ? la - lb : lb - la) > (size_t)limit)
		return limit + 1;
	/* each edit changes the multiset of characters by at most one on
	 * either side, so the characters one word has and the other lacks
	 * bound the distance from below, and cost only a pass over each */
	int count[256] = {0}, surplus = 0, lack = 0;
	for (size_t i = 0; i < la; i++)
		count[(unsigned char)a[i]]++;
	for (size_t j = 0; j < lb; j++)
		count[(unsigned char)b[j]]--;
	for (size_t i = 0; i < la; i++) {
		int *k = &count[(unsigned char)a[i]];
		surplus += *k > 0 ? *k : 0;
		*k = 0;
	}
	for (size_t j = 0; j < lb; j++) {
		int *k = &count[(unsigned char)b[j]];
		lack += *k < 0 ? -*k : 0;
		*k = 0;
	}
	if (surplus > limit || lack > limit)
		return limit + 1;
	/* three rows of the dynamic-programming table: i-2, i-1, i */
	int rows[3][WORD_MAX];
	int *pp = rows[0], *p = rows[1], *c = rows[2];
	for (size_t j = 0; j <= lb; j++)
		p[j] = (int)j;
	for (size_t i = 1; i <= la; i++) {
		c[0] = (int)i;
		int row_min = c[0];
		for (size_t j = 1; j <= lb; j++) {
			int cost = a[i - 1] != b[j - 1];
			c[j] = min3(p[j] + 1, c[j - 1] + 1, p[j - 1] + cost);
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] &&
			    pp[j - 2] + 1 < c[j])
				c[j] = pp[j - 2] + 1;
			if (c[j] < row_min)
				row_min = c[j];
		}
		/* a swap reads two rows back, so both must be past the limit */
		if (row_min > limit && i > 1) {
			int prev_min = p[0];
			for (size_t j = 1; j <= lb; j++)
				if (p[j] < prev_min)
					prev_min = p[j];
			if (prev_min > limit)
				return limit + 1;
		}
		int *t = pp;
		pp = p;
		p = c;
		c = t;
	}
	return p[lb];
}

int suggest_distance(const char *a, const char *b)
{
	return distance_within(a, b, 2 * WORD_MAX);
}

void suggest_init(struct suggest *s, const char *word)
{
	memset(s, 0, sizeof(*s));
	s->word = word;
	int len = (int)strnlen(word, WORD_MAX - 1);
	s->limit = len / 3;
	if (s->limit < 1)
		s->limit = 1;
	if (s->limit > 3)
		s->limit = 3;
}

void suggest_add(struct suggest *s, const char *name)
{
	if (!name || !*name || strlen(name) >= WORD_MAX || !strcmp(name, s->word))
		return;
	int d = distance_within(s->word, name, s->limit);
	if (d > s->limit)
		return;
	for (int i = 0; i < s->n; i++)
		if (!strcmp(s->name[i], name))
			return;
	/* insert in distance order (ties: first offered first) */
	int at = s->n;
	while (at > 0 && s->dist[at - 1] > d)
		at--;
	if (at >= SUGGEST_MAX)
		return;
	int last = s->n < SUGGEST_MAX ? s->n : SUGGEST_MAX - 1;
	for (int i = last; i > at; i--) {
		s->dist[i] = s->dist[i - 1];
		memcpy(s->name[i], s->name[i - 1], sizeof(s->name[i]));
	}
	s->dist[at] = d;
	snprintf(s->name[at], sizeof(s->name[at]), "%s", name);
	if (s->n < SUGGEST_MAX)
		s->n++;
}

const char *suggest_text(const struct suggest *s, int max, char *buf, size_t len)
{
	int n = s->n < max ? s->n : max;
	/* only the nearest: a distance-1 name beats distance-2 ones */
	while (n > 1 && s->dist[n - 1] > s->dist[0])
		n--;
	if (!len)
		return buf;
	buf[0] = '\0';
	if (!n)
		return buf;
	size_t o = (size_t)snprintf(buf, len, "; did you mean ");
	for (int i = 0; i < n && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s'%s'", i == 0 ? "" : i == n - 1 ? " or " : ", ",
				      s->name[i]);
	if (o < len)
		snprintf(buf + o, len - o, "?");
	return buf;
}
