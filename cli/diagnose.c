/*
 * diagnose.c - `sonde diagnose [-p PID | --container ID | -c CMD] [SECONDS]`:
 * where the threads of one service spent their wall-clock time, and which
 * host-side blind spot (run queue, CPU quota, major faults, I/O, the GPU
 * boundary) took the most of it.
 *
 * It writes one sonde script for the service (diagnose_script.c), runs it
 * through the ordinary pipeline for SECONDS, and collects the maps at exit
 * through a writer of its own instead of printing them.  The kernel's own
 * counters are read around the run: /proc/TID/schedstat (run_delay, to
 * show beside what the probes measured), /proc/TID/stat (major and minor
 * faults: the kernel alone knows which faults waited for I/O) and the
 * cgroup's cpu.stat (throttling).  output/report.c analyses and prints.
 *
 * The scheduler events are raw tracepoints: a tracepoint program is skipped
 * while any other BPF program runs on the same CPU (the kernel's
 * bpf_prog_active guard), which on a host that other tracers share lost a
 * switch now and then and with it seconds of a thread's time; a raw
 * tracepoint program guards only against itself.
 *
 * Every thread of the service is in one of three states from one
 * sched_switch to the next: running (switched in), waiting for a CPU
 * (preempted, or woken and not yet switched in) or blocked (switched out
 * asleep, until its wakeup).  The state's start is kept per thread; each
 * transition adds the time spent to a sum, so the three add up to the
 * thread's time in the window.  A blocked spell is classed by the syscall
 * the thread slept in and whether it slept uninterruptibly (D): a D sleep
 * outside any syscall is a page fault waiting for its page.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "cli/cli.h"
#include "cli/compile.h"
#include "cli/diagnose_gil.h"
#include "cli/diagnose_cuda.h"
#include "cli/diagnose_limits.h"
#include "cli/diagnose_script.h"
#include "cli/diagnose_serve.h"
#include "common/arena.h"
#include "common/diag.h"
#include "common/file.h"
#include "common/settings.h"
#include "host/host.h"
#include "host/proc.h"
#include "output/output.h"
#include "runtime/runtime.h"
#include "sema/sema.h"
#include "stdlib/decode.h"

/* a descriptor of a service process and the file behind it, read while
 * the process lives (an ioctl's file is named after the run) */
struct fdsnap {
	int pid, fd;
	const char *path;
};

/* an entry of a map by the number its first key holds (a thread id in
 * most maps): sorted by key, then by position, they find a thread's entry
 * in log time (a scrape of a node's thousands of threads looks each up in
 * a dozen maps) */
struct tidx {
	uint64_t key;
	size_t i;
};

/* threads of the service known at the start, with the kernel's counters */
struct seed {
	int pid, tid;
	const char *comm;		/* NULL for a -c command, not yet exec'd */
	uint64_t run_ns, delay_ns, majflt, minflt;
	bool sched_ok, stat_ok;
	/* at the end of the window (when the cli reads it: late on a busy
	 * machine, so run_delay's end comes from the probes, @rdk) */
	const char *end_comm;
	uint64_t end_run_ns, end_delay_ns, end_majflt, end_minflt;
	bool end_sched_ok, end_stat_ok;
};

struct dxs {
	struct arena *a;
	struct seed *seeds;
	int nseeds;
	struct dx_cgroup *cg;		/* cpu.stat when the window opened */
	const char **cg_dir;		/* where each cgroup's cpu.stat is */
	bool *cg_v2;
	int ncg;
	struct fdsnap *fds;		/* the service's descriptors, seen at the window's edges */
	int nfds;
	struct dx_cgroup *cg_end;	/* cpu.stat when the window ended */
	bool cg_end_ok;
	struct dx_cudalibs cu;		/* libcudart and libcuda a target maps */
	struct dx_limits *lim;		/* its CPUs and memory cgroups */
	struct dx_py *py;		/* its Python processes (diagnose_gil.c) */
	const char *target;		/* what is traced, for messages */
	int child;			/* -c: the command, traced from its exec */
	unsigned seconds;		/* 0: until stopped (--serve) */
	uint64_t now;			/* --serve: the window ends now (CLOCK_MONOTONIC ns), not at @tend */
	/* the maps at exit */
	struct pr_map *maps;
	struct tidx **tidx;		/* each map's entries by first key (c_map, by_tid) */
	int nmaps;
	uint64_t lost;
};

/* ---- the kernel's counters ------------------------------------------------ */

static char *proc_text(struct arena *a, const char *fmt, int pid, int tid)
{
	char path[128], *text;
	snprintf(path, sizeof(path), fmt, pid, tid);
	if (file_read_all(path, 1 << 16, &text, NULL))
		return NULL;
	char *copy = arena_strdup(a, text);
	free(text);
	return copy;
}

/* the thread's minor and major faults, and its state */
static bool read_stat(int pid, int tid, uint64_t *minflt, uint64_t *majflt, char *state)
{
	struct host_pstat st;
	if (host_proc_stat(pid, tid, &st))
		return false;
	*minflt = st.minflt;
	*majflt = st.majflt;
	if (state)
		*state = st.state;
	return true;
}

static const char *thread_comm(struct arena *a, int pid, int tid)
{
	char comm[64];
	host_proc_comm(pid, tid, comm, sizeof(comm));
	return *comm ? arena_strdup(a, comm) : NULL;
}

/* ---- the service's threads ------------------------------------------------ */

static void add_seed(struct dxs *x, int pid, int tid)
{
	for (int i = 0; i < x->nseeds; i++)
		if (x->seeds[i].tid == tid)
			return;
	x->seeds = arena_grow(x->a, x->seeds, x->nseeds, sizeof(*x->seeds));
	struct seed *s = &x->seeds[x->nseeds++];
	memset(s, 0, sizeof(*s));
	s->pid = pid;
	s->tid = tid;
	s->comm = thread_comm(x->a, pid, tid);
	s->sched_ok = !host_proc_schedstat(pid, tid, &s->run_ns, &s->delay_ns);
	s->stat_ok = read_stat(pid, tid, &s->minflt, &s->majflt, NULL);
	dxl_thread(x->lim, pid, tid);
}

/* pid and every thread of it */
static void add_process(struct dxs *x, int pid)
{
	int *tids;
	size_t n;
	if (host_proc_ids(pid, &tids, &n))
		return;
	for (size_t i = 0; i < n; i++)
		add_seed(x, pid, tids[i]);
	free(tids);
	dxc_scan(x->a, &x->cu, pid);
}

/* pid's descendants at the start: every process whose parent chain reaches
 * it (those that start later are followed by the fork tracepoint) */
static void add_descendants(struct dxs *x, int root)
{
	int *all = NULL, *pids = NULL, *ppids = NULL;
	size_t nall = 0, n = 0;
	host_proc_ids(0, &all, &nall);
	for (size_t i = 0; i < nall; i++) {
		struct host_pstat st;
		if (host_proc_stat(all[i], 0, &st))
			continue;
		pids = vec_grow(pids, n, sizeof(*pids));
		ppids = vec_grow(ppids, n, sizeof(*ppids));
		pids[n] = all[i];
		ppids[n++] = st.ppid;
	}
	free(all);
	/* a breadth-first walk over the processes added so far */
	for (int i = 0; i < x->nseeds; i++) {
		if (x->seeds[i].tid != x->seeds[i].pid)
			continue;
		for (size_t j = 0; j < n; j++)
			if (ppids[j] == x->seeds[i].pid && pids[j] != root)
				add_process(x, pids[j]);
	}
	free(pids);
	free(ppids);
}

static int cgroup_index(struct dxs *x, int pid)
{
	bool v2;
	const char *dir = dxl_cpu_cgroup(x->a, pid, &v2);
	if (!dir)
		return -1;
	for (int i = 0; i < x->ncg; i++)
		if (!strcmp(x->cg_dir[i], dir))
			return i;
	struct dx_cgroup c = {0};
	if (!dxl_cpu_stat(x->a, dir, v2, &c))
		return -1;
	x->cg = arena_grow(x->a, x->cg, x->ncg, sizeof(*x->cg));
	x->cg_dir = arena_grow(x->a, x->cg_dir, x->ncg, sizeof(*x->cg_dir));
	x->cg_v2 = arena_grow(x->a, x->cg_v2, x->ncg, sizeof(*x->cg_v2));
	c.path = dir;
	x->cg[x->ncg] = c;
	x->cg_dir[x->ncg] = dir;
	x->cg_v2[x->ncg] = v2;
	return x->ncg++;
}

/* ---- collecting the maps at exit ------------------------------------------- */

static struct dxs *collecting;

static void c_attached(FILE *out, FILE *diagf, int n) {}
static void snap_fds(struct dxs *x, int pid)
{
	char dir[64];
	snprintf(dir, sizeof(dir), "/proc/%d/fd", pid);
	DIR *d = opendir(dir);
	for (struct dirent *e; d && (e = readdir(d));) {
		if (!isdigit((unsigned char)e->d_name[0]))
			continue;
		int fd = atoi(e->d_name);
		const char *path = fd_path_text(x->a, NULL, (uint32_t)pid, (uint32_t)fd);
		if (!path || !ioc_is_gpu_device(arena_printf(x->a, "%.*s", (int)strcspn(path, " "), path)))
			continue;
		x->fds = arena_grow(x->a, x->fds, x->nfds, sizeof(*x->fds));
		x->fds[x->nfds++] = (struct fdsnap){pid, fd, arena_printf(x->a, "%.*s",
			(int)strcspn(path, " "), path)};
	}
	if (d)
		closedir(d);
}

static const struct seed *seed_of(const struct dxs *x, int tid);

/* the threads a seed process started inside the window (followed by the
 * fork tracepoint): their kernel counters count from zero, so that the
 * run-queue cross-check holds for a service that starts its workers late */
static void add_late_seeds(struct dxs *x)
{
	int n = x->nseeds;
	for (int i = 0; i < n; i++) {
		int pid = x->seeds[i].pid, *tids;
		size_t nt;
		if (pid != x->seeds[i].tid || host_proc_ids(pid, &tids, &nt))
			continue;
		for (size_t j = 0; j < nt; j++) {
			if (seed_of(x, tids[j]))
				continue;
			add_seed(x, pid, tids[j]);
			struct seed *s = &x->seeds[x->nseeds - 1];
			s->run_ns = s->delay_ns = s->minflt = s->majflt = 0;
			s->sched_ok = s->stat_ok = true;
		}
		free(tids);
	}
}

/* BEGIN's and the window's last printf: read the kernel's counters */
static void c_message(FILE *out, const char *type, const char *text, size_t len)
{
	struct dxs *x = collecting;
	bool begin = len >= strlen(DX_BEGIN_MARK) && !memcmp(text, DX_BEGIN_MARK, strlen(DX_BEGIN_MARK));
	bool end = len >= strlen(DX_END_MARK) && !memcmp(text, DX_END_MARK, strlen(DX_END_MARK));
	if (begin && x->seconds)
		fprintf(stderr, "sonde diagnose: tracing %s for %u s (Ctrl-C ends it sooner)\n",
			x->target, x->seconds);
	else if (begin)
		fprintf(stderr, "sonde diagnose: tracing %s until stopped (Ctrl-C)\n", x->target);
	if (end)
		add_late_seeds(x);
	for (int i = 0; (begin || end) && i < x->nseeds; i++) {
		struct seed *s = &x->seeds[i];
		if (begin) {
			s->sched_ok = !host_proc_schedstat(s->pid, s->tid, &s->run_ns, &s->delay_ns);
			s->stat_ok = read_stat(s->pid, s->tid, &s->minflt, &s->majflt, NULL);
		} else {
			s->end_sched_ok = !host_proc_schedstat(s->pid, s->tid, &s->end_run_ns,
							       &s->end_delay_ns);
			s->end_stat_ok = read_stat(s->pid, s->tid, &s->end_minflt, &s->end_majflt, NULL);
			s->end_comm = thread_comm(x->a, s->pid, s->tid);
		}
	}
	for (int i = 0; (begin || end) && i < x->nseeds; i++)
		if (x->seeds[i].pid == x->seeds[i].tid)
			snap_fds(x, x->seeds[i].pid);
	if (begin || end)
		dxl_mark(x->lim, end);
	for (int i = 0; begin && i < x->ncg; i++)
		dxl_cpu_stat(x->a, x->cg_dir[i], x->cg_v2[i], &x->cg[i]);
	if (end)
		dxpy_snapshot(x->py);
	for (int i = 0; end && i < x->ncg; i++) {
		x->cg_end = arena_grow(x->a, x->cg_end, i, sizeof(*x->cg_end));
		x->cg_end_ok = dxl_cpu_stat(x->a, x->cg_dir[i], x->cg_v2[i], &x->cg_end[i]);
	}
}
static void c_value(FILE *out, const char *rendered) {}
static void c_join(FILE *out, const char *text, size_t len) {}
static void c_maps_begin(FILE *out) {}
static void c_lost(FILE *out, FILE *diagf, uint64_t lost) { collecting->lost += lost; }

static uint64_t key_u(const struct pr_entry *e, int k);

static int by_key_pos(const void *p, const void *q)
{
	const struct tidx *a = p, *b = q;
	return a->key != b->key ? (a->key < b->key ? -1 : 1) : (a->i > b->i) - (a->i < b->i);
}

/* a deep copy: the runtime frees its map after the call */
static void c_map(FILE *out, struct pr_map *m, uint32_t top, uint32_t div)
{
	struct dxs *x = collecting;
	struct arena *a = x->a;
	x->maps = arena_grow(a, x->maps, x->nmaps, sizeof(*x->maps));
	struct pr_map *c = &x->maps[x->nmaps++];
	*c = *m;
	c->name = arena_strdup(a, m->name);
	c->entries = arena_new_array(a, struct pr_entry, m->nentries ? m->nentries : 1);
	for (size_t i = 0; i < m->nentries; i++) {
		struct pr_entry *e = &c->entries[i];
		*e = m->entries[i];
		e->key = arena_new_array(a, struct pr_key, e->nkey ? e->nkey : 1);
		for (int k = 0; k < e->nkey; k++)
			e->key[k].text = arena_strdup(a, m->entries[i].key[k].text);
		if (e->text)
			e->text = arena_strdup(a, e->text);
		if (e->buckets) {
			e->buckets = arena_new_array(a, uint64_t, e->nbuckets);
			memcpy(e->buckets, m->entries[i].buckets, sizeof(uint64_t) * e->nbuckets);
		}
		e->labels = NULL;
		e->nlabels = 0;
	}
	struct tidx *t = arena_new_array(a, struct tidx, m->nentries ? m->nentries : 1);
	for (size_t i = 0; i < m->nentries; i++)
		t[i] = (struct tidx){key_u(&c->entries[i], 0), i};
	qsort(t, m->nentries, sizeof(*t), by_key_pos);
	x->tidx = arena_grow(a, x->tidx, x->nmaps - 1, sizeof(*x->tidx));
	x->tidx[x->nmaps - 1] = t;
}

static const struct output_writer collect_writer = {
	.name = "diagnose", .render = PR_RENDER_TEXT,
	.attached = c_attached, .message = c_message, .value = c_value, .join = c_join,
	.maps_begin = c_maps_begin, .map = c_map, .lost_events = c_lost,
};
/* --serve: the maps are read at each scrape (diagnose_serve.c), not at exit */
static const struct output_writer serve_writer = {
	.name = "diagnose", .render = PR_RENDER_TEXT, .scrape = true,
	.attached = c_attached, .message = c_message, .value = c_value, .join = c_join,
	.maps_begin = c_maps_begin, .map = c_map, .lost_events = c_lost,
};

static const struct pr_map *find_map(const struct dxs *x, const char *name)
{
	for (int i = 0; i < x->nmaps; i++)
		if (!strcmp(x->maps[i].name, name))
			return &x->maps[i];
	return NULL;
}

static uint64_t key_u(const struct pr_entry *e, int k)
{
	return k < e->nkey ? strtoull(e->key[k].text, NULL, 10) : 0;
}

/* the first entry of @name whose first key is tid */
static const struct pr_entry *entry_by_tid(const struct dxs *x, const char *name, int tid)
{
	const struct pr_map *m = find_map(x, name);
	if (!m)
		return NULL;
	const struct tidx *t = x->tidx[m - x->maps];
	size_t lo = 0, hi = m->nentries;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t[mid].key < (uint64_t)tid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nentries && t[lo].key == (uint64_t)tid ? &m->entries[t[lo].i] : NULL;
}

/* the value of @name[tid] (a one-key map of integers), or 0 */
static int64_t by_tid(const struct dxs *x, const char *name, int tid)
{
	const struct pr_entry *e = entry_by_tid(x, name, tid);
	return e ? e->ival : 0;
}

/* ---- from the maps to the report ------------------------------------------- */

/* a blocked spell by the syscall it slept in (nr + 1; 0: none) and D */
static enum dx_cat blocked_cat(struct arena *a, uint64_t sc1, bool d, bool gpu_thread)
{
	if (dxpy_gil_sc(sc1))
		return DX_GIL;
	if (!sc1)
		return d ? DX_FAULT : DX_OTHER;
	const char *n = syscall_text(a, sc1 - 1);
	static const char *const futex[] = {"futex", "futex_waitv", NULL};
	static const char *const sleep[] = {"nanosleep", "clock_nanosleep", "pause", NULL};
	static const char *const poll[] = {"poll", "ppoll", "select", "pselect6", "epoll_wait",
					   "epoll_pwait", "epoll_pwait2", NULL};
	const char *const *const lists[] = {futex, sleep, poll};
	const enum dx_cat cats[] = {DX_FUTEX, DX_SLEEP, DX_POLL};
	if (!strcmp(n, "ioctl") && gpu_thread)
		return DX_GPU;
	for (int l = 0; l < 3; l++)
		for (const char *const *p = lists[l]; *p; p++)
			if (!strcmp(n, *p))
				return cats[l];
	/* an uninterruptible sleep in a syscall waits for the disk or the
	 * file system; an interruptible one for input that has not come */
	return d ? DX_IO : DX_OTHER;
}

static const struct seed *seed_of(const struct dxs *x, int tid)
{
	for (int i = 0; i < x->nseeds; i++)
		if (x->seeds[i].tid == tid)
			return &x->seeds[i];
	return NULL;
}

static int by_ns(const void *p, const void *q)
{
	const struct dx_other *a = p, *b = q;
	return a->ns < b->ns ? 1 : a->ns > b->ns ? -1 : a->pid - b->pid;
}

static void build_ioctls(struct dxs *x, struct dx_report *r)
{
	const struct pr_map *n = find_map(x, "@ioc_n"), *t = find_map(x, "@ioc_ns");
	for (size_t i = 0; n && i < n->nentries; i++) {
		const struct pr_entry *e = &n->entries[i];
		int tid = (int)key_u(e, 0), pid = (int)by_tid(x, "@tgid", tid);
		const char *path = NULL;
		for (int j = x->nfds - 1; j >= 0 && !path; j--)
			if (x->fds[j].pid == pid && (uint64_t)x->fds[j].fd == key_u(e, 1))
				path = x->fds[j].path;
		if (!path) {
			const char *shown = fd_path_text(x->a, NULL, (uint32_t)pid, (uint32_t)key_u(e, 1));
			/* without fd_path_text's " (GPU driver)" */
			path = shown ? arena_printf(x->a, "%.*s", (int)strcspn(shown, " "), shown) : NULL;
		}
		const char *name = path ? ioc_nvidia_text(x->a, path, key_u(e, 2), (uint32_t)key_u(e, 3)) : NULL;
		if (!name)
			continue;
		struct dx_ioctl *io = NULL;
		for (int j = 0; j < r->nioctls; j++)
			if (r->ioctls[j].pid == pid && !strcmp(r->ioctls[j].name, name) &&
			    !strcmp(r->ioctls[j].path, path))
				io = &r->ioctls[j];
		if (!io) {
			r->ioctls = arena_grow(x->a, r->ioctls, r->nioctls, sizeof(*r->ioctls));
			io = &r->ioctls[r->nioctls++];
			memset(io, 0, sizeof(*io));
			io->pid = pid;
			io->path = path;
			io->name = name;
			io->cmd = key_u(e, 2);
			const struct pr_entry *ce = entry_by_tid(x, "@tcomm", tid);
			const struct seed *s = seed_of(x, tid);
			io->comm = ce && ce->text ? ce->text : s && s->comm ? s->comm : "?";
		}
		io->n += (uint64_t)e->ival;
		for (size_t j = 0; t && j < t->nentries; j++)
			if (!strcmp(t->entries[j].key[0].text, e->key[0].text) &&
			    key_u(&t->entries[j], 1) == key_u(e, 1) && key_u(&t->entries[j], 2) == key_u(e, 2) &&
			    key_u(&t->entries[j], 3) == key_u(e, 3))
				io->ns += (uint64_t)t->entries[j].ival;
	}
}

/* does the thread call into the GPU driver (an ioctl on one of its
 * files) or the CUDA runtime? */
static bool gpu_tid(const struct dxs *x, const struct dx_report *r, int tid)
{
	int pid = (int)by_tid(x, "@tgid", tid);
	for (int j = 0; j < r->nioctls; j++)
		if (r->ioctls[j].pid == pid)
			return true;
	return entry_by_tid(x, "@cu_n", tid) != NULL;
}

/* time inside CUDA calls is time the thread waited on the GPU, whether it
 * slept (a futex, poll or ioctl) or spun: move it to DX_GPU, from the
 * sleeps first */
static void cuda_time(const struct dxs *x, struct dx_thread *t)
{
	const struct pr_map *m = find_map(x, "@cu_ns");
	uint64_t ns = 0;
	for (size_t i = 0; m && i < m->nentries; i++)
		if (key_u(&m->entries[i], 0) == (uint64_t)t->tid)
			ns += (uint64_t)m->entries[i].ival;
	static const enum dx_cat from[] = {DX_FUTEX, DX_POLL, DX_SLEEP, DX_OTHER, DX_RUN};
	for (size_t i = 0; i < sizeof(from) / sizeof(from[0]) && ns; i++) {
		uint64_t take = ns < t->ns[from[i]] ? ns : t->ns[from[i]];
		t->ns[from[i]] -= take;
		t->ns[DX_GPU] += take;
		ns -= take;
	}
}

static void build_thread(struct dxs *x, struct dx_report *r, int tid, uint64_t t0, uint64_t tend)
{
	struct arena *a = x->a;
	const struct seed *s = seed_of(x, tid);
	struct dx_thread *t = &r->threads[r->nthreads++];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->pid = (int)by_tid(x, "@tgid", tid);
	if (!t->pid)
		t->pid = s ? s->pid : tid;
	/* its name when the window ended, else at its last switch-out or exec */
	const struct pr_entry *ce = entry_by_tid(x, "@tcomm", tid);
	t->comm = s && s->end_comm ? s->end_comm : ce && ce->text ? ce->text : s && s->comm ? s->comm :
		thread_comm(a, t->pid, tid);
	t->exited = by_tid(x, "@dead", tid) != 0;
	if (!t->comm)
		t->comm = "?";
	uint64_t start = by_tid(x, "@born", tid) ? (uint64_t)by_tid(x, "@born", tid) : t0;
	uint64_t end = by_tid(x, "@dead", tid) ? (uint64_t)by_tid(x, "@dead", tid) : tend;
	t->wall_ns = end > start ? end - start : 0;
	bool gpu = gpu_tid(x, r, tid);

	t->ns[DX_RUN] = (uint64_t)by_tid(x, "@run", tid);
	t->ns[DX_RUNQ] = (uint64_t)by_tid(x, "@wait", tid);
	const struct pr_map *blk = find_map(x, "@blk");
	for (size_t i = 0; blk && i < blk->nentries; i++)
		if (key_u(&blk->entries[i], 0) == (uint64_t)tid)
			t->ns[blocked_cat(a, key_u(&blk->entries[i], 1), key_u(&blk->entries[i], 2), gpu)] +=
				(uint64_t)blk->entries[i].ival;
	/* the state it was in at the end */
	uint64_t since = (uint64_t)by_tid(x, "@ts", tid);
	int64_t st = by_tid(x, "@st", tid);
	if (!since)
		since = t0;
	if (st == 1 && end > since)
		t->ns[DX_RUN] += end - since;
	else if (st == 2 && end > since)
		t->ns[DX_RUNQ] += end - since;
	else if (st == 3 && end > since)
		t->ns[blocked_cat(a, by_tid(x, "@bsc", tid), by_tid(x, "@bd", tid), gpu)] += end - since;
	else if (st == 0) {
		/* no event in the whole window: it ran throughout on a CPU of
		 * its own, or slept throughout; /proc says which, and in which
		 * syscall */
		uint64_t mi, ma;
		char state = 'S';
		read_stat(t->pid, tid, &mi, &ma, &state);
		char *sc = state == 'R' ? NULL : proc_text(a, "/proc/%d/task/%d/syscall", t->pid, tid);
		long nr = -1;
		if (sc && sscanf(sc, "%ld", &nr) != 1)
			nr = -1;
		if (state == 'R')
			t->ns[DX_RUN] = t->wall_ns;
		else
			t->ns[blocked_cat(a, nr >= 0 ? (uint64_t)nr + 1 : 0, state == 'D', gpu)] = t->wall_ns;
	}
	cuda_time(x, t);
	t->wait_max_ns = (uint64_t)by_tid(x, "@waitmax", tid);
	const struct pr_entry *h = entry_by_tid(x, "@waith", tid);
	for (int b = 0; h && b < h->nbuckets && b < PR_HIST_BUCKETS; b++)
		t->wait_hist[b] = h->buckets[b];
	t->bio_n = (uint64_t)by_tid(x, "@bio_n", tid);
	t->bio_ns = (uint64_t)by_tid(x, "@bio_ns", tid);
	const struct pr_entry *bh = entry_by_tid(x, "@bio_h", tid);
	for (int b = 0; bh && b < bh->nbuckets && b < PR_HIST_BUCKETS; b++)
		t->bio_hist[b] = bh->buckets[b];
	const struct pr_map *rn = find_map(x, "@rw_n"), *rt = find_map(x, "@rw_ns");
	for (size_t i = 0; rn && i < rn->nentries; i++) {
		if (key_u(&rn->entries[i], 0) != (uint64_t)tid)
			continue;
		uint64_t ns = 0;
		for (size_t k = 0; rt && k < rt->nentries; k++)
			if (key_u(&rt->entries[k], 0) == (uint64_t)tid &&
			    key_u(&rt->entries[k], 1) == key_u(&rn->entries[i], 1))
				ns += (uint64_t)rt->entries[k].ival;
		dx_calls_add(a, &t->rw, &t->nrw, syscall_text(a, key_u(&rn->entries[i], 1)),
			     (uint64_t)rn->entries[i].ival, ns);
	}

	/* the kernel's counters over the window */
	uint64_t mi = 0, ma = 0, run, delay;
	bool stat_ok = s && s->end_stat_ok;
	if (stat_ok) {
		mi = s->end_minflt;
		ma = s->end_majflt;
	}
	if (stat_ok || read_stat(t->pid, tid, &mi, &ma, NULL) || by_tid(x, "@dead", tid)) {
		if (by_tid(x, "@dead", tid)) {
			mi = (uint64_t)by_tid(x, "@minx", tid);
			ma = (uint64_t)by_tid(x, "@majx", tid);
		}
		t->minflt = mi - (s && s->stat_ok && mi >= s->minflt ? s->minflt : 0);
		t->majflt = ma - (s && s->stat_ok && ma >= s->majflt ? s->majflt : 0);
	}
	/* run_delay from the window's start (a thread born in it: from 0, a
	 * -c command: from its exec) to
	 * its last switch-out in the window, as the probes read it: the
	 * cli's own read at the end comes late on a busy machine, and
	 * counts waits after the window (only a thread never switched out
	 * in the window is read so) */
	const struct pr_entry *rk = entry_by_tid(x, "@rdk", tid), *r0 = entry_by_tid(x, "@rd0", tid);
	bool base_ok = r0 || (s && s->sched_ok) || by_tid(x, "@born", tid), end_ok = true;
	uint64_t base = r0 ? (uint64_t)r0->ival : s && s->sched_ok ? s->delay_ns : 0;
	if (rk)
		delay = (uint64_t)rk->ival;
	else if (s && s->end_sched_ok)
		delay = s->end_delay_ns;
	else
		end_ok = !host_proc_schedstat(t->pid, tid, &run, &delay);
	if (base_ok && end_ok && delay >= base) {
		t->kernel_run_delay_ns = delay - base;
		t->kernel_known = true;
	}
	t->cgroup = -1;
	/* a process's threads share its cgroup: /proc read once a process */
	for (int i = 0; i < r->nthreads - 1; i++)
		if (r->threads[i].pid == t->pid) {
			t->cgroup = r->threads[i].cgroup;
			return;
		}
	bool v2;
	const char *dir = dxl_cpu_cgroup(a, t->pid, &v2);
	for (int i = 0; dir && i < r->ncgroups; i++)
		if (!strcmp(r->cgroups[i].path, dir))
			t->cgroup = i;
}

static void build_report(struct dxs *x, struct dx_report *r)
{
	struct arena *a = x->a;
	uint64_t t0 = (uint64_t)by_tid(x, "@t0", 0), tend = (uint64_t)by_tid(x, "@tend", 0);
	const struct pr_map *m;
	if ((m = find_map(x, "@t0")) && m->nentries)
		t0 = (uint64_t)m->entries[0].ival;
	if ((m = find_map(x, "@tend")) && m->nentries)
		tend = (uint64_t)m->entries[0].ival;
	if (x->now)
		tend = x->now;
	r->seconds = tend > t0 ? (tend - t0) / 1e9 : 0;
	r->lost = x->lost;

	/* cpu.stat over the window */
	r->cgroups = arena_new_array(a, struct dx_cgroup, x->ncg ? x->ncg : 1);
	for (int i = 0; i < x->ncg; i++) {
		struct dx_cgroup now = {0};
		r->cgroups[i] = x->cg[i];
		if (x->cg_end_ok)
			now = x->cg_end[i];
		else if (!dxl_cpu_stat(a, x->cg_dir[i], x->cg_v2[i], &now))
			continue;
		r->cgroups[i].quota = now.quota;
		r->cgroups[i].nr_periods = now.nr_periods - x->cg[i].nr_periods;
		r->cgroups[i].nr_throttled = now.nr_throttled - x->cg[i].nr_throttled;
		r->cgroups[i].throttled_ns = now.throttled_ns - x->cg[i].throttled_ns;
	}
	r->ncgroups = x->ncg;
	dxl_fill(x->lim, r);
	build_ioctls(x, r);

	const struct pr_map *svt = find_map(x, "@svt");
	size_t n = svt ? svt->nentries : 0;
	r->threads = arena_new_array(a, struct dx_thread, n ? n : 1);
	for (size_t i = 0; i < n; i++)
		build_thread(x, r, (int)key_u(&svt->entries[i], 0), t0, tend);

	const struct pr_map *inst = find_map(x, "@instead");
	r->instead = arena_new_array(a, struct dx_other, inst && inst->nentries ? inst->nentries : 1);
	for (size_t i = 0; inst && i < inst->nentries; i++) {
		const struct pr_entry *e = &inst->entries[i];
		/* the same process under several thread names: one line */
		int pid = (int)key_u(e, 1), j;
		for (j = 0; j < r->ninstead && r->instead[j].pid != pid; j++)
			;
		if (j == r->ninstead)
			r->instead[r->ninstead++] = (struct dx_other){.comm = e->key[0].text, .pid = pid};
		r->instead[j].ns += (uint64_t)e->ival;
	}
	qsort(r->instead, r->ninstead, sizeof(*r->instead), by_ns);

	const struct pr_map *cn = find_map(x, "@cu_n"), *ct = find_map(x, "@cu_ns");
	r->cudart = x->cu.cudart;
	r->libcuda = x->cu.libcuda;
	for (size_t i = 0; cn && i < cn->nentries; i++) {
		const char *fn = cn->entries[i].key[1].text;
		uint64_t ns = 0;
		for (size_t k = 0; ct && k < ct->nentries; k++)
			if (!strcmp(ct->entries[k].key[0].text, cn->entries[i].key[0].text) &&
			    !strcmp(ct->entries[k].key[1].text, fn))
				ns += (uint64_t)ct->entries[k].ival;
		dx_calls_add(a, &r->cuda, &r->ncuda, dx_cuda_base(a, fn), (uint64_t)cn->entries[i].ival, ns);
	}
}

/* the blind spot of a blocked spell of thread tid, for the stacks seen */
static enum dx_cat where_cat(uint64_t sc1, bool d, int tid, const struct dx_report *r)
{
	return blocked_cat(collecting->a, sc1, d, gpu_tid(collecting, r, tid));
}

/* --serve: the report of the window so far, at each scrape; @st and @ts
 * are read last, so that a spell that ends meanwhile is counted by the
 * next scrape rather than twice by this one */
static void serve_build(void *arg, struct rt *rt, struct arena *a, struct dx_report *r)
{
	struct dxs *x = arg;
	struct arena *keep = x->a;
	static const char *const last[] = {"@st", "@ts", NULL};
	x->a = a;
	x->maps = NULL;
	x->tidx = NULL;
	x->nmaps = 0;
	rt_maps_read(rt, last);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	x->now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	r->target = x->target;
	build_report(x, r);
	dxpy_report(x->py, x->maps, x->nmaps, r, where_cat);
	dx_analyse(a, r);
	/* a thread with no event yet was classed from /proc (build_thread):
	 * its spell ends, when it wakes, in that class, not twice in two */
	const struct pr_map *svt = find_map(x, "@svt");
	for (size_t i = 0; svt && i < svt->nentries; i++) {
		int tid = (int)key_u(&svt->entries[i], 0), pid = (int)by_tid(x, "@tgid", tid), d;
		int64_t sc1;
		if (!by_tid(x, "@st", tid) && dxserve_blocked_in(pid ? pid : tid, tid, &sc1, &d)) {
			rt_map_set(rt, "@bsc", tid, sc1);
			rt_map_set(rt, "@bd", tid, d);
		}
	}
	x->a = keep;
	x->maps = NULL;
	x->tidx = NULL;
	x->nmaps = 0;
}

/* ---- the command ------------------------------------------------------------ */

static void usage(FILE *out)
{
	fprintf(out,
		"USAGE:\n"
		"    sonde diagnose [-p PID | --container ID | -c CMD] [options] [SECONDS]\n"
		"\n"
		"Traces one service (a process with its threads and children, every process of\n"
		"a container, or a command) for SECONDS (default 10), then reports where its\n"
		"threads' time went: running, waiting for a CPU (and who ran instead), throttled\n"
		"by the CPU quota, major page faults, blocked on I/O, inside the GPU driver or\n"
		"CUDA synchronisation, or asleep; and ranks the host-side blind spots.\n"
		"\n"
		"OPTIONS:\n"
		"    -p PID           the process (its threads and child processes)\n"
		"    --container ID   every process of this container (id, prefix or cgroup path);\n"
		"                     all: every container of the host\n"
		"    -c CMD           run CMD and trace it until it exits or SECONDS pass\n"
		"    -f text|json     the report as text (default) or one JSON object\n"
		"    -o FILE          write the report to FILE\n"
		"    --overhead       also report what the tracing itself cost\n"
		"    --serve [ADDR:]PORT  run until stopped (or SECONDS) and serve the figures as\n"
		"                     Prometheus counters, sonde_diagnose_seconds_total{namespace,\n"
		"                     pod, container, process, pid, thread, tid, state}, at\n"
		"                     http://ADDR:PORT/metrics (docs/diagnose.md)\n"
		"    --kube-logs DIR  the kubelet's log tree, for pod names (default /var/log)\n"
		"    -v               say what was attached where\n");
}

int cli_diagnose(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"help", no_argument, NULL, 'h'},
		{"container", required_argument, NULL, 'C'},
		{"overhead", no_argument, NULL, 'O'},
		{"serve", required_argument, NULL, 'S'},
		{"kube-logs", required_argument, NULL, 'K'},
		{0},
	};
	int pid = 0, verbose = 0, c;
	const char *cmd = NULL, *container = NULL, *out_path = NULL, *serve = NULL, *kube_logs = "/var/log";
	bool json = false, overhead = false;
	optind = 1;
	while ((c = getopt_long(argc, argv, "+p:c:f:o:vh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p':
			pid = cli_parse_pid(optarg);
			if (pid < 0)
				return 1;
			break;
		case 'c': cmd = optarg; break;
		case 'C': container = optarg; break;
		case 'f':
			if (strcmp(optarg, "text") && strcmp(optarg, "json")) {
				fprintf(stderr, "sonde diagnose: -f takes text or json, not '%s'\n", optarg);
				return 1;
			}
			json = !strcmp(optarg, "json");
			break;
		case 'o': out_path = optarg; break;
		case 'O': overhead = true; break;
		case 'S': serve = optarg; break;
		case 'K': kube_logs = optarg; break;
		case 'v': verbose++; break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 1;
		}
	}
	/* --serve runs until it is stopped, unless SECONDS says otherwise */
	unsigned seconds = serve ? 0 : 10;
	if (optind < argc) {
		char *end;
		long v = strtol(argv[optind], &end, 10);
		if (*end || end == argv[optind] || v < 1 || v > 86400 || optind + 1 < argc) {
			fprintf(stderr, "sonde diagnose: SECONDS is a whole number from 1 to 86400, not '%s'\n",
				argv[optind]);
			return 1;
		}
		seconds = (unsigned)v;
	}
	if ((pid > 0) + (cmd != NULL) + (container != NULL) != 1) {
		fprintf(stderr, "sonde diagnose: name the service with one of -p PID, --container ID "
			"or -c CMD\n");
		return 1;
	}
	if (serve && (json || out_path)) {
		fprintf(stderr, "sonde diagnose: --serve serves the figures as metrics; -f and -o are for "
			"the report of a run without it\n");
		return 1;
	}
	if (settings_load(stderr))
		return 1;
	rt_libbpf_logging(verbose);
	rt_stop_signals();

	struct arena *a = arena_new();
	struct dxs x = {.a = a, .lim = dxl_new(a)};
	collecting = &x;
	struct rs_container *cont = NULL;
	struct dx_serve *srv = NULL;
	int rc = 1, go_fd = -1, child = 0;
	const char *target;
	bool all = container && !strcmp(container, "all");
	if (all) {
		int *pids = NULL;
		size_t n = 0;
		int err = dxserve_container_pids(&pids, &n);
		if (err) {
			fprintf(stderr, "sonde diagnose: --container all: cannot list the processes: %s\n",
				strerror(-err));
			goto out;
		}
		/* --serve: the containers that start later join at a scrape */
		if (!n && !serve) {
			fprintf(stderr, "sonde diagnose: --container all: no process runs in a container "
				"(a cgroup named as docker, containerd, CRI-O or podman name theirs)\n");
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			add_process(&x, pids[i]);
		free(pids);
		target = arena_printf(a, "every container (%zu processes)", n);
	} else if (container) {
		char err[1024];
		int *pids = NULL;
		size_t n = 0;
		if (rs_container_find(NULL, container, &cont, err, sizeof(err)) ||
		    rs_container_pids(cont, &pids, &n)) {
			fprintf(stderr, "sonde diagnose: --container %s: %s\n", container,
				cont ? "cannot list its processes" : err);
			goto out;
		}
		for (size_t i = 0; i < n; i++)
			add_process(&x, pids[i]);
		free(pids);
		target = arena_printf(a, "container %s (%zu processes)", cont->id[0] ? cont->id : cont->path, n);
	} else if (cmd) {
		child = cli_start_child(cmd, &go_fd, NULL, NULL);
		if (child < 0) {
			fprintf(stderr, "sonde diagnose: cannot run '%s': %s\n", cmd, strerror(-child));
			goto out;
		}
		add_seed(&x, child, child);
		x.seeds[0].comm = NULL;	/* "sonde" until it execs */
		x.child = child;
		target = arena_printf(a, "command '%s' (pid %d)", cmd, child);
	} else {
		add_process(&x, pid);
		add_descendants(&x, pid);
		const struct seed *s = seed_of(&x, pid);
		target = arena_printf(a, "pid %d (%s)", pid, s && s->comm ? s->comm : "?");
	}
	for (int i = 0; i < x.nseeds; i++)
		if (x.seeds[i].tid == x.seeds[i].pid)
			cgroup_index(&x, x.seeds[i].pid);

	int *pids = arena_new_array(a, int, x.nseeds ? x.nseeds : 1), npids = 0;
	for (int i = 0; i < x.nseeds; i++)
		if (x.seeds[i].tid == x.seeds[i].pid)
			pids[npids++] = x.seeds[i].pid;
	x.py = dxpy_open(a, pids, npids, verbose);
	x.target = target;
	x.seconds = seconds;
	struct dx_script sc = {.n = x.nseeds, .child = child, .py = x.py, .cu = &x.cu, .seconds = seconds};
	int *tids = arena_new_array(a, int, x.nseeds ? x.nseeds : 1);
	int *tpids = arena_new_array(a, int, x.nseeds ? x.nseeds : 1);
	for (int i = 0; i < x.nseeds; i++) {
		tids[i] = x.seeds[i].tid;
		tpids[i] = x.seeds[i].pid;
	}
	sc.tids = tids;
	sc.pids = tpids;
	char *src = dx_script(a, &sc);
	if (verbose > 1)
		fprintf(stderr, "%s", src);
	struct diag d;
	diag_init(&d, "diagnose", src, stderr);
	/* every map is keyed by thread: room for the service's threads at
	 * the start, twice over for those it starts, and more when asked */
	int64_t keys = settings_int(SET_MAP_KEYS_MAX);
	if (keys < 2 * (int64_t)x.nseeds + 1024)
		keys = 2 * (int64_t)x.nseeds + 1024;
	struct cli_compile cc = {
		.src = src,
		.so = {.target_pid = pid, .has_cpid = child > 0},
		.co = {.out = stdout, .child_pid = child, .map_keys_max = (uint32_t)keys,
		       .ncpus = libbpf_num_possible_cpus()},
	};
	if (cli_compile(a, &d, &cc))
		goto out;
	if (serve && !(srv = dxserve_new(serve_build, &x, all))) {
		fprintf(stderr, "sonde diagnose: out of memory\n");
		goto out;
	}
	struct rt_opts ro = {
		.writer = serve ? &serve_writer : &collect_writer, .out = stdout, .quiet = true, .verbose = verbose,
		.serve_addr = serve, .scrape_fn = serve ? dxserve_scrape : NULL, .scrape_arg = srv,
		.kube_logs = kube_logs, .series_cap = 0,
		.pid = pid, .child_pid = child, .child_go_fd = go_fd, .src = src, .file = "diagnose",
		.rb_pages = (unsigned)settings_int(SET_PERF_RB_PAGES), .overhead = overhead,
		.interval_s = 15,
	};
	rc = rt_run(cc.r, &cc.obj, &ro);
	go_fd = -1;
	child = 0;
	free(cc.obj.elf);
	if (rc || serve)
		goto out;

	struct dx_report rep = {.target = target};
	build_report(&x, &rep);
	dxpy_report(x.py, x.maps, x.nmaps, &rep, where_cat);
	dx_analyse(a, &rep);
	FILE *out = stdout;
	char oerr[1024];
	if (out_path && cli_open_output(out_path, &out, oerr, sizeof(oerr))) {
		fprintf(stderr, "sonde diagnose: %s\n", oerr);
		rc = 1;
		goto out;
	}
	(json ? dx_print_json : dx_print_text)(out, &rep);
	rc = cli_close_output(out, out_path ? out_path : "standard output") ? 1 : 0;
out:
	cli_child_kill(child, go_fd);
	dxserve_free(srv);
	if (cont)
		rs_container_free(cont);
	dxpy_free(x.py);
	collecting = NULL;
	arena_free(a);
	return rc;
}
