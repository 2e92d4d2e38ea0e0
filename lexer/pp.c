/*
 * pp.c - the preprocessor of the tracing language, run inside the scanner.
 *
 * Preprocessor lines must start a line; lexer.l hands each one to
 * lex_directive() (live code) or lex_skip_directive() (inside a false
 * branch).  `#define NAME VALUE` tokenizes VALUE once, with a scanner of
 * its own in CODE mode, and lex_next() then replays those tokens, located
 * at the use, wherever the identifier NAME appears in a predicate or body.
 * A name is expanded with the defines before it, so expansion always
 * terminates.  `#include` defines the integer constants of a few
 * well-known kernel headers (TASK_RUNNING, TCP_*, AF_*) and of the
 * system's headers in /usr/include (EPERM, SIGKILL, O_CREAT); `#undef`;
 * `#ifdef/#ifndef/#if N/#else/#endif`.  Every error is located and turns
 * into bison's error token, as in the scanner.
 */
#include <ctype.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "parser.h"

#include "common/file.h"
#include "lexer/lex_int.h"

const struct lex_define *lex_find_define(const struct lexer *lx,
						const char *name, size_t len)
{
	for (const struct lex_define *d = *lx->defs; d; d = d->next)
		if (strlen(d->name) == len && memcmp(d->name, name, len) == 0)
			return d->undefined ? NULL : d;
	return NULL;
}

void lex_add_define(struct lexer *lx, const char *name,
			   struct lex_tok *tokens, bool undefined)
{
	struct lex_define *d = arena_new_obj(lx->arena, struct lex_define);
	d->name = name;
	d->tokens = tokens;
	d->undefined = undefined;
	d->next = *lx->defs;
	*lx->defs = d;
}

/*
 * Tokenize a #define value with a scanner of its own, starting at the
 * value's position so errors in it are located in the #define line.
 * Returns 0, or bison's error token after reporting.
 */
static int lex_define_value(struct lexer *lx, const char *name,
			    const char *value, size_t vlen, struct src_loc vloc)
{
	struct lexer *sub = lex_create(lx->arena, lx->diag,
				       arena_strndup(lx->arena, value, vlen),
				       vloc.line, vloc.col);
	sub->defs = lx->defs;
	sub->sub = true;
	sub->file = lx->file;
	lex_begin_code(sub);
	struct lex_tok *head = NULL, **tail = &head;
	int rc = 0;
	for (int n = 0;; n++) {
		struct lex_tok t = { 0 };
		struct src_loc tl;
		t.kind = lex_next(&t.val, &tl, sub);
		if (t.kind == TOK_EOI)
			break;
		if (t.kind == TOK_PARSE_YYerror) {
			rc = TOK_PARSE_YYerror;
			break;
		}
		if (n == LEX_DEFINE_MAX_TOKENS) {
			rc = lex_error(sub, vloc,
				"'#define %s': the value expands to more than %d tokens",
				name, LEX_DEFINE_MAX_TOKENS);
			break;
		}
		if (t.kind == '{' || t.kind == TOK_LBRACE_VALUE || t.kind == '}') {
			rc = lex_error(sub, tl,
				"'#define %s': braces are not supported in a macro value",
				name);
			break;
		}
		struct lex_tok *copy = arena_new_obj(lx->arena, struct lex_tok);
		*copy = t;
		copy->text = arena_strdup(lx->arena, lex_last_text(sub));
		*tail = copy;
		tail = &copy->next;
	}
	if (sub->failed)
		lx->failed = true;
	lex_free(sub);
	if (rc)
		return TOK_PARSE_YYerror;
	lex_add_define(lx, name, head, false);
	return 0;
}

static size_t lex_skip_blank(const char *s, size_t i, size_t n)
{
	while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == '\r' ||
			 s[i] == '\v' || s[i] == '\f'))
		i++;
	return i;
}

static size_t lex_ident_end(const char *s, size_t i, size_t n)
{
	if (i < n && (isalpha((unsigned char)s[i]) || s[i] == '_'))
		while (i < n && (isalnum((unsigned char)s[i]) || s[i] == '_'))
			i++;
	return i;
}

/* A location inside a one-line directive, `off` bytes from its start. */
static struct src_loc lex_sub_loc(struct src_loc loc, size_t off, size_t len)
{
	loc.col += (int)off;
	loc.end_line = loc.line;
	loc.end_col = loc.col + (int)(len ? len : 1);
	return loc;
}

/* The value of `#if COND`: an integer, [!]defined(NAME) / defined NAME, or
 * a name (its integer value if it is defined as one, else 0).  Returns 0/1,
 * or -1 after reporting. */
static int lex_if_value(struct lexer *lx, struct src_loc loc, const char *s,
			size_t i, size_t n)
{
	bool neg = false;
	i = lex_skip_blank(s, i, n);
	size_t cstart = i;
	if (i < n && s[i] == '!') {
		neg = true;
		i = lex_skip_blank(s, i + 1, n);
	}
	size_t e = lex_ident_end(s, i, n);
	int v = -1;
	if (e - i == 7 && memcmp(s + i, "defined", 7) == 0) {
		i = lex_skip_blank(s, e, n);
		bool paren = i < n && s[i] == '(';
		if (paren)
			i = lex_skip_blank(s, i + 1, n);
		e = lex_ident_end(s, i, n);
		if (e > i) {
			v = lex_find_define(lx, s + i, e - i) != NULL;
			i = lex_skip_blank(s, e, n);
			if (paren) {
				if (i < n && s[i] == ')')
					i = lex_skip_blank(s, i + 1, n);
				else
					v = -1;
			}
		}
	} else if (e > i) {
		const struct lex_define *d = lex_find_define(lx, s + i, e - i);
		v = d && d->tokens && !d->tokens->next &&
		    d->tokens->kind == TOK_INT && d->tokens->val.ival != 0;
		i = lex_skip_blank(s, e, n);
	} else if (i < n && isdigit((unsigned char)s[i])) {
		while (e < n && isalnum((unsigned char)s[e]))
			e++;
		uint64_t x;
		if (lex_parse_int(s + i, e - i, &x) == 0)
			v = x != 0;
		i = lex_skip_blank(s, e, n);
	}
	if (i + 1 < n && s[i] == '/' && (s[i + 1] == '/' || s[i + 1] == '*'))
		i = n;	/* a trailing comment */
	if (v < 0 || i < n) {
		lex_error(lx, lex_sub_loc(loc, cstart, n - cstart),
			  "unsupported '#if' condition '%.*s'",
			  (int)(n - cstart), s + cstart);
		return -1;
	}
	return neg ? !v : v;
}

/*
 * #include is skipped, but scripts written for bpftrace (which runs them
 * through clang) use a few constants from well-known headers.  Those
 * headers define them here; the values are kernel ABI and do not change.
 */
struct lex_header_const {
	const char *header;
	const char *name;
	uint64_t value;
};

static const struct lex_header_const lex_header_consts[] = {
	{ "linux/sched.h", "TASK_RUNNING", 0 },
	{ "linux/sched.h", "TASK_INTERRUPTIBLE", 1 },
	{ "linux/sched.h", "TASK_UNINTERRUPTIBLE", 2 },
	{ "linux/sched.h", "__TASK_STOPPED", 4 },
	{ "linux/sched.h", "__TASK_TRACED", 8 },
	{ "net/tcp_states.h", "TCP_ESTABLISHED", 1 },
	{ "net/tcp_states.h", "TCP_SYN_SENT", 2 },
	{ "net/tcp_states.h", "TCP_SYN_RECV", 3 },
	{ "net/tcp_states.h", "TCP_FIN_WAIT1", 4 },
	{ "net/tcp_states.h", "TCP_FIN_WAIT2", 5 },
	{ "net/tcp_states.h", "TCP_TIME_WAIT", 6 },
	{ "net/tcp_states.h", "TCP_CLOSE", 7 },
	{ "net/tcp_states.h", "TCP_CLOSE_WAIT", 8 },
	{ "net/tcp_states.h", "TCP_LAST_ACK", 9 },
	{ "net/tcp_states.h", "TCP_LISTEN", 10 },
	{ "net/tcp_states.h", "TCP_CLOSING", 11 },
	{ "net/tcp_states.h", "TCP_NEW_SYN_RECV", 12 },
#define LEX_AF(h)							\
	{ h, "AF_UNSPEC", 0 }, { h, "AF_UNIX", 1 }, { h, "AF_LOCAL", 1 },	\
	{ h, "AF_INET", 2 }, { h, "AF_INET6", 10 },			\
	{ h, "AF_NETLINK", 16 }, { h, "AF_PACKET", 17 }
	LEX_AF("linux/socket.h"), LEX_AF("sys/socket.h"), LEX_AF("net/sock.h"),
#undef LEX_AF
};

/*
 * Other headers: the integer constants of the system's own copy, as
 * clang would see them for bpftrace (errno.h's EPERM, signal.h's SIGKILL,
 * fcntl.h's O_CREAT).  Only "#define NAME VALUE" lines are read, where
 * VALUE is an integer literal (decimal, octal, hex, with a U/L suffix) or
 * a name defined before; nested includes are followed, conditionals are
 * not evaluated, and the first definition of a name wins (as #ifndef
 * guards would have it).  Files are searched in /usr/include and its
 * multiarch directory only: never a path with "..", never more than
 * LEX_HDR_FILES files or a file over 1 MB.
 */
#define LEX_HDR_DEPTH 8
#define LEX_HDR_FILES 64

struct lex_hdr_walk {
	int files;
	const char *seen[LEX_HDR_FILES];
};

static bool lex_hdr_value(struct lexer *lx, const char *v, size_t n, uint64_t *out)
{
	while (n && (v[n - 1] == 'u' || v[n - 1] == 'U' || v[n - 1] == 'l' || v[n - 1] == 'L'))
		n--;
	while (n >= 2 && v[0] == '(' && v[n - 1] == ')') {
		v++;
		n -= 2;
	}
	if (!n)
		return false;
	if (isdigit((unsigned char)v[0])) {
		char buf[32], *end;
		if (n >= sizeof(buf))
			return false;
		memcpy(buf, v, n);
		buf[n] = '\0';
		*out = strtoull(buf, &end, 0);
		return *end == '\0';
	}
	const struct lex_define *d = lex_find_define(lx, v, n);
	if (!d || d->undefined || !d->tokens || d->tokens->next || d->tokens->kind != TOK_INT)
		return false;
	*out = d->tokens->val.ival;
	return true;
}

static bool lex_hdr_file(struct lexer *lx, struct lex_hdr_walk *w, const char *name, int depth);

/* one line of a header: "#define NAME VALUE" or "#include <H>" */
static void lex_hdr_line(struct lexer *lx, struct lex_hdr_walk *w, const char *s, size_t n,
			 int depth)
{
	size_t i = lex_skip_blank(s, 0, n);
	if (i >= n || s[i] != '#')
		return;
	i = lex_skip_blank(s, i + 1, n);
	size_t wend = lex_ident_end(s, i, n);
	if (wend - i == 7 && !memcmp(s + i, "include", 7)) {
		i = lex_skip_blank(s, wend, n);
		if (i < n && (s[i] == '<' || s[i] == '"')) {
			char close = s[i] == '<' ? '>' : '"';
			size_t start = ++i;
			while (i < n && s[i] != close)
				i++;
			if (i < n && i - start < 256) {
				char h[256];
				memcpy(h, s + start, i - start);
				h[i - start] = '\0';
				lex_hdr_file(lx, w, h, depth + 1);
			}
		}
		return;
	}
	if (wend - i != 6 || memcmp(s + i, "define", 6))
		return;
	size_t ns = lex_skip_blank(s, wend, n), ne = lex_ident_end(s, ns, n);
	if (ne == ns || (ne < n && s[ne] == '('))	/* no name, or a macro */
		return;
	size_t vs = lex_skip_blank(s, ne, n), ve = vs;
	while (ve < n && !isspace((unsigned char)s[ve]) && s[ve] != '/')
		ve++;
	uint64_t v;
	if (lex_find_define(lx, s + ns, ne - ns))
		return;
	if (ve == vs) {	/* "#define GUARD": defined, for a later #ifdef */
		lex_add_define(lx, arena_strndup(lx->arena, s + ns, ne - ns), NULL, false);
		return;
	}
	if (!lex_hdr_value(lx, s + vs, ve - vs, &v))
		return;
	struct lex_tok *t = arena_new_obj(lx->arena, struct lex_tok);
	t->kind = TOK_INT;
	t->val.ival = v;
	t->text = arena_printf(lx->arena, "%llu", (unsigned long long)v);
	lex_add_define(lx, arena_strndup(lx->arena, s + ns, ne - ns), t, false);
}

/*
 * Conditionals of a header (#if, #ifdef, #ifndef, #elif, #else, #endif)
 * are evaluated as the compiler would for x86-64 Linux, so <asm/unistd.h>
 * gives unistd_64.h's __NR_read (0), not unistd_32.h's: a name is defined
 * when the script or a header read before defines it, or when it is one of
 * the compiler's predefined macros below.  A condition holds integers,
 * names (their integer value, 0 when none), defined(NAME), ! - ( ) and the
 * operators * / % + - < <= > >= == != & ^ | && ||; one sonde cannot read
 * counts as true, as every line did before conditionals were evaluated.
 */
static const struct { const char *name; int64_t value; } lex_predefined[] = {
	{"__x86_64__", 1}, {"__x86_64", 1}, {"__amd64__", 1}, {"__amd64", 1},
	{"__LP64__", 1}, {"_LP64", 1}, {"__linux__", 1}, {"__linux", 1}, {"__unix__", 1},
	{"__unix", 1}, {"__ELF__", 1}, {"__GNUC__", 4}, {"__CHAR_BIT__", 8},
	{"__SIZEOF_INT__", 4}, {"__SIZEOF_LONG__", 8}, {"__SIZEOF_POINTER__", 8},
	{"__SIZEOF_LONG_LONG__", 8}, {"__ORDER_LITTLE_ENDIAN__", 1234},
	{"__ORDER_BIG_ENDIAN__", 4321}, {"__BYTE_ORDER__", 1234},
};

struct lex_hx {
	struct lexer *lx;
	const char *s;
	size_t i, n;
	bool bad;
};

static bool lex_hx_name(struct lexer *lx, const char *nm, size_t len, int64_t *value)
{
	for (size_t k = 0; k < sizeof(lex_predefined) / sizeof(lex_predefined[0]); k++)
		if (strlen(lex_predefined[k].name) == len && !memcmp(lex_predefined[k].name, nm, len)) {
			*value = lex_predefined[k].value;
			return true;
		}
	const struct lex_define *d = lex_find_define(lx, nm, len);
	if (!d)
		return false;
	*value = d->tokens && !d->tokens->next && d->tokens->kind == TOK_INT
		 ? (int64_t)d->tokens->val.ival : 0;
	return true;
}

static int64_t lex_hx_binary(struct lex_hx *h, int level);

static int64_t lex_hx_unary(struct lex_hx *h)
{
	const char *s = h->s;
	h->i = lex_skip_blank(s, h->i, h->n);
	if (h->i >= h->n) {
		h->bad = true;
		return 0;
	}
	char c = s[h->i];
	if (c == '(') {
		h->i++;
		int64_t v = lex_hx_binary(h, 0);
		h->i = lex_skip_blank(s, h->i, h->n);
		if (h->i < h->n && s[h->i] == ')')
			h->i++;
		else
			h->bad = true;
		return v;
	}
	if (c == '!' || c == '-' || c == '~') {
		h->i++;
		int64_t v = lex_hx_unary(h);
		return c == '!' ? !v : c == '-' ? -v : ~v;
	}
	if (isdigit((unsigned char)c)) {
		char buf[32];
		size_t e = h->i;
		while (e < h->n && isalnum((unsigned char)s[e]))
			e++;
		size_t len = e - h->i;
		while (len && strchr("uUlL", s[h->i + len - 1]))
			len--;
		if (!len || len >= sizeof(buf)) {
			h->bad = true;
			return 0;
		}
		memcpy(buf, s + h->i, len);
		buf[len] = '\0';
		char *end;
		int64_t v = (int64_t)strtoull(buf, &end, 0);
		h->bad |= *end != '\0';
		h->i = e;
		return v;
	}
	size_t e = lex_ident_end(s, h->i, h->n);
	if (e == h->i) {
		h->bad = true;
		return 0;
	}
	int64_t v = 0;
	if (e - h->i == 7 && !memcmp(s + h->i, "defined", 7)) {
		size_t i = lex_skip_blank(s, e, h->n);
		bool paren = i < h->n && s[i] == '(';
		if (paren)
			i = lex_skip_blank(s, i + 1, h->n);
		size_t ne = lex_ident_end(s, i, h->n);
		if (ne == i) {
			h->bad = true;
			return 0;
		}
		bool def = lex_hx_name(h->lx, s + i, ne - i, &v);
		i = lex_skip_blank(s, ne, h->n);
		if (paren) {
			if (i < h->n && s[i] == ')')
				i++;
			else
				h->bad = true;
		}
		h->i = i;
		return def;
	}
	if (e < h->n && s[e] == '(')	/* a function-like macro: not read */
		h->bad = true;
	lex_hx_name(h->lx, s + h->i, e - h->i, &v);
	h->i = e;
	return v;
}

/* operators by precedence, loosest first */
static const char *const lex_hx_ops[][4] = {
	{"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<=", ">=", "<", ">"},
	{"+", "-"}, {"*", "/", "%"},
};

static int64_t lex_hx_binary(struct lex_hx *h, int level)
{
	if (level == (int)(sizeof(lex_hx_ops) / sizeof(lex_hx_ops[0])))
		return lex_hx_unary(h);
	int64_t v = lex_hx_binary(h, level + 1);
	for (;;) {
		h->i = lex_skip_blank(h->s, h->i, h->n);
		const char *op = NULL;
		for (int k = 0; k < 4 && lex_hx_ops[level][k]; k++) {
			size_t l = strlen(lex_hx_ops[level][k]);
			/* "|" is not the start of "||", "&" of "&&", "<" of "<=" */
			if (h->i + l <= h->n && !memcmp(h->s + h->i, lex_hx_ops[level][k], l) &&
			    !(l == 1 && h->i + 1 < h->n && strchr("|&<>=", h->s[h->i + 1]) &&
			      (h->s[h->i + 1] == h->s[h->i] || h->s[h->i + 1] == '='))) {
				op = lex_hx_ops[level][k];
				h->i += l;
				break;
			}
		}
		if (!op || h->bad)
			return v;
		int64_t r = lex_hx_binary(h, level + 1);
		if (!strcmp(op, "||")) v = v || r;
		else if (!strcmp(op, "&&")) v = v && r;
		else if (!strcmp(op, "|")) v |= r;
		else if (!strcmp(op, "^")) v ^= r;
		else if (!strcmp(op, "&")) v &= r;
		else if (!strcmp(op, "==")) v = v == r;
		else if (!strcmp(op, "!=")) v = v != r;
		else if (!strcmp(op, "<=")) v = v <= r;
		else if (!strcmp(op, ">=")) v = v >= r;
		else if (!strcmp(op, "<")) v = v < r;
		else if (!strcmp(op, ">")) v = v > r;
		else if (!strcmp(op, "+")) v += r;
		else if (!strcmp(op, "-")) v -= r;
		else if (!strcmp(op, "*")) v *= r;
		else if (r == 0) h->bad = true;
		else if (!strcmp(op, "/")) v /= r;
		else v %= r;
	}
}

/* the value of a header's condition s[0..n): 0 or 1, true when unreadable */
static bool lex_hdr_cond(struct lexer *lx, const char *s, size_t n)
{
	for (size_t k = 0; k + 1 < n; k++)	/* a trailing comment ends it */
		if (s[k] == '/' && (s[k + 1] == '*' || s[k + 1] == '/')) {
			n = k;
			break;
		}
	struct lex_hx h = {.lx = lx, .s = s, .i = 0, .n = n};
	int64_t v = lex_hx_binary(&h, 0);
	h.i = lex_skip_blank(s, h.i, n);
	return h.bad || h.i < n ? true : v != 0;
}

/* A header's conditionals, nested up to LEX_HDR_CONDS deep (deeper ones
 * are read as true): whether the lines that follow are the compiler's. */
#define LEX_HDR_CONDS 32

struct lex_hdr_conds {
	int depth;
	bool active[LEX_HDR_CONDS + 1];	/* [0]: the file itself */
	bool taken[LEX_HDR_CONDS + 1];	/* a branch of this #if was active */
};

/* a conditional directive: updates c and returns true; any other line false */
static bool lex_hdr_conditional(struct lexer *lx, struct lex_hdr_conds *c, const char *s, size_t n)
{
	size_t i = lex_skip_blank(s, 0, n);
	if (i >= n || s[i] != '#')
		return false;
	i = lex_skip_blank(s, i + 1, n);
	size_t e = lex_ident_end(s, i, n), a = lex_skip_blank(s, e, n);
	const char *w = s + i;
	size_t wl = e - i;
	bool outer = c->active[c->depth > LEX_HDR_CONDS ? LEX_HDR_CONDS : c->depth];
#define IS(x) (wl == sizeof(x) - 1 && !memcmp(w, x, wl))
	if (IS("if") || IS("ifdef") || IS("ifndef")) {
		bool v;
		if (IS("if"))
			v = lex_hdr_cond(lx, s + a, n - a);
		else {
			int64_t ignored;
			size_t ne = lex_ident_end(s, a, n);
			v = lex_hx_name(lx, s + a, ne - a, &ignored) == IS("ifdef");
		}
		if (++c->depth <= LEX_HDR_CONDS) {
			c->active[c->depth] = outer && v;
			c->taken[c->depth] = v;
		}
		return true;
	}
	if (c->depth < 1)
		return IS("elif") || IS("else") || IS("endif");
	if (c->depth > LEX_HDR_CONDS) {
		if (IS("endif"))
			c->depth--;
		return IS("elif") || IS("else") || IS("endif");
	}
	bool parent = c->active[c->depth - 1];
	if (IS("elif")) {
		bool v = !c->taken[c->depth] && lex_hdr_cond(lx, s + a, n - a);
		c->active[c->depth] = parent && v;
		c->taken[c->depth] |= v;
		return true;
	}
	if (IS("else")) {
		c->active[c->depth] = parent && !c->taken[c->depth];
		c->taken[c->depth] = true;
		return true;
	}
	if (IS("endif")) {
		c->depth--;
		return true;
	}
#undef IS
	return false;
}

/* -I DIR (searched first, in order) and --include FILE: lex_set_includes */
static const char *const *lex_user_dirs;
static int lex_nuser_dirs;
static const char *const *lex_pre_files;
static int lex_npre_files;

void lex_set_includes(const char *const *dirs, int ndirs, const char *const *files, int nfiles)
{
	lex_user_dirs = dirs;
	lex_nuser_dirs = ndirs;
	lex_pre_files = files;
	lex_npre_files = nfiles;
}

static bool lex_hdr_file(struct lexer *lx, struct lex_hdr_walk *w, const char *name, int depth)
{
	static const char *const dirs[] = {"/usr/include/x86_64-linux-gnu", "/usr/include"};
	/* an absolute name only as the script (or --include) writes it */
	bool abs = name[0] == '/' && depth == 0;
	if (depth > LEX_HDR_DEPTH || w->files >= LEX_HDR_FILES || (name[0] == '/' && !abs) ||
	    strstr(name, ".."))
		return false;
	for (int k = 0; k < w->files; k++)
		if (!strcmp(w->seen[k], name))
			return true;
	w->seen[w->files++] = arena_strdup(lx->arena, name);
	size_t ndirs = abs ? 1 : (size_t)lex_nuser_dirs + sizeof(dirs) / sizeof(dirs[0]);
	for (size_t d = 0; d < ndirs; d++) {
		char path[4096];
		struct stat st;
		if (abs)
			snprintf(path, sizeof(path), "%s", name);
		else if (d < (size_t)lex_nuser_dirs)
			snprintf(path, sizeof(path), "%s/%s", lex_user_dirs[d], name);
		else
			snprintf(path, sizeof(path), "%s/%s", dirs[d - (size_t)lex_nuser_dirs], name);
		if (stat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		char *text;
		size_t len;
		if (st.st_size > (1 << 20) || file_read_all(path, (size_t)st.st_size + 1, &text, &len))
			return true;
		struct lex_hdr_conds c = {.active = {true}};
		for (size_t i = 0; i < len;) {
			size_t e = i;
			while (e < len && text[e] != '\n')
				e++;
			if (!lex_hdr_conditional(lx, &c, text + i, e - i) &&
			    c.active[c.depth > LEX_HDR_CONDS ? LEX_HDR_CONDS : c.depth])
				lex_hdr_line(lx, w, text + i, e - i, depth);
			i = e + 1;
		}
		free(text);
		return true;
	}
	return false;
}

/*
 * A header sonde cannot read still exists for bpftrace when it is a
 * kernel header (its types come from BTF here, from the kernel's headers
 * there: biosnoop.bt's <linux/blkdev.h>), one of the compiler's own (clang
 * ships stddef.h), or a file the path names (bashfunc.bt's
 * "/home/.../variables.h"; a quoted name also beside the script).
 */
static bool lex_kernel_header(const char *h)
{
	static const char *const kernel_dirs[] = {
		"linux/", "net/", "asm/", "asm-generic/", "uapi/", "trace/", "scsi/",
		"xen/", "crypto/", "sound/", "kvm/", "drm/", "media/", "rdma/", "video/",
		"keys/", "soc/", "misc/", "acpi/", "clocksource/", "dt-bindings/", "vdso/",
		"ras/", "target/", "pcmcia/", "math-emu/", "generated/",
	};
	for (size_t k = 0; k < sizeof(kernel_dirs) / sizeof(kernel_dirs[0]); k++)
		if (!strncmp(h, kernel_dirs[k], strlen(kernel_dirs[k])))
			return true;
	return false;
}

static bool lex_header_elsewhere(const struct lexer *lx, const char *h, bool quoted)
{
	static const char *const compiler[] = {
		"stddef.h", "stdarg.h", "stdbool.h", "float.h", "stdalign.h", "iso646.h",
		"stdnoreturn.h", "__stddef_max_align_t.h",
	};
	struct stat st;

	if (lex_kernel_header(h))
		return true;
	for (size_t k = 0; k < sizeof(compiler) / sizeof(compiler[0]); k++)
		if (!strcmp(h, compiler[k]))
			return true;
	if ((quoted || h[0] == '/') && !stat(h, &st))
		return true;
	const char *file = lx->line_file ? lx->line_file : lx->file;
	const char *slash = file ? strrchr(file, '/') : NULL;
	if (quoted && h[0] != '/' && slash) {
		char path[4096];
		snprintf(path, sizeof(path), "%.*s/%s", (int)(slash - file), file, h);
		return !stat(path, &st);
	}
	return false;
}

static bool lex_include_header(struct lexer *lx, const char *h, bool quoted);

/* #include <H> or "H": define what lex_header_consts knows of H, or what
 * the system's H defines; a header found nowhere is an error, as clang's
 * "file not found" is for bpftrace. */
static int lex_include(struct lexer *lx, struct src_loc loc, const char *s, size_t i, size_t n)
{
	i = lex_skip_blank(s, i, n);
	if (i >= n || (s[i] != '<' && s[i] != '"'))
		return lex_error(lx, lex_sub_loc(loc, i, n - i),
				 "'#include' needs <FILE> or \"FILE\"");
	char close = s[i] == '<' ? '>' : '"';
	size_t start = ++i;
	while (i < n && s[i] != close)
		i++;
	size_t len = i - start;
	struct src_loc hloc = lex_sub_loc(loc, start, len);
	if (i >= n)
		return lex_error(lx, lex_sub_loc(loc, start - 1, n - start + 1),
				 "'#include': missing the closing '%c'", close);
	if (len == 0 || len >= 256)
		return lex_error(lx, hloc, "'#include': bad file name");
	char h[256];
	memcpy(h, s + start, len);
	h[len] = '\0';
	if (lex_include_header(lx, h, close == '"'))
		return 0;
	return lex_error(lx, hloc, "'#include': file not found: '%s'", h);
}

/* define what lex_header_consts knows of h, or what the system's (or an
 * -I directory's) h defines; false when h is found nowhere */
static bool lex_include_header(struct lexer *lx, const char *h, bool quoted)
{
	size_t len = strlen(h);
	bool known = false;
	for (size_t k = 0; k < sizeof(lex_header_consts) /
			       sizeof(lex_header_consts[0]); k++) {
		const struct lex_header_const *c = &lex_header_consts[k];
		if (strlen(c->header) != len || memcmp(c->header, h, len))
			continue;
		known = true;
		if (lex_find_define(lx, c->name, strlen(c->name)))
			continue;
		struct lex_tok *t = arena_new_obj(lx->arena, struct lex_tok);
		t->kind = TOK_INT;
		t->val.ival = c->value;
		t->text = arena_printf(lx->arena, "%llu",
				       (unsigned long long)c->value);
		lex_add_define(lx, c->name, t, false);
	}
	struct lex_hdr_walk w = {0};
	/* a kernel header brings what its nested includes define (kconst.c),
	 * after what the system's copy of it defines */
	if (known || lex_hdr_file(lx, &w, h, 0) || lex_header_elsewhere(lx, h, quoted)) {
		if (lex_kernel_header(h))
			lex_kernel_consts(lx);
		return true;
	}
	return false;
}

int lex_pre_includes(struct lexer *lx)
{
	for (int i = 0; i < lex_npre_files; i++) {
		const char *h = lex_pre_files[i];
		if (!*h || strlen(h) >= 256)
			return lex_error(lx, (struct src_loc){0}, "--include: bad file name '%s'", h);
		if (!lex_include_header(lx, h, false))
			return lex_error(lx, (struct src_loc){0}, "--include: file not found: '%s'", h);
	}
	return 0;
}

static int lex_push_cond(struct lexer *lx, struct src_loc loc,
			 const char *what, bool taken)
{
	if (lx->nconds == LEX_MAX_COND)
		return lex_error(lx, loc, "'%s' nested too deeply", what);
	struct lex_cond *c = &lx->conds[lx->nconds++];
	c->loc = loc;
	c->what = what;
	c->seen_else = false;
	if (!taken) {
		lx->skip_nest = 0;
		lex_push_skip(lx);
	}
	return 0;
}

/*
 * A preprocessor line in live code:
 *   #include ...            skipped (but see lex_include())
 *   #define NAME [VALUE]    VALUE's tokens replace later uses of NAME
 *   #undef NAME
 *   #ifdef NAME | #ifndef NAME | #if COND ... [#else ...] #endif
 *   #pragma ...             skipped
 *   #!...                   a shebang, on line 1 only
 * Returns 0, or bison's error token after reporting.
 */
int lex_directive(struct lexer *lx, struct src_loc loc,
			 const char *s, size_t n)
{
	size_t i = lex_skip_blank(s, 0, n);
	size_t hash = i++;
	if (lx->sub)
		return lex_invalid(lx, lex_sub_loc(loc, hash, 1), '#');
	if (i < n && s[i] == '!') {
		if (loc.line == 1 && hash == 0)
			return 0;
		return lex_error(lx, lex_sub_loc(loc, hash, 2),
				 "a '#!' line must be the first line");
	}
	i = lex_skip_blank(s, i, n);
	size_t wstart = i, wend = lex_ident_end(s, i, n);
	size_t wlen = wend - wstart;
	const char *w = s + wstart;
	struct src_loc dloc = lex_sub_loc(loc, hash, wend - hash);
	if (wlen == 0) {
		/* C's null directive "#" alone is fine; "# 1" is not */
		if (lex_skip_blank(s, wend, n) == n)
			return 0;
		return lex_invalid(lx, lex_sub_loc(loc, hash, 1), '#');
	}
#define IS(word) (wlen == sizeof(word) - 1 && memcmp(w, word, wlen) == 0)
	if (IS("include"))
		return lex_include(lx, loc, s, wend, n);
	if (IS("pragma"))
		return 0;
	/* #line N "FILE": where the next line comes from, in a script whose
	 * imports parser/import.c put before it; diag.c maps locations with
	 * it, and quoted #includes are looked for beside FILE */
	if (IS("line")) {
		const char *q = memchr(s + wend, '"', n - wend);
		const char *e = q ? memchr(q + 1, '"', n - (size_t)(q + 1 - s)) : NULL;
		if (e)
			lx->line_file = arena_strndup(lx->arena, q + 1, (size_t)(e - q - 1));
		return 0;
	}
	if (IS("define") || IS("undef") || IS("ifdef") || IS("ifndef")) {
		const char *what = IS("define") ? "#define" : IS("undef") ?
			"#undef" : IS("ifdef") ? "#ifdef" : "#ifndef";
		i = lex_skip_blank(s, wend, n);
		size_t nend = lex_ident_end(s, i, n);
		if (nend == i)
			return lex_error(lx, dloc, "'%s' needs a macro name", what);
		const char *name = arena_strndup(lx->arena, s + i, nend - i);
		if (what[1] == 'd') {
			if (nend < n && s[nend] == '(')
				return lex_error(lx,
					lex_sub_loc(loc, i, nend - i + 1),
					"function-like macro '%s' is not supported",
					name);
			size_t v = lex_skip_blank(s, nend, n);
			return lex_define_value(lx, name, s + v, n - v,
						lex_sub_loc(loc, v, 1));
		}
		if (what[1] == 'u') {
			lex_add_define(lx, name, NULL, true);
			return 0;
		}
		bool def = lex_find_define(lx, s + i, nend - i) != NULL;
		return lex_push_cond(lx, dloc, what, what[3] == 'd' ? def : !def);
	}
	if (IS("if")) {
		int v = lex_if_value(lx, loc, s, wend, n);
		if (v < 0)
			return TOK_PARSE_YYerror;
		return lex_push_cond(lx, dloc, "#if", v);
	}
	if (IS("else")) {
		if (lx->nconds == 0)
			return lex_error(lx, dloc, "'#else' without '#if'");
		struct lex_cond *c = &lx->conds[lx->nconds - 1];
		if (c->seen_else)
			return lex_error(lx, dloc, "second '#else' for one '%s'",
					 c->what);
		c->seen_else = true;
		lx->skip_nest = 0;
		lex_push_skip(lx);
		return 0;
	}
	if (IS("endif")) {
		if (lx->nconds == 0)
			return lex_error(lx, dloc, "'#endif' without '#if'");
		lx->nconds--;
		return 0;
	}
#undef IS
	return lex_error(lx, dloc, "unsupported preprocessor directive '#%.*s'",
			 (int)wlen, w);
}

/* A preprocessor line inside a skipped branch: track nesting, and leave
 * at the matching #else or #endif. */
int lex_skip_directive(struct lexer *lx, struct src_loc loc,
			      const char *s, size_t n)
{
	size_t i = lex_skip_blank(s, lex_skip_blank(s, 0, n) + 1, n);
	size_t e = lex_ident_end(s, i, n);
	size_t wlen = e - i;
	const char *w = s + i;
	if ((wlen == 2 && !memcmp(w, "if", 2)) ||
	    (wlen == 5 && !memcmp(w, "ifdef", 5)) ||
	    (wlen == 6 && !memcmp(w, "ifndef", 6))) {
		lx->skip_nest++;
	} else if (wlen == 5 && !memcmp(w, "endif", 5)) {
		if (lx->skip_nest > 0) {
			lx->skip_nest--;
		} else {
			lx->nconds--;
			lex_pop_skip(lx);
		}
	} else if (wlen == 4 && !memcmp(w, "elif", 4) && lx->skip_nest == 0) {
		return lex_error(lx, lex_sub_loc(loc, 0, e),
				 "unsupported preprocessor directive '#elif'");
	} else if (wlen == 4 && !memcmp(w, "else", 4) && lx->skip_nest == 0) {
		struct lex_cond *c = &lx->conds[lx->nconds - 1];
		if (c->seen_else)
			return lex_error(lx, lex_sub_loc(loc, 0, n),
					 "second '#else' for one '%s'", c->what);
		c->seen_else = true;
		lex_pop_skip(lx);
	}
	return 0;
}
