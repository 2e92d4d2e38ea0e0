/*
 * sema_int.h - state shared by the files of sema/ (not a public header).
 */
#ifndef SONDE_SEMA_INT_H
#define SONDE_SEMA_INT_H

#include "sema.h"

struct sema_var {
	struct sema_var *next;
	const char *name;
	struct type type;
	struct src_loc loc;
};

struct sema_struct {
	struct sema_struct *next;
	struct type type;	/* TY_STRUCT */
};

struct sema_ctx {
	struct arena *a;
	struct diag *d;
	const struct sema_opts *opts;
	struct sema_result *r;
	bool quiet;		/* first pass: infer map kinds, report nothing */
	int errors;
	struct sema_probe *probe;	/* being checked */
	struct sema_var *vars;		/* scratch variables of this probe */
	struct ast_node *assign_target;	/* map of '@m = call()' while checking call */
	struct sema_struct *structs;
	int loop_depth;
	/* maps: grow-only array, sorted at the end */
	struct sema_map **maps;
	int nmaps;
	struct sema_event **events;
	int nevents;
};

void sema_resolve_attach(struct sema_ctx *s, struct sema_probe *p);
/* probes.c: limits the kernel puts on attach points, checked once all
 * probes are resolved (programs on one tracepoint) */
void sema_check_attach_limits(struct sema_ctx *s);
/* probes.c: a new, zeroed attach point of p */
struct sema_attach *sema_push_attach(struct sema_ctx *s, struct sema_probe *p);
/* usdt.c: one attach point per SDT note of `target` matching `pattern`
 * ("NAME" or "PROVIDER:NAME", globs allowed) */
void sema_usdt_expand(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
		      const char *target, const char *pattern);
/* C type written in a cast/sizeof/struct field -> type; false after error */
bool sema_ctype(struct sema_ctx *s, const struct ast_ctype *ct, struct src_loc loc,
		struct type *out);

#endif
