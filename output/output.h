/*
 * output.h - writers: how a run's output looks, one file per format.
 *
 * Readers (runtime/maps.c) decode BPF map bytes into the plain structs
 * below; a writer (struct output_writer, one per -f format: text.c,
 * json.c) only formats them, so every byte is golden-tested without root
 * or a kernel.  Output is byte-compatible with bpftrace where bpftrace is
 * right (see docs/differences.md for where it is not).  The runtime calls
 * the writer for every event and for the maps; it never tests which
 * format is selected.  A format that serves maps at scrape time (such as
 * Prometheus exposition) implements `map` and leaves the event hooks empty.
 * The second half of this header holds the pure value formatters
 * (valfmt.c): buf(), ntop(), strftime(), stacks.
 */
#ifndef SONDE_OUTPUT_H
#define SONDE_OUTPUT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct arena;

enum pr_kind {
	PR_INT,		/* count, sum, min, max, plain integer: ival */
	PR_AVG,		/* total / count (integer division, as bpftrace) */
	PR_STATS,	/* count, average, total */
	PR_HIST,	/* log2 buckets, see below */
	PR_LHIST,	/* linear buckets, see below */
	PR_TEXT_VAL,	/* value already rendered: strings, symbols, tuples, stacks */
	PR_TSERIES,	/* tseries(): intervals of a key, pr_entry.ts (tseries.c) */
};
/* In JSON a PR_TEXT_VAL value with text_is_str is quoted and escaped here;
 * any other text is written as it stands, so a reader printing JSON must
 * render it as JSON itself (a tuple as [1,"a"], bpftrace's form). */

/* One element of a map key, already rendered ("123", "bash", "(1, 2)").
 * is_str: the element is a string.  Elements that are not strings and read
 * as decimal integers sort numerically (as unsigned 64-bit, like bpftrace),
 * the rest by bytes.  JSON keys are all elements joined by "," in one
 * quoted string, as bpftrace writes them ("1,bash"). */
struct pr_key {
	const char *text;
	bool is_str;
	bool json_compact;	/* a value 0.17 cannot make (a record, args): its
				 * JSON key drops the text's blanks, as the newest
				 * bpftrace writes every key ("{.a=1,.b=x}") */
	const struct pr_stack *stack;	/* a kstack/ustack element, for writers with `stacks` */
};

/* One frame of a stack key, for the picture formats: `line` is the frame
 * as the text output prints it, indentation dropped ("main+22", as
 * stackcollapse-bpftrace.pl keeps it); `func` the function alone ("main",
 * or "0x7f12..." when unresolved, `named` false); module the mapped file
 * of a named user frame (NULL otherwise); file the mapped file of any user
 * frame whose address lies in a mapping (NULL when none does). */
struct pr_frame {
	const char *line, *func, *module;
	uint64_t addr;
	const char *file;
	bool named;
	/* a Python frame (pystack): func is "name (file)", so that flame
	 * graphs keep one box per function; pprof takes pyname, module (the
	 * file) and lineno */
	const char *pyname;
	uint32_t lineno;
};
/* frames leaf first, as the kernel walks them */
struct pr_stack {
	const struct pr_frame *frames;
	int n;
	bool kernel;
};

/*
 * hist buckets: index 0 counts negative values, 1 counts 0, and index
 * i >= 2 counts [2^(i-2), 2^(i-1)).  nbuckets is at most PR_HIST_BUCKETS.
 * hist(v, k) with k > 0 (pr_map.hist_bits): pr_hist_nbuckets(k) buckets,
 * laid out as print.c says; the bounds from pr_hist_upper.
 * lhist buckets: index 0 counts values below lh_min, index i in
 * 1..n counts [lh_min + (i-1)*step, lh_min + i*step), the last index counts
 * values >= lh_max; n = (lh_max - lh_min) / step, nbuckets = n + 2.
 */
#define PR_HIST_BUCKETS 66
/* hist(v, 5): (64 - 5) * 32 + 1 */
#define PR_HIST_MAX_BUCKETS 1889

/* A Prometheus label, named and valued by the runtime (prometheus.c
 * escapes the value and repairs names Prometheus reserves). */
struct pr_label {
	const char *name, *value;
};

/* one interval of a tseries() key: its number on the TAI clock (TAI ns /
 * pr_map.ts_interval; 0: a slot zero() left) and its value */
struct pr_ts_point {
	uint64_t epoch;
	int64_t value;
};

struct pr_entry {
	struct pr_key *key;	/* nkey elements; NULL/0 for a map without keys */
	int nkey;
	int64_t ival;		/* PR_INT */
	int64_t count, total;	/* PR_AVG, PR_STATS; hist/lhist with has_sum: the sum */
	bool has_sum;		/* hist/lhist: total holds the exact sum of the values */
	const struct pr_label *labels;	/* scrape formats: the key as labels */
	int nlabels;
	uint64_t *buckets;	/* PR_HIST, PR_LHIST */
	int nbuckets;
	const char *text;	/* PR_TEXT_VAL */
	bool text_is_str;	/* PR_TEXT_VAL: quote in JSON */
	const struct pr_ts_point *ts;	/* PR_TSERIES: the key's intervals, any order */
	int nts;
};

struct pr_map {
	const char *name;	/* "@lat", "@" */
	enum pr_kind kind;
	int64_t lh_min, lh_max, lh_step;	/* PR_LHIST */
	struct pr_entry *entries;
	size_t nentries;
	bool is_unsigned;	/* PR_INT: ival is a uint64 (prints, sorts, divides so) */
	bool counter;		/* PR_INT from count() (a counter, not a gauge; pprof's unit) */
	/* scrape formats only */
	size_t series_cap;	/* most series written (0: no cap) */
	size_t byte_limit;	/* stop before the stream passes this offset (0: none) */
	size_t series_dropped;	/* out: series the cap or the limit left out */
	int hist_bits;		/* PR_HIST: hist(v, k)'s k, 0..5 */
	/* PR_TSERIES (values signed unless is_unsigned) */
	uint64_t ts_interval;	/* ns */
	uint32_t ts_nintervals;
	int64_t ts_tai_offset;	/* CLOCK_TAI - CLOCK_REALTIME, ns: stamps print as wall time */
	uint64_t ts_now_epoch;	/* the interval running when read (0: unknown) */
};

/* How the runtime renders values (tuples, strings) for a writer: as text
 * ("(1, a)"), or as JSON ([1,"a"]; strings quoted). */
enum pr_render { PR_RENDER_TEXT, PR_RENDER_JSON };

/*
 * One output format.  `out` is the run's output (stdout or -o FILE);
 * `diag` is where a format sends status lines it does not count as output
 * (text: stderr).  Every hook must be set (an empty function where the
 * format ignores the event).
 */
struct output_writer {
	const char *name;	/* -f NAME */
	enum pr_render render;	/* how map values and print(expr) are rendered */
	/* a scrape format: maps are read when scraped (--serve) or rewritten
	 * every interval (-o FILE), never printed at exit; events go to stdout */
	bool scrape;
	bool openmetrics;	/* scrape format is OpenMetrics 1.0 (else Prometheus 0.0.4) */
	/* stack key elements come with their frames (pr_key.stack) */
	bool stacks;
	/* a picture format: -o FILE is the picture, which `finish` writes at
	 * exit; `out` of every other hook is the terminal (stdout) */
	bool picture;
	/* "Attached N probes" after attaching (not with -q) */
	void (*attached)(FILE *out, FILE *diag, int nprobes);
	/* printf, and the other text events as bpftrace names them: "time",
	 * "cat", "syscall" (system()'s output); text is not NUL-terminated */
	void (*message)(FILE *out, const char *type, const char *text, size_t len);
	/* print(expr) of a non-map value, rendered as `render` says */
	void (*value)(FILE *out, const char *rendered);
	/* join(argv): the arguments joined by the separator */
	void (*join)(FILE *out, const char *text, size_t len);
	/* at exit, before the maps (after END) */
	void (*maps_begin)(FILE *out);
	/*
	 * One map as bpftrace's print(@m, top, div) would: entries sorted
	 * ascending by value (int: ival; avg/stats: total/count; hist/lhist:
	 * sum of buckets; PR_TEXT_VAL: by key only, as bpftrace), ties by
	 * key; only the last `top` when top > 0; values divided by `div` when
	 * div > 1.  As in bpftrace, stats maps ignore top and div, lhist maps
	 * ignore div, and hist divides the printed counts but draws the bars
	 * from the raw ones.  Sorts m->entries in place (pr_map_order).
	 */
	void (*map)(FILE *out, struct pr_map *m, uint32_t top, uint32_t div);
	/* events the ring buffer dropped */
	void (*lost_events)(FILE *out, FILE *diag, uint64_t lost);
	/* -k: a helper that failed at run time, as a record of the stream
	 * (bpftrace's {"type": "helper_error", ...}); NULL: a located warning
	 * on stderr */
	void (*helper_error)(FILE *out, const char *helper, int64_t retcode, const char *msg,
			     int line, int col);
	/* --bench: bench probe `index` of names[0..n) ran iters times, avg_ns
	 * each (first: the table's first row, after its header); NULL: text's */
	void (*benchmark)(FILE *out, const char *const *names, int n, int index, bool first,
			  uint64_t avg_ns, uint64_t iters);
	/* picture formats: write the picture to `out` (the -o FILE) at exit;
	 * NULL in the formats that write as they go */
	void (*finish)(FILE *out);
};

extern const struct output_writer output_text, output_json, output_prometheus, output_openmetrics,
	output_folded, output_flamegraph, output_heatmap, output_pprof;

/* sonde's own metrics, written after the maps of a scrape */
struct pr_probe_stat {
	const char *probe;
	uint64_t hits, run_ns;	/* from the kernel's BPF run-time statistics */
};
struct pr_health {
	uint64_t lost;			/* ring buffer events dropped */
	const struct pr_probe_stat *probes;	/* none when the kernel keeps no statistics */
	int nprobes;
	const char **maps;		/* series dropped, per map, since the start */
	const uint64_t *dropped;
	int nmaps;
	double last_scrape_s;		/* the previous scrape's duration */
	bool procs;			/* the script keeps per-process state (user stacks, usym): */
	uint64_t procs_kept, procs_evicted;	/* processes kept now, evicted so far */
};
/* one counter family in seconds (name ends in _seconds_total), a sample a
 * series: sonde diagnose --serve's */
struct pr_series {
	const struct pr_label *labels;
	int nlabels;
	uint64_t ns;
};
void pr_prom_seconds_total(FILE *out, bool om, const char *name, const char *help,
			   const struct pr_series *s, size_t n);
/* the health families, and OpenMetrics' "# EOF" (every scrape ends here) */
void pr_prom_health(FILE *out, bool openmetrics, const struct pr_health *h);
/* the writer for -f NAME, NULL when none is called so */
const struct output_writer *output_find(const char *name);
/* "text or json": every name, for messages */
const char *output_names(void);

/* hist/lhist bodies alone, e.g. for one key of a keyed hist */
void pr_hist_text(FILE *out, const uint64_t *buckets, int nbuckets);
void pr_lhist_text(FILE *out, const uint64_t *buckets, int nbuckets,
		   int64_t min, int64_t max, int64_t step);
/* "[4K, 8K)" style label for hist bucket i into buf ("(..., 0)" for 0, "[0]", "[1]") */
void pr_hist_label(char *buf, size_t len, int i, int bits);
/* buckets of a hist(v, bits) map */
int pr_hist_nbuckets(int bits);
/* bucket i's exclusive upper bound (0 for i = 0: the negative values) */
uint64_t pr_hist_upper(int i, int bits);

/* tseries.c: the intervals printed, [*first, *last] (bpftrace's window:
 * the last ts_nintervals up to the newest interval of any key) */
void pr_tseries_window(const struct pr_map *m, uint64_t *first, uint64_t *last);
/* one key's graph, as bpftrace's text output (ends in "\n"; "<no data>"
 * alone when nothing is in the window) */
void pr_tseries_text(FILE *out, const struct pr_map *m, const struct pr_entry *e);
/* "@m[k]:\n", the graph, "\n", for the entries from `first` on */
void pr_tseries_text_map(FILE *out, const struct pr_map *m, size_t first);
/* one key's JSON array of {"interval_start": ..., "value": ...} */
void pr_tseries_json(FILE *out, const struct pr_map *m, const struct pr_entry *e);
/* the value of the latest complete interval (the newest before
 * ts_now_epoch, within the window); false when there is none */
bool pr_tseries_latest(const struct pr_map *m, const struct pr_entry *e, int64_t *v);

/* lhist bucket i's label as the text output prints it ("[10, 20)") */
void pr_lhist_label(char *buf, size_t len, int i, int nbuckets, int64_t min, int64_t max,
		    int64_t step);

/* folded.c: a map the stack formats draw: an integer value (count, sum)
 * and a stack in the key of an entry */
bool pr_is_stack_map(const struct pr_map *m);

/* pprof.c: the maps' stack entries as a gzipped profile.proto into *buf
 * (malloc'd, *len bytes); duration_ns of the profile; 0 or -errno */
int pr_pprof_encode(const struct pr_map *maps, int nmaps, int64_t time_ns, int64_t duration_ns,
		    uint8_t **buf, size_t *len);

/* JSON helpers, for rendering values as JSON */
void pr_json_string(FILE *out, const char *s, size_t len);	/* quoted, escaped */
/* an integer as the newest bpftrace writes it in JSON: a number when a
 * double holds it exactly (RFC 8259's interoperable range, and beyond for
 * values with few significant bits), else a string of its digits */
void pr_json_u64(FILE *out, uint64_t v);
void pr_json_i64(FILE *out, int64_t v);
void pr_json_event(FILE *out, const char *type, const char *data_json);	/* {"type": T, "data": D}\n */

/*
 * valfmt.c - pure text forms of the values that need userspace work to
 * print: buf() bytes, ntop() addresses, strftime() timestamps and stacks.
 *
 * No BPF and no /proc here: symbols arrive already resolved, so these are
 * golden-tested without root.  Output is byte-compatible with bpftrace
 * 0.17.  Results live in the arena a.
 */

/* a C++ symbol ("_ZN2ns4funcEi") as C++ writes it ("ns::func(int)"),
 * through libstdc++'s demangler, as bpftrace prints func, usym and
 * ustack; any other name as it is */
const char *vf_demangle(struct arena *a, const char *name);

/* buf(): printable ASCII (32..126) as itself, every other byte as \xNN */
const char *vf_buf(struct arena *a, const uint8_t *p, size_t n);
/* printf's %rx (mode 'x'): every byte as \xNN; %rh (mode 'h'): every byte
 * as two hex digits, separated by spaces ("61 62 01"), as bpftrace */
const char *vf_buf_hex(struct arena *a, const uint8_t *p, size_t n, char mode);

/* ntop(): af 2 (AF_INET) reads addr[0..4), 10 (AF_INET6) addr[0..16);
 * any other family gives "" */
const char *vf_inet(struct arena *a, uint64_t af, const uint8_t *addr);

/* strftime(fmt, t) in local time (utc: UTC), with bpftrace's %f: the
 * microseconds of t, six digits.  "" when the result is empty or longer
 * than 1023 bytes. */
const char *vf_strftime(struct arena *a, const char *fmt, const struct timespec *t, bool utc);

/* Monotonic nanoseconds (bpf_ktime_get_ns, `nsecs`) to wall-clock time,
 * given one reading of both clocks. */
struct timespec vf_mono_to_wall(uint64_t mono_ns, const struct timespec *now_real,
				const struct timespec *now_mono);

/* VF_STACK_PYTHON: pystack's frames, "name (file:line)" (sym, module, off = line) */
enum vf_stack_mode { VF_STACK_BPFTRACE, VF_STACK_PERF, VF_STACK_RAW, VF_STACK_PYTHON };

struct vf_frame {
	uint64_t addr;
	const char *sym;	/* NULL: unresolved */
	uint64_t off;		/* addr - symbol start */
	const char *module;	/* user frames: the mapped file (NULL: none), also
				 * for an unresolved address */
	bool py;		/* a Python frame: sym the name, module the file, off the line */
	bool inl;		/* an inlined function's frame (show_debug_info): no offset */
	const char *src;	/* "file:line" (show_debug_info), printed after "@"; NULL: none */
};

/* A stack as bpftrace prints it: "\n", then one line per frame:
 *   bpftrace: indent spaces, "sym+off" (or 0x<addr>), "@file:line" with src,
 *             "[inlined] sym@file:line" for an inlined frame
 *   perf:     "\t<hexaddr> sym+off" plus " (module)" for user stacks
 *   raw:      "<hexaddr>"
 * n == 0 gives "" (bpftrace prints a stack it could not read as nothing). */
const char *vf_stack(struct arena *a, const struct vf_frame *f, int n, enum vf_stack_mode mode,
		     int indent, bool user);
/* one frame's line of vf_stack, without the indentation */
const char *vf_frame_line(struct arena *a, const struct vf_frame *f, enum vf_stack_mode mode,
			  bool user);


/*
 * report.c - sonde diagnose's report: where each thread's wall-clock time
 * went (nanoseconds per category), the blind spots ranked by their share
 * of the busiest threads' time, and what to do.  Filled by the cli from a
 * run; dx_analyse groups, splits and ranks, the printers only print.
 */
enum dx_cat {
	DX_RUN, DX_RUNQ, DX_THROTTLED, DX_FAULT, DX_IO, DX_GPU, DX_GIL,
	DX_FUTEX, DX_SLEEP, DX_POLL, DX_OTHER, DX_NCAT
};
extern const char *const dx_cat_names[DX_NCAT];
/* each category's `state` label in sonde diagnose --serve's metrics
 * (sonde_diagnose_seconds_total{state="waiting_cpu"}); a category without
 * a row here is exported under its JSON key */
const char *dx_cat_state(enum dx_cat c);

/* a call by name with its count and total time (CUDA runtime calls, and a
 * thread's read and write syscalls) */
struct dx_cuda { const char *func; uint64_t n, ns; };

struct dx_thread {
	int pid, tid;
	const char *comm;
	int cgroup;			/* index into dx_report.cgroups, -1: none */
	uint64_t wall_ns;		/* time inside the window */
	uint64_t ns[DX_NCAT];		/* DX_RUNQ holds the whole wait until dx_analyse */
	uint64_t wait_max_ns, wait_hist[PR_HIST_BUCKETS];	/* waits for a CPU, us */
	uint64_t majflt, minflt;	/* the kernel's counters, over the window */
	uint64_t bio_n, bio_ns;		/* block requests it issued */
	uint64_t bio_hist[PR_HIST_BUCKETS];	/* their latency, us */
	struct dx_cuda *rw;		/* read/write/fsync syscalls: calls and time */
	int nrw;
	uint64_t kernel_run_delay_ns;	/* schedstat's run_delay over the window */
	bool kernel_known;
	uint64_t gil_held_ns;		/* held the GIL on a CPU (sampled; report_gil.c) */
	uint64_t gil_runq_ns;		/* of ns[DX_GIL]: woken, waiting for a CPU */
	bool exited;			/* ended inside the window */
};
struct dx_group {			/* one process's threads of one name */
	int pid, nthreads;
	const char *comm;
	bool busy;
	uint64_t wall_ns, ns[DX_NCAT], wait_max_ns, wait_hist[PR_HIST_BUCKETS];
	uint64_t majflt, minflt, bio_n, bio_ns, kernel_run_delay_ns;
	uint64_t bio_hist[PR_HIST_BUCKETS];
	struct dx_cuda *rw;		/* by syscall name */
	int nrw;
	bool kernel_known;
	uint64_t gil_held_ns, gil_runq_ns;
};
struct dx_cgroup {
	const char *path, *quota;	/* "max" or "20000/100000 us" */
	uint64_t nr_periods, nr_throttled, throttled_ns;	/* cpu.stat over the window */
};
struct dx_other {
	const char *comm;
	int pid;
	uint64_t ns;
	bool self;			/* a process of the service itself */
};
/* a memory cgroup of the service (report_limits.c) */
struct dx_count { const char *name; uint64_t n; };
#define DX_MEMCG_COUNTS 12
struct dx_memcg {
	const char *path;
	const char *limit_file;		/* "memory.max", "memory.limit_in_bytes" */
	int64_t limit, high;		/* bytes; -1: none */
	int64_t usage;			/* bytes at the end; -1: unknown */
	struct dx_count counts[DX_MEMCG_COUNTS];	/* over the window */
	int ncounts;
	int *pids;			/* the service's processes in it */
	int npids;
};
struct dx_ioctl {
	int pid;
	const char *comm, *path, *name;	/* name: "NV_ESC_RM_CONTROL (NV2080 0x20800110)" */
	uint64_t cmd, n, ns;
};
struct dx_finding {
	enum dx_cat cat;
	double share;			/* of the busiest threads' wall time */
	const char *evidence, *advice;
};
struct dx_report {
	const char *target;		/* "pid 123 (python3)" */
	double seconds;
	uint64_t lost;
	struct dx_thread *threads;
	int nthreads;
	struct dx_cgroup *cgroups;
	int ncgroups;
	struct dx_other *instead;	/* sorted, longest first */
	int ninstead;
	struct dx_ioctl *ioctls;
	int nioctls;
	struct dx_cuda *cuda;
	int ncuda;
	const char *cudart;		/* the libcudart traced */
	struct dx_holder *holders;	/* the GIL's holders while others waited, longest first */
	int nholders;
	struct dx_stack *stacks;	/* where the time was lost, by blind spot */
	int nstacks;
	const char *libcuda;		/* the libcuda (driver API) traced */
	int ncpus;			/* CPUs the service's threads may run on; 0: unknown */
	struct dx_memcg *memcgs;
	int nmemcgs;
	/* dx_analyse */
	struct dx_group *groups;
	int ngroups;
	struct dx_finding findings[DX_NCAT];
	int nfindings;
};
/* a thread that held the GIL while others waited for it: how long they
 * waited (each wait counted to the holder when it began) */
struct dx_holder {
	int pid, tid;
	const char *comm;		/* its (Python) thread name */
	uint64_t ns;
};
/* a stack seen while a thread lost time to a blind spot: the frames, one a
 * line, innermost first; its weight is time (ns) or samples */
struct dx_stack {
	enum dx_cat cat;
	const char *frames;
	uint64_t weight;
	bool samples;
};

/* report_gil.c: the GIL's evidence, and the three stacks most seen for each
 * blind spot of the verdict (text under the finding, JSON beside it) */
const char *dx_gil_evidence(struct arena *a, const struct dx_report *r, double share,
			    const struct dx_group *top);
const char *dx_gil_advice(void);
void dx_where_text(FILE *out, const struct dx_report *r, enum dx_cat c);
void dx_where_json(FILE *out, const struct dx_report *r, enum dx_cat c);
void dx_gil_json(FILE *out, const struct dx_report *r);
void dx_threads_json(FILE *out, const struct dx_report *r, const char *const *keys);

/* add count calls taking ns to the entry of func in *calls (appended when
 * it has none): the same call seen under several keys is one line */
void dx_calls_add(struct arena *a, struct dx_cuda **calls, int *n, const char *func, uint64_t count,
		  uint64_t ns);
void dx_analyse(struct arena *a, struct dx_report *r);
void dx_print_text(FILE *out, const struct dx_report *r);
void dx_print_json(FILE *out, const struct dx_report *r);

/* report_cuda.c: the CUDA calls diagnose traces, by API and kind */
enum dx_cu_kind { DX_CU_LAUNCH, DX_CU_GRAPH, DX_CU_SYNC, DX_CU_COPY, DX_CU_MEMORY, DX_CU_NKIND };
struct dx_cufunc { const char *name; enum dx_cu_kind kind; bool driver; };
const struct dx_cufunc *dx_cuda_funcs(size_t *n);
const struct dx_cufunc *dx_cuda_func(const char *name);	/* NULL: not one of them */
/* a per-thread default stream variant's base name ("cudaGraphLaunch_ptsz" -> "cudaGraphLaunch") */
const char *dx_cuda_base(struct arena *a, const char *name);
void dx_cuda_text(FILE *out, const struct dx_report *r);
void dx_cuda_json(FILE *out, const struct dx_report *r);	/* , "cuda": [...], ... */
const char *dx_cuda_evidence(struct arena *a, const struct dx_report *r);

/* report_limits.c: the service against its own CPUs and its memory limit.
 * dx_limits_finding rewrites a finding's evidence and advice where the
 * limits explain it (the waits for a CPU were mostly for the service's own
 * threads; major faults under a memory cgroup's limit) */
void dx_limits_finding(struct arena *a, const struct dx_report *r, struct dx_finding *f,
		       const struct dx_group *g);
void dx_limits_text(FILE *out, const struct dx_report *r);
void dx_limits_json(FILE *out, const struct dx_report *r);	/* , "memory_cgroups": [...], ... */
/* mark the tasks that ran instead that are the service's own processes */
void dx_limits_mark(struct dx_report *r);
/* the memory cgroup of pid in r, or NULL */
const struct dx_memcg *dx_memcg_of(const struct dx_report *r, int pid);

#endif
