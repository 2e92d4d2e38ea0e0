/*
 * args.c - sonde's command line words: the options (getopt_long, with the
 * newest bpftrace's long names), the checks that join them (a picture
 * needs -o, a metrics format --serve or -o), the flags that override the
 * environment's settings, and the words after the script: $1, $2 ... and
 * the script's own named options (getopt()).  `sonde -h` is here too.
 */
#include "cli/cli.h"

#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "common/diag.h"
#include "common/explain.h"
#include "common/settings.h"
#include "host/dwarf.h"
#include "output/output.h"
#include "sema/sema.h"

void cli_usage(FILE *out)
{
	fprintf(out,
		"USAGE:\n"
		"    sonde [options] FILE|RECIPE [ARGS...]\n"
		"    sonde [options] -e 'PROGRAM' [ARGS...]\n"
		"    sonde [options] - [ARGS...]       (the program on standard input)\n"
		"    sonde -l [PATTERN]\n"
		"    sonde --info\n"
		"    sonde diagnose [-p PID | --container ID | -c CMD] [SECONDS]   (sonde diagnose -h)\n"
		"\n"
		"OPTIONS:\n"
		"    -e PROGRAM       trace this program\n"
		"    -l [PATTERN]     list probes (tracepoint:, software:, hardware:, uprobe:PATH:,\n"
		"                     usdt:PATH:); a PATTERN without a type searches every type\n"
		"    -v               verbose: with -l, show tracepoint arguments; else say what\n"
		"                     was attached where\n"
		"    -q               quiet: no \"Attached N probes\" line\n"
		"    -p PID           trace only this process; resolve uprobes through it\n"
		"    -c CMD           run CMD, trace it (cpid), stop when it exits\n"
		"    -f FORMAT        text, json, prometheus, openmetrics, folded (stacks for\n"
		"                     flamegraph.pl), flamegraph (-o FILE.svg), heatmap\n"
		"                     (-o FILE.html) or pprof (-o FILE.pb.gz) (default text)\n"
		"    -o FILE          write output to FILE; with prometheus or openmetrics,\n"
		"                     rewrite FILE every --interval (node_exporter textfile);\n"
		"                     with flamegraph, heatmap or pprof, the picture (text\n"
		"                     output stays on the terminal)\n"
		"    -k               warn when a helper fails in BPF: a map update or delete,\n"
		"                     a read of an absent key, a memory read (-kk: the same);\n"
		"                     -f json: helper_error records\n"
		"    --list --verbose --quiet --pid PID --cmd CMD --output FILE --warnings\n"
		"    --debug STAGE    the newest bpftrace's long names of -l -v -q -p -c -o -k -d\n"
		"    --serve [ADDR:]PORT  serve the maps as Prometheus metrics at /metrics and\n"
		"                     the stack maps as pprof at /debug/pprof/profile?seconds=N\n"
		"                     (ADDR defaults to 127.0.0.1)\n"
		"    --interval SECS  how often -o FILE is rewritten (default 15)\n"
		"    --max-series N   series per map in metrics (default 10000, 0: no cap)\n"
		"    --kube-logs DIR  the kubelet's log tree for Kubernetes names (default /var/log)\n"
		"    --unsafe         allow system() and signal()\n"
		"    --dry-run        compile, load, attach and detach, then exit 0\n"
		"    --container ID   only this container (id, prefix or cgroup path)\n"
		"    --follow         rescan uprobe targets for new processes every second\n"
		"    --map-keys-max N keys each map holds (default 4096; also BPFTRACE_MAP_KEYS_MAX)\n"
		"    --exclude-self   no probe fires for sonde's own process\n"
		"    --user-probes    run uprobes in the traced processes (LD_PRELOAD=libsonde-agent.so):\n"
		"                     no kernel trap per call\n"
		"    --agent-dir DIR  where agents listen (default $SONDE_RUN_DIR or /run/sonde)\n"
		"    --overhead       what each probe costs the traced processes (hits/s, BPF ns\n"
		"                     per hit, uprobe trap, CPU share): at exit, and each second\n"
		"                     with -v; warns about a probe over 5 %% of a CPU\n"
		"    --rb-pages N     event ring buffer: N pages per CPU, a power of 2 (default:\n"
		"                     16 MiB in all; env BPFTRACE_PERF_RB_PAGES, as bpftrace)\n"
		"    --emit ast|ir|asm  print the typed AST, LLVM IR or BPF assembly and exit\n"
		"    -d STAGE         bpftrace's name for --emit: ast, codegen (ir), dis (asm)\n"
		"    -I DIR           search DIR for #include headers (before the system's)\n"
		"    --include FILE   include FILE before the program (as #include <FILE>)\n"
		"    --debuginfo DIR[:DIR]  look for separate debug files (DWARF for args,\n"
		"                     source lines, show_debug_info) in DIR first, by build-id\n"
		"                     or name; a relative DIR is under the binary's directory;\n"
		"                     repeatable; then ./, .debug/ and /usr/lib/debug\n"
		"    --usdt-file-activation  activate USDT semaphores in every process that\n"
		"                     maps the probe's file (a semaphore-guarded probe fires\n"
		"                     without -p)\n"
		"    -B MODE          stdout buffering: full, line or none (default: line on a\n"
		"                     terminal, full otherwise)\n"
		"    --no-warnings    print no warnings\n"
		"    --info           the kernel's BPF features and how sonde was built\n"
		"    --explain CODE   what an error code (S0101 ...) means and how to fix it;\n"
		"                     --explain --all prints every page\n"
		"    -V, --version    print the version\n"
		"    -h, --help       this help\n"
		"\n"
		"Recipes in %s run by name: sonde runqlat\n"
		"(a file of the current directory needs a path: sonde ./runqlat)\n",
		CLI_SCRIPT_DIR);
	fputc('\n', out);
	settings_usage(out);
}
enum { OPT_UNSAFE = 256, OPT_DRY_RUN, OPT_CONTAINER, OPT_EMIT, OPT_FOLLOW, OPT_MAP_KEYS_MAX,
       OPT_EXCLUDE_SELF, OPT_SERVE, OPT_INTERVAL, OPT_MAX_SERIES, OPT_KUBE_LOGS,
       OPT_INFO, OPT_USER_PROBES, OPT_AGENT_DIR, OPT_RB_PAGES, OPT_OVERHEAD, OPT_EXPLAIN, OPT_NO_WARNINGS,
       OPT_INCLUDE, OPT_USDT_FILE_ACTIVATION, OPT_DEBUGINFO };

/* a whole number in [min, max] or a message naming the option */
static bool parse_count(const char *opt, const char *arg, long min, long max, long *out)
{
	char *end;
	errno = 0;
	long v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v < min || v > max) {
		fprintf(stderr, "sonde: %s needs a whole number from %ld to %ld, not '%s'\n", opt, min,
			max, arg);
		return false;
	}
	*out = v;
	return true;
}

/* does opt (a "-x" word or "--name[=v]") take the next word as its value? */
static bool takes_next(const char *w, const char *shortopts, const struct option *longopts)
{
	if (w[1] == '-') {
		size_t len = strcspn(w + 2, "=");
		if (w[2 + len] == '=')
			return false;
		for (const struct option *o = longopts; o->name; o++)
			if (strlen(o->name) == len && !strncmp(o->name, w + 2, len))
				return o->has_arg == required_argument;
		return false;
	}
	for (const char *p = w + 1; *p; p++) {
		const char *k = strchr(shortopts, *p);
		if (k && k[1] == ':')
			return p[1] == '\0';	/* "-e" takes the next word, "-eX" not */
	}
	return false;
}

/* argv's "--name[=value]" words that name none of longopts, up to "--",
 * into named (in order); returns the new argc */
static int take_named_options(int argc, char **argv, const char *shortopts,
			      const struct option *longopts, const char **named, int *nnamed)
{
	int out = 1;
	for (int i = 1; i < argc; i++) {
		const char *w = argv[i];
		if (!strcmp(w, "--")) {
			while (i < argc)
				argv[out++] = argv[i++];
			break;
		}
		if (w[0] == '-' && w[1] == '-' && w[2] && w[2] != '=') {
			size_t len = strcspn(w + 2, "=");
			bool known = false;
			for (const struct option *o = longopts; o->name && !known; o++)
				known = strlen(o->name) == len && !strncmp(o->name, w + 2, len);
			if (!known) {
				named[(*nnamed)++] = w;
				continue;
			}
		}
		argv[out++] = argv[i];
		if (w[0] == '-' && w[1] && takes_next(w, shortopts, longopts) && i + 1 < argc)
			argv[out++] = argv[++i];
	}
	argv[out] = NULL;
	return out;
}

/* a named option the script never reads with getopt() is a mistake (a
 * misspelt name, an option meant for sonde), as in the newest bpftrace */
bool cli_args_named_used(const struct sema_opts *so)
{
	const char *const *named = so->named_args;
	for (int i = 0; i < so->nnamed_args; i++) {
		if (so->named_used[i])
			continue;
		size_t len = strcspn(named[i] + 2, "=");
		fprintf(stderr, "sonde: unexpected option %s: neither one of sonde's options (sonde -h) "
			"nor read by the script (getopt(\"%.*s\"))\n", named[i], (int)len, named[i] + 2);
		return false;
	}
	return true;
}

static const struct option longopts[] = {
	{"help", no_argument, NULL, 'h'},
	{"version", no_argument, NULL, 'V'},
	{"unsafe", no_argument, NULL, OPT_UNSAFE},
	{"dry-run", no_argument, NULL, OPT_DRY_RUN},
	{"container", required_argument, NULL, OPT_CONTAINER},
	{"emit", required_argument, NULL, OPT_EMIT},
	{"follow", no_argument, NULL, OPT_FOLLOW},
	{"map-keys-max", required_argument, NULL, OPT_MAP_KEYS_MAX},
	{"exclude-self", no_argument, NULL, OPT_EXCLUDE_SELF},
	{"serve", required_argument, NULL, OPT_SERVE},
	{"interval", required_argument, NULL, OPT_INTERVAL},
	{"max-series", required_argument, NULL, OPT_MAX_SERIES},
	{"kube-logs", required_argument, NULL, OPT_KUBE_LOGS},
	{"info", no_argument, NULL, OPT_INFO},
	{"explain", required_argument, NULL, OPT_EXPLAIN},
	{"user-probes", no_argument, NULL, OPT_USER_PROBES},
	{"agent-dir", required_argument, NULL, OPT_AGENT_DIR},
	{"rb-pages", required_argument, NULL, OPT_RB_PAGES},
	{"overhead", no_argument, NULL, OPT_OVERHEAD},
	{"no-warnings", no_argument, NULL, OPT_NO_WARNINGS},
	{"include", required_argument, NULL, OPT_INCLUDE},
	{"usdt-file-activation", no_argument, NULL, OPT_USDT_FILE_ACTIVATION},
	{"debuginfo", required_argument, NULL, OPT_DEBUGINFO},
	/* the newest bpftrace's long names of its short options */
	{"list", no_argument, NULL, 'l'},
	{"verbose", no_argument, NULL, 'v'},
	{"quiet", no_argument, NULL, 'q'},
	{"pid", required_argument, NULL, 'p'},
	{"cmd", required_argument, NULL, 'c'},
	{"output", required_argument, NULL, 'o'},
	{"warnings", no_argument, NULL, 'k'},
	{"debug", required_argument, NULL, 'd'},
	{0},
};

int cli_args_parse(int argc, char **argv, struct cli_args *o)
{
	*o = (struct cli_args){.writer = &output_text, .kube_logs = "/var/log", .interval = 15,
			       .max_series = 10000};
	const char *shortopts = "e:lvqp:c:f:o:khVB:d:I:";
	int c;
	/* a "--name[=value]" that is none of sonde's long options is one of
	 * the script's named options (getopt()), wherever it stands, as the
	 * newest bpftrace takes them: out of argv before getopt_long sees it */
	if (!(o->pre_named = calloc((size_t)argc + 1, sizeof(*o->pre_named))))
		return -1;
	argc = take_named_options(argc, argv, shortopts, longopts, o->pre_named, &o->npre_named);
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'e': o->prog_text = optarg; break;
		case 'l': o->do_list = true; break;
		case 'v': o->verbose++; break;
		case 'q': o->quiet = true; break;
		case 'p':
			o->pid = cli_parse_pid(optarg);
			if (o->pid < 0)
				return -1;
			break;
		case 'k': o->helper_check++; break;
		case 'c': o->cmd = optarg; break;
		case 'f':
			o->writer = output_find(optarg);
			o->format_given = true;
			if (!o->writer) {
				fprintf(stderr, "sonde: -f takes one of %s, not '%s'\n", output_names(),
					optarg);
				return -1;
			}
			break;
		case 'o': o->out_path = optarg; break;
		case 'h': cli_usage(stdout); return 1;
		case 'V': printf("sonde v%s\n", SONDE_VERSION); return 1;
		case OPT_UNSAFE: o->unsafe = true; break;
		case OPT_DRY_RUN: o->dry_run = true; break;
		case OPT_CONTAINER: o->container = optarg; break;
		case OPT_FOLLOW: o->follow = true; break;
		case OPT_EXCLUDE_SELF: o->exclude_self = true; break;
		case OPT_OVERHEAD: o->overhead = true; break;
		case OPT_NO_WARNINGS: diag_no_warnings = true; break;
		case 'I':
		case OPT_INCLUDE:
			if ((c == 'I' ? o->ninc_dirs : o->ninc_files) == CLI_MAX_INCLUDES) {
				fprintf(stderr, "sonde: at most %d %s\n", CLI_MAX_INCLUDES,
					c == 'I' ? "-I directories" : "--include files");
				return -1;
			}
			if (c == 'I')
				o->inc_dirs[o->ninc_dirs++] = optarg;
			else
				o->inc_files[o->ninc_files++] = optarg;
			break;
		case OPT_USDT_FILE_ACTIVATION:
			/* bpftrace 0.17's semantics, which sonde always has: a USDT
			 * probe's semaphore is the uprobe's reference counter
			 * (ref_ctr_offset, runtime/uprobe.c), which the kernel
			 * counts up in every process that maps the file, those
			 * running now and those that start later */
			break;
		case 'B': {
			/* bpftrace's -B: how stdout is buffered */
			int mode = !strcmp(optarg, "full") ? _IOFBF : !strcmp(optarg, "line") ? _IOLBF
				 : !strcmp(optarg, "none") ? _IONBF : -1;
			if (mode < 0) {
				fprintf(stderr, "sonde: -B takes full, line or none, not '%s'\n", optarg);
				return -1;
			}
			setvbuf(stdout, NULL, mode, 0);
			break;
		}
		case 'd':
			/* bpftrace's debug stages, where sonde has them (--emit) */
			if (!strcmp(optarg, "ast"))
				o->emit = "ast";
			else if (!strcmp(optarg, "codegen") || !strcmp(optarg, "codegen-opt") ||
				 !strcmp(optarg, "all"))
				o->emit = "ir";
			else if (!strcmp(optarg, "dis"))
				o->emit = "asm";
			else {
				fprintf(stderr, "sonde: -d takes ast, codegen, codegen-opt, dis or all "
					"(sonde's --emit ast|ir|asm), not '%s'\n", optarg);
				return -1;
			}
			break;
		case OPT_RB_PAGES: o->pages_arg = optarg; break;
		case OPT_MAP_KEYS_MAX: o->keys_arg = optarg; break;
		case OPT_SERVE: o->serve = optarg; break;
		case OPT_KUBE_LOGS: o->kube_logs = optarg; break;
		case OPT_INTERVAL:
			if (!parse_count("--interval", optarg, 1, 86400, &o->interval))
				return -1;
			break;
		case OPT_MAX_SERIES:
			if (!parse_count("--max-series", optarg, 0, 100000000, &o->max_series))
				return -1;
			break;
		case OPT_INFO: o->info = true; break;
		case OPT_EXPLAIN: {
			/* --explain --all: every page, as docs/errors.md */
			if (!strcmp(optarg, "--all") || !strcmp(optarg, "all")) {
				explain_all(stdout);
				return 1;
			}
			const struct explain *x = explain_find(optarg);
			if (!x) {
				fprintf(stderr, "sonde: --explain: no error code '%s' (codes are listed by "
					"sonde --explain --all)\n", optarg);
				return -1;
			}
			explain_page(stdout, x, false);
			return 1;
		}
		case OPT_DEBUGINFO:
			if (o->ndebuginfo == CLI_MAX_INCLUDES) {
				fprintf(stderr, "sonde: at most %d --debuginfo options (DIR:DIR:... "
					"takes more)\n", CLI_MAX_INCLUDES);
				return -1;
			}
			if (!*optarg) {
				fprintf(stderr, "sonde: --debuginfo needs a directory\n");
				return -1;
			}
			o->debuginfo[o->ndebuginfo++] = optarg;
			break;
		case OPT_USER_PROBES: o->user_probes = true; break;
		case OPT_AGENT_DIR: o->agent_dir = optarg; break;
		case OPT_EMIT:
			if (strcmp(optarg, "ast") && strcmp(optarg, "ir") && strcmp(optarg, "asm")) {
				fprintf(stderr, "sonde: --emit takes ast, ir or asm, not '%s'\n", optarg);
				return -1;
			}
			o->emit = optarg;
			break;
		default: cli_usage(stderr); return -1;
		}
	}
	if (o->ndebuginfo && hdw_set_debuginfo_path(o->debuginfo, o->ndebuginfo))
		return -1;
	o->argc = argc;
	o->argv = argv;
	o->next = optind;
	return 0;
}

/* flags win over the environment, which wins over the script */
int cli_args_settings(const struct cli_args *o)
{
	char msg[256];
	if (settings_load(stderr))
		return -1;
	if ((o->pages_arg && settings_set(SET_PERF_RB_PAGES, "--rb-pages", o->pages_arg, msg, sizeof(msg))) ||
	    (o->keys_arg && settings_set(SET_MAP_KEYS_MAX, "--map-keys-max", o->keys_arg, msg, sizeof(msg)))) {
		fprintf(stderr, "sonde: %s\n", msg);
		return -1;
	}
	return 0;
}

int cli_args_check(struct cli_args *o)
{
	const struct output_writer *w = o->writer;
	/* --serve alone serves Prometheus text (OpenMetrics by Accept header) */
	if (o->serve && !o->format_given)
		w = o->writer = &output_prometheus;
	if (o->serve && !w->scrape && w != &output_pprof) {
		fprintf(stderr, "sonde: --serve exports metrics and profiles: -f must be prometheus, "
			"openmetrics or pprof\n");
		return -1;
	}
	/* a picture is a file; the terminal keeps the text */
	if (w->picture && !o->out_path && !(o->serve && w == &output_pprof) && !o->do_list) {
		fprintf(stderr, "sonde: -f %s writes a picture: give its file with -o FILE (%s)\n",
			w->name, !strcmp(w->name, "heatmap") ? "FILE.html" :
			!strcmp(w->name, "pprof") ? "FILE.pb.gz" : "FILE.svg");
		return -1;
	}
	if (w->scrape && !o->serve && !o->out_path && !o->do_list) {
		fprintf(stderr, "sonde: -f %s needs --serve [ADDR:]PORT or -o FILE (a textfile "
			"rewritten every --interval)\n", w->name);
		return -1;
	}
	return 0;
}

void cli_args_script(const struct cli_args *o, struct arena *a, struct sema_opts *so)
{
	/* after the script: "--name[=value]" are getopt()'s named options
	 * (the newest bpftrace's), the rest $1, $2 ... in order */
	int left = o->argc - o->next;
	const char **pos = arena_new_array(a, const char *, (size_t)left + 1);
	const char **named = arena_new_array(a, const char *, (size_t)(left + o->npre_named) + 1);
	int npos = 0, nnamed = 0;
	for (int i = 0; i < o->npre_named; i++)
		named[nnamed++] = o->pre_named[i];
	for (int i = o->next; i < o->argc; i++) {
		char *w = o->argv[i];
		if (!strncmp(w, "--", 2) && w[2] && w[2] != '=')
			named[nnamed++] = w;
		else
			pos[npos++] = w;
	}
	so->pos_args = pos;
	so->npos_args = npos;
	so->named_args = named;
	so->nnamed_args = nnamed;
	so->named_used = arena_new_array(a, bool, (size_t)nnamed + 1);
}
