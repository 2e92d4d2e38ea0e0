/* deep_spin DEPTH: spins forever at the bottom of DEPTH nested calls (for
 * bench/unwind: a profile's stacks are DEPTH frames deep, through code
 * built with -O2 -fomit-frame-pointer). */
#include <stdlib.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;

NOINLINE long down(int d)
{
	volatile char pad[48];	/* a frame of its own, not a loop */
	pad[d % 48] = (char)d;
	if (d <= 0) {
		for (;;)
			sink++;
	}
	return down(d - 1) + pad[d % 48];
}

int main(int argc, char **argv)
{
	return (int)down(argc > 1 ? atoi(argv[1]) : 30);
}
