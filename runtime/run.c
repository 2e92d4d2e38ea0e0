/*
 * run.c - load the object, attach every probe, run until told to stop.
 *
 * BEGIN and END are raw_tp programs that are never attached: they run once
 * through BPF_PROG_TEST_RUN, on this CPU in sonde's own context, so a
 * BEGIN-only script does no attach work at all.  Every other probe type
 * attaches through its row of attachers[], whose functions live in one
 * file per probe family: uprobe.c (uprobes, USDT; umulti.c for multi
 * links), kprobe.c, fentry.c, tracepoint.c, perf.c (interval, profile,
 * software, hardware).
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/settings.h"
#include "host/host.h"

/* ---- libbpf's messages ----------------------------------------------------- */

static int log_verbose;
static char *load_log;		/* captured while loading, for verifier errors */
static size_t load_log_len;
static FILE *load_log_f;

static int libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (load_log_f) {
		va_list ap2;
		va_copy(ap2, ap);
		vfprintf(load_log_f, fmt, ap2);
		va_end(ap2);
	}
	if (level == LIBBPF_DEBUG && log_verbose < 2)
		return 0;
	if (level == LIBBPF_INFO && !log_verbose)
		return 0;
	if (level == LIBBPF_WARN && !log_verbose)
		return 0;	/* errors are reported by sonde in one sentence */
	return vfprintf(stderr, fmt, ap);
}

void rt_libbpf_logging(int verbose)
{
	log_verbose = verbose;
	libbpf_set_print(libbpf_print);
}

/* BEGIN/END and self are not attached: rt_run_special() runs them */
static int attach_special(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
			  int *count)
{
	(*count)++;
	return 0;
}

/* How each probe type attaches, indexed by enum probe_type: the runtime
 * half of sema's provider table (sema/probes.c).  rt_run() refuses to
 * start when a row is missing. */
static rt_attach_fn *const attachers[] = {
	[PT_BEGIN] = attach_special,
	[PT_END] = attach_special,
	[PT_TRACEPOINT] = rt_attach_tracepoint,
	[PT_RAWTRACEPOINT] = rt_attach_raw_tracepoint,
	[PT_UPROBE] = rt_attach_uprobe,
	[PT_URETPROBE] = rt_attach_uprobe,
	[PT_USDT] = rt_attach_usdt,
	[PT_KPROBE] = rt_attach_kprobe,
	[PT_KRETPROBE] = rt_attach_kprobe,
	[PT_FENTRY] = rt_attach_fentry,
	[PT_FEXIT] = rt_attach_fentry,
	[PT_INTERVAL] = rt_attach_perf,
	[PT_PROFILE] = rt_attach_perf,
	[PT_SOFTWARE] = rt_attach_perf,
	[PT_HARDWARE] = rt_attach_perf,
	[PT_SELF] = attach_special,
	[PT_BENCH] = rt_attach_bench,
	[PT_ITER] = rt_attach_iter,
};
_Static_assert(sizeof(attachers) / sizeof(attachers[0]) == PT_COUNT,
	       "every probe type has an attach function");

static bool attachers_complete(void)
{
	for (size_t i = 0; i < PT_COUNT; i++)
		if (!attachers[i]) {
			fprintf(stderr, "sonde: internal error: probe type %s has no attach function\n",
				sema_probe_type_name((enum probe_type)i));
			return false;
		}
	return true;
}

/* ---- loading ------------------------------------------------------------------ */

/* --container where the kernel lacks the ancestor helper in tracing
 * programs (codegen/module.c): slot 0 of the cgroup array holds the
 * container's cgroup directory */
static int fill_cgroup_map(struct rt *rt)
{
	struct bpf_map *m = bpf_object__find_map_by_name(rt->bpf, CG_CGROUP_MAP);
	if (!m || !rt->o->container)
		return 0;
	int fd = open(rt->o->container->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	uint32_t key = 0, val = (uint32_t)fd;
	int err = fd < 0 ? -errno : bpf_map_update_elem(bpf_map__fd(m), &key, &val, 0) ? -errno : 0;
	if (fd >= 0)
		close(fd);
	if (err)
		fprintf(stderr, "sonde: --container: cannot use the cgroup %s: %s\n",
			rt->o->container->dir, strerror(-err));
	return err;
}

static struct bpf_program *prog_of(struct rt *rt, const struct cg_prog *p)
{
	return bpf_object__find_program_by_name(rt->bpf, p->name);
}

/*
 * BPFTRACE_LOG_SIZE (config log_size) with -v: each program is loaded with
 * a verifier log of that many bytes, as the newest bpftrace loads them.  A
 * log too small for what the verifier writes fails the load (-ENOSPC),
 * which is said as the release says it, naming the program as it names
 * its programs (the probe's name, '_' for what is not a letter or digit,
 * '_' and the probe's number from 1: begin_1).
 */
static char **verifier_logs(struct rt *rt)
{
	if (!rt->o->verbose || !settings_given(SET_LOG_SIZE))
		return NULL;
	size_t size = (size_t)settings_int(SET_LOG_SIZE);
	char **logs = calloc((size_t)rt->obj->nprogs + 1, sizeof(*logs));
	for (int i = 0; logs && i < rt->obj->nprogs; i++) {
		struct bpf_program *prog = prog_of(rt, &rt->obj->progs[i]);
		if (!prog || !(logs[i] = calloc(1, size)))
			continue;
		bpf_program__set_log_buf(prog, logs[i], size);
		bpf_program__set_log_level(prog, 1);
	}
	return logs;
}

/* true when a program's log said why it failed (and it was printed) */
static bool say_verifier_logs(struct rt *rt, char **logs, int err)
{
	bool said = false;
	size_t size = (size_t)settings_int(SET_LOG_SIZE);
	for (int i = 0; logs && i < rt->obj->nprogs; i++) {
		const struct cg_prog *p = &rt->obj->progs[i];
		struct bpf_program *prog = prog_of(rt, p);
		if (!logs[i] || !*logs[i] || !prog || bpf_program__fd(prog) >= 0)
			continue;
		char name[128];
		snprintf(name, sizeof(name), "%s", p->nattach ? rt_prog_attach(p, 0)->name : p->name);
		for (char *c = name; *c; c++)
			if (!isalnum((unsigned char)*c) && *c != '_')
				*c = '_';
		fprintf(stderr, "ERROR: Error loading BPF program for %s_%d. Error code: %d.\n"
			"Kernel error log: \n%s\n", name, p->probe ? p->probe->index + 1 : 1, err, logs[i]);
		if (!strstr(logs[i], "processed") || !strstr(logs[i], "insns"))
			fprintf(stderr, "WARNING: Kernel log seems to be trimmed. This may be due to buffer "
				"not being big enough, try increasing the BPFTRACE_LOG_SIZE environment "
				"variable beyond the current value of %zu bytes\n", size);
		said = true;
	}
	return said;
}

static void free_logs(struct rt *rt, char **logs)
{
	for (int i = 0; logs && i < rt->obj->nprogs; i++)
		free(logs[i]);
	free(logs);
}

static int load(struct rt *rt)
{
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "sonde");
	rt->bpf = bpf_object__open_mem(rt->obj->elf, rt->obj->elf_size, &oo);
	if (!rt->bpf) {
		fprintf(stderr, "sonde: cannot open the generated BPF object: %s\n", strerror(errno));
		return -errno;
	}
	rt_umulti_prepare(rt);
	rt_kprobe_prepare(rt);
	int err = rt_events_size(rt);
	if (err) {
		fprintf(stderr, "sonde: cannot size the event ring buffer: %s\n", strerror(-err));
		return err;
	}
	err = rt_skb_size(rt);
	if (err) {
		fprintf(stderr, "sonde: cannot size skboutput()'s perf event array: %s\n", strerror(-err));
		return err;
	}
	char **logs = verifier_logs(rt);
	load_log_f = open_memstream(&load_log, &load_log_len);
	err = bpf_object__load(rt->bpf);
	fclose(load_log_f);
	load_log_f = NULL;
	bool said = err && say_verifier_logs(rt, logs, err);
	free_logs(rt, logs);
	if (err) {
		if (!said)
			rt_say_refused(rt, err, load_log);
		free(load_log);
		load_log = NULL;
		return err;
	}
	free(load_log);
	load_log = NULL;
	err = fill_cgroup_map(rt);
	if (err)
		return err;
	rt->map_fds = calloc((size_t)(rt->r->nmaps ? rt->r->nmaps : 1), sizeof(int));
	rt->map_zeroed = calloc((size_t)(rt->r->nmaps ? rt->r->nmaps : 1), sizeof(bool));
	if (!rt->map_fds || !rt->map_zeroed) {
		fprintf(stderr, "sonde: out of memory\n");
		return -ENOMEM;
	}
	for (int i = 0; i < rt->r->nmaps; i++) {
		const struct sema_map *m = rt->r->maps[i];
		struct bpf_map *bm = bpf_object__find_map_by_name(rt->bpf, cg_map_obj_name(rt->perm, m));
		rt->map_fds[m->id] = bm ? bpf_map__fd(bm) : -1;
	}
	return 0;
}

/* run every BEGIN (or END, or self) program once, in source order */
void rt_run_special(struct rt *rt, enum probe_type type)
{
	/* a program serves several attach points when its body does not
	 * depend on them: `BEGIN,END { }` runs at both ends */
	for (int i = 0; i < rt->obj->nprogs; i++) {
		const struct cg_prog *p = &rt->obj->progs[i];
		for (int j = 0; j < p->nattach; j++) {
			if (rt_prog_attach(p, j)->type != type)
				continue;
			uint64_t ctx[12] = {0};
			LIBBPF_OPTS(bpf_test_run_opts, to, .ctx_in = ctx, .ctx_size_in = sizeof(ctx));
			int err = bpf_prog_test_run_opts(bpf_program__fd(prog_of(rt, p)), &to);
			if (err)
				fprintf(stderr, "sonde: %s: cannot run: %s\n", rt_prog_attach(p, j)->name,
					strerror(-err));
		}
	}
}

/* probe types whose handlers on one address the kernel runs newest
 * first: uprobes; kprobes (an aggregated kprobe keeps the newest at the
 * head of its list; kretprobes return oldest first) and fentry/fexit (a
 * trampoline's programs, newest at the head).  Measured in the test VM's
 * 5.10 and 6.12 with bpftrace's kprobe_order test. */
static bool newest_first(enum probe_type t)
{
	return t == PT_UPROBE || t == PT_URETPROBE || t == PT_USDT || t == PT_KPROBE ||
	       t == PT_FENTRY || t == PT_FEXIT;
}

/* attach every point (timers: whether interval points are the ones to
 * attach or the ones to leave) */
static int attach_all(struct rt *rt, int *count, bool timers)
{
	int err = timers ? 0 : rt_plan_uprobes(rt);
	if (err)
		return err;
	/* everything but uprobes and kprobes, in source order */
	for (int i = 0; i < rt->obj->nprogs; i++) {
		const struct cg_prog *p = &rt->obj->progs[i];
		struct bpf_program *prog = prog_of(rt, p);
		for (int j = 0; j < p->nattach; j++) {
			const struct sema_attach *at = rt_prog_attach(p, j);
			if ((at->type == PT_INTERVAL) != timers || newest_first(at->type))
				continue;
			err = attachers[at->type](rt, prog, at, count);
			if (err)
				return err;
		}
	}
	if (timers)
		return 0;
	/* uprobes and kprobes in reverse: the kernel runs the handlers of
	 * one probed address newest first, so this makes them fire in source
	 * order (tracepoints and perf events run theirs oldest first) */
	for (int i = rt->obj->nprogs - 1; i >= 0; i--) {
		const struct cg_prog *p = &rt->obj->progs[i];
		struct bpf_program *prog = prog_of(rt, p);
		for (int j = p->nattach - 1; j >= 0; j--) {
			const struct sema_attach *at = rt_prog_attach(p, j);
			if (!newest_first(at->type))
				continue;
			err = attachers[at->type](rt, prog, at, count);
			if (err)
				return err;
		}
	}
	return 0;
}

static bool only_special(const struct sema_result *r)
{
	for (int i = 0; i < r->nprobes; i++)
		for (int j = 0; j < r->probes[i].nattach; j++)
			if (!sema_provider(r->probes[i].attach[j].type)->runs_once ||
			    r->probes[i].attach[j].type == PT_SELF)
				return false;
	return true;
}

/* ---- what the stop causes ask for (stop.c decides, this acts) ------------------ */

/* SIGUSR1 came: run the self:signal:SIGUSR1 probes, or without one print
 * every map now, as bpftrace 0.17 */
static void dump_if_asked(struct rt *rt)
{
	if (!rt_stop_dump_due(rt))
		return;
	if (rt->r->has_self) {
		rt_run_special(rt, PT_SELF);
		return;
	}
	if (rt->o->writer->scrape)
		return;	/* --serve and the textfile show the maps already */
	rt_maps_print_all(rt);
	fflush(rt->o->out);
}

/* the main loop's look at every cause: true when the run is over */
static bool look(struct rt *rt)
{
	dump_if_asked(rt);
	return rt_stop_update(rt);
}

/* after the stop: print every event still queued (a second signal cuts
 * that short: the rest is counted, rt_stop_skip_event) */
static void drain_queued(struct rt *rt)
{
	rt_stop_drain_begin(rt);
	/* the probes are detached: nothing refills the ring, this ends */
	rt_events_drain(rt);
	uint64_t cut = rt_stop_drain_end(rt);
	if (cut)
		fprintf(stderr, "sonde: %llu queued events not printed: a second signal cut the "
			"output short\n", (unsigned long long)cut);
}

/* the held -c child may exec its command now.  The go descriptor is a
 * socket (cli_start_child) written with MSG_NOSIGNAL: a child killed while
 * held is an error here, and the main loop sees it gone, rather than a
 * SIGPIPE that ends sonde without END or its maps */
static void release_child(const struct rt_opts *o)
{
	if (send(o->child_go_fd, "g", 1, MSG_NOSIGNAL) < 0)
		fprintf(stderr, "sonde: cannot start the child command: %m\n");
	close(o->child_go_fd);
}

/* the -c command outlived the run: SIGTERM, then SIGKILL if it is still
 * there CHILD_TERM_MS later or at another Ctrl-C, so that a command that
 * ignores SIGTERM (or is stopped) cannot hold sonde's exit for ever */
#define CHILD_TERM_MS 2000
static void end_child(struct rt *rt, int *status)
{
	pid_t pid = rt->o->child_pid;
	uint64_t until = rt_mono_ns() + CHILD_TERM_MS * 1000000ull;
	kill(pid, SIGTERM);
	while (rt_child_wait(rt, status, false) == 0) {
		if (rt->stopper.hurry || rt_mono_ns() > until) {
			kill(pid, SIGKILL);
			rt_child_wait(rt, status, true);
			return;
		}
		usleep(10000);
	}
}

int rt_run(const struct sema_result *r, const struct cg_object *obj, const struct rt_opts *o)
{
	struct rt rt = {.r = r, .obj = obj, .o = o, .metrics.stats_fd = -1, .stacks = o->writer->stacks,
			.stopper = {.wake = {-1, -1}, .target_fd = -1, .extra_fd = -1},
			.iter_link_fd = -1};
	if (!attachers_complete())
		return 1;
	rt.perm = arena_new();
	rt.scratch = arena_new();
	rt.a = rt.perm;
	rt.ncpus = libbpf_num_possible_cpus();
	int rc = 1, count = 0;
	rt_names_init(&rt);

	if (load(&rt))
		goto out;
	if (rt_stop_open(&rt))
		goto out;

	if (rt_events_open(&rt) || rt_skb_open(&rt) || rt_overhead_start(&rt) || rt_exec_watch(&rt))
		goto out;
	rt_unwind_start(&rt);
	if (o->writer->scrape)
		rt_scrape_stats_on(&rt);
	if (o->follow && !o->dry_run && rt_follow_start(&rt)) {
		fprintf(stderr, "sonde: out of memory\n");
		goto out;
	}
	if (o->user_probes && o->child_go_fd >= 0 && o->child_pid) {
		/* the child starts, and its agent holds it before main() */
		release_child(o);
	}
	if (o->user_probes && rt_agent_attach(&rt, &count))
		goto out;
	/* interval timers start after BEGIN ran, as in bpftrace: the first
	 * tick of interval:s:1 comes one second after BEGIN, not earlier */
	if (attach_all(&rt, &count, false))
		goto out;
	int ntimers = 0;
	for (int i = 0; i < r->nprobes; i++)
		for (int j = 0; j < r->probes[i].nattach && !r->probes[i].left_out; j++)
			ntimers += r->probes[i].attach[j].type == PT_INTERVAL;
	/* nothing to run: every probe was left out (missing_probes) or found
	 * nothing to attach to (a uprobe's symbol that is not there); the run
	 * would wait for Ctrl-C with nothing that could fire.  --follow
	 * attaches to processes that start later */
	if (!count && !ntimers && !o->follow) {
		fprintf(stderr, "sonde: no probes to attach: every probe of the script was left out "
			"(missing_probes) or found nothing to attach to\n");
		goto out;
	}
	if (o->dry_run) {
		if (attach_all(&rt, &count, true))
			goto out;
		rt_detach_all(&rt);
		if (!o->quiet)
			fprintf(stderr, "sonde: dry run: %d probe%s loaded and attached\n", count,
				count == 1 ? "" : "s");
		rc = 0;
		goto out;
	}
	rt_py_start(&rt);
	if (!o->quiet && !o->bench) {	/* --bench's table says what ran */
		o->writer->attached(o->out, stderr, count + ntimers);
		fflush(o->out);	/* JSON readers (and tests) wait for this line */
	}
	/* bpftrace's test harness runs its AFTER command when it reads this;
	 * on stdout (whatever -o names) and before BEGIN's output, as the
	 * newest bpftrace writes it: its tests drop the line with `tail -n +2`
	 * before they read the program's output (`-f json | python3`) */
	if (getenv("__BPFTRACE_NOTIFY_PROBES_ATTACHED")) {
		fflush(o->out);
		fputs("__BPFTRACE_NOTIFY_PROBES_ATTACHED\n", stdout);
		fflush(stdout);
	}
	/* BEGIN runs before the -c command starts, as in bpftrace: its output
	 * comes first, whatever the command does */
	rt_run_special(&rt, PT_BEGIN);
	rt_events_drain(&rt);
	rt_agent_go(&rt);
	int ticking = 0;
	if (!rt.stop && ntimers && attach_all(&rt, &ticking, true))
		goto out;
	if (o->child_go_fd >= 0 && o->child_pid && !o->user_probes) {
		rt_child_trace(&rt);
		release_child(o);
	}

	/* scrape formats: the maps are read while the probes run */
	if ((o->writer->scrape && rt_scrape_start(&rt)) ||
	    (o->serve_addr && rt_serve_start(&rt, o->serve_addr)))
		goto out;
	/* stop.c: signals, exit(), the -c command and the -p process each
	 * end the loop at once, whatever the event rate; events.c takes a
	 * bounded share of the ring each time (no wait while some is left) */
	if (o->bench) {
		/* --bench: BEGIN ran; each bench probe is run and timed, then
		 * END and the maps, as the newest bpftrace */
		if (rt_bench_run(&rt))
			goto out;
	} else if (r->has_iter) {
		/* an iter: probe runs as sonde reads it, then the run ends */
		if (!rt.stop && rt_iter_run(&rt))
			goto out;
	} else if (!look(&rt) &&
	    !(only_special(r) && !o->child_pid && !o->pid && !o->writer->scrape && !o->serve_addr)) {
		while (!look(&rt)) {
			/* --serve: HTTP clients wake the same wait (serve.c) */
			int timeout = rt.ev.more ? 0 : 100;
			int n = rt_stop_wait(&rt, rt.metrics.serve ? rt_serve_timeout(&rt, timeout) : timeout);
			if (n >= 0)
				n = rt_events_consume(&rt);
			if (n < 0)
				break;
			rt_agent_poll(&rt);
			if (rt.follow)
				rt_follow_tick(&rt);
			rt_watch_tick(&rt);
			if (rt.metrics.serve)
				rt_serve_run(&rt);
			rt_scrape_tick(&rt);
			rt_overhead_tick(&rt);
			rt_unwind_tick(&rt);
		}
	} else if (!rt.stop && !r->ends_itself) {
		/* only BEGIN/END and no exit(): wait for Ctrl-C, as bpftrace
		 * 0.17 (a script that writes "begin" ends here, as newer ones).
		 * The signals stay blocked between the test and the wait, so
		 * one that arrives in between is not lost. */
		sigset_t block, old;
		fflush(o->out);	/* BEGIN's output shows before the wait */
		sigemptyset(&block);
		sigaddset(&block, SIGINT);
		sigaddset(&block, SIGTERM);
		sigaddset(&block, SIGUSR1);
		sigprocmask(SIG_BLOCK, &block, &old);
		while (!rt.stop) {
			sigsuspend(&old);
			dump_if_asked(&rt);
		}
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	if (rt.stopper.exit_word && *rt.stopper.exit_word)
		rt_events_drain_to_exit(&rt);
	rt_agent_detach(&rt);
	rt_detach_all(&rt);
	drain_queued(&rt);
	rt.ev.exited = false;	/* END's own output prints */
	rt_run_special(&rt, PT_END);
	rt_events_drain(&rt);
	/* a scrape format prints no maps at exit; the textfile gets its last
	 * state */
	if (o->metrics_file)
		rt_scrape_to_file(&rt);
	else if (!o->writer->scrape && settings_int(SET_PRINT_MAPS_ON_EXIT)) {
		o->writer->maps_begin(o->out);
		rt_maps_print_all(&rt);
	}
	/* a picture format draws what was printed (flame graph, heatmap, pprof) */
	if (o->writer->finish && o->picture)
		o->writer->finish(o->picture);
	rt_maps_report_full(&rt);
	rt_stacks_report_lost(&rt);
	rt_unwind_report(&rt);
	rt_events_report_lost(&rt);
	fflush(o->out);
	rt_overhead_report(&rt);
	/* exit(N): the word holds 0x100 | N (codegen/bpf.c), 0 for exit() */
	rc = rt.stopper.exit_word ? (int)(*rt.stopper.exit_word & 0xff) : 0;
	bool child_done = rt.stopper.child_done;
	int child_st = rt.stopper.child_status;
	if (o->child_pid) {
		if (!child_done)
			end_child(&rt, &child_st);
		if (WIFEXITED(child_st) && WEXITSTATUS(child_st))
			fprintf(stderr, "sonde: command exited with status %d\n", WEXITSTATUS(child_st));
		else if (WIFSIGNALED(child_st) && child_done)
			fprintf(stderr, "sonde: command killed by signal %d\n", WTERMSIG(child_st));
	}
out:
	rt_serve_stop(&rt);
	rt_scrape_stop(&rt);
	rt_stop_close(&rt);
	rt_agent_detach(&rt);
	rt_agent_free(&rt);
	rt_detach_all(&rt);
	rt_links_free(&rt);
	rt_follow_free(&rt);
	rt_watch_free(&rt);
	rt_uprobe_plans_free(&rt);
	rt_overhead_free(&rt);
	rt_unwind_free(&rt);
	rt_events_close(&rt);
	rt_skb_close(&rt);
	bpf_object__close(rt.bpf);
	free(rt.map_fds);
	free(rt.map_zeroed);
	rt_names_free(&rt);
	rt_py_free(&rt);	/* before its processes' states go (procstate) */
	rt_ps_free(&rt);
	rt_symbols_free(&rt);
	arena_free(rt.scratch);
	arena_free(rt.perm);
	return rc;
}
