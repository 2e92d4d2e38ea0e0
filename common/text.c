/*
 * text.c - small text helpers: hexadecimal digits (the lexer's literals,
 * /proc/kallsyms addresses), bytes printed as a C string literal and a
 * memory stream that cannot fail (the token and AST dumps the unit tests
 * read).
 */
#include "common/text.h"

#include <stdlib.h>

int text_hexdigit(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

void text_print_quoted(FILE *f, const char *s, uint32_t n)
{
	fputc('"', f);
	for (uint32_t i = 0; s && i < n; i++) {
		unsigned char c = (unsigned char)s[i];
		switch (c) {
		case '\n': fputs("\\n", f); break;
		case '\t': fputs("\\t", f); break;
		case '\r': fputs("\\r", f); break;
		case '\\': fputs("\\\\", f); break;
		case '"': fputs("\\\"", f); break;
		default:
			if (c < 0x20 || c >= 0x7f)
				fprintf(f, "\\x%02x", c);
			else
				fputc(c, f);
		}
	}
	fputc('"', f);
}

FILE *text_memstream(char **buf, size_t *size)
{
	*buf = NULL;
	*size = 0;
	FILE *f = open_memstream(buf, size);
	if (!f) {
		fprintf(stderr, "sonde: out of memory\n");
		abort();
	}
	return f;
}
