/*
 * list.c - `sonde -l KIND:...`, one function per probe provider.
 *
 * Each function has the shape of struct probe_provider's `list` hook (see
 * sema/sema.h): it gets the provider's canonical name (uprobe and
 * uretprobe share one lister), the whole pattern as the user wrote it,
 * -v and -p, prints the matching probes to out as bpftrace -l does, and
 * returns 0 or -errno after printing one sentence on stderr.
 */
#include "host/host.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/btf.h>


int host_list_tracepoints(FILE *out, const char *kind, const char *pattern, bool verbose,
			  int pid)
{
	int rc = tfs_list(out, pattern, verbose);
	return rc < 0 ? rc : 0;
}

int host_list_software(FILE *out, const char *kind, const char *pattern, bool verbose, int pid)
{
	int rc = tfs_list_software(out, pattern);
	return rc < 0 ? rc : 0;
}

int host_list_hardware(FILE *out, const char *kind, const char *pattern, bool verbose, int pid)
{
	int rc = tfs_list_hardware(out, pattern);
	return rc < 0 ? rc : 0;
}

/* kernel functions kprobes can attach to (tracefs's
 * available_filter_functions), sorted by name as bpftrace lists them:
 * 'kprobe:GLOB' names each once, 'kprobe:MODULE:GLOB' a module's own */
int host_list_kprobes(FILE *out, const char *kind, const char *pattern, bool verbose, int pid)
{
	const char *rest = strchr(pattern, ':') + 1, *colon = strchr(rest, ':');
	char module[256] = "";
	if (colon)
		snprintf(module, sizeof(module), "%.*s", (int)(colon - rest), rest);
	const char *glob = colon ? colon + 1 : rest;
	if (!tfs_have_kprobes()) {
		fprintf(stderr, "sonde: this kernel has no kprobes (no kprobe event source): nothing "
			"to list; its tracepoints cover most kernel events: sonde -l 'tracepoint:*'\n");
		return -ENOENT;
	}
	const struct kfn *v;
	size_t n;
	int err = kfn_load(&v, &n);
	if (err) {
		fprintf(stderr, "sonde: cannot read %s: %s\n", kfn_funcs_path(), strerror(-err));
		return err;
	}
	for (size_t i = 0; i < n; i++) {
		if (fnmatch(*glob ? glob : "*", v[i].name, 0))
			continue;
		if (*module && !(v[i].module && !fnmatch(module, v[i].module, 0)))
			continue;
		if (*module)
			fprintf(out, "%s:%s:%s\n", kind, v[i].module, v[i].name);
		else if (!i || strcmp(v[i - 1].name, v[i].name))
			fprintf(out, "%s:%s\n", kind, v[i].name);
	}
	return 0;
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* fentry:[MODULE:]GLOB: the functions ftrace can hook that BTF declares,
 * "fentry:vmlinux:vfs_read" (a module's under its name), sorted by name;
 * -v adds the BTF signature, a parameter a line and retval, as bpftrace's
 * -lv kfunc: does.  Where the ftrace list cannot be read, every function
 * of vmlinux's BTF. */
int host_list_fentry(FILE *out, const char *kind, const char *pattern, bool verbose, int pid)
{
	const char *rest = strchr(pattern, ':') + 1, *colon = strchr(rest, ':');
	char module[256] = "";
	if (colon)
		snprintf(module, sizeof(module), "%.*s", (int)(colon - rest), rest);
	const char *glob = colon ? colon + 1 : rest;
	if (!*glob)
		glob = "*";
	const struct btf *vml = host_kernel_btf();
	if (!vml) {
		fprintf(stderr, "sonde: %s probes need the kernel's BTF (/sys/kernel/btf/vmlinux): %s\n",
			kind, strerror(errno));
		return -ENOENT;
	}
	const struct kfn *v;
	size_t n;
	if (!kfn_load(&v, &n)) {
		for (size_t i = 0; i < n; i++) {
			const char *mod = v[i].module ? v[i].module : "vmlinux";
			if (fnmatch(glob, v[i].name, 0) || (*module && fnmatch(module, mod, 0)))
				continue;
			const struct btf *b = v[i].module ? host_module_btf(v[i].module) : vml;
			if (!b || host_btf_func_id(b, v[i].name) <= 0)
				continue;
			fprintf(out, "%s:%s:%s\n", kind, mod, v[i].name);
			if (verbose)
				host_btf_func_proto(b, v[i].name, out);
		}
		return 0;
	}
	if (*module && fnmatch(module, "vmlinux", 0))
		return 0;
	size_t cap = 0, k = 0;
	const char **names = NULL;
	for (uint32_t id = 1; id < btf__type_cnt(vml); id++) {
		const struct btf_type *t = btf__type_by_id(vml, id);
		const char *name = btf_is_func(t) ? btf__name_by_offset(vml, t->name_off) : NULL;
		if (!name || fnmatch(glob, name, 0))
			continue;
		if (k == cap) {
			cap = cap ? cap * 2 : 1024;
			const char **nv = realloc(names, cap * sizeof(*nv));
			if (!nv) {
				free(names);
				return -ENOMEM;
			}
			names = nv;
		}
		names[k++] = name;
	}
	if (k)
		qsort(names, k, sizeof(*names), by_name);
	for (size_t i = 0; i < k; i++) {
		if (i && !strcmp(names[i - 1], names[i]))
			continue;
		fprintf(out, "%s:vmlinux:%s\n", kind, names[i]);
		if (verbose)
			host_btf_func_proto(vml, names[i], out);
	}
	free(names);
	return 0;
}

/* usdt:PATH[:[PROVIDER:]NAME] */
int host_list_usdt(FILE *out, const char *kind, const char *pattern, bool verbose, int pid)
{
	const char *rest = strchr(pattern, ':') + 1, *colon = strchr(rest, ':');
	char path[4096], err[512];
	snprintf(path, sizeof(path), "%.*s", (int)(colon ? colon - rest : (long)strlen(rest)), rest);
	int rc = usdt_list(out, path, colon ? colon + 1 : "*", err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sonde: %s\n", err);
		return rc < 0 ? rc : -EINVAL;
	}
	return 0;
}

/* uprobe:TARGET[:GLOB] */
int host_list_uprobes(FILE *out, const char *kind, const char *pattern, bool verbose, int pid)
{
	const char *rest = strchr(pattern, ':') + 1;
	const char *colon = strrchr(rest, ':');
	char target[4096];
	const char *glob = "*";
	if (colon) {
		snprintf(target, sizeof(target), "%.*s", (int)(colon - rest), rest);
		glob = colon + 1;
	} else {
		snprintf(target, sizeof(target), "%s", rest);
	}
	char err[512];
	int rc = rs_list_probes(out, kind, target, glob, pid, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "sonde: %s\n", err);
		return rc;
	}
	return 0;
}
