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
#include "host/uresolve_int.h"
#include "host/proc.h"
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
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define DEFAULT_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

void ures_note(struct rctx *r, enum rs_note_level lvl, const char *fmt, ...)
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

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

/* PATH from the process's initial environment, or the usual default */
static char *proc_path_env(int pid)
{
	char *path = host_proc_env(pid, "PATH");
	return path ? path : strdup(DEFAULT_PATH);
}

/* ---- candidates ---------------------------------------------------------- */

bool ures_seen(const struct rctx *r, struct key k)
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

void ures_mark_seen(struct rctx *r, struct key k)
{
	struct rs_sites_priv *p;
	if (!r->s || ures_seen(r, k))
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
	if (ures_seen(r, mk) || ures_seen(r, real)) {
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
	c->attach_fd = -1;
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

void ures_cands_free(struct rctx *r)
{
	for (size_t i = 0; i < r->nc; i++) {
		if (r->c[i].fd >= 0)
			close(r->c[i].fd);
		if (r->c[i].attach_fd >= 0)
			close(r->c[i].attach_fd);
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
	bool view;		/* host_proc_same_view(pid) */
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
	if (ures_seen(r, mk))
		return 0;
	fd = rs_open_mapping(mp->pid, m, 0, err, sizeof(err));
	if (fd < 0) {
		ures_note(r, fd == -ESRCH ? RS_NOTE_INFO : RS_NOTE_WARN, "%s", err);
		return fd == -ESRCH ? fd : 0;
	}
	cand_add(r, fd, mp->pid, m->path, NULL, mp->view, m->deleted);
	return r->oom ? -ENOMEM : 0;
}

/* Run match over pid's executable mappings.  0, -ESRCH when pid is gone. */
static int scan_maps(struct rctx *r, int pid,
		     bool (*match)(struct rctx *, const struct rs_mapping *))
{
	struct map_pass mp = { r, pid, host_proc_same_view(pid), match };
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

bool ures_is_elf_exec(int fd, bool need_exec_bit)
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
		if (fd >= 0 && ures_is_elf_exec(fd, true))
			break;
		if (fd >= 0)
			close(fd);
		fd = -ENOENT;
	}
	free(copy);
	return fd;
}

/* ---- resolving the target into candidate files ---------------------------- */

/* func is an address (0x1a0, 4096): a flat binary's file offset */
static bool raw_offset(const char *func)
{
	char *end;
	if (!func || !isdigit((unsigned char)*func))
		return false;
	errno = 0;
	strtoull(func, &end, 0);
	return !*end && !errno;
}

/*
 * "ARCHIVE.zip!/PATH": the member, stored in the archive, read as an ELF
 * file through a copy of its bytes (a memfd), probed in the archive at its
 * offset there (the kernel maps it from the archive, as Android loads an
 * APK's libraries)
 */
static int resolve_zip_member(struct rctx *r, const char *t, const char *written)
{
	const char *bang = strstr(t, "!/");
	char zpath[RS_PATH_MAX];
	if ((size_t)(bang - t) >= sizeof(zpath))
		return -ENAMETOOLONG;
	memcpy(zpath, t, (size_t)(bang - t));
	zpath[bang - t] = '\0';
	int zfd = open(zpath, O_RDONLY | O_CLOEXEC);
	if (zfd < 0) {
		int e = errno;
		rs_set_err(r->err, r->errlen, e == ENOENT ? "uprobe target %s does not exist"
			   : "cannot open uprobe target %s: %s", zpath, strerror(e));
		return -e;
	}
	uint64_t off = 0, size = 0;
	char why[256];
	int ret = rs_zip_member(zfd, bang + 2, &off, &size, why, sizeof(why));
	if (ret) {
		rs_set_err(r->err, r->errlen, "uprobe target %s: %s", t, why);
		close(zfd);
		return ret;
	}
	int mfd = memfd_create("sonde-zip-member", MFD_CLOEXEC);
	char buf[65536];
	for (uint64_t done = 0; mfd >= 0 && done < size;) {
		size_t want = size - done < sizeof(buf) ? (size_t)(size - done) : sizeof(buf);
		ssize_t got = pread(zfd, buf, want, (off_t)(off + done));
		if (got <= 0 || write(mfd, buf, (size_t)got) != got) {
			close(mfd);
			mfd = -1;
			break;
		}
		done += (uint64_t)got;
	}
	if (mfd < 0 || !ures_is_elf_exec(mfd, false)) {
		rs_set_err(r->err, r->errlen, mfd < 0 ? "uprobe target %s: cannot read the member"
			   : "uprobe target %s is not an ELF file", t);
		if (mfd >= 0)
			close(mfd);
		close(zfd);
		return -ENOEXEC;
	}
	struct cand *c = cand_add(r, mfd, 0, t, written, true, false);
	if (!c) {
		close(zfd);
		return r->oom ? -ENOMEM : 0;
	}
	c->attach_fd = zfd;
	c->base = off;
	return 0;
}

/* Processes the query is about: -p, or the container's; NULL: all. */
static int query_pids(struct rctx *r, int **pids, size_t *n)
{
	const struct rs_query *q = r->q;

	*pids = NULL;
	*n = 0;
	if (q->pid > 0) {
		if (!host_proc_exists(q->pid)) {
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
		bool view = host_proc_same_view(pid);

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
		ures_note(r, RS_NOTE_INFO, "pid %d maps no '%s' and has none in its PATH",
		     pid, r->name);
	return;
gone:
	ures_note(r, RS_NOTE_INFO, "pid %d exited while resolving '%s'; skipped", pid,
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
		ures_note(r, RS_NOTE_INFO, "pid %d exited while resolving %s; skipped",
		     pid, r->name);
		return;
	}
	if (r->hits)
		return;
	view = host_proc_same_view(pid);
	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	fd = rs_open_in_root(root, r->name, O_RDONLY);
	if (fd >= 0 && !ures_is_elf_exec(fd, false)) {
		close(fd);
		fd = -ENOEXEC;
	}
	if (fd < 0) {
		r->why = fd == -ENOEXEC ? "not an ELF file" : strerror(-fd);
		/* with one process the error says it; with many, each one counts */
		ures_note(r, r->q->pid > 0 ? RS_NOTE_INFO : RS_NOTE_WARN,
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
	int other_pid[8][HOST_PROC_SHOWN], last_pid[8];
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
	if (host_proc_same_view(hs->pid))
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
	if (hs->other_n[i] < HOST_PROC_SHOWN)
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
	if (host_proc_ids(0, &pids, &n) == 0) {
		for (size_t i = 0; i < n; i++) {
			hs.pid = pids[i];
			rs_maps_each(pids[i], host_scan_cb, &hs);
		}
		free(pids);
	}
	for (size_t i = 0; i < hs.nother; i++) {
		char list[512];
		host_proc_describe(list, sizeof(list), hs.other_pid[i],
			      hs.other_n[i] < HOST_PROC_SHOWN ? hs.other_n[i] : HOST_PROC_SHOWN);
		ures_note(r, RS_NOTE_WARN, "%zu process%s in other mount namespaces "
		     "(%s) map%s a different file at %s, which this probe does "
		     "not see; use -p PID, --container ID or a library short name",
		     hs.other_n[i], hs.other_n[i] == 1 ? "" : "es", list,
		     hs.other_n[i] == 1 ? "s" : "", as_written);
	}
	free(canon);
}

int ures_resolve_files(struct rctx *r)
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
		if (strstr(t, "!/")) {
			ret = resolve_zip_member(r, t, q->target);
			free(pids);
			return ret;
		}
		if (npids) {
			for (size_t i = 0; i < npids && !r->oom; i++)
				resolve_path_in(r, pids[i]);
		} else {
			int fd = open(t, O_RDONLY | O_CLOEXEC);
			struct cand *c;
			if (fd >= 0 && q->unsafe && !ures_is_elf_exec(fd, false) && raw_offset(q->func)) {
				/* --unsafe: code that is no ELF file (a flat binary,
				 * a JIT cache), probed at the offset given, as the
				 * newest bpftrace does */
				if ((c = cand_add(r, fd, 0, t, q->target, true, false)))
					c->raw = true;
				free(pids);
				return r->oom ? -ENOMEM : 0;
			}
			if (fd < 0 || !ures_is_elf_exec(fd, false)) {
				int e = fd < 0 ? errno : ENOEXEC;
				if (fd >= 0)
					close(fd);
				rs_set_err(r->err, r->errlen, e == ENOENT ?
					"uprobe target %s does not exist" :
					e == ENOEXEC && raw_offset(q->func) ? "uprobe target %s is not an "
					"ELF file (--unsafe probes code in other files at an offset)" :
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
				if ((ret = host_proc_ids(0, &all, &nall))) {
					rs_set_err(r->err, r->errlen, "cannot list processes: %s",
						strerror(-ret));
					return ret;
				}
				for (size_t i = 0; i < nall && !r->oom; i++)
					if (scan_maps(r, all[i], match_libname) == -ESRCH)
						ures_note(r, RS_NOTE_INFO, "pid %d exited while "
						     "resolving '%s'; skipped", all[i], t);
				free(all);
				if (!r->nc && !r->oom &&
				    rs_ldcache_find(t, found, sizeof(found)) == 0 &&
				    (fd = open(found, O_RDONLY | O_CLOEXEC)) >= 0) {
					ures_note(r, RS_NOTE_INFO, "no process maps '%s' yet; "
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
		if (q->pid > 0 && !host_proc_exists(q->pid))
			rs_set_err(r->err, r->errlen, "pid %d exited while resolving '%s'",
				q->pid, q->target);
		else if (q->pid > 0 && host_proc_zombie(q->pid))
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

