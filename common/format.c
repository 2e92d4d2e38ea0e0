/*
 * format.c - printf() format strings: parsed and checked once at compile
 * time (fmt_parse), applied in userspace to the argument values a BPF
 * program sent through the ring buffer (fmt_format).
 *
 * The formatting is done here, conversion by conversion, instead of handing
 * a user's format string to the C library: a format string is program
 * input, and every conversion must see a full 64-bit value whatever length
 * modifier it was written with.  The results follow C printf semantics as
 * glibc implements them (flags, width, precision, "(nil)" for a null %p),
 * which is what bpftrace 0.17 prints, except where 0.17 is wrong: "%%" is
 * one '%', and %d %u %x print all 64 bits instead of the low 32.  Length
 * modifiers are accepted and ignored, so "%hx" prints all 64 bits too.
 */
#include "common/format.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"

/* width and precision above this are a mistake, not a layout */
#define FMT_MAX_WIDTH 65535

/* One conversion spec taken apart: "%-08.3llx". */
struct conv_parts {
	bool minus, zero, plus, space, alt;
	int width;		/* -1: none */
	int prec;		/* -1: none */
	char conv;
	char rmode;		/* %rx: 'x', %rh: 'h' */
	int narrow;		/* %h: 16 bits, %hh: 8 (as C); 0: the whole value */
	bool wide;		/* %l, %ll, %j, %z, %t: 64 bits whatever the value's type */
	int length;		/* bytes from '%' through the conversion */
};

/* ------------------------------------------------------------ parsing */

static bool is_int_conv(char c)
{
	return strchr("diuxXop", c) != NULL;
}

/* digits of a width or precision; -1 when larger than FMT_MAX_WIDTH */
static int parse_number(const char *s, int *i)
{
	long v = 0;

	while (s[*i] >= '0' && s[*i] <= '9') {
		if (v <= FMT_MAX_WIDTH)
			v = v * 10 + (s[*i] - '0');
		(*i)++;
	}
	return v > FMT_MAX_WIDTH ? -1 : (int)v;
}

/*
 * Take apart the spec at s (s[0] == '%', not "%%").  Grammar:
 *   '%' [-0+ #]* digits? ('.' digits?)? (hh|h|ll|l|z|j|t)? [diuxXocsp]
 * On error returns false with *why set to a static message.
 */
static bool parse_conv(const char *s, struct conv_parts *c, const char **why)
{
	int i = 1;
	int lenmod = 0;

	memset(c, 0, sizeof(*c));
	c->width = -1;
	c->prec = -1;
	for (;; i++) {
		switch (s[i]) {
		case '-': c->minus = true; continue;
		case '0': c->zero = true; continue;
		case '+': c->plus = true; continue;
		case ' ': c->space = true; continue;
		case '#': c->alt = true; continue;
		default: break;
		}
		break;
	}
	if (s[i] >= '1' && s[i] <= '9') {
		c->width = parse_number(s, &i);
		if (c->width < 0) {
			*why = "field width too large in";
			return false;
		}
	}
	if (s[i] == '.') {
		i++;
		c->prec = parse_number(s, &i);
		if (c->prec < 0) {
			*why = "precision too large in";
			return false;
		}
	}
	if (s[i] == '*') {
		*why = "'*' width and precision are not supported:";
		return false;
	}
	if (s[i] == '$') {
		*why = "positional arguments are not supported:";
		return false;
	}
	if ((s[i] == 'h' && s[i + 1] == 'h') || (s[i] == 'l' && s[i + 1] == 'l'))
		lenmod = 2;
	else if (s[i] && strchr("hlzjt", s[i]))
		lenmod = 1;
	c->narrow = s[i] != 'h' ? 0 : lenmod == 2 ? 8 : 16;
	c->wide = lenmod && s[i] != 'h';
	i += lenmod;
	if (s[i] == '\0') {
		*why = "format string ends inside the conversion";
		return false;
	}
	c->conv = s[i];
	c->length = i + 1;
	c->rmode = 0;
	if (c->conv == 'r' && (s[i + 1] == 'x' || s[i + 1] == 'h')) {
		c->rmode = s[i + 1];	/* %rx, %rh: one conversion, as bpftrace */
		c->length++;
	}
	if (c->conv == 'g' && s[i + 1] == 'r') {
		c->length++;		/* %gr: GFP flags by name (conv 'g') */
	} else if (c->conv == 'g') {
		*why = "unknown conversion (%gr prints GFP flags)";
		return false;
	}
	if (!strchr("diuxXocsprg", c->conv)) {	/* %r: a buf(), as bpftrace */
		*why = "unknown conversion";
		return false;
	}
	if (lenmod && !is_int_conv(c->conv)) {
		*why = "length modifier not allowed with %c or %s in";
		return false;
	}
	return true;
}

static enum fmt_arg_kind conv_kind(char conv)
{
	switch (conv) {
	case 'd':
	case 'i':
		return FMT_INT;
	case 's':
	case 'r':
		return FMT_STR;
	default:
		return FMT_UINT;
	}
}

/* how far the bad spec reaches, for the message: through the first
 * non-spec byte, or to the end of the string */
static int bad_spec_len(const char *s)
{
	int i = 1;

	while (s[i] && strchr("-0+ #123456789.hlzjt", s[i]))
		i++;
	return s[i] ? i + 1 : i;
}

/*
 * A '%' that no conversion letter follows ("100%\n", "50% off", a '%' at
 * the end) is a plain '%', as bpftrace prints it: only a spec that reaches a
 * letter (or '%', '*', '$') is a conversion, known or not.
 */
static bool is_literal_percent(const char *s)
{
	int i = 1;

	while (s[i] && strchr("-0+ #123456789.hlzjt", s[i]))
		i++;
	char ch = s[i];
	return !((ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
		 ch == '%' || ch == '*' || ch == '$');
}

static const char *show_spec(struct arena *a, const char *s, int n)
{
	char *out = arena_alloc(a, (size_t)n * 4 + 1);
	char *p = out;

	for (int i = 0; i < n; i++) {
		unsigned char ch = (unsigned char)s[i];
		if (ch >= 0x20 && ch < 0x7f)
			*p++ = (char)ch;
		else
			p += snprintf(p, 5, "\\x%02x", ch);
	}
	*p = '\0';
	return out;
}

int fmt_parse(struct arena *a, const char *fmt, struct fmt_spec *out,
	      const char **err, int *err_off)
{
	struct conv_parts c;
	const char *why;
	int n = 0;

	out->convs = NULL;
	out->nconvs = 0;
	/* first pass: validate and count */
	for (int i = 0; fmt[i]; i++) {
		if (fmt[i] != '%')
			continue;
		if (fmt[i + 1] == '%') {
			i++;
			continue;
		}
		if (is_literal_percent(fmt + i))
			continue;
		if (!parse_conv(fmt + i, &c, &why)) {
			const char *spec = show_spec(a, fmt + i, bad_spec_len(fmt + i));
			if (err)
				*err = arena_printf(a, "printf: %s '%s'",
						    why, spec);
			if (err_off)
				*err_off = i;
			return -EINVAL;
		}
		n++;
		i += c.length - 1;
	}
	if (!n)
		return 0;
	out->convs = arena_new_array(a, struct fmt_conv, n);
	for (int i = 0, k = 0; fmt[i]; i++) {
		if (fmt[i] != '%')
			continue;
		if (fmt[i + 1] == '%') {
			i++;
			continue;
		}
		if (is_literal_percent(fmt + i))
			continue;
		parse_conv(fmt + i, &c, &why);
		out->convs[k].kind = conv_kind(c.conv);
		out->convs[k].conv = c.conv;
		out->convs[k].spec = arena_strndup(a, fmt + i, (size_t)c.length);
		out->convs[k].offset = i;
		out->convs[k].length = c.length;
		out->convs[k].rmode = c.rmode;
		k++;
		i += c.length - 1;
	}
	out->nconvs = n;
	return 0;
}

/* ------------------------------------------------------------ output */

struct buf {
	char *p;
	size_t len, cap;
	bool oom;
};

static bool buf_reserve(struct buf *b, size_t n)
{
	if (b->oom)
		return false;
	if (b->len + n + 1 <= b->cap)
		return true;
	size_t cap = b->cap ? b->cap : 64;
	while (cap < b->len + n + 1)
		cap *= 2;
	char *p = realloc(b->p, cap);
	if (!p) {
		b->oom = true;
		return false;
	}
	b->p = p;
	b->cap = cap;
	return true;
}

static void buf_put(struct buf *b, const char *s, size_t n)
{
	if (n && buf_reserve(b, n)) {
		memcpy(b->p + b->len, s, n);
		b->len += n;
	}
}

static void buf_fill(struct buf *b, char ch, size_t n)
{
	if (n && buf_reserve(b, n)) {
		memset(b->p + b->len, ch, n);
		b->len += n;
	}
}

/* text padded to the field width with spaces ('0' does not apply) */
static void put_padded(struct buf *b, const struct conv_parts *c,
		       const char *s, size_t n)
{
	size_t pad = c->width > 0 && (size_t)c->width > n ? (size_t)c->width - n : 0;

	if (!c->minus)
		buf_fill(b, ' ', pad);
	buf_put(b, s, n);
	if (c->minus)
		buf_fill(b, ' ', pad);
}

/*
 * %d %i %u %x %X %o %p: [sign][prefix][precision zeros][digits], then the
 * width by spaces (left or right) or, with '0' and no precision, by zeros
 * after the sign and prefix.
 */
static void put_int(struct buf *b, const struct conv_parts *c, int64_t v, int bits)
{
	char digits[24], sign = 0;
	const char *prefix = "";
	const char *xdig = c->conv == 'X' ? "0123456789ABCDEF" : "0123456789abcdef";
	unsigned base = 10;
	uint64_t mag;
	size_t nd = 0, zeros, total;

	/* %hd, %hhx ...: the low 16 or 8 bits, signed for %d and %i; a
	 * 32-bit value without %l: the low 32 */
	if (bits == 32)
		v = strchr("di", c->conv) ? (int64_t)(int32_t)v : (int64_t)(uint32_t)v;
	else if (bits == 16)
		v = strchr("di", c->conv) ? (int64_t)(int16_t)v : (int64_t)(uint16_t)v;
	else if (bits == 8)
		v = strchr("di", c->conv) ? (int64_t)(int8_t)v : (int64_t)(uint8_t)v;
	switch (c->conv) {
	case 'd':
	case 'i':
		mag = v < 0 ? 0 - (uint64_t)v : (uint64_t)v;
		sign = v < 0 ? '-' : c->plus ? '+' : c->space ? ' ' : 0;
		break;
	case 'p':
		if (v == 0) {
			put_padded(b, c, "(nil)", 5);
			return;
		}
		mag = (uint64_t)v;
		sign = c->plus ? '+' : c->space ? ' ' : 0;
		prefix = "0x";
		base = 16;
		break;
	case 'x':
	case 'X':
		mag = (uint64_t)v;
		base = 16;
		if (c->alt && mag)
			prefix = c->conv == 'X' ? "0X" : "0x";
		break;
	case 'o':
		mag = (uint64_t)v;
		base = 8;
		break;
	default:
		mag = (uint64_t)v;
		break;
	}

	/* digits, least significant first; none for 0 with precision 0 */
	if (mag || c->prec != 0) {
		do {
			digits[nd++] = xdig[mag % base];
			mag /= base;
		} while (mag);
	}
	zeros = c->prec > 0 && (size_t)c->prec > nd ? (size_t)c->prec - nd : 0;
	if (c->conv == 'o' && c->alt && zeros == 0 &&
	    (nd == 0 || digits[nd - 1] != '0'))
		zeros = 1;	/* '#': the octal result starts with 0 */

	total = (sign ? 1 : 0) + strlen(prefix) + zeros + nd;
	size_t pad = c->width > 0 && (size_t)c->width > total ?
		(size_t)c->width - total : 0;
	bool zero_pad = c->zero && !c->minus && c->prec < 0;

	if (!c->minus && !zero_pad)
		buf_fill(b, ' ', pad);
	if (sign)
		buf_put(b, &sign, 1);
	buf_put(b, prefix, strlen(prefix));
	if (zero_pad)
		buf_fill(b, '0', pad);
	buf_fill(b, '0', zeros);
	for (size_t i = nd; i > 0; i--)
		buf_put(b, &digits[i - 1], 1);
	if (c->minus)
		buf_fill(b, ' ', pad);
}

static void put_str(struct buf *b, const struct conv_parts *c, const char *s)
{
	size_t n;

	if (!s)
		s = "";
	n = c->prec >= 0 ? strnlen(s, (size_t)c->prec) : strlen(s);
	put_padded(b, c, s, n);
}

/*
 * %gr: a gfp_t as the kernel's trace events print it (__def_gfpflag_names in
 * include/trace/events/mmflags.h), as the newest bpftrace does: compound
 * masks first, each taking its bits, then single flags, then what is left
 * in hex ("GFP_KERNEL|__GFP_ZERO", "0").  Bits of linux/gfp_types.h.
 */
enum {
	G_DMA = 1 << 0, G_HIGHMEM = 1 << 1, G_DMA32 = 1 << 2, G_MOVABLE = 1 << 3,
	G_RECLAIMABLE = 1 << 4, G_HIGH = 1 << 5, G_IO = 1 << 6, G_FS = 1 << 7, G_ZERO = 1 << 8,
	G_DIRECT_RECLAIM = 1 << 10, G_KSWAPD_RECLAIM = 1 << 11, G_WRITE = 1 << 12,
	G_NOWARN = 1 << 13, G_RETRY_MAYFAIL = 1 << 14, G_NOFAIL = 1 << 15, G_NORETRY = 1 << 16,
	G_MEMALLOC = 1 << 17, G_COMP = 1 << 18, G_NOMEMALLOC = 1 << 19, G_HARDWALL = 1 << 20,
	G_THISNODE = 1 << 21, G_ACCOUNT = 1 << 22, G_ZEROTAGS = 1 << 23, G_SKIP_ZERO = 1 << 24,
	G_SKIP_KASAN = 1 << 25, G_NO_OBJ_EXT = 1 << 26,
	G_RECLAIM = G_DIRECT_RECLAIM | G_KSWAPD_RECLAIM,
	GFP_ATOMIC = G_HIGH | G_KSWAPD_RECLAIM,
	GFP_KERNEL = G_RECLAIM | G_IO | G_FS,
	GFP_NOWAIT = G_KSWAPD_RECLAIM | G_NOWARN,
	GFP_NOIO = G_RECLAIM,
	GFP_NOFS = GFP_NOIO | G_IO,
	GFP_USER = GFP_NOFS | G_FS | G_HARDWALL,
	GFP_HIGHUSER = GFP_USER | G_HIGHMEM,
	GFP_HIGHUSER_MOVABLE = GFP_HIGHUSER | G_MOVABLE | G_SKIP_KASAN,
	GFP_TRANSHUGE_LIGHT = (GFP_HIGHUSER_MOVABLE | G_COMP | G_NOMEMALLOC | G_NOWARN) & ~G_RECLAIM,
	GFP_TRANSHUGE = GFP_TRANSHUGE_LIGHT | G_DIRECT_RECLAIM,
};

static const struct { uint64_t mask; const char *name; } gfp_names[] = {
	{GFP_TRANSHUGE, "GFP_TRANSHUGE"}, {GFP_TRANSHUGE_LIGHT, "GFP_TRANSHUGE_LIGHT"},
	{GFP_HIGHUSER_MOVABLE, "GFP_HIGHUSER_MOVABLE"}, {GFP_HIGHUSER, "GFP_HIGHUSER"},
	{GFP_USER, "GFP_USER"}, {GFP_KERNEL | G_ACCOUNT, "GFP_KERNEL_ACCOUNT"},
	{GFP_KERNEL, "GFP_KERNEL"}, {GFP_NOFS, "GFP_NOFS"}, {GFP_ATOMIC, "GFP_ATOMIC"},
	{GFP_NOIO, "GFP_NOIO"}, {GFP_NOWAIT, "GFP_NOWAIT"}, {G_DMA, "GFP_DMA"},
	{G_HIGHMEM, "__GFP_HIGHMEM"}, {G_DMA32, "GFP_DMA32"}, {G_HIGH, "__GFP_HIGH"},
	{G_IO, "__GFP_IO"}, {G_FS, "__GFP_FS"}, {G_ZERO, "__GFP_ZERO"},
	{G_DIRECT_RECLAIM, "__GFP_DIRECT_RECLAIM"}, {G_KSWAPD_RECLAIM, "__GFP_KSWAPD_RECLAIM"},
	{G_WRITE, "__GFP_WRITE"}, {G_NOWARN, "__GFP_NOWARN"},
	{G_RETRY_MAYFAIL, "__GFP_RETRY_MAYFAIL"}, {G_NOFAIL, "__GFP_NOFAIL"},
	{G_NORETRY, "__GFP_NORETRY"}, {G_MEMALLOC, "__GFP_MEMALLOC"}, {G_COMP, "__GFP_COMP"},
	{G_NOMEMALLOC, "__GFP_NOMEMALLOC"}, {G_HARDWALL, "__GFP_HARDWALL"},
	{G_THISNODE, "__GFP_THISNODE"}, {G_ACCOUNT, "__GFP_ACCOUNT"},
	{G_ZEROTAGS, "__GFP_ZEROTAGS"}, {G_SKIP_ZERO, "__GFP_SKIP_ZERO"},
	{G_SKIP_KASAN, "__GFP_SKIP_KASAN"}, {G_NO_OBJ_EXT, "__GFP_NO_OBJ_EXT"},
};

static void put_gfp(struct buf *b, const struct conv_parts *c, uint64_t v)
{
	char out[1024];
	size_t n = 0;
	if (!v) {
		put_padded(b, c, "0", 1);
		return;
	}
	for (size_t i = 0; i < sizeof(gfp_names) / sizeof(gfp_names[0]); i++)
		if ((v & gfp_names[i].mask) == gfp_names[i].mask) {
			n += (size_t)snprintf(out + n, sizeof(out) - n, "%s%s", n ? "|" : "",
					      gfp_names[i].name);
			v &= ~gfp_names[i].mask;
		}
	if (v)
		n += (size_t)snprintf(out + n, sizeof(out) - n, "%s0x%llx", n ? "|" : "",
				      (unsigned long long)v);
	put_padded(b, c, out, n);
}

static void put_conv(struct buf *b, const struct conv_parts *c,
		     const struct fmt_val *v)
{
	static const struct fmt_val missing_int = { .kind = FMT_INT, .i = 0 };
	static const struct fmt_val missing_str = { .kind = FMT_STR, .s = "" };
	char tmp[24];
	char ch;

	if (!v)		/* fewer values than conversions: 0 or "" */
		v = c->conv == 's' || c->conv == 'r' ? &missing_str : &missing_int;
	switch (c->conv) {
	case 's':
	case 'r':	/* buf(): already rendered \x-escaped */
		if (v->kind == FMT_STR) {
			put_str(b, c, v->s);
		} else {
			/* defence: sema gives %s only strings */
			if (v->kind == FMT_INT)
				snprintf(tmp, sizeof(tmp), "%lld", (long long)v->i);
			else
				snprintf(tmp, sizeof(tmp), "%llu",
					 (unsigned long long)v->i);
			put_str(b, c, tmp);
		}
		break;
	case 'g':
		put_gfp(b, c, v->kind == FMT_STR ? 0 : (uint64_t)v->i);
		break;
	case 'c':
		ch = v->kind == FMT_STR ? 0 : (char)(unsigned char)v->i;
		put_padded(b, c, &ch, 1);
		break;
	default:
		put_int(b, c, v->kind == FMT_STR ? 0 : v->i,
			c->narrow ? c->narrow : v->int32 && !c->wide && c->conv != 'p' ? 32 : 0);
		break;
	}
}

char *fmt_format_into(char **buf, size_t *cap, const char *fmt, const struct fmt_spec *spec,
		      const struct fmt_val *vals, int nvals, size_t *len)
{
	struct buf b = { .p = *buf, .cap = *cap };
	struct conv_parts c;
	const char *why;
	int arg = 0;
	size_t i = 0, lit = 0;

	(void)spec;	/* the spec only told the compiler the argument kinds */
	buf_reserve(&b, strlen(fmt));
	while (fmt[i]) {
		if (fmt[i] != '%') {
			i++;
			continue;
		}
		buf_put(&b, fmt + lit, i - lit);
		if (fmt[i + 1] == '%') {
			buf_put(&b, "%", 1);
			i += 2;
		} else if (!is_literal_percent(fmt + i) && parse_conv(fmt + i, &c, &why)) {
			put_conv(&b, &c, arg < nvals && vals ? &vals[arg] : NULL);
			arg++;
			i += (size_t)c.length;
		} else {
			/* a literal '%' (or a spec fmt_parse rejected): as it stands */
			buf_put(&b, fmt + i, 1);
			i++;
		}
		lit = i;
	}
	buf_put(&b, fmt + lit, i - lit);
	/* a failed realloc left the old block in b.p: still the caller's */
	*buf = b.p;
	*cap = b.cap;
	if (!buf_reserve(&b, 0))
		return NULL;
	b.p[b.len] = '\0';
	if (len)
		*len = b.len;
	return b.p;
}

char *fmt_format(const char *fmt, const struct fmt_spec *spec,
		 const struct fmt_val *vals, int nvals, size_t *len)
{
	char *buf = NULL;
	size_t cap = 0;
	char *s = fmt_format_into(&buf, &cap, fmt, spec, vals, nvals, len);
	if (!s)
		free(buf);
	return s;
}
