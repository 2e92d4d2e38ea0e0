/*
 * diagnose_limits.c - the limits a service runs under, read by sonde
 * diagnose around its window.
 *
 * The CPUs its threads may run on (their affinity, which a cpuset cgroup
 * narrows too; read when the window ends, as a command started with -c
 * sets its own, `taskset` for one, after sonde has started it): when the threads that ran instead of the service's while
 * they waited for a CPU were mostly the service's own, it is CPU-bound on
 * those CPUs, and the report says so (output/report_limits.c).
 *
 * The memory cgroup of each process: a limit under which the page cache of
 * the files it reads (a model mapped from disk) is reclaimed and read back
 * makes major faults, which the kernel counts in the cgroup's files.  v2:
 * memory.max and memory.high (the lowest on the path up to the root: a
 * parent's limit binds its children), memory.current, and over the window
 * memory.stat's pgscan, pgsteal, workingset_refault_file, pgmajfault and
 * memory.events' high, max, oom, oom_kill.  v1: memory.limit_in_bytes
 * (memory.stat's hierarchical_memory_limit when a parent's is lower),
 * memory.usage_in_bytes, and memory.failcnt (times usage hit the limit),
 * memory.stat's total_workingset_refault_file and total_pgmajfault, and
 * memory.oom_control's oom_kill.  A counter the kernel lacks is left out.
 *
 * The CPU quota: the cgroup whose cpu controller governs each process
 * (v1's cpu,cpuacct where the host mounts it, else v2's), cpu.stat's
 * throttling over the window and the quota beside it.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/diagnose_limits.h"
#include "common/arena.h"
#include "common/file.h"
#include "host/host.h"
#include "host/proc.h"
#include "output/output.h"

/* a counter: NAME in FILE ("" for a file that is the number itself) */
struct counter { const char *file, *key, *shown; };

static const struct counter v2_counts[] = {
	{"memory.events", "max", "memory.events max"},
	{"memory.events", "high", "memory.events high"},
	{"memory.events", "oom", "memory.events oom"},
	{"memory.events", "oom_kill", "memory.events oom_kill"},
	{"memory.stat", "pgscan", "memory.stat pgscan"},
	{"memory.stat", "pgsteal", "memory.stat pgsteal"},
	{"memory.stat", "workingset_refault_file", "memory.stat workingset_refault_file"},
	{"memory.stat", "pgmajfault", "memory.stat pgmajfault"},
};
static const struct counter v1_counts[] = {
	{"memory.failcnt", "", "memory.failcnt"},
	{"memory.oom_control", "oom_kill", "memory.oom_control oom_kill"},
	{"memory.stat", "total_workingset_refault_file", "memory.stat total_workingset_refault_file"},
	{"memory.stat", "total_pgmajfault", "memory.stat total_pgmajfault"},
};

struct memcg {
	const char *dir;
	bool v2;
	int *pids;
	int npids;
	uint64_t begin[DX_MEMCG_COUNTS], end[DX_MEMCG_COUNTS];
	int64_t usage;			/* when the window ended */
	bool have[DX_MEMCG_COUNTS], ended;
};

struct dx_limits {
	struct arena *a;
	cpu_set_t cpus;
	bool cpus_known;
	int *tids;			/* the threads seen at the start */
	int ntids;
	struct memcg *cgs;
	int ncgs;
};

struct dx_limits *dxl_new(struct arena *a)
{
	struct dx_limits *l = arena_alloc(a, sizeof(*l));
	memset(l, 0, sizeof(*l));
	l->a = a;
	CPU_ZERO(&l->cpus);
	return l;
}

/* the value of key in a "key value" file, or the file's number (key "") */
static bool read_counter(const char *dir, const char *file, const char *key, uint64_t *v)
{
	char path[4096], *text;
	snprintf(path, sizeof(path), "%s/%s", dir, file);
	if (file_read_all(path, 1 << 16, &text, NULL))
		return false;
	bool ok = false;
	size_t kl = strlen(key);
	for (char *line = text; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
		unsigned long long n;
		if (!kl ? sscanf(line, "%llu", &n) == 1
			: !strncmp(line, key, kl) && line[kl] == ' ' && sscanf(line + kl, " %llu", &n) == 1) {
			*v = n;
			ok = true;
			break;
		}
	}
	free(text);
	return ok;
}

/* a limit in bytes: -1 for none ("max", or v1's page-counter maximum) */
static int64_t read_limit(const char *dir, const char *file, const char *key)
{
	uint64_t v;
	if (!read_counter(dir, file, key, &v))
		return -1;
	return v >= (1ull << 62) ? -1 : (int64_t)v;
}

static const struct counter *counters(bool v2, int *n)
{
	*n = v2 ? (int)(sizeof(v2_counts) / sizeof(v2_counts[0]))
		: (int)(sizeof(v1_counts) / sizeof(v1_counts[0]));
	return v2 ? v2_counts : v1_counts;
}

/* the directory of pid's memory cgroup: the v1 memory hierarchy where the
 * host mounts one, else v2's when its root offers the memory controller */
static const char *memcg_dir(struct arena *a, int pid, bool *v2)
{
	char *path = host_proc_cgroup(pid, "memory");
	if (path) {
		const char *dir = arena_printf(a, "/sys/fs/cgroup/memory%s", path);
		free(path);
		*v2 = false;
		return access(arena_printf(a, "%s/memory.limit_in_bytes", dir), R_OK) ? NULL : dir;
	}
	char root[256];
	if (rs_cgroup2_root(root, sizeof(root)) || !(path = host_proc_cgroup(pid, NULL)))
		return NULL;
	const char *dir = arena_printf(a, "%s%s", root, strcmp(path, "/") ? path : "");
	free(path);
	*v2 = true;
	/* the root has no memory.max; a child whose parent enables memory has */
	return access(arena_printf(a, "%s/memory.max", dir), R_OK) ? NULL : dir;
}

/* the union of the threads' affinities, when any can be read */
static void read_cpus(struct dx_limits *l)
{
	cpu_set_t all, set;
	bool known = false;
	CPU_ZERO(&all);
	for (int i = 0; i < l->ntids; i++)
		if (!sched_getaffinity(l->tids[i], sizeof(set), &set)) {
			CPU_OR(&all, &all, &set);
			known = true;
		}
	if (known) {
		l->cpus = all;
		l->cpus_known = true;
	}
}

void dxl_thread(struct dx_limits *l, int pid, int tid)
{
	l->tids = arena_grow(l->a, l->tids, (size_t)l->ntids, sizeof(*l->tids));
	l->tids[l->ntids++] = tid;
	cpu_set_t set;
	if (!sched_getaffinity(tid, sizeof(set), &set)) {
		CPU_OR(&l->cpus, &l->cpus, &set);
		l->cpus_known = true;
	}
	if (pid != tid)
		return;
	bool v2;
	const char *dir = memcg_dir(l->a, pid, &v2);
	if (!dir)
		return;
	struct memcg *c = NULL;
	for (int i = 0; i < l->ncgs && !c; i++)
		if (!strcmp(l->cgs[i].dir, dir))
			c = &l->cgs[i];
	if (!c) {
		l->cgs = arena_grow(l->a, l->cgs, (size_t)l->ncgs, sizeof(*l->cgs));
		c = &l->cgs[l->ncgs++];
		memset(c, 0, sizeof(*c));
		c->dir = dir;
		c->v2 = v2;
	}
	c->pids = arena_grow(l->a, c->pids, (size_t)c->npids, sizeof(*c->pids));
	c->pids[c->npids++] = pid;
}

void dxl_mark(struct dx_limits *l, bool end)
{
	if (end)
		read_cpus(l);
	for (int i = 0; i < l->ncgs; i++) {
		struct memcg *c = &l->cgs[i];
		int n;
		const struct counter *k = counters(c->v2, &n);
		for (int j = 0; j < n; j++) {
			uint64_t v;
			bool ok = read_counter(c->dir, k[j].file, k[j].key, &v);
			if (!end) {
				c->have[j] = ok;
				c->begin[j] = v;
			} else if (ok) {
				c->end[j] = v;
			} else {
				c->have[j] = false;
			}
		}
		if (end)
			c->usage = read_limit(c->dir, c->v2 ? "memory.current" : "memory.usage_in_bytes", "");
		c->ended |= end;
	}
}

/* v2: the lowest limit in file on the path from dir up to the root */
static int64_t v2_lowest(struct arena *a, const char *dir, const char *file)
{
	char root[256];
	int64_t low = -1;
	if (rs_cgroup2_root(root, sizeof(root)))
		return -1;
	char *d = arena_strdup(a, dir);
	while (strlen(d) > strlen(root)) {
		int64_t v = read_limit(d, file, "");
		if (v >= 0 && (low < 0 || v < low))
			low = v;
		*strrchr(d, '/') = '\0';
	}
	return low;
}

void dxl_fill(struct dx_limits *l, struct dx_report *r)
{
	r->ncpus = l->cpus_known ? CPU_COUNT(&l->cpus) : 0;
	r->memcgs = arena_new_array(l->a, struct dx_memcg, l->ncgs ? l->ncgs : 1);
	r->nmemcgs = 0;
	if (l->ncgs && !l->cgs[0].ended) {
		/* the window ended with the service: its counters only grow,
		 * but what it had in use is gone */
		dxl_mark(l, true);
		for (int i = 0; i < l->ncgs; i++)
			l->cgs[i].usage = -1;
	}
	for (int i = 0; i < l->ncgs; i++) {
		struct memcg *c = &l->cgs[i];

		struct dx_memcg *m = &r->memcgs[r->nmemcgs++];
		memset(m, 0, sizeof(*m));
		m->path = c->dir;
		m->usage = c->usage;
		m->pids = c->pids;
		m->npids = c->npids;
		if (c->v2) {
			m->limit_file = "memory.max";
			m->limit = v2_lowest(l->a, c->dir, "memory.max");
			m->high = v2_lowest(l->a, c->dir, "memory.high");

		} else {
			m->limit_file = "memory.limit_in_bytes";
			m->limit = read_limit(c->dir, "memory.limit_in_bytes", "");
			int64_t h = read_limit(c->dir, "memory.stat", "hierarchical_memory_limit");
			if (h >= 0 && (m->limit < 0 || h < m->limit)) {
				m->limit = h;
				m->limit_file = "memory.stat hierarchical_memory_limit";
			}
			m->high = -1;

		}
		int n;
		const struct counter *k = counters(c->v2, &n);
		for (int j = 0; j < n && m->ncounts < DX_MEMCG_COUNTS; j++)
			if (c->have[j])
				m->counts[m->ncounts++] = (struct dx_count){
					k[j].shown, c->end[j] >= c->begin[j] ? c->end[j] - c->begin[j] : 0};
	}
}

/* ---- the CPU quota ------------------------------------------------------- */

/* the cgroup directory whose cpu controller governs pid: a v1 hierarchy
 * with the cpu controller ("N:cpu,cpuacct:/path") where the host mounts
 * one, else the v2 one ("0::/path") when its controllers include cpu */
const char *dxl_cpu_cgroup(struct arena *a, int pid, bool *v2)
{
	char *path = host_proc_cgroup(pid, "cpu");
	static const char *const mounts[] = {"/sys/fs/cgroup/cpu,cpuacct", "/sys/fs/cgroup/cpu"};
	for (size_t m = 0; path && m < sizeof(mounts) / sizeof(mounts[0]); m++) {
		const char *dir = arena_printf(a, "%s%s", mounts[m], path);
		if (!access(arena_printf(a, "%s/cpu.stat", dir), R_OK)) {
			free(path);
			*v2 = false;
			return dir;
		}
	}
	free(path);
	*v2 = true;
	char root[256], *ctrls;
	if (!(path = host_proc_cgroup(pid, NULL)) || rs_cgroup2_root(root, sizeof(root))) {
		free(path);
		return NULL;
	}
	const char *dir = arena_printf(a, "%s%s", root, path), *v2dir = NULL;
	free(path);
	if (!file_read_all(arena_printf(a, "%s/cgroup.controllers", root), 4096, &ctrls, NULL)) {
		if (strstr(ctrls, "cpu ") || strstr(ctrls, "cpu\n"))
			v2dir = dir;
		free(ctrls);
	}
	return v2dir;
}

/* cpu.stat's throttling counters (v2: throttled_usec; v1: throttled_time
 * in ns) and the quota as text */
bool dxl_cpu_stat(struct arena *a, const char *dir, bool v2, struct dx_cgroup *c)
{
	char *text;
	if (file_read_all(arena_printf(a, "%s/cpu.stat", dir), 1 << 16, &text, NULL))
		return false;
	unsigned long long v;
	char *p;
	c->nr_periods = (p = strstr(text, "nr_periods ")) && sscanf(p, "nr_periods %llu", &v) == 1 ? v : 0;
	c->nr_throttled = (p = strstr(text, "nr_throttled ")) && sscanf(p, "nr_throttled %llu", &v) == 1 ? v : 0;
	if (v2)
		c->throttled_ns = (p = strstr(text, "throttled_usec ")) &&
			sscanf(p, "throttled_usec %llu", &v) == 1 ? v * 1000 : 0;
	else
		c->throttled_ns = (p = strstr(text, "throttled_time ")) &&
			sscanf(p, "throttled_time %llu", &v) == 1 ? v : 0;
	free(text);
	char *q = NULL, *per = NULL;
	if (v2 && !file_read_all(arena_printf(a, "%s/cpu.max", dir), 256, &q, NULL)) {
		q[strcspn(q, "\n")] = '\0';
		c->quota = arena_printf(a, "%s us per period", q);
	} else if (!v2 && !file_read_all(arena_printf(a, "%s/cpu.cfs_quota_us", dir), 256, &q, NULL) &&
		   !file_read_all(arena_printf(a, "%s/cpu.cfs_period_us", dir), 256, &per, NULL)) {
		long long qv = atoll(q), pv = atoll(per);
		c->quota = qv < 0 ? "none" : arena_printf(a, "%lld/%lld us (%.0f %% of a CPU)", qv, pv,
							  pv ? 100.0 * qv / pv : 0);
	} else {
		c->quota = "unknown";
	}
	free(q);
	free(per);
	return true;
}
