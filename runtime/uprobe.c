/*
 * uprobe.c - attaching uprobes, uretprobes and USDT probes.
 *
 * Every uprobe attach point is resolved first, in source order
 * (rt_plan_uprobes: missing symbols warn in source order), then attached
 * where host/uresolve.c says the target really is: one multi-uprobe
 * link per file where the kernel has them (umulti.c), a link per site
 * elsewhere.  The bpf cookie of each site names its function for `func`.
 */
#include "runtime/rt_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>

#include "common/explain.h"
#include "common/settings.h"
#include "host/host.h"

static void uprobe_note(void *ctx, enum rs_note_level level, const char *msg)
{
	struct rt *rt = ctx;
	/* --follow rescans every second and would repeat the same notes */
	if ((level == RS_NOTE_WARN || rt->o->verbose) && !rt_follow_note_first(rt, msg))
		return;
	if (level == RS_NOTE_WARN)
		diag_warnf("%s\n", msg);
	else if (rt->o->verbose)
		fprintf(stderr, "sonde: %s\n", msg);
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
	rt_add_link_fd(rt, fd);
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
		    /* without cookies (5.10) libbpf refuses any but 0, and
		     * func is a constant of one program per attach point
		     * (stdlib/process.c) */
		    .bpf_cookie = host_feature(HF_COOKIE) ? rt_site_cookie(rt, s->sym) : 0);
	struct bpf_link *l = bpf_program__attach_uprobe_opts(prog, rt->o->pid ? rt->o->pid : -1,
							     s->file->attach_path, s->offset, &uo);
	if (!l)
		return -errno;
	rt_add_link(rt, l);
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
		.allow_none = rt->follow != NULL, .unsafe = rt->o->unsafe,
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

int rt_attach_uprobe(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
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


/* sema read the note: a uprobe at its file offset; the kernel counts the
 * semaphore (if any) up while it is attached */
int rt_attach_usdt(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
		   int *count)
{
	LIBBPF_OPTS(bpf_uprobe_opts, uo, .ref_ctr_offset = (size_t)at->usdt->sema_off);
	struct bpf_link *l = bpf_program__attach_uprobe_opts(prog, rt->o->pid ? rt->o->pid : -1,
							     at->target, (size_t)at->usdt->pc_off, &uo);
	if (l && rt->o->verbose)
		fprintf(stderr, "sonde: %s: attached at offset 0x%llx in %s%s\n", at->name,
			(unsigned long long)at->usdt->pc_off, at->target,
			at->usdt->sema_off ? " (with its semaphore)" : "");
	return rt_keep_link(rt, at, l, count);
}

/* Resolve every uprobe attach point in source order.  A probe with
 * several attach points keeps those that resolve: each missing symbol or
 * file is a warning (tools written for several library versions name
 * functions that only some versions have).  A probe with nothing left is
 * an error. */
/* --probe-filter over a wildcard's functions: those whose full name
 * (uprobe:TARGET:FUNC, as `probe` names them) the regex matches; none
 * left is a probe that attaches nothing, as in the newest bpftrace */
static void filter_sites(struct rt *rt, const struct sema_attach *at, struct uprobe_plan *pl)
{
	if (!strpbrk(at->func, "*?["))
		return;
	struct rs_sites *s = pl->sites;
	size_t kept = 0;
	for (size_t i = 0; i < s->nsites; i++) {
		char name[1024];
		snprintf(name, sizeof(name), "%s:%s:%s", sema_probe_type_name(at->type), at->target,
			 s->sites[i].sym);
		if (!regexec(rt->o->probe_filter, name, 0, NULL, 0))
			s->sites[kept++] = s->sites[i];
	}
	s->nsites = kept;
	if (!kept) {
		rs_sites_free(s);
		pl->sites = NULL;
		pl->err[0] = '\0';
	}
}

int rt_plan_uprobes(struct rt *rt)
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
			const struct sema_attach *at = rt_prog_attach(p, j);
			if (at->type != PT_UPROBE && at->type != PT_URETPROBE)
				continue;
			struct uprobe_plan *pl = &rt->plans[rt->nplans++];
			struct rs_query q = uprobe_query(rt, at);
			pl->at = at;
			pl->rc = rs_resolve(&q, &pl->sites, pl->err, sizeof(pl->err));
			if (pl->rc == -ENOENT)
				hint_moved_symbol(at, pl->err, sizeof(pl->err));
			if (!pl->rc && rt->o->probe_filter)
				filter_sites(rt, at, pl);
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
				if (rt_prog_attach(&rt->obj->progs[i], j) == pl->at)
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
		 * while others of its probe attach; error stops at it.  Set
		 * to warn or ignore, it also lets a probe with nothing left
		 * go, as the newest bpftrace does; left at the default, such a
		 * probe stops sonde, as in bpftrace 0.17 */
		int64_t missing = settings_int(SET_MISSING_PROBES);
		if (pl->rc != -ENOENT || missing == SET_MISSING_ERROR ||
		    (!others && !settings_given(SET_MISSING_PROBES))) {
			fprintf(stderr, "sonde: %s: %s\n", pl->at->name, pl->err);
			const struct explain *x = explain_of(pl->err);
			if (x)
				explain_note(stderr, x, strstr(pl->err, x->summary) != NULL);
			return pl->rc;
		}
		if (missing != SET_MISSING_WARN)
			continue;
		/* one line for the points missing for one reason: a library
		 * the process does not map (cuda-calls' libcuda before the
		 * runtime has loaded the driver) would otherwise be a line
		 * per function */
		bool said = false;
		int more = 0;
		for (int m = 0; m < rt->nplans; m++) {
			if (m == k || rt->plans[m].rc != -ENOENT || strcmp(rt->plans[m].err, pl->err))
				continue;
			said |= m < k;
			more++;
		}
		if (!said)
			diag_warnf("%s: %s: not attached%s%.0d%s\n", pl->at->name, pl->err,
				   more ? " (nor " : "", more, more == 1 ? " more attach point, for that reason)"
				   : more ? " more attach points, for that reason)" : "");
	}
	return 0;
}

void rt_uprobe_plans_free(struct rt *rt)
{
	for (int i = 0; i < rt->nplans; i++)
		if (rt->plans[i].sites)
			rs_sites_free(rt->plans[i].sites);
	free(rt->plans);
	rt->plans = NULL;
	rt->nplans = 0;
}
