/*
 * tracefs.c - finding tracefs, reading tracepoint formats, and `-l`.
 *
 * sonde reads three things from tracefs: the list of tracepoints
 * (available_events, for wildcards and -l), each tracepoint's format file
 * (field offsets and sizes, which `args->field` compiles to), and nothing
 * else: attaching goes through perf_event_open with the ID from the format.
 * tracefs is often not mounted on minimal hosts and in containers, so
 * tfs_root() looks where it may be (/sys/kernel/tracing, debugfs's
 * tracing/, any tracefs in /proc/self/mountinfo) and mounts it as a last
 * resort.  The -l output copies bpftrace's byte for byte: it sorts the
 * "CAT:NAME" strings, and -lv prints each non-common field declaration as
 * written in the format file.  The perf software events live here too,
 * since they are listed next to tracepoints and are just as static.
 */
#include "host/host.h"
#include "common/file.h"

#include "common/arena.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

/* ---- finding tracefs ------------------------------------------------ */

static char root_path[PATH_MAX];
static bool root_known, root_set;	/* root_set: by tfs_set_root */

/* The tracepoint list, loaded once per tracefs root: a misspelled
 * tracepoint's "did you mean" and each wildcard probe walk the same list,
 * and the kernel formats available_events anew on every read. */
struct ev_list {
	char *buf;
	char **lines;	/* "CAT:NAME", sorted, unique */
	size_t n;
};
static struct ev_list ev_cache;
static bool ev_cached;

static void ev_list_free(struct ev_list *l)
{
	free(l->buf);
	free(l->lines);
}

void tfs_set_root(const char *dir)
{
	ev_list_free(&ev_cache);
	memset(&ev_cache, 0, sizeof(ev_cache));
	ev_cached = false;
	root_known = root_set = false;
	if (dir && strlen(dir) < sizeof(root_path)) {
		strcpy(root_path, dir);
		root_known = root_set = true;
	}
}

/* A usable tracefs has an events/ directory; an empty mount point has
 * not.  For debugfs's tracing/ the stat also triggers the kernel's
 * automount of tracefs there. */
static bool has_events(const char *dir)
{
	char p[PATH_MAX];
	struct stat st;

	if (snprintf(p, sizeof(p), "%s/events", dir) >= (int)sizeof(p))
		return false;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

/* a tracefs mount at dir, whether or not we may look inside */
static bool tracefs_at(const char *dir)
{
	struct statfs sf;

	return statfs(dir, &sf) == 0 && sf.f_type == TRACEFS_MAGIC;
}

static const char *remember(const char *dir)
{
	snprintf(root_path, sizeof(root_path), "%s", dir);
	root_known = true;
	return root_path;
}


/* Look through /proc/self/mountinfo for a tracefs mount, or a debugfs one
 * whose tracing/ has events, anywhere in the tree.  Line format:
 * "ID PARENT MAJ:MIN ROOT MOUNTPOINT OPTS [TAGS...] - FSTYPE SOURCE SUPER". */
static const char *find_in_mountinfo(void)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL, dir[PATH_MAX];
	size_t cap = 0;
	const char *found = NULL;

	if (!f)
		return NULL;
	while (!found && getline(&line, &cap, f) > 0) {
		char *save = NULL, *mnt = NULL, *tok;
		char *sep = strstr(line, " - ");
		int i = 0;

		if (!sep)
			continue;
		*sep = '\0';
		for (tok = strtok_r(line, " ", &save); tok;
		     tok = strtok_r(NULL, " ", &save))
			if (++i == 5)
				mnt = tok;
		if (!mnt)
			continue;
		file_unescape_octal(mnt);
		if (!strncmp(sep + 3, "tracefs ", 8)) {
			if (has_events(mnt))
				found = remember(mnt);
		} else if (!strncmp(sep + 3, "debugfs ", 8)) {
			if (snprintf(dir, sizeof(dir), "%s/tracing", mnt) <
				    (int)sizeof(dir) && has_events(dir))
				found = remember(dir);
		}
	}
	free(line);
	fclose(f);
	return found;
}

const char *tfs_root(void)
{
	int err;

	if (root_known)
		return root_path;
	if (has_events("/sys/kernel/tracing"))
		return remember("/sys/kernel/tracing");
	if (has_events("/sys/kernel/debug/tracing"))
		return remember("/sys/kernel/debug/tracing");
	if (find_in_mountinfo())
		return root_path;
	/* Mounted but not ours to read (mode 0700, and we are not root):
	 * say so, rather than try to mount it and report that failing */
	if (tracefs_at("/sys/kernel/tracing") || tracefs_at("/sys/kernel/debug/tracing")) {
		errno = EACCES;
		return NULL;
	}

	/* Nothing mounted: mount tracefs where the kernel made a place for it
	 * (4.1+), or else debugfs, whose tracing/ is tracefs. */
	if (mount("tracefs", "/sys/kernel/tracing", "tracefs", 0, NULL) == 0 &&
	    has_events("/sys/kernel/tracing"))
		return remember("/sys/kernel/tracing");
	err = errno;
	if (mount("debugfs", "/sys/kernel/debug", "debugfs", 0, NULL) == 0 &&
	    has_events("/sys/kernel/debug/tracing"))
		return remember("/sys/kernel/debug/tracing");
	errno = err ? err : ENOENT;
	return NULL;
}

/* ---- reading files ------------------------------------------------- */

static int read_file(const char *path, char **out, size_t *len)
{
	return file_read_all(path, 0, out, len);
}

/* ---- format files --------------------------------------------------- */

static const char *skip_ws(const char *s, const char *end)
{
	while (s < end && (*s == ' ' || *s == '\t'))
		s++;
	return s;
}

static const char *trim_end(const char *s, const char *end)
{
	while (end > s && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	return end;
}

/* Parse a decimal integer filling exactly [s, end), after trimming. */
static int parse_int(const char *s, const char *end, long *out)
{
	long v = 0;
	bool neg = false;

	s = skip_ws(s, end);
	end = trim_end(s, end);
	if (s < end && *s == '-') {
		neg = true;
		s++;
	}
	if (s == end)
		return -EINVAL;
	for (; s < end; s++) {
		if (!isdigit((unsigned char)*s) || v > (INT_MAX - 9) / 10)
			return -EINVAL;
		v = v * 10 + (*s - '0');
	}
	*out = neg ? -v : v;
	return 0;
}

static bool is_ident_char(char c)
{
	return isalnum((unsigned char)c) || c == '_';
}

/* DECL is a C declaration as the kernel prints it:
 *   "unsigned short common_type"        "char prev_comm[16]"
 *   "const char * filename"             "const void* ip"
 *   "__data_loc char[] filename"        "unsigned long args[]"
 *   "__data_loc cpumask_t cpumask"      "const char *const * argv"
 * The name is the identifier at the end, before any [N]; the type is
 * everything in front of the name. */
static int parse_decl(struct arena *a, const char *d, const char *end,
		      struct tp_field *f)
{
	const char *name_end, *name, *type_end;
	long n;

	d = skip_ws(d, end);
	end = trim_end(d, end);
	f->array_len = -1;
	if (end - d > 11 && !strncmp(d, "__data_loc ", 11)) {
		f->is_data_loc = true;
		d = skip_ws(d + 11, end);
	}

	name_end = end;
	if (name_end > d && name_end[-1] == ']') {
		const char *lb = memrchr(d, '[', (size_t)(name_end - d));

		if (!lb)
			return -EINVAL;
		if (lb + 1 == name_end - 1)
			f->array_len = 0;
		else if (parse_int(lb + 1, name_end - 1, &n) == 0 && n >= 0)
			f->array_len = (int)n;
		else
			return -EINVAL;
		name_end = trim_end(d, lb);
	}
	name = name_end;
	while (name > d && is_ident_char(name[-1]))
		name--;
	if (name == name_end || isdigit((unsigned char)*name))
		return -EINVAL;

	type_end = trim_end(d, name);
	if (f->is_data_loc) {
		/* "char[]": the brackets belong to the type; a bitmap reads
		 * "__data_loc cpumask_t cpumask", without them */
		if (f->array_len >= 0)
			return -EINVAL;
		if (type_end - d >= 2 && !strncmp(type_end - 2, "[]", 2))
			type_end = trim_end(d, type_end - 2);
		f->array_len = 0;
	}
	if (type_end == d)
		return -EINVAL;

	f->name = arena_strndup(a, name, (size_t)(name_end - name));
	f->ctype = arena_strndup(a, d, (size_t)(type_end - d));
	f->is_common = !strncmp(f->name, "common_", 7);
	return 0;
}

/* "\tfield:DECL;\toffset:N;\tsize:N;\tsigned:N;" with s just past
 * "field:".  Keys after the declaration may come in any order; unknown
 * ones are ignored, offset and size are required. */
static int parse_field(struct arena *a, const char *s, const char *end,
		       struct tp_field *f)
{
	const char *semi = memchr(s, ';', (size_t)(end - s));
	bool have_off = false, have_size = false;
	long v;

	if (!semi)
		return -EINVAL;
	f->decl = arena_strndup(a, s, (size_t)(semi - s));
	if (parse_decl(a, s, semi, f))
		return -EINVAL;

	for (s = semi + 1; (s = skip_ws(s, end)) < end; s = semi + 1) {
		const char *colon = memchr(s, ':', (size_t)(end - s));

		semi = memchr(s, ';', (size_t)(end - s));
		if (!colon || !semi || colon > semi)
			return -EINVAL;
		if (parse_int(colon + 1, semi, &v))
			return -EINVAL;
		if (colon - s == 6 && !strncmp(s, "offset", 6)) {
			if (v < 0)
				return -EINVAL;
			f->offset = (int)v;
			have_off = true;
		} else if (colon - s == 4 && !strncmp(s, "size", 4)) {
			if (v < 0)
				return -EINVAL;
			f->size = (int)v;
			have_size = true;
		} else if (colon - s == 6 && !strncmp(s, "signed", 6)) {
			f->is_signed = v != 0;
		}
	}
	return have_off && have_size ? 0 : -EINVAL;
}

int tfs_format_parse(struct arena *a, const char *text, struct tp_format *out)
{
	const char *s = text, *nl, *end;
	bool in_format = false, have_id = false;
	int nlines = 1;
	long v;

	memset(out, 0, sizeof(*out));
	for (const char *p = text; *p; p++)
		nlines += *p == '\n';
	out->fields = arena_new_array(a, struct tp_field, nlines);

	for (; *s; s = *nl ? nl + 1 : nl) {
		nl = strchrnul(s, '\n');
		end = trim_end(s, nl);
		if (!in_format) {
			if (!strncmp(s, "name:", 5)) {
				const char *n = skip_ws(s + 5, end);

				if (n == end)
					return -EINVAL;
				out->name = arena_strndup(a, n, (size_t)(end - n));
			} else if (!strncmp(s, "ID:", 3)) {
				if (parse_int(s + 3, end, &v) || v < 0)
					return -EINVAL;
				out->id = (int)v;
				have_id = true;
			} else if (!strncmp(s, "format:", 7)) {
				in_format = true;
			}
			continue;
		}
		/* The print fmt may span lines; nothing after it is ours. */
		if (!strncmp(s, "print fmt:", 10))
			break;
		s = skip_ws(s, end);
		if (!strncmp(s, "field:", 6)) {
			struct tp_field *f = &out->fields[out->nfields];

			if (parse_field(a, s + 6, end, f))
				return -EINVAL;
			out->nfields++;
		}
	}
	if (!out->name || !have_id || !in_format)
		return -EINVAL;
	return 0;
}

/* A tracepoint's category or name from a script becomes a path
 * component; keep it one. */
static bool safe_component(const char *s)
{
	return *s && !strchr(s, '/') && strcmp(s, ".") && strcmp(s, "..");
}

int tfs_format_read(struct arena *a, const char *cat, const char *name,
		    struct tp_format *out)
{
	const char *root;
	char path[PATH_MAX], *text;
	int err;

	if (!safe_component(cat) || !safe_component(name))
		return -EINVAL;
	root = tfs_root();
	if (!root)
		return -errno;
	if (snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, cat,
		     name) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	err = read_file(path, &text, NULL);
	if (err)
		return err == -ENOTDIR ? -ENOENT : err;
	err = tfs_format_parse(a, text, out);
	free(text);
	if (err)
		return err;
	out->category = arena_strdup(a, cat);
	out->name = arena_strdup(a, name);
	return 0;
}

const struct tp_field *tfs_field(const struct tp_format *f, const char *name)
{
	for (int i = 0; i < f->nfields; i++)
		if (!strcmp(f->fields[i].name, name))
			return &f->fields[i];
	return NULL;
}

/* ---- the list of tracepoints ---------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static bool is_subdir(int dfd, const struct dirent *e)
{
	struct stat st;

	if (e->d_type != DT_UNKNOWN)
		return e->d_type == DT_DIR;
	return fstatat(dfd, e->d_name, &st, 0) == 0 && S_ISDIR(st.st_mode);
}

/* Without available_events, build the same "CAT:NAME\n" text from the
 * events/CAT/NAME directories.  ftrace's own events cannot be attached
 * to and are not in available_events, so they are left out here too. */
static int list_event_dirs(const char *root, char **out)
{
	char path[PATH_MAX];
	size_t len = 0, cap = 16384;
	char *buf = malloc(cap);
	struct dirent *c, *e;
	DIR *dc, *de;

	if (!buf)
		return -ENOMEM;
	snprintf(path, sizeof(path), "%s/events", root);
	dc = opendir(path);
	if (!dc) {
		int err = -errno;

		free(buf);
		return err;
	}
	while ((c = readdir(dc))) {
		if (c->d_name[0] == '.' || !strcmp(c->d_name, "ftrace") ||
		    !is_subdir(dirfd(dc), c))
			continue;
		snprintf(path, sizeof(path), "%s/events/%s", root, c->d_name);
		de = opendir(path);
		if (!de)
			continue;
		while ((e = readdir(de))) {
			size_t need;

			if (e->d_name[0] == '.' || !is_subdir(dirfd(de), e))
				continue;
			need = strlen(c->d_name) + strlen(e->d_name) + 3;
			if (len + need > cap) {
				char *nb;

				while (len + need > cap)
					cap *= 2;
				nb = realloc(buf, cap);
				if (!nb) {
					closedir(de);
					closedir(dc);
					free(buf);
					return -ENOMEM;
				}
				buf = nb;
			}
			len += (size_t)sprintf(buf + len, "%s:%s\n", c->d_name,
					       e->d_name);
		}
		closedir(de);
	}
	closedir(dc);
	buf[len] = '\0';
	*out = buf;
	return 0;
}

static int ev_list_load(struct ev_list *l)
{
	const char *root = tfs_root();
	char path[PATH_MAX], *s;
	size_t nlines = 1;
	int err;

	memset(l, 0, sizeof(*l));
	if (!root)
		return -errno;
	snprintf(path, sizeof(path), "%s/available_events", root);
	err = read_file(path, &l->buf, NULL);
	if (err == -ENOENT)
		err = list_event_dirs(root, &l->buf);
	if (err)
		return err;

	for (s = l->buf; *s; s++)
		nlines += *s == '\n';
	l->lines = malloc(nlines * sizeof(*l->lines));
	if (!l->lines) {
		ev_list_free(l);
		return -ENOMEM;
	}
	for (s = l->buf; *s;) {
		char *nl = strchrnul(s, '\n'), *next = *nl ? nl + 1 : nl;

		*nl = '\0';
		if (strchr(s, ':'))
			l->lines[l->n++] = s;
		s = next;
	}
	qsort(l->lines, l->n, sizeof(*l->lines), cmp_str);
	if (l->n > 1) {
		size_t w = 1;

		for (size_t i = 1; i < l->n; i++)
			if (strcmp(l->lines[i], l->lines[w - 1]))
				l->lines[w++] = l->lines[i];
		l->n = w;
	}
	return 0;
}

/* The one walk behind tfs_each and tfs_list: full_glob, when given, is
 * matched against the whole "CAT:NAME"; else each part against its own. */
static int ev_walk(const char *full_glob, const char *cat_glob,
		   const char *name_glob,
		   int (*cb)(const char *cat, const char *name, void *ctx),
		   void *ctx)
{
	struct ev_list *l = &ev_cache;
	int ret = 0;

	if (!ev_cached) {
		int err = ev_list_load(l);

		if (err)
			return err;
		ev_cached = true;
	}
	for (size_t i = 0; i < l->n && !ret; i++) {
		char *line = l->lines[i], *colon = strchr(line, ':');

		if (full_glob && fnmatch(full_glob, line, 0))
			continue;
		*colon = '\0';
		if ((!cat_glob || !fnmatch(cat_glob, line, 0)) &&
		    (!name_glob || !fnmatch(name_glob, colon + 1, 0)))
			ret = cb(line, colon + 1, ctx);
		*colon = ':';
	}
	return ret;
}

/* A tracepoint named without wildcards is looked up by its directory:
 * reading and sorting available_events (thousands of lines the kernel
 * formats on each read) once per probe made a script of 1,000 tracepoint
 * probes spend seconds in the kernel. */
static bool is_literal(const char *s)
{
	return s && !strpbrk(s, "*?[\\");
}

int tfs_each(const char *cat_glob, const char *name_glob,
	     int (*cb)(const char *cat, const char *name, void *ctx), void *ctx)
{
	if (is_literal(cat_glob) && is_literal(name_glob) && strcmp(cat_glob, "ftrace") &&
	    safe_component(cat_glob) && safe_component(name_glob)) {
		const char *root = tfs_root();
		char path[PATH_MAX];
		struct stat st;

		if (!root)
			return -errno;
		snprintf(path, sizeof(path), "%s/events/%s/%s/format", root, cat_glob, name_glob);
		if (stat(path, &st) == 0)
			return cb(cat_glob, name_glob, ctx);
		if (errno == ENOENT || errno == ENOTDIR)
			return -ENOENT;
		/* EACCES and the like: the listing says it as before */
	}
	return ev_walk(NULL, cat_glob, name_glob, cb, ctx);
}

/* ---- -l ------------------------------------------------------------- */

void tfs_list_entry(FILE *out, const char *cat, const char *name,
		    const struct tp_format *fmt)
{
	fprintf(out, "tracepoint:%s:%s\n", cat, name);
	if (!fmt)
		return;
	for (int i = 0; i < fmt->nfields; i++)
		if (!fmt->fields[i].is_common)
			fprintf(out, "    %s\n", fmt->fields[i].decl);
}

struct list_ctx {
	FILE *out;
	bool verbose;
	int count;
};

static int list_one(const char *cat, const char *name, void *ctx)
{
	struct list_ctx *lc = ctx;
	struct tp_format fmt;
	struct arena *a;
	int err;

	lc->count++;
	if (!lc->verbose) {
		tfs_list_entry(lc->out, cat, name, NULL);
		return 0;
	}
	a = arena_new();
	err = tfs_format_read(a, cat, name, &fmt);
	tfs_list_entry(lc->out, cat, name, err ? NULL : &fmt);
	if (err)
		fprintf(stderr, "sonde: tracepoint %s:%s: cannot read its format: %s\n",
			cat, name, strerror(-err));
	arena_free(a);
	return 0;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* Does a pattern's provider part name this provider: the name itself,
 * its short alias, or a glob that matches the name. */
static bool provider_is(const char *prov, size_t len, const char *name,
			const char *alias)
{
	char buf[64];

	if (len >= sizeof(buf))
		return false;
	memcpy(buf, prov, len);
	buf[len] = '\0';
	if (!strcmp(buf, name) || !strcmp(buf, alias))
		return true;
	return has_glob(buf) && !fnmatch(buf, name, 0);
}

int tfs_list(FILE *out, const char *pattern, bool verbose)
{
	struct list_ctx lc = { .out = out, .verbose = verbose };
	const char *colon, *rest, *c2;
	char *cat = NULL;
	int err;

	if (!pattern || !*pattern) {
		err = ev_walk(NULL, NULL, NULL, list_one, &lc);
	} else if (!(colon = strchr(pattern, ':'))) {
		/* bpftrace reads "sched*" as "*:sched*": any provider, and
		 * for tracepoints the glob covers "CAT:NAME". */
		err = ev_walk(pattern, NULL, NULL, list_one, &lc);
	} else {
		bool named = !strncmp(pattern, "tracepoint:", 11) ||
			     !strncmp(pattern, "t:", 2);

		if (!provider_is(pattern, (size_t)(colon - pattern),
				 "tracepoint", "t"))
			return 0;
		rest = colon + 1;
		c2 = strchr(rest, ':');
		if (named && (!c2 || strchr(c2 + 1, ':'))) {
			fprintf(stderr, "sonde: -l '%s': a tracepoint is "
				"tracepoint:CATEGORY:NAME\n", pattern);
			return -EINVAL;
		}
		if (!c2) {
			/* "*:sched*" is what "sched*" means */
			err = ev_walk(rest, NULL, NULL, list_one, &lc);
		} else if (strchr(c2 + 1, ':')) {
			return 0;
		} else {
			cat = strndup(rest, (size_t)(c2 - rest));
			if (!cat)
				return -ENOMEM;
			err = ev_walk(NULL, cat, c2 + 1, list_one, &lc);
			free(cat);
		}
	}
	if (err < 0) {
		if (!tfs_root() && errno == EACCES)
			fprintf(stderr, "sonde: -l: tracefs is mounted, but this user "
				"cannot read it (%s): listing tracepoints needs root\n",
				strerror(EACCES));
		else if (!tfs_root())
			fprintf(stderr, "sonde: -l: tracefs is not mounted, and "
				"mounting it on /sys/kernel/tracing failed: %s\n",
				strerror(-err));
		else
			fprintf(stderr, "sonde: -l: cannot read the tracepoint "
				"list in %s: %s\n", tfs_root(), strerror(-err));
		return err;
	}
	return lc.count;
}

/* ---- perf software and hardware events ------------------------------- */

/* bpftrace's tables: names, aliases and default periods.  bpf-output is
 * listed and accepted as bpftrace does, though only bpf_perf_event_output
 * makes it fire. */
static const struct tfs_swevent sw_events[] = {
	{ "alignment-faults", NULL,     PERF_COUNT_SW_ALIGNMENT_FAULTS,  1 },
	{ "bpf-output",       NULL,     PERF_COUNT_SW_BPF_OUTPUT,        1 },
	{ "context-switches", "cs",     PERF_COUNT_SW_CONTEXT_SWITCHES,  1000 },
	{ "cpu-clock",        "cpu",    PERF_COUNT_SW_CPU_CLOCK,         1000000 },
	{ "cpu-migrations",   NULL,     PERF_COUNT_SW_CPU_MIGRATIONS,    1 },
	{ "dummy",            NULL,     PERF_COUNT_SW_DUMMY,             1 },
	{ "emulation-faults", NULL,     PERF_COUNT_SW_EMULATION_FAULTS,  1 },
	{ "major-faults",     NULL,     PERF_COUNT_SW_PAGE_FAULTS_MAJ,   1 },
	{ "minor-faults",     NULL,     PERF_COUNT_SW_PAGE_FAULTS_MIN,   100 },
	{ "page-faults",      "faults", PERF_COUNT_SW_PAGE_FAULTS,       100 },
	{ "task-clock",       NULL,     PERF_COUNT_SW_TASK_CLOCK,        1 },
};
#define N_SW_EVENTS (sizeof(sw_events) / sizeof(sw_events[0]))

/* hardware: the CPU's performance counters (PERF_TYPE_HARDWARE) */
static const struct tfs_swevent hw_events[] = {
	{ "backend-stalls",      NULL,       PERF_COUNT_HW_STALLED_CYCLES_BACKEND,  1000000 },
	{ "branch-instructions", "branches", PERF_COUNT_HW_BRANCH_INSTRUCTIONS,     100000 },
	{ "branch-misses",       NULL,       PERF_COUNT_HW_BRANCH_MISSES,           100000 },
	{ "bus-cycles",          NULL,       PERF_COUNT_HW_BUS_CYCLES,              100000 },
	{ "cache-misses",        NULL,       PERF_COUNT_HW_CACHE_MISSES,            1000000 },
	{ "cache-references",    NULL,       PERF_COUNT_HW_CACHE_REFERENCES,        1000000 },
	{ "cpu-cycles",          "cycles",   PERF_COUNT_HW_CPU_CYCLES,              1000000 },
	{ "frontend-stalls",     NULL,       PERF_COUNT_HW_STALLED_CYCLES_FRONTEND, 1000000 },
	{ "instructions",        NULL,       PERF_COUNT_HW_INSTRUCTIONS,            1000000 },
	{ "ref-cycles",          NULL,       PERF_COUNT_HW_REF_CPU_CYCLES,          1000000 },
};
#define N_HW_EVENTS (sizeof(hw_events) / sizeof(hw_events[0]))

static const struct tfs_swevent *find_event(const struct tfs_swevent *ev, size_t n,
					    const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(ev[i].name, name) || (ev[i].alias && !strcmp(ev[i].alias, name)))
			return &ev[i];
	return NULL;
}

const struct tfs_swevent *tfs_software_event(const char *name)
{
	return find_event(sw_events, N_SW_EVENTS, name);
}

const struct tfs_swevent *tfs_hardware_event(const char *name)
{
	return find_event(hw_events, N_HW_EVENTS, name);
}

/* bpftrace sorts "NAME:" strings, so "cpu-clock:" comes before "cpu:". */
static int cmp_sw_name(const void *a, const void *b)
{
	const char *x = *(const char *const *)a, *y = *(const char *const *)b;

	for (; *x && *x == *y; x++, y++)
		;
	return (unsigned char)(*x ? *x : ':') - (unsigned char)(*y ? *y : ':');
}

/* -l for one table of perf events under provider `prov` (alias `alias`) */
static int list_events(FILE *out, const char *pattern, const char *prov, const char *alias,
		       const struct tfs_swevent *ev, size_t nev)
{
	const char *names[2 * (N_SW_EVENTS > N_HW_EVENTS ? N_SW_EVENTS : N_HW_EVENTS)], *colon;
	char *glob = NULL;
	size_t n = 0;
	int count = 0;

	if (pattern && *pattern && (colon = strchr(pattern, ':'))) {
		const char *end;

		if (!provider_is(pattern, (size_t)(colon - pattern), prov, alias))
			return 0;
		end = strchrnul(colon + 1, ':');
		glob = strndup(colon + 1, (size_t)(end - colon - 1));
		if (!glob)
			return -ENOMEM;
	} else if (pattern && *pattern) {
		glob = strdup(pattern);
		if (!glob)
			return -ENOMEM;
	}

	for (size_t i = 0; i < nev; i++) {
		names[n++] = ev[i].name;
		if (ev[i].alias)
			names[n++] = ev[i].alias;
	}
	qsort(names, n, sizeof(names[0]), cmp_sw_name);
	for (size_t i = 0; i < n; i++) {
		if (glob && fnmatch(glob, names[i], 0))
			continue;
		fprintf(out, "%s:%s:\n", prov, names[i]);
		count++;
	}
	free(glob);
	return count;
}

int tfs_list_software(FILE *out, const char *pattern)
{
	return list_events(out, pattern, "software", "s", sw_events, N_SW_EVENTS);
}

int tfs_list_hardware(FILE *out, const char *pattern)
{
	return list_events(out, pattern, "hardware", "h", hw_events, N_HW_EVENTS);
}

bool tfs_have_pmu(void)
{
	return access("/sys/bus/event_source/devices/cpu", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/cpu_core", F_OK) == 0 ||
	       access("/sys/bus/event_source/devices/armv8_pmuv3_0", F_OK) == 0;
}

/* the kprobe PMU; a tracefs root given by tfs_set_root (a test's fake
 * tree) answers by its own kprobe_events file, as tracefs has one exactly
 * when the kernel has kprobe events */
bool tfs_have_kprobes(void)
{
	if (root_set) {
		char p[PATH_MAX];
		snprintf(p, sizeof(p), "%s/kprobe_events", root_path);
		return access(p, F_OK) == 0;
	}
	return access("/sys/bus/event_source/devices/kprobe", F_OK) == 0;
}
