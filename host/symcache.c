/*
 * symcache.c - naming user addresses (usym, ustack frames): the files that
 * processes map, each parsed once, and each process's executable mappings.
 *
 * Files are keyed by (dev, inode), so forty processes mapping one libc
 * parse it once.  An address of a process is named through the mapping
 * that covers it (file offset, then the file's PT_LOAD layout, then a
 * symbol: elfsym.c), so the process's mappings must be read while it
 * lives; they are kept after it exits until the runtime forgets the pid
 * (runtime/procstate.c decides when).
 *
 * A ustack frame the kernel recorded as {build-id, file offset}
 * (BPF_F_USER_BUILD_ID) needs no process at all: only a file with that
 * build-id.  Files learn their build-id when they are opened for a
 * process, when an exec names them (rs_symcache_add_path), or in a walk of
 * every live process's mappings (rs_symcache_scan) when a frame names a
 * build-id none of those had.  A file found by build-id is opened by its
 * path again and used only if it still has that build-id.
 *
 * The vDSO has no file: its image is read from /proc/PID/mem (vdso.c),
 * one per image size.  Paths are kept once per file, not per mapping, so a run that sees
 * thousands of short-lived processes of a few binaries keeps a few paths.
 * A host that runs ever new binaries (a build server's test binaries)
 * would grow the files for ever: files that no kept process maps are
 * kept as records (path, build-id) up to SC_UNUSED_MAX, and their parsed
 * symbols up to the caller's keep_open (rs_symcache_trim), the least
 * recently used dropped first but never one that named a frame since the
 * previous trim; a file found by build-id again is reopened by its path.
 */
#include "host/host_int.h"
#include "host/proc.h"
#include "common/arena.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#define BID_MAX 20	/* the kernel's BUILD_ID_SIZE_MAX */
/* files no kept process maps and not open, kept at most (known by an exec,
 * a walk, or a process that is forgotten now) */
#define SC_UNUSED_MAX 4096
/* the vDSO's dev in the cache (no device has it); its ino is the image's
 * size: one kernel maps one image per ABI, and those differ in size */
#define SC_VDSO_DEV UINT64_MAX

struct sc_file {
	uint64_t dev, ino;
	struct rs_elf *elf;	/* NULL until opened, or when it failed */
	bool failed;		/* until a scan finds it mapped by a live process */
	bool bid_read;		/* bid holds the file's build-id (bid_len 0: none) */
	size_t nmaps;		/* mappings of kept processes (sc_map) that point here */
	uint64_t used;		/* the cache's clock when it last named an address */
	unsigned char bid[BID_MAX];
	size_t bid_len;
	char *path;		/* as the first process that mapped it names it (malloc'd) */
	int root_pid;		/* path is inside /proc/root_pid/root; 0: sonde's own root */
};

struct sc_map {
	uint64_t start, end, offset;
	bool deleted;
	struct sc_file *file;
};

struct sc_proc {
	int pid;
	struct sc_map *maps;
	size_t n;
};

struct rs_symcache {
	struct sc_proc *procs;
	size_t nprocs;
	struct sc_file **files;
	size_t nfiles;
	struct sc_file *last_bid;	/* the last file found by build-id */
	uint64_t clock;		/* ticks at each address named */
	uint64_t trimmed;	/* the clock at the last rs_symcache_trim */
};

struct rs_symcache *rs_symcache_new(void)
{
	return calloc(1, sizeof(struct rs_symcache));
}

void rs_symcache_free(struct rs_symcache *c)
{
	if (!c)
		return;
	for (size_t i = 0; i < c->nprocs; i++)
		free(c->procs[i].maps);
	free(c->procs);
	for (size_t i = 0; i < c->nfiles; i++) {
		rs_elf_free(c->files[i]->elf);
		free(c->files[i]->path);
		free(c->files[i]);
	}
	free(c->files);
	free(c);
}

static struct sc_file *sc_file_find(struct rs_symcache *c, uint64_t dev, uint64_t ino)
{
	for (size_t i = 0; i < c->nfiles; i++)
		if (c->files[i]->dev == dev && c->files[i]->ino == ino)
			return c->files[i];
	return NULL;
}

static struct sc_file *sc_file_get(struct rs_symcache *c, uint64_t dev, uint64_t ino,
				   const char *path, int root_pid)
{
	struct sc_file *f = sc_file_find(c, dev, ino);
	if (f)
		return f;
	c->files = vec_grow(c->files, c->nfiles, sizeof(*c->files));
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return NULL;
	}
	f->dev = dev;
	f->ino = ino;
	f->root_pid = root_pid;
	c->files[c->nfiles++] = f;
	return f;
}

static uint64_t map_dev(const struct rs_mapping *m)
{
	return ((uint64_t)m->dev_major << 32) | m->dev_minor;
}

struct load_ctx {
	struct rs_symcache *c;
	int pid;
	struct sc_map *maps;
	size_t n;
};

static int load_cb(const struct rs_mapping *m, void *ctx)
{
	struct load_ctx *lc = ctx;
	struct sc_map *sm;
	bool vdso = !strcmp(m->path, "[vdso]");

	if (!vdso && !rs_mapping_is_exec_file(m))
		return 0;
	lc->maps = vec_grow(lc->maps, lc->n, sizeof(*lc->maps));
	sm = &lc->maps[lc->n];
	sm->start = m->start;
	sm->end = m->end;
	sm->offset = m->offset;
	sm->deleted = m->deleted;
	sm->file = vdso ? sc_file_get(lc->c, SC_VDSO_DEV, m->end - m->start, m->path, lc->pid)
			: sc_file_get(lc->c, map_dev(m), m->inode, m->path, lc->pid);
	if (!sm->file)
		return -ENOMEM;
	sm->file->nmaps++;
	lc->n++;
	return 0;
}

/* a list of mappings goes: its files lose a reference */
static void maps_free(struct sc_map *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		maps[i].file->nmaps--;
	free(maps);
}

static struct sc_proc *sc_proc_find(struct rs_symcache *c, int pid)
{
	for (size_t i = 0; i < c->nprocs; i++)
		if (c->procs[i].pid == pid)
			return &c->procs[i];
	return NULL;
}

/* (Re)read pid's executable mappings and its vDSO; the old list stays if
 * pid is gone, so addresses of exited processes still name their symbols. */
static int sc_proc_load(struct rs_symcache *c, int pid, struct sc_proc **out)
{
	struct load_ctx lc = {.c = c, .pid = pid};
	struct sc_proc *p;
	int ret = rs_maps_each_any(pid, load_cb, &lc);

	if (ret || lc.n == 0) {
		maps_free(lc.maps, lc.n);
		return ret ? ret : -ESRCH;
	}
	p = sc_proc_find(c, pid);
	if (!p) {
		c->procs = vec_grow(c->procs, c->nprocs, sizeof(*c->procs));
		p = &c->procs[c->nprocs++];
		p->pid = pid;
	} else {
		maps_free(p->maps, p->n);
	}
	p->maps = lc.maps;
	p->n = lc.n;
	*out = p;
	return 0;
}

static const struct sc_map *sc_find_map(const struct sc_proc *p, uint64_t addr)
{
	for (size_t i = 0; i < p->n; i++)
		if (addr >= p->maps[i].start && addr < p->maps[i].end)
			return &p->maps[i];
	return NULL;
}

/* parse the file open at fd (its build-id first, when not known yet);
 * fd is closed */
static void sc_parse_fd(struct sc_file *f, int fd, const char *root)
{
	char err[256];
	if (!f->bid_read) {
		f->bid_read = true;
		if (rs_elf_build_id_fd(fd, f->bid, sizeof(f->bid), &f->bid_len))
			f->bid_len = 0;
	}
	if (rs_elf_open_fd(fd, f->path, root, &f->elf, err, sizeof(err)))
		f->failed = true;
	close(fd);
}

static void sc_open_file(int pid, const struct sc_map *m)
{
	struct sc_file *f = m->file;
	struct rs_mapping *rm;
	char err[256], root[64];
	int fd;

	if (f->elf || f->failed)
		return;
	if (f->dev == SC_VDSO_DEV) {
		/* a process that is gone leaves it to the next one */
		int ret = rs_vdso_open(pid, m->start, m->end, &f->elf, err, sizeof(err));
		if (ret && ret != -ESRCH)
			f->failed = true;
		return;
	}
	rm = calloc(1, sizeof(*rm));
	if (!rm)
		return;
	rm->start = m->start;
	rm->end = m->end;
	rm->offset = m->offset;
	rm->dev_major = (unsigned)(f->dev >> 32);
	rm->dev_minor = (unsigned)f->dev;
	rm->inode = f->ino;
	rm->deleted = m->deleted;
	snprintf(rm->path, sizeof(rm->path), "%s", f->path);
	fd = rs_open_mapping(pid, rm, 0, err, sizeof(err));
	free(rm);
	if (fd < 0) {
		/* a vanished process may leave the file openable through
		 * another pid later; a real failure waits for a scan */
		if (fd != -ESRCH && fd != -ESTALE)
			f->failed = true;
		return;
	}
	snprintf(root, sizeof(root), "/proc/%d/root", pid);
	sc_parse_fd(f, fd, root);
}

int rs_usym(struct rs_symcache *c, int pid, uint64_t addr, struct rs_usym *out)
{
	struct sc_proc *p = sc_proc_find(c, pid);
	const struct sc_map *m = NULL;
	const struct rs_sym *s;
	uint64_t vaddr;

	memset(out, 0, sizeof(*out));
	if (p)
		m = sc_find_map(p, addr);
	if (!m) {
		/* new process, or a library mapped since we last looked */
		int ret = sc_proc_load(c, pid, &p);
		if (ret && !p)
			return ret == -ENOMEM ? ret : -ESRCH;
		m = sc_find_map(p, addr);
		if (!m)
			return -ENOENT;
	}
	out->file = m->file->path;
	sc_open_file(pid, m);
	if (!m->file->elf)
		return -ENOENT;
	m->file->used = ++c->clock;
	if (rs_elf_offset_to_vaddr(m->file->elf, addr - m->start + m->offset, &vaddr))
		return -ENOENT;
	out->vaddr = vaddr;
	s = rs_elf_addr_sym(m->file->elf, vaddr);
	if (!s)
		return -ENOENT;
	out->name = s->name;
	out->off = vaddr - s->vaddr;
	return 0;
}

int rs_symcache_capture(struct rs_symcache *c, int pid)
{
	struct sc_proc *p;
	int ret = sc_proc_load(c, pid, &p);
	if (ret)
		return ret;
	/* each file (and the vDSO) while /proc/PID/map_files still has it */
	for (size_t i = 0; i < p->n; i++)
		sc_open_file(pid, &p->maps[i]);
	return 0;
}

void rs_symcache_forget(struct rs_symcache *c, int pid)
{
	for (size_t i = 0; i < c->nprocs; i++) {
		if (c->procs[i].pid != pid)
			continue;
		maps_free(c->procs[i].maps, c->procs[i].n);
		c->procs[i] = c->procs[--c->nprocs];
		return;
	}
}

size_t rs_symcache_nprocs(const struct rs_symcache *c)
{
	return c ? c->nprocs : 0;
}

/* ---- files by build-id ------------------------------------------------------- */

static int open_in(int root_pid, const char *path)
{
	char root[64];
	if (!root_pid)
		return open(path, O_RDONLY | O_CLOEXEC);
	snprintf(root, sizeof(root), "/proc/%d/root", root_pid);
	return rs_open_in_root(root, path, O_RDONLY);
}

static void learn_needed(const char *soname, void *ctx);

/* read the build-id of the file at path (inside root_pid's root) and keep
 * the file under its (dev, inode).  With needed, a file met for the first
 * time also has the libraries it names (DT_NEEDED, found as this
 * machine's dynamic linker finds them: the caller knows it runs in
 * sonde's root) learnt: a process that lives a millisecond has its libc
 * known before its first stack is named, not only when a walk of the
 * live processes finds a process that maps it */
static struct sc_file *learn_path(struct rs_symcache *c, int root_pid, const char *path, bool needed)
{
	struct stat st;
	int fd = open_in(root_pid, path);
	if (fd < 0)
		return NULL;
	struct sc_file *f = NULL;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
		uint64_t dev = ((uint64_t)major(st.st_dev) << 32) | minor(st.st_dev);
		f = sc_file_get(c, dev, st.st_ino, path, root_pid);
		if (f && !f->bid_read) {
			f->bid_read = true;
			if (rs_elf_build_id_fd(fd, f->bid, sizeof(f->bid), &f->bid_len))
				f->bid_len = 0;
			if (needed)
				rs_elf_needed_fd(fd, learn_needed, c);
		}
	}
	close(fd);
	return f;
}

static void learn_needed(const char *soname, void *ctx)
{
	char lib[4096];
	if (!rs_ldcache_find(soname, lib, sizeof(lib)))
		learn_path(ctx, 0, lib, false);
}

/* pid's root is sonde's own (not a container's) */
static bool same_root(int pid)
{
	char fn[64];
	struct stat a, b;
	snprintf(fn, sizeof(fn), "/proc/%d/root", pid);
	return !stat(fn, &a) && !stat("/", &b) && a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/* files no kept process maps and not open: records, beyond SC_UNUSED_MAX
 * the oldest go (never while a stack is named: an exec event or a trim) */
static void trim_records(struct rs_symcache *c)
{
	size_t unused = 0, j = 0;
	for (size_t i = 0; i < c->nfiles; i++)
		unused += !c->files[i]->nmaps && !c->files[i]->elf;
	for (size_t i = 0; i < c->nfiles; i++) {
		struct sc_file *f = c->files[i];
		if (unused > SC_UNUSED_MAX && !f->nmaps && !f->elf) {
			unused--;
			if (c->last_bid == f)
				c->last_bid = NULL;
			free(f->path);
			free(f);
			continue;
		}
		c->files[j++] = f;
	}
	c->nfiles = j;
}

static int by_use(const void *a, const void *b)
{
	const struct sc_file *x = *(struct sc_file *const *)a, *y = *(struct sc_file *const *)b;
	return x->used < y->used ? -1 : x->used > y->used;
}

void rs_symcache_trim(struct rs_symcache *c, size_t keep_open)
{
	/* open files no kept process maps (not the vDSO: only a live
	 * process gives its image) */
	struct sc_file **open = malloc((c->nfiles ? c->nfiles : 1) * sizeof(*open));
	size_t n = 0;
	for (size_t i = 0; open && i < c->nfiles; i++)
		if (c->files[i]->elf && !c->files[i]->nmaps && c->files[i]->dev != SC_VDSO_DEV)
			open[n++] = c->files[i];
	if (n > keep_open) {
		qsort(open, n, sizeof(*open), by_use);
		/* the least recently used first; one that named an address
		 * since the last trim is in use: it stays */
		for (size_t i = 0; i < n - keep_open && open[i]->used <= c->trimmed; i++) {
			rs_elf_free(open[i]->elf);
			open[i]->elf = NULL;
		}
	}
	free(open);
	trim_records(c);
	c->trimmed = c->clock;
}

size_t rs_symcache_nopen(const struct rs_symcache *c)
{
	size_t n = 0;
	for (size_t i = 0; c && i < c->nfiles; i++)
		n += c->files[i]->elf != NULL;
	return n;
}

void rs_symcache_add_path(struct rs_symcache *c, int pid, const char *path)
{
	/* relative to the process's cwd, which is gone with it: named from
	 * the process's root while it lives, else from sonde's own */
	if (!c || !path[0])
		return;
	trim_records(c);
	char fn[64];
	snprintf(fn, sizeof(fn), "/proc/%d/root", pid);
	if (pid > 0 && path[0] == '/' && access(fn, F_OK) == 0 &&
	    learn_path(c, pid, path, same_root(pid)))
		return;
	learn_path(c, 0, path, true);
}

static bool bid_eq(const struct sc_file *f, const unsigned char *bid)
{
	/* the kernel pads a shorter build-id (an md5 one, 16 bytes) with zeros */
	unsigned char pad[BID_MAX] = {0};
	if (!f->bid_read || !f->bid_len)
		return false;
	memcpy(pad, f->bid, f->bid_len);
	return !memcmp(pad, bid, BID_MAX);
}


/* open f for its symbols: by its path (still that build-id), else through
 * a process whose mappings hold it */
static void open_by_bid(struct rs_symcache *c, struct sc_file *f)
{
	/* a file that failed through a process (one that was exiting: its
	 * map_files and root go before its pid) is still tried by its path:
	 * the build-id says if it is the file.  Failed, only the processes'
	 * mappings below are not tried again (a short-lived program whose
	 * every run exits before sonde reads it: CI's t_exited --serve run
	 * printed its frames as offsets) */
	if (f->elf)
		return;
	bool failed = f->failed;
	f->failed = false;
	/* inside the root of the process it was learnt from, else sonde's
	 * own (that process may be gone) */
	for (int k = 0; k < 2; k++) {
		int root_pid = k ? 0 : f->root_pid;
		int fd = k && !f->root_pid ? -1 : open_in(root_pid, f->path);
		if (fd < 0)
			continue;
		unsigned char bid[BID_MAX] = {0};
		size_t len = 0;
		if (!rs_elf_build_id_fd(fd, bid, sizeof(bid), &len) && len == f->bid_len &&
		    !memcmp(bid, f->bid, len)) {
			char root[64];
			snprintf(root, sizeof(root), "/proc/%d/root", root_pid);
			sc_parse_fd(f, fd, root_pid ? root : "/");
			return;
		}
		close(fd);
	}
	if (failed || f->failed) {
		f->failed = true;
		return;
	}
	for (size_t i = 0; i < c->nprocs; i++)
		for (size_t j = 0; j < c->procs[i].n; j++)
			if (c->procs[i].maps[j].file == f) {
				sc_open_file(c->procs[i].pid, &c->procs[i].maps[j]);
				if (f->elf || f->failed)
					return;
			}
}

int rs_usym_build_id(struct rs_symcache *c, const unsigned char *bid, uint64_t off,
		     struct rs_usym *out)
{
	memset(out, 0, sizeof(*out));
	/* the last one found, else every file with that build-id (copies,
	 * one file seen through two mounts) until one opens */
	struct sc_file *f = c->last_bid && c->last_bid->elf && bid_eq(c->last_bid, bid) ? c->last_bid : NULL;
	for (size_t i = 0; !f && i < c->nfiles; i++) {
		if (!bid_eq(c->files[i], bid))
			continue;
		open_by_bid(c, c->files[i]);
		if (c->files[i]->elf)
			f = c->files[i];
	}
	if (!f)	/* none, or none that opens now: a walk may find one */
		return -ESRCH;
	c->last_bid = f;
	f->used = ++c->clock;
	out->file = f->path;
	uint64_t vaddr;
	if (!f->elf || rs_elf_offset_to_vaddr(f->elf, off, &vaddr))
		return -ENOENT;
	out->vaddr = vaddr;
	const struct rs_sym *s = rs_elf_addr_sym(f->elf, vaddr);
	if (!s)
		return -ENOENT;
	out->name = s->name;
	out->off = vaddr - s->vaddr;
	return 0;
}

struct scan_ctx {
	struct rs_symcache *c;
	int pid;
};

static int scan_cb(const struct rs_mapping *m, void *ctx)
{
	struct scan_ctx *sc = ctx;
	struct sc_file *f = sc_file_find(sc->c, map_dev(m), m->inode);
	/* a file that failed to open or parse through a process (one that was
	 * exiting: its root goes before its pid) is tried again through this
	 * live one, once a scan (SCAN_EVERY_S at most) */
	if (f)
		f->failed = false;
	if (f && (f->elf || (f->bid_read && !f->bid_len)))
		return 0;
	if (!f && !(f = sc_file_get(sc->c, map_dev(m), m->inode, m->path, sc->pid)))
		return -ENOMEM;
	/* learnt (or known, but its process is gone and its path did not
	 * open) through this live process: reopened through its root.  No
	 * stack was named through f yet: it was never opened */
	f->root_pid = sc->pid;
	char *p = strcmp(f->path, m->path) ? strdup(m->path) : NULL;
	if (p) {
		free(f->path);
		f->path = p;
	}
	if (f->bid_read)
		return 0;
	char err[256];
	int fd = rs_open_mapping(sc->pid, m, 0, err, sizeof(err));
	if (fd < 0)
		return 0;
	f->bid_read = true;
	if (rs_elf_build_id_fd(fd, f->bid, sizeof(f->bid), &f->bid_len))
		f->bid_len = 0;
	close(fd);
	return 0;
}

int rs_symcache_scan(struct rs_symcache *c)
{
	int *pids;
	size_t n;
	int ret = host_proc_ids(0, &pids, &n);
	if (ret)
		return ret;
	for (size_t i = 0; i < n; i++) {
		struct scan_ctx sc = {c, pids[i]};
		if (rs_maps_each(pids[i], scan_cb, &sc) == -ENOMEM) {
			ret = -ENOMEM;
			break;
		}
	}
	free(pids);
	return ret;
}
