/*
 * kprobe.c - attaching kprobes and kretprobes.
 *
 * A function the kernel will not probe is explained (S0201): it may not
 * exist under that name (inlined into its callers, or renamed by the
 * compiler to foo.isra.0), sit on the kprobe blacklist, or be notrace.
 */
#include "runtime/rt_int.h"

#include <errno.h>
#include <string.h>

#include "common/explain.h"

/* does a line of the file (a kallsyms or blacklist listing) name func as
 * its word number `word` (0-based, space-separated)? */
static bool listed(const char *path, const char *func, int word)
{
	FILE *f = fopen(path, "re");
	char line[512];
	bool found = false;
	size_t n = strlen(func);
	while (f && !found && fgets(line, sizeof(line), f)) {
		char *p = line;
		for (int w = 0; w < word && p; w++)
			p = strpbrk(p, " \t") ? strpbrk(p, " \t") + 1 : NULL;
		found = p && !strncmp(p, func, n) && strchr(" \t\n[", p[n]);
	}
	if (f)
		fclose(f);
	return found;
}

int rt_attach_kprobe(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
		     int *count)
{
	struct bpf_link *l = bpf_program__attach_kprobe(prog, at->type == PT_KRETPROBE, at->func);
	if (!l && (errno == ENOENT || errno == EINVAL)) {
		int err = -errno;
		const struct explain *x = explain_get(EX_KFUNC);
		const char *why =
			!listed("/proc/kallsyms", at->func, 2) ?
				"this kernel has no function of that name (it was inlined into its "
				"callers, or the compiler renamed it: look for it with sonde -l "
				"'kprobe:NAME*')" :
			listed("/sys/kernel/debug/kprobes/blacklist", at->func, 1) ?
				"it is on the kprobe blacklist (/sys/kernel/debug/kprobes/blacklist): a "
				"probe there could recurse into the probe's own handler" :
				"it is notrace or otherwise refused by the kernel";
		fprintf(stderr, "sonde: %s: %s: %s (%s) [%s]\n", at->name, x->summary, why,
			strerror(-err), x->code);
		explain_note(stderr, x, true);
		return err;
	}
	return rt_keep_link(rt, at, l, count);
}
