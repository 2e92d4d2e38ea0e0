/* fleet_service FIFO: a stand-in for a containerized service whose threads
 * are each in one state most of the time, for `sonde diagnose --serve`
 * (tests/e2e/t_diagnose_fleet.sh).  Threads, by name:
 *   spinner    runs 20 ms, sleeps 80 ms (busy without taking a CPU from
 *              the tests beside it)
 *   napper     5 ms sleeps, one after another
 *   dozer      3 s sleeps: a sleep spans several scrapes a second apart
 *   ephemeral  blocks reading FIFO, and exits when a line comes
 * The main thread waits for the others.  Prints "ready PID" once every
 * thread runs and has its name.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static const char *fifo;
static int started;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cv = PTHREAD_COND_INITIALIZER;

static void up(const char *name)
{
	pthread_setname_np(pthread_self(), name);
	pthread_mutex_lock(&mu);
	started++;
	pthread_cond_broadcast(&cv);
	pthread_mutex_unlock(&mu);
}

static void *spinner(void *arg)
{
	up("spinner");
	volatile unsigned long x = 0;
	struct timespec nap = {0, 80000000L};
	for (;;) {
		struct timespec t0, t;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		do {
			for (int i = 0; i < 100000; i++)
				x++;
			clock_gettime(CLOCK_MONOTONIC, &t);
		} while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 20000000L);
		nanosleep(&nap, NULL);
	}
	return NULL;
}

static void *sleeper(void *arg)
{
	long ns = (long)arg;
	up(ns < 1000000000L ? "napper" : "dozer");
	struct timespec ts = {ns / 1000000000L, ns % 1000000000L};
	for (;;)
		nanosleep(&ts, NULL);
	return NULL;
}

static void *ephemeral(void *arg)
{
	up("ephemeral");
	/* O_RDWR: open does not wait for a writer, and read waits for a line */
	int fd = open(fifo, O_RDWR);
	char c;
	if (fd >= 0 && read(fd, &c, 1) < 0)
		perror("read");
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: fleet_service FIFO\n");
		return 2;
	}
	fifo = argv[1];
	pthread_t t[4];
	pthread_create(&t[0], NULL, spinner, NULL);
	pthread_create(&t[1], NULL, sleeper, (void *)5000000L);
	pthread_create(&t[2], NULL, sleeper, (void *)3000000000L);
	pthread_create(&t[3], NULL, ephemeral, NULL);
	pthread_mutex_lock(&mu);
	while (started < 4)
		pthread_cond_wait(&cv, &mu);
	pthread_mutex_unlock(&mu);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	for (int i = 0; i < 4; i++)
		pthread_join(t[i], NULL);
	return 0;
}
