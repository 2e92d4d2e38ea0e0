/*
 * stop.c - noticing that the run is over, at any event rate.
 *
 * A run ends on SIGINT or SIGTERM, on exit() in a probe, when the -c
 * command ends, and when the -p process ends.  None of these may wait for
 * the ring buffer: under a printf flood the consumer never sees it empty
 * (libbpf's drain loop only returns then), and a full ring drops the
 * exit() event itself.  So each cause has a path of its own:
 *  - the signal handlers set rt->stop and write a byte to a self-pipe;
 *    SIGCHLD (the -c command) does the same with a flag of its own, and
 *    the main loop reaps the command (ptrace stops included, symbols.c);
 *  - exit() sets a word in a one-slot mmap'able BPF array before it sends
 *    its event (codegen: cg_stop_request), and the consumer reads that
 *    word from memory: no system call, and a lost event does not matter;
 *  - the -p process is a pidfd;
 *  - the main loop sleeps in one poll() over the ring buffer's epoll fd,
 *    the self-pipe and the pidfd, and the event callback asks
 *    rt_stop_due() after every event, leaving libbpf's drain loop as soon
 *    as a cause is there.
 * SIGUSR1 is no stop: it sets a flag of its own, and the main loop runs
 * the self:signal:SIGUSR1 probes, or prints every map as bpftrace 0.17
 * does, and goes on.
 * After exit(), the records queued ahead of its own are handled before
 * the probes are detached (events.c: rt_events_drain_to_exit), so that a
 * system() there sees them attached, as in bpftrace.
 * After the stop, every event still queued is printed: the probes are
 * detached by then, so the ring holds a bounded number, and a printf
 * just before exit() or before the -c command ended is never lost to a
 * slow consumer on a busy machine.  A second SIGINT or SIGTERM cuts that
 * drain short (a slow terminal, a flood the user does not want to read):
 * the rest is counted and reported, and END and the maps follow at once.
 * system() commands still queued run for at most DRAIN_COMMANDS_MS of the
 * drain, none after SIGINT or SIGTERM; the rest are counted and reported,
 * not run.
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* inside a long drain, the main loop looks at the -p process, the -c
 * command and --follow at least this often */
#define STOP_LOOK_MS 20
/* events between two reads of the clock (a vDSO call, no system call) */
#define STOP_CLOCK_EVERY 8
/* After a drain that emptied the ring buffer, the loop rests this long
 * before it waits on the ring again (signals, the -p process and --serve
 * still wake it).  The kernel wakes the reader with the first record
 * after the reader has caught up: an interrupt and a task wakeup, paid on
 * the traced thread's CPU and counted in no BPF statistic.  A reader that
 * keeps catching up with a flood has that happen for nearly every record;
 * resting lets a batch build up, so that it happens at most once a rest.
 * The default ring holds far more than a rest's worth of any flood. */
#define RING_REST_MS 2
/* the drain after the stop runs the system() commands still queued for at
 * most this long (none after SIGINT or SIGTERM): a probe that runs a
 * command on every context switch queues more of them than a loaded
 * machine runs in seconds, and the user who pressed Ctrl-C waits for END
 * and the maps, not for them */
#define DRAIN_COMMANDS_MS 1000

static struct rt *signal_rt;	/* the run the handlers report to */
/* a signal before the run exists (compiling, loading): it stops the run
 * as soon as it starts, rather than being lost to an inherited SIG_IGN.
 * Only the few ms from exec to main()'s rt_stop_signals() stay open: a
 * SIGINT there, to a background job of a non-interactive shell (bash
 * starts those with SIGINT ignored), is discarded by the kernel, and the
 * run goes on until the next signal.  Whoever signals sonde waits for its
 * "Attached" line (from a file removed before sonde started) or for its
 * handler (SigCgt in /proc/PID/status) first. */
static volatile sig_atomic_t early_stop;

static void wake(struct rt *rt)
{
	int saved = errno;
	if (write(rt->stopper.wake[1], "s", 1) < 0) {
		/* full pipe: a wakeup is pending anyway */
	}
	errno = saved;
}

static void on_stop_signal(int sig)
{
	(void)sig;
	if (early_stop && !signal_rt) {
		/* a second Ctrl-C while compiling or loading: nothing is
		 * attached yet, so nothing needs undoing but the kernel's own
		 * (it frees the programs with the process) */
		static const char msg[] = "sonde: interrupted before tracing began\n";
		if (write(2, msg, sizeof(msg) - 1) < 0) {
			/* nowhere to say it */
		}
		_exit(130);
	}
	early_stop = 1;
	if (signal_rt) {
		if (signal_rt->stop)	/* the second: no more draining */
			signal_rt->stopper.hurry = 1;
		signal_rt->stopper.signalled = 1;
		signal_rt->stop = 1;
		wake(signal_rt);
	}
}

static void on_child_signal(int sig)
{
	(void)sig;
	if (signal_rt) {
		signal_rt->stopper.child_changed = 1;
		wake(signal_rt);
	}
}

static void on_dump_signal(int sig)
{
	(void)sig;
	if (signal_rt) {
		signal_rt->stopper.dump = 1;
		wake(signal_rt);
	}
}

/* the exit() word: the object has the map only when the script calls exit() */
static int map_exit_word(struct rt *rt)
{
	struct bpf_map *m = bpf_object__find_map_by_name(rt->bpf, CG_STOP_MAP);
	if (!m)
		return 0;
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, (size_t)page, PROT_READ, MAP_SHARED, bpf_map__fd(m), 0);
	if (p == MAP_FAILED) {
		int err = -errno;
		fprintf(stderr, "sonde: cannot map the exit() flag: %s\n", strerror(-err));
		return err;
	}
	rt->stopper.exit_word = p;
	rt->stopper.exit_len = (size_t)page;
	return 0;
}

void rt_stop_signals(void)
{
	/* SA_RESTART: a write to a slow pipe or terminal that the signal
	 * interrupts goes on (an interrupted one would fail stdout and lose
	 * its buffer); the main loop's poll() wakes through the self-pipe */
	struct sigaction sa = {.sa_handler = on_stop_signal, .sa_flags = SA_RESTART};
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
}

int rt_stop_open(struct rt *rt)
{
	struct rt_stop *st = &rt->stopper;
	st->target_fd = -1;
	if (pipe2(st->wake, O_CLOEXEC | O_NONBLOCK)) {
		int err = -errno;
		st->wake[0] = st->wake[1] = -1;
		fprintf(stderr, "sonde: cannot create a pipe: %s\n", strerror(-err));
		return err;
	}
	int err = map_exit_word(rt);
	if (err)
		return err;
	if (rt->o->pid) {
		st->target_fd = (int)syscall(SYS_pidfd_open, rt->o->pid, 0);
		/* gone already: the run ends as soon as it starts; no pidfd
		 * (a thread id, an old kernel): kill(pid, 0) at each look */
		if (st->target_fd < 0 && errno == ESRCH)
			st->target_done = true;
	}
	signal_rt = rt;
	rt_stop_signals();
	/* SA_RESTART: a read of system()'s command must not break */
	struct sigaction su = {.sa_handler = on_dump_signal, .sa_flags = SA_RESTART};
	sigaction(SIGUSR1, &su, NULL);
	if (early_stop)
		rt->stop = 1;
	if (rt->o->child_pid) {
		/* SA_RESTART: system()'s reads of its command must not break */
		struct sigaction sc = {.sa_handler = on_child_signal, .sa_flags = SA_RESTART};
		sigaction(SIGCHLD, &sc, NULL);
	}
	return 0;
}

void rt_stop_close(struct rt *rt)
{
	struct rt_stop *st = &rt->stopper;
	if (signal_rt == rt) {
		struct sigaction dfl = {.sa_handler = SIG_DFL};
		sigaction(SIGCHLD, &dfl, NULL);
		sigaction(SIGUSR1, &dfl, NULL);
		signal_rt = NULL;
	}
	if (st->exit_word)
		munmap((void *)st->exit_word, st->exit_len);
	st->exit_word = NULL;
	for (int i = 0; i < 2; i++)
		if (st->wake[i] >= 0)
			close(st->wake[i]);
	st->wake[0] = st->wake[1] = -1;
	if (st->target_fd >= 0)
		close(st->target_fd);
	st->target_fd = -1;
}

static bool target_gone(struct rt *rt)
{
	struct rt_stop *st = &rt->stopper;
	if (!rt->o->pid || st->target_done)
		return st->target_done;
	if (st->target_fd >= 0) {
		struct pollfd p = {.fd = st->target_fd, .events = POLLIN};
		st->target_done = poll(&p, 1, 0) > 0;
	} else {
		st->target_done = kill(rt->o->pid, 0) && errno == ESRCH;
	}
	return st->target_done;
}

/* every STOP_CLOCK_EVERY events: is it later than ns? */
static bool clock_past(struct rt_stop *st, uint64_t ns)
{
	return (++st->events % STOP_CLOCK_EVERY) == 0 && rt_mono_ns() > ns;
}

bool rt_stop_due(struct rt *rt)
{
	struct rt_stop *st = &rt->stopper;
	if (st->draining)
		return false;
	if (rt->stop || st->child_changed || st->dump || (st->exit_word && *st->exit_word))
		return true;
	/* what has no flag of its own (the -p process ending, --follow's
	 * rescans) waits at most STOP_LOOK_MS for the main loop */
	return clock_past(st, st->looked_ns + STOP_LOOK_MS * 1000000ull);
}

int rt_stop_wait(struct rt *rt, int timeout_ms)
{
	struct rt_stop *st = &rt->stopper;
	/* the extra fd (--serve's HTTP server) only needs to wake the loop:
	 * -1 is ignored by poll() */
	struct pollfd p[5] = {
		{.fd = ring_buffer__epoll_fd(rt->rb), .events = POLLIN},
		{.fd = st->wake[0], .events = POLLIN},
		{.fd = st->target_fd, .events = POLLIN},
		{.fd = st->extra_fd, .events = POLLIN},
		{.fd = rt_skb_epoll_fd(rt), .events = POLLIN},	/* skboutput()'s packets */
	};
	if (rt->ev.handled && !rt->ev.more) {
		p[0].fd = -1;
		if (timeout_ms < 0 || timeout_ms > RING_REST_MS)
			timeout_ms = RING_REST_MS;
	}
	if (rt_stop_due(rt))
		timeout_ms = 0;
	int n = poll(p, 5, timeout_ms);
	if (n < 0)
		return errno == EINTR ? 0 : -errno;
	if (p[1].revents) {
		char buf[64];
		while (read(st->wake[0], buf, sizeof(buf)) > 0)
			;
	}
	if (p[2].revents)
		st->target_done = true;
	return p[0].revents || p[4].revents ? 1 : 0;
}

/* SIGUSR1: the script's self:signal:SIGUSR1 probes, as the newest
 * bpftrace (which dropped the map dump); without one, every map as it is
 * now, without the exit-time separator (as bpftrace 0.17 prints it) */
bool rt_stop_dump_due(struct rt *rt)
{
	if (!rt->stopper.dump)
		return false;
	rt->stopper.dump = 0;
	return true;
}

bool rt_stop_update(struct rt *rt)
{
	struct rt_stop *st = &rt->stopper;
	st->looked_ns = rt_mono_ns();
	if (st->exit_word && *st->exit_word)
		rt->stop = 1;
	if (rt->o->child_pid && !st->child_done) {
		/* every look, not only after SIGCHLD: a signal that came
		 * before the handler was installed is not lost */
		st->child_changed = 0;
		int status = 0;
		pid_t p = rt_child_wait(rt, &status, false);
		if (p == rt->o->child_pid) {
			st->child_done = true;
			st->child_status = status;
			rt->stop = 1;
		}
	}
	if (target_gone(rt))
		rt->stop = 1;
	return rt->stop;
}

/* the event callback: true while a drain was cut short - count the
 * event instead of printing it */
bool rt_stop_skip_event(struct rt *rt)
{
	struct rt_stop *st = &rt->stopper;
	if (!st->draining || !st->hurry)
		return false;
	st->not_printed++;
	return true;
}

bool rt_stop_skip_command(struct rt *rt)
{
	struct rt_stop *st = &rt->stopper;
	if (!st->draining || (!st->hurry && !st->signalled &&
				rt_mono_ns() - st->drain_ns < DRAIN_COMMANDS_MS * 1000000ull))
		return false;
	st->not_run++;
	return true;
}

void rt_stop_drain_begin(struct rt *rt)
{
	rt->stopper.draining = true;
	rt->stopper.drain_ns = rt_mono_ns();
}

uint64_t rt_stop_drain_end(struct rt *rt)
{
	struct rt_stop *st = &rt->stopper;
	uint64_t cut = st->not_printed;
	st->not_printed = 0;
	if (st->not_run)
		fprintf(stderr, "sonde: %llu queued system() command%s not run: %s\n",
			(unsigned long long)st->not_run, st->not_run == 1 ? "" : "s",
			st->signalled ? "the run was interrupted" : "the run had stopped a second before");
	st->not_run = 0;
	st->hurry = 0;	/* END's own events all print */
	return cut;
}
