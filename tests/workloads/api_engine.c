/* api_engine NAPS NAP_MS SPIN_MS [NAME]: an inference service in miniature.
 * The main thread names itself NAME ("api" by default) and sleeps NAPS
 * times NAP_MS milliseconds (blocked off-CPU, as an API thread waiting for
 * requests); a thread named "engine" spins SPIN_MS milliseconds of CPU time
 * meanwhile.  A test that must not count another process's "api" (other
 * test runs on a shared machine) gives a NAME of its own. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <time.h>

static long spin_ms;

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *engine(void *arg)
{
	pthread_setname_np(pthread_self(), "engine");
	double end = now_ms() + spin_ms;
	volatile unsigned long x = 0;
	while (now_ms() < end)
		x++;
	return arg;
}

int main(int argc, char **argv)
{
	long naps = argc > 1 ? atol(argv[1]) : 5, nap_ms = argc > 2 ? atol(argv[2]) : 100;
	spin_ms = argc > 3 ? atol(argv[3]) : 300;
	pthread_setname_np(pthread_self(), argc > 4 ? argv[4] : "api");
	pthread_t t;
	pthread_create(&t, NULL, engine, NULL);
	struct timespec ts = {nap_ms / 1000, (nap_ms % 1000) * 1000000};
	for (long i = 0; i < naps; i++)
		nanosleep(&ts, NULL);
	pthread_join(t, NULL);
	return 0;
}
