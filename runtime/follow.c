/*
 * follow.c - `--follow`: uprobes for processes that start after sonde.
 *
 * A uprobe lives on an inode, so a process that starts later and maps a
 * file sonde already probes is covered for free; what it misses is a file
 * nobody mapped at startup: a container started afterwards with its own
 * copy of the library, a library dlopen()ed later.  So with --follow each
 * uprobe attach point keeps its resolver query and its rs_sites for the
 * whole run, and once a second the main loop (between ring buffer polls,
 * never in BPF or the event path) asks rs_resolve_more() for files not seen
 * before and attaches their sites.  The resolver remembers every file it
 * examined, so a rescan opens only new files; its notes repeat for the
 * same processes every second, so each distinct message is shown once.
 */
#include "rt_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RESCAN_NS 1000000000ull
#define NOTES_MAX 65536		/* distinct messages remembered; then forget all */

struct watch {
	struct rs_query q;
	struct rs_sites *sites;
	struct bpf_program *prog;
	const struct sema_attach *at;
	bool done;		/* the -p process is gone: nothing more to find */
};

struct rt_follow {
	struct watch *w;
	size_t n, cap;
	uint64_t last_ns;	/* CLOCK_MONOTONIC of the last scan */
	struct rt_noteset *notes;
};

/* ---- messages shown once --------------------------------------------------- */

/* An open-addressing set of 64-bit FNV-1a hashes: a rescan every second
 * for a day must not grow memory with each repeat, only with new text. */
struct rt_noteset {
	uint64_t *slot;		/* 0: empty */
	size_t cap, n, max;
};

struct rt_noteset *rt_noteset_new(size_t max)
{
	struct rt_noteset *ns = calloc(1, sizeof(*ns));
	if (ns)
		ns->max = max ? max : 1;
	return ns;
}

void rt_noteset_free(struct rt_noteset *ns)
{
	if (!ns)
		return;
	free(ns->slot);
	free(ns);
}

static uint64_t fnv1a(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
	return h ? h : 1;	/* 0 marks an empty slot */
}

static int noteset_grow(struct rt_noteset *ns)
{
	size_t cap = ns->cap ? ns->cap * 2 : 64;
	uint64_t *v = calloc(cap, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < ns->cap; i++) {
		if (!ns->slot[i])
			continue;
		size_t j = ns->slot[i] & (cap - 1);
		while (v[j])
			j = (j + 1) & (cap - 1);
		v[j] = ns->slot[i];
	}
	free(ns->slot);
	ns->slot = v;
	ns->cap = cap;
	return 0;
}

static bool noteset_has(const struct rt_noteset *ns, uint64_t h)
{
	if (!ns->cap)
		return false;
	for (size_t j = h & (ns->cap - 1); ns->slot[j]; j = (j + 1) & (ns->cap - 1))
		if (ns->slot[j] == h)
			return true;
	return false;
}

bool rt_noteset_first(struct rt_noteset *ns, const char *msg)
{
	if (!ns)
		return true;
	uint64_t h = fnv1a(msg);
	if (noteset_has(ns, h))
		return false;
	if (ns->n >= ns->max) {
		/* a flood of distinct messages: start over rather than grow */
		memset(ns->slot, 0, ns->cap * sizeof(*ns->slot));
		ns->n = 0;
	}
	if ((ns->n + 1) * 2 > ns->cap && noteset_grow(ns))
		return true;	/* no memory: showing it again is harmless */
	size_t j = h & (ns->cap - 1);
	while (ns->slot[j])
		j = (j + 1) & (ns->cap - 1);
	ns->slot[j] = h;
	ns->n++;
	return true;
}

/* ---- watches ----------------------------------------------------------------- */

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

bool rt_follow_note_first(struct rt *rt, const char *msg)
{
	return !rt->follow || rt_noteset_first(rt->follow->notes, msg);
}

int rt_follow_start(struct rt *rt)
{
	struct rt_follow *f = calloc(1, sizeof(*f));
	if (!f || !(f->notes = rt_noteset_new(NOTES_MAX))) {
		free(f);
		return -ENOMEM;
	}
	f->last_ns = now_ns();
	rt->follow = f;
	return 0;
}

int rt_follow_keep(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
		   const struct rs_query *q, struct rs_sites *sites)
{
	struct rt_follow *f = rt->follow;
	if (!f) {
		rs_sites_free(sites);
		return -EINVAL;
	}
	if (f->n == f->cap) {
		size_t cap = f->cap ? f->cap * 2 : 4;
		struct watch *v = realloc(f->w, cap * sizeof(*v));
		if (!v) {
			rs_sites_free(sites);
			return -ENOMEM;
		}
		f->w = v;
		f->cap = cap;
	}
	f->w[f->n++] = (struct watch){.q = *q, .sites = sites, .prog = prog, .at = at};
	return 0;
}

static void rescan(struct rt *rt, struct watch *w)
{
	char err[512];
	size_t first = 0;
	int rc = rs_resolve_more(&w->q, w->sites, &first, err, sizeof(err));
	if (rc) {
		/* the one process it was about is gone: nothing can appear */
		if (rc == -ESRCH && w->q.pid > 0) {
			w->done = true;
			if (rt->o->verbose)
				fprintf(stderr, "sonde: %s: %s; no longer rescanning\n", w->at->name, err);
			return;
		}
		/* a container with no process left may get new ones: say so
		 * with -v; anything else (a vanished cgroup, no memory) warns */
		char msg[700];
		snprintf(msg, sizeof(msg), "%s: rescan: %s", w->at->name, err);
		if ((rc != -ESRCH || rt->o->verbose) && rt_follow_note_first(rt, msg))
			fprintf(stderr, "sonde: %s%s\n", rc == -ESRCH ? "" : "warning: ", msg);
		return;
	}
	for (size_t i = first; i < w->sites->nsites; i++) {
		const struct rs_site *s = &w->sites->sites[i];
		int e = rt_attach_uprobe_site(rt, w->prog, w->at, s, true);
		/* the run goes on: the probes attached so far still count */
		if (e)
			fprintf(stderr, "sonde: warning: %s: cannot attach to %s in new file %s at "
				"offset 0x%llx: %s\n", w->at->name, s->sym, s->file->path,
				(unsigned long long)s->offset, strerror(-e));
	}
}

void rt_follow_tick(struct rt *rt)
{
	struct rt_follow *f = rt->follow;
	if (!f)
		return;
	uint64_t now = now_ns();
	if (now - f->last_ns < RESCAN_NS)
		return;
	for (size_t i = 0; i < f->n && !rt->stop; i++)
		if (!f->w[i].done)
			rescan(rt, &f->w[i]);
	/* a slow scan (thousands of processes) must not run back to back */
	f->last_ns = now_ns();
}

void rt_follow_free(struct rt *rt)
{
	struct rt_follow *f = rt->follow;
	if (!f)
		return;
	for (size_t i = 0; i < f->n; i++)
		rs_sites_free(f->w[i].sites);
	free(f->w);
	rt_noteset_free(f->notes);
	free(f);
	rt->follow = NULL;
}
