/*
 * usdt.c - usdt:TARGET:[PROVIDER:]NAME attach points.
 *
 * Unlike uprobes, whose functions the runtime resolves per process, a
 * USDT probe is fully described by the ELF file: sema reads the file's
 * SDT notes (runtime/usdt.c) and makes one attach point per matching note,
 * each carrying its note, because one probe name may sit at several
 * places in the code with its arguments in different registers there.
 * When the body reads arguments, codegen then emits one program per note.
 * TARGET is a path or a program in PATH; with -p, the path is looked up
 * inside the process's root first (a container's own copy of the file).
 */
#include "sema/sema_int.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	const char *path = getenv("PATH");
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *c = strchr(path, ':');
		size_t len = c ? (size_t)(c - path) : strlen(path);
		const char *cand = arena_printf(s->a, "%.*s/%s", (int)len, path, target);
		if (len && !access(cand, X_OK))
			return cand;
		path += len + (c ? 1 : 0);
	}
	return NULL;
}

void sema_usdt_expand(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
		      const char *target, const char *pattern)
{
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
	if (!found)
		sema_error(s, raw->loc, "usdt probe '%s' not found in %s (sonde -l 'usdt:%s:*' lists them)",
			   pattern, file, target);
}
