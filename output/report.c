/*
 * report.c - `sonde diagnose`'s report: where each thread's wall-clock time
 * went, and the verdict.
 *
 * The cli fills a struct dx_report from the run (BPF maps and the kernel's
 * own counters, see cli/diagnose.c); everything here is a pure function of
 * that struct, so the analysis and both printers are tested without root.
 *
 * The analysis groups threads by process and thread name (an inference
 * server's API, engine and worker threads have different names), splits
 * each thread's wait for a CPU into the part its cgroup's CPU quota caused
 * (cpu.stat's throttled time, shared out over the cgroup's waiting threads
 * in proportion to their waits) and the rest (run-queue contention), and
 * ranks the blind spots by their share of the wall time of the busiest
 * threads: those whose time was mostly not spent in voluntary sleeps
 * (futex, nanosleep, poll), which are the threads that have work to do.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "output/output.h"

/* a blind spot is reported when it takes at least this share of the
 * busiest threads' wall time */
#define DX_SIGNIFICANT 0.10

const char *const dx_cat_names[DX_NCAT] = {
	[DX_RUN] = "running",
	[DX_RUNQ] = "waiting for a CPU",
	[DX_THROTTLED] = "throttled (CPU quota)",
	[DX_FAULT] = "major page faults",
	[DX_IO] = "blocked on I/O",
	[DX_GPU] = "GPU driver / CUDA sync",
	[DX_GIL] = "waiting for the GIL",
	[DX_FUTEX] = "futex (locks, queues)",
	[DX_SLEEP] = "sleep",
	[DX_POLL] = "poll / epoll",
	[DX_OTHER] = "blocked, other",
};
static const char *const cat_keys[DX_NCAT] = {
	[DX_RUN] = "running", [DX_RUNQ] = "runqueue", [DX_THROTTLED] = "throttled",
	[DX_FAULT] = "major_faults", [DX_IO] = "io", [DX_GPU] = "gpu", [DX_GIL] = "gil", [DX_FUTEX] = "futex",
	[DX_SLEEP] = "sleep", [DX_POLL] = "poll", [DX_OTHER] = "other",
};

/* the state label of the metrics (docs/metrics.md's families): a new
 * category adds its row here, or is exported under its JSON key */
static const char *const cat_states[DX_NCAT] = {
	[DX_RUN] = "running", [DX_RUNQ] = "waiting_cpu", [DX_THROTTLED] = "throttled",
	[DX_FAULT] = "major_fault", [DX_IO] = "io", [DX_GPU] = "gpu_driver", [DX_FUTEX] = "futex",
	[DX_SLEEP] = "sleep", [DX_POLL] = "poll", [DX_OTHER] = "other",
};

const char *dx_cat_state(enum dx_cat c)
{
	return cat_states[c] ? cat_states[c] : cat_keys[c];
}

/* voluntary sleeps: a thread that is mostly here has nothing to do */
static bool voluntary(enum dx_cat c)
{
	return c == DX_FUTEX || c == DX_SLEEP || c == DX_POLL || c == DX_OTHER;
}

void dx_calls_add(struct arena *a, struct dx_cuda **calls, int *n, const char *func, uint64_t count,
		  uint64_t ns)
{
	int j;
	for (j = 0; j < *n && strcmp((*calls)[j].func, func); j++)
		;
	if (j == *n) {
		*calls = arena_grow(a, *calls, (size_t)*n, sizeof(**calls));
		(*calls)[(*n)++] = (struct dx_cuda){.func = func};
	}
	(*calls)[j].n += count;
	(*calls)[j].ns += ns;
}

static int group_of(struct arena *a, struct dx_report *r, const struct dx_thread *t)
{
	for (int i = 0; i < r->ngroups; i++)
		if (r->groups[i].pid == t->pid && !strcmp(r->groups[i].comm, t->comm))
			return i;
	r->groups = arena_grow(a, r->groups, r->ngroups, sizeof(*r->groups));
	struct dx_group *g = &r->groups[r->ngroups];
	memset(g, 0, sizeof(*g));
	g->pid = t->pid;
	g->comm = t->comm;
	return r->ngroups++;
}

/* the throttled share of each thread's wait: cpu.stat's throttled time of
 * its cgroup, in proportion to the waits of the cgroup's threads */
static void split_throttled(struct dx_report *r)
{
	for (int c = 0; c < r->ncgroups; c++) {
		struct dx_cgroup *cg = &r->cgroups[c];
		uint64_t waits = 0;
		for (int i = 0; i < r->nthreads; i++)
			if (r->threads[i].cgroup == c)
				waits += r->threads[i].ns[DX_RUNQ];
		if (!waits || !cg->throttled_ns)
			continue;
		for (int i = 0; i < r->nthreads; i++) {
			struct dx_thread *t = &r->threads[i];
			if (t->cgroup != c)
				continue;
			uint64_t thr = cg->throttled_ns >= waits ? t->ns[DX_RUNQ]
				: (uint64_t)((double)cg->throttled_ns * t->ns[DX_RUNQ] / waits);
			t->ns[DX_THROTTLED] = thr;
			t->ns[DX_RUNQ] -= thr;
		}
	}
}

static uint64_t active_ns(const uint64_t *ns)
{
	uint64_t a = 0;
	for (int c = 0; c < DX_NCAT; c++)
		if (!voluntary(c))
			a += ns[c];
	return a;
}

static const char *ms(struct arena *a, uint64_t ns)
{
	if (ns >= 10000000000ull)
		return arena_printf(a, "%.1f s", ns / 1e9);
	if (ns >= 1000000)
		return arena_printf(a, "%.1f ms", ns / 1e6);
	return arena_printf(a, "%.0f us", ns / 1e3);
}

static const char *evidence(struct arena *a, const struct dx_report *r, enum dx_cat c,
			    double share, const struct dx_group *top)
{
	const char *who = arena_printf(a, "%s (pid %d)", top->comm, top->pid);
	switch (c) {
	case DX_RUNQ: {
		const char *inst = "";
		if (r->ninstead)
			inst = arena_printf(a, "; %s (pid %d) held the CPU longest meanwhile (%s)",
					    r->instead[0].comm, r->instead[0].pid,
					    ms(a, r->instead[0].ns));
		return arena_printf(a, "%s was ready to run but waited for a CPU %.0f %% of its time "
				    "(longest wait %s)%s", who, share * 100, ms(a, top->wait_max_ns), inst);
	}
	case DX_THROTTLED:
		for (int i = 0; i < r->ncgroups; i++)
			if (r->cgroups[i].nr_throttled)
				return arena_printf(a, "cgroup %s (quota %s) was throttled in %" PRIu64
						    " of %" PRIu64 " periods, %s in all; %s lost %.0f %% "
						    "of its time to it", r->cgroups[i].path,
						    r->cgroups[i].quota, r->cgroups[i].nr_throttled,
						    r->cgroups[i].nr_periods, ms(a, r->cgroups[i].throttled_ns),
						    who, share * 100);
		return arena_printf(a, "%s lost %.0f %% of its time to its CPU quota", who, share * 100);
	case DX_FAULT:
		return arena_printf(a, "%s stalled %.0f %% of its time in %" PRIu64 " major page faults "
				    "(pages read back from disk)", who, share * 100, top->majflt);
	case DX_IO:
		return arena_printf(a, "%s was blocked on I/O %.0f %% of its time (%" PRIu64
				    " block requests, %s in all)", who, share * 100, top->bio_n,
				    ms(a, top->bio_ns));
	case DX_GPU:
		return arena_printf(a, "%s spent %.0f %% of its time inside the GPU driver or "
				    "waiting in CUDA synchronisation%s", who, share * 100, dx_cuda_evidence(a, r));
	case DX_GIL:
		return dx_gil_evidence(a, r, share, top);
	case DX_RUN: case DX_FUTEX: case DX_SLEEP: case DX_POLL: case DX_OTHER: case DX_NCAT:
		break;
	}
	return "";
}

static const char *advice(enum dx_cat c)
{
	switch (c) {
	case DX_RUNQ:
		return "give the service CPUs of its own (cpuset, taskset), raise its priority (chrt, "
		       "nice), or move the tasks that ran instead elsewhere";
	case DX_THROTTLED:
		return "raise or remove the CPU limit (cpu.max; Kubernetes resources.limits.cpu): "
		       "the quota, not the machine, is what stops the threads";
	case DX_FAULT:
		return "keep the working set in memory: more RAM or a higher memory limit, mlock() or "
		       "MAP_POPULATE the model files, or preload them into the page cache";
	case DX_IO:
		return "take I/O off the threads that feed the GPU: prefetch, read ahead in larger "
		       "blocks, use faster storage, or move fsync/writes to a background thread";
	case DX_GPU:
		return "hand the GPU more work per call: larger batches, CUDA graphs, fewer "
		       "synchronisations, asynchronous copies from pinned memory";
	case DX_GIL:
		return dx_gil_advice();
	case DX_RUN: case DX_FUTEX: case DX_SLEEP: case DX_POLL: case DX_OTHER: case DX_NCAT:
		break;
	}
	return "";
}

static int by_active(const void *x, const void *y)
{
	const struct dx_group *a = x, *b = y;
	uint64_t aa = active_ns(a->ns), bb = active_ns(b->ns);
	return aa < bb ? 1 : aa > bb ? -1 : a->pid - b->pid;
}

static int by_share(const void *x, const void *y)
{
	const struct dx_finding *a = x, *b = y;
	return a->share < b->share ? 1 : a->share > b->share ? -1 : 0;
}

void dx_analyse(struct arena *a, struct dx_report *r)
{
	split_throttled(r);
	dx_limits_mark(r);
	r->ngroups = 0;
	for (int i = 0; i < r->nthreads; i++) {
		const struct dx_thread *t = &r->threads[i];
		int gi = group_of(a, r, t);
		struct dx_group *g = &r->groups[gi];
		g->nthreads++;
		g->wall_ns += t->wall_ns;
		for (int c = 0; c < DX_NCAT; c++)
			g->ns[c] += t->ns[c];
		if (t->wait_max_ns > g->wait_max_ns)
			g->wait_max_ns = t->wait_max_ns;
		for (int b = 0; b < PR_HIST_BUCKETS; b++)
			g->wait_hist[b] += t->wait_hist[b];
		g->majflt += t->majflt;
		g->minflt += t->minflt;
		g->bio_n += t->bio_n;
		g->bio_ns += t->bio_ns;
		for (int b = 0; b < PR_HIST_BUCKETS; b++)
			g->bio_hist[b] += t->bio_hist[b];
		for (int k = 0; k < t->nrw; k++)
			dx_calls_add(a, &g->rw, &g->nrw, t->rw[k].func, t->rw[k].n, t->rw[k].ns);
		g->kernel_run_delay_ns += t->kernel_run_delay_ns;
		g->kernel_known |= t->kernel_known;
		g->gil_held_ns += t->gil_held_ns;
		g->gil_runq_ns += t->gil_runq_ns;
	}
	qsort(r->groups, r->ngroups, sizeof(*r->groups), by_active);

	/* the busiest groups: their time mostly not voluntary sleep; the
	 * most active one when none is */
	uint64_t wall = 0, ns[DX_NCAT] = {0};
	int top = -1;
	for (int i = 0; i < r->ngroups; i++) {
		struct dx_group *g = &r->groups[i];
		g->busy = g->wall_ns && active_ns(g->ns) * 4 >= g->wall_ns;
		if (!g->busy && !(i == 0 && active_ns(g->ns)))
			continue;
		g->busy = true;
		wall += g->wall_ns;
		for (int c = 0; c < DX_NCAT; c++)
			ns[c] += g->ns[c];
	}
	r->nfindings = 0;
	if (!wall)
		return;
	static const enum dx_cat spots[] = {DX_RUNQ, DX_THROTTLED, DX_FAULT, DX_IO, DX_GPU, DX_GIL};
	for (size_t s = 0; s < sizeof(spots) / sizeof(spots[0]); s++) {
		enum dx_cat c = spots[s];
		double share = (double)ns[c] / wall;
		if (share < DX_SIGNIFICANT)
			continue;
		/* the group that lost the most to it speaks for it */
		top = 0;
		for (int i = 1; i < r->ngroups; i++)
			if (r->groups[i].busy && r->groups[i].ns[c] > r->groups[top].ns[c])
				top = i;
		const struct dx_group *g = &r->groups[top];
		struct dx_finding *f = &r->findings[r->nfindings++];
		f->cat = c;
		f->share = share;
		f->evidence = evidence(a, r, c, g->wall_ns ? (double)g->ns[c] / g->wall_ns : share, g);
		f->advice = advice(c);
		dx_limits_finding(a, r, f, g);
	}
	qsort(r->findings, r->nfindings, sizeof(*r->findings), by_share);
}

/* ---- text ------------------------------------------------------------------ */

static uint64_t hist_total(const uint64_t *h)
{
	uint64_t n = 0;
	for (int b = 0; b < PR_HIST_BUCKETS; b++)
		n += h[b];
	return n;
}

static void pct_line(FILE *out, const char *name, uint64_t ns, uint64_t wall)
{
	fprintf(out, "    %-24s %10.1f ms  %5.1f %%\n", name, ns / 1e6, wall ? 100.0 * ns / wall : 0.0);
}

static void text_group(FILE *out, const struct dx_group *g)
{
	fprintf(out, "\n%s (pid %d), %d thread%s, %.2f s of thread time%s\n", g->comm, g->pid,
		g->nthreads, g->nthreads == 1 ? "" : "s", g->wall_ns / 1e9, g->busy ? "" : " (mostly idle)");
	uint64_t sum = 0;
	for (int c = 0; c < DX_NCAT; c++) {
		sum += g->ns[c];
		/* what rounds to 0.0 ms says nothing */
		if (g->ns[c] >= 50000 || c <= DX_RUNQ)
			pct_line(out, dx_cat_names[c], g->ns[c], g->wall_ns);
	}
	pct_line(out, "accounted", sum, g->wall_ns);
	if (g->gil_held_ns)
		fprintf(out, "    held the GIL on a CPU (sampled): %.1f ms, %.1f %%\n", g->gil_held_ns / 1e6,
			g->wall_ns ? 100.0 * g->gil_held_ns / g->wall_ns : 0.0);
	if (g->kernel_known) {
		fprintf(out, "    run-queue wait by the kernel's schedstat: %.1f ms (sonde measured %.1f ms",
			g->kernel_run_delay_ns / 1e6,
			(g->ns[DX_RUNQ] + g->ns[DX_THROTTLED] + g->gil_runq_ns) / 1e6);
		if (g->gil_runq_ns)
			fprintf(out, ", %.1f ms of it inside waits for the GIL", g->gil_runq_ns / 1e6);
		fputs(")\n", out);
	}
	fprintf(out, "    page faults: %" PRIu64 " major, %" PRIu64 " minor", g->majflt, g->minflt);
	if (g->bio_n)
		fprintf(out, "; block I/O: %" PRIu64 " requests, mean %.1f us", g->bio_n,
			g->bio_ns / 1e3 / g->bio_n);
	fputc('\n', out);
	for (int i = 0; i < g->nrw; i++)
		fprintf(out, "    %-12s %8" PRIu64 " calls, mean %.1f us, %.1f ms in all\n", g->rw[i].func,
			g->rw[i].n, g->rw[i].n ? g->rw[i].ns / 1e3 / g->rw[i].n : 0, g->rw[i].ns / 1e6);
	if (hist_total(g->wait_hist)) {
		fprintf(out, "    waits for a CPU, us (longest %.1f ms):\n", g->wait_max_ns / 1e6);
		pr_hist_text(out, g->wait_hist, PR_HIST_BUCKETS);
	}
	if (hist_total(g->bio_hist)) {
		fprintf(out, "    block I/O latency of its requests, us:\n");
		pr_hist_text(out, g->bio_hist, PR_HIST_BUCKETS);
	}
}

void dx_print_text(FILE *out, const struct dx_report *r)
{
	fprintf(out, "sonde diagnose: %s, %.1f s\n", r->target, r->seconds);
	for (int i = 0; i < r->ngroups; i++)
		text_group(out, &r->groups[i]);
	if (r->ninstead) {
		fprintf(out, "\nwho ran instead (on the CPUs where the service's threads waited):\n");
		for (int i = 0; i < r->ninstead && i < 10; i++)
			fprintf(out, "    %-16s pid %-8d %10.1f ms%s\n", r->instead[i].comm, r->instead[i].pid,
				r->instead[i].ns / 1e6, r->instead[i].self ? "  (the service itself)" : "");
	}
	for (int i = 0; i < r->ncgroups; i++) {
		const struct dx_cgroup *c = &r->cgroups[i];
		/* a cgroup without a quota has nothing to say */
		if (!c->nr_throttled && (!strcmp(c->quota, "none") || !strncmp(c->quota, "max", 3)))
			continue;
		fprintf(out, "\ncgroup %s: CPU quota %s; throttled in %" PRIu64 " of %" PRIu64
			" periods, %.1f ms\n", c->path, c->quota, c->nr_throttled, c->nr_periods,
			c->throttled_ns / 1e6);
	}
	dx_limits_text(out, r);
	if (r->nioctls) {
		fprintf(out, "\nGPU driver calls (ioctl on /dev/nvidia*):\n");
		for (int i = 0; i < r->nioctls; i++) {
			const struct dx_ioctl *x = &r->ioctls[i];
			fprintf(out, "    %-16s pid %-7d %-16s %-42s %8" PRIu64 " calls %8.1f/s  mean %.1f us\n",
				x->comm, x->pid, x->path, x->name, x->n, r->seconds ? x->n / r->seconds : 0,
				x->n ? x->ns / 1e3 / x->n : 0);
		}
	}
	dx_cuda_text(out, r);
	if (r->lost)
		fprintf(out, "\nnote: %" PRIu64 " events were lost; the figures above undercount\n", r->lost);
	fprintf(out, "\nverdict:\n");
	if (!r->nfindings)
		fprintf(out, "    no host-side bottleneck found: the busiest threads ran or slept by "
			"their own choice; no blind spot took %.0f %% of their time\n", DX_SIGNIFICANT * 100);
	for (int i = 0; i < r->nfindings; i++) {
		const struct dx_finding *f = &r->findings[i];
		fprintf(out, "  %d. %s: %.0f %% of the busiest threads' time\n", i + 1,
			dx_cat_names[f->cat], f->share * 100);
		fprintf(out, "     %s.\n     What to do: %s.\n", f->evidence, f->advice);
		dx_where_text(out, r, f->cat);
	}
}

/* ---- JSON ------------------------------------------------------------------ */

static void json_str(FILE *out, const char *s)
{
	pr_json_string(out, s, strlen(s));
}

static void json_cats(FILE *out, const uint64_t *ns)
{
	fputc('{', out);
	for (int c = 0; c < DX_NCAT; c++)
		fprintf(out, "%s\"%s\": %" PRIu64, c ? ", " : "", cat_keys[c], ns[c]);
	fputc('}', out);
}

/* , "name": {"[lo, hi)": count, ...} over the non-empty buckets */
static void json_hist(FILE *out, const char *name, const uint64_t *h)
{
	fprintf(out, ", \"%s\": {", name);
	bool first = true;
	for (int b = 0; b < PR_HIST_BUCKETS; b++) {
		if (!h[b])
			continue;
		char label[64];
		pr_hist_label(label, sizeof(label), b, 0);
		fprintf(out, "%s", first ? "" : ", ");
		json_str(out, label);
		fprintf(out, ": %" PRIu64, h[b]);
		first = false;
	}
	fputc('}', out);
}

void dx_print_json(FILE *out, const struct dx_report *r)
{
	fputs("{\"type\": \"diagnose\", \"data\": {\"target\": ", out);
	json_str(out, r->target);
	fprintf(out, ", \"seconds\": %.3f, \"lost_events\": %" PRIu64 ", \"groups\": [", r->seconds, r->lost);
	for (int i = 0; i < r->ngroups; i++) {
		const struct dx_group *g = &r->groups[i];
		fprintf(out, "%s{\"pid\": %d, \"comm\": ", i ? ", " : "", g->pid);
		json_str(out, g->comm);
		fprintf(out, ", \"threads\": %d, \"busy\": %s, \"wall_ns\": %" PRIu64 ", \"ns\": ",
			g->nthreads, g->busy ? "true" : "false", g->wall_ns);
		json_cats(out, g->ns);
		fprintf(out, ", \"wait_max_ns\": %" PRIu64 ", \"major_faults\": %" PRIu64
			", \"minor_faults\": %" PRIu64 ", \"block_requests\": %" PRIu64
			", \"block_ns\": %" PRIu64, g->wait_max_ns, g->majflt, g->minflt, g->bio_n, g->bio_ns);
		if (g->kernel_known)
			fprintf(out, ", \"kernel_run_delay_ns\": %" PRIu64, g->kernel_run_delay_ns);
		fprintf(out, ", \"gil_held_ns\": %" PRIu64 ", \"gil_runq_ns\": %" PRIu64, g->gil_held_ns,
			g->gil_runq_ns);
		json_hist(out, "wait_hist_us", g->wait_hist);
		json_hist(out, "block_hist_us", g->bio_hist);
		fputs(", \"rw_syscalls\": [", out);
		for (int k = 0; k < g->nrw; k++) {
			fprintf(out, "%s{\"syscall\": ", k ? ", " : "");
			json_str(out, g->rw[k].func);
			fprintf(out, ", \"calls\": %" PRIu64 ", \"ns\": %" PRIu64 "}", g->rw[k].n, g->rw[k].ns);
		}
		fputs("]}", out);
	}
	fputs("], \"ran_instead\": [", out);
	for (int i = 0; i < r->ninstead; i++) {
		fprintf(out, "%s{\"comm\": ", i ? ", " : "");
		json_str(out, r->instead[i].comm);
		fprintf(out, ", \"pid\": %d, \"ns\": %" PRIu64 ", \"self\": %s}", r->instead[i].pid,
			r->instead[i].ns, r->instead[i].self ? "true" : "false");
	}
	fputs("], \"cgroups\": [", out);
	for (int i = 0; i < r->ncgroups; i++) {
		const struct dx_cgroup *c = &r->cgroups[i];
		fprintf(out, "%s{\"path\": ", i ? ", " : "");
		json_str(out, c->path);
		fputs(", \"quota\": ", out);
		json_str(out, c->quota);
		fprintf(out, ", \"nr_periods\": %" PRIu64 ", \"nr_throttled\": %" PRIu64
			", \"throttled_ns\": %" PRIu64 "}", c->nr_periods, c->nr_throttled, c->throttled_ns);
	}
	fputc(']', out);
	dx_limits_json(out, r);
	fputs(", \"gpu_ioctls\": [", out);
	for (int i = 0; i < r->nioctls; i++) {
		const struct dx_ioctl *x = &r->ioctls[i];
		fprintf(out, "%s{\"pid\": %d, \"comm\": ", i ? ", " : "", x->pid);
		json_str(out, x->comm);
		fputs(", \"path\": ", out);
		json_str(out, x->path);
		fputs(", \"request\": ", out);
		json_str(out, x->name);
		fprintf(out, ", \"cmd\": %" PRIu64 ", \"calls\": %" PRIu64 ", \"ns\": %" PRIu64 "}",
			x->cmd, x->n, x->ns);
	}
	fputc(']', out);
	dx_cuda_json(out, r);
	fputs(", \"verdict\": [", out);
	for (int i = 0; i < r->nfindings; i++) {
		const struct dx_finding *f = &r->findings[i];
		fprintf(out, "%s{\"spot\": \"%s\", \"share\": %.4f, \"evidence\": ", i ? ", " : "",
			cat_keys[f->cat], f->share);
		json_str(out, f->evidence);
		fputs(", \"advice\": ", out);
		json_str(out, f->advice);
		dx_where_json(out, r, f->cat);
		fputc('}', out);
	}
	fputc(']', out);
	dx_gil_json(out, r);
	dx_threads_json(out, r, cat_keys);
	fputs("}}\n", out);
}
