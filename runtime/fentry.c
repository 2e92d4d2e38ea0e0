/*
 * fentry.c - attaching fentry and fexit programs (kfunc, kretfunc).
 *
 * Each program was loaded for one kernel function: libbpf found the
 * function's BTF id from the program's section (fentry/FUNC), in vmlinux
 * or a module, and the kernel built the trampoline that calls it.
 * Attaching is one BPF link, no perf event and no kernel probe.
 */
#include "runtime/rt_int.h"

#include <errno.h>
#include <string.h>

int rt_attach_fentry(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
		     int *count)
{
	struct bpf_link *l = bpf_program__attach_trace(prog);
	if (!l && at->func && (errno == EOPNOTSUPP || errno == 524)) {
		fprintf(stderr, "sonde: %s: this kernel cannot attach fentry/fexit programs (no BPF "
			"trampoline): kprobe:%s and kretprobe:%s probe the same function\n", at->name,
			at->func, at->func);
		return -EOPNOTSUPP;
	}
	return rt_keep_link(rt, at, l, count);
}
