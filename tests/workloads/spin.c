/* spin THREADS MS: THREADS busy threads pinned to CPU 0 for MS milliseconds,
 * so they wait in the run queue for each other. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdlib.h>
#include <time.h>

static long ms;

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *spin(void *arg)
{
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	sched_setaffinity(0, sizeof(set), &set);
	double end = now() + ms;
	volatile unsigned long x = 0;
	while (now() < end)
		x++;
	return arg;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 2;
	ms = argc > 2 ? atol(argv[2]) : 1000;
	pthread_t t[64];
	for (int i = 0; i < n && i < 64; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	for (int i = 0; i < n && i < 64; i++)
		pthread_join(t[i], NULL);
	return 0;
}
