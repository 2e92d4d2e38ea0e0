/*
 * main.c - the sonde command line.
 *
 *   sonde [options] FILE|NAME [ARGS...]
 *   sonde [options] -e PROGRAM [ARGS...]
 *   sonde -l [PATTERN]
 *
 * Reads the program, runs the pipeline (parse, sema, codegen, runtime) and
 * turns every failure into one clear message and exit status 1.
 */
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "agent/agent.h"
#include "cli/cli.h"
#include "codegen/codegen.h"
#include "common/arena.h"
#include "common/diag.h"
#include "common/explain.h"
#include "common/file.h"
#include "common/settings.h"
#include "host/host.h"
#include "lexer/lexer.h"
#include "parser/parser.h"
#include "runtime/runtime.h"
#include "sema/sema.h"
#include "stdlib/stdlib.h"

#define SONDE_VERSION "0.1.0"


static void usage(FILE *out)
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

static char *read_file(const char *path)
{
	char *buf;
	int err = file_read_all(path, 0, &buf, NULL);
	if (err) {
		errno = -err;
		return NULL;
	}
	return buf;
}

/* -l 'GLOB:REST' (a wildcard probe type, '*:./prog:*'): each provider
 * whose name matches and that lists its probes, once per lister (uprobe,
 * not uretprobe too, as bpftrace).  A provider the rest means nothing to
 * lists nothing: their complaints are not shown. */
static int list_types(FILE *out, const char *glob, const char *rest, bool verbose, int pid)
{
	int (*done[PT_COUNT])(FILE *, const char *, const char *, bool, int);
	size_t nd = 0;
	fflush(stderr);
	int err = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0)
		dup2(null, 2);
	for (int t = 0; t < PT_COUNT; t++) {
		const struct probe_provider *pv = sema_provider((enum probe_type)t);
		bool seen = false;
		for (size_t i = 0; i < nd; i++)
			seen |= done[i] == pv->list;
		if (!pv->list || seen || fnmatch(glob, pv->name, 0))
			continue;
		done[nd++] = pv->list;
		char *p = NULL;
		if (asprintf(&p, "%s:%s", pv->name, rest) < 0)
			break;
		pv->list(out, pv->name, p, verbose, pid);
		free(p);
	}
	fflush(stderr);
	if (err >= 0) {
		dup2(err, 2);
		close(err);
	}
	if (null >= 0)
		close(null);
	return 0;
}

/* -l [PATTERN] into out: a pattern naming a provider that lists its own
 * probes (uprobe:, usdt:, kprobe:, tracepoint:, software:, hardware: and
 * their aliases) goes to that provider's lister; a pattern without a probe
 * type (or none) searches every type that needs no target, as bpftrace
 * does: software and hardware events, tracepoints and kprobes (where the
 * kernel has them). */
static int list_into(FILE *out, const char *pattern, bool verbose, int pid)
{
	const char *colon = pattern ? strchr(pattern, ':') : NULL;
	if (!pattern && pid)
		return host_list_pid(out, pid);
	if (colon) {
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(colon - pattern), pattern);
		const struct probe_provider *pv = sema_provider_named(name);
		if (pv && pv->list)
			return pv->list(out, pv->name, pattern, verbose, pid);
		if (!pv && strpbrk(name, "*?["))
			return list_types(out, name, colon + 1, verbose, pid);
	}
	int rc = tfs_list_software(out, pattern);
	if (rc >= 0)
		rc = tfs_list_hardware(out, pattern);
	if (rc >= 0 && pattern && !colon) {
		/* a bare name or glob matches tracepoint names in any category */
		char *t = NULL;
		if (asprintf(&t, "tracepoint:*:%s", pattern) < 0)
			return -ENOMEM;
		rc = tfs_list(out, t, verbose);
		free(t);
	} else if (rc >= 0) {
		rc = tfs_list(out, pattern, verbose);
	}
	if (rc >= 0 && !pattern)	/* -l alone: every raw tracepoint too, as bpftrace */
		rc = host_list_rawtracepoints(out, "rawtracepoint", "rawtracepoint:*", verbose, pid);
	if (rc >= 0 && !colon && tfs_have_kprobes()) {
		char *k = NULL;
		if (asprintf(&k, "kprobe:%s", pattern ? pattern : "*") < 0)
			return -ENOMEM;
		rc = host_list_kprobes(out, "kprobe", k, verbose, pid);
		free(k);
	}
	return rc < 0 ? rc : 0;
}

/* -l 'A,B': each comma-separated pattern in turn, as a probe list is
 * written ("fexit:tcp_reset,tracepoint:syscalls:sys_enter_openat"); a comma
 * inside quotes or [...] belongs to its pattern */
static int list_each(FILE *out, const char *pattern, bool verbose, int pid)
{
	if (!pattern)
		return list_into(out, pattern, verbose, pid);
	int rc = 0;
	const char *p = pattern;
	while (*p) {
		const char *e = p;
		bool quoted = false;
		int brackets = 0;
		for (; *e && (quoted || brackets || *e != ','); e++) {
			if (*e == '"')
				quoted = !quoted;
			else if (!quoted && *e == '[')
				brackets++;
			else if (!quoted && *e == ']' && brackets)
				brackets--;
		}
		char *one = strndup(p, (size_t)(e - p));
		if (!one)
			return -ENOMEM;
		int r = *one ? list_into(out, one, verbose, pid) : 0;
		free(one);
		if (r < 0)
			rc = r;
		p = *e ? e + 1 : e;
	}
	return rc;
}

/* line once: printed and kept in *seen (taken over, or freed as a repeat) */
static void list_once(char *line, char ***seen, int *nseen)
{
	if (!line)
		return;
	for (int k = 0; k < *nseen; k++)
		if (!strcmp((*seen)[k], line)) {
			free(line);
			return;
		}
	char **grown = realloc(*seen, sizeof(**seen) * (size_t)(*nseen + 1));
	if (!grown) {
		free(line);
		return;
	}
	*seen = grown;
	(*seen)[(*nseen)++] = line;
	printf("%s\n", line);
}

/* a uprobe or uretprobe whose function is a wildcard: a line per function
 * it matches in its file, as -l 'uprobe:FILE:GLOB' lists them; false when
 * it matches none there (the pattern is listed then) */
static bool list_uprobe_funcs(const struct sema_attach *a, int pid, char ***seen, int *nseen)
{
	char *buf = NULL, err[512];
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return false;
	int rc = rs_list_probes(m, sema_probe_type_name(a->type), a->target, a->func, pid, err,
				sizeof(err));
	fclose(m);
	bool any = false;
	for (char *line = buf, *nl; rc >= 0 && line && *line; line = nl) {
		if ((nl = strchr(line, '\n')))
			*nl++ = '\0';
		list_once(strdup(line), seen, nseen);
		any = true;
	}
	free(buf);
	return any;
}

/* -l -e PROGRAM, -l FILE: the program's attach points, wildcards
 * expanded, each once; a timer or a perf event as -l lists it, without
 * its rate or count (interval:ms:, hardware:cache-misses:), as the newest
 * bpftrace lists a program's probes */
static void list_program(const struct sema_result *r, int pid)
{
	char **seen = NULL;
	int nseen = 0;
	for (int i = 0; i < r->nprobes; i++)
		for (int j = 0; j < r->probes[i].nattach; j++) {
			const struct sema_attach *a = &r->probes[i].attach[j];
			char *line;
			const char *c1 = strchr(a->name, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
			bool bare = a->type == PT_INTERVAL || a->type == PT_PROFILE ||
				    a->type == PT_SOFTWARE || a->type == PT_HARDWARE;
			if ((a->type == PT_UPROBE || a->type == PT_URETPROBE) && a->func &&
			    strpbrk(a->func, "*?[") && list_uprobe_funcs(a, pid, &seen, &nseen))
				continue;
			if (bare && c1)
				line = c2 ? strndup(a->name, (size_t)(c2 - a->name + 1))
					  : (asprintf(&line, "%s:", a->name) < 0 ? NULL : line);
			else
				line = strdup(a->name);
			list_once(line, &seen, &nseen);
		}
	for (int k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
}

/* -l: what matched, or one line on stderr saying nothing did */
static int list(const char *pattern, bool verbose, int pid)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return 1;
	int rc;
	if (pattern && (!strncmp(pattern, "struct ", 7) || !strncmp(pattern, "union ", 6) ||
			!strncmp(pattern, "enum ", 5)))
		/* -l[v] 'struct NAME': the kernel type's definition */
		rc = host_btf_type_decl(pattern, m) == -ENOMEM ? -ENOMEM : 0;
	else
		rc = list_each(m, pattern, verbose, pid);
	fclose(m);
	fwrite(buf, 1, len, stdout);
	free(buf);
	if (rc < 0)
		return 1;
	if (!len && pattern) {
		if (cli_names_file(pattern) && access(pattern, F_OK))
			/* the newest bpftrace warns, then searches the name */
			fprintf(stderr, "sonde: warning: '%s' looks like a file name, but no such "
				"file exists: it was searched for as a probe pattern\n", pattern);
		fprintf(stderr, "sonde: no probe matches '%s'\n", pattern);
		return 1;
	}
	return 0;
}

/* -p PID: a number, within pid_max, of a process that runs now */
int cli_parse_pid(const char *arg)
{
	char *end;
	errno = 0;
	long long v = strtoll(arg, &end, 10);
	if (end == arg || *end || v <= 0) {
		fprintf(stderr, "sonde: -p: '%s' is not a process id (a positive number)\n", arg);
		return -1;
	}
	long long max = 4194304;
	char *text;
	if (!file_read_all("/proc/sys/kernel/pid_max", 32, &text, NULL)) {
		max = atoll(text);
		free(text);
	}
	if (errno == ERANGE || v > max) {
		fprintf(stderr, "sonde: -p: %s is out of range (process ids are 1 to %lld here)\n", arg,
			max);
		return -1;
	}
	if (kill((pid_t)v, 0) && errno == ESRCH) {
		fprintf(stderr, "sonde: -p: no process %lld is running\n", v);
		return -1;
	}
	return (int)v;
}

/* with --user-probes the child preloads the agent, which holds it before
 * main() until sonde has hooked it */
static void child_agent_env(const char *lib, const char *dir)
{
	const char *old = getenv("LD_PRELOAD");
	char *pre = NULL;
	if (asprintf(&pre, "%s%s%s", lib, old && *old ? ":" : "", old && *old ? old : "") < 0)
		_exit(127);
	setenv("LD_PRELOAD", pre, 1);
	setenv("SONDE_AGENT_WAIT", "1", 1);
	setenv("SONDE_RUN_DIR", dir, 1);
}

/* -c CMD as bpftrace splits it: words at each single space, no shell
 * (quotes, $VAR, tabs and globs are plain characters), so that cpid is the
 * command itself and no shell runs as cpid first.  Two spaces make an
 * empty word, as bpftrace's splitting does, and a space at the end none.
 * A NULL-terminated argv, or NULL when out of memory. */
static char **child_argv(const char *cmd)
{
	size_t n = strlen(cmd);
	char *copy = strdup(cmd);
	char **av = calloc(n + 2, sizeof(*av));
	if (!copy || !av)
		return NULL;
	int ac = 0;
	for (char *w = copy;;) {
		char *sp = strchr(w, ' ');
		if (!sp) {
			if (*w || ac == 0)
				av[ac++] = w;
			break;
		}
		*sp = '\0';
		av[ac++] = w;
		w = sp + 1;
	}
	av[ac] = NULL;
	return av;
}

int cli_start_child(const char *cmd, int *go_fd, const char *agent_lib, const char *agent_dir)
{
	int fds[2];
	if (pipe2(fds, O_CLOEXEC))
		return -errno;
	pid_t p = fork();
	if (p < 0)
		return -errno;
	if (p == 0) {
		char c;
		close(fds[1]);
		/* wait until the probes are attached, so nothing is missed */
		if (read(fds[0], &c, 1) != 1)
			_exit(127);
		if (agent_lib)
			child_agent_env(agent_lib, agent_dir);
		char **av = child_argv(cmd);
		if (!av)
			_exit(127);
		execvp(av[0], av);
		fprintf(stderr, "sonde: cannot run '%s': %m\n", av[0]);
		_exit(127);
	}
	close(fds[0]);
	*go_fd = fds[1];
	return p;
}

enum { OPT_UNSAFE = 256, OPT_DRY_RUN, OPT_CONTAINER, OPT_EMIT, OPT_FOLLOW, OPT_MAP_KEYS_MAX,
       OPT_EXCLUDE_SELF, OPT_SERVE, OPT_INTERVAL, OPT_MAX_SERIES, OPT_KUBE_LOGS,
       OPT_INFO, OPT_USER_PROBES, OPT_AGENT_DIR, OPT_RB_PAGES, OPT_OVERHEAD, OPT_EXPLAIN, OPT_NO_WARNINGS,
       OPT_INCLUDE, OPT_USDT_FILE_ACTIVATION };

/* the script's config block: false after an error at the setting */
static bool apply_config(struct diag *d, const struct ast_node *program)
{
	for (const struct ast_config *c = program->program.config; c; c = c->next) {
		char msg[256];
		int err = settings_config(c->name, c->value, msg, sizeof(msg));
		if (err) {
			diag_error(d, err == -ENOENT ? c->loc : c->value_loc, "%s", msg);
			return false;
		}
	}
	return true;
}

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
static bool named_options_used(const char **named, const bool *used, int n)
{
	for (int i = 0; i < n; i++) {
		if (used[i])
			continue;
		size_t len = strcspn(named[i] + 2, "=");
		fprintf(stderr, "sonde: unexpected option %s: neither one of sonde's options (sonde -h) "
			"nor read by the script (getopt(\"%.*s\"))\n", named[i], (int)len, named[i] + 2);
		return false;
	}
	return true;
}

int main(int argc, char **argv)
{
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
	if (argc > 1 && !strcmp(argv[1], "diagnose"))
		return cli_diagnose(argc - 1, argv + 1);
	const char *prog_text = NULL, *out_path = NULL, *cmd = NULL, *container = NULL, *emit = NULL;
	bool do_list = false, unsafe = false, dry_run = false, quiet = false, follow = false;
	bool exclude_self = false, overhead = false;
	int verbose = 0, pid = 0, helper_check = 0, c;
	bool info = false, user_probes = false;
	const char *agent_dir = NULL;
	const struct output_writer *writer = &output_text;
	const char *pages_arg = NULL, *keys_arg = NULL;
	const char *serve = NULL, *kube_logs = "/var/log";
	long interval = 15, max_series = 10000;
	bool format_given = false;
	/* -I DIR and --include FILE, in order */
	enum { MAX_INCLUDES = 64 };
	static const char *inc_dirs[MAX_INCLUDES], *inc_files[MAX_INCLUDES];
	int ninc_dirs = 0, ninc_files = 0;

	const char *shortopts = "e:lvqp:c:f:o:khVB:d:I:";
	/* a "--name[=value]" that is none of sonde's long options is one of
	 * the script's named options (getopt()), wherever it stands, as the
	 * newest bpftrace takes them: out of argv before getopt_long sees it */
	static const char **pre_named;	/* static: alive until exit, as argv is */
	int npre_named = 0;
	if (!(pre_named = calloc((size_t)argc + 1, sizeof(*pre_named))))
		return 1;
	argc = take_named_options(argc, argv, shortopts, longopts, pre_named, &npre_named);
	while ((c = getopt_long(argc, argv, shortopts, longopts, NULL)) != -1) {
		switch (c) {
		case 'e': prog_text = optarg; break;
		case 'l': do_list = true; break;
		case 'v': verbose++; break;
		case 'q': quiet = true; break;
		case 'p':
			pid = cli_parse_pid(optarg);
			if (pid < 0)
				return 1;
			break;
		case 'k': helper_check++; break;
		case 'c': cmd = optarg; break;
		case 'f':
			writer = output_find(optarg);
			format_given = true;
			if (!writer) {
				fprintf(stderr, "sonde: -f takes one of %s, not '%s'\n", output_names(),
					optarg);
				return 1;
			}
			break;
		case 'o': out_path = optarg; break;
		case 'h': usage(stdout); return 0;
		case 'V': printf("sonde v%s\n", SONDE_VERSION); return 0;
		case OPT_UNSAFE: unsafe = true; break;
		case OPT_DRY_RUN: dry_run = true; break;
		case OPT_CONTAINER: container = optarg; break;
		case OPT_FOLLOW: follow = true; break;
		case OPT_EXCLUDE_SELF: exclude_self = true; break;
		case OPT_OVERHEAD: overhead = true; break;
		case OPT_NO_WARNINGS: diag_no_warnings = true; break;
		case 'I':
		case OPT_INCLUDE:
			if ((c == 'I' ? ninc_dirs : ninc_files) == MAX_INCLUDES) {
				fprintf(stderr, "sonde: at most %d %s\n", MAX_INCLUDES,
					c == 'I' ? "-I directories" : "--include files");
				return 1;
			}
			if (c == 'I')
				inc_dirs[ninc_dirs++] = optarg;
			else
				inc_files[ninc_files++] = optarg;
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
				return 1;
			}
			setvbuf(stdout, NULL, mode, 0);
			break;
		}
		case 'd':
			/* bpftrace's debug stages, where sonde has them (--emit) */
			if (!strcmp(optarg, "ast"))
				emit = "ast";
			else if (!strcmp(optarg, "codegen") || !strcmp(optarg, "codegen-opt") ||
				 !strcmp(optarg, "all"))
				emit = "ir";
			else if (!strcmp(optarg, "dis"))
				emit = "asm";
			else {
				fprintf(stderr, "sonde: -d takes ast, codegen, codegen-opt, dis or all "
					"(sonde's --emit ast|ir|asm), not '%s'\n", optarg);
				return 1;
			}
			break;
		case OPT_RB_PAGES: pages_arg = optarg; break;
		case OPT_MAP_KEYS_MAX: keys_arg = optarg; break;
		case OPT_SERVE: serve = optarg; break;
		case OPT_KUBE_LOGS: kube_logs = optarg; break;
		case OPT_INTERVAL:
			if (!parse_count("--interval", optarg, 1, 86400, &interval))
				return 1;
			break;
		case OPT_MAX_SERIES:
			if (!parse_count("--max-series", optarg, 0, 100000000, &max_series))
				return 1;
			break;
		case OPT_INFO: info = true; break;
		case OPT_EXPLAIN: {
			/* --explain --all: every page, as docs/errors.md */
			if (!strcmp(optarg, "--all") || !strcmp(optarg, "all")) {
				explain_all(stdout);
				return 0;
			}
			const struct explain *x = explain_find(optarg);
			if (!x) {
				fprintf(stderr, "sonde: --explain: no error code '%s' (codes are listed by "
					"sonde --explain --all)\n", optarg);
				return 1;
			}
			explain_page(stdout, x, false);
			return 0;
		}
		case OPT_USER_PROBES: user_probes = true; break;
		case OPT_AGENT_DIR: agent_dir = optarg; break;
		case OPT_EMIT:
			if (strcmp(optarg, "ast") && strcmp(optarg, "ir") && strcmp(optarg, "asm")) {
				fprintf(stderr, "sonde: --emit takes ast, ir or asm, not '%s'\n", optarg);
				return 1;
			}
			emit = optarg;
			break;
		default: usage(stderr); return 1;
		}
	}
	/* flags win over the environment, which wins over the script */
	char msg[256];
	if (settings_load(stderr))
		return 1;
	if ((pages_arg && settings_set(SET_PERF_RB_PAGES, "--rb-pages", pages_arg, msg, sizeof(msg))) ||
	    (keys_arg && settings_set(SET_MAP_KEYS_MAX, "--map-keys-max", keys_arg, msg, sizeof(msg)))) {
		fprintf(stderr, "sonde: %s\n", msg);
		return 1;
	}
	rt_libbpf_logging(verbose);
	if (info) {
		cli_info(stdout, SONDE_VERSION);
		return 0;
	}
	/* --serve alone serves Prometheus text (OpenMetrics by Accept header) */
	if (serve && !format_given)
		writer = &output_prometheus;
	if (serve && !writer->scrape && writer != &output_pprof) {
		fprintf(stderr, "sonde: --serve exports metrics and profiles: -f must be prometheus, "
			"openmetrics or pprof\n");
		return 1;
	}
	/* a picture is a file; the terminal keeps the text */
	if (writer->picture && !out_path && !(serve && writer == &output_pprof) && !do_list) {
		fprintf(stderr, "sonde: -f %s writes a picture: give its file with -o FILE (%s)\n",
			writer->name, !strcmp(writer->name, "heatmap") ? "FILE.html" :
			!strcmp(writer->name, "pprof") ? "FILE.pb.gz" : "FILE.svg");
		return 1;
	}
	if (writer->scrape && !serve && !out_path && !do_list) {
		fprintf(stderr, "sonde: -f %s needs --serve [ADDR:]PORT or -o FILE (a textfile "
			"rewritten every --interval)\n", writer->name);
		return 1;
	}
	/* -l -e PROGRAM and -l FILE (the newest bpftrace's) list the program's
	 * probes, wildcards expanded (below) */
	if (do_list && !prog_text &&
	    !(optind < argc && cli_names_file(argv[optind]) && !access(argv[optind], R_OK)))
		return list(optind < argc ? argv[optind] : NULL, verbose > 0, pid);
	/* from here on a Ctrl-C ends the run (after it attaches), never lost */
	rt_stop_signals();

	const char *file = "stdin";
	char *owned = NULL, recipe[4096];
	if (!prog_text) {
		if (optind >= argc) {
			usage(stderr);
			return 1;
		}
		file = argv[optind++];
		if (!strcmp(file, "-")) {
			file = "stdin";
			if (!(owned = read_file("/dev/stdin"))) {
				fprintf(stderr, "sonde: cannot read the program from stdin: %s\n", strerror(errno));
				return 1;
			}
		} else if (cli_names_file(file)) {
			owned = read_file(file);
			if (!owned) {
				fprintf(stderr, "sonde: cannot read '%s': %s\n", file, strerror(errno));
				return 1;
			}
		} else {
			/* a bare name is an installed recipe, never ./NAME */
			const char *r = cli_find_recipe(file, recipe, sizeof(recipe));
			if (!r || !(owned = read_file(r))) {
				struct stat st;
				if (r)
					fprintf(stderr, "sonde: cannot read recipe '%s': %s\n", r, strerror(errno));
				else if (!stat(file, &st))
					fprintf(stderr, "sonde: '%s' is not an installed recipe; to run the file "
						"of that name here, give its path: sonde ./%s\n", file, file);
				else
					fprintf(stderr, "sonde: no recipe '%s' in %s (a script file needs its "
						"path or extension)\n", file, CLI_SCRIPT_DIR);
				return 1;
			}
		}
		prog_text = owned;
	}

	lex_set_includes(inc_dirs, ninc_dirs, inc_files, ninc_files);
	struct arena *a = arena_new();
	struct diag d;
	diag_init(&d, file, prog_text, stderr);
	int rc = 1;
	struct ast_node *ast = parse_program(a, &d, prog_text);
	if (!ast || !apply_config(&d, ast))
		goto out;

	struct rs_container *cont = NULL;
	if (container) {
		char err[1024];
		if (rs_container_find(NULL, container, &cont, err, sizeof(err))) {
			fprintf(stderr, "sonde: --container %s: %s\n", container, err);
			goto out;
		}
	}
	/* after the script: "--name[=value]" are getopt()'s named options
	 * (the newest bpftrace's), the rest $1, $2 ... in order */
	const char **pos = arena_new_array(a, const char *, (size_t)(argc - optind) + 1);
	const char **named = arena_new_array(a, const char *, (size_t)(argc - optind + npre_named) + 1);
	int npos = 0, nnamed = 0;
	for (int i = 0; i < npre_named; i++)
		named[nnamed++] = pre_named[i];
	for (int i = optind; i < argc; i++) {
		if (!strncmp(argv[i], "--", 2) && argv[i][2] && argv[i][2] != '=')
			named[nnamed++] = argv[i];
		else
			pos[npos++] = argv[i];
	}
	bool *named_used = arena_new_array(a, bool, (size_t)nnamed + 1);
	struct sema_opts so = {
		.builtins = stdlib_find, .suggest = stdlib_suggest,
		.pos_args = pos, .npos_args = npos, .named_args = named, .nnamed_args = nnamed,
		.named_used = named_used,
		.target_pid = pid, .unsafe = unsafe, .has_cpid = cmd != NULL,
		.scoped = pid || container, .user_probes = user_probes, .follow = follow,
	};
	struct sema_result *r = sema_run(a, &d, ast, &so);
	if (!r)
		goto out_cont;
	if (!named_options_used(named, named_used, nnamed))
		goto out_cont;
	if (r->nattach > settings_int(SET_MAX_PROBES)) {
		fprintf(stderr, "sonde: the script has %d attach points, more than BPFTRACE_MAX_PROBES "
			"(%lld) allows\n", r->nattach, (long long)settings_int(SET_MAX_PROBES));
		goto out_cont;
	}
	if (emit && !strcmp(emit, "ast")) {
		ast_dump(stdout, ast);
		rc = 0;
		goto out_cont;
	}
	if (do_list) {
		list_program(r, pid);
		rc = 0;
		goto out_cont;
	}

	int go_fd = -1, child = 0;
	if (cmd && !emit) {
		const char *lib = NULL;
		char libbuf[4096];
		if (user_probes && !(lib = rt_agent_lib(libbuf, sizeof(libbuf)))) {
			fprintf(stderr, "sonde: --user-probes -c: cannot find libsonde-agent.so (set SONDE_AGENT_LIB)\n");
			goto out_cont;
		}
		child = cli_start_child(cmd, &go_fd, lib, agent_dir ? agent_dir : rt_agent_dir());
		if (child < 0) {
			fprintf(stderr, "sonde: cannot run '%s': %s\n", cmd, strerror(-child));
			goto out_cont;
		}
	}
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	struct cg_opts co = {
		.emit_ir = emit && !strcmp(emit, "ir"), .emit_asm = emit && !strcmp(emit, "asm"),
		.out = stdout, .start_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec,
		.filter_pid = pid ? pid : 0, .filter_cgroup = cont ? cont->cgroup_id : 0,
		.filter_cgroup_level = cont ? cont->level : 0,
		.child_pid = child, .src = prog_text, .map_keys_max = (uint32_t)settings_int(SET_MAP_KEYS_MAX),
		.map_keys_told = settings_given(SET_MAP_KEYS_MAX),
		.exclude_pid = exclude_self ? getpid() : 0,
		.hist_sum = writer->scrape,	/* a histogram's _sum */
		.helper_check = helper_check,
		.ncpus = user_probes ? SA_NSHARDS : libbpf_num_possible_cpus(),
	};
	struct cg_object obj = {0};
	if (cg_compile(a, r, &co, &obj))
		goto out_child;
	if (obj.nprogs > settings_int(SET_MAX_BPF_PROGS)) {
		fprintf(stderr, "sonde: the script needs %d BPF programs, more than "
			"BPFTRACE_MAX_BPF_PROGS (%lld) allows\n", obj.nprogs,
			(long long)settings_int(SET_MAX_BPF_PROGS));
		free(obj.elf);
		goto out_child;
	}
	if (emit) {
		rc = 0;
		free(obj.elf);
		goto out_cont;
	}
	FILE *out = stdout, *picture = NULL;
	char oerr[1024];
	/* a scrape format's -o FILE is rewritten whole every interval; a
	 * picture format's is the picture, written at exit */
	if (out_path && !writer->scrape &&
	    cli_open_output(out_path, writer->picture ? &picture : &out, oerr, sizeof(oerr))) {
		fprintf(stderr, "sonde: %s\n", oerr);
		free(obj.elf);
		goto out_child;
	}
	struct rt_opts ro = {
		.writer = writer, .out = out, .picture = picture, .quiet = quiet, .verbose = verbose, .dry_run = dry_run,
		.pid = pid, .child_pid = child, .child_go_fd = go_fd, .container = cont,
		.follow = follow, .src = prog_text, .file = file,
		.serve_addr = serve, .metrics_file = writer->scrape ? out_path : NULL,
		.interval_s = (unsigned)interval, .series_cap = (size_t)max_series,
		.kube_logs = kube_logs,
		.user_probes = user_probes, .agent_dir = agent_dir,
		.rb_pages = (unsigned)settings_int(SET_PERF_RB_PAGES), .overhead = overhead,
	};
	rc = rt_run(r, &obj, &ro);
	go_fd = -1;
	child = 0;
	free(obj.elf);
	if (cli_close_output(out, out_path && !picture ? out_path : "standard output"))
		rc = 1;
	if (picture && cli_close_output(picture, out_path))
		rc = 1;
out_child:
	if (child > 0) {
		kill(child, SIGKILL);
		close(go_fd);
	}
out_cont:
	if (cont)
		rs_container_free(cont);
out:
	arena_free(a);
	free(owned);
	return rc;
}
