/* libsondetest.c: the library of the container tests (t_containers.sh).
 * Built twice, like two distributions' builds of one libc: plain, and with
 * -DSONDE_PAD=N, which puts N bytes of code before sonde_target so the
 * same symbol lands at a clearly different file offset.  A probe placed by
 * one build's offset on the other build's file would hit nothing (or the
 * padding), never sonde_target. */
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
