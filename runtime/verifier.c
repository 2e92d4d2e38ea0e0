/*
 * verifier.c - read the kernel verifier's refusal back to the script.
 *
 * The verifier's log ends with the instruction it stopped on ("3: (07) r2
 * += 1"), its verdict ("BPF program is too large. Processed 1000001
 * insn") and statistics.  The verdict gives the class (common/explain.c);
 * the instruction's index, looked up in the BTF line info codegen put in
 * the object (.BTF.ext: one record per source location, insn offset to
 * line and column), gives the script's line and column.  Pure functions
 * over the log text and the ELF bytes, unit-tested without a kernel.
 */
#include "runtime/verifier.h"

#include <gelf.h>
#include <libelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* calls fn on each line of log[0..len), last line first, until it
 * returns true; that line is returned */
static const char *line_back(const char *log, size_t len, size_t *llen,
			     bool (*fn)(const char *l, size_t n))
{
	const char *end = log + len;
	while (end > log) {
		const char *e = end;
		while (e > log && (e[-1] == '\n' || e[-1] == '\r' || e[-1] == ' '))
			e--;
		const char *b = e;
		while (b > log && b[-1] != '\n')
			b--;
		if (e > b && fn(b, (size_t)(e - b))) {
			*llen = (size_t)(e - b);
			return b;
		}
		end = b;
	}
	return NULL;
}

/* "N: (op) ..." */
static bool is_insn_line(const char *l, size_t n)
{
	size_t i = 0;
	while (i < n && l[i] >= '0' && l[i] <= '9')
		i++;
	return i > 0 && i + 3 < n && l[i] == ':' && l[i + 1] == ' ' && l[i + 2] == '(';
}

int vf_failing_insn(const char *log, size_t len)
{
	size_t n;
	const char *l = line_back(log, len, &n, is_insn_line);
	return l ? atoi(l) : -1;
}

static bool starts(const char *l, size_t n, const char *p)
{
	size_t k = strlen(p);
	return n >= k && !memcmp(l, p, k);
}

/* not the statistics, an instruction, a state dump or a source line */
static bool is_verdict(const char *l, size_t n)
{
	return !starts(l, n, "processed ") && !starts(l, n, "verification time") &&
	       !starts(l, n, "stack depth") && !starts(l, n, "; ") && !starts(l, n, "mark_precise") &&
	       !starts(l, n, "libbpf:") && !starts(l, n, "-- ") && !starts(l, n, "from ") &&
	       !starts(l, n, "func#") && !starts(l, n, "Validating ") && !starts(l, n, "Func#") &&
	       !is_insn_line(l, n) &&
	       !(l[0] >= '0' && l[0] <= '9' && memchr(l, ':', n) && memmem(l, n, " R", 2));
}

const char *vf_verdict(const char *log, size_t len, size_t *vlen)
{
	return line_back(log, len, vlen, is_verdict);
}

/* the kernel's wordings (5.10 to 6.18) of each class, most specific first */
static const struct {
	enum ex_code code;
	const char *text;
} patterns[] = {
	{EX_BUDGET, "BPF program is too large"},
	{EX_LOOP, "jumps is too complex"},
	{EX_LOOP, "infinite loop detected"},
	{EX_LOOP, "back-edge from insn"},
	{EX_LOOP, "unbounded loop"},
	{EX_LOOP, "loop detected"},
	{EX_PROG_SIZE, "jump out of range"},
	{EX_PROG_SIZE, "too many instructions"},
	{EX_STACK, "combined stack size"},
	{EX_STACK, "invalid stack off=-"},	/* past the 512 bytes: off=-520 */
	{EX_STACK, "stack limit"},
	{EX_NULL, "_or_null"},
	{EX_MAP_SIZE, "invalid access to map value"},
	{EX_MAP_SIZE, "invalid access to map key"},
	{EX_DIVZERO, "div by zero"},
	{EX_DIVZERO, "division by zero"},
	{EX_HELPER, "cannot use helper"},
	{EX_HELPER, "unknown func"},
	{EX_HELPER, "helper call is not allowed"},
	{EX_HELPER, "GPL-compatible"},
	{EX_MEMORY, "invalid mem access"},
	{EX_MEMORY, "invalid bpf_context access"},
	{EX_MEMORY, "modified ctx ptr"},
	{EX_MEMORY, "cannot write into"},
	{EX_MEMORY, "pointer arithmetic"},
};

enum ex_code vf_classify(const char *log, size_t len)
{
	size_t n;
	const char *v = vf_verdict(log, len, &n);
	for (size_t i = 0; v && i < sizeof(patterns) / sizeof(patterns[0]); i++)
		if (memmem(v, n, patterns[i].text, strlen(patterns[i].text)))
			return patterns[i].code;
	/* "invalid write to stack R10 off=-520 size=8": below the 512
	 * bytes is the stack limit; anywhere else is a bad access */
	const char *o = v ? memmem(v, n, "stack R10 off=", 14) : NULL;
	if (o && atoi(o + 14) < -512)
		return EX_STACK;
	return EX_UNKNOWN;
}

/* ---- BTF line info ------------------------------------------------------------ */

struct btf_hdr {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, type_off, type_len, str_off, str_len;
};

struct btf_ext_hdr {
	uint16_t magic;
	uint8_t version, flags;
	uint32_t hdr_len, func_info_off, func_info_len, line_info_off, line_info_len;
};

struct line_rec {
	uint32_t insn_off, file_name_off, line_off, line_col;
};

static Elf_Data *section(Elf *elf, size_t shstrndx, const char *name, GElf_Shdr *sh)
{
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
		const char *n = gelf_getshdr(s, sh) ? elf_strptr(elf, shstrndx, sh->sh_name) : NULL;
		if (n && !strcmp(n, name))
			return elf_getdata(s, NULL);
	}
	return NULL;
}

/* the program's section name and byte offset in it, from the symbol table */
static const char *prog_place(Elf *elf, size_t shstrndx, const char *prog, uint64_t *off)
{
	GElf_Shdr sh;
	for (Elf_Scn *s = elf_nextscn(elf, NULL); s; s = elf_nextscn(elf, s)) {
		if (!gelf_getshdr(s, &sh) || sh.sh_type != SHT_SYMTAB)
			continue;
		Elf_Data *d = elf_getdata(s, NULL);
		size_t n = d && sh.sh_entsize ? sh.sh_size / sh.sh_entsize : 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Sym sym;
			if (!gelf_getsym(d, (int)i, &sym) || GELF_ST_TYPE(sym.st_info) != STT_FUNC)
				continue;
			const char *name = elf_strptr(elf, sh.sh_link, sym.st_name);
			if (!name || strcmp(name, prog))
				continue;
			GElf_Shdr ps;
			Elf_Scn *sec = elf_getscn(elf, sym.st_shndx);
			if (!sec || !gelf_getshdr(sec, &ps))
				return NULL;
			*off = sym.st_value;
			return elf_strptr(elf, shstrndx, ps.sh_name);
		}
	}
	return NULL;
}

/* the record for byte offset `at` of section `sec`: the last one at or
 * before it, not before the program's start */
/* a line of C a script imported (codegen/cimport.c inlines it), not of
 * the script: the script's line before it, the call, is the one shown */
static bool c_source(const char *strs, size_t str_len, uint32_t off)
{
	if (off >= str_len)
		return false;
	size_t n = strlen(strs + off);
	return n > 2 && strs[off + n - 2] == '.' && (strs[off + n - 1] == 'c' || strs[off + n - 1] == 'h');
}

static int find_line(const uint8_t *ext, size_t ext_len, const char *strs, size_t str_len,
		     const char *sec, uint64_t start, uint64_t at, int *col)
{
	struct btf_ext_hdr h;
	if (ext_len < sizeof(h))
		return 0;
	memcpy(&h, ext, sizeof(h));
	if (h.magic != 0xeB9F || (uint64_t)h.hdr_len + h.line_info_off + h.line_info_len > ext_len ||
	    h.line_info_len < 4)
		return 0;
	const uint8_t *p = ext + h.hdr_len + h.line_info_off, *end = p + h.line_info_len;
	uint32_t rec_size;
	memcpy(&rec_size, p, 4);
	p += 4;
	if (rec_size < sizeof(struct line_rec))
		return 0;
	int line = 0;
	uint32_t best = 0;
	while (end - p >= 8) {
		uint32_t name_off, num;
		memcpy(&name_off, p, 4);
		memcpy(&num, p + 4, 4);
		p += 8;
		if ((uint64_t)num * rec_size > (uint64_t)(end - p))
			return 0;
		bool ours = name_off < str_len && !strcmp(strs + name_off, sec);
		for (uint32_t i = 0; ours && i < num; i++) {
			struct line_rec r;
			memcpy(&r, p + (size_t)i * rec_size, sizeof(r));
			if (r.insn_off >= start && r.insn_off <= at && (!line || r.insn_off >= best) &&
			    r.line_col >> 10 && !c_source(strs, str_len, r.file_name_off)) {
				best = r.insn_off;
				line = (int)(r.line_col >> 10);
				*col = (int)(r.line_col & 0x3ff);
			}
		}
		p += (size_t)num * rec_size;
	}
	return line;
}

int vf_insn_line(const void *elfbuf, size_t size, const char *prog, int insn, int *col)
{
	if (!elfbuf || insn < 0 || elf_version(EV_CURRENT) == EV_NONE)
		return 0;
	Elf *elf = elf_memory((char *)elfbuf, size);
	size_t shstrndx;
	int line = 0;
	if (!elf || elf_getshdrstrndx(elf, &shstrndx))
		goto out;
	uint64_t start;
	const char *sec = prog_place(elf, shstrndx, prog, &start);
	GElf_Shdr sh;
	Elf_Data *btf = sec ? section(elf, shstrndx, ".BTF", &sh) : NULL;
	Elf_Data *ext = btf ? section(elf, shstrndx, ".BTF.ext", &sh) : NULL;
	struct btf_hdr bh;
	if (!ext || btf->d_size < sizeof(bh))
		goto out;
	memcpy(&bh, btf->d_buf, sizeof(bh));
	if (bh.magic != 0xeB9F || (uint64_t)bh.hdr_len + bh.str_off + bh.str_len > btf->d_size ||
	    !bh.str_len)
		goto out;
	const char *strs = (const char *)btf->d_buf + bh.hdr_len + bh.str_off;
	if (strs[bh.str_len - 1])
		goto out;	/* strings must end inside the section */
	line = find_line(ext->d_buf, ext->d_size, strs, bh.str_len, sec, start,
			 start + (uint64_t)insn * 8, col);
out:
	if (elf)
		elf_end(elf);
	return line;
}
