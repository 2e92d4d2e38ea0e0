/* vdso_loop N: clock_gettime(CLOCK_MONOTONIC) N times, from read_clock():
 * nearly all of its CPU time is in the vDSO (__vdso_clock_gettime), where
 * a profile:hz sampler finds it (t_stacks.sh names that frame).  Built
 * with frame pointers, so the walk goes on past the vDSO frame to
 * read_clock and main. */
#include <stdlib.h>
#include <time.h>

volatile long sink;

__attribute__((noinline)) void read_clock(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	sink += ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	for (long i = 0; i < n; i++)
		read_clock();
	return 0;
}
