/*
 * diagnose_gil.h - the Python side of `sonde diagnose` (diagnose_gil.c):
 * the GIL as a blind spot, and the stacks seen while time was lost.
 */
#ifndef SONDE_CLI_DIAGNOSE_GIL_H
#define SONDE_CLI_DIAGNOSE_GIL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "common/arena.h"
#include "output/output.h"

struct dx_py;

/* The Python processes among pids (their interpreters found, the GIL's
 * address read); never NULL.  -v says which were found and which not. */
struct dx_py *dxpy_open(struct arena *a, const int *pids, int n, int verbose);
void dxpy_free(struct dx_py *py);

/* The script's parts: a BEGIN block with each Python process's GIL, text
 * for the body of the raw_syscalls:sys_enter and sys_exit probes (after
 * @sc[tid] is set; after $d, the syscall's time, is) and of sched_switch,
 * and probes of its own.  Empty text when no process is Python. */
void dxpy_begin(FILE *f, const struct dx_py *py);
const char *dxpy_sys_enter(const struct dx_py *py);
const char *dxpy_sys_exit(const struct dx_py *py);
/* Where a spell of thread T of process TGID ends, DUR long (a wait for a
 * CPU when runq, else a blocked one): the stack it left its CPU with gets
 * the time, or the GIL does. */
const char *dxpy_where(const struct dx_py *py, const char *t, const char *tgid, bool runq,
		       const char *dur, int64_t ioctl_nr);
void dxpy_probes(FILE *f, const struct dx_py *py);

/* a blocked spell's syscall + 1 that means "in futex, waiting for the GIL" */
bool dxpy_gil_sc(uint64_t sc1);

/* Read the threading names of the Python processes' threads now (the
 * window's end; the report reads them again): a thread that ended
 * since keeps the name read while it lived. */
void dxpy_snapshot(struct dx_py *py);

/* From the maps at exit: the stacks seen where time was lost (cat_of
 * classes a blocked spell), threads under their threading names, each thread's time holding the GIL, the holders
 * while others waited, the holder's stacks.  r's threads are built. */
void dxpy_report(struct dx_py *py, const struct pr_map *maps, int nmaps, struct dx_report *r,
		 enum dx_cat (*cat_of)(uint64_t sc1, bool d, int tid, const struct dx_report *r));

#endif
