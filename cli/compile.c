/*
 * compile.c - the compile pipeline, once: the program text through the
 * parser, the script's config block (settings), sema with stdlib's builtin
 * table, the BPFTRACE_MAX_PROBES limit, codegen timed from now, and the
 * BPFTRACE_MAX_BPF_PROGS limit.  A caller's after_sema hook runs between
 * sema and codegen: the command line lists or dumps the AST there, checks
 * the script's named options and starts the -c child (its pid is cpid).
 */
#include "cli/compile.h"

#include <errno.h>
#include <stdlib.h>
#include <time.h>

#include "common/settings.h"
#include "parser/parser.h"
#include "stdlib/stdlib.h"

/* the script's config block: false after an error at the setting */
static bool apply_config(struct diag *d, const struct ast_node *program)
{
	for (const struct ast_config *c = program->program.config; c; c = c->next) {
		char msg[256];
		int err = settings_config(c->name, c->value, msg, sizeof(msg));
		if (err) {
			diag_error(d, err == -ENOENT ? c->loc : c->value_loc, "%s", msg);
			return false;
		}
	}
	return true;
}

int cli_compile(struct arena *a, struct diag *d, struct cli_compile *c)
{
	c->ast = parse_program(a, d, c->src);
	c->src = d->src;	/* with what its imports spliced in */
	if (!c->ast || !apply_config(d, c->ast))
		return -1;
	if (c->ast->program.cimports) {
		struct cg_cmodule mods[STDLIB_MAX_CMODULES];
		int nmods = stdlib_cmodules(mods, STDLIB_MAX_CMODULES);
		struct cg_cimports *ci = arena_new_obj(a, struct cg_cimports);
		if (cg_cimport_load(a, d, c->ast, mods, nmods, ci))
			return -1;
		stdlib_set_cfuncs(a, ci);
		c->co.cimports = ci;
	} else {
		stdlib_set_cfuncs(a, NULL);
	}
	c->so.builtins = stdlib_find;
	c->so.suggest = stdlib_suggest;
	if (!(c->r = sema_run(a, d, c->ast, &c->so)))
		return -1;
	if (c->r->nattach > settings_int(SET_MAX_PROBES)) {
		fprintf(stderr, "sonde: the script has %d attach points, more than BPFTRACE_MAX_PROBES "
			"(%lld) allows\n", c->r->nattach, (long long)settings_int(SET_MAX_PROBES));
		return -1;
	}
	int rc = c->after_sema ? c->after_sema(c) : 0;
	if (rc)
		return rc;
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	c->co.start_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	c->co.src = c->src;
	if (!c->co.map_keys_max) {	/* the flag, the environment or the config block */
		c->co.map_keys_max = (uint32_t)settings_int(SET_MAP_KEYS_MAX);
		c->co.map_keys_told = settings_given(SET_MAP_KEYS_MAX);
	}
	if (cg_compile(a, c->r, &c->co, &c->obj))
		return -1;
	if (c->obj.nprogs > settings_int(SET_MAX_BPF_PROGS)) {
		fprintf(stderr, "sonde: the script needs %d BPF programs, more than "
			"BPFTRACE_MAX_BPF_PROGS (%lld) allows\n", c->obj.nprogs,
			(long long)settings_int(SET_MAX_BPF_PROGS));
		free(c->obj.elf);
		c->obj.elf = NULL;
		return -1;
	}
	return 0;
}
