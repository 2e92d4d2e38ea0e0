/*
 * run.c - load the object, attach every probe, run until told to stop.
 *
 * BEGIN and END are raw_tp programs that are never attached: they run once
 * through BPF_PROG_TEST_RUN, on this CPU in sonde's own context, so a
 * BEGIN-only script does no attach work at all.  interval, profile and
 * software probes are perf events; tracepoints attach through libbpf;
 * uprobes go wherever runtime/uresolve.c says the target really is.
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <poll.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/settings.h"
#include "host/host.h"

/* ---- libbpf's messages ----------------------------------------------------- */

static int log_verbose;
static char *load_log;		/* captured while loading, for verifier errors */
static size_t load_log_len;
static FILE *load_log_f;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (load_log_f) {
		va_list ap2;
		va_copy(ap2, ap);
		vfprintf(load_log_f, fmt, ap2);
		va_end(ap2);
	}
	if (level == LIBBPF_DEBUG && log_verbose < 2)
		return 0;
	if (level == LIBBPF_INFO && !log_verbose)
		return 0;
	if (level == LIBBPF_WARN && !log_verbose)
		return 0;	/* errors are reported by sonde in one sentence */
	return vfprintf(stderr, fmt, ap);
}

void rt_libbpf_logging(int verbose)
{
	log_verbose = verbose;
	libbpf_set_print(libbpf_print);
}

/* ---- links and perf events --------------------------------------------------- */

static void add_link(struct rt *rt, struct bpf_link *l)
{
	rt->links = vec_grow(rt->links, (size_t)rt->nlinks, sizeof(*rt->links));
	rt->links[rt->nlinks++] = l;
}

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
		add_link(rt, l);
		attached++;
	}
	return attached ? 0 : -ENODEV;
}

static void uprobe_note(void *ctx, enum rs_note_level level, const char *msg)
{
	struct rt *rt = ctx;
	/* --follow rescans every second and would repeat the same notes */
	if ((level == RS_NOTE_WARN || rt->o->verbose) && !rt_follow_note_first(rt, msg))
		return;
	if (level == RS_NOTE_WARN)
		fprintf(stderr, "sonde: warning: %s\n", msg);
	else if (rt->o->verbose)
		fprintf(stderr, "sonde: %s\n", msg);
}

/* one cookie per symbol name, not per site: `func` must be the same
 * value in a uprobe and its uretprobe, and in every file (host and
 * container libc), or `@[func]` prints one key several times */
uint64_t rt_site_cookie(struct rt *rt, const char *sym)
{
	for (int i = rt->nsite_names - 1; i >= 0; i--)
		if (!strcmp(rt->site_names[i], sym))
			return (1u << 20) + (uint64_t)i;
	rt->site_names = vec_grow(rt->site_names, (size_t)rt->nsite_names, sizeof(*rt->site_names));
	rt->site_names[rt->nsite_names] = arena_strdup(rt->perm, sym);
	return (1u << 20) + (uint64_t)rt->nsite_names++;
}

/* "pid 12" / "pids 12, 13, 14 and 9 more" */
static void pid_list(char *buf, size_t len, const int *pids, size_t n)
{
	size_t used = (size_t)snprintf(buf, len, "pid%s ", n == 1 ? "" : "s");
	for (size_t i = 0; i < n && i < 6 && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%d", i ? ", " : "", pids[i]);
	if (n > 6 && used < len)
		snprintf(buf + used, len - used, " and %zu more", n - 6);
	if (!n)	/* a host file no process maps yet (ld.so cache, PATH) */
		snprintf(buf, len, "any process that maps it");
}

/* -v: where a site was attached, and for which processes */
static void site_note(struct rt *rt, const struct sema_attach *at, const struct rs_site *s,
		      bool later)
{
	if (!rt->o->verbose)
		return;
	char who[256];
	pid_list(who, sizeof(who), s->file->pids, s->file->npids);
	fprintf(stderr, "sonde: %s: attached %s+0x%llx in %s%s%s (%u:%u inode %llu) for %s\n",
		at->name, s->sym, (unsigned long long)s->offset, later ? "new file " : "",
		s->file->path, s->file->deleted ? " (deleted)" : "",
		major((dev_t)s->file->dev), minor((dev_t)s->file->dev),
		(unsigned long long)s->file->ino, who);
}

/* n sites of one file in one multi-uprobe link (umulti.c); 0 or -errno */
static int attach_multi(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
			const struct rs_site *const *sites, size_t n, bool later)
{
	uint64_t *offs = calloc(n, sizeof(*offs)), *cookies = calloc(n, sizeof(*cookies));
	int fd = -ENOMEM;
	if (offs && cookies) {
		for (size_t i = 0; i < n; i++) {
			offs[i] = sites[i]->offset;
			cookies[i] = rt_site_cookie(rt, sites[i]->sym);
		}
		fd = rt_umulti_link(bpf_program__fd(prog), sites[0]->file->attach_path, offs, cookies,
				    (uint32_t)n, rt->o->pid, at->type == PT_URETPROBE);
	}
	free(offs);
	free(cookies);
	if (fd < 0)
		return fd;
	rt->link_fds = vec_grow(rt->link_fds, (size_t)rt->nlink_fds, sizeof(*rt->link_fds));
	rt->link_fds[rt->nlink_fds++] = fd;
	for (size_t i = 0; i < n; i++)
		site_note(rt, at, sites[i], later);
	return 0;
}

int rt_attach_uprobe_site(struct rt *rt, struct bpf_program *prog,
			  const struct sema_attach *at, const struct rs_site *s, bool later)
{
	if (rt_umulti_prog(prog))
		return attach_multi(rt, prog, at, &s, 1, later);
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .retprobe = at->type == PT_URETPROBE,
		    .bpf_cookie = rt_site_cookie(rt, s->sym));
	struct bpf_link *l = bpf_program__attach_uprobe_opts(prog, rt->o->pid ? rt->o->pid : -1,
							     s->file->attach_path, s->offset, &uo);
	if (!l)
		return -errno;
	add_link(rt, l);
	site_note(rt, at, s, later);
	return 0;
}

/* every site of one file in one link: attach and detach wait for the
 * kernel once per file instead of once per function */
static int attach_sites_multi(struct rt *rt, struct bpf_program *prog,
			      const struct sema_attach *at, const struct rs_sites *sites)
{
	const struct rs_site **group = calloc(sites->nsites ? sites->nsites : 1, sizeof(*group));
	if (!group)
		return -ENOMEM;
	int err = 0;
	for (size_t f = 0; f < sites->nfiles && !err; f++) {
		size_t n = 0;
		for (size_t i = 0; i < sites->nsites; i++)
			if (sites->sites[i].file == sites->files[f])
				group[n++] = &sites->sites[i];
		if (!n)
			continue;
		err = attach_multi(rt, prog, at, group, n, false);
		if (err)
			fprintf(stderr, "sonde: %s: cannot attach to %zu function%s in %s: %s\n",
				at->name, n, n == 1 ? "" : "s", sites->files[f]->path, strerror(-err));
		else if (rt->o->verbose)
			fprintf(stderr, "sonde: %s: %zu site%s in %s share one multi-uprobe link\n",
				at->name, n, n == 1 ? "" : "s", sites->files[f]->path);
	}
	free(group);
	return err;
}

static struct rs_query uprobe_query(struct rt *rt, const struct sema_attach *at)
{
	return (struct rs_query){
		.target = at->target, .func = at->func, .pid = rt->o->pid,
		.container = rt->o->container, .note = uprobe_note, .note_ctx = rt,
		.allow_none = rt->follow != NULL,
	};
}

/* A uprobe attach point resolved before anything attaches (attach_all):
 * resolving in source order warns about missing symbols in source order,
 * attaching in reverse order makes probes on one address fire in source
 * order. */
struct uprobe_plan {
	const struct sema_attach *at;
	struct rs_sites *sites;	/* NULL: not resolved (rc says why) */
	int rc;
	char err[512];
};

static void hint_moved_symbol(const struct sema_attach *at, char *err, size_t len);

static int attach_uprobe(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
			 int *count)
{
	if (rt->o->user_probes)
		return 0;	/* the agents hook them: rt_agent_attach (agent.c) */
	struct rs_query q = uprobe_query(rt, at);
	struct rs_sites *sites = NULL;
	char err[512] = "";
	/* attach_all resolved it already */
	for (int i = 0; i < rt->nplans; i++)
		if (rt->plans[i].at == at) {
			sites = rt->plans[i].sites;
			rt->plans[i].sites = NULL;
			snprintf(err, sizeof(err), "%s", rt->plans[i].err);
			if (!sites)
				return 0;	/* missing, warned about in plan_uprobes */
			break;
		}
	if (!sites) {
		int rc = rs_resolve(&q, &sites, err, sizeof(err));
		if (rc) {
			fprintf(stderr, "sonde: %s: %s\n", at->name, err);
			return rc;
		}
	}
	if (!sites->nsites)
		fprintf(stderr, "sonde: %s: nothing to attach to yet (%s); --follow keeps looking\n",
			at->name, *err ? err : "no match");
	if (rt_umulti_prog(prog)) {
		int e = attach_sites_multi(rt, prog, at, sites);
		if (e) {
			rs_sites_free(sites);
			return e;
		}
		*count += (int)sites->nsites;
	}
	for (size_t i = 0; i < sites->nsites && !rt_umulti_prog(prog); i++) {
		const struct rs_site *s = &sites->sites[i];
		int e = rt_attach_uprobe_site(rt, prog, at, s, false);
		if (e) {
			fprintf(stderr, "sonde: %s: cannot attach to %s in %s at offset 0x%llx: %s\n",
				at->name, s->sym, s->file->path, (unsigned long long)s->offset,
				strerror(-e));
			rs_sites_free(sites);
			return e;
		}
		(*count)++;
	}
	if (rt->follow || rt->o->verbose)
		rt_watch_sites(rt, at, sites);
	/* --follow: keep the query and the files seen, to find new ones */
	if (rt->follow)
		return rt_follow_keep(rt, prog, at, &q, sites);
	rs_sites_free(sites);
	return 0;
}

/* A symbol that is not in a glibc library it used to be in: since glibc
 * 2.34, libpthread, libdl, librt, libutil and libanl are stubs and their
 * functions live in libc (threadsnoop.bt's uprobe:libpthread:pthread_create).
 * Say where it is when libc has it. */
static void hint_moved_symbol(const struct sema_attach *at, char *err, size_t len)
{
	static const char *const merged[] = {"libpthread", "libdl", "librt", "libutil", "libanl"};
	const char *base = strrchr(at->target, '/') ? strrchr(at->target, '/') + 1 : at->target;
	bool was_merged = false;
	for (size_t i = 0; i < sizeof(merged) / sizeof(merged[0]); i++)
		if (!strncmp(base, merged[i], strlen(merged[i])) &&
		    (!base[strlen(merged[i])] || base[strlen(merged[i])] == '.' ||
		     base[strlen(merged[i])] == '-'))
			was_merged = true;
	if (!was_merged || strpbrk(at->func, "*?[+"))
		return;
	struct rs_query q = {.target = "libc", .func = at->func};
	struct rs_sites *sites = NULL;
	char e2[256];
	if (rs_resolve(&q, &sites, e2, sizeof(e2)))
		return;
	if (sites->nsites) {
		const char *path = sites->sites[0].file->path;
		const char *lib = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
		size_t n = strlen(err);
		snprintf(err + n, len - n, "; %s is in %s (glibc moved it there in 2.34): uprobe:libc:%s",
			 at->func, lib, at->func);
	}
	rs_sites_free(sites);
}

/* A link from libbpf, or the reason it gave none. */
static int keep_link(struct rt *rt, const struct sema_attach *at, struct bpf_link *l, int *count)
{
	if (!l) {
		int err = -errno;
		fprintf(stderr, "sonde: %s: cannot attach: %s\n", at->name, strerror(-err));
		return err;
	}
	add_link(rt, l);
	(*count)++;
	return 0;
}

/* BEGIN/END are not attached: run_special() runs them */
static int attach_special(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
			  int *count)
{
	(*count)++;
	return 0;
}

static int attach_tracepoint(struct rt *rt, struct bpf_program *prog,
			     const struct sema_attach *at, int *count)
{
	return keep_link(rt, at, bpf_program__attach_tracepoint(prog, at->target, at->func), count);
}

static int attach_raw_tracepoint(struct rt *rt, struct bpf_program *prog,
				 const struct sema_attach *at, int *count)
{
	return keep_link(rt, at, bpf_program__attach_raw_tracepoint(prog, at->func), count);
}

static int attach_kprobe(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
			 int *count)
{
	struct bpf_link *l = bpf_program__attach_kprobe(prog, at->type == PT_KRETPROBE, at->func);
	if (!l && errno == ENOENT) {
		fprintf(stderr, "sonde: %s: no kernel function '%s' can be probed\n", at->name,
			at->func);
		return -ENOENT;
	}
	return keep_link(rt, at, l, count);
}

/* sema read the note: a uprobe at its file offset; the kernel counts the
 * semaphore (if any) up while it is attached */
static int attach_usdt(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
		       int *count)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .ref_ctr_offset = (size_t)at->usdt->sema_off);
	struct bpf_link *l = bpf_program__attach_uprobe_opts(prog, rt->o->pid ? rt->o->pid : -1,
							     at->target, (size_t)at->usdt->pc_off, &uo);
	if (l && rt->o->verbose)
		fprintf(stderr, "sonde: %s: attached at offset 0x%llx in %s%s\n", at->name,
			(unsigned long long)at->usdt->pc_off, at->target,
			at->usdt->sema_off ? " (with its semaphore)" : "");
	return keep_link(rt, at, l, count);
}

static int attach_perf_counted(struct rt *rt, struct bpf_program *prog,
			       const struct sema_attach *at, int *count)
{
	int rc = attach_perf(rt, prog, at);
	if (!rc)
		(*count)++;
	return rc;
}

/* How each probe type attaches, indexed by enum probe_type: the runtime
 * half of sema's provider table (sema/probes.c).  rt_run() refuses to
 * start when a row is missing. */
static int (*const attachers[])(struct rt *rt, struct bpf_program *prog,
				const struct sema_attach *at, int *count) = {
	[PT_BEGIN] = attach_special,
	[PT_END] = attach_special,
	[PT_TRACEPOINT] = attach_tracepoint,
	[PT_RAWTRACEPOINT] = attach_raw_tracepoint,
	[PT_UPROBE] = attach_uprobe,
	[PT_URETPROBE] = attach_uprobe,
	[PT_USDT] = attach_usdt,
	[PT_KPROBE] = attach_kprobe,
	[PT_KRETPROBE] = attach_kprobe,
	[PT_INTERVAL] = attach_perf_counted,
	[PT_PROFILE] = attach_perf_counted,
	[PT_SOFTWARE] = attach_perf_counted,
	[PT_HARDWARE] = attach_perf_counted,
};
_Static_assert(sizeof(attachers) / sizeof(attachers[0]) == PT_COUNT,
	       "every probe type has an attach function");

static bool attachers_complete(void)
{
	for (size_t i = 0; i < PT_COUNT; i++)
		if (!attachers[i]) {
			fprintf(stderr, "sonde: internal error: probe type %s has no attach function\n",
				sema_probe_type_name((enum probe_type)i));
			return false;
		}
	return true;
}

/* ---- loading ------------------------------------------------------------------ */

static const struct sema_attach *prog_attach(const struct cg_prog *p, int i)
{
	return &p->probe->attach[p->first_attach + i];
}

static int load(struct rt *rt)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "sonde");
	rt->bpf = bpf_object__open_mem(rt->obj->elf, rt->obj->elf_size, &oo);
	if (!rt->bpf) {
		fprintf(stderr, "sonde: cannot open the generated BPF object: %s\n", strerror(errno));
		return -errno;
	}
	rt_umulti_prepare(rt);
	int err = rt_events_size(rt);
	if (err) {
		fprintf(stderr, "sonde: cannot size the event ring buffer: %s\n", strerror(-err));
		return err;
	}
	load_log_f = open_memstream(&load_log, &load_log_len);
	err = bpf_object__load(rt->bpf);
	fclose(load_log_f);
	load_log_f = NULL;
	if (err) {
		rt_say_refused(rt, err, load_log);
		free(load_log);
		load_log = NULL;
		return err;
	}
	free(load_log);
	load_log = NULL;
	rt->map_fds = calloc((size_t)(rt->r->nmaps ? rt->r->nmaps : 1), sizeof(int));
	rt->map_zeroed = calloc((size_t)(rt->r->nmaps ? rt->r->nmaps : 1), sizeof(bool));
	if (!rt->map_fds || !rt->map_zeroed) {
		fprintf(stderr, "sonde: out of memory\n");
		return -ENOMEM;
	}
	for (int i = 0; i < rt->r->nmaps; i++) {
		const struct sema_map *m = rt->r->maps[i];
		struct bpf_map *bm = bpf_object__find_map_by_name(rt->bpf, cg_map_obj_name(rt->perm, m));
		rt->map_fds[m->id] = bm ? bpf_map__fd(bm) : -1;
	}
	return 0;
}

static struct bpf_program *prog_of(struct rt *rt, const struct cg_prog *p)
{
	return bpf_object__find_program_by_name(rt->bpf, p->name);
}

/* run every BEGIN (or END) program once, in source order */
static void run_special(struct rt *rt, enum probe_type type)
{
	/* a program serves several attach points when its body does not
	 * depend on them: `BEGIN,END { }` runs at both ends */
	for (int i = 0; i < rt->obj->nprogs; i++) {
		const struct cg_prog *p = &rt->obj->progs[i];
		for (int j = 0; j < p->nattach; j++) {
			if (prog_attach(p, j)->type != type)
				continue;
			uint64_t ctx[12] = {0};
			LIBBPF_OPTS(bpf_test_run_opts, to, .ctx_in = ctx, .ctx_size_in = sizeof(ctx));
			int err = bpf_prog_test_run_opts(bpf_program__fd(prog_of(rt, p)), &to);
			if (err)
				fprintf(stderr, "sonde: %s: cannot run: %s\n", prog_attach(p, j)->name,
					strerror(-err));
		}
	}
}

static bool is_uprobe_family(enum probe_type t)
{
	return t == PT_UPROBE || t == PT_URETPROBE || t == PT_USDT;
}

/* Resolve every uprobe attach point in source order.  A probe with
 * several attach points keeps those that resolve: each missing symbol or
 * file is a warning (tools written for several library versions name
 * functions that only some versions have).  A probe with nothing left is
 * an error. */
static int plan_uprobes(struct rt *rt)
{
	if (rt->o->user_probes)
		return 0;	/* the agents resolve them in each target (agent.c) */
	int n = 0;
	for (int i = 0; i < rt->obj->nprogs; i++)
		n += rt->obj->progs[i].nattach;
	rt->plans = calloc((size_t)n + 1, sizeof(*rt->plans));
	if (!rt->plans)
		return -ENOMEM;
	for (int i = 0; i < rt->obj->nprogs; i++) {
		const struct cg_prog *p = &rt->obj->progs[i];
		for (int j = 0; j < p->nattach; j++) {
			const struct sema_attach *at = prog_attach(p, j);
			if (at->type != PT_UPROBE && at->type != PT_URETPROBE)
				continue;
			struct uprobe_plan *pl = &rt->plans[rt->nplans++];
			struct rs_query q = uprobe_query(rt, at);
			pl->at = at;
			pl->rc = rs_resolve(&q, &pl->sites, pl->err, sizeof(pl->err));
			if (pl->rc == -ENOENT)
				hint_moved_symbol(at, pl->err, sizeof(pl->err));
		}
	}
	/* per probe: does anything of it resolve? (one probe may span programs) */
	for (int k = 0; k < rt->nplans; k++) {
		struct uprobe_plan *pl = &rt->plans[k];
		if (!pl->rc)
			continue;
		const struct sema_probe *probe = NULL;
		for (int i = 0; i < rt->obj->nprogs && !probe; i++)
			for (int j = 0; j < rt->obj->progs[i].nattach; j++)
				if (prog_attach(&rt->obj->progs[i], j) == pl->at)
					probe = rt->obj->progs[i].probe;
		bool others = false;
		for (int a = 0; probe && a < probe->nattach; a++) {
			const struct sema_attach *o = &probe->attach[a];
			bool planned = false;
			for (int m = 0; m < rt->nplans; m++)
				if (rt->plans[m].at == o) {
					planned = true;
					others |= o != pl->at && !rt->plans[m].rc;
				}
			others |= !planned;
		}
		/* missing_probes (config block or BPFTRACE_MISSING_PROBES):
		 * warn (the default) or ignore a point that is not there
		 * while others of its probe attach; error stops at it */
		int64_t missing = settings_int(SET_MISSING_PROBES);
		if (pl->rc != -ENOENT || !others || missing == SET_MISSING_ERROR) {
			fprintf(stderr, "sonde: %s: %s\n", pl->at->name, pl->err);
			return pl->rc;
		}
		if (missing == SET_MISSING_WARN)
			fprintf(stderr, "sonde: warning: %s: %s: not attached\n", pl->at->name, pl->err);
	}
	return 0;
}

/* attach every point (timers: whether interval points are the ones to
 * attach or the ones to leave) */
static int attach_all(struct rt *rt, int *count, bool timers)
{
	int err = timers ? 0 : plan_uprobes(rt);
	if (err)
		return err;
	/* everything but uprobes, in source order */
	for (int i = 0; i < rt->obj->nprogs; i++) {
		const struct cg_prog *p = &rt->obj->progs[i];
		struct bpf_program *prog = prog_of(rt, p);
		for (int j = 0; j < p->nattach; j++) {
			const struct sema_attach *at = prog_attach(p, j);
			if ((at->type == PT_INTERVAL) != timers || is_uprobe_family(at->type))
				continue;
			err = attachers[at->type](rt, prog, at, count);
			if (err)
				return err;
		}
	}
	if (timers)
		return 0;
	/* uprobes in reverse: the kernel runs the handlers of one probed
	 * address newest first, so this makes them fire in source order
	 * (tracepoints and perf events run theirs oldest first) */
	for (int i = rt->obj->nprogs - 1; i >= 0; i--) {
		const struct cg_prog *p = &rt->obj->progs[i];
		struct bpf_program *prog = prog_of(rt, p);
		for (int j = p->nattach - 1; j >= 0; j--) {
			const struct sema_attach *at = prog_attach(p, j);
			if (!is_uprobe_family(at->type))
				continue;
			err = attachers[at->type](rt, prog, at, count);
			if (err)
				return err;
		}
	}
	return 0;
}

static void detach_all(struct rt *rt)
{
	for (int i = 0; i < rt->nlinks; i++)
		bpf_link__destroy(rt->links[i]);
	rt->nlinks = 0;
	for (int i = 0; i < rt->nlink_fds; i++)
		close(rt->link_fds[i]);
	rt->nlink_fds = 0;
}

static bool only_special(const struct sema_result *r)
{
	for (int i = 0; i < r->nprobes; i++)
		for (int j = 0; j < r->probes[i].nattach; j++)
			if (!sema_provider(r->probes[i].attach[j].type)->runs_once)
				return false;
	return true;
}

static void name_attach_points(struct rt *rt)
{
	const struct sema_result *r = rt->r;
	rt->attach_names = arena_new_array(rt->perm, const char *, r->nattach ? r->nattach : 1);
	for (int i = 0; i < r->nprobes; i++)
		for (int j = 0; j < r->probes[i].nattach; j++)
			rt->attach_names[rt->nattach_names++] = r->probes[i].attach[j].name;
}

int rt_run(const struct sema_result *r, const struct cg_object *obj, const struct rt_opts *o)
{
	struct rt rt = {.r = r, .obj = obj, .o = o, .stats_fd = -1,
			.stopper = {.wake = {-1, -1}, .target_fd = -1, .extra_fd = -1}};
	if (!attachers_complete())
		return 1;
	rt.perm = arena_new();
	rt.scratch = arena_new();
	rt.a = rt.perm;
	rt.ncpus = libbpf_num_possible_cpus();
	int rc = 1, count = 0;
	name_attach_points(&rt);

	if (load(&rt))
		goto out;
	if (rt_stop_open(&rt))
		goto out;

	if (rt_events_open(&rt) || rt_overhead_start(&rt))
		goto out;
	if (o->follow && !o->dry_run && rt_follow_start(&rt)) {
		fprintf(stderr, "sonde: out of memory\n");
		goto out;
	}
	if (o->user_probes && o->child_go_fd >= 0 && o->child_pid) {
		/* the child starts, and its agent holds it before main() */
		if (write(o->child_go_fd, "g", 1) < 0)
			fprintf(stderr, "sonde: cannot start the child command: %m\n");
		close(o->child_go_fd);
	}
	if (o->user_probes && rt_agent_attach(&rt, &count))
		goto out;
	/* interval timers start after BEGIN ran, as in bpftrace: the first
	 * tick of interval:s:1 comes one second after BEGIN, not earlier */
	if (attach_all(&rt, &count, false))
		goto out;
	int ntimers = 0;
	for (int i = 0; i < r->nprobes; i++)
		for (int j = 0; j < r->probes[i].nattach; j++)
			ntimers += r->probes[i].attach[j].type == PT_INTERVAL;
	if (o->dry_run) {
		if (attach_all(&rt, &count, true))
			goto out;
		detach_all(&rt);
		if (!o->quiet)
			fprintf(stderr, "sonde: dry run: %d probe%s loaded and attached\n", count,
				count == 1 ? "" : "s");
		rc = 0;
		goto out;
	}
	if (!o->quiet) {
		o->writer->attached(o->out, stderr, count + ntimers);
		fflush(o->out);	/* JSON readers (and tests) wait for this line */
	}
	/* BEGIN runs before the -c command starts, as in bpftrace: its output
	 * comes first, whatever the command does */
	run_special(&rt, PT_BEGIN);
	rt_events_drain(&rt);
	rt_agent_go(&rt);
	int ticking = 0;
	if (!rt.stop && ntimers && attach_all(&rt, &ticking, true))
		goto out;
	if (o->child_go_fd >= 0 && o->child_pid && !o->user_probes) {
		rt_child_trace(&rt);
		if (write(o->child_go_fd, "g", 1) < 0)
			fprintf(stderr, "sonde: cannot start the child command: %m\n");
		close(o->child_go_fd);
	}

	/* scrape formats: the maps are read while the probes run */
	if (o->writer->scrape && (rt_scrape_start(&rt) ||
				  (o->serve_addr && rt_serve_start(&rt, o->serve_addr))))
		goto out;
	/* stop.c: signals, exit(), the -c command and the -p process each
	 * end the loop at once, whatever the event rate; events.c takes a
	 * bounded share of the ring each time (no wait while some is left) */
	if (!rt_stop_update(&rt) &&
	    !(only_special(r) && !o->child_pid && !o->pid && !o->writer->scrape)) {
		while (!rt_stop_update(&rt)) {
			/* --serve: HTTP clients wake the same wait (serve.c) */
			int timeout = rt.ev.more ? 0 : 100;
			int n = rt_stop_wait(&rt, rt.serve ? rt_serve_timeout(&rt, timeout) : timeout);
			if (n >= 0)
				n = rt_events_consume(&rt);
			if (n < 0)
				break;
			rt_agent_poll(&rt);
			if (rt.follow)
				rt_follow_tick(&rt);
			rt_watch_tick(&rt);
			if (rt.serve)
				rt_serve_run(&rt);
			rt_scrape_tick(&rt);
			rt_overhead_tick(&rt);
		}
	} else if (!rt.stop) {
		/* only BEGIN/END and no exit(): wait for Ctrl-C, as bpftrace.
		 * The signals stay blocked between the test and the wait, so
		 * one that arrives in between is not lost. */
		sigset_t block, old;
		fflush(o->out);	/* BEGIN's output shows before the wait */
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigprocmask(SIG_BLOCK, &block, &old);
		while (!rt.stop)
			sigsuspend(&old);
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	rt_agent_detach(&rt);
	detach_all(&rt);
	rt_stop_drain(&rt);
	run_special(&rt, PT_END);
	rt_events_drain(&rt);
	/* a scrape format prints no maps at exit; the textfile gets its last
	 * state */
	if (o->metrics_file)
		rt_scrape_to_file(&rt);
	else if (!o->writer->scrape && settings_int(SET_PRINT_MAPS_ON_EXIT)) {
		o->writer->maps_begin(o->out);
		rt_maps_print_all(&rt);
	}
	rt_maps_report_full(&rt);
	rt_events_report_lost(&rt);
	fflush(o->out);
	rt_overhead_report(&rt);
	/* exit(N): the word holds 0x100 | N (codegen/bpf.c), 0 for exit() */
	rc = rt.stopper.exit_word ? (int)(*rt.stopper.exit_word & 0xff) : 0;
	bool child_done = rt.stopper.child_done;
	int child_st = rt.stopper.child_status;
	if (o->child_pid) {
		if (!child_done) {
			kill(o->child_pid, SIGTERM);
			rt_child_wait(&rt, &child_st, true);
		}
		if (WIFEXITED(child_st) && WEXITSTATUS(child_st))
			fprintf(stderr, "sonde: command exited with status %d\n", WEXITSTATUS(child_st));
		else if (WIFSIGNALED(child_st) && child_done)
			fprintf(stderr, "sonde: command killed by signal %d\n", WTERMSIG(child_st));
	}
out:
	rt_serve_stop(&rt);
	rt_scrape_stop(&rt);
	rt_stop_close(&rt);
	rt_agent_detach(&rt);
	rt_agent_free(&rt);
	detach_all(&rt);
	rt_follow_free(&rt);
	rt_watch_free(&rt);
	for (int i = 0; i < rt.nplans; i++)
		if (rt.plans[i].sites)
			rs_sites_free(rt.plans[i].sites);
	free(rt.plans);
	rt_overhead_free(&rt);
	free(rt.links);
	free(rt.link_fds);
	rt_events_close(&rt);
	bpf_object__close(rt.bpf);
	free(rt.map_fds);
	free(rt.map_zeroed);
	free(rt.site_names);
	if (rt.cgroups)
		rs_cgcache_free(rt.cgroups);
	if (rt.syms)
		rs_symcache_free(rt.syms);
	if (rt.ksyms)
		ksyms_free(rt.ksyms);
	arena_free(rt.scratch);
	arena_free(rt.perm);
	return rc;
}
