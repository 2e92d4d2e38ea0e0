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
#include <glob.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

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

/* interval: and profile: take a unit, as the newest bpftrace lists them
 * (sorted): 'interval:*' prints interval:hz: interval:ms: interval:s:
 * interval:us: */
int host_list_timers(FILE *out, const char *kind, const char *pattern, bool verbose, int pid)
{
	static const char *const units[] = {"hz", "ms", "s", "us"};
	const char *colon = strchr(pattern, ':');
	char glob[256];
	snprintf(glob, sizeof(glob), "%s", colon ? colon + 1 : "*");
	char *end = strchr(glob, ':');
	if (end && end[1] == '\0')	/* 'interval:s:' names the unit s */
		*end = '\0';
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!fnmatch(glob, units[i], 0))
			fprintf(out, "%s:%s:\n", kind, units[i]);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int host_list_iters(FILE *out, const char *kind, const char *pattern, bool verbose, int pid)
{
	const char *colon = strchr(pattern, ':');
	const char *glob = colon && colon[1] ? colon + 1 : "*";
	const struct btf *b = host_kernel_btf();
	uint32_t n = b ? btf__type_cnt(b) : 0, nv = 0;
	const char **v = calloc(n ? n : 1, sizeof(*v));
	for (uint32_t id = 1; v && id < n; id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		const char *name = btf_is_struct(t) ? btf__name_by_offset(b, t->name_off) : NULL;
		/* bpf_iter__task, not the verifier's bpf_iter__task__safe_trusted */
		if (name && !strncmp(name, "bpf_iter__", 10) && name[10] && !strstr(name + 10, "__") &&
		    !fnmatch(glob, name + 10, 0))
			v[nv++] = name + 10;
	}
	if (v)
		qsort(v, nv, sizeof(*v), cmp_str);
	for (uint32_t i = 0; i < nv; i++)
		fprintf(out, "%s:%s\n", kind, v[i]);
	int rc = v || !n ? 0 : -ENOMEM;
	free(v);
	return rc;
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
		else
			continue;
		/* -v: the parameters BTF declares, as arg0..; retval */
		const struct btf *b = v[i].module ? host_module_btf(v[i].module) : host_kernel_btf();
		if (verbose && b)
			host_btf_kprobe_proto(b, v[i].name, !strcmp(kind, "kretprobe"), out);
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

struct rawtp_list {
	FILE *out;
	const char *kind;
	bool verbose;
};

static int list_rawtp(const char *module, const char *name, void *ctx)
{
	struct rawtp_list *l = ctx;
	fprintf(l->out, "%s:%s:%s\n", l->kind, module, name);
	if (l->verbose)
		host_btf_raw_tp_proto(host_module_btf(module), name, l->out);
	return 0;
}

/* rawtracepoint:[MODULE:]GLOB: the kernel's tracepoints as BTF knows
 * them, "rawtracepoint:vmlinux:sched_switch"; -v adds their arguments */
int host_list_rawtracepoints(FILE *out, const char *kind, const char *pattern, bool verbose,
			     int pid)
{
	const char *rest = strchr(pattern, ':') + 1, *colon = strchr(rest, ':');
	char module[256] = "";
	if (colon)
		snprintf(module, sizeof(module), "%.*s", (int)(colon - rest), rest);
	const char *glob = colon ? colon + 1 : rest;
	struct rawtp_list l = {out, kind, verbose};
	int rc = host_raw_tp_each(*module ? module : NULL, *glob ? glob : "*", list_rawtp, &l);
	if (rc < 0)
		fprintf(stderr, "sonde: %s probes are listed from the kernel's BTF "
			"(/sys/kernel/btf/vmlinux): %s\n", kind, strerror(-rc));
	return rc < 0 ? rc : 0;
}

/* ---- uprobe and usdt: files named by a wildcard, and -p PID ---------------- */

/* one file's probes into out; 0, or -errno with err set */
typedef int (*file_lister)(FILE *out, const char *kind, const char *file, const char *glob,
			   int pid, char *err, size_t errlen);

static int usdt_file(FILE *out, const char *kind, const char *file, const char *glob, int pid,
		     char *err, size_t errlen)
{
	int rc = usdt_list(out, file, glob, err, errlen);
	return rc > 0 ? -EINVAL : rc;
}

static int uprobe_file(FILE *out, const char *kind, const char *file, const char *glob, int pid,
		       char *err, size_t errlen)
{
	return rs_list_probes(out, kind, file, glob, pid, err, errlen);
}

static int by_line(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* text's lines to out, sorted and each once (bpftrace -l's order) */
static int print_sorted(FILE *out, char *text, size_t len)
{
	size_t n = 0;
	for (size_t i = 0; i < len; i++)
		n += text[i] == '\n';
	char **v = calloc(n ? n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	size_t k = 0;
	for (char *p = text, *e; k < n && (e = strchr(p, '\n')); p = e + 1) {
		*e = '\0';
		v[k++] = p;
	}
	qsort(v, k, sizeof(*v), by_line);
	for (size_t i = 0; i < k; i++)
		if (!i || strcmp(v[i - 1], v[i]))
			fprintf(out, "%s\n", v[i]);
	free(v);
	return 0;
}

/* every file the wildcard file part names (glob(3), paths as it writes
 * them: ./testprogs/x stays relative), as one sorted list; files that
 * are not ELF, or have no such probes, add nothing */
static int list_files(FILE *out, const char *kind, const char *files, const char *names, int pid,
		      file_lister fn)
{
	glob_t g;
	int rc = glob(files, 0, NULL, &g);
	if (rc == GLOB_NOMATCH) {
		fprintf(stderr, "sonde: no file matches '%s'\n", files);
		return -ENOENT;
	}
	if (rc) {
		fprintf(stderr, "sonde: cannot expand '%s'\n", files);
		return -ENOMEM;
	}
	char *buf = NULL, err[512];
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m) {
		globfree(&g);
		return -ENOMEM;
	}
	for (size_t i = 0; i < g.gl_pathc; i++) {
		struct stat st;
		if (!stat(g.gl_pathv[i], &st) && S_ISREG(st.st_mode))
			fn(m, kind, g.gl_pathv[i], names, pid, err, sizeof(err));
	}
	globfree(&g);
	fclose(m);
	rc = print_sorted(out, buf, len);
	free(buf);
	return rc;
}

struct pid_files {
	FILE *out;
	const char *kind, *glob;
	int pid;
	file_lister fn;
	char **seen;
	size_t nseen;
};

/* each file the process maps executable, once, as /proc/PID/root/PATH */
static int pid_file(const struct rs_mapping *m, void *ctx)
{
	struct pid_files *pf = ctx;
	for (size_t i = 0; i < pf->nseen; i++)
		if (!strcmp(pf->seen[i], m->path))
			return 0;
	char **nv = realloc(pf->seen, (pf->nseen + 1) * sizeof(*nv));
	if (!nv || !(nv[pf->nseen] = strdup(m->path))) {
		if (nv)
			pf->seen = nv;
		return -ENOMEM;
	}
	pf->seen = nv;
	pf->nseen++;
	char path[4200], err[512];
	snprintf(path, sizeof(path), "/proc/%d/root%s", pf->pid, m->path);
	pf->fn(pf->out, pf->kind, path, pf->glob, 0, err, sizeof(err));
	return 0;
}

/* usdt:*: the probes of every file pid maps (its libraries' too) */
static int list_pid_files(FILE *out, const char *kind, const char *glob, int pid, file_lister fn)
{
	struct pid_files pf = {out, kind, glob, pid, fn, NULL, 0};
	int rc = rs_maps_each(pid, pid_file, &pf);
	for (size_t i = 0; i < pf.nseen; i++)
		free(pf.seen[i]);
	free(pf.seen);
	if (rc < 0)
		fprintf(stderr, "sonde: cannot read the mappings of process %d: %s\n", pid,
			strerror(-rc));
	return rc < 0 ? rc : 0;
}

/* the file part and the rest of PROVIDER:TARGET[:REST] (REST "*" when
 * not written); last: the file part ends at the last ':' (uprobe) */
static void split_target(const char *pattern, bool last, char *file, size_t len,
			 const char **rest)
{
	const char *t = strchr(pattern, ':') + 1;
	const char *colon = last ? strrchr(t, ':') : strchr(t, ':');
	snprintf(file, len, "%.*s", (int)(colon ? colon - t : (long)strlen(t)), t);
	*rest = colon && colon[1] ? colon + 1 : "*";
}

static bool file_glob(const char *file)
{
	return strcmp(file, "*") && strpbrk(file, "*?[");
}

/* usdt:PATH[:[PROVIDER:]NAME]; usdt:* with -p: the process's files */
int host_list_usdt(FILE *out, const char *kind, const char *pattern, bool verbose, int pid)
{
	char path[4096], err[512];
	const char *glob;
	split_target(pattern, false, path, sizeof(path), &glob);
	if (!strcmp(path, "*") && pid)
		return list_pid_files(out, kind, glob, pid, usdt_file);
	if (!strcmp(path, "*")) {
		fprintf(stderr, "sonde: usdt target '*' needs -p PID (the process's files)\n");
		return -EINVAL;
	}
	if (file_glob(path))
		return list_files(out, kind, path, glob, pid, usdt_file);
	int rc = usdt_list(out, path, glob, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sonde: %s\n", err);
		return rc < 0 ? rc : -EINVAL;
	}
	return 0;
}

/* -lv: each "KIND:PATH:FUNC" line of text, then the function's parameters
 * when the file's DWARF describes it (nothing more when it has none, as
 * bpftrace lists it) */
static void list_dwarf_params(FILE *out, char *text, int pid)
{
	for (char *line = text, *nl; line && *line; line = nl) {
		nl = strchr(line, '\n');
		if (nl)
			*nl++ = '\0';
		fprintf(out, "%s\n", line);
		char *path = strchr(line, ':'), *fn = strrchr(line, ':');
		if (!path || fn == path)
			continue;
		*fn++ = '\0';
		path++;
		char err[512], in_root[4096];
		struct hdw_file *f = NULL;
		const struct hdw_func *func;
		snprintf(in_root, sizeof(in_root), "/proc/%d/root%s", pid, path);
		if ((pid > 0 && path[0] == '/' && !hdw_open(in_root, &f, err, sizeof(err))) ||
		    !hdw_open(path, &f, err, sizeof(err)))
			if ((func = hdw_func(f, fn)))
				hdw_print_params(func, out);
	}
}

/* uprobe:TARGET[:GLOB] */
/* -l 'uprobe:TARGET@FILE:LINE[:COL]': the probe when the line has code
 * (-v: its address and the function it is in); 1 when pattern is not of
 * that form, else 0 or -errno */
static int list_srcline(FILE *out, const char *kind, const char *pattern, bool verbose, int pid)
{
	const char *t = strchr(pattern, ':') + 1, *at = strrchr(t, '@');
	char *end;
	unsigned long line = 0, col = 0;
	const char *c1 = at ? strchr(at, ':') : NULL;
	if (!c1 || !c1[1] || c1[1] < '0' || c1[1] > '9')
		return 1;
	line = strtoul(c1 + 1, &end, 10);
	if (*end == ':' && end[1] >= '0' && end[1] <= '9')
		col = strtoul(end + 1, &end, 10);
	char target[4096], src[4096];
	snprintf(target, sizeof(target), "%.*s", (int)(at - t), t);
	snprintf(src, sizeof(src), "%.*s", (int)(c1 - at - 1), at + 1);
	struct stat st;
	char whole[4096];
	snprintf(whole, sizeof(whole), "%.*s", (int)(c1 - t), t);
	if (*end || !stat(whole, &st))
		return 1;
	if (strcmp(kind, "uprobe")) {
		fprintf(stderr, "sonde: a source line is a place inside a function, which a %s cannot "
			"probe: list uprobe:%s\n", kind, t);
		return -EINVAL;
	}
	struct rs_query q = {.target = target, .func = "*", .pid = pid};
	struct rs_sites *sites = NULL;
	char err[1024], path[4200];
	int rc = rs_resolve(&q, &sites, err, sizeof(err));
	if (!rc && !sites->nfiles)
		rc = -ENOENT;
	if (!rc) {
		const struct rs_file *f = sites->files[0];
		if (f->host || !f->npids)
			snprintf(path, sizeof(path), "%s", f->path);
		else
			snprintf(path, sizeof(path), "/proc/%d/root%s", f->pids[0], f->path);
	}
	rs_sites_free(sites);
	uint64_t vaddr = 0;
	if (!rc)
		rc = hdw_line_addr(path, src, (unsigned)line, (unsigned)col, &vaddr, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sonde: %s: %s\n", pattern, err);
		return rc;
	}
	fprintf(out, "%s\n", pattern);
	struct rs_elf *e = NULL;
	if (verbose && !rs_elf_open(path, &e, err, sizeof(err))) {
		const struct rs_sym *sym = rs_elf_addr_sym(e, vaddr);
		if (sym)
			fprintf(out, "    address 0x%llx, %s+%llu\n", (unsigned long long)vaddr, sym->name,
				(unsigned long long)(vaddr - sym->vaddr));
		else
			fprintf(out, "    address 0x%llx\n", (unsigned long long)vaddr);
		rs_elf_free(e);
	}
	return 0;
}

int host_list_uprobes(FILE *out, const char *kind, const char *pattern, bool verbose, int pid)
{
	int src = list_srcline(out, kind, pattern, verbose, pid);
	if (src <= 0)
		return src;
	char target[4096];
	const char *glob;
	split_target(pattern, true, target, sizeof(target), &glob);
	char err[512] = "";
	char *text = NULL;
	size_t len = 0;
	/* -v: the lines, then each with its parameters (a uretprobe has no
	 * args: bpftrace lists none under it) */
	FILE *lines = verbose && !strcmp(kind, "uprobe") ? open_memstream(&text, &len) : NULL;
	FILE *dst = lines ? lines : out;
	int rc = file_glob(target) ? list_files(dst, kind, target, glob, pid, uprobe_file)
				   : rs_list_probes(dst, kind, target, glob, pid, err, sizeof(err));
	if (lines) {
		fclose(lines);
		if (rc >= 0)
			list_dwarf_params(out, text, pid);
		free(text);
	}
	if (rc < 0 && *err)
		fprintf(stderr, "sonde: %s\n", err);
	return rc < 0 ? rc : 0;
}

struct exe_find {
	struct stat exe;
	char path[RS_PATH_MAX];
};

static int exe_mapping(const struct rs_mapping *m, void *ctx)
{
	struct exe_find *f = ctx;
	if (m->inode != f->exe.st_ino || m->dev_major != major(f->exe.st_dev) ||
	    m->dev_minor != minor(f->exe.st_dev))
		return 0;
	snprintf(f->path, sizeof(f->path), "%s", m->path);
	return 1;
}

/* -l -p PID: as bpftrace 0.17, the uprobes of the process's executable
 * and the USDT probes of every file it maps, under /proc/PID/root */
int host_list_pid(FILE *out, int pid)
{
	struct exe_find f = {0};
	char exe[64], err[512];
	snprintf(exe, sizeof(exe), "/proc/%d/exe", pid);
	int rc = stat(exe, &f.exe) ? -errno : rs_maps_each(pid, exe_mapping, &f);
	if (rc < 0 || !*f.path) {
		fprintf(stderr, "sonde: cannot find the executable of process %d: %s\n", pid,
			strerror(rc < 0 ? -rc : ENOENT));
		return rc < 0 ? rc : -ENOENT;
	}
	char path[4200];
	snprintf(path, sizeof(path), "/proc/%d/root%s", pid, f.path);
	rc = rs_list_probes(out, "uprobe", path, "*", 0, err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "sonde: %s\n", err);
		return rc;
	}
	return list_pid_files(out, "usdt", "*", pid, usdt_file);
}
