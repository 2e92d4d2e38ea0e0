/* libcudart_stub.c - a stand-in libcudart.so for the cuda-calls recipe's
 * tests: the five entry points it probes, with the real signatures'
 * shapes, doing nothing but (for cudaStreamSynchronize) waiting 2 ms the
 * way a host thread waits for the GPU.  Built as libcudart.so. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef int cudaError_t;

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
	return 0;
}

cudaError_t cudaLaunchKernel(const void *fn, unsigned long long grid, unsigned gy,
			     unsigned long long block, unsigned by, void **args, size_t shmem,
			     void *stream)
{
	__asm__ volatile("" ::: "memory");
	return 0;
}

cudaError_t cudaStreamSynchronize(void *stream)
{
	struct timespec ts = {0, 2000000};
	nanosleep(&ts, NULL);
	return 0;
}
