/* ioctl_loop N CMD: make N ioctl(fd, CMD) calls on /dev/null (each fails
 * with ENOTTY, but the syscall tracepoints fire all the same). */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	unsigned long cmd = argc > 2 ? strtoul(argv[2], NULL, 0) : 0x5401;
	int fd = open("/dev/null", O_RDONLY);
	if (fd < 0)
		return 1;
	for (long i = 0; i < n; i++)
		ioctl(fd, cmd, 0);
	close(fd);
	return 0;
}
