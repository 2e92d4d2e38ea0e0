/*
 * compile.h - the one compile pipeline of the command line (compile.c):
 * parse, the script's config block, sema, the probe limit, codegen and the
 * program limit.  `sonde` (main.c) and `sonde diagnose` (diagnose.c) both
 * run their scripts through cli_compile().
 */
#ifndef SONDE_CLI_COMPILE_H
#define SONDE_CLI_COMPILE_H

#include "codegen/program.h"
#include "common/arena.h"
#include "common/diag.h"
#include "sema/sema.h"

struct cli_compile {
	const char *src;	/* the program text */
	struct sema_opts so;	/* .builtins and .suggest are filled in */
	struct cg_opts co;	/* .start_ns and .src are filled in, and
				 * .map_keys_max (with .map_keys_told) when 0:
				 * from the settings, after the config block */
	/* called after sema and its checks, before codegen (NULL: go on):
	 * 0 goes on, 1 stops with nothing compiled (a listing, --emit ast),
	 * -1 fails after its message */
	int (*after_sema)(struct cli_compile *c);
	void *ctx;		/* after_sema's */
	/* what the pipeline made */
	struct ast_node *ast;
	struct sema_result *r;
	struct cg_object obj;	/* obj.elf: the caller frees it */
};

/* 0: compiled; 1: after_sema stopped it; -1: failed (a located error or a
 * message on stderr was printed) */
int cli_compile(struct arena *a, struct diag *d, struct cli_compile *c);

#endif
