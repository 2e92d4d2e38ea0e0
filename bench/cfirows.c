/*
 * cfirows FILE... - for bench/unwind: each file's unwind rows as sonde
 * builds them (host/cfi.c): "rows BYTES MS source path", one line a file.
 */
#include <fcntl.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#include "host/cfi.h"

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct hcfi_rows r;
		char err[256];
		struct timespec a, b;
		int fd = open(argv[i], O_RDONLY);
		if (fd < 0) {
			printf("- - - - %s\n", argv[i]);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &a);
		int rc = hcfi_build(fd, &r, err, sizeof(err));
		clock_gettime(CLOCK_MONOTONIC, &b);
		close(fd);
		double ms = (b.tv_sec - a.tv_sec) * 1e3 + (b.tv_nsec - a.tv_nsec) / 1e6;
		if (rc)
			printf("0 0 %.1f %s %s\n", ms, err, argv[i]);
		else
			printf("%u %zu %.1f %s %s\n", r.n, r.n * sizeof(struct unw_row), ms, r.source, argv[i]);
		hcfi_free(&r);
	}
	return 0;
}
