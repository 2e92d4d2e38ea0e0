/*
 * list.c - `sonde -l`: the probes a pattern matches, each provider's lister
 * in turn (sema's provider table names them), and `-l -e PROGRAM` / `-l
 * FILE`: a program's attach points with their wildcards expanded.
 */
#include "cli/cli.h"

#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host.h"
#include "runtime/runtime.h"
#include "sema/sema.h"

/* -l 'GLOB:REST' (a wildcard probe type, '*:./prog:*'): each provider
 * whose name matches and that lists its probes, once per lister (uprobe,
 * not uretprobe too, as bpftrace).  A provider the rest means nothing to
 * lists nothing: their complaints are not shown. */
static int list_types(FILE *out, const char *glob, const char *rest, bool verbose, int pid)
{
	int (*done[PT_COUNT])(FILE *, const char *, const char *, bool, int);
	size_t nd = 0;
	fflush(stderr);
	int err = dup(2), null = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null >= 0)
		dup2(null, 2);
	for (int t = 0; t < PT_COUNT; t++) {
		const struct probe_provider *pv = sema_provider((enum probe_type)t);
		bool seen = false;
		for (size_t i = 0; i < nd; i++)
			seen |= done[i] == pv->list;
		if (!pv->list || seen || fnmatch(glob, pv->name, 0))
			continue;
		done[nd++] = pv->list;
		char *p = NULL;
		if (asprintf(&p, "%s:%s", pv->name, rest) < 0)
			break;
		pv->list(out, pv->name, p, verbose, pid);
		free(p);
	}
	fflush(stderr);
	if (err >= 0) {
		dup2(err, 2);
		close(err);
	}
	if (null >= 0)
		close(null);
	return 0;
}

/* -l [PATTERN] into out: a pattern naming a provider that lists its own
 * probes (uprobe:, usdt:, kprobe:, tracepoint:, software:, hardware: and
 * their aliases) goes to that provider's lister; a pattern without a probe
 * type (or none) searches every type that needs no target, as bpftrace
 * does: software and hardware events, tracepoints, kprobes and fentry/fexit
 * (where the kernel has them). */
static int list_into(FILE *out, const char *pattern, bool verbose, int pid)
{
	const char *colon = pattern ? strchr(pattern, ':') : NULL;
	if (!pattern && pid)
		return host_list_pid(out, pid);
	if (colon) {
		char name[64];
		snprintf(name, sizeof(name), "%.*s", (int)(colon - pattern), pattern);
		const struct probe_provider *pv = sema_provider_named(name);
		if (pv && pv->list)
			return pv->list(out, pv->name, pattern, verbose, pid);
		if (!pv && strpbrk(name, "*?["))
			return list_types(out, name, colon + 1, verbose, pid);
	}
	int rc = tfs_list_software(out, pattern);
	if (rc >= 0)
		rc = tfs_list_hardware(out, pattern);
	if (rc >= 0 && pattern && !colon) {
		/* a bare name or glob matches tracepoint names in any category */
		char *t = NULL;
		if (asprintf(&t, "tracepoint:*:%s", pattern) < 0)
			return -ENOMEM;
		rc = tfs_list(out, t, verbose);
		free(t);
	} else if (rc >= 0) {
		rc = tfs_list(out, pattern, verbose);
	}
	if (rc >= 0 && !pattern)	/* -l alone: every raw tracepoint too, as bpftrace */
		rc = host_list_rawtracepoints(out, "rawtracepoint", "rawtracepoint:*", verbose, pid);
	if (rc >= 0 && !colon && tfs_have_kprobes()) {
		char *k = NULL;
		if (asprintf(&k, "kprobe:%s", pattern ? pattern : "*") < 0)
			return -ENOMEM;
		rc = host_list_kprobes(out, "kprobe", k, verbose, pid);
		free(k);
	}
	/* and fentry/fexit where the kernel has BTF trampolines, as the
	 * newest bpftrace lists them (fentry:vmlinux:vfs_read) */
	for (int x = 0; x < 2 && rc >= 0 && !colon && host_feature_answer(HF_FENTRY) == HF_YES; x++) {
		const char *kind = x ? "fexit" : "fentry";
		char *f = NULL;
		if (asprintf(&f, "%s:%s", kind, pattern ? pattern : "*") < 0)
			return -ENOMEM;
		rc = host_list_fentry(out, kind, f, verbose, pid);
		free(f);
	}
	return rc < 0 ? rc : 0;
}

/* -l[v] 'struct NAME' (union, enum): the kernel type's definition */
static bool names_type(const char *pattern)
{
	return !strncmp(pattern, "struct ", 7) || !strncmp(pattern, "union ", 6) ||
	       !strncmp(pattern, "enum ", 5);
}

/* one pattern of -l: a kernel type, or probes */
static int list_one(FILE *out, const char *pattern, bool verbose, int pid)
{
	if (names_type(pattern))
		return host_btf_type_decl(pattern, out) == -ENOMEM ? -ENOMEM : 0;
	return list_into(out, pattern, verbose, pid);
}

/* -l 'A,B': each comma-separated pattern in turn, as a probe list is
 * written ("fexit:tcp_reset,tracepoint:syscalls:sys_enter_openat"), and
 * as the newest bpftrace lists several types ('struct task_struct,struct
 * file') or probes and types together; a comma inside quotes or [...]
 * belongs to its pattern */
static int list_each(FILE *out, const char *pattern, bool verbose, int pid)
{
	if (!pattern)
		return list_into(out, pattern, verbose, pid);
	int rc = 0;
	const char *p = pattern;
	while (*p) {
		const char *e = p;
		bool quoted = false;
		int brackets = 0;
		for (; *e && (quoted || brackets || *e != ','); e++) {
			if (*e == '"')
				quoted = !quoted;
			else if (!quoted && *e == '[')
				brackets++;
			else if (!quoted && *e == ']' && brackets)
				brackets--;
		}
		char *one = strndup(p, (size_t)(e - p));
		if (!one)
			return -ENOMEM;
		int r = *one ? list_one(out, one, verbose, pid) : 0;
		free(one);
		if (r < 0)
			rc = r;
		p = *e ? e + 1 : e;
	}
	return rc;
}

/* line once: printed and kept in *seen (taken over, or freed as a repeat) */
static void list_once(char *line, char ***seen, int *nseen)
{
	if (!line)
		return;
	for (int k = 0; k < *nseen; k++)
		if (!strcmp((*seen)[k], line)) {
			free(line);
			return;
		}
	char **grown = realloc(*seen, sizeof(**seen) * (size_t)(*nseen + 1));
	if (!grown) {
		free(line);
		return;
	}
	*seen = grown;
	(*seen)[(*nseen)++] = line;
	printf("%s\n", line);
}

/* a uprobe or uretprobe whose function is a wildcard: a line per function
 * it matches in its file, as -l 'uprobe:FILE:GLOB' lists them; false when
 * it matches none there (the pattern is listed then) */
static bool list_uprobe_funcs(const struct sema_attach *a, int pid, char ***seen, int *nseen)
{
	char *buf = NULL, err[512];
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return false;
	int rc = rs_list_probes(m, sema_probe_type_name(a->type), a->target, a->func, pid, err,
				sizeof(err));
	fclose(m);
	bool any = false;
	for (char *line = buf, *nl; rc >= 0 && line && *line; line = nl) {
		if ((nl = strchr(line, '\n')))
			*nl++ = '\0';
		list_once(strdup(line), seen, nseen);
		any = true;
	}
	free(buf);
	return any;
}

/* -l -e PROGRAM, -l FILE: the program's attach points, wildcards
 * expanded, each once; a timer or a perf event as -l lists it, without
 * its rate or count (interval:ms:, hardware:cache-misses:), as the newest
 * bpftrace lists a program's probes */
void cli_list_program(const struct sema_result *r, int pid)
{
	char **seen = NULL;
	int nseen = 0;
	for (int i = 0; i < r->nprobes; i++)
		for (int j = 0; j < r->probes[i].nattach; j++) {
			const struct sema_attach *a = &r->probes[i].attach[j];
			char *line;
			const char *c1 = strchr(a->name, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
			bool bare = a->type == PT_INTERVAL || a->type == PT_PROFILE ||
				    a->type == PT_SOFTWARE || a->type == PT_HARDWARE;
			if ((a->type == PT_UPROBE || a->type == PT_URETPROBE) && a->func &&
			    strpbrk(a->func, "*?[") && list_uprobe_funcs(a, pid, &seen, &nseen))
				continue;
			if (a->type == PT_FENTRY || a->type == PT_FEXIT)
				/* with its module, as -l 'fentry:vfs_*' lists it */
				line = asprintf(&line, "%s:%s:%s", sema_probe_type_name(a->type),
						a->target ? a->target : "vmlinux", a->func) < 0 ? NULL : line;
			else if (bare && c1)
				line = c2 ? strndup(a->name, (size_t)(c2 - a->name + 1))
					  : (asprintf(&line, "%s:", a->name) < 0 ? NULL : line);
			else
				line = strdup(a->name);
			list_once(line, &seen, &nseen);
		}
	for (int k = 0; k < nseen; k++)
		free(seen[k]);
	free(seen);
}

/* -l: what matched, or one line on stderr saying nothing did */
int cli_list(const char *pattern, bool verbose, int pid)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return 1;
	int rc = list_each(m, pattern, verbose, pid);
	fclose(m);
	fwrite(buf, 1, len, stdout);
	free(buf);
	if (rc < 0)
		return 1;
	if (!len && pattern) {
		if (cli_names_file(pattern) && access(pattern, F_OK))
			/* the newest bpftrace warns, then searches the name */
			fprintf(stderr, "sonde: warning: '%s' looks like a file name, but no such "
				"file exists: it was searched for as a probe pattern\n", pattern);
		fprintf(stderr, "sonde: no probe matches '%s'\n", pattern);
		return 1;
	}
	return 0;
}
