/*
 * proc.h - what sonde reads of a process in /proc, one way for every
 * layer (proc.c): the pid walk, a process's or thread's stat, schedstat and
 * comm, its environment, its cgroup path, what a descriptor names, whether
 * it lives and sees paths as sonde does.  /proc/PID/maps is procmaps.c's
 * (rs_maps_each); cgroup ids and containers are container.c's.
 */
#ifndef SONDE_HOST_PROC_H
#define SONDE_HOST_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* the fields of /proc/PID/stat (or /proc/PID/task/TID/stat) sonde reads */
struct host_pstat {
	char state;		/* R, S, D, Z, X ... */
	int ppid;
	uint64_t minflt, majflt;
	uint64_t starttime;	/* clock ticks after boot: tells a process from a
				 * later one given the same pid */
};

/* tid 0: the process's own stat.  0, or -errno (gone, unreadable) */
int host_proc_stat(int pid, int tid, struct host_pstat *st);
/* the thread's time on a CPU and waiting for one (ns): 0 or -errno */
int host_proc_schedstat(int pid, int tid, uint64_t *run_ns, uint64_t *delay_ns);
/* the comm of the process (tid 0) or thread, without its newline; "" when gone */
void host_proc_comm(int pid, int tid, char *buf, size_t len);
/* every pid (pid 0) or every thread of pid, sorted, malloc'd: 0 or -errno */
int host_proc_ids(int pid, int **out, size_t *n);
/* /proc/PID exists (a zombie too) */
bool host_proc_exists(int pid);
/* exited but not reaped: /proc/PID stays, its maps are empty */
bool host_proc_zombie(int pid);
/* the value of NAME in the process's initial environment, malloc'd, or NULL */
char *host_proc_env(int pid, const char *name);
/* the process's cgroup path (relative to its hierarchy's root) from
 * /proc/PID/cgroup: the v2 one ("0::/path") when ctrl is NULL, else the v1
 * hierarchy whose controllers include ctrl ("4:cpu,cpuacct:/path");
 * malloc'd, or NULL */
char *host_proc_cgroup(int pid, const char *ctrl);
/* what the process's descriptor fd names (the /proc/PID/fd/FD link) in
 * buf; proc_root: another procfs (tests), NULL for /proc.  0 or -errno */
int host_proc_fd(const char *proc_root, int pid, int fd, char *buf, size_t len);
/* does pid see paths as sonde does (same mount namespace and root)? */
bool host_proc_same_view(int pid);
/* "1 (systemd), 77 (bash) and 12 more": the first HOST_PROC_SHOWN pids
 * with their comm */
#define HOST_PROC_SHOWN 6
void host_proc_describe(char *buf, size_t len, const int *pids, size_t n);

#endif
