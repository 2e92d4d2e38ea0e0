/* pid_calls N [twice]: known calls in a process that runs before the
 * tracer, for the -p wildcard probes (uprobe:*:, usdt:*:, t_probes.sh).
 * Writes "ready" to stdout, waits for a byte on stdin (the tracer has
 * attached), then calls pid_hit_one(i) N times, pid_hit_two(i) 2N times,
 * malloc(64)/free N times, fires the USDT probe pidcalls:hit(i) N times,
 * and exits.  write(2) and read(2), not stdio: nothing of its own
 * allocates, so a uprobe on libc's malloc counts exactly N.  "twice" maps
 * its own executable a second time (PROT_EXEC) before "ready", as a
 * process that maps one file at two addresses. */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#define SDT_PROBE1(provider, name, arg)                                         \
	__asm__ __volatile__(                                                   \
		"990: nop\n"                                                    \
		".pushsection .note.stapsdt,\"?\",\"note\"\n"                   \
		".balign 4\n"                                                   \
		".4byte 992f-991f, 994f-993f, 3\n"                              \
		"991: .asciz \"stapsdt\"\n"                                     \
		"992: .balign 4\n"                                              \
		"993: .8byte 990b\n"                                            \
		".8byte _.stapsdt.base\n"                                       \
		".8byte 0\n"                                                    \
		".asciz \"" provider "\"\n"                                     \
		".asciz \"" name "\"\n"                                         \
		".asciz \"-8@%0\"\n"                                            \
		"994: .balign 4\n"                                              \
		".popsection\n"                                                 \
		".ifndef _.stapsdt.base\n"                                      \
		".pushsection .stapsdt.base,\"aG\",\"progbits\",.stapsdt.base,comdat\n" \
		".weak _.stapsdt.base\n"                                        \
		".hidden _.stapsdt.base\n"                                      \
		"_.stapsdt.base: .space 1\n"                                    \
		".size _.stapsdt.base, 1\n"                                     \
		".popsection\n"                                                 \
		".endif\n"                                                      \
		:: "nor"(arg))

volatile long sink;

__attribute__((noinline)) void pid_hit_one(long i)
{
	sink += i;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void pid_hit_two(long i)
{
	sink -= i;
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 5;
	char c;
	if (argc > 2) {
		int fd = open("/proc/self/exe", O_RDONLY);
		if (fd < 0 || mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) == MAP_FAILED)
			return 2;
	}
	if (write(1, "ready\n", 6) != 6 || read(0, &c, 1) != 1)
		return 1;
	for (long i = 0; i < n; i++) {
		void *volatile p = malloc(64);
		free(p);
		pid_hit_one(i);
		pid_hit_two(i);
		pid_hit_two(i);
		SDT_PROBE1("pidcalls", "hit", i);
	}
	return 0;
}
