/*
 * perf.c - attaching perf-event probes: interval, profile, software and
 * hardware.  interval fires once per period machine-wide (one CPU), the
 * others on every online CPU.
 */
#include "runtime/rt_int.h"

#include <errno.h>
#include <linux/perf_event.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/host.h"

static int perf_open(struct perf_event_attr *attr, int cpu)
{
	return (int)syscall(SYS_perf_event_open, attr, -1, cpu, -1, PERF_FLAG_FD_CLOEXEC);
}

static int attach_perf(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at)
{
	struct perf_event_attr attr = {.size = sizeof(attr), .type = PERF_TYPE_SOFTWARE};
	int first = 0, last = rt->ncpus - 1;
	/* interval, profile: the CPU clock at a period or a frequency;
	 * software: the named event every COUNT occurrences */
	if (at->type == PT_SOFTWARE) {
		const struct tfs_swevent *sw = tfs_software_event(at->target);
		attr.config = sw ? sw->config : PERF_COUNT_SW_CPU_CLOCK;
		attr.sample_period = at->count;
	} else if (at->type == PT_HARDWARE) {
		/* hardware: a CPU performance counter every COUNT events */
		const struct tfs_swevent *hw = tfs_hardware_event(at->target);
		attr.type = PERF_TYPE_HARDWARE;
		attr.config = hw ? hw->config : PERF_COUNT_HW_CPU_CYCLES;
		attr.sample_period = at->count;
	} else {
		attr.config = PERF_COUNT_SW_CPU_CLOCK;
		if (at->freq) {
			attr.freq = 1;
			attr.sample_freq = at->freq;
		} else {
			attr.sample_period = at->period_ns;
		}
		/* an interval fires once per period machine-wide: one CPU */
		if (at->type == PT_INTERVAL)
			last = 0;
	}
	int attached = 0;
	for (int cpu = first; cpu <= last; cpu++) {
		int fd = perf_open(&attr, cpu);
		if (fd < 0 && at->type == PT_HARDWARE && !tfs_have_pmu() &&
		    (errno == ENOENT || errno == ENODEV || errno == EOPNOTSUPP)) {
			fprintf(stderr, "sonde: %s: this machine has no hardware performance counters "
				"(no PMU: virtual machines often have none); software:cpu-clock or "
				"profile:hz:N sample without one\n", at->name);
			return -ENODEV;
		}
		if (fd < 0) {
			if (errno == ENODEV || errno == ENOENT)
				continue;	/* offline CPU */
			int err = -errno;
			fprintf(stderr, "sonde: %s: perf_event_open on CPU %d: %s\n", at->name, cpu,
				strerror(errno));
			return err;
		}
		struct bpf_link *l = bpf_program__attach_perf_event(prog, fd);
		if (!l) {
			int err = -errno;
			close(fd);
			fprintf(stderr, "sonde: %s: cannot attach: %s\n", at->name, strerror(-err));
			return err;
		}
		rt_add_link(rt, l);
		attached++;
	}
	return attached ? 0 : -ENODEV;
}

int rt_attach_perf(struct rt *rt, struct bpf_program *prog,
		   const struct sema_attach *at, int *count)
{
	int rc = attach_perf(rt, prog, at);
	if (!rc)
		(*count)++;
	return rc;
}
