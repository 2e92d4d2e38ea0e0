/*
 * tracepoint.c - attaching tracepoints and raw tracepoints.
 *
 * A tracepoint is a perf event with the program linked to it.  Closing
 * such an event makes the kernel wait for a grace period (60-70 ms here)
 * while it holds the one mutex of all trace events, so 360 of them
 * (tracepoint:syscalls:sys_enter_*) took 25 s to detach, whatever the
 * number of threads closing them.  So sonde opens the perf event itself
 * and keeps a second descriptor of it: detaching destroys the BPF link
 * (the program stops at once) and libbpf's descriptor, which costs no
 * wait while the second one holds the event; links.c then leaves those
 * disabled events, which run nothing, to a background process to close.
 * On a kernel without perf-event BPF links (before 5.15) the program is
 * bound to the event itself, and the event is closed in place.
 *
 * A raw tracepoint's program reads its arguments straight from the
 * context, and the kernel checks the reads against the arguments the
 * tracepoint passes only at attach time (EINVAL).  sema refuses an argN
 * past them where the kernel's BTF tells; the rest is said here (S0105).
 */
#include "runtime/rt_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "common/explain.h"
#include "host/host.h"

/* the tracepoint's id in tracefs, or -1 */
static int tracepoint_id(const char *cat, const char *name)
{
	const char *root = tfs_root();
	char path[4096];
	int id = -1;
	if (!root)
		return -1;
	snprintf(path, sizeof(path), "%s/events/%s/%s/id", root, cat, name);
	FILE *f = fopen(path, "re");
	if (f && fscanf(f, "%d", &id) != 1)
		id = -1;
	if (f)
		fclose(f);
	return id;
}

int rt_attach_tracepoint(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
			 int *count)
{
	int id = tracepoint_id(at->target, at->func);
	struct perf_event_attr a = {.type = PERF_TYPE_TRACEPOINT, .size = sizeof(a),
				    .config = (uint64_t)id, .sample_period = 1, .wakeup_events = 1};
	int pfd = id < 0 ? -1 : (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	if (pfd < 0)	/* libbpf says why */
		return rt_keep_link(rt, at, bpf_program__attach_tracepoint(prog, at->target, at->func),
				    count);
	int hold = fcntl(pfd, F_DUPFD_CLOEXEC, 3);
	struct bpf_link *l = bpf_program__attach_perf_event(prog, pfd);
	if (!l) {
		int err = -errno;
		close(pfd);
		if (hold >= 0)
			close(hold);
		errno = -err;
	} else if (hold >= 0 && bpf_link__fd(l) == pfd) {
		close(hold);	/* no BPF link: the event must close to detach */
	} else if (hold >= 0) {
		rt_hold_event(rt, hold);
	}
	return rt_keep_link(rt, at, l, count);
}

int rt_attach_raw_tracepoint(struct rt *rt, struct bpf_program *prog,
			     const struct sema_attach *at, int *count)
{
	/* tp_btf (sema's btf_ctx): the tracepoint is the one it was loaded for */
	struct bpf_link *l = bpf_program__type(prog) == BPF_PROG_TYPE_TRACING
		? bpf_program__attach_trace(prog) : bpf_program__attach_raw_tracepoint(prog, at->func);
	if (!l && errno == EINVAL) {	/* sema checks argN where BTF says */
		const struct explain *x = explain_get(EX_MEMORY);
		fprintf(stderr, "sonde: %s: %s: it reads an argument this raw tracepoint does not "
			"pass [%s]\n", at->name, x->summary, x->code);
		explain_note(stderr, x, true);
		return -EINVAL;
	}
	return rt_keep_link(rt, at, l, count);
}
