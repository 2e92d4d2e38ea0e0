/*
 * base.c - the bottom of runtime/, for every other file: the monotonic
 * clock the run is timed by, and the sum of a per-CPU counter (the lost
 * events, full maps and lost stacks that BPF counts per CPU).
 */
#include "runtime/rt_int.h"

#include <stdlib.h>
#include <time.h>

#include <bpf/bpf.h>

uint64_t rt_mono_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

uint64_t rt_percpu_sum(const struct rt *rt, int fd, uint32_t key)
{
	uint64_t sum = 0, *v = fd >= 0 ? calloc((size_t)rt->ncpus, 8) : NULL;
	if (v && !bpf_map_lookup_elem(fd, &key, v))
		for (int c = 0; c < rt->ncpus; c++)
			sum += v[c];
	free(v);
	return sum;
}
