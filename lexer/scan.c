/*
 * scan.c - the C of the scanner: what lexer.l's rules do with the text
 * they match (positions, numbers, strings and characters, words and
 * keywords, attach points, the end of input, located errors), the
 * grammar's yylex (lex_next: #define expansion, and whether a '{' or an
 * 'if' starts a value), and the token dump the unit tests read.  Built
 * with the project's warnings; the generated scanner is lexer.l.
 */
#include <ctype.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"
#include "common/text.h"
#include "lexer/lex_int.h"

/* ---- positions and errors --------------------------------------------- */

/* YY_USER_ACTION: locate the token just matched and step past it; also
 * keep its text for messages. */
void lex_advance(struct lexer *lx, PARSE_YYLTYPE *loc,
			const char *text, size_t len)
{
	lx->off += len;
	loc->file = lx->file;
	loc->line = lx->line;
	loc->col = lx->col;
	for (size_t i = 0; i < len; i++) {
		if (text[i] == '\n') {
			lx->line++;
			lx->col = 1;
		} else {
			lx->col++;
		}
	}
	loc->end_line = lx->line;
	loc->end_col = lx->col;
	if (len > LEX_TEXT_MAX) {
		memcpy(lx->text, text, LEX_TEXT_MAX - 3);
		memcpy(lx->text + LEX_TEXT_MAX - 3, "...", 4);
	} else {
		memcpy(lx->text, text, len);
		lx->text[len] = '\0';
	}
}

/* Report a located error; the scanner is done after it.  Returns bison's
 * error token so an action can `return lex_error(...)`. */
int lex_error(struct lexer *lx, struct src_loc loc, const char *fmt,
		     ...)
{
	/* one error per parse: the parser may have reported one already
	 * (an expression past its size) while it reads on to the statement's
	 * end */
	if (!lx->failed && !lx->diag->errors) {
		va_list ap;
		va_start(ap, fmt);
		char *msg = arena_vprintf(lx->arena, fmt, ap);
		va_end(ap);
		diag_error(lx->diag, loc, "%s", msg);
	}
	lx->failed = true;
	return TOK_PARSE_YYerror;
}

/* A byte as a message shows it: itself if printable, else \xNN. */
static const char *lex_byte_text(struct lexer *lx, unsigned char c)
{
	if (c >= 0x20 && c < 0x7f)
		return arena_printf(lx->arena, "%c", c);
	return arena_printf(lx->arena, "\\x%02x", c);
}

int lex_invalid(struct lexer *lx, struct src_loc loc, unsigned char c)
{
	return lex_error(lx, loc, "invalid character '%s'",
			 lex_byte_text(lx, c));
}

/* {WS}* ("*" | a name) at s: in a struct definition, after a name, the
 * name was a type (uint8_t a; size_t *p;) */
bool lex_name_follows(const char *s)
{
	while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f' || *s == '\n')
		s++;
	return *s == '*' || *s == '_' || (*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z');
}

/* ({WS}* "*")+ {WS}* ")" at s: after a name, only a cast's type */
bool lex_stars_paren(const char *s)
{
	int stars = 0;
	for (;; s++) {
		if (*s == '*')
			stars++;
		else if (*s == ')')
			return stars > 0;
		else if (*s != ' ' && *s != '\t' && *s != '\r' && *s != '\v' && *s != '\f')
			return false;
	}
}

/* {WS}* "[" {WS}* digits {WS}* "]" {WS}* ")" at s: after "string", only
 * the type of a string cast, (string[64])$s */
bool lex_len_paren(const char *s)
{
	const char *want = "[0])";	/* '0' stands for the digits */
	for (; *want; want++) {
		while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f')
			s++;
		if (*want == '0') {
			if (*s < '0' || *s > '9')
				return false;
			while (*s >= '0' && *s <= '9')
				s++;
		} else if (*s++ != *want) {
			return false;
		}
	}
	return true;
}

int lex_op(PARSE_YYSTYPE *val, enum ast_op op)
{
	val->op = op;
	return TOK_ASSIGN_OP;
}

/* ---- literals ------------------------------------------------------------ */

/* a digit's value in bases up to 16; 99 (past any base) for none */
static int lex_digit(int c)
{
	int d = text_hexdigit(c);
	return d < 0 ? 99 : d;
}

/*
 * integer = decimal | "0x" hex | "0" octal, with "_" between digits
 *           (1_000_000), and decimal "e" exponent (1e6).
 * Returns 0 with *out set, 1 if malformed, 2 if above UINT64_MAX.
 */
int lex_parse_int(const char *s, size_t n, uint64_t *out)
{
	unsigned base = 10;
	size_t i = 0, mend = n;
	bool overflow = false;

	if (n > 1 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		i = 2;
	} else {
		for (size_t k = 0; k < n; k++)
			if (s[k] == 'e' || s[k] == 'E') {
				mend = k;
				break;
			}
		if (mend == n && n > 1 && s[0] == '0')
			base = 8;
	}
	uint64_t v = 0;
	bool any = false, prev_digit = false;
	for (size_t k = i; k < mend; k++) {
		if (s[k] == '_') {
			if (!prev_digit || k + 1 >= mend ||
			    (unsigned)lex_digit(s[k + 1]) >= base)
				return 1;
			prev_digit = false;
			continue;
		}
		unsigned d = (unsigned)lex_digit((unsigned char)s[k]);
		if (d >= base)
			return 1;
		if (v > (UINT64_MAX - d) / base)
			overflow = true;
		else
			v = v * base + d;
		any = prev_digit = true;
	}
	if (!any)
		return 1;
	if (mend < n) {
		size_t k = mend + 1;
		uint64_t e = 0;
		if (k >= n)
			return 1;
		for (; k < n; k++) {
			if (s[k] < '0' || s[k] > '9')
				return 1;
			if (e < 1000)
				e = e * 10 + (uint64_t)(s[k] - '0');
		}
		for (uint64_t j = 0; j < e && v != 0 && !overflow; j++) {
			if (v > UINT64_MAX / 10)
				overflow = true;
			else
				v *= 10;
		}
	}
	*out = v;
	return overflow ? 2 : 0;
}

/*
 * Newer bpftrace's suffixes on a decimal literal: durations, in
 * nanoseconds (1s is 1000000000, 100ms, 5us, 1m, 2h, 1d), and C's integer
 * suffixes, which change nothing (123UL is 123).  Returns the multiplier
 * (1 for C's) and shortens *len to the digits; 0 when there is none.
 */
static uint64_t lex_suffix(const char *text, size_t *len)
{
	static const struct { const char *s; uint64_t mul; } sfx[] = {
		{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000ull },
		{ "m", 60000000000ull }, { "h", 3600000000000ull }, { "d", 86400000000000ull },
		{ "ull", 1 }, { "ULL", 1 }, { "ul", 1 }, { "UL", 1 }, { "ll", 1 }, { "LL", 1 },
		{ "u", 1 }, { "U", 1 }, { "l", 1 }, { "L", 1 },
	};
	size_t d = 0;
	while (d < *len && ((text[d] >= '0' && text[d] <= '9') || text[d] == '_'))
		d++;
	if (d == 0 || d == *len || (text[0] == '0' && d > 1 && text[1] != '_' && text[d] != 'u' &&
				    text[d] != 'U' && text[d] != 'l' && text[d] != 'L'))
		return 0;
	for (size_t i = 0; i < sizeof(sfx) / sizeof(sfx[0]); i++)
		if (strlen(sfx[i].s) == *len - d && !memcmp(text + d, sfx[i].s, *len - d)) {
			*len = d;
			return sfx[i].mul;
		}
	return 0;
}

int lex_number(struct lexer *lx, PARSE_YYSTYPE *val,
		      struct src_loc loc, const char *text, size_t len)
{
	uint64_t mul = lex_suffix(text, &len);
	int rc = lex_parse_int(text, len, &val->ival);
	if (rc == 0 && mul > 1) {
		if (val->ival > UINT64_MAX / mul)
			rc = 2;
		else
			val->ival *= mul;
	}
	switch (rc) {
	case 0:
		return TOK_INT;
	case 2:
		return lex_error(lx, loc, "integer literal '%s' is out of range",
				 lx->text);
	default:
		return lex_error(lx, loc, "invalid integer literal '%s'",
				 lx->text);
	}
}

/*
 * Decode the escapes of a string or char literal body (the text between
 * the quotes): \n \t \r \a \b \f \v \\ \" \' \NNN (octal, up to three
 * digits) \xHH (one or two hex digits).  `loc` locates the opening quote;
 * the literal sits on one line, so an escape's column is loc.col + 1 +
 * its offset.  Returns 0, or bison's error token after reporting.
 */
static int lex_unescape(struct lexer *lx, struct src_loc loc,
			const char *body, size_t n, char **out, uint32_t *outlen)
{
	char *buf = arena_alloc(lx->arena, n + 1);
	size_t o = 0;
	for (size_t i = 0; i < n; i++) {
		if (body[i] != '\\') {
			buf[o++] = body[i];
			continue;
		}
		size_t start = i++;
		unsigned char c = (unsigned char)body[i];	/* STR: never past n */
		struct src_loc el = loc;
		el.col = loc.col + 1 + (int)start;
		el.end_line = el.line;
		el.end_col = el.col + 2;
		switch (c) {
		case 'n': buf[o++] = '\n'; break;
		case 't': buf[o++] = '\t'; break;
		case 'r': buf[o++] = '\r'; break;
		case 'a': buf[o++] = '\a'; break;
		case 'b': buf[o++] = '\b'; break;
		case 'f': buf[o++] = '\f'; break;
		case 'v': buf[o++] = '\v'; break;
		case '\\': buf[o++] = '\\'; break;
		case '"': buf[o++] = '"'; break;
		case '\'': buf[o++] = '\''; break;
		case 'x': {
			unsigned v = 0;
			int nd = 0;
			while (nd < 2 && i + 1 < n &&
			       lex_digit((unsigned char)body[i + 1]) < 16) {
				v = v * 16 + (unsigned)lex_digit((unsigned char)body[++i]);
				nd++;
			}
			if (nd == 0)
				return lex_error(lx, el,
					"invalid escape sequence '\\x'");
			buf[o++] = (char)v;
			break;
		}
		default:
			if (c >= '0' && c <= '7') {
				unsigned v = (unsigned)(c - '0');
				int nd = 1;
				while (nd < 3 && i + 1 < n && body[i + 1] >= '0' &&
				       body[i + 1] <= '7') {
					v = v * 8 + (unsigned)(body[++i] - '0');
					nd++;
				}
				if (v > 0xff) {
					el.end_col = el.col + 1 + nd;
					return lex_error(lx, el,
						"octal escape sequence '\\%.*s' is out of range",
						nd, body + start + 1);
				}
				buf[o++] = (char)v;
				break;
			}
			return lex_error(lx, el, "invalid escape sequence '\\%s'",
					 lex_byte_text(lx, c));
		}
	}
	buf[o] = '\0';
	*out = buf;
	*outlen = (uint32_t)o;
	return 0;
}

/* string = '"' (char | escape)* '"' */
int lex_string(struct lexer *lx, PARSE_YYSTYPE *val,
		      struct src_loc loc, const char *text, size_t len)
{
	if (lex_unescape(lx, loc, text + 1, len - 2, &val->str.p, &val->str.len))
		return TOK_PARSE_YYerror;
	return TOK_STRING;
}

/* char = "'" (char | escape) "'" : an integer */
int lex_char(struct lexer *lx, PARSE_YYSTYPE *val, struct src_loc loc,
		    const char *text, size_t len)
{
	char *s;
	uint32_t n;
	if (lex_unescape(lx, loc, text + 1, len - 2, &s, &n))
		return TOK_PARSE_YYerror;
	if (n != 1)
		return lex_error(lx, loc,
			"character literal %s must hold exactly one character",
			lx->text);
	val->ival = (unsigned char)s[0];
	return TOK_CHAR;
}

/* "$" digits: positional parameter N >= 1 */
int lex_positional(struct lexer *lx, PARSE_YYSTYPE *val,
			  struct src_loc loc, const char *text, size_t len)
{
	long v = 0;
	for (size_t i = 1; i < len; i++) {
		v = v * 10 + (text[i] - '0');
		if (v > INT_MAX)
			return lex_error(lx, loc,
				"positional parameter '%s' is out of range",
				lx->text);
	}
	if (v == 0)
		return lex_error(lx, loc,
			"invalid positional parameter '%s' (they start at $1)",
			lx->text);
	val->pos = (int)v;
	return TOK_POSITIONAL;
}

/* Keywords and type words; anything else is an identifier. */
int lex_word(struct lexer *lx, PARSE_YYSTYPE *val, const char *text,
		    size_t len)
{
	static const struct { const char *word; int kind; } words[] = {
		{ "if", TOK_IF }, { "else", TOK_ELSE }, { "while", TOK_WHILE },
		{ "unroll", TOK_UNROLL }, { "return", TOK_RETURN },
		{ "break", TOK_BREAK }, { "continue", TOK_CONTINUE },
		{ "let", TOK_LET }, { "for", TOK_FOR },
		{ "sizeof", TOK_SIZEOF }, { "offsetof", TOK_OFFSETOF }, { "struct", TOK_STRUCT },
		{ "typeof", TOK_TYPEOF },
		{ "union", TOK_UNION }, { "enum", TOK_ENUM },
		{ "int8", TOK_TYPE_WORD }, { "int16", TOK_TYPE_WORD },
		{ "int32", TOK_TYPE_WORD }, { "int64", TOK_TYPE_WORD },
		{ "uint8", TOK_TYPE_WORD }, { "uint16", TOK_TYPE_WORD },
		{ "uint32", TOK_TYPE_WORD }, { "uint64", TOK_TYPE_WORD },
		{ "char", TOK_TYPE_WORD }, { "short", TOK_TYPE_WORD },
		{ "int", TOK_TYPE_WORD }, { "long", TOK_TYPE_WORD },
		{ "unsigned", TOK_TYPE_WORD }, { "signed", TOK_TYPE_WORD },
		{ "void", TOK_TYPE_WORD }, { "bool", TOK_TYPE_WORD },
		{ "const", TOK_TYPE_QUAL }, { "volatile", TOK_TYPE_QUAL },
	};
	for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
		if (strlen(words[i].word) == len &&
		    memcmp(words[i].word, text, len) == 0) {
			val->name = words[i].word;
			return words[i].kind;
		}
	}
	val->name = arena_strndup(lx->arena, text, len);
	return TOK_IDENT;
}

/* An attach point's raw text, without the quotes of quoted parts. */
int lex_attach(struct lexer *lx, PARSE_YYSTYPE *val, const char *text,
		      size_t len)
{
	char *raw = arena_alloc(lx->arena, len + 1);
	size_t o = 0;
	for (size_t i = 0; i < len; i++)
		if (text[i] != '"')
			raw[o++] = text[i];
	raw[o] = '\0';
	val->name = raw;
	return TOK_ATTACH;
}

/* End of input: close checks, then the EOF token, located just past the
 * last token so "unexpected end of input" points at where more was due. */
int lex_eof(struct lexer *lx, PARSE_YYLTYPE *loc)
{
	if (lx->nconds > 0) {
		struct lex_cond *c = &lx->conds[lx->nconds - 1];
		return lex_error(lx, c->loc, "'%s' without '#endif'", c->what);
	}
	if (lx->have_last) {
		*loc = lx->last;
		loc->line = loc->end_line;
		loc->col = loc->end_col;
	} else {
		loc->file = lx->file;
		loc->line = loc->end_line = 1;
		loc->col = 1;
	}
	loc->end_col = loc->col + 1;
	lx->text[0] = '\0';
	return TOK_EOI;
}

/* ---- the interface ----------------------------------------------------- */

struct lexer *lex_new(struct arena *a, struct diag *d, const char *src)
{
	struct lexer *lx = lex_create(a, d, src, 1, 1);
	/* bpftrace defines this when the kernel has BTF; sonde requires BTF,
	 * and scripts test it around their #includes */
	struct lex_tok *one = arena_new_obj(a, struct lex_tok);
	one->kind = TOK_INT;
	one->val.ival = 1;
	one->text = "1";
	lex_add_define(lx, "BPFTRACE_HAVE_BTF", one, false);
	return lx;
}

bool lex_failed(const struct lexer *lx)
{
	return lx->failed;
}

const char *lex_last_text(const struct lexer *lx)
{
	return lx->text;
}

/* Whether the token before the next one leaves the grammar expecting an
 * operand: an operator, '=', '(', ',', '[', '?', ':' or '..'.  A '{' or
 * an 'if' there starts a value (a block expression, an if expression),
 * which the grammar reads as an operand anywhere (`{ ...; $x } + 1`);
 * elsewhere they start a statement.  Telling the two apart here keeps the
 * grammar free of the conflicts a '{' that could start either would
 * bring.  `config = {` stays a '{'. */
static bool lex_in_value(const struct lexer *lx)
{
	switch (lx->prev_kind) {
	case '=':
		return lx->prev2_kind != TOK_CONFIG;
	case TOK_ASSIGN_OP: case '(': case ',': case '[': case '?': case ':':
	case '+': case '-': case '*': case '/': case '%': case '&': case '|':
	case '^': case '<': case '>': case '!': case '~': case TOK_EQ:
	case TOK_NE: case TOK_LE: case TOK_GE: case TOK_SHL: case TOK_SHR:
	case TOK_OR_OR: case TOK_AND_AND: case TOK_DOTDOT:
		return true;
	default:
		return false;
	}
}

/* A '{' or 'if' as lex_in_value decides (a replayed #define token may
 * carry either kind), and the kinds remembered for the next token. */
static int lex_context(struct lexer *lx, int kind)
{
	if (kind == '{' || kind == TOK_LBRACE_VALUE)
		kind = lex_in_value(lx) ? TOK_LBRACE_VALUE : '{';
	else if (kind == TOK_IF || kind == TOK_IF_VALUE)
		kind = lex_in_value(lx) ? TOK_IF_VALUE : TOK_IF;
	lx->prev2_kind = lx->prev_kind;
	lx->prev_kind = kind;
	return kind;
}

/* The grammar's yylex: replay a #define's tokens, else scan, expanding
 * identifiers that name a #define. */
int lex_next(PARSE_YYSTYPE *val, PARSE_YYLTYPE *loc, struct lexer *lx)
{
	if (lx->failed)
		return TOK_PARSE_YYerror;
	for (;;) {
		int kind;
		if (lx->queue) {
			const struct lex_tok *t = lx->queue;
			if (++lx->expanded > LEX_EXPAND_MAX_TOKENS)
				return lex_error(lx, lx->queue_loc,
					"macro '%s': the program's macros expand to more than %d tokens",
					lx->queue_name, LEX_EXPAND_MAX_TOKENS);
			lx->queue = t->next;
			*val = t->val;
			*loc = lx->queue_loc;
			snprintf(lx->text, sizeof(lx->text), "%s", t->text);
			kind = t->kind;
		} else {
			kind = lex_scan(val, loc, lx);
			if (kind == TOK_IDENT || kind == TOK_TYPE_NAME) {
				const struct lex_define *d = lex_find_define(lx,
					val->name, strlen(val->name));
				if (d) {
					lx->queue = d->tokens;
					lx->queue_loc = *loc;
					lx->queue_name = d->name;
					continue;
				}
			}
		}
		if (kind != TOK_EOI && kind != TOK_PARSE_YYerror) {
			lx->last = *loc;
			lx->have_last = true;
		}
		return lex_context(lx, kind);
	}
}

/* ---- the test view --------------------------------------------------------- */

static void lex_dump_token(FILE *f, struct lexer *lx, int kind,
			   const PARSE_YYSTYPE *v)
{
	switch (kind) {
	case TOK_ATTACH: fprintf(f, "attach:%s", v->name); break;
	case TOK_IDENT: fprintf(f, "ident:%s", v->name); break;
	case TOK_VAR: fprintf(f, "var:$%s", v->name); break;
	case TOK_MAP: fprintf(f, "map:%s", v->name); break;
	case TOK_POSITIONAL:
		if (v->pos == 0)
			fputs("pos:$#", f);
		else
			fprintf(f, "pos:$%d", v->pos);
		break;
	case TOK_INT: fprintf(f, "int:%llu", (unsigned long long)v->ival); break;
	case TOK_CHAR: fprintf(f, "char:%llu", (unsigned long long)v->ival); break;
	case TOK_STRING:
		fputs("str:", f);
		text_print_quoted(f, v->str.p, v->str.len);
		break;
	case TOK_TYPE_WORD: fprintf(f, "type:%s", v->name); break;
	case TOK_TYPE_QUAL: fprintf(f, "qual:%s", v->name); break;
	case TOK_TYPE_NAME: fprintf(f, "typedef:%s", v->name); break;
	case TOK_ENDPRED: fputs("endpred", f); break;
	default: fputs(lex_last_text(lx), f); break;
	}
}

char *lex_dump(struct arena *a, struct diag *d, const char *src, bool with_loc)
{
	char *buf;
	size_t size;
	FILE *f = text_memstream(&buf, &size);
	struct lexer *lx = lex_new(a, d, src);
	for (int n = 0;; n++) {
		PARSE_YYSTYPE v;
		struct src_loc l;
		int kind = lex_next(&v, &l, lx);
		if (kind == TOK_EOI)
			break;
		if (n)
			fputc(' ', f);
		if (kind == TOK_PARSE_YYerror) {
			fputs("error", f);
			break;
		}
		lex_dump_token(f, lx, kind, &v);
		if (with_loc && l.end_line == l.line)
			fprintf(f, "@%d:%d-%d", l.line, l.col, l.end_col);
		else if (with_loc)
			fprintf(f, "@%d:%d-%d:%d", l.line, l.col, l.end_line,
				l.end_col);
	}
	lex_free(lx);
	fclose(f);
	char *out = arena_strndup(a, buf, size);
	free(buf);
	return out;
}
