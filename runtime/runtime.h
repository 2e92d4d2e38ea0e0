/*
 * runtime.h - load, attach, run, print.
 *
 * rt_run() takes the compiled object and the sema tables, loads the object
 * through libbpf (showing the verifier's complaint next to the source line
 * when the kernel refuses), attaches every probe, runs BEGIN, consumes the
 * ring buffer until END/exit()/a signal/the -c child ends, then detaches,
 * runs END and prints every map.
 */
#ifndef SONDE_RUNTIME_H
#define SONDE_RUNTIME_H

#include <stdbool.h>
#include <stdio.h>

#include "codegen/program.h"
#include "sema/sema.h"
#include "output/output.h"

struct rs_container;
struct rt;

struct rt_opts {
	const struct output_writer *writer;	/* -f */
	FILE *out;		/* stdout or -o FILE (a picture format: stdout) */
	FILE *picture;		/* a picture format's -o FILE (writer->finish), or NULL */
	bool quiet;		/* -q: no "Attached N probes" */
	int verbose;		/* -v */
	bool dry_run;		/* load, attach, detach, exit 0 */
	int pid;		/* -p */
	int child_pid;		/* -c: started, stopped before exec until attached */
	int child_go_fd;	/* a byte sent here lets the child exec (a socket) */
	const char *child_cmd;	/* -c's command line */
	const struct rs_container *container;	/* --container */
	bool follow;		/* --follow: rescan uprobe targets every second */
	bool user_probes;	/* --user-probes: uprobes run in the targets' agents */
	const char *agent_dir;	/* --agent-dir; NULL: SONDE_RUN_DIR or /run/sonde */
	unsigned rb_pages;	/* event ring: pages per CPU (0: the default size) */
	bool overhead;		/* --overhead: what each probe costs (overhead.c) */
	bool bench;		/* --bench: run and time the bench: probes (bench.c), then END */
	bool unsafe;		/* --unsafe: uprobes on files that are no ELF (host/resolve.h) */
	const regex_t *probe_filter;	/* --probe-filter: a wildcard uprobe's functions
					 * whose names it matches (sema filtered the rest) */
	const char *src;	/* source text, for verifier messages */
	const char *file;	/* source name */
	/* scrape writers (-f prometheus|openmetrics) */
	const char *serve_addr;	/* --serve [ADDR:]PORT */
	const char *metrics_file;	/* -o FILE: rewritten every interval_s */
	unsigned interval_s;	/* --interval */
	size_t series_cap;	/* --max-series: per map (0: no cap) */
	const char *kube_logs;	/* --kube-logs: the kubelet's log tree (/var/log) */
	/* a program's own families in place of the maps' (sonde diagnose
	 * --serve): a scrape calls this, then writes sonde's health; it reads
	 * the maps with rt_maps_read, names containers with rt_cgroup_labels */
	void (*scrape_fn)(void *arg, struct rt *rt, FILE *out, bool openmetrics);
	void *scrape_arg;
};

/* for scrape_fn: every map through the writer's map hook, those named in
 * `last` (NULL-terminated, or NULL) after all the others */
void rt_maps_read(struct rt *rt, const char *const *last);
/* the labels of the cgroup cgid as a `container` key element gets them
 * (namespace, pod, container, container_id on Kubernetes; container, the
 * short id, otherwise), allocated for the scrape */
void rt_cgroup_labels(struct rt *rt, uint64_t cgid, struct pr_label **v, int *n);
/* map edits (mapedit.c): @name[key] = value in a map of integers keyed by
 * one; delete every entry of @name whose first key element is one of keys.
 * 0 or -errno. */
int rt_map_set(struct rt *rt, const char *name, int64_t key, int64_t value);
int rt_map_forget(struct rt *rt, const char *name, const int64_t *keys, size_t n);

/* exit status for main: 0, or 1 after a message */
int rt_run(const struct sema_result *r, const struct cg_object *obj, const struct rt_opts *o);

/* --user-probes: the agent library a -c child preloads (NULL: not
 * found; buf holds the path otherwise), and the run directory agents use
 * by default (SONDE_RUN_DIR, else /run/sonde) */
const char *rt_agent_lib(char *buf, size_t len);
const char *rt_agent_dir(void);

/* skboutput()'s pcap writer: libpcap's version text, NULL when the
 * library cannot be loaded (skbout.c) */
const char *rt_pcap_version(void);

/* route libbpf's messages: shown with -v (and errors always) */
void rt_libbpf_logging(int verbose);

/* catch SIGINT and SIGTERM from now on (once the options are read): one
 * that arrives while compiling or loading ends the run once it is
 * attached, instead of being lost (a shell's background job inherits them
 * ignored) */
void rt_stop_signals(void);

#endif
