/* ticker MS: calls tick(i) about every millisecond for MS milliseconds
 * (default 3000); a process to attach to with -p. */
#include <stdlib.h>
#include <time.h>

__attribute__((noipa)) long tick(long i)
{
	__asm__ volatile("" ::: "memory");
	return i + 1;
}

int main(int argc, char **argv)
{
	long ms = argc > 1 ? atol(argv[1]) : 3000, s = 0;
	struct timespec ts = { 0, 1000000 };
	for (long i = 0; i < ms; i++) {
		s += tick(i);
		nanosleep(&ts, NULL);
	}
	return s == 0;
}
