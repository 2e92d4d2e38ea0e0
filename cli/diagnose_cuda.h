/*
 * diagnose_cuda.h - sonde diagnose's CUDA probes (diagnose_cuda.c): the
 * CUDA runtime and driver libraries a service maps, and the probes that
 * count each of their calls once.
 */
#ifndef SONDE_CLI_DIAGNOSE_CUDA_H
#define SONDE_CLI_DIAGNOSE_CUDA_H

#include <stdio.h>

struct arena;

/* the first libcudart and libcuda seen in the service's processes, and a
 * process that maps each (its /proc/PID/root holds the file) */
struct dx_cudalibs {
	const char *cudart, *libcuda;
	int cudart_pid, libcuda_pid;
};

/* note the CUDA libraries pid maps */
void dxc_scan(struct arena *a, struct dx_cudalibs *l, int pid);
/* the probes, into the diagnose script: @cu_n[tid, func] counts and
 * @cu_ns[tid, func] times the outermost traced call of each thread */
void dxc_script(struct arena *a, FILE *f, const struct dx_cudalibs *l);

#endif
