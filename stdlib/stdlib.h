/*
 * stdlib.h - the catalogue of builtins.
 *
 * Each builtin variable (pid, comm, nsecs ...) and function (printf, hist,
 * str ...) is one `struct builtin` table entry: its name, how many
 * arguments it takes, how sema types it, and how codegen lowers it.  The
 * entries live one file per area (aggregations.c, process.c, time.c,
 * strings.c, ...).  Adding a builtin means adding an entry there and
 * nothing else where possible.
 */
#ifndef SONDE_STDLIB_H
#define SONDE_STDLIB_H

#include <stdbool.h>
#include <stdint.h>

#include <llvm-c/Core.h>

#include "../parser/ast.h"
#include "../sema/sema.h"

struct cg_ctx;

enum builtin_kind {
	BI_VAR,		/* identifier: pid, comm */
	BI_FUNC,	/* expression call: str(x), ksym(x) */
	BI_STMT,	/* call used as a statement: printf, exit, delete */
	BI_AGG,		/* aggregation, only as '@m[..] = f(..)': count, hist */
};

enum builtin_probes {
	BP_ANY = 0,
	BP_UPROBE_ONLY = 1,	/* arg0.., func: uprobes (and kprobes) */
	BP_RET_ONLY = 2,	/* retval */
	BP_TRACEPOINT_ONLY = 4,	/* args */
};

struct builtin {
	const char *name;
	enum builtin_kind kind;
	int min_args, max_args;
	/* Type the N_IDENT/N_CALL node: set n->type, report errors through s.
	 * NULL: the result is `type` below and arguments are typed generically. */
	void (*check)(struct sema_ctx *s, struct ast_node *n);
	struct type type;
	/* BI_VAR/BI_FUNC/BI_STMT: emit code, return an i64 (integers) or a
	 * pointer to the value's bytes (strings, tuples), NULL for void */
	LLVMValueRef (*lower)(struct cg_ctx *cg, struct ast_node *n);
	/* optional, for values held in memory: write the value straight into
	 * dst (dst_size bytes, already zeroed) instead of a stack temporary,
	 * so big events and keys do not exceed the 512-byte BPF stack */
	void (*lower_into)(struct cg_ctx *cg, struct ast_node *n, LLVMValueRef dst,
			   uint32_t dst_size);
	/* BI_AGG: what it stores; codegen/maps.c does the update */
	enum map_kind agg;
	const char *summary;	/* one line for docs and -h */
};

/* look up an identifier (is_call false) or a function (is_call true) */
const struct builtin *stdlib_find(const char *name, bool is_call);
/* every entry, for docs and tests; NULL-terminated */
const struct builtin *const *stdlib_all(void);

/* tables defined in the area files */
extern const struct builtin stdlib_process[], stdlib_aggregations[], stdlib_output[],
	stdlib_strings[], stdlib_time[], stdlib_container[], stdlib_stacks[], stdlib_symbols[],
	stdlib_bytes[], stdlib_net[], stdlib_control[], stdlib_ioctl[], stdlib_syscalls[],
	stdlib_block[];

#endif
