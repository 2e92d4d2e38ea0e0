/*
 * scrape.c - every map as metrics, read when asked (docs/metrics.md).
 *
 * A scrape reads each map as printing at exit would (maps.c), each key
 * element named as a label (labels.c), and hands the maps to the selected
 * scrape writer (output/prometheus.c);
 * sonde's own health follows: events lost, per-probe hits and BPF time
 * from the kernel's run-time statistics, series the caps dropped, the
 * previous scrape's duration.
 *
 * The textfile mode (a scrape format with -o FILE) writes the same
 * exposition to FILE every interval through a temporary file and
 * rename(), so node_exporter's textfile collector never reads half a file.
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>


/* Bytes one response may hold: 10,000 series of 5 labels are ~2 MB. */
#define SCRAPE_BYTE_LIMIT (32u << 20)

/* ---- health -------------------------------------------------------------------------- */

/* per-probe hits and run time; the kernel counts while a BPF_ENABLE_STATS
 * fd is open (needs CAP_SYS_ADMIN; without it the families are left out) */
static int probe_stats(struct rt *rt, struct pr_probe_stat **out)
{
	int n = 0;
	if (rt->metrics.stats_fd < 0)
		return 0;
	struct pr_probe_stat *v = arena_new_array(rt->a, struct pr_probe_stat,
						  (size_t)(rt->obj->nprogs ? rt->obj->nprogs : 1));
	for (int i = 0; i < rt->obj->nprogs; i++) {
		const struct cg_prog *p = &rt->obj->progs[i];
		enum probe_type type = p->probe->attach[p->first_attach].type;
		if (sema_provider(type)->runs_once)
			continue;
		struct bpf_program *prog = bpf_object__find_program_by_name(rt->bpf, p->name);
		struct bpf_prog_info info;
		uint32_t len = sizeof(info);
		memset(&info, 0, sizeof(info));
		if (!prog || bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
			continue;
		/* one program serves several attach points: named by its first,
		 * "+N" when it has more */
		const char *name = p->probe->attach[p->first_attach].name;
		if (p->nattach > 1)
			name = arena_printf(rt->a, "%s +%d", name, p->nattach - 1);
		v[n++] = (struct pr_probe_stat){name, info.run_cnt, info.run_time_ns};
	}
	*out = v;
	return n;
}

uint64_t rt_lost_events(struct rt *rt)
{
	return rt_percpu_sum(rt, bpf_object__find_map_fd_by_name(rt->bpf, CG_LOST_MAP), 0);
}

/* ---- one scrape ----------------------------------------------------------------------- */

void rt_scrape(struct rt *rt, FILE *out, const struct output_writer *w)
{
	double start = (double)rt_mono_ns() / 1e9;
	/* the events queued before the scrape first: an exec's names the
	 * frames of the stacks its process left in the maps (exited.c) */
	if (rt->rb)
		rt_events_consume(rt);
	struct arena *keep = rt->a;
	struct arena_mark mark = arena_mark(rt->scratch);
	rt->a = rt->scratch;
	const struct sema_result *r = rt->r;
	const char **names = arena_new_array(rt->a, const char *, (size_t)(r->nmaps ? r->nmaps : 1));
	/* a program's own families: its maps are its bookkeeping, not series */
	int nmaps = rt->o->scrape_fn ? 0 : r->nmaps;
	if (rt->o->scrape_fn)
		rt->o->scrape_fn(rt->o->scrape_arg, rt, out, w->openmetrics);
	for (int i = 0; i < nmaps; i++) {
		const struct sema_map *m = r->maps[i];
		struct pr_map pm;
		names[i] = m->name;
		/* values set and delete()d per key (start timestamps by tid)
		 * are bookkeeping, not measurements */
		if (m->kind == MK_VALUE && m->deleted)
			continue;
		if (rt_map_build(rt, m, &pm)) {
			fprintf(stderr, "sonde: map '%s': cannot read\n", m->name);
			continue;
		}
		pm.series_cap = rt->o->series_cap;
		pm.byte_limit = SCRAPE_BYTE_LIMIT;
		w->map(out, &pm, 0, 0);
		rt->metrics.dropped[m->id] += pm.series_dropped;
	}
	/* every map was read: the processes gone and not printed go */
	rt_ps_sweep(rt);
	uint64_t *dropped = arena_new_array(rt->a, uint64_t, (size_t)(r->nmaps ? r->nmaps : 1));
	for (int i = 0; i < nmaps; i++)
		dropped[i] = rt->metrics.dropped[r->maps[i]->id];
	struct pr_probe_stat *ps = NULL;
	int nps = probe_stats(rt, &ps);
	struct pr_health h = {.lost = rt_lost_events(rt), .probes = ps, .nprobes = nps,
			      .maps = names, .dropped = dropped, .nmaps = nmaps,
			      .last_scrape_s = rt->metrics.last_scrape_s, .procs = rt->procs != NULL};
	rt_ps_stats(rt, &h.procs_kept, &h.procs_evicted);
	pr_prom_health(out, w->openmetrics, &h);
	arena_release(rt->scratch, mark);
	rt->a = keep;
	rt->metrics.last_scrape_s = (double)rt_mono_ns() / 1e9 - start;
}

static bool named(const char *const *list, const char *name)
{
	for (; list && *list; list++)
		if (!strcmp(*list, name))
			return true;
	return false;
}

void rt_maps_read(struct rt *rt, const char *const *last)
{
	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < rt->r->nmaps; i++)
			if (named(last, rt->r->maps[i]->name) == (pass == 1))
				rt_map_print(rt, rt->r->maps[i], 0, 0);
}

void rt_scrape_stats_on(struct rt *rt)
{
	/* hits and run time per program: the kernel keeps them only while
	 * someone holds this fd, so it is taken before the first attach (the
	 * hits of a -c child's first calls would be lost otherwise) */
	rt->metrics.stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (rt->metrics.stats_fd < 0 && rt->o->verbose)
		fprintf(stderr, "sonde: no per-probe statistics (BPF_ENABLE_STATS: %s)\n",
			strerror(-rt->metrics.stats_fd));
}

int rt_scrape_start(struct rt *rt)
{
	rt->metrics.dropped = arena_new_array(rt->perm, uint64_t, (size_t)(rt->r->nmaps ? rt->r->nmaps : 1));
	if (!rt->o->metrics_file)
		return 0;
	/* the file exists from the start, and a path that cannot be written
	 * is an error now rather than a warning every interval */
	rt->metrics.next_write = (double)rt_mono_ns() / 1e9 + rt->o->interval_s;
	return rt_scrape_to_file(rt);
}

void rt_scrape_stop(struct rt *rt)
{
	if (rt->metrics.stats_fd >= 0)
		close(rt->metrics.stats_fd);
	rt->metrics.stats_fd = -1;
	kube_index_free(rt->metrics.kube);
	rt->metrics.kube = NULL;
}

/* ---- the textfile ------------------------------------------------------------------------ */

int rt_scrape_to_file(struct rt *rt)
{
	const char *path = rt->o->metrics_file;
	char tmp[4096];
	snprintf(tmp, sizeof(tmp), "%s.%d.tmp", path, (int)getpid());
	/* a fresh file, never through a link someone left at this name (the
	 * textfile directory may be shared); readable by the collector */
	unlink(tmp);
	int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!f) {
		int err = -errno;
		if (fd >= 0)
			close(fd);
		fprintf(stderr, "sonde: cannot write %s: %s\n", path, strerror(-err));
		return err;
	}
	rt_scrape(rt, f, rt->o->writer);
	int err = 0;
	if (fflush(f) || fsync(fileno(f)))
		err = -errno;
	if (fclose(f) && !err)
		err = -errno;
	if (!err && rename(tmp, path))
		err = -errno;
	if (err) {
		fprintf(stderr, "sonde: cannot write %s: %s\n", path, strerror(-err));
		unlink(tmp);
	}
	return err;
}

void rt_scrape_tick(struct rt *rt)
{
	if (!rt->o->metrics_file || (double)rt_mono_ns() / 1e9 < rt->metrics.next_write)
		return;
	rt->metrics.next_write = (double)rt_mono_ns() / 1e9 + rt->o->interval_s;
	rt_scrape_to_file(rt);
}
