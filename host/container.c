/*
 * container.c - containers as the cgroup v2 tree names them.
 *
 * There is no kernel object called "container": engines put each one in a
 * cgroup whose directory name carries the container id, and that is the
 * only place the id and the kernel's view meet.  So `--container ID` walks
 * the v2 tree for directories named the way docker, containerd, CRI-O and
 * podman name them (docker-<id>.scope, cri-containerd-<id>.scope,
 * crio-<id>.scope, libpod-<id>.scope, and the cgroupfs-driver /docker/<id>),
 * and gives back the directory's inode, which is the cgroup id BPF sees
 * (bpf_get_current_cgroup_id), its depth (for the ancestor-id check that
 * also covers child cgroups), and its member pids for resolving uprobe
 * targets.  The reverse direction, cgroup id -> short container id for the
 * `container` builtin, runs at print time: open_by_handle_at on cgroupfs
 * turns an id into a directory in one call; a tree walk is the fallback
 * (and what tests use, pointing the root at a temporary directory).
 *
 * The v2 mount is found in /proc/self/mountinfo: /sys/fs/cgroup on unified
 * hosts, /sys/fs/cgroup/unified on hybrid ones such as this one.
 */
#include "host/host_int.h"
#include "common/arena.h"
#include "common/file.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>

bool rs_pidns_self(uint64_t *dev, uint64_t *ino)
{
	struct stat st;
	if (stat("/proc/self/ns/pid", &st))
		return false;
	*dev = (uint64_t)st.st_dev;
	*ino = (uint64_t)st.st_ino;
	return true;
}

#define CGROUP2_MAGIC 0x63677270
#define MAX_DEPTH 48	/* real trees are < 10 deep; bounds a hostile one */



int rs_cgroup2_root(char *buf, size_t len)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	char *line = NULL;
	size_t cap = 0;
	int ret = -ENOENT;

	if (!f)
		return -errno;
	while (getline(&line, &cap, f) >= 0) {
		/* id parent maj:min root mountpoint opts [optional...] - fstype src superopts */
		char *sep = strstr(line, " - "), *save = NULL, *tok;
		char *mnt = NULL;
		int i = 0;

		if (!sep || strncmp(sep + 3, "cgroup2 ", 8) != 0)
			continue;
		*sep = '\0';
		for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save))
			if (i++ == 4)
				mnt = tok;
		if (!mnt)
			continue;
		file_unescape_octal(mnt);
		if (strlen(mnt) >= len) {
			ret = -ENAMETOOLONG;
			continue;
		}
		strcpy(buf, mnt);
		ret = 0;
		break;
	}
	free(line);
	fclose(f);
	return ret;
}

static bool is_hex_n(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!isxdigit((unsigned char)s[i]) || isupper((unsigned char)s[i]))
			return false;
	return true;
}

static const struct {
	const char *prefix, *engine;
} engines[] = {
	{ "docker-", "docker" },
	{ "cri-containerd-", "containerd" },
	{ "crio-", "crio" },
	{ "libpod-", "podman" },
};

const char *rs_container_id_of(const char *name, const char *parent, char id[65])
{
	size_t len = strlen(name);

	for (size_t i = 0; i < sizeof(engines) / sizeof(engines[0]); i++) {
		size_t pl = strlen(engines[i].prefix);
		const char *p = name + pl;
		size_t rest;

		if (strncmp(name, engines[i].prefix, pl) != 0)
			continue;
		rest = len - pl;
		/* "<id>.scope" (systemd driver) or "<id>" (cgroupfs driver);
		 * crio-conmon-<id> and libpod-conmon-<id> fail the hex test */
		if (!(rest == 64 || (rest == 70 && strcmp(p + 64, ".scope") == 0)))
			continue;
		if (!is_hex_n(p, 64))
			continue;
		memcpy(id, p, 64);
		id[64] = '\0';
		return engines[i].engine;
	}
	/* cgroupfs naming: /docker/<id>, /kubepods/.../pod<uid>/<id> */
	if (len == 64 && is_hex_n(name, 64)) {
		memcpy(id, name, 65);
		return parent && strcmp(parent, "docker") == 0 ? "docker" : "cri";
	}
	return NULL;
}

/* ---- walking the tree ----------------------------------------------------- */

struct walk_ent {
	const char *rel;	/* "/system.slice/docker-x.scope" ("" for the root) */
	const char *name, *parent;
	int level;
	uint64_t ino;
};

/* Depth-first over directories (symlinks are not followed); stops when
 * visit returns non-zero and returns that. */
static int walk_dir(char *abs, size_t abslen, size_t rootlen, const char *parent,
		    int level, int (*visit)(const struct walk_ent *, void *), void *ctx)
{
	DIR *d;
	struct dirent *de;
	int ret = 0;

	if (level > MAX_DEPTH)
		return 0;
	d = opendir(abs);
	if (!d)
		return 0;	/* removed under us, or unreadable */
	while (!ret && (de = readdir(d))) {
		size_t at = strlen(abs), nl = strlen(de->d_name);
		struct stat st;
		struct walk_ent we;

		if (de->d_name[0] == '.' &&
		    (!de->d_name[1] || (de->d_name[1] == '.' && !de->d_name[2])))
			continue;
		if (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN)
			continue;
		if (at + 1 + nl >= abslen)
			continue;
		abs[at] = '/';
		memcpy(abs + at + 1, de->d_name, nl + 1);
		if (lstat(abs, &st) == 0 && S_ISDIR(st.st_mode)) {
			we.rel = abs + rootlen;
			we.name = abs + at + 1;
			we.parent = parent;
			we.level = level;
			we.ino = st.st_ino;
			ret = visit(&we, ctx);
			if (!ret) {
				char pname[256];
				snprintf(pname, sizeof(pname), "%s", de->d_name);
				ret = walk_dir(abs, abslen, rootlen, pname, level + 1,
					       visit, ctx);
			}
		}
		abs[at] = '\0';
	}
	closedir(d);
	return ret;
}

static int walk_tree(const char *root, int (*visit)(const struct walk_ent *, void *),
		     void *ctx)
{
	char *abs = malloc(RS_PATH_MAX);
	size_t rl = strlen(root);
	int ret;

	if (!abs)
		return -ENOMEM;
	/* "/" as root would make every rel start without a slash */
	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	if (rl >= RS_PATH_MAX) {
		free(abs);
		return -ENAMETOOLONG;
	}
	memcpy(abs, root, rl);
	abs[rl] = '\0';
	ret = walk_dir(abs, RS_PATH_MAX, rl, "", 1, visit, ctx);
	free(abs);
	return ret;
}

/* ---- rs_container_find ------------------------------------------------- */

struct found {
	char id[65];
	const char *engine;
	char *rel;
	char *name;
	int level;
	uint64_t ino;
};

struct find_ctx {
	const char *prefix;	/* NULL: collect every container */
	struct found *v;
	size_t n;
	bool oom;
};

static int find_visit(const struct walk_ent *we, void *ctx)
{
	struct find_ctx *fc = ctx;
	char id[65];
	const char *engine = rs_container_id_of(we->name, we->parent, id);
	struct found *f;

	if (!engine)
		return 0;
	if (fc->prefix && strncmp(id, fc->prefix, strlen(fc->prefix)) != 0)
		return 0;
	/* one container shows up once, at its outermost directory */
	for (size_t i = 0; i < fc->n; i++)
		if (strcmp(fc->v[i].id, id) == 0)
			return 0;
	fc->v = vec_grow(fc->v, fc->n, sizeof(*fc->v));
	f = &fc->v[fc->n++];
	memcpy(f->id, id, sizeof(id));
	f->engine = engine;
	f->rel = strdup(we->rel);
	f->name = strdup(we->name);
	f->level = we->level;
	f->ino = we->ino;
	if (!f->rel || !f->name) {
		fc->oom = true;
		return -ENOMEM;
	}
	return 0;
}

static void find_ctx_free(struct find_ctx *fc)
{
	for (size_t i = 0; i < fc->n; i++) {
		free(fc->v[i].rel);
		free(fc->v[i].name);
	}
	free(fc->v);
}

/* "docker-0123456789ab…" for messages: enough to tell candidates apart */
static void describe(char *buf, size_t len, const struct found *f)
{
	const char *at = strstr(f->name, f->id);
	int pre = at ? (int)(at - f->name) : 0;
	snprintf(buf, len, "%.*s%.12s\u2026", pre, f->name, f->id);
}

static void list_candidates(char *out, size_t outlen, const struct found *v, size_t n)
{
	size_t used = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n && used + 1 < outlen; i++) {
		char d[128];
		if (i == 8) {
			snprintf(out + used, outlen - used, ", and %zu more", n - i);
			return;
		}
		describe(d, sizeof(d), &v[i]);
		used += (size_t)snprintf(out + used, outlen - used, "%s%s",
					 i ? ", " : "", d);
	}
}

static int new_container(const char *root, const char *rel, const char *id,
			 const char *engine, int level, uint64_t ino,
			 struct rs_container **out)
{
	struct rs_container *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	snprintf(c->id, sizeof(c->id), "%s", id);
	c->engine = engine;
	c->path = strdup(*rel ? rel : "/");
	c->dir = malloc(strlen(root) + strlen(rel) + 1);
	if (!c->path || !c->dir) {
		rs_container_free(c);
		return -ENOMEM;
	}
	strcpy(c->dir, root);
	strcat(c->dir, rel);
	c->level = level;
	c->cgroup_id = ino;
	*out = c;
	return 0;
}

static int find_by_path(const char *root, const char *spec,
			struct rs_container **out, char *err, size_t errlen)
{
	size_t rl = strlen(root);
	const char *rel = spec;
	char *abs, *p;
	struct stat st;
	char id[65] = "";
	const char *engine = "cgroup";
	int level = 0, ret;

	while (rl > 1 && root[rl - 1] == '/')
		rl--;
	/* accept the absolute directory as well as the path below the root */
	if (strncmp(spec, root, rl) == 0 && (spec[rl] == '/' || spec[rl] == '\0'))
		rel = spec + rl;
	abs = malloc(rl + strlen(rel) + 2);
	if (!abs)
		return -ENOMEM;
	sprintf(abs, "%.*s%s%s", (int)rl, root, rel[0] == '/' ? "" : "/", rel);
	/* normalise: no "..", no trailing slash, no empty components */
	if (strstr(abs + rl, "/../") || (strlen(abs) >= 3 && !strcmp(abs + strlen(abs) - 3, "/.."))) {
		rs_set_err(err, errlen, "cgroup path '%s' must not contain '..'", spec);
		free(abs);
		return -EINVAL;
	}
	while (strlen(abs) > rl + 1 && abs[strlen(abs) - 1] == '/')
		abs[strlen(abs) - 1] = '\0';
	if (lstat(abs, &st) < 0 || !S_ISDIR(st.st_mode)) {
		rs_set_err(err, errlen, "cgroup path '%s' does not exist under %.*s", spec,
			(int)rl, root);
		free(abs);
		return -ENOENT;
	}
	/* the innermost component that names a container gives the id */
	{
		char *copy = strdup(abs + rl), *save = NULL, *prev = NULL, *tok;
		if (!copy) {
			free(abs);
			return -ENOMEM;
		}
		for (tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
			char tid[65];
			const char *e = rs_container_id_of(tok, prev ? prev : "", tid);
			level++;
			if (e) {
				memcpy(id, tid, sizeof(id));
				engine = e;
			}
			prev = tok;
		}
		free(copy);
	}
	p = abs + rl;
	ret = new_container(root, p, id, engine, level, st.st_ino, out);
	free(abs);
	return ret;
}

int rs_container_find(const char *cgroot, const char *spec,
		      struct rs_container **out, char *err, size_t errlen)
{
	char rootbuf[RS_PATH_MAX], prefix[65];
	struct find_ctx fc = { 0 };
	size_t sl;
	int ret;

	*out = NULL;
	if (!spec || !*spec) {
		rs_set_err(err, errlen, "empty container id");
		return -EINVAL;
	}
	if (!cgroot) {
		if (rs_cgroup2_root(rootbuf, sizeof(rootbuf))) {
			rs_set_err(err, errlen, "no cgroup v2 hierarchy is mounted, so "
				"containers cannot be found");
			return -ENOENT;
		}
		cgroot = rootbuf;
	}
	if (strchr(spec, '/'))
		return find_by_path(cgroot, spec, out, err, errlen);

	sl = strlen(spec);
	if (sl > 64) {
		rs_set_err(err, errlen, "container id '%s' is longer than 64 characters", spec);
		return -EINVAL;
	}
	for (size_t i = 0; i < sl; i++)
		prefix[i] = (char)tolower((unsigned char)spec[i]);
	prefix[sl] = '\0';
	if (!is_hex_n(prefix, sl)) {
		rs_set_err(err, errlen, "'%s' is neither a container id (hex digits) "
			"nor a cgroup path", spec);
		return -EINVAL;
	}
	if (sl < 4) {
		rs_set_err(err, errlen, "container id '%s' is too short: give at least "
			"4 characters", spec);
		return -EINVAL;
	}
	fc.prefix = prefix;
	ret = walk_tree(cgroot, find_visit, &fc);
	if (ret || fc.oom) {
		find_ctx_free(&fc);
		rs_set_err(err, errlen, "out of memory searching %s", cgroot);
		return -ENOMEM;
	}
	if (fc.n == 1) {
		ret = new_container(cgroot, fc.v[0].rel, fc.v[0].id, fc.v[0].engine,
				    fc.v[0].level, fc.v[0].ino, out);
	} else if (fc.n > 1) {
		char list[1024];
		list_candidates(list, sizeof(list), fc.v, fc.n);
		rs_set_err(err, errlen, "container id '%s' is ambiguous: %s", spec, list);
		ret = -EINVAL;
	} else {
		struct find_ctx all = { 0 };
		char list[1024];
		walk_tree(cgroot, find_visit, &all);
		list_candidates(list, sizeof(list), all.v, all.n);
		if (all.n)
			rs_set_err(err, errlen, "no container id starts with '%s'; "
				"containers here: %s", spec, list);
		else
			rs_set_err(err, errlen, "no container id starts with '%s': no "
				"containers found under %s", spec, cgroot);
		find_ctx_free(&all);
		ret = -ENOENT;
	}
	find_ctx_free(&fc);
	return ret;
}

void rs_container_free(struct rs_container *c)
{
	if (!c)
		return;
	free(c->path);
	free(c->dir);
	free(c);
}

/* ---- member pids ---------------------------------------------------------- */

struct pids {
	int *v;
	size_t n;
	bool oom;
};

static void read_procs(const char *dir, struct pids *p)
{
	char fn[RS_PATH_MAX + 16];
	FILE *f;
	long v;

	snprintf(fn, sizeof(fn), "%s/cgroup.procs", dir);
	f = fopen(fn, "re");
	if (!f)
		return;
	while (fscanf(f, "%ld", &v) == 1) {
		if (v <= 0 || v > 0x3fffffff)
			continue;
		p->v = vec_grow(p->v, p->n, sizeof(*p->v));
		p->v[p->n++] = (int)v;
	}
	fclose(f);
}

struct pids_walk {
	const char *root;
	struct pids *p;
};

static int pids_visit(const struct walk_ent *we, void *ctx)
{
	struct pids_walk *pw = ctx;
	char *abs = malloc(strlen(pw->root) + strlen(we->rel) + 1);
	if (!abs)
		return -ENOMEM;
	strcpy(abs, pw->root);
	strcat(abs, we->rel);
	read_procs(abs, pw->p);
	free(abs);
	return pw->p->oom ? -ENOMEM : 0;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

int rs_container_pids(const struct rs_container *c, int **pids, size_t *n)
{
	struct pids p = { 0 };
	struct pids_walk pw = { .root = c->dir, .p = &p };
	size_t w = 0;

	*pids = NULL;
	*n = 0;
	read_procs(c->dir, &p);
	if (!p.oom)
		walk_tree(c->dir, pids_visit, &pw);
	if (p.oom) {
		free(p.v);
		return -ENOMEM;
	}
	if (p.n) {
		qsort(p.v, p.n, sizeof(int), cmp_int);
		for (size_t i = 0; i < p.n; i++)
			if (!w || p.v[w - 1] != p.v[i])
				p.v[w++] = p.v[i];
	}
	*pids = p.v;
	*n = w;
	return 0;
}

/* ---- cgroup id -> path / container --------------------------------------- */

struct cg_ent {
	uint64_t id;
	char *path;		/* NULL: not found */
	char short_id[13];
};

struct rs_cgcache {
	char *root;
	int mntfd;		/* for open_by_handle_at; -1 if unusable */
	int handle_type;
	struct cg_ent *v;
	size_t n;
};

struct rs_cgcache *rs_cgcache_new(const char *cgroot)
{
	struct rs_cgcache *c = calloc(1, sizeof(*c));
	char buf[RS_PATH_MAX];
	struct statfs sf;

	if (!c)
		return NULL;
	c->mntfd = -1;
	if (!cgroot) {
		if (rs_cgroup2_root(buf, sizeof(buf)) == 0)
			cgroot = buf;
		else
			cgroot = "";
	}
	c->root = strdup(cgroot);
	if (!c->root) {
		free(c);
		return NULL;
	}
	/* only real cgroupfs turns ids into directories by handle */
	if (*cgroot && statfs(cgroot, &sf) == 0 && sf.f_type == CGROUP2_MAGIC) {
		struct {
			struct file_handle fh;
			unsigned char buf[64];
		} h;
		int mount_id;
		h.fh.handle_bytes = sizeof(h.buf);
		if (name_to_handle_at(AT_FDCWD, cgroot, &h.fh, &mount_id, 0) == 0 &&
		    h.fh.handle_bytes == 8) {
			c->handle_type = h.fh.handle_type;
			c->mntfd = open(cgroot, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		}
	}
	return c;
}

void rs_cgcache_free(struct rs_cgcache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->n; i++)
		free(c->v[i].path);
	free(c->v);
	if (c->mntfd >= 0)
		close(c->mntfd);
	free(c->root);
	free(c);
}

static char *path_by_handle(struct rs_cgcache *c, uint64_t id)
{
	struct {
		struct file_handle fh;
		unsigned char buf[8];
	} h;
	char link[64], *target;
	ssize_t n;
	size_t rl;
	int fd;

	if (c->mntfd < 0)
		return NULL;
	h.fh.handle_bytes = 8;
	h.fh.handle_type = c->handle_type;
	memcpy(h.fh.f_handle, &id, 8);
	fd = open_by_handle_at(c->mntfd, &h.fh, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	target = malloc(RS_PATH_MAX);
	n = target ? readlink(link, target, RS_PATH_MAX - 1) : -1;
	close(fd);
	if (n <= 0) {
		free(target);
		return NULL;
	}
	target[n] = '\0';
	rl = strlen(c->root);
	if (strncmp(target, c->root, rl) == 0 && (target[rl] == '/' || !target[rl]))
		memmove(target, target + rl, (size_t)n - rl + 1);
	if (!target[0])
		strcpy(target, "/");
	return target;
}

struct ino_find {
	uint64_t id;
	char *rel;
};

static int ino_visit(const struct walk_ent *we, void *ctx)
{
	struct ino_find *f = ctx;
	if (we->ino != f->id)
		return 0;
	f->rel = strdup(we->rel);
	return 1;
}

static char *path_by_walk(struct rs_cgcache *c, uint64_t id)
{
	struct ino_find f = { .id = id };
	struct stat st;

	if (!*c->root)
		return NULL;
	if (stat(c->root, &st) == 0 && st.st_ino == id)
		return strdup("/");
	walk_tree(c->root, ino_visit, &f);
	return f.rel;
}

static void short_id_of(const char *path, char out[13])
{
	char *copy = strdup(path), *save = NULL, *prev = NULL, *tok;
	out[0] = '\0';
	if (!copy)
		return;
	for (tok = strtok_r(copy, "/", &save); tok; tok = strtok_r(NULL, "/", &save)) {
		char id[65];
		if (rs_container_id_of(tok, prev ? prev : "", id))
			snprintf(out, 13, "%.12s", id);	/* innermost wins */
		prev = tok;
	}
	free(copy);
}

static struct cg_ent *cg_lookup(struct rs_cgcache *c, uint64_t id)
{
	struct cg_ent *e;

	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].id == id)
			return &c->v[i];
	c->v = vec_grow(c->v, c->n, sizeof(*c->v));
	e = &c->v[c->n];
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->path = path_by_handle(c, id);
	if (!e->path)
		e->path = path_by_walk(c, id);
	/* ids are not reused, so a miss (cgroup already gone) stays a miss */
	if (e->path)
		short_id_of(e->path, e->short_id);
	c->n++;
	return e;
}

const char *rs_cgroup_container(struct rs_cgcache *c, uint64_t cgid)
{
	struct cg_ent *e = c ? cg_lookup(c, cgid) : NULL;
	return e ? e->short_id : "";
}

const char *rs_cgroup_path(struct rs_cgcache *c, uint64_t cgid)
{
	struct cg_ent *e = c ? cg_lookup(c, cgid) : NULL;
	return e ? e->path : NULL;
}
