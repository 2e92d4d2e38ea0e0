/*
 * patch.c - hooking a function's entry in the running process.
 *
 * The first instructions of the function (at least 5 bytes) move into a
 * stub near it, and a `jmp rel32` to the stub takes their place:
 *
 *   stub: push r11; movabs r11, SITE; call [sa_tramp_enter]; pop r11
 *         <the displaced instructions, relocated>; jmp [func + N]
 *
 * Relocation (capstone decodes): RIP-relative operands get a displacement
 * for their new address; jmp/jcc/call rel8/rel32 become absolute forms.
 * A hook is refused, never installed unsafely, when the function is
 * shorter than the jump, when a displaced instruction cannot move (loop,
 * jrcxz, a breakpoint someone else put there), when any direct branch in
 * the function lands inside the displaced bytes, or when the stub cannot
 * be placed within ±2 GiB of the function.
 *
 * The jump is written with one atomic store (8 or 16 aligned bytes), so a
 * thread sees either the old entry or the new one.  Removing a hook
 * restores the original bytes the same way; stubs are never freed, so a
 * thread still inside one (or returning through one) finishes normally.
 */
#include "agent/agent_int.h"

#include <capstone/capstone.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define PATCH_LEN	5
#define CHUNK		(64 * 1024)
#define STUB_MAX	256
#define NEAR		((int64_t)1 << 31)

struct chunk {
	uint8_t *base;
	size_t used;
};
static struct chunk chunks[64];
static int nchunks;

static int refuse(char *why, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, n, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

static bool near(uint64_t a, uint64_t b)
{
	int64_t d = (int64_t)(a - b);
	return d > -NEAR + CHUNK && d < NEAR - CHUNK;
}

/* a free gap in the address space within reach of addr (from /proc/self/maps) */
static uint8_t *map_near(uint64_t addr)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	static char buf[1 << 16];
	uint64_t prev_end = 0x10000, best = 0;
	size_t have = 0;
	ssize_t r;
	bool done = false;
	while (!done) {
		r = read(fd, buf + have, sizeof(buf) - 1 - have);
		if (r <= 0)
			break;
		have += (size_t)r;
		buf[have] = 0;
		char *line = buf, *nl;
		while ((nl = strchr(line, '\n'))) {
			unsigned long lo, hi;
			if (sscanf(line, "%lx-%lx", &lo, &hi) == 2) {
				/* the gap [prev_end, lo): take the end nearest addr */
				if (lo > prev_end && lo - prev_end >= CHUNK) {
					uint64_t cand = prev_end > addr ? prev_end : lo - CHUNK;
					if (near(cand, addr) && (!best || (cand > addr ? cand - addr : addr - cand) <
								     (best > addr ? best - addr : addr - best)))
						best = cand;
				}
				prev_end = hi;
			}
			line = nl + 1;
		}
		have = strlen(line);
		memmove(buf, line, have);
		if (prev_end > addr + NEAR)
			done = true;
	}
	close(fd);
	if (!best)
		return NULL;
	void *p = mmap((void *)best, CHUNK, PROT_READ | PROT_WRITE | PROT_EXEC,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	return p == MAP_FAILED ? NULL : p;
}

static uint8_t *stub_alloc(uint64_t addr)
{
	for (int i = 0; i < nchunks; i++)
		if (chunks[i].used + STUB_MAX <= CHUNK && near((uint64_t)chunks[i].base, addr)) {
			uint8_t *p = chunks[i].base + chunks[i].used;
			chunks[i].used += STUB_MAX;
			return p;
		}
	if (nchunks == (int)(sizeof(chunks) / sizeof(chunks[0])))
		return NULL;
	uint8_t *base = map_near(addr);
	if (!base)
		return NULL;
	chunks[nchunks].base = base;
	chunks[nchunks].used = STUB_MAX;
	nchunks++;
	return base;
}

static void put_abs_jmp(uint8_t **o, uint64_t target)
{
	uint8_t *p = *o;
	p[0] = 0xff, p[1] = 0x25, p[2] = p[3] = p[4] = p[5] = 0;	/* jmp [rip+0] */
	memcpy(p + 6, &target, 8);
	*o = p + 14;
}

static bool is_jcc(const uint8_t *b, int len, int *cc)
{
	if (len == 2 && b[0] >= 0x70 && b[0] <= 0x7f) {
		*cc = b[0] & 0xf;
		return true;
	}
	if (len == 6 && b[0] == 0x0f && b[1] >= 0x80 && b[1] <= 0x8f) {
		*cc = b[1] & 0xf;
		return true;
	}
	return false;
}

/* copy insn to *o as it must read at its new address */
static int relocate(csh cs, cs_insn *in, uint8_t **o, uint64_t lo, uint64_t hi, char *why, size_t wn)
{
	cs_x86 *x = &in->detail->x86;
	uint8_t *p = *o;
	bool rel = cs_insn_group(cs, in, CS_GRP_BRANCH_RELATIVE) ||
		   in->id == X86_INS_CALL || in->id == X86_INS_JMP;
	if (in->id == X86_INS_SYSCALL || in->id == X86_INS_SYSENTER)
		return refuse(why, wn, "'%s' cannot be displaced (threads blocked in it return into it)",
			      in->mnemonic);
	if (in->bytes[0] == 0xcc || in->id == X86_INS_INT3) {
		refuse(why, wn, "a breakpoint is already at +0x%lx (a debugger, or a kernel uprobe: do not "
		       "mix kernel and user probes on one function)", (unsigned long)(in->address - lo));
		return -EBUSY;
	}
	if (rel && x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
		uint64_t target = (uint64_t)x->operands[0].imm;
		int cc;
		if (target > lo && target < hi)
			return refuse(why, wn, "'%s %s' jumps inside the bytes the hook replaces", in->mnemonic,
				      in->op_str);
		if (in->id == X86_INS_JMP) {
			put_abs_jmp(&p, target);
		} else if (in->id == X86_INS_CALL) {
			/* call [rip+2]; jmp +8; .quad target */
			uint8_t c[] = {0xff, 0x15, 2, 0, 0, 0, 0xeb, 8};
			memcpy(p, c, sizeof(c));
			memcpy(p + sizeof(c), &target, 8);
			p += sizeof(c) + 8;
		} else if (is_jcc(in->bytes, in->size, &cc)) {
			p[0] = (uint8_t)(0x70 | (cc ^ 1));	/* the opposite condition skips... */
			p[1] = 14;
			p += 2;
			put_abs_jmp(&p, target);		/* ...the jump to the target */
		} else {
			return refuse(why, wn, "'%s' cannot be moved out of the function", in->mnemonic);
		}
		*o = p;
		return 0;
	}
	memcpy(p, in->bytes, in->size);
	for (int i = 0; i < x->op_count; i++) {
		cs_x86_op *op = &x->operands[i];
		if (op->type != X86_OP_MEM || op->mem.base != X86_REG_RIP)
			continue;
		if (x->encoding.disp_offset == 0 || x->encoding.disp_size != 4)
			return refuse(why, wn, "'%s %s' has a RIP-relative operand capstone cannot place",
				      in->mnemonic, in->op_str);
		uint64_t target = in->address + in->size + (uint64_t)op->mem.disp;
		int64_t nd = (int64_t)(target - ((uint64_t)p + in->size));
		if (nd != (int32_t)nd)
			return refuse(why, wn, "the stub is out of reach of '%s %s'", in->mnemonic, in->op_str);
		int32_t d32 = (int32_t)nd;
		memcpy(p + x->encoding.disp_offset, &d32, 4);
	}
	*o = p + in->size;
	return 0;
}

/* every direct branch in [addr, addr+size) must land outside (addr, addr+n) */
static int scan_branches(csh cs, uint64_t addr, uint64_t size, uint64_t n, char *why, size_t wn)
{
	cs_insn *in = cs_malloc(cs);
	const uint8_t *code = (const uint8_t *)addr;
	size_t left = size;
	uint64_t pc = addr;
	int rc = 0;
	while (left && rc == 0) {
		if (!cs_disasm_iter(cs, &code, &left, &pc, in)) {
			/* padding or data at the end of the symbol: stop there */
			if (pc - addr >= n)
				break;
			rc = refuse(why, wn, "cannot decode the instruction at +0x%lx", (unsigned long)(pc - addr));
			break;
		}
		cs_x86 *x = &in->detail->x86;
		if ((cs_insn_group(cs, in, CS_GRP_JUMP) || cs_insn_group(cs, in, CS_GRP_CALL)) &&
		    x->op_count == 1 && x->operands[0].type == X86_OP_IMM) {
			uint64_t t = (uint64_t)x->operands[0].imm;
			if (t > addr && t < addr + n)
				rc = refuse(why, wn, "the branch at +0x%lx lands inside the bytes the hook replaces",
					    (unsigned long)(in->address - addr));
		}
	}
	cs_free(in, 1);
	return rc;
}

static int write_atomic(uint8_t *at, int width, const uint8_t *bytes)
{
	uintptr_t page = (uintptr_t)at & ~(uintptr_t)4095;
	size_t len = ((uintptr_t)at + (size_t)width - page + 4095) & ~(size_t)4095;
	if (mprotect((void *)page, len, PROT_READ | PROT_WRITE | PROT_EXEC))
		return -errno;
	if (width == 8) {
		uint64_t v;
		memcpy(&v, bytes, 8);
		__atomic_store_n((uint64_t *)at, v, __ATOMIC_SEQ_CST);
	} else {
		uint64_t lo, hi, olo, ohi;
		memcpy(&lo, bytes, 8), memcpy(&hi, bytes + 8, 8);
		memcpy(&olo, at, 8), memcpy(&ohi, at + 8, 8);
		/* cmpxchg16b: the only 16-byte atomic store; retried until the
		 * expected value is the current one (nobody else writes here) */
		uint8_t ok;
		do {
			__asm__ volatile("lock cmpxchg16b %1; sete %0"
					 : "=q"(ok), "+m"(*(volatile __int128 *)at), "+a"(olo), "+d"(ohi)
					 : "b"(lo), "c"(hi)
					 : "memory", "cc");
		} while (!ok);
	}
	mprotect((void *)page, len, PROT_READ | PROT_EXEC);
	return 0;
}

static int write_entry(struct sa_hook *h, const uint8_t *bytes)
{
	int rc = write_atomic((uint8_t *)h->at, h->width, bytes);
	if (rc == 0)
		__atomic_store_n(&h->installed, true, __ATOMIC_RELEASE);
	return rc;
}

int sa_patch_install(struct sa_hook *h, uint64_t addr, uint64_t size, void *site, char *why, size_t wn)
{
	memset(h, 0, sizeof(*h));
	h->addr = addr;
	if (size && size < PATCH_LEN)
		return refuse(why, wn, "the function is %lu bytes, too short for a %d-byte jump", (unsigned long)size,
			      PATCH_LEN);
	/* the jump must go in with one atomic store */
	if ((addr & 7) + PATCH_LEN <= 8)
		h->width = 8, h->at = addr & ~7ull;
	else if ((addr & 15) + PATCH_LEN <= 16)
		h->width = 16, h->at = addr & ~15ull;
	else
		return refuse(why, wn, "the entry at 0x%lx straddles 16 bytes: no atomic patch", (unsigned long)addr);

	csh cs;
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &cs) != CS_ERR_OK)
		return refuse(why, wn, "capstone cannot open x86-64");
	cs_option(cs, CS_OPT_DETAIL, CS_OPT_ON);
	int rc = 0;
	uint8_t *stub = stub_alloc(addr);
	if (!stub) {
		rc = refuse(why, wn, "no memory within 2 GiB of 0x%lx for the hook's stub", (unsigned long)addr);
		goto out;
	}
	/* which instructions move: whole ones covering PATCH_LEN bytes */
	cs_insn *in = cs_malloc(cs);
	const uint8_t *code = (const uint8_t *)addr;
	size_t left = 64;
	uint64_t pc = addr;
	uint8_t *o = stub;
	static const uint8_t head[] = {0x41, 0x53, 0x49, 0xbb};	/* push r11; movabs r11, */
	memcpy(o, head, sizeof(head));
	memcpy(o + 4, &site, 8);
	o += 12;
	uint8_t *call = o;	/* call [rip+X], X patched once the stub's end is known */
	o[0] = 0xff, o[1] = 0x15;
	o += 6;
	o[0] = 0x41, o[1] = 0x5b;	/* pop r11 */
	o += 2;
	uint64_t n = 0;
	while (n < PATCH_LEN) {
		if (h->ninsn == (int)sizeof(h->off)) {
			rc = refuse(why, wn, "too many instructions in the first %d bytes", PATCH_LEN);
			break;
		}
		h->off[h->ninsn] = (uint8_t)n;
		h->stub_off[h->ninsn++] = (uint8_t)(o - stub);
		if (!cs_disasm_iter(cs, &code, &left, &pc, in)) {
			rc = refuse(why, wn, "cannot decode the instruction at +0x%lx", (unsigned long)n);
			break;
		}
		if ((rc = relocate(cs, in, &o, addr, addr + PATCH_LEN, why, wn)))
			break;
		n += in->size;
		/* without a size, what follows a ret or jmp may be another function */
		if (!size && n < PATCH_LEN && (in->id == X86_INS_RET || in->id == X86_INS_JMP)) {
			rc = refuse(why, wn, "the function ends after %lu bytes, too short for a %d-byte jump",
				    (unsigned long)n, PATCH_LEN);
			break;
		}
	}
	cs_free(in, 1);
	if (rc)
		goto out;
	if (size && n > size) {
		rc = refuse(why, wn, "the function is %lu bytes; its first instructions take %lu", (unsigned long)size,
			    (unsigned long)n);
		goto out;
	}
	if (size && (rc = scan_branches(cs, addr, size, n, why, wn)))
		goto out;
	put_abs_jmp(&o, addr + n);
	uint64_t tramp = (uint64_t)sa_tramp_enter;
	int32_t d = (int32_t)(o - (call + 6));
	memcpy(call + 2, &d, 4);
	memcpy(o, &tramp, 8);
	o += 8;
	__builtin___clear_cache((char *)stub, (char *)o);

	h->stub = stub;
	h->len = (int)n;
	memcpy(h->orig, (void *)h->at, (size_t)h->width);
	uint8_t patched[16];
	memcpy(patched, h->orig, (size_t)h->width);
	uint8_t *j = patched + (addr - h->at);
	int32_t rel = (int32_t)((int64_t)stub - (int64_t)(addr + 5));
	j[0] = 0xe9;
	memcpy(j + 1, &rel, 4);
	if ((rc = sa_write_stopped(h, write_entry, patched)))
		refuse(why, wn, "cannot write the entry: %s", strerror(-rc));
out:
	cs_close(&cs);
	return rc;
}

int sa_patch_remove(struct sa_hook *h)
{
	if (!h->installed)
		return 0;
	int rc = write_atomic((uint8_t *)h->at, h->width, h->orig);
	if (rc == 0)
		h->installed = false;
	return rc;
}
