/* dx_service MODE ARGS: a stand-in for a service with one known host-side
 * bottleneck, for `sonde diagnose` (tests/e2e/t_diagnose.sh).
 *   spin MS [-w FILE | -m FILE]
 *                        a busy loop for MS milliseconds; -w: first wait
 *                        (asleep) until FILE exists, -m: make FILE once
 *                        started (a test's competitors, waiting with -w,
 *                        then start with the service, not before it)
 *   faults FILE PASSES   read a file through a mapping PASSES times, evicting
 *                        it from the page cache before each pass (major
 *                        faults); prints its own ru_majflt at the end
 *   fsync FILE N         N times: write 4 KB and fsync (blocked on I/O)
 *   nvioctl CTL UVM      NVIDIA driver requests on CTL (as /dev/nvidiactl)
 *                        and UVM (as /dev/nvidia-uvm): NV_ESC_REGISTER_FD 2,
 *                        NV_ESC_RM_ALLOC 3, NV_ESC_RM_CONTROL 5 (control
 *                        command 0x20800110), UVM_INITIALIZE 1, UVM_MIGRATE 4,
 *                        then waits to be killed
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int spin(long ms, const char *opt, const char *file)
{
	struct timespec one = {0, 1000000};
	if (opt && !strcmp(opt, "-w"))
		while (access(file, F_OK))
			nanosleep(&one, NULL);
	else if (opt && !strcmp(opt, "-m"))
		close(open(file, O_WRONLY | O_CREAT, 0600));
	double end = now_ms() + ms;
	volatile unsigned long x = 0;
	while (now_ms() < end)
		for (int i = 0; i < 100000; i++)
			x++;
	return 0;
}

static int faults(const char *path, int passes)
{
	const size_t size = 64 << 20;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0 || ftruncate(fd, 0))
		return 1;
	char block[1 << 16];
	memset(block, 'x', sizeof(block));
	for (size_t off = 0; off < size; off += sizeof(block))
		if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
			return 1;
	fsync(fd);
	volatile unsigned long sum = 0;
	for (int p = 0; p < passes; p++) {
		posix_fadvise(fd, 0, size, POSIX_FADV_DONTNEED);
		unsigned char *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED)
			return 1;
		/* no readahead: every page is a fault of its own */
		madvise(m, size, MADV_RANDOM);
		for (size_t off = 0; off < size; off += 4096)
			sum += m[off];
		munmap(m, size);
	}
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("majflt %ld\n", ru.ru_majflt);
	close(fd);
	unlink(path);
	return 0;
}

static int fsyncs(const char *path, int n)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	char buf[4096];
	memset(buf, 'y', sizeof(buf));
	for (int i = 0; fd >= 0 && i < n; i++)
		if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || fsync(fd))
			return 1;
	unlink(path);
	return fd < 0;
}

/* NVIDIA's requests: _IOWR('F', nr, size) on the control file, plain
 * numbers on nvidia-uvm (nv-ioctl-numbers.h, nv_escape.h, uvm_ioctl.h) */
#define NV_REQ(nr, size) (unsigned long)_IOC(_IOC_READ | _IOC_WRITE, 'F', (nr), (size))
struct nvos54 {			/* NVOS54_PARAMETERS: an RM control call */
	uint32_t client, object, cmd, flags;
	uint64_t params;
	uint32_t params_size, status;
};

static int nvioctl(const char *ctl, const char *uvm)
{
	int c = open(ctl, O_RDWR), u = open(uvm, O_RDWR);
	if (c < 0 || u < 0)
		return 1;
	struct nvos54 ctrl = {.cmd = 0x20800110};
	char arg[64] = {0};
	for (int i = 0; i < 2; i++)
		ioctl(c, NV_REQ(201, 4), arg);
	for (int i = 0; i < 3; i++)
		ioctl(c, NV_REQ(0x2b, 0x30), arg);
	for (int i = 0; i < 5; i++)
		ioctl(c, NV_REQ(0x2a, sizeof(ctrl)), &ctrl);
	ioctl(u, 0x30000001UL, arg);
	for (int i = 0; i < 4; i++)
		ioctl(u, 51UL, arg);
	/* a GPU service keeps its device files open: stay until killed */
	pause();
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "spin"))
		return spin(atol(argv[2]), argc >= 5 ? argv[3] : NULL, argv[4]);
	if (argc >= 4 && !strcmp(argv[1], "faults"))
		return faults(argv[2], atoi(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "fsync"))
		return fsyncs(argv[2], atoi(argv[3]));
	if (argc >= 4 && !strcmp(argv[1], "nvioctl"))
		return nvioctl(argv[2], argv[3]);
	fprintf(stderr, "usage: dx_service spin MS [-w FILE | -m FILE] | faults FILE PASSES | fsync FILE N | "
		"nvioctl CTL UVM\n");
	return 2;
}
