/*
 * lex_int.h - what the scanner (lexer.l, its C in scan.c) and the
 * preprocessor (pp.c) share (not a public header).  Needs the generated parser.h first, for the
 * token kinds and bison's value and location types.
 */
#ifndef SONDE_LEX_INT_H
#define SONDE_LEX_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/arena.h"
#include "common/diag.h"
#include "lexer/lexer.h"

enum {
	LEX_TEXT_MAX = 60,	/* bytes of a token kept for messages */
	LEX_MAX_COND = 64,	/* #if nesting */
	LEX_SUB_DEPTH = 1 << 20,	/* a #define value never leaves CODE */
	/* #define A x x / #define B A A / ... doubles each time: cap one
	 * value, and all replayed tokens of a program */
	LEX_DEFINE_MAX_TOKENS = 4096,
	LEX_EXPAND_MAX_TOKENS = 1 << 18,
};

/* One token of a #define value, replayed at each use. */
struct lex_tok {
	struct lex_tok *next;
	int kind;
	PARSE_YYSTYPE val;
	const char *text;
};

/* #define NAME VALUE; `tokens` NULL for an empty value.  #undef pushes an
 * entry with `undefined` set, so the newest entry for a name decides. */
struct lex_define {
	struct lex_define *next;
	const char *name;
	struct lex_tok *tokens;
	bool undefined;
};

/* An open #if/#ifdef/#ifndef. */
struct lex_cond {
	struct src_loc loc;
	const char *what;	/* "#ifdef" ... for messages */
	bool seen_else;
};

struct lexer {
	const char *src;		/* the text scanned, and how far */
	size_t off;
	struct arena *arena;
	struct diag *diag;
	void *scanner;			/* yyscan_t */
	const char *file;
	const char *line_file;	/* the FILE of the last `#line N "FILE"` (a file a
				 * script imports): quoted #includes are looked for
				 * beside it; NULL: beside `file` */
	int line, col;			/* where the next byte sits */
	int depth;			/* brace depth in CODE */
	bool in_def;			/* CODE is a struct or union definition: a
					 * name before a name or '*' is a type
					 * (uint8_t a; size_t *p;) */
	struct src_loc last;		/* the last token returned */
	bool have_last;
	int prev_kind, prev2_kind;	/* the kinds of the last two tokens
					 * returned: whether a '{' or an 'if'
					 * starts a value (lex_in_value) */
	struct lex_define *own_defs;
	struct lex_define **defs;	/* shared with #define sub-scanners */
	const struct lex_tok *queue;	/* #define tokens being replayed */
	struct src_loc queue_loc;
	const char *queue_name;
	long expanded;			/* tokens replayed so far */
	bool failed;
	bool sub;			/* scanning a #define value */
	int skip_nest;			/* #if nesting inside a skipped branch */
	struct lex_cond conds[LEX_MAX_COND];
	int nconds;
	char text[LEX_TEXT_MAX + 4];
};

/* lexer.l: what needs flex's own state */
/* a scanner over src starting at line:col (for #define values) */
struct lexer *lex_create(struct arena *a, struct diag *d, const char *src, int line, int col);
int lex_scan(PARSE_YYSTYPE *val, PARSE_YYLTYPE *loc, struct lexer *lx);	/* the next rule's token */
void lex_begin_code(struct lexer *lx);
void lex_push_skip(struct lexer *lx);
void lex_pop_skip(struct lexer *lx);

/* scan.c: the scanner's services */
int lex_error(struct lexer *lx, struct src_loc loc, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int lex_invalid(struct lexer *lx, struct src_loc loc, unsigned char c);
/* an integer literal: 0 with *out set, 1 if malformed, 2 if above UINT64_MAX */
int lex_parse_int(const char *s, size_t n, uint64_t *out);
/* the rules' actions: YY_USER_ACTION locates each token (lex_advance);
 * the others make one token of the text matched */
void lex_advance(struct lexer *lx, PARSE_YYLTYPE *loc, const char *text, size_t len);
int lex_number(struct lexer *lx, PARSE_YYSTYPE *val, struct src_loc loc, const char *text,
	       size_t len);
int lex_string(struct lexer *lx, PARSE_YYSTYPE *val, struct src_loc loc, const char *text,
	       size_t len);
int lex_char(struct lexer *lx, PARSE_YYSTYPE *val, struct src_loc loc, const char *text,
	     size_t len);
int lex_word(struct lexer *lx, PARSE_YYSTYPE *val, const char *text, size_t len);
int lex_positional(struct lexer *lx, PARSE_YYSTYPE *val, struct src_loc loc, const char *text,
		   size_t len);
int lex_attach(struct lexer *lx, PARSE_YYSTYPE *val, const char *text, size_t len);
int lex_eof(struct lexer *lx, PARSE_YYLTYPE *loc);
int lex_op(PARSE_YYSTYPE *val, enum ast_op op);
/* lookahead in the text after a name: "*"s and ')' (a cast's type), a
 * name or '*' (a struct member's type), "[N])" (a string cast's type) */
bool lex_stars_paren(const char *s);
bool lex_name_follows(const char *s);
bool lex_len_paren(const char *s);

/* pp.c: the preprocessor */
const struct lex_define *lex_find_define(const struct lexer *lx, const char *name, size_t len);
void lex_add_define(struct lexer *lx, const char *name, struct lex_tok *tokens, bool undefined);
int lex_directive(struct lexer *lx, struct src_loc loc, const char *s, size_t n);
/* kconst.c: the kernel's ABI constants a kernel header's nested includes
 * would define (errno, AF_*, DT_*, O_*, signals ...), each unless defined */
void lex_kernel_consts(struct lexer *lx);
int lex_skip_directive(struct lexer *lx, struct src_loc loc, const char *s, size_t n);

#endif
