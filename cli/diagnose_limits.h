/*
 * diagnose_limits.h - the limits a service runs under, for sonde diagnose
 * (diagnose_limits.c): the CPUs its threads may run on, its CPU quota and
 * throttling, and its memory cgroup's limit and reclaim counters over the
 * window.
 */
#ifndef SONDE_CLI_DIAGNOSE_LIMITS_H
#define SONDE_CLI_DIAGNOSE_LIMITS_H

#include <stdbool.h>

struct arena;
struct dx_report;
struct dx_limits;
struct dx_cgroup;

struct dx_limits *dxl_new(struct arena *a);
/* a thread of the service at the start: its CPUs; a process: its memory cgroup */
void dxl_thread(struct dx_limits *l, int pid, int tid);
/* the window opens (end false) or ends: read the memory cgroups' counters */
void dxl_mark(struct dx_limits *l, bool end);
/* into the report: r->ncpus, r->memcgs */
void dxl_fill(struct dx_limits *l, struct dx_report *r);

/* the cgroup directory whose cpu controller governs pid (*v2: which
 * hierarchy), or NULL; its cpu.stat's throttling and its quota into c */
const char *dxl_cpu_cgroup(struct arena *a, int pid, bool *v2);
bool dxl_cpu_stat(struct arena *a, const char *dir, bool v2, struct dx_cgroup *c);

#endif
