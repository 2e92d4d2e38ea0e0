/*
 * stop.c - parking the process's other threads while an entry is written.
 *
 * The jump goes in with one atomic store, so a thread that enters the
 * function sees either the old entry or the new one.  What a store cannot
 * cover is a thread already between two of the displaced instructions (it
 * ran `push r12` and is about to run `push rbp`): after the store, the
 * bytes under it are the middle of the jump.  So, around the store, every
 * other thread that is not blocked in a system call gets a signal whose
 * handler parks it; once the entry is written, a parked thread whose
 * instruction pointer is inside the displaced bytes is moved to the same
 * instruction's copy in the stub, and all go on.  Threads blocked in a
 * system call are left alone: their instruction pointer is after a
 * `syscall`, which the patcher never displaces, and interrupting them
 * would make some calls fail with EINTR.
 *
 * Nothing here allocates once threads are parked: a parked thread may
 * hold malloc's lock.  Threads are listed with getdents64 into a buffer on
 * the stack, /proc files read with read().
 */
#include "agent/agent_int.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

static int stw_sig;
static int stw_arrived, stw_release, stw_left;
static const struct sa_hook *stw_hook;

static void park(int sig, siginfo_t *si, void *ucv)
{
	(void)sig, (void)si;
	ucontext_t *uc = ucv;
	__atomic_add_fetch(&stw_arrived, 1, __ATOMIC_ACQ_REL);
	while (!__atomic_load_n(&stw_release, __ATOMIC_ACQUIRE))
		syscall(SYS_sched_yield);
	const struct sa_hook *h = stw_hook;
	uint64_t rip = (uint64_t)uc->uc_mcontext.gregs[REG_RIP];
	if (h && h->installed && rip > h->addr && rip < h->addr + (uint64_t)h->len)
		for (int i = 1; i < h->ninsn; i++)
			if (rip == h->addr + h->off[i])
				uc->uc_mcontext.gregs[REG_RIP] = (greg_t)(h->stub + h->stub_off[i]);
	__atomic_add_fetch(&stw_left, 1, __ATOMIC_ACQ_REL);
}

/* a real-time signal nobody handles */
static int free_signal(void)
{
	for (int s = SIGRTMAX; s > SIGRTMIN + 3; s--) {
		struct sigaction old;
		if (!sigaction(s, NULL, &old) && old.sa_handler == SIG_DFL && !(old.sa_flags & SA_SIGINFO))
			return s;
	}
	return 0;
}

/* true when tid is blocked in a system call (its /proc syscall file
 * starts with the call's number) */
static bool in_syscall(int tid)
{
	char path[64], buf[32];
	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return false;
	buf[n] = 0;
	return buf[0] >= '0' && buf[0] <= '9';
}

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static int signal_others(void)
{
	int fd = open("/proc/self/task", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	pid_t self = (pid_t)syscall(SYS_gettid), pid = getpid();
	int sent = 0;
	char buf[4096];
	long n;
	while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
		for (long off = 0; off < n;) {
			struct linux_dirent64 *d = (struct linux_dirent64 *)(buf + off);
			off += d->d_reclen;
			int tid = atoi(d->d_name);
			if (tid <= 0 || tid == self || in_syscall(tid))
				continue;
			if (syscall(SYS_tgkill, pid, tid, stw_sig) == 0)
				sent++;
		}
	}
	close(fd);
	return sent;
}

static void wait_count(int *counter, int want)
{
	/* a thread that blocks the signal never comes: give up after 1 s */
	for (int i = 0; i < 10000 && __atomic_load_n(counter, __ATOMIC_ACQUIRE) < want; i++) {
		struct timespec ts = {0, 100000};
		nanosleep(&ts, NULL);
	}
}

int sa_write_stopped(struct sa_hook *h, int (*write)(struct sa_hook *h, const uint8_t *bytes),
		     const uint8_t *bytes)
{
	/* one instruction displaced: no thread can be inside it */
	if (h->ninsn <= 1)
		return write(h, bytes);
	if (!stw_sig && !(stw_sig = free_signal()))
		return write(h, bytes);
	struct sigaction sa = {.sa_sigaction = park, .sa_flags = SA_SIGINFO | SA_RESTART};
	sigfillset(&sa.sa_mask);
	if (sigaction(stw_sig, &sa, NULL))
		return write(h, bytes);
	stw_arrived = stw_release = stw_left = 0;
	stw_hook = h;
	int sent = signal_others();
	if (sent > 0)
		wait_count(&stw_arrived, sent);
	int rc = write(h, bytes);
	__atomic_store_n(&stw_release, 1, __ATOMIC_RELEASE);
	if (sent > 0)
		wait_count(&stw_left, __atomic_load_n(&stw_arrived, __ATOMIC_ACQUIRE));
	/* the handler stays: a late arrival (a thread that took the signal
	 * after the wait gave up) must find it, not the default action */
	stw_hook = rc ? NULL : h;
	return rc;
}
