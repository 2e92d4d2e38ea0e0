/* unwind GO [plain|again|signal|lib LIB]: a workload for ustack without frame
 * pointers (tests/e2e/t_unwind.sh), built with -O2 -fomit-frame-pointer.
 *
 * Waits for the file GO, then calls mark() at the bottom of a chain of
 * functions: plain calls (again: a second time after the file GO.1
 * appears); through a signal handler (raise: the stack
 * holds glibc's signal trampoline); or through the library LIB, opened
 * with dlopen() only now (after sonde attached; it prints "opened"),
 * whose functions call mark() back twice: after the file GO.1 appears,
 * and after GO.2.
 * mark() prints glibc's backtrace() of itself (libgcc's unwinder, from
 * .eh_frame): a "frame ADDRESS" line a frame, then "end".  A uprobe on
 * mark reads the same stack from mark's first instruction, so the frames
 * after mark's own must be the same addresses. */
#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind_mark.h"

#define NOINLINE __attribute__((noinline))

static void on_signal(int sig)
{
	(void)sig;
	mark();
}

static void wait_file(const char *path)
{
	while (access(path, F_OK))
		usleep(1000);
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
	const char *mode = argc > 2 ? argv[2] : "plain";
	signal(SIGUSR1, on_signal);
	printf("ready\n");
	fflush(stdout);
	wait_file(argv[1]);
	if (!strcmp(mode, "lib") && argc > 3) {
		void *h = dlopen(argv[3], RTLD_NOW);
		int (*outer)(void (*)(void), int) = h ? (int (*)(void (*)(void), int))dlsym(h, "lib_outer") : NULL;
		if (!outer) {
			fprintf(stderr, "unwind: %s\n", dlerror());
			return 1;
		}
		/* opened: the test may delete the file now */
		char next[4096];
		printf("opened\n");
		fflush(stdout);
		snprintf(next, sizeof(next), "%s.1", argv[1]);
		wait_file(next);
		sink += outer(mark, argc);
		snprintf(next, sizeof(next), "%s.2", argv[1]);
		wait_file(next);
		sink += outer(mark, argc);
		return 0;
	}
	if (!strcmp(mode, "again")) {
		char next[4096];
		sink += level1(argc, 0);
		snprintf(next, sizeof(next), "%s.1", argv[1]);
		wait_file(next);
	}
	return level1(argc, !strcmp(mode, "signal")) > 1000000 ? 1 : 0;
}
