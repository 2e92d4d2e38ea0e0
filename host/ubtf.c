/*
 * ubtf.c - a user-space binary's functions and types from its .BTF section.
 *
 * A binary without DWARF may still carry BTF: `pahole -J` converts the
 * DWARF of a -g build into a .BTF section, which `objcopy --strip-debug`
 * keeps (it is not a debug section), so a shipped binary can stay small
 * and still describe its functions.  Where dwarf.c finds no DWARF (or
 * cannot load libdw), it asks here, and `-lv uprobe:BIN:func` and
 * `args.NAME` work the same: this file turns libbpf's BTF of the file
 * (btf__parse_elf) into dwarf.c's struct hdw_func and struct hdw_type, so
 * the rest of sonde does not know which of the two it read.
 *
 * Each BTF type is converted once (by id; a struct pointing to itself is
 * a cycle); typedefs and qualifiers are looked through, as dwarf.c does,
 * and kept for the C type names -lv prints ("const char*", "u32_t").
 */
#include "host/host_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "common/arena.h"

struct hubtf {
	struct btf *btf;
	struct arena *a;
	struct hdw_type **types;	/* by BTF id, converted on first use */
	struct hdw_func **funcs;	/* by BTF id of the FUNC */
	uint32_t n;
	struct hdw_type void_t;
};

struct hubtf *hubtf_open(const char *path, struct arena *a)
{
	/* most files have no .BTF: libbpf would say so on stderr */
	libbpf_print_fn_t old = libbpf_set_print(NULL);
	struct btf *btf = btf__parse_elf(path, NULL);
	libbpf_set_print(old);
	if (!btf)
		return NULL;
	struct hubtf *b = arena_new_obj(a, struct hubtf);
	b->btf = btf;
	b->a = a;
	b->n = btf__type_cnt(btf);
	b->types = arena_new_array(a, struct hdw_type *, b->n);
	b->funcs = arena_new_array(a, struct hdw_func *, b->n);
	memset(b->types, 0, b->n * sizeof(*b->types));
	memset(b->funcs, 0, b->n * sizeof(*b->funcs));
	b->void_t = (struct hdw_type){.kind = HDW_VOID, .name = "void"};
	return b;
}

static const char *name_of(struct hubtf *b, const struct btf_type *t)
{
	const char *n = t->name_off ? btf__name_by_offset(b->btf, t->name_off) : NULL;
	return n && *n ? n : NULL;
}

/* past typedefs and qualifiers: the id of the type they name */
static uint32_t skip_mods(struct hubtf *b, uint32_t id)
{
	for (int guard = 0; id && guard < 64; guard++) {
		const struct btf_type *t = btf__type_by_id(b->btf, id);
		if (!t)
			return 0;
		switch (btf_kind(t)) {
		case BTF_KIND_TYPEDEF: case BTF_KIND_CONST: case BTF_KIND_VOLATILE:
		case BTF_KIND_RESTRICT: case BTF_KIND_TYPE_TAG:
			id = t->type;
			continue;
		default:
			return id;
		}
	}
	return id;
}

static const struct hdw_type *convert(struct hubtf *b, uint32_t id);

static void add_members(struct hubtf *b, const struct btf_type *t, struct hdw_type *h)
{
	int n = btf_vlen(t);
	const struct btf_member *m = btf_members(t);
	h->members = arena_new_array(b->a, struct hdw_member, n ? n : 1);
	for (int i = 0; i < n; i++) {
		uint32_t bits = btf_member_bit_offset(t, (uint32_t)i);
		uint32_t bsize = btf_member_bitfield_size(t, (uint32_t)i);
		const char *nm = m[i].name_off ? btf__name_by_offset(b->btf, m[i].name_off) : NULL;
		h->members[h->nmembers++] = (struct hdw_member){
			.name = nm && *nm ? nm : NULL, .offset = bits / 8,
			.bit_off = bsize ? (uint8_t)(bits % 8) : 0, .bit_size = (uint8_t)bsize,
			.type = convert(b, m[i].type)};
	}
}

static void add_enumerators(struct hubtf *b, const struct btf_type *t, struct hdw_type *h)
{
	int n = btf_vlen(t);
	h->enum_names = arena_new_array(b->a, const char *, n ? n : 1);
	h->enum_values = arena_new_array(b->a, uint64_t, n ? n : 1);
	bool is64 = btf_kind(t) == BTF_KIND_ENUM64;
	for (int i = 0; i < n; i++) {
		uint32_t off;
		uint64_t v;
		if (is64) {
			const struct btf_enum64 *e = btf_enum64(t) + i;
			off = e->name_off;
			v = btf_enum64_value(e);
		} else {
			const struct btf_enum *e = btf_enum(t) + i;
			off = e->name_off;
			v = btf_kflag(t) ? (uint64_t)(int64_t)e->val : (uint64_t)(uint32_t)e->val;
			if (e->val < 0)
				h->is_signed = true;
		}
		h->enum_names[i] = btf__name_by_offset(b->btf, off);
		h->enum_values[i] = v;
		h->nenum++;
	}
	if (btf_kflag(t))
		h->is_signed = true;
}

static const struct hdw_type *convert(struct hubtf *b, uint32_t id)
{
	id = skip_mods(b, id);
	if (!id || id >= b->n)
		return &b->void_t;
	if (b->types[id])
		return b->types[id];
	const struct btf_type *t = btf__type_by_id(b->btf, id);
	struct hdw_type *h = arena_new_obj(b->a, struct hdw_type);
	*h = (struct hdw_type){.kind = HDW_OTHER, .name = name_of(b, t)};
	b->types[id] = h;	/* before the members: a cycle finds it */
	switch (btf_kind(t)) {
	case BTF_KIND_INT: {
		uint8_t enc = btf_int_encoding(t);
		h->kind = HDW_INT;
		h->size = t->size;
		h->is_signed = enc & BTF_INT_SIGNED;
		h->is_bool = enc & BTF_INT_BOOL;
		break;
	}
	case BTF_KIND_FLOAT:
		h->kind = HDW_FLOAT;
		h->size = t->size;
		break;
	case BTF_KIND_PTR:
		h->kind = HDW_PTR;
		h->size = 8;
		h->elem = convert(b, t->type);
		break;
	case BTF_KIND_ARRAY: {
		const struct btf_array *arr = btf_array(t);
		h->kind = HDW_ARRAY;
		h->elem = convert(b, arr->type);
		h->count = arr->nelems;
		h->size = h->elem->size * arr->nelems;
		break;
	}
	case BTF_KIND_STRUCT: case BTF_KIND_UNION:
		h->kind = btf_kind(t) == BTF_KIND_STRUCT ? HDW_STRUCT : HDW_UNION;
		h->size = t->size;
		add_members(b, t, h);
		break;
	case BTF_KIND_FWD:	/* declared, defined in no unit */
		h->kind = btf_kflag(t) ? HDW_UNION : HDW_STRUCT;
		h->declared_only = true;
		break;
	case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
		h->kind = HDW_ENUM;
		h->size = t->size;
		add_enumerators(b, t, h);
		break;
	case BTF_KIND_FUNC_PROTO:
		h->kind = HDW_FUNC;
		break;
	default:
		break;
	}
	return h;
}

/* the C type name -lv prints, as dwarf.c's ctype_name words it: base
 * types and typedefs by name, "T*", "struct S", "const T" ("T* const"
 * for a const pointer), else "<unknown type>" */
static void ctype_name(struct hubtf *b, uint32_t id, char *buf, size_t len)
{
	char inner[512];
	const struct btf_type *t = id ? btf__type_by_id(b->btf, id) : NULL;
	const char *n = t ? name_of(b, t) : NULL;
	switch (t ? (int)btf_kind(t) : -1) {
	case BTF_KIND_INT: case BTF_KIND_FLOAT: case BTF_KIND_TYPEDEF:
		snprintf(buf, len, "%s", n ? n : "");
		return;
	case BTF_KIND_PTR:
		if (!t->type) {
			snprintf(buf, len, "void*");
			return;
		}
		ctype_name(b, t->type, inner, sizeof(inner));
		snprintf(buf, len, "%s*", inner);
		return;
	case BTF_KIND_STRUCT: case BTF_KIND_UNION: case BTF_KIND_ENUM: case BTF_KIND_ENUM64:
	case BTF_KIND_FWD: {
		int k = btf_kind(t);
		bool un = k == BTF_KIND_UNION || (k == BTF_KIND_FWD && btf_kflag(t));
		snprintf(buf, len, "%s %s", un ? "union" : k == BTF_KIND_ENUM || k == BTF_KIND_ENUM64 ?
			 "enum" : "struct", n ? n : "<anonymous>");
		return;
	}
	case BTF_KIND_CONST: {
		const struct btf_type *in = t->type ? btf__type_by_id(b->btf, t->type) : NULL;
		if (!t->type)
			snprintf(inner, sizeof(inner), "void");
		else
			ctype_name(b, t->type, inner, sizeof(inner));
		if (in && btf_kind(in) == BTF_KIND_PTR)
			snprintf(buf, len, "%s const", inner);
		else
			snprintf(buf, len, "const %s", inner);
		return;
	}
	default:
		snprintf(buf, len, "<unknown type>");
		return;
	}
}

const struct hdw_func *hubtf_func(struct hubtf *b, const char *name)
{
	if (!*name)
		return NULL;
	int32_t id = btf__find_by_name_kind(b->btf, name, BTF_KIND_FUNC);
	if (id <= 0 || (uint32_t)id >= b->n)
		return NULL;
	if (b->funcs[id])
		return b->funcs[id];
	const struct btf_type *fnt = btf__type_by_id(b->btf, (uint32_t)id);
	const struct btf_type *proto = btf__type_by_id(b->btf, fnt->type);
	if (!proto || !btf_is_func_proto(proto))
		return NULL;
	struct hdw_func *fn = arena_new_obj(b->a, struct hdw_func);
	*fn = (struct hdw_func){.name = btf__name_by_offset(b->btf, fnt->name_off),
				.ret = convert(b, proto->type)};
	int n = btf_vlen(proto);
	const struct btf_param *p = btf_params(proto);
	fn->params = arena_new_array(b->a, struct hdw_param, n ? n : 1);
	for (int i = 0; i < n; i++) {
		if (!p[i].type && i == n - 1) {	/* "...": type 0, no name */
			fn->varargs = true;
			break;
		}
		char buf[1024];
		const char *nm = p[i].name_off ? btf__name_by_offset(b->btf, p[i].name_off) : NULL;
		ctype_name(b, p[i].type, buf, sizeof(buf));
		fn->params[fn->nparams++] = (struct hdw_param){
			.name = nm && *nm ? nm : NULL, .ctype = arena_strdup(b->a, buf),
			.type = convert(b, p[i].type)};
	}
	b->funcs[id] = fn;
	return fn;
}

const struct hdw_type *hubtf_struct_named(struct hubtf *b, bool is_union, const char *name)
{
	int32_t id = btf__find_by_name_kind(b->btf, name, is_union ? BTF_KIND_UNION : BTF_KIND_STRUCT);
	return id > 0 ? convert(b, (uint32_t)id) : NULL;
}
