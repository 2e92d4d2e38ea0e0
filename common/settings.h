/*
 * settings.h - the environment settings bpftrace users know.
 *
 * bpftrace 0.17 reads a few limits from BPFTRACE_* environment variables
 * (string size, cat() bytes, verifier log size ...).  sonde reads the same
 * names, the names newer releases gave them (BPFTRACE_MAX_STRLEN for
 * BPFTRACE_STRLEN), and SONDE_* ones (SONDE_STRLEN ...) which win when both
 * are set, so a script's documented knobs keep working.  Values are read and checked
 * once (settings_load), so a bad one is one clear error at startup, not a
 * surprise later.  A script's config block (newer bpftrace's
 * "config = { max_strlen = 128 }") sets what the environment leaves, and
 * command-line flags win over both.
 */
#ifndef SONDE_SETTINGS_H
#define SONDE_SETTINGS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

enum setting {
	SET_STRLEN,		/* bytes of a str() value */
	SET_CAT_BYTES_MAX,	/* bytes cat() prints of a file */
	SET_STACK_MODE,		/* ustack/kstack without a mode: 0 bpftrace, 1 perf, 2 raw */
	SET_MAX_PROBES,		/* attach points a script may have */
	SET_MAX_BPF_PROGS,	/* BPF programs a script may generate */
	SET_MAP_KEYS_MAX,	/* keys a map holds */
	SET_PERF_RB_PAGES,	/* event ring pages per CPU (0: sized for a second's burst) */
	SET_MISSING_PROBES,	/* an attach point that is not there: 0 warn, 1 ignore, 2 error */
	SET_PRINT_MAPS_ON_EXIT,	/* 1: print the maps at exit */
	SET_STR_TRUNC_TRAILER,	/* a string (settings_str): printed after a str() that filled its size */
	SET_LAZY_SYMBOLICATION,	/* 1: symbols read when first printed (sonde always does) */
	SET_ON_STACK_LIMIT,	/* values above this many bytes live in per-CPU memory, not the stack */
	SET_LICENSE,		/* the programs' licence, one of the GPL-compatible words (settings_word) */
	SET_UNSTABLE_MAP_DECL,	/* let @m = hash(N): 0 warn, 1 enable, 2 error */
	SET_UNSTABLE_ADDR,	/* the & operator: 0 warn, 1 enable, 2 error */
	SET_UNWIND,		/* how ustack walks: 0 fp, 1 cfi, 2 auto (cfi where the kernel can) */
	SET_FOLDED_OFFSETS,	/* 1: -f folded writes frames as text prints them (main+22, 0x7f...) */
	SET_SHOW_DEBUG_INFO,	/* 1: user frames with file:line and inlined functions (DWARF) */
	SET_UNSTABLE_DW_USTACK,	/* the newest release's dw_ustack gate: 0 warn, 1 enable, 2 error (accepted) */
	SET__COUNT,
};

enum { SET_MISSING_WARN, SET_MISSING_IGNORE, SET_MISSING_ERROR };
enum { SET_UNWIND_FP, SET_UNWIND_CFI, SET_UNWIND_AUTO };
enum { SET_UNSTABLE_WARN, SET_UNSTABLE_ENABLE, SET_UNSTABLE_ERROR };

/* read and check every setting from the environment: 0, or -EINVAL after
 * one message on err naming the variable */
int settings_load(FILE *err);
/* one "name = value" of a script's config block (newer bpftrace's), where
 * name is the config name (max_strlen), BPFTRACE_NAME or SONDE_NAME.  The
 * environment wins over the script, as in bpftrace.  0; -ENOENT for an
 * unknown name, -EINVAL for a bad value, with the reason in msg. */
/* a command-line flag's value (who names it): it wins over the
 * environment and the script.  0, or -EINVAL with the reason in msg. */
int settings_set(enum setting s, const char *who, const char *value, char *msg, size_t len);
int settings_config(const char *name, const char *value, char *msg, size_t len);
int64_t settings_int(enum setting s);
/* a string setting's value (SET_STR_TRUNC_TRAILER) */
const char *settings_str(enum setting s);
/* a word setting's value as its word (SET_LICENSE: "Dual BSD/GPL") */
const char *settings_word(enum setting s);
/* was s set (environment, config block or flag), not left at its default? */
bool settings_given(enum setting s);
/* the ENVIRONMENT section of -h, and the values in effect for --info */
void settings_usage(FILE *out);
void settings_dump(FILE *out);

#endif
