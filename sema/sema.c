/*
 * sema.c - type checking and map inference.
 *
 * The checker walks each probe's predicate and body, one switch over node
 * kinds.  Map value kinds come from assignments anywhere in the program,
 * so the walk runs twice: a quiet first pass that only learns map kinds,
 * key types and string widths, and a second pass that reports errors with
 * everything known.  Integers are 64-bit in registers, maps and events;
 * casts narrow by masking or sign-extension.  Strings are fixed-size,
 * NUL-padded byte arrays.
 */
#include "sema_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "../runtime/format.h"
#include "../runtime/tracefs.h"
#include "../stdlib/stdlib.h"

#define STR_MAX 64
#define MAX_TUPLE 16

const struct type ty_int64 = {.kind = TY_INT, .size = 8, .is_signed = true};
const struct type ty_uint64 = {.kind = TY_INT, .size = 8};
const struct type ty_void = {.kind = TY_VOID};

struct type ty_str(uint32_t size)
{
	return (struct type){.kind = TY_STR, .size = size};
}

void sema_error(struct sema_ctx *s, struct src_loc loc, const char *fmt, ...)
{
	s->errors++;
	if (s->quiet)
		return;
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	diag_error(s->d, loc, "%s", buf);
}

struct arena *sema_arena(struct sema_ctx *s) { return s->a; }
const struct sema_opts *sema_options(struct sema_ctx *s) { return s->opts; }
const struct sema_probe *sema_cur_probe(struct sema_ctx *s) { return s->probe; }
void sema_own_scope(struct sema_ctx *s) { s->r->own_scope = true; }
void sema_need_per_attach(struct sema_ctx *s) { s->probe->uses_args |= s->probe->nattach > 1; }
struct ast_node *sema_assign_target(struct sema_ctx *s) { return s->assign_target; }

static bool is_int(const struct type *t)
{
	return t->kind == TY_INT || t->kind == TY_PTR;
}

static bool is_error(const struct type *t)
{
	return t->kind == TY_ERROR;
}

/* integer-valued kinds that print specially but are stored as 8 bytes */
static bool is_int_storage(const struct type *t)
{
	switch (t->kind) {
	case TY_INT: case TY_PTR: case TY_KSYM: case TY_USTACK:
	case TY_KSTACK: case TY_USERNAME: case TY_CGROUP_PATH: case TY_CONTAINER:
	case TY_PROBE: case TY_TIMESTAMP: case TY_DECODED:
		return true;
	case TY_USYM:	/* {address, pid} */
	case TY_NONE: case TY_VOID: case TY_STR: case TY_BUF: case TY_TUPLE:
	case TY_STRUCT: case TY_ARRAY: case TY_COUNT: case TY_SUM: case TY_AVG:
	case TY_MIN: case TY_MAX: case TY_STATS: case TY_HIST: case TY_LHIST:
	case TY_INET: case TY_ERROR:
		return false;
	}
	return false;
}

/* Lay out a type for maps and events: integers 8 bytes, each tuple field
 * 8-aligned, sizes rounded to 8.  Returns the size. */
static uint32_t layout(struct type *t)
{
	if (is_int_storage(t)) {
		t->size = 8;
		return 8;
	}
	if (t->kind == TY_TUPLE) {
		uint32_t off = 0;
		for (int i = 0; i < t->nfields; i++) {
			off = (off + 7) & ~7u;
			t->fields[i].offset = off;
			off += layout(&t->fields[i].type);
		}
		t->size = (off + 7) & ~7u;
	}
	return t->size;
}

/* Do values of type b fit where a is stored?  Strings widen a in place
 * (a map or variable holding both comm and str() takes the larger size). */
static bool compatible(struct type *a, const struct type *b, bool widen)
{
	if (is_error(a) || is_error(b))
		return true;
	if (is_int_storage(a) && is_int_storage(b)) {
		/* stacks print per their mode and depth, timestamps per format */
		if (a->kind == b->kind && (a->kind == TY_USTACK || a->kind == TY_KSTACK))
			return a->count == b->count && a->stack_mode == b->stack_mode;
		if (a->kind == b->kind && a->kind == TY_TIMESTAMP)
			return !a->fmt || !b->fmt || !strcmp(a->fmt, b->fmt);
		if (a->kind == b->kind && a->kind == TY_DECODED)
			return a->decoder == b->decoder;
		return a->kind == b->kind || (is_int(a) && is_int(b));
	}
	if (a->kind != b->kind)
		return false;
	switch (a->kind) {
	case TY_STR:
	case TY_BUF:
	case TY_INET:
		if (b->size > a->size) {
			if (!widen)
				return false;
			a->size = b->size;
		}
		return true;
	case TY_TUPLE:
		if (a->nfields != b->nfields)
			return false;
		for (int i = 0; i < a->nfields; i++)
			if (!compatible(&a->fields[i].type, &b->fields[i].type, widen))
				return false;
		return true;
	case TY_LHIST:
		return a->lh_min == b->lh_min && a->lh_max == b->lh_max && a->lh_step == b->lh_step;
	case TY_NONE: case TY_VOID: case TY_INT: case TY_PTR: case TY_STRUCT: case TY_ARRAY:
	case TY_COUNT: case TY_SUM: case TY_AVG: case TY_MIN: case TY_MAX: case TY_STATS:
	case TY_HIST: case TY_USYM: case TY_KSYM: case TY_USTACK: case TY_KSTACK:
	case TY_TIMESTAMP: case TY_USERNAME: case TY_CGROUP_PATH: case TY_CONTAINER:
	case TY_PROBE: case TY_DECODED: case TY_ERROR:
		return true;
	}
	return true;
}

static struct type deep_copy(struct arena *a, const struct type *t)
{
	struct type c = *t;
	if (t->kind == TY_TUPLE && t->nfields) {
		c.fields = arena_new_array(a, struct type_field, t->nfields);
		for (int i = 0; i < t->nfields; i++) {
			c.fields[i] = t->fields[i];
			c.fields[i].type = deep_copy(a, &t->fields[i].type);
		}
	}
	return c;
}

/* ---- maps --------------------------------------------------------------- */

static const char *kind_name(enum map_kind k)
{
	static const char *names[] = {"none", "value", "count", "sum", "avg", "min",
				      "max", "stats", "hist", "lhist"};
	return names[k];
}

struct sema_map *sema_map_of(struct sema_ctx *s, struct ast_node *m)
{
	for (int i = 0; i < s->nmaps; i++)
		if (!strcmp(s->maps[i]->name, m->map.name))
			return s->maps[i];
	s->maps = arena_grow(s->a, s->maps, (size_t)s->nmaps, sizeof(*s->maps));
	struct sema_map *map = arena_new_obj(s->a, struct sema_map);
	map->name = m->map.name;
	map->loc = m->loc;
	s->maps[s->nmaps++] = map;
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
			   map->name, kind_name(kind), kind_name(map->kind));
		return false;
	}
	return true;
}

/* check the keys of a map node and unify them with the map's key type */
void sema_map_keys(struct sema_ctx *s, struct ast_node *m)
{
	struct sema_map *map = sema_map_of(s, m);
	struct type key = {.kind = TY_NONE};
	if (m->map.nkeys > MAX_TUPLE) {
		sema_error(s, m->loc, "map '%s': at most %d keys", map->name, MAX_TUPLE);
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
		if (is_error(&key.fields[i].type))
			return;
	if (is_error(&key))
		return;
	for (struct ast_node *k = m->map.keys; k; k = k->next) {
		enum type_kind kk = k->type.kind;
		if (kk == TY_TUPLE) {
			sema_error(s, k->loc, "map '%s': a tuple cannot be a map key; write the "
				   "elements as keys: %s[a, b]", map->name, map->name);
			return;
		}
		if (kk == TY_VOID || kk == TY_COUNT || kk == TY_HIST || kk == TY_STRUCT ||
		    kk == TY_ARRAY || kk == TY_LHIST || kk == TY_STATS || kk == TY_AVG) {
			sema_error(s, k->loc, "map '%s': %s cannot be a map key", map->name,
				   type_str(s->a, &k->type));
			return;
		}
	}
	if (!map->key.kind && !map->key_size) {
		map->key = deep_copy(s->a, &key);
		map->key_size = 1;	/* marks "key seen" even for keyless maps */
		return;
	}
	int want = map->key.kind == TY_NONE ? 0 : map->key.kind == TY_TUPLE ? map->key.nfields : 1;
	if (want != m->map.nkeys) {
		sema_error(s, m->loc, "map '%s' has %d key%s here but %d elsewhere", map->name,
			   m->map.nkeys, m->map.nkeys == 1 ? "" : "s", want);
		return;
	}
	if (!compatible(&map->key, &key, true))
		sema_error(s, m->loc, "map '%s' key is %s here but %s elsewhere", map->name,
			   type_str(s->a, &key), type_str(s->a, &map->key));
}

/* a map read in an expression */
static struct type map_read_type(struct sema_ctx *s, struct ast_node *m)
{
	struct sema_map *map = sema_map_of(s, m);
	switch (map->kind) {
	case MK_NONE:
		if (!s->quiet)
			sema_error(s, m->loc, "map '%s' is read but never assigned", map->name);
		return (struct type){.kind = TY_ERROR};
	case MK_VALUE:
		return deep_copy(s->a, &map->value);
	case MK_COUNT:
	case MK_SUM:
	case MK_MIN:
	case MK_MAX:
		return ty_int64;
	case MK_AVG:
	case MK_STATS:
	case MK_HIST:
	case MK_LHIST:
		sema_error(s, m->loc, "map '%s' holds %s, which cannot be read in an expression",
			   map->name, kind_name(map->kind));
		return (struct type){.kind = TY_ERROR};
	}
	return (struct type){.kind = TY_ERROR};
}

static void map_store_value(struct sema_ctx *s, struct ast_node *m, const struct type *v,
			    struct src_loc loc)
{
	if (is_error(v))
		return;
	if (v->kind == TY_VOID || v->kind == TY_NONE) {
		sema_error(s, loc, "map '%s': this expression has no value", m->map.name);
		return;
	}
	if (!sema_map_set_kind(s, m, MK_VALUE, loc))
		return;
	struct sema_map *map = sema_map_of(s, m);
	if (map->value.kind == TY_NONE) {
		map->value = deep_copy(s->a, v);
		return;
	}
	if (!compatible(&map->value, v, true))
		sema_error(s, loc, "map '%s' holds %s, cannot assign %s", map->name,
			   type_str(s->a, &map->value), type_str(s->a, v));
}

/* ---- variables ---------------------------------------------------------- */

static struct sema_var *var_find(struct sema_ctx *s, const char *name)
{
	for (struct sema_var *v = s->vars; v; v = v->next)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

static void var_assign(struct sema_ctx *s, struct ast_node *target, const struct type *t,
		       struct src_loc loc)
{
	if (is_error(t))
		return;
	if (t->kind == TY_VOID || t->kind == TY_NONE || t->kind == TY_HIST ||
	    t->kind == TY_COUNT || t->kind == TY_LHIST || t->kind == TY_STATS) {
		sema_error(s, loc, "variable '$%s': this expression has no value to store",
			   target->var.name);
		return;
	}
	struct sema_var *v = var_find(s, target->var.name);
	if (!v) {
		v = arena_new_obj(s->a, struct sema_var);
		v->name = target->var.name;
		v->type = deep_copy(s->a, t);
		layout(&v->type);
		v->loc = target->loc;
		v->next = s->vars;
		s->vars = v;
	} else if (!compatible(&v->type, t, false)) {
		sema_error(s, loc, "variable '$%s' holds %s, cannot assign %s", v->name,
			   type_str(s->a, &v->type), type_str(s->a, t));
	}
	target->type = v->type;
}

/* ---- expressions -------------------------------------------------------- */

/* constant folding for the few places that need a compile-time integer
 * (lhist bounds, unroll counts, print() arguments) */
static bool fold_const(struct ast_node *e, int64_t *out)
{
	int64_t a, b;
	if (e->kind == N_INT) {
		*out = (int64_t)e->i.value;
		return true;
	}
	if (e->kind == N_UNARY && e->un.op == OP_NEG && fold_const(e->un.operand, &a)) {
		*out = -a;
		return true;
	}
	if (e->kind != N_BINARY || !fold_const(e->bin.lhs, &a) || !fold_const(e->bin.rhs, &b))
		return false;
	if (e->bin.op == OP_ADD)
		*out = a + b;
	else if (e->bin.op == OP_SUB)
		*out = a - b;
	else if (e->bin.op == OP_MUL)
		*out = a * b;
	else if (e->bin.op == OP_DIV && b)
		*out = a / b;
	else if (e->bin.op == OP_SHL)
		*out = (int64_t)((uint64_t)a << (b & 63));
	else
		return false;
	return true;
}

bool sema_const_int(struct sema_ctx *s, struct ast_node *e, int64_t *out)
{
	if (fold_const(e, out))
		return true;
	sema_error(s, e->loc, "expected a constant integer");
	return false;
}

static struct type *set(struct ast_node *e, struct type t)
{
	e->type = t;
	return &e->type;
}

static struct type *err_type(struct ast_node *e)
{
	return set(e, (struct type){.kind = TY_ERROR});
}

static struct type *check_call(struct sema_ctx *s, struct ast_node *e, bool as_stmt)
{
	const struct builtin *b = stdlib_find(e->call.name, true);
	if (!b) {
		sema_error(s, e->loc, "unknown function '%s'", e->call.name);
		for (struct ast_node *a = e->call.args; a; a = a->next)
			sema_expr(s, a);
		return err_type(e);
	}
	if (e->call.nargs < b->min_args || e->call.nargs > b->max_args) {
		if (b->min_args == b->max_args)
			sema_error(s, e->loc, "%s() takes %d argument%s, %d given", b->name,
				   b->min_args, b->min_args == 1 ? "" : "s", e->call.nargs);
		else
			sema_error(s, e->loc, "%s() takes %d to %d arguments, %d given", b->name,
				   b->min_args, b->max_args, e->call.nargs);
		return err_type(e);
	}
	if (b->kind == BI_AGG && !s->assign_target) {
		sema_error(s, e->loc, "%s() must be assigned to a map: @name = %s(...)",
			   b->name, b->name);
		return err_type(e);
	}
	if (b->kind == BI_STMT && !as_stmt) {
		sema_error(s, e->loc, "%s() returns no value", b->name);
		return err_type(e);
	}
	if (b->check) {
		b->check(s, e);
		return &e->type;
	}
	for (struct ast_node *a = e->call.args; a; a = a->next)
		sema_expr(s, a);
	return set(e, b->type);
}

static struct type *check_ident(struct sema_ctx *s, struct ast_node *e)
{
	const struct builtin *b = stdlib_find(e->ident.name, false);
	if (!b) {
		/* kstack/ustack/count etc. may be written without () */
		const struct builtin *f = stdlib_find(e->ident.name, true);
		if (f && f->min_args == 0) {
			sema_error(s, e->loc, "'%s' is a function: write %s()", e->ident.name,
				   e->ident.name);
			return err_type(e);
		}
		sema_error(s, e->loc, "unknown identifier '%s'", e->ident.name);
		return err_type(e);
	}
	if (b->check) {
		b->check(s, e);
		return &e->type;
	}
	return set(e, b->type);
}

/* tracepoint args->field */
static struct type *check_args_field(struct sema_ctx *s, struct ast_node *e)
{
	struct sema_probe *p = s->probe;
	struct type t = {.kind = TY_ERROR};
	p->uses_args = p->nattach > 1;
	for (int i = 0; i < p->nattach; i++) {
		const struct sema_attach *at = &p->attach[i];
		if (at->type != PT_TRACEPOINT) {
			sema_error(s, e->loc, "args->%s is only available in tracepoint probes (not %s)",
				   e->field.name, at->name);
			return err_type(e);
		}
		const struct tp_field *f = tfs_field(at->fmt, e->field.name);
		if (!f) {
			sema_error(s, e->loc, "tracepoint %s has no field '%s'", at->name + strlen("tracepoint:"),
				   e->field.name);
			return err_type(e);
		}
		struct type ft;
		if (f->is_data_loc || (f->array_len > 0 && strstr(f->ctype, "char") && !strchr(f->ctype, '*')))
			ft = ty_str(f->is_data_loc ? STR_MAX : (uint32_t)f->array_len);
		else if (f->array_len > 0) {
			ft = (struct type){.kind = TY_ARRAY, .count = (uint32_t)f->array_len,
					   .size = (uint32_t)f->size};
			ft.elem = arena_new_obj(s->a, struct type);
			*ft.elem = f->is_signed ? ty_int64 : ty_uint64;
			ft.elem->size = (uint32_t)f->size / (uint32_t)f->array_len;
		} else
			ft = f->is_signed ? ty_int64 : ty_uint64;
		if (i == 0)
			t = ft;
		else if (t.kind != ft.kind)
			sema_error(s, e->loc, "field '%s' has different types in %s and %s",
				   e->field.name, p->attach[0].name, at->name);
		else if (t.kind == TY_STR && ft.size > t.size)
			t.size = ft.size;
	}
	return set(e, t);
}

static struct type *check_binary(struct sema_ctx *s, struct ast_node *e)
{
	struct type *l = sema_expr(s, e->bin.lhs);
	struct type *r = sema_expr(s, e->bin.rhs);
	if (is_error(l) || is_error(r))
		return err_type(e);
	enum ast_op op = e->bin.op;
	if (l->kind == TY_STR || r->kind == TY_STR) {
		if ((op == OP_EQ || op == OP_NE) && l->kind == TY_STR && r->kind == TY_STR)
			return set(e, ty_int64);
		sema_error(s, e->loc, "operator '%s' cannot take %s and %s", ast_op_text(op),
			   type_str(s->a, l), type_str(s->a, r));
		return err_type(e);
	}
	if (!is_int(l) || !is_int(r)) {
		sema_error(s, e->loc, "operator '%s' needs integers, not %s and %s", ast_op_text(op),
			   type_str(s->a, l), type_str(s->a, r));
		return err_type(e);
	}
	if (op == OP_EQ || op == OP_NE || op == OP_LT || op == OP_LE || op == OP_GT ||
	    op == OP_GE || op == OP_LAND || op == OP_LOR)
		return set(e, ty_int64);
	bool uns = (l->kind == TY_INT && !l->is_signed) || (r->kind == TY_INT && !r->is_signed);
	if (op == OP_SHL || op == OP_SHR)
		uns = !l->is_signed;
	return set(e, uns ? ty_uint64 : ty_int64);
}

static struct type *check_field(struct sema_ctx *s, struct ast_node *e)
{
	struct ast_node *b = e->field.base;
	if (b->kind == N_IDENT && !strcmp(b->ident.name, "args")) {
		if (s->probe->nattach && s->probe->attach[0].type == PT_TRACEPOINT) {
			set(b, (struct type){.kind = TY_PTR, .size = 8});
			return check_args_field(s, e);
		}
	}
	struct type *bt = sema_expr(s, b);
	if (is_error(bt))
		return err_type(e);
	const struct type *st = bt;
	if (e->field.is_arrow) {
		if (bt->kind != TY_PTR || !bt->elem || bt->elem->kind != TY_STRUCT) {
			sema_error(s, e->loc, "'->' needs a pointer to a struct, not %s",
				   type_str(s->a, bt));
			return err_type(e);
		}
		st = bt->elem;
	} else if (bt->kind == TY_TUPLE) {
		/* $t.0 is written as a field whose name is a number */
		char *end;
		long idx = strtol(e->field.name, &end, 10);
		if (*end || idx < 0 || idx >= bt->nfields) {
			sema_error(s, e->loc, "tuple index '%s' out of range", e->field.name);
			return err_type(e);
		}
		return set(e, bt->fields[idx].type);
	} else if (bt->kind != TY_STRUCT) {
		sema_error(s, e->loc, "'.' needs a struct, not %s", type_str(s->a, bt));
		return err_type(e);
	}
	/* a pointer type made before its struct was complete (a field of
	 * type `struct S *` inside struct S) names the struct only: look the
	 * definition up now; codegen reads the fields from sema_data */
	if (!st->nfields && st->sname)
		for (struct sema_struct *d = s->structs; d; d = d->next)
			if (!strcmp(d->type.sname, st->sname))
				st = &d->type;
	e->sema_data = (void *)st;
	for (int i = 0; i < st->nfields; i++) {
		if (!strcmp(st->fields[i].name, e->field.name)) {
			struct type ft = st->fields[i].type;
			if (ft.kind == TY_INT)
				ft = ft.is_signed ? ty_int64 : ty_uint64;
			if (ft.kind == TY_ARRAY && ft.elem && ft.elem->kind == TY_INT && ft.elem->size == 1)
				ft = ty_str(ft.count);
			return set(e, ft);
		}
	}
	sema_error(s, e->loc, "struct %s has no field '%s'", st->sname ? st->sname : "?",
		   e->field.name);
	return err_type(e);
}

struct type *sema_expr(struct sema_ctx *s, struct ast_node *e)
{
	switch (e->kind) {
	case N_INT:
		return set(e, e->i.value > INT64_MAX ? ty_uint64 : ty_int64);
	case N_STR:
		if (e->s.len + 1 > STR_MAX) {
			sema_error(s, e->loc, "string literal is longer than %d bytes", STR_MAX - 1);
			return err_type(e);
		}
		return set(e, ty_str(e->s.len + 1));
	case N_IDENT:
		return check_ident(s, e);
	case N_VAR: {
		struct sema_var *v = var_find(s, e->var.name);
		if (!v) {
			sema_error(s, e->loc, "variable '$%s' is used before it is assigned",
				   e->var.name);
			return err_type(e);
		}
		return set(e, v->type);
	}
	case N_MAP:
		sema_map_keys(s, e);
		return set(e, map_read_type(s, e));
	case N_POSITIONAL: {
		/* $1 ... are compile-time constants: rewrite the node in place into
		 * an integer or (non-numeric) string literal; $# is the count */
		const char *v = NULL;
		if (e->pos.index > 0 && e->pos.index <= s->opts->npos_args)
			v = s->opts->pos_args[e->pos.index - 1];
		char *end = NULL;
		long long x = v && *v ? strtoll(v, &end, 0) : 0;
		if (e->pos.index == 0 || !v || !*v || !*end) {
			e->kind = N_INT;
			e->i.value = (uint64_t)(e->pos.index == 0 ? s->opts->npos_args : x);
			e->i.is_char = false;
			return set(e, ty_int64);
		}
		uint32_t n = (uint32_t)strlen(v);
		if (n >= STR_MAX)
			n = STR_MAX - 1;
		e->kind = N_STR;
		e->s.value = arena_strndup(s->a, v, n);
		e->s.len = n;
		return set(e, ty_str(n + 1));
	}
	case N_CALL:
		return check_call(s, e, false);
	case N_BINARY:
		return check_binary(s, e);
	case N_UNARY: {
		struct type *t = sema_expr(s, e->un.operand);
		if (is_error(t))
			return err_type(e);
		if (e->un.op == OP_DEREF) {
			if (t->kind != TY_PTR && t->kind != TY_INT) {
				sema_error(s, e->loc, "cannot dereference %s", type_str(s->a, t));
				return err_type(e);
			}
			if (t->kind == TY_PTR && t->elem)
				return set(e, t->elem->kind == TY_INT ? (t->elem->is_signed ? ty_int64 : ty_uint64)
								       : *t->elem);
			return set(e, ty_int64);
		}
		if (e->un.op == OP_ADDR) {
			sema_error(s, e->loc, "'&' (address-of) is not supported");
			return err_type(e);
		}
		if (!is_int(t)) {
			sema_error(s, e->loc, "operator '%s' needs an integer, not %s",
				   ast_op_text(e->un.op), type_str(s->a, t));
			return err_type(e);
		}
		if (e->un.op == OP_LNOT)
			return set(e, ty_int64);
		return set(e, t->kind == TY_INT ? *t : ty_uint64);
	}
	case N_INCDEC: {
		struct ast_node *t = e->incdec.target;
		if (t->kind == N_VAR) {
			struct sema_var *v = var_find(s, t->var.name);
			if (!v) {
				sema_error(s, t->loc, "variable '$%s' is used before it is assigned", t->var.name);
				return err_type(e);
			}
			if (!is_int(&v->type)) {
				sema_error(s, e->loc, "'%s' needs an integer variable", e->incdec.is_inc ? "++" : "--");
				return err_type(e);
			}
			t->type = v->type;
			return set(e, v->type);
		}
		if (t->kind == N_MAP) {
			sema_map_keys(s, t);
			map_store_value(s, t, &ty_int64, e->loc);
			struct sema_map *m = sema_map_of(s, t);
			if (m->kind == MK_VALUE && m->value.kind != TY_INT && !is_error(&m->value)) {
				sema_error(s, e->loc, "map '%s' holds %s: '++'/'--' need an integer", m->name,
					   type_str(s->a, &m->value));
				return err_type(e);
			}
			t->type = ty_int64;
			return set(e, ty_int64);
		}
		sema_error(s, e->loc, "'++'/'--' apply to $variables and @maps only");
		return err_type(e);
	}
	case N_TERNARY: {
		struct type *c = sema_expr(s, e->tern.cond);
		struct type *a = sema_expr(s, e->tern.then);
		struct type *b = sema_expr(s, e->tern.els);
		if (is_error(c) || is_error(a) || is_error(b))
			return err_type(e);
		if (!is_int(c)) {
			sema_error(s, e->tern.cond->loc, "condition must be an integer, not %s",
				   type_str(s->a, c));
			return err_type(e);
		}
		struct type r = deep_copy(s->a, a);
		if (!compatible(&r, b, true)) {
			sema_error(s, e->loc, "'?:' branches differ: %s and %s", type_str(s->a, a),
				   type_str(s->a, b));
			return err_type(e);
		}
		if (r.kind == TY_INT && (!a->is_signed || !b->is_signed))
			r.is_signed = false;
		return set(e, r);
	}
	case N_FIELD:
		return check_field(s, e);
	case N_INDEX: {
		struct type *b = sema_expr(s, e->index.base);
		struct type *i = sema_expr(s, e->index.index);
		if (is_error(b) || is_error(i))
			return err_type(e);
		if (!is_int(i)) {
			sema_error(s, e->index.index->loc, "index must be an integer");
			return err_type(e);
		}
		if (b->kind == TY_ARRAY || (b->kind == TY_PTR && b->elem)) {
			struct type el = *b->elem;
			if (el.kind == TY_INT)
				el = el.is_signed ? ty_int64 : ty_uint64;
			return set(e, el);
		}
		if (b->kind == TY_STR)
			return set(e, ty_int64);
		sema_error(s, e->loc, "cannot index %s", type_str(s->a, b));
		return err_type(e);
	}
	case N_CAST: {
		struct type *t = sema_expr(s, e->cast.operand);
		if (is_error(t))
			return err_type(e);
		struct type to;
		if (!sema_ctype(s, &e->cast.ctype, e->loc, &to))
			return err_type(e);
		if (!is_int(t) && !is_int_storage(t)) {
			sema_error(s, e->loc, "cannot cast %s to %s", type_str(s->a, t), type_str(s->a, &to));
			return err_type(e);
		}
		if (to.kind != TY_INT && to.kind != TY_PTR) {
			sema_error(s, e->loc, "cannot cast to %s", type_str(s->a, &to));
			return err_type(e);
		}
		return set(e, to);
	}
	case N_SIZEOF: {
		/* a compile-time constant: rewrite into an integer literal */
		struct type t;
		if (e->size_of.expr) {
			t = *sema_expr(s, e->size_of.expr);
			if (is_error(&t))
				return err_type(e);
			if (is_int_storage(&t))
				t.size = 8;
		} else if (!sema_ctype(s, &e->size_of.ctype, e->loc, &t)) {
			return err_type(e);
		}
		e->kind = N_INT;
		e->i.value = t.size;
		e->i.is_char = false;
		return set(e, ty_uint64);
	}
	case N_TUPLE: {
		struct type t = {.kind = TY_TUPLE, .nfields = e->tuple.nelems};
		t.fields = arena_new_array(s->a, struct type_field, t.nfields);
		int i = 0;
		for (struct ast_node *x = e->tuple.elems; x; x = x->next) {
			t.fields[i].type = deep_copy(s->a, sema_expr(s, x));
			if (is_error(&t.fields[i].type))
				return err_type(e);
			if (t.fields[i].type.kind == TY_VOID || t.fields[i].type.kind == TY_TUPLE) {
				sema_error(s, x->loc, "a tuple cannot hold %s", type_str(s->a, &t.fields[i].type));
				return err_type(e);
			}
			i++;
		}
		layout(&t);
		return set(e, t);
	}
	case N_EXPR_STMT: case N_ASSIGN: case N_IF: case N_WHILE: case N_UNROLL:
	case N_RETURN: case N_BREAK: case N_CONTINUE: case N_BLOCK: case N_PROBE:
	case N_STRUCT_DEF: case N_PROGRAM:
		break;
	}
	sema_error(s, e->loc, "expected an expression");
	return err_type(e);
}

/* ---- statements --------------------------------------------------------- */

static void check_block(struct sema_ctx *s, struct ast_node *b);

static void check_assign(struct sema_ctx *s, struct ast_node *st)
{
	struct ast_node *t = st->assign.target, *v = st->assign.value;
	if (t->kind != N_VAR && t->kind != N_MAP) {
		sema_error(s, t->loc, "can only assign to $variables and @maps");
		sema_expr(s, v);
		return;
	}
	if (t->kind == N_MAP) {
		sema_map_keys(s, t);
		if (st->assign.op == OP_NONE && v->kind == N_CALL) {
			const struct builtin *b = stdlib_find(v->call.name, true);
			if (b && b->kind == BI_AGG) {
				s->assign_target = t;
				check_call(s, v, false);
				s->assign_target = NULL;
				t->type = v->type;
				return;
			}
		}
		struct type *vt = sema_expr(s, v);
		if (st->assign.op != OP_NONE) {
			if (!is_error(vt) && !is_int(vt)) {
				sema_error(s, st->loc, "'%s=' needs an integer, not %s",
					   ast_op_text(st->assign.op), type_str(s->a, vt));
				return;
			}
			map_store_value(s, t, &ty_int64, st->loc);
			struct sema_map *m = sema_map_of(s, t);
			if (m->kind == MK_VALUE && m->value.kind != TY_INT && !is_error(&m->value))
				sema_error(s, st->loc, "map '%s' holds %s: '%s=' needs an integer", m->name,
					   type_str(s->a, &m->value), ast_op_text(st->assign.op));
			t->type = ty_int64;
			return;
		}
		map_store_value(s, t, vt, v->loc);
		t->type = sema_map_of(s, t)->value;
		return;
	}
	struct type *vt = sema_expr(s, v);
	if (st->assign.op != OP_NONE) {
		struct sema_var *var = var_find(s, t->var.name);
		if (!var) {
			sema_error(s, t->loc, "variable '$%s' is used before it is assigned", t->var.name);
			return;
		}
		if (!is_error(vt) && (!is_int(vt) || !is_int(&var->type)))
			sema_error(s, st->loc, "'%s=' needs integers", ast_op_text(st->assign.op));
		t->type = var->type;
		return;
	}
	var_assign(s, t, vt, v->loc);
}

static void check_cond(struct sema_ctx *s, struct ast_node *c)
{
	struct type *t = sema_expr(s, c);
	if (!is_error(t) && !is_int(t))
		sema_error(s, c->loc, "condition must be an integer, not %s", type_str(s->a, t));
}

static void check_stmt(struct sema_ctx *s, struct ast_node *st)
{
	switch (st->kind) {
	case N_EXPR_STMT: {
		struct ast_node *e = st->expr_stmt.expr;
		if (e->kind == N_CALL)
			check_call(s, e, true);
		else
			sema_expr(s, e);
		return;
	}
	case N_ASSIGN:
		check_assign(s, st);
		return;
	case N_IF:
		check_cond(s, st->if_.cond);
		check_block(s, st->if_.then);
		if (st->if_.els)
			check_stmt(s, st->if_.els);
		return;
	case N_WHILE:
		check_cond(s, st->while_.cond);
		s->loop_depth++;
		check_block(s, st->while_.body);
		s->loop_depth--;
		return;
	case N_UNROLL: {
		int64_t n;
		if (sema_const_int(s, st->unroll.count, &n)) {
			if (n < 1 || n > 100)
				sema_error(s, st->unroll.count->loc,
					   "unroll count must be 1 to 100, not %lld", (long long)n);
			st->unroll.count->kind = N_INT;
			st->unroll.count->i.value = (uint64_t)n;
		}
		check_block(s, st->unroll.body);
		return;
	}
	case N_RETURN:
		return;
	case N_BREAK:
	case N_CONTINUE:
		if (!s->loop_depth)
			sema_error(s, st->loc, "'%s' outside a while loop",
				   st->kind == N_BREAK ? "break" : "continue");
		return;
	case N_BLOCK:
		check_block(s, st);
		return;
	case N_INT: case N_STR: case N_IDENT: case N_VAR: case N_MAP: case N_POSITIONAL:
	case N_CALL: case N_BINARY: case N_UNARY: case N_INCDEC: case N_TERNARY: case N_FIELD:
	case N_INDEX: case N_CAST: case N_SIZEOF: case N_TUPLE: case N_PROBE: case N_STRUCT_DEF:
	case N_PROGRAM:
		sema_expr(s, st);
		return;
	}
}

static void check_block(struct sema_ctx *s, struct ast_node *b)
{
	if (b->kind != N_BLOCK) {
		check_stmt(s, b);
		return;
	}
	for (struct ast_node *st = b->block.stmts; st; st = st->next)
		check_stmt(s, st);
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
	for (struct ast_node *a = args; a; a = a->next, i++)
		ev->args.fields[i].type = deep_copy(s->a, &a->type);
	layout(&ev->args);
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
			bool num = is_int(&a->type);
			if (is_error(&a->type))
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

/* ---- struct definitions --------------------------------------------------- */

static const struct { const char *name; uint32_t size; bool is_signed; } int_types[] = {
	{"int8", 1, true}, {"int16", 2, true}, {"int32", 4, true}, {"int64", 8, true},
	{"uint8", 1, false}, {"uint16", 2, false}, {"uint32", 4, false}, {"uint64", 8, false},
	{"char", 1, true}, {"short", 2, true}, {"int", 4, true}, {"long", 8, true},
	{"bool", 1, false}, {"u8", 1, false}, {"u16", 2, false}, {"u32", 4, false},
	{"u64", 8, false}, {"s8", 1, true}, {"s16", 2, true}, {"s32", 4, true},
	{"s64", 8, true}, {"size_t", 8, false}, {"pid_t", 4, true}, {"uid_t", 4, false},
	{"unsigned", 4, false}, {"signed", 4, true}, {"void", 1, false},
	{"long long", 8, true},
};

bool sema_ctype(struct sema_ctx *s, const struct ast_ctype *ct, struct src_loc loc,
		struct type *out)
{
	struct type base = {.kind = TY_NONE};
	if (ct->is_struct) {
		for (struct sema_struct *st = s->structs; st; st = st->next)
			if (!strcmp(st->type.sname, ct->name))
				base = st->type;
		if (base.kind == TY_NONE) {
			if (ct->ptr_depth == 0) {
				sema_error(s, loc, "unknown struct '%s' (define it in the script)", ct->name);
				return false;
			}
			base = (struct type){.kind = TY_STRUCT, .sname = ct->name};
		}
	} else {
		for (size_t i = 0; i < sizeof(int_types) / sizeof(int_types[0]); i++)
			if (!strcmp(int_types[i].name, ct->name)) {
				base = (struct type){.kind = TY_INT, .size = int_types[i].size,
						     .is_signed = int_types[i].is_signed && !ct->is_unsigned};
				break;
			}
		if (base.kind == TY_NONE) {
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

static void define_struct(struct sema_ctx *s, struct ast_node *d)
{
	struct sema_struct *st = arena_new_obj(s->a, struct sema_struct);
	st->type.kind = TY_STRUCT;
	st->type.sname = d->sdef.name;
	int n = 0;
	for (struct ast_struct_field *f = d->sdef.fields; f; f = f->next)
		n++;
	st->type.fields = arena_new_array(s->a, struct type_field, n ? n : 1);
	uint32_t off = 0, align_max = 1;
	for (struct ast_struct_field *f = d->sdef.fields; f; f = f->next) {
		struct type ft;
		if (!sema_ctype(s, &f->ctype, f->loc, &ft))
			return;
		uint32_t sz = ft.size, al = ft.kind == TY_STRUCT ? 8 : (ft.size ? ft.size : 1);
		if (f->ctype.array_len >= 0) {
			struct type *el = arena_new_obj(s->a, struct type);
			*el = ft;
			ft = (struct type){.kind = TY_ARRAY, .elem = el, .count = (uint32_t)f->ctype.array_len,
					   .size = sz * (uint32_t)f->ctype.array_len};
			sz = ft.size;
		}
		if (al > 8)
			al = 8;
		off = (off + al - 1) & ~(al - 1);
		if (al > align_max)
			align_max = al;
		struct type_field *tf = &st->type.fields[st->type.nfields++];
		tf->name = f->name;
		tf->offset = off;
		tf->type = ft;
		off += sz;
	}
	st->type.size = (off + align_max - 1) & ~(align_max - 1);
	st->next = s->structs;
	s->structs = st;
}

/* ---- driver --------------------------------------------------------------- */

static int map_cmp(const void *a, const void *b)
{
	return strcmp((*(struct sema_map *const *)a)->name, (*(struct sema_map *const *)b)->name);
}

static void check_probes(struct sema_ctx *s)
{
	s->nevents = 0;
	for (int i = 0; i < s->r->nprobes; i++) {
		struct sema_probe *p = &s->r->probes[i];
		if (!p->nattach)
			continue;
		s->probe = p;
		s->vars = NULL;
		if (p->node->probe.pred)
			check_cond(s, p->node->probe.pred);
		check_block(s, p->node->probe.body);
	}
}

static void finish_maps(struct sema_ctx *s)
{
	for (int i = 0; i < s->nmaps; i++) {
		struct sema_map *m = s->maps[i];
		m->id = i;
		uint32_t ks = m->key.kind == TY_NONE ? 8 : layout(&m->key);
		if (m->key.kind == TY_STR)
			ks = (ks + 7) & ~7u;
		m->key_size = ks + ((m->kind == MK_HIST || m->kind == MK_LHIST) ? 8 : 0);
		m->percpu = m->kind != MK_VALUE && m->kind != MK_NONE;
		switch (m->kind) {
		case MK_NONE:
			m->value_size = 8;
			break;
		case MK_VALUE:
			m->value_size = (layout(&m->value) + 7) & ~7u;
			break;
		case MK_COUNT: case MK_SUM: case MK_HIST: case MK_LHIST:
			m->value_size = 8;
			break;
		case MK_AVG: case MK_STATS: case MK_MIN: case MK_MAX:
			m->value_size = 16;	/* {count, total} or {value, set} */
			break;
		}
	}
}

struct sema_result *sema_run(struct arena *a, struct diag *d, struct ast_node *prog,
			     const struct sema_opts *opts)
{
	struct sema_ctx s = {.a = a, .d = d, .opts = opts};
	struct sema_result *r = arena_new_obj(a, struct sema_result);
	s.r = r;
	r->program = prog;
	int n = 0;
	for (struct ast_node *it = prog->program.items; it; it = it->next)
		n += it->kind == N_PROBE;
	r->probes = arena_new_array(a, struct sema_probe, n ? n : 1);
	for (struct ast_node *it = prog->program.items; it; it = it->next) {
		if (it->kind == N_STRUCT_DEF) {
			define_struct(&s, it);
			continue;
		}
		if (it->kind != N_PROBE)
			continue;
		struct sema_probe *p = &r->probes[r->nprobes];
		p->node = it;
		p->index = r->nprobes++;
		it->probe.index = p->index;
		sema_resolve_attach(&s, p);
		r->nattach += p->nattach;
	}
	if (!r->nprobes) {
		diag_error(d, prog->loc, "the program has no probes");
		return NULL;
	}
	if (!s.errors)
		sema_check_attach_limits(&s);
	if (s.errors)
		return NULL;
	s.quiet = true;
	check_probes(&s);
	s.quiet = false;
	s.errors = 0;
	check_probes(&s);
	if (s.errors)
		return NULL;
	if (s.nmaps)
		qsort(s.maps, (size_t)s.nmaps, sizeof(*s.maps), map_cmp);
	finish_maps(&s);
	r->maps = s.maps;
	r->nmaps = s.nmaps;
	r->events = s.events;
	r->nevents = s.nevents;
	return r;
}
