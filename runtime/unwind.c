/*
 * unwind.c - the tables the BPF stack walker reads (codegen/bpfc/unwind.bpf.c):
 * each file's unwind rows, each process's executable mappings.
 *
 * Rows are built once per file (device, inode, build-id) in user space
 * (host/cfi.c) and loaded into an array map of their own, which the
 * walker finds by the file's index in unw_files (an array of maps: each
 * file's array is exactly its size).  unw_known tells the walker, by the
 * (device, inode) of the file a frame's mapping maps (the kernel's VMA,
 * bpf_find_vma), the file's index, row count and address delta.  So
 * there is no per-process state: a file is read once for every process
 * that maps it, and a process's first stack unwinds as its last does.
 * Files are read:
 *   - before the probes attach: the files -p's process maps, the -c
 *     command, the uprobe targets named by path, and the libc and dynamic
 *     loader sonde itself maps (every dynamic program's, on the host);
 *   - otherwise when the walker meets a file it does not know: it flags
 *     it in unw_stale with the pid and the address (that frame takes a
 *     frame-pointer step), the run loop's tick (at most 100 ms later,
 *     sooner when events arrive) takes the flags, and a thread of this
 *     file's reads the files that process maps: off the run loop, whose
 *     events and stop do not wait for a large library (libtorch_cpu's
 *     1.4 M rows take about 2 s).  A scan rather than a ring-buffer
 *     event: a flag costs one hash update, and a file flagged a thousand
 *     times before the tick is read once.  A process gone before the
 *     thread comes to its flag (a program that runs for a millisecond)
 *     has its program read by the path its exec named (the exec watcher,
 *     rt_unwind_exec), so its later runs unwind through it.  Once the thread runs, it alone
 *     touches the files (struct rt_unwind but the queue) and writes
 *     unw_files and unw_known (the tick: unw_stale); it shares nothing
 *     else with the run loop (no symbols, no arena: /proc, the files, its
 *     own libelf/libdw handles).  The report and the end stop it first:
 *     the file it is reading is given up (hcfi_build_until), the rest of
 *     that process's files and of its batch left.
 * The key is the (device, inode) /proc/PID/maps shows, which is the
 * walker's, the kernel's VMA's file, but for a stacking file system:
 * since Linux 6.8 the maps of a file in an overlayfs (a container's, the
 * kernel suite's guests) show the overlay's device and inode, where the
 * mapping's file is the layer's, whose device user space cannot see.  So
 * a flagged key that is not the maps' is learnt: the file mapped at its
 * address is known under it too, and when the two inode numbers agree,
 * every file of that maps device is (a device the kernel names otherwise,
 * `devs`), so the other files of a process need no flag of their own.
 * What does not fit is counted and said at exit, never dropped silently:
 * files past the row budget (UNW_ROW_BYTES: with the rest of the walker's
 * maps, under 64 MB for the whole host), files past UNW_MAX_FILES.  The
 * maps are BPF memory charged to sonde's memory cgroup (5.11+, which the
 * walker's bpf_loop implies): RLIMIT_MEMLOCK is not involved.
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "common/file.h"
#include "host/cfi.h"
#include "host/host.h"

#define BUILD_ID_MAX 64
#define UNW_NO_FILE 0xffffffffu	/* struct ufile: no rows */

struct ufile {
	struct unw_file_key key;
	unsigned char build_id[BUILD_ID_MAX];
	size_t build_id_len;
	struct unw_file val;	/* index UNW_NO_FILE: no rows */
	const char *source;
	char why[160];		/* why it has no rows */
	double build_ms;
	bool deferred;		/* past a sweep's share: unknown to the walker until it meets it */
};

/* a process's files read before the walker met them (the sweep of -p's
 * process, of a flagged process) take at most this share of the rows: the
 * rest is for the files the walker meets.  A service that maps 320 files
 * (Debian's torch: GDAL, OpenCV, FFmpeg, HDF5 ... 69 MB of rows) filled
 * the whole budget in maps order, and libtorch_cpu, libstdc++ and
 * _asyncio, where its stacks run, were walked with frame pointers */
#define UNW_SWEEP_BYTES (UNW_ROW_BYTES / 2)

#define UNW_MAX_DEVS 16
#define UNW_QUEUE 256	/* flags waiting for the thread, as unw_stale holds */
#define UNW_EXECS 64	/* the latest execs' paths (rt_unwind_exec) */

struct unw_flag {
	struct unw_file_key key;	/* the kernel's */
	struct unw_stale at;
};

struct rt_unwind {
	int files_fd, known_fd, stale_fd, stats_fd;
	struct ufile *files;
	int nfiles;
	/* devices /proc/PID/maps names otherwise than the kernel's VMA */
	struct { uint64_t maps, kernel; } devs[UNW_MAX_DEVS];
	int ndevs;
	uint64_t row_bytes;
	uint32_t next_index;
	int over_budget, too_many;	/* what did not fit */
	/* the thread that reads flagged files, and its queue (under mu) */
	struct rt *rt;
	pthread_t thread;
	bool threaded;
	atomic_bool stop;	/* set under mu; read by a build too */
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct unw_flag queue[UNW_QUEUE];
	int nqueue;
	struct { int pid; char path[256]; } execs[UNW_EXECS];	/* a ring, under mu */
	unsigned nexecs;
};

static void *reader(void *arg);

static double now_ms(void)
{
	return (double)rt_mono_ns() / 1e6;
}

static int map_fd(struct rt *rt, const char *name)
{
	struct bpf_map *m = bpf_object__find_map_by_name(rt->bpf, name);
	return m ? bpf_map__fd(m) : -1;
}

/* load rows into a new array map, its index in unw_files */
static int upload(struct rt_unwind *u, struct ufile *f, const struct hcfi_rows *cfi, bool met)
{
	if (u->next_index >= UNW_MAX_FILES) {
		snprintf(f->why, sizeof(f->why), "more than %d files have rows", UNW_MAX_FILES);
		u->too_many++;
		return -E2BIG;
	}
	uint64_t bytes = (uint64_t)cfi->n * sizeof(struct unw_row);
	if (!met && u->row_bytes + bytes > UNW_SWEEP_BYTES && u->row_bytes + bytes <= UNW_ROW_BYTES) {
		snprintf(f->why, sizeof(f->why), "deferred: its %u rows (%.1f MB) are read when a stack "
			 "meets it (a sweep fills at most %u MB)", cfi->n, bytes / 1e6,
			 UNW_SWEEP_BYTES >> 20);
		f->deferred = true;
		return -EAGAIN;
	}
	if (u->row_bytes + bytes > UNW_ROW_BYTES) {
		snprintf(f->why, sizeof(f->why),
			 "its %u rows (%.1f MB) pass the %u MB of the walker's tables", cfi->n,
			 bytes / 1e6, UNW_ROW_BYTES >> 20);
		u->over_budget++;
		return -E2BIG;
	}
	LIBBPF_OPTS(bpf_map_create_opts, o, .map_flags = BPF_F_INNER_MAP);
	int fd = bpf_map_create(BPF_MAP_TYPE_ARRAY, "unw_rows", 4, sizeof(struct unw_row), cfi->n, &o);
	if (fd < 0) {
		snprintf(f->why, sizeof(f->why), "cannot create its row map: %s", strerror(errno));
		return -errno;
	}
	int rc = 0;
	enum { CHUNK = 65536 };
	uint32_t *keys = malloc(CHUNK * sizeof(*keys));
	for (uint32_t at = 0; keys && at < cfi->n && !rc; at += CHUNK) {
		uint32_t n = cfi->n - at < CHUNK ? cfi->n - at : CHUNK;
		for (uint32_t i = 0; i < n; i++)
			keys[i] = at + i;
		LIBBPF_OPTS(bpf_map_batch_opts, bo);
		uint32_t count = n;
		if (bpf_map_update_batch(fd, keys, cfi->rows + at, &count, &bo))
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
	f->val.index = u->next_index++;
	f->val.nrows = cfi->n;
	u->row_bytes += bytes;
	return 0;
}

static bool same_key(struct unw_file_key a, struct unw_file_key b)
{
	return a.dev == b.dev && a.ino == b.ino;
}

/* the file read under key, or under the maps' key of a kernel's key */
static struct ufile *find_file(struct rt_unwind *u, struct unw_file_key key)
{
	for (int i = 0; i < u->nfiles; i++) {
		struct unw_file_key k = u->files[i].key;
		if (same_key(k, key))
			return &u->files[i];
		for (int d = 0; d < u->ndevs; d++)
			if (k.ino == key.ino && k.dev == u->devs[d].maps && key.dev == u->devs[d].kernel)
				return &u->files[i];
	}
	return NULL;
}

/* tell the walker the file f under its key, and under the kernel's
 * name of its device; false when unw_known is full */
static bool publish(struct rt_unwind *u, const struct ufile *f)
{
	/* known with no rows too: its frames take frame-pointer steps, and
	 * the walker does not ask for it again */
	struct unw_file val = f->val;
	if (val.index == UNW_NO_FILE)
		val.index = val.nrows = 0;
	bool ok = !bpf_map_update_elem(u->known_fd, &f->key, &val, BPF_ANY);
	for (int d = 0; d < u->ndevs; d++)
		if (f->key.dev == u->devs[d].maps) {
			struct unw_file_key k = {u->devs[d].kernel, f->key.ino};
			ok = !bpf_map_update_elem(u->known_fd, &k, &val, BPF_ANY) && ok;
		}
	return ok;
}

/* the rows a sweep may still read: a file that has more is not read
 * whole (libtorch's service maps 140 such files, whose rows took half of
 * its sweep's time to be set aside) but deferred where its rows pass them */
static uint32_t sweep_rows_left(const struct rt_unwind *u)
{
	return u->row_bytes < UNW_SWEEP_BYTES ?
		(uint32_t)((UNW_SWEEP_BYTES - u->row_bytes) / sizeof(struct unw_row)) : 0;
}

/* make the file open at fd (named path, for -v) known to the walker; fd
 * -1: a file that cannot be opened (why), known to have no rows */
static void read_file(struct rt *rt, struct rt_unwind *u, int fd, struct unw_file_key key,
		      const char *path, const char *why, bool met)
{
	unsigned char bid[BUILD_ID_MAX];
	size_t blen = 0;
	if (fd < 0 || rs_elf_build_id_fd(fd, bid, sizeof(bid), &blen))
		blen = 0;
	struct ufile *f = NULL;
	for (int i = 0; i < u->nfiles && !f; i++)
		if (same_key(u->files[i].key, key))
			f = &u->files[i];
	/* the same inode with another build-id: a file replaced in place.  A
	 * known file that does not open now (its process exited while its
	 * maps were read) keeps what was read: it was not replaced */
	if (f && (fd < 0 || (f->build_id_len == blen && !memcmp(f->build_id, bid, blen))) &&
	    !(f->deferred && met))
		return;
	if (!f) {
		struct ufile *nf = realloc(u->files, (size_t)(u->nfiles + 1) * sizeof(*nf));
		if (!nf)
			return;
		u->files = nf;
		f = &u->files[u->nfiles++];
	}
	memset(f, 0, sizeof(*f));
	f->key = key;
	memcpy(f->build_id, bid, blen);
	f->build_id_len = blen;
	f->val.index = UNW_NO_FILE;
	/* the walker's build-id frames (UNW_BUILD_IDS): the kernel's at most
	 * 20 bytes, zero-padded as it pads them; the vDSO's frames stay
	 * addresses, named by sonde's own image */
	if (blen && blen <= sizeof(f->val.build_id) &&
	    !(key.dev == UNW_VDSO_DEV && key.ino == UNW_VDSO_INO)) {
		memcpy(f->val.build_id, bid, blen);
		f->val.has_build_id = 1;
	}
	struct hcfi_rows cfi;
	double t0 = now_ms();
	int64_t delta = 0;
	int rc = -EBADF;
	memset(&cfi, 0, sizeof(cfi));
	if (fd < 0)
		snprintf(f->why, sizeof(f->why), "%s", why);
	else
		rc = hcfi_build_max(fd, &u->stop, met ? HCFI_MAX_ROWS : sweep_rows_left(u), &cfi,
				    f->why, sizeof(f->why));
	if (rc == -EFBIG) {
		snprintf(f->why, sizeof(f->why), "deferred: more rows than a sweep's share has left "
			 "(a sweep fills at most %u MB), read when a stack meets it",
			 UNW_SWEEP_BYTES >> 20);
		f->deferred = true;
	}
	if (!rc && hcfi_exec_delta(&cfi, &delta)) {
		snprintf(f->why, sizeof(f->why), "no executable segment");
		rc = -ENOENT;
	}
	f->val.delta = delta;
	if (!rc)
		upload(u, f, &cfi, met);
	f->source = cfi.source;
	hcfi_free(&cfi);
	f->build_ms = now_ms() - t0;
	/* a deferred file stays unknown: the walker flags it when it meets it */
	if (!f->deferred && !publish(u, f) && !u->too_many++)
		diag_warnf("the stack walker knows %d files, its most: frames in %s and later files "
			   "are walked with frame pointers\n", UNW_MAX_KNOWN, path);
	if (rt->o->verbose)
		fprintf(stderr, "sonde: unwind rows of %s: %s%s (%u rows, %.1f ms)\n", path,
			f->val.index == UNW_NO_FILE ? "none, frame pointers: " : f->source,
			f->val.index == UNW_NO_FILE ? f->why : "", f->val.nrows, f->build_ms);
}


struct pid_read {
	struct rt *rt;
	int pid;
	const char *only;
	const struct unw_flag *met;	/* the walker's flags: these files are read whole */
	int nmet;
};

static int read_mapping(const struct rs_mapping *m, void *ctx)
{
	struct pid_read *pr = ctx;
	/* the reader thread's: sonde's end leaves the rest of the files */
	if (atomic_load(&pr->rt->unwind->stop))
		return -ECANCELED;
	if (m->path[0] != '/' || (pr->only && !strstr(m->path, pr->only)))
		return 0;
	/* the kernel's dev_t, as the walker reads it from the inode */
	struct unw_file_key key = {((uint64_t)m->dev_major << 20) | m->dev_minor, m->inode};
	char err[256];
	/* a known file too: its build-id tells one rewritten in place */
	int fd = rs_open_mapping(pr->pid, m, 0, err, sizeof(err));
	/* the process exited (the reader thread may come to it seconds after
	 * its flag): its files are not known to have no rows, and the next
	 * process that maps one flags it */
	if (fd == -ESRCH)
		return -ESRCH;
	bool met = false;
	for (int i = 0; i < pr->nmet && !met; i++)
		met = same_key(pr->met[i].key, key) && (int)pr->met[i].at.pid == pr->pid;
	read_file(pr->rt, pr->rt->unwind, fd, key, m->path, err, met);
	if (fd >= 0)
		close(fd);
	return 0;
}

struct mappings {
	struct rs_mapping *m;
	int n, cap;
};

static int keep_mapping(const struct rs_mapping *m, void *ctx)
{
	struct mappings *ms = ctx;
	if (ms->n == ms->cap) {
		int cap = ms->cap ? ms->cap * 2 : 64;
		struct rs_mapping *nm = realloc(ms->m, (size_t)cap * sizeof(*nm));
		if (!nm)
			return -ENOMEM;
		ms->m = nm;
		ms->cap = cap;
	}
	ms->m[ms->n++] = *m;
	return 0;
}

static int by_size(const void *a, const void *b)
{
	const struct rs_mapping *x = a, *y = b;
	uint64_t sx = x->end - x->start, sy = y->end - y->start;
	return sx != sy ? (sx < sy ? -1 : 1) : (x->start > y->start) - (x->start < y->start);
}

/* the files pid maps executable, the smallest mapping first (a sweep's
 * share then covers as many files as it can, and a file too large for it
 * waits for a stack: the PyTorch service's _asyncio, libc10 and
 * libstdc++ were deferred behind GDAL's and OpenCV's in maps order); with
 * only set, those whose path has it.  -ESRCH: the process is gone (before
 * or while its maps were read) */
static int read_pid(struct rt *rt, int pid, const char *only, const struct unw_flag *met, int nmet)
{
	struct pid_read pr = {rt, pid, only, met, nmet};
	struct mappings ms = {0};
	int rc = rs_maps_each(pid, keep_mapping, &ms);
	if (!rc && ms.n)
		qsort(ms.m, (size_t)ms.n, sizeof(*ms.m), by_size);
	for (int i = 0; !rc && i < ms.n; i++)
		rc = read_mapping(&ms.m[i], &pr);
	free(ms.m);
	return rc;
}

/* a file by its path (uprobe targets, the -c command) */
static void read_path(struct rt *rt, const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (!fstat(fd, &st) && S_ISREG(st.st_mode)) {
		struct unw_file_key key = {((uint64_t)major(st.st_dev) << 20) | minor(st.st_dev),
					   st.st_ino};
		if (!find_file(rt->unwind, key))
			read_file(rt, rt->unwind, fd, key, path, NULL, true);
	}
	close(fd);
}

/* a program (cmd, or its first word: the -c command), a path, or found in
 * PATH as execvp does; a library's short name (libc)
 * is none of these, and its file was read with sonde's own */
static void read_program(struct rt *rt, const char *cmd, bool first_word)
{
	char word[RS_PATH_MAX], path[RS_PATH_MAX];
	size_t n = first_word ? strcspn(cmd, " \t") : strlen(cmd);
	if (!n || n >= sizeof(word))
		return;
	memcpy(word, cmd, n);
	word[n] = '\0';
	if (strchr(word, '/')) {
		read_path(rt, word);
		return;
	}
	if (file_which(word, path, sizeof(path)))
		read_path(rt, path);
}

/* the vDSO: no file backs it, and one kernel maps one image (per ABI) in
 * every process, so sonde's own gives the rows */
static void read_vdso(struct rt *rt)
{
	uint64_t start, end;
	if (rs_vdso_mapping(getpid(), &start, &end))
		return;
	int fd = memfd_create("sonde-vdso-cfi", MFD_CLOEXEC);
	if (fd < 0)
		return;
	bool ok = write(fd, (const void *)(uintptr_t)start, end - start) == (ssize_t)(end - start) &&
		  lseek(fd, 0, SEEK_SET) == 0;
	struct unw_file_key key = {UNW_VDSO_DEV, UNW_VDSO_INO};
	read_file(rt, rt->unwind, ok ? fd : -1, key, "[vdso]", "cannot copy sonde's own vDSO", true);
	close(fd);
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
	u->known_fd = map_fd(rt, UNW_KNOWN_MAP);
	u->stale_fd = map_fd(rt, UNW_STALE_MAP);
	u->stats_fd = map_fd(rt, UNW_STATS_MAP);
	rt->unwind = u;
	u->rt = rt;
	pthread_mutex_init(&u->mu, NULL);
	pthread_cond_init(&u->cv, NULL);
	read_vdso(rt);
	read_pid(rt, getpid(), "/libc.so", NULL, 0);
	read_pid(rt, getpid(), "/ld-linux", NULL, 0);
	if (rt->o->pid > 0)
		read_pid(rt, rt->o->pid, NULL, NULL, 0);
	if (rt->o->child_cmd)
		read_program(rt, rt->o->child_cmd, true);
	for (int i = 0; i < rt->r->nprobes; i++)
		for (int j = 0; j < rt->r->probes[i].nattach; j++) {
			const struct sema_attach *at = &rt->r->probes[i].attach[j];
			if ((at->type == PT_UPROBE || at->type == PT_URETPROBE) && at->target)
				read_program(rt, at->target, false);
		}
	/* the reader: signals stay the run loop's (the thread blocks them) */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, &old);
	u->threaded = !pthread_create(&u->thread, NULL, reader, u);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

/* the walker flagged the file mapped at s->addr under key k, which is not
 * a key it was read under: learn the kernel's name for it (above) */
static void learn(struct rt *rt, struct unw_file_key k, const struct unw_stale *s)
{
	struct rt_unwind *u = rt->unwind;
	char path[64];
	snprintf(path, sizeof(path), "/proc/%u/maps", s->pid);
	FILE *fp = fopen(path, "re");
	struct rs_mapping *m = malloc(sizeof(*m));
	char *line = NULL;
	size_t cap = 0;
	bool found = false;
	while (fp && m && !found && getline(&line, &cap, fp) > 0)
		found = !rs_maps_parse_line(line, m) && m->start <= s->addr && s->addr < m->end &&
			rs_mapping_is_exec_file(m);
	struct unw_file_key mk = {found ? ((uint64_t)m->dev_major << 20) | m->dev_minor : 0,
				  found ? m->inode : 0};
	struct ufile *f = found && !same_key(mk, k) ? find_file(u, mk) : NULL;
	if (f && mk.ino == k.ino && u->ndevs < UNW_MAX_DEVS) {
		u->devs[u->ndevs].maps = mk.dev;
		u->devs[u->ndevs++].kernel = k.dev;
		for (int i = 0; i < u->nfiles; i++)
			if (u->files[i].key.dev == mk.dev)
				publish(u, &u->files[i]);
		if (rt->o->verbose)
			fprintf(stderr, "sonde: unwind: the files of device %u:%u in the maps are on "
				"%u:%u to the kernel (%s)\n", (unsigned)(mk.dev >> 20),
				(unsigned)(mk.dev & 0xfffff),
				(unsigned)(k.dev >> 20), (unsigned)(k.dev & 0xfffff), m->path);
	} else if (f) {
		/* another inode number too: this file alone, under the kernel's key */
		struct ufile *nf = realloc(u->files, (size_t)(u->nfiles + 1) * sizeof(*nf));
		if (nf) {
			u->files = nf;
			f = &nf[f - u->files];
			nf[u->nfiles] = *f;
			nf[u->nfiles].key = k;
			publish(u, &nf[u->nfiles++]);
			if (rt->o->verbose)
				fprintf(stderr, "sonde: unwind: %s is inode %" PRIu64 " to the kernel\n",
					m->path, (uint64_t)k.ino);
		}
	}
	if (fp)
		fclose(fp);
	free(line);
	free(m);
}

/* a process gone before its files were read (a program that runs for a
 * millisecond is, by the time the thread comes to its flag): its program
 * by the path its exec named, so its next runs unwind through it */
static void read_exec(struct rt *rt, int pid)
{
	struct rt_unwind *u = rt->unwind;
	char path[sizeof(u->execs[0].path)] = "";
	pthread_mutex_lock(&u->mu);
	for (unsigned i = 0; i < UNW_EXECS && i < u->nexecs && !path[0]; i++) {
		unsigned k = (u->nexecs - 1 - i) % UNW_EXECS;	/* the latest first */
		if (u->execs[k].pid == pid)
			memcpy(path, u->execs[k].path, sizeof(path));
	}
	pthread_mutex_unlock(&u->mu);
	if (path[0])
		read_path(rt, path);
}

void rt_unwind_exec(struct rt *rt, int pid, const char *path)
{
	struct rt_unwind *u = rt->unwind;
	if (!u || path[0] != '/' || strlen(path) >= sizeof(u->execs[0].path))
		return;
	pthread_mutex_lock(&u->mu);
	unsigned k = u->nexecs++ % UNW_EXECS;
	u->execs[k].pid = pid;
	strcpy(u->execs[k].path, path);
	pthread_mutex_unlock(&u->mu);
}

/* the flags' files: each process's once a batch, then each key still unknown */
static void read_flagged(struct rt *rt, const struct unw_flag *fl, int n)
{
	for (int i = 0; i < n && !atomic_load(&rt->unwind->stop); i++) {
		bool seen = false;
		for (int j = 0; j < i && !seen; j++)
			seen = fl[j].at.pid == fl[i].at.pid;
		int pid = (int)fl[i].at.pid;
		if (!seen && read_pid(rt, pid, NULL, fl, n) == -ESRCH && !find_file(rt->unwind, fl[i].key))
			read_exec(rt, pid);
		if (!find_file(rt->unwind, fl[i].key))
			learn(rt, fl[i].key, &fl[i].at);
	}
}

static void *reader(void *arg)
{
	struct rt_unwind *u = arg;
	struct unw_flag batch[UNW_QUEUE];
	pthread_mutex_lock(&u->mu);
	for (;;) {
		while (!atomic_load(&u->stop) && !u->nqueue)
			pthread_cond_wait(&u->cv, &u->mu);
		if (atomic_load(&u->stop))
			break;
		int n = u->nqueue;
		memcpy(batch, u->queue, (size_t)n * sizeof(*batch));
		u->nqueue = 0;
		pthread_mutex_unlock(&u->mu);
		read_flagged(u->rt, batch, n);
		pthread_mutex_lock(&u->mu);
	}
	pthread_mutex_unlock(&u->mu);
	return NULL;
}

/* the thread ends (after the file it reads): the files are the caller's */
static void stop_reader(struct rt_unwind *u)
{
	if (!u->threaded)
		return;
	pthread_mutex_lock(&u->mu);
	atomic_store(&u->stop, true);
	pthread_cond_signal(&u->cv);
	pthread_mutex_unlock(&u->mu);
	pthread_join(u->thread, NULL);
	u->threaded = false;
}

void rt_unwind_tick(struct rt *rt)
{
	struct rt_unwind *u = rt->unwind;
	if (!u)
		return;
	struct unw_file_key key, next;
	struct unw_flag fl[UNW_QUEUE];
	int n = 0;
	/* collect first: deleting while walking the keys restarts the walk */
	for (int rc = bpf_map_get_next_key(u->stale_fd, NULL, &next); !rc && n < UNW_QUEUE;
	     rc = bpf_map_get_next_key(u->stale_fd, &key, &next)) {
		key = next;
		if (!bpf_map_lookup_elem(u->stale_fd, &key, &fl[n].at))
			fl[n++].key = key;
	}
	for (int i = 0; i < n; i++)
		bpf_map_delete_elem(u->stale_fd, &fl[i].key);
	if (!n)
		return;
	if (!u->threaded) {	/* no thread: here */
		read_flagged(rt, fl, n);
		return;
	}
	/* a file the walker flags again while the thread reads is queued once;
	 * a full queue drops the rest: their files flag again */
	pthread_mutex_lock(&u->mu);
	for (int i = 0; i < n && u->nqueue < UNW_QUEUE; i++) {
		bool queued = false;
		for (int j = 0; j < u->nqueue && !queued; j++)
			queued = same_key(u->queue[j].key, fl[i].key);
		if (!queued)
			u->queue[u->nqueue++] = fl[i];
	}
	pthread_cond_signal(&u->cv);
	pthread_mutex_unlock(&u->mu);
}

void rt_unwind_report(struct rt *rt)
{
	struct rt_unwind *u = rt->unwind;
	if (!u)
		return;
	stop_reader(u);
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
		with += u->files[i].val.index != UNW_NO_FILE;
	fprintf(stderr,
		"sonde: unwind: %" PRIu64 " stacks walked; frames: %" PRIu64 " from CFI, %" PRIu64
		" from frame pointers, %" PRIu64 " in files not read yet, %" PRIu64
		" outside files, %" PRIu64 " without their mapping; %" PRIu64
		" walks ended on a bad read; %d files read (%d with rows, %.1f MB)\n",
		total[UNW_ST_WALKS], total[UNW_ST_CFI], total[UNW_ST_FP], total[UNW_ST_UNKNOWN],
		total[UNW_ST_ANON], total[UNW_ST_NOVMA], total[UNW_ST_ENDED], u->nfiles, with,
		u->row_bytes / 1e6);
}

void rt_unwind_free(struct rt *rt)
{
	struct rt_unwind *u = rt->unwind;
	if (!u)
		return;
	stop_reader(u);
	pthread_mutex_destroy(&u->mu);
	pthread_cond_destroy(&u->cv);
	free(u->files);
	free(u);
	rt->unwind = NULL;
}
