/* threads_loop THREADS N: THREADS threads, each making N getppid() system
 * calls at once, so that probes fire on every CPU at the same moment (a
 * probe's exit() races the other CPUs' events). */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

static long n;
static pthread_barrier_t go;

static void *loop(void *arg)
{
	(void)arg;
	pthread_barrier_wait(&go);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	return NULL;
}

int main(int argc, char **argv)
{
	int threads = argc > 1 ? atoi(argv[1]) : 2;
	n = argc > 2 ? atol(argv[2]) : 100000;
	if (threads < 1 || threads > 64)
		return 2;
	pthread_t t[64];
	pthread_barrier_init(&go, NULL, (unsigned)threads);
	for (int i = 0; i < threads; i++)
		pthread_create(&t[i], NULL, loop, NULL);
	for (int i = 0; i < threads; i++)
		pthread_join(t[i], NULL);
	return 0;
}
