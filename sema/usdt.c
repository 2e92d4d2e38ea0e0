/*
 * usdt.c - usdt:TARGET:[PROVIDER:]NAME attach points.
 *
 * Unlike uprobes, whose functions the runtime resolves per process, a
 * USDT probe is fully described by the ELF file: sema reads the file's
 * SDT notes (host/usdt.c) and makes one attach point per matching note,
 * each carrying its note, because one probe name may sit at several
 * places in the code with its arguments in different registers there.
 * When the body reads arguments, codegen then emits one program per note.
 * TARGET is a path or a program in PATH; with -p, the path is looked up
 * inside the process's root first (a container's own copy of the file),
 * and "*" stands for every file the process maps.
 */
#include "sema/sema_int.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/file.h"
#include "host/host.h"

const char *sema_target_file(struct sema_ctx *s, const char *target)
{
	if (strchr(target, '/')) {
		if (s->opts->target_pid > 0 && target[0] == '/') {
			const char *in = arena_printf(s->a, "/proc/%d/root%s", s->opts->target_pid, target);
			if (!access(in, R_OK))
				return in;
		}
		return target;
	}
	char found[4096];
	return file_which(target, found, sizeof(found)) ? arena_strdup(s->a, found) : NULL;
}

/* an attach point per note of file matching pattern, named usdt:TARGET:...;
 * how many */
static int add_notes(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
		     const char *target, const char *file, struct usdt_note *notes, size_t n,
		     const char *pattern)
{
	int found = 0;
	for (size_t i = 0; i < n; i++) {
		if (!usdt_match(&notes[i], pattern))
			continue;
		struct sema_attach *at = sema_push_attach(s, p);
		at->type = PT_USDT;
		at->target = file;
		at->func = arena_printf(s->a, "%s:%s", notes[i].provider, notes[i].name);
		at->name = arena_printf(s->a, "usdt:%s:%s", target, at->func);
		at->usdt = &notes[i];
		at->loc = raw->loc;
		found++;
	}
	return found;
}

void sema_usdt_expand(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
		      const char *target, const char *pattern)
{
	if (!strcmp(target, "*")) {
		sema_error(s, raw->loc, "usdt target '*' needs -p PID (the files the process maps)");
		return;
	}
	const char *file = sema_target_file(s, target);
	if (!file) {
		sema_error(s, raw->loc, "usdt target '%s' not found (not a path, not in PATH)", target);
		return;
	}
	struct usdt_note *notes;
	size_t n;
	char err[512];
	if (usdt_read_notes(s->a, file, &notes, &n, err, sizeof(err))) {
		sema_error(s, raw->loc, "usdt: %s", err);
		return;
	}
	if (!n) {
		sema_error(s, raw->loc, "%s has no USDT probes (no .note.stapsdt section)", file);
		return;
	}
	if (!add_notes(s, p, raw, target, file, notes, n, pattern))
		sema_error(s, raw->loc, "usdt probe '%s' not found in %s (sonde -l 'usdt:%s:*' lists them)",
			   pattern, file, target);
}

struct pid_paths {
	struct sema_ctx *s;
	const char **v;
	size_t n;
};

/* each file mapped executable, once (a library mapped twice is one path) */
static int pid_path(const struct rs_mapping *m, void *ctx)
{
	struct pid_paths *pp = ctx;
	if (!rs_mapping_is_exec_file(m) || m->deleted)
		return 0;
	for (size_t i = 0; i < pp->n; i++)
		if (!strcmp(pp->v[i], m->path))
			return 0;
	pp->v = vec_grow(pp->v, pp->n, sizeof(*pp->v));
	pp->v[pp->n++] = arena_strdup(pp->s->a, m->path);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * usdt:*:PATTERN with -p PID: the notes of every file the process maps,
 * read inside its root, each attach point named by the path the process
 * sees (usdt:/usr/bin/prog:provider:name), in the order of the paths.  A
 * file without notes, or without one matching, is passed over; none at
 * all is an error.
 */
void sema_usdt_expand_pid(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
			  const char *pattern)
{
	int pid = s->opts->target_pid;
	struct pid_paths pp = {.s = s};
	int rc = rs_maps_each(pid, pid_path, &pp);
	if (rc < 0) {
		sema_error(s, raw->loc, "usdt:*:%s: cannot read the mappings of pid %d: %s", pattern, pid,
			   rc == -ENOENT || rc == -ESRCH ? "it has exited" : strerror(-rc));
		free(pp.v);
		return;
	}
	if (!pp.n) {
		sema_error(s, raw->loc, "usdt:*:%s: pid %d maps no file (it has exited)", pattern, pid);
		return;
	}
	qsort(pp.v, pp.n, sizeof(*pp.v), cmp_str);
	int found = 0;
	for (size_t i = 0; i < pp.n; i++) {
		struct usdt_note *notes;
		size_t n;
		char err[512];
		const char *file = sema_target_file(s, pp.v[i]);
		if (!usdt_read_notes(s->a, file, &notes, &n, err, sizeof(err)))
			found += add_notes(s, p, raw, pp.v[i], file, notes, n, pattern);
	}
	if (!found && !diag_stopped(s->d))
		sema_error(s, raw->loc, "no file pid %d maps has a USDT probe matching '%s' (sonde -l "
			   "'usdt:*' -p %d lists them)", pid, pattern, pid);
	free(pp.v);
}
