/*
 * emit.c - --emit ir and --emit asm for a reader: each run of LLVM IR or
 * BPF instructions is headed by the script line it came from, as
 * `llvm-objdump -S` interleaves source and code.
 *
 * Both come from the debug locations codegen sets (cg_set_loc): the
 * assembly's `.loc FILE LINE COL` directives, the IR's `!dbg !N` with
 * `!N = !DILocation(line: L, ...)`.  The directives and temporary labels
 * that only the assembler needs are left out of the assembly.
 */
#include "codegen/cg_int.h"

#include <stdlib.h>
#include <string.h>

/* the text of line `line` of src, without its newline */
static const char *src_line(const char *src, int line, int *len)
{
	const char *p = src;
	for (int l = 1; l < line && p && *p; l++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p || !*p)
		return NULL;
	const char *e = strchr(p, '\n');
	*len = e ? (int)(e - p) : (int)strlen(p);
	while (*len && (*p == ' ' || *p == '\t')) {
		p++;
		(*len)--;
	}
	return p;
}

static void head(FILE *out, const char *src, int line, int *last, const char *comment)
{
	int len;
	const char *text = line > 0 && line != *last && src ? src_line(src, line, &len) : NULL;
	if (!text)
		return;
	fprintf(out, "%s %d: %.*s\n", comment, line, len, text);
	*last = line;
}

static bool starts(const char *l, const char *p)
{
	return !strncmp(l, p, strlen(p));
}

void cg_print_asm(FILE *out, const char *text, const char *src)
{
	int last = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		const char *l = p;
		while (*l == '\t' || *l == ' ')
			l++;
		if (starts(l, ".loc\t") || starts(l, ".loc ")) {
			int file, line;
			if (sscanf(l + 5, "%d %d", &file, &line) == 2)
				head(out, src, line, &last, "\t;");
		} else if (starts(p, ".Ltmp") || starts(l, ".cfi_") || starts(l, ".file\t1 ")) {
			/* for the assembler only */
		} else {
			if (starts(p, ".Lfunc_begin") || (p[0] != '\t' && p[0] != '.' && n && p[n - 1] == ':'))
				last = 0;	/* a new function or block quotes its line again */
			fprintf(out, "%.*s\n", n, p);
		}
		p = nl ? nl + 1 : p + n;
	}
}

void cg_print_ir(FILE *out, const char *text, const char *src)
{
	/* !N = !DILocation(line: L, ...): L by N */
	int cap = 0;
	int *lines = NULL;
	for (const char *p = strstr(text, "\n!"); p; p = strstr(p + 1, "\n!")) {
		int id, line;
		if (sscanf(p + 1, "!%d = !DILocation(line: %d", &id, &line) != 2 || id < 0 ||
		    id > 10000000)
			continue;
		if (id >= cap) {
			int ncap = id * 2 + 16;
			int *nl = realloc(lines, (size_t)ncap * sizeof(*nl));
			if (!nl)
				break;
			memset(nl + cap, 0, (size_t)(ncap - cap) * sizeof(*nl));
			lines = nl;
			cap = ncap;
		}
		lines[id] = line;
	}
	int last = 0;
	for (const char *p = text; *p;) {
		const char *nl = strchr(p, '\n');
		int n = nl ? (int)(nl - p) : (int)strlen(p);
		const char *d = memmem(p, (size_t)n, "!dbg !", 6);
		int id = d ? atoi(d + 6) : -1;
		if (id >= 0 && id < cap && p[0] == ' ')
			head(out, src, lines[id], &last, "  ;");
		if (starts(p, "define ") || (n && p[n - 1] == ':'))
			last = 0;
		fprintf(out, "%.*s\n", n, p);
		p = nl ? nl + 1 : p + n;
	}
	free(lines);
}
