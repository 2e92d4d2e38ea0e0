/*
 * procstate.c - per-process state: captured once, kept bounded, released
 * when the process is gone and its stacks were printed (procstate.h).
 *
 * At most `max` processes are kept, in a table of that many slots found
 * by pid through a chained hash.  Each use stamps a process with a tick;
 * past the cap the process with the oldest tick is released (one scan of
 * the table, paid only by a run that keeps that many) and counted as
 * evicted.  A sweep releases the processes that are gone and were not
 * touched since the previous sweep: the runtime sweeps after it has read
 * every map that can hold their stacks.
 */
#include "runtime/procstate.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "host/proc.h"

struct ps_proc {
	int pid;		/* 0: a free slot */
	int next;		/* hash chain: slot index + 1, 0 ends */
	uint64_t start;		/* start time: tells a later process of the same pid */
	uint64_t tick;		/* last use */
	uint64_t sweep;		/* the sweep number it was last touched in */
	bool execd;		/* exec'd since its clients captured it */
	void *slot[PS_CLIENTS_MAX];
};

struct procstate {
	struct ps_proc *p;
	size_t max, live;
	int *bucket;		/* nbucket chains: slot index + 1, 0 empty */
	size_t nbucket;
	int free_hint;
	uint64_t tick, sweep;
	struct ps_client cl[PS_CLIENTS_MAX];
	int ncl;
	uint64_t captured, released, evicted;
};

struct procstate *ps_new(size_t max)
{
	struct procstate *ps = calloc(1, sizeof(*ps));
	if (!ps)
		return NULL;
	ps->max = max ? max : PS_MAX_DEFAULT;
	for (ps->nbucket = 64; ps->nbucket < ps->max; ps->nbucket *= 2)
		;
	ps->p = calloc(ps->max, sizeof(*ps->p));
	ps->bucket = calloc(ps->nbucket, sizeof(*ps->bucket));
	if (!ps->p || !ps->bucket) {
		ps_free(ps);
		return NULL;
	}
	return ps;
}

static size_t hash(const struct procstate *ps, int pid)
{
	return ((uint32_t)pid * 2654435761u) & (ps->nbucket - 1);
}

static struct ps_proc *find(struct procstate *ps, int pid)
{
	for (int i = ps->bucket[hash(ps, pid)]; i; i = ps->p[i - 1].next)
		if (ps->p[i - 1].pid == pid)
			return &ps->p[i - 1];
	return NULL;
}

static void drop(struct procstate *ps, struct ps_proc *pp)
{
	for (int c = 0; c < ps->ncl; c++)
		if (ps->cl[c].release)
			ps->cl[c].release(ps->cl[c].ctx, pp->pid, pp->slot[c]);
	int idx = (int)(pp - ps->p) + 1;
	for (int *link = &ps->bucket[hash(ps, pp->pid)]; *link; link = &ps->p[*link - 1].next)
		if (*link == idx) {
			*link = pp->next;
			break;
		}
	memset(pp, 0, sizeof(*pp));
	ps->live--;
	/* the lowest free slots are taken first: the table's pages in use
	 * stay as few as the processes kept */
	if (idx - 1 < ps->free_hint)
		ps->free_hint = idx - 1;
}

void ps_free(struct procstate *ps)
{
	if (!ps)
		return;
	for (size_t i = 0; ps->p && i < ps->max; i++)
		if (ps->p[i].pid)
			drop(ps, &ps->p[i]);
	free(ps->p);
	free(ps->bucket);
	free(ps);
}

int ps_register(struct procstate *ps, const struct ps_client *cl)
{
	if (ps->ncl == PS_CLIENTS_MAX)
		return -ENOSPC;
	ps->cl[ps->ncl] = *cl;
	return ps->ncl++;
}

static void use(struct procstate *ps, struct ps_proc *pp)
{
	pp->tick = ++ps->tick;
	pp->sweep = ps->sweep;
}

/* a free slot: the oldest process goes when all are taken */
static struct ps_proc *take_slot(struct procstate *ps)
{
	if (ps->live == ps->max) {
		struct ps_proc *old = &ps->p[0];
		for (size_t i = 1; i < ps->max; i++)
			if (ps->p[i].tick < old->tick)
				old = &ps->p[i];
		drop(ps, old);
		ps->evicted++;
		return old;
	}
	for (size_t k = 0; k < ps->max; k++) {
		size_t i = ((size_t)ps->free_hint + k) % ps->max;
		if (!ps->p[i].pid) {
			ps->free_hint = (int)(i + 1);
			return &ps->p[i];
		}
	}
	return NULL;
}

int ps_capture(struct procstate *ps, int pid)
{
	if (pid <= 0)
		return -EINVAL;
	struct host_pstat ps0 = {0};
	host_proc_stat(pid, 0, &ps0);	/* starttime 0 when it is gone already */
	uint64_t start = ps0.starttime;
	struct ps_proc *pp = find(ps, pid);
	bool known = pp && (pp->start == start || !start);
	if (pp && !known) {	/* another process of that pid: the old one is gone */
		drop(ps, pp);
		ps->released++;
	}
	if (!known) {
		if (!(pp = take_slot(ps)))
			return -ENOMEM;
		pp->pid = pid;
		pp->start = start;
		size_t h = hash(ps, pid);
		pp->next = ps->bucket[h];
		ps->bucket[h] = (int)(pp - ps->p) + 1;
		ps->live++;
		ps->captured++;
	}
	use(ps, pp);
	if (known && !pp->execd)
		return 0;
	/* new, or exec'd: its clients read it (anew) */
	pp->execd = false;
	for (int c = 0; c < ps->ncl; c++)
		if (ps->cl[c].capture)
			ps->cl[c].capture(ps->cl[c].ctx, pid, &pp->slot[c]);
	return !known;
}

void ps_exec(struct procstate *ps, int pid)
{
	struct ps_proc *pp = find(ps, pid);
	if (pp)
		pp->execd = true;
}

void *ps_get(struct procstate *ps, int pid, int client)
{
	struct ps_proc *pp = find(ps, pid);
	if (!pp || client < 0 || client >= ps->ncl)
		return NULL;
	use(ps, pp);
	return pp->slot[client];
}

void ps_touch(struct procstate *ps, int pid)
{
	struct ps_proc *pp = find(ps, pid);
	if (pp)
		use(ps, pp);
}

void ps_release(struct procstate *ps, int pid)
{
	struct ps_proc *pp = find(ps, pid);
	if (pp) {
		drop(ps, pp);
		ps->released++;
	}
}

static bool gone(const struct ps_proc *pp)
{
	struct host_pstat st;
	int rc = host_proc_stat(pp->pid, 0, &st);
	return rc == -ENOENT || (!rc && st.starttime != pp->start);
}

size_t ps_sweep(struct procstate *ps)
{
	size_t n = 0;
	for (size_t i = 0; i < ps->max; i++) {
		struct ps_proc *pp = &ps->p[i];
		if (pp->pid && pp->sweep != ps->sweep && gone(pp)) {
			drop(ps, pp);
			n++;
		}
	}
	ps->released += n;
	ps->sweep++;
	return n;
}

void ps_stats(const struct procstate *ps, struct ps_stats *out)
{
	*out = (struct ps_stats){.live = ps->live, .captured = ps->captured,
				 .released = ps->released, .evicted = ps->evicted};
}
