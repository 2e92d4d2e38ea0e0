/* page_faults FILE PAGES: user page faults of known kinds on a file of
 * PAGES pages (created if shorter).
 *
 *   1. a private writable mapping, every page written:   PAGES faults
 *   2. madvise(MADV_DONTNEED), every page written again: PAGES faults
 *   3. the file's pages dropped from the page cache (fdatasync, then
 *      POSIX_FADV_DONTNEED), a shared read-only mapping with MADV_RANDOM
 *      (no readahead, no fault-around), every page read: PAGES faults, each
 *      a major fault that reads the page from disk
 *
 * Writes to a private mapping copy the page on each fault, so neither
 * fault-around nor readahead can map several pages in one fault. */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	long pages = atol(argv[2]), pg = sysconf(_SC_PAGESIZE);
	size_t len = (size_t)(pages * pg);
	int fd = open(argv[1], O_RDWR | O_CREAT, 0644);
	if (fd < 0)
		return 1;
	char buf[4096];
	memset(buf, 'x', sizeof(buf));
	for (size_t off = 0; off < len; off += sizeof(buf))
		if (pwrite(fd, buf, sizeof(buf), (off_t)off) != (ssize_t)sizeof(buf))
			return 1;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, 0);
	if (p == MAP_FAILED)
		return 1;
	for (int round = 0; round < 2; round++) {
		for (long i = 0; i < pages; i++)
			p[i * pg] = (char)round;
		madvise(p, len, MADV_DONTNEED);
	}
	munmap(p, len);
	fdatasync(fd);
	posix_fadvise(fd, 0, (off_t)len, POSIX_FADV_DONTNEED);
	volatile char *r = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	if (r == MAP_FAILED)
		return 1;
	madvise((void *)r, len, MADV_RANDOM);
	long sum = 0;
	for (long i = 0; i < pages; i++)
		sum += r[i * pg];
	close(fd);
	return sum == 0;
}
