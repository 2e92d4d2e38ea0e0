/*
 * btf.c - kernel types for the language: BTF types as sonde types.
 *
 * `curtask->real_parent->pid`, `(struct task_struct *)arg0`, a tracepoint
 * argument declared `struct __kernel_timespec *` or `umode_t`: these name
 * types the script never defines.  They come from the running kernel's BTF
 * (host/btf.c).  A struct is converted one level at a time: its members
 * get their types, but a struct reached through a member (embedded or
 * pointed to) keeps only its name, size and BTF id until an expression
 * reads one of its fields, so task_struct's hundreds of members do not
 * drag in half the kernel.  Anonymous struct and union members are
 * flattened into their parent, as C lets one name their fields directly.
 * Structs defined in the script take precedence over the kernel's.
 */
#include "sema/sema_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>

#include "host/host.h"


static const struct btf_type *skip_mods(const struct btf *b, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(b, *id);
	while (t && (btf_is_typedef(t) || btf_is_mod(t) || btf_is_type_tag(t) || btf_is_decl_tag(t))) {
		*id = t->type;
		t = btf__type_by_id(b, *id);
	}
	return t;
}

static struct type convert(struct sema_ctx *s, const struct btf *b, uint32_t id)
{
	const struct btf_type *t = id ? skip_mods(b, &id) : NULL;
	if (!t)	/* void */
		return (struct type){.kind = TY_INT, .size = 1};
	switch (btf_kind(t)) {
	case BTF_KIND_INT: {
		uint8_t enc = btf_int_encoding(t);
		const char *name = btf__name_by_offset(b, t->name_off);
		/* plain char is signed on the architectures sonde runs on */
		bool sgn = (enc & BTF_INT_SIGNED) || (name && !strcmp(name, "char"));
		/* a _Bool member is a bool: true/false in text and JSON, as
		 * the newest bpftrace prints it */
		bool is_bool = enc & BTF_INT_BOOL;
		return (struct type){.kind = TY_INT, .size = t->size > 8 ? 8 : t->size,
				     .is_signed = sgn && !is_bool, .is_bool = is_bool,
				     .is_char = name && !strcmp(name, "char")};
	}
	case BTF_KIND_ENUM:
	case BTF_KIND_ENUM64: {
		/* its enumerators, to print values by name */
		struct type_enum *ev = arena_new_obj(s->a, struct type_enum);
		int n = btf_vlen(t);
		ev->names = arena_new_array(s->a, const char *, n ? n : 1);
		uint64_t *vals = arena_new_array(s->a, uint64_t, n ? n : 1);
		ev->values = vals;
		for (int i = 0; i < n; i++) {
			if (btf_is_enum(t)) {
				const struct btf_enum *v = btf_enum(t) + i;
				ev->names[i] = btf__name_by_offset(b, v->name_off);
				vals[i] = btf_kflag(t) ? (uint64_t)(int64_t)v->val : (uint32_t)v->val;
			} else {
				const struct btf_enum64 *v = btf_enum64(t) + i;
				ev->names[i] = btf__name_by_offset(b, v->name_off);
				vals[i] = btf_enum64_value(v);
			}
		}
		ev->n = n;
		return (struct type){.kind = TY_INT, .size = t->size, .is_signed = btf_kflag(t),
				     .enumv = ev};
	}
	case BTF_KIND_FLOAT:
		return (struct type){.kind = TY_INT, .size = t->size};
	case BTF_KIND_PTR: {
		struct type p = {.kind = TY_PTR, .size = 8};
		uint32_t tid = t->type;
		const struct btf_type *pt = tid ? skip_mods(b, &tid) : NULL;
		if (pt && !btf_is_func_proto(pt)) {
			p.elem = arena_new_obj(s->a, struct type);
			*p.elem = convert(s, b, tid);
		}
		return p;
	}
	case BTF_KIND_ARRAY: {
		const struct btf_array *arr = btf_array(t);
		struct type a = {.kind = TY_ARRAY, .count = arr->nelems};
		a.elem = arena_new_obj(s->a, struct type);
		*a.elem = convert(s, b, arr->type);
		a.size = a.elem->size * arr->nelems;
		return a;
	}
	case BTF_KIND_STRUCT:
	case BTF_KIND_UNION: {
		const char *name = btf__name_by_offset(b, t->name_off);
		return (struct type){.kind = TY_STRUCT, .size = t->size, .btf_id = id,
				     .sname = name && *name ? name : NULL};
	}
	case BTF_KIND_FWD: {
		/* a declaration only: the definition, if the kernel has one */
		const char *name = btf__name_by_offset(b, t->name_off);
		int32_t def = btf__find_by_name_kind(b, name, btf_kflag(t) ? BTF_KIND_UNION : BTF_KIND_STRUCT);
		if (def > 0)
			return convert(s, b, (uint32_t)def);
		return (struct type){.kind = TY_STRUCT, .sname = name};
	}
	case BTF_KIND_FUNC_PROTO:
	case BTF_KIND_FUNC:
	case BTF_KIND_VAR:
	case BTF_KIND_DATASEC:
	default:
		return (struct type){.kind = TY_INT, .size = 8};
	}
}

/* members of struct/union `id` at bit offset `base`, anonymous ones flattened */
static void add_members(struct sema_ctx *s, const struct btf *b, uint32_t id, uint32_t base,
			struct type *st, int *cap)
{
	const struct btf_type *t = skip_mods(b, &id);
	const struct btf_member *m = btf_members(t);
	for (int i = 0; i < btf_vlen(t); i++, m++) {
		uint32_t bit = base + btf_member_bit_offset(t, (uint32_t)i);
		uint32_t bits = btf_member_bitfield_size(t, (uint32_t)i);
		const char *name = btf__name_by_offset(b, m->name_off);
		if (!name || !*name) {
			uint32_t mid = m->type;
			const struct btf_type *mt = skip_mods(b, &mid);
			if (mt && (btf_is_struct(mt) || btf_is_union(mt)))
				add_members(s, b, mid, bit, st, cap);
			continue;
		}
		if (st->nfields == *cap) {
			st->fields = arena_grow(s->a, st->fields, (size_t)st->nfields, sizeof(*st->fields));
			*cap = st->nfields + 1;
		}
		struct type_field *f = &st->fields[st->nfields++];
		memset(f, 0, sizeof(*f));
		f->name = name;
		f->type = convert(s, b, m->type);
		f->offset = bit / 8;
		if (bits) {
			f->bit_off = (uint8_t)(bit % 8);
			f->bit_size = (uint8_t)bits;
		}
	}
}

const struct type *sema_struct_complete(struct sema_ctx *s, const struct type *st)
{
	if (st->kind != TY_STRUCT || st->nfields)
		return st;
	if (st->dwarf)
		return sema_dwarf_complete(s, st);
	/* a struct named before its definition was complete (a `struct S *`
	 * field inside struct S), or one only declared: the definition */
	if (st->sname && !st->btf_id)
		for (struct sema_struct *d = s->structs; d; d = d->next)
			if (!d->is_enum && !strcmp(d->type.sname, st->sname))
				return &d->type;
	if (!st->btf_id) {
		struct type t;
		if (st->sname && sema_dwarf_named(s, false, st->sname, &t) && t.dwarf)
			return sema_struct_complete(s, &t);
		if (st->sname && sema_btf_named(s, st->sname, true, &t) && t.btf_id)
			return sema_struct_complete(s, &t);
		return st;
	}
	for (struct btf_done *d = s->btf_done; d; d = d->next)
		if (d->id == st->btf_id)
			return d->type;
	const struct btf *b = host_kernel_btf();
	if (!b)
		return st;
	struct type *full = arena_new_obj(s->a, struct type);
	*full = *st;
	int cap = 0;
	add_members(s, b, st->btf_id, 0, full, &cap);
	struct btf_done *d = arena_new_obj(s->a, struct btf_done);
	d->id = st->btf_id;
	d->type = full;
	d->next = s->btf_done;
	s->btf_done = d;
	return full;
}

bool sema_btf_named(struct sema_ctx *s, const char *name, bool is_struct, struct type *out)
{
	const struct btf *b = host_kernel_btf();
	if (!b)
		return false;
	static const int struct_kinds[] = {BTF_KIND_STRUCT, BTF_KIND_UNION};
	static const int other_kinds[] = {BTF_KIND_TYPEDEF, BTF_KIND_INT, BTF_KIND_ENUM,
					  BTF_KIND_ENUM64};
	const int *kinds = is_struct ? struct_kinds : other_kinds;
	int n = is_struct ? 2 : 4;
	for (int i = 0; i < n; i++) {
		int32_t id = btf__find_by_name_kind(b, name, (uint32_t)kinds[i]);
		if (id > 0) {
			*out = convert(s, b, (uint32_t)id);
			return true;
		}
	}
	return false;
}

bool sema_btf_tagged(struct sema_ctx *s, enum ast_tag tag, const char *name, struct type *out)
{
	if (tag == TAG_STRUCT)
		return sema_btf_named(s, name, true, out);
	const struct btf *b = host_kernel_btf();
	if (!b)
		return false;
	int kinds[2] = {BTF_KIND_UNION, BTF_KIND_STRUCT};
	if (tag == TAG_ENUM) {
		kinds[0] = BTF_KIND_ENUM;
		kinds[1] = BTF_KIND_ENUM64;
	}
	for (int i = 0; i < 2; i++) {
		int32_t id = btf__find_by_name_kind(b, name, (uint32_t)kinds[i]);
		if (id > 0) {
			*out = convert(s, b, (uint32_t)id);
			return true;
		}
	}
	return false;
}

/* The kernel's enumerators by name, built once per process on the first
 * name nothing else knows: libbpf indexes types by name, not
 * enumerators, and a pass over every type per lookup made each unknown
 * identifier (and a script with ten enum constants) scan the whole BTF. */
struct enum_entry {
	const char *name;
	uint64_t value;
	uint32_t order;		/* BTF order: the first definition wins */
	bool is_unsigned;
};

static int enum_cmp(const void *a, const void *b)
{
	const struct enum_entry *x = a, *y = b;
	int c = strcmp(x->name, y->name);
	return c ? c : (x->order > y->order) - (x->order < y->order);
}

static const struct enum_entry *enum_index(const struct btf *b, size_t *count)
{
	static struct enum_entry *index;
	static size_t n;
	static bool built;
	if (built) {
		*count = n;
		return index;
	}
	built = true;
	size_t cap = 0;
	uint32_t types = btf__type_cnt(b);
	for (uint32_t id = 1; id < types; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		if (!btf_is_enum(t) && !btf_is_enum64(t))
			continue;
		for (int i = 0; i < btf_vlen(t); i++) {
			if (n == cap) {
				size_t nc = cap ? cap * 2 : 4096;
				struct enum_entry *ni = realloc(index, nc * sizeof(*ni));
				if (!ni)
					break;
				index = ni;
				cap = nc;
			}
			struct enum_entry *e = &index[n];
			e->order = (uint32_t)n;
			e->is_unsigned = false;
			if (btf_is_enum(t)) {
				const struct btf_enum *v = btf_enum(t) + i;
				e->name = btf__name_by_offset(b, v->name_off);
				/* signed enums sign-extend, unsigned ones do not */
				e->value = btf_kflag(t) ? (uint64_t)(int64_t)v->val
							: (uint64_t)(uint32_t)v->val;
			} else {
				const struct btf_enum64 *v = btf_enum64(t) + i;
				e->name = btf__name_by_offset(b, v->name_off);
				e->value = btf_enum64_value(v);
				e->is_unsigned = !btf_kflag(t) && e->value > INT64_MAX;
			}
			if (e->name && *e->name)
				n++;
		}
	}
	if (n)
		qsort(index, n, sizeof(*index), enum_cmp);
	*count = n;
	return index;
}

bool sema_btf_enumerator(struct sema_ctx *s, const char *name, uint64_t *value, bool *is_unsigned)
{
	const struct btf *b = host_kernel_btf();
	if (!b)
		return false;
	size_t n, lo = 0;
	const struct enum_entry *index = enum_index(b, &n);
	/* the first entry not below name: the name's first definition */
	for (size_t hi = n; lo < hi;) {
		size_t mid = lo + (hi - lo) / 2;
		if (strcmp(index[mid].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == n || strcmp(index[lo].name, name))
		return false;
	*value = index[lo].value;
	if (index[lo].is_unsigned)
		*is_unsigned = true;
	return true;
}

struct type sema_kernel_ptr(struct sema_ctx *s, const char *name)
{
	struct type st;
	if (!sema_btf_named(s, name, true, &st))
		return ty_uint64;
	struct type p = {.kind = TY_PTR, .size = 8};
	p.elem = arena_new_obj(s->a, struct type);
	*p.elem = st;
	return p;
}

/* does the pointer type id point to memory tagged __user (BTF type tag
 * "user", from kernels built with a compiler that emits them)? */
static bool points_to_user(const struct btf *b, uint32_t id)
{
	const struct btf_type *t = btf__type_by_id(b, id);
	if (!t || !btf_is_ptr(t))
		return false;
	for (id = t->type; (t = id ? btf__type_by_id(b, id) : NULL) &&
	     (btf_is_mod(t) || btf_is_type_tag(t) || btf_is_typedef(t)); id = t->type)
		if (btf_is_type_tag(t) && !strcmp(btf__name_by_offset(b, t->name_off), "user"))
			return true;
	return false;
}

/* fn's parameters from the first-th on, each in an 8-byte slot */
static struct sema_kfunc *kfunc_of(struct sema_ctx *s, const struct btf *b, const char *fn,
				   int first)
{
	int32_t id = host_btf_func_id(b, fn);
	const struct btf_type *proto = id > 0 ? btf__type_by_id(b, btf__type_by_id(b, (uint32_t)id)->type)
				       : NULL;
	if (!proto || !btf_is_func_proto(proto))
		return NULL;
	struct sema_kfunc *kf = arena_new_obj(s->a, struct sema_kfunc);
	const struct btf_param *prm = btf_params(proto);
	kf->nargs = btf_vlen(proto) > first ? btf_vlen(proto) - first : 0;
	prm += btf_vlen(proto) > first ? first : 0;
	kf->names = arena_new_array(s->a, const char *, kf->nargs ? kf->nargs : 1);
	kf->types = arena_new_array(s->a, struct type, kf->nargs ? kf->nargs : 1);
	kf->offsets = arena_new_array(s->a, uint32_t, kf->nargs ? kf->nargs : 1);
	uint32_t off = 0;
	for (int i = 0; i < kf->nargs; i++) {
		const char *name = btf__name_by_offset(b, prm[i].name_off);
		kf->names[i] = arena_strdup(s->a, name && *name ? name : "");
		kf->types[i] = convert(s, b, prm[i].type);
		kf->types[i].is_user = points_to_user(b, prm[i].type);
		kf->offsets[i] = off;
		off += kf->types[i].size > 8 ? 16 : 8;
	}
	kf->ret_offset = off;
	if (proto->type)
		kf->ret = convert(s, b, proto->type);
	else
		kf->ret = (struct type){.kind = TY_NONE};
	return kf;
}

const struct sema_kfunc *sema_btf_kfunc(struct sema_ctx *s, const char *module, const char *fn)
{
	return kfunc_of(s, host_module_btf(module), fn, 0);
}

bool sema_kernel_func(struct sema_ctx *s, const char *name)
{
	const struct btf *b = host_module_btf(NULL);
	return b && btf__find_by_name_kind(b, name, BTF_KIND_FUNC) > 0;
}

const struct sema_kfunc *sema_btf_rawtp(struct sema_ctx *s, const char *module, const char *name)
{
	const struct btf *b = host_module_btf(module);
	char fn[512];
	if (!host_raw_tp_func(b, name, fn, sizeof(fn)))
		return NULL;
	struct sema_kfunc *kf = kfunc_of(s, b, fn, 1);
	if (kf)		/* a tracepoint returns nothing */
		kf->ret = (struct type){.kind = TY_NONE};
	return kf;
}
