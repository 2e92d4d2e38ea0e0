/*
 * rt_int.h - state shared by the files of runtime/ (not a public header).
 */
#ifndef SONDE_RT_INT_H
#define SONDE_RT_INT_H

#include <bpf/libbpf.h>
#include <signal.h>

#include "../common/arena.h"
#include "runtime.h"

struct ksyms;
struct rs_symcache;
struct rs_cgcache;

struct rt {
	const struct sema_result *r;
	const struct cg_object *obj;
	const struct rt_opts *o;
	struct bpf_object *bpf;
	struct ring_buffer *rb;
	struct bpf_link **links;
	int nlinks, caplinks;
	int *perf_fds;
	int nperf, capperf;
	int *map_fds;		/* by sema map id */
	int ncpus;
	volatile sig_atomic_t stop;
	int exit_code;
	struct arena *perm;	/* lives for the run */
	struct arena *a;	/* scratch: per event or map print, else perm */
	/* printing state, loaded on first use */
	struct ksyms *ksyms;
	struct rs_symcache *syms;
	struct rs_cgcache *cgroups;
	const char **attach_names;	/* global attach index -> probe name */
	int nattach_names;
	const char **site_names;	/* uprobe cookie -> function name */
	int nsite_names, capsite_names;
};

/* render.c: one value as text; *is_str tells JSON to quote it */
const char *rt_render(struct rt *rt, const struct type *t, const void *bytes, bool *is_str);
/* maps.c */
int rt_map_print(struct rt *rt, const struct sema_map *m, uint32_t top, uint32_t div);
int rt_map_clear(struct rt *rt, const struct sema_map *m, bool zero_only);
void rt_maps_print_all(struct rt *rt);
/* events.c */
int rt_event(void *ctx, void *data, size_t size);

#endif
