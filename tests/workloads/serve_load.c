/* serve_load - workloads of known rates and distributions for the metrics
 * tests (tests/e2e/t_serve.sh) and bench/serve.
 *
 *   serve_load ioctl RATE SECONDS   RATE ioctl(2) calls a second on /dev/null,
 *                                   paced every 10 ms against absolute
 *                                   deadlines (a late tick catches up), so
 *                                   the long-run rate is exact, and so is
 *                                   the total, RATE * SECONDS; comm
 *                                   "serve_ioctl"
 *   serve_load sleep USEC SECONDS   nanosleep(USEC) in a loop; comm
 *                                   "serve_sleep"
 *   serve_load keys N SECONDS       one ioctl with each of N requests
 *                                   (0x7000 + i) every 100 ms: N keys for
 *                                   @[args->cmd]; comm "serve_keys"
 * A fourth argument names the comm instead, so that tests running side by
 * side count only their own workload.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static void add_ns(struct timespec *t, long ns)
{
	t->tv_nsec += ns;
	while (t->tv_nsec >= 1000000000L) {
		t->tv_nsec -= 1000000000L;
		t->tv_sec++;
	}
}

static double since(const struct timespec *start)
{
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (double)(now.tv_nsec - start->tv_nsec) / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: serve_load ioctl|sleep|keys N SECONDS\n");
		return 2;
	}
	long n = atol(argv[2]);
	double secs = atof(argv[3]);
	int fd = open("/dev/null", O_RDONLY);
	struct timespec start, next;
	clock_gettime(CLOCK_MONOTONIC, &start);
	next = start;
	const char *comm = argc > 4 ? argv[4] : NULL;
	if (!strcmp(argv[1], "ioctl")) {
		prctl(PR_SET_NAME, comm ? comm : "serve_ioctl");
		/* n per second in 100 ticks: the remainder spread over the ticks */
		/* exactly RATE * SECONDS calls, however late the ticks run */
		for (long tick = 0; tick < (long)(secs * 100 + 0.5); tick++) {
			long due = n * (tick + 1) / 100 - n * tick / 100;
			for (long i = 0; i < due; i++)
				ioctl(fd, 0x5401, 0);
			add_ns(&next, 10000000L);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		}
	} else if (!strcmp(argv[1], "sleep")) {
		prctl(PR_SET_NAME, comm ? comm : "serve_sleep");
		struct timespec d = {n / 1000000, (n % 1000000) * 1000};
		while (since(&start) < secs)
			nanosleep(&d, NULL);
	} else if (!strcmp(argv[1], "keys")) {
		prctl(PR_SET_NAME, comm ? comm : "serve_keys");
		while (since(&start) < secs) {
			for (long i = 0; i < n; i++)
				ioctl(fd, 0x7000 + (unsigned long)i, 0);
			add_ns(&next, 100000000L);
			clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		}
	} else {
		return 2;
	}
	return 0;
}
