/*
 * features.c - what the running kernel's BPF accepts, asked once.
 *
 * sonde uses BPF features that came in different kernels: BPF cookies
 * (5.15), bpf_map_lookup_percpu_elem (5.19), multi-uprobe links (6.6) and
 * more.  Each row of the table below is asked of the kernel itself by
 * loading a tiny program (or creating a tiny map or link) the way sonde
 * would use the feature, never by the version number: distributions
 * backport features and leave others out of their configuration.  A
 * probe runs on the first question about its row and the answer is kept
 * for the process.  sema turns a missing feature into a located error
 * (sema/maps.c, stdlib/process.c), the runtime into a fallback
 * (runtime/run.c), `--info` prints the table.  An answer the kernel does
 * not give (no privilege to load BPF: `--emit` as a user) is HF_UNKNOWN,
 * which nothing treats as missing.
 *
 * SONDE_NO_FEATURES=cookie,percpu_lookup,... makes the named rows "no",
 * so each fallback can be seen on a kernel that has the feature.
 */
#include "host/host.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

/* ---- instructions of the probe programs ------------------------------------ */
#define INSN(c, d, s, o, i) ((struct bpf_insn){.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)})
#define MOV_IMM(d, i) INSN(BPF_ALU64 | BPF_MOV | BPF_K, d, 0, 0, i)
#define MOV_REG(d, s) INSN(BPF_ALU64 | BPF_MOV | BPF_X, d, s, 0, 0)
#define ADD_IMM(d, i) INSN(BPF_ALU64 | BPF_ADD | BPF_K, d, 0, 0, i)
#define LDX_DW(d, s, o) INSN(BPF_LDX | BPF_MEM | BPF_DW, d, s, o, 0)
#define ST_W(d, o, i) INSN(BPF_ST | BPF_MEM | BPF_W, d, 0, o, i)
#define ST_DW(d, o, i) INSN(BPF_ST | BPF_MEM | BPF_DW, d, 0, o, i)
#define CALL(f) INSN(BPF_JMP | BPF_CALL, 0, 0, 0, f)
#define EXIT() INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0)
#define LD_MAP_FD(d, fd) INSN(BPF_LD | BPF_DW | BPF_IMM, d, BPF_PSEUDO_MAP_FD, 0, fd), INSN(0, 0, 0, 0, 0)

static int load(enum bpf_prog_type type, const struct bpf_insn *insns, size_t n,
		const struct bpf_prog_load_opts *opts)
{
	int fd = bpf_prog_load(type, "sonde_feature", "GPL", insns, n, opts);
	return fd < 0 ? -errno : fd;
}

/* may this process load BPF at all: a trivial kprobe program */
static bool may_load(void)
{
	static int known = -1;
	if (known < 0) {
		struct bpf_insn p[] = {MOV_IMM(BPF_REG_0, 0), EXIT()};
		int fd = load(BPF_PROG_TYPE_KPROBE, p, 2, NULL);
		known = fd >= 0 || (fd != -EPERM && fd != -EACCES);
		if (fd >= 0)
			close(fd);
	}
	return known;
}

/* 1: the program loaded; 0: refused; -1: no answer (no privilege: a
 * kernel that refuses one program type to root says EPERM too) */
static int loaded(int fd)
{
	if (fd >= 0) {
		close(fd);
		return 1;
	}
	return may_load() ? 0 : -1;
}

/* a kprobe-type program that calls helper fn(ctx, arg2) */
static int probe_kprobe_helper(int fn, int arg2)
{
	struct bpf_insn p[] = {MOV_IMM(BPF_REG_2, arg2), CALL(fn), MOV_IMM(BPF_REG_0, 0), EXIT()};
	return loaded(load(BPF_PROG_TYPE_KPROBE, p, sizeof(p) / sizeof(p[0]), NULL));
}

static int probe_btf(void)
{
	return host_kernel_btf() ? 1 : 0;
}

static int probe_ringbuf(void)
{
	int fd = bpf_map_create(BPF_MAP_TYPE_RINGBUF, NULL, 0, 0, 4096, NULL);
	return loaded(fd < 0 ? -errno : fd);
}

/* bpf_get_attach_cookie (and so the perf link that carries a cookie) */
static int probe_cookie(void)
{
	return probe_kprobe_helper(BPF_FUNC_get_attach_cookie, 0);
}

/* bpf_get_current_ancestor_cgroup_id(1) in a kprobe-type program (5.10
 * has it only in cgroup programs) */
static int probe_ancestor_cgroup(void)
{
	struct bpf_insn p[] = {MOV_IMM(BPF_REG_1, 1), CALL(BPF_FUNC_get_current_ancestor_cgroup_id),
			       MOV_IMM(BPF_REG_0, 0), EXIT()};
	return loaded(load(BPF_PROG_TYPE_KPROBE, p, sizeof(p) / sizeof(p[0]), NULL));
}

/* bpf_map_lookup_percpu_elem(&map, &key, cpu 0) on a per-CPU array */
static int probe_percpu_lookup(void)
{
	int m = bpf_map_create(BPF_MAP_TYPE_PERCPU_ARRAY, NULL, 4, 8, 1, NULL);
	if (m < 0)
		return loaded(-errno);
	struct bpf_insn p[] = {
		ST_W(BPF_REG_10, -4, 0), MOV_REG(BPF_REG_2, BPF_REG_10), ADD_IMM(BPF_REG_2, -4),
		LD_MAP_FD(BPF_REG_1, m), MOV_IMM(BPF_REG_3, 0), CALL(BPF_FUNC_map_lookup_percpu_elem),
		MOV_IMM(BPF_REG_0, 0), EXIT(),
	};
	int r = loaded(load(BPF_PROG_TYPE_KPROBE, p, sizeof(p) / sizeof(p[0]), NULL));
	close(m);
	return r;
}

/* a helper libbpf can ask the verifier about (one with a callback, which
 * a raw call cannot be made to accept without one) */
static int probe_for_each(void)
{
	int r = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_for_each_map_elem, NULL);
	return r > 0 ? 1 : r == 0 ? 0 : may_load() ? 0 : -1;
}

static int probe_loop(void)
{
	int r = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_loop, NULL);
	return r > 0 ? 1 : r == 0 ? 0 : may_load() ? 0 : -1;
}

static int probe_override_return(void)
{
	return probe_kprobe_helper(BPF_FUNC_override_return, 0);
}

/* the BTF id of a kernel function, or 0 */
static int kernel_func_id(const char *name)
{
	const struct btf *b = host_kernel_btf();
	int id = host_btf_func_id(b, name);
	return id > 0 ? id : 0;
}

enum host_answer host_kfunc_allowed(const char *name, const char *section)
{
	int id = kernel_func_id(name), vfs = kernel_func_id("vfs_read");
	enum bpf_prog_type type;
	enum bpf_attach_type attach;
	if (!id)
		return HF_NO;
	if (libbpf_prog_type_by_name(section, &type, &attach))
		return HF_UNKNOWN;
	/* its arguments are zeros: the verifier looks up the kfunc's
	 * permission for the program type before it checks them */
	struct bpf_insn p[] = {MOV_IMM(BPF_REG_1, 0), MOV_IMM(BPF_REG_2, 0), MOV_IMM(BPF_REG_3, 0),
			       MOV_IMM(BPF_REG_4, 0), MOV_IMM(BPF_REG_5, 0),
			       INSN(BPF_JMP | BPF_CALL, 0, BPF_PSEUDO_KFUNC_CALL, 0, id),
			       MOV_IMM(BPF_REG_0, 0), EXIT()};
	char log[4096] = "";
	LIBBPF_OPTS(bpf_prog_load_opts, o, .log_buf = log, .log_size = sizeof(log), .log_level = 1);
	if (type == BPF_PROG_TYPE_TRACING) {
		o.expected_attach_type = attach;
		o.attach_btf_id = (__u32)vfs;
	}
	int fd = load(type, p, sizeof(p) / sizeof(p[0]), &o);
	if (fd >= 0) {
		close(fd);
		return HF_YES;
	}
	if (strstr(log, "is not allowed"))
		return HF_NO;
	return log[0] ? HF_YES : HF_UNKNOWN;
}

/* an fentry program on vfs_read, attached and detached at once: the load
 * alone succeeds on kernels whose trampolines cannot attach */
static int probe_fentry(void)
{
	int id = kernel_func_id("vfs_read");
	if (!id)
		return 0;
	struct bpf_insn p[] = {MOV_IMM(BPF_REG_0, 0), EXIT()};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = (__u32)id);
	int fd = load(BPF_PROG_TYPE_TRACING, p, 2, &o);
	if (fd < 0)
		return loaded(fd);
	int l = bpf_raw_tracepoint_open(NULL, fd);
	close(fd);
	if (l < 0)
		return 0;
	close(l);
	return 1;
}

/*
 * bpf_d_path(&file->f_path, buf, 32) in fentry:filp_close, one of the
 * functions the kernel allows it in (never in a kprobe-type program).  The
 * offset of f_path comes from BTF; kernels before 6.x want the buffer
 * initialised.
 */
static int probe_d_path(void)
{
	const struct btf *b = host_kernel_btf();
	int id = kernel_func_id("filp_close");
	int file = b ? btf__find_by_name_kind(b, "file", BTF_KIND_STRUCT) : -1;
	if (!id || file <= 0)
		return 0;
	const struct btf_type *t = btf__type_by_id(b, (__u32)file);
	const struct btf_member *mb = btf_members(t);
	int off = -1;
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(b, mb[i].name_off), "f_path"))
			off = (int)(btf_member_bit_offset(t, (__u32)i) / 8);
	if (off < 0)
		return 0;
	struct bpf_insn p[] = {
		ST_DW(BPF_REG_10, -32, 0), ST_DW(BPF_REG_10, -24, 0), ST_DW(BPF_REG_10, -16, 0),
		ST_DW(BPF_REG_10, -8, 0),
		LDX_DW(BPF_REG_1, BPF_REG_1, 0), ADD_IMM(BPF_REG_1, off),
		MOV_REG(BPF_REG_2, BPF_REG_10), ADD_IMM(BPF_REG_2, -32), MOV_IMM(BPF_REG_3, 32),
		CALL(BPF_FUNC_d_path), MOV_IMM(BPF_REG_0, 0), EXIT(),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_FENTRY,
		    .attach_btf_id = (__u32)id);
	return loaded(load(BPF_PROG_TYPE_TRACING, p, sizeof(p) / sizeof(p[0]), &o));
}

/* a kprobe_multi link on one function that every kernel has */
static int probe_kprobe_multi(void)
{
	struct bpf_insn p[] = {MOV_IMM(BPF_REG_0, 0), EXIT()};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_KPROBE_MULTI);
	int fd = load(BPF_PROG_TYPE_KPROBE, p, 2, &o);
	if (fd < 0)
		return loaded(fd);
	const char *syms[] = {"do_nanosleep"};
	LIBBPF_OPTS(bpf_link_create_opts, lo, .kprobe_multi.syms = syms, .kprobe_multi.cnt = 1);
	int l = bpf_link_create(fd, 0, BPF_TRACE_KPROBE_MULTI, &lo);
	close(fd);
	if (l < 0)
		return 0;
	close(l);
	return 1;
}

/* union bpf_attr as BPF_LINK_CREATE reads it for a multi-uprobe link
 * (include/uapi/linux/bpf.h, 6.6) */
struct umulti_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t umulti_flags;
	uint32_t pid;
	uint32_t pad;
};
#define UMULTI_F_RETURN 1u	/* BPF_F_UPROBE_MULTI_RETURN */

int host_umulti_link(int prog_fd, const char *path, const uint64_t *offsets,
		     const uint64_t *cookies, uint32_t n, int pid, bool retprobe)
{
	struct umulti_attr a;
	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = HOST_UMULTI_ATTACH_TYPE;
	a.path = (uint64_t)(uintptr_t)path;
	a.offsets = (uint64_t)(uintptr_t)offsets;
	a.cookies = (uint64_t)(uintptr_t)cookies;
	a.cnt = n;
	a.umulti_flags = retprobe ? UMULTI_F_RETURN : 0;
	a.pid = pid > 0 ? (uint32_t)pid : 0;
	int fd = (int)syscall(SYS_bpf, BPF_LINK_CREATE, &a, sizeof(a));
	return fd < 0 ? -errno : fd;
}

/*
 * A two-instruction program loaded for multi-uprobe links, then a link on
 * "/": a kernel that knows the link type refuses the directory with
 * EBADF; one that does not, refuses the type (EINVAL) or the program.
 */
static int probe_uprobe_multi(void)
{
	struct bpf_insn p[] = {MOV_IMM(BPF_REG_0, 0), EXIT()};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = HOST_UMULTI_ATTACH_TYPE);
	int fd = load(BPF_PROG_TYPE_KPROBE, p, 2, &o);
	if (fd < 0)
		return loaded(fd);
	uint64_t off = 0;
	int l = host_umulti_link(fd, "/", &off, NULL, 1, 0, false);
	close(fd);
	if (l >= 0)
		close(l);
	return l >= 0 || l == -EBADF;
}

/* a hash map with a 1,016-byte key (127 stack frames): before 5.11 a key
 * had to fit the 512-byte BPF stack */
static int probe_big_keys(void)
{
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_NO_PREALLOC);
	int fd = bpf_map_create(BPF_MAP_TYPE_HASH, NULL, 1016, 4, 1, &o);
	return loaded(fd < 0 ? -errno : fd);
}

/* an atomic add that returns the old value (BPF_ATOMIC | BPF_FETCH), on a
 * stack slot: 5.10 knows only the add that returns nothing (BPF_XADD) */
static int probe_atomic_fetch(void)
{
	struct bpf_insn p[] = {
		ST_DW(BPF_REG_10, -8, 0),
		MOV_IMM(BPF_REG_1, 1),
		INSN(BPF_STX | BPF_ATOMIC | BPF_DW, BPF_REG_10, BPF_REG_1, -8, BPF_ADD | BPF_FETCH),
		MOV_IMM(BPF_REG_0, 0),
		EXIT(),
	};
	return loaded(load(BPF_PROG_TYPE_KPROBE, p, sizeof(p) / sizeof(p[0]), NULL));
}

static int probe_task_regs(void)
{
	int r = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, BPF_FUNC_task_pt_regs, NULL);
	return r > 0 ? 1 : r == 0 ? 0 : may_load() ? 0 : -1;
}

/* BPF_MAP_LOOKUP_AND_DELETE_BATCH on a per-CPU hash holding one entry:
 * what print(@m); clear(@m); reads a map with (runtime/maps.c), so that an
 * update landing meanwhile is kept for the next print */
static int probe_lookup_delete(void)
{
	int m = bpf_map_create(BPF_MAP_TYPE_PERCPU_HASH, NULL, 8, 8, 1, NULL);
	if (m < 0)
		return loaded(-errno);
	int ncpus = libbpf_num_possible_cpus();
	uint64_t key = 1, out = 0, *vals = calloc(ncpus > 0 ? (size_t)ncpus : 1, 8);
	uint32_t n = 1;
	int r = -1;
	if (vals && ncpus > 0 && !bpf_map_update_elem(m, &key, vals, BPF_ANY)) {
		int rc = bpf_map_lookup_and_delete_batch(m, NULL, &out, &key, vals, &n, NULL) ? -errno : 0;
		r = (rc == 0 || rc == -ENOENT) && n == 1 && bpf_map_lookup_elem(m, &key, vals) ? 1 : 0;
	}
	free(vals);
	close(m);
	return r;
}

/*
 * bpf_skb_output(skb, perf event array, BPF_F_CURRENT_CPU, 8 bytes) in a
 * tp_btf program on consume_skb, whose first argument the verifier types
 * as struct sk_buff * (the helper takes nothing else): skboutput() as
 * sonde loads it in a raw tracepoint.  Loaded, never attached.
 */
static int probe_skb_output(void)
{
	const struct btf *b = host_kernel_btf();
	int id = b ? btf__find_by_name_kind(b, "btf_trace_consume_skb", BTF_KIND_TYPEDEF) : -1;
	if (id <= 0)
		return b ? 0 : -1;
	int m = bpf_map_create(BPF_MAP_TYPE_PERF_EVENT_ARRAY, NULL, 4, 4, 1, NULL);
	if (m < 0)
		return loaded(-errno);
	struct bpf_insn p[] = {
		ST_DW(BPF_REG_10, -8, 0), LDX_DW(BPF_REG_1, BPF_REG_1, 0), LD_MAP_FD(BPF_REG_2, m),
		INSN(BPF_ALU | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, -1),	/* BPF_F_CURRENT_CPU */
		MOV_REG(BPF_REG_4, BPF_REG_10), ADD_IMM(BPF_REG_4, -8), MOV_IMM(BPF_REG_5, 8),
		CALL(BPF_FUNC_skb_output), MOV_IMM(BPF_REG_0, 0), EXIT(),
	};
	LIBBPF_OPTS(bpf_prog_load_opts, o, .expected_attach_type = BPF_TRACE_RAW_TP,
		    .attach_btf_id = (__u32)id);
	int r = loaded(load(BPF_PROG_TYPE_TRACING, p, sizeof(p) / sizeof(p[0]), &o));
	close(m);
	return r;
}

static const struct host_feature_def {
	const char *name;	/* in SONDE_NO_FEATURES and --info */
	const char *what;	/* in errors: "... needs WHAT (Linux SINCE)" */
	const char *since;
	int (*probe)(void);
} defs[HF__COUNT] = {
	[HF_BTF] = {"btf", "the kernel's BTF", "5.2", probe_btf},
	[HF_RINGBUF] = {"ringbuf", "the BPF ring buffer", "5.8", probe_ringbuf},
	[HF_COOKIE] = {"cookie", "BPF cookies (bpf_get_attach_cookie)", "5.15", probe_cookie},
	[HF_PERCPU_LOOKUP] = {"percpu_lookup", "bpf_map_lookup_percpu_elem", "5.19",
			      probe_percpu_lookup},
	[HF_UPROBE_MULTI] = {"uprobe_multi", "multi-uprobe links", "6.6", probe_uprobe_multi},
	[HF_KPROBE_MULTI] = {"kprobe_multi", "kprobe_multi links (fprobe)", "5.18", probe_kprobe_multi},
	[HF_FENTRY] = {"fentry", "fentry/fexit (BPF trampolines)", "5.5", probe_fentry},
	[HF_OVERRIDE_RETURN] = {"override_return", "bpf_override_return (CONFIG_BPF_KPROBE_OVERRIDE)",
				"4.16", probe_override_return},
	[HF_D_PATH] = {"d_path", "bpf_d_path (in fentry)", "5.10", probe_d_path},
	[HF_ANCESTOR_CGROUP] = {"ancestor_cgroup", "bpf_get_current_ancestor_cgroup_id in tracing programs",
				"after 5.10", probe_ancestor_cgroup},
	[HF_FOR_EACH] = {"for_each", "bpf_for_each_map_elem", "5.13", probe_for_each},
	[HF_LOOP] = {"loop", "bpf_loop", "5.17", probe_loop},
	[HF_BIG_KEYS] = {"big_keys", "hash map keys over 512 bytes", "5.11", probe_big_keys},
	[HF_ATOMIC_FETCH] = {"atomic_fetch", "atomic fetch-and-add (BPF_FETCH)", "5.12", probe_atomic_fetch},
	[HF_TASK_REGS] = {"task_regs", "bpf_task_pt_regs", "5.15", probe_task_regs},
	[HF_LOOKUP_DELETE] = {"lookup_delete", "BPF_MAP_LOOKUP_AND_DELETE_BATCH on hash maps", "5.6",
			      probe_lookup_delete},
	[HF_SKB_OUTPUT] = {"skboutput", "bpf_skb_output in tp_btf programs", "5.5", probe_skb_output},
};

static int answers[HF__COUNT];	/* 0: not asked yet; else enum host_answer + 1 */

/* is name in the comma-separated list */
static bool listed(const char *list, const char *name)
{
	size_t n = strlen(name);
	for (const char *p = list; p && *p;) {
		const char *e = strchr(p, ',');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		if (len == n && !strncmp(p, name, n))
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

enum host_answer host_feature_answer(enum host_feature f)
{
	if (!answers[f]) {
		int r;
		if (listed(getenv("SONDE_NO_FEATURES"), defs[f].name))
			r = 0;
		else
			r = defs[f].probe();
		answers[f] = (r > 0 ? HF_YES : r == 0 ? HF_NO : HF_UNKNOWN) + 1;
	}
	return (enum host_answer)(answers[f] - 1);
}

bool host_feature(enum host_feature f)
{
	return host_feature_answer(f) != HF_NO;
}

const char *host_feature_name(enum host_feature f)
{
	return defs[f].name;
}

const char *host_feature_what(enum host_feature f)
{
	return defs[f].what;
}

const char *host_feature_since(enum host_feature f)
{
	return defs[f].since;
}
