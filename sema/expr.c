/*
 * expr.c - the type of every expression: one switch over node kinds,
 * one function per kind that needs more than a line.
 *
 * Calls and builtin identifiers go to stdlib's table through
 * sema_opts.builtins, and the builtin found is kept on the node
 * (ast_note.builtin) for codegen; args.FIELD is sema/args.c's; $1.. and
 * sizeof are folded into literals here.
 */
#include "sema/sema_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "common/explain.h"
#include "common/settings.h"

/* ---- expressions -------------------------------------------------------- */

/* string literals (and positional parameters as text) hold up to
 * max_strlen bytes, NUL included, as str() values do; at least 64, as
 * bpftrace 0.17 took literals of 63 characters whatever its strlen */
static uint32_t str_literal_max(void)
{
	int64_t n = settings_int(SET_STRLEN);
	return n > STR_MAX ? (uint32_t)n : STR_MAX;
}


/* constant folding for the few places that need a compile-time integer
 * (lhist bounds, unroll counts, print() arguments) */
bool sema_fold_const(struct ast_node *e, int64_t *out)
{
	int64_t a, b;
	if (e->kind == N_INT) {
		*out = (int64_t)e->i.value;
		return true;
	}
	/* 64-bit two's complement arithmetic, as the BPF side's: wraps, never
	 * C's undefined signed overflow */
	if (e->kind == N_UNARY && sema_fold_const(e->un.operand, &a)) {
		if (e->un.op == OP_NEG)
			*out = (int64_t)(0 - (uint64_t)a);
		else if (e->un.op == OP_LNOT)
			*out = !a;
		else if (e->un.op == OP_BNOT)
			*out = ~a;
		else
			return false;
		return true;
	}
	if (e->kind != N_BINARY || !sema_fold_const(e->bin.lhs, &a) || !sema_fold_const(e->bin.rhs, &b))
		return false;
	if (e->bin.op == OP_ADD)
		*out = (int64_t)((uint64_t)a + (uint64_t)b);
	else if (e->bin.op == OP_SUB)
		*out = (int64_t)((uint64_t)a - (uint64_t)b);
	else if (e->bin.op == OP_MUL)
		*out = (int64_t)((uint64_t)a * (uint64_t)b);
	else if (e->bin.op == OP_DIV && b && !(a == INT64_MIN && b == -1))
		*out = a / b;
	else if (e->bin.op == OP_SHL)
		*out = (int64_t)((uint64_t)a << (b & 63));
	/* comparisons and logic too: static_assert(sizeof(x) == 8 && ...) */
	else if (e->bin.op == OP_EQ || e->bin.op == OP_NE)
		*out = (a == b) == (e->bin.op == OP_EQ);
	else if (e->bin.op == OP_LT || e->bin.op == OP_GE)
		*out = (a < b) == (e->bin.op == OP_LT);
	else if (e->bin.op == OP_GT || e->bin.op == OP_LE)
		*out = (a > b) == (e->bin.op == OP_GT);
	else if (e->bin.op == OP_LAND)
		*out = a && b;
	else if (e->bin.op == OP_LOR)
		*out = a || b;
	else
		return false;
	return true;
}

bool sema_const_int(struct sema_ctx *s, struct ast_node *e, int64_t *out)
{
	if (sema_fold_const(e, out))
		return true;
	sema_error(s, e->loc, "expected a constant integer");
	return false;
}

struct type *sema_set(struct ast_node *e, struct type t)
{
	e->type = t;
	return &e->type;
}

struct type *sema_err_type(struct ast_node *e)
{
	return sema_set(e, (struct type){.kind = TY_ERROR});
}

/* "; did you mean ..." for an unknown builtin, when cli gave a suggester */
static const char *builtin_hint(struct sema_ctx *s, const char *name, bool is_call, char *buf,
				size_t len)
{
	buf[0] = '\0';
	return s->opts->suggest ? s->opts->suggest(name, is_call, buf, len) : buf;
}

bool sema_in_user_probe(struct sema_ctx *s)
{
	if (!s->opts->user_probes || !s->probe || !s->probe->nattach)
		return false;
	enum probe_type t = s->probe->attach[0].type;
	return t == PT_UPROBE || t == PT_URETPROBE;
}

/* the agent has the helpers of the builtins marked .user, no others */
static void check_user_builtin(struct sema_ctx *s, const struct builtin *b, struct src_loc loc)
{
	if (sema_in_user_probe(s) && !b->user)
		sema_error(s, loc, "%s%s is not available in user probes (--user-probes runs this probe in "
			   "the traced process): drop --user-probes to run it in the kernel", b->name,
			   b->kind == BI_VAR ? "" : "()");
}

static struct type *check_ident(struct sema_ctx *s, struct ast_node *e);

/* __builtin_pid, __builtin_kstack(...): the newest bpftrace's own names of
 * its builtins (its standard macros expand to them) are the builtins */
static const char *builtin_spelling(struct sema_ctx *s, const char *name)
{
	static const char pfx[] = "__builtin_";
	if (strncmp(name, pfx, sizeof(pfx) - 1))
		return name;
	const char *rest = name + sizeof(pfx) - 1;
	return s->opts->builtins(rest, true) || s->opts->builtins(rest, false) ? rest : name;
}

struct type *sema_check_call(struct sema_ctx *s, struct ast_node *e, bool as_stmt)
{
	e->call.name = builtin_spelling(s, e->call.name);
	const struct builtin *b = s->opts->builtins(e->call.name, true);
	if ((!b || b->min_args) && !e->call.nargs && s->opts->builtins(e->call.name, false)) {
		/* pid(), comm(): the newest bpftrace's call form of a builtin
		 * variable is the variable (pid(init) is a function's) */
		const char *name = e->call.name;
		e->kind = N_IDENT;
		e->ident.name = name;
		return check_ident(s, e);
	}
	if (!b) {
		char hint[256];
		if (e->call.macro_other)
			sema_error(s, e->loc, "macro '%s' takes a different number of arguments than %d",
				   e->call.name, e->call.nargs);
		else
			sema_error(s, e->loc, "unknown function '%s'%s", e->call.name,
				   builtin_hint(s, e->call.name, true, hint, sizeof(hint)));
		for (struct ast_node *a = e->call.args; a; a = a->next)
			sema_expr(s, a);
		return sema_err_type(e);
	}
	e->note.builtin = b;
	check_user_builtin(s, b, e->loc);
	if (e->call.nargs < b->min_args || e->call.nargs > b->max_args) {
		/* "lhist() takes 4 arguments, 1 given: lhist(value, min, max, step)" */
		const char *sep = b->signature ? ": " : "", *sig = b->signature ? b->signature : "";
		if (b->min_args == b->max_args)
			sema_error(s, e->loc, "%s() takes %d argument%s, %d given%s%s", b->name,
				   b->min_args, b->min_args == 1 ? "" : "s", e->call.nargs, sep, sig);
		else
			sema_error(s, e->loc, "%s() takes %d to %d arguments, %d given%s%s", b->name,
				   b->min_args, b->max_args, e->call.nargs, sep, sig);
		return sema_err_type(e);
	}
	if (b->kind == BI_AGG && !s->assign_target) {
		sema_error(s, e->loc, "%s() must be assigned to a map: @name = %s(...)",
			   b->name, b->name);
		return sema_err_type(e);
	}
	if (b->kind == BI_STMT && !as_stmt) {
		sema_error(s, e->loc, "%s() returns no value", b->name);
		return sema_err_type(e);
	}
	if (b->check) {
		b->check(s, e);
		return &e->type;
	}
	for (struct ast_node *a = e->call.args; a; a = a->next)
		sema_expr(s, a);
	return sema_set(e, b->type);
}

/* an enumerator's value: the script's (A in `enum { A = 1 }`), else the
 * kernel's (BPF_MAP_TYPE_HASH).  An int64, as C makes it an int; uint64
 * only for a 64-bit unsigned enum's value past INT64_MAX */
static bool enumerator(struct sema_ctx *s, const char *name, uint64_t *value, bool *is_unsigned,
		       const struct type_enum **ev)
{
	for (struct sema_enumval *v = s->enumvals; v; v = v->next)
		if (!strcmp(v->name, name)) {
			*value = v->value;
			*ev = v->ev;
			return true;
		}
	return sema_btf_enumerator(s, name, value, is_unsigned);
}

static struct type *check_ident(struct sema_ctx *s, struct ast_node *e)
{
	e->ident.name = builtin_spelling(s, e->ident.name);
	const struct builtin *b = s->opts->builtins(e->ident.name, false);
	uint64_t value;
	bool is_unsigned = false;
	const struct type_enum *ev = NULL;
	if (!b && enumerator(s, e->ident.name, &value, &is_unsigned, &ev)) {
		/* a constant: rewrite the node into a literal */
		const char *name = e->ident.name;
		e->kind = N_INT;
		e->i.value = value;
		e->i.is_char = false;
		e->i.is_signed = !is_unsigned;
		if (!ev) {	/* the kernel's: an enum of this one name suffices */
			struct type_enum *one = arena_new_obj(s->a, struct type_enum);
			const char **names = arena_new_array(s->a, const char *, 1);
			uint64_t *vals = arena_new_array(s->a, uint64_t, 1);
			names[0] = name;
			vals[0] = value;
			one->names = names;
			one->values = vals;
			one->n = 1;
			ev = one;
		}
		e->i.enumv = ev;
		struct type t = is_unsigned ? ty_uint64 : ty_int64;
		t.fmt_enum = ev;
		return sema_set(e, t);
	}
	if (!b) {
		/* kstack/ustack/count etc. may be written without () */
		const struct builtin *f = s->opts->builtins(e->ident.name, true);
		if (f && f->min_args == 0) {
			sema_error(s, e->loc, "'%s' is a function: write %s()", e->ident.name,
				   e->ident.name);
			return sema_err_type(e);
		}
		char hint[256];
		sema_error(s, e->loc, "unknown identifier '%s'%s", e->ident.name,
			   builtin_hint(s, e->ident.name, false, hint, sizeof(hint)));
		return sema_err_type(e);
	}
	e->note.builtin = b;
	check_user_builtin(s, b, e->loc);
	if (b->check) {
		b->check(s, e);
		return &e->type;
	}
	return sema_set(e, b->type);
}

/* a pointer whose pointee has its size: a struct named before its
 * definition was complete (`struct node *next` inside node) gets it now */
struct type sema_ptr_complete(struct sema_ctx *s, const struct type *p)
{
	struct type t = *p;
	if (t.kind == TY_PTR && t.elem && t.elem->kind == TY_STRUCT && !t.elem->nfields) {
		struct type *el = arena_new_obj(s->a, struct type);
		*el = *sema_struct_complete(s, t.elem);
		t.elem = el;
	}
	return t;
}

/* do the current probe's addresses point into a user process? */
static bool probe_is_user(struct sema_ctx *s)
{
	enum probe_type t = s->probe && s->probe->nattach ? s->probe->attach[0].type : PT_BEGIN;
	return t == PT_UPROBE || t == PT_URETPROBE || t == PT_USDT;
}

/* The first (learning) pass may read a map before the statement that
 * assigns it: `@x = @x + 1`.  In arithmetic such a map is an unsigned
 * integer, as in bpftrace (`@e = @e - 1` is 2^64 - 1 there), so that the
 * assignment learns a type; the second pass checks the read again with
 * every assignment known. */
static struct type *arith_operand(struct sema_ctx *s, struct ast_node *e, struct type *t)
{
	if (s->quiet && sema_is_error(t) && e->kind == N_MAP && sema_map_of(s, e)->kind == MK_NONE)
		return sema_set(e, ty_uint64);
	return t;
}

static struct type *check_binary(struct sema_ctx *s, struct ast_node *e)
{
	struct type *l = arith_operand(s, e->bin.lhs, sema_expr(s, e->bin.lhs));
	struct type *r = arith_operand(s, e->bin.rhs, sema_expr(s, e->bin.rhs));
	if (sema_is_error(l) || sema_is_error(r))
		return sema_err_type(e);
	enum ast_op op = e->bin.op;
	int64_t divisor;
	/* BPF gives x / 0 == 0 and x % 0 == x at run time: a silent wrong
	 * number, so a divisor known to be zero is refused (as bpftrace) */
	if ((op == OP_DIV || op == OP_MOD) && sema_fold_const(e->bin.rhs, &divisor) && !divisor) {
		sema_error(s, e->bin.rhs->loc, "%s by zero: %s [%s]", op == OP_DIV ? "division" :
			   "modulo", explain_get(EX_DIVZERO)->summary, explain_get(EX_DIVZERO)->code);
		return sema_err_type(e);
	}
	if (l->kind == TY_ARRAY || r->kind == TY_ARRAY) {
		if ((op == OP_EQ || op == OP_NE) && l->kind == TY_ARRAY && r->kind == TY_ARRAY &&
		    l->size == r->size && l->count == r->count)
			return sema_set(e, ty_int64);
		sema_error(s, e->loc, "operator '%s' cannot take %s and %s", ast_op_text(op),
			   type_str(s->a, l), type_str(s->a, r));
		return sema_err_type(e);
	}
	if (l->kind == TY_TUPLE || r->kind == TY_TUPLE) {
		if ((op == OP_EQ || op == OP_NE) && sema_tuple_comparable(l, r))
			return sema_set(e, ty_bool);
		sema_error(s, e->loc, "operator '%s' cannot take %s and %s%s", ast_op_text(op),
			   type_str(s->a, l), type_str(s->a, r),
			   op == OP_EQ || op == OP_NE ? " (tuples compare with tuples of as many "
			   "elements, each of a like type)" : "");
		return sema_err_type(e);
	}
	int64_t k;
	if (op == OP_ADD && e->bin.lhs->kind == N_STR && sema_fold_const(e->bin.rhs, &k) && k >= 0 &&
	    (uint64_t)k <= e->bin.lhs->s.len) {
		/* "hello" + 1 (str($1 + 1) with $1 "hello"): the literal from
		 * that byte on, as pointer arithmetic on it is in bpftrace */
		struct ast_node *lit = e->bin.lhs;
		e->kind = N_STR;
		e->s.value = lit->s.value + k;
		e->s.len = lit->s.len - (uint32_t)k;
		return sema_set(e, ty_str(e->s.len + 1));
	}
	if (l->kind == TY_STR || r->kind == TY_STR || l->kind == TY_BUF || r->kind == TY_BUF) {
		/* buffers compare as their length and bytes, as in bpftrace */
		if ((op == OP_EQ || op == OP_NE) && l->kind == r->kind)
			return sema_set(e, ty_int64);
		sema_error(s, e->loc, "operator '%s' cannot take %s and %s", ast_op_text(op),
			   type_str(s->a, l), type_str(s->a, r));
		return sema_err_type(e);
	}
	if ((op == OP_EQ || op == OP_NE) && l->kind == TY_USERNAME && r->kind == TY_USERNAME)
		/* username is a uid printed as its name: two are the same
		 * name when they are the same uid (__builtin_username == username) */
		return sema_set(e, ty_int64);
	if ((op == OP_EQ || op == OP_NE) && l->kind == TY_PROBE && r->kind == TY_PROBE &&
	    e->bin.lhs->kind == N_IDENT && e->bin.rhs->kind == N_IDENT &&
	    !strcmp(e->bin.lhs->ident.name, e->bin.rhs->ident.name))
		/* func and probe are an index printed as a name: two of the
		 * same builtin name the same function (probe) when they are
		 * the same index (__builtin_func == func(), as the newest
		 * bpftrace's macro tests write) */
		return sema_set(e, ty_int64);
	if (!sema_is_int(l) || !sema_is_int(r)) {
		sema_error(s, e->loc, "operator '%s' needs integers, not %s and %s", ast_op_text(op),
			   type_str(s->a, l), type_str(s->a, r));
		return sema_err_type(e);
	}
	if (op == OP_EQ || op == OP_NE || op == OP_LT || op == OP_LE || op == OP_GT ||
	    op == OP_GE || op == OP_LAND || op == OP_LOR)
		/* a bool operand (syntax 0.17 lacks) makes it a bool, as in
		 * the newest bpftrace: true && false prints false; 0.17's
		 * integers keep 0.17's 0 and 1 */
		return sema_set(e, l->is_bool || r->is_bool ? ty_bool : ty_int64);
	/* pointer arithmetic counts elements: p + 1 is the next element */
	if ((op == OP_ADD || op == OP_SUB) && (l->kind == TY_PTR || r->kind == TY_PTR)) {
		if (l->kind == TY_PTR && r->kind == TY_PTR && op == OP_SUB)
			return sema_set(e, ty_int64);	/* elements between them */
		if (l->kind != TY_PTR && op == OP_SUB) {
			sema_error(s, e->loc, "cannot subtract a pointer from an integer");
			return sema_err_type(e);
		}
		if (l->kind == TY_PTR && r->kind == TY_PTR) {
			sema_error(s, e->loc, "cannot add two pointers");
			return sema_err_type(e);
		}
		return sema_set(e, sema_ptr_complete(s, l->kind == TY_PTR ? l : r));
	}
	/* C's usual arithmetic conversions; values are 64-bit either way */
	bool sgn = type_arith_signed(l, r);
	if (op == OP_SHL || op == OP_SHR)
		sgn = type_arith_signed(l, l);
	return sema_set(e, sgn ? ty_int64 : ty_uint64);
}

static struct type *check_field(struct sema_ctx *s, struct ast_node *e)
{
	struct ast_node *b = e->field.base;
	if (b->kind == N_IDENT && !strcmp(b->ident.name, "args")) {
		if (s->probe->nattach && s->probe->attach[0].type == PT_TRACEPOINT) {
			sema_set(b, (struct type){.kind = TY_PTR, .size = 8});
			return sema_check_args_field(s, e);
		}
		if (s->probe->nattach && (sema_provider(s->probe->attach[0].type)->ctx & PC_KARGS)) {
			sema_set(b, (struct type){.kind = TY_PTR, .size = 8});
			return sema_check_kargs_field(s, e);
		}
		if (s->probe->nattach && (s->probe->attach[0].type == PT_UPROBE ||
					  s->probe->attach[0].type == PT_URETPROBE)) {
			sema_set(b, (struct type){.kind = TY_PTR, .size = 8});
			if (!sema_uprobe_args(s, arena_printf(s->a, "args.%s", e->field.name), e->loc))
				return sema_err_type(e);
			return sema_check_kargs_field(s, e);
		}
	}
	struct type *bt = sema_expr(s, b);
	if (sema_is_error(bt))
		return sema_err_type(e);
	const struct type *st = bt;
	/* `.` on a pointer to a struct dereferences it, as `->` does: the
	 * newest bpftrace's tools write `$sk.__sk_common.skc_family` and
	 * `curtask.pid` */
	if (!e->field.is_arrow && bt->kind == TY_PTR && bt->elem && bt->elem->kind == TY_STRUCT)
		e->field.is_arrow = true;
	/* and `->` on a struct value reads its field, as `.` does (the newest
	 * bpftrace: `@s = *curtask; @s->pid`) */
	if (e->field.is_arrow && bt->kind == TY_STRUCT)
		e->field.is_arrow = false;
	if (e->field.is_arrow) {
		if (bt->kind != TY_PTR || !bt->elem || bt->elem->kind != TY_STRUCT) {
			sema_error(s, e->loc, "'->' needs a pointer to a struct, not %s",
				   type_str(s->a, bt));
			return sema_err_type(e);
		}
		st = bt->elem;
	} else if (type_is_record(bt)) {
		/* a record's field, by name */
		const struct type_field *rf = type_record_field(bt, e->field.name);
		if (rf)
			return sema_set(e, rf->type);
		sema_error(s, e->loc, "record %s has no field '%s'", type_str(s->a, bt),
			   e->field.name);
		return sema_err_type(e);
	} else if (bt->kind == TY_TUPLE) {
		/* $t.0 is written as a field whose name is a number */
		char *end;
		long idx = strtol(e->field.name, &end, 10);
		if (*end || idx < 0 || idx >= bt->nfields) {
			sema_error(s, e->loc, "tuple index '%s' out of range", e->field.name);
			return sema_err_type(e);
		}
		return sema_set(e, bt->fields[idx].type);
	} else if (bt->kind != TY_STRUCT) {
		sema_error(s, e->loc, "'.' needs a struct, not %s", type_str(s->a, bt));
		return sema_err_type(e);
	}
	/* a struct known by name only (a `struct S *` field inside struct S,
	 * a kernel struct reached through a member): its fields now; codegen
	 * reads the field from note.record */
	st = sema_struct_complete(s, st);
	e->note.record = st;
	if (!st->nfields && !st->btf_id && !st->dwarf) {
		sema_error(s, e->loc, "struct %s is unknown: neither the script nor the kernel's "
			   "BTF defines it", st->sname ? st->sname : "?");
		return sema_err_type(e);
	}
	for (int i = 0; i < st->nfields; i++) {
		if (!strcmp(st->fields[i].name, e->field.name)) {
			struct type ft = st->fields[i].type;
			/* char x[N] is a string; int8_t and uint8_t ones stay arrays */
			if (ft.kind == TY_ARRAY && ft.elem && ft.elem->kind == TY_INT && ft.elem->is_char)
				ft = ty_str(ft.count);
			/* what user memory holds points into user memory too */
			ft.is_user = bt->is_user;
			return sema_set(e, ft);
		}
	}
	sema_error(s, e->loc, "struct %s has no field '%s'", st->sname ? st->sname : "?",
		   e->field.name);
	return sema_err_type(e);
}

static struct type *check_var(struct sema_ctx *s, struct ast_node *e)
{
	struct sema_var *v = sema_var_find(s, e->var.name);
	if (!v) {
		sema_error(s, e->loc, "variable '$%s' is used before it is assigned",
			   sema_var_shown(s, e->var.name));
		return sema_err_type(e);
	}
	return sema_set(e, v->type);
}

/* $1 ... are compile-time constants: rewrite the node in place into
 * an integer or (non-numeric, or as_text) string literal; $# is the count */
static struct type *positional(struct sema_ctx *s, struct ast_node *e, bool as_text)
{
	const char *v = NULL;
	if (e->pos.index > 0 && e->pos.index <= s->opts->npos_args)
		v = s->opts->pos_args[e->pos.index - 1];
	char *end = NULL;
	errno = 0;
	long long x = v && *v ? strtoll(v, &end, 0) : 0;
	if (errno == ERANGE && v[0] != '-') {	/* 0xffffffffffffffff: all 64 bits */
		errno = 0;
		x = (long long)strtoull(v, &end, 0);
	}
	if (e->pos.index > 0 && !as_text && v && *v && !*end && errno == ERANGE) {
		/* 18446744073709551616 is no number of 64 bits (bpftrace 0.17
		 * refuses it too); it must not quietly become -1 */
		sema_error(s, e->loc, "$%d used numerically but given \"%s\", which does not "
			   "fit in 64 bits; str($%d) is the text", e->pos.index, v, e->pos.index);
		return sema_err_type(e);
	}
	if (e->pos.index == 0 || (!as_text && (!v || !*v || !*end))) {
		e->kind = N_INT;
		e->i.value = (uint64_t)(e->pos.index == 0 ? s->opts->npos_args : x);
		e->i.is_char = false;
		e->i.is_signed = true;
		return sema_set(e, ty_int64);
	}
	if (!v)
		v = "";		/* str($3) with two parameters: "" */
	uint32_t n = (uint32_t)strlen(v), max = str_literal_max();
	if (n >= max)
		n = max - 1;
	e->kind = N_STR;
	e->s.value = arena_strndup(s->a, v, n);
	e->s.len = n;
	return sema_set(e, ty_str(n + 1));
}

struct type *sema_positional_text(struct sema_ctx *s, struct ast_node *e)
{
	return positional(s, e, true);
}

/* does e name an object in traced memory (p->f, p[i], *p, a member of
 * one), whose address `&e` is?  As codegen's cg_in_memory, on types */
static bool addressable(const struct ast_node *e)
{
	switch (e->kind) {
	case N_FIELD:
		if (e->field.base->kind == N_IDENT && !strcmp(e->field.base->ident.name, "args"))
			return false;
		if (e->field.is_arrow)
			return e->field.base->type.kind == TY_PTR;
		return e->field.base->type.kind == TY_STRUCT && addressable(e->field.base);
	case N_INDEX:
		return e->index.base->type.kind == TY_PTR ||
		       (e->index.base->type.kind == TY_ARRAY && addressable(e->index.base));
	case N_UNARY:
		return e->un.op == OP_DEREF && e->un.operand->type.kind == TY_PTR;
	case N_INT: case N_STR: case N_IDENT: case N_VAR: case N_MAP: case N_POSITIONAL:
	case N_CALL: case N_BINARY: case N_INCDEC: case N_TERNARY: case N_CAST: case N_SIZEOF:
	case N_TUPLE: case N_EXPR_STMT: case N_ASSIGN: case N_IF: case N_WHILE: case N_UNROLL:
	case N_RETURN: case N_BREAK: case N_CONTINUE: case N_BLOCK: case N_PROBE:
	case N_STRUCT_DEF: case N_PROGRAM: case N_MACRO: case N_FOR:
		break;
	}
	return false;
}

static struct type *check_unary(struct sema_ctx *s, struct ast_node *e)
{
	struct type *t = sema_expr(s, e->un.operand);
	if (e->un.op != OP_DEREF)
		t = arith_operand(s, e->un.operand, t);
	if (sema_is_error(t))
		return sema_err_type(e);
	if (e->un.op == OP_DEREF) {
		if (t->kind != TY_PTR && t->kind != TY_INT) {
			sema_error(s, e->loc, "cannot dereference %s", type_str(s->a, t));
			return sema_err_type(e);
		}
		if (t->kind == TY_PTR && t->elem) {
			*t = sema_ptr_complete(s, t);
			struct type el = *t->elem;
			el.is_user = t->is_user;
			return sema_set(e, el);
		}
		return sema_set(e, ty_int64);
	}
	if (e->un.op == OP_ADDR) {
		/* &p->f, &p[i]: the address, a pointer to what is there */
		if (settings_int(SET_UNSTABLE_ADDR) == SET_UNSTABLE_ERROR) {
			sema_error(s, e->loc, "'&' is an unstable feature and the config sets "
				   "unstable_addr = error");
			return sema_err_type(e);
		}
		if (e->un.operand->kind == N_VAR) {
			/* &$v: where the variable lives (BPF stack or the
			 * per-CPU scratch), read back through the pointer as
			 * kernel memory, as in the newest bpftrace */
			struct type *el = arena_new_obj(s->a, struct type);
			*el = *t;
			el->is_user = false;
			if (sema_is_int_storage(el) || el->kind == TY_INT)
				el->size = 8;	/* an integer's slot is 8 bytes */
			return sema_set(e, (struct type){.kind = TY_PTR, .size = 8, .elem = el});
		}
		if (!addressable(e->un.operand)) {
			sema_error(s, e->loc, "'&' takes a variable or an object in traced memory ($v, "
				   "&p->f, &p[i], &*p), not %s", type_str(s->a, t));
			return sema_err_type(e);
		}
		struct type *el = arena_new_obj(s->a, struct type);
		*el = *t;
		return sema_set(e, (struct type){.kind = TY_PTR, .size = 8, .elem = el,
						 .is_user = t->is_user});
	}
	if (!sema_is_int(t)) {
		sema_error(s, e->loc, "operator '%s' needs an integer, not %s",
			   ast_op_text(e->un.op), type_str(s->a, t));
		return sema_err_type(e);
	}
	if (e->un.op == OP_LNOT)
		return sema_set(e, t->is_bool ? ty_bool : ty_int64);
	return sema_set(e, t->kind == TY_INT ? *t : ty_uint64);
}

static struct type *check_incdec(struct sema_ctx *s, struct ast_node *e)
{
	struct ast_node *t = e->incdec.target;
	if (t->kind == N_VAR) {
		struct sema_var *v = sema_var_find(s, t->var.name);
		if (!v) {
			sema_error(s, t->loc, "variable '$%s' is used before it is assigned",
				   sema_var_shown(s, t->var.name));
			return sema_err_type(e);
		}
		if (sema_is_error(&v->type))
			return sema_err_type(e);
		if (!sema_is_int(&v->type)) {
			sema_error(s, e->loc, "'%s' needs an integer variable", e->incdec.is_inc ? "++" : "--");
			return sema_err_type(e);
		}
		t->type = v->type;
		/* a variable declared narrower wraps: let $x: int8 = 127; $x++ is -128 */
		e->note.narrow = v->declared && v->type.csize && v->type.csize < 8;
		return sema_set(e, v->type);
	}
	if (t->kind == N_MAP) {
		sema_map_keys(s, t);
		sema_map_store_value(s, t, &ty_int64, e->loc);
		struct sema_map *m = sema_map_of(s, t);
		/* a pointer steps by its element, as bpftrace's @p++ */
		if (m->kind == MK_VALUE && !sema_is_int(&m->value) && !sema_is_error(&m->value)) {
			sema_error(s, e->loc, "map '%s' holds %s: '++'/'--' need an integer", m->name,
				   type_str(s->a, &m->value));
			return sema_err_type(e);
		}
		t->type = m->kind == MK_VALUE && sema_is_int(&m->value) ? m->value : ty_int64;
		return sema_set(e, t->type);
	}
	sema_error(s, e->loc, "'++'/'--' apply to $variables and @maps only");
	return sema_err_type(e);
}

/* c ? a : b.  As a statement its branches may be calls that return
 * nothing (`nsecs ? printf("a") : printf("b");`); the whole is then void. */
static struct type *check_ternary(struct sema_ctx *s, struct ast_node *e, bool as_stmt)
{
	struct type *c = sema_expr(s, e->tern.cond);
	/* a ?: b (no then): a's value is the then */
	struct type *a = !e->tern.then ? c : as_stmt ? sema_check_expr_stmt(s, e->tern.then)
				   : sema_expr(s, e->tern.then);
	struct type *b = as_stmt ? sema_check_expr_stmt(s, e->tern.els) : sema_expr(s, e->tern.els);
	if (sema_is_error(c) || sema_is_error(a) || sema_is_error(b))
		return sema_err_type(e);
	if (!sema_is_int(c)) {
		sema_error(s, e->tern.cond->loc, "condition must be an integer, not %s",
			   type_str(s->a, c));
		return sema_err_type(e);
	}
	if (a->kind == TY_VOID && b->kind == TY_VOID)
		return sema_set(e, ty_void);
	struct type r = sema_deep_copy(s->a, a);
	if (!sema_compatible(&r, b, true)) {
		sema_error(s, e->loc, "'?:' branches differ: %s and %s", type_str(s->a, a),
			   type_str(s->a, b));
		return sema_err_type(e);
	}
	if (r.kind == TY_INT && (!a->is_signed || !b->is_signed))
		r.is_signed = false;
	return sema_set(e, r);
}

/* { stmts; value }: the value's type, or void; as a statement the value
 * may be a call with none (a macro's body, { printf("hi") }) */
static struct type *check_block_expr(struct sema_ctx *s, struct ast_node *e, bool as_stmt)
{
	sema_check_stmts(s, e);
	if (!e->block.value)
		return sema_set(e, (struct type){.kind = TY_VOID});
	struct type *t = as_stmt ? sema_check_expr_stmt(s, e->block.value) : sema_expr(s, e->block.value);
	return sema_set(e, *t);
}

struct type *sema_check_expr_stmt(struct sema_ctx *s, struct ast_node *e)
{
	if (e->kind == N_CALL)
		return sema_check_call(s, e, true);
	if (e->kind == N_TERNARY)
		return check_ternary(s, e, true);
	if (e->kind == N_BLOCK)
		return check_block_expr(s, e, true);
	return sema_expr(s, e);
}

static struct type *check_field(struct sema_ctx *s, struct ast_node *e);

static struct type *check_index(struct sema_ctx *s, struct ast_node *e)
{
	struct type *b = sema_expr(s, e->index.base);
	struct type *i = sema_expr(s, e->index.index);
	if (sema_is_error(b) || sema_is_error(i))
		return sema_err_type(e);
	if (!sema_is_int(i)) {
		sema_error(s, e->index.index->loc, "index must be an integer");
		return sema_err_type(e);
	}
	int64_t k;
	bool is_const = sema_fold_const(e->index.index, &k);
	if (b->kind == TY_TUPLE) {
		/* $t[1] is $t.1: the index must be a constant */
		if (!is_const) {
			sema_error(s, e->index.index->loc, "a tuple's index must be a constant");
			return sema_err_type(e);
		}
		struct ast_node *base = e->index.base;
		e->kind = N_FIELD;
		e->field.base = base;
		e->field.name = arena_printf(s->a, "%" PRId64, k);
		e->field.is_arrow = false;
		return check_field(s, e);
	}
	/* an array of length 0 (int y[0]) is a trailing one of any length */
	if (b->kind == TY_ARRAY && is_const && (k < 0 || ((uint64_t)k >= b->count && b->count))) {
		sema_error(s, e->index.index->loc, "index %" PRId64 " is out of bounds for %s",
			   k, type_str(s->a, b));
		return sema_err_type(e);
	}
	if (b->kind == TY_PTR)
		*b = sema_ptr_complete(s, b);
	if (b->kind == TY_ARRAY || (b->kind == TY_PTR && b->elem)) {
		struct type el = *b->elem;
		el.is_user = b->is_user;
		return sema_set(e, el);
	}
	if (b->kind == TY_STR)
		return sema_set(e, ty_int64);
	sema_error(s, e->loc, "cannot index %s", type_str(s->a, b));
	return sema_err_type(e);
}

/* (int8[8])x, (uint8[])x: an integer's bytes (or an integer array's, or a
 * string's: (int8[])"hello" is int8[6], its NUL too) as an array of
 * integers of the same size in all, as the newest bpftrace */
static struct type *check_array_cast(struct sema_ctx *s, struct ast_node *e, const struct type *t)
{
	struct ast_ctype ct = e->cast.ctype;
	ct.ndims = 0;
	ct.dims[0] = 0;
	struct type el;
	if (!sema_ctype(s, &ct, e->loc, &el))
		return sema_err_type(e);
	/* (bool[2])x: each byte a bool, printed as its word */
	if (!ct.is_struct && !ct.is_enum && !ct.ptr_depth && !strcmp(ct.name, "bool"))
		el.is_bool = true;
	bool bytes = (t->kind == TY_ARRAY && t->elem && t->elem->kind == TY_INT) ||
		     t->kind == TY_STR;
	if (el.kind != TY_INT || !el.size || (!sema_is_int(t) && !bytes)) {
		sema_error(s, e->loc, "an array cast turns an integer, an integer array or a string "
			   "into an integer array, not %s into %s[]", type_str(s->a, t),
			   type_str(s->a, &el));
		return sema_err_type(e);
	}
	uint32_t size = bytes ? t->size : t->size ? t->size : 8;
	uint32_t want = (uint32_t)e->cast.ctype.dims[0] * el.size;
	const struct ast_node *lit = e->cast.operand;
	bool neg = lit->kind == N_UNARY && lit->un.op == OP_NEG && lit->un.operand->kind == N_INT;
	if ((lit->kind == N_INT || neg) && want && want < size) {
		/* a literal is as wide as the array when its value fits, as
		 * the newest bpftrace sizes literals: (uint16[2])0x50001,
		 * (int16[2])-2 */
		uint64_t v = neg ? -lit->un.operand->i.value : lit->i.value;
		uint64_t top = ~0ull << (want * 8);
		if ((!neg && !(v & top)) || (neg && (v & top) == top && ((v >> (want * 8 - 1)) & 1)))
			size = want;
	}
	uint32_t n = e->cast.ctype.dims[0] ? (uint32_t)e->cast.ctype.dims[0] : size / el.size;
	if (!n || n * el.size != size) {
		sema_error(s, e->loc, "cannot cast %s (%u bytes) to %s[%u] (%u bytes): an array cast "
			   "keeps the size", type_str(s->a, t), size, type_str(s->a, &el),
			   n ? n : 1, (n ? n : 1) * el.size);
		return sema_err_type(e);
	}
	struct type *elem = arena_new_obj(s->a, struct type);
	*elem = el;
	return sema_set(e, (struct type){.kind = TY_ARRAY, .elem = elem, .count = n, .size = size});
}

/* (string[N])x: a string as a string of N bytes, cut (still ending in
 * NUL) or padded with NULs, or the bytes of an array of 1-byte integers
 * (a char[] field) as a string, as the newest bpftrace */
static struct type *check_string_cast(struct sema_ctx *s, struct ast_node *e, const struct type *t)
{
	uint32_t n = (uint32_t)e->cast.ctype.dims[0];
	bool bytes = t->kind == TY_ARRAY && t->elem && t->elem->kind == TY_INT && t->elem->size == 1;
	if (!n) {
		sema_error(s, e->loc, "a string cast needs a length of at least 1: (string[64])x");
		return sema_err_type(e);
	}
	if (t->kind != TY_STR && !bytes) {
		sema_error(s, e->loc, "cannot cast %s to string[%u]: a string cast takes a string or "
			   "an array of 1-byte integers", type_str(s->a, t), n);
		return sema_err_type(e);
	}
	return sema_set(e, ty_str(n));
}

static bool is_string_cast(const struct ast_ctype *ct)
{
	return ct->ndims == 1 && ct->name && !ct->is_struct && !ct->is_union && !ct->is_enum &&
	       !ct->ptr_depth && !strcmp(ct->name, "string");
}

static struct type *check_cast(struct sema_ctx *s, struct ast_node *e)
{
	struct type *t = sema_expr(s, e->cast.operand);
	if (sema_is_error(t))
		return sema_err_type(e);
	struct type to;
	const struct ast_ctype *ct = &e->cast.ctype;
	if (is_string_cast(ct))
		return check_string_cast(s, e, t);
	if (ct->ndims == 1)
		return check_array_cast(s, e, t);
	if (!ct->is_struct && !ct->is_enum && !ct->ptr_depth && !strcmp(ct->name, "bool")) {
		/* (bool)x: true unless zero; a string is true unless empty */
		if (!sema_is_int(t) && !sema_is_int_storage(t) && t->kind != TY_STR) {
			sema_error(s, e->loc, "cannot cast %s to bool", type_str(s->a, t));
			return sema_err_type(e);
		}
		return sema_set(e, ty_bool);
	}
	if (!sema_ctype(s, ct, e->loc, &to))
		return sema_err_type(e);
	if (t->kind == TY_ARRAY && t->elem && t->elem->kind == TY_INT && to.kind == TY_INT &&
	    !ct->ptr_depth) {
		/* (uint64)$bytes: the array's bytes as one integer */
		if (to.size != t->size) {
			sema_error(s, e->loc, "cannot cast %s (%u bytes) to %s (%u bytes): the array and "
				   "the integer must have the same size", type_str(s->a, t), t->size,
				   type_str(s->a, &to), to.size);
			return sema_err_type(e);
		}
		return sema_set(e, to);
	}
	if (!sema_is_int(t) && !sema_is_int_storage(t)) {
		sema_error(s, e->loc, "cannot cast %s to %s", type_str(s->a, t), type_str(s->a, &to));
		return sema_err_type(e);
	}
	if (to.kind != TY_INT && to.kind != TY_PTR) {
		sema_error(s, e->loc, "cannot cast to %s", type_str(s->a, &to));
		return sema_err_type(e);
	}
	/* a cast keeps the address space; an integer made a pointer in a
	 * uprobe points into the traced process */
	if (to.kind == TY_PTR)
		to.is_user = t->is_user || probe_is_user(s);
	return sema_set(e, to);
}

/* sizeof a tuple as C lays out a struct of its elements: each at its own
 * alignment, ((int8)1, (int16)1, (int32)1) is 8, whether the tuple is
 * written out or held in a variable or map (whose integers sit in 8-byte
 * slots but keep their C size in csize) */
static uint32_t c_size(struct sema_ctx *s, const struct type *t, uint32_t *align)
{
	if (t->kind == TY_TUPLE) {
		uint32_t off = 0, align_max = 1;
		for (int i = 0; i < t->nfields; i++) {
			uint32_t al;
			uint32_t sz = c_size(s, &t->fields[i].type, &al);
			off = (off + al - 1) / al * al + sz;
			align_max = al > align_max ? al : align_max;
		}
		*align = align_max;
		return (off + align_max - 1) / align_max * align_max;
	}
	if (sema_is_int_storage(t)) {
		uint32_t sz = t->csize ? t->csize : t->size ? t->size : 8;
		*align = sz >= 8 ? 8 : sz;
		return sz;
	}
	*align = sema_type_align(s, t);
	return t->size;
}

/* a compile-time constant: rewrite into an integer literal */
static struct type *check_sizeof(struct sema_ctx *s, struct ast_node *e)
{
	struct type t;
	if (e->size_of.expr) {
		t = *sema_expr(s, e->size_of.expr);
		if (sema_is_error(&t))
			return sema_err_type(e);
		uint32_t al;
		/* an integer variable has its C size, as in bpftrace; a map's
		 * value is 8 bytes */
		if (t.kind == TY_TUPLE)
			t.size = c_size(s, &t, &al);
		else if (t.kind == TY_INT && t.csize && e->size_of.expr->kind != N_MAP)
			t.size = t.csize;
		else if (sema_is_int_storage(&t) && (t.kind != TY_INT || !t.size || e->size_of.expr->kind == N_MAP))
			t.size = 8;
	} else if (!sema_ctype(s, &e->size_of.ctype, e->loc, &t)) {
		return sema_err_type(e);
	} else if (e->size_of.field) {
		/* offsetof(struct S, a.b): the member's byte offset */
		uint64_t off = 0;
		char path[256];
		snprintf(path, sizeof(path), "%s", e->size_of.field);
		for (char *save = NULL, *name = strtok_r(path, ".", &save); name;
		     name = strtok_r(NULL, ".", &save)) {
			const struct type *st = t.kind == TY_STRUCT ? sema_struct_complete(s, &t) : NULL;
			const struct type_field *f = NULL;
			for (int i = 0; st && i < st->nfields && !f; i++)
				if (!strcmp(st->fields[i].name, name))
					f = &st->fields[i];
			if (!f) {
				sema_error(s, e->loc, "offsetof(): %s has no member '%s'", type_str(s->a, &t), name);
				return sema_err_type(e);
			}
			off += f->offset;
			t = f->type;
		}
		t.size = (uint32_t)off;
	}
	e->kind = N_INT;
	e->i.value = t.size;
	e->i.is_char = false;
	e->i.is_signed = false;
	return sema_set(e, ty_uint64);
}

static struct type *check_tuple(struct sema_ctx *s, struct ast_node *e)
{
	struct type t = {.kind = TY_TUPLE, .nfields = e->tuple.nelems};
	t.fields = arena_new_array(s->a, struct type_field, t.nfields);
	int i = 0;
	for (struct ast_node *x = e->tuple.elems; x; x = x->next) {
		t.fields[i].type = sema_deep_copy(s->a, sema_expr(s, x));
		if (sema_is_error(&t.fields[i].type))
			return sema_err_type(e);
		if (t.fields[i].type.kind == TY_VOID) {
			sema_error(s, x->loc, "a tuple cannot hold %s", type_str(s->a, &t.fields[i].type));
			return sema_err_type(e);
		}
		if (e->tuple.names)	/* a record */
			t.fields[i].name = e->tuple.names[i];
		i++;
	}
	sema_layout(&t);
	return sema_set(e, t);
}

struct type *sema_expr(struct sema_ctx *s, struct ast_node *e)
{
	switch (e->kind) {
	case N_INT:
		if (e->type.is_bool)	/* a builtin folded into true or false */
			return &e->type;
		return sema_set(e, e->i.value > INT64_MAX && !e->i.is_signed ? ty_uint64 : ty_int64);
	case N_STR:
		if (e->s.len + 1 > str_literal_max()) {
			sema_error(s, e->loc, "string literal is longer than %u bytes (max_strlen - 1)",
				   str_literal_max() - 1);
			return sema_err_type(e);
		}
		return sema_set(e, ty_str(e->s.len + 1));
	case N_IDENT:
		return check_ident(s, e);
	case N_VAR:
		return check_var(s, e);
	case N_MAP:
		sema_map_keys(s, e);
		return sema_set(e, sema_map_read_type(s, e));
	case N_POSITIONAL:
		return positional(s, e, false);
	case N_CALL:
		return sema_check_call(s, e, false);
	case N_BINARY:
		return check_binary(s, e);
	case N_UNARY:
		return check_unary(s, e);
	case N_INCDEC:
		return check_incdec(s, e);
	case N_TERNARY:
		return check_ternary(s, e, false);
	case N_FIELD:
		return check_field(s, e);
	case N_INDEX:
		return check_index(s, e);
	case N_CAST:
		return check_cast(s, e);
	case N_SIZEOF:
		return check_sizeof(s, e);
	case N_TUPLE:
		return check_tuple(s, e);
	case N_BLOCK:
		return check_block_expr(s, e, false);
	case N_EXPR_STMT: case N_ASSIGN: case N_IF: case N_WHILE: case N_UNROLL: case N_FOR:
	case N_RETURN: case N_BREAK: case N_CONTINUE: case N_PROBE: case N_MACRO:
	case N_STRUCT_DEF: case N_PROGRAM:
		break;
	}
	sema_error(s, e->loc, "expected an expression");
	return sema_err_type(e);
}

