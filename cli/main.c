/*
 * main.c - the sonde command line.
 *
 *   sonde [options] FILE|NAME [ARGS...]
 *   sonde [options] -e PROGRAM [ARGS...]
 *   sonde -l [PATTERN]
 *
 * Reads the options (args.c) and the program (files.c), compiles it
 * (compile.c), runs it (runtime/) and turns every failure into one clear
 * message and exit status 1.  `sonde diagnose` is diagnose.c's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "agent/agent.h"
#include "cli/cli.h"
#include "cli/compile.h"
#include "common/settings.h"
#include "host/host.h"
#include "lexer/lexer.h"
#include "output/output.h"
#include "parser/parser.h"
#include "runtime/runtime.h"


/* a run of the program: what the compile hook did */
struct run {
	const struct cli_args *o;
	int child, go_fd;	/* the -c child, held until the probes attach */
};

/* does any probe attach (or run once; bench probes under --bench)? */
static bool attaches_any(const struct sema_result *r, bool bench)
{
	for (int i = 0; i < r->nprobes; i++)
		if (r->probes[i].nattach && !r->probes[i].left_out &&
		    (bench || r->probes[i].attach[0].type != PT_BENCH))
			return true;
	return false;
}

/* between sema and codegen: the script's named options, the listings that
 * end there, and the -c child (codegen needs its pid for cpid) */
static int after_sema(struct cli_compile *c)
{
	struct run *run = c->ctx;
	const struct cli_args *o = run->o;
	if (!cli_args_named_used(&c->so, c->r))
		return -1;
	if (c->r->has_bench && !o->bench && !o->do_list && !attaches_any(c->r, false)) {
		fprintf(stderr, "ERROR: No probes attached; use --bench to run benchmark probes.\n");
		return -1;
	}
	if (o->has_probe_filter && !o->do_list && !attaches_any(c->r, o->bench)) {
		/* --probe-filter left nothing, as the newest bpftrace says it */
		if (!o->quiet)
			printf("No probes to attach\n");
		return -1;
	}
	if (o->emit && !strcmp(o->emit, "ast")) {
		ast_dump(stdout, c->ast);
		return 1;
	}
	if (o->do_list) {
		cli_list_program(c->r, o->pid);
		return 1;
	}
	if (o->cmd && !o->emit) {
		const char *lib = NULL;
		char libbuf[4096];
		if (o->user_probes && !(lib = rt_agent_lib(libbuf, sizeof(libbuf)))) {
			fprintf(stderr, "sonde: --user-probes -c: cannot find libsonde-agent.so (set SONDE_AGENT_LIB)\n");
			return -1;
		}
		run->child = cli_start_child(o->cmd, &run->go_fd, lib,
					     o->agent_dir ? o->agent_dir : rt_agent_dir());
		if (run->child < 0) {
			fprintf(stderr, "sonde: cannot run '%s': %s\n", o->cmd, strerror(-run->child));
			run->child = 0;
			return -1;
		}
		c->co.child_pid = run->child;
	}
	return 0;
}

/* the compiled program loaded, attached and run; its output closed */
static int run_program(struct run *run, struct cli_compile *c, const char *file,
		       struct rs_container *cont)
{
	const struct cli_args *o = run->o;
	const struct output_writer *writer = o->writer;
	FILE *out = stdout, *picture = NULL;
	char oerr[1024];
	/* a scrape format's -o FILE is rewritten whole every interval; a
	 * picture format's is the picture, written at exit */
	if (o->out_path && !writer->scrape &&
	    cli_open_output(o->out_path, writer->picture ? &picture : &out, oerr, sizeof(oerr))) {
		fprintf(stderr, "sonde: %s\n", oerr);
		return 1;
	}
	struct rt_opts ro = {
		.writer = writer, .out = out, .picture = picture, .quiet = o->quiet,
		.verbose = o->verbose, .dry_run = o->dry_run,
		.pid = o->pid, .child_pid = run->child, .child_go_fd = run->go_fd, .child_cmd = o->cmd,
		.container = cont,
		.follow = o->follow, .src = c->src, .file = file,
		.serve_addr = o->serve, .metrics_file = writer->scrape ? o->out_path : NULL,
		.interval_s = (unsigned)o->interval, .series_cap = (size_t)o->max_series,
		.kube_logs = o->kube_logs,
		.user_probes = o->user_probes, .agent_dir = o->agent_dir,
		.rb_pages = (unsigned)settings_int(SET_PERF_RB_PAGES), .overhead = o->overhead,
		.bench = o->bench, .unsafe = o->unsafe,
		.probe_filter = o->has_probe_filter ? &o->probe_filter : NULL,
	};
	int rc = rt_run(c->r, &c->obj, &ro);
	run->go_fd = -1;	/* the runtime released or killed the child */
	run->child = 0;
	if (cli_close_output(out, o->out_path && !picture ? o->out_path : "standard output"))
		rc = 1;
	if (picture && cli_close_output(picture, o->out_path))
		rc = 1;
	return rc;
}

/* the program text through the pipeline, then run */
static int compile_and_run(const struct cli_args *o, const char *file)
{
	struct rs_container *cont = NULL;
	lex_set_includes(o->inc_dirs, o->ninc_dirs, o->inc_files, o->ninc_files);
	if (o->container) {
		char err[1024];
		if (rs_container_find(NULL, o->container, &cont, err, sizeof(err))) {
			fprintf(stderr, "sonde: --container %s: %s\n", o->container, err);
			return 1;
		}
	}
	struct arena *a = arena_new();
	struct diag d;
	diag_init(&d, file, o->prog_text, stderr);
	struct run run = {.o = o, .go_fd = -1};
	const char *emit = o->emit;
	struct cli_compile c = {
		.src = o->prog_text, .after_sema = after_sema, .ctx = &run,
		.so = {
			.target_pid = o->pid, .unsafe = o->unsafe, .has_cpid = o->cmd != NULL,
			.scoped = o->pid || o->container, .user_probes = o->user_probes,
			.follow = o->follow,
			.probe_filter = o->has_probe_filter ? &o->probe_filter : NULL,
		},
		.co = {
			.emit_ir = emit && !strcmp(emit, "ir"), .emit_asm = emit && !strcmp(emit, "asm"),
			.out = stdout, .filter_pid = o->pid,
			.filter_cgroup = cont ? cont->cgroup_id : 0,
			.filter_cgroup_level = cont ? cont->level : 0,
			.exclude_pid = o->exclude_self ? getpid() : 0,
			.hist_sum = o->writer->scrape,	/* a histogram's _sum */
			.helper_check = o->helper_check,
			.ncpus = o->user_probes ? SA_NSHARDS : libbpf_num_possible_cpus(),
		},
	};
	cli_args_script(o, a, &c.so);
	int rc = cli_compile(a, &d, &c);
	if (rc >= 0)
		rc = rc || emit ? 0 : run_program(&run, &c, file, cont);
	else
		rc = 1;
	free(c.obj.elf);
	cli_child_kill(run.child, run.go_fd);
	if (cont)
		rs_container_free(cont);
	arena_free(a);
	return rc;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "diagnose"))
		return cli_diagnose(argc - 1, argv + 1);
	static struct cli_args o;	/* static: alive until exit, as argv is */
	int rc = cli_args_parse(argc, argv, &o);
	if (rc)
		return rc > 0 ? 0 : 1;
	if (cli_args_settings(&o))
		return 1;
	rt_libbpf_logging(o.verbose);
	if (o.info) {
		cli_info(stdout, SONDE_VERSION);
		return 0;
	}
	if (cli_args_check(&o))
		return 1;
	/* -l -e PROGRAM and -l FILE (the newest bpftrace's) list the program's
	 * probes, wildcards expanded (after sema) */
	const char *word = o.next < o.argc ? o.argv[o.next] : NULL;
	if (o.do_list && !o.prog_text && !(word && cli_names_file(word) && !access(word, R_OK)))
		return cli_list(word, o.verbose > 0, o.pid);
	/* from here on a Ctrl-C ends the run (after it attaches), never lost */
	rt_stop_signals();
	const char *file;
	char *owned;
	if (cli_read_program(&o, &file, &owned))
		return 1;
	rc = compile_and_run(&o, file);
	free(owned);
	return rc;
}
