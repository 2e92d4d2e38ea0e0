/* libsondetest.c: the library of the container tests (t_containers.sh,
 * t_agent.sh).
 * Built twice, like two distributions' builds of one libc: plain, and with
 * -DSONDE_PAD=N, which puts N bytes of code before sonde_target so the
 * same symbol lands at a clearly different file offset.  A probe placed by
 * one build's offset on the other build's file would hit nothing (or the
 * padding), never sonde_target.
 *
 * For the user-space probes (t_agent.sh), functions long enough for the
 * agent's 5-byte jump, aligned as -O2 would align them (the jump goes in
 * with one aligned atomic store):
 *   sonde_alloc(n, tag)  one malloc, returns 2n + (tag != 0)
 *   sonde_nap(us)        sleeps us microseconds (latency histograms)
 *   sonde_tiny(x)        4 bytes: the agent must refuse it */
#include <stdlib.h>
#include <time.h>

#ifdef SONDE_PAD
#define STR2(x) #x
#define STR(x) STR2(x)
/* in .text before sonde_target: -fno-toplevel-reorder keeps source order */
__attribute__((noinline, used)) void sonde_padding(void)
{
	__asm__ volatile(".fill " STR(SONDE_PAD) ", 1, 0x90");
}
#endif

__attribute__((noinline)) int sonde_target(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + 1;
}

static volatile unsigned long sink;

__attribute__((noinline, aligned(16))) long sonde_alloc(long n, const char *tag)
{
	char *p = malloc((size_t)n + 8);
	if (!p)
		return -1;
	p[0] = (char)n;
	sink += (unsigned long)p[0];
	free(p);
	return 2 * n + (tag != 0);
}

__attribute__((noinline, aligned(16))) long sonde_nap(long us)
{
	struct timespec ts = {us / 1000000, (us % 1000000) * 1000};
	while (nanosleep(&ts, &ts))
		;
	return us;
}

/* in assembly, so that its ELF size is exactly its 4 bytes */
__asm__(".text\n.globl sonde_tiny\n.type sonde_tiny, @function\n.p2align 4\n"
	"sonde_tiny:\n\tlea 1(%rdi), %eax\n\tret\n.size sonde_tiny, . - sonde_tiny\n");
