/* sdt_probes N: USDT probes written with <sys/sdt.h> (systemtap-sdt-dev),
 * for the usdt: tests.  Each of N iterations fires
 *   sondet:step(i, p->y = 3i, (int)i - 3, (unsigned char)i, name)  name = "item<i>"
 *   sondet:glob(glob)        an operand relative to %rip (glob = 42)
 *   sondet:consts(5, -7, i)  constant operands
 *   sondet:twice(i)          from two inlined places: two notes, one name
 *   sondet:gated(i)          only while its semaphore is set (a tracer attached)
 * and then sondet:done(N) once.  It prints how often gated fired. */
#define _SDT_HAS_SEMAPHORES 1
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>

/* with _SDT_HAS_SEMAPHORES every probe has one; only gated reads its own */
#define SEM(name) unsigned short sondet_##name##_semaphore __attribute__((section(".probes"), used))
SEM(step);
SEM(glob);
SEM(consts);
SEM(twice);
SEM(gated);
SEM(done);

struct pt {
	long x;
	int y;
};

long glob = 42;

static inline __attribute__((always_inline)) void twice(long v)
{
	DTRACE_PROBE1(sondet, twice, v);
}

__attribute__((noinline)) void step(long i, struct pt *p, const char *name)
{
	int small = (int)i - 3;
	unsigned char c = (unsigned char)i;
	DTRACE_PROBE5(sondet, step, i, p->y, small, c, name);
	DTRACE_PROBE1(sondet, glob, glob);
	DTRACE_PROBE3(sondet, consts, 5, -7, i);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10, gated = 0;
	struct pt p = {1, 2};
	char name[16];
	for (long i = 0; i < n; i++) {
		p.y = (int)i * 3;
		snprintf(name, sizeof(name), "item%ld", i);
		step(i, &p, name);
		twice(i);
		twice(i * 2 + 1);
		if (sondet_gated_semaphore) {
			DTRACE_PROBE1(sondet, gated, i);
			gated++;
		}
	}
	DTRACE_PROBE1(sondet, done, n);
	printf("gated %ld\n", gated);
	return 0;
}
