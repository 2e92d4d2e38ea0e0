/*
 * maps.c - read BPF maps into the printers' plain structs.
 *
 * Per-CPU values are folded here: counts and sums add, min/max take the
 * extreme of the CPUs that saw a value, avg/stats add {count, total}.
 * hist/lhist slots (key + bucket index) are grouped back into one entry
 * per key, and so are tseries slots (key + interval slot), each folded to
 * the newest interval any CPU holds in it (ts_fold).  The printers in
 * output/ never see BPF.
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct slot {
	uint8_t *key;
	int64_t v[2];		/* folded value: {v} or {count, total} / {value, set} */
	uint8_t *raw;		/* MK_VALUE: the value bytes */
};

/* sums wrap as the BPF side's do (uint64 sums pass INT64_MAX), without
 * C's undefined signed overflow */
static int64_t wrap_add(int64_t a, int64_t b)
{
	return (int64_t)((uint64_t)a + (uint64_t)b);
}

/*
 * A tseries slot's {value, meta, epoch} per CPU, as bpftrace reduces them:
 * the newest epoch any CPU holds wins, and the CPUs that hold it combine -
 * the last value by its write time (meta), sums and averages (meta the
 * count) add, min and max take the extreme.  s->v: {value, epoch}; epoch 0
 * when no CPU wrote (a zero()ed slot).
 */
static void ts_fold(const struct sema_map *m, const uint8_t *vals, int ncpus, uint32_t stride,
		    struct slot *s)
{
	uint64_t epoch = 0;
	for (int c = 0; c < ncpus; c++) {
		uint64_t e;
		memcpy(&e, vals + (size_t)c * stride + 16, 8);
		if (e > epoch)
			epoch = e;
	}
	int64_t val = 0, meta = 0;
	bool any = false;
	for (int c = 0; epoch && c < ncpus; c++) {
		int64_t x[3];
		memcpy(x, vals + (size_t)c * stride, sizeof(x));
		if ((uint64_t)x[2] != epoch)
			continue;
		bool lt = m->ts_unsigned ? (uint64_t)x[0] < (uint64_t)val : x[0] < val;
		bool gt = m->ts_unsigned ? (uint64_t)x[0] > (uint64_t)val : x[0] > val;
		switch (m->ts_agg) {
		case TS_LAST:
			if (!any || (uint64_t)x[1] > (uint64_t)meta) {
				val = x[0];
				meta = x[1];
			}
			break;
		case TS_AVG: case TS_SUM:
			val = wrap_add(val, x[0]);
			meta = wrap_add(meta, x[1]);
			break;
		case TS_MIN: case TS_MAX:
			if (!any || (m->ts_agg == TS_MIN ? lt : gt))
				val = x[0];
			break;
		}
		any = true;
	}
	if (m->ts_agg == TS_AVG && meta)
		val = m->ts_unsigned ? (int64_t)((uint64_t)val / (uint64_t)meta) : val / meta;
	s->v[0] = epoch ? val : 0;
	s->v[1] = (int64_t)epoch;
}

static int fold(const struct sema_map *m, const uint8_t *vals, int ncpus, struct slot *s)
{
	uint32_t stride = (m->value_size + 7) & ~7u;
	memset(s->v, 0, sizeof(s->v));
	if (!m->percpu)
		return 0;
	if (m->kind == MK_TSERIES) {
		ts_fold(m, vals, ncpus, stride, s);
		return 0;
	}
	bool any = false;
	for (int c = 0; c < ncpus; c++) {
		const int64_t *x = (const int64_t *)(vals + (size_t)c * stride);
		switch (m->kind) {
		case MK_COUNT: case MK_SUM: case MK_HIST: case MK_LHIST:
			s->v[0] = wrap_add(s->v[0], x[0]);
			break;
		case MK_AVG: case MK_STATS:
			s->v[0] = wrap_add(s->v[0], x[0]);
			s->v[1] = wrap_add(s->v[1], x[1]);
			break;
		case MK_MIN: case MK_MAX:
			if (!x[1])
				break;
			if (!any || (m->kind == MK_MIN ? x[0] < s->v[0] : x[0] > s->v[0]))
				s->v[0] = x[0];
			any = true;
			s->v[1] = 1;
			break;
		case MK_NONE: case MK_VALUE: case MK_TSERIES:
			break;
		}
	}
	return 0;
}

/* one entry read from the map: its slot, folded over the CPUs (ncpus
 * values; --user-probes: the agents' shards) */
static void add_slot(struct rt *rt, const struct sema_map *m, struct slot **slots, size_t *cnt,
		     const uint8_t *key, const uint8_t *val, int ncpus)
{
	*slots = vec_grow(*slots, *cnt, sizeof(**slots));
	struct slot *s = &(*slots)[*cnt];
	s->key = arena_alloc(rt->a, m->key_size);
	memcpy(s->key, key, m->key_size);
	fold(m, val, ncpus, s);
	s->raw = NULL;
	if (!m->percpu) {
		s->raw = arena_alloc(rt->a, m->value_size);
		memcpy(s->raw, val, m->value_size);
	}
	if ((m->kind == MK_MIN || m->kind == MK_MAX) && !s->v[1])
		return;	/* no CPU has a value */
	(*cnt)++;
}

static uint32_t value_bytes(struct rt *rt, const struct sema_map *m)
{
	return m->percpu ? ((m->value_size + 7) & ~7u) * (uint32_t)rt->ncpus : m->value_size;
}

typedef int (*walk_fn)(struct rt *rt, const struct sema_map *m, const uint8_t *key,
		       const uint8_t *val, void *ctx);

/* the one-key walk, for maps the kernel has no batch lookup for: it starts
 * over when the key it stands on is deleted under it, so it stops after
 * max_entries keys, however busy the probes are */
static int walk_keys(struct rt *rt, const struct sema_map *m, walk_fn fn, void *ctx)
{
	int fd = rt->map_fds[m->id];
	struct bpf_map_info info = {0};
	uint32_t ilen = sizeof(info);
	if (bpf_obj_get_info_by_fd(fd, &info, &ilen))
		return -errno;
	uint8_t *key = arena_alloc(rt->a, m->key_size), *next = arena_alloc(rt->a, m->key_size);
	uint8_t *val = malloc(value_bytes(rt, m));
	int err = val ? 0 : -ENOMEM;
	void *prev = NULL;
	for (uint32_t seen = 0; !err && seen < info.max_entries &&
				!bpf_map_get_next_key(fd, prev, next); seen++) {
		memcpy(key, next, m->key_size);
		prev = key;
		if (!bpf_map_lookup_elem(fd, key, val))	/* else deleted meanwhile */
			err = fn(rt, m, key, val, ctx);
	}
	free(val);
	return err;
}

/*
 * Each (key, value) the map holds now, given to fn: what printing, the
 * scrapes and clear()/zero() all read.  BPF_MAP_LOOKUP_BATCH (kernel 5.6)
 * returns up to a chunk of entries per call, where one get_next_key plus
 * one lookup per entry made a 10,000-series scrape spend most of its time
 * entering the kernel; it walks the hash bucket by bucket, so it ends even
 * while probes insert and delete keys.  -ENOENT from the kernel means the
 * walk is done; -ENOSPC, that one bucket holds more than a chunk.  Where
 * the kernel has no batch for the map: walk_keys.
 */
#define BATCH 1024
static int map_walk(struct rt *rt, const struct sema_map *m, walk_fn fn, void *ctx, bool take)
{
	int fd = rt->map_fds[m->id];
	uint32_t vsize = value_bytes(rt, m), chunk = BATCH;
	uint8_t *keys = malloc((size_t)chunk * m->key_size), *vals = malloc((size_t)chunk * vsize);
	uint64_t in = 0, out = 0;	/* batch tokens: a bucket index for hash maps */
	int err = keys && vals ? 0 : -ENOMEM;
	bool first = true;
	while (!err) {
		uint32_t n = chunk;
		LIBBPF_OPTS(bpf_map_batch_opts, bo);
		/* take: each bucket read and emptied under its lock, so that an
		 * update made after the read creates the entry anew */
		int rc = (take ? bpf_map_lookup_and_delete_batch : bpf_map_lookup_batch)(
				 fd, first ? NULL : &in, &out, keys, vals, &n, &bo) ? -errno : 0;
		if (rc == -ENOSPC && chunk < 65536) {
			uint8_t *nk = realloc(keys, (size_t)chunk * 2 * m->key_size);
			uint8_t *nv = nk ? realloc(vals, (size_t)chunk * 2 * vsize) : NULL;
			keys = nk ? nk : keys;
			vals = nv ? nv : vals;
			err = nv ? 0 : -ENOMEM;
			chunk *= 2;
			continue;	/* the same batch again, larger */
		}
		if (rc && rc != -ENOENT) {
			err = first && !take ? walk_keys(rt, m, fn, ctx) : rc;
			break;
		}
		for (uint32_t i = 0; i < n && !err; i++)
			err = fn(rt, m, keys + (size_t)i * m->key_size, vals + (size_t)i * vsize, ctx);
		if (rc)
			break;	/* ENOENT: that was the last batch */
		in = out;
		first = false;
	}
	free(keys);
	free(vals);
	return err;
}

static bool all_zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/*
 * print(@m); clear(@m); of a map without keys (a per-CPU array, whose
 * slots cannot be deleted, and whose every CPU adds to its own copy with
 * a load and a store that no write from here could join atomically): the
 * slots are never written; the values the print took are kept as a base,
 * and every later read shows what was added since.  Exact for the kinds
 * whose words only add (count, sum, avg, stats, hist, lhist: can_take).
 * The base lives for the run; a clear() or zero() of the slots zeroes it.
 */
static uint8_t *array_base(struct rt *rt, const struct sema_map *m, uint32_t vsize, bool make)
{
	if (!rt->map_base && make)
		rt->map_base = arena_new_array(rt->perm, uint8_t *, (size_t)rt->r->nmaps);
	if (rt->map_base && !rt->map_base[m->id] && make) {
		rt->map_base[m->id] = arena_alloc(rt->perm, (size_t)m->array_slots * vsize);
		memset(rt->map_base[m->id], 0, (size_t)m->array_slots * vsize);
	}
	return rt->map_base ? rt->map_base[m->id] : NULL;
}

/* val -= base, word by word (wrapping as the BPF side's adds); take: the
 * values read become the base */
static void since_base(uint8_t *val, uint8_t *base, uint32_t vsize, bool take)
{
	for (uint32_t o = 0; o + 8 <= vsize; o += 8) {
		uint64_t v, b;
		memcpy(&v, val + o, 8);
		memcpy(&b, base + o, 8);
		if (take)
			memcpy(base + o, &v, 8);
		v -= b;
		memcpy(val + o, &v, 8);
	}
}

/* a keyless hist/lhist's slot i as a hash's bucket: its last slot is
 * the sum (sema_map.array_slots) */
static uint64_t array_bucket(const struct sema_map *m, uint32_t i)
{
	return i == m->array_slots - 1 ? CG_HIST_SUM_BUCKET : i;
}

/* a per-CPU array (an aggregation without keys): slot i is bucket i of a
 * hist/lhist, or the only value; a slot no CPU touched is not an entry,
 * as a hash would not hold it, unless zero() kept it (a hash keeps a
 * zeroed entry).  Keys come out as a hash's would: the 8-byte dummy, then
 * the bucket. */
static int read_array_slots(struct rt *rt, const struct sema_map *m, struct slot **out, size_t *n,
			    enum print_then then)
{
	int fd = rt->map_fds[m->id];
	uint32_t vsize = ((m->value_size + 7) & ~7u) * (uint32_t)rt->ncpus;
	uint8_t *val = malloc(vsize), *key = arena_alloc(rt->a, m->key_size);
	uint8_t *base = array_base(rt, m, vsize, then != PRINT_ONLY);
	struct slot *slots = NULL;
	size_t cnt = 0;
	if (!val || (then != PRINT_ONLY && !base)) {
		free(val);
		return -ENOMEM;
	}
	if (then != PRINT_ONLY)
		rt->map_zeroed[m->id] = then == PRINT_THEN_ZERO;
	for (uint32_t i = 0; i < m->array_slots; i++) {
		if (bpf_map_lookup_elem(fd, &i, val))
			continue;
		if (base)
			since_base(val, base + (size_t)i * vsize, vsize, then != PRINT_ONLY);
		if (all_zero(val, vsize))
			continue;
		if (m->kind == MK_HIST || m->kind == MK_LHIST) {
			uint64_t bucket = array_bucket(m, i);
			memcpy(key + m->key_size - 8, &bucket, 8);
		}
		add_slot(rt, m, &slots, &cnt, key, val, rt->ncpus);
	}
	if (!cnt && rt->map_zeroed[m->id] && m->kind != MK_MIN && m->kind != MK_MAX) {
		memset(val, 0, vsize);
		memset(key, 0, m->key_size);
		add_slot(rt, m, &slots, &cnt, key, val, rt->ncpus);	/* the zeroed entry */
	}
	free(val);
	*out = slots;
	*n = cnt;
	return 0;
}

/* every (key, folded value) of the map; the keys and raw values live in rt->a */
struct agent_read {
	struct rt *rt;
	const struct sema_map *m;
	struct slot *slots;
	size_t cnt;
};

static int agent_entry(void *ctx, const uint8_t *key, const uint8_t *vals, int nvals)
{
	struct agent_read *ar = ctx;
	const struct sema_map *m = ar->m;
	if (m->array_slots) {
		/* an array's u32 index, as read_array_slots makes its keys */
		uint8_t *k = arena_alloc(ar->rt->a, m->key_size);
		memset(k, 0, m->key_size);
		if (m->kind == MK_HIST || m->kind == MK_LHIST) {
			uint32_t i;
			memcpy(&i, key, 4);
			uint64_t bucket = array_bucket(m, i);
			memcpy(k + m->key_size - 8, &bucket, 8);
		}
		key = k;
	}
	add_slot(ar->rt, m, &ar->slots, &ar->cnt, key, vals, nvals);
	return 0;
}

struct slots {
	struct slot *s;
	size_t n;
};

static int collect_slot(struct rt *rt, const struct sema_map *m, const uint8_t *key,
			const uint8_t *val, void *ctx)
{
	struct slots *sl = ctx;
	add_slot(rt, m, &sl->s, &sl->n, key, val, rt->ncpus);
	return 0;
}

static int read_slots(struct rt *rt, const struct sema_map *m, struct slot **out, size_t *n,
		      enum print_then then)
{
	int fd = rt->map_fds[m->id];
	if (rt->map_source && rt->map_source->has(rt, fd)) {
		/* --user-probes: the agents' shared maps, shards as CPUs */
		struct agent_read ar = {rt, m, NULL, 0};
		int err = rt->map_source->each(rt, fd, agent_entry, &ar);
		*out = ar.slots;
		*n = ar.cnt;
		return err;
	}
	if (m->array_slots)
		return read_array_slots(rt, m, out, n, then);
	struct slots sl = {0};
	int err = map_walk(rt, m, collect_slot, &sl, then != PRINT_ONLY);
	if (err && then != PRINT_ONLY && sl.n)	/* taken out already: they print */
		fprintf(stderr, "sonde: map '%s': cannot read all of it: %s\n", m->name, strerror(-err));
	else if (err) {
		free(sl.s);
		return err;
	}
	*out = sl.s;
	*n = sl.n;
	return 0;
}

static uint32_t user_key_size(const struct sema_map *m)
{
	return m->key_size - ((m->kind == MK_HIST || m->kind == MK_LHIST ||
			       m->kind == MK_TSERIES) ? 8 : 0);
}

static const struct sema_map *sort_map;
static int slot_cmp(const void *a, const void *b)
{
	const struct slot *x = a, *y = b;
	int c = memcmp(x->key, y->key, user_key_size(sort_map));
	if (c)
		return c;
	uint64_t bx, by;
	memcpy(&bx, x->key + user_key_size(sort_map), 8);
	memcpy(&by, y->key + user_key_size(sort_map), 8);
	return bx < by ? -1 : bx > by;
}

static void fill_key_into(struct rt *rt, const struct sema_map *m, const uint8_t *key,
			  struct pr_entry *e);

/* keys render stacks indented 4 columns, as bpftrace */
static void fill_key(struct rt *rt, const struct sema_map *m, const uint8_t *key, struct pr_entry *e)
{
	rt->render_in_key = true;
	fill_key_into(rt, m, key, e);
	rt->render_in_key = false;
	/* the key as named labels (scrape.c; pprof's labels) */
	if (rt->o->writer->scrape || rt->stacks)
		rt_scrape_labels(rt, m, key, e);
}

/* a record or `args` somewhere in t: a value bpftrace 0.17 cannot make */
static bool newest_only(const struct type *t)
{
	if (type_is_record(t) || (t->kind == TY_STRUCT && t->newest_print))
		return true;
	for (int i = 0; t->kind == TY_TUPLE && i < t->nfields; i++)
		if (newest_only(&t->fields[i].type))
			return true;
	return false;
}

/* one key element: its text, and a stack's frames for the writers that draw them */
static void key_element(struct rt *rt, const struct type *t, const uint8_t *p, struct pr_key *k)
{
	k->text = rt_render(rt, t, p, &k->is_str);
	k->json_compact = newest_only(t);
	if (rt->stacks && (t->kind == TY_USTACK || t->kind == TY_KSTACK))
		k->stack = rt_stack_frames(rt, t, p);
}

static void fill_key_into(struct rt *rt, const struct sema_map *m, const uint8_t *key,
			  struct pr_entry *e)
{
	if (m->key.kind == TY_NONE)
		return;
	if (m->key.kind == TY_TUPLE && !type_is_record(&m->key)) {	/* several keys */
		e->nkey = m->key.nfields;
		e->key = arena_new_array(rt->a, struct pr_key, e->nkey);
		for (int i = 0; i < e->nkey; i++)
			key_element(rt, &m->key.fields[i].type, key + m->key.fields[i].offset, &e->key[i]);
		return;
	}
	e->nkey = 1;
	e->key = arena_new_obj(rt->a, struct pr_key);
	key_element(rt, &m->key, key, e->key);
}

static void zero_keys(struct rt *rt, const struct sema_map *m, const struct slot *slots, size_t n);

/* then: the entries read are taken out of the map (can_take) */
static int build(struct rt *rt, const struct sema_map *m, struct pr_map *pm, enum print_then then)
{
	struct slot *slots;
	size_t n;
	int err = read_slots(rt, m, &slots, &n, then);
	if (err)
		return err;
	if (then == PRINT_THEN_ZERO && !m->array_slots)
		zero_keys(rt, m, slots, n);
	memset(pm, 0, sizeof(*pm));
	pm->name = m->name;
	pm->counter = m->kind == MK_COUNT;
	pm->entries = arena_new_array(rt->a, struct pr_entry, n ? n : 1);
	switch (m->kind) {
	case MK_NONE: case MK_COUNT: case MK_SUM: case MK_MIN: case MK_MAX:
		pm->kind = PR_INT;
		break;
	case MK_VALUE:
		/* pointers too: bpftrace prints pointer values (not keys) in decimal */
		/* bools and enums print as words */
		pm->kind = type_is(&m->value, TT_PRINTS_NUMBER) && !m->value.is_bool &&
					   !m->value.enumv ? PR_INT : PR_TEXT_VAL;
		break;
	case MK_AVG: pm->kind = PR_AVG; break;
	case MK_STATS: pm->kind = PR_STATS; break;
	case MK_HIST:
		pm->kind = PR_HIST;
		pm->hist_bits = m->hist_bits;
		break;
	case MK_LHIST:
		pm->kind = PR_LHIST;
		pm->lh_min = m->lh_min;
		pm->lh_max = m->lh_max;
		pm->lh_step = m->lh_step;
		break;
	case MK_TSERIES:
		pm->kind = PR_TSERIES;
		rt_tseries_clock(m, pm);
		break;
	}
	/* values and sums keep their sign (sema: the first value's) */
	pm->is_unsigned = (m->kind == MK_VALUE || m->kind == MK_SUM) && m->value.kind == TY_INT &&
			  !m->value.is_signed;
	if (m->kind == MK_TSERIES)
		pm->is_unsigned = m->ts_unsigned;
	if (m->kind == MK_TSERIES) {
		sort_map = m;
		if (n > 1)
			qsort(slots, n, sizeof(*slots), slot_cmp);
		uint32_t uk = user_key_size(m);
		for (size_t i = 0; i < n;) {
			struct pr_entry *e = &pm->entries[pm->nentries++];
			fill_key(rt, m, slots[i].key, e);
			size_t j = i;
			while (j < n && !memcmp(slots[j].key, slots[i].key, uk))
				j++;
			struct pr_ts_point *pt = arena_new_array(rt->a, struct pr_ts_point, j - i);
			for (size_t k = i; k < j; k++)
				pt[k - i] = (struct pr_ts_point){(uint64_t)slots[k].v[1], slots[k].v[0]};
			e->ts = pt;
			e->nts = (int)(j - i);
			i = j;
		}
	} else if (m->kind == MK_HIST || m->kind == MK_LHIST) {
		sort_map = m;
		if (n > 1)	/* an empty map has no slots array at all */
			qsort(slots, n, sizeof(*slots), slot_cmp);
		uint32_t uk = user_key_size(m);
		int nb = m->kind == MK_HIST ? pr_hist_nbuckets(m->hist_bits)
					    : (int)((m->lh_max - m->lh_min) / m->lh_step) + 2;
		for (size_t i = 0; i < n;) {
			struct pr_entry *e = &pm->entries[pm->nentries++];
			fill_key(rt, m, slots[i].key, e);
			e->buckets = arena_new_array(rt->a, uint64_t, nb);
			e->nbuckets = nb;
			size_t j = i;
			for (; j < n && !memcmp(slots[j].key, slots[i].key, uk); j++) {
				uint64_t b;
				memcpy(&b, slots[j].key + uk, 8);
				if (b < (uint64_t)nb)
					e->buckets[b] += (uint64_t)slots[j].v[0];
				else if (b == CG_HIST_SUM_BUCKET) {	/* cg_opts.hist_sum */
					e->total += slots[j].v[0];
					e->has_sum = true;
				}
			}
			i = j;
		}
	} else {
		for (size_t i = 0; i < n; i++) {
			struct pr_entry *e = &pm->entries[pm->nentries++];
			fill_key(rt, m, slots[i].key, e);
			e->ival = slots[i].v[0];
			e->count = slots[i].v[0];
			e->total = slots[i].v[1];
			if (m->kind == MK_VALUE) {
				if (pm->kind == PR_INT)
					memcpy(&e->ival, slots[i].raw, 8);
				else
					e->text = rt_render_for(rt, &m->value, slots[i].raw,
								&e->text_is_str);
			}
		}
	}
	free(slots);
	/* bpftrace prints a keyless count() that holds nothing (never hit,
	 * cleared, deleted) as "@x: 0"; every other empty map as nothing */
	if (m->kind == MK_COUNT && m->key.kind == TY_NONE && pm->nentries == 0) {
		memset(&pm->entries[0], 0, sizeof(pm->entries[0]));
		pm->nentries = 1;
	}
	/* one container spans several cgroups: one line per container */
	if (rt_type_has_container(&m->key))
		return rt_fold_equal_keys(pm, m->kind);
	return 0;
}

int rt_map_build(struct rt *rt, const struct sema_map *m, struct pr_map *pm)
{
	return build(rt, m, pm, PRINT_ONLY);
}

/* a tseries map's clock: the TAI offset its stamps print with, and the
 * interval running now (the scrape formats' "latest complete interval") */
void rt_tseries_clock(const struct sema_map *m, struct pr_map *pm)
{
	struct timespec tai, real;
	clock_gettime(CLOCK_TAI, &tai);
	clock_gettime(CLOCK_REALTIME, &real);
	pm->ts_interval = m->ts_interval;
	pm->ts_nintervals = m->ts_nintervals;
	/* whole seconds (37, or 0 where no one set it): the two readings are
	 * some nanoseconds apart, which would shift every stamp */
	int64_t off = (tai.tv_sec - real.tv_sec) * 1000000000LL + (tai.tv_nsec - real.tv_nsec);
	pm->ts_tai_offset = (off + (off >= 0 ? 500000000 : -500000000)) / 1000000000 * 1000000000;
	pm->ts_now_epoch = ((uint64_t)tai.tv_sec * 1000000000ull + (uint64_t)tai.tv_nsec) / m->ts_interval;
}

static int print_map(struct rt *rt, const struct sema_map *m, uint32_t top, uint32_t div,
		     enum print_then then)
{
	struct pr_map pm;
	struct arena *keep = rt->a;
	struct arena_mark mark = arena_mark(rt->scratch);
	rt->a = rt->scratch;
	int err = build(rt, m, &pm, then);
	if (!err)
		rt->o->writer->map(rt->o->out, &pm, top, div);
	arena_release(rt->scratch, mark);
	rt->a = keep;
	if (err) {
		fprintf(stderr, "sonde: map '%s': cannot read: %s\n", m->name, strerror(-err));
		return err;
	}
	fflush(rt->o->out);
	return 0;
}

int rt_map_print(struct rt *rt, const struct sema_map *m, uint32_t top, uint32_t div)
{
	return print_map(rt, m, top, div, PRINT_ONLY);
}

/*
 * Can print(@m); clear(@m); read and clear in one step: a hash the kernel
 * can read and delete at once (BPF_MAP_LOOKUP_AND_DELETE_BATCH, 5.6), a
 * per-CPU array of a kind that only adds (array_base) and that no probe
 * reads (its value there would not be the cleared one).  min() and max()
 * without keys, and the agents' maps (--user-probes), print and then clear.
 */
static bool can_take(struct rt *rt, const struct sema_map *m)
{
	if (rt->map_source && rt->map_source->has(rt, rt->map_fds[m->id]))
		return false;	/* --user-probes: the agents' maps */
	if (!m->array_slots)
		return host_feature(HF_LOOKUP_DELETE);
	switch (m->kind) {
	case MK_COUNT: case MK_SUM: case MK_AVG: case MK_STATS: case MK_HIST: case MK_LHIST:
		return !m->bpf_read;
	case MK_NONE: case MK_VALUE: case MK_MIN: case MK_MAX: case MK_TSERIES:
		break;
	}
	return false;
}

int rt_map_print_then(struct rt *rt, const struct sema_map *m, uint32_t top, uint32_t div,
		      enum print_then then)
{
	if (then == PRINT_ONLY || can_take(rt, m))
		return print_map(rt, m, top, div, then);
	int err = print_map(rt, m, top, div, PRINT_ONLY);	/* two steps, as bpftrace */
	int err2 = rt_map_clear(rt, m, then == PRINT_THEN_ZERO);
	return err ? err : err2;
}

struct keyset {
	uint8_t *keys;
	size_t n, cap;
};

/* clear() and zero() act on a snapshot of the keys (map_walk) */
static int collect_key(struct rt *rt, const struct sema_map *m, const uint8_t *key,
		       const uint8_t *val, void *ctx)
{
	struct keyset *ks = ctx;
	if (ks->n == ks->cap) {
		size_t cap = ks->cap ? ks->cap * 2 : 64;
		uint8_t *k = realloc(ks->keys, cap * m->key_size);
		if (!k)
			return -ENOMEM;
		ks->keys = k;
		ks->cap = cap;
	}
	memcpy(ks->keys + ks->n++ * m->key_size, key, m->key_size);
	return 0;
}

/* delete (vals NULL) or overwrite with vals[0] each of the n keys; a key a
 * probe deleted meanwhile is skipped, never created again */
static void apply_keys(int fd, const uint8_t *keys, size_t n, uint32_t key_size, const void *val,
		       uint32_t vsize, uint64_t flags)
{
	/* BPF_EXIST: a key that is gone stops a batch with ENOENT;
	 * BPF_NOEXIST: a key that is there, with EEXIST */
	int skip = flags == BPF_NOEXIST ? EEXIST : ENOENT;
	LIBBPF_OPTS(bpf_map_batch_opts, bo, .elem_flags = flags);
	uint8_t *vals = NULL;
	if (val && n && (vals = malloc(n * vsize)))
		for (size_t i = 0; i < n; i++)
			memcpy(vals + i * vsize, val, vsize);
	size_t i = 0;
	while (i < n && (!val || vals)) {
		uint32_t cnt = (uint32_t)(n - i);
		int rc = val ? bpf_map_update_batch(fd, keys + i * key_size, vals + i * vsize, &cnt, &bo)
			     : bpf_map_delete_batch(fd, keys + i * key_size, &cnt, &bo);
		if (!rc)
			break;
		if (errno != skip)
			break;	/* no batch operations: one by one below */
		i += cnt + 1;	/* the key at cnt is gone already */
	}
	if (i < n)	/* an error other than a key that is gone: one by one */
		for (; i < n; i++) {
			if (val)
				bpf_map_update_elem(fd, keys + i * key_size, val, flags);
			else
				bpf_map_delete_elem(fd, keys + i * key_size);
		}
	free(vals);
}

/*
 * clear() and zero(): on the keys the map holds when the call arrives.
 * Walking to "the first key" until the map is empty never ends while a
 * probe keeps writing (sonde's own bpf() calls create keys for
 * `tracepoint:syscalls:sys_enter_bpf { @[pid] = count(); }`).
 */
/* an array's slots cannot be deleted: clear and zero both write zeros,
 * and a slot of zeros is not printed (read_array_slots) */
static int clear_array(struct rt *rt, const struct sema_map *m)
{
	uint32_t vsize = ((m->value_size + 7) & ~7u) * (uint32_t)rt->ncpus;
	uint8_t *base = array_base(rt, m, vsize, false);
	if (base)	/* the slots start again from zero */
		memset(base, 0, (size_t)m->array_slots * vsize);
	uint8_t *zero = calloc(1, vsize);
	if (!zero)
		return -ENOMEM;
	for (uint32_t i = 0; i < m->array_slots; i++)
		bpf_map_update_elem(rt->map_fds[m->id], &i, zero, BPF_EXIST);
	free(zero);
	return 0;
}

int rt_map_clear(struct rt *rt, const struct sema_map *m, bool zero_only)
{
	if (rt->map_source && rt->map_source->has(rt, rt->map_fds[m->id]))
		return rt->map_source->clear(rt, rt->map_fds[m->id], zero_only);
	if (m->array_slots) {
		rt->map_zeroed[m->id] = zero_only;
		return clear_array(rt, m);
	}
	uint32_t vsize = value_bytes(rt, m);
	uint8_t *zero = zero_only ? calloc(1, vsize) : NULL;
	struct keyset ks = {0};
	int err = zero_only && !zero ? -ENOMEM : map_walk(rt, m, collect_key, &ks, false);
	if (!err)
		apply_keys(rt->map_fds[m->id], ks.keys, ks.n, m->key_size, zero, vsize, BPF_EXIST);
	else
		fprintf(stderr, "sonde: map '%s': cannot %s: %s\n", m->name,
			zero_only ? "zero" : "clear", strerror(-err));
	free(ks.keys);
	free(zero);
	return err;
}

/* zero() after a print that took the entries out: each comes back as
 * zero unless a probe has created it again meanwhile (BPF_NOEXIST), whose
 * new value stands */
static void zero_keys(struct rt *rt, const struct sema_map *m, const struct slot *slots, size_t n)
{
	uint32_t vsize = value_bytes(rt, m);
	uint8_t *keys = n ? malloc(n * m->key_size) : NULL, *zero = calloc(1, vsize);
	for (size_t i = 0; keys && i < n; i++)
		memcpy(keys + i * m->key_size, slots[i].key, m->key_size);
	if (keys && zero)
		apply_keys(rt->map_fds[m->id], keys, n, m->key_size, zero, vsize, BPF_NOEXIST);
	free(keys);
	free(zero);
}

void rt_maps_print_all(struct rt *rt)
{
	for (int i = 0; i < rt->r->nmaps; i++)
		rt_map_print(rt, rt->r->maps[i], 0, 0);
}

/* a map that was full refused new keys (codegen counts each refused
 * update in CG_MAP_FAILS_MAP): say which, how many, and how to fix it */
void rt_maps_report_full(struct rt *rt)
{
	int fd = bpf_object__find_map_fd_by_name(rt->bpf, CG_MAP_FAILS_MAP);
	for (int i = 0; fd >= 0 && i < rt->r->nmaps; i++) {
		const struct sema_map *m = rt->r->maps[i];
		uint64_t lost = rt_percpu_sum(rt, fd, (uint32_t)m->id);
		if (!lost || m->decl)	/* a declared map warned at each refusal */
			continue;
		struct bpf_map_info info = {0};
		uint32_t len = sizeof(info);
		bpf_obj_get_info_by_fd(rt->map_fds[m->id], &info, &len);
		bool slots = m->kind == MK_HIST || m->kind == MK_LHIST || m->kind == MK_TSERIES;
		diag_warnf("map '%s' was full (%u %s): %llu update%s lost; %s\n",
			m->name, info.max_entries, slots ? "key and bucket slots" : "keys",
			(unsigned long long)lost, lost == 1 ? " was" : "s were",
			m->decl ? "declare it larger (let @m = hash(N))"
				: "raise the limit with --map-keys-max N or BPFTRACE_MAP_KEYS_MAX");
	}
}
