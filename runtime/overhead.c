/*
 * overhead.c - --overhead: what each probe costs the processes it traces.
 *
 * The kernel measures every BPF program's run time while statistics are
 * enabled (BPF_ENABLE_STATS; they stay on while sonde holds the fd, and
 * only then): run_cnt and run_time_ns of each program give hits and BPF
 * nanoseconds per hit.  A uprobe costs more than its program: each hit
 * traps into the kernel (about 6 us here, DESIGN.md), which the BPF
 * statistics do not see.  sonde measures that trap at start-up on a
 * function of its own: it times calls to it, then the same calls under a
 * uprobe running an empty program (and under a uretprobe when the script
 * has one).  A tracepoint too costs more than its program, less than a
 * trap: it is calibrated the same way on getppid() calls.  From hits per
 * second and the cost per hit follows the share
 * of a CPU the probe takes from the traced processes; past 5 % it says so
 * in one line, with what to do instead.  With -v the table is printed once
 * a second while tracing; it is always printed at exit, after the maps.
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <inttypes.h>
#include <linux/bpf.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WARN_SHARE 0.05		/* of one CPU */
/* calls per timing: 5-20 ms of CPU, several timer ticks */
#define CALIBRATE_CALLS 1000		/* of calibration_target, a 5-20 us trap each */
#define CALIBRATE_SYSCALLS 16000	/* of getppid(), ~1 us each */
#define CALIBRATE_ROUNDS 7

struct ov_prog {
	int fd;
	const char *name;	/* the probe's first attach point */
	int more;		/* further attach points of the same program */
	enum probe_type type;
	uint64_t cnt, ns;	/* at the last look */
	uint64_t last_cnt;	/* at the look before */
	bool warned;
};

struct rt_overhead {
	int stats_fd;
	uint64_t start_ns, last_ns;
	uint64_t trap_ns, ret_trap_ns;	/* calibrated; 0 when not measured */
	uint64_t tp_ns;			/* a tracepoint's, the same way */
	struct ov_prog *progs;
	int nprogs;
};

/* ---- calibration ---------------------------------------------------------- */

/* the function sonde probes to time a uprobe's trap */
static __attribute__((noinline, used)) int calibration_target(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

/* the file offset of calibration_target in sonde's own executable */
static int target_offset(uint64_t *off)
{
	uintptr_t addr = (uintptr_t)&calibration_target;
	FILE *f = fopen("/proc/self/maps", "r");
	if (!f)
		return -errno;
	char line[512];
	int err = -ENOENT;
	while (fgets(line, sizeof(line), f)) {
		unsigned long lo, hi, pgoff;
		char perms[8];
		if (sscanf(line, "%lx-%lx %7s %lx", &lo, &hi, perms, &pgoff) == 4 && addr >= lo &&
		    addr < hi) {
			*off = addr - lo + pgoff;
			err = 0;
			break;
		}
	}
	fclose(f);
	return err;
}

/* an empty program of the kind a uprobe (or a tracepoint) runs */
static int empty_prog(enum bpf_prog_type type, bool multi)
{
	struct bpf_insn insns[2];
	memset(insns, 0, sizeof(insns));
	insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;	/* r0 = 0 */
	insns[1].code = BPF_JMP | BPF_EXIT;
	LIBBPF_OPTS(bpf_prog_load_opts, po);
	if (multi)
		po.expected_attach_type = rt_umulti_attach_type();
	return bpf_prog_load(type, "sonde_calib", "GPL", insns, 2, &po);
}

/* the number a sysfs or tracefs file holds, -1 when none */
static int read_id(const char *path)
{
	FILE *f = fopen(path, "r");
	int id = -1;
	if (!f || fscanf(f, "%d", &id) != 1)
		id = -1;
	if (f)
		fclose(f);
	return id;
}

/* a perf event (pid, cpu as perf_event_open takes them) running prog */
static int perf_prog(struct perf_event_attr *attr, int pid, int cpu, int prog)
{
	attr->size = sizeof(*attr);
	int fd = (int)syscall(SYS_perf_event_open, attr, pid, cpu, -1, PERF_FLAG_FD_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, PERF_EVENT_IOC_SET_BPF, prog) || ioctl(fd, PERF_EVENT_IOC_ENABLE, 0)) {
		int err = -errno;
		close(fd);
		return err;
	}
	return fd;
}

/* a classic uprobe: a perf event of the uprobe PMU running prog */
static int classic_uprobe(int prog, uint64_t off, bool ret)
{
	int type = read_id("/sys/bus/event_source/devices/uprobe/type");
	if (type < 0)
		return -ENOENT;
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.type = (uint32_t)type;
	attr.config = ret ? 1 : 0;	/* format "retprobe": config:0 */
	attr.config1 = (uint64_t)(uintptr_t)"/proc/self/exe";
	attr.config2 = off;
	return perf_prog(&attr, getpid(), -1, prog);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int ncalls(bool syscalls)
{
	return syscalls ? CALIBRATE_SYSCALLS : CALIBRATE_CALLS;
}

/* calls of sonde's own function, or of getppid() */
static void make_calls(bool syscalls)
{
	int x = 0;
	for (int i = 0; i < ncalls(syscalls); i++) {
		if (syscalls)
			syscall(SYS_getppid);
		else
			x = calibration_target(x);
	}
}

/* CPU nanoseconds (user and kernel, this thread's: what the trap takes
 * from the traced process, not the time it waits for a busy CPU) of
 * ncalls() calls */
static uint64_t time_calls(bool syscalls)
{
	uint64_t t0 = thread_cpu_ns();
	make_calls(syscalls);
	return thread_cpu_ns() - t0;
}

/* what a calibration attaches its empty program to: a uprobe (or
 * uretprobe) on calibration_target, or sys_enter_getppid */
struct calib {
	int prog;
	bool syscalls;		/* the tracepoint: getppid() calls */
	bool multi, ret;	/* a uprobe: a multi-uprobe link; a uretprobe */
	uint64_t off;		/* a uprobe: calibration_target's file offset */
	int tp_id;		/* the tracepoint's id */
};

static int calib_attach(const struct calib *c)
{
	if (!c->syscalls)
		return c->multi ? rt_umulti_link(c->prog, "/proc/self/exe", &c->off, NULL, 1, getpid(), c->ret)
				: classic_uprobe(c->prog, c->off, c->ret);
	struct perf_event_attr attr;
	memset(&attr, 0, sizeof(attr));
	attr.type = PERF_TYPE_TRACEPOINT;
	attr.config = (uint64_t)c->tp_id;
	attr.sample_period = 1;
	attr.wakeup_events = 1;
	/* the program runs for every task's hits, whichever CPU's event */
	return perf_prog(&attr, -1, 0, c->prog);
}

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }

/* ns per call the probe adds, less its empty program's run time, which
 * the BPF statistics report apart; 0 when it cannot be measured.  The
 * rounds alternate between the calls alone and the calls under the
 * probe, and the fastest of each are compared: a change in the machine's
 * speed during calibration (other load, a neighbour on the host) then
 * weighs on both alike.  Closes the program. */
static uint64_t calib_cost(const struct calib *c)
{
	uint64_t base = UINT64_MAX, probed = UINT64_MAX;
	for (int r = 0; r < CALIBRATE_ROUNDS; r++) {
		base = min_u64(base, time_calls(c->syscalls));
		int link = calib_attach(c);
		if (link < 0) {
			probed = 0;
			break;
		}
		probed = min_u64(probed, time_calls(c->syscalls));
		close(link);
	}
	struct bpf_prog_info info;
	memset(&info, 0, sizeof(info));
	uint32_t len = sizeof(info);
	uint64_t prog_ns = 0;
	if (!bpf_obj_get_info_by_fd(c->prog, &info, &len) && info.run_cnt)
		prog_ns = info.run_time_ns / info.run_cnt;
	close(c->prog);
	if (probed <= base)
		return 0;
	uint64_t per = (probed - base) / (uint64_t)ncalls(c->syscalls);
	return per > prog_ns ? per - prog_ns : 0;
}

/* ns a hit of a uprobe (or uretprobe) on sonde's own function adds to the
 * call, less its empty program's run time; 0 when it cannot be measured */
static uint64_t calibrate(bool ret)
{
	struct calib c = {.ret = ret};
	if (target_offset(&c.off))
		return 0;
	c.multi = rt_umulti_supported() && !getenv("SONDE_NO_UPROBE_MULTI");
	c.prog = empty_prog(BPF_PROG_TYPE_KPROBE, c.multi);
	return c.prog < 0 ? 0 : calib_cost(&c);
}

/*
 * What a tracepoint hit costs beyond its program's run time: the kernel
 * fills the event's record and runs the programs attached to it, and
 * once a syscall tracepoint is on every system call takes the slow entry
 * path; the BPF statistics see none of it (measured here: ~0.2 us on a
 * 1.1 us getppid(), twice what a counting program takes).  Timed as the
 * uprobe's trap, on getppid() calls under sys_enter_getppid.
 * Tracepoints outside syscalls skip the slow entry path and cost somewhat
 * less, so the estimate errs on the high side for them.
 */
static uint64_t calibrate_tracepoint(void)
{
	const char *root = tfs_root();
	if (!root)
		return 0;
	char path[512];
	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_getppid/id", root);
	struct calib c = {.syscalls = true, .tp_id = read_id(path)};
	if (c.tp_id < 0)
		return 0;
	c.prog = empty_prog(BPF_PROG_TYPE_TRACEPOINT, false);
	return c.prog < 0 ? 0 : calib_cost(&c);
}

/* ---- the table ------------------------------------------------------------- */

static bool is_uprobe(enum probe_type t)
{
	return t == PT_UPROBE || t == PT_URETPROBE || t == PT_USDT;
}

/* a probe whose hits cost more than its program's run time */
static bool has_trap(enum probe_type t)
{
	return is_uprobe(t) || t == PT_TRACEPOINT;
}

static uint64_t trap_of(const struct rt_overhead *ov, enum probe_type t)
{
	if (t == PT_URETPROBE)
		return ov->ret_trap_ns;
	if (t == PT_TRACEPOINT)
		return ov->tp_ns;
	return is_uprobe(t) ? ov->trap_ns : 0;
}

int rt_overhead_start(struct rt *rt)
{
	if (!rt->o->overhead)
		return 0;
	struct rt_overhead *ov = calloc(1, sizeof(*ov));
	if (!ov)
		return -ENOMEM;
	rt->overhead = ov;
	ov->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (ov->stats_fd < 0) {
		int err = -errno;
		fprintf(stderr, "sonde: --overhead: cannot enable BPF statistics: %s\n", strerror(-err));
		return err;
	}
	ov->progs = calloc((size_t)(rt->obj->nprogs ? rt->obj->nprogs : 1), sizeof(*ov->progs));
	if (!ov->progs)
		return -ENOMEM;
	bool up = false, ret = false, tp = false;
	for (int i = 0; i < rt->obj->nprogs; i++) {
		const struct cg_prog *p = &rt->obj->progs[i];
		const struct sema_attach *at = &p->probe->attach[p->first_attach];
		if (sema_provider(at->type)->runs_once)
			continue;
		struct bpf_program *prog = bpf_object__find_program_by_name(rt->bpf, p->name);
		struct ov_prog *o = &ov->progs[ov->nprogs++];
		o->fd = prog ? bpf_program__fd(prog) : -1;
		o->name = at->name;
		o->more = p->nattach - 1;
		o->type = at->type;
		up |= is_uprobe(at->type) && at->type != PT_URETPROBE;
		ret |= at->type == PT_URETPROBE;
		tp |= at->type == PT_TRACEPOINT;
	}
	if (tp)
		ov->tp_ns = calibrate_tracepoint();
	if (up)
		ov->trap_ns = calibrate(false);
	if (ret)
		ov->ret_trap_ns = calibrate(true);
	if (rt->o->verbose && (up || ret))
		fprintf(stderr, "sonde: --overhead: a uprobe hit costs %" PRIu64 " ns here%s\n",
			ov->trap_ns ? ov->trap_ns : ov->ret_trap_ns, ret && up ? " (uretprobe: see the table)" : "");
	ov->start_ns = ov->last_ns = rt_mono_ns();
	return 0;
}

static void refresh(struct rt_overhead *ov)
{
	for (int i = 0; i < ov->nprogs; i++) {
		struct ov_prog *o = &ov->progs[i];
		struct bpf_prog_info info;
		memset(&info, 0, sizeof(info));
		uint32_t len = sizeof(info);
		o->last_cnt = o->cnt;
		if (o->fd >= 0 && !bpf_obj_get_info_by_fd(o->fd, &info, &len)) {
			o->cnt = info.run_cnt;
			o->ns = info.run_time_ns;
		}
	}
}

/* fraction of one CPU: hits/s times (BPF + trap) ns per hit */
static double share(const struct rt_overhead *ov, const struct ov_prog *o, double rate)
{
	double per = (o->cnt ? (double)o->ns / (double)o->cnt : 0) + (double)trap_of(ov, o->type);
	return rate * per / 1e9;
}

static void warn(const struct rt_overhead *ov, struct ov_prog *o, double rate)
{
	double s = share(ov, o, rate);
	if (s <= WARN_SHARE || o->warned)
		return;
	o->warned = true;
	double per = s * 1e9 / rate;
	if (is_uprobe(o->type))
		diag_warnf("%s takes about %.1f %% of a CPU (%.0f hits/s x %.0f ns, "
			"mostly the uprobe trap): use a tracepoint or USDT probe if one covers it, "
			"or sample with profile:hz:99\n", o->name, s * 100, rate, per);
	else
		diag_warnf("%s takes about %.1f %% of a CPU (%.0f hits/s x %.0f ns): "
			"filter with a predicate, count in a map instead of printf, or sample with "
			"profile:hz:99\n", o->name, s * 100, rate, per);
}

/* the probe's name, "+N more" when its program serves several */
static const char *row_name(const struct ov_prog *o, char *buf, size_t len)
{
	if (!o->more)
		return o->name;
	snprintf(buf, len, "%s (+%d more)", o->name, o->more);
	return buf;
}

static void table(struct rt_overhead *ov, double secs, bool total)
{
	char name[512];
	int w = 5;
	for (int i = 0; i < ov->nprogs; i++) {
		int n = (int)strlen(row_name(&ov->progs[i], name, sizeof(name)));
		w = n > w ? n : w;
	}
	fprintf(stderr, "sonde: overhead over %s%.1f s:\n", total ? "" : "the last ", secs);
	fprintf(stderr, "  %-*s %12s %10s %11s %8s %7s\n", w, "probe", "hits", "hits/s", "BPF ns/hit",
		"trap ns", "CPU %");
	for (int i = 0; i < ov->nprogs; i++) {
		struct ov_prog *o = &ov->progs[i];
		uint64_t hits = total ? o->cnt : o->cnt - o->last_cnt;
		double rate = secs > 0 ? (double)hits / secs : 0;
		char trap[24] = "-";
		if (has_trap(o->type))
			snprintf(trap, sizeof(trap), "%" PRIu64, trap_of(ov, o->type));
		fprintf(stderr, "  %-*s %12" PRIu64 " %10.0f %11.0f %8s %7.2f\n", w,
			row_name(o, name, sizeof(name)), hits, rate,
			o->cnt ? (double)o->ns / (double)o->cnt : 0.0, trap, 100 * share(ov, o, rate));
	}
	for (int i = 0; i < ov->nprogs; i++) {
		struct ov_prog *o = &ov->progs[i];
		uint64_t hits = total ? o->cnt : o->cnt - o->last_cnt;
		warn(ov, o, secs > 0 ? (double)hits / secs : 0);
	}
}

void rt_overhead_tick(struct rt *rt)
{
	struct rt_overhead *ov = rt->overhead;
	if (!ov)
		return;
	uint64_t now = rt_mono_ns();
	if (now - ov->last_ns < 1000000000ull)
		return;
	double secs = (double)(now - ov->last_ns) / 1e9;
	ov->last_ns = now;
	refresh(ov);
	if (rt->o->verbose) {
		table(ov, secs, false);
		return;
	}
	/* without -v only the warnings, as they arise */
	for (int i = 0; i < ov->nprogs; i++)
		warn(ov, &ov->progs[i], (double)(ov->progs[i].cnt - ov->progs[i].last_cnt) / secs);
}

void rt_overhead_report(struct rt *rt)
{
	struct rt_overhead *ov = rt->overhead;
	if (!ov || ov->stats_fd < 0)
		return;
	refresh(ov);
	table(ov, (double)(rt_mono_ns() - ov->start_ns) / 1e9, true);
}

void rt_overhead_free(struct rt *rt)
{
	struct rt_overhead *ov = rt->overhead;
	if (!ov)
		return;
	if (ov->stats_fd >= 0)
		close(ov->stats_fd);
	free(ov->progs);
	free(ov);
	rt->overhead = NULL;
}
