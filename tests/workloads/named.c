/* named NAME N: renames itself NAME (its comm, as BPF sees it: at most 15
 * bytes) and then makes N getppid() calls, 1 ms apart: a traced process
 * whose name is hostile, for the system() test. */
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 3)
		return 2;
	prctl(PR_SET_NAME, argv[1], 0, 0, 0);
	struct timespec ts = { 0, 1000000 };
	for (long i = atol(argv[2]); i > 0; i--) {
		getppid();
		nanosleep(&ts, NULL);
	}
	return 0;
}
