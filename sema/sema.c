/*
 * sema.c - the driver of semantic analysis, variables and statements.
 *
 * The checker walks each probe's predicate and body, one switch over node
 * kinds per file: statements here, expressions in expr.c, types in
 * types.c, maps and events in maps.c, attach points in probes.c.  Map value kinds come from assignments anywhere in the program,
 * so the walk runs twice: a quiet first pass that only learns map kinds,
 * key types and string widths, and a second pass that reports errors with
 * everything known.  Integers are 64-bit in registers, maps and events;
 * casts narrow by masking or sign-extension.  Strings are fixed-size,
 * NUL-padded byte arrays.
 */
#include "sema/sema_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "common/explain.h"
#include "common/format.h"
#include "common/settings.h"
#include "host/host.h"

void sema_error(struct sema_ctx *s, struct src_loc loc, const char *fmt, ...)
{
	s->errors++;
	if (s->quiet)
		return;
	va_list ap;
	va_start(ap, fmt);
	diag_verror(s->d, loc, fmt, ap);
	va_end(ap);
}

void sema_error_plain(struct sema_ctx *s, const char *fmt, ...)
{
	s->errors++;
	if (s->quiet)
		return;
	s->d->errors++;
	va_list ap;
	va_start(ap, fmt);
	fputs("ERROR: ", s->d->out);
	vfprintf(s->d->out, fmt, ap);
	fputc('\n', s->d->out);
	va_end(ap);
}

void sema_error_release(struct sema_ctx *s, struct src_loc loc, const char *msg)
{
	s->errors++;
	if (s->quiet)
		return;
	s->d->errors++;
	diag_located(s->d, loc, "ERROR", msg, strlen(msg));
}

void sema_named_opt(struct sema_ctx *s, const char *name, const char *desc)
{
	struct sema_result *r = s->r;
	for (int i = 0; i < r->nnamed_opts; i++)
		if (!strcmp(r->named_opts[i].name, name)) {
			if (!*r->named_opts[i].desc)
				r->named_opts[i].desc = desc;
			return;
		}
	r->named_opts = arena_grow(s->a, r->named_opts, (size_t)r->nnamed_opts, sizeof(*r->named_opts));
	r->named_opts[r->nnamed_opts++] = (struct sema_named_opt){name, desc};
}

struct arena *sema_arena(struct sema_ctx *s) { return s->a; }
const struct sema_opts *sema_options(struct sema_ctx *s) { return s->opts; }
const struct sema_probe *sema_cur_probe(struct sema_ctx *s) { return s->probe; }
void sema_own_scope(struct sema_ctx *s) { s->r->own_scope = true; }
void sema_script_stops(struct sema_ctx *s) { s->r->stops = true; }
bool sema_final_pass(struct sema_ctx *s) { return !s->quiet; }

void sema_warn(struct sema_ctx *s, struct src_loc loc, const char *fmt, ...)
{
	if (s->quiet)
		return;
	char buf[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	diag_warn(s->d, loc, "%s", buf);
}
bool sema_dead_code(struct sema_ctx *s) { return s->dead > 0; }
void sema_need_per_attach(struct sema_ctx *s) { s->probe->uses_args |= s->probe->nattach > 1; }
void sema_need_btf_ctx(struct sema_ctx *s)
{
	s->probe->btf_ctx = true;
	sema_need_per_attach(s);
}

bool sema_need_func_sites(struct sema_ctx *s)
{
	if (!s->quiet)
		return false;	/* expanded after a quiet pass, or it matched nothing */
	s->probe->func_sites = true;
	return true;
}
struct ast_node *sema_assign_target(struct sema_ctx *s) { return s->assign_target; }

/* ---- variables ---------------------------------------------------------- */

struct sema_var *sema_var_find(struct sema_ctx *s, const char *name)
{
	for (struct sema_var *v = s->vars; v; v = v->next)
		if (!strcmp(v->name, name))
			return v;
	return NULL;
}

void sema_var_assign(struct sema_ctx *s, struct ast_node *target, const struct type *t,
		       struct src_loc loc)
{
	struct sema_var *v = sema_var_find(s, target->var.name);
	if (sema_is_error(t)) {
		/* the value's error is reported: later uses of the variable are
		 * errors too but silent ones, not "used before it is assigned" */
		if (!v) {
			v = arena_new_obj(s->a, struct sema_var);
			v->name = target->var.name;
			v->type = *t;
			v->loc = target->loc;
			v->next = s->vars;
			s->vars = v;
		}
		return;
	}
	if (t->kind == TY_VOID || t->kind == TY_NONE || t->kind == TY_HIST ||
	    t->kind == TY_COUNT || t->kind == TY_LHIST || t->kind == TY_STATS ||
	    t->kind == TY_TSERIES) {
		sema_error(s, loc, "variable '$%s': this expression has no value to store",
			   sema_var_shown(s, target->var.name));
		return;
	}
	if (v && sema_is_error(&v->type)) {
		v->type = sema_deep_copy(s->a, t);	/* was poisoned by an earlier error */
		sema_layout(&v->type);
	} else if (!v) {
		v = arena_new_obj(s->a, struct sema_var);
		v->name = target->var.name;
		/* the second pass starts from the widest strings the first saw:
		 * `$a = ""; ... $a = "hello"` holds string[6] from the start */
		struct sema_var *w = NULL;
		for (w = s->quiet ? NULL : s->learned[s->probe->index]; w; w = w->next)
			if (!strcmp(w->name, v->name))
				break;
		/* (not an error the first pass met: one a later pass does not
		 * meet, args.NAME of a wildcard uprobe before it was expanded) */
		v->type = sema_deep_copy(s->a, w && !sema_is_error(&w->type) ? &w->type : t);
		v->loc = target->loc;
		v->next = s->vars;
		s->vars = v;
	}
	if (!sema_compatible(&v->type, t, true))
		sema_error(s, loc, "variable '$%s' holds %s, cannot assign %s", sema_var_shown(s, v->name),
			   type_str(s->a, &v->type), type_str(s->a, t));
	sema_layout(&v->type);
	target->type = v->type;
}

/* ---- statements --------------------------------------------------------- */

static void check_block(struct sema_ctx *s, struct ast_node *b);
static void check_cond(struct sema_ctx *s, struct ast_node *c);

/* the type a variable had at the end of the first pass (NULL: none) */
static const struct type *learned_type(struct sema_ctx *s, const char *name)
{
	for (struct sema_var *w = s->quiet ? NULL : s->learned[s->probe->index]; w; w = w->next)
		if (!strcmp(w->name, name))
			return sema_is_error(&w->type) ? NULL : &w->type;
	return NULL;
}

/* a variable declared a narrower integer (let $x: int16): what is stored
 * into it is converted to that type, as the newest bpftrace converts */
static bool var_narrow(const struct sema_var *v)
{
	return v && v->declared && sema_is_int(&v->type) && v->type.csize && v->type.csize < 8;
}

/* "let $x", "let $x = e", "let $x: T", "let $x: T = e" (scope.c gave $x a
 * name of its own).  Without a value the variable starts at zero; without
 * a type its first assignment decides it. */
static void check_let(struct sema_ctx *s, struct ast_node *st)
{
	struct ast_node *t = st->assign.target, *v = st->assign.value;
	struct type decl = {0};
	if (st->assign.has_ctype && !sema_ctype(s, &st->assign.ctype, st->loc, &decl))
		return;
	if (st->assign.has_ctype && st->assign.ctype.ndims == 1) {
		/* let $w: struct W[10]: an array of them */
		uint32_t n = (uint32_t)st->assign.ctype.dims[0];
		if (!n || n > 4096 || (uint64_t)decl.size * n > (1u << 20)) {
			sema_error(s, st->loc, "an array variable holds 1 to 4096 elements of at most "
				   "1 MiB in all, not %u of %s", n, type_str(s->a, &decl));
			return;
		}
		struct type *el = arena_new_obj(s->a, struct type);
		*el = decl;
		decl = (struct type){.kind = TY_ARRAY, .elem = el, .count = n, .size = el->size * n};
	}
	if (v) {
		struct type *vt = sema_expr(s, v);
		if (!st->assign.has_ctype) {
			sema_var_assign(s, t, vt, v->loc);
			return;
		}
		if (!sema_is_error(vt) && !(sema_is_int(&decl) && sema_is_int(vt)) &&
		    !sema_compatible(&decl, vt, false)) {
			sema_error(s, v->loc, "variable '$%s' is declared %s, cannot assign %s",
				   sema_var_shown(s, t->var.name), type_str(s->a, &decl),
				   type_str(s->a, vt));
			return;
		}
	}
	if (!st->assign.has_ctype) {
		/* "let $x;": the type of its first assignment, known in the
		 * second pass; never assigned, an integer */
		const struct type *w = learned_type(s, t->var.name);
		if (!w && s->quiet)
			return;
		decl = w ? *w : ty_int64;
	}
	sema_layout(&decl);
	sema_var_assign(s, t, &decl, st->loc);
	struct sema_var *var = st->assign.has_ctype ? sema_var_find(s, t->var.name) : NULL;
	if (var) {
		var->declared = true;
		st->note.narrow = sema_is_int(&decl) && decl.csize < 8;
	}
}

/* a for loop's helper, or a located error that names the kernel it needs */
static bool for_helper(struct sema_ctx *s, struct ast_node *st, enum host_feature f)
{
	if (s->quiet)
		return true;
	if (sema_in_user_probe(s)) {
		/* the agent's interpreter runs no callbacks */
		sema_error(s, st->loc, "for loops do not run in the traced processes (--user-probes): "
			   "use a while loop, or drop --user-probes for this script");
		return false;
	}
	if (host_feature(f))
		return true;
	sema_error(s, st->loc, "a for loop %s needs %s (Linux %s), which this kernel does not have",
		   st->for_.map ? "over a map" : "over a range", host_feature_what(f), host_feature_since(f));
	return false;
}

/* for ($kv : @m): $kv is (key, value), the key a tuple for several keys;
 * for ($i : a..b): an int64 from a up to b - 1 */
static void check_for(struct sema_ctx *s, struct ast_node *st)
{
	struct type vt;
	if (!for_helper(s, st, st->for_.map ? HF_FOR_EACH : HF_LOOP))
		return;
	if (st->for_.map) {
		struct ast_node *m = st->for_.map;
		struct sema_map *map = sema_map_of(s, m);
		if (map->kind == MK_NONE) {
			if (!s->quiet)
				sema_map_unassigned(s, map, m->loc, "iterated over");
			return;
		}
		if (map->key.kind == TY_NONE) {
			sema_error(s, m->loc, "map '%s' has no keys: a for loop iterates over a map with keys",
				   map->name);
			return;
		}
		/* counts, sums, mins, maxes and averages read as integers */
		bool num = map->kind == MK_COUNT || map->kind == MK_SUM || map->kind == MK_MIN ||
			   map->kind == MK_MAX || map->kind == MK_AVG;
		if (map->kind != MK_VALUE && !num) {
			sema_error(s, m->loc, "map '%s' holds %s: for loops iterate over maps of values "
				   "and of count, sum, min, max and avg", map->name, sema_kind_name(map->kind));
			return;
		}
		if (num && !s->quiet && !host_feature(HF_PERCPU_LOOKUP)) {
			sema_error(s, m->loc, "a for loop over the aggregation '%s' needs %s (Linux %s), "
				   "which this kernel does not have", map->name,
				   host_feature_what(HF_PERCPU_LOOKUP), host_feature_since(HF_PERCPU_LOOKUP));
			return;
		}
		vt = (struct type){.kind = TY_TUPLE, .nfields = 2};
		vt.fields = arena_new_array(s->a, struct type_field, 2);
		vt.fields[0].type = sema_deep_copy(s->a, &map->key);
		vt.fields[1].type = num ? ty_int64 : sema_deep_copy(s->a, &map->value);
		m->type = vt.fields[1].type;
	} else {
		check_cond(s, st->for_.start);
		check_cond(s, st->for_.end);
		vt = ty_int64;
	}
	sema_layout(&vt);
	sema_var_assign(s, st->for_.var, &vt, st->for_.var->loc);
	s->loop_depth++;
	s->for_depth++;
	check_block(s, st->for_.body);
	s->for_depth--;
	s->loop_depth--;
}

/* a statement that is only a value nothing uses (`$a + 1;`, `has_key(@m,
 * k);`): the newest bpftrace warns.  Not a call that does something, an
 * assignment, ++/-- or a ternary of statements (`c ? printf() : ...`). */
static bool discarded_value(const struct ast_node *e)
{
	if (e->type.kind == TY_ERROR || e->type.kind == TY_NONE)
		return false;
	switch (e->kind) {
	case N_INT: case N_STR: case N_IDENT: case N_VAR: case N_MAP: case N_POSITIONAL:
	case N_BINARY: case N_UNARY: case N_FIELD: case N_INDEX: case N_CAST: case N_SIZEOF:
	case N_TUPLE:
		return true;
	case N_CALL:
		return !strcmp(e->call.name, "has_key");
	case N_INCDEC: case N_TERNARY: case N_EXPR_STMT: case N_ASSIGN: case N_IF: case N_WHILE:
	case N_UNROLL: case N_FOR: case N_RETURN: case N_BREAK: case N_CONTINUE: case N_BLOCK:
	case N_PROBE: case N_STRUCT_DEF: case N_PROGRAM: case N_MACRO:
		return false;
	}
	return false;
}

/* return e: the probe ends and its BPF program returns e, as in the
 * newest bpftrace (whose test: probes read it; no probe type sonde has
 * reads it, and fentry/fexit programs must return 0) */
static void check_return_value(struct sema_ctx *s, struct ast_node *st)
{
	struct type *t = sema_expr(s, st->ret.value);
	if (t->kind == TY_ERROR)
		return;
	if (t->kind != TY_INT) {
		sema_error(s, st->ret.value->loc, "return takes an integer (the BPF program's return "
			   "value), not %s", type_str(s->a, t));
		return;
	}
	if (s->for_depth) {
		sema_error(s, st->loc, "return with a value inside a for loop: the loop's body is a "
			   "function of its own; keep the value in a variable and return it after the loop");
		return;
	}
	const struct sema_probe *p = sema_cur_probe(s);
	for (int i = 0; i < p->nattach; i++)
		if ((p->attach[i].type == PT_FENTRY || p->attach[i].type == PT_FEXIT) &&
		    !(st->ret.value->kind == N_INT && st->ret.value->i.value == 0)) {
			sema_error(s, st->ret.value->loc, "a %s program must return 0 (the kernel's "
				   "verifier refuses another value): write `return;`",
				   sema_probe_type_name(p->attach[i].type));
			return;
		}
}

/* The statements a block becomes once every unroll in it is expanded
 * (saturating: nested unrolls multiply). */
static uint64_t expanded(const struct ast_node *b);

static uint64_t expanded_stmt(const struct ast_node *st)
{
	uint64_t n = 1, k;
	switch (st->kind) {
	case N_IF:
		n += expanded(st->if_.then) + (st->if_.els ? expanded_stmt(st->if_.els) : 0);
		break;
	case N_WHILE:
		n += expanded(st->while_.body);
		break;
	case N_FOR:
		n += expanded(st->for_.body);
		break;
	case N_UNROLL:
		k = st->unroll.count->kind == N_INT ? st->unroll.count->i.value : 1;
		n = expanded(st->unroll.body);
		n = k && n > UINT64_MAX / 1000 / k ? UINT64_MAX / 1000 : n * k;
		break;
	case N_BLOCK:
		n = expanded(st);
		break;
	case N_EXPR_STMT: case N_ASSIGN: case N_RETURN: case N_BREAK: case N_CONTINUE:
	case N_INT: case N_STR: case N_IDENT: case N_VAR: case N_MAP: case N_POSITIONAL: case N_CALL:
	case N_BINARY: case N_UNARY: case N_INCDEC: case N_TERNARY: case N_FIELD: case N_INDEX:
	case N_CAST: case N_SIZEOF: case N_TUPLE: case N_PROBE: case N_STRUCT_DEF: case N_PROGRAM:
	case N_MACRO:
		break;
	}
	return n;
}

static uint64_t expanded(const struct ast_node *b)
{
	if (b->kind != N_BLOCK)
		return expanded_stmt(b);
	uint64_t n = 0;
	for (const struct ast_node *st = b->block.stmts; st; st = st->next)
		n += expanded_stmt(st);
	return n;
}

/* what the kernel loads at most in one program (BPF_COMPLEXITY_LIMIT_INSNS) */
#define BPF_MAX_PROG_INSNS 1000000

static void check_assign(struct sema_ctx *s, struct ast_node *st)
{
	struct ast_node *t = st->assign.target, *v = st->assign.value;
	if (t->kind != N_VAR && t->kind != N_MAP) {
		sema_error(s, t->loc, "can only assign to $variables and @maps");
		sema_expr(s, v);
		return;
	}
	if (t->kind == N_MAP && st->assign.op == OP_NONE && v->kind == N_BLOCK && v->block.value &&
	    v->block.value->kind == N_CALL) {
		const struct builtin *b = s->opts->builtins(v->block.value->call.name, true);
		if (b && b->kind == BI_AGG) {
			/* @m = { let $a = 100; avg($a) } (the newest bpftrace): the
			 * block's statements, then @m = avg($a), in the block */
			struct ast_node *as = arena_new_obj(s->a, struct ast_node), **tail;
			*as = *st;
			as->next = NULL;
			as->assign.value = v->block.value;
			for (tail = &v->block.stmts; *tail; tail = &(*tail)->next)
				;
			*tail = as;
			v->block.value = NULL;
			struct ast_node *next = st->next;
			*st = *v;
			st->next = next;
			check_block(s, st);
			return;
		}
	}
	if (t->kind == N_MAP) {
		sema_map_keys(s, t);
		if (st->assign.op == OP_NONE && v->kind == N_CALL) {
			const struct builtin *b = s->opts->builtins(v->call.name, true);
			if (b && b->kind == BI_AGG) {
				s->assign_target = t;
				sema_check_call(s, v, false);
				s->assign_target = NULL;
				t->type = v->type;
				/* sum() is as signed as its first value (bpftrace) */
				struct sema_map *m = sema_map_of(s, t);
				if (m->kind == MK_SUM && m->value.kind == TY_NONE && v->call.nargs &&
				    v->call.args->type.kind == TY_INT)
					m->value = (struct type){.kind = TY_INT, .size = 8,
								 .is_signed = v->call.args->type.is_signed};
				return;
			}
		}
		struct type *vt = sema_expr(s, v);
		if (st->assign.op != OP_NONE) {
			if (!sema_is_error(vt) && !sema_is_int(vt)) {
				sema_error(s, st->loc, "'%s=' needs an integer, not %s",
					   ast_op_text(st->assign.op), type_str(s->a, vt));
				return;
			}
			sema_map_store_value(s, t, &ty_int64, st->loc);
			struct sema_map *m = sema_map_of(s, t);
			/* a pointer takes += and -= in elements (@p += 1 is the next one) */
			bool ptr_ok = m->value.kind == TY_PTR &&
				      (st->assign.op == OP_ADD || st->assign.op == OP_SUB);
			if (m->kind == MK_VALUE && m->value.kind != TY_INT && !ptr_ok &&
			    !sema_is_error(&m->value))
				sema_error(s, st->loc, "map '%s' holds %s: '%s=' needs an integer", m->name,
					   type_str(s->a, &m->value), ast_op_text(st->assign.op));
			t->type = m->kind == MK_VALUE && (m->value.kind == TY_INT || ptr_ok) ? m->value
											       : ty_int64;
			return;
		}
		sema_map_store_value(s, t, vt, v->loc);
		t->type = sema_map_of(s, t)->value;
		return;
	}
	if (st->assign.is_let) {
		check_let(s, st);
		return;
	}
	struct type *vt = sema_expr(s, v);
	if (st->assign.op != OP_NONE) {
		struct sema_var *var = sema_var_find(s, t->var.name);
		if (!var) {
			sema_error(s, t->loc, "variable '$%s' is used before it is assigned",
				   sema_var_shown(s, t->var.name));
			return;
		}
		if (!sema_is_error(vt) && !sema_is_error(&var->type) &&
		    (!sema_is_int(vt) || !sema_is_int(&var->type)))
			sema_error(s, st->loc, "'%s=' needs integers", ast_op_text(st->assign.op));
		t->type = var->type;
		st->note.narrow = var_narrow(var);
		return;
	}
	sema_var_assign(s, t, vt, v->loc);
	st->note.narrow = var_narrow(sema_var_find(s, t->var.name));
}

static void check_cond(struct sema_ctx *s, struct ast_node *c)
{
	struct type *t = sema_expr(s, c);
	if (!sema_is_error(t) && !sema_is_int(t))
		sema_error(s, c->loc, "condition must be an integer, not %s", type_str(s->a, t));
}

static void check_stmt(struct sema_ctx *s, struct ast_node *st)
{
	switch (st->kind) {
	case N_EXPR_STMT:
		sema_check_expr_stmt(s, st->expr_stmt.expr);
		if (!st->expr_stmt.discard && discarded_value(st->expr_stmt.expr) && !s->quiet)
			diag_warn(s->d, st->expr_stmt.expr->loc, "this value is discarded: use it, or "
				  "write `_ = e;` to discard it on purpose");
		return;
	case N_ASSIGN:
		check_assign(s, st);
		return;
	case N_IF: {
		/* a branch a constant condition never takes is checked but dead:
		 * fail() and static_assert() there stay silent */
		int64_t c;
		check_cond(s, st->if_.cond);
		bool known = sema_fold_const(st->if_.cond, &c);
		s->dead += known && !c;
		check_block(s, st->if_.then);
		s->dead -= known && !c;
		s->dead += known && c;
		if (st->if_.els)
			check_stmt(s, st->if_.els);
		s->dead -= known && c;
		return;
	}
	case N_WHILE:
		check_cond(s, st->while_.cond);
		s->loop_depth++;
		check_block(s, st->while_.body);
		s->loop_depth--;
		return;
	case N_FOR:
		check_for(s, st);
		return;
	case N_UNROLL: {
		int64_t n;
		/* checked first: a positional parameter becomes its value */
		sema_expr(s, st->unroll.count);
		if (sema_const_int(s, st->unroll.count, &n)) {
			if (n < 1 || n > 100)
				sema_error(s, st->unroll.count->loc,
					   "unroll count must be 1 to 100, not %lld", (long long)n);
			st->unroll.count->kind = N_INT;
			st->unroll.count->i.value = (uint64_t)n;
			/* the node was a unary minus, a positional ...: its union
			 * holds no flags of a literal */
			st->unroll.count->i.is_char = false;
			st->unroll.count->i.is_signed = true;
		}
		check_block(s, st->unroll.body);
		/* refused at once: the copies would take minutes to compile
		 * before the kernel refused them (one instruction each at
		 * the least, and a map update takes a dozen) */
		/* (an enclosing unroll's body is past the limit already: one error) */
		uint64_t body = expanded(st->unroll.body), total = expanded_stmt(st);
		if (st->unroll.count->kind == N_INT && total >= BPF_MAX_PROG_INSNS &&
		    body < BPF_MAX_PROG_INSNS) {
			sema_error(s, st->loc, "unroll(%llu) of %llu statement%s (its body, unrolled) "
				   "makes %llu statements, each at least one BPF instruction besides "
				   "the program's own: past the %d a BPF program may hold [%s]",
				   (unsigned long long)st->unroll.count->i.value,
				   (unsigned long long)body, body == 1 ? "" : "s",
				   (unsigned long long)total, BPF_MAX_PROG_INSNS,
				   explain_get(EX_PROG_SIZE)->code);
		}
		return;
	}
	case N_RETURN:
		if (st->ret.value)
			check_return_value(s, st);
		return;
	case N_BREAK:
	case N_CONTINUE:
		if (!s->loop_depth)
			sema_error(s, st->loc, "'%s' outside a loop",
				   st->kind == N_BREAK ? "break" : "continue");
		return;
	case N_BLOCK:
		if (st->block.value)	/* a macro's expansion, { ...; e } */
			sema_check_expr_stmt(s, st);
		else
			check_block(s, st);
		return;
	case N_INT: case N_STR: case N_IDENT: case N_VAR: case N_MAP: case N_POSITIONAL:
	case N_CALL: case N_BINARY: case N_UNARY: case N_INCDEC: case N_TERNARY: case N_FIELD:
	case N_INDEX: case N_CAST: case N_SIZEOF: case N_TUPLE: case N_PROBE: case N_STRUCT_DEF:
	case N_PROGRAM: case N_MACRO:
		sema_expr(s, st);
		return;
	}
}

void sema_check_stmts(struct sema_ctx *s, struct ast_node *block)
{
	for (struct ast_node *st = block->block.stmts; st; st = st->next)
		check_stmt(s, st);
	sema_join_print_clear(block->block.stmts);
}

static void check_block(struct sema_ctx *s, struct ast_node *b)
{
	if (b->kind != N_BLOCK) {
		check_stmt(s, b);
		return;
	}
	for (struct ast_node *st = b->block.stmts; st; st = st->next)
		check_stmt(s, st);
	sema_join_print_clear(b->block.stmts);
}

/* ---- driver --------------------------------------------------------------- */

static int map_cmp(const void *a, const void *b)
{
	return strcmp((*(struct sema_map *const *)a)->name, (*(struct sema_map *const *)b)->name);
}

/* how many maps have a kind: what a quiet pass learns */
static int known_maps(const struct sema_ctx *s)
{
	int n = 0;
	for (int i = 0; i < s->nmaps; i++)
		n += s->maps[i]->kind != MK_NONE;
	return n;
}

static void check_probes(struct sema_ctx *s)
{
	s->nevents = 0;
	for (int i = 0; i < s->r->nprobes && !diag_stopped(s->d); i++) {
		struct sema_probe *p = &s->r->probes[i];
		if (!p->nattach)
			continue;
		s->probe = p;
		s->vars = NULL;
		if (p->node->probe.pred)
			check_cond(s, p->node->probe.pred);
		check_block(s, p->node->probe.body);
		if (s->quiet)
			s->learned[i] = s->vars;
		if (p->func_sites) {
			p->func_sites = false;
			sema_expand_func_sites(s, p);
		}
	}
}

/* hist buckets: negatives, 0, then [2^i, 2^(i+1)) for i in 0..63 */
#define HIST_SLOTS 66
/* lhists wider than this stay in a hash that holds only the buckets used */
#define LHIST_ARRAY_MAX 1024

/*
 * An aggregation without keys lives in a per-CPU array: its lookup is an
 * index the verifier inlines and that always finds its slot, so an update
 * is a load and a store, with no hash and no insert path.  A keyless hist
 * or lhist holds one slot per bucket and one more, the last, for the sum
 * of its values (written only for the scrape formats' _sum: cg_opts.hist_sum).
 * 0: a hash.
 */
static uint32_t array_slots(const struct sema_map *m)
{
	if (!m->percpu || m->key.kind != TY_NONE || m->kind == MK_TSERIES)
		return 0;	/* a tseries keeps a hash of (dummy key, interval slot) */
	if (m->kind == MK_HIST) {
		/* hist(v, k): ((64 - k) << k) + 1 buckets, as output/print.c lays them out */
		uint32_t n = m->hist_bits ? ((64u - (uint32_t)m->hist_bits) << m->hist_bits) + 2 : HIST_SLOTS + 1;
		return n <= LHIST_ARRAY_MAX ? n : 0;
	}
	if (m->kind == MK_LHIST) {
		int64_t n = m->lh_step > 0 ? (m->lh_max - m->lh_min) / m->lh_step + 3 : 0;
		return n > 0 && n <= LHIST_ARRAY_MAX ? (uint32_t)n : 0;
	}
	return 1;
}

/*
 * let @m = hash(n), lruhash(n), percpuhash(n), percpulruhash(n),
 * percpuarray(n): the BPF map type and size of a map.  Values live in
 * shared maps and aggregations in per-CPU ones (as everywhere in sonde), so
 * the declaration must agree with what the map holds.
 */
static void apply_decls(struct sema_ctx *s, const struct ast_map_decl *decls)
{
	static const struct { const char *name; bool percpu, lru, array; } types[] = {
		{"hash", false, false, false}, {"lruhash", false, true, false},
		{"percpuhash", true, false, false}, {"percpulruhash", true, true, false},
		{"percpuarray", true, false, true},
	};
	for (const struct ast_map_decl *d = decls; d; d = d->next) {
		if (settings_int(SET_UNSTABLE_MAP_DECL) == SET_UNSTABLE_ERROR) {
			sema_error(s, d->type_loc, "map declarations are an unstable feature and the "
				   "config sets unstable_map_decl = error");
			continue;
		}
		size_t t = 0;
		while (t < sizeof(types) / sizeof(types[0]) && strcmp(types[t].name, d->type))
			t++;
		if (t == sizeof(types) / sizeof(types[0])) {
			sema_error(s, d->type_loc, "unknown map type '%s': use hash, lruhash, percpuhash, "
				   "percpulruhash or percpuarray", d->type);
			continue;
		}
		if (d->entries < 1 || d->entries > UINT32_MAX) {
			sema_error(s, d->entries_loc, "map '%s': the number of entries must be 1 to %u",
				   d->name, UINT32_MAX);
			continue;
		}
		struct sema_map *m = NULL;
		for (int i = 0; i < s->nmaps && !m; i++)
			if (!strcmp(s->maps[i]->name, d->name))
				m = s->maps[i];
		if (!m) {
			diag_warn(s->d, d->loc, "map '%s' is declared but never used", d->name);
			continue;
		}
		if (m->decl) {
			sema_error(s, d->loc, "map '%s' is declared twice", d->name);
			continue;
		}
		bool agg = m->kind != MK_VALUE;
		if (agg != types[t].percpu) {
			sema_error(s, d->type_loc, agg ? "map '%s' holds %s, a per-CPU aggregation: declare it "
				   "percpuhash or percpulruhash (percpuarray without keys)"
				   : "map '%s' holds values (%s): declare it hash or lruhash",
				   d->name, agg ? sema_kind_name(m->kind) : type_str(s->a, &m->value));
			continue;
		}
		if (types[t].array && m->kind == MK_TSERIES) {
			sema_error(s, d->type_loc, "map '%s' is a tseries, a slot per interval: declare it "
				   "percpuhash or percpulruhash", d->name);
			continue;
		}
		if (types[t].array && m->key.kind != TY_NONE) {
			sema_error(s, d->type_loc, "map '%s' has keys: percpuarray is for an aggregation "
				   "without keys (@m = count()); use percpuhash", d->name);
			continue;
		}
		m->decl = d;
		m->lru = types[t].lru;
		m->max_entries = (uint32_t)d->entries;
	}
}

static void finish_maps(struct sema_ctx *s)
{
	for (int i = 0; i < s->nmaps; i++) {
		struct sema_map *m = s->maps[i];
		m->id = i;
		uint32_t ks = m->key.kind == TY_NONE ? 8 : sema_layout(&m->key);
		if (m->key.kind == TY_STR)
			ks = (ks + 7) & ~7u;
		m->key_size = ks + ((m->kind == MK_HIST || m->kind == MK_LHIST ||
				     m->kind == MK_TSERIES) ? 8 : 0);
		m->percpu = m->kind != MK_VALUE && m->kind != MK_NONE;
		/* a declared hash stays a hash, even without keys */
		m->array_slots = m->decl && strcmp(m->decl->type, "percpuarray") ? 0 : array_slots(m);
		switch (m->kind) {
		case MK_NONE:
			m->value_size = 8;
			break;
		case MK_VALUE:
			m->value_size = (sema_layout(&m->value) + 7) & ~7u;
			break;
		case MK_COUNT: case MK_HIST: case MK_LHIST:
			m->value_size = 8;
			break;
		case MK_SUM:
			/* in an array, {sum, set}: a sum of zeros prints, an
			 * untouched slot does not */
			m->value_size = m->array_slots ? 16 : 8;
			break;
		case MK_AVG: case MK_STATS: case MK_MIN: case MK_MAX:
			m->value_size = 16;	/* {count, total} or {value, set} */
			break;
		case MK_TSERIES:
			m->value_size = 24;	/* {value, meta, epoch} */
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
	/* a script 0.17 cannot parse is one for newer bpftrace: with only
	 * BEGIN/END it ends by itself, however it spells them */
	r->ends_itself = prog->program.newer;
	int n = 0;
	for (struct ast_node *it = prog->program.items; it; it = it->next)
		n += it->kind == N_PROBE;
	r->probes = arena_new_array(a, struct sema_probe, n ? n : 1);
	s.learned = arena_new_array(a, struct sema_var *, n ? n : 1);
	for (struct ast_node *it = prog->program.items; it && !diag_stopped(d); it = it->next) {
		if (it->kind == N_STRUCT_DEF) {
			sema_define_struct(&s, it);
			continue;
		}
		if (it->kind != N_PROBE)
			continue;
		struct sema_probe *p = &r->probes[r->nprobes];
		p->node = it;
		p->index = r->nprobes++;
		it->probe.index = p->index;
		sema_scope_probe(&s, it);
		sema_resolve_attach(&s, p);
		r->nattach += p->nattach;
	}
	if (!r->nprobes) {
		diag_error(d, prog->loc, "the program has no probes");
		return NULL;
	}
	/* an iter: probe is its script's only probe, BEGIN and END aside */
	for (int i = 0; r->has_iter && i < r->nprobes && !s.errors; i++)
		for (int j = 0; j < r->probes[i].nattach; j++) {
			enum probe_type t = r->probes[i].attach[j].type;
			if (t != PT_ITER && t != PT_BEGIN && t != PT_END) {
				sema_error(&s, r->probes[i].attach[j].loc, "a script with an iter probe "
					   "has no other probes (BEGIN and END aside)");
				break;
			}
		}
	if (!s.errors)
		sema_check_attach_limits(&s);
	if (s.errors)
		return NULL;
	/* quiet passes until they learn no more maps: a map read before the
	 * assignment that gives its kind (seeksize.bt; `$x = @l; @s = $x;
	 * @l = 1`) makes what it flows into known one pass later */
	s.quiet = true;
	for (int pass = 0, known = -1; pass < SEMA_MAX_QUIET_PASSES; pass++) {
		int now = known_maps(&s);
		if (now == known || (pass && !s.unknown_reads))
			break;
		known = now;
		s.unknown_reads = 0;
		for (int i = 0; i < s.nmaps; i++)
			s.maps[i]->poisoned = false;
		check_probes(&s);
	}
	s.quiet = false;
	s.errors = 0;
	/* a map poisoned in a quiet pass may have been poisoned by its own
	 * read (`@s = @s`): the last pass decides again, and reports */
	for (int i = 0; i < s.nmaps; i++)
		s.maps[i]->poisoned = false;
	check_probes(&s);
	/* print(@m), clear(@m), delete(@m[k]) of a map nothing assigns (a
	 * read has said so already) */
	int errors_before = s.errors;
	for (int i = 0; i < s.nmaps && !errors_before; i++)
		if (s.maps[i]->kind == MK_NONE)
			sema_map_unassigned(&s, s.maps[i], s.maps[i]->loc, "used");
	if (!s.errors)
		apply_decls(&s, prog->program.decls);
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
