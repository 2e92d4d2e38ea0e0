/*
 * report_limits.c - sonde diagnose's report on the limits a service runs
 * under: the CPUs it may use and its memory cgroup (read by
 * cli/diagnose_limits.c).
 *
 * Waiting for a CPU has two causes that call for opposite remedies: other
 * work on the service's CPUs (move it away, or pin the service elsewhere)
 * or the service's own threads, more of them runnable than it has CPUs
 * (it is CPU-bound: more CPUs or fewer busy threads; moving others away
 * changes nothing).  "Who ran instead" counts both, the service's own
 * processes marked, and when they held most of that time the verdict says
 * the service competes with itself.
 *
 * Major faults have two causes too: a file's pages evicted by the host's
 * memory pressure, or by the service's own memory cgroup limit, under
 * which the page cache of the files it reads is reclaimed and read back.
 * The cgroup's limit and reclaim counters are shown beside the faults, as
 * the CPU quota is beside throttling.  Pure functions of dx_report.
 */
#include <inttypes.h>
#include <string.h>

#include "common/arena.h"
#include "output/output.h"

static const char *mb(struct arena *a, int64_t bytes)
{
	return arena_printf(a, "%.1f MB", bytes / 1048576.0);
}

static const char *dur(struct arena *a, uint64_t ns)
{
	return ns >= 10000000000ull ? arena_printf(a, "%.1f s", ns / 1e9) : arena_printf(a, "%.1f ms", ns / 1e6);
}

const struct dx_memcg *dx_memcg_of(const struct dx_report *r, int pid)
{
	for (int i = 0; i < r->nmemcgs; i++)
		for (int j = 0; j < r->memcgs[i].npids; j++)
			if (r->memcgs[i].pids[j] == pid)
				return &r->memcgs[i];
	return NULL;
}

/* the time the service's own processes, and all tasks, ran instead */
static void ran_instead(const struct dx_report *r, uint64_t *self, uint64_t *all)
{
	*self = *all = 0;
	for (int i = 0; i < r->ninstead; i++) {
		*all += r->instead[i].ns;
		if (r->instead[i].self)
			*self += r->instead[i].ns;
	}
}

/* "memory.failcnt 12, memory.stat pgsteal 3400" over the non-zero counters */
static const char *counts_text(struct arena *a, const struct dx_memcg *m)
{
	const char *s = "";
	for (int i = 0; i < m->ncounts; i++)
		if (m->counts[i].n)
			s = arena_printf(a, "%s%s%s %" PRIu64, s, *s ? ", " : "", m->counts[i].name, m->counts[i].n);
	return s;
}

void dx_limits_finding(struct arena *a, const struct dx_report *r, struct dx_finding *f,
		       const struct dx_group *g)
{
	if (f->cat == DX_RUNQ) {
		uint64_t self, all;
		ran_instead(r, &self, &all);
		if (!all || self * 2 <= all)
			return;
		const char *cpus = r->ncpus ? arena_printf(a, " on the %d CPU%s it may run on", r->ncpus,
							   r->ncpus == 1 ? "" : "s") : "";
		f->evidence = arena_printf(a, "%s (pid %d) was ready to run but waited for a CPU %.0f %% of its "
					   "time (longest wait %s), and the tasks that ran instead were mostly "
					   "the service's own threads (%s of %s): the service competes with "
					   "itself, CPU-bound%s", g->comm, g->pid,
					   g->wall_ns ? 100.0 * g->ns[DX_RUNQ] / g->wall_ns : 0,
					   dur(a, g->wait_max_ns), dur(a, self), dur(a, all), cpus);
		f->advice = "it has more runnable threads than CPUs: give it more CPUs (cpuset, taskset, "
			    "a higher CPU limit), run fewer busy threads at once (a worker pool no larger "
			    "than its CPUs), or make each request cost less CPU; moving other tasks away "
			    "will not help";
	} else if (f->cat == DX_FAULT) {
		const struct dx_memcg *m = dx_memcg_of(r, g->pid);
		if (!m || (m->limit < 0 && m->high < 0))
			return;
		const char *counts = counts_text(a, m);
		const char *lim = m->limit >= 0 ? arena_printf(a, "%s (%s)", mb(a, m->limit), m->limit_file)
			: arena_printf(a, "%s (memory.high, where the kernel reclaims and throttles)", mb(a, m->high));
		f->evidence = arena_printf(a, "%s; its memory cgroup %s is limited to %s%s%s%s%s", f->evidence,
					   m->path, lim,
					   m->usage >= 0 ? arena_printf(a, ", %s in use", mb(a, m->usage)) : "",
					   *counts ? ", and reclaimed under it in the window (" : "", counts,
					   *counts ? ")" : "");
		f->advice = "raise the memory cgroup's limit above the working set (memory.max, v1 "
			    "memory.limit_in_bytes; Kubernetes resources.limits.memory): the files the service "
			    "reads count against it through the page cache, and what the limit reclaims is "
			    "read back from disk; or shrink the working set: mlock() or MAP_POPULATE the "
			    "model files";
	}
}

void dx_limits_mark(struct dx_report *r)
{
	for (int i = 0; i < r->ninstead; i++)
		for (int t = 0; t < r->nthreads && !r->instead[i].self; t++)
			r->instead[i].self = r->threads[t].pid == r->instead[i].pid;
}

void dx_limits_text(FILE *out, const struct dx_report *r)
{
	struct arena *a = arena_new();
	for (int i = 0; i < r->nmemcgs; i++) {
		const struct dx_memcg *m = &r->memcgs[i];
		const char *counts = counts_text(a, m);
		/* a cgroup without a limit has nothing to say (-f json lists it) */
		if (m->limit < 0 && m->high < 0)
			continue;
		fprintf(out, "\nmemory cgroup %s: limit %s (%s)", m->path,
			m->limit >= 0 ? mb(a, m->limit) : "none", m->limit_file);
		if (m->high >= 0)
			fprintf(out, ", memory.high %s", mb(a, m->high));
		if (m->usage >= 0)
			fprintf(out, ", %s in use", mb(a, m->usage));
		fprintf(out, "\n    reclaim over the window: %s\n", *counts ? counts : "none");
	}
	arena_free(a);
}

static void json_str(FILE *out, const char *s)
{
	pr_json_string(out, s, strlen(s));
}

void dx_limits_json(FILE *out, const struct dx_report *r)
{
	fprintf(out, ", \"cpus\": %d, \"memory_cgroups\": [", r->ncpus);
	for (int i = 0; i < r->nmemcgs; i++) {
		const struct dx_memcg *m = &r->memcgs[i];
		fprintf(out, "%s{\"path\": ", i ? ", " : "");
		json_str(out, m->path);
		fputs(", \"limit_file\": ", out);
		json_str(out, m->limit_file);
		fprintf(out, ", \"limit_bytes\": %" PRId64 ", \"high_bytes\": %" PRId64 ", \"usage_bytes\": %" PRId64
			", \"pids\": [", m->limit, m->high, m->usage);
		for (int j = 0; j < m->npids; j++)
			fprintf(out, "%s%d", j ? ", " : "", m->pids[j]);
		fputs("], \"counters\": {", out);
		for (int j = 0; j < m->ncounts; j++) {
			fputs(j ? ", " : "", out);
			json_str(out, m->counts[j].name);
			fprintf(out, ": %" PRIu64, m->counts[j].n);
		}
		fputs("}}", out);
	}
	fputc(']', out);
}
