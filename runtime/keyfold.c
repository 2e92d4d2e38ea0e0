/*
 * keyfold.c - merge map entries whose keys print the same.
 *
 * `container` is stored in BPF as the task's cgroup id and named only at
 * print time, because BPF cannot know which ancestor cgroup is a
 * container's.  But one container spans several cgroups (its scope and the
 * child cgroups of `docker exec`, systemd inside it, a pod's containers),
 * and the host spans every cgroup outside containers: `@[container] =
 * count()` would print `@[]: 3` once per host cgroup.  So after the keys are
 * rendered, entries of such maps whose key texts are equal are folded into
 * one, the way the aggregation itself combines values: counts and sums
 * add, min and max keep the extreme, avg and stats add count and total,
 * histograms add bucket by bucket.  Plain values (`@[container] = x`) have
 * no combination and are left as they are.
 */
#include "runtime/rt_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int key_text_cmp(const struct pr_entry *a, const struct pr_entry *b)
{
	if (a->nkey != b->nkey)
		return a->nkey < b->nkey ? -1 : 1;
	for (int i = 0; i < a->nkey; i++) {
		const char *x = a->key[i].text ? a->key[i].text : "";
		const char *y = b->key[i].text ? b->key[i].text : "";
		int c = strcmp(x, y);
		if (c)
			return c;
		if (a->key[i].is_str != b->key[i].is_str)
			return a->key[i].is_str ? 1 : -1;
	}
	return 0;
}

struct idx_entry {
	struct pr_entry e;
	size_t idx;		/* original position: a stable, deterministic order */
};

static int idx_cmp(const void *pa, const void *pb)
{
	const struct idx_entry *a = pa, *b = pb;
	int c = key_text_cmp(&a->e, &b->e);
	if (c)
		return c;
	return (a->idx > b->idx) - (a->idx < b->idx);
}

/* fold src into dst, both with the same key text */
static void merge(struct pr_entry *dst, const struct pr_entry *src, enum map_kind kind)
{
	switch (kind) {
	case MK_COUNT: case MK_SUM:
		dst->ival += src->ival;
		dst->count += src->count;
		break;
	case MK_MIN:
		if (src->ival < dst->ival)
			dst->ival = src->ival;
		break;
	case MK_MAX:
		if (src->ival > dst->ival)
			dst->ival = src->ival;
		break;
	case MK_AVG: case MK_STATS:
		dst->count += src->count;
		dst->total += src->total;
		break;
	case MK_HIST: case MK_LHIST:
		for (int i = 0; i < dst->nbuckets && i < src->nbuckets; i++)
			dst->buckets[i] += src->buckets[i];
		dst->total += src->total;	/* the sum, when kept (has_sum) */
		break;
	case MK_NONE: case MK_VALUE: case MK_TSERIES:	/* never folded */
		break;
	}
}

int rt_fold_equal_keys(struct pr_map *pm, enum map_kind kind)
{
	/* a tseries interval's avg cannot be recombined from two averages:
	 * each cgroup keeps its own graph */
	if (pm->nentries < 2 || kind == MK_NONE || kind == MK_VALUE || kind == MK_TSERIES)
		return 0;
	struct idx_entry *v = malloc(pm->nentries * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < pm->nentries; i++)
		v[i] = (struct idx_entry){pm->entries[i], i};
	qsort(v, pm->nentries, sizeof(*v), idx_cmp);
	size_t n = 0;
	for (size_t i = 0; i < pm->nentries; i++) {
		if (n && !key_text_cmp(&pm->entries[n - 1], &v[i].e))
			merge(&pm->entries[n - 1], &v[i].e, kind);
		else
			pm->entries[n++] = v[i].e;
	}
	pm->nentries = n;
	free(v);
	return 0;
}

static bool many_to_one(const struct type *t)
{
	return type_is(t, TT_MANY_TO_ONE);
}

bool rt_type_has_container(const struct type *t)
{
	return type_any(t, many_to_one);
}
