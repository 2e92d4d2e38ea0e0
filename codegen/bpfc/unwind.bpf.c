/*
 * unwind.bpf.c - the user stack walker that reads call-frame information:
 * BPF C, compiled by clang to LLVM bitcode at build time (Makefile),
 * embedded in sonde and linked into a script's module when a ustack
 * unwinds with CFI (codegen/unwind.c, stdlib/stacks.c).
 *
 *   long sonde_unwind_user(void *buf, __u32 size, __u32 pid, __u32 flags)
 *
 * fills buf (size bytes) with the return addresses of the current task's
 * user stack, as bpf_get_stack(BPF_F_USER_STACK) does: frame 0 is the
 * interrupted pc, unused slots are zero; with flags UNW_RECORDS each frame
 * is a struct bpf_stack_build_id of status BPF_STACK_BUILD_ID_IP, as
 * BPF_F_USER_BUILD_ID gives a frame it has no build-id for, and with
 * UNW_BUILD_IDS too a frame in a file whose build-id user space read is
 * {BPF_STACK_BUILD_ID_VALID, build-id, file offset}, as the kernel gives
 * it (named after its process exits).  It returns the
 * bytes of frames, or UNW_UNKNOWN_FILE when records were asked for and a
 * frame's file has no rows yet.  The user registers come from the task's pt_regs
 * (bpf_task_pt_regs, 5.15), so the walk is the same in a uprobe, a
 * tracepoint or a profile sample that interrupted the kernel.
 *
 * Each frame: find the memory mapping that holds pc (bpf_find_vma, 5.17:
 * the kernel's own VMA, so a process needs no table of its own and its
 * first stack unwinds as well as its last; remembered in unw_vmas), its
 * file by (device, inode) in unw_known (filled by user space, runtime/unwind.c: one entry per
 * file, shared by every process that maps it), the file's row with the
 * largest start <= pc in its array of rows (unw_files; binary search),
 * and apply it: CFA from rsp or rbp, the return address at CFA - 8, the
 * caller's rbp where the row says (the vDSO's rows are found by a key of
 * their own).  A pc with no row (a file without CFI, JIT code, a gap
 * between FDEs) takes one frame-pointer step instead.  A file not read
 * yet is told in unw_stale (its key, the process, the address), for user
 * space to read the files that process maps; that frame takes a
 * frame-pointer step too.  One frame is one bpf_loop (5.17) iteration.
 */
#include <linux/bpf.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_helpers.h>

#include "host/cfi_abi.h"

struct rows {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);	/* each file's own size: BPF_F_INNER_MAP */
	__uint(map_flags, BPF_F_INNER_MAP);
	/* sizes, not types: BTF keeps a struct reached only through
	 * pointers as a forward declaration, which libbpf cannot size */
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(struct unw_row));
};

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY_OF_MAPS);
	__uint(max_entries, UNW_MAX_FILES);
	__type(key, __u32);
	__array(values, struct rows);
} unw_files SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, UNW_MAX_KNOWN);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(key_size, sizeof(struct unw_file_key));
	__uint(value_size, sizeof(struct unw_file));
} unw_known SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 256);
	__type(key, struct unw_file_key);
	__type(value, struct unw_stale);
} unw_stale SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, UNW_ST__COUNT);
	__type(key, __u32);
	__type(value, __u64);
} unw_stats SEC(".maps");

/* the frames as they are found (127 of them do not fit the 512-byte
 * stack): addresses, or records of 4 words (struct bpf_stack_build_id:
 * status BPF_STACK_BUILD_ID_IP in the first, the address in the last) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[UNW_MAX_FRAMES * 4]);
} unw_frames SEC(".maps");

/* zeros, to clear unw_frames with (a loop of stores becomes a memset,
 * which BPF does not have) */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64[UNW_MAX_FRAMES * 4]);
} unw_zeros SEC(".maps");

/* the kernel's types, as much as the walker reads of them: libbpf moves
 * each field to where this kernel's BTF has it (CO-RE) */
struct super_block {
	__u32 s_dev;
} __attribute__((preserve_access_index));
struct inode {
	unsigned long i_ino;
	struct super_block *i_sb;
} __attribute__((preserve_access_index));
struct file {
	struct inode *f_inode;
} __attribute__((preserve_access_index));
struct vm_area_struct {
	unsigned long vm_start, vm_end, vm_pgoff;
	struct file *vm_file;
} __attribute__((preserve_access_index));
struct mm_ctx {
	void *vdso;	/* x86's mm_context_t: where the vDSO is mapped */
} __attribute__((preserve_access_index));
struct mm_struct {
	struct mm_ctx context;
} __attribute__((preserve_access_index));
struct task_struct {
	struct mm_struct *mm;
	int tgid;
} __attribute__((preserve_access_index));

/* x86-64's struct pt_regs, the registers the walk starts from */
struct uregs {
	__u64 r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di, orig_ax, ip, cs,
		flags, sp, ss;
};

/* a mapping of the process, as bpf_find_vma found it */
struct vma {
	__u64 start, end, pgoff;
	struct unw_file_key key;	/* ino 0: no file */
};

/* The mappings found so far, by address space and 2 MiB region of the
 * address.  bpf_find_vma in an interrupt (a profile sample) leaves the
 * mmap lock's release to an irq_work, and a second call before it ran
 * fails (-EBUSY): so a sample finds one new mapping at most, and the
 * walk reads the others here.  The key holds the mm (a new one at exec)
 * and the tgid (a pid reused with a freed mm's address). */
struct vma_key {
	__u64 mm;
	__u32 tgid;
	__u32 region;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__uint(key_size, sizeof(struct vma_key));
	__uint(value_size, sizeof(struct vma));
} unw_vmas SEC(".maps");

struct walk {
	__u64 ip, sp, bp;
	__u64 *frames;
	struct vma vma;
	__u64 mm, vdso;
	__u32 tgid;
	__u32 pid;
	__u32 n, max;
	__u32 records;	/* UNW_RECORDS: 4 words a frame */
	__u32 build_ids;	/* UNW_BUILD_IDS */
	__u32 exact;	/* ip is an exact pc (frame 0, or the frame a signal interrupted) */
	__u32 stale;	/* unw_stale was told */
};

static void count(__u32 what)
{
	__u64 *c = bpf_map_lookup_elem(&unw_stats, &what);
	if (c)
		*c += 1;
}

static void mark_stale(struct walk *w, __u64 pc)
{
	struct unw_stale s = {.addr = pc, .pid = w->pid};
	if (w->stale)
		return;
	w->stale = 1;
	bpf_map_update_elem(&unw_stale, &w->vma.key, &s, BPF_NOEXIST);
}

/* The binary search runs as a bpf_loop callback too: a bounded loop whose
 * branches depend on the data is walked by the verifier once per path
 * (2^25 of them here), a callback once. */
struct search {
	void *rows;
	__u32 key;
	__u32 lo, hi;	/* the answer is lo - 1 */
};

static long vma_found(struct task_struct *task, struct vm_area_struct *vma, void *ctx)
{
	struct vma *v = ctx;
	v->start = BPF_CORE_READ(vma, vm_start);
	v->end = BPF_CORE_READ(vma, vm_end);
	v->pgoff = BPF_CORE_READ(vma, vm_pgoff);
	struct file *f = BPF_CORE_READ(vma, vm_file);
	v->key.dev = f ? BPF_CORE_READ(f, f_inode, i_sb, s_dev) : 0;
	v->key.ino = f ? BPF_CORE_READ(f, f_inode, i_ino) : 0;
	return 0;
}

static long row_halving(__u32 i, void *ctx)
{
	struct search *s = ctx;
	__u32 mid = (s->lo + s->hi) / 2;
	if (s->lo >= s->hi)
		return 1;
	struct unw_row *r = bpf_map_lookup_elem(s->rows, &mid);
	if (!r)
		return 1;
	if (r->pc <= s->key)
		s->lo = mid + 1;
	else
		s->hi = mid;
	return 0;
}

/* the row with the largest pc <= rel among the file's nrows, or NULL */
static struct unw_row *find_row(void *rows, __u32 nrows, __u32 rel)
{
	struct search s = {.rows = rows, .key = rel, .hi = nrows};
	bpf_loop(25, row_halving, &s, 0);	/* 2^24 rows: 24 halvings */
	if (!s.lo || s.lo < s.hi)
		return 0;
	__u32 at = s.lo - 1;
	return bpf_map_lookup_elem(rows, &at);
}

/* A mapping found by bpf_find_vma is remembered under each 2 MiB region
 * it spans (at most UNW_VMA_REGIONS of them, around pc): a profile sample
 * can call bpf_find_vma once (above), and a stack that met a second
 * region no sample had found took a frame-pointer step there, which in a
 * library without frame pointers ends the walk (Debian's torch service:
 * 2 to 6 % of its samples stopped inside libtorch_cpu, whose text spans
 * 40 regions).  pc's region is its own; a region it shares with another
 * mapping keeps that one's entry */
#define UNW_VMA_REGIONS 64

struct remember {
	struct vma_key key;
	struct vma vma;
	__u32 last;
};

/* the regions' loop keeps its state in per-CPU scratch, not on the stack:
 * the probe that calls the walker, the walker, its step and this share
 * 512 bytes of stack, and a probe with a ustack(python) and more keys
 * needs them (a program that lands on this CPU meanwhile, an NMI's sample,
 * may remember another mapping's regions: a region's entry is checked
 * against pc before it is used) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct remember);
} unw_remember SEC(".maps");

static long remember_region(__u32 i, void *ctx)
{
	__u32 zero = 0;
	struct remember *r = bpf_map_lookup_elem(&unw_remember, &zero);
	if (!r || r->key.region > r->last)
		return 1;
	bpf_map_update_elem(&unw_vmas, &r->key, &r->vma, BPF_NOEXIST);
	r->key.region++;
	return 0;
}

static void remember(const struct vma_key *vk, const struct vma *v)
{
	__u32 zero = 0;
	bpf_map_update_elem(&unw_vmas, vk, v, BPF_ANY);
	struct remember *r = bpf_map_lookup_elem(&unw_remember, &zero);
	if (!r)
		return;
	r->key = *vk;
	r->vma = *v;
	r->last = (__u32)((v->end - 1) >> 21);
	__u32 first = (__u32)(v->start >> 21);
	if (r->last - first >= UNW_VMA_REGIONS) {
		if (vk->region - first > UNW_VMA_REGIONS / 2)
			first = vk->region - UNW_VMA_REGIONS / 2;
		if (r->last - first >= UNW_VMA_REGIONS)
			r->last = first + UNW_VMA_REGIONS - 1;
	}
	r->key.region = first;
	bpf_loop(UNW_VMA_REGIONS, remember_region, 0, 0);
}

/* one frame-pointer step: the return address above the saved rbp */
static int fp_step(struct walk *w)
{
	__u64 pair[2];
	if (!w->bp || w->bp & 7 || w->bp < w->sp ||
	    bpf_probe_read_user(pair, sizeof(pair), (void *)w->bp))
		return -1;
	w->sp = w->bp + 16;
	w->bp = pair[0];
	w->ip = pair[1];
	w->exact = 0;
	count(UNW_ST_FP);
	return 0;
}

/* one CFI step by row r; 1: the outermost frame, -1: the walk ends */
static int cfi_step(struct walk *w, struct unw_row *r)
{
	__u64 cfa, ra;
	switch (r->kind) {
	case UNW_RSP:
		cfa = w->sp + (__s64)r->cfa_off;
		break;
	case UNW_RBP:
		cfa = w->bp + (__s64)r->cfa_off;
		break;
	case UNW_PLT:
		cfa = w->sp + 8 + ((w->ip & 15) >= (__u64)r->cfa_off ? 8 : 0);
		break;
	case UNW_SIGNAL: {
		__u64 ctx[2], bp;
		__u64 at = w->sp + (__s64)r->cfa_off;
		if (bpf_probe_read_user(ctx, sizeof(ctx), (void *)at) ||
		    bpf_probe_read_user(&bp, sizeof(bp), (void *)(w->sp + (__s64)r->rbp_off)))
			return -1;
		w->sp = ctx[0];
		w->ip = ctx[1];
		w->bp = bp;
		w->exact = 1;	/* the interrupted pc, not a return address */
		count(UNW_ST_CFI);
		return 0;
	}
	case UNW_STOP:
		return 1;
	default:
		return fp_step(w);
	}
	if (cfa <= w->sp || bpf_probe_read_user(&ra, sizeof(ra), (void *)(cfa - 8)))
		return -1;
	if (r->rbp == UNW_RBP_CFA && bpf_probe_read_user(&w->bp, sizeof(w->bp),
							  (void *)(cfa + (__s64)r->rbp_off)))
		return -1;
	w->sp = cfa;
	w->ip = ra;
	w->exact = 0;
	count(UNW_ST_CFI);
	return 0;
}

/* bpf_loop's callback: record w->ip, then find the caller's registers */
static long step(__u32 i, void *ctx)
{
	struct walk *w = ctx;
	__u32 n = w->n;
	__u64 *rec = 0;
	if (!w->ip || w->ip >> 47 || n >= w->max || n >= UNW_MAX_FRAMES)
		return 1;
	if (w->records) {
		rec = &w->frames[n * 4];	/* one pointer: its bound stays exact */
		rec[0] = BPF_STACK_BUILD_ID_IP;
		rec[3] = w->ip;
	} else {
		w->frames[n] = w->ip;
	}
	w->n = n + 1;
	/* a return address is after the call: its row is the call's */
	__u64 pc = w->exact ? w->ip : w->ip - 1;
	/* the previous frame's mapping holds it (a library's frames follow
	 * each other: libtorch_cpu's text spans 40 regions), else the
	 * mapping remembered for its region, else the kernel's */
	struct vma *v = &w->vma;
	if (!(v->start <= pc && pc < v->end)) {
		struct vma_key vk = {.mm = w->mm, .tgid = w->tgid, .region = (__u32)(pc >> 21)};
		struct vma *known = bpf_map_lookup_elem(&unw_vmas, &vk);
		if (known && known->start <= pc && pc < known->end) {
			*v = *known;
		} else {
			v->start = v->end = 0;
			if (bpf_find_vma(bpf_get_current_task_btf(), pc, vma_found, v, 0) ||
			    pc < v->start || pc >= v->end) {
				count(UNW_ST_NOVMA);
				return fp_step(w) ? 1 : 0;
			}
			remember(&vk, v);
		}
	}
	/* the vDSO: no file, rows from sonde's own image (the same kernel's) */
	if (!v->key.ino && w->vdso && v->start == w->vdso) {
		v->key.dev = UNW_VDSO_DEV;
		v->key.ino = UNW_VDSO_INO;
	}
	if (!v->key.ino) {
		count(UNW_ST_ANON);
		return fp_step(w) ? 1 : 0;
	}
	struct unw_file *f = bpf_map_lookup_elem(&unw_known, &v->key);
	if (!f) {
		count(UNW_ST_UNKNOWN);
		mark_stale(w, pc);
		return fp_step(w) ? 1 : 0;
	}
	if (rec && w->build_ids && f->has_build_id) {
		/* the kernel's offset: of the address itself, in the file */
		struct bpf_stack_build_id *b = (void *)rec;
		b->status = BPF_STACK_BUILD_ID_VALID;
		__builtin_memcpy(b->build_id, f->build_id, sizeof(b->build_id));
		b->offset = w->ip - v->start + (v->pgoff << 12);
	}
	__u32 index = f->index, nrows = f->nrows;
	__u64 rel = pc - v->start + (v->pgoff << 12) + f->delta;
	void *rows = nrows ? bpf_map_lookup_elem(&unw_files, &index) : 0;
	struct unw_row *r = rows && rel < 0xffffffffull ? find_row(rows, nrows, (__u32)rel) : 0;
	if (!r)
		return fp_step(w) ? 1 : 0;
	long rc = cfi_step(w, r);
	if (rc < 0)
		count(UNW_ST_ENDED);
	return rc ? 1 : 0;
}

/* static: the verifier checks it with its caller's arguments (a global BPF
 * function is checked alone, and a void * argument is refused there);
 * used: clang keeps it, and LLVM's linker links it in */
static __attribute__((used, noinline)) long sonde_unwind_user(void *buf, __u32 size, __u32 pid,
							       __u32 flags)
{
	__u32 zero = 0;
	struct walk w = {.pid = pid, .exact = 1, .records = flags & UNW_RECORDS,
			 .build_ids = flags & UNW_BUILD_IDS};
	__u32 frame = w.records ? 32 : 8;
	void *zeros = bpf_map_lookup_elem(&unw_zeros, &zero);
	w.frames = bpf_map_lookup_elem(&unw_frames, &zero);
	if (!w.frames || !zeros || size > UNW_MAX_FRAMES * 32)
		return -14;	/* -EFAULT, as bpf_get_stack says it */
	w.max = size / frame;
	bpf_probe_read_kernel(w.frames, size, zeros);
	count(UNW_ST_WALKS);
	struct task_struct *task = bpf_get_current_task_btf();
	void *kregs = (void *)bpf_task_pt_regs(task);
	w.mm = (__u64)BPF_CORE_READ(task, mm);
	w.vdso = (__u64)BPF_CORE_READ(task, mm, context.vdso);
	w.tgid = (__u32)BPF_CORE_READ(task, tgid);
	/* three words, not the whole struct: the caller's stack and this
	 * function's share the 512 bytes */
	if (kregs && !bpf_probe_read_kernel(&w.ip, 8, kregs + __builtin_offsetof(struct uregs, ip)) &&
	    !bpf_probe_read_kernel(&w.sp, 8, kregs + __builtin_offsetof(struct uregs, sp)) &&
	    !bpf_probe_read_kernel(&w.bp, 8, kregs + __builtin_offsetof(struct uregs, bp))) {
		bpf_loop(UNW_MAX_FRAMES, step, &w, 0);
	}
	/* build-id records (stacks named after their process exits): a
	 * frame in a file whose rows are not read yet (a process seconds
	 * old) makes the caller take the kernel's own walk, whose frames
	 * carry build-ids, so a short-lived process is still named; once the
	 * files are read, the walk is this one */
	if (w.stale && w.records)
		return UNW_UNKNOWN_FILE;
	bpf_probe_read_kernel(buf, size, w.frames);
	return (long)w.n * frame;
}
