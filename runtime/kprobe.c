/*
 * kprobe.c - attaching kprobes and kretprobes.
 */
#include "runtime/rt_int.h"

#include <errno.h>

int rt_attach_kprobe(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
		     int *count)
{
	struct bpf_link *l = bpf_program__attach_kprobe(prog, at->type == PT_KRETPROBE, at->func);
	if (!l && errno == ENOENT) {
		fprintf(stderr, "sonde: %s: no kernel function '%s' can be probed\n", at->name,
			at->func);
		return -ENOENT;
	}
	return rt_keep_link(rt, at, l, count);
}
