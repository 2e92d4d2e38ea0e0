/*
 * settings.h - the environment settings bpftrace users know.
 *
 * bpftrace 0.17 reads a few limits from BPFTRACE_* environment variables
 * (string size, cat() bytes, verifier log size ...).  sonde reads the same
 * names, and SONDE_* ones (SONDE_STRLEN ...) which win when both are set,
 * so a script's documented knobs keep working.  Values are read and checked
 * once (settings_load), so a bad one is one clear error at startup, not a
 * surprise later.
 */
#ifndef SONDE_SETTINGS_H
#define SONDE_SETTINGS_H

#include <stdint.h>
#include <stdio.h>

enum setting {
	SET_STRLEN,		/* bytes of a str() value */
	SET_CAT_BYTES_MAX,	/* bytes cat() prints of a file */
	SET_STACK_MODE,		/* ustack/kstack without a mode: 0 bpftrace, 1 perf, 2 raw */
	SET_MAX_PROBES,		/* attach points a script may have */
	SET_MAX_BPF_PROGS,	/* BPF programs a script may generate */
	SET__COUNT,
};

/* read and check every setting from the environment: 0, or -EINVAL after
 * one message on err naming the variable */
int settings_load(FILE *err);
int64_t settings_int(enum setting s);
/* the ENVIRONMENT section of -h, and the values in effect for --info */
void settings_usage(FILE *out);
void settings_dump(FILE *out);

#endif
