/* sondetest_call LIB N [FIFO]: dlopen LIB by path, then call its
 * sonde_target() N times and exit.  With FIFO, wait for one byte on it
 * after the library is mapped and before the first call, so a tracer can
 * resolve and attach while the process runs and no call is missed; the
 * line "ready PID" on stdout says the library is mapped. */
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: sondetest_call LIB N [FIFO]\n");
		return 2;
	}
	void *h = dlopen(argv[1], RTLD_NOW);
	if (!h) {
		fprintf(stderr, "sondetest_call: %s\n", dlerror());
		return 1;
	}
	int (*target)(int) = (int (*)(int))dlsym(h, "sonde_target");
	if (!target) {
		fprintf(stderr, "sondetest_call: no sonde_target in %s\n", argv[1]);
		return 1;
	}
	long n = atol(argv[2]);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	if (argc > 3) {
		char c;
		int fd = open(argv[3], O_RDONLY);
		if (fd < 0 || read(fd, &c, 1) != 1) {
			perror("sondetest_call: fifo");
			return 1;
		}
		close(fd);
	}
	long s = 0;
	for (long i = 0; i < n; i++)
		s += target((int)i);
	return s == -1;
}
