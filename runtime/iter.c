/*
 * iter.c - iter:NAME probes (BPF iterators), as the newest bpftrace runs
 * them: the program is attached as an iterator link, and once BEGIN has
 * run sonde creates an iterator from it and reads it to its end; the
 * kernel runs the program once per object (each task for iter:task, then
 * once more with none) in sonde's own task, so `pid` and `comm` are
 * sonde's.  Then END runs and the maps print: the run ends there.
 */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "runtime/rt_int.h"

int rt_attach_iter(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
		   int *count)
{
	struct bpf_link *l = bpf_program__attach_iter(prog, NULL);
	if (!l) {
		int err = -errno;
		fprintf(stderr, "sonde: %s: cannot attach the iterator: %s\n", at->name, strerror(-err));
		return err;
	}
	rt->iter_link_fd = bpf_link__fd(l);
	return rt_keep_link(rt, at, l, count);
}

int rt_iter_run(struct rt *rt)
{
	int fd = bpf_iter_create(rt->iter_link_fd);
	if (fd < 0) {
		fprintf(stderr, "sonde: cannot open the iterator: %s\n", strerror(errno));
		return -1;
	}
	/* what the program writes to the iterator's own file (seq_printf,
	 * which sonde does not emit) would be here; reading runs it */
	char buf[4096];
	ssize_t n;
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, (size_t)n, rt->o->out);
	int err = n < 0 ? -errno : 0;
	close(fd);
	if (err)
		fprintf(stderr, "sonde: reading the iterator: %s\n", strerror(-err));
	rt_events_drain(rt);
	return err ? -1 : 0;
}
