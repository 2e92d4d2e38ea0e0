/*
 * progstats - the kernel's own measure of what a tracer's BPF programs
 * cost, for the benches (bench/kinds, bench/events).
 *
 *   progstats enable        turn on BPF run-time statistics
 *                           (BPF_ENABLE_STATS) and hold them on until
 *                           SIGTERM/SIGINT; prints "on" once they are
 *   progstats show PID      for each BPF program that process holds open:
 *                           "ID NAME RUN_CNT RUN_TIME_NS", one a line
 *
 * The statistics are counted only while someone holds them enabled, and
 * they stop when the holder exits, so a bench cannot leave them on.  A
 * process's programs are found through its file descriptors: the fdinfo of
 * a BPF program fd names its prog_id.  Both tracers (sonde and bpftrace)
 * are measured the same way, in the same run.
 */
#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <linux/bpf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static int enable(void)
{
	int fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (fd < 0) {
		fprintf(stderr, "progstats: BPF_ENABLE_STATS: %s\n", strerror(errno));
		return 1;
	}
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	printf("on\n");
	fflush(stdout);
	int sig;
	sigwait(&set, &sig);
	close(fd);
	return 0;
}

/* prog ids seen already: a process may hold one program through several fds */
static int seen(const unsigned *ids, int n, unsigned id)
{
	for (int i = 0; i < n; i++)
		if (ids[i] == id)
			return 1;
	return 0;
}

static int show(const char *pid)
{
	char dir[64];
	snprintf(dir, sizeof(dir), "/proc/%s/fdinfo", pid);
	DIR *d = opendir(dir);
	if (!d) {
		fprintf(stderr, "progstats: %s: %s\n", dir, strerror(errno));
		return 1;
	}
	unsigned ids[4096];
	int nids = 0;
	struct dirent *e;
	while ((e = readdir(d)) && nids < 4096) {
		char path[320], line[256];
		snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
		FILE *f = fopen(path, "r");
		if (!f)
			continue;
		unsigned id = 0;
		while (fgets(line, sizeof(line), f))
			if (sscanf(line, "prog_id: %u", &id) == 1)
				break;
		fclose(f);
		if (!id || seen(ids, nids, id))
			continue;
		ids[nids++] = id;
		int fd = bpf_prog_get_fd_by_id(id);
		if (fd < 0)
			continue;
		struct bpf_prog_info info;
		memset(&info, 0, sizeof(info));
		__u32 len = sizeof(info);
		if (!bpf_obj_get_info_by_fd(fd, &info, &len))
			printf("%u %s %llu %llu\n", id, info.name[0] ? info.name : "-",
			       (unsigned long long)info.run_cnt, (unsigned long long)info.run_time_ns);
		close(fd);
	}
	closedir(d);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "enable"))
		return enable();
	if (argc == 3 && !strcmp(argv[1], "show"))
		return show(argv[2]);
	fprintf(stderr, "usage: progstats enable | progstats show PID\n");
	return 2;
}
