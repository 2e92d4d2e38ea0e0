/*
 * diagnose_serve.h - `sonde diagnose --serve ADDR`: the report's figures as
 * Prometheus counters, per thread, for as long as it runs (diagnose_serve.c).
 */
#ifndef SONDE_DIAGNOSE_SERVE_H
#define SONDE_DIAGNOSE_SERVE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

struct arena;
struct dx_report;
struct rt;

/* diagnose.c: the report of the window from its start to `now`
 * (CLOCK_MONOTONIC ns, the clock of the script's nsecs), its maps read
 * now through rt_maps_read, everything allocated in a */
typedef void (*dx_build_fn)(void *arg, struct rt *rt, struct arena *a, struct dx_report *r);

struct dx_serve;
/* all: --container all (containers that start later join at each scrape) */
struct dx_serve *dxserve_new(dx_build_fn build, void *arg, bool all);
void dxserve_free(struct dx_serve *s);
/* rt_opts.scrape_fn, with the dx_serve as arg */
void dxserve_scrape(void *arg, struct rt *rt, FILE *out, bool openmetrics);
/* every process of every container on the host now (a cgroup named as an
 * engine names a container's, rs_container_id_of): sorted, malloc'd; 0 or
 * -errno */
int dxserve_container_pids(int **pids, size_t *n);

/* the syscall a sleeping thread sleeps in, as the script keeps it (its
 * number + 1) and whether the sleep is uninterruptible (D), from /proc;
 * false when it runs or is gone.  At each scrape a thread with no event
 * yet is classed so, and its first spell set to end so in the script. */
bool dxserve_blocked_in(int pid, int tid, int64_t *sc1, int *d);

#endif
