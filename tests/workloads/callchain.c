/* callchain calls N: known call chains for the stack pictures (t_pictures.sh).
 *   main -> run_a -> mid_x -> leaf     3N times
 *   main -> run_b -> mid_x -> leaf      N times
 *   main -> run_b -> mid_y -> leaf     2N times
 * callchain hold N: the calls, then finish(), then waits to be killed (at
 * most 30 s), so a tracer that stops at uprobe:finish reads the symbols of
 * a live process (bpftrace 0.17 cannot read them once it exited).
 * callchain paced N: N rounds of run_a(1) 10 ms apart (leaf's argument
 * is 0, 1, 2), for interval-printed histograms.
 * callchain sites N: main -> run_c -> mid_x -> leaf 3N times, from two
 * call sites in run_c (N and 2N times): one function at two offsets.
 * callchain spin N: the same shape of CPU time for a profile:hz sampler:
 * main -> spin_a burns 3 parts, main -> spin_b 1 part, N rounds.
 * Built with -fno-omit-frame-pointer (the kernel walks user stacks by
 * frame pointer) and no sibling calls, so every caller stays on the stack;
 * -fcf-protection=none keeps endbr64 out of the prologue. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile long sink;

NOINLINE void bump(long i)
{
	sink += i;
}

/* not a leaf, so it sets up its frame: a uprobe at leaf+4 (after push
 * rbp; mov rbp, rsp) sees every caller */
NOINLINE void leaf(long i)
{
	bump(i);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void mid_x(long i)
{
	leaf(i);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void mid_y(long i)
{
	leaf(i);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void run_a(long n)
{
	for (long i = 0; i < 3 * n; i++)
		mid_x(i);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void run_b(long n)
{
	for (long i = 0; i < n; i++)
		mid_x(i);
	for (long i = 0; i < 2 * n; i++)
		mid_y(i);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void run_c(long n)
{
	for (long i = 0; i < n; i++)
		mid_x(i);
	__asm__ volatile("" ::: "memory");
	for (long i = 0; i < 2 * n; i++)
		mid_x(i);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void finish(void)
{
	__asm__ volatile("" ::: "memory");
}

/* the call makes it set up a frame, so a sample inside names its caller */
NOINLINE void burn(long iters)
{
	for (long i = 0; i < iters; i++)
		sink += i;
	bump(0);
}

NOINLINE void spin_a(void)
{
	burn(3000000);
	__asm__ volatile("" ::: "memory");
}

NOINLINE void spin_b(void)
{
	burn(1000000);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long n = argc > 2 ? atol(argv[2]) : 10;
	if (argc > 1 && !strcmp(argv[1], "spin")) {
		for (long r = 0; r < n; r++) {
			spin_a();
			spin_b();
		}
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "sites")) {
		run_c(n);
		return 0;
	}
	if (argc > 1 && !strcmp(argv[1], "paced")) {
		for (long r = 0; r < n; r++) {
			run_a(1);
			usleep(10000);
		}
		return 0;
	}
	run_a(n);
	run_b(n);
	if (argc > 1 && !strcmp(argv[1], "hold")) {
		finish();
		alarm(30);
		pause();
	}
	return 0;
}
