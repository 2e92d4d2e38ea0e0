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
 * kernel's uapi gives it (host_umulti_link, beside the feature probe).  A program must be loaded with the expected
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

#define UMULTI_ATTACH_TYPE HOST_UMULTI_ATTACH_TYPE

int rt_umulti_link(int prog_fd, const char *path, const uint64_t *offsets,
		   const uint64_t *cookies, uint32_t n, int pid, bool retprobe)
{
	return host_umulti_link(prog_fd, path, offsets, cookies, n, pid, retprobe);
}

/* host/features.c asks the kernel, once */
bool rt_umulti_supported(void)
{
	return host_feature(HF_UPROBE_MULTI);
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
