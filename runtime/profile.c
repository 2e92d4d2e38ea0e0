/*
 * profile.c - the stack maps as a pprof profile of the last N seconds, for
 * --serve's /debug/pprof/profile?seconds=N (serve.c).
 *
 * A Go service's endpoint profiles the N seconds after the request; the
 * maps here count from the start of the run, so a request reads every
 * stack map at once (the baseline), and N seconds later reads them again:
 * the profile holds each entry's growth (entries that did not grow are
 * left out), encoded by output/pprof.c.  Entries are matched by map name
 * and key text; a map cleared in between counts from zero again, so an
 * entry smaller than its baseline is taken whole.  The request waits
 * suspended in the HTTP server, never in the main loop.
 */
#include "runtime/rt_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct rt_baseline {
	char **ids;		/* sorted */
	int64_t *vals;
	size_t n;
	int64_t start_ns;	/* CLOCK_REALTIME */
};

static int64_t now_ns(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

static bool is_stack(const struct type *t)
{
	return t->kind == TY_USTACK || t->kind == TY_KSTACK;
}

static bool has_stack(const struct type *t)
{
	return type_any(t, is_stack);
}

/* every stack map, built with frames, in rt->a; the count */
static int build_stack_maps(struct rt *rt, struct pr_map **out)
{
	bool keep = rt->stacks;
	int n = 0;
	struct pr_map *v = arena_alloc(rt->a, (size_t)(rt->r->nmaps ? rt->r->nmaps : 1) * sizeof(*v));
	rt->stacks = true;
	for (int i = 0; i < rt->r->nmaps; i++) {
		const struct sema_map *m = rt->r->maps[i];
		if (has_stack(&m->key) && !rt_map_build(rt, m, &v[n]))
			n++;
	}
	rt->stacks = keep;
	*out = v;
	return n;
}

/* "map\1key1\2key2..." (malloc'd) */
static char *entry_id(const struct pr_map *m, const struct pr_entry *e)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	fprintf(f, "%s\1", m->name ? m->name : "@");
	for (int k = 0; k < e->nkey; k++)
		fprintf(f, "%s\2", e->key[k].text ? e->key[k].text : "");
	fclose(f);
	return buf;
}

static int id_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void rt_profile_free(struct rt_baseline *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		free(b->ids[i]);
	free(b->ids);
	free(b->vals);
	free(b);
}

struct rt_baseline *rt_profile_begin(struct rt *rt)
{
	struct rt_baseline *b = calloc(1, sizeof(*b));
	if (!b)
		return NULL;
	b->start_ns = now_ns();
	struct arena *keep = rt->a;
	struct arena_mark mark = arena_mark(rt->scratch);
	rt->a = rt->scratch;
	struct pr_map *maps;
	int n = build_stack_maps(rt, &maps);
	size_t total = 0;
	for (int i = 0; i < n; i++)
		total += maps[i].nentries;
	b->ids = calloc(total ? total : 1, sizeof(*b->ids));
	b->vals = calloc(total ? total : 1, sizeof(*b->vals));
	/* sorted pairs: sort (id, value) together through an index */
	struct pair { char *id; int64_t v; } *p = calloc(total ? total : 1, sizeof(*p));
	for (int i = 0; p && i < n; i++)
		for (size_t j = 0; j < maps[i].nentries; j++) {
			char *id = entry_id(&maps[i], &maps[i].entries[j]);
			if (id)
				p[b->n++] = (struct pair){id, maps[i].entries[j].ival};
		}
	arena_release(rt->scratch, mark);
	rt->a = keep;
	if (!p || !b->ids || !b->vals) {
		free(p);
		rt_profile_free(b);
		return NULL;
	}
	qsort(p, b->n, sizeof(*p), id_cmp);	/* the id is the first member */
	for (size_t i = 0; i < b->n; i++) {
		b->ids[i] = p[i].id;
		b->vals[i] = p[i].v;
	}
	free(p);
	return b;
}

int rt_profile_end(struct rt *rt, struct rt_baseline *b, uint8_t **buf, size_t *len)
{
	struct arena *keep = rt->a;
	struct arena_mark mark = arena_mark(rt->scratch);
	rt->a = rt->scratch;
	struct pr_map *maps;
	int n = build_stack_maps(rt, &maps);
	for (int i = 0; i < n; i++)
		for (size_t j = 0; j < maps[i].nentries; j++) {
			struct pr_entry *e = &maps[i].entries[j];
			char *id = entry_id(&maps[i], e);
			char **hit = id ? bsearch(&id, b->ids, b->n, sizeof(*b->ids), id_cmp) : NULL;
			if (hit && b->vals[hit - b->ids] <= e->ival)
				e->ival -= b->vals[hit - b->ids];
			free(id);
		}
	int64_t end = now_ns();
	int err = pr_pprof_encode(maps, n, b->start_ns, end - b->start_ns, buf, len);
	arena_release(rt->scratch, mark);
	rt->a = keep;
	rt_profile_free(b);
	return err;
}
