/*
 * diagnose_serve.c - `sonde diagnose --serve ADDR`: the figures of
 * diagnose's report as Prometheus counters, for as long as it runs.
 *
 * The script is diagnose's own (diagnose.c), without the timer that ends
 * it; the HTTP side is sonde's --serve (runtime/serve.c), which calls
 * dxserve_scrape in place of exporting the maps.  Each scrape builds the
 * report of the window from its start to now, as the report at the end of
 * `sonde diagnose` would be built at that moment (diagnose.c), and writes
 * one counter per thread and state:
 *
 *   sonde_diagnose_seconds_total{namespace, pod, container, [container_id,]
 *                                process, pid, thread, tid, state}
 *
 * with the container's labels as any map's `container` key gets them
 * (runtime/labels.c: Kubernetes names from the cgroup and the kubelet's
 * log tree) and a state per row of the report's categories (dx_cat_state).
 *
 * A state a thread is in when the scrape comes counts up to now (the open
 * spell), so the states of a thread add up to its wall time at every
 * scrape.  A counter never goes down: a value below the last one exported
 * (a spell the last scrape counted in one state and the script closed in
 * another, such as a CUDA call that returned, or the CPU quota's share
 * moving between threads) is exported as the last one until it passes it.
 *
 * A thread that exited is exported once more, with its final figures, and
 * then forgotten: its entries leave the script's maps (rt_map_forget) and
 * its series leave the exposition, so a service that starts threads and
 * ends them keeps its series to the threads that live.  With --container
 * all, the processes of containers that started since the last scrape
 * join the service (rt_map_set), their time counted from then.
 */
#include "cli/diagnose_serve.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "common/arena.h"
#include "common/file.h"
#include "host/host.h"
#include "host/proc.h"
#include "output/output.h"
#include "runtime/runtime.h"

/* the script's maps keyed by thread id first (diagnose.c's list), from
 * which an exited thread is forgotten */
static const char *const thread_maps[] = {
	"@svt", "@tgid", "@tcomm", "@st", "@ts", "@bsc", "@bd", "@run", "@wait", "@waitmax", "@waith",
	"@blk", "@wcpu", "@born", "@dead", "@sc", "@sct", "@ifd", "@icmd", "@irm", "@ioc_n", "@ioc_ns",
	"@rw_n", "@rw_ns", "@bio_n", "@bio_ns", "@bio_h", "@majx", "@minx", "@rdk", "@rd0", "@cus", "@cu_n", "@cu_ns",
	/* the GIL's and the stacks' (diagnose_gil.c), the CUDA depth (diagnose_cuda.c) */
	"@gilh", "@gilq", "@gilheld", "@gilstk", "@wsn", "@wsp", "@wrn", "@wrp", "@cud",
};

/* what the last scrape exported of a thread */
struct last {
	int tid;
	uint64_t ns[DX_NCAT];
};

/* a process seen: its cgroup (read while it lives) and name */
struct proc {
	int pid;
	uint64_t cgid;
	char *comm;
};

struct dx_serve {
	dx_build_fn build;
	void *arg;
	bool all;
	struct last *last;	/* sorted by tid */
	size_t nlast;
	struct proc *procs;	/* sorted by pid */
	size_t nprocs;
	char cgroot[256];
};

struct dx_serve *dxserve_new(dx_build_fn build, void *arg, bool all)
{
	struct dx_serve *s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	s->build = build;
	s->arg = arg;
	s->all = all;
	if (rs_cgroup2_root(s->cgroot, sizeof(s->cgroot)))
		s->cgroot[0] = '\0';
	return s;
}

static void free_procs(struct proc *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(p[i].comm);
	free(p);
}

void dxserve_free(struct dx_serve *s)
{
	if (!s)
		return;
	free(s->last);
	free_procs(s->procs, s->nprocs);
	free(s);
}

/* ---- the containers of the host ----------------------------------------------- */

/* does the v2 cgroup path hold a container's cgroup? */
static bool in_container(const char *path)
{
	char parent[256] = "", name[256], id[65];
	for (const char *p = path; *p;) {
		p += strspn(p, "/");
		size_t len = strcspn(p, "/");
		if (!len)
			break;
		snprintf(name, sizeof(name), "%.*s", (int)len, p);
		if (rs_container_id_of(name, *parent ? parent : NULL, id))
			return true;
		memcpy(parent, name, sizeof(parent));
		p += len;
	}
	return false;
}

int dxserve_container_pids(int **pids, size_t *n)
{
	int *all = NULL, *out = NULL;
	size_t nall = 0, k = 0;
	int err = host_proc_ids(0, &all, &nall);
	if (err)
		return err;
	for (size_t i = 0; i < nall; i++) {
		char *path = host_proc_cgroup(all[i], NULL);
		if (path && in_container(path)) {
			out = vec_grow(out, k, sizeof(*out));
			out[k++] = all[i];
		}
		free(path);
	}
	free(all);
	*pids = out;
	*n = k;
	return 0;
}

bool dxserve_blocked_in(int pid, int tid, int64_t *sc1, int *d)
{
	struct host_pstat st;
	char path[64], *text;
	long nr;
	if (host_proc_stat(pid, tid, &st) || (st.state != 'S' && st.state != 'D'))
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/syscall", pid, tid);
	if (file_read_all(path, 4096, &text, NULL))
		return false;
	bool ok = sscanf(text, "%ld", &nr) == 1 && nr >= 0;
	free(text);
	*sc1 = nr + 1;
	*d = st.state == 'D';
	return ok;
}

/* a container started since: its threads join the service from now */
static void join_new(struct dx_serve *s, struct rt *rt, const struct dx_report *r, uint64_t now)
{
	int *pids;
	size_t n;
	if (dxserve_container_pids(&pids, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		int *tids;
		size_t nt;
		if (host_proc_ids(pids[i], &tids, &nt))
			continue;
		for (size_t j = 0; j < nt; j++) {
			int k;
			for (k = 0; k < r->nthreads && r->threads[k].tid != tids[j]; k++)
				;
			if (k < r->nthreads)
				continue;	/* known, or followed from its parent */
			/* @born and @ts first: a thread in @svt without them
			 * counts from the window's start */
			if (rt_map_set(rt, "@born", tids[j], (int64_t)now) ||
			    rt_map_set(rt, "@ts", tids[j], (int64_t)now) ||
			    rt_map_set(rt, "@tgid", tids[j], pids[i]) ||
			    rt_map_set(rt, "@svt", tids[j], 1))
				break;
		}
		free(tids);
	}
	free(pids);
}

/* ---- labels --------------------------------------------------------------------- */

static int by_pid(const void *a, const void *b)
{
	return ((const struct proc *)a)->pid - ((const struct proc *)b)->pid;
}

static int by_tid(const void *a, const void *b)
{
	return ((const struct last *)a)->tid - ((const struct last *)b)->tid;
}

/* the v2 cgroup of a live process: the inode of its directory, which is
 * the cgroup id BPF and the label resolver know */
static uint64_t cgroup_of(const struct dx_serve *s, int pid)
{
	char *path = *s->cgroot ? host_proc_cgroup(pid, NULL) : NULL;
	if (!path)
		return 0;
	char dir[4096];
	struct stat st;
	snprintf(dir, sizeof(dir), "%s%s", s->cgroot, path);
	free(path);
	return stat(dir, &st) ? 0 : (uint64_t)st.st_ino;
}

/* the process as the last scrape saw it, or read now (a process that
 * exited before its first scrape has no cgroup: no container labels) */
static struct proc proc_of(struct dx_serve *s, const struct dx_report *r, int pid)
{
	struct proc key = {.pid = pid};
	struct proc *p = s->nprocs ? bsearch(&key, s->procs, s->nprocs, sizeof(*p), by_pid) : NULL;
	if (p)
		return (struct proc){pid, p->cgid, strdup(p->comm)};
	/* the process's own name (its leader's comm: python3.11), not the
	 * report's name of its main thread, which for Python is the
	 * threading name ("MainThread"); that one only once it has gone */
	char comm[64] = "";
	host_proc_comm(pid, 0, comm, sizeof(comm));
	for (int i = 0; i < r->nthreads && !*comm; i++)
		if (r->threads[i].tid == pid)
			snprintf(comm, sizeof(comm), "%s", r->threads[i].comm);
	return (struct proc){pid, cgroup_of(s, pid), strdup(*comm ? comm : "?")};
}

/* ---- one scrape ------------------------------------------------------------------- */

static void push(struct arena *a, struct pr_label **v, int *n, const char *name, const char *value)
{
	*v = arena_grow(a, *v, (size_t)*n, sizeof(**v));
	(*v)[(*n)++] = (struct pr_label){name, value};
}

void dxserve_scrape(void *arg, struct rt *rt, FILE *out, bool om)
{
	struct dx_serve *s = arg;
	struct arena *a = arena_new();
	struct dx_report r = {0};
	s->build(s->arg, rt, a, &r);
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	uint64_t now = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;

	struct pr_series *series = arena_new_array(a, struct pr_series,
						   (size_t)(r.nthreads ? r.nthreads : 1) * DX_NCAT);
	size_t nseries = 0;
	struct last *last = NULL;
	struct proc *procs = NULL;
	size_t nlast = 0, nprocs = 0;
	int64_t *gone = arena_new_array(a, int64_t, r.nthreads ? r.nthreads : 1);
	size_t ngone = 0;
	for (int i = 0; i < r.nthreads; i++) {
		const struct dx_thread *t = &r.threads[i];
		/* one process a list entry; the report lists a process's
		 * threads together, so its entry is the last one made */
		if (!nprocs || procs[nprocs - 1].pid != t->pid) {
			int j;
			for (j = 0; j < (int)nprocs && procs[j].pid != t->pid; j++)
				;
			if (j == (int)nprocs) {
				procs = vec_grow(procs, nprocs, sizeof(*procs));
				procs[nprocs++] = proc_of(s, &r, t->pid);
			}
		}
		const struct proc *p = NULL;
		for (size_t j = nprocs; j-- > 0 && !p;)
			if (procs[j].pid == t->pid)
				p = &procs[j];
		struct pr_label *cl = NULL;
		int ncl = 0;
		rt_cgroup_labels(rt, p->cgid, &cl, &ncl);
		/* every series has namespace and pod, empty off Kubernetes */
		struct pr_label *base = NULL;
		int nbase = 0;
		bool kube = ncl > 1;
		if (!kube) {
			push(a, &base, &nbase, "namespace", "");
			push(a, &base, &nbase, "pod", "");
		}
		for (int j = 0; j < ncl; j++)
			push(a, &base, &nbase, cl[j].name, arena_strdup(a, cl[j].value));
		push(a, &base, &nbase, "process", p->comm);
		push(a, &base, &nbase, "pid", arena_printf(a, "%d", t->pid));
		push(a, &base, &nbase, "thread", t->comm);
		push(a, &base, &nbase, "tid", arena_printf(a, "%d", t->tid));

		struct last key = {.tid = t->tid};
		struct last *prev = s->nlast ? bsearch(&key, s->last, s->nlast, sizeof(key), by_tid) : NULL;
		last = vec_grow(last, nlast, sizeof(*last));
		struct last *l = &last[nlast++];
		l->tid = t->tid;
		for (int c = 0; c < DX_NCAT; c++) {
			l->ns[c] = prev && prev->ns[c] > t->ns[c] ? prev->ns[c] : t->ns[c];
			struct pr_label *v = arena_new_array(a, struct pr_label, nbase + 1);
			memcpy(v, base, sizeof(*v) * (size_t)nbase);
			v[nbase] = (struct pr_label){"state", dx_cat_state(c)};
			series[nseries++] = (struct pr_series){v, nbase + 1, l->ns[c]};
		}
		if (t->exited)
			gone[ngone++] = t->tid;
	}
	pr_prom_seconds_total(out, om, "sonde_diagnose_seconds_total",
			      "Wall-clock time of each thread of the traced services by state "
			      "(sonde diagnose; docs/diagnose.md).", series, nseries);

	/* exited threads were exported with their final figures: forget them */
	for (size_t m = 0; ngone && m < sizeof(thread_maps) / sizeof(thread_maps[0]); m++)
		rt_map_forget(rt, thread_maps[m], gone, ngone);
	if (s->all)
		join_new(s, rt, &r, now);

	qsort(last, nlast, sizeof(*last), by_tid);
	qsort(procs, nprocs, sizeof(*procs), by_pid);
	free(s->last);
	free_procs(s->procs, s->nprocs);
	s->last = last;
	s->nlast = nlast;
	s->procs = procs;
	s->nprocs = nprocs;
	arena_free(a);
}
