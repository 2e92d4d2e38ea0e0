/*
 * explain.h - the catalogue of refusals: one stable code per class of
 * error the kernel (or sonde, before the kernel) can give a script.
 *
 * Every stage that reports such an error prints the class's code and
 * first sentence with it; `sonde --explain CODE` prints the page, and
 * docs/errors.md is `sonde --explain --all` (one table, one source).
 */
#ifndef SONDE_EXPLAIN_H
#define SONDE_EXPLAIN_H

#include <stdbool.h>
#include <stdio.h>

enum ex_code {
	EX_UNKNOWN,		/* a refusal sonde has no class for */
	EX_BUDGET,		/* the verifier's million instructions */
	EX_LOOP,		/* a loop the verifier cannot bound */
	EX_STACK,		/* more than 512 bytes of stack */
	EX_NULL,		/* a pointer that may be NULL, not checked */
	EX_MEMORY,		/* memory the program may not read directly */
	EX_HELPER,		/* a helper this probe type may not call */
	EX_MAP_SIZE,		/* a map key or value too large */
	EX_DIVZERO,		/* division by zero */
	EX_PROG_SIZE,		/* too many instructions, a jump out of range */
	EX_PERMISSION,		/* EPERM: capabilities, lockdown, sysctl */
	EX_KFUNC,		/* a kernel function that cannot be probed */
	EX_TRACEPOINT,		/* a tracepoint this kernel does not have */
	EX_NOSYMS,		/* a uprobe target without symbols */
	EX_MAP_CREATE,		/* map creation refused (memory) */
	EX_COUNT
};

struct explain {
	const char *code;	/* "S0101": stable, never reused */
	const char *title;	/* a few words */
	const char *summary;	/* one sentence, printed with the error */
	const char *body;	/* what is checked and why, what to do */
	const char *example;	/* a script that triggers it (NULL: none can) */
	const char *fixed;	/* the same script, fixed */
	const char *needs;	/* NULL: runs on any kernel sonde runs on;
				 * else what the example needs ("kprobes",
				 * "no capabilities") */
};

const struct explain *explain_get(enum ex_code c);
/* by code, case-insensitive ("s0101"); NULL when unknown */
const struct explain *explain_find(const char *code);
/* The class a message names: it ends in " [S0101]"; NULL when none. */
const struct explain *explain_of(const char *msg);
/* The lines after a coded error: the class's first sentence unless the
 * message said it, and where to read more. */
void explain_note(FILE *out, const struct explain *e, bool said_summary);
/* the page, as text for a terminal or as a Markdown section */
void explain_page(FILE *out, const struct explain *e, bool markdown);
/* docs/errors.md: the header and every page */
void explain_all(FILE *out);

#endif
