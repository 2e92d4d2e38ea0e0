/*
 * tracepoint.c - attaching tracepoints and raw tracepoints, through libbpf.
 *
 * A raw tracepoint's program reads its arguments straight from the
 * context, and the kernel checks the reads against the arguments the
 * tracepoint passes only at attach time (EINVAL).  sema refuses an argN
 * past them where the kernel's BTF tells; the rest is said here (S0105).
 */
#include "runtime/rt_int.h"

#include <errno.h>
#include <string.h>

#include "common/explain.h"

int rt_attach_tracepoint(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
			 int *count)
{
	return rt_keep_link(rt, at, bpf_program__attach_tracepoint(prog, at->target, at->func), count);
}

int rt_attach_raw_tracepoint(struct rt *rt, struct bpf_program *prog,
			     const struct sema_attach *at, int *count)
{
	struct bpf_link *l = bpf_program__attach_raw_tracepoint(prog, at->func);
	if (!l && errno == EINVAL) {	/* sema checks argN where BTF says */
		const struct explain *x = explain_get(EX_MEMORY);
		fprintf(stderr, "sonde: %s: %s: it reads an argument this raw tracepoint does not "
			"pass [%s]\n", at->name, x->summary, x->code);
		explain_note(stderr, x, true);
		return -EINVAL;
	}
	return rt_keep_link(rt, at, l, count);
}
