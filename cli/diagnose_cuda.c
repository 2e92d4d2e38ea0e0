/*
 * diagnose_cuda.c - the CUDA calls `sonde diagnose` counts: the runtime
 * (libcudart) and the driver API beneath it (libcuda), in the files the
 * service maps.
 *
 * The runtime calls the driver: cudaGraphLaunch calls cuGraphLaunch,
 * cudaStreamSynchronize cuStreamSynchronize.  A program may also call the
 * driver itself (Triton's and JAX's kernels go through cuLaunchKernel).
 * So every traced function counts only when no traced call is in progress
 * on its thread: a per-thread depth (@cud) goes up on each entry and down
 * on each return, a call is counted on entry at depth 0 and timed when its
 * depth comes back to 0, so a driver call under a runtime call is the
 * runtime call's, and a driver call of the program's own counts as
 * itself.  A call in progress when the window opens is neither counted
 * nor timed (its return finds no depth); a thread whose traced call never
 * returns (cancelled inside it, or past the kernel's limit of nested
 * return probes) keeps its depth, and its later calls are not counted.
 *
 * Only the functions a file has are probed (a libcudart before 11.8 has
 * no cudaLaunchKernelExC), and the per-thread default stream variants
 * (_ptsz, _ptds) with their base, so that a program built with
 * --default-stream per-thread is seen too; the report folds them into the
 * base name (output/report_cuda.c holds the list and the kinds).
 */
#include <stdbool.h>
#include <string.h>

#include "cli/diagnose_cuda.h"
#include "common/arena.h"
#include "host/host.h"
#include "output/output.h"

struct scan {
	struct arena *a;
	struct dx_cudalibs *l;
	int pid;
};

/* a mapped file whose base name is a library short name (libcuda.so.1,
 * not libcudart.so or libcudnn.so): the first of each */
static int scan_one(const struct rs_mapping *m, void *ctx)
{
	struct scan *sc = ctx;
	const char *base = strrchr(m->path, '/');
	if (!base || m->deleted)
		return 0;
	if (!sc->l->cudart && rs_libname_match("libcudart", base + 1)) {
		sc->l->cudart = arena_strdup(sc->a, m->path);
		sc->l->cudart_pid = sc->pid;
	}
	if (!sc->l->libcuda && rs_libname_match("libcuda", base + 1)) {
		sc->l->libcuda = arena_strdup(sc->a, m->path);
		sc->l->libcuda_pid = sc->pid;
	}
	return sc->l->cudart && sc->l->libcuda;
}

void dxc_scan(struct arena *a, struct dx_cudalibs *l, int pid)
{
	struct scan sc = {a, l, pid};
	if (!l->cudart || !l->libcuda)
		rs_maps_each(pid, scan_one, &sc);
}

static int any(const struct rs_sym *s, void *ctx)
{
	return 1;
}

/* ", uprobe:PATH:NAME" for each traced function the file has, with its
 * _ptsz and _ptds variants; how many */
static int attach_list(struct arena *a, FILE *f, const char *kind, const char *path, int pid,
		       bool driver, int n)
{
	char err[256];
	struct rs_elf *e = NULL;
	/* the file as the process sees it (a container's own copy) */
	if (rs_elf_open(arena_printf(a, "/proc/%d/root%s", pid, path), &e, err, sizeof(err)))
		e = NULL;
	size_t nf;
	const struct dx_cufunc *fs = dx_cuda_funcs(&nf);
	static const char *const sfx[] = {"", "_ptsz", "_ptds"};
	for (size_t i = 0; i < nf; i++) {
		if (fs[i].driver != driver)
			continue;
		for (size_t s = 0; s < 3; s++) {
			const char *name = arena_printf(a, "%s%s", fs[i].name, sfx[s]);
			/* without the file's symbols, the base names alone */
			if (e ? rs_elf_each_match(e, name, any, NULL) <= 0 : s > 0)
				continue;
			fprintf(f, "%s%s:%s:%s", n++ ? ", " : "", kind, path, name);
		}
	}
	if (e)
		rs_elf_free(e);
	return n;
}

static int attach_all(struct arena *a, FILE *f, const char *kind, const struct dx_cudalibs *l)
{
	int n = 0;
	if (l->cudart)
		n = attach_list(a, f, kind, l->cudart, l->cudart_pid, false, n);
	if (l->libcuda)
		n = attach_list(a, f, kind, l->libcuda, l->libcuda_pid, true, n);
	return n;
}

void dxc_script(struct arena *a, FILE *f, const struct dx_cudalibs *l)
{
	if (!l->cudart && !l->libcuda)
		return;
	if (!attach_all(a, f, "uprobe", l))
		return;
	fputs(" /@svt[tid]/ {\n"
	      "	if (!@cud[tid]) { @cus[tid] = nsecs; @cu_n[tid, func] = count(); }\n"
	      "	@cud[tid]++;\n"
	      "}\n", f);
	attach_all(a, f, "uretprobe", l);
	fputs(" /@cud[tid]/ {\n"
	      "	@cud[tid]--;\n"
	      "	if (!@cud[tid]) {\n"
	      "		@cu_ns[tid, func] = sum(nsecs - @cus[tid]); delete(@cus[tid]); delete(@cud[tid]);\n"
	      "	}\n"
	      "}\n", f);
}
