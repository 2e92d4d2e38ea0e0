/* agent_calls LIB N FIFO [NAPS [THREADS]]: the user-probe workload
 * (t_agent.sh, bench/uprobe-modes).  dlopen LIB ("-" for none), print
 * "ready PID", wait for a byte on FIFO ("-": do not wait), then make N
 * malloc(64)/free pairs (spread over THREADS threads, each with its own
 * shard in the agent: the counts must still add up exactly) and, with a LIB, N calls of sonde_alloc(i, tag) (one malloc each; tag a
 * bad pointer for odd i), NAPS calls of sonde_nap(20000) (20 ms) and one of
 * sonde_tiny.  Prints the malloc loop's CPU ns per malloc/free pair,
 * alone on a line.  Known counts for pid: malloc N (+N with a LIB),
 * sonde_alloc N. */
#include <dlfcn.h>
#include <pthread.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* CPU time of the process (all threads), not wall time: on a machine busy
 * with other work the loop is preempted, and the time it waits is nobody's
 * cost; a kernel uprobe's trap is system time of the thread, so it counts */
static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void *mallocs(void *arg)
{
	for (long i = 0, n = (long)arg; i < n; i++) {
		void *volatile p = malloc(64);
		free(p);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: agent_calls LIB N FIFO [NAPS]\n");
		return 2;
	}
	long (*alloc)(long, const char *) = NULL, (*nap)(long) = NULL;
	int (*tiny)(int) = NULL;
	if (strcmp(argv[1], "-")) {
		void *h = dlopen(argv[1], RTLD_NOW);
		if (!h) {
			fprintf(stderr, "agent_calls: %s\n", dlerror());
			return 1;
		}
		alloc = (long (*)(long, const char *))dlsym(h, "sonde_alloc");
		nap = (long (*)(long))dlsym(h, "sonde_nap");
		tiny = (int (*)(int))dlsym(h, "sonde_tiny");
	}
	long n = atol(argv[2]), naps = argc > 4 ? atol(argv[4]) : 0, nthreads = argc > 5 ? atol(argv[5]) : 1;
	if (nthreads < 1 || nthreads > 64 || n % nthreads) {
		fprintf(stderr, "agent_calls: THREADS must divide N (1..64)\n");
		return 2;
	}
	pthread_t th[64];
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (strcmp(argv[3], "-")) {
		char c;
		int fd = open(argv[3], O_RDONLY);
		if (fd < 0 || read(fd, &c, 1) != 1) {
			perror("agent_calls: fifo");
			return 1;
		}
		close(fd);
	}
	double t0 = now();
	if (nthreads == 1) {
		mallocs((void *)n);
	} else {
		/* threads start before any counted call: pthread_create's own
		 * allocations happen before the others begin */
		for (long t = 0; t < nthreads; t++)
			if (pthread_create(&th[t], NULL, mallocs, (void *)(n / nthreads)))
				return 1;
		for (long t = 0; t < nthreads; t++)
			pthread_join(th[t], NULL);
	}
	double t1 = now();
	long s = 0;
	for (long i = 0; alloc && i < n; i++)
		s += alloc(i, (i & 1) ? (const char *)16 : "ok");
	for (long i = 0; nap && i < naps; i++)
		s += nap(20000);
	if (tiny)
		s += tiny(1);
	printf("%.2f\n", n ? (t1 - t0) / (double)n : 0.0);
	return s == -1;
}
