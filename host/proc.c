/*
 * proc.c - /proc read one way: the pid and thread walks, stat (the state
 * after the comm in parentheses, which may hold spaces and ')'),
 * schedstat, comm, the initial environment, the cgroup, a descriptor's file, and whether a
 * process sees paths as sonde does.  uprobe resolution, the user-probe agents and
 * `sonde diagnose` all read processes through here.
 */
#include "host/proc.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/arena.h"
#include "common/file.h"

/* the text of /proc/PID[/task/TID]/NAME (malloc'd), or NULL */
static char *proc_file(int pid, int tid, const char *name)
{
	char path[96], *text;
	if (tid)
		snprintf(path, sizeof(path), "/proc/%d/task/%d/%s", pid, tid, name);
	else
		snprintf(path, sizeof(path), "/proc/%d/%s", pid, name);
	return file_read_all(path, 0, &text, NULL) ? NULL : text;
}

int host_proc_stat(int pid, int tid, struct host_pstat *st)
{
	char *t = proc_file(pid, tid, "stat");
	if (!t)
		return -ENOENT;
	/* "PID (COMM) S PPID PGRP SESSION TTY TPGID FLAGS MINFLT CMINFLT MAJFLT
	 * CMAJFLT UTIME STIME CUTIME CSTIME PRIORITY NICE THREADS ITREAL START" */
	char *p = strrchr(t, ')');
	unsigned long long mi, ma, start;
	int n = p ? sscanf(p + 1, " %c %d %*d %*d %*d %*d %*u %llu %*u %llu %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu",
			   &st->state, &st->ppid, &mi, &ma, &start) : 0;
	free(t);
	if (n < 2)
		return -EINVAL;
	st->minflt = n >= 4 ? mi : 0;
	st->majflt = n >= 4 ? ma : 0;
	st->starttime = n == 5 ? start : 0;
	return n >= 4 ? 0 : -EINVAL;
}

int host_proc_schedstat(int pid, int tid, uint64_t *run_ns, uint64_t *delay_ns)
{
	char *t = proc_file(pid, tid, "schedstat");
	unsigned long long r, d;
	int n = t ? sscanf(t, "%llu %llu", &r, &d) : 0;
	free(t);
	if (n != 2)
		return -ENOENT;
	*run_ns = r;
	*delay_ns = d;
	return 0;
}

void host_proc_comm(int pid, int tid, char *buf, size_t len)
{
	char *t = proc_file(pid, tid, "comm");
	snprintf(buf, len, "%s", t ? t : "");
	buf[strcspn(buf, "\n")] = '\0';
	free(t);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int host_proc_ids(int pid, int **out, size_t *n)
{
	char path[64];
	if (pid)
		snprintf(path, sizeof(path), "/proc/%d/task", pid);
	DIR *d = opendir(pid ? path : "/proc");
	struct dirent *de;
	int *v = NULL;
	size_t cnt = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long id = strtol(de->d_name, &end, 10);
		if (*end || id <= 0 || id > INT_MAX)
			continue;
		v = vec_grow(v, cnt, sizeof(*v));
		v[cnt++] = (int)id;
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(int), cmp_int);
	*out = v;
	*n = cnt;
	return 0;
}

bool host_proc_exists(int pid)
{
	char fn[64];
	snprintf(fn, sizeof(fn), "/proc/%d/stat", pid);
	return access(fn, F_OK) == 0;
}

bool host_proc_zombie(int pid)
{
	struct host_pstat st;
	return !host_proc_stat(pid, 0, &st) && (st.state == 'Z' || st.state == 'X');
}

char *host_proc_env(int pid, const char *name)
{
	char fn[64], *buf = NULL, *res = NULL;
	size_t cap = 0, len = strlen(name);
	snprintf(fn, sizeof(fn), "/proc/%d/environ", pid);
	FILE *f = fopen(fn, "re");
	if (!f)
		return NULL;
	while (getdelim(&buf, &cap, '\0', f) > 0)
		if (!strncmp(buf, name, len) && buf[len] == '=') {
			res = strdup(buf + len + 1);
			break;
		}
	fclose(f);
	free(buf);
	return res;
}

char *host_proc_cgroup(int pid, const char *ctrl)
{
	char *t = proc_file(pid, 0, "cgroup"), *res = NULL;
	for (char *line = t, *next; line && *line && !res; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		const char *ctrls = c1 + 1;
		char want[64], have[256];
		snprintf(want, sizeof(want), ",%s,", ctrl ? ctrl : "");
		snprintf(have, sizeof(have), ",%s,", ctrls);
		if (ctrl ? strstr(have, want) != NULL : !*ctrls)
			res = strdup(c2 + 1);
	}
	free(t);
	return res;
}

int host_proc_fd(const char *proc_root, int pid, int fd, char *buf, size_t len)
{
	char link[128];
	snprintf(link, sizeof(link), "%s/%d/fd/%d", proc_root ? proc_root : "/proc", pid, fd);
	ssize_t n = len ? readlink(link, buf, len - 1) : -1;
	if (n <= 0)
		return n ? -errno : -ENOENT;
	buf[n] = '\0';
	return 0;
}

bool host_proc_same_view(int pid)
{
	char a[64], b[64], fn[64];
	struct stat r1, r2;
	ssize_t n1, n2;

	snprintf(fn, sizeof(fn), "/proc/%d/ns/mnt", pid);
	n1 = readlink(fn, a, sizeof(a) - 1);
	n2 = readlink("/proc/self/ns/mnt", b, sizeof(b) - 1);
	if (n1 < 0 || n2 < 0 || n1 != n2 || memcmp(a, b, (size_t)n1))
		return false;
	snprintf(fn, sizeof(fn), "/proc/%d/root", pid);
	return stat(fn, &r1) == 0 && stat("/", &r2) == 0 &&
	       r1.st_dev == r2.st_dev && r1.st_ino == r2.st_ino;
}

void host_proc_describe(char *buf, size_t len, const int *pids, size_t n)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && i < HOST_PROC_SHOWN && used < len; i++) {
		char comm[32];
		host_proc_comm(pids[i], 0, comm, sizeof(comm));
		used += (size_t)snprintf(buf + used, len - used, "%s%d%s%s%s",
					 i ? ", " : "", pids[i], *comm ? " (" : "",
					 comm, *comm ? ")" : "");
	}
	if (n > HOST_PROC_SHOWN && used < len)
		snprintf(buf + used, len - used, " and %zu more", n - HOST_PROC_SHOWN);
}
