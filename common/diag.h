/*
 * diag.h - located error messages with the source line and a caret.
 *
 *   prog.sonde:3:9: error: unknown function 'cnt'
 *   BEGIN { cnt(); }
 *           ^~~
 *
 * Every stage reports through one struct diag, which knows the file name and
 * the source text, so it can quote the offending line.  Messages never end in
 * a period; they name their object ("map '@lat': ...").
 */
#ifndef SONDE_DIAG_H
#define SONDE_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

/* A span in the source: 1-based line and column; end_col is one past the
 * last column of the span (on end_line). */
struct src_loc {
	const char *file;
	int line, col;
	int end_line, end_col;
};

struct diag {
	const char *file;	/* name shown in messages ("stdin" for -e) */
	const char *src;	/* whole source text, NUL-terminated */
	FILE *out;		/* stderr unless a test captures it */
	int errors;
};

/* After this many errors the rest are counted but not printed, and the
 * stages stop looking for more (as clang's -ferror-limit): 6,000 bad
 * attach points are 20 messages, not 96 MB. */
#define DIAG_MAX_ERRORS 20
/* A quoted line longer than this shows the part around the column. */
#define DIAG_LINE_MAX 120

void diag_init(struct diag *d, const char *file, const char *src, FILE *out);
/* true once DIAG_MAX_ERRORS errors were reported: stop looking for more */
bool diag_stopped(const struct diag *d);
void diag_error(struct diag *d, struct src_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* the same for a caller that wraps it with its own variadic reporter */
void diag_verror(struct diag *d, struct src_loc loc, const char *fmt, va_list ap)
	__attribute__((format(printf, 3, 0)));
/* --no-warnings: diag_warn and diag_warnf print nothing */
extern bool diag_no_warnings;
/* "sonde: warning: " and the message on stderr (runtime warnings) */
void diag_warnf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void diag_warn(struct diag *d, struct src_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* errorf()/warnf() at run time, as bpftrace locates them:
 *   stdin:1:9-62: ERROR: msg
 *   BEGIN { errorf("..."); }
 *           ~~~~~~~~~~~~~~
 * kind is "ERROR" or "WARNING"; a span over several lines prints
 * "file:L1-L2: KIND: msg" only.  One trailing newline of msg is dropped. */
void diag_located(struct diag *d, struct src_loc loc, const char *kind, const char *msg,
		  size_t len);
/* Where loc is in the files a script imports (parser/import.c puts them
 * in one text, each after a `#line N "FILE"` line): its line (and end
 * line) rewritten to the file's, and the file's name (in file, cap bytes),
 * or loc's own file (d->file when it has none) where no marker is before
 * it. */
const char *diag_where(const struct diag *d, struct src_loc *loc, char *file, size_t cap);
/* The span covering both a and b. */
struct src_loc diag_span(struct src_loc a, struct src_loc b);

#endif
