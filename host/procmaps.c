/*
 * procmaps.c - /proc/PID/maps, read as untrusted text, and the files it names.
 *
 * A maps line is "start-end perms offset major:minor inode   path".  The path
 * is whatever the file was called when it was mapped, as seen from the
 * process's root: it may hold spaces, it may end in " (deleted)" (or a file
 * may really be named that way), and in a container it means nothing on the
 * host.  So the parser is strict about the numeric fields and takes the path
 * verbatim, and opening a mapped file goes through /proc/PID/map_files (the
 * kernel's own link to the mapped file) or, failing that, through the path
 * resolved inside /proc/PID/root with RESOLVE_IN_ROOT; in both cases the
 * opened file's (dev, inode) must equal what maps says, so a probe can never
 * land on a host file that merely has the same name.
 */
#include "host/host_int.h"
#include "host/proc.h"
#include "common/file.h"

#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/vfs.h>
#include <sys/xattr.h>
#include <unistd.h>

#define DELETED_SUFFIX " (deleted)"
#define OVERLAYFS_MAGIC 0x794c7630

/* Hex number of 1..16 digits: a 17th digit would overflow 64 bits, and the
 * kernel never prints one, so it means garbage. */
static int parse_hex(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;
	int n = 0;

	for (;; p++, n++) {
		int d;
		if (*p >= '0' && *p <= '9')
			d = *p - '0';
		else if (*p >= 'a' && *p <= 'f')
			d = *p - 'a' + 10;
		else if (*p >= 'A' && *p <= 'F')
			d = *p - 'A' + 10;
		else
			break;
		if (n == 16)
			return -EINVAL;
		v = v << 4 | (uint64_t)d;
	}
	if (n == 0)
		return -EINVAL;
	*pp = p;
	*out = v;
	return 0;
}

static int parse_dec(const char **pp, uint64_t *out)
{
	const char *p = *pp;
	uint64_t v = 0;

	if (*p < '0' || *p > '9')
		return -EINVAL;
	for (; *p >= '0' && *p <= '9'; p++) {
		uint64_t d = (uint64_t)(*p - '0');
		if (v > (UINT64_MAX - d) / 10)
			return -EINVAL;
		v = v * 10 + d;
	}
	*pp = p;
	*out = v;
	return 0;
}

static int expect(const char **pp, char c)
{
	if (**pp != c)
		return -EINVAL;
	(*pp)++;
	return 0;
}

int rs_maps_parse_line(const char *line, struct rs_mapping *out)
{
	const char *p = line;
	uint64_t maj, min;
	size_t len;

	if (!line || !out)
		return -EINVAL;
	out->path[0] = '\0';
	out->deleted = false;
	if (parse_hex(&p, &out->start) || expect(&p, '-') ||
	    parse_hex(&p, &out->end) || expect(&p, ' '))
		return -EINVAL;
	if (out->start >= out->end)
		return -EINVAL;
	/* perms: exactly [r-][w-][x-][ps] */
	if ((p[0] != 'r' && p[0] != '-') || (p[1] != 'w' && p[1] != '-') ||
	    (p[2] != 'x' && p[2] != '-') || (p[3] != 'p' && p[3] != 's'))
		return -EINVAL;
	memcpy(out->perms, p, 4);
	out->perms[4] = '\0';
	p += 4;
	if (expect(&p, ' ') || parse_hex(&p, &out->offset) || expect(&p, ' ') ||
	    parse_hex(&p, &maj) || expect(&p, ':') || parse_hex(&p, &min) ||
	    expect(&p, ' ') || parse_dec(&p, &out->inode))
		return -EINVAL;
	/* dev_t carries 12 bits of major and 20 of minor */
	if (maj > 0xfff || min > 0xfffff)
		return -EINVAL;
	out->dev_major = (unsigned)maj;
	out->dev_minor = (unsigned)min;

	/* The kernel pads with spaces up to the path; the path itself starts
	 * with '/' or '[' (or "anon_inode:"), never with a space. */
	if (*p != '\0' && *p != '\n' && *p != ' ')
		return -EINVAL;
	while (*p == ' ')
		p++;
	len = strcspn(p, "\n");
	if (p[len] == '\n' && p[len + 1] != '\0')
		return -EINVAL;	/* two lines in one: not a maps line */
	if (len >= sizeof(out->path))
		return -ENAMETOOLONG;
	memcpy(out->path, p, len);
	out->path[len] = '\0';
	if (len > strlen(DELETED_SUFFIX) &&
	    strcmp(out->path + len - strlen(DELETED_SUFFIX), DELETED_SUFFIX) == 0) {
		out->path[len - strlen(DELETED_SUFFIX)] = '\0';
		out->deleted = true;
	}
	return 0;
}

bool rs_mapping_is_exec_file(const struct rs_mapping *m)
{
	return m->perms[2] == 'x' && m->inode != 0 && m->path[0] == '/';
}

static int maps_each(int pid, bool files_only, int (*cb)(const struct rs_mapping *m, void *ctx),
		     void *ctx)
{
	char fn[64];
	FILE *f;
	char *line = NULL;
	size_t cap = 0;
	struct rs_mapping *m;
	int ret = 0;

	if (pid <= 0)
		return -ESRCH;
	snprintf(fn, sizeof(fn), "/proc/%d/maps", pid);
	f = fopen(fn, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	m = malloc(sizeof(*m));
	if (!m) {
		fclose(f);
		return -ENOMEM;
	}
	errno = 0;
	while (getline(&line, &cap, f) >= 0) {
		if (rs_maps_parse_line(line, m) || (files_only && !rs_mapping_is_exec_file(m)))
			continue;
		ret = cb(m, ctx);
		if (ret)
			break;
	}
	/* a process that exits while we read gives ESRCH from read() */
	if (!ret && ferror(f))
		ret = errno == ESRCH ? -ESRCH : -(errno ? errno : EIO);
	free(line);
	free(m);
	fclose(f);
	return ret;
}

int rs_maps_each(int pid, int (*cb)(const struct rs_mapping *m, void *ctx), void *ctx)
{
	return maps_each(pid, true, cb, ctx);
}

int rs_maps_each_any(int pid, int (*cb)(const struct rs_mapping *m, void *ctx), void *ctx)
{
	return maps_each(pid, false, cb, ctx);
}

int rs_open_in_root(const char *root, const char *path, int flags)
{
	struct open_how how = {
		.flags = (uint64_t)(flags | O_CLOEXEC),
		.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS,
	};
	int rfd, fd;

	rfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (rfd < 0)
		return -errno;
	fd = (int)syscall(SYS_openat2, rfd, path, &how, sizeof(how));
	if (fd < 0)
		fd = -errno;
	close(rfd);
	return fd;
}

static bool same_file(const struct stat *st, const struct rs_mapping *m)
{
	return st->st_ino == m->inode && major(st->st_dev) == m->dev_major &&
	       minor(st->st_dev) == m->dev_minor;
}

/* An overlayfs file's maps line shows the inode of the layer's file (the
 * kernel maps d_real_inode()) while fstat() of the same open file shows
 * the overlay's: inside a container, or a VM whose root is an overlay,
 * every mapping would look replaced.  /proc/PID/map_files/ opens the
 * mapped file itself, so there the overlay's word is taken. */
static bool on_overlay(int fd)
{
	struct statfs sf;
	return fstatfs(fd, &sf) == 0 && sf.f_type == OVERLAYFS_MAGIC;
}

int rs_open_mapping(int pid, const struct rs_mapping *m, unsigned flags,
		    char *err, size_t errlen)
{
	char fn[96];
	struct stat st;
	int fd;

	if (!(flags & RS_OPEN_BY_PATH)) {
		snprintf(fn, sizeof(fn), "/proc/%d/map_files/%llx-%llx", pid,
			 (unsigned long long)m->start, (unsigned long long)m->end);
		fd = open(fn, O_RDONLY | O_CLOEXEC);
		if (fd >= 0) {
			if (fstat(fd, &st) == 0 && (same_file(&st, m) || on_overlay(fd)))
				return fd;
			close(fd);
			snprintf(err, errlen, "pid %d no longer maps %s at %llx; skipped",
				 pid, m->path, (unsigned long long)m->start);
			return -ESTALE;
		}
		if (errno == ENOENT) {
			if (!host_proc_exists(pid)) {
				snprintf(err, errlen, "pid %d exited while resolving %s; skipped",
					 pid, m->path);
				return -ESRCH;
			}
			snprintf(err, errlen, "pid %d no longer maps %s at %llx; skipped",
				 pid, m->path, (unsigned long long)m->start);
			return -ESTALE;
		}
		/* EPERM without CAP_SYS_ADMIN: fall back to the path */
	}
	if (m->deleted) {
		snprintf(err, errlen, "%s in pid %d was deleted and /proc/%d/map_files "
			 "cannot be opened; skipped", m->path, pid, pid);
		return -ENOENT;
	}
	snprintf(fn, sizeof(fn), "/proc/%d/root", pid);
	fd = rs_open_in_root(fn, m->path, O_RDONLY);
	if (fd < 0) {
		if (!host_proc_exists(pid)) {
			snprintf(err, errlen, "pid %d exited while resolving %s; skipped",
				 pid, m->path);
			return -ESRCH;
		}
		snprintf(err, errlen, "cannot open %s inside pid %d's root: %s; skipped",
			 m->path, pid, strerror(-fd));
		return fd;
	}
	if (fstat(fd, &st) < 0 || !same_file(&st, m)) {
		close(fd);
		snprintf(err, errlen, "%s inside pid %d's root is not the file it maps "
			 "(%x:%x inode %llu); skipped", m->path, pid, m->dev_major,
			 m->dev_minor, (unsigned long long)m->inode);
		return -ESTALE;
	}
	return fd;
}

/* ---- overlayfs: the inode a uprobe really lands on -------------------------- */

/* Split an overlay lowerdir value on ':' ("\:" is a literal colon). */
static int split_layers(char *v, char **out, int max)
{
	int n = 0;
	char *w = v, *start = v;
	for (char *r = v;; r++) {
		if (r[0] == '\\' && r[1] == ':') {
			*w++ = ':';
			r++;
			continue;
		}
		if (*r == ':' || *r == '\0') {
			bool end = *r == '\0';
			*w++ = '\0';
			if (*start && n < max)
				out[n++] = start;
			start = w;
			if (end)
				break;
			continue;
		}
		*w++ = *r;
	}
	return n;
}


/* The kernel puts a uprobe on d_real_inode(): for an overlayfs file, the
 * file in the topmost layer holding it.  Find that layer in the mount's
 * options (host paths, as the mounting engine wrote them). */
static bool overlay_real(int pid, const char *path, const struct stat *st,
			 uint64_t *rdev, uint64_t *rino)
{
	char fn[64], *line = NULL, *best = NULL;
	size_t cap = 0, bestlen = 0;
	FILE *f;
	bool ok = false;

	snprintf(fn, sizeof(fn), "/proc/%d/mountinfo", pid ? pid : getpid());
	f = fopen(fn, "re");
	if (!f)
		return false;
	while (getline(&line, &cap, f) >= 0) {
		char *sep = strstr(line, " - "), *save = NULL, *tok, *mp = NULL;
		unsigned maj, min;
		size_t ml;
		int i = 0;

		if (!sep || strncmp(sep + 3, "overlay ", 8) != 0)
			continue;
		*sep = '\0';
		for (tok = strtok_r(line, " ", &save); tok; tok = strtok_r(NULL, " ", &save), i++) {
			if (i == 2 && sscanf(tok, "%u:%u", &maj, &min) != 2)
				break;
			if (i == 4)
				mp = tok;
		}
		if (!mp || makedev(maj, min) != st->st_dev)
			continue;
		file_unescape_octal(mp);
		ml = strcmp(mp, "/") == 0 ? 0 : strlen(mp);
		if (strncmp(path, mp, ml) != 0 || (path[ml] != '/' && path[ml] != '\0'))
			continue;
		if (!best || ml > bestlen) {
			/* keep the super options of the longest mount point */
			free(best);
			best = strdup(sep + 3);
			bestlen = ml;
		}
	}
	free(line);
	fclose(f);
	if (!best)
		return false;
	{
		/* "overlay SRC opt,opt,upperdir=..,lowerdir=a:b" */
		char *opts = strchr(best, ' '), *save = NULL, *o;
		char *upper = NULL, *lowers[64];
		int nlow = 0;
		const char *rel = path + bestlen;

		if (opts)
			opts = strchr(opts + 1, ' ');
		for (o = opts ? strtok_r(opts + 1, ",\n", &save) : NULL; o;
		     o = strtok_r(NULL, ",\n", &save)) {
			if (strncmp(o, "upperdir=", 9) == 0) {
				upper = o + 9;
				file_unescape_octal(upper);
			} else if (strncmp(o, "lowerdir=", 9) == 0) {
				file_unescape_octal(o + 9);
				nlow += split_layers(o + 9, lowers + nlow, 64 - nlow);
			} else if (strncmp(o, "lowerdir+=", 10) == 0 && nlow < 64) {
				file_unescape_octal(o + 10);
				lowers[nlow++] = o + 10;
			}
		}
		for (int i = -1; i < nlow && !ok; i++) {
			const char *layer = i < 0 ? upper : lowers[i];
			char *p;
			struct stat ls;

			if (!layer)
				continue;	/* a read-only overlay has no upper */
			if (layer[0] != '/')
				break;		/* relative to the mounter's cwd: unknown */
			p = malloc(strlen(layer) + strlen(rel) + 2);
			if (!p)
				break;
			sprintf(p, "%s%s%s", layer, rel[0] == '/' ? "" : "/", rel);
			if (lstat(p, &ls) == 0) {
				/* The topmost layer holding the path decides.  A
				 * metacopy upper keeps only metadata: the data, and
				 * the probe, live below.  Anything but a regular
				 * file of the same size (a whiteout, a redirected
				 * directory's stranger) means we cannot tell. */
				if (i < 0 && getxattr(p, "trusted.overlay.metacopy", NULL, 0) >= 0) {
					free(p);
					continue;
				}
				if (S_ISREG(ls.st_mode) && ls.st_size == st->st_size) {
					*rdev = ls.st_dev;
					*rino = ls.st_ino;
					ok = true;
				}
				free(p);
				break;
			}
			free(p);
		}
	}
	free(best);
	return ok;
}


int rs_real_inode(int pid, const char *path, int fd, uint64_t *dev, uint64_t *ino)
{
	struct statfs sf;
	struct stat st;

	if (fstat(fd, &st) < 0)
		return -errno;
	*dev = st.st_dev;
	*ino = st.st_ino;
	if (fstatfs(fd, &sf) < 0 || sf.f_type != OVERLAYFS_MAGIC)
		return 0;
	return overlay_real(pid, path, &st, dev, ino) ? 0 : -ENOENT;
}

void rs_set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}
