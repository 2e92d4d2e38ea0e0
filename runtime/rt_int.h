/*
 * rt_int.h - state shared by the files of runtime/ (not a public header).
 */
#ifndef SONDE_RT_INT_H
#define SONDE_RT_INT_H

#include <bpf/libbpf.h>
#include <signal.h>
#include <time.h>

#include "common/arena.h"
#include "host/host.h"
#include "runtime/runtime.h"

struct ksyms;
struct rs_symcache;
struct rt_stacks;
struct rs_cgcache;
struct rt_follow;
struct rt_watch;
struct rt_overhead;

/* the event consumer's state (events.c) */
struct rt_events {
	char *text;		/* printf's formatted text, kept from event to event */
	size_t text_cap;
	uint64_t handled, budget;	/* records this drain, and its limit */
	bool pause_on_stop;	/* a signal or exit() ends the drain (not the last one) */
	bool to_exit;		/* the exit() event ends the drain (rt_events_drain_to_exit) */
	bool more;		/* the last drain stopped with records left */
	bool exited;		/* an exit() event came: what probes sent after it is
				 * not printed (bpftrace); END clears it */
	bool discard;		/* a bench probe's output: not printed (bench.c) */
	uint64_t lost_reported;	/* lost events already reported */
	uint64_t lost_checked_ms;	/* CLOCK_MONOTONIC of the last check */
};

/* Ring buffer sizes.  The default holds one second of the flood measured
 * here (bench/events: a getppid loop under printf makes about 0.5M
 * records of 32 bytes a second on one CPU); a script with no printf-like
 * events sends only control records (exit, print, clear) and gets a small
 * one.  --rb-pages and BPFTRACE_PERF_RB_PAGES override both. */
#define RT_RING_DEFAULT (16u << 20)
#define RT_RING_QUIET (256u << 10)
#define RT_RING_MAX (1u << 30)

/* stop.c: what ends the run, watched beside the ring buffer */
struct rt_stop {
	int wake[2];		/* self-pipe the signal handlers write */
	int target_fd;		/* pidfd of -p PID, or -1 */
	int extra_fd;		/* another fd that wakes the wait (--serve), or -1 */
	const volatile uint64_t *exit_word;	/* set by exit() in BPF (mmap'd) */
	size_t exit_len;
	volatile sig_atomic_t child_changed;	/* SIGCHLD: look at the -c command */
	volatile sig_atomic_t dump;	/* SIGUSR1: print the maps and go on */
	volatile sig_atomic_t hurry;	/* a second SIGINT/SIGTERM: cut the drain short */
	volatile sig_atomic_t signalled;	/* SIGINT/SIGTERM stopped the run */
	bool child_done, target_done;
	int child_status;	/* the -c command's wait status, once done */
	bool draining;		/* after the stop: no more stops, print what is queued */
	unsigned events;	/* counts to the next read of the clock */
	uint64_t looked_ns;	/* when the main loop last looked at every cause */
	uint64_t not_printed;
	uint64_t drain_ns;	/* when the drain after the stop began */
	uint64_t not_run;	/* system() commands the drain left */
};
struct uprobe_plan;
struct rt;

/* Where maps.c reads a map's contents when not from the kernel's map: the
 * agents' shared copies under --user-probes (agent.c plugs them in).  has:
 * whether the source holds the map whose kernel fd is kfd; each calls cb
 * for every key with the values of every shard (nvals of them, folded as
 * CPUs); clear: every key goes (zero_only: zero()) in every copy. */
typedef int (*rt_map_entry_fn)(void *ctx, const uint8_t *key, const uint8_t *vals, int nvals);
struct rt_map_source {
	bool (*has)(struct rt *rt, int kfd);
	int (*each)(struct rt *rt, int kfd, rt_map_entry_fn cb, void *ctx);
	int (*clear)(struct rt *rt, int kfd, bool zero_only);
};

/* scrape.c: the scrape formats' state (serve.c and labels.c use parts) */
struct rt_metrics {
	struct rt_serve *serve;		/* --serve: the HTTP server */
	struct kube_index *kube;	/* Kubernetes names, loaded on first use */
	uint64_t *dropped;		/* by map id: series the caps left out, so far */
	double last_scrape_s;
	double next_write;		/* textfile: when to rewrite it (monotonic s) */
	int stats_fd;			/* BPF_ENABLE_STATS, or -errno */
};

/* links.c: what attaching made, until rt_detach_all takes it down */
struct rt_links {
	struct bpf_link **links;
	int nlinks;
	int *fds;		/* links libbpf does not know (umulti.c) */
	int nfds;
	int *held;		/* tracepoint events held past their links */
	int nheld;
};

/* symbols.c: what names addresses, each part loaded on first use */
struct rt_symbols {
	struct ksyms *ksyms;
	struct rs_symcache *cache;
	struct rt_stacks *stack_index;	/* stack id -> frames, read from the stack maps */
	bool child_traced;		/* -c child under ptrace */
	/* one reading of CLOCK_REALTIME and CLOCK_MONOTONIC for every
	 * strftime() of the run, so two timestamps print exactly their
	 * difference apart (bpftrace's strftime_microsecond_extension) */
	struct timespec clock_real, clock_mono;
	bool clocks_read;
};

/* render.c: what an index in a value stands for */
struct rt_names {
	const char **attach;	/* global attach index -> probe name */
	const char **funcs;	/* ... -> its function (func: SEMA_FUNC_OF_ATTACH) */
	int nattach;
	const char **sites;	/* uprobe cookie -> function name (rt_site_cookie) */
	int nsites;
	struct rs_cgcache *cgroups;	/* cgroup id -> path, opened on first use */
};

struct rt {
	const struct sema_result *r;
	const struct cg_object *obj;
	const struct rt_opts *o;
	struct bpf_object *bpf;
	struct ring_buffer *rb;
	struct rt_links links;	/* links.c's */
	int iter_link_fd;	/* iter.c: the iter: probe's link */
	int *map_fds;		/* by sema map id */
	bool *map_zeroed;	/* by map id: an array map zero()'d since its last clear() */
	uint8_t **map_base;	/* by map id: an array map's values as print-and-clear took
				 * them, what prints subtract (maps.c); NULL until then */
	int ncpus;
	volatile sig_atomic_t stop;
	struct arena *perm;	/* lives for the run */
	struct arena *scratch;	/* reused per event and per map print */
	struct arena *a;	/* where rendering allocates: scratch or perm */
	struct rt_symbols sym;		/* symbols.c's */
	struct rt_names names;		/* render.c's */
	struct rt_procs *procs;		/* per-process state and execs (exited.c) */
	bool stacks;		/* stack key elements come with their frames (pr_key.stack) */
	bool render_in_key;	/* stacks in map keys indent 4 columns, else 8 */
	bool render_newest;	/* inside a value 0.17 cannot make (render.c) */
	struct rt_py *py;	/* pystack's processes (pystack.c) */
	struct rt_follow *follow;	/* --follow: uprobe queries kept for rescans */
	struct rt_watch *watch;		/* --follow, -v: uprobe files to notice changes of */
	struct rt_stop stopper;
	struct rt_metrics metrics;	/* scrape.c's (serve.c, labels.c) */
	struct uprobe_plan *plans;	/* uprobe attach points resolved before attaching */
	int nplans;
	struct rt_agents *agents;	/* --user-probes (agent.c) */
	const struct rt_map_source *map_source;	/* maps not read from the kernel */
	struct rt_events ev;
	struct rt_overhead *overhead;	/* --overhead (overhead.c) */
	struct rt_unwind *unwind;	/* the CFI stack walker's tables (unwind.c) */
	struct rt_skb *skb;		/* skboutput()'s perf buffer and pcap files (skbout.c) */
};

/* base.c: CLOCK_MONOTONIC in nanoseconds, the run's one clock; the sum
 * over the CPUs of slot key of the u64 per-CPU array fd (0 when fd < 0 or
 * unreadable) */
uint64_t rt_mono_ns(void);
uint64_t rt_percpu_sum(const struct rt *rt, int fd, uint32_t key);

/* render.c: one value as text; *is_str tells JSON to quote it */
const char *rt_render(struct rt *rt, const struct type *t, const void *bytes, bool *is_str);
/* render.c: one value as JSON text (strings quoted, tuples [1,"a"]) */
const char *rt_render_json(struct rt *rt, const struct type *t, const void *bytes);
/* render.c: one value as the selected writer wants it (rt_render or
 * rt_render_json); *is_str (may be NULL) as rt_render sets it, false for JSON */
const char *rt_render_for(struct rt *rt, const struct type *t, const void *bytes, bool *is_str);
/* render.c: the cgroup id -> path/container cache, opened on first use */
struct rs_cgcache *rt_cgroups(struct rt *rt);
/* render.c: struct rt_names from the probes' attach points; the bpf cookie
 * that names sym for `func` (one per name); its end */
void rt_names_init(struct rt *rt);
uint64_t rt_site_cookie(struct rt *rt, const char *sym);
void rt_names_free(struct rt *rt);
/* maps.c: read one map into pm (in rt->a); 0 or -errno */
int rt_map_build(struct rt *rt, const struct sema_map *m, struct pr_map *pm);
/* a tseries map's interval, window and clock into pm (maps.c) */
void rt_tseries_clock(const struct sema_map *m, struct pr_map *pm);
/* maps.c */
int rt_map_print(struct rt *rt, const struct sema_map *m, uint32_t top, uint32_t div);
/* print, then clear or zero: in one step where the map allows it */
int rt_map_print_then(struct rt *rt, const struct sema_map *m, uint32_t top, uint32_t div,
		      enum print_then then);
int rt_map_clear(struct rt *rt, const struct sema_map *m, bool zero_only);
void rt_maps_print_all(struct rt *rt);
/* a warning on stderr for each map that refused updates because it was full */
void rt_maps_report_full(struct rt *rt);
/* events.c: the ring buffer and its consumer.  size: before the object is
 * loaded, the ring's size from --rb-pages / BPFTRACE_PERF_RB_PAGES or the
 * default.  open: after loading (also sets up output buffering).  consume:
 * after the main loop's wait (stop.c), a bounded number of records, the
 * output flushed, lost events reported at most once a second; 0 or -errno;
 * rt->ev.more says records are left for the next call.  drain: every
 * record the ring holds now (after BEGIN, after detaching, after END;
 * stop.c bounds the time spent printing).  report_lost: losses not
 * reported yet (at exit). */
/* events.c: one event record (the kernel's ring or an agent's) */
int rt_event(struct rt *rt, void *data, size_t size);
int rt_events_size(struct rt *rt);
int rt_events_open(struct rt *rt);
int rt_events_consume(struct rt *rt);
void rt_events_drain(struct rt *rt);
/* after exit(): the records queued ahead of its own, while the probes are
 * still attached (a system() before exit() sees them, as in bpftrace) */
void rt_events_drain_to_exit(struct rt *rt);
void rt_events_report_lost(struct rt *rt);
void rt_events_close(struct rt *rt);
/* skbout.c: skboutput()'s channel.  size: before the load, the perf event
 * array's slots (one per CPU); open: after it, the pcap files opened and
 * the perf buffer made (nothing without skboutput()); epoll_fd: what the
 * main loop's wait watches (-1: none); consume: every sample queued, the
 * files flushed (events.c calls it beside the ring); write: one
 * EV_SKBOUTPUT record's packet into its file; close: the files closed,
 * lost packets said */
struct rt_skb;
int rt_skb_size(struct rt *rt);
int rt_skb_open(struct rt *rt);
int rt_skb_epoll_fd(const struct rt *rt);
void rt_skb_consume(struct rt *rt);
void rt_skb_write(struct rt *rt, const struct sema_event *ev, const uint8_t *args, size_t size);
void rt_skb_close(struct rt *rt);
/* refuse.c: why bpf_object__load() failed (err), from libbpf's log of
 * the load, located at the script line and explained by class */
void rt_say_refused(struct rt *rt, int err, const char *log);
/* symbols.c: stacks, usym, buf, ntop, strftime as text; join events;
 * reading a process's mappings while it lives (EV_PID_SEEN) */
const char *rt_render_extra(struct rt *rt, const struct type *t, const uint8_t *p);
/* symbols.c: the stacks the stack maps had no room for, once at exit */
void rt_stacks_report_lost(struct rt *rt);
/* symbols.c: everything struct rt_symbols holds */
void rt_symbols_free(struct rt *rt);
/* symbols.c: /proc/kallsyms, read once per run when first needed (NULL:
 * unreadable, warned once) */
struct ksyms *rt_kernel_syms(struct rt *rt);
/* symbols.c: a stack value's frames, for the writers that draw stacks */
const struct pr_stack *rt_stack_frames(struct rt *rt, const struct type *t, const uint8_t *p);
void rt_join_event(struct rt *rt, const struct sema_event *ev, const uint8_t *args, size_t len);
void rt_prime_pid(struct rt *rt, int pid);
/* unwind.c: the CFI stack walker's tables, when the program has it: set up
 * after load (the files known to be needed read), the files of processes
 * it asks for read at each tick, the counts said at exit (-v) */
void rt_unwind_start(struct rt *rt);
void rt_unwind_tick(struct rt *rt);
/* an exec the watcher saw (exited.c): the path its program is read by
 * when its process is gone before the walker's flag is taken */
void rt_unwind_exec(struct rt *rt, int pid, const char *path);
void rt_unwind_report(struct rt *rt);
void rt_unwind_free(struct rt *rt);
/* pystack.c: scan the -p process before the probes run; scan pid (EV_PY_SCAN:
 * its interpreter, its threads into the BPF maps); the frames of a pystack
 * key {pid, (code, instr) x N} (nwords of it, the index keeps words up to
 * the first zero) (count); read the code objects of a new
 * stack's key while they live (EV_PY_STACK); free (before rt_ps_free, which
 * releases each process's state: a procstate client) */
void rt_py_start(struct rt *rt);
void rt_py_scan(struct rt *rt, int pid);
struct vf_frame;
int rt_py_frames(struct rt *rt, const uint64_t *words, uint32_t nwords, struct vf_frame *f);
int rt_py_mixed(struct rt *rt, const uint64_t *words, uint32_t nwords, uint32_t key_words,
		struct vf_frame *f, int n, int cap);
void rt_py_name_stack(struct rt *rt, const uint8_t *key, size_t len);
/* the -c child stopped in its exit (ptrace): its queued stacks named now */
void rt_py_at_exit(struct rt *rt);
void rt_py_free(struct rt *rt);
/* symbols.c: the per-pid ELF symbol cache, made on first use (NULL: no memory) */
struct rs_symcache *rt_symcache(struct rt *rt);
/* exited.c: stacks of processes that exit.  A pid's first stack
 * (EV_PID_SEEN) captures its per-process state; a stack printed touches
 * it; a map that can hold stacks printed or cleared counts towards the
 * sweep that releases the processes gone; the exec watcher (a program on
 * sched:sched_process_exec sending EV_EXEC) learns the exec'd files'
 * build-ids.  rt_ustack_bid_frame names one {build-id, offset} frame:
 * 0 at the end of the stack, 1 done (f set), 2 an address frame (*ip). */
void rt_ps_capture(struct rt *rt, int pid);
/* another per-process reader (procstate.h's client): its index, or -errno;
 * its slot for pid (NULL: none), pid touched */
struct ps_client;
int rt_ps_register(struct rt *rt, const struct ps_client *cl);
void *rt_ps_get(struct rt *rt, int pid, int client);
void rt_ps_touch(struct rt *rt, int pid);
void rt_ps_map_done(struct rt *rt, const struct sema_map *m);
void rt_ps_sweep(struct rt *rt);
void rt_ps_stats(struct rt *rt, uint64_t *kept, uint64_t *evicted);
void rt_ps_free(struct rt *rt);
int rt_exec_watch(struct rt *rt);
void rt_exec_event(struct rt *rt, const uint8_t *args, size_t len);
int rt_ustack_bid_frame(struct rt *rt, const uint8_t *p, struct vf_frame *f, uint64_t *ip);
/* the -c child: trace it to read its mappings as it exits (only when the
 * script symbolizes user addresses); waitpid(child, status, block ? 0 :
 * WNOHANG) that handles the tracing stops itself */
void rt_child_trace(struct rt *rt);
pid_t rt_child_wait(struct rt *rt, int *status, bool block);
/* links.c: the links rt_run destroys at teardown.  add keeps l; keep
 * keeps l and counts it, or says why libbpf gave none (l NULL, errno);
 * add_link_fd keeps a link libbpf does not know (a multi-uprobe link);
 * hold_event keeps fd (a perf event whose program has a link of its own)
 * until rt_detach_all, which destroys every link and releases them;
 * links_free frees the bookkeeping after that. */
void rt_add_link(struct rt *rt, struct bpf_link *l);
int rt_keep_link(struct rt *rt, const struct sema_attach *at, struct bpf_link *l, int *count);
void rt_add_link_fd(struct rt *rt, int fd);
void rt_hold_event(struct rt *rt, int fd);
void rt_detach_all(struct rt *rt);
void rt_links_free(struct rt *rt);
/* links.c: the i-th attach point a program serves */
const struct sema_attach *rt_prog_attach(const struct cg_prog *p, int i);
/* run.c: run every program of BEGIN, END or self once, in source order */
void rt_run_special(struct rt *rt, enum probe_type type);
/* The attach functions, one file per probe family: run.c's attachers[]
 * indexes them by probe type.  Each attaches prog at one attach point,
 * adds what it attached to *count, and says on stderr why it could not
 * (0 or -errno). */
typedef int rt_attach_fn(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
			 int *count);
rt_attach_fn rt_attach_uprobe, rt_attach_usdt;		/* uprobe.c */
rt_attach_fn rt_attach_kprobe;				/* kprobe.c */
rt_attach_fn rt_attach_fentry;				/* fentry.c */
/* kprobe.c: before loading, the programs that serve several kernel
 * functions take the kprobe_multi attach type where the kernel has it
 * (SONDE_NO_KPROBE_MULTI=1 keeps a link per function) */
void rt_kprobe_prepare(struct rt *rt);
rt_attach_fn rt_attach_tracepoint, rt_attach_raw_tracepoint;	/* tracepoint.c */
rt_attach_fn rt_attach_perf;	/* perf.c: interval, profile, software, hardware */
rt_attach_fn rt_attach_bench;	/* bench.c: bench: probes count under --bench */
rt_attach_fn rt_attach_iter;	/* iter.c: iter: probes, an iterator link */
/* iter.c: the iterator read to its end (its program runs per object);
 * 0, or -1 after a message */
int rt_iter_run(struct rt *rt);
/* bench.c: --bench: each bench: probe run and timed, its row written;
 * 0, or -1 after a message */
int rt_bench_run(struct rt *rt);
/* uprobe.c: plan resolves every uprobe attach point in source order
 * before anything attaches (missing ones warn, or stop the run: 0 or
 * -errno); plans_free frees what attaching did not take. */
int rt_plan_uprobes(struct rt *rt);
void rt_uprobe_plans_free(struct rt *rt);
/* uprobe.c: attach prog at one resolved uprobe site (its cookie names the
 * symbol for func); -v says where and for which pids ("new file" when
 * later, from a --follow rescan).  0 or -errno, no error message. */
int rt_attach_uprobe_site(struct rt *rt, struct bpf_program *prog,
			  const struct sema_attach *at, const struct rs_site *s, bool later);
/* agent.c: --user-probes.  attach connects to the chosen agents and has
 * them hook every uprobe site (count: sites hooked) and plugs their maps
 * in as rt->map_source; go releases a -c child; poll feeds their events
 * to rt_event; detach unhooks and warns about what the agents counted as
 * lost. */
int rt_agent_attach(struct rt *rt, int *count);
void rt_agent_go(struct rt *rt);
void rt_agent_poll(struct rt *rt);
void rt_agent_detach(struct rt *rt);
void rt_agent_free(struct rt *rt);
/* umulti.c: multi-uprobe links (Linux 6.6).  prepare: before loading,
 * the uprobe programs take the multi link's attach type when the kernel
 * has it (SONDE_NO_UPROBE_MULTI=1 keeps the classic per-site links);
 * prog: whether prog was loaded so; link: one link for n offsets of path
 * (with a cookie each), only for pid when pid > 0; a link fd or -errno. */
bool rt_umulti_supported(void);
void rt_umulti_prepare(struct rt *rt);
bool rt_umulti_prog(const struct bpf_program *prog);
enum bpf_attach_type rt_umulti_attach_type(void);
int rt_umulti_link(int prog_fd, const char *path, const uint64_t *offsets,
		   const uint64_t *cookies, uint32_t n, int pid, bool retprobe);
/* overhead.c: --overhead.  start: after loading, before attaching (BPF
 * statistics on, uprobe trap calibrated); tick: from the main loop, once
 * a second at most (the table with -v, warnings past 5 % of a CPU);
 * report: the table at exit, after the maps; free. */
int rt_overhead_start(struct rt *rt);
void rt_overhead_tick(struct rt *rt);
void rt_overhead_report(struct rt *rt);
void rt_overhead_free(struct rt *rt);
/* follow.c: --follow.  start before attaching (notes from the first
 * resolution count as shown); keep takes q (copied) and sites (owned, also
 * on error); tick rescans once a second; free detaches nothing (links are
 * rt's) and frees every query's sites. */
int rt_follow_start(struct rt *rt);
int rt_follow_keep(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
		   const struct rs_query *q, struct rs_sites *sites);
void rt_follow_tick(struct rt *rt);
void rt_follow_free(struct rt *rt);
/* --follow and -v: remember the files of these sites as attached, and say
 * once when one of them changes in place (rt_watch_tick, once a second) */
void rt_watch_sites(struct rt *rt, const struct sema_attach *at, const struct rs_sites *sites);
void rt_watch_tick(struct rt *rt);
void rt_watch_free(struct rt *rt);
/* false when msg was already shown during this run's rescans (always
 * true without --follow) */
bool rt_follow_note_first(struct rt *rt, const char *msg);
/* a set of messages already shown, at most max remembered (then it starts
 * over); first() is true the first time msg is seen */
struct rt_noteset;
struct rt_noteset *rt_noteset_new(size_t max);
bool rt_noteset_first(struct rt_noteset *ns, const char *msg);
void rt_noteset_free(struct rt_noteset *ns);
/* stop.c: open installs the signal handlers (SIGINT, SIGTERM; SIGCHLD with
 * -c), maps exit()'s flag and opens the -p pidfd; due() is the per-event
 * question "should the main loop look now?" (cheap: memory reads); wait()
 * sleeps until events (1), a possible stop or the timeout (0), -errno;
 * update() reaps the -c command and sets rt->stop when any cause is there;
 * after the stop, while run.c drains the ring, skip_event() tells the
 * callback to only count (a second signal came).  stop.c decides; run.c
 * acts (prints the maps on SIGUSR1, drains). */
int rt_stop_open(struct rt *rt);
void rt_stop_close(struct rt *rt);
bool rt_stop_due(struct rt *rt);
int rt_stop_wait(struct rt *rt, int timeout_ms);
/* SIGUSR1 came since the last call (run.c runs the self:signal:SIGUSR1
 * probes or prints the maps) */
bool rt_stop_dump_due(struct rt *rt);
bool rt_stop_update(struct rt *rt);
bool rt_stop_skip_event(struct rt *rt);
/* a system() command the drain after the stop leaves unrun (counted) */
bool rt_stop_skip_command(struct rt *rt);
/* around run.c's drain of what is queued after the stop: end returns how
 * many events a second signal left unprinted */
void rt_stop_drain_begin(struct rt *rt);
uint64_t rt_stop_drain_end(struct rt *rt);
/* keyfold.c: a key holding `container` (a cgroup id printed as a container
 * id) or a TY_DECODED value (fdpath) can print the same for many ids; fold such entries of pm into one as
 * aggregation `kind` combines values (not for plain values).  0 or -ENOMEM. */
bool rt_type_has_container(const struct type *t);
int rt_fold_equal_keys(struct pr_map *pm, enum map_kind kind);

/* labels.c: names the key elements of an entry (maps.c calls it for
 * scrape writers) */
void rt_scrape_labels(struct rt *rt, const struct sema_map *m, const uint8_t *key, struct pr_entry *e);
/* scrape.c: maps as metrics.  stats_on before the first attach (per-probe
 * statistics), start before the main loop, stop after it; scrape writes every map and
 * the health families; tick rewrites the textfile (-o FILE) when its
 * interval has passed, to_file now. */
void rt_scrape_stats_on(struct rt *rt);
int rt_scrape_start(struct rt *rt);
void rt_scrape_stop(struct rt *rt);
void rt_scrape(struct rt *rt, FILE *out, const struct output_writer *w);
void rt_scrape_tick(struct rt *rt);
int rt_scrape_to_file(struct rt *rt);
uint64_t rt_lost_events(struct rt *rt);
/* serve.c: --serve [ADDR:]PORT.  start listens (a message and -errno when
 * it cannot) and puts the server's epoll fd in the main loop's wait
 * (stopper.extra_fd); timeout lowers the loop's wait to what the server
 * needs; run serves what is ready without blocking. */
int rt_serve_start(struct rt *rt, const char *addr);
int rt_serve_timeout(struct rt *rt, int timeout_ms);
void rt_serve_run(struct rt *rt);
void rt_serve_stop(struct rt *rt);
/* profile.c: /debug/pprof/profile?seconds=N.  begin reads every stack map
 * (NULL when out of memory); end reads them again and encodes the growth
 * since begin as a gzipped pprof profile (*buf malloc'd), and frees b */
struct rt_baseline;
struct rt_baseline *rt_profile_begin(struct rt *rt);
int rt_profile_end(struct rt *rt, struct rt_baseline *b, uint8_t **buf, size_t *len);
void rt_profile_free(struct rt_baseline *b);

#endif
