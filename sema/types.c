/*
 * types.c - what a type is and when two agree.
 *
 * Integers are 64-bit in registers, maps and events; strings are
 * fixed-size, NUL-padded byte arrays that widen where a map or variable
 * holds several sizes; tuples are laid out with 8-aligned fields.  Also
 * the C types written in casts, sizeof and struct definitions.
 */
#include "sema/sema_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

const struct type ty_int64 = {.kind = TY_INT, .size = 8, .is_signed = true};
const struct type ty_uint64 = {.kind = TY_INT, .size = 8};
const struct type ty_void = {.kind = TY_VOID};
const struct type ty_bool = {.kind = TY_INT, .size = 8, .is_bool = true};

struct type ty_str(uint32_t size)
{
	return (struct type){.kind = TY_STR, .size = size};
}

bool sema_is_int(const struct type *t)
{
	return t->kind == TY_INT || t->kind == TY_PTR;
}

bool sema_is_error(const struct type *t)
{
	return t->kind == TY_ERROR;
}

/* tuples ==/!= each other (the newest bpftrace): element by element,
 * integers as numbers, strings as C strings of any sizes, tuples again,
 * anything else of one kind and size byte by byte */
bool sema_tuple_comparable(const struct type *a, const struct type *b)
{
	if (a->kind == TY_TUPLE && b->kind == TY_TUPLE) {
		if (a->nfields != b->nfields)
			return false;
		for (int i = 0; i < a->nfields; i++)
			if (!sema_tuple_comparable(&a->fields[i].type, &b->fields[i].type))
				return false;
		return true;
	}
	if (a->kind == TY_TUPLE || b->kind == TY_TUPLE)
		return false;
	if (sema_is_int(a) && sema_is_int(b))
		return true;
	return a->kind == b->kind && (a->kind == TY_STR || a->size == b->size);
}

/* integer-valued kinds that print specially but are stored as 8 bytes */
bool sema_is_int_storage(const struct type *t)
{
	return type_is(t, TT_INT_STORAGE);
}

/* Lay out a type for maps and events: integers 8 bytes, each tuple field
 * 8-aligned, sizes rounded to 8.  Returns the size. */
uint32_t sema_layout(struct type *t)
{
	if (sema_is_int_storage(t)) {
		if (!t->csize)
			t->csize = t->size ? t->size : 8;
		t->size = 8;
		return 8;
	}
	if (t->kind == TY_TUPLE) {
		uint32_t off = 0;
		for (int i = 0; i < t->nfields; i++) {
			off = (off + 7) & ~7u;
			t->fields[i].offset = off;
			off += sema_layout(&t->fields[i].type);
		}
		t->size = (off + 7) & ~7u;
	}
	return t->size;
}

/* Do values of type b fit where a is stored?  Strings widen a in place
 * (a map or variable holding both comm and str() takes the larger size). */
bool sema_compatible(struct type *a, const struct type *b, bool widen)
{
	if (sema_is_error(a) || sema_is_error(b))
		return true;
	if (sema_is_int_storage(a) && sema_is_int_storage(b)) {
		/* stacks print per their mode and depth, timestamps per format */
		if (a->kind == b->kind && (a->kind == TY_USTACK || a->kind == TY_KSTACK))
			return a->count == b->count && a->stack_mode == b->stack_mode;
		if (a->kind == b->kind && a->kind == TY_TIMESTAMP)
			return !a->fmt || !b->fmt || !strcmp(a->fmt, b->fmt);
		if (a->kind == b->kind && a->kind == TY_DECODED)
			return a->decoder == b->decoder;
		return a->kind == b->kind || (sema_is_int(a) && sema_is_int(b));
	}
	if (a->kind != b->kind)
		return false;
	/* sized values widen; tuples agree field by field; lhist by bounds;
	 * every other kind agrees with itself */
	if (a->kind == TY_STR || a->kind == TY_BUF || a->kind == TY_INET) {
		if (b->size > a->size) {
			if (!widen)
				return false;
			a->size = b->size;
		}
		return true;
	}
	if (a->kind == TY_TUPLE) {
		if (a->nfields != b->nfields)
			return false;
		for (int i = 0; i < a->nfields; i++) {
			/* a record's fields agree by name, in any order (the
			 * value is stored in the order a has them) */
			const struct type_field *bf = a->fields[i].name ?
				type_record_field(b, a->fields[i].name) :
				b->fields[i].name ? NULL : &b->fields[i];
			if (!bf || !sema_compatible(&a->fields[i].type, &bf->type, widen))
				return false;
		}
		return true;
	}
	if (a->kind == TY_LHIST)
		return a->lh_min == b->lh_min && a->lh_max == b->lh_max && a->lh_step == b->lh_step;
	if (a->kind == TY_STRUCT)
		return a->size == b->size &&
		       (a->sname && b->sname ? !strcmp(a->sname, b->sname) : a->btf_id == b->btf_id);
	if (a->kind == TY_ARRAY)
		return a->count == b->count && a->size == b->size;
	return true;
}

struct type sema_deep_copy(struct arena *a, const struct type *t)
{
	struct type c = *t;
	if (t->kind == TY_TUPLE && t->nfields) {
		c.fields = arena_new_array(a, struct type_field, t->nfields);
		for (int i = 0; i < t->nfields; i++) {
			c.fields[i] = t->fields[i];
			c.fields[i].type = sema_deep_copy(a, &t->fields[i].type);
		}
	}
	return c;
}

void sema_complete_deep(struct sema_ctx *s, struct type *t)
{
	if (t->kind == TY_STRUCT && !t->nfields) {
		bool user = t->is_user;
		*t = *sema_struct_complete(s, t);
		t->is_user = user;
		for (int i = 0; i < t->nfields; i++)
			sema_complete_deep(s, &t->fields[i].type);
	} else if (t->kind == TY_ARRAY && t->elem) {
		struct type *el = arena_new_obj(s->a, struct type);
		*el = *t->elem;
		sema_complete_deep(s, el);
		t->elem = el;
	} else if (t->kind == TY_TUPLE || t->kind == TY_STRUCT) {
		for (int i = 0; i < t->nfields; i++)
			sema_complete_deep(s, &t->fields[i].type);
	}
}

/* ---- struct definitions --------------------------------------------------- */

static const struct { const char *name; uint32_t size; bool is_signed; } int_types[] = {
	{"int8", 1, true}, {"int16", 2, true}, {"int32", 4, true}, {"int64", 8, true},
	{"uint8", 1, false}, {"uint16", 2, false}, {"uint32", 4, false}, {"uint64", 8, false},
	{"char", 1, true}, {"short", 2, true}, {"int", 4, true}, {"long", 8, true},
	{"bool", 1, false}, {"u8", 1, false}, {"u16", 2, false}, {"u32", 4, false},
	{"u64", 8, false}, {"s8", 1, true}, {"s16", 2, true}, {"s32", 4, true},
	{"s64", 8, true}, {"size_t", 8, false}, {"pid_t", 4, true}, {"uid_t", 4, false},
	{"unsigned", 4, false}, {"signed", 4, true}, {"void", 1, false},
	{"long long", 8, true}, {"signed char", 1, true},
	/* the kernel's common typedefs, here so that reading a syscall's
	 * argument does not load the kernel's BTF (some hundred ms) */
	{"__u8", 1, false}, {"__u16", 2, false}, {"__u32", 4, false}, {"__u64", 8, false},
	{"__s8", 1, true}, {"__s16", 2, true}, {"__s32", 4, true}, {"__s64", 8, true},
	{"ssize_t", 8, true}, {"off_t", 8, true}, {"loff_t", 8, true}, {"umode_t", 2, false},
	{"mode_t", 4, false}, {"gid_t", 4, false}, {"clockid_t", 4, true}, {"dev_t", 4, false},
	{"key_serial_t", 4, true}, {"qid_t", 4, false}, {"timer_t", 4, true},
	{"aio_context_t", 8, false}, {"time_t", 8, true}, {"rwf_t", 4, true},
	/* C99's <stdint.h> names, for struct definitions without BTF */
	{"int8_t", 1, true}, {"int16_t", 2, true}, {"int32_t", 4, true}, {"int64_t", 8, true},
	{"uint8_t", 1, false}, {"uint16_t", 2, false}, {"uint32_t", 4, false},
	{"uint64_t", 8, false}, {"uintptr_t", 8, false}, {"intptr_t", 8, true},
};

/* typeof(e): e's type, as sema finds it (e is not evaluated); typeof(@m)
 * is a keyed map's key type, as the newest bpftrace's stdlib declares a
 * key with it (`let $key: typeof(@map) = key;`), and a keyless map's
 * value type; typeof(@m[k]) is the value type */
static bool typeof_type(struct sema_ctx *s, struct ast_node *e, struct type *out)
{
	if (e->kind == N_MAP && !e->map.nkeys) {
		struct sema_map *m = sema_map_of(s, e);
		const struct type *t = m && m->key.kind != TY_NONE ? &m->key : m ? &m->value : NULL;
		if (!t || t->kind == TY_NONE) {
			sema_error(s, e->loc, "typeof(%s): %s is not assigned before this point, so it "
				   "has no type yet", e->map.name, e->map.name);
			return false;
		}
		*out = *t;
		return true;
	}
	struct type *t = sema_expr(s, e);
	if (sema_is_error(t))
		return false;
	if (t->kind == TY_NONE || t->kind == TY_VOID) {
		sema_error(s, e->loc, "typeof(): this expression has no value to take the type of");
		return false;
	}
	*out = *t;
	if (out->kind == TY_INT && out->csize) {	/* a variable's 8-byte slot: its C type */
		out->size = out->csize;
		out->csize = 0;
	}
	return true;
}

bool sema_ctype(struct sema_ctx *s, const struct ast_ctype *ct, struct src_loc loc,
		struct type *out)
{
	if (ct->of)
		return typeof_type(s, ct->of, out);
	struct type base = {.kind = TY_NONE};
	if (ct->is_struct || ct->is_enum) {
		/* the script's definition first, then (in uprobes) the
		 * binary's DWARF, then the kernel's BTF; structs
		 * and unions share one namespace of tags, as in C */
		enum ast_tag tag = ct->is_enum ? TAG_ENUM : ct->is_union ? TAG_UNION : TAG_STRUCT;
		const char *what = ct->is_enum ? "enum" : ct->is_union ? "union" : "struct";
		for (struct sema_struct *st = s->structs; st; st = st->next)
			if (st->is_enum == ct->is_enum && st->type.sname && !strcmp(st->type.sname, ct->name))
				base = st->type;
		if (base.kind == TY_NONE && tag != TAG_ENUM)	/* a uprobe's binary's */
			sema_dwarf_named(s, tag == TAG_UNION, ct->name, &base);
		if (base.kind == TY_NONE && !sema_btf_tagged(s, tag, ct->name, &base)) {
			if (ct->ptr_depth == 0 || ct->is_enum) {
				sema_error(s, loc, "unknown %s '%s': neither the script nor the "
					   "kernel's BTF defines it", what, ct->name);
				return false;
			}
			base = (struct type){.kind = TY_STRUCT, .sname = ct->name};
		}
	} else {
		for (size_t i = 0; i < sizeof(int_types) / sizeof(int_types[0]); i++)
			if (!strcmp(int_types[i].name, ct->name)) {
				base = (struct type){.kind = TY_INT, .size = int_types[i].size,
						     .is_signed = int_types[i].is_signed && !ct->is_unsigned,
						     .is_char = !strcmp(ct->name, "char") && !ct->is_unsigned};
				break;
			}
		if (base.kind == TY_NONE && !sema_btf_named(s, ct->name, false, &base)) {
			sema_error(s, loc, "unknown type '%s'", ct->name);
			return false;
		}
	}
	for (int i = 0; i < ct->ptr_depth; i++) {
		struct type *el = arena_new_obj(s->a, struct type);
		*el = base;
		base = (struct type){.kind = TY_PTR, .size = 8, .elem = el};
	}
	*out = base;
	return true;
}

uint32_t sema_type_align(struct sema_ctx *s, const struct type *t)
{
	if (t->kind == TY_ARRAY)
		return t->elem ? sema_type_align(s, t->elem) : 1;
	if (t->kind == TY_STRUCT) {
		/* the script's __attribute__((packed)) struct aligns to 1, even
		 * one whose members happen to sit at their alignments */
		if (t->sname && !t->btf_id && !t->dwarf)
			for (const struct sema_struct *d = s->structs; d; d = d->next)
				if (!d->is_enum && !strcmp(d->type.sname, t->sname) && d->packed)
					return 1;
		const struct type *c = sema_struct_complete(s, t);
		uint32_t al = 1;
		bool packed = false;	/* BTF and DWARF say no attribute: packed is
					 * a member off its alignment, or a size that
					 * is not a multiple (as libbpf's btf_dump
					 * infers it) */
		for (int i = 0; i < c->nfields; i++) {
			uint32_t f = sema_type_align(s, &c->fields[i].type);
			al = f > al ? f : al;
			packed |= !c->fields[i].bit_size && c->fields[i].offset % f;
		}
		return packed || c->size % al ? 1 : al;
	}
	if (t->kind == TY_STR)
		return 1;
	return t->size >= 8 ? 8 : t->size ? t->size : 1;
}

/* the script's enumerators named in an enumerator's value (B = A + 1)
 * become their values; only the forms sema_fold_const folds are walked */
static void enumerators_to_ints(struct sema_ctx *s, struct ast_node *e)
{
	if (e->kind == N_UNARY) {
		enumerators_to_ints(s, e->un.operand);
	} else if (e->kind == N_BINARY) {
		enumerators_to_ints(s, e->bin.lhs);
		enumerators_to_ints(s, e->bin.rhs);
	} else if (e->kind == N_IDENT) {
		for (struct sema_enumval *v = s->enumvals; v; v = v->next)
			if (!strcmp(v->name, e->ident.name)) {
				e->kind = N_INT;
				e->i.value = v->value;
				e->i.is_char = false;
				e->i.is_signed = true;
				return;
			}
	}
}

/* enum NAME? { A = 1, B }: each enumerator a constant, one more than the
 * one before unless given; the type is as wide and as signed as GCC makes
 * it (unsigned int unless a value is negative, 8 bytes past 32 bits) */
static void define_enum(struct sema_ctx *s, struct ast_node *d)
{
	int64_t next = 0, lo = 0, hi = 0;
	int n = 0;
	for (struct ast_struct_field *f = d->sdef.fields; f; f = f->next)
		n++;
	struct type_enum *ev = arena_new_obj(s->a, struct type_enum);
	ev->names = arena_new_array(s->a, const char *, n ? n : 1);
	uint64_t *vals = arena_new_array(s->a, uint64_t, n ? n : 1);
	ev->values = vals;
	for (struct ast_struct_field *f = d->sdef.fields; f; f = f->next) {
		for (struct sema_enumval *o = s->enumvals; o; o = o->next)
			if (!strcmp(o->name, f->name)) {
				sema_error(s, f->loc, "enumerator '%s' is defined twice", f->name);
				return;
			}
		if (f->value) {
			enumerators_to_ints(s, f->value);
			if (!sema_const_int(s, f->value, &next))
				return;
		}
		struct sema_enumval *v = arena_new_obj(s->a, struct sema_enumval);
		v->name = f->name;
		v->value = (uint64_t)next;
		v->ev = ev;
		v->next = s->enumvals;
		s->enumvals = v;
		ev->names[ev->n] = f->name;
		vals[ev->n++] = (uint64_t)next;
		lo = next < lo ? next : lo;
		hi = next > hi ? next : hi;
		next = (int64_t)((uint64_t)next + 1);
	}
	if (!d->sdef.name)
		return;
	struct sema_struct *st = arena_new_obj(s->a, struct sema_struct);
	st->is_enum = true;
	st->type = (struct type){.kind = TY_INT, .is_signed = lo < 0, .sname = d->sdef.name,
				 .size = lo < INT32_MIN || hi > (lo < 0 ? INT32_MAX : (int64_t)UINT32_MAX) ? 8 : 4,
				 .enumv = ev};
	st->next = s->structs;
	s->structs = st;
}

/* An unnamed struct or union member (`union { int a; char b; };`) lends
 * its members to the struct holding it, at its offset, as C names them;
 * nested ones were flattened when they were defined. */
static void flatten_anonymous(struct sema_ctx *s, struct type *t)
{
	int n = 0;
	for (int i = 0; i < t->nfields; i++)
		n += t->fields[i].name ? 1 : t->fields[i].type.nfields;
	if (n == t->nfields)
		return;
	struct type_field *f = arena_new_array(s->a, struct type_field, n ? n : 1);
	int k = 0;
	for (int i = 0; i < t->nfields; i++) {
		const struct type_field *m = &t->fields[i];
		if (m->name) {
			f[k++] = *m;
			continue;
		}
		for (int j = 0; j < m->type.nfields; j++) {
			f[k] = m->type.fields[j];
			f[k++].offset += m->offset;
		}
	}
	t->fields = f;
	t->nfields = k;
}

/* struct NAME { fields }: C layout, bitfields packed into units of their
 * declared type as x86-64 compilers do; union NAME { fields }: every
 * member at offset 0, as large as the largest */
void sema_define_struct(struct sema_ctx *s, struct ast_node *d)
{
	if (d->sdef.tag == TAG_ENUM) {
		define_enum(s, d);
		return;
	}
	bool is_union = d->sdef.tag == TAG_UNION;
	struct sema_struct *st = arena_new_obj(s->a, struct sema_struct);
	st->type.kind = TY_STRUCT;
	st->type.sname = d->sdef.name;
	st->packed = d->sdef.packed;
	int n = 0;
	for (struct ast_struct_field *f = d->sdef.fields; f; f = f->next)
		n++;
	st->type.fields = arena_new_array(s->a, struct type_field, n ? n : 1);
	/* known while its fields are read: `struct S *next` inside S is this
	 * S, not a kernel struct of the same name */
	st->next = s->structs;
	s->structs = st;
	uint64_t bit = 0, union_bits = 0;
	uint32_t align_max = 1;
	int nf = 0;
	for (struct ast_struct_field *f = d->sdef.fields; f; f = f->next) {
		struct type ft;
		if (!sema_ctype(s, &f->ctype, f->loc, &ft))
			return;
		uint32_t al = d->sdef.packed ? 1 : sema_type_align(s, &ft);
		for (int k = f->ctype.ndims - 1; k >= 0; k--) {
			struct type *el = arena_new_obj(s->a, struct type);
			*el = ft;
			ft = (struct type){.kind = TY_ARRAY, .elem = el, .count = (uint32_t)f->ctype.dims[k],
					   .size = el->size * (uint32_t)f->ctype.dims[k]};
		}
		/* nfields is set at the end: a `struct S *` taken while S is
		 * being defined must see it incomplete and look it up later */
		struct type_field *tf = &st->type.fields[nf++];
		tf->name = f->name;
		tf->type = ft;
		if (f->ctype.bit_width) {
			uint32_t w = (uint32_t)f->ctype.bit_width, unit = ft.size * 8;
			if (ft.kind != TY_INT || w > unit) {
				sema_error(s, f->loc, "bitfield '%s' is wider than its type", f->name);
				return;
			}
			/* a bitfield does not straddle a unit of its type */
			if (bit / unit != (bit + w - 1) / unit)
				bit = (bit + unit - 1) / unit * unit;
			tf->offset = (uint32_t)(bit / 8);
			tf->bit_off = (uint8_t)(bit % 8);
			tf->bit_size = (uint8_t)w;
			bit += w;
		} else {
			bit = (bit + al * 8 - 1) / (al * 8) * (al * 8);
			tf->offset = (uint32_t)(bit / 8);
			bit += (uint64_t)ft.size * 8;
		}
		if (al > align_max)
			align_max = al;
		if (is_union) {
			union_bits = bit > union_bits ? bit : union_bits;
			bit = 0;
		}
	}
	if (is_union)
		bit = union_bits;
	uint32_t bytes = (uint32_t)((bit + 7) / 8);
	st->type.size = (bytes + align_max - 1) / align_max * align_max;
	st->type.nfields = nf;
	flatten_anonymous(s, &st->type);
}
