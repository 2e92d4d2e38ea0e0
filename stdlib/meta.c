/*
 * meta.c - the compile-time helpers of the newest bpftrace's standard
 * library (its src/stdlib/meta.bt, kfunc.bt and builtins pass): questions
 * about an expression's type, static_assert, assert_str and fail,
 * has_cpid, kfunc_exist, kfunc_allowed, probetype, default_str_length.
 *
 * Each folds into a literal in sema's last pass (the quiet passes before
 * it may not know every type yet): is_str($x) becomes the bool `true` or
 * `false`, probetype the string "kprobe", so codegen never sees them and
 * an argument is never evaluated.  static_assert and fail are errors at
 * their call unless they sit in a branch that a constant condition never
 * takes (`if (is_str(x)) { ... } else { fail("...") }`), as the newest
 * bpftrace reports them only where they are "visited".
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "codegen/codegen.h"
#include "common/arena.h"
#include "common/settings.h"
#include "host/host.h"
#include "stdlib/stdlib.h"

/* n becomes the literal true or false */
static void fold_bool(struct sema_ctx *s, struct ast_node *n, bool v)
{
	n->type = ty_bool;
	if (!sema_final_pass(s))
		return;
	n->kind = N_INT;
	n->i.value = v;
	n->i.is_char = false;
	n->i.is_signed = true;
}

/* never called on a folded node (an N_INT by then); there for the table */
static LLVMValueRef lower_folded(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_const(cg, 0);
}

/* is_integer(e), is_unsigned_integer(e), is_str(e), is_ptr(e),
 * is_array(e), is_literal(e): what the argument is, without evaluating it */
static void check_is(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	const char *what = n->call.name + 3;
	/* a literal as written: $1 is one too, as the newest bpftrace
	 * replaces positional parameters before it looks */
	bool literal = a->kind == N_INT || a->kind == N_STR || a->kind == N_POSITIONAL ||
		       (a->kind == N_IDENT && (!strcmp(a->ident.name, "true") ||
					       !strcmp(a->ident.name, "false"))) ||
		       (a->kind == N_UNARY && a->un.op == OP_NEG && a->un.operand->kind == N_INT);
	struct type *t = sema_expr(s, a);
	bool v = false;
	if (t->kind == TY_ERROR) {
		n->type = ty_bool;
		return;
	}
	if (!strcmp(what, "literal"))
		v = literal;
	else if (!strcmp(what, "integer"))
		v = t->kind == TY_INT && !t->is_bool;
	else if (!strcmp(what, "unsigned_integer"))
		v = t->kind == TY_INT && !t->is_bool && !t->is_signed;
	else if (!strcmp(what, "str"))
		v = t->kind == TY_STR;
	else if (!strcmp(what, "ptr"))
		v = t->kind == TY_PTR;
	else if (!strcmp(what, "array"))
		v = t->kind == TY_ARRAY;
	fold_bool(s, n, v);
}

/* has_cpid: whether -c gave a child command (cpid needs one) */
static void check_has_cpid(struct sema_ctx *s, struct ast_node *n)
{
	fold_bool(s, n, sema_options(s)->has_cpid);
}

/* kfunc_exist("name"): the kernel's BTF declares the function */
static void check_kfunc_exist(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	sema_expr(s, a);
	if (a->kind != N_STR) {
		sema_error(s, a->loc, "kfunc_exist() takes a function's name as a string literal: "
			   "kfunc_exist(\"vfs_read\")");
		n->type = ty_bool;
		return;
	}
	fold_bool(s, n, sema_kernel_func(s, a->s.value));
}

/* kfunc_allowed("name"): the kernel lets this probe's program type call
 * the kfunc (the first attach point's type; host_kfunc_allowed asks the
 * verifier once) */
static void check_kfunc_allowed(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	const struct sema_probe *p = sema_cur_probe(s);
	sema_expr(s, a);
	n->type = ty_bool;
	if (a->kind != N_STR) {
		sema_error(s, a->loc, "kfunc_allowed() takes a kfunc's name as a string literal: "
			   "kfunc_allowed(\"bpf_task_from_pid\")");
		return;
	}
	if (!sema_final_pass(s) || !p || !p->nattach)
		return;
	enum host_answer ans = host_kfunc_allowed(a->s.value, sema_provider(p->attach[0].type)->section);
	if (ans == HF_UNKNOWN) {
		sema_error(s, n->loc, "kfunc_allowed(): the kernel did not verify a test program of "
			   "this probe's type (%s), so whether it may call %s is not known (no "
			   "privilege, or no such programs here)",
			   sema_probe_type_name(p->attach[0].type), a->s.value);
		return;
	}
	fold_bool(s, n, ans == HF_YES);
}

/* probetype: the provider of the probe's (first) attach point, as the
 * newest bpftrace names it: "special" for begin and end */
static void check_probetype(struct sema_ctx *s, struct ast_node *n)
{
	const struct sema_probe *p = sema_cur_probe(s);
	const char *name = "none";
	if (p && p->nattach) {
		enum probe_type t = p->attach[0].type;
		name = t == PT_BEGIN || t == PT_END || t == PT_SELF ? "special" : sema_probe_type_name(t);
	}
	n->type = ty_str((uint32_t)strlen(name) + 1);
	if (!sema_final_pass(s))
		return;
	n->kind = N_STR;
	n->s.value = name;
	n->s.len = (uint32_t)strlen(name);
}

/* the text of fail()'s format with its literal arguments, as printf would
 * print it; NULL after an error */
static const char *format_literals(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *fmt = n->call.args, *arg = fmt->next;
	struct arena *ar = sema_arena(s);
	size_t cap = 256, len = 0;
	char *out = arena_alloc(ar, cap);
	for (const char *p = fmt->s.value; *p;) {
		char piece[128], spec[32];
		size_t k;
		if (*p != '%' || p[1] == '%') {
			piece[0] = *p;
			piece[1] = '\0';
			p += *p == '%' ? 2 : 1;
		} else {
			/* %[flags][width][.precision][length]conversion */
			k = strspn(p + 1, "-+ #0") + 1;
			k += strspn(p + k, "0123456789");
			if (p[k] == '.')
				k += 1 + strspn(p + k + 1, "0123456789");
			if (k + 4 >= sizeof(spec)) {
				sema_error(s, fmt->loc, "fail(): a conversion of the format is too long");
				return NULL;
			}
			memcpy(spec, p, k);
			size_t m = strspn(p + k, "hlLqjzt");
			char conv = p[k + m];
			p += k + m + (conv != '\0');
			if (!arg) {
				sema_error(s, fmt->loc, "fail(): the format has more conversions than arguments");
				return NULL;
			}
			bool is_int = arg->kind == N_INT, is_str = arg->kind == N_STR;
			if (!strchr("diuxXoc", conv ? conv : '?') && conv != 's') {
				sema_error(s, fmt->loc, "fail(): unknown conversion '%%%c' (use %%d, %%u, %%x, "
					   "%%o, %%c or %%s)", conv ? conv : ' ');
				return NULL;
			}
			if ((conv == 's' && !is_str) || (conv != 's' && !is_int)) {
				sema_error(s, arg->loc, "fail(): %%%c needs %s argument", conv,
					   conv == 's' ? "a string" : "an integer");
				return NULL;
			}
			if (conv == 's') {
				memcpy(spec + k, "s", 2);
				snprintf(piece, sizeof(piece), spec, arg->s.value);
			} else if (conv == 'c') {
				memcpy(spec + k, "c", 2);
				snprintf(piece, sizeof(piece), spec, (int)arg->i.value);
			} else {
				spec[k] = 'l';
				spec[k + 1] = 'l';
				spec[k + 2] = conv == 'i' ? 'd' : conv;
				spec[k + 3] = '\0';
				if (conv == 'd' || conv == 'i')
					snprintf(piece, sizeof(piece), spec, (long long)arg->i.value);
				else
					snprintf(piece, sizeof(piece), spec, (unsigned long long)arg->i.value);
			}
			arg = arg->next;
		}
		size_t pl = strlen(piece);
		if (len + pl + 1 > cap) {
			char *grown = arena_alloc(ar, cap * 2 + pl);
			memcpy(grown, out, len);
			out = grown;
			cap = cap * 2 + pl;
		}
		memcpy(out + len, piece, pl);
		len += pl;
	}
	out[len] = '\0';
	if (arg) {
		sema_error(s, arg->loc, "fail(): more arguments than the format's conversions");
		return NULL;
	}
	return out;
}

/* every argument of n is a literal (after sema: $1 is one); else an error */
static bool literal_args(struct sema_ctx *s, struct ast_node *n)
{
	bool ok = true;
	for (struct ast_node *a = n->call.args; a; a = a->next) {
		if (a->kind == N_STR)	/* text for the compiler: no string's size limit */
			continue;
		struct type *t = sema_expr(s, a);
		int64_t v;
		if (t->kind == TY_ERROR) {
			ok = false;
		} else if (a->kind != N_STR && a->kind != N_INT && sema_fold_const(a, &v)) {
			a->kind = N_INT;	/* -3, 1 << 4 */
			a->i.value = (uint64_t)v;
			a->i.is_char = false;
			a->i.is_signed = true;
		} else if (a->kind != N_INT && a->kind != N_STR) {
			sema_error(s, a->loc, "%s() is checked at compile time: its arguments must be "
				   "literals (\"text\", 42, $1), not %s", n->call.name,
				   type_str(sema_arena(s), t));
			ok = false;
		}
	}
	return ok;
}

/* fail(fmt, args...): a compile-time error at the call, where it is
 * visited (not in a branch a constant condition never takes) */
static void check_fail(struct sema_ctx *s, struct ast_node *n)
{
	n->type = ty_void;
	if (!literal_args(s, n))
		return;
	if (n->call.args->kind != N_STR) {
		sema_error(s, n->call.args->loc, "fail() takes a format string first: fail(\"bad %%d\", 1)");
		return;
	}
	const char *text = format_literals(s, n);
	if (text && !sema_dead_code(s))
		sema_error(s, n->loc, "%s", text);
}

/* static_assert(cond, msg): cond must fold to a constant; false is msg as
 * a compile-time error at the call */
static void check_static_assert(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *cond = n->call.args, *msg = cond->next;
	n->type = ty_void;
	struct type *t = sema_expr(s, cond);
	if (msg->kind != N_STR && sema_expr(s, msg)->kind == TY_ERROR)
		return;
	if (t->kind == TY_ERROR || !sema_final_pass(s))
		return;
	if (msg->kind != N_STR) {
		sema_error(s, msg->loc, "static_assert(cond, msg): msg must be a string literal");
		return;
	}
	int64_t v;
	if (!sema_fold_const(cond, &v)) {
		sema_error(s, cond->loc, "static_assert() needs a condition known at compile time "
			   "(literals, sizeof, is_str(...) and the like), not one computed when the "
			   "probe runs: use assert(cond, msg) for that");
		return;
	}
	if (!v && !sema_dead_code(s))
		sema_error(s, n->loc, "%s", msg->s.value);
}

/* assert_str(e): e is string-like (a string, an int8 array or pointer),
 * else a compile error, as the newest bpftrace's strings.bt words it */
static void check_assert_str(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	struct type *t = sema_expr(s, a);
	n->type = ty_void;
	if (t->kind == TY_ERROR || t->kind == TY_STR || sema_dead_code(s))
		return;
	bool chars = t->elem && t->elem->kind == TY_INT && t->elem->size == 1;
	if (t->kind == TY_ARRAY && !chars)
		sema_error(s, a->loc, "string-like arrays must contain a char-like type, not %s",
			   type_str(sema_arena(s), t));
	else if (t->kind == TY_PTR && !chars)
		sema_error(s, a->loc, "string-like pointers must point to a char-like type, not %s",
			   type_str(sema_arena(s), t));
	else if (t->kind != TY_ARRAY && t->kind != TY_PTR)
		sema_error(s, a->loc, "string-like values must be either strings, arrays or pointers, "
			   "not %s", type_str(sema_arena(s), t));
}

/* default_str_length: BPFTRACE_STRLEN, the bytes str(p) reads */
static void check_default_str_length(struct sema_ctx *s, struct ast_node *n)
{
	n->type = ty_uint64;
	if (!sema_final_pass(s))
		return;
	n->kind = N_INT;
	n->i.value = (uint64_t)settings_int(SET_STRLEN);
	n->i.is_char = false;
	n->i.is_signed = false;
}

static LLVMValueRef lower_nothing(struct cg_ctx *cg, struct ast_node *n)
{
	return NULL;
}

#define IS(nm, doc) {.name = nm, .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_is, \
		     .lower = lower_folded, .user = true, .summary = doc}

const struct builtin stdlib_meta[] = {
	IS("is_integer", "compile time: true when the expression is an integer (not a bool)"),
	IS("is_unsigned_integer", "compile time: true when the expression is an unsigned integer"),
	IS("is_str", "compile time: true when the expression is a string"),
	IS("is_ptr", "compile time: true when the expression is a pointer"),
	IS("is_array", "compile time: true when the expression is an array"),
	IS("is_literal", "compile time: true when the argument is a literal: 1, \"a\", true, $1"),
	{.name = "has_cpid", .kind = BI_VAR, .check = check_has_cpid, .lower = lower_folded, .user = true,
	 .summary = "compile time: true when -c gave a child command (cpid has a value)"},
	{.name = "kfunc_exist", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_kfunc_exist,
	 .lower = lower_folded, .user = true,
	 .summary = "compile time: true when the kernel's BTF declares the function: kfunc_exist(\"vfs_read\")"},
	{.name = "kfunc_allowed", .kind = BI_FUNC, .min_args = 1, .max_args = 1,
	 .check = check_kfunc_allowed, .lower = lower_folded, .user = true,
	 .summary = "compile time: true when this probe's program type may call the kfunc"},
	{.name = "probetype", .kind = BI_VAR, .check = check_probetype, .lower = lower_folded, .user = true,
	 .summary = "compile time: the probe's type: \"kprobe\", \"tracepoint\", \"special\" (begin/end)"},
	{.name = "static_assert", .kind = BI_STMT, .min_args = 2, .max_args = 2,
	 .check = check_static_assert, .lower = lower_nothing, .user = true,
	 .summary = "compile time: static_assert(cond, msg) fails the build with msg when cond is false"},
	{.name = "assert_str", .kind = BI_STMT, .min_args = 1, .max_args = 1, .check = check_assert_str,
	 .lower = lower_nothing, .user = true,
	 .summary = "compile time: assert_str(e) fails the build unless e is a string, char array or char pointer"},
	{.name = "default_str_length", .kind = BI_VAR, .check = check_default_str_length,
	 .lower = lower_folded, .user = true,
	 .summary = "compile time: BPFTRACE_STRLEN, the bytes str(p) reads"},
	{.name = "fail", .kind = BI_STMT, .min_args = 1, .max_args = 8, .check = check_fail,
	 .lower = lower_nothing, .user = true,
	 .summary = "compile time: fail(fmt, literals...) fails the build where it is reached"},
	{0},
};
