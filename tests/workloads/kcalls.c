/* kcalls N: N nanosleep() calls of 1 ns, then N read()s of 7 bytes from
 * /dev/zero and N openat()s of /dev/null: kernel functions called a known
 * number of times by this process (do_nanosleep, vfs_read with a count of
 * 7, do_sys_openat2), for the kprobe and fentry suites of tests/vm. */
#include <fcntl.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10;
	struct timespec ts = {0, 1};
	for (long i = 0; i < n; i++)
		nanosleep(&ts, NULL);
	char buf[7];
	int fd = open("/dev/zero", O_RDONLY);
	for (long i = 0; i < n && fd >= 0; i++)
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			return 1;
	for (long i = 0; i < n; i++) {
		int f = open("/dev/null", O_RDONLY);
		if (f >= 0)
			close(f);
	}
	return 0;
}
