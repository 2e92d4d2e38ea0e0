/*
 * pprof.c - the pprof writer (-f pprof -o FILE.pb.gz): the stack maps as
 * a gzipped profile.proto, what `go tool pprof`, Grafana Pyroscope and
 * Parca read; pr_pprof_encode() also serves --serve's
 * /debug/pprof/profile (runtime/serve.c).
 *
 * Each map keyed by a stack (folded.c's rule) is one sample type, named
 * after the map ("@cpu" is "cpu"; "@" is "samples") with the unit "count"
 * for count() and "sum" for sum(); its entries are samples whose value is
 * the entry's, zero for every other type.  A sample's locations are its
 * frames leaf first: the kernel stacks, then the user stacks.  Each
 * distinct (address, function, file) is one Location with one Line; each
 * function name with its file one Function; each file (the user frame's
 * mapped file, [kernel.kallsyms] for kernel frames, [unknown] when not
 * resolved) one Mapping marked has_functions, so pprof does not try to
 * symbolize again.  The key parts that are not stacks become labels named
 * as the metrics formats name them (comm, pid, cgroup).  The wire format
 * is protobuf-c's, from output/profile.proto (protoc-c at build time); the
 * gzip stream is zlib's.  Other maps and printf go to the terminal as text.
 */
#include "output/out_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#include "common/arena.h"
#include "common/diag.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__Profile Profile;
typedef Perftools__Profiles__Sample Sample;
typedef Perftools__Profiles__Location Location;
typedef Perftools__Profiles__Function Function;
typedef Perftools__Profiles__Mapping Mapping;
typedef Perftools__Profiles__Line Line;
typedef Perftools__Profiles__Label Label;
typedef Perftools__Profiles__ValueType ValueType;

/* ---- interning: strings, functions, locations, mappings ---------------------------- */

/* an open-addressing table of interned keys -> 1-based ids */
struct intern {
	char **keys;
	uint64_t *ids;
	size_t cap, n;
};

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;	/* FNV-1a */
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ull;
	return h;
}

/* the id of key (n + 1 when new; *fresh says so) */
static uint64_t intern(struct arena *a, struct intern *t, const char *key, bool *fresh)
{
	if ((t->n + 1) * 2 > t->cap) {
		struct intern g = {.cap = t->cap ? t->cap * 2 : 256, .n = t->n};
		g.keys = arena_alloc(a, g.cap * sizeof(*g.keys));
		g.ids = arena_alloc(a, g.cap * sizeof(*g.ids));
		for (size_t i = 0; i < t->cap; i++)
			if (t->keys[i]) {
				size_t j = hash(t->keys[i]) & (g.cap - 1);
				while (g.keys[j])
					j = (j + 1) & (g.cap - 1);
				g.keys[j] = t->keys[i];
				g.ids[j] = t->ids[i];
			}
		*t = g;
	}
	size_t j = hash(key) & (t->cap - 1);
	while (t->keys[j]) {
		if (!strcmp(t->keys[j], key)) {
			*fresh = false;
			return t->ids[j];
		}
		j = (j + 1) & (t->cap - 1);
	}
	t->keys[j] = arena_strdup(a, key);
	t->ids[j] = ++t->n;
	*fresh = true;
	return t->n;
}

struct builder {
	struct arena *a;
	struct intern strs, funcs, locs, maps;
	char **strings;		/* by string index */
	Function **functions;
	Location **locations;
	Mapping **mappings;
	size_t nstrings, nfunctions, nlocations, nmappings;
};

static int64_t str_id(struct builder *b, const char *s)
{
	bool fresh;
	uint64_t id = intern(b->a, &b->strs, s, &fresh);
	if (fresh) {
		b->strings = arena_grow(b->a, b->strings, b->nstrings, sizeof(*b->strings));
		b->strings[b->nstrings++] = arena_strdup(b->a, s);
	}
	return (int64_t)id - 1;	/* "" was interned first: index 0 */
}

static uint64_t mapping_id(struct builder *b, const char *file)
{
	bool fresh;
	uint64_t id = intern(b->a, &b->maps, file, &fresh);
	if (fresh) {
		Mapping *m = arena_alloc(b->a, sizeof(*m));
		perftools__profiles__mapping__init(m);
		m->id = id;
		m->filename = str_id(b, file);
		m->has_functions = true;
		b->mappings = arena_grow(b->a, b->mappings, b->nmappings, sizeof(*b->mappings));
		b->mappings[b->nmappings++] = m;
	}
	return id;
}

static uint64_t function_id(struct builder *b, const char *name, const char *file)
{
	bool fresh;
	uint64_t id = intern(b->a, &b->funcs, arena_printf(b->a, "%s\n%s", name, file), &fresh);
	if (fresh) {
		Function *f = arena_alloc(b->a, sizeof(*f));
		perftools__profiles__function__init(f);
		f->id = id;
		f->name = f->system_name = str_id(b, name);
		f->filename = str_id(b, file);
		b->functions = arena_grow(b->a, b->functions, b->nfunctions, sizeof(*b->functions));
		b->functions[b->nfunctions++] = f;
	}
	return id;
}

static uint64_t location_id(struct builder *b, const struct pr_frame *fr, bool kernel)
{
	const char *file = kernel ? "[kernel.kallsyms]" : fr->module ? fr->module : "[unknown]";
	bool fresh;
	uint64_t id = intern(b->a, &b->locs,
			     arena_printf(b->a, "%" PRIx64 "\n%s\n%s\n%u", fr->addr, fr->func, file, fr->lineno),
			     &fresh);
	if (fresh) {
		Location *l = arena_alloc(b->a, sizeof(*l));
		perftools__profiles__location__init(l);
		l->id = id;
		l->mapping_id = mapping_id(b, file);
		l->address = fr->addr;
		Line *ln = arena_alloc(b->a, sizeof(*ln));
		perftools__profiles__line__init(ln);
		ln->function_id = function_id(b, fr->pyname ? fr->pyname : fr->func, file);
		ln->line = fr->lineno;	/* Python frames; 0: none */
		l->n_line = 1;
		l->line = arena_alloc(b->a, sizeof(*l->line));
		l->line[0] = ln;
		b->locations = arena_grow(b->a, b->locations, b->nlocations, sizeof(*b->locations));
		b->locations[b->nlocations++] = l;
	}
	return id;
}

/* the frames of e's stacks of one kind, leaf first */
static void add_locations(struct builder *b, const struct pr_entry *e, bool kernel, Sample *s)
{
	for (int k = 0; k < pr_entry_nkey(e); k++) {
		const struct pr_stack *st = e->key[k].stack;
		if (!st || st->kernel != kernel)
			continue;
		for (int i = 0; i < st->n; i++) {
			s->location_id = arena_grow(b->a, s->location_id, s->n_location_id,
						    sizeof(*s->location_id));
			s->location_id[s->n_location_id++] = location_id(b, &st->frames[i], kernel);
		}
	}
}

/* key parts that are not stacks, as labels: the metrics formats' names
 * when the runtime gave them, else key1, key2 ... */
static void add_labels(struct builder *b, const struct pr_entry *e, Sample *s)
{
	int nl = 0;
	for (int k = 0; k < pr_entry_nkey(e); k++) {
		const char *name = e->nlabels == pr_entry_nkey(e) && e->labels ? e->labels[k].name : NULL;
		if (e->key[k].stack)
			continue;
		Label *l = arena_alloc(b->a, sizeof(*l));
		perftools__profiles__label__init(l);
		l->key = str_id(b, name ? name : arena_printf(b->a, "key%d", k + 1));
		l->str = str_id(b, e->key[k].text ? e->key[k].text : "");
		s->label = arena_grow(b->a, s->label, (size_t)nl, sizeof(*s->label));
		s->label[nl++] = l;
	}
	s->n_label = (size_t)nl;
}

static int gzip_buf(const uint8_t *in, size_t n, uint8_t **out, size_t *len)
{
	z_stream z = {0};
	if (deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
		return -ENOMEM;
	size_t cap = deflateBound(&z, n);
	*out = malloc(cap);
	if (!*out) {
		deflateEnd(&z);
		return -ENOMEM;
	}
	z.next_in = (Bytef *)in;
	z.avail_in = (uInt)n;
	z.next_out = *out;
	z.avail_out = (uInt)cap;
	int rc = deflate(&z, Z_FINISH);
	*len = z.total_out;
	deflateEnd(&z);
	if (rc != Z_STREAM_END) {
		free(*out);
		*out = NULL;
		return -EIO;
	}
	return 0;
}

/*
 * pprof takes the first mapping for the main binary (its "File:" line):
 * the user file where most of the samples were (their leaf-most user
 * frame: libc, which every process passes through at its root, does not
 * win by that), the kernel last.  Ids, not positions, link locations to
 * mappings, and mappings[id - 1] is still the mapping of that id here.
 */
static const struct builder *weigh_b;
static int64_t *weigh;
static int by_weight(const void *x, const void *y)
{
	const Mapping *a = *(Mapping *const *)x, *b = *(Mapping *const *)y;
	bool ka = !strcmp(weigh_b->strings[a->filename], "[kernel.kallsyms]");
	bool kb = !strcmp(weigh_b->strings[b->filename], "[kernel.kallsyms]");
	if (ka != kb)
		return ka - kb;
	int64_t wa = weigh[a->id - 1], wb = weigh[b->id - 1];
	return wa != wb ? (wa < wb) - (wa > wb) : (a->id > b->id) - (a->id < b->id);
}

static void order_mappings(struct builder *b, Sample **samples, size_t nsamples)
{
	if (b->nmappings < 2)
		return;
	int64_t *w = arena_alloc(b->a, b->nmappings * sizeof(*w));
	for (size_t i = 0; i < nsamples; i++) {
		int64_t v = 0;
		for (size_t t = 0; t < samples[i]->n_value; t++)
			v += samples[i]->value[t];
		for (size_t l = 0; l < samples[i]->n_location_id; l++) {
			uint64_t m = b->locations[samples[i]->location_id[l] - 1]->mapping_id;
			if (strcmp(b->strings[b->mappings[m - 1]->filename], "[kernel.kallsyms]")) {
				w[m - 1] += v;
				break;
			}
		}
	}
	weigh_b = b;
	weigh = w;
	qsort(b->mappings, b->nmappings, sizeof(*b->mappings), by_weight);
}

int pr_pprof_encode(const struct pr_map *maps, int nmaps, int64_t time_ns, int64_t duration_ns,
		    uint8_t **buf, size_t *len)
{
	struct builder b = {.a = arena_new()};
	Profile p = PERFTOOLS__PROFILES__PROFILE__INIT;
	str_id(&b, "");
	int ntypes = 0;
	for (int i = 0; i < nmaps; i++)
		ntypes += pr_is_stack_map(&maps[i]);
	p.sample_type = arena_alloc(b.a, (size_t)(ntypes ? ntypes : 1) * sizeof(*p.sample_type));
	Sample **samples = NULL;
	size_t nsamples = 0;
	int t = 0;
	struct pr_path path = {0};
	for (int i = 0; i < nmaps; i++) {
		const struct pr_map *m = &maps[i];
		if (!pr_is_stack_map(m))
			continue;
		ValueType *vt = arena_alloc(b.a, sizeof(*vt));
		perftools__profiles__value_type__init(vt);
		const char *name = m->name && m->name[0] == '@' && m->name[1] ? m->name + 1 : "samples";
		vt->type = str_id(&b, name);
		vt->unit = str_id(&b, m->counter ? "count" : "sum");
		p.sample_type[t] = vt;
		for (size_t j = 0; j < m->nentries; j++) {
			const struct pr_entry *e = &m->entries[j];
			if (!e->ival || !pr_stack_path(e, true, &path))
				continue;
			Sample *s = arena_alloc(b.a, sizeof(*s));
			perftools__profiles__sample__init(s);
			add_locations(&b, e, true, s);
			add_locations(&b, e, false, s);
			add_labels(&b, e, s);
			s->n_value = (size_t)ntypes;
			s->value = arena_alloc(b.a, (size_t)ntypes * sizeof(*s->value));
			s->value[t] = e->ival;
			samples = arena_grow(b.a, samples, nsamples, sizeof(*samples));
			samples[nsamples++] = s;
		}
		t++;
	}
	pr_path_free(&path);
	p.n_sample_type = (size_t)ntypes;
	if (ntypes)
		p.default_sample_type = p.sample_type[0]->type;
	p.sample = samples;
	p.n_sample = nsamples;
	p.location = b.locations;
	p.n_location = b.nlocations;
	p.function = b.functions;
	p.n_function = b.nfunctions;
	order_mappings(&b, samples, nsamples);
	p.mapping = b.mappings;
	p.n_mapping = b.nmappings;
	p.string_table = b.strings;
	p.n_string_table = b.nstrings;
	p.time_nanos = time_ns;
	p.duration_nanos = duration_ns;
	size_t n = perftools__profiles__profile__get_packed_size(&p);
	uint8_t *raw = malloc(n ? n : 1);
	int err = raw ? 0 : -ENOMEM;
	if (raw) {
		perftools__profiles__profile__pack(&p, raw);
		err = gzip_buf(raw, n, buf, len);
	}
	free(raw);
	arena_free(b.a);
	return err;
}

/* ---- the writer: stack maps kept until exit ------------------------------------------ */

static struct arena *kept;	/* the copies below */
static struct pr_map *kept_maps;
static int nkept;
static struct timespec started;

/* the profile spans the run: from when sonde started to the exit */
__attribute__((constructor)) static void pprof_clock_start(void)
{
	clock_gettime(CLOCK_REALTIME, &started);
}

/* a copy of m's entries in `kept` (the runtime's arena is reused per print) */
static void copy_map(struct pr_map *dst, const struct pr_map *m)
{
	*dst = *m;
	dst->name = arena_strdup(kept, m->name ? m->name : "@");
	dst->entries = arena_alloc(kept, (m->nentries ? m->nentries : 1) * sizeof(*dst->entries));
	for (size_t i = 0; i < m->nentries; i++) {
		const struct pr_entry *e = &m->entries[i];
		struct pr_entry *d = &dst->entries[i];
		*d = (struct pr_entry){.ival = e->ival, .nkey = pr_entry_nkey(e), .nlabels = e->nlabels};
		d->key = arena_alloc(kept, (size_t)(d->nkey ? d->nkey : 1) * sizeof(*d->key));
		for (int k = 0; k < d->nkey; k++) {
			const struct pr_key *ks = &e->key[k];
			d->key[k].text = arena_strdup(kept, ks->text ? ks->text : "");
			if (!ks->stack)
				continue;
			struct pr_stack *st = arena_alloc(kept, sizeof(*st));
			struct pr_frame *f = arena_alloc(kept, (size_t)(ks->stack->n ? ks->stack->n : 1) * sizeof(*f));
			for (int j = 0; j < ks->stack->n; j++) {
				const struct pr_frame *sf = &ks->stack->frames[j];
				f[j] = (struct pr_frame){
					.line = arena_strdup(kept, sf->line), .func = arena_strdup(kept, sf->func),
					.module = sf->module ? arena_strdup(kept, sf->module) : NULL,
					.addr = sf->addr, .lineno = sf->lineno,
					.pyname = sf->pyname ? arena_strdup(kept, sf->pyname) : NULL,
				};
			}
			*st = (struct pr_stack){.frames = f, .n = ks->stack->n, .kernel = ks->stack->kernel};
			d->key[k].stack = st;
		}
		struct pr_label *l = arena_alloc(kept, (size_t)(e->nlabels ? e->nlabels : 1) * sizeof(*l));
		for (int k = 0; k < e->nlabels && e->labels; k++)
			l[k] = (struct pr_label){arena_strdup(kept, e->labels[k].name),
						 arena_strdup(kept, e->labels[k].value)};
		d->labels = l;
	}
}

static void pprof_map(FILE *out, struct pr_map *m, uint32_t top, uint32_t div)
{
	if (!pr_is_stack_map(m)) {
		pr_text_map(out, m, top, div);
		return;
	}
	if (!kept)
		kept = arena_new();
	int i = 0;
	while (i < nkept && strcmp(kept_maps[i].name, m->name ? m->name : "@"))
		i++;
	if (i == nkept) {	/* a map printed again replaces its copy */
		kept_maps = arena_grow(kept, kept_maps, (size_t)nkept, sizeof(*kept_maps));
		nkept++;
	}
	copy_map(&kept_maps[i], m);
}

static void pprof_finish(FILE *out)
{
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	int64_t t0 = (int64_t)started.tv_sec * 1000000000 + started.tv_nsec;
	int64_t t1 = (int64_t)now.tv_sec * 1000000000 + now.tv_nsec;
	uint8_t *buf = NULL;
	size_t len = 0;
	int err = pr_pprof_encode(kept_maps, nkept, t0, t1 - t0, &buf, &len);
	if (err)
		fprintf(stderr, "sonde: cannot encode the profile: %s\n", strerror(-err));
	else
		fwrite(buf, 1, len, out);
	if (!nkept)
		diag_warnf("no map keyed by a stack was printed: the profile is empty\n");
	free(buf);
	if (kept)
		arena_free(kept);
	kept = NULL;
	kept_maps = NULL;
	nkept = 0;
}

const struct output_writer output_pprof = {
	.name = "pprof",
	.render = PR_RENDER_TEXT,
	.stacks = true,
	.picture = true,
	PR_TEXT_EVENTS,
	.maps_begin = pr_nothing_before_maps,
	.map = pprof_map,
	.finish = pprof_finish,
};
