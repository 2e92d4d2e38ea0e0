/* work N: calls work(i % 1000, i % 7) N times; work() returns a + b.
 * A PIE with symbols, for uprobe/uretprobe/usym tests. */
#include <stdlib.h>

__attribute__((noinline)) long work(long a, long b)
{
	__asm__ volatile("" ::: "memory");
	return a + b;
}

__attribute__((noinline)) long other(long a)
{
	__asm__ volatile("" ::: "memory");
	return a * 2;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000, s = 0;
	for (long i = 0; i < n; i++)
		s += work(i % 1000, i % 7);
	s += other(n);
	return s == 0;
}
