/*
 * tracefs.h - tracepoints as tracefs describes them.
 *
 * tfs_root() finds tracefs (/sys/kernel/tracing, or debugfs's tracing
 * directory) and mounts it when nothing is mounted.  Format files give
 * the byte offset, size and signedness of each field of a tracepoint's
 * record, which is what `args->field` reads in BPF.  Also here: `-l`
 * output for tracepoints and perf software events, byte for byte as
 * bpftrace prints it, and the table of software events for attaching.
 */
#ifndef SONDE_HOST_TRACEFS_H
#define SONDE_HOST_TRACEFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct arena;

struct tp_field {
	const char *name;	/* "prev_comm" */
	const char *ctype;	/* the declaration's type as written, without the
				 * name and any [N]: "char", "unsigned int",
				 * "const char *", "const void*"; for __data_loc
				 * the element type ("char" of "char[]", or
				 * "cpumask_t" of "__data_loc cpumask_t mask") */
	const char *decl;	/* the whole declaration, verbatim between
				 * "field:" and ';': "char prev_comm[16]" */
	int offset, size;	/* size as the kernel stores it, which may differ
				 * from ctype's (syscall args are 8 bytes) */
	bool is_signed;
	int array_len;		/* -1 when not an array; N for "x[N]"; 0 for a
				 * flexible "x[]" and for __data_loc arrays */
	bool is_data_loc;	/* "__data_loc char[] name": the 4-byte field holds
				 * (len << 16 | offset from the record start) */
	bool is_common;		/* common_* header field */
};

struct tp_format {
	const char *category, *name;	/* category: set by tfs_format_read only;
					 * a format file does not name it */
	int id;
	struct tp_field *fields;	/* common fields first, as in the file */
	int nfields;
};

/* Path of a mounted tracefs, mounting it on /sys/kernel/tracing if
 * needed.  NULL (errno set) when it cannot be found or mounted. */
const char *tfs_root(void);
/* Use DIR as the tracefs root instead of searching (unit tests, or a
 * tracefs mounted somewhere unusual); NULL goes back to searching. */
void tfs_set_root(const char *dir);

/* Parse the text of a format file (unit-testable). 0 or -EINVAL (no
 * "name:", no "ID:", no "format:", or a field line that does not read as
 * "field:DECL;\toffset:N;\tsize:N;[\tsigned:N;]").  Strings live in a. */
int tfs_format_parse(struct arena *a, const char *text, struct tp_format *out);
/* Read events/CAT/NAME/format. 0, -ENOENT when no such tracepoint,
 * -EINVAL when CAT or NAME holds '/' or is "." or "..", -errno. */
int tfs_format_read(struct arena *a, const char *cat, const char *name,
		    struct tp_format *out);
const struct tp_field *tfs_field(const struct tp_format *f, const char *name);

/* Call cb for each tracepoint whose CAT matches cat_glob and NAME matches
 * name_glob (fnmatch; * ? [..]; NULL matches everything), in byte order of
 * "CAT:NAME" as bpftrace lists them.  The list is available_events (which
 * leaves out the ftrace category, as bpftrace does), or the events/
 * directories when that file is missing.  Stops and returns cb's value
 * when it is non-zero; 0 after the last one; -errno on failure. */
int tfs_each(const char *cat_glob, const char *name_glob,
	     int (*cb)(const char *cat, const char *name, void *ctx), void *ctx);

/* -l / -lv for tracepoints: lines "tracepoint:CAT:NAME" matching pattern;
 * with verbose, each non-common field below it as bpftrace -lv prints.
 * Patterns: NULL or "" (all); "tracepoint:CAT:NAME" or "t:CAT:NAME" with
 * globs in CAT and NAME; a glob provider that matches "tracepoint"
 * ("*:sched:*"); no provider at all (no ':'), which matches the whole
 * "CAT:NAME" ("sched*", "*switch*"), as bpftrace does ("*:sched*" is the
 * same).  Any other provider lists nothing.  Returns the number of
 * tracepoints listed, or -errno after a message on stderr (-EINVAL for
 * "tracepoint:X" without NAME).  A format that cannot be read under -v
 * leaves the entry without fields and a warning on stderr. */
int tfs_list(FILE *out, const char *pattern, bool verbose);
/* One -l entry: "tracepoint:CAT:NAME\n", then when fmt is not NULL
 * "    DECL\n" for each non-common field (the -lv form). */
void tfs_list_entry(FILE *out, const char *cat, const char *name,
		    const struct tp_format *fmt);

/* Perf software events (software:EVENT:COUNT), as bpftrace knows them. */
struct tfs_swevent {
	const char *name;	/* "cpu-clock" */
	const char *alias;	/* "cpu", or NULL */
	uint32_t config;	/* PERF_COUNT_SW_*: perf_event_attr.config for
				 * type PERF_TYPE_SOFTWARE */
	uint64_t default_period;/* sample_period when the probe gives no COUNT */
};
/* By name or alias ("cpu-clock", "cpu"); NULL when sonde knows no such
 * event. */
const struct tfs_swevent *tfs_software_event(const char *name);
/* -l for software events: "software:NAME:" for each name and alias that
 * matches pattern (NULL, "software:GLOB", "s:GLOB", a glob provider, or a
 * bare glob without ':'), in byte order as bpftrace sorts them.  Returns
 * the number listed. */
int tfs_list_software(FILE *out, const char *pattern);
/* The same for hardware events (hardware:EVENT:COUNT, PERF_TYPE_HARDWARE
 * counters; config is a PERF_COUNT_HW_*), "hardware:" or "h:". */
const struct tfs_swevent *tfs_hardware_event(const char *name);
int tfs_list_hardware(FILE *out, const char *pattern);
/* Does this machine have a CPU performance monitoring unit (hardware
 * counters)?  Virtual machines often have none. */
bool tfs_have_pmu(void);

/* Can this kernel attach kprobes (a kprobe perf event source exists)? */
bool tfs_have_kprobes(void);

#endif
