/* teardown_load MODE [MS]: the load of the teardown matrix
 * (tests/e2e/t_teardown.sh, bench/teardown).
 *
 *   MODE flood  getppid() in a loop: a printf per call floods the ring buffer
 *        hot    td_hot() in a loop: a uprobe on it fires as fast as uprobes go
 *        idle   sleeps
 *   MS   exit after MS milliseconds (default, or 0: when told)
 *
 * Once its signals are blocked and the load thread started it prints
 * "ready NS" on stdout: a signal sent after that line is waited for.
 * SIGUSR1 makes it call getpgid(0) once, the trigger of the script's exit()
 * probe; SIGUSR2 makes it exit.  Just before either it prints "mark NS" or
 * "end NS" (CLOCK_REALTIME nanoseconds) on stdout, so a bench measures how
 * long a tracer takes to stop after the thing that should stop it.  The
 * load runs in a second thread; the main thread only waits for signals.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static const char *mode;

__attribute__((noinline)) void td_hot(void)
{
	__asm__ volatile("" ::: "memory");
}

static void *load(void *arg)
{
	if (!strcmp(mode, "flood"))
		for (;;)
			syscall(SYS_getppid);
	if (!strcmp(mode, "hot"))
		for (;;)
			td_hot();
	for (;;)
		pause();
	return arg;
}

static void stamp(const char *what)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	printf("%s %lld\n", what, (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec);
	fflush(stdout);
}

static long long now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: teardown_load flood|hot|idle [MS]\n");
		return 2;
	}
	mode = argv[1];
	long ms = argc > 2 ? atol(argv[2]) : 0;
	/* blocked before the load thread starts, so only sigtimedwait sees them */
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGUSR2);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
	pthread_t t;
	pthread_create(&t, NULL, load, NULL);
	stamp("ready");
	long long end = now_ms() + ms;
	for (;;) {
		long long left = ms > 0 ? end - now_ms() : 3600 * 1000;
		if (left <= 0)
			break;
		struct timespec ts = {left / 1000, (left % 1000) * 1000000L};
		int sig = sigtimedwait(&set, NULL, &ts);
		if (sig == SIGUSR1) {
			stamp("mark");
			syscall(SYS_getpgid, 0);
		} else if (sig == SIGUSR2) {
			break;
		}
	}
	stamp("end");
	_exit(0);
}
