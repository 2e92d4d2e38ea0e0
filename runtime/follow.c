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
 *
 * A uprobe sits at a file offset of an inode.  A file rewritten in place
 * (same inode: `cp new.so lib.so`, a build writing its output over the old
 * one) keeps the probes at the old offsets, which now land in other code,
 * and nothing fails.  With --follow or -v each probed file is kept open as
 * attached, and once a second its status is compared (fstat: no file
 * read while nothing changed).  A file with a GNU build-id is the same
 * code exactly while its build-id is: any write changes the ctime, and
 * then the build-id is read again (a rebuild of the same size, its mtime
 * put back, is told; a touch is not).  Without a build-id, a change of
 * size or mtime is told.  Each file is told once.
 */
#include "runtime/rt_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

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
	size_t n;
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
	f->last_ns = rt_mono_ns();
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
	f->w = vec_grow(f->w, f->n, sizeof(*f->w));
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
			diag_warnf("%s: cannot attach to %s in new file %s at "
				"offset 0x%llx: %s\n", w->at->name, s->sym, s->file->path,
				(unsigned long long)s->offset, strerror(-e));
	}
	if (first < w->sites->nsites)
		rt_watch_sites(rt, w->at, w->sites);
}

void rt_follow_tick(struct rt *rt)
{
	struct rt_follow *f = rt->follow;
	if (!f)
		return;
	uint64_t now = rt_mono_ns();
	if (now - f->last_ns < RESCAN_NS)
		return;
	for (size_t i = 0; i < f->n && !rt->stop; i++)
		if (!f->w[i].done)
			rescan(rt, &f->w[i]);
	/* a slow scan (thousands of processes) must not run back to back */
	f->last_ns = rt_mono_ns();
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

/* ---- probed files changing in place ---------------------------------------- */

struct watched {
	int fd;			/* the file as attached (same inode, whatever the path) */
	char *path;
	char *probe;		/* the first attach point that used it */
	struct stat st;		/* as attached, or as last found unchanged */
	unsigned char bid[64];	/* GNU build-id, bid_len 0 when none */
	size_t bid_len;
	bool said;
};

struct rt_watch {
	struct watched *w;
	size_t n, cap;
	uint64_t last_ns;
};

void rt_watch_sites(struct rt *rt, const struct sema_attach *at, const struct rs_sites *sites)
{
	if (!rt->watch && !(rt->watch = calloc(1, sizeof(*rt->watch))))
		return;
	struct rt_watch *wt = rt->watch;
	if (!wt->last_ns)
		wt->last_ns = rt_mono_ns();
	for (size_t i = 0; i < sites->nfiles; i++) {
		const struct rs_file *f = sites->files[i];
		bool seen = false;
		for (size_t j = 0; j < wt->n && !seen; j++)
			seen = wt->w[j].st.st_dev == f->dev && wt->w[j].st.st_ino == f->ino;
		if (seen)
			continue;
		if (wt->n == wt->cap) {
			size_t cap = wt->cap ? wt->cap * 2 : 8;
			struct watched *v = realloc(wt->w, cap * sizeof(*v));
			if (!v)
				return;
			wt->w = v;
			wt->cap = cap;
		}
		struct watched w = {.fd = open(f->attach_path, O_RDONLY | O_CLOEXEC)};
		if (w.fd < 0)
			continue;
		if (rs_elf_build_id_fd(w.fd, w.bid, sizeof(w.bid), &w.bid_len))
			w.bid_len = 0;
		if (fstat(w.fd, &w.st) || !(w.path = strdup(f->path)) || !(w.probe = strdup(at->name))) {
			free(w.path);
			close(w.fd);
			continue;
		}
		wt->w[wt->n++] = w;
	}
}

static bool same_time(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec == b->tv_sec && a->tv_nsec == b->tv_nsec;
}

/* has the code at the probes' offsets changed since they were placed? */
static bool changed(struct watched *w, const struct stat *st)
{
	if (!w->bid_len)
		return st->st_size != w->st.st_size || !same_time(&st->st_mtim, &w->st.st_mtim);
	if (st->st_size == w->st.st_size && same_time(&st->st_mtim, &w->st.st_mtim) &&
	    same_time(&st->st_ctim, &w->st.st_ctim))
		return false;
	unsigned char bid[sizeof(w->bid)];
	size_t len = 0;
	if (rs_elf_build_id_fd(w->fd, bid, sizeof(bid), &len) || len != w->bid_len ||
	    memcmp(bid, w->bid, len))
		return true;
	w->st = *st;	/* touched, or written with the same build: the same code */
	return false;
}

void rt_watch_tick(struct rt *rt)
{
	struct rt_watch *wt = rt->watch;
	if (!wt)
		return;
	uint64_t now = rt_mono_ns();
	if (now - wt->last_ns < RESCAN_NS)
		return;
	wt->last_ns = now;
	for (size_t i = 0; i < wt->n; i++) {
		struct watched *w = &wt->w[i];
		struct stat st;
		if (w->said || fstat(w->fd, &st))
			continue;
		if (!changed(w, &st))
			continue;
		w->said = true;
		if (w->bid_len) {
			diag_warnf("%s: %s changed on disk after it was probed "
				"(same file, rewritten in place with another build-id): its probes "
				"stay at the old offsets and may now fire in other code or not at all; "
				"restart sonde to place them again\n", w->probe, w->path);
			continue;
		}
		diag_warnf("%s: %s changed on disk after it was probed (same "
			"file, rewritten in place: %lld bytes, was %lld): its probes stay at the old "
			"offsets and may now fire in other code or not at all; restart sonde to "
			"place them again\n", w->probe, w->path, (long long)st.st_size,
			(long long)w->st.st_size);
	}
}

void rt_watch_free(struct rt *rt)
{
	struct rt_watch *wt = rt->watch;
	if (!wt)
		return;
	for (size_t i = 0; i < wt->n; i++) {
		close(wt->w[i].fd);
		free(wt->w[i].path);
		free(wt->w[i].probe);
	}
	free(wt->w);
	free(wt);
	rt->watch = NULL;
}
