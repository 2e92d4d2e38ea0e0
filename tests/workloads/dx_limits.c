/* dx_limits MODE ARGS: a service held back by its own limits, for `sonde
 * diagnose` (tests/e2e/t_dxlimits.sh).
 *   spinners N MS [-w FILE | -m FILE]
 *                        N threads, each a busy loop for MS milliseconds (on
 *                        fewer CPUs than N, the service competes with itself);
 *                        -w: first wait (asleep) until FILE exists, -m: make
 *                        FILE once started (a test's competitors, waiting
 *                        with -w, then start with the service, not before)
 *   mapread FILE MB READS GO
 *                        write an MB-megabyte FILE, drop it from the page
 *                        cache, wait until the file GO exists, then read
 *                        READS pages of it at random through a mapping (no
 *                        readahead): under a memory cgroup limit below MB,
 *                        the pages read are reclaimed and read back (major
 *                        faults); prints its own ru_majflt at the end
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *spin(void *arg)
{
	double end = now_ms() + *(long *)arg;
	volatile unsigned long x = 0;
	while (now_ms() < end)
		for (int i = 0; i < 100000; i++)
			x++;
	return NULL;
}

/* until the file exists: asleep, polled every millisecond */
static void wait_file(const char *path)
{
	struct timespec ms = {0, 1000000};
	while (access(path, F_OK))
		nanosleep(&ms, NULL);
}

static int spinners(int n, long ms, const char *opt, const char *file)
{
	pthread_t t[64];
	if (opt && !strcmp(opt, "-w"))
		wait_file(file);
	else if (opt && !strcmp(opt, "-m"))
		close(open(file, O_WRONLY | O_CREAT, 0600));
	for (int i = 0; i < n && i < 64; i++)
		pthread_create(&t[i], NULL, spin, &ms);
	for (int i = 0; i < n && i < 64; i++)
		pthread_join(t[i], NULL);
	return 0;
}

static int mapread(const char *path, long mb, long reads, const char *go)
{
	size_t size = (size_t)mb << 20;
	int fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
	if (fd < 0)
		return 1;
	char block[1 << 16];
	memset(block, 'x', sizeof(block));
	for (size_t off = 0; off < size; off += sizeof(block))
		if (write(fd, block, sizeof(block)) != (ssize_t)sizeof(block))
			return 1;
	fsync(fd);
	posix_fadvise(fd, 0, (off_t)size, POSIX_FADV_DONTNEED);
	struct timespec ms = {0, 1000000};
	for (int i = 0; access(go, F_OK) && i < 60000; i++)
		nanosleep(&ms, NULL);
	unsigned char *m = mmap(NULL, size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return 1;
	madvise(m, size, MADV_RANDOM);
	volatile unsigned long sum = 0;
	unsigned long long r = 88172645463325252ull;
	size_t pages = size / 4096;
	for (long i = 0; i < reads; i++) {
		r ^= r << 13, r ^= r >> 7, r ^= r << 17;	/* xorshift64 */
		sum += m[(r % pages) * 4096];
	}
	munmap(m, size);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("majflt %ld\n", ru.ru_majflt);
	close(fd);
	unlink(path);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc >= 4 && !strcmp(argv[1], "spinners"))
		return spinners(atoi(argv[2]), atol(argv[3]), argc >= 6 ? argv[4] : NULL, argv[5]);
	if (argc >= 6 && !strcmp(argv[1], "mapread"))
		return mapread(argv[2], atol(argv[3]), atol(argv[4]), argv[5]);
	fprintf(stderr, "usage: dx_limits spinners N MS [-w FILE | -m FILE] | mapread FILE MB READS GO\n");
	return 2;
}
