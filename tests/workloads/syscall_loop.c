/* syscall_loop N: N getppid() system calls; prints the nanoseconds per
 * call, so a tracer's cost per event reads directly (bench/overhead).
 * With SYSCALL_LOOP_CPU=1 in the environment the nanoseconds are the
 * process's CPU time (user and system) per call, not the clock's: what a
 * tracer takes from it, without the time it waited for a busy CPU. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	const char *cpu = getenv("SYSCALL_LOOP_CPU");
	clockid_t clk = cpu && *cpu == '1' ? CLOCK_PROCESS_CPUTIME_ID : CLOCK_MONOTONIC;
	struct timespec a, b;
	clock_gettime(clk, &a);
	for (long i = 0; i < n; i++)
		syscall(SYS_getppid);
	clock_gettime(clk, &b);
	double ns = ((b.tv_sec - a.tv_sec) * 1e9 + (b.tv_nsec - a.tv_nsec)) / (double)n;
	printf("%.1f\n", ns);
	return 0;
}
