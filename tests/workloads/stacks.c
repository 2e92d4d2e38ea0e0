/* stacks DEPTH REPEAT [MS]: calls leaf() through every path of 1 to DEPTH calls
 * among the six functions f0..f5 (6 + 36 + ... + 6^DEPTH distinct user
 * stacks: 9,330 for DEPTH 5), each path REPEAT times, and prints how many
 * paths it took.  Built with frame pointers and no sibling calls, so each
 * path is its own stack.  MS: then lives that much longer (a tracer can
 * read its mappings to name the frames). */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static volatile long sink;
static int path[16];

__attribute__((noinline)) void leaf(void)
{
	sink++;
	__asm__ volatile("" ::: "memory");
}

static void step(int level, int depth);

#define F(n) \
	__attribute__((noinline)) void f##n(int level, int depth) \
	{ \
		step(level + 1, depth); \
		__asm__ volatile("" ::: "memory"); \
	}
F(0) F(1) F(2) F(3) F(4) F(5)
static void (*const fns[6])(int, int) = {f0, f1, f2, f3, f4, f5};

__attribute__((noinline)) static void step(int level, int depth)
{
	if (level == depth)
		leaf();
	else
		fns[path[level]](level, depth);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	int depth = argc > 1 ? atoi(argv[1]) : 5, repeat = argc > 2 ? atoi(argv[2]) : 1;
	long paths = 0;
	if (depth < 1 || depth > 8)
		return 2;
	for (int d = 1; d <= depth; d++) {
		long n = 1;
		for (int i = 0; i < d; i++)
			n *= 6;
		for (long p = 0; p < n; p++, paths++) {
			long q = p;
			for (int i = 0; i < d; i++, q /= 6)
				path[i] = (int)(q % 6);
			for (int r = 0; r < repeat; r++)
				step(0, d);
		}
	}
	printf("%ld\n", paths);
	fflush(stdout);
	long ms = argc > 3 ? atol(argv[3]) : 0;
	struct timespec ts = {ms / 1000, ms % 1000 * 1000000};
	nanosleep(&ts, NULL);
	return 0;
}
