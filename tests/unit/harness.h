/*
 * harness.h - the front of a compile for unit tests: parse and sema with
 * the messages captured in memory, and codegen to IR text.  Header-only
 * (static inline) because each test file is its own program.
 */
#ifndef SONDE_TEST_HARNESS_H
#define SONDE_TEST_HARNESS_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "common/arena.h"
#include "common/diag.h"
#include "host/host.h"
#include "parser/parser.h"
#include "sema/sema.h"
#include "stdlib/stdlib.h"

struct checked {
	struct arena *a;
	struct diag d;
	FILE *out;		/* messages, as the user would see them */
	char *msgs;
	size_t len;
	struct ast_node *ast;	/* NULL after a syntax error */
	struct sema_result *r;	/* NULL after a parse or sema error */
};

/* parse and check src as file "t.bt"; o may be NULL; the builtins are
 * stdlib's unless o names others */
static inline void checked_run(struct checked *c, const char *src, const struct sema_opts *o)
{
	struct sema_opts with = {0};
	if (o)
		with = *o;
	if (!with.builtins)
		with.builtins = stdlib_find;
	o = &with;
	memset(c, 0, sizeof(*c));
	c->a = arena_new();
	c->out = open_memstream(&c->msgs, &c->len);
	diag_init(&c->d, "t.bt", src, c->out);
	c->ast = parse_program(c->a, &c->d, src);
	c->r = c->ast ? sema_run(c->a, &c->d, c->ast, o) : NULL;
	fflush(c->out);
}

/* the first line of the messages ("t.bt:1:COL: error: ..."), into buf */
static inline const char *checked_first_line(const struct checked *c, char *buf, size_t len)
{
	const char *nl = strchr(c->msgs, '\n');
	snprintf(buf, len, "%.*s", nl ? (int)(nl - c->msgs) : (int)c->len, c->msgs);
	return buf;
}

static inline void checked_free(struct checked *c)
{
	fclose(c->out);
	free(c->msgs);
	arena_free(c->a);
}

/* the map named name ("@x"); the test fails when the program has none */
static inline const struct sema_map *checked_map(const struct sema_result *r, const char *name)
{
	for (int i = 0; r && i < r->nmaps; i++)
		if (!strcmp(r->maps[i]->name, name))
			return r->maps[i];
	fail_msg("no map %s", name);
	return NULL;
}

/* codegen of a checked program: 0 or -errno; the IR text in *ir (free it),
 * the object in *obj when obj is not NULL (free obj->elf) */
static inline int checked_codegen(struct checked *c, char **ir, struct cg_object *obj)
{
	size_t len;
	FILE *f = open_memstream(ir, &len);
	struct cg_opts co = {.emit_ir = 1, .out = f, .start_ns = 1};
	struct cg_object local = {0};
	int rc = cg_compile(c->a, c->r, &co, obj ? obj : &local);
	fclose(f);
	if (!obj)
		free(local.elf);
	return rc;
}

/* remove a fake tracefs (or any temp tree) made by a test's setup, and
 * go back to finding the real tracefs */
static inline void harness_rm_tracefs(const char *dir)
{
	char cmd[600];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	tfs_set_root(NULL);
}

#endif
