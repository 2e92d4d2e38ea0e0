/* exited_wl [N]: a short-lived process with known call chains into
 * getppid(), for stacks of processes that have exited (t_exited.sh):
 *   main -> chain_a -> step -> getppid    3 times
 *   main -> chain_b -> step -> getppid    once
 * then it exits at once (about a millisecond, most of it exec and the
 * dynamic loader).  N > 1 repeats the whole, for a longer life.
 * Built with -O1 -fno-omit-frame-pointer -fno-optimize-sibling-calls (the
 * kernel walks user stacks by frame pointer; every caller stays on the
 * stack). */
#include <stdlib.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;
volatile int reps = 3;	/* not unrolled: one call site, one stack */

NOINLINE void step(void)
{
	sink += getppid();
	__asm__ volatile("" ::: "memory");
}

NOINLINE void chain_a(void)
{
	for (int i = 0; i < reps; i++)
		step();
	__asm__ volatile("" ::: "memory");
}

NOINLINE void chain_b(void)
{
	step();
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	for (long r = 0; r < n; r++) {
		chain_a();
		chain_b();
	}
	return 0;
}
