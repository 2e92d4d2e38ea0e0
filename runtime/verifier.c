/*
 * verifier.c - read the kernel verifier's log back to the script.
 *
 * codegen puts each source line's text into the BTF line info, and the
 * verifier prints it ("; @b = arg9;") before the instructions that came
 * from it.  The last such line before the complaint names the source line
 * of the failing instruction; we find that line in the script by its text.
 * Pure functions over the log text, so they are unit-tested without a
 * kernel.
 */
#include "runtime/verifier.h"

#include <string.h>

/* the text of the last "; <source>" line of log[0..len), trimmed */
static const char *last_source_line(const char *log, size_t len, size_t *tlen)
{
	const char *best = NULL, *end = log + len;
	for (const char *p = log; p < end;) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *e = nl ? nl : end;
		if (e - p > 2 && p[0] == ';' && p[1] == ' ') {
			best = p + 2;
			*tlen = (size_t)(e - best);
		}
		p = nl ? nl + 1 : end;
	}
	if (!best)
		return NULL;
	while (*tlen && (*best == ' ' || *best == '\t')) {
		best++;
		(*tlen)--;
	}
	while (*tlen && (best[*tlen - 1] == ' ' || best[*tlen - 1] == '\t' || best[*tlen - 1] == '\r'))
		(*tlen)--;
	return *tlen ? best : NULL;
}

int vf_failing_line(const char *log, size_t len, const char *src, int *col, int *end_col)
{
	size_t tlen = 0;
	const char *text = last_source_line(log, len, &tlen);
	if (!text || !src)
		return 0;
	int found = 0, line = 1;
	for (const char *p = src; *p; line++) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		size_t lead = 0;
		while (lead < n && (p[lead] == ' ' || p[lead] == '\t'))
			lead++;
		size_t body = n - lead;
		while (body && (p[lead + body - 1] == ' ' || p[lead + body - 1] == '\t' ||
				p[lead + body - 1] == '\r'))
			body--;
		if (body == tlen && !memcmp(p + lead, text, tlen)) {
			if (found)
				return 0;	/* two identical lines: do not guess */
			found = line;
			*col = (int)lead + 1;
			*end_col = (int)(lead + body) + 1;
		}
		if (!nl)
			break;
		p = nl + 1;
	}
	return found;
}
