/*
 * maps.c - map kinds, key and value types inferred from every use, and the
 * printf-like events the BPF side sends.
 *
 * A map's kind comes from its first aggregation or assignment anywhere in
 * the program, so the checker runs twice (sema.c); here each use is
 * unified with what earlier uses established, and a mismatch is a located
 * error naming both.
 */
#include "sema/sema_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/format.h"
#include "common/explain.h"
#include "common/suggest.h"
#include "host/host.h"

/* ---- maps --------------------------------------------------------------- */

const char *sema_kind_name(enum map_kind k)
{
	static const char *names[] = {"none", "value", "count", "sum", "avg", "min",
				      "max", "stats", "hist", "lhist", "tseries"};
	return names[k];
}

static uint32_t map_name_hash(const char *name)
{
	uint32_t h = 2166136261u;	/* FNV-1a */
	for (; *name; name++)
		h = (h ^ (uint8_t)*name) * 16777619u;
	return h;
}

/* the slot of map `name` in the index, or the empty slot where it goes */
static struct sema_map **map_slot(struct sema_map **index, uint32_t cap, const char *name)
{
	uint32_t i = map_name_hash(name) & (cap - 1);
	while (index[i] && strcmp(index[i]->name, name))
		i = (i + 1) & (cap - 1);
	return &index[i];
}

/* Every use of a map looks it up by name: a hashed index, since a script
 * may name 10,000 maps (a linear search made sema quadratic). */
struct sema_map *sema_map_of(struct sema_ctx *s, struct ast_node *m)
{
	if ((uint32_t)s->nmaps * 2 + 2 > s->map_index_cap) {
		uint32_t cap = s->map_index_cap ? s->map_index_cap * 2 : 64;
		struct sema_map **index = arena_new_array(s->a, struct sema_map *, cap);
		for (int i = 0; i < s->nmaps; i++)
			*map_slot(index, cap, s->maps[i]->name) = s->maps[i];
		s->map_index = index;
		s->map_index_cap = cap;
	}
	struct sema_map **slot = map_slot(s->map_index, s->map_index_cap, m->map.name);
	if (*slot)
		return *slot;
	s->maps = arena_grow(s->a, s->maps, (size_t)s->nmaps, sizeof(*s->maps));
	struct sema_map *map = arena_new_obj(s->a, struct sema_map);
	map->name = m->map.name;
	map->loc = m->loc;
	s->maps[s->nmaps++] = map;
	*slot = map;
	return map;
}

bool sema_map_set_kind(struct sema_ctx *s, struct ast_node *m, enum map_kind kind,
		       struct src_loc loc)
{
	struct sema_map *map = sema_map_of(s, m);
	if (map->kind == MK_NONE) {
		map->kind = kind;
		return true;
	}
	if (map->kind != kind) {
		sema_error(s, loc, "map '%s' is used as %s here but as %s elsewhere",
			   map->name, sema_kind_name(kind), sema_kind_name(map->kind));
		return false;
	}
	return true;
}

/* The label a key expression gives in Prometheus (docs/metrics.md): a
 * builtin's name (pid, comm, container), a field's (args->cmd: cmd), a
 * scratch variable's ($reason: reason; how a script names a label itself),
 * a function's (fdpath, syscall_name), a cast's or str()'s operand
 * (str(args->filename): filename), else NULL. */
static const char *key_label(struct ast_node *k)
{
	/* not a pass over every node kind: the rest have no name to give */
	if (k->kind == N_IDENT)
		return k->ident.name;
	if (k->kind == N_VAR)
		return k->var.name;
	if (k->kind == N_FIELD)
		return k->field.name;
	if (k->kind == N_CAST)
		return key_label(k->cast.operand);
	if (k->kind == N_CALL) {
		/* str() only converts: the string's source names it; any other
		 * function says what it computed (fdpath, syscall_name, ksym) */
		const char *l = !strcmp(k->call.name, "str") && k->call.nargs ? key_label(k->call.args) : NULL;
		return l ? l : k->call.name;
	}
	return NULL;
}

/* one label name per key element (n of them: a tuple value as the key
 * has its elements); key<i> where the expression gives none, and a
 * repeated name numbered by position (pid, pid_2) */
static void name_labels(struct sema_ctx *s, struct sema_map *map, struct ast_node *m, int n)
{
	map->labels = arena_new_array(s->a, const char *, (size_t)n);
	struct ast_node *k = m->map.keys;
	for (int i = 0; i < n; i++, k = k ? k->next : NULL) {
		const char *l = n == m->map.nkeys ? key_label(k) : NULL;
		char buf[64];
		if (!l)
			snprintf(buf, sizeof(buf), "key%d", i);
		else
			snprintf(buf, sizeof(buf), "%.50s", l);
		for (int j = 0; j < i; j++)
			if (!strcmp(map->labels[j], buf)) {
				snprintf(buf + strlen(buf), sizeof(buf) - strlen(buf), "_%d", i + 1);
				break;
			}
		map->labels[i] = arena_strdup(s->a, buf);
	}
}

/* check the keys of a map node and unify them with the map's key type */
void sema_map_keys(struct sema_ctx *s, struct ast_node *m)
{
	/* --user-probes: the agents write the maps; a probe that stays in the
	 * kernel may print, clear or zero them (sonde does that) but not use them */
	if (s->opts->user_probes && s->probe && s->probe->nattach && !sema_in_user_probe(s))
		sema_error(s, m->loc, "map '%s' in %s: with --user-probes, maps live in the traced "
			   "processes and %s runs in the kernel, where it can print, clear or zero a map "
			   "but not use it: drop --user-probes to use maps here",
			   m->map.name, s->probe->attach[0].name, s->probe->attach[0].name);
	struct sema_map *map = sema_map_of(s, m);
	struct type key = {.kind = TY_NONE};
	/* @m[(a, b)] is @m[a, b], as in the newest bpftrace */
	if (m->map.nkeys == 1 && m->map.keys->kind == N_TUPLE && !m->map.keys->tuple.names) {
		m->map.nkeys = m->map.keys->tuple.nelems;
		m->map.keys = m->map.keys->tuple.elems;
	}
	if (m->map.nkeys > MAX_TUPLE) {
		sema_error(s, m->loc, "map '%s': at most %d keys [%s]", map->name, MAX_TUPLE,
			   explain_get(EX_MAP_SIZE)->code);
		return;
	}
	if (m->map.nkeys == 1) {
		key = *sema_expr(s, m->map.keys);
	} else if (m->map.nkeys > 1) {
		key.kind = TY_TUPLE;
		key.nfields = m->map.nkeys;
		key.fields = arena_new_array(s->a, struct type_field, key.nfields);
		int i = 0;
		for (struct ast_node *k = m->map.keys; k; k = k->next)
			key.fields[i++].type = *sema_expr(s, k);
	}
	for (int i = 0; key.kind == TY_TUPLE && i < key.nfields; i++)
		if (sema_is_error(&key.fields[i].type))
			return;
	if (sema_is_error(&key))
		return;
	/* a tuple value as the one key ($k = (a, b); @m[$k]) is its elements */
	bool tuple_key = m->map.nkeys == 1 && key.kind == TY_TUPLE;
	int have = tuple_key ? key.nfields : m->map.nkeys;
	for (struct ast_node *k = m->map.keys; k; k = k->next) {
		/* a tuple may be one of several keys (@m[pid, (comm, tid)]), as in
		 * the newest bpftrace: the key is then a tuple holding a tuple */
		enum type_kind kk = k->type.kind;
		if (kk == TY_VOID || kk == TY_COUNT || kk == TY_HIST || kk == TY_LHIST || kk == TY_TSERIES ||
		    kk == TY_STATS || kk == TY_AVG) {
			sema_error(s, k->loc, "map '%s': %s cannot be a map key", map->name,
				   type_str(s->a, &k->type));
			return;
		}
	}
	sema_complete_deep(s, &key);
	if (!map->key.kind && !map->key_size) {
		map->key = sema_deep_copy(s->a, &key);
		map->key_size = 1;	/* marks "key seen" even for keyless maps */
		if (m->map.nkeys)
			name_labels(s, map, m, have);
		return;
	}
	int want = map->key.kind == TY_NONE ? 0 : map->key.kind == TY_TUPLE ? map->key.nfields : 1;
	if (want != have) {
		sema_error(s, m->loc, "map '%s' has %d key%s here but %d elsewhere", map->name,
			   have, have == 1 ? "" : "s", want);
		return;
	}
	if (!sema_compatible(&map->key, &key, true))
		sema_error(s, m->loc, "map '%s' key is %s here but %s elsewhere", map->name,
			   type_str(s->a, &key), type_str(s->a, &map->key));
}

void sema_map_unassigned(struct sema_ctx *s, const struct sema_map *map, struct src_loc loc,
			 const char *use)
{
	struct suggest sg;
	char hint[512];
	suggest_init(&sg, map->name);
	for (int i = 0; i < s->nmaps; i++)
		if (s->maps[i]->kind != MK_NONE)
			suggest_add(&sg, s->maps[i]->name);
	sema_error(s, loc, "map '%s' is %s but never assigned%s", map->name, use,
		   suggest_text(&sg, 3, hint, sizeof(hint)));
}

/*
 * An aggregation read in BPF folds every CPU's slot with
 * bpf_map_lookup_percpu_elem (codegen/maps.c), which came in Linux 5.19:
 * on an older kernel that is a located error naming the feature, not the
 * verifier's "invalid func unknown#195".  --user-probes too: the kernel
 * verifies the program the agent then runs.
 */
static void need_percpu_lookup(struct sema_ctx *s, const struct sema_map *map, struct ast_node *m)
{
	if (s->quiet || host_feature(HF_PERCPU_LOOKUP))
		return;
	sema_error(s, m->loc, "reading the aggregation '%s' in an expression needs %s (Linux %s), "
		   "which this kernel does not have", map->name, host_feature_what(HF_PERCPU_LOOKUP),
		   host_feature_since(HF_PERCPU_LOOKUP));
}

/* a map read in an expression */
struct type sema_map_read_type(struct sema_ctx *s, struct ast_node *m)
{
	struct sema_map *map = sema_map_of(s, m);
	if (map->kind != MK_NONE && map->kind != MK_VALUE) {
		need_percpu_lookup(s, map, m);
		map->bpf_read = true;	/* runtime/maps.c: its slots are cleared, no base kept */
	}
	switch (map->kind) {
	case MK_NONE:
		s->unknown_reads++;
		if (!s->quiet && !map->poisoned)
			sema_map_unassigned(s, map, m->loc, "read");
		return (struct type){.kind = TY_ERROR};
	case MK_VALUE:
		return sema_deep_copy(s->a, &map->value);
	case MK_SUM:	/* keeps its first value's sign, as bpftrace */
		return map->value.kind == TY_INT ? map->value : ty_int64;
	case MK_COUNT:
	case MK_MIN:	/* bpftrace: min/max are signed, whatever they saw */
	case MK_MAX:
		return ty_int64;
	case MK_AVG:	/* total / count over all CPUs, as newer bpftrace */
		return ty_int64;
	case MK_STATS:
	case MK_HIST:
	case MK_LHIST:
	case MK_TSERIES:
		sema_error(s, m->loc, "map '%s' holds %s, which cannot be read in an expression",
			   map->name, sema_kind_name(map->kind));
		return (struct type){.kind = TY_ERROR};
	}
	return (struct type){.kind = TY_ERROR};
}

void sema_map_store_value(struct sema_ctx *s, struct ast_node *m, const struct type *v,
			    struct src_loc loc)
{
	if (sema_is_error(v)) {
		/* reported where it happened: reads of the map stay quiet */
		sema_map_of(s, m)->poisoned = true;
		return;
	}
	if (v->kind == TY_VOID || v->kind == TY_NONE) {
		sema_error(s, loc, "map '%s': this expression has no value", m->map.name);
		return;
	}
	if (!sema_map_set_kind(s, m, MK_VALUE, loc))
		return;
	struct sema_map *map = sema_map_of(s, m);
	if (map->value.kind == TY_NONE) {
		map->value = sema_deep_copy(s->a, v);
		sema_complete_deep(s, &map->value);
		/* a map holds integers in 64 bits and keeps the first value's
		 * sign, as bpftrace does: `@x = (uint32)5; @x -= 10` wraps as
		 * uint64 and prints unsigned */
		if (map->value.kind == TY_INT) {
			/* printf's %d still sees a 32-bit value as C's int */
			map->value.csize = v->csize ? v->csize : v->size;
			map->value.size = 8;
		}
		return;
	}
	if (!sema_compatible(&map->value, v, true))
		sema_error(s, loc, "map '%s' holds %s, cannot assign %s", map->name,
			   type_str(s->a, &map->value), type_str(s->a, v));
}

/* ---- events ------------------------------------------------------------- */

struct sema_event *sema_add_event(struct sema_ctx *s, enum event_kind kind, struct ast_node *c,
				  const char *fmt, struct ast_node *args)
{
	struct sema_event *ev = arena_new_obj(s->a, struct sema_event);
	ev->kind = kind;
	ev->fmt = fmt;
	ev->loc = c->loc;
	ev->args.kind = TY_TUPLE;
	int n = 0;
	for (struct ast_node *a = args; a; a = a->next)
		n++;
	ev->args.nfields = n;
	ev->args.fields = arena_new_array(s->a, struct type_field, n ? n : 1);
	int i = 0;
	for (struct ast_node *a = args; a; a = a->next, i++) {
		ev->args.fields[i].type = sema_deep_copy(s->a, &a->type);
		sema_complete_deep(s, &ev->args.fields[i].type);
	}
	sema_layout(&ev->args);
	if (fmt) {
		ev->spec = arena_new_obj(s->a, struct fmt_spec);
		const char *err = NULL;
		int off = 0;
		if (fmt_parse(s->a, fmt, ev->spec, &err, &off)) {
			sema_error(s, c->call.args ? c->call.args->loc : c->loc, "%s", err);
			return ev;
		}
		if (ev->spec->nconvs != n) {
			sema_error(s, c->loc, "%s: format has %d conversion%s but %d argument%s given",
				   c->call.name, ev->spec->nconvs, ev->spec->nconvs == 1 ? "" : "s",
				   n, n == 1 ? "" : "s");
			return ev;
		}
		i = 0;
		for (struct ast_node *a = args; a; a = a->next, i++) {
			const struct fmt_conv *cv = &ev->spec->convs[i];
			bool num = sema_is_int(&a->type);
			if (sema_is_error(&a->type))
				continue;
			if (cv->kind != FMT_STR && !num)
				sema_error(s, a->loc, "%s: '%s' needs an integer, not %s", c->call.name,
					   cv->spec, type_str(s->a, &a->type));
			else if (cv->conv == 'r' && a->type.kind != TY_BUF)
				sema_error(s, a->loc, "%s: '%s' needs a buf(), not %s", c->call.name,
					   cv->spec, type_str(s->a, &a->type));
		}
	}
	s->events = arena_grow(s->a, s->events, (size_t)s->nevents, sizeof(*s->events));
	ev->id = s->nevents;
	s->events[s->nevents++] = ev;
	return ev;
}

