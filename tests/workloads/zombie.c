/* zombie CMD [ARGS...]: a parent that keeps its child a zombie, for the
 * tests of a -p PID that has exited (t_probes.sh, t_containers.sh).
 *
 * Forks, runs CMD in the child (stdin and stdout /dev/null), waits for the
 * child to exit with waitid(WNOWAIT), which leaves it unreaped, prints
 * "zombie PID" on stdout, and then blocks reading stdin until EOF: the
 * child stays a zombie until then (a shell's `cmd & ... exec sleep` reaps
 * the child when it ends before the exec, so a zombie made that way is a
 * race).  Exits 0 when stdin closes; the zombie is then reaped by whoever
 * inherits it. */
#include <fcntl.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: zombie CMD [ARGS...]\n");
		return 2;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("zombie: fork");
		return 1;
	}
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR);
		if (fd >= 0) {
			dup2(fd, 0);
			dup2(fd, 1);
		}
		execvp(argv[1], argv + 1);
		_exit(127);
	}
	siginfo_t si;
	if (waitid(P_PID, pid, &si, WEXITED | WNOWAIT) != 0) {
		perror("zombie: waitid");
		return 1;
	}
	printf("zombie %d\n", (int)pid);
	fflush(stdout);
	char buf[64];
	while (read(0, buf, sizeof(buf)) > 0)
		;
	return 0;
}
