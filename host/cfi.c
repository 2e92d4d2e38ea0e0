/*
 * cfi.c - a file's call-frame information as the unwind rows BPF applies.
 *
 * The compiler describes, for every instruction of a function, where the
 * caller's frame is: the CFA (canonical frame address: the stack pointer
 * before the call) as a register plus an offset, and where each saved
 * register sits relative to it.  That is .eh_frame (loaded, used by C++
 * exceptions and glibc's backtrace()), or .debug_frame in a binary built
 * without unwind tables.  elfutils' libdw reads both (dwarf_getcfi_elf,
 * dwarf_getcfi) and executes their CFA programs for any address
 * (dwarf_cfi_addrframe), which a parser of our own would have to redo: so
 * this file only enumerates the FDEs (the address ranges CFI covers) and
 * asks libdw for each range's rows, one at a time (dwarf_frame_info gives
 * the [start, end) a row holds for), then reduces each to what the BPF
 * walker applies (host/cfi_abi.h): CFA = rsp|rbp + offset, the return
 * address at CFA - 8, the caller's rbp unchanged or saved at CFA + offset.
 * Two expression rules are recognised by their shape: the PLT's (CFA =
 * rsp + 8, + 8 after the push of the lazy-binding stub) and glibc's
 * signal trampoline (__restore_rt: registers read from the ucontext on
 * the stack).  Anything else becomes UNW_UNSUP (frame pointers there).
 * Gaps between FDEs get a UNW_NONE row.  Consecutive equal rules are one
 * row.
 *
 * The FDE starts come from .eh_frame_hdr's sorted table (every linked
 * binary has one); for .debug_frame, from its entries (dwarf_next_cfi),
 * whose initial location is a plain address.  A file with neither may
 * have its .debug_frame in a separate debug file, found by build-id
 * (/usr/lib/debug/.build-id/xx/rest.debug, a distribution's -dbgsym).
 */
#include "host/cfi.h"
#include "host/host_int.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define REG_RBP 6
#define REG_RSP 7
#define REG_RA 16

static struct {
	Dwarf_CFI *(*getcfi_elf)(Elf *);
	int (*cfi_end)(Dwarf_CFI *);
	int (*addrframe)(Dwarf_CFI *, Dwarf_Addr, Dwarf_Frame **);
	int (*frame_info)(Dwarf_Frame *, Dwarf_Addr *, Dwarf_Addr *, bool *);
	int (*frame_cfa)(Dwarf_Frame *, Dwarf_Op **, size_t *);
	int (*frame_register)(Dwarf_Frame *, int, Dwarf_Op *, Dwarf_Op **, size_t *);
	Dwarf *(*begin_elf)(Elf *, Dwarf_Cmd, Elf_Scn *);
	Dwarf_CFI *(*getcfi)(Dwarf *);
	int (*dwarf_end)(Dwarf *);
	int (*next_cfi)(const unsigned char *, Elf_Data *, bool, Dwarf_Off, Dwarf_Off *,
			Dwarf_CFI_Entry *);
} dw;

static int cfi_load(void)
{
	static int state;
	if (state)
		return state > 0 ? 0 : -ENOSYS;
	state = -1;
	void **slots[] = {(void **)&dw.getcfi_elf, (void **)&dw.cfi_end, (void **)&dw.addrframe,
			  (void **)&dw.frame_info, (void **)&dw.frame_cfa, (void **)&dw.frame_register,
			  (void **)&dw.begin_elf, (void **)&dw.getcfi, (void **)&dw.dwarf_end,
			  (void **)&dw.next_cfi};
	static const char *const names[] = {"dwarf_getcfi_elf", "dwarf_cfi_end", "dwarf_cfi_addrframe",
					    "dwarf_frame_info", "dwarf_frame_cfa", "dwarf_frame_register",
					    "dwarf_begin_elf", "dwarf_getcfi", "dwarf_end", "dwarf_next_cfi"};
	_Static_assert(sizeof(slots) / sizeof(slots[0]) == sizeof(names) / sizeof(names[0]),
		       "a name per slot");
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!(*slots[i] = hdw_libdw_sym(names[i])))
			return -ENOSYS;
	state = 1;
	return 0;
}

/* ---- one frame state -> one row ------------------------------------------ */

static bool is_breg(const struct hcfi_op *op, unsigned reg)
{
	return (op->atom == DW_OP_breg0 + reg) || (op->atom == DW_OP_bregx && op->number == reg);
}

static int64_t breg_off(const struct hcfi_op *op)
{
	return (int64_t)(op->atom == DW_OP_bregx ? op->number2 : op->number);
}

/* a register saved at rsp + N: DW_CFA_expression's [DW_OP_breg7 N], which
 * libdw gives after the DW_OP_call_frame_cfa the CFA expression starts
 * with (the CFA is pushed first, and unused here) */
static bool at_rsp(const struct hcfi_op *ops, size_t n, int64_t *off)
{
	if (n == 2 && ops[0].atom == DW_OP_call_frame_cfa) {
		ops++;
		n--;
	}
	if (n != 1 || !is_breg(&ops[0], REG_RSP))
		return false;
	*off = breg_off(&ops[0]);
	return true;
}

/* [DW_OP_call_frame_cfa (, DW_OP_plus_uconst N)]: the value is saved at
 * CFA + N; false for anything else */
static bool at_cfa(const struct hcfi_op *ops, size_t n, int64_t *off)
{
	if (n < 1 || n > 2 || ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	if (n == 2 && ops[1].atom != DW_OP_plus_uconst)
		return false;
	*off = n == 2 ? (int64_t)ops[1].number : 0;
	return true;
}

/* the PLT's CFA: rsp + 8 + ((rip & 15) >= K) << 3, as binutils writes it */
static bool plt_rule(const struct hcfi_op *c, size_t n, int32_t *k)
{
	static const uint8_t shape[] = {0, 0, DW_OP_lit15, DW_OP_and, 0, DW_OP_ge, DW_OP_lit3,
					DW_OP_shl, DW_OP_plus};
	if (n != sizeof(shape) || !is_breg(&c[0], REG_RSP) || breg_off(&c[0]) != 8 ||
	    !is_breg(&c[1], REG_RA) || breg_off(&c[1]) != 0 || c[4].atom < DW_OP_lit0 ||
	    c[4].atom > DW_OP_lit31)
		return false;
	for (size_t i = 2; i < n; i++)
		if (shape[i] && c[i].atom != shape[i])
			return false;
	*k = c[4].atom - DW_OP_lit0;
	return true;
}

void hcfi_classify(const struct hcfi_op *cfa, size_t ncfa, const struct hcfi_op *ra, size_t nra,
		   bool ra_undefined, const struct hcfi_op *rbp, size_t nrbp, struct unw_row *out)
{
	int64_t off, roff;
	out->kind = UNW_UNSUP;
	out->cfa_off = 0;
	out->rbp = UNW_RBP_SAME;
	out->rbp_off = 0;
	if (ra_undefined) {
		out->kind = UNW_STOP;
		return;
	}
	/* a signal trampoline: CFA = *(rsp + N), rip saved at rsp + N + 8,
	 * rbp at rsp + K (glibc's __restore_rt over the kernel's ucontext) */
	int64_t raoff;
	if (ncfa == 2 && is_breg(&cfa[0], REG_RSP) && cfa[1].atom == DW_OP_deref &&
	    at_rsp(ra, nra, &raoff) && at_rsp(rbp, nrbp, &roff)) {
		off = breg_off(&cfa[0]);
		if (raoff != off + 8 || off < 0 || off > 4096 || roff < 0 || roff > 4096)
			return;
		out->kind = UNW_SIGNAL;
		out->cfa_off = (int32_t)off;
		out->rbp_off = (int16_t)roff;
		return;
	}
	/* the return address at CFA - 8: what every x86-64 call leaves */
	if (!at_cfa(ra, nra, &off) || off != -8)
		return;
	if (ncfa == 1 && (is_breg(&cfa[0], REG_RSP) || is_breg(&cfa[0], REG_RBP))) {
		off = breg_off(&cfa[0]);
		if (off < INT32_MIN || off > INT32_MAX)
			return;
		out->kind = is_breg(&cfa[0], REG_RSP) ? UNW_RSP : UNW_RBP;
		out->cfa_off = (int32_t)off;
	} else if (plt_rule(cfa, ncfa, &out->cfa_off)) {
		out->kind = UNW_PLT;
	} else {
		return;
	}
	if (!nrbp)	/* same value, or undefined: the walk keeps what it has */
		return;
	if (!at_cfa(rbp, nrbp, &roff) || roff < INT16_MIN || roff > INT16_MAX) {
		out->kind = UNW_UNSUP;
		return;
	}
	out->rbp = UNW_RBP_CFA;
	out->rbp_off = (int16_t)roff;
}

static size_t conv_ops(const Dwarf_Op *ops, size_t n, struct hcfi_op *out, size_t cap)
{
	if (n > cap)
		n = cap;
	for (size_t i = 0; i < n; i++)
		out[i] = (struct hcfi_op){ops[i].atom, ops[i].number, ops[i].number2};
	return n;
}

/* the row of libdw's frame state fr */
static void frame_row(Dwarf_Frame *fr, struct unw_row *row)
{
	struct hcfi_op cfa[16], ra[16], rbp[16];
	size_t ncfa = 0, nra = 0, nrbp = 0;
	Dwarf_Op *ops, mem_ra[3], mem_rbp[3];
	size_t n;
	bool ra_undef = false;
	row->kind = UNW_UNSUP;
	if (dw.frame_cfa(fr, &ops, &n) || !n || n > 16)
		return;
	ncfa = conv_ops(ops, n, cfa, 16);
	if (dw.frame_register(fr, REG_RA, mem_ra, &ops, &n) < 0 || n > 16)
		return;
	ra_undef = !n && ops;
	nra = conv_ops(ops, n, ra, 16);
	if (dw.frame_register(fr, REG_RBP, mem_rbp, &ops, &n) < 0 || n > 16)
		return;
	nrbp = conv_ops(ops, n, rbp, 16);
	hcfi_classify(cfa, ncfa, ra, nra, ra_undef, rbp, nrbp, row);
}

/* ---- the rows of a file --------------------------------------------------- */

struct builder {
	struct hcfi_rows *out;
	uint32_t cap;
	bool failed, cancelled;	/* cancelled: *stop was set */
	const char *why;	/* what failed */
	const atomic_bool *stop;	/* hcfi_build_until's */
	uint64_t lookups, steps;	/* HCFI_MAX_ROWS, HCFI_MAX_STEPS */
};

static void emit(struct builder *b, uint64_t pc, const struct unw_row *r)
{
	struct hcfi_rows *o = b->out;
	if (pc > UINT32_MAX) {
		b->failed = true;
		b->why = "an address above 4 GiB";
		return;
	}
	if (o->n) {
		struct unw_row *last = &o->rows[o->n - 1];
		if (last->pc == pc) {	/* an empty range before: replace it */
			*last = *r;
			last->pc = (uint32_t)pc;
			return;
		}
		if (last->pc > pc)	/* overlapping FDEs: keep the first */
			return;
		if (last->kind == r->kind && last->cfa_off == r->cfa_off && last->rbp == r->rbp &&
		    last->rbp_off == r->rbp_off)
			return;
	}
	if (o->n >= HCFI_MAX_ROWS) {
		b->failed = true;
		b->why = "more rows than the walker's tables hold";
		return;
	}
	if (o->n == b->cap) {
		uint32_t cap = b->cap ? b->cap * 2 : 1024;
		struct unw_row *nr = realloc(o->rows, (size_t)cap * sizeof(*nr));
		if (!nr) {
			b->failed = true;
			b->why = "no memory";
			return;
		}
		o->rows = nr;
		b->cap = cap;
	}
	o->rows[o->n] = *r;
	o->rows[o->n++].pc = (uint32_t)pc;
	if (r->kind == UNW_UNSUP)
		o->unsupported++;
}

/* the rows of the FDE that starts at start; limit: where the next begins */
static void fde_rows(struct builder *b, Dwarf_CFI *cfi, uint64_t start, uint64_t limit)
{
	uint64_t addr = start;
	for (int guard = 0; addr < limit && guard < 100000 && !b->failed; guard++) {
		Dwarf_Frame *fr = NULL;
		Dwarf_Addr s, e;
		/* this lookup runs the FDE's program through its guard rows */
		b->steps += (uint64_t)guard + 1;
		if (++b->lookups > HCFI_MAX_ROWS || b->steps > HCFI_MAX_STEPS) {
			b->failed = true;
			b->why = "call-frame information that costs too much to read";
			return;
		}
		if (b->stop && !(b->lookups & 1023) && atomic_load(b->stop)) {
			b->failed = b->cancelled = true;
			return;
		}
		if (dw.addrframe(cfi, addr, &fr) || !fr)
			break;
		if (dw.frame_info(fr, &s, &e, NULL) < 0 || e <= addr) {
			free(fr);
			break;
		}
		struct unw_row row;
		frame_row(fr, &row);
		free(fr);
		emit(b, addr, &row);
		addr = e;
	}
	if (addr < limit || limit == UINT64_MAX) {
		struct unw_row none = {.kind = UNW_NONE};
		emit(b, addr, &none);
	}
	b->out->nfde++;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

static void rows_of(struct builder *b, Dwarf_CFI *cfi, uint64_t *starts, size_t n)
{
	qsort(starts, n, sizeof(*starts), cmp_u64);
	for (size_t i = 0; i < n && !b->failed; i++) {
		if (i + 1 < n && starts[i + 1] == starts[i])
			continue;
		fde_rows(b, cfi, starts[i], i + 1 < n ? starts[i + 1] : UINT64_MAX);
	}
}

static Elf_Scn *section(Elf *elf, const char *name, GElf_Shdr *sh)
{
	size_t shstr;
	if (elf_getshdrstrndx(elf, &shstr))
		return NULL;
	Elf_Scn *scn = NULL;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *nm;
		if (gelf_getshdr(scn, sh) && (nm = elf_strptr(elf, shstr, sh->sh_name)) &&
		    !strcmp(nm, name))
			return scn;
	}
	return NULL;
}

/* the FDE starts of .eh_frame_hdr's table (malloc'd), or -errno */
static long hdr_starts(Elf *elf, uint64_t **out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section(elf, ".eh_frame_hdr", &sh);
	Elf_Data *d = scn ? elf_getdata(scn, NULL) : NULL;
	if (!d || d->d_size < 12)
		return -ENOENT;
	const uint8_t *p = d->d_buf;
	/* version 1; eh_frame_ptr: pcrel|sdata4; count: udata4; table: datarel|sdata4 */
	if (p[0] != 1 || (p[1] & 0x0f) != DW_EH_PE_sdata4 || p[2] != DW_EH_PE_udata4 ||
	    p[3] != (DW_EH_PE_datarel | DW_EH_PE_sdata4))
		return -ENOTSUP;
	uint32_t count;
	memcpy(&count, p + 8, 4);
	if ((uint64_t)count * 8 > d->d_size - 12)
		return -EINVAL;
	uint64_t *s = malloc((count ? count : 1) * sizeof(*s));
	if (!s)
		return -ENOMEM;
	for (uint32_t i = 0; i < count; i++) {
		int32_t rel;
		memcpy(&rel, p + 12 + (size_t)i * 8, 4);
		s[i] = sh.sh_addr + (uint64_t)(int64_t)rel;
	}
	*out = s;
	return count;
}

/* the FDE starts of .debug_frame (initial locations are plain addresses) */
static long debug_frame_starts(Elf *elf, uint64_t **out)
{
	GElf_Shdr sh;
	Elf_Scn *scn = section(elf, ".debug_frame", &sh);
	Elf_Data *d = scn && sh.sh_type != SHT_NOBITS ? elf_getdata(scn, NULL) : NULL;
	const unsigned char *ident = (const unsigned char *)elf_getident(elf, NULL);
	if (!d || !ident)
		return -ENOENT;
	size_t n = 0, cap = 256;
	uint64_t *s = malloc(cap * sizeof(*s));
	Dwarf_Off off = 0, next;
	Dwarf_CFI_Entry e;
	while (s && off != (Dwarf_Off)-1) {
		int rc = dw.next_cfi(ident, d, false, off, &next, &e);
		if (rc > 0)
			break;
		if (rc == 0 && !dwarf_cfi_cie_p(&e) && e.fde.start + 8 <= e.fde.end) {
			if (n == cap) {
				uint64_t *ns = realloc(s, (cap *= 2) * sizeof(*s));
				if (!ns) {
					free(s);
					return -ENOMEM;
				}
				s = ns;
			}
			memcpy(&s[n++], e.fde.start, 8);
		}
		if (next <= off)
			break;
		off = next;
	}
	if (!s)
		return -ENOMEM;
	*out = s;
	return (long)n;
}

static void read_loads(Elf *elf, struct hcfi_rows *o)
{
	size_t n;
	if (elf_getphdrnum(elf, &n))
		return;
	for (size_t i = 0; i < n && o->nloads < HCFI_MAX_LOADS; i++) {
		GElf_Phdr ph;
		if (gelf_getphdr(elf, (int)i, &ph) && ph.p_type == PT_LOAD)
			o->loads[o->nloads++] =
				(typeof(o->loads[0])){ph.p_offset, ph.p_vaddr, ph.p_memsz, ph.p_flags};
	}
}

/* the rows of elf's .debug_frame: its FDE count, or -errno */
static long from_debug_frame(struct builder *b, Elf *elf)
{
	uint64_t *starts = NULL;
	Dwarf *dbg = dw.begin_elf(elf, DWARF_C_READ, NULL);
	Dwarf_CFI *dcfi = dbg ? dw.getcfi(dbg) : NULL;
	long n = dcfi ? debug_frame_starts(elf, &starts) : -ENOENT;
	if (n >= 0)
		rows_of(b, dcfi, starts, (size_t)n);
	free(starts);
	if (dbg)
		dw.dwarf_end(dbg);
	return n;
}

/* the separate debug file of the file open at fd, by its build-id under
 * debug_dir (DEBUG_DIR/.build-id/xx/rest.debug), checked to carry the
 * same build-id: an fd, or -1 */
static int debug_file(int fd, const char *debug_dir)
{
	unsigned char id[64], id2[64];
	size_t len = 0, len2 = 0;
	char path[4096];
	if (rs_elf_build_id_fd(fd, id, sizeof(id), &len) || len < 2)
		return -1;
	int n = snprintf(path, sizeof(path), "%s/.build-id/%02x/", debug_dir, id[0]);
	for (size_t i = 1; i < len && n < (int)sizeof(path) - 8; i++)
		n += snprintf(path + n, sizeof(path) - (size_t)n, "%02x", id[i]);
	snprintf(path + n, sizeof(path) - (size_t)n, ".debug");
	int dfd = open(path, O_RDONLY | O_CLOEXEC);
	if (dfd >= 0 && (rs_elf_build_id_fd(dfd, id2, sizeof(id2), &len2) || len2 != len ||
			 memcmp(id, id2, len))) {
		close(dfd);
		dfd = -1;
	}
	return dfd;
}

static int build(int fd, const char *debug_dir, const atomic_bool *stop, struct hcfi_rows *out,
		 char *err, size_t errlen)
{
	memset(out, 0, sizeof(*out));
	if (cfi_load()) {
		rs_set_err(err, errlen, "call-frame information needs libdw (Debian: libdw1)");
		return -ENOSYS;
	}
	elf_version(EV_CURRENT);
	Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		if (elf)
			elf_end(elf);
		rs_set_err(err, errlen, "not an ELF file");
		return -ENOEXEC;
	}
	read_loads(elf, out);
	struct builder b = {.out = out, .stop = stop};
	uint64_t *starts = NULL;
	int rc = 0;
	Dwarf_CFI *cfi = dw.getcfi_elf(elf);
	long n = cfi ? hdr_starts(elf, &starts) : -ENOENT;
	if (n >= 0) {
		out->source = ".eh_frame";
		rows_of(&b, cfi, starts, (size_t)n);
	}
	if (cfi)
		dw.cfi_end(cfi);
	free(starts);
	/* no .eh_frame (or no table of it): .debug_frame, in the file or in
	 * its separate debug file (the same addresses) */
	if (n < 0 && (n = from_debug_frame(&b, elf)) >= 0)
		out->source = ".debug_frame";
	int dfd = n < 0 ? debug_file(fd, debug_dir ? debug_dir : "/usr/lib/debug") : -1;
	if (dfd >= 0) {
		Elf *delf = elf_begin(dfd, ELF_C_READ_MMAP, NULL);
		if (delf && elf_kind(delf) == ELF_K_ELF && (n = from_debug_frame(&b, delf)) >= 0)
			out->source = ".debug_frame of its debug file";
		if (delf)
			elf_end(delf);
		close(dfd);
	}
	elf_end(elf);
	if (b.cancelled) {
		rs_set_err(err, errlen, "not read: sonde is ending");
		rc = -ECANCELED;
	} else if (b.failed) {
		rs_set_err(err, errlen, "its unwind rows do not fit (%s)", b.why);
		rc = -E2BIG;
	} else if (n < 0 || !out->n) {
		rs_set_err(err, errlen, "no call-frame information (.eh_frame or .debug_frame)");
		rc = -ENOENT;
	}
	if (rc) {
		free(out->rows);
		out->rows = NULL;
		out->n = 0;
	}
	return rc;
}

int hcfi_build_in(int fd, const char *debug_dir, struct hcfi_rows *out, char *err, size_t errlen)
{
	return build(fd, debug_dir, NULL, out, err, errlen);
}

int hcfi_build(int fd, struct hcfi_rows *out, char *err, size_t errlen)
{
	return build(fd, NULL, NULL, out, err, errlen);
}

int hcfi_build_until(int fd, const atomic_bool *stop, struct hcfi_rows *out, char *err,
		     size_t errlen)
{
	return build(fd, NULL, stop, out, err, errlen);
}

void hcfi_free(struct hcfi_rows *r)
{
	free(r->rows);
	r->rows = NULL;
	r->n = 0;
}

int hcfi_exec_delta(const struct hcfi_rows *r, int64_t *delta)
{
	for (int i = 0; i < r->nloads; i++)
		if (r->loads[i].flags & PF_X) {
			*delta = (int64_t)(r->loads[i].vaddr - r->loads[i].offset);
			return 0;
		}
	return -ENOENT;
}
