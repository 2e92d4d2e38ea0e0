/* spaced N MS: calls mark(i, i * i) for i = 0..N-1, sleeping at least MS
 * milliseconds after each call (nanosleep resumes after a signal), so that
 * under tseries() with an interval of at most MS every call lands in an
 * interval of its own however busy the machine is (calls at least an
 * interval apart never share one), and the last call's interval is over
 * when the process exits. */
#include <errno.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) long mark(long i, long v)
{
	__asm__ volatile("" ::: "memory");
	return i + v;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5, ms = argc > 2 ? atol(argv[2]) : 100, s = 0;
	for (long i = 0; i < n; i++) {
		s += mark(i, i * i);
		struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
		while (nanosleep(&t, &t) && errno == EINTR)
			;
	}
	return s == 0;
}
