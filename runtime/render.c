/*
 * render.c - turn the bytes of one typed value into text.
 *
 * Used for map keys and values and for print(); printf has its own
 * formatter (format.c).  Symbols, user names and container ids are
 * resolved here, in userspace, at print time: the BPF side only stores
 * integers.
 */
#include "runtime/rt_int.h"

#include <inttypes.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "common/settings.h"
#include "host/host.h"

static const char *render_into(struct rt *rt, const struct type *t, const uint8_t *p, bool *is_str);

/* a tuple as `(1, abc)`; a record as the newest bpftrace prints it,
 * `{ .a = 1, .b = abc }` (in a map key too) */
static const char *tuple(struct rt *rt, const struct type *t, const uint8_t *p)
{
	bool rec = type_is_record(t);
	size_t cap = 64, len = 0;
	char *buf = malloc(cap);
	if (!buf)
		return "";
	buf[len++] = rec ? '{' : '(';
	bool outer_newest = rt->render_newest;
	rt->render_newest = outer_newest || rec;	/* 0.17 has no records */
	for (int i = 0; i < t->nfields; i++) {
		bool s;
		const char *x = render_into(rt, &t->fields[i].type, p + t->fields[i].offset, &s);
		if (rec)
			x = arena_printf(rt->a, "%s.%s = %s", i ? "" : " ", t->fields[i].name, x);
		size_t need = len + strlen(x) + 6;
		if (need > cap) {
			cap = need * 2;
			char *nb = realloc(buf, cap);
			if (!nb) {
				free(buf);
				rt->render_newest = outer_newest;
				return "";
			}
			buf = nb;
		}
		if (i)
			len += (size_t)sprintf(buf + len, ", ");
		len += (size_t)sprintf(buf + len, "%s", x);
	}
	rt->render_newest = outer_newest;
	if (rec)
		len += (size_t)sprintf(buf + len, " }");
	else
		buf[len++] = ')';
	buf[len] = '\0';
	const char *r = arena_strdup(rt->a, buf);
	free(buf);
	return r;
}

/* an integer member of C size at p (a struct member or array element),
 * bitfields shifted and masked, sign-extended as its type says */
static uint64_t c_int(const struct type *t, const uint8_t *p, const struct type_field *fld)
{
	uint64_t v = 0;
	uint32_t bits = fld && fld->bit_size ? fld->bit_size : (t->size > 8 ? 8 : t->size) * 8;
	uint32_t n = fld && fld->bit_size ? (fld->bit_off + fld->bit_size + 7u) / 8 : bits / 8;
	memcpy(&v, p, n > 8 ? 8 : n);
	if (fld && fld->bit_size)
		v >>= fld->bit_off;
	if (bits < 64) {
		v &= (1ull << bits) - 1;
		if (t->is_signed && (v >> (bits - 1)) & 1)
			v |= ~0ull << bits;
	}
	return v;
}

/* an array of plain chars prints as a string; one of other 1-byte
 * integers as numbers ([255,2]), one of bools ((bool[2])x) as words */
static bool is_char_array(const struct type *t)
{
	return t->kind == TY_ARRAY && t->elem && t->elem->kind == TY_INT && t->elem->is_char;
}

/* structs and arrays as bpftrace 0.17 prints them: `{ .m = 2, .a = [1,2] }`
 * as a value, `{.m=2,.a=[1,2]}` in a map key, `{ "m": 2, "a": [1,2] }` in
 * JSON; char arrays as strings (int8 and uint8 ones as arrays); pointers as decimal addresses in a value
 * and in hex in a key.  A struct 0.17 cannot make (`args` as a whole,
 * type.newest_print) and every struct inside a record print as the newest
 * bpftrace prints them: `{ .p = 0xffff..., .a = [1,2] }` in a value and a
 * key alike, `{"p": 18446..., "a": [1,2]}` in JSON (a pointer a double
 * cannot hold exactly as a string of its digits, pr_json_u64) */
static void c_render(struct rt *rt, FILE *f, const struct type *t, const uint8_t *p,
		     const struct type_field *fld, bool json)
{
	bool outer_newest = rt->render_newest;
	bool newest = outer_newest || (t->kind == TY_STRUCT && t->newest_print);
	bool key = rt->render_in_key && !json && !newest;
	rt->render_newest = newest;
	if (t->kind == TY_STRUCT && newest && !t->nfields) {
		fputs("{}", f);
	} else if (t->kind == TY_STRUCT) {
		fputs(key || (json && newest) ? "{" : "{ ", f);
		for (int i = 0; i < t->nfields; i++) {
			const struct type_field *m = &t->fields[i];
			if (i)
				fputs(key ? "," : ", ", f);
			if (json)
				fprintf(f, "\"%s\": ", m->name);
			else
				fprintf(f, key ? ".%s=" : ".%s = ", m->name);
			c_render(rt, f, &m->type, p + m->offset, m, json);
		}
		fputs(key || (json && newest) ? "}" : " }", f);
	} else if (t->kind == TY_ARRAY && !is_char_array(t) && t->elem) {
		uint32_t esz = t->count ? t->size / t->count : 0;
		fputc('[', f);
		for (uint32_t i = 0; i < t->count; i++) {
			if (i)
				fputc(',', f);
			c_render(rt, f, t->elem, p + i * esz, NULL, json);
		}
		fputc(']', f);
	} else if (t->kind == TY_STR || is_char_array(t)) {
		size_t n = strnlen((const char *)p, t->size);
		if (json)
			pr_json_string(f, (const char *)p, n);
		else
			fwrite(p, 1, n, f);
	} else if (t->kind == TY_INT) {
		uint64_t v = c_int(t, p, fld);
		if (t->is_bool)
			fputs(v ? "true" : "false", f);
		else
			fprintf(f, t->is_signed ? "%" PRId64 : "%" PRIu64, v);
	} else if (t->kind == TY_PTR) {
		uint64_t v = c_int(&(struct type){.kind = TY_INT, .size = 8}, p, NULL);
		if (json && newest)
			pr_json_u64(f, v);
		else if (json || !(key || newest))
			fprintf(f, "%" PRIu64, v);
		else
			fprintf(f, "0x%" PRIx64, v);
	} else {
		bool s;
		const char *x = render_into(rt, t, p, &s);
		if (json && s)
			pr_json_string(f, x, strlen(x));
		else
			fputs(*x ? x : json ? "null" : "", f);
	}
	rt->render_newest = outer_newest;
}

static void json_into(struct rt *rt, FILE *f, const struct type *t, const uint8_t *p);

/* a value's whole text (JSON, or bpftrace's text of structs and arrays) */
static const char *memtext(struct rt *rt, const struct type *t, const uint8_t *p, bool json)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return json ? "null" : "";
	if (json)
		json_into(rt, f, t, p);
	else
		c_render(rt, f, t, p, NULL, false);
	if (fclose(f)) {
		free(buf);
		return json ? "null" : "";
	}
	const char *r = arena_strdup(rt->a, buf);
	free(buf);
	return r;
}

static const char *username(struct rt *rt, uint64_t uid)
{
	struct passwd pw, *res = NULL;
	char buf[1024];
	if (!getpwuid_r((uid_t)uid, &pw, buf, sizeof(buf), &res) && res)
		return arena_strdup(rt->a, pw.pw_name);
	return arena_printf(rt->a, "%" PRIu64, uid);
}

/* ---- what an index in a value stands for (struct rt_names) ------------------ */

void rt_names_init(struct rt *rt)
{
	const struct sema_result *r = rt->r;
	struct rt_names *n = &rt->names;
	n->attach = arena_new_array(rt->perm, const char *, r->nattach ? r->nattach : 1);
	n->funcs = arena_new_array(rt->perm, const char *, r->nattach ? r->nattach : 1);
	for (int i = 0; i < r->nprobes; i++)
		for (int j = 0; j < r->probes[i].nattach; j++, n->nattach++) {
			n->attach[n->nattach] = r->probes[i].attach[j].name;
			n->funcs[n->nattach] = vf_demangle(rt->perm, r->probes[i].attach[j].func);
		}
}

/* one cookie per symbol name, not per site: `func` must be the same
 * value in a uprobe and its uretprobe, and in every file (host and
 * container libc), or `@[func]` prints one key several times */
uint64_t rt_site_cookie(struct rt *rt, const char *sym)
{
	for (int i = rt->names.nsites - 1; i >= 0; i--)
		if (!strcmp(rt->names.sites[i], sym))
			return (1u << 20) + (uint64_t)i;
	rt->names.sites = vec_grow(rt->names.sites, (size_t)rt->names.nsites, sizeof(*rt->names.sites));
	rt->names.sites[rt->names.nsites] = arena_strdup(rt->perm, sym);
	return (1u << 20) + (uint64_t)rt->names.nsites++;
}

struct rs_cgcache *rt_cgroups(struct rt *rt)
{
	if (!rt->names.cgroups)
		rt->names.cgroups = rs_cgcache_new(NULL);
	return rt->names.cgroups;
}

void rt_names_free(struct rt *rt)
{
	free(rt->names.sites);
	if (rt->names.cgroups)
		rs_cgcache_free(rt->names.cgroups);
}

static const char *render_into(struct rt *rt, const struct type *t, const uint8_t *p, bool *is_str)
{
	uint64_t v;
	memcpy(&v, p, sizeof(v));
	*is_str = false;
	switch (t->kind) {
	case TY_INT:
		if (t->is_bool)
			return v ? "true" : "false";
		if (t->enumv) {
			/* an enum's value by its name, as the newest bpftrace
			 * prints it (the number when no enumerator has it) */
			uint64_t x = t->size && t->size < 8 ? v & ((1ull << (t->size * 8)) - 1) : v;
			for (int i = 0; i < t->enumv->n; i++)
				if ((t->size && t->size < 8 ? t->enumv->values[i] &
						((1ull << (t->size * 8)) - 1) : t->enumv->values[i]) == x) {
					*is_str = true;
					return t->enumv->names[i];
				}
		}
		if (t->is_signed)
			return arena_printf(rt->a, "%" PRId64, (int64_t)v);
		return arena_printf(rt->a, "%" PRIu64, v);
	case TY_PTR:
		return arena_printf(rt->a, "0x%" PRIx64, v);
	case TY_STR: {
		*is_str = true;
		size_t n = strnlen((const char *)p, t->size);
		/* a str() that filled its buffer may have been cut short: the
		 * newest bpftrace's str_trunc_trailer ('' by default, as 0.17) */
		const char *trailer = settings_str(SET_STR_TRUNC_TRAILER);
		if (t->trunc_mark && *trailer && t->size > 1 && n + 1 >= t->size)
			return arena_printf(rt->a, "%.*s%s", (int)n, (const char *)p, trailer);
		return arena_strndup(rt->a, (const char *)p, n);
	}
	case TY_TUPLE:
		return tuple(rt, t, p);
	case TY_PROBE:
		if (v < (uint64_t)rt->names.nattach)
			return rt->names.attach[v];
		if (v >= 1u << 20 && v - (1u << 20) < (uint64_t)rt->names.nsites)
			return vf_demangle(rt->a, rt->names.sites[v - (1u << 20)]);
		if (v >= SEMA_FUNC_OF_ATTACH && v - SEMA_FUNC_OF_ATTACH < (uint64_t)rt->names.nattach)
			return rt->names.funcs[v - SEMA_FUNC_OF_ATTACH];
		return arena_printf(rt->a, "probe#%" PRIu64, v);
	case TY_USERNAME:
		*is_str = true;
		return username(rt, v);
	case TY_KSYM: case TY_USYM: case TY_USTACK: case TY_KSTACK: case TY_BUF: case TY_INET:
	case TY_TIMESTAMP:
		/* symbols.c */
		*is_str = true;
		return rt_render_extra(rt, t, p);
	case TY_CONTAINER: {
		*is_str = true;
		struct rs_cgcache *c = rt_cgroups(rt);
		if (!c)
			return "";
		const char *id = rs_cgroup_container(c, v);
		/* a cgroup removed before printing (the container exited) must
		 * not read as the host's "" and fold into the host's line */
		if (!*id && !rs_cgroup_path(c, v))
			return arena_printf(rt->a, "cgroup %" PRIu64 " (gone)", v);
		return id;
	}
	case TY_CGROUP_PATH: {
		*is_str = true;
		struct rs_cgcache *c = rt_cgroups(rt);
		const char *path = c ? rs_cgroup_path(c, v) : NULL;
		return path ? path : arena_printf(rt->a, "%" PRIu64, v);
	}
	case TY_DECODED:	/* ioctl fields, fd paths, syscall names: stdlib/ */
		*is_str = t->decoder->is_str;
		return t->decoder->render(rt->a, v);
	case TY_COUNT: case TY_SUM: case TY_MIN: case TY_MAX:
		return arena_printf(rt->a, "%" PRId64, (int64_t)v);
	case TY_STRUCT: case TY_ARRAY:
		return memtext(rt, t, p, false);
	case TY_AVG: case TY_STATS:
	case TY_HIST: case TY_LHIST: case TY_TSERIES: case TY_NONE: case TY_VOID: case TY_ERROR:
		break;
	}
	return "";
}

const char *rt_render(struct rt *rt, const struct type *t, const void *bytes, bool *is_str)
{
	return render_into(rt, t, bytes, is_str);
}

/* a value as JSON into f: tuples as arrays, recursively */
static void json_into(struct rt *rt, FILE *f, const struct type *t, const uint8_t *p)
{
	if (t->kind == TY_TUPLE) {
		/* bpftrace 0.17: [1,"a",[2,3]], no spaces; a record is an
		 * object, {"a": 1, "b": "x"} */
		bool rec = type_is_record(t);
		bool outer_newest = rt->render_newest;
		rt->render_newest = outer_newest || rec;
		fputc(rec ? '{' : '[', f);
		for (int i = 0; i < t->nfields; i++) {
			if (i)
				fputs(rec ? ", " : ",", f);
			if (rec)
				fprintf(f, "\"%s\": ", t->fields[i].name);
			json_into(rt, f, &t->fields[i].type, p + t->fields[i].offset);
		}
		fputc(rec ? '}' : ']', f);
		rt->render_newest = outer_newest;
		return;
	}
	if (t->kind == TY_STRUCT || t->kind == TY_ARRAY) {
		c_render(rt, f, t, p, NULL, true);
		return;
	}
	bool s;
	const char *x = render_into(rt, t, p, &s);
	if (s)
		pr_json_string(f, x, strlen(x));
	else if (*x)
		fputs(x, f);
	else
		fputs("null", f);
}

const char *rt_render_json(struct rt *rt, const struct type *t, const void *bytes)
{
	return memtext(rt, t, bytes, true);
}

const char *rt_render_for(struct rt *rt, const struct type *t, const void *bytes, bool *is_str)
{
	bool s = false;
	const char *r = "";

	switch (rt->o->writer->render) {
	case PR_RENDER_TEXT:
		r = rt_render(rt, t, bytes, &s);
		break;
	case PR_RENDER_JSON:
		r = rt_render_json(rt, t, bytes);
		break;
	}
	if (is_str)
		*is_str = s;
	return r;
}
