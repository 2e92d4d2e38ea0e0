/*
 * cli.h - what the command line shares between its files: finding the
 * recipe a bare name stands for, and opening and closing the -o file
 * (files.c); --info (info.c); sonde diagnose (diagnose.c); the -p and -c
 * helpers main.c lends it.
 */
#ifndef SONDE_CLI_H
#define SONDE_CLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#ifndef CLI_SCRIPT_DIR
#define CLI_SCRIPT_DIR "/usr/local/share/sonde/scripts"
#endif

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

/* --info: the kernel's BPF features (libbpf's probes) and the build */
void cli_info(FILE *out, const char *version);

/* -p PID: the pid of a running process, or -1 after a message */
int cli_parse_pid(const char *arg);

/* -c CMD: fork the child, held before exec until a byte is written to
 * *go_fd; agent_lib (or NULL) is preloaded.  The pid, or -errno. */
int cli_start_child(const char *cmd, int *go_fd, const char *agent_lib, const char *agent_dir);

/* sonde diagnose ARGS (argv[0] is "diagnose"): the exit status */
int cli_diagnose(int argc, char **argv);

#endif
