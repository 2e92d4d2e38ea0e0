#define _GNU_SOURCE
/* sysargs N [DELAY_MS | -]: after DELAY_MS (default 0), or after reading a
 * byte from stdin with "-" (a test starts it, attaches, then lets it go), makes syscalls with known arguments N times, for the
 * signedness and user-memory tests:
 *   openat(AT_FDCWD (-100), "/dev/null", O_RDONLY)   dfd is an int: -100
 *   lseek(fd, -5, SEEK_END)                           offset is an off_t: -5
 *   kill(-3172, 0)                                     pid is a pid_t: -3172 (no such
 *                                                      process group: ESRCH)
 *   nanosleep({.tv_sec = 0, .tv_nsec = 12345678})      rqtp points into this process
 *   setresuid(-1, geteuid(), -1)                      uid_t: -1 is "unchanged" 
 * nanosleep is called through syscall(): glibc's nanosleep() makes
 * clock_nanosleep calls. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1;
	long delay = argc > 2 && strcmp(argv[2], "-") ? atol(argv[2]) : 0;
	struct timespec d = {.tv_sec = delay / 1000, .tv_nsec = delay % 1000 * 1000000};
	char go;
	if (argc > 2 && !strcmp(argv[2], "-") && read(0, &go, 1) != 1)
		return 1;
	if (delay)
		clock_nanosleep(CLOCK_MONOTONIC, 0, &d, NULL);	/* not a nanosleep call */
	for (long i = 0; i < n; i++) {
		/* on the stack: a tracepoint reads user memory without faulting
		 * pages in, and a string in a page not touched yet reads as "" */
		volatile char path[16] = "/dev/null";
		int fd = openat(AT_FDCWD, (const char *)path, O_RDONLY);
		if (fd >= 0) {
			lseek(fd, -5, SEEK_END);
			close(fd);
		}
		kill(-3172, 0);
		if (setresuid((uid_t)-1, geteuid(), (uid_t)-1) != 0)
			return 1;
		struct timespec ts = {.tv_sec = 0, .tv_nsec = 12345678};
		syscall(SYS_nanosleep, &ts, NULL);
	}
	return 0;
}
