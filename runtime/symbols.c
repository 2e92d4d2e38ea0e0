/*
 * symbols.c - the values that are resolved in userspace at print time:
 * ustack/kstack, usym/ksym, buf, ntop, strftime; join() events; and
 * reading a process's mappings while it still lives.
 *
 * The BPF side stores only numbers: a stack id (with the pid for user
 * stacks), an address and a pid, a monotonic timestamp.  Here they meet
 * the stack maps (an index by id, read on first need), /proc/kallsyms (ksyms.h) and the per-process ELF
 * symbol cache (host/symcache.c: PIE, shared libraries and containers
 * through /proc/PID/maps and map_files).  User stack frames recorded by
 * build-id are named through runtime/exited.c.  A process that exits
 * before the maps are printed can no longer be read, so the first
 * ustack/usym of each pid sends EV_PID_SEEN and rt_prime_pid() reads its
 * mappings and opens its files right away (runtime/procstate.c keeps
 * them until the process is gone and its stacks were printed).
 * That is a race a process of a few milliseconds can win, so a -c child
 * is also traced (ptrace, PTRACE_O_TRACEEXIT) when the script symbolizes
 * user addresses: it stops on its way out with its memory still mapped,
 * sonde reads it, and lets it go.
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <sys/ptrace.h>
#include <sys/wait.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/host.h"
#include "host/python.h"
#include "host/dwarf.h"
#include "common/settings.h"
#include "output/output.h"

#define STACK_MAX 127
#define STACK_DEPTH_MAX 1024
/* a pystack key (stdlib/python.c) is 1 + 2 * STACK_MAX words: within a
 * ustack key's STACK_MAX * CG_USTACK_FRAME bytes */
_Static_assert((1 + 2 * STACK_MAX) * 8 <= STACK_MAX * CG_USTACK_FRAME, "pystack key size");

struct rs_symcache *rt_symcache(struct rt *rt)
{
	if (!rt->sym.cache)
		rt->sym.cache = rs_symcache_new();
	return rt->sym.cache;
}

struct ksyms *rt_kernel_syms(struct rt *rt)
{
	static bool failed;	/* one run per process: do not re-read a refused kallsyms */
	if (!rt->sym.ksyms && !failed) {
		rt->sym.ksyms = ksyms_load();
		if (!rt->sym.ksyms) {
			failed = true;
			diag_warnf("cannot read kernel symbols from /proc/kallsyms: %s\n",
				strerror(errno));
		}
	}
	return rt->sym.ksyms;
}

/* an unresolved address prints as a C pointer does: "0", "0x7f..." */
static const char *pointer(struct rt *rt, uint64_t addr)
{
	return addr ? arena_printf(rt->a, "0x%" PRIx64, addr) : "0";
}

static const char *ksym(struct rt *rt, uint64_t addr)
{
	struct ksyms *ks = rt_kernel_syms(rt);
	const char *name = ks ? ksyms_lookup_any(ks, addr, NULL) : NULL;
	return name ? name : pointer(rt, addr);
}

static const char *usym(struct rt *rt, uint64_t addr, int pid)
{
	struct rs_usym u;
	struct rs_symcache *c = rt_symcache(rt);
	/* printed: its mappings stay while a map holds it (procstate) */
	rt_ps_touch(rt, pid);
	if (c && !rs_usym(c, pid, addr, &u) && u.name)
		return vf_demangle(rt->a, u.name);
	return pointer(rt, addr);
}

/* ---- stacks: the id -> frames index of each stack map ----------------------- */

/* one stack map (stdlib/stacks.c: frames -> id), read into an index by id */
struct stack_table {
	char kind;		/* 'u' or 'k', as the map's name */
	uint32_t depth;
	uint32_t fsize;		/* bytes a frame: 8 (an address) or CG_USTACK_FRAME */
	int fd;
	bool by_id;		/* a STACK_TRACE map (before 5.11): id -> frames itself */
	uint8_t one[STACK_MAX * CG_USTACK_FRAME];	/* by_id: the last stack read */
	size_t n, cap;
	uint32_t *ids;
	/* the frames each stack has (not the zeros after them: a stack map
	 * of new processes' address frames is mostly zeros), one after the
	 * other; stack i's are at off[i], nfr[i] of them */
	uint8_t *frames;
	size_t used, fcap;
	size_t *off;
	uint16_t *nfr;
	uint32_t *slot;		/* open addressing by id: index + 1, 0 empty */
	size_t nslot;
};

struct rt_stacks {
	struct stack_table t[16];
	int n;
};

static uint32_t id_hash(uint32_t id)
{
	return id * 2654435761u;
}

static long table_find(const struct stack_table *st, uint32_t id)
{
	if (!st->nslot)
		return -1;
	for (size_t i = id_hash(id) & (st->nslot - 1);; i = (i + 1) & (st->nslot - 1)) {
		if (!st->slot[i])
			return -1;
		if (st->ids[st->slot[i] - 1] == id)
			return (long)st->slot[i] - 1;
	}
}

static int table_add(struct stack_table *st, uint32_t id, const uint8_t *frames)
{
	static const uint8_t zero[8];
	uint32_t nf = 0;
	while (nf < st->depth && memcmp(frames + (size_t)nf * st->fsize, zero, 8))
		nf++;
	size_t bytes = (size_t)nf * st->fsize;
	if (st->n + 1 > st->cap) {
		size_t cap = st->cap ? st->cap * 2 : 256;
		uint32_t *ids = realloc(st->ids, cap * sizeof(*ids));
		if (!ids)
			return -ENOMEM;
		st->ids = ids;
		size_t *off = realloc(st->off, cap * sizeof(*off));
		if (!off)
			return -ENOMEM;
		st->off = off;
		uint16_t *nfr = realloc(st->nfr, cap * sizeof(*nfr));
		if (!nfr)
			return -ENOMEM;
		st->nfr = nfr;
		st->cap = cap;
	}
	if (st->used + bytes > st->fcap) {
		size_t fcap = st->fcap ? st->fcap * 2 : 64 * 1024;
		while (fcap < st->used + bytes)
			fcap *= 2;
		uint8_t *fr = realloc(st->frames, fcap);
		if (!fr)
			return -ENOMEM;
		st->frames = fr;
		st->fcap = fcap;
	}
	if ((st->n + 1) * 2 > st->nslot) {	/* at most half full */
		size_t nslot = st->nslot ? st->nslot * 2 : 512;
		uint32_t *slot = calloc(nslot, sizeof(*slot));
		if (!slot)
			return -ENOMEM;
		free(st->slot);
		st->slot = slot;
		st->nslot = nslot;
		for (size_t k = 0; k < st->n; k++) {
			size_t i = id_hash(st->ids[k]) & (nslot - 1);
			while (slot[i])
				i = (i + 1) & (nslot - 1);
			slot[i] = (uint32_t)k + 1;
		}
	}
	st->ids[st->n] = id;
	st->off[st->n] = st->used;
	st->nfr[st->n] = (uint16_t)nf;
	memcpy(st->frames + st->used, frames, bytes);
	st->used += bytes;
	size_t i = id_hash(id) & (st->nslot - 1);
	while (st->slot[i])
		i = (i + 1) & (st->nslot - 1);
	st->slot[i] = (uint32_t)++st->n;
	return 0;
}

/* add the map's stacks not yet in the index (ids are never reused) */
static void table_scan(struct stack_table *st)
{
	uint8_t key[STACK_MAX * CG_USTACK_FRAME], next[STACK_MAX * CG_USTACK_FRAME];
	uint32_t id;
	void *prev = NULL;
	while (!bpf_map_get_next_key(st->fd, prev, next)) {
		memcpy(key, next, st->depth * st->fsize);
		prev = key;
		if (!bpf_map_lookup_elem(st->fd, key, &id) && table_find(st, id) < 0 &&
		    table_add(st, id, key))
			return;
	}
}

static struct stack_table *stack_table(struct rt *rt, char kind, uint32_t depth)
{
	if (!rt->sym.stack_index && !(rt->sym.stack_index = calloc(1, sizeof(*rt->sym.stack_index))))
		return NULL;
	struct rt_stacks *s = rt->sym.stack_index;
	for (int i = 0; i < s->n; i++)
		if (s->t[i].kind == kind && s->t[i].depth == depth)
			return &s->t[i];
	char name[32];
	snprintf(name, sizeof(name), CG_STACK_MAP_FMT, kind, depth);
	int fd = bpf_object__find_map_fd_by_name(rt->bpf, name);
	if (fd < 0 || s->n == (int)(sizeof(s->t) / sizeof(s->t[0])))
		return NULL;
	struct bpf_map_info info = {0};
	uint32_t len = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &len))
		return NULL;
	bool by_id = info.type == BPF_MAP_TYPE_STACK_TRACE;
	uint32_t fsize = (by_id ? info.value_size : info.key_size) == depth * CG_USTACK_FRAME
				 ? CG_USTACK_FRAME : 8;
	s->t[s->n] = (struct stack_table){.kind = kind, .depth = depth, .fsize = fsize, .fd = fd,
					  .by_id = by_id};
	return &s->t[s->n++];
}

/* the frames of stack id (*nfr of them, or up to the first zero one;
 * *fsize bytes each), or NULL */
static const uint8_t *stack_ips(struct rt *rt, char kind, uint32_t depth, uint32_t id,
				uint32_t *fsize, uint32_t *nfr)
{
	struct stack_table *st = stack_table(rt, kind, depth);
	if (!st)
		return NULL;
	*fsize = st->fsize;
	*nfr = depth;
	if (st->by_id)
		return bpf_map_lookup_elem(st->fd, &id, st->one) ? NULL : st->one;
	long i = table_find(st, id);
	if (i < 0) {	/* a stack seen since the last scan */
		table_scan(st);
		i = table_find(st, id);
	}
	if (i < 0)
		return NULL;
	*nfr = st->nfr[i];
	return st->frames + st->off[i];
}

/* the words of Python stack id ({pid, (code, instr) x n}, *nw of them)
 * from the map of the bucket that holds it (py_bucket), or NULL */
static const uint64_t *py_stack_ips(struct rt *rt, uint32_t depth, uint32_t id, uint32_t *nw,
				    uint32_t *kw)
{
	bool big = host_feature(HF_BIG_KEYS);
	for (int scan = 0; scan < 2; scan++)	/* a stack seen since the last scan */
		for (unsigned b = 0; py_bucket(depth, big, b); b++) {
			struct stack_table *st = stack_table(rt, 'p', 1 + 2 * py_bucket(depth, big, b));
			if (!st)
				continue;
			if (scan)
				table_scan(st);
			long i = table_find(st, id);
			if (i >= 0) {
				/* its key's words; a map of fewer frames than
				 * depth holds whole chains only (UINT32_MAX) */
				uint32_t bk = py_bucket(depth, big, b);
				*nw = st->nfr[i];
				*kw = bk < depth ? UINT32_MAX : 1 + 2 * bk;
				return (const uint64_t *)(st->frames + st->off[i]);
			}
		}
	return NULL;
}

static void stacks_free(struct rt *rt)
{
	if (!rt->sym.stack_index)
		return;
	for (int i = 0; i < rt->sym.stack_index->n; i++) {
		free(rt->sym.stack_index->t[i].ids);
		free(rt->sym.stack_index->t[i].frames);
		free(rt->sym.stack_index->t[i].off);
		free(rt->sym.stack_index->t[i].nfr);
		free(rt->sym.stack_index->t[i].slot);
	}
	free(rt->sym.stack_index);
	rt->sym.stack_index = NULL;
}

void rt_symbols_free(struct rt *rt)
{
	if (rt->sym.cache)
		rs_symcache_free(rt->sym.cache);
	stacks_free(rt);
	if (rt->sym.ksyms)
		ksyms_free(rt->sym.ksyms);
}

void rt_stacks_report_lost(struct rt *rt)
{
	int fd = bpf_object__find_map_fd_by_name(rt->bpf, CG_SCRATCH_PREFIX CG_STACK_LOST_MAP);
	uint64_t lost = rt_percpu_sum(rt, fd, 0);
	if (lost)
		diag_warnf("%llu stack%s lost (printed as empty stacks): a stack map was full (it holds "
			   "%u distinct stacks, each of pystack's maps by depth %u)%s\n", (unsigned long long)lost,
			   lost == 1 ? " was" : "s were", CG_STACK_MAP_ENTRIES, PY_STACK_MAP_ENTRIES,
			   host_feature(HF_BIG_KEYS) ? "" : ", or two stacks collided in it (a kernel "
			   "before 5.11 keeps user stacks deeper than 16 frames in a STACK_TRACE map)");
}

/* how the frames of a stack of type t print (Python frames print as
 * Python frames whatever the mode) */
static enum vf_stack_mode vf_mode(const struct type *t)
{
	switch (t->stack_mode) {
	case 1: return VF_STACK_PERF;
	case 2: return VF_STACK_RAW;
	case STACK_MODE_PYTHON: return VF_STACK_PYTHON;
	default: return VF_STACK_BPFTRACE;	/* 0, STACK_MODE_MIXED */
	}
}

/* show_debug_info: frame n (named, in a file) gets its source file:line,
 * and the functions inlined at its address become frames of their own
 * before it, innermost first, as the newest bpftrace prints them; vaddr is
 * the address in the file's own layout.  A caller's frame (ret) holds a
 * return address, the instruction after the call: its line and inlined
 * functions are those of the call, the byte before (as gdb and eu-stack
 * read them), or a call at the end of an inlined function would show
 * neither.  The index of the function's frame (n, or past the inlined
 * ones). */
static int debug_frames(struct rt *rt, struct vf_frame *f, int n, uint64_t vaddr, bool ret)
{
	if (ret && vaddr)
		vaddr--;
	if (!f[n].sym || !f[n].module)
		return n;
	struct hdw_srcframe sf[16];
	int room = STACK_DEPTH_MAX - n;
	int k = hdw_srcframes(f[n].module, vaddr, sf, room < 16 ? room : 16);
	if (k <= 0)
		return n;
	struct vf_frame fn = f[n];
	for (int j = 0; j < k; j++) {
		const char *src = arena_printf(rt->a, "%s:%u", sf[j].file, sf[j].line);
		if (!sf[j].name) {	/* the function itself: the last */
			fn.src = src;
			break;
		}
		f[n++] = (struct vf_frame){.addr = fn.addr, .sym = vf_demangle(rt->a, sf[j].name),
					   .module = fn.module, .inl = true, .src = src};
	}
	if (n >= STACK_DEPTH_MAX)
		return STACK_DEPTH_MAX - 1;
	f[n] = fn;
	return n;
}

/* the frames of a stack value {id, pid}, resolved; the count, 0 when
 * there is no stack (none of that kind here, or lost) */
static int stack_frames(struct rt *rt, const struct type *t, uint64_t v, struct vf_frame *f)
{
	bool user = t->kind == TY_USTACK;
	int32_t id = (int32_t)(uint32_t)v;
	int pid = (int)((v >> 32) & CG_STACK_PID_MASK);
	uint32_t depth = t->count ? t->count : STACK_MAX;
	uint32_t fsize = 8, nfr = 0;
	if (t->stack_mode == STACK_MODE_PYTHON) {	/* {pid, (code, instr) x depth} */
		uint32_t kw;
		const uint64_t *w = id < 0 || depth > STACK_MAX ? NULL
								 : py_stack_ips(rt, depth, (uint32_t)id, &nfr, &kw);
		return w ? rt_py_frames(rt, w, nfr, f) : 0;
	}
	uint32_t pyid = 0;
	if (t->stack_mode == STACK_MODE_MIXED) {	/* {native id, Python stack id} */
		const uint8_t *k = id < 0 ? NULL : stack_ips(rt, 'm', 1, (uint32_t)id, &fsize, &nfr);
		if (!k)
			return 0;
		uint64_t ids = 0;	/* both 0: kept as no frames */
		if (nfr)
			memcpy(&ids, k, 8);
		id = (int32_t)(uint32_t)ids;
		pyid = (uint32_t)(ids >> 32);
	}
	/* < 0: no stack of that kind here (-EFAULT: kstack in a uprobe), or
	 * one the full map had no room for (counted: rt_stacks_report_lost) */
	nfr = 0;
	const uint8_t *fr = id < 0 || depth > STACK_MAX
				    ? NULL
				    : stack_ips(rt, user ? 'u' : 'k', depth, (uint32_t)id, &fsize, &nfr);
	if (!fr && t->stack_mode != STACK_MODE_MIXED)
		return 0;
	if (user && pid)
		rt_ps_touch(rt, pid);
	int n = 0;
	/* raw mode prints an address a frame, as bpftrace: nothing to add */
	bool dbg = user && settings_int(SET_SHOW_DEBUG_INFO) && vf_mode(t) != VF_STACK_RAW;
	for (uint32_t i = 0; fr && i < nfr && n < STACK_DEPTH_MAX; i++, n++) {
		uint64_t ip;
		if (fsize == CG_USTACK_FRAME) {
			int k = rt_ustack_bid_frame(rt, fr + i * fsize, &f[n], &ip);
			if (k <= 0)	/* the end */
				break;
			if (k == 1) {	/* a build-id frame, named or not */
				if (dbg)	/* its addr is the file's own address */
					n = debug_frames(rt, f, n, f[n].addr, i > 0);
				continue;
			}
		} else {
			memcpy(&ip, fr + i * fsize, 8);
			if (!ip)
				break;
		}
		f[n] = (struct vf_frame){.addr = ip};
		if (user) {
			struct rs_usym u;
			struct rs_symcache *c = rt_symcache(rt);
			if (c && !rs_usym(c, pid, ip, &u) && u.name) {
				f[n].sym = vf_demangle(rt->a, u.name);
				f[n].off = u.off;
			}
			if (c)	/* an address without a symbol may lie in a file */
				f[n].module = u.file;
			if (c && dbg)
				n = debug_frames(rt, f, n, u.vaddr, i > 0);
		} else {
			struct ksyms *ks = rt_kernel_syms(rt);
			f[n].sym = ks ? ksyms_lookup(ks, ip, &f[n].off) : NULL;
		}
	}
	if (t->stack_mode == STACK_MODE_MIXED) {
		uint32_t pd = PY_MIXED_DEPTH(host_feature(HF_BIG_KEYS)), nw = 0;
		uint32_t kw = 0;
		const uint64_t *w = py_stack_ips(rt, pd, pyid, &nw, &kw);
		n = rt_py_mixed(rt, w, nw, kw, f, n, STACK_DEPTH_MAX);
	}
	return n;
}

/* ustack(build_id): "<build-id> 0x<offset>" a frame, the address of one
 * without a build-id, as the newest bpftrace prints them (no indent) */
static const char *build_id_stack(struct rt *rt, const struct type *t, uint64_t v)
{
	int32_t id = (int32_t)(uint32_t)v;
	uint32_t depth = t->count ? t->count : STACK_MAX, fsize = 8, nfr = 0;
	const uint8_t *fr = id < 0 || depth > STACK_MAX
				    ? NULL
				    : stack_ips(rt, 'u', depth, (uint32_t)id, &fsize, &nfr);
	if (!fr || !nfr)
		return "";
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return "";
	fputc('\n', m);
	for (uint32_t i = 0; i < nfr; i++) {
		if (fsize != CG_USTACK_FRAME) {
			uint64_t ip;
			memcpy(&ip, fr + i * fsize, 8);
			if (!ip)
				break;
			fprintf(m, "%" PRIx64 "\n", ip);
			continue;
		}
		struct bpf_stack_build_id b;
		memcpy(&b, fr + i * fsize, sizeof(b));
		if (b.status == BPF_STACK_BUILD_ID_EMPTY)
			break;
		if (b.status != BPF_STACK_BUILD_ID_VALID) {
			fprintf(m, "%" PRIx64 "\n", (uint64_t)b.ip);
			continue;
		}
		for (size_t j = 0; j < sizeof(b.build_id); j++)
			fprintf(m, "%02x", b.build_id[j]);
		fprintf(m, " 0x%02" PRIx64 "\n", (uint64_t)b.offset);
	}
	fclose(m);
	const char *r = arena_strndup(rt->a, buf, len);
	free(buf);
	return r;
}

static const char *stack(struct rt *rt, const struct type *t, uint64_t v)
{
	if (t->kind == TY_USTACK && t->stack_mode == STACK_MODE_BUILD_ID)
		return build_id_stack(rt, t, v);
	struct vf_frame f[STACK_DEPTH_MAX];
	int n = stack_frames(rt, t, v, f);
	return vf_stack(rt->a, f, n, vf_mode(t), rt->render_in_key ? 4 : 8,
			t->kind == TY_USTACK);
}

const struct pr_stack *rt_stack_frames(struct rt *rt, const struct type *t, const uint8_t *p)
{
	uint64_t v;
	memcpy(&v, p, 8);
	struct vf_frame f[STACK_DEPTH_MAX];
	int n = stack_frames(rt, t, v, f);
	bool user = t->kind == TY_USTACK;
	struct pr_stack *s = arena_new_obj(rt->a, struct pr_stack);
	struct pr_frame *pf = arena_new_array(rt->a, struct pr_frame, n ? n : 1);
	for (int i = 0; i < n; i++)
		pf[i] = f[i].py ? (struct pr_frame){
			.line = vf_frame_line(rt->a, &f[i], VF_STACK_PYTHON, true),
			.func = arena_printf(rt->a, "%s (%s)", f[i].sym ? f[i].sym : "[unknown]",
					     f[i].module ? f[i].module : "[unknown]"),
			.module = f[i].module, .file = f[i].module, .addr = f[i].addr, .named = true,
			.pyname = f[i].sym ? f[i].sym : "[unknown]", .lineno = (uint32_t)f[i].off,
		} : (struct pr_frame){
			.line = vf_frame_line(rt->a, &f[i], vf_mode(t), user),
			.func = f[i].sym ? arena_strdup(rt->a, f[i].sym)
					 : arena_printf(rt->a, "0x%" PRIx64, f[i].addr),
			.module = f[i].sym && f[i].module ? arena_strdup(rt->a, f[i].module) : NULL,
			.file = f[i].module ? arena_strdup(rt->a, f[i].module) : NULL,
			.addr = f[i].addr,
			.named = f[i].sym != NULL,
		};
	*s = (struct pr_stack){.frames = pf, .n = n, .kernel = !user};
	return s;
}

const char *rt_render_extra(struct rt *rt, const struct type *t, const uint8_t *p)
{
	/* render.c's switch sends only these kinds here */
	uint64_t v, w;
	memcpy(&v, p, 8);
	if (t->kind == TY_KSYM)
		return ksym(rt, v);
	if (t->kind == TY_USYM) {	/* {address, pid} */
		memcpy(&w, p + 8, 8);
		return usym(rt, v, (int)w);
	}
	if (t->kind == TY_USTACK || t->kind == TY_KSTACK)
		return stack(rt, t, v);
	if (t->kind == TY_BUF) {	/* {length, bytes} */
		uint64_t cap = t->size > 8 ? t->size - 8 : 0;
		return vf_buf(rt->a, p + 8, v < cap ? v : cap);
	}
	if (t->kind == TY_INET)	/* {family, address} */
		return vf_inet(rt->a, v, p + 8);
	if (t->kind == TY_TIMESTAMP) {
		if (!rt->sym.clocks_read) {
			clock_gettime(CLOCK_REALTIME, &rt->sym.clock_real);
			clock_gettime(CLOCK_MONOTONIC, &rt->sym.clock_mono);
			rt->sym.clocks_read = true;
		}
		struct timespec wall = vf_mono_to_wall(v, &rt->sym.clock_real, &rt->sym.clock_mono);
		return vf_strftime(rt->a, t->fmt ? t->fmt : "%H:%M:%S", &wall, false);
	}
	return "";
}

/* join(argv, sep): {u64 count, char slot[count][CG_JOIN_ARG_SIZE]} */
void rt_join_event(struct rt *rt, const struct sema_event *ev, const uint8_t *args, size_t len)
{
	uint64_t n;
	if (len < 8)
		return;
	memcpy(&n, args, 8);
	char *buf = NULL;
	size_t blen = 0;
	FILE *m = open_memstream(&buf, &blen);
	if (!m)
		return;
	for (uint64_t i = 0; i < n && i < CG_JOIN_ARGS; i++) {
		size_t off = 8 + i * CG_JOIN_ARG_SIZE;
		if (off >= len)
			break;
		size_t room = len - off < CG_JOIN_ARG_SIZE ? len - off : CG_JOIN_ARG_SIZE;
		if (i)
			fputs(ev->fmt ? ev->fmt : " ", m);
		fwrite(args + off, 1, strnlen((const char *)args + off, room), m);
	}
	fclose(m);
	rt->o->writer->join(rt->o->out, buf, blen);
	free(buf);
}

void rt_prime_pid(struct rt *rt, int pid)
{
	struct rs_symcache *c = rt_symcache(rt);
	if (c && pid > 0)
		rs_symcache_capture(c, pid);
}

/* ---- the -c child --------------------------------------------------------- */

void rt_child_trace(struct rt *rt)
{
	/* "pids_seen" exists when the script has ustack or usym (stacks.c);
	 * rt->py when it has pystack (its code objects are read at the exit) */
	if (!rt->o->child_pid || (!bpf_object__find_map_by_name(rt->bpf, "pids_seen") && !rt->py))
		return;
	if (ptrace(PTRACE_SEIZE, rt->o->child_pid, 0,
		   (void *)(long)(PTRACE_O_TRACEEXIT | PTRACE_O_EXITKILL))) {
		if (rt->o->verbose)
			fprintf(stderr, "sonde: cannot trace the child (%m): its symbols may be lost if it exits first\n");
		return;
	}
	rt->sym.child_traced = true;
}

pid_t rt_child_wait(struct rt *rt, int *status, bool block)
{
	int pid = rt->o->child_pid;
	for (;;) {
		int st;
		pid_t p = waitpid(pid, &st, block ? 0 : WNOHANG);
		if (p < 0 && errno == EINTR && block)
			continue;
		if (p <= 0 || !rt->sym.child_traced || !WIFSTOPPED(st)) {
			if (p > 0)
				*status = st;
			return p;
		}
		/* a ptrace stop, not an exit: handle it and look again */
		int event = st >> 16;
		if (event == PTRACE_EVENT_EXIT) {
			rt_prime_pid(rt, pid);
			rt_py_at_exit(rt);
			ptrace(PTRACE_CONT, pid, 0, 0);
		} else if (event == PTRACE_EVENT_STOP) {
			ptrace(PTRACE_LISTEN, pid, 0, 0);	/* a group stop stays one */
		} else {
			ptrace(PTRACE_CONT, pid, 0, (void *)(long)WSTOPSIG(st));
		}
	}
}
