/*
 * tracepoint.c - attaching tracepoints and raw tracepoints, through libbpf.
 */
#include "runtime/rt_int.h"

int rt_attach_tracepoint(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
			 int *count)
{
	return rt_keep_link(rt, at, bpf_program__attach_tracepoint(prog, at->target, at->func), count);
}

int rt_attach_raw_tracepoint(struct rt *rt, struct bpf_program *prog,
			     const struct sema_attach *at, int *count)
{
	return rt_keep_link(rt, at, bpf_program__attach_raw_tracepoint(prog, at->func), count);
}
