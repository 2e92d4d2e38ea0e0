/* ioctl_dev PATH N CMD [HOLD]: open PATH, make N ioctl(fd, CMD) calls,
 * then keep the descriptor open, so that a tracer printing while it runs
 * can still read /proc/PID/fd/FD: HOLD milliseconds, or, when HOLD is a
 * path, while that file exists (the test removes it once it saw what it
 * waited for, however long a busy machine took; 600 s at most).  (On a device
 * without that ioctl each call fails with ENOTTY; the syscall tracepoints
 * fire all the same.) */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 4)
		return 2;
	long n = atol(argv[2]), hold = argc > 4 ? atol(argv[4]) : 0;
	const char *hold_path = argc > 4 && argv[4][0] == '/' ? argv[4] : NULL;
	unsigned long cmd = strtoul(argv[3], NULL, 0);
	int fd = open(argv[1], O_RDONLY);
	if (fd < 0)
		return 1;
	for (long i = 0; i < n; i++)
		ioctl(fd, cmd, 0);
	if (hold_path) {
		struct timespec tick = {0, 10 * 1000000};
		for (int i = 0; i < 60000 && access(hold_path, F_OK) == 0; i++)
			nanosleep(&tick, NULL);
	} else {
		struct timespec ts = {hold / 1000, (hold % 1000) * 1000000};
		nanosleep(&ts, NULL);
	}
	close(fd);
	return 0;
}
