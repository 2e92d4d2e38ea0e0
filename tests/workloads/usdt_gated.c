/* usdt_gated: fires the USDT probe sondeg:gated(i) every 5 ms, but only
 * while its semaphore is set (a tracer attached to the file), until
 * killed; for --usdt-file-activation, where the process starts before the
 * tracer and no -p names it.  Needs <sys/sdt.h> (systemtap-sdt-dev). */
#define _SDT_HAS_SEMAPHORES 1
#include <sys/sdt.h>
#include <time.h>

unsigned short sondeg_gated_semaphore __attribute__((section(".probes"), used));

int main(void)
{
	struct timespec ts = {0, 5000000};
	for (long i = 0;; i++) {
		if (sondeg_gated_semaphore)
			DTRACE_PROBE1(sondeg, gated, i);
		nanosleep(&ts, NULL);
	}
	return 0;
}
