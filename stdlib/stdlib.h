/*
 * stdlib.h - the catalogue of builtins.
 *
 * Each builtin variable (pid, comm, nsecs ...) and function (printf, hist,
 * str ...) is one `struct builtin` table entry: its name, how many
 * arguments it takes, how sema types it, and how codegen lowers it.  The
 * entries live one file per area (aggregations.c, process.c, time.c,
 * strings.c, ...).  Adding a builtin means adding an entry there and
 * nothing else where possible.  struct builtin itself is declared in
 * sema/sema.h, the interface sema checks calls against; cli hands
 * stdlib_find to sema_run through struct sema_opts, so sema never
 * includes this header.
 */
#ifndef SONDE_STDLIB_H
#define SONDE_STDLIB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "codegen/program.h"
#include "parser/ast.h"
#include "sema/sema.h"

/* look up an identifier (is_call false) or a function (is_call true) */
const struct builtin *stdlib_find(const char *name, bool is_call);
/* "; did you mean 'print'?" for an unknown name: the nearest functions
 * (is_call) or variables by edit distance, into buf; "" when none is near */
const char *stdlib_suggest(const char *name, bool is_call, char *buf, size_t len);

/* stacks.c: does ustack walk call-frame information (config unwind, and
 * the kernel's features), rather than frame pointers */
/* the kernel has what cfi unwinding needs (dw_ustack, --info's dwunwind) */
bool stdlib_cfi_available(void);
bool stdlib_unwind_cfi(void);

/* cfunc.c: the functions of the C a script imports (codegen/cimport.c
 * listed them) as builtins stdlib_find returns after the tables' own */
void stdlib_set_cfuncs(struct arena *a, const struct cg_cimports *ci);
const struct builtin *stdlib_find_cfunc(const char *name);
/* modules.c: sonde's stdlib modules (`import "stdlib/test"`), at most max
 * into out; how many */
enum { STDLIB_MAX_CMODULES = 16 };
int stdlib_cmodules(struct cg_cmodule *out, int max);

/* tables defined in the area files */
extern const struct builtin stdlib_process[], stdlib_aggregations[], stdlib_output[],
	stdlib_strings[], stdlib_time[], stdlib_container[], stdlib_stacks[], stdlib_symbols[],
	stdlib_bytes[], stdlib_net[], stdlib_control[], stdlib_ioctl[], stdlib_syscalls[],
	stdlib_block[], stdlib_kernel[], stdlib_numbers[], stdlib_options[], stdlib_meta[],
	stdlib_debug[], stdlib_system[], stdlib_python[];

#endif
