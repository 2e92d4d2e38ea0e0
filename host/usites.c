/*
 * usites.c - from the candidate files uresolve.c found to the sites a
 * uprobe attaches to: each file's symbols matched against the function
 * (a name, a glob, NAME+OFF, an address), a symbol looked for in the
 * libraries the file needs when the file lacks it, the entry points
 * (rs_resolve, rs_resolve_more for --follow's rescans, rs_sites_free) and
 * -l's listing of a file's functions (rs_list_probes).
 */
#include "host/uresolve_int.h"
#include "host/proc.h"
#include "common/arena.h"
#include "common/explain.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

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

	host_proc_describe(pids, sizeof(pids), c->pids, c->npids);
	if (c->host)
		snprintf(where, sizeof(where), "host");
	else
		snprintf(where, sizeof(where), "in %s", c->root);
	if (sp->n == 1)
		ures_note(r, RS_NOTE_INFO, "%s:%s -> %s%s (%u:%u inode %llu, %s) offset "
		     "0x%llx%s%s", r->q->target, r->q->func, c->path,
		     c->deleted ? " (deleted)" : "", major(c->dev), minor(c->dev),
		     (unsigned long long)c->ino, where,
		     (unsigned long long)sp->v[0].offset, c->npids ? ", mapped by " : "",
		     pids);
	else
		ures_note(r, RS_NOTE_INFO, "%s:%s -> %s%s (%u:%u inode %llu, %s) %zu "
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
			if (!c->host || rs_ldcache_find(soname, found, sizeof(found)))
				continue;
		} else {
			snprintf(found, sizeof(found), "%s/%s", dirs[i], soname);
		}
		char full[RS_PATH_MAX * 2];
		snprintf(full, sizeof(full), "%s%s", c->host ? "" : c->root, found);
		int fd = open(full, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		if (!ures_is_elf_exec(fd, false) || !(*path = strdup(found))) {
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
			ures_note(r, RS_NOTE_INFO, "'%s' is not in %s: probing it in %s, which that "
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

		ures_mark_seen(r, c->real);
		for (size_t j = 0; j < r->nal; j++)
			if (r->al[j].cand == i)
				ures_mark_seen(r, r->al[j].map);
		if (c->raw) {	/* --unsafe, no ELF file: one site at the offset */
			if (grow_sites(s, 1) || !(f = calloc(1, sizeof(*f)))) {
				r->oom = true;
				break;
			}
			f->path = arena_strdup(p->ar, c->path);
			f->fd = c->fd;
			c->fd = -1;
			f->attach_path = arena_printf(p->ar, "/proc/self/fd/%d", f->fd);
			f->dev = c->dev;
			f->ino = c->ino;
			f->host = c->host;
			s->files[s->nfiles++] = f;
			s->sites[s->nsites++] = (struct rs_site){
				.file = f, .offset = strtoull(r->q->func, NULL, 0),
				.sym = arena_strdup(p->ar, r->q->func)};
			added++;
			continue;
		}
		ret = rs_elf_open_fd(c->fd, c->path, c->root, &sp.e, err, sizeof(err));
		if (ret) {
			ures_note(r, RS_NOTE_WARN, "%s; skipped", err);
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
				host_proc_describe(pids, sizeof(pids), c->pids, c->npids);
				ures_note(r, expected ? RS_NOTE_INFO : RS_NOTE_WARN,
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
		if (c->attach_fd >= 0) {	/* a zip member: probed in the archive */
			close(f->fd);
			f->fd = c->attach_fd;
			c->attach_fd = -1;
		}
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
			st->offset += c->base;
			st->file = f;
			st->sym = arena_strdup(p->ar, sp.v[j].sym);
			if (st->ifunc)
				ures_note(r, glob ? RS_NOTE_INFO : RS_NOTE_WARN, "'%s' in %s "
				     "is an IFUNC: the probe fires when the dynamic "
				     "linker resolves it, not on calls", st->sym, f->path);
		}
		added += sp.n;
		if (sp.bad)
			ures_note(r, RS_NOTE_WARN, "%zu symbol%s matching '%s' in %s lie "
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
	ret = ures_resolve_files(&r);
	if (!ret && r.nc)
		ret = make_sites(&r, first);
	ures_cands_free(&r);
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
	ret = ures_resolve_files(&r);
	if (ret) {
		ures_cands_free(&r);
		return ret;
	}
	/* bpftrace names a library by its ld.so cache path; keep that when it
	 * is the very file the host maps */
	if (!strchr(target, '/') && strcmp(target, "*") &&
	    rs_ldcache_find(target, ldpath, sizeof(ldpath)) == 0) {
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
		ures_cands_free(&r);
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
	ures_cands_free(&r);
	return ret;
}

