/*
 * tracefs.h - tracepoints as tracefs describes them.
 *
 * tfs_root() finds tracefs (/sys/kernel/tracing, or debugfs's tracing
 * directory) and mounts it when nothing is mounted.  Format files give
 * the byte offset, size and signedness of each field of a tracepoint's
 * record, which is what `args->field` reads in BPF.
 */
#ifndef SONDE_TRACEFS_H
#define SONDE_TRACEFS_H

#include <stdbool.h>
#include <stdio.h>

struct arena;

struct tp_field {
	const char *name;	/* "prev_comm" */
	const char *ctype;	/* the declaration's type as written: "char", "unsigned int", "const char *" */
	const char *decl;	/* the whole declaration: "char prev_comm[16]" */
	int offset, size;
	bool is_signed;
	int array_len;		/* -1 when not an array; N for "x[N]" */
	bool is_data_loc;	/* "__data_loc char[] name": 32-bit (len << 16 | offset) */
	bool is_common;		/* common_* header field */
};

struct tp_format {
	const char *category, *name;
	int id;
	struct tp_field *fields;	/* common fields first, as in the file */
	int nfields;
};

/* Path of a mounted tracefs, mounting it on /sys/kernel/tracing if
 * needed.  NULL (errno set) when it cannot be found or mounted. */
const char *tfs_root(void);

/* Parse the text of a format file (unit-testable). 0 or -EINVAL. */
int tfs_format_parse(struct arena *a, const char *text, struct tp_format *out);
/* Read events/CAT/NAME/format. 0, -ENOENT when no such tracepoint, -errno. */
int tfs_format_read(struct arena *a, const char *cat, const char *name,
		    struct tp_format *out);
const struct tp_field *tfs_field(const struct tp_format *f, const char *name);

/* Call cb for each tracepoint whose "CAT:NAME" matches the glob pattern
 * (fnmatch; both parts may hold * ? [..]), in sorted order.  Stops and
 * returns cb's value when it is non-zero.  Returns -errno on failure. */
int tfs_each(const char *cat_glob, const char *name_glob,
	     int (*cb)(const char *cat, const char *name, void *ctx), void *ctx);

/* -l / -lv for tracepoints: lines "tracepoint:CAT:NAME" matching pattern
 * (NULL: all); with verbose, each field below it as bpftrace -lv prints. */
int tfs_list(FILE *out, const char *pattern, bool verbose);

#endif
