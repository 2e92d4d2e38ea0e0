/* cuda_graphs RUNTIME DRIVER GO_FILE: CUDA as an inference server uses it,
 * a known number of times, for `sonde diagnose` and the cuda-calls recipe
 * (tests/e2e/t_dxcuda.sh).  dlopens the driver library DRIVER first ("-":
 * none; NVIDIA's stub libcuda.so, whose soname libcuda.so.1 the runtime
 * then finds loaded) and the runtime library RUNTIME (the real libcudart,
 * or the tests' stand-in, libcudart_stub.c, which calls the driver beneath
 * each call as the real one does on a machine with a GPU), waits until
 * GO_FILE exists, then calls
 *   the runtime: cudaGraphLaunch 3, cudaLaunchKernel 5, cudaLaunchKernelExC 2,
 *                cudaMemcpyAsync 7, cudaStreamSynchronize 11, cudaEventSynchronize 4
 *   the driver itself: cuGraphLaunch 2, cuLaunchKernel 6, cuLaunchKernelEx 1,
 *                cuMemcpyHtoDAsync_v2 3, cuStreamSynchronize 8, cuCtxSynchronize 9
 * Without a GPU every call fails, but each goes through the library.  Prints
 * "under_runtime N": the driver calls the stand-in runtime made beneath its
 * own (0 with the real runtime, which gives up before the driver's launch
 * and sync entry points when there is no GPU). */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef int (*fn_t)();

static fn_t sym(void *h, const char *name)
{
	fn_t f = h ? (fn_t)dlsym(h, name) : NULL;
	if (h && !f)
		fprintf(stderr, "cuda_graphs: no %s\n", name);
	return f;
}

/* call name n times (through h: a library that lacks it fails the run) */
static int calls(void *h, const char *name, int n)
{
	fn_t f = sym(h, name);
	if (!f)
		return h ? 1 : 0;
	/* a launch configuration (cudaLaunchConfig_t, CUlaunchConfig) of zeros */
	static char config[256];
	for (int i = 0; i < n; i++)
		f(config, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: cuda_graphs RUNTIME DRIVER|- GO_FILE\n");
		return 2;
	}
	void *drv = NULL;
	if (strcmp(argv[2], "-") && !(drv = dlopen(argv[2], RTLD_NOW | RTLD_GLOBAL))) {
		fprintf(stderr, "cuda_graphs: %s\n", dlerror());
		return 1;
	}
	void *rt = dlopen(argv[1], RTLD_NOW);
	if (!rt) {
		fprintf(stderr, "cuda_graphs: %s\n", dlerror());
		return 1;
	}
	struct timespec ms = {0, 1000000};
	for (int i = 0; access(argv[3], F_OK) && i < 60000; i++)
		nanosleep(&ms, NULL);
	int bad = calls(rt, "cudaGraphLaunch", 3) | calls(rt, "cudaLaunchKernel", 5) |
		calls(rt, "cudaLaunchKernelExC", 2) | calls(rt, "cudaMemcpyAsync", 7) |
		calls(rt, "cudaStreamSynchronize", 11) | calls(rt, "cudaEventSynchronize", 4) |
		calls(drv, "cuGraphLaunch", 2) | calls(drv, "cuLaunchKernel", 6) |
		calls(drv, "cuLaunchKernelEx", 1) | calls(drv, "cuMemcpyHtoDAsync_v2", 3) |
		calls(drv, "cuStreamSynchronize", 8) | calls(drv, "cuCtxSynchronize", 9);
	int *under = (int *)dlsym(rt, "sonde_stub_driver_calls");
	printf("under_runtime %d\n", under ? *under : 0);
	return bad;
}
