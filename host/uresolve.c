/*
 * uresolve.c - uprobe targets: from what the user wrote to (file, offset)
 * pairs the kernel can attach to, in the right mount namespace.
 *
 * A uprobe lives on an inode, so the question is always "which inode do the
 * processes I care about execute?".  The answer comes from those processes:
 *
 *   -p PID / --container ID   the target (absolute path, the process's own
 *                             executable, a library short name, a binary in
 *                             the process's PATH) is looked up in each
 *                             process's /proc/PID/maps and, when not mapped,
 *                             inside /proc/PID/root;
 *   library short name        every distinct file that running processes
 *                             map under that name, host and containers
 *                             alike, then the host's ld.so cache;
 *   absolute path / binary    the host's file, with a warning when processes
 *                             in other mount namespaces map a different file
 *                             at that path.
 *
 * Files are opened once (through /proc/PID/map_files or in-root resolution,
 * see procmaps.c) and kept open: the attach path handed to the kernel is
 * /proc/self/fd/N, which names exactly the inode that was checked, even if
 * the process exits or the path is replaced before the probe is attached.
 * Files are deduplicated by the inode the kernel will probe: on overlayfs,
 * two containers from one image map the same lower-layer file through two
 * overlay inodes, and probing both would fire twice per call, so the
 * overlay's layers (from the process's mountinfo) name the real file.
 */
#include "host/host_int.h"
#include "common/explain.h"
#include "common/arena.h"

#include <ctype.h>
#include <dirent.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
#define PIDS_SHOWN 6

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


static void note(struct rctx *r, enum rs_note_level lvl, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void note(struct rctx *r, enum rs_note_level lvl, const char *fmt, ...)
{
	char buf[1024];
	va_list ap;
	if (!r->q->note)
		return;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	r->q->note(r->q->note_ctx, lvl, buf);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

static bool ends_with(const char *s, const char *suf)
{
	size_t a = strlen(s), b = strlen(suf);
	return a >= b && strcmp(s + a - b, suf) == 0;
}

/* "6", "1.0", "12.2.140" */
static bool is_version(const char *s, size_t n)
{
	if (n == 0 || !isdigit((unsigned char)s[0]))
		return false;
	for (size_t i = 0; i < n; i++)
		if (!isdigit((unsigned char)s[i]) && s[i] != '.')
			return false;
	return true;
}

bool rs_libname_match(const char *name, const char *base)
{
	size_t nl;
	const char *r;

	if (!name || !*name || strchr(name, '/') || !base)
		return false;
	if (strcmp(base, name) == 0)
		return true;
	nl = strlen(name);
	if (strncmp(base, name, nl) == 0) {
		r = base + nl;
		if (strcmp(r, ".so") == 0)
			return true;
		if (strncmp(r, ".so.", 4) == 0 && is_version(r + 4, strlen(r + 4)))
			return true;
		if (r[0] == '-' && ends_with(r, ".so") && is_version(r + 1, strlen(r) - 4))
			return true;
	}
	/* musl's libc is its dynamic linker; alpine containers map only that */
	if (strcmp(name, "libc") == 0 && strncmp(base, "ld-musl-", 8) == 0 &&
	    ends_with(base, ".so.1"))
		return true;
	return false;
}

/* ---- processes -------------------------------------------------------- */

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static int all_pids(int **out, size_t *n)
{
	DIR *d = opendir("/proc");
	struct dirent *de;
	int *v = NULL;
	size_t cnt = 0;

	*out = NULL;
	*n = 0;
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || pid > INT_MAX)
			continue;
		v = vec_grow(v, cnt, sizeof(*v));
		v[cnt++] = (int)pid;
	}
	closedir(d);
	if (cnt)
		qsort(v, cnt, sizeof(int), cmp_int);
	*out = v;
	*n = cnt;
	return 0;
}

int rs_pids(int **out, size_t *n)
{
	return all_pids(out, n);
}

static bool pid_exists(int pid)
{
	char fn[64];
	snprintf(fn, sizeof(fn), "/proc/%d/stat", pid);
	return access(fn, F_OK) == 0;
}

/* Exited but not yet reaped: /proc/PID stays, its maps are empty. */
static bool pid_is_zombie(int pid)
{
	char fn[64], buf[512], *rp;
	FILE *f;
	size_t n;

	snprintf(fn, sizeof(fn), "/proc/%d/stat", pid);
	if (!(f = fopen(fn, "re")))
		return false;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	/* "PID (COMM) S ...": comm may hold ") ", so take the last ')' */
	rp = strrchr(buf, ')');
	return rp && (rp[1] == ' ') && (rp[2] == 'Z' || rp[2] == 'X');
}

static void pid_comm(int pid, char *buf, size_t len)
{
	char fn[64];
	FILE *f;
	snprintf(fn, sizeof(fn), "/proc/%d/comm", pid);
	buf[0] = '\0';
	f = fopen(fn, "re");
	if (!f)
		return;
	if (fgets(buf, (int)len, f))
		buf[strcspn(buf, "\n")] = '\0';
	fclose(f);
}

/* Does pid see paths as we do (same mount namespace and root)? */
static bool same_view(int pid)
{
	char a[64], b[64], fn[64];
	struct stat r1, r2;
	ssize_t n1, n2;

	snprintf(fn, sizeof(fn), "/proc/%d/ns/mnt", pid);
	n1 = readlink(fn, a, sizeof(a) - 1);
	n2 = readlink("/proc/self/ns/mnt", b, sizeof(b) - 1);
	if (n1 < 0 || n2 < 0 || n1 != n2 || memcmp(a, b, (size_t)n1))
		return false;
	snprintf(fn, sizeof(fn), "/proc/%d/root", pid);
	return stat(fn, &r1) == 0 && stat("/", &r2) == 0 &&
	       r1.st_dev == r2.st_dev && r1.st_ino == r2.st_ino;
}

/* "1 (systemd), 77 (bash) and 12 more" */
static void describe_pids(char *buf, size_t len, const int *pids, size_t n)
{
	size_t used = 0;
	buf[0] = '\0';
	for (size_t i = 0; i < n && i < PIDS_SHOWN && used < len; i++) {
		char comm[32];
		pid_comm(pids[i], comm, sizeof(comm));
		used += (size_t)snprintf(buf + used, len - used, "%s%d%s%s%s",
					 i ? ", " : "", pids[i], *comm ? " (" : "",
					 comm, *comm ? ")" : "");
	}
	if (n > PIDS_SHOWN && used < len)
		snprintf(buf + used, len - used, " and %zu more", n - PIDS_SHOWN);
}

/* PATH from the process's initial environment, or the usual default */
static char *proc_path_env(int pid)
{
	char fn[64], *buf = NULL, *res = NULL;
	size_t cap = 0, n = 0;
	FILE *f;

	snprintf(fn, sizeof(fn), "/proc/%d/environ", pid);
	f = fopen(fn, "re");
	if (f) {
		ssize_t got;
		while ((got = getdelim(&buf, &cap, '\0', f)) > 0) {
			n++;
			if (strncmp(buf, "PATH=", 5) == 0) {
				res = strdup(buf + 5);
				break;
			}
		}
		fclose(f);
		free(buf);
	}
	return res ? res : strdup(DEFAULT_PATH);
}

/* ---- candidates ---------------------------------------------------------- */

static bool seen(const struct rctx *r, struct key k)
{
	const struct rs_sites_priv *p;
	if (!r->s)
		return false;
	p = r->s->priv;
	for (size_t i = 0; i < p->nseen; i++)
		if (p->seen[i].dev == k.dev && p->seen[i].ino == k.ino)
			return true;
	return false;
}

static void mark_seen(struct rctx *r, struct key k)
{
	struct rs_sites_priv *p;
	if (!r->s || seen(r, k))
		return;
	p = r->s->priv;
	p->seen = vec_grow(p->seen, p->nseen, sizeof(*p->seen));
	p->seen[p->nseen++] = k;
}

static void cand_add_pid(struct rctx *r, struct cand *c, int pid)
{
	if (pid <= 0)
		return;
	for (size_t i = 0; i < c->npids; i++)
		if (c->pids[i] == pid)
			return;
	c->pids = vec_grow(c->pids, c->npids, sizeof(*c->pids));
	c->pids[c->npids++] = pid;
}

static void alias_add(struct rctx *r, struct key k, size_t idx)
{
	r->al = vec_grow(r->al, r->nal, sizeof(*r->al));
	r->al[r->nal++] = (struct alias){ k, idx };
}

static struct cand *alias_find(struct rctx *r, struct key k)
{
	for (size_t i = 0; i < r->nal; i++)
		if (r->al[i].map.dev == k.dev && r->al[i].map.ino == k.ino)
			return &r->c[r->al[i].cand];
	return NULL;
}

/* Take ownership of fd: add a new candidate file, or merge into the one
 * with the same real inode.  root NULL: host view. */
static struct cand *cand_add(struct rctx *r, int fd, int pid, const char *path,
			     const char *display, bool host, bool deleted)
{
	struct stat st;
	struct key mk, real;
	struct cand *c;

	if (fstat(fd, &st) < 0) {
		close(fd);
		return NULL;
	}
	mk = (struct key){ st.st_dev, st.st_ino };
	if ((c = alias_find(r, mk))) {
		close(fd);
		cand_add_pid(r, c, pid);
		return c;
	}
	/* two overlay mounts can show one lower-layer file as two inodes */
	if (rs_real_inode(host ? 0 : pid, path, fd, &real.dev, &real.ino) < 0)
		real = mk;
	if (seen(r, mk) || seen(r, real)) {
		close(fd);
		return NULL;
	}
	for (size_t i = 0; i < r->nc; i++) {
		if (r->c[i].real.dev == real.dev && r->c[i].real.ino == real.ino) {
			close(fd);
			alias_add(r, mk, i);
			cand_add_pid(r, &r->c[i], pid);
			return &r->c[i];
		}
	}
	r->c = vec_grow(r->c, r->nc, sizeof(*r->c));
	c = &r->c[r->nc];
	memset(c, 0, sizeof(*c));
	c->real = real;
	c->fd = fd;
	c->dev = st.st_dev;
	c->ino = st.st_ino;
	c->host = host;
	c->deleted = deleted;
	c->path = strdup(path);
	if (display)
		c->display = strdup(display);
	else if (host)
		c->display = strdup(path);
	else if (asprintf(&c->display, "/proc/%d/root%s", pid, path) < 0)
		c->display = NULL;
	if (!host && asprintf(&c->root, "/proc/%d/root", pid) < 0)
		c->root = NULL;
	if (!c->path || !c->display || (!host && !c->root)) {
		free(c->path);
		free(c->display);
		free(c->root);
		close(fd);
		r->oom = true;
		return NULL;
	}
	r->nc++;
	alias_add(r, mk, r->nc - 1);
	cand_add_pid(r, c, pid);
	return c;
}

static void cands_free(struct rctx *r)
{
	for (size_t i = 0; i < r->nc; i++) {
		if (r->c[i].fd >= 0)
			close(r->c[i].fd);
		free(r->c[i].path);
		free(r->c[i].display);
		free(r->c[i].root);
		free(r->c[i].pids);
	}
	free(r->c);
	free(r->al);
	r->c = NULL;
	r->al = NULL;
	r->nc = r->nal = 0;
}

/* ---- passes over one process -------------------------------------------- */

struct map_pass {
	struct rctx *r;
	int pid;
	bool view;		/* same_view(pid) */
	bool (*match)(struct rctx *r, const struct rs_mapping *m);
};

static int map_pass_cb(const struct rs_mapping *m, void *ctx)
{
	struct map_pass *mp = ctx;
	struct rctx *r = mp->r;
	struct key mk = { makedev(m->dev_major, m->dev_minor), m->inode };
	struct cand *c;
	char err[512];
	int fd;

	if (!mp->match(r, m))
		return 0;
	r->hits++;
	if ((c = alias_find(r, mk))) {
		cand_add_pid(r, c, mp->pid);
		return 0;
	}
	if (seen(r, mk))
		return 0;
	fd = rs_open_mapping(mp->pid, m, 0, err, sizeof(err));
	if (fd < 0) {
		note(r, fd == -ESRCH ? RS_NOTE_INFO : RS_NOTE_WARN, "%s", err);
		return fd == -ESRCH ? fd : 0;
	}
	cand_add(r, fd, mp->pid, m->path, NULL, mp->view, m->deleted);
	return r->oom ? -ENOMEM : 0;
}

/* Run match over pid's executable mappings.  0, -ESRCH when pid is gone. */
static int scan_maps(struct rctx *r, int pid,
		     bool (*match)(struct rctx *, const struct rs_mapping *))
{
	struct map_pass mp = { r, pid, same_view(pid), match };
	int ret = rs_maps_each(pid, map_pass_cb, &mp);
	return ret == -ESRCH ? -ESRCH : (r->oom ? -ENOMEM : 0);
}

static bool match_libname(struct rctx *r, const struct rs_mapping *m)
{
	return rs_libname_match(r->name, base_name(m->path));
}

static bool match_exe(struct rctx *r, const struct rs_mapping *m)
{
	return makedev(m->dev_major, m->dev_minor) == r->exe.dev &&
	       m->inode == r->exe.ino;
}

static bool match_path(struct rctx *r, const struct rs_mapping *m)
{
	return strcmp(m->path, r->name) == 0;
}

static bool match_any(struct rctx *r, const struct rs_mapping *m)
{
	return true;
}

static bool is_elf_exec(int fd, bool need_exec_bit)
{
	struct stat st;
	unsigned char mag[4];
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
		return false;
	if (need_exec_bit && !(st.st_mode & 0111))
		return false;
	return pread(fd, mag, 4, 0) == 4 && memcmp(mag, ELFMAG, SELFMAG) == 0;
}

/* First executable ELF named `name` in a PATH list; root NULL: the host.
 * fd or -ENOENT; the joined path goes to out. */
static int path_search(const char *root, const char *pathenv, const char *name,
		       char *out, size_t outlen)
{
	char *copy = strdup(pathenv), *save = NULL, *dir;
	int fd = -ENOENT;

	if (!copy)
		return -ENOMEM;
	for (dir = strtok_r(copy, ":", &save); dir; dir = strtok_r(NULL, ":", &save)) {
		if (dir[0] != '/')
			continue;	/* "" and relative entries mean the cwd: not ours */
		if ((size_t)snprintf(out, outlen, "%s%s%s", dir,
				     ends_with(dir, "/") ? "" : "/", name) >= outlen)
			continue;
		fd = root ? rs_open_in_root(root, out, O_RDONLY)
			  : open(out, O_RDONLY | O_CLOEXEC);
		if (fd >= 0 && is_elf_exec(fd, true))
			break;
		if (fd >= 0)
			close(fd);
		fd = -ENOENT;
	}
	free(copy);
	return fd;
}

/* ---- the host's ld.so cache --------------------------------------------- */

static bool elf_is_native(const char *path)
{
	unsigned char h[20];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	uint16_t mach;

	if (fd < 0)
		return false;
	n = pread(fd, h, sizeof(h), 0);
	close(fd);
	if (n != (ssize_t)sizeof(h) || memcmp(h, ELFMAG, SELFMAG))
		return false;
	if (h[EI_CLASS] != (sizeof(void *) == 8 ? ELFCLASS64 : ELFCLASS32))
		return false;
	memcpy(&mach, h + 18, 2);
#if defined(__x86_64__)
	return mach == EM_X86_64;
#elif defined(__aarch64__)
	return mach == EM_AARCH64;
#else
	return true;
#endif
}

/* The first entry of /etc/ld.so.cache (glibc's "new" format) whose soname
 * is a short-name match for name and which this machine can run. */
static int ldcache_find(const char *name, char *out, size_t outlen)
{
	static const char magic[] = "glibc-ld.so.cache1.1";
	FILE *f = fopen("/etc/ld.so.cache", "re");
	unsigned char *buf;
	size_t len, hdr = 0;
	long sz;
	int ret = -ENOENT;

	if (!f)
		return -ENOENT;
	if (fseek(f, 0, SEEK_END) || (sz = ftell(f)) < 48 || sz > (64 << 20) ||
	    fseek(f, 0, SEEK_SET)) {
		fclose(f);
		return -ENOENT;
	}
	len = (size_t)sz;
	buf = malloc(len);
	if (!buf || fread(buf, 1, len, f) != len) {
		free(buf);
		fclose(f);
		return -ENOENT;
	}
	fclose(f);
	/* old-format files carry the new table after the old one */
	if (memcmp(buf, magic, sizeof(magic) - 1) != 0) {
		void *p = memmem(buf, len, magic, sizeof(magic) - 1);
		hdr = p ? (size_t)((unsigned char *)p - buf) : len;
	}
	if (hdr + 48 <= len) {
		uint32_t nlibs;
		memcpy(&nlibs, buf + hdr + 20, 4);
		for (uint32_t i = 0; i < nlibs; i++) {
			size_t e = hdr + 48 + (size_t)i * 24;
			uint32_t k, v;
			const char *key, *val;

			if (e + 24 > len)
				break;
			memcpy(&k, buf + e + 4, 4);
			memcpy(&v, buf + e + 8, 4);
			if (hdr + k >= len || hdr + v >= len ||
			    !memchr(buf + hdr + k, 0, len - hdr - k) ||
			    !memchr(buf + hdr + v, 0, len - hdr - v))
				continue;
			key = (const char *)buf + hdr + k;
			val = (const char *)buf + hdr + v;
			if (rs_libname_match(name, key) && val[0] == '/' &&
			    strlen(val) < outlen && elf_is_native(val)) {
				strcpy(out, val);
				ret = 0;
				break;
			}
		}
	}
	free(buf);
	return ret;
}

/* ---- resolving the target into candidate files ---------------------------- */

/* Processes the query is about: -p, or the container's; NULL: all. */
static int query_pids(struct rctx *r, int **pids, size_t *n)
{
	const struct rs_query *q = r->q;

	*pids = NULL;
	*n = 0;
	if (q->pid > 0) {
		if (!pid_exists(q->pid)) {
			rs_set_err(r->err, r->errlen, "pid %d does not exist", q->pid);
			return -ESRCH;
		}
		*pids = malloc(sizeof(int));
		if (!*pids)
			return -ENOMEM;
		(*pids)[0] = q->pid;
		*n = 1;
		return 0;
	}
	if (q->container) {
		int ret = rs_container_pids(q->container, pids, n);
		if (ret)
			return ret;
		if (!*n) {
			rs_set_err(r->err, r->errlen, "container %s has no processes",
				*q->container->id ? q->container->id : q->container->path);
			return -ESRCH;
		}
	}
	return 0;
}

/* A bare name within one process: its executable, a library it maps, or a
 * binary in its PATH inside its root. */
static void resolve_name_in(struct rctx *r, int pid)
{
	char fn[64], exe[RS_PATH_MAX], found[RS_PATH_MAX];
	struct stat st;
	ssize_t n;

	r->hits = 0;
	snprintf(fn, sizeof(fn), "/proc/%d/exe", pid);
	n = readlink(fn, exe, sizeof(exe) - 1);
	if (n > 0 && stat(fn, &st) == 0) {
		exe[n] = '\0';
		if (ends_with(exe, " (deleted)"))
			exe[n - 10] = '\0';
		if (strcmp(base_name(exe), r->name) == 0) {
			r->exe = (struct key){ st.st_dev, st.st_ino };
			if (scan_maps(r, pid, match_exe) == -ESRCH)
				goto gone;
		}
	}
	if (scan_maps(r, pid, match_libname) == -ESRCH)
		goto gone;
	if (!r->hits) {
		char *pathenv = proc_path_env(pid), root[64];
		int fd;
		bool view = same_view(pid);

		snprintf(root, sizeof(root), "/proc/%d/root", pid);
		fd = pathenv ? path_search(root, pathenv, r->name, found, sizeof(found))
			     : -ENOMEM;
		free(pathenv);
		if (fd >= 0) {
			r->hits++;
			cand_add(r, fd, pid, found, view ? found : NULL, view, false);
		}
	}
	if (!r->hits)
		note(r, RS_NOTE_INFO, "pid %d maps no '%s' and has none in its PATH",
		     pid, r->name);
	return;
gone:
	note(r, RS_NOTE_INFO, "pid %d exited while resolving '%s'; skipped", pid,
	     r->name);
}

/* An absolute path within one process: what it maps there (even if since
 * deleted or replaced), else the path inside its root. */
static void resolve_path_in(struct rctx *r, int pid)
{
	char root[64];
	int fd;
	bool view;

	r->hits = 0;
	if (scan_maps(r, pid, match_path) == -ESRCH) {
		note(r, RS_NOTE_INFO, "pid %d exited while resolving %s; skipped",
		     pid, r->name);
		return;
	}
	if (r->hits)
		return;
	view = same_view(pid);
	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	fd = rs_open_in_root(root, r->name, O_RDONLY);
	if (fd >= 0 && !is_elf_exec(fd, false)) {
		close(fd);
		fd = -ENOEXEC;
	}
	if (fd < 0) {
		r->why = fd == -ENOEXEC ? "not an ELF file" : strerror(-fd);
		/* with one process the error says it; with many, each one counts */
		note(r, r->q->pid > 0 ? RS_NOTE_INFO : RS_NOTE_WARN,
		     "%s in pid %d's root: %s; skipped", r->name, pid, r->why);
		return;
	}
	r->hits++;
	cand_add(r, fd, pid, r->name, NULL, view, false);
}

/* The host's file, plus who maps it and who maps something else there. */
struct host_scan {
	struct rctx *r;
	struct cand *c;
	const char *as_written, *canon;
	int pid;
	struct key other[8];
	int other_pid[8][PIDS_SHOWN], last_pid[8];
	size_t nother, other_n[8];
};

static int host_scan_cb(const struct rs_mapping *m, void *ctx)
{
	struct host_scan *hs = ctx;
	struct key k = { makedev(m->dev_major, m->dev_minor), m->inode };
	size_t i;

	if (k.dev == hs->c->dev && k.ino == hs->c->ino) {
		cand_add_pid(hs->r, hs->c, hs->pid);
		return 0;
	}
	if (strcmp(m->path, hs->as_written) && (!hs->canon || strcmp(m->path, hs->canon)))
		return 0;
	if (same_view(hs->pid))
		return 0;	/* the host's own older copy: not another namespace */
	for (i = 0; i < hs->nother; i++)
		if (hs->other[i].dev == k.dev && hs->other[i].ino == k.ino)
			break;
	if (i == hs->nother) {
		if (hs->nother == 8)
			return 0;
		hs->other[hs->nother++] = k;
	} else if (hs->last_pid[i] == hs->pid) {
		return 0;	/* one process counts once per file */
	}
	hs->last_pid[i] = hs->pid;
	if (hs->other_n[i] < PIDS_SHOWN)
		hs->other_pid[i][hs->other_n[i]] = hs->pid;
	hs->other_n[i]++;
	return 0;
}

static void host_scan(struct rctx *r, struct cand *c, const char *as_written)
{
	struct host_scan hs = { .r = r, .c = c, .as_written = as_written };
	char *canon = realpath(as_written, NULL);
	int *pids;
	size_t n;

	hs.canon = canon;
	if (all_pids(&pids, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			hs.pid = pids[i];
			rs_maps_each(pids[i], host_scan_cb, &hs);
		}
		free(pids);
	}
	for (size_t i = 0; i < hs.nother; i++) {
		char list[512];
		describe_pids(list, sizeof(list), hs.other_pid[i],
			      hs.other_n[i] < PIDS_SHOWN ? hs.other_n[i] : PIDS_SHOWN);
		note(r, RS_NOTE_WARN, "%zu process%s in other mount namespaces "
		     "(%s) map%s a different file at %s, which this probe does "
		     "not see; use -p PID, --container ID or a library short name",
		     hs.other_n[i], hs.other_n[i] == 1 ? "" : "es", list,
		     hs.other_n[i] == 1 ? "s" : "", as_written);
	}
	free(canon);
}

static int resolve_files(struct rctx *r)
{
	const struct rs_query *q = r->q;
	const char *t = q->target;
	int *pids = NULL;
	size_t npids = 0;
	char abs[RS_PATH_MAX];
	int ret;

	if (!t || !*t) {
		rs_set_err(r->err, r->errlen, "empty uprobe target");
		return -EINVAL;
	}
	if ((ret = query_pids(r, &pids, &npids)))
		return ret;

	if (strcmp(t, "*") == 0) {
		if (!npids) {
			rs_set_err(r->err, r->errlen, "uprobe target '*' needs -p PID or "
				"--container ID");
			return -EINVAL;
		}
		for (size_t i = 0; i < npids && !r->oom; i++)
			scan_maps(r, pids[i], match_any);
	} else if (strchr(t, '/')) {
		if (t[0] != '/') {
			/* relative to where sonde runs, as a shell would */
			int e = ENAMETOOLONG;
			if (strlen(t) + 2 >= sizeof(abs) ||
			    (!getcwd(abs, sizeof(abs) - strlen(t) - 2) && (e = errno))) {
				free(pids);
				rs_set_err(r->err, r->errlen, "cannot resolve %s: %s", t,
					strerror(e));
				return -e;
			}
			strcat(abs, "/");
			strcat(abs, t);
			t = abs;
		}
		r->name = t;
		if (npids) {
			for (size_t i = 0; i < npids && !r->oom; i++)
				resolve_path_in(r, pids[i]);
		} else {
			int fd = open(t, O_RDONLY | O_CLOEXEC);
			struct cand *c;
			if (fd < 0 || !is_elf_exec(fd, false)) {
				int e = fd < 0 ? errno : ENOEXEC;
				if (fd >= 0)
					close(fd);
				rs_set_err(r->err, r->errlen, e == ENOENT ?
					"uprobe target %s does not exist" :
					e == ENOEXEC ? "uprobe target %s is not an ELF file" :
					"cannot open uprobe target %s: %s", t, strerror(e));
				return -e;
			}
			/* -l names it as written (uprobe:./prog:f), as bpftrace */
			c = cand_add(r, fd, 0, t, q->target, true, false);
			if (c && r->s)	/* listing needs no pid list */
				host_scan(r, c, t);
		}
	} else {
		r->name = t;
		if (npids) {
			for (size_t i = 0; i < npids && !r->oom; i++)
				resolve_name_in(r, pids[i]);
		} else {
			char found[RS_PATH_MAX];
			const char *pe = getenv("PATH");
			int fd = path_search(NULL, pe ? pe : DEFAULT_PATH, t, found,
					     sizeof(found));
			if (fd >= 0) {
				struct cand *c = cand_add(r, fd, 0, found, found, true, false);
				if (c && r->s)
					host_scan(r, c, found);
			} else {
				int *all;
				size_t nall;
				if ((ret = all_pids(&all, &nall))) {
					rs_set_err(r->err, r->errlen, "cannot list processes: %s",
						strerror(-ret));
					return ret;
				}
				for (size_t i = 0; i < nall && !r->oom; i++)
					if (scan_maps(r, all[i], match_libname) == -ESRCH)
						note(r, RS_NOTE_INFO, "pid %d exited while "
						     "resolving '%s'; skipped", all[i], t);
				free(all);
				if (!r->nc && !r->oom &&
				    ldcache_find(t, found, sizeof(found)) == 0 &&
				    (fd = open(found, O_RDONLY | O_CLOEXEC)) >= 0) {
					note(r, RS_NOTE_INFO, "no process maps '%s' yet; "
					     "using %s from the ld.so cache", t, found);
					cand_add(r, fd, 0, found, found, true, false);
				}
			}
		}
	}
	free(pids);
	if (r->oom) {
		rs_set_err(r->err, r->errlen, "out of memory resolving %s", q->target);
		return -ENOMEM;
	}
	if (!r->nc) {
		if (r->s && r->s->nsites)
			return 0;	/* --follow: nothing new */
		if (q->pid > 0 && !pid_exists(q->pid))
			rs_set_err(r->err, r->errlen, "pid %d exited while resolving '%s'",
				q->pid, q->target);
		else if (q->pid > 0 && pid_is_zombie(q->pid))
			rs_set_err(r->err, r->errlen, "pid %d has exited (a zombie "
				"its parent has not reaped): nothing to probe", q->pid);
		else if (strchr(q->target, '/') && q->pid > 0)
			rs_set_err(r->err, r->errlen, "%s cannot be opened in pid %d's "
				"root: %s", t, q->pid, r->why ? r->why : "not mapped");
		else if (strchr(q->target, '/'))
			rs_set_err(r->err, r->errlen, "%s cannot be opened in any process "
				"of container %s", t,
				q->container ? q->container->path : "?");
		else if (q->pid > 0)
			rs_set_err(r->err, r->errlen, "pid %d maps no library named '%s' "
				"and has no '%s' in its PATH", q->pid, t, t);
		else if (q->container)
			rs_set_err(r->err, r->errlen, "no process of container %s maps a "
				"library named '%s' or has '%s' in its PATH",
				*q->container->id ? q->container->id : q->container->path,
				t, t);
		else if (strcmp(t, "*") == 0)
			rs_set_err(r->err, r->errlen, "no executable files are mapped");
		else
			rs_set_err(r->err, r->errlen, "no process maps a library named "
				"'%s', the ld.so cache has none, and no '%s' is in PATH",
				t, t);
		return -ENOENT;
	}
	/* pid lists read better sorted */
	for (size_t i = 0; i < r->nc; i++)
		if (r->c[i].npids > 1)
			qsort(r->c[i].pids, r->c[i].npids, sizeof(int), cmp_int);
	return 0;
}

/* ---- sites ------------------------------------------------------------- */

struct sym_pass {
	struct rctx *r;
	struct rs_elf *e;
	struct rs_site *v;
	size_t n;
	size_t bad;		/* matches outside any PT_LOAD */
	int fd;			/* the file, to read code for offset checks */
	uint64_t add;		/* FUNC+OFFSET: bytes into the function */
	char insn_err[256];	/* why the offset is not an instruction boundary */
};

/* "FUNC+OFFSET" (decimal or 0x hex) into name and offset; false when func
 * has no such suffix (a plain name or glob) */
static bool split_offset(const char *func, char *name, size_t len, uint64_t *off)
{
	const char *plus = strrchr(func, '+');
	char *end;
	if (!plus || plus == func || !plus[1] || (size_t)(plus - func) >= len)
		return false;
	errno = 0;
	unsigned long long v = strtoull(plus + 1, &end, 0);
	if (*end || errno)
		return false;
	snprintf(name, len, "%.*s", (int)(plus - func), func);
	*off = v;
	return true;
}

/* "0x1234": an absolute address (the ELF virtual address) */
static bool parse_address(const char *func, uint64_t *addr)
{
	char *end;
	if (func[0] != '0' || (func[1] != 'x' && func[1] != 'X') || !func[2])
		return false;
	errno = 0;
	*addr = strtoull(func, &end, 16);
	return !*end && !errno;
}

static int sym_cb(const struct rs_sym *s, void *ctx)
{
	struct sym_pass *sp = ctx;
	uint64_t off;

	if (rs_elf_vaddr_to_offset(sp->e, s->vaddr, &off)) {
		sp->bad++;
		return 0;
	}
	/* FUNC+OFFSET: a breakpoint inside an instruction corrupts it */
	if (sp->add) {
		if (insn_check_fd(sp->fd, off, s->size, sp->add, sp->insn_err, sizeof(sp->insn_err)))
			return -EINVAL;
		off += sp->add;
	}
	/* aliases share an offset; the first seen is the preferred name */
	for (size_t i = 0; i < sp->n; i++)
		if (sp->v[i].offset == off)
			return 0;
	sp->v = vec_grow(sp->v, sp->n, sizeof(*sp->v));
	sp->v[sp->n++] = (struct rs_site){ .offset = off, .sym = s->name,
					   .ifunc = s->ifunc };
	return 0;
}

static int grow_sites(struct rs_sites *s, size_t more)
{
	struct rs_sites_priv *p = s->priv;
	if (s->nsites + more > p->capsites) {
		size_t cap = p->capsites ? p->capsites : 16;
		struct rs_site *v;
		while (cap < s->nsites + more)
			cap *= 2;
		v = realloc(s->sites, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		s->sites = v;
		p->capsites = cap;
	}
	s->files = vec_grow(s->files, s->nfiles, sizeof(*s->files));
	return 0;
}

static void note_file(struct rctx *r, const struct cand *c, const struct sym_pass *sp)
{
	char pids[512], where[96];

	describe_pids(pids, sizeof(pids), c->pids, c->npids);
	if (c->host)
		snprintf(where, sizeof(where), "host");
	else
		snprintf(where, sizeof(where), "in %s", c->root);
	if (sp->n == 1)
		note(r, RS_NOTE_INFO, "%s:%s -> %s%s (%u:%u inode %llu, %s) offset "
		     "0x%llx%s%s", r->q->target, r->q->func, c->path,
		     c->deleted ? " (deleted)" : "", major(c->dev), minor(c->dev),
		     (unsigned long long)c->ino, where,
		     (unsigned long long)sp->v[0].offset, c->npids ? ", mapped by " : "",
		     pids);
	else
		note(r, RS_NOTE_INFO, "%s:%s -> %s%s (%u:%u inode %llu, %s) %zu "
		     "functions%s%s", r->q->target, r->q->func, c->path,
		     c->deleted ? " (deleted)" : "", major(c->dev), minor(c->dev),
		     (unsigned long long)c->ino, where, sp->n,
		     c->npids ? ", mapped by " : "", pids);
}

/* The sites of r->q->func in the file of c: a name or glob, FUNC+OFFSET,
 * or an absolute address 0xADDR; offsets are checked against instruction
 * boundaries.  The number of matches, -EINVAL with sp->insn_err set for
 * a bad offset, or -ENOMEM. */
static int match_func(struct rctx *r, const struct cand *c, struct sym_pass *sp)
{
	char name[512];
	uint64_t addr;
	sp->fd = c->fd;
	if (parse_address(r->q->func, &addr)) {
		const struct rs_sym *s = rs_elf_addr_sym(sp->e, addr);
		if (!s)
			return 0;	/* "not found in FILE" names the address */
		sp->add = addr - s->vaddr;
		int ret = sym_cb(s, sp);
		if (ret == -EINVAL) {
			char why[256];
			snprintf(why, sizeof(why), "%s", sp->insn_err);
			snprintf(sp->insn_err, sizeof(sp->insn_err), "%s+%llu: %s", s->name,
				 (unsigned long long)sp->add, why);
		}
		if (ret)
			return ret;
		if (sp->n)
			sp->v[sp->n - 1].sym = s->name;
		return (int)sp->n;
	}
	if (split_offset(r->q->func, name, sizeof(name), &sp->add)) {
		if (strpbrk(name, "*?["))
			return 0;
		return rs_elf_each_match(sp->e, name, sym_cb, sp);
	}
	return rs_elf_each_match(sp->e, r->q->func, sym_cb, sp);
}

/* ---- a symbol in a library the file needs --------------------------------- */

#define NEEDED_MAX 16	/* sonames examined, breadth first */

/* Open soname as the dynamic linker finds it for the file c: the host's
 * ld.so cache, then the needing file's own directory and the default
 * directories, inside c's root for a container's file.  The fd, with the
 * path as c's processes see it in *path (malloc'd), or -1. */
static int open_needed(const struct cand *c, const char *soname, char **path)
{
	char dir[RS_PATH_MAX], found[RS_PATH_MAX];
	const char *slash = strrchr(c->path, '/');
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - c->path) : 0, c->path);
	const char *dirs[] = {"", dir, "/lib", "/usr/lib"};
	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (i == 0) {
			if (!c->host || ldcache_find(soname, found, sizeof(found)))
				continue;
		} else {
			snprintf(found, sizeof(found), "%s/%s", dirs[i], soname);
		}
		char full[RS_PATH_MAX * 2];
		snprintf(full, sizeof(full), "%s%s", c->host ? "" : c->root, found);
		int fd = open(full, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!is_elf_exec(fd, false) || !(*path = strdup(found))) {
			close(fd);
			continue;
		}
		return fd;
	}
	return -1;
}

/*
 * r->q->func is not in c's file: look in the libraries it needs
 * (DT_NEEDED, breadth first), as the dynamic linker resolves a name the
 * file lacks.  glibc 2.34 moved pthread_create and the rest of libpthread,
 * libdl, librt into libc and left stubs that need libc, so
 * uprobe:libpthread.so.0:pthread_create (threadsnoop.bt) means libc's.
 * On a match c becomes that library (sp holds its sites) and -v says so.
 * Plain names only: an offset or an address belongs to the file written;
 * never for "*", whose candidates are the needed libraries themselves.
 */
static bool follow_needed(struct rctx *r, struct cand *c, struct sym_pass *sp)
{
	uint64_t addr;
	if (strpbrk(r->q->func, "*?[+") || !strcmp(r->q->target, "*") || parse_address(r->q->func, &addr))
		return false;
	const char *queue[NEEDED_MAX];
	size_t nq = 0, n;
	const char *const *need = rs_elf_needed(sp->e, &n);
	struct arena *a = arena_new();
	for (size_t i = 0; i < n && nq < NEEDED_MAX; i++)
		queue[nq++] = arena_strdup(a, need[i]);
	bool found = false;
	for (size_t qi = 0; qi < nq && !found; qi++) {
		char *path = NULL, err[256];
		struct rs_elf *e = NULL;
		int fd = open_needed(c, queue[qi], &path);
		if (fd < 0)
			continue;
		if (rs_elf_open_fd(fd, path, c->root, &e, err, sizeof(err))) {
			close(fd);
			free(path);
			continue;
		}
		struct sym_pass np = {.r = r, .e = e, .fd = fd};
		if (rs_elf_each_match(e, r->q->func, sym_cb, &np) > 0 && np.n) {
			struct stat st;
			note(r, RS_NOTE_INFO, "'%s' is not in %s: probing it in %s, which that "
			     "file needs (DT_NEEDED), as the dynamic linker finds it",
			     r->q->func, c->path, path);
			fstat(fd, &st);
			close(c->fd);
			free(c->path);
			free(c->display);
			c->fd = fd;
			c->path = path;
			c->display = c->host ? strdup(path) : NULL;
			if (!c->host && asprintf(&c->display, "%s%s", c->root, path) < 0)
				c->display = NULL;
			c->dev = st.st_dev;
			c->ino = st.st_ino;
			c->real = (struct key){st.st_dev, st.st_ino};
			rs_elf_free(sp->e);
			free(sp->v);
			*sp = np;
			found = true;
			break;
		}
		free(np.v);
		need = rs_elf_needed(e, &n);
		for (size_t i = 0; i < n && nq < NEEDED_MAX; i++) {
			bool dup = false;
			for (size_t j = 0; j < nq; j++)
				dup = dup || !strcmp(queue[j], need[i]);
			if (!dup)
				queue[nq++] = arena_strdup(a, need[i]);
		}
		rs_elf_free(e);
		close(fd);
		free(path);
	}
	arena_free(a);
	return found;
}

/* Turn candidates into sites.  Unmatched files are reported; an error only
 * when nothing at all matched on a first resolution. */
static int make_sites(struct rctx *r, bool first)
{
	struct rs_sites *s = r->s;
	struct rs_sites_priv *p = s->priv;
	const char *miss = NULL;
	bool miss_stripped = false;
	size_t nmiss = 0, added = 0;
	bool glob = strpbrk(r->q->func, "*?[") != NULL;

	for (size_t i = 0; i < r->nc; i++) {
		struct cand *c = &r->c[i];
		struct sym_pass sp = { .r = r };
		char err[512];
		struct rs_file *f;
		int ret;

		mark_seen(r, c->real);
		for (size_t j = 0; j < r->nal; j++)
			if (r->al[j].cand == i)
				mark_seen(r, r->al[j].map);
		ret = rs_elf_open_fd(c->fd, c->path, c->root, &sp.e, err, sizeof(err));
		if (ret) {
			note(r, RS_NOTE_WARN, "%s; skipped", err);
			continue;
		}
		ret = match_func(r, c, &sp);
		if (ret == 0 && follow_needed(r, c, &sp))
			ret = (int)sp.n;
		if (ret == -EINVAL) {
			rs_set_err(r->err, r->errlen, "%s", sp.insn_err);
			free(sp.v);
			rs_elf_free(sp.e);
			return -EINVAL;
		}
		if (ret < 0 || !sp.n) {
			if (ret < 0)
				r->oom = true;
			if (!miss) {
				miss = arena_strdup(p->ar, c->path);
				miss_stripped = sp.e && rs_elf_stripped(sp.e);
			}
			nmiss++;
			if (!first || r->nc > 1) {
				char pids[512];
				/* "*" offers every mapped file; most lack it */
				bool expected = !first || !strcmp(r->q->target, "*");
				describe_pids(pids, sizeof(pids), c->pids, c->npids);
				note(r, expected ? RS_NOTE_INFO : RS_NOTE_WARN,
				     "symbol '%s' not found in %s%s%s%s%s", r->q->func,
				     c->path, c->host ? "" : " in ", c->host ? "" : c->root,
				     c->npids ? "; not probed for pids " : "", pids);
			}
			free(sp.v);
			rs_elf_free(sp.e);
			continue;
		}
		if (grow_sites(s, sp.n) || !(f = calloc(1, sizeof(*f)))) {
			free(sp.v);
			rs_elf_free(sp.e);
			r->oom = true;
			break;
		}
		note_file(r, c, &sp);
		f->path = arena_strdup(p->ar, c->path);
		f->fd = c->fd;
		c->fd = -1;
		f->attach_path = arena_printf(p->ar, "/proc/self/fd/%d", f->fd);
		f->dev = c->dev;
		f->ino = c->ino;
		f->pids = c->pids;
		f->npids = c->npids;
		c->pids = NULL;
		c->npids = 0;
		f->host = c->host;
		f->deleted = c->deleted;
		s->files[s->nfiles++] = f;
		for (size_t j = 0; j < sp.n; j++) {
			struct rs_site *st = &s->sites[s->nsites++];
			*st = sp.v[j];
			st->file = f;
			st->sym = arena_strdup(p->ar, sp.v[j].sym);
			if (st->ifunc)
				note(r, glob ? RS_NOTE_INFO : RS_NOTE_WARN, "'%s' in %s "
				     "is an IFUNC: the probe fires when the dynamic "
				     "linker resolves it, not on calls", st->sym, f->path);
		}
		added += sp.n;
		if (sp.bad)
			note(r, RS_NOTE_WARN, "%zu symbol%s matching '%s' in %s lie "
			     "outside every loadable segment; skipped", sp.bad,
			     sp.bad == 1 ? "" : "s", r->q->func, c->path);
		free(sp.v);
		rs_elf_free(sp.e);
	}
	if (r->oom) {
		rs_set_err(r->err, r->errlen, "out of memory resolving %s", r->q->target);
		return -ENOMEM;
	}
	if (first && !added) {
		if (nmiss > 1)
			rs_set_err(r->err, r->errlen, "symbol '%s' not found in %s or %zu "
				"other file%s", r->q->func, miss, nmiss - 1,
				nmiss == 2 ? "" : "s");
		else if (nmiss == 1 && miss_stripped && !glob)
			rs_set_err(r->err, r->errlen, "symbol '%s' not found in %s: %s (stripped: "
				   "only its exported symbols remain); install its debug symbols, "
				   "or give the address (uprobe:%s:0xADDR from objdump -d) [%s]",
				   r->q->func, miss, explain_get(EX_NOSYMS)->summary, miss,
				   explain_get(EX_NOSYMS)->code);
		else if (nmiss == 1)
			rs_set_err(r->err, r->errlen, "symbol '%s' not found in %s",
				r->q->func, miss);
		else
			rs_set_err(r->err, r->errlen, "no readable ELF file for %s",
				r->q->target);
		return -ENOENT;
	}
	return 0;
}

/* Every file resolved and kept open needs a descriptor; a host with many
 * containers can have hundreds of distinct libcs, and each probe also
 * needs a perf event fd, so use the hard limit. */
static void raise_nofile(void)
{
	struct rlimit rl;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

int rs_resolve_more(const struct rs_query *q, struct rs_sites *s,
		    size_t *first_new, char *err, size_t errlen)
{
	struct rctx r = { .q = q, .s = s, .err = err, .errlen = errlen };
	bool first = s->nsites == 0 && s->priv->nseen == 0;
	int ret;

	if (first_new)
		*first_new = s->nsites;
	if (!q->func || !*q->func) {
		rs_set_err(err, errlen, "empty uprobe function name");
		return -EINVAL;
	}
	raise_nofile();
	ret = resolve_files(&r);
	if (!ret && r.nc)
		ret = make_sites(&r, first);
	cands_free(&r);
	if (ret == -ENOENT && q->allow_none)
		ret = 0;	/* nothing maps it yet: a later rescan may find it */
	return ret;
}

int rs_resolve(const struct rs_query *q, struct rs_sites **out,
	       char *err, size_t errlen)
{
	struct rs_sites *s = calloc(1, sizeof(*s));
	int ret;

	*out = NULL;
	if (!s || !(s->priv = calloc(1, sizeof(*s->priv)))) {
		free(s);
		rs_set_err(err, errlen, "out of memory");
		return -ENOMEM;
	}
	s->priv->ar = arena_new();
	ret = rs_resolve_more(q, s, NULL, err, errlen);
	if (ret) {
		rs_sites_free(s);
		return ret;
	}
	*out = s;
	return 0;
}

void rs_sites_free(struct rs_sites *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nfiles; i++) {
		if (s->files[i]->fd >= 0)
			close(s->files[i]->fd);
		free(s->files[i]->pids);
		free(s->files[i]);
	}
	free(s->files);
	free(s->sites);
	if (s->priv) {
		free(s->priv->seen);
		arena_free(s->priv->ar);
		free(s->priv);
	}
	free(s);
}

/* ---- listing ------------------------------------------------------------ */

struct list_line {
	char *path;
	const char *name;
};

struct list_pass {
	struct list_line *v;
	size_t n;
	const char *path;
	bool oom;
};

static int list_cb(const struct rs_sym *s, void *ctx)
{
	struct list_pass *lp = ctx;
	lp->v = vec_grow(lp->v, lp->n, sizeof(*lp->v));
	lp->v[lp->n++] = (struct list_line){ (char *)lp->path, s->name };
	return 0;
}

static int cmp_line(const void *pa, const void *pb)
{
	const struct list_line *a = pa, *b = pb;
	int d = strcmp(a->path, b->path);
	return d ? d : strcmp(a->name, b->name);
}

int rs_list_probes(FILE *out, const char *kind, const char *target,
		   const char *func_glob, int pid, char *err, size_t errlen)
{
	struct rs_query q = { .target = target, .func = func_glob, .pid = pid };
	struct rctx r = { .q = &q, .err = err, .errlen = errlen };
	struct list_pass lp = { 0 };
	struct rs_elf **elves;
	char ldpath[RS_PATH_MAX];
	int ret;

	if (!func_glob || !*func_glob)
		q.func = func_glob = "*";
	ret = resolve_files(&r);
	if (ret) {
		cands_free(&r);
		return ret;
	}
	/* bpftrace names a library by its ld.so cache path; keep that when it
	 * is the very file the host maps */
	if (!strchr(target, '/') && strcmp(target, "*") &&
	    ldcache_find(target, ldpath, sizeof(ldpath)) == 0) {
		struct stat st;
		if (stat(ldpath, &st) == 0) {
			for (size_t i = 0; i < r.nc; i++) {
				if (r.c[i].host && r.c[i].dev == st.st_dev &&
				    r.c[i].ino == st.st_ino) {
					char *d = strdup(ldpath);
					if (d) {
						free(r.c[i].display);
						r.c[i].display = d;
					}
				}
			}
		}
	}
	elves = calloc(r.nc ? r.nc : 1, sizeof(*elves));
	if (!elves) {
		cands_free(&r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r.nc; i++) {
		char e2[512];
		if (rs_elf_open_fd(r.c[i].fd, r.c[i].path, r.c[i].root, &elves[i],
				   e2, sizeof(e2)))
			continue;
		lp.path = r.c[i].display;
		if (rs_elf_each_match(elves[i], func_glob, list_cb, &lp) < 0)
			break;
	}
	if (lp.oom) {
		rs_set_err(err, errlen, "out of memory listing %s", target);
		ret = -ENOMEM;
	} else if (lp.n) {
		qsort(lp.v, lp.n, sizeof(*lp.v), cmp_line);
		for (size_t i = 0; i < lp.n; i++) {
			if (i && cmp_line(&lp.v[i - 1], &lp.v[i]) == 0)
				continue;
			fprintf(out, "%s:%s:%s\n", kind, lp.v[i].path, lp.v[i].name);
		}
	}
	free(lp.v);
	for (size_t i = 0; i < r.nc; i++)
		rs_elf_free(elves[i]);
	free(elves);
	cands_free(&r);
	return ret;
}

