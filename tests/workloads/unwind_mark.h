/* unwind_mark.h - mark(), shared by the workloads of tests/e2e/t_unwind.sh
 * (unwind.c, unwind_cxx.cc): prints glibc's backtrace() of itself, one
 * "frame ADDRESS" line a frame after its own (a uprobe on mark sees its
 * entry), then "end". */
#include <execinfo.h>
#include <stdio.h>

#ifdef __cplusplus
extern "C"
#endif
__attribute__((noinline)) void mark(void);

volatile int sink;

__attribute__((noinline)) void mark(void)
{
	void *frames[128];
	int n = backtrace(frames, 128);
	for (int i = 1; i < n; i++)
		printf("frame %p\n", frames[i]);
	printf("end\n");
	fflush(stdout);
	sink++;
}
