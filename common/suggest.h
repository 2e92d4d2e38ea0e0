/*
 * suggest.h - "did you mean": the nearest names to a misspelled one.
 *
 * Errors for an unknown probe type, tracepoint, field, builtin or function
 * offer what exists and is closest by edit distance (Damerau-Levenshtein:
 * a swap of two neighbouring letters counts as one edit, the commonest
 * typo).  Callers feed candidates one at a time and ask for the best at the
 * end, so no list of every name needs to be built.
 */
#ifndef SONDE_SUGGEST_H
#define SONDE_SUGGEST_H

#include <stddef.h>

#define SUGGEST_MAX 3

struct suggest {
	const char *word;		/* what the user wrote */
	int limit;			/* greatest distance worth offering */
	int n;				/* names kept, nearest first */
	int dist[SUGGEST_MAX];
	char name[SUGGEST_MAX][128];
};

/* start a search for names near `word` (not copied: must outlive s) */
void suggest_init(struct suggest *s, const char *word);
/* offer a candidate (copied when kept); exact matches are ignored */
void suggest_add(struct suggest *s, const char *name);
/* the edit distance between a and b (case sensitive) */
int suggest_distance(const char *a, const char *b);
/* "; did you mean 'x'?" or "; did you mean 'x', 'y' or 'z'?" for up to
 * `max` names, into buf; "" when nothing is near.  Returns buf. */
const char *suggest_text(const struct suggest *s, int max, char *buf, size_t len);

#endif
