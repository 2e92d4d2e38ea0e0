/*
 * child.c - the processes the command line names or starts: -p PID checked
 * against the running system, and -c CMD forked, held before exec until the
 * probes are attached, and killed when the run fails before it starts.
 * Both `sonde` (main.c) and `sonde diagnose` (diagnose.c) use them.
 */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/file.h"

/* -p PID: a number, within pid_max, of a process that runs now */
int cli_parse_pid(const char *arg)
{
	char *end;
	errno = 0;
	long long v = strtoll(arg, &end, 10);
	if (end == arg || *end || v <= 0) {
		fprintf(stderr, "sonde: -p: '%s' is not a process id (a positive number)\n", arg);
		return -1;
	}
	long long max = 4194304;
	char *text;
	if (!file_read_all("/proc/sys/kernel/pid_max", 32, &text, NULL)) {
		max = atoll(text);
		free(text);
	}
	if (errno == ERANGE || v > max) {
		fprintf(stderr, "sonde: -p: %s is out of range (process ids are 1 to %lld here)\n", arg,
			max);
		return -1;
	}
	if (kill((pid_t)v, 0) && errno == ESRCH) {
		fprintf(stderr, "sonde: -p: no process %lld is running\n", v);
		return -1;
	}
	return (int)v;
}

/* with --user-probes the child preloads the agent, which holds it before
 * main() until sonde has hooked it */
static void child_agent_env(const char *lib, const char *dir)
{
	const char *old = getenv("LD_PRELOAD");
	char *pre = NULL;
	if (asprintf(&pre, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "") < 0)
		_exit(127);
	setenv("LD_PRELOAD", pre, 1);
	setenv("SONDE_AGENT_WAIT", "1", 1);
	setenv("SONDE_RUN_DIR", dir, 1);
}

/* -c CMD as bpftrace splits it: words at each single space, no shell
 * (quotes, $VAR, tabs and globs are plain characters), so that cpid is the
 * command itself and no shell runs as cpid first.  Two spaces make an
 * empty word, as bpftrace's splitting does, and a space at the end none.
 * A NULL-terminated argv, or NULL when out of memory. */
static char **child_argv(const char *cmd)
{
	size_t n = strlen(cmd);
	char *copy = strdup(cmd);
	char **av = calloc(n + 2, sizeof(*av));
	if (!copy || !av)
		return NULL;
	int ac = 0;
	for (char *w = copy;;) {
		char *sp = strchr(w, ' ');
		if (!sp) {
			if (*w || ac == 0)
				av[ac++] = w;
			break;
		}
		*sp = '\0';
		av[ac++] = w;
		w = sp + 1;
	}
	av[ac] = NULL;
	return av;
}

int cli_start_child(const char *cmd, int *go_fd, const char *agent_lib, const char *agent_dir)
{
	/* a socket, not a pipe: the runtime's go byte is sent with
	 * MSG_NOSIGNAL, so a child killed while held costs no SIGPIPE */
	int fds[2];
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds))
		return -errno;
	pid_t p = fork();
	if (p < 0)
		return -errno;
	if (p == 0) {
		char c;
		close(fds[1]);
		/* wait until the probes are attached, so nothing is missed */
		if (read(fds[0], &c, 1) != 1)
			_exit(127);
		if (agent_lib)
			child_agent_env(agent_lib, agent_dir);
		char **av = child_argv(cmd);
		if (!av)
			_exit(127);
		execvp(av[0], av);
		fprintf(stderr, "sonde: cannot run '%s': %m\n", av[0]);
		_exit(127);
	}
	close(fds[0]);
	*go_fd = fds[1];
	return p;
}

void cli_child_kill(int child, int go_fd)
{
	if (child > 0) {
		kill(child, SIGKILL);
		close(go_fd);
	}
}
