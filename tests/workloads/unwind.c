/* unwind.c - a workload for ustack without frame pointers (tests/e2e/t_unwind.sh).
 *
 * Built with -O2 -fomit-frame-pointer.  Waits for the file argv[1], then
 * calls mark() at the bottom of a chain of functions (plain calls, or
 * through a signal handler with argv[2] = "signal"), and mark() prints
 * glibc's backtrace() of itself: one "frame ADDRESS" line a frame.  A
 * uprobe on mark reads the same stack, from its first instruction: the
 * frames past mark's own must be the same addresses. */
#include <execinfo.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE void mark(void)
{
	void *frames[128];
	int n = backtrace(frames, 128);
	/* frames[0] is in mark itself: the uprobe sees mark's entry */
	for (int i = 1; i < n; i++)
		printf("frame %p\n", frames[i]);
	fflush(stdout);
	sink++;
}

static void on_signal(int sig)
{
	(void)sig;
	mark();
}

/* a frame with a large stack, so that CFA offsets differ from frame to frame */
NOINLINE int level3(int x, int how)
{
	volatile char big[600];
	big[x & 511] = (char)x;
	if (how)
		raise(SIGUSR1);
	else
		mark();
	return big[x & 511] + sink;
}

NOINLINE int level2(int x, int how) { return level3(x * 3, how) + 1; }
NOINLINE int level1(int x, int how) { return level2(x + 7, how) * 2; }

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	int how = argc > 2 && !strcmp(argv[2], "signal");
	signal(SIGUSR1, on_signal);
	printf("ready\n");
	fflush(stdout);
	while (access(argv[1], F_OK))
		usleep(1000);
	return level1(argc, how) > 1000000 ? 1 : 0;
}
