/*
 * options.c - getopt(): the named options of the newest bpftrace.
 *
 * `sonde script.bt -- --depth=3 --verbose` gives the script named options
 * beside its positional parameters (cli/ keeps "--name[=value]" words out
 * of $1, $2 ...).  getopt("name") is a bool: was --name given (and not as
 * --name=false)?  getopt("name", default) takes the default's type: an
 * integer or a string from "--name=value", or a bool; a value of another
 * type is an error, as in the newest release.  A named option may stand anywhere on the
 * command line (cli/ takes every "--name" that is not one of sonde's own);
 * one the script never reads is an error (cli/main.c).  Values are known at
 * compile time, as positional parameters are: the call folds to a
 * constant.  A third argument, a string literal, describes the option
 * (getopt("depth", 35, "how deep to go"), as the newest release's
 * `--help` lists them); it changes nothing in the value.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "stdlib/stdlib_int.h"

/* the value of --name: NULL when absent, "" for a bare --name */
static const char *named_value(struct sema_ctx *s, const char *name)
{
	const struct sema_opts *o = sema_options(s);
	size_t len = strlen(name);
	for (int i = 0; i < o->nnamed_args; i++) {
		const char *a = o->named_args[i] + 2;
		if (!strncmp(a, name, len) && (a[len] == '\0' || a[len] == '=')) {
			if (o->named_used)
				o->named_used[i] = true;
			return a[len] ? a + len + 1 : "";
		}
	}
	return NULL;
}

/* "", true, True, TRUE, 1 / false, False, FALSE, 0 */
static bool word_bool(const char *v, bool *out)
{
	if (!*v || !strcasecmp(v, "true") || !strcmp(v, "1"))
		*out = true;
	else if (!strcasecmp(v, "false") || !strcmp(v, "0"))
		*out = false;
	else
		return false;
	return true;
}

/* getopt("name" [, default [, "description"]]) */
static void check_getopt(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args, *def = a->next, *desc = def ? def->next : NULL;
	n->type = (struct type){.kind = TY_ERROR};
	if (a->kind != N_STR) {
		sema_error(s, a->loc, "getopt() takes the option's name as a string: getopt(\"depth\", 35)");
		return;
	}
	if (desc && desc->kind != N_STR) {
		sema_error(s, desc->loc,
			   "getopt()'s third argument describes the option: a string, as in "
			   "getopt(\"depth\", 35, \"how deep to go\")");
		return;
	}
	const char *v = named_value(s, a->s.value);
	sema_named_opt(s, a->s.value, desc ? desc->s.value : "");
	struct type *dt = def ? sema_expr(s, def) : NULL;
	int64_t k;
	/* a value of the wrong type is the command line's error, said as the
	 * newest bpftrace says it: "program command line option --aa invalid
	 * integer (value: False)" */
	if (!def || dt->is_bool) {
		bool b = def && dt->is_bool && def->kind == N_IDENT && !strcmp(def->ident.name, "true");
		if (v && !word_bool(v, &b)) {
			sema_error_plain(s, "program command line option --%s expects a boolean (e.g. "
					 "'true') (value: %s)", a->s.value, v);
			return;
		}
		n->note.value = b;
		n->type = ty_bool;
	} else if (dt->kind == TY_INT && sema_fold_const(def, &k)) {
		if (v && !*v) {
			sema_error_plain(s, "program command line option --%s expects an integer "
					 "(value: true)", a->s.value);
			return;
		}
		if (v) {
			char *end;
			errno = 0;
			k = *v == '-' ? strtoll(v, &end, 0) : (int64_t)strtoull(v, &end, 0);
			if (*end || end == v) {
				sema_error_plain(s, "program command line option --%s invalid integer "
						 "(value: %s)", a->s.value, v);
				return;
			}
			if (errno == ERANGE) {
				sema_error_plain(s, "program command line option --%s value is out of "
						 "range (value: %s)", a->s.value, v);
				return;
			}
		}
		/* the default's sign types it, as the newest release's literals:
		 * getopt("aa", 20) is a uint64 (--aa=0xffffffffffffffff prints
		 * 18446744073709551615), getopt("bb", -1) an int64 */
		int64_t dk = 0;
		sema_fold_const(def, &dk);
		n->note.value = (uint64_t)k;
		n->type = dk < 0 ? ty_int64 : ty_uint64;
	} else if (def->kind == N_STR) {
		/* a constant string: the node becomes the literal */
		const char *str = v ? v : def->s.value;
		n->kind = N_STR;
		n->s.value = str;
		n->s.len = (uint32_t)strlen(str);
		sema_expr(s, n);
	} else if (dt->kind != TY_ERROR) {
		sema_error(s, def->loc, "getopt()'s default must be a constant integer, string or bool");
	}
}

static LLVMValueRef lower_getopt(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_const(cg, n->note.value);
}

const struct builtin stdlib_options[] = {
	{.name = "getopt", .kind = BI_FUNC, .min_args = 1, .max_args = 3, .check = check_getopt,
	 .lower = lower_getopt, .user = true,
	 .summary = "a named option after the script: getopt(\"depth\", 35[, \"description\"]) for -- --depth=3"},
	{0},
};
