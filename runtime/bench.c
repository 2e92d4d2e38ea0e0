/*
 * bench.c - bench:NAME probes under --bench (--mode bench), as the newest
 * bpftrace runs them: after BEGIN, each bench probe in source order is run
 * by the kernel (BPF_PROG_TEST_RUN) `repeat` times, the count raised until
 * the runs take a millisecond in all (x1000 below 1 us, x100 below 10 us,
 * x10 below 100 us, then x2), and its row says the average time of one run
 * and the count; then END, the maps, and the run ends.  What a bench probe
 * prints is dropped; one that returns non-zero is skipped.  Its program is
 * an XDP program (sema's provider row): the kernel repeats and times
 * those, not the raw_tp programs BEGIN and END are.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "runtime/rt_int.h"

int rt_attach_bench(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
		    int *count)
{
	if (rt->o->bench)
		(*count)++;
	return 0;
}

int rt_bench_run(struct rt *rt)
{
	int n = 0;
	for (int i = 0; i < rt->obj->nprogs; i++)
		for (int j = 0; j < rt->obj->progs[i].nattach; j++)
			n += rt_prog_attach(&rt->obj->progs[i], j)->type == PT_BENCH;
	const char **names = arena_new_array(rt->perm, const char *, (size_t)n + 1);
	int *fds = arena_new_array(rt->perm, int, (size_t)n + 1);
	int k = 0;
	for (int i = 0; i < rt->obj->nprogs; i++)
		for (int j = 0; j < rt->obj->progs[i].nattach; j++) {
			const struct sema_attach *at = rt_prog_attach(&rt->obj->progs[i], j);
			if (at->type != PT_BENCH)
				continue;
			names[k] = at->func;
			fds[k++] = bpf_program__fd(bpf_object__find_program_by_name(rt->bpf,
										    rt->obj->progs[i].name));
		}
	void (*row)(FILE *, const char *const *, int, int, bool, uint64_t, uint64_t) =
		rt->o->writer->benchmark ? rt->o->writer->benchmark : output_text.benchmark;
	bool shown = false;
	/* a SIGINT ends the benches (a test run returns -EINTR to it): the
	 * rows so far are printed, then END and the maps */
	for (k = 0; k < n && !rt->stop; k++) {
		uint64_t iters = 1;
		while (!rt->stop) {
			/* XDP's test run wants a packet of an Ethernet header at least */
			char data[14] = {0};
			LIBBPF_OPTS(bpf_test_run_opts, to, .data_in = data, .data_size_in = sizeof(data),
				    .repeat = (int)iters);
			int err = bpf_prog_test_run_opts(fds[k], &to);
			rt->ev.discard = true;
			rt_events_drain(rt);
			rt->ev.discard = false;
			if (rt->stop)
				break;
			if (err) {
				fprintf(stderr, "sonde: bench:%s: cannot run: %s\n", names[k], strerror(-err));
				return -1;
			}
			if (to.retval)
				break;	/* it skipped itself */
			uint64_t total = (uint64_t)to.duration * iters;
			if (total < 1000000) {
				iters *= total < 1000 ? 1000 : total < 10000 ? 100 : total < 100000 ? 10 : 2;
				if (iters <= 1000000000)
					continue;
			}
			row(rt->o->out, names, n, k, !shown, to.duration, iters);
			shown = true;
			break;
		}
	}
	/* a bench probe's dropped output may have filled the ring: that is
	 * not a loss the run reports */
	rt->ev.lost_reported = rt_lost_events(rt);
	return 0;
}
