/* cuda_app GO_FILE: links the stand-in libcudart.so (libcudart_stub.c),
 * waits until GO_FILE exists (so a tracer can attach to the mapped
 * library first), then makes a known number of calls:
 *   cudaMalloc 3, cudaMemcpy 5, cudaMemcpyAsync 7, cudaLaunchKernel 11,
 *   cudaStreamSynchronize 13 (2 ms each). */
#include <stddef.h>
#include <time.h>
#include <unistd.h>

int cudaMalloc(void **p, size_t size);
int cudaMemcpy(void *dst, const void *src, size_t n, int kind);
int cudaMemcpyAsync(void *dst, const void *src, size_t n, int kind, void *stream);
int cudaLaunchKernel(const void *fn, unsigned long long grid, unsigned gy,
		     unsigned long long block, unsigned by, void **args, size_t shmem, void *stream);
int cudaStreamSynchronize(void *stream);

int main(int argc, char **argv)
{
	struct timespec ms = {0, 1000000};
	for (int i = 0; argc > 1 && access(argv[1], F_OK) && i < 10000; i++)
		nanosleep(&ms, NULL);
	void *buf[3];
	char src[64] = "x", dst[64];
	for (int i = 0; i < 3; i++)
		cudaMalloc(&buf[i], 64);
	for (int i = 0; i < 5; i++)
		cudaMemcpy(dst, src, sizeof(src), 1);
	for (int i = 0; i < 7; i++)
		cudaMemcpyAsync(dst, src, sizeof(src), 1, NULL);
	for (int i = 0; i < 11; i++)
		cudaLaunchKernel(NULL, 1, 1, 32, 1, NULL, 0, NULL);
	for (int i = 0; i < 13; i++)
		cudaStreamSynchronize(NULL);
	return 0;
}
