/*
 * list.h - -l listers (list.c).
 */
#ifndef SONDE_HOST_LIST_H
#define SONDE_HOST_LIST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct arena;

/* `sonde -l PATTERN` for one provider: kind is the provider's canonical
 * name ("uretprobe"), pattern the whole pattern as written ("ur:libc:m*").
 * Prints what matches to out; 0, or -errno after one sentence on stderr.
 * These are the `list` hooks of sema's provider table. */
int host_list_tracepoints(FILE *out, const char *kind, const char *pattern, bool verbose,
			  int pid);
int host_list_software(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
int host_list_hardware(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
int host_list_timers(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
/* iter: the kernel's iterators, a struct bpf_iter__NAME each in its BTF */
int host_list_iters(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
int host_list_kprobes(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
int host_list_fentry(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
int host_list_rawtracepoints(FILE *out, const char *kind, const char *pattern, bool verbose,
			     int pid);
int host_list_usdt(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
int host_list_uprobes(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
/* -l -p PID alone: the uprobes of the process's executable and the USDT
 * probes of the files it maps, as bpftrace 0.17 lists them */
int host_list_pid(FILE *out, int pid);

#endif
