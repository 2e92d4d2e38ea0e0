/*
 * umulti.c - multi-uprobe links: every site of one probe in one file
 * attached (and detached) by one BPF link.
 *
 * A classic uprobe is a perf event per site, and closing each one makes
 * the kernel wait for a grace period of its own: 100 uprobes took 7-12 s
 * to detach.  A BPF_TRACE_UPROBE_MULTI link (Linux 6.6) registers a whole
 * set of offsets in one call and unregisters them with one wait.  libbpf
 * 1.1 predates it, and so do the uapi headers this builds against (6.1), so
 * the link is created with the bpf() syscall directly, in the layout the
 * kernel's uapi gives it.  A program must be loaded with the expected
 * attach type BPF_TRACE_UPROBE_MULTI to use such a link, and then cannot
 * use a classic one, so the choice is made once, before loading, by
 * asking the kernel (rt_umulti_supported).
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

/* from the kernel's uapi (include/uapi/linux/bpf.h, 6.6) */
#define UMULTI_ATTACH_TYPE 48	/* BPF_TRACE_UPROBE_MULTI */
#define UMULTI_F_RETURN 1u	/* BPF_F_UPROBE_MULTI_RETURN */

/* union bpf_attr as BPF_LINK_CREATE reads it for a multi-uprobe link */
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

int rt_umulti_link(int prog_fd, const char *path, const uint64_t *offsets,
		   const uint64_t *cookies, uint32_t n, int pid, bool retprobe)
{
	struct umulti_attr a;
	memset(&a, 0, sizeof(a));
	a.prog_fd = (uint32_t)prog_fd;
	a.attach_type = UMULTI_ATTACH_TYPE;
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
 * Does this kernel have multi-uprobe links?  A two-instruction program
 * loaded for them, then a link on "/": a kernel that knows the link type
 * refuses the directory with EBADF; one that does not, refuses the type
 * (EINVAL) or the program.
 */
static bool probe_kernel(void)
{
	struct bpf_insn insns[2];
	memset(insns, 0, sizeof(insns));
	insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;	/* r0 = 0 */
	insns[1].code = BPF_JMP | BPF_EXIT;
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = UMULTI_ATTACH_TYPE);
	int pfd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "sonde_umulti", "GPL", insns, 2, &po);
	if (pfd < 0)
		return false;
	uint64_t off = 0;
	int lfd = rt_umulti_link(pfd, "/", &off, NULL, 1, 0, false);
	close(pfd);
	if (lfd >= 0) {
		close(lfd);
		return true;
	}
	return lfd == -EBADF;
}

bool rt_umulti_supported(void)
{
	static int known = -1;
	if (known < 0)
		known = probe_kernel();
	return known;
}

/* uprobes and uretprobes use the multi link; USDT probes keep the
 * classic one, which counts their semaphores up and down */
static bool wants_multi(const struct cg_prog *p)
{
	for (int j = 0; j < p->nattach; j++) {
		enum probe_type t = p->probe->attach[p->first_attach + j].type;
		if (t != PT_UPROBE && t != PT_URETPROBE)
			return false;
	}
	return p->nattach > 0;
}

void rt_umulti_prepare(struct rt *rt)
{
	if (getenv("SONDE_NO_UPROBE_MULTI"))
		return;
	/* the kernel is asked only when the script has uprobes */
	for (int i = 0; i < rt->obj->nprogs; i++) {
		const struct cg_prog *p = &rt->obj->progs[i];
		struct bpf_program *prog = bpf_object__find_program_by_name(rt->bpf, p->name);
		if (prog && wants_multi(p) && rt_umulti_supported())
			bpf_program__set_expected_attach_type(prog, UMULTI_ATTACH_TYPE);
	}
}

enum bpf_attach_type rt_umulti_attach_type(void)
{
	return (enum bpf_attach_type)UMULTI_ATTACH_TYPE;
}

bool rt_umulti_prog(const struct bpf_program *prog)
{
	return bpf_program__expected_attach_type(prog) == (enum bpf_attach_type)UMULTI_ATTACH_TYPE;
}
