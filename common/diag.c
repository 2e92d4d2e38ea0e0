/*
 * diag.c - print "file:line:col: error: msg", the source line, and ^~~~.
 *
 * Tabs in the quoted line are copied into the underline so the caret lines
 * up in any terminal.  A span that runs past the end of its first line is
 * underlined to the end of that line.
 */
#include "common/diag.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/explain.h"

void diag_init(struct diag *d, const char *file, const char *src, FILE *out)
{
	memset(d, 0, sizeof(*d));
	d->file = file;
	d->src = src ? src : "";
	d->out = out ? out : stderr;
}

/* where line `line` (1-based) of src starts, and its length in *len */
static const char *line_at(const char *src, int line, int *len)
{
	const char *p = src;
	for (int l = 1; l < line && *p; p++)
		if (*p == '\n')
			l++;
	const char *e = strchr(p, '\n');
	*len = e ? (int)(e - p) : (int)strlen(p);
	return p;
}

/* the line, or for a long one the DIAG_LINE_MAX columns around the span's
 * start with "..." where it was cut, and the underline beneath */
static void quote_line(struct diag *d, struct src_loc loc)
{
	int len;
	const char *p = line_at(d->src, loc.line, &len);
	if (loc.line < 1 || (len == 0 && !*p && loc.line > 1 && loc.col > 1))
		return;
	int col = loc.col < 1 ? 1 : loc.col;
	int end = loc.end_line == loc.line ? loc.end_col : len + 1;
	int from = 0, to = len;		/* the columns shown, 0-based */
	if (len > DIAG_LINE_MAX) {
		from = col - 1 - DIAG_LINE_MAX / 3;
		from = from < 0 ? 0 : from > len - DIAG_LINE_MAX ? len - DIAG_LINE_MAX : from;
		to = from + DIAG_LINE_MAX;
	}
	const char *pre = from > 0 ? "..." : "";
	fprintf(d->out, "%s%.*s%s\n", pre, to - from, p + from, to < len ? "..." : "");
	fputs(pre, d->out);
	for (int i = from + 1; i < col; i++)
		fputc(p[i - 1] == '\t' ? '\t' : ' ', d->out);
	fputc('^', d->out);
	for (int i = col + 1; i < end && i <= to; i++)
		fputc('~', d->out);
	fputc('\n', d->out);
}

/*
 * A script that imports files is parsed as one text with the files
 * spliced in (parser/import.c), each part after a line `#line N "FILE"`:
 * the next line is line N of FILE.  diag_where (diag.h) maps a location.
 */
const char *diag_where(const struct diag *d, struct src_loc *loc, char *file, size_t cap)
{
	const char *own = loc->file ? loc->file : d->file;
	if (!d->src || (loc->file && d->file && strcmp(loc->file, d->file)) ||
	    !strstr(d->src, "#line "))
		return own;
	const char *p = d->src, *found = NULL;
	int at = 0, base = 0;
	for (int line = 1; *p && line < loc->line; line++) {
		if (!strncmp(p, "#line ", 6)) {
			char *end;
			long n = strtol(p + 6, &end, 10);
			const char *q = strchr(end, '"'), *nl = strchr(p, '\n');
			const char *e = q ? strchr(q + 1, '"') : NULL;
			if (n > 0 && q && e && (!nl || e < nl)) {
				found = q + 1;
				size_t len = (size_t)(e - found) < cap ? (size_t)(e - found) : cap - 1;
				memcpy(file, found, len);
				file[len] = '\0';
				at = line;
				base = (int)n;
			}
		}
		const char *nl = strchr(p, '\n');
		if (!nl)
			break;
		p = nl + 1;
	}
	if (!found)
		return own;
	int shift = base - (at + 1);
	loc->line += shift;
	loc->end_line += shift;
	return file;
}

static void report(struct diag *d, const char *what, struct src_loc loc,
		   const char *fmt, va_list ap)
{
	char mfile[1024];
	struct src_loc shown = loc;
	const char *file = loc.line > 0 ? diag_where(d, &shown, mfile, sizeof(mfile))
					: loc.file ? loc.file : d->file;
	char *msg = NULL;
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	if (loc.line > 0)
		fprintf(d->out, "%s:%d:%d: %s: %s\n", file, shown.line, loc.col, what, msg ? msg : fmt);
	else
		fprintf(d->out, "%s: %s: %s\n", file, what, msg ? msg : fmt);
	if (loc.line > 0)
		quote_line(d, loc);
	/* a message that names its class ("... [S0202]") says what it is */
	const struct explain *x = explain_of(msg);
	if (x)
		explain_note(d->out, x, strstr(msg, x->summary) != NULL);
	free(msg);
}

bool diag_stopped(const struct diag *d)
{
	return d->errors >= DIAG_MAX_ERRORS;
}

void diag_verror(struct diag *d, struct src_loc loc, const char *fmt, va_list ap)
{
	/* as gcc's -fmax-errors: the last one printed says the rest is left */
	if (d->errors < DIAG_MAX_ERRORS)
		report(d, "error", loc, fmt, ap);
	if (++d->errors == DIAG_MAX_ERRORS)
		fprintf(d->out, "%s: too many errors: stopped after %d\n", d->file, DIAG_MAX_ERRORS);
}

void diag_error(struct diag *d, struct src_loc loc, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	diag_verror(d, loc, fmt, ap);
	va_end(ap);
}

bool diag_no_warnings;

void diag_warnf(const char *fmt, ...)
{
	if (diag_no_warnings)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("sonde: warning: ", stderr);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

/* -k: a helper's failure at run time, located like an error, but the
 * script goes on */
void diag_warn(struct diag *d, struct src_loc loc, const char *fmt, ...)
{
	if (diag_no_warnings)
		return;
	va_list ap;
	va_start(ap, fmt);
	report(d, "warning", loc, fmt, ap);
	va_end(ap);
}

void diag_located(struct diag *d, struct src_loc loc, const char *kind, const char *msg,
		  size_t len)
{
	char mfile[1024];
	struct src_loc shown = loc;
	const char *file = diag_where(d, &shown, mfile, sizeof(mfile));
	if (len && msg[len - 1] == '\n')
		len--;
	if (loc.end_line > loc.line) {
		fprintf(d->out, "%s:%d-%d: %s: %.*s\n", file, shown.line, shown.end_line, kind, (int)len,
			msg);
		return;
	}
	int end = loc.end_col > loc.col ? loc.end_col : loc.col + 1;
	fprintf(d->out, "%s:%d:%d-%d: %s: %.*s\n", file, shown.line, loc.col, end, kind, (int)len, msg);
	int n;
	const char *p = line_at(d->src, loc.line, &n);
	if (!n)
		return;
	/* tabs as four columns, in the line and under it */
	for (int i = 0; i < n; i++)
		fputs(p[i] == '\t' ? "    " : (char[2]){p[i], 0}, d->out);
	fputc('\n', d->out);
	for (int i = 0; i < n && i < end - 1; i++) {
		char m = i < loc.col - 1 ? ' ' : '~';
		for (int k = p[i] == '\t' ? 4 : 1; k > 0; k--)
			fputc(m, d->out);
	}
	fputc('\n', d->out);
}

struct src_loc diag_span(struct src_loc a, struct src_loc b)
{
	struct src_loc r = a;
	if (b.end_line > a.end_line ||
	    (b.end_line == a.end_line && b.end_col > a.end_col)) {
		r.end_line = b.end_line;
		r.end_col = b.end_col;
	}
	return r;
}
