/*
 * uresolve_int.h - what uresolve.c (the target to candidate files) and
 * usites.c (the files' symbols to attach sites, the entry points, -l)
 * share (not a public header).
 */
#ifndef SONDE_HOST_URESOLVE_INT_H
#define SONDE_HOST_URESOLVE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/host_int.h"

struct key {
	uint64_t dev, ino;
};

struct cand {
	struct key real;	/* the inode the kernel probes */
	int fd;
	char *path;		/* as the processes see it */
	char *display;		/* for -l */
	char *root;		/* "/proc/PID/root", NULL for the host view */
	bool host, deleted;
	uint64_t dev, ino;	/* as stat() shows it */
	int *pids;
	size_t npids;
	/* a member of a zip archive (ARCHIVE.zip!/PATH): fd is a copy of its
	 * bytes, read as its ELF; the uprobes go on attach_fd, the archive, at
	 * base + the member's offsets.  -1 otherwise */
	int attach_fd;
	uint64_t base;
	bool raw;		/* not an ELF file (--unsafe): func is a file offset */
};

struct alias {
	struct key map;		/* (dev, ino) as maps shows it */
	size_t cand;
};

struct rs_sites_priv {
	struct arena *ar;
	size_t capsites;
	struct key *seen;	/* files examined by earlier passes (--follow) */
	size_t nseen;
};

struct rctx {
	const struct rs_query *q;
	struct rs_sites *s;	/* NULL when only listing */
	char *err;
	size_t errlen;
	struct cand *c;
	size_t nc;
	struct alias *al;
	size_t nal;
	const char *name;	/* bare target name, for matchers */
	struct key exe;		/* matcher state: the process's executable */
	size_t hits;		/* matching mappings seen for the current pid */
	const char *why;	/* last reason a path could not be opened */
	bool oom;
};

/* a note for the query's note callback (-v, warnings) */
void ures_note(struct rctx *r, enum rs_note_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* files examined by earlier passes (--follow): seen, and remember one */
bool ures_seen(const struct rctx *r, struct key k);
void ures_mark_seen(struct rctx *r, struct key k);
/* fd is an ELF executable or shared object (and executable when asked) */
bool ures_is_elf_exec(int fd, bool need_exec_bit);
/* uresolve.c: the query's target into r->c, the candidate files (each
 * opened once): 0 or -errno with r->err set */
int ures_resolve_files(struct rctx *r);
void ures_cands_free(struct rctx *r);

#endif
