/* libc_calls N: calls getpid() and strlen() of a volatile string N times;
 * for uprobes on libc by short name (uprobe:libc:getpid). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100, s = 0;
	static volatile char str[] = "abcdef";
	size_t (*volatile len)(const char *) = strlen;
	for (long i = 0; i < n; i++) {
		s += getpid();
		s += len((const char *)str);
	}
	return s == 0;
}
