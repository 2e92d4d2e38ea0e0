/* libcudart_stub.c - a stand-in libcudart.so for the cuda-calls recipe's
 * and sonde diagnose's tests: the entry points they probe, with the real
 * signatures' shapes, doing nothing but (for cudaStreamSynchronize)
 * waiting 2 ms the way a host thread waits for the GPU.  Where the process
 * has loaded a CUDA driver library (libcuda: NVIDIA's stub from the CUDA
 * toolkit in the tests), each launch, copy and synchronisation also calls
 * the driver's entry point beneath it, as the real runtime does on a
 * machine with a GPU (the real one cannot without a GPU), and counts those
 * calls in sonde_stub_driver_calls.  Built as libcudart.so. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int cudaError_t;

int sonde_stub_driver_calls;

/* the driver's function name, when a driver library is loaded */
static cudaError_t driver(const char *name)
{
	int (*f)() = (int (*)())dlsym(RTLD_DEFAULT, name);
	if (!f)
		return 0;
	sonde_stub_driver_calls++;
	return f(NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
}

cudaError_t cudaMalloc(void **p, size_t size)
{
	*p = malloc(size);
	return *p ? 0 : 2;
}

cudaError_t cudaMemcpy(void *dst, const void *src, size_t n, int kind)
{
	memcpy(dst, src, n);
	return 0;
}

cudaError_t cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream)
{
	memcpy(dst, src, n);
	return driver("cuMemcpyHtoDAsync_v2");
}

cudaError_t cudaLaunchKernel(const void *fn, unsigned long long grid, unsigned gy,
			     unsigned long long block, unsigned by, void **args, size_t shmem,
			     void *stream)
{
	__asm__ volatile("" ::: "memory");
	return driver("cuLaunchKernel");
}

cudaError_t cudaLaunchKernelExC(const void *config, const void *fn, void **args)
{
	return driver("cuLaunchKernelEx");
}

cudaError_t cudaGraphLaunch(void *graph, void *stream)
{
	return driver("cuGraphLaunch");
}

cudaError_t cudaEventSynchronize(void *event)
{
	return driver("cuCtxSynchronize");
}

cudaError_t cudaStreamSynchronize(void *stream)
{
	struct timespec ts = {0, 2000000};
	nanosleep(&ts, NULL);
	return driver("cuStreamSynchronize");
}
