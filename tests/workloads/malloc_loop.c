/* malloc_loop N [SIZE]: N malloc(SIZE)/free pairs and nothing else, so a
 * uprobe on libc's malloc counts exactly N calls for this process (glibc's
 * startup allocates through ld.so's own minimal malloc, not libc's). */
#include <stdlib.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000;
	long size = argc > 2 ? atol(argv[2]) : 64;
	for (long i = 0; i < n; i++) {
		void *volatile p = malloc((size_t)size);
		free(p);
	}
	return 0;
}
