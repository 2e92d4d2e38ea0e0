/*
 * cli.h - what the command line shares between its files: the options
 * (args.c); finding the recipe a bare name stands for, reading the program
 * and opening and closing the -o file (files.c); -l (list.c); --info
 * (info.c); the -p and -c processes (child.c); sonde diagnose (diagnose.c).
 * The compile pipeline is compile.h's.  main.c calls them in order.
 */
#ifndef SONDE_CLI_H
#define SONDE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#define SONDE_VERSION "0.1.0"

#ifndef CLI_SCRIPT_DIR
#define CLI_SCRIPT_DIR "/usr/local/share/sonde/scripts"
#endif

struct arena;
struct output_writer;
struct sema_opts;
struct sema_result;

/* ---- args.c --------------------------------------------------------------- */

enum { CLI_MAX_INCLUDES = 64 };

/* what the options said */
struct cli_args {
	const char *prog_text, *out_path, *cmd, *container, *emit;
	bool do_list, unsafe, dry_run, quiet, follow, exclude_self, overhead;
	bool info, user_probes, format_given;
	int verbose, pid, helper_check;
	const char *agent_dir;
	const struct output_writer *writer;
	const char *pages_arg, *keys_arg;	/* --rb-pages, --map-keys-max */
	const char *serve, *kube_logs;
	long interval, max_series;
	/* -I DIR and --include FILE, in order */
	const char *inc_dirs[CLI_MAX_INCLUDES], *inc_files[CLI_MAX_INCLUDES];
	int ninc_dirs, ninc_files;
	/* --debuginfo DIR[:DIR], in order (host/dwarf.c searches them) */
	const char *debuginfo[CLI_MAX_INCLUDES];
	int ndebuginfo;
	/* "--name[=value]" words that are none of sonde's options: the
	 * script's (getopt()), wherever they stand */
	const char **pre_named;
	int npre_named;
	/* the words getopt left: argv[next] on are the script (unless -e) and
	 * its arguments */
	char **argv;
	int argc, next;
};

/* sonde -h */
void cli_usage(FILE *out);

/* argv into o: 0 goes on; 1 is done (-h, -V, --explain: exit 0); -1 failed
 * after its message */
int cli_args_parse(int argc, char **argv, struct cli_args *o);

/* the environment's settings, then the flags over them: 0 or -1 (printed) */
int cli_args_settings(const struct cli_args *o);

/* the options that go together (the format and -o, --serve): 0 or -1 */
int cli_args_check(struct cli_args *o);

/* the words after the script into so's $1, $2 ... and named options */
void cli_args_script(const struct cli_args *o, struct arena *a, struct sema_opts *so);

/* false after a message if a named option is one the script never read */
bool cli_args_named_used(const struct sema_opts *so);

/* ---- files.c -------------------------------------------------------------- */

/* true when ARG names a file (has a '/' or an extension), not a recipe */
bool cli_names_file(const char *arg);

/* the path of the installed recipe NAME in buf, or NULL */
const char *cli_find_recipe(const char *name, char *buf, size_t len);

/* Open -o PATH for writing: created 0600; in a world-writable sticky
 * directory a final symlink or another user's file is refused.  0, or -1
 * with a sentence in err. */
int cli_open_output(const char *path, FILE **out, char *err, size_t errlen);

/* Flush and (unless stdout) close f; a write error anywhere in its life is
 * reported on stderr naming `name`, and returns -1. */
int cli_close_output(FILE *f, const char *name);

/* the program: -e's text, or the file, stdin ("-") or recipe at
 * argv[next] (consumed), read into *owned (the caller frees it) and
 * o->prog_text; *file names it for diagnostics.  0, or -1 after a message. */
int cli_read_program(struct cli_args *o, const char **file, char **owned);

/* ---- list.c, info.c ------------------------------------------------------- */

/* -l [PATTERN]: the exit status */
int cli_list(const char *pattern, bool verbose, int pid);

/* -l -e PROGRAM, -l FILE: the program's attach points, wildcards expanded */
void cli_list_program(const struct sema_result *r, int pid);

/* --info: the kernel's BPF features (libbpf's probes) and the build */
void cli_info(FILE *out, const char *version);

/* -p PID: the pid of a running process, or -1 after a message */
int cli_parse_pid(const char *arg);

/* -c CMD: fork the child, held before exec until a byte is written to
 * *go_fd; agent_lib (or NULL) is preloaded.  The pid, or -errno. */
int cli_start_child(const char *cmd, int *go_fd, const char *agent_lib, const char *agent_dir);

/* a child the run never released (child > 0): killed, its go_fd closed */
void cli_child_kill(int child, int go_fd);

/* ---- diagnose.c ----------------------------------------------------------- */

/* sonde diagnose ARGS (argv[0] is "diagnose"): the exit status */
int cli_diagnose(int argc, char **argv);

#endif
