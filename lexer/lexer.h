/*
 * lexer.h - the flex scanner behind parse_program().
 *
 * The scanner turns one source text into tokens for the bison grammar.  It
 * is modal: at top level it reads attach points as raw text
 * ("uprobe:/usr/lib/libc.so.6:malloc"), between '/' and the '/' that is
 * followed by '{' it reads a predicate, and inside braces it reads
 * statements.  It also runs the small preprocessor the language has:
 * comments; `#include` (skipped, except that a few well-known headers
 * define their constants: TASK_RUNNING, TCP_*, AF_*); `#define NAME VALUE`
 * (VALUE's tokens replace later uses of NAME); `#undef`; and
 * `#ifdef/#ifndef/#if N/#else/#endif`, with BPFTRACE_HAVE_BTF defined.
 * Errors go to the struct diag with a location; after one the scanner
 * hands the grammar bison's error token, so one message is printed.
 *
 * The grammar reads tokens through lex_next(), declared in the generated
 * parser header because its arguments are bison's value and location types.
 * lex_dump() is the test-facing view: the token stream of a string as text.
 */
#ifndef SONDE_LEXER_H
#define SONDE_LEXER_H

#include <stdbool.h>

#include "common/arena.h"
#include "common/diag.h"

struct lexer;

/* A scanner over `src` (NUL-terminated, must outlive the lexer).  Tokens,
 * strings and #define tables live in `a`; errors go to `d`, and token
 * locations name d->file. */
struct lexer *lex_new(struct arena *a, struct diag *d, const char *src);
void lex_free(struct lexer *lx);

/* bpftrace's preprocessor options: -I DIR, the directories searched for
 * #include <H> and "H" before the system's (in order), and --include
 * FILE, the headers included before the program as `#include <FILE>`
 * lines would; kept (not copied) for every later scanner */
void lex_set_includes(const char *const *dirs, int ndirs, const char *const *files, int nfiles);
/* the --include headers into lx's #define table: 0, or -1 after an
 * error (a file not found) */
int lex_pre_includes(struct lexer *lx);

/* true once the scanner reported an error */
bool lex_failed(const struct lexer *lx);

/* Source text of the token lex_next() returned last (at most ~60 bytes),
 * for "unexpected identifier 'foo'". */
const char *lex_last_text(const struct lexer *lx);

/*
 * The whole token stream of `src` as one line of text, tokens separated by
 * single spaces:
 *
 *   attach:BEGIN { ident:printf ( str:"hi\n" ) ; }
 *
 * Operators, punctuation and keywords print as their text; the closing '/'
 * of a predicate prints as "endpred"; literals and names print as
 * class:value (int:42 char:97 str:"..." ident:pid var:$x map:@m pos:$1
 * type:uint32 qual:const typedef:u32 attach:RAW; a name is a typedef
 * name when "*"s and ")" follow it, as in "(u32 *)").  With `with_loc` each token is
 * followed by @line:col-end_col (@line:col-end_line:end_col when it spans
 * lines).  A lexical error appends "error" and stops (the message goes to
 * `d`).  For unit tests and debugging.
 */
char *lex_dump(struct arena *a, struct diag *d, const char *src, bool with_loc);

#endif
