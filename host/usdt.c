/*
 * usdt.c - reading SDT notes and their argument formats (see usdt.h).
 *
 * The note reader follows what libbpf and bcc do: apply the .stapsdt.base
 * adjustment (prelinked files moved the code but not the notes), then turn
 * the site's and the semaphore's virtual addresses into file offsets
 * through the PT_LOAD headers, which is what uprobes take.  A symbol
 * operand like "glob(%rip)" is resolved here against .symtab/.dynsym into
 * a distance from the site, so the BPF side computes it from the probe's
 * instruction pointer and PIE load addresses need no further work.
 */
#include "host/host_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/arena.h"


/* ---- registers -------------------------------------------------------------- */

/* struct pt_regs on x86-64 */
static const struct { const char *name; int off; } ptregs[] = {
	{"r15", 0}, {"r14", 8}, {"r13", 16}, {"r12", 24}, {"bp", 32}, {"bx", 40},
	{"r11", 48}, {"r10", 56}, {"r9", 64}, {"r8", 72}, {"ax", 80}, {"cx", 88},
	{"dx", 96}, {"si", 104}, {"di", 112}, {"orig_ax", 120}, {"ip", 128}, {"cs", 136},
	{"flags", 144}, {"sp", 152}, {"ss", 160},
};

int usdt_ptregs_offset(const char *name)
{
	for (size_t i = 0; i < sizeof(ptregs) / sizeof(ptregs[0]); i++)
		if (!strcmp(ptregs[i].name, name))
			return ptregs[i].off;
	return -1;
}

/* the legacy registers by their 64/32/16/8-bit names */
static const struct { const char *n64, *n32, *n16, *n8, *field; } legacy[] = {
	{"rax", "eax", "ax", "al", "ax"}, {"rbx", "ebx", "bx", "bl", "bx"},
	{"rcx", "ecx", "cx", "cl", "cx"}, {"rdx", "edx", "dx", "dl", "dx"},
	{"rsi", "esi", "si", "sil", "si"}, {"rdi", "edi", "di", "dil", "di"},
	{"rbp", "ebp", "bp", "bpl", "bp"}, {"rsp", "esp", "sp", "spl", "sp"},
};

int usdt_asm_reg(const char *name, int *size)
{
	for (size_t i = 0; i < sizeof(legacy) / sizeof(legacy[0]); i++) {
		const char *n[] = {legacy[i].n64, legacy[i].n32, legacy[i].n16, legacy[i].n8};
		static const int sz[] = {8, 4, 2, 1};
		for (int k = 0; k < 4; k++)
			if (!strcmp(name, n[k])) {
				*size = sz[k];
				return usdt_ptregs_offset(legacy[i].field);
			}
	}
	if (!strcmp(name, "rip")) {
		*size = 8;
		return usdt_ptregs_offset("ip");
	}
	/* r8 .. r15 with d (32), w (16), b or l (8) suffixes */
	if (name[0] == 'r' && isdigit((unsigned char)name[1])) {
		char *end;
		long r = strtol(name + 1, &end, 10);
		if (r < 8 || r > 15)
			return -1;
		if (!*end)
			*size = 8;
		else if (!strcmp(end, "d"))
			*size = 4;
		else if (!strcmp(end, "w"))
			*size = 2;
		else if (!strcmp(end, "b") || !strcmp(end, "l"))
			*size = 1;
		else
			return -1;
		char base[8];
		snprintf(base, sizeof(base), "r%ld", r);
		return usdt_ptregs_offset(base);
	}
	return -1;
}

/* ---- argument formats ----------------------------------------------------------- */

/* "%reg" at *p; advances past it */
static int parse_reg(const char **p, int *off, int *size, char *err, size_t errlen)
{
	char name[16];
	size_t n = 0;
	if (**p != '%') {
		rs_set_err(err, errlen, "expected a register at '%s'", *p);
		return -EINVAL;
	}
	(*p)++;
	while (isalnum((unsigned char)**p) && n < sizeof(name) - 1)
		name[n++] = *(*p)++;
	name[n] = '\0';
	*off = usdt_asm_reg(name, size);
	if (*off < 0) {
		rs_set_err(err, errlen, "unsupported register '%%%s'", name);
		return -EINVAL;
	}
	return 0;
}

static int parse_one(struct arena *a, const char *s, size_t len, struct usdt_arg *arg,
		     char *err, size_t errlen)
{
	char buf[128];
	if (len >= sizeof(buf)) {
		rs_set_err(err, errlen, "argument '%.*s...' is too long", 20, s);
		return -EINVAL;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	memset(arg, 0, sizeof(*arg));
	const char *p = buf, *at = strchr(buf, '@');
	arg->size = 8;
	if (at) {
		/* "-4@": signed, 4 bytes */
		char *end;
		long sz = strtol(buf, &end, 10);
		if (end != at || (labs(sz) != 1 && labs(sz) != 2 && labs(sz) != 4 && labs(sz) != 8)) {
			rs_set_err(err, errlen, "bad size in argument '%s'", buf);
			return -EINVAL;
		}
		arg->is_signed = sz < 0;
		arg->size = (int)labs(sz);
		p = at + 1;
	}
	if (*p == '$') {	/* constant */
		char *end;
		errno = 0;
		arg->val = strtoll(p + 1, &end, 0);
		if (end == p + 1 || *end || errno) {
			rs_set_err(err, errlen, "bad constant in argument '%s'", buf);
			return -EINVAL;
		}
		/* at the argument's size and sign, as a register's value
		 * would be read: 4@$-202182160 is 4092785136 */
		if (arg->size < 8) {
			int shift = 64 - 8 * arg->size;
			arg->val = arg->is_signed ? (int64_t)((uint64_t)arg->val << shift) >> shift
						  : (int64_t)((uint64_t)arg->val << shift >> shift);
		}
		arg->kind = USDT_ARG_CONST;
		return 0;
	}
	if (*p == '%') {	/* register */
		if (parse_reg(&p, &arg->reg_off, &arg->reg_size, err, errlen))
			return -EINVAL;
		if (*p) {
			rs_set_err(err, errlen, "unexpected '%s' in argument '%s'", p, buf);
			return -EINVAL;
		}
		arg->kind = USDT_ARG_REG;
		return 0;
	}
	/* memory: [DISP](%reg) or SYM[+-OFF](%rip) */
	const char *paren = strchr(p, '(');
	if (!paren) {
		rs_set_err(err, errlen, "unsupported argument '%s'", buf);
		return -EINVAL;
	}
	arg->kind = USDT_ARG_MEM;
	if (paren > p && (isalpha((unsigned char)*p) || *p == '_' || *p == '.')) {
		const char *e = p;
		while (e < paren && *e != '+' && *e != '-')
			e++;
		arg->sym = arena_strndup(a, p, (size_t)(e - p));
		if (e < paren) {
			char *end;
			arg->val = strtoll(e, &end, 0);
			if (end != paren) {
				rs_set_err(err, errlen, "bad offset in argument '%s'", buf);
				return -EINVAL;
			}
		}
	} else if (paren > p) {
		char *end;
		arg->val = strtoll(p, &end, 0);
		if (end != paren) {
			rs_set_err(err, errlen, "bad displacement in argument '%s'", buf);
			return -EINVAL;
		}
	}
	p = paren + 1;
	int rsize;
	if (parse_reg(&p, &arg->reg_off, &rsize, err, errlen))
		return -EINVAL;
	if (*p == ',') {
		rs_set_err(err, errlen, "indexed operand '%s' is not supported", buf);
		return -EINVAL;
	}
	if (strcmp(p, ")")) {
		rs_set_err(err, errlen, "unexpected '%s' in argument '%s'", p, buf);
		return -EINVAL;
	}
	bool rip = arg->reg_off == usdt_ptregs_offset("ip");
	if (rip != (arg->sym != NULL)) {
		rs_set_err(err, errlen, rip ? "unsupported %%rip operand '%s' (only symbol(%%rip))"
					 : "symbol operand '%s' needs %%rip", buf);
		return -EINVAL;
	}
	return 0;
}

int usdt_parse_args(struct arena *a, const char *text, struct usdt_arg *args, int max,
		    char *err, size_t errlen)
{
	int n = 0;
	const char *p = text ? text : "";
	for (;;) {
		while (*p == ' ' || *p == '\t')
			p++;
		if (!*p)
			return n;
		const char *e = p;
		while (*e && *e != ' ' && *e != '\t')
			e++;
		if (n == max) {
			rs_set_err(err, errlen, "more than %d arguments", max);
			return -EINVAL;
		}
		if (parse_one(a, p, (size_t)(e - p), &args[n], err, errlen))
			return -EINVAL;
		n++;
		p = e;
	}
}

/* ---- notes ------------------------------------------------------------------------ */

bool usdt_match(const struct usdt_note *n, const char *pattern)
{
	const char *colon = strchr(pattern, ':');
	if (!colon)
		return !fnmatch(pattern, n->name, 0);
	char prov[256];
	snprintf(prov, sizeof(prov), "%.*s", (int)(colon - pattern), pattern);
	return !fnmatch(prov, n->provider, 0) && !fnmatch(colon + 1, n->name, 0);
}

static int vaddr_to_off(Elf *e, uint64_t vaddr, uint64_t *off)
{
	size_t n;
	if (elf_getphdrnum(e, &n))
		return -ENOENT;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (vaddr >= ph.p_vaddr && vaddr < ph.p_vaddr + ph.p_memsz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return 0;
		}
	}
	return -ENOENT;
}

static bool find_symbol(Elf *e, const char *name, uint64_t *value)
{
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM) ||
		    !sh.sh_entsize)
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;
			if (!gelf_getsym(d, (int)i, &s) || s.st_shndx == SHN_UNDEF)
				continue;
			const char *nm = elf_strptr(e, sh.sh_link, s.st_name);
			if (nm && !strcmp(nm, name)) {
				*value = s.st_value;
				return true;
			}
		}
	}
	return false;
}

struct note_vec {
	struct usdt_note *v;
	size_t n;
};

static struct usdt_note *push_note(struct arena *a, struct note_vec *nv)
{
	nv->v = arena_grow(a, nv->v, nv->n, sizeof(*nv->v));
	struct usdt_note *n = &nv->v[nv->n++];
	memset(n, 0, sizeof(*n));
	return n;
}

/* one note's descriptor: pc, base, semaphore, then three strings */
static void add_note(struct arena *a, Elf *e, struct note_vec *nv, const uint8_t *desc, size_t len,
		     uint64_t base_sec)
{
	if (len < 24 + 3)
		return;
	uint64_t pc, base, sema;
	memcpy(&pc, desc, 8);
	memcpy(&base, desc + 8, 8);
	memcpy(&sema, desc + 16, 8);
	const char *s = (const char *)desc + 24, *end = (const char *)desc + len;
	const char *strs[3];
	for (int i = 0; i < 3; i++) {
		const char *z = memchr(s, '\0', (size_t)(end - s));
		if (!z)
			return;
		strs[i] = s;
		s = z + 1;
		if (s >= end && i < 2)
			return;
	}
	struct usdt_note *n = push_note(a, nv);
	n->provider = arena_strdup(a, strs[0]);
	n->name = arena_strdup(a, strs[1]);
	n->args_text = arena_strdup(a, strs[2]);
	if (base_sec && base) {
		/* prelink moved the code: move the addresses with it */
		pc += base_sec - base;
		if (sema)
			sema += base_sec - base;
	}
	n->pc = pc;
	n->sema = sema;
	if (vaddr_to_off(e, pc, &n->pc_off))
		n->pc_off = pc;
	if (sema && vaddr_to_off(e, sema, &n->sema_off))
		n->sema_off = 0;
	char err[256];
	int na = usdt_parse_args(a, n->args_text, n->args, USDT_MAX_ARGS, err, sizeof(err));
	if (na < 0) {
		n->args_err = arena_strdup(a, err);
		return;
	}
	n->nargs = na;
	for (int i = 0; i < na; i++) {
		struct usdt_arg *g = &n->args[i];
		uint64_t v;
		if (!g->sym)
			continue;
		if (!find_symbol(e, g->sym, &v)) {
			n->args_err = arena_printf(a, "argument %d names symbol '%s', which the file does not define",
						   i, g->sym);
			return;
		}
		g->val += (int64_t)(v - pc);	/* from the site, i.e. from regs->ip */
	}
}

int usdt_read_notes(struct arena *a, const char *path, struct usdt_note **out, size_t *count,
		    char *err, size_t errlen)
{
	struct note_vec nv = {0};
	*out = NULL;
	*count = 0;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		rs_set_err(err, errlen, "libelf is too old");
		return -EINVAL;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int e = -errno;
		rs_set_err(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return e;
	}
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	size_t shstr;
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getshdrstrndx(e, &shstr)) {
		rs_set_err(err, errlen, "%s is not an ELF file", path);
		if (e)
			elf_end(e);
		close(fd);
		return -ENOEXEC;
	}
	uint64_t base_sec = 0;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *nm;
		if (gelf_getshdr(scn, &sh) && (nm = elf_strptr(e, shstr, sh.sh_name)) &&
		    !strcmp(nm, ".stapsdt.base"))
			base_sec = sh.sh_addr;
	}
	scn = NULL;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		const char *nm;
		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    !(nm = elf_strptr(e, shstr, sh.sh_name)) || strcmp(nm, ".note.stapsdt"))
			continue;
		Elf_Data *d = elf_getdata(scn, NULL);
		size_t off = 0, noff, doff;
		GElf_Nhdr nh;
		while (d && (off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			if (nh.n_type != 3 || nh.n_namesz != 8 ||
			    memcmp((const char *)d->d_buf + noff, "stapsdt", 8))
				continue;
			add_note(a, e, &nv, (const uint8_t *)d->d_buf + doff, nh.n_descsz, base_sec);
		}
	}
	elf_end(e);
	close(fd);
	*out = nv.v;
	*count = nv.n;
	return 0;
}

static int line_cmp(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int usdt_list(FILE *out, const char *path, const char *pattern, char *err, size_t errlen)
{
	struct arena *a = arena_new();
	struct usdt_note *notes;
	size_t n;
	int rc = usdt_read_notes(a, path, &notes, &n, err, errlen);
	if (rc) {
		arena_free(a);
		return rc;
	}
	const char **lines = arena_new_array(a, const char *, n ? n : 1);
	size_t k = 0;
	for (size_t i = 0; i < n; i++)
		if (usdt_match(&notes[i], pattern && *pattern ? pattern : "*"))
			lines[k++] = arena_printf(a, "usdt:%s:%s:%s", path, notes[i].provider, notes[i].name);
	qsort(lines, k, sizeof(*lines), line_cmp);
	for (size_t i = 0; i < k; i++)
		if (!i || strcmp(lines[i], lines[i - 1]))
			fprintf(out, "%s\n", lines[i]);
	arena_free(a);
	return 0;
}
