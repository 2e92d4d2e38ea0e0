/*
 * output.c - builtins that talk to userspace: printf, errorf, warnf, print,
 * exit, clear, zero, delete, time, cat, system, signal.
 *
 * Everything that prints goes through the ring buffer as an event (see
 * sema.h, enum event_kind); runtime/events.c formats it.  Never
 * bpf_trace_printk.
 */
#include <string.h>

#include "codegen/codegen.h"
#include "stdlib/stdlib.h"

static bool need_map(struct sema_ctx *s, struct ast_node *n, struct ast_node *a)
{
	if (a->kind != N_MAP || a->map.nkeys) {
		sema_error(s, a->loc, "%s() needs a map name without keys, like @m", n->call.name);
		n->type.kind = TY_ERROR;
		return false;
	}
	return true;
}

/* printf("fmt", args...), cat, system: the format must be a literal */
static void check_fmt_event(struct sema_ctx *s, struct ast_node *n, enum event_kind k)
{
	struct ast_node *f = n->call.args;
	for (struct ast_node *a = f->next; a; a = a->next) {
		sema_expr(s, a);
		/* printf("%s", CUSTOM_ENUM): the enumerator's name, as the
		 * newest bpftrace (0.17 refuses %s of an integer); %d its value */
		if (a->kind == N_INT && a->i.enumv && a->type.kind == TY_INT)
			a->type.enumv = a->i.enumv;
		/* and so does a variable or map holding one ($one = ONE) */
		else if (a->type.kind == TY_INT && !a->type.enumv && a->type.fmt_enum)
			a->type.enumv = a->type.fmt_enum;
	}
	if (f->kind != N_STR) {
		sema_error(s, f->loc, "%s() needs a string literal as its format", n->call.name);
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = ty_void;
	n->note.event = sema_add_event(s, k, n, f->s.value, f->next);
}

static void check_printf(struct sema_ctx *s, struct ast_node *n) { check_fmt_event(s, n, EV_PRINTF); }
static void check_cat(struct sema_ctx *s, struct ast_node *n) { check_fmt_event(s, n, EV_CAT); }
static void check_errorf(struct sema_ctx *s, struct ast_node *n) { check_fmt_event(s, n, EV_ERRORF); }
static void check_warnf(struct sema_ctx *s, struct ast_node *n) { check_fmt_event(s, n, EV_WARNF); }

static void check_system(struct sema_ctx *s, struct ast_node *n)
{
	if (!sema_options(s)->unsafe)
		sema_error(s, n->loc, "system() runs commands: allow it with --unsafe");
	check_fmt_event(s, n, EV_SYSTEM);
}

static LLVMValueRef lower_fmt_event(struct cg_ctx *cg, struct ast_node *n)
{
	cg_event_emit(cg, n->note.event, n->call.args->next);
	return NULL;
}

/* exit([status]) */
static void check_exit(struct sema_ctx *s, struct ast_node *n)
{
	n->type = ty_void;
	sema_script_stops(s);
	struct ast_node *a = n->call.args;
	if (!a)
		return;
	struct type *t = sema_expr(s, a);
	if (t->kind != TY_INT && t->kind != TY_ERROR)
		sema_error(s, a->loc, "exit() takes an exit status (an integer), not %s",
			   type_str(sema_arena(s), t));
}

static LLVMValueRef lower_exit(struct cg_ctx *cg, struct ast_node *n)
{
	cg_stop_request(cg, n->call.args ? cg_expr(cg, n->call.args) : NULL);
	/* exit() ends the probe too: `@++; exit(); @++` counts once */
	cg_return(cg);
	return NULL;
}

/* print(@m), print(@m, top), print(@m, top, div), print(value) */
static void check_print(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	n->type = ty_void;
	if (a->kind == N_MAP && !a->map.nkeys) {
		struct sema_map *m = sema_map_of(s, a);
		(void)m;
		for (struct ast_node *x = a->next; x; x = x->next) {
			int64_t v;
			sema_expr(s, x);
			if (sema_const_int(s, x, &v) && v < 0)
				sema_error(s, x->loc, "print() top and div must not be negative");
		}
		return;
	}
	if (a->next) {
		sema_error(s, a->next->loc, "print() of a value takes one argument");
		return;
	}
	sema_expr(s, a);
	n->note.event = sema_add_event(s, EV_PRINT_VAL, n, NULL, a);
}

static LLVMValueRef lower_print(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	if (n->note.event) {
		cg_event_emit(cg, n->note.event, a);
		return NULL;
	}
	/* top, div, and enum print_then (sema/printclear.c) */
	uint64_t w[3] = {0, 0, n->note.value};
	int i = 0;
	for (struct ast_node *x = a->next; x && i < 2; x = x->next)
		w[i++] = x->i.value;
	cg_event_raw(cg, EV_PRINT_MAP, (uint32_t)cg_map_of(cg, a)->id, w, 3);
	return NULL;
}

static void check_map_op(struct sema_ctx *s, struct ast_node *n)
{
	n->type = ty_void;
	if (need_map(s, n, n->call.args))
		sema_map_of(s, n->call.args);
}

static LLVMValueRef lower_map_op(struct cg_ctx *cg, struct ast_node *n)
{
	if (n->note.value)	/* the print before it clears (sema/printclear.c) */
		return NULL;
	cg_event_raw(cg, !strcmp(n->call.name, "clear") ? EV_CLEAR : EV_ZERO,
		     (uint32_t)cg_map_of(cg, n->call.args)->id, NULL, 0);
	return NULL;
}

/* f(@m, key), the form of newer bpftrace (delete, has_key), is f(@m[key]):
 * the key moves into the map node; a tuple names each key of a multi-key
 * map.  False after an error. */
static bool key_into_map(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args, *key = a->next;
	if (n->call.nargs != 2)
		return true;
	if (a->kind != N_MAP || a->map.keys) {
		sema_error(s, a->loc, "%s(@m, key) takes a map without a key first", n->call.name);
		return false;
	}
	a->next = NULL;
	n->call.nargs = 1;
	if (key->kind == N_TUPLE && !key->tuple.names) {	/* a record is one key */
		a->map.keys = key->tuple.elems;
		a->map.nkeys = key->tuple.nelems;
	} else {
		a->map.keys = key;
		a->map.nkeys = 1;
	}
	return true;
}

/* has_key(@m, key): true when the map holds the key */
static void check_has_key(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	n->type = ty_bool;
	if (!key_into_map(s, n))
		return;
	if (a->kind != N_MAP || !a->map.keys) {
		sema_error(s, n->loc, "has_key() takes a map and a key: has_key(@m, k)");
		return;
	}
	sema_map_keys(s, a);
	struct sema_map *m = sema_map_of(s, a);
	if (m->kind == MK_TSERIES)
		sema_error(s, a->loc, "has_key() of tseries map '%s' is not supported (it stores a "
			   "slot per interval)", m->name);
}

static LLVMValueRef lower_has_key(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef p = cg_map_lookup(cg, cg_map_of(cg, a), cg_map_key(cg, a, 0));
	LLVMValueRef found = LLVMBuildIsNotNull(b, p, "");
	return LLVMBuildZExt(b, found, cg_i64(cg), "has_key");
}

/* delete(@m[k]), delete(@m, k): true when there was such an entry, as
 * in bpftrace 0.21 and later (`if (delete(@start, tid))`) */
static void check_delete(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	n->type = ty_bool;
	if (a->kind != N_MAP) {
		sema_error(s, a->loc, "delete() needs a map element, like @m[key]");
		return;
	}
	if (!key_into_map(s, n))
		return;
	/* the keys decide the key type even when nothing ever assigns the map
	 * (delete(@x[1, 2]) alone must still compile to a two-field key) */
	sema_map_keys(s, a);
	struct sema_map *m = sema_map_of(s, a);
	/* per-key bookkeeping (start timestamps by tid): metrics leave it out */
	m->deleted = true;
	if ((m->kind == MK_HIST || m->kind == MK_LHIST) && a->map.nkeys)
		sema_error(s, a->loc, "delete() of one %s entry is not supported: use clear(%s)",
			   m->kind == MK_HIST ? "hist" : "lhist", m->name);
	if (m->kind == MK_TSERIES && m->ts_nintervals > CG_TS_DELETE_MAX)
		sema_error(s, a->loc, "delete() of one key of '%s' deletes each of its %u interval "
			   "slots in BPF: at most %d; use clear(%s), or fewer intervals", m->name,
			   m->ts_nintervals, CG_TS_DELETE_MAX, m->name);
}

static LLVMValueRef lower_delete(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	const struct sema_map *m = cg_map_of(cg, a);
	/* a map without keys (a per-CPU array: its slots cannot be deleted)
	 * goes back to zero, as bpftrace prints it after delete(@) */
	if (m->array_slots) {
		cg_event_raw(cg, EV_CLEAR, (uint32_t)m->id, NULL, 0);
		return cg_const(cg, 1);
	}
	if (m->kind == MK_TSERIES)	/* the key's every interval slot */
		return cg_tseries_delete(cg, a);
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef rc = cg_map_delete(cg, m, cg_map_key(cg, a, 0));
	return LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntEQ, rc, cg_const(cg, 0), ""), cg_i64(cg),
			     "deleted");
}

#define STMT(nm, lo, hi, chk, low, doc) \
	{.name = nm, .kind = BI_STMT, .min_args = lo, .max_args = hi, .check = chk, .lower = low, \
	 .summary = doc}

const struct builtin stdlib_output[] = {
	{.name = "printf", .kind = BI_STMT, .min_args = 1, .max_args = 17, .check = check_printf,
	 .lower = lower_fmt_event, .user = true, .summary = "formatted output"},
	STMT("errorf", 1, 17, check_errorf, lower_fmt_event,
	     "formatted error message on stderr, with the call's location"),
	STMT("warnf", 1, 17, check_warnf, lower_fmt_event,
	     "formatted warning on stderr, with the call's location"),
	STMT("cat", 1, 17, check_cat, lower_fmt_event, "print a file's contents"),
	STMT("system", 1, 17, check_system, lower_fmt_event, "run a command (--unsafe)"),
	{.name = "exit", .kind = BI_STMT, .min_args = 0, .max_args = 1, .check = check_exit,
	 .lower = lower_exit, .summary = "stop tracing and print the maps"},
	STMT("print", 1, 3, check_print, lower_print, "print a map (top, div) or a value"),
	STMT("clear", 1, 1, check_map_op, lower_map_op, "remove every entry of a map"),
	STMT("zero", 1, 1, check_map_op, lower_map_op, "set every value of a map to zero"),
	/* one argument once key_into_map has moved the key into the map */
	{.name = "has_key", .kind = BI_FUNC, .min_args = 1, .max_args = 2, .check = check_has_key,
	 .lower = lower_has_key, .user = true, .summary = "true when a map holds a key: has_key(@m, k)"},
	{.name = "delete", .kind = BI_FUNC, .min_args = 1, .max_args = 2, .check = check_delete,
	 .lower = lower_delete, .user = true,
	 .summary = "remove one map entry; true when there was one"},
	{0},
};
