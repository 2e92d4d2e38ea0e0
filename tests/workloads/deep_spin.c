/* deep_spin DEPTH [clock]: spins forever at the bottom of DEPTH nested
 * calls (bench/unwind, tests/e2e/t_unwind.sh: a profile's stacks are DEPTH
 * frames deep, through code built with -O2 -fomit-frame-pointer); with
 * clock, the bottom calls clock_gettime in a loop, so most samples are in
 * the vDSO. */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;

NOINLINE long down(int d, int clock)
{
	volatile char pad[48];	/* a frame of its own, not a loop */
	pad[d % 48] = (char)d;
	if (d <= 0) {
		struct timespec ts;
		for (;;) {
			if (clock)
				clock_gettime(CLOCK_MONOTONIC, &ts);
			sink += clock ? ts.tv_nsec : 1;
		}
	}
	return down(d - 1, clock) + pad[d % 48];
}

int main(int argc, char **argv)
{
	return (int)down(argc > 1 ? atoi(argv[1]) : 30, argc > 2 && !strcmp(argv[2], "clock"));
}
