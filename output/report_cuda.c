/*
 * report_cuda.c - the CUDA part of `sonde diagnose`'s report: which calls
 * it traces, what kind of call each is, and the section that prints them.
 *
 * An inference server hands work to the GPU through the CUDA runtime
 * (libcudart: cudaLaunchKernel, cudaGraphLaunch, ...) and, where a
 * framework compiles its own kernels (Triton, JAX), through the driver API
 * beneath it (libcuda: cuLaunchKernel, cuGraphLaunch, ...).  The runtime
 * calls the driver, so a probe on both would count a runtime call twice:
 * the cli counts a call only when no other traced call is in progress on
 * its thread (cli/diagnose_cuda.c), and this table says, for each function
 * traced, its API and its kind, so the report can give launches, graph
 * launches and synchronisations apart.  Pure functions of dx_report, as in
 * report.c.
 */
#include <inttypes.h>
#include <string.h>

#include "common/arena.h"
#include "output/output.h"

/* _ptsz/_ptds variants (per-thread default stream) count as their base */
static const struct dx_cufunc funcs[] = {
	{"cudaLaunchKernel", DX_CU_LAUNCH, false},
	{"cudaLaunchKernelExC", DX_CU_LAUNCH, false},
	{"cudaGraphLaunch", DX_CU_GRAPH, false},
	{"cudaMemcpy", DX_CU_COPY, false},
	{"cudaMemcpyAsync", DX_CU_COPY, false},
	{"cudaStreamSynchronize", DX_CU_SYNC, false},
	{"cudaDeviceSynchronize", DX_CU_SYNC, false},
	{"cudaEventSynchronize", DX_CU_SYNC, false},
	{"cudaMalloc", DX_CU_MEMORY, false},
	{"cudaFree", DX_CU_MEMORY, false},
	{"cuLaunchKernel", DX_CU_LAUNCH, true},
	{"cuLaunchKernelEx", DX_CU_LAUNCH, true},
	{"cuGraphLaunch", DX_CU_GRAPH, true},
	{"cuMemcpyHtoDAsync_v2", DX_CU_COPY, true},
	{"cuStreamSynchronize", DX_CU_SYNC, true},
	{"cuCtxSynchronize", DX_CU_SYNC, true},
};

static const char *const kind_names[DX_CU_NKIND] = {
	[DX_CU_LAUNCH] = "kernel launches", [DX_CU_GRAPH] = "CUDA graph launches",
	[DX_CU_SYNC] = "synchronisations", [DX_CU_COPY] = "copies", [DX_CU_MEMORY] = "allocations",
};
static const char *const kind_keys[DX_CU_NKIND] = {
	[DX_CU_LAUNCH] = "launch", [DX_CU_GRAPH] = "graph_launch", [DX_CU_SYNC] = "sync",
	[DX_CU_COPY] = "copy", [DX_CU_MEMORY] = "memory",
};

const struct dx_cufunc *dx_cuda_funcs(size_t *n)
{
	*n = sizeof(funcs) / sizeof(funcs[0]);
	return funcs;
}

const char *dx_cuda_base(struct arena *a, const char *name)
{
	size_t l = strlen(name);
	if (l > 5 && (!strcmp(name + l - 5, "_ptsz") || !strcmp(name + l - 5, "_ptds")))
		return arena_printf(a, "%.*s", (int)(l - 5), name);
	return name;
}

const struct dx_cufunc *dx_cuda_func(const char *name)
{
	for (size_t i = 0; i < sizeof(funcs) / sizeof(funcs[0]); i++)
		if (!strcmp(funcs[i].name, name))
			return &funcs[i];
	return NULL;
}

/* the calls of each kind and their time */
static void sum_kinds(const struct dx_report *r, uint64_t *n, uint64_t *ns)
{
	memset(n, 0, sizeof(uint64_t) * DX_CU_NKIND);
	memset(ns, 0, sizeof(uint64_t) * DX_CU_NKIND);
	for (int i = 0; i < r->ncuda; i++) {
		const struct dx_cufunc *f = dx_cuda_func(r->cuda[i].func);
		if (!f)
			continue;
		n[f->kind] += r->cuda[i].n;
		ns[f->kind] += r->cuda[i].ns;
	}
}

static void calls_line(FILE *out, const char *name, uint64_t n, uint64_t ns, double seconds)
{
	fprintf(out, "    %-30s %8" PRIu64 " calls %8.1f/s  %10.1f ms in all\n", name, n,
		seconds ? n / seconds : 0, ns / 1e6);
}

void dx_cuda_text(FILE *out, const struct dx_report *r)
{
	if (!r->ncuda)
		return;
	fprintf(out, "\nCUDA calls, each counted once (a driver call made inside a runtime call is "
		"the runtime call's):\n");
	if (r->cudart)
		fprintf(out, "    runtime: %s\n", r->cudart);
	if (r->libcuda)
		fprintf(out, "    driver:  %s\n", r->libcuda);
	uint64_t n[DX_CU_NKIND], ns[DX_CU_NKIND];
	sum_kinds(r, n, ns);
	for (int k = 0; k < DX_CU_NKIND; k++)
		if (n[k] || k <= DX_CU_SYNC)
			calls_line(out, kind_names[k], n[k], ns[k], r->seconds);
	fprintf(out, "  by function:\n");
	/* by kind, the runtime's before the driver's, in the table's order,
	 * then any other */
	size_t nf = sizeof(funcs) / sizeof(funcs[0]);
	for (int k = 0; k < DX_CU_NKIND; k++)
		for (int d = 0; d < 2; d++)
			for (size_t t = 0; t <= nf; t++)
				for (int i = 0; i < r->ncuda; i++) {
					const struct dx_cufunc *f = dx_cuda_func(r->cuda[i].func);
					if (t < nf ? f != &funcs[t] || (int)f->kind != k || f->driver != d
						   : f || k || d)
						continue;
					char name[64];
					snprintf(name, sizeof(name), "%s%s", r->cuda[i].func, d ? " (driver)" : "");
					calls_line(out, name, r->cuda[i].n, r->cuda[i].ns, r->seconds);
				}
}

void dx_cuda_json(FILE *out, const struct dx_report *r)
{
	fputs(", \"cuda\": [", out);
	for (int i = 0; i < r->ncuda; i++) {
		const struct dx_cufunc *f = dx_cuda_func(r->cuda[i].func);
		fprintf(out, "%s{\"func\": ", i ? ", " : "");
		pr_json_string(out, r->cuda[i].func, strlen(r->cuda[i].func));
		fprintf(out, ", \"api\": \"%s\", \"kind\": \"%s\", \"calls\": %" PRIu64 ", \"ns\": %" PRIu64 "}",
			f && f->driver ? "driver" : "runtime", f ? kind_keys[f->kind] : "other",
			r->cuda[i].n, r->cuda[i].ns);
	}
	fputs("], \"cuda_kinds\": {", out);
	uint64_t n[DX_CU_NKIND], ns[DX_CU_NKIND];
	sum_kinds(r, n, ns);
	for (int k = 0; k < DX_CU_NKIND; k++)
		fprintf(out, "%s\"%s\": {\"calls\": %" PRIu64 ", \"per_second\": %.3f, \"ns\": %" PRIu64 "}",
			k ? ", " : "", kind_keys[k], n[k], r->seconds ? n[k] / r->seconds : 0, ns[k]);
	fputs("}, \"cuda_runtime\": ", out);
	if (r->cudart)
		pr_json_string(out, r->cudart, strlen(r->cudart));
	else
		fputs("null", out);
	fputs(", \"cuda_driver\": ", out);
	if (r->libcuda)
		pr_json_string(out, r->libcuda, strlen(r->libcuda));
	else
		fputs("null", out);
}

const char *dx_cuda_evidence(struct arena *a, const struct dx_report *r)
{
	uint64_t n[DX_CU_NKIND], ns[DX_CU_NKIND];
	sum_kinds(r, n, ns);
	if (!n[DX_CU_SYNC] && !n[DX_CU_LAUNCH] && !n[DX_CU_GRAPH])
		return "";
	return arena_printf(a, " (%" PRIu64 " synchronisations took %.1f ms; %" PRIu64 " kernel launches, %"
			    PRIu64 " graph launches)", n[DX_CU_SYNC], ns[DX_CU_SYNC] / 1e6, n[DX_CU_LAUNCH],
			    n[DX_CU_GRAPH]);
}
