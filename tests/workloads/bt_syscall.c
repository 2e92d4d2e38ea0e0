/* bt_syscall NAME [ARG]: this project's stand-in for bpftrace's
 * tests/testprogs/syscall, which the bpftrace 0.17 runtime tests of
 * tests/vm/bt017 run as ./testprogs/syscall:
 *   read          create $TMPDIR/bpftrace_runtime_test_syscall_gen_read_temp
 *                 (TMPDIR defaults to /tmp), read(2) 0 bytes from it, close
 *                 and remove it (the tests look for that path in filp_close)
 *   nanosleep [N] one nanosleep(2) of N ns (default 100; a fraction of a
 *                 nanosecond rounds up to 1, 1e8 is 100 ms)
 *   openat        openat(2) with O_CREAT of a file in $TMPDIR, then remove it
 * Anything else prints the usage and exits 1. */
#include <ctype.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int usage(void)
{
	fputs("usage: bt_syscall read | nanosleep [NS] | openat\n", stderr);
	return 1;
}

static void tmp_path(char *buf, size_t n, const char *name)
{
	const char *dir = getenv("TMPDIR");
	snprintf(buf, n, "%s/%s", dir ? dir : "/tmp", name);
}

static int do_read(void)
{
	char path[4096], buf[10];
	tmp_path(path, sizeof(path), "bpftrace_runtime_test_syscall_gen_read_temp");
	int fd = open(path, O_CREAT | O_RDONLY, 0600);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	long r = syscall(SYS_read, fd, buf, 0);
	close(fd);
	unlink(path);
	if (r < 0) {
		perror("read");
		return 1;
	}
	return 0;
}

static int do_nanosleep(const char *arg)
{
	double ns = 100;
	if (arg) {
		char *end;
		if (!isdigit((unsigned char)arg[0]))
			return usage();
		ns = strtod(arg, &end);
		if (*end)
			return usage();
		if (ns > 0 && ns < 1)
			ns = 1;
	}
	struct timespec ts = {(time_t)(ns / 1e9), 0};
	ts.tv_nsec = (long)(ns - (double)ts.tv_sec * 1e9);
	if (syscall(SYS_nanosleep, &ts, NULL)) {
		perror("nanosleep");
		return 1;
	}
	return 0;
}

static int do_openat(void)
{
	char path[4096];
	tmp_path(path, sizeof(path), "bpftrace_runtime_test_syscall_gen_open_temp");
	long fd = syscall(SYS_openat, AT_FDCWD, path, O_CREAT | O_RDONLY, 0600);
	if (fd < 0) {
		perror(path);
		return 1;
	}
	close((int)fd);
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return usage();
	if (!strcmp(argv[1], "read"))
		return do_read();
	if (!strcmp(argv[1], "nanosleep"))
		return do_nanosleep(argc > 2 ? argv[2] : NULL);
	if (!strcmp(argv[1], "openat"))
		return do_openat();
	return usage();
}
