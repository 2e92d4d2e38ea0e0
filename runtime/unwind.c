/*
 * unwind.c - the tables the BPF stack walker reads (codegen/bpfc/unwind.bpf.c):
 * each file's unwind rows, each process's executable mappings.
 *
 * Rows are built once per file (device, inode, build-id) in user space
 * (host/cfi.c) and loaded into an array map of their own, which the
 * walker finds by the file's index in unw_files (an array of maps: each
 * file's array is exactly its size, and a file is shared by every
 * process that maps it).  A process's table (unw_procs: its executable
 * mappings, sorted, each with its file's index, row count and bias) is
 * filled here:
 *   - with -p, before the probes attach, so the first stack is complete;
 *   - otherwise when the walker meets a process it has no table for, or
 *     an address outside every mapping (a dlopen since): it flags the pid
 *     in unw_stale, and the run loop's tick (at most 100 ms later, sooner
 *     when events arrive) reads /proc/PID/maps again.  That stack itself
 *     was walked with frame pointers.  A scan rather than a ring-buffer
 *     event: the flag costs one hash update, and a pid flagged a thousand
 *     times before the tick is read once.
 * What does not fit is counted and said at exit, never dropped silently:
 * files past the row budget (UNW_ROW_BYTES: with the process tables, the
 * host's tables stay under 64 MB), processes past UNW_MAX_PROCS,
 * mappings past UNW_MAX_MAPPINGS.  The map fds are BPF memory charged to
 * sonde's memory cgroup (5.11+): RLIMIT_MEMLOCK is not involved.
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "host/cfi.h"
#include "host/host.h"

#define UNW_ROW_BYTES (40u << 20)	/* every file's rows, in BPF */
#define BUILD_ID_MAX 64

struct ufile {
	uint64_t dev, ino;
	unsigned char build_id[BUILD_ID_MAX];
	size_t build_id_len;
	uint32_t index;		/* in unw_files, or UNW_NO_FILE */
	uint32_t nrows;
	struct hcfi_rows cfi;	/* its loads (the rows are freed once in BPF) */
	char why[160];		/* why it has no rows */
	double build_ms;
};

struct upid {
	int pid;
	uint64_t sig;		/* of its last mappings read */
};

struct rt_unwind {
	int files_fd, procs_fd, stale_fd, stats_fd;
	struct ufile *files;
	int nfiles;
	struct upid *pids;
	int npids;
	uint64_t row_bytes;
	uint32_t next_index;
	int over_budget, procs_full, maps_over;	/* what did not fit */
	struct unw_proc proc;	/* the table being filled */
};

static double now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int map_fd(struct rt *rt, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(rt->bpf, name);
	return m ? bpf_map__fd(m) : -1;
}

/* load rows into a new array map, its index in unw_files */
static int upload(struct rt_unwind *u, struct ufile *f)
{
	if (u->next_index >= UNW_MAX_FILES) {
		snprintf(f->why, sizeof(f->why), "more than %d files have rows", UNW_MAX_FILES);
		return -E2BIG;
	}
	uint64_t bytes = (uint64_t)f->cfi.n * sizeof(struct unw_row);
	if (u->row_bytes + bytes > UNW_ROW_BYTES) {
		snprintf(f->why, sizeof(f->why),
			 "its %u rows (%.1f MB) pass the %u MB of the walker's tables", f->cfi.n,
			 bytes / 1e6, UNW_ROW_BYTES >> 20);
		u->over_budget++;
		return -E2BIG;
	}
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_INNER_MAP);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unw_rows", 4, sizeof(struct unw_row), f->cfi.n, &o);
	if (fd < 0) {
		snprintf(f->why, sizeof(f->why), "cannot create its row map: %s", strerror(errno));
		return -errno;
	}
	int rc = 0;
	enum { CHUNK = 65536 };
	uint32_t *keys = malloc(CHUNK * sizeof(*keys));
	for (uint32_t at = 0; keys && at < f->cfi.n && !rc; at += CHUNK) {
		uint32_t n = f->cfi.n - at < CHUNK ? f->cfi.n - at : CHUNK;
		for (uint32_t i = 0; i < n; i++)
			keys[i] = at + i;
		LIBBPF_OPTS(bpf_map_batch_opts, bo);
		uint32_t count = n;
		if (bpf_map_update_batch(fd, keys, f->cfi.rows + at, &count, &bo))
			rc = -errno;
	}
	if (!keys)
		rc = -ENOMEM;
	free(keys);
	uint32_t index = u->next_index;
	if (!rc && bpf_map_update_elem(u->files_fd, &index, &fd, BPF_ANY))
		rc = -errno;
	close(fd);
	if (rc) {
		snprintf(f->why, sizeof(f->why), "cannot load its rows: %s", strerror(-rc));
		return rc;
	}
	f->index = u->next_index++;
	f->nrows = f->cfi.n;
	u->row_bytes += bytes;
	return 0;
}

/* the file mapped at m in pid: found by (dev, inode, build-id), or read */
static struct ufile *file_of(struct rt *rt, struct rt_unwind *u, int pid, const struct rs_mapping *m)
{
	uint64_t dev = makedev(m->dev_major, m->dev_minor);
	char err[256];
	int fd = rs_open_mapping(pid, m, 0, err, sizeof(err));
	if (fd < 0)
		return NULL;
	unsigned char bid[BUILD_ID_MAX];
	size_t blen = 0;
	if (rs_elf_build_id_fd(fd, bid, sizeof(bid), &blen))
		blen = 0;
	for (int i = 0; i < u->nfiles; i++) {
		struct ufile *f = &u->files[i];
		if (f->dev == dev && f->ino == m->inode && f->build_id_len == blen &&
		    !memcmp(f->build_id, bid, blen)) {
			close(fd);
			return f;
		}
	}
	struct ufile *nf = realloc(u->files, (size_t)(u->nfiles + 1) * sizeof(*nf));
	if (!nf) {
		close(fd);
		return NULL;
	}
	u->files = nf;
	struct ufile *f = &u->files[u->nfiles++];
	memset(f, 0, sizeof(*f));
	f->dev = dev;
	f->ino = m->inode;
	memcpy(f->build_id, bid, blen);
	f->build_id_len = blen;
	f->index = UNW_NO_FILE;
	double t0 = now_ms();
	int rc = hcfi_build(fd, &f->cfi, f->why, sizeof(f->why));
	f->build_ms = now_ms() - t0;
	close(fd);
	if (!rc)
		upload(u, f);
	hcfi_free(&f->cfi);
	if (rt->o->verbose)
		fprintf(stderr, "sonde: unwind rows of %s: %s%s (%u rows, %.1f ms)\n", m->path,
			f->index == UNW_NO_FILE ? "none, frame pointers: " : f->cfi.source,
			f->index == UNW_NO_FILE ? f->why : "", f->nrows, f->build_ms);
	return f;
}

static struct upid *pid_slot(struct rt_unwind *u, int pid)
{
	for (int i = 0; i < u->npids; i++)
		if (u->pids[i].pid == pid)
			return &u->pids[i];
	struct upid *np = realloc(u->pids, (size_t)(u->npids + 1) * sizeof(*np));
	if (!np)
		return NULL;
	u->pids = np;
	u->pids[u->npids] = (struct upid){.pid = pid};
	return &u->pids[u->npids++];
}

void rt_unwind_forget(struct rt *rt, int pid)
{
	struct rt_unwind *u = rt->unwind;
	if (!u)
		return;
	uint32_t key = (uint32_t)pid;
	bpf_map_delete_elem(u->procs_fd, &key);
	for (int i = 0; i < u->npids; i++)
		if (u->pids[i].pid == pid)
			u->pids[i] = u->pids[--u->npids];
}

/* the tables of processes that are gone make room */
static void forget_exited(struct rt *rt)
{
	struct rt_unwind *u = rt->unwind;
	for (int i = u->npids - 1; i >= 0; i--)
		if (kill(u->pids[i].pid, 0) && errno == ESRCH)
			rt_unwind_forget(rt, u->pids[i].pid);
}

/* (re)read pid's executable mappings into its table */
static void fill_pid(struct rt *rt, int pid)
{
	struct rt_unwind *u = rt->unwind;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	FILE *fp = fopen(path, "re");
	if (!fp)
		return;
	struct rs_mapping *m = malloc(sizeof(*m));
	char *line = NULL;
	size_t cap = 0;
	struct unw_proc *p = &u->proc;
	uint64_t sig = 1469598103934665603ull;
	int over = 0;
	p->n = 0;
	/* first the signature of the mappings: an unchanged process is done */
	struct rs_mapping *all = NULL;
	int nall = 0;
	while (m && getline(&line, &cap, fp) > 0) {
		if (rs_maps_parse_line(line, m) || m->perms[2] != 'x')
			continue;
		struct rs_mapping *na = realloc(all, (size_t)(nall + 1) * sizeof(*na));
		if (!na)
			break;
		all = na;
		all[nall++] = *m;
		sig = (sig ^ m->start ^ (m->inode << 20) ^ m->offset) * 1099511628211ull;
	}
	fclose(fp);
	free(line);
	free(m);
	struct upid *slot = pid_slot(u, pid);
	if (!slot || (slot->sig == sig && nall)) {
		free(all);
		return;
	}
	slot->sig = sig;
	for (int i = 0; i < nall; i++) {
		const struct rs_mapping *e = &all[i];
		if (p->n == UNW_MAX_MAPPINGS) {
			over++;
			continue;
		}
		struct unw_mapping *um = &p->m[p->n];
		*um = (struct unw_mapping){.start = e->start, .end = e->end, .file = UNW_NO_FILE};
		struct ufile *f = e->inode && e->path[0] == '/' ? file_of(rt, u, pid, e) : NULL;
		uint64_t bias;
		if (f && f->index != UNW_NO_FILE && !hcfi_bias(&f->cfi, e->start, e->offset, &bias)) {
			um->bias = bias;
			um->file = f->index;
			um->nrows = f->nrows;
		}
		p->n++;
	}
	free(all);
	if (over && !u->maps_over++)
		diag_warnf("process %d has %d executable mappings: the %d past %d unwind with frame pointers\n",
			   pid, p->n + over, over, UNW_MAX_MAPPINGS);
	p->gen++;
	uint32_t key = (uint32_t)pid;
	if (bpf_map_update_elem(u->procs_fd, &key, p, BPF_ANY)) {
		forget_exited(rt);
		if (bpf_map_update_elem(u->procs_fd, &key, p, BPF_ANY) && !u->procs_full++)
			diag_warnf("the stack walker's table of processes is full (%d): stacks of "
				   "process %d and later ones use frame pointers\n", UNW_MAX_PROCS, pid);
	}
}

void rt_unwind_start(struct rt *rt)
{
	int files = map_fd(rt, UNW_FILES_MAP);
	if (files < 0)
		return;	/* no ustack walks with CFI */
	struct rt_unwind *u = calloc(1, sizeof(*u));
	if (!u)
		return;
	u->files_fd = files;
	u->procs_fd = map_fd(rt, UNW_PROCS_MAP);
	u->stale_fd = map_fd(rt, UNW_STALE_MAP);
	u->stats_fd = map_fd(rt, UNW_STATS_MAP);
	rt->unwind = u;
	if (rt->o->pid > 0)
		fill_pid(rt, rt->o->pid);
}

void rt_unwind_tick(struct rt *rt)
{
	struct rt_unwind *u = rt->unwind;
	if (!u)
		return;
	uint32_t key, next;
	uint32_t pids[256];
	int n = 0;
	/* collect first: deleting while walking the keys restarts the walk */
	for (int rc = bpf_map_get_next_key(u->stale_fd, NULL, &next); !rc && n < 256;
	     rc = bpf_map_get_next_key(u->stale_fd, &key, &next)) {
		pids[n++] = next;
		key = next;
	}
	for (int i = 0; i < n; i++) {
		bpf_map_delete_elem(u->stale_fd, &pids[i]);
		fill_pid(rt, (int)pids[i]);
	}
}

void rt_unwind_report(struct rt *rt)
{
	struct rt_unwind *u = rt->unwind;
	if (!u)
		return;
	if (u->over_budget)
		diag_warnf("%d file%s had more unwind rows than the walker's %u MB hold: their frames "
			   "were walked with frame pointers (-v names them)\n",
			   u->over_budget, u->over_budget > 1 ? "s" : "", UNW_ROW_BYTES >> 20);
	if (!rt->o->verbose)
		return;
	uint64_t total[UNW_ST__COUNT] = {0};
	int ncpu = libbpf_num_possible_cpus();
	uint64_t *vals = ncpu > 0 ? calloc((size_t)ncpu, sizeof(*vals)) : NULL;
	for (uint32_t k = 0; vals && k < UNW_ST__COUNT; k++)
		if (!bpf_map_lookup_elem(u->stats_fd, &k, vals))
			for (int c = 0; c < ncpu; c++)
				total[k] += vals[c];
	free(vals);
	int with = 0;
	for (int i = 0; i < u->nfiles; i++)
		with += u->files[i].index != UNW_NO_FILE;
	fprintf(stderr,
		"sonde: unwind: %" PRIu64 " stacks walked, %" PRIu64 " frames from CFI, %" PRIu64
		" from frame pointers, %" PRIu64 " walks before the process's table, %" PRIu64
		" frames outside its mappings; %d files (%d with rows, %.1f MB), %d processes\n",
		total[UNW_ST_WALKS], total[UNW_ST_CFI], total[UNW_ST_FP], total[UNW_ST_NOPROC],
		total[UNW_ST_NOMAP], u->nfiles, with, u->row_bytes / 1e6, u->npids);
}

void rt_unwind_free(struct rt *rt)
{
	struct rt_unwind *u = rt->unwind;
	if (!u)
		return;
	free(u->files);
	free(u->pids);
	free(u);
	rt->unwind = NULL;
}
