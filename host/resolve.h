/*
 * resolve.h - where a uprobe goes, and what an address was.
 *
 * On a host with containers the same path names a different file in each
 * mount namespace, so a uprobe target is resolved through the processes
 * that will run it: their /proc/PID/maps (untrusted text: spaces,
 * " (deleted)", symlinks that leave the root), their /proc/PID/root, and the
 * ELF symbols of the file they really map.  Four layers, one prefix rs_:
 *
 *   procmaps.c   /proc/PID/maps lines -> struct rs_mapping; opening a mapped
 *                file safely (map_files, or a path resolved inside the root);
 *                the inode a uprobe really lands on (overlayfs)
 *   elfsym.c     libelf: function symbols, symbol -> uprobe file offset
 *   symcache.c   address or {build-id, offset} -> symbol for usym()/ustack:
 *                the files processes map, per-pid mappings
 *   container.c  cgroup v2: container id <-> cgroup directory, id, pids;
 *                cgroup id -> short container id / path at print time
 *   uresolve.c   target + function (+ pid / container) -> attach sites;
 *                `-l` listing of uprobe targets
 *
 * Errors are 0 / -errno with one sentence (no trailing period) written to a
 * caller's err buffer; warnings and -v lines go to a note callback.
 */
#ifndef SONDE_HOST_RESOLVE_H
#define SONDE_HOST_RESOLVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct arena;

#define RS_PATH_MAX 4096

/* ---- /proc/PID/maps (procmaps.c) -------------------------------------- */

struct rs_mapping {
	uint64_t start, end;	/* [start, end) in the process */
	uint64_t offset;	/* file offset mapped at start */
	char perms[5];		/* "r-xp" */
	unsigned dev_major, dev_minor;
	uint64_t inode;		/* 0: anonymous */
	bool deleted;		/* the line ended in " (deleted)"; stripped from path */
	char path[RS_PATH_MAX];	/* "" anonymous, "[vdso]", or a path (may hold spaces) */
};

/* Parse one line of /proc/PID/maps (a trailing '\n' is allowed).
 * 0, -EINVAL when malformed, -ENAMETOOLONG when the path does not fit. */
int rs_maps_parse_line(const char *line, struct rs_mapping *out);

/* An executable mapping of a real file (not anonymous, not [vdso]). */
bool rs_mapping_is_exec_file(const struct rs_mapping *m);

/* Call cb for each executable file mapping of pid, in address order;
 * malformed lines are skipped.  0, cb's non-zero value, -ESRCH when the
 * process does not exist (or exited), -errno. */
int rs_maps_each(int pid, int (*cb)(const struct rs_mapping *m, void *ctx),
		 void *ctx);
/* The same for every mapping (anonymous, [vdso], [stack] ...). */
int rs_maps_each_any(int pid, int (*cb)(const struct rs_mapping *m, void *ctx), void *ctx);

/* Open path inside root (a directory, e.g. "/proc/PID/root") as the
 * process rooted there would: absolute symlinks and ".." stay inside root,
 * magic links are refused (openat2 RESOLVE_IN_ROOT).  fd or -errno. */
int rs_open_in_root(const char *root, const char *path, int flags);

#define RS_OPEN_BY_PATH 1u	/* skip /proc/PID/map_files (tests) */
/* Open the file pid maps at m, read-only: /proc/PID/map_files/START-END
 * (exact even for deleted files) or else m->path inside /proc/PID/root.
 * The opened file's (dev, inode) must equal m's: -ESTALE otherwise (the
 * mapping changed or the path leads elsewhere); -ESRCH when pid is gone.
 * fd or -errno; err gets one sentence. */
int rs_open_mapping(int pid, const struct rs_mapping *m, unsigned flags,
		    char *err, size_t errlen);

/* The (dev, inode) a uprobe on fd's file lands on, for dedupe: fstat(fd),
 * except on overlayfs, where the kernel probes the file in the topmost
 * upper/lower layer holding it (two containers from one image share it
 * through two overlay inodes).  path is the file's path as pid sees it
 * (pid 0: sonde itself); the layers come from pid's mountinfo.  0, or
 * -ENOENT with the overlay's own identity when no layer can be confirmed. */
int rs_real_inode(int pid, const char *path, int fd, uint64_t *dev, uint64_t *ino);

/* ---- ELF symbols (elfsym.c) -------------------------------------------- */

struct rs_sym {
	const char *name;
	uint64_t vaddr;		/* st_value */
	uint64_t size;
	uint8_t bind;		/* STB_GLOBAL, STB_WEAK, STB_LOCAL */
	bool ifunc;		/* STT_GNU_IFUNC: the address is the resolver */
};

struct rs_elf;

/* Read an ELF file's function symbols (.symtab, .dynsym and the .symtab
 * of a separate debug file: by build-id or .gnu_debuglink under debug_root,
 * then by build-id on the host, the id proving it is this file's) and its
 * PT_LOAD headers.  debug_root: NULL or "" for the host, "/proc/PID/root"
 * for a container's file.  The fd is only borrowed. */
int rs_elf_open(const char *path, struct rs_elf **out, char *err, size_t errlen);
int rs_elf_open_fd(int fd, const char *name, const char *debug_root,
		   struct rs_elf **out, char *err, size_t errlen);
void rs_elf_free(struct rs_elf *e);
const char *rs_elf_name(const struct rs_elf *e);
/* no symbol table of its own or in a debug file: only exported symbols */
bool rs_elf_stripped(const struct rs_elf *e);
/* The sonames of its DT_NEEDED entries, in order (*n of them). */
const char *const *rs_elf_needed(const struct rs_elf *e, size_t *n);
/* The same, of the ELF file open at fd, each given to cb: 0, or -errno
 * when it cannot be read. */
int rs_elf_needed_fd(int fd, void (*cb)(const char *name, void *ctx), void *ctx);

/* The GNU build-id of the ELF file open at fd (read with pread, never
 * mapped: the file may be rewritten meanwhile): 0 and *len, or -ENOENT
 * when it has none, -errno when it cannot be read. */
int rs_elf_build_id_fd(int fd, unsigned char *out, size_t cap, size_t *len);

/* All function symbols (defined, non-zero address), deduplicated by
 * (name, address), sorted by address; aliases of one address are adjacent,
 * the preferred name first (global before weak before local, unversioned,
 * fewer leading underscores). */
const struct rs_sym *rs_elf_syms(const struct rs_elf *e, size_t *n);

/* Call cb for each symbol named name, or matching it when it holds glob
 * characters (fnmatch; names with ".part." are skipped as bpftrace does).
 * Returns cb's non-zero value, else the number of matches (>= 0). */
/* a C++ symbol's demangled form (malloc'd, the caller frees), NULL for
 * a name that is not a mangled C++ one */
char *rs_demangle(const char *name);
int rs_elf_each_match(const struct rs_elf *e, const char *name,
		      int (*cb)(const struct rs_sym *s, void *ctx), void *ctx);

/* vaddr -> file offset through PT_LOAD (off = vaddr - p_vaddr + p_offset),
 * and back.  0 or -ENOENT when no segment holds it. */
int rs_elf_vaddr_to_offset(const struct rs_elf *e, uint64_t vaddr, uint64_t *off);
int rs_elf_offset_to_vaddr(const struct rs_elf *e, uint64_t off, uint64_t *vaddr);

/* The symbol whose [vaddr, vaddr + size) holds vaddr (preferred alias),
 * or NULL. */
const struct rs_sym *rs_elf_addr_sym(const struct rs_elf *e, uint64_t vaddr);

/* A defined symbol of any type (functions, objects) named name in path's
 * .symtab or .dynsym, for uaddr(): st_value and st_size, and whether the
 * file is position-independent (ET_DYN, so st_value is relative to the load
 * base).  0 with out->found telling whether there is one, or -errno. */
struct rs_elf_symbol {
	uint64_t value, size;
	bool found, pie;
};
int rs_elf_find_symbol(const char *path, const char *name, struct rs_elf_symbol *out);
/* The same for a section with contents in memory (its sh_addr, sh_size),
 * by name ("`.PyRuntime`"). */
int rs_elf_find_section(const char *path, const char *name, struct rs_elf_symbol *out);

/* usym()/ustack: per-pid mappings and parsed files (cached by dev, inode). */
struct rs_symcache;
struct rs_usym {
	const char *name;	/* NULL when no symbol covers the address */
	uint64_t off;		/* addr - symbol start */
	const char *file;	/* the mapped file's path, NULL when unmapped */
	uint64_t vaddr;		/* the address in the file's own layout (its ELF vaddr) */
};
struct rs_symcache *rs_symcache_new(void);
void rs_symcache_free(struct rs_symcache *c);
/* 0 (out->name set), -ENOENT (no symbol; out->file may be set), -ESRCH
 * (pid gone and never seen).  Strings live until the next
 * rs_symcache_trim (or rs_symcache_free). */
int rs_usym(struct rs_symcache *c, int pid, uint64_t addr, struct rs_usym *out);
/* Read pid's mappings now (again after an exec) and open their files,
 * while it lives: 0, or -errno (gone: what was read before stays). */
int rs_symcache_capture(struct rs_symcache *c, int pid);
/* Forget pid's mappings (it exited or exec'd). */
void rs_symcache_forget(struct rs_symcache *c, int pid);
/* processes whose mappings are kept */
size_t rs_symcache_nprocs(const struct rs_symcache *c);
/* Bound what is kept for files no kept process maps: their parsed symbols
 * beyond keep_open (the least recently used first, none used since the
 * last trim; reopened by path when a build-id names them again), and
 * their records beyond a fixed cap.  Call it between prints. */
#define RS_SYMCACHE_KEEP_OPEN 32
void rs_symcache_trim(struct rs_symcache *c, size_t keep_open);
/* files whose symbols are parsed and kept now */
size_t rs_symcache_nopen(const struct rs_symcache *c);
/* A ustack frame as {build-id (20 bytes, zero padded), file offset}: 0,
 * -ENOENT (the file is open, no symbol there), -ESRCH (no file with that
 * build-id is known, or none opens now: rs_symcache_scan may find one). */
int rs_usym_build_id(struct rs_symcache *c, const unsigned char *bid, uint64_t off,
		     struct rs_usym *out);
/* Learn the build-id of the file pid exec'd (path as the exec named it). */
void rs_symcache_add_path(struct rs_symcache *c, int pid, const char *path);
/* Learn the build-ids of every file the live processes map (those not
 * known yet).  0 or -errno. */
int rs_symcache_scan(struct rs_symcache *c);

/* ---- the vDSO (vdso.c) ------------------------------------------------- */

/* pid's [vdso] mapping [*start, *end): 0, -ENOENT when it has none, -ESRCH */
int rs_vdso_mapping(int pid, uint64_t *start, uint64_t *end);
/* The vDSO image pid maps at [start, end), parsed as an ELF (its .dynsym
 * names __vdso_clock_gettime ...): read from /proc/PID/mem, or, when that
 * fails (the process is gone), sonde's own vDSO if it has the same size.
 * 0, or -errno with the reason in err. */
int rs_vdso_open(int pid, uint64_t start, uint64_t end, struct rs_elf **out, char *err, size_t errlen);

/* ---- instruction boundaries (insn.c) ----------------------------------- */

/* Is byte `off` of a function's x86-64 code (len bytes from its start)
 * the start of an instruction?  0; -EINVAL (inside one: err names it and
 * the boundaries around it), -ERANGE (past the end).  Offset 0 always is. */
int insn_check_code(const uint8_t *code, size_t len, uint64_t off, char *err, size_t errlen);
/* capstone's version (opened on first use): 0, or -ENOENT without it */
int insn_capstone_version(int *major, int *minor);
/* The same for the function whose `size` bytes sit at file_off in the
 * file open at fd. */
int insn_check_fd(int fd, uint64_t file_off, uint64_t size, uint64_t off, char *err,
		  size_t errlen);

/* ---- containers and cgroups (container.c) ------------------------------ */

/* The cgroup v2 mount point from /proc/self/mountinfo
 * ("/sys/fs/cgroup" or, on hybrid hosts, "/sys/fs/cgroup/unified").
 * 0 or -ENOENT. */
int rs_cgroup2_root(char *buf, size_t len);

/* sonde's own PID namespace: the device and inode of /proc/self/ns/pid,
 * which bpf_get_ns_current_pid_tgid takes (pid(curr_ns)); false when it
 * cannot be read.  The initial namespace's inode is RS_PIDNS_INIT_INO. */
#define RS_PIDNS_INIT_INO 0xEFFFFFFCu
bool rs_pidns_self(uint64_t *dev, uint64_t *ino);

struct rs_container {
	char id[65];		/* full id (lowercase hex), "" for a plain cgroup path */
	const char *engine;	/* "docker", "containerd", "crio", "podman", "cri"
				 * (cgroupfs-named), "cgroup" (a plain path) */
	char *path;		/* relative to the v2 root: "/system.slice/docker-<id>.scope" */
	char *dir;		/* absolute directory */
	uint64_t cgroup_id;	/* inode of dir = bpf_get_current_cgroup_id() inside it */
	int level;		/* depth of path (root 0): tasks in child cgroups match
				 * bpf_get_current_ancestor_cgroup_id(level) == cgroup_id */
};

/* spec: a full container id, a unique prefix of >= 4 hex characters, or a
 * cgroup path (absolute, or relative to the v2 root).  cgroot: the v2 root,
 * NULL to discover it.  -ENOENT (no match), -EINVAL (ambiguous or bad
 * spec); err names the candidates. */
int rs_container_find(const char *cgroot, const char *spec,
		      struct rs_container **out, char *err, size_t errlen);
void rs_container_free(struct rs_container *c);
/* Pids in c's cgroup and below (cgroup.procs), sorted, unique; free(*pids). */
int rs_container_pids(const struct rs_container *c, int **pids, size_t *n);

/* Is the cgroup directory `name` (under `parent`) a container's?  Writes
 * the id and returns the engine, or NULL.  docker-<id>.scope,
 * cri-containerd-<id>.scope, crio-<id>.scope, libpod-<id>.scope (".scope"
 * optional), and a bare 64-hex name (/docker/<id>, kubepods cgroupfs). */
const char *rs_container_id_of(const char *name, const char *parent, char id[65]);

/* cgroup id -> container / path, cached; for printing. */
struct rs_cgcache;
struct rs_cgcache *rs_cgcache_new(const char *cgroot);	/* NULL: discover */
void rs_cgcache_free(struct rs_cgcache *c);
/* Short (12-char) id of the innermost container holding the cgroup; ""
 * on the host or when unknown.  Never NULL. */
const char *rs_cgroup_container(struct rs_cgcache *c, uint64_t cgid);
/* Path relative to the v2 root ("/" for the root), NULL when unknown. */
const char *rs_cgroup_path(struct rs_cgcache *c, uint64_t cgid);

/* ---- uprobe targets (uresolve.c) --------------------------------------- */

/* A library short name: `name` equals the file's basename, or the basename
 * is name.so, name.so.N[.N...] or name-N[.N...].so ("libc" matches
 * libc.so.6, not libcrypto.so.3).  "libc" also matches musl's
 * ld-musl-ARCH.so.1.  A bare "c" is not a short name (bpftrace 0.17 rejects
 * it too). */
bool rs_libname_match(const char *name, const char *basename);

enum rs_note_level { RS_NOTE_INFO, RS_NOTE_WARN };	/* INFO: for -v */
typedef void (*rs_note_fn)(void *ctx, enum rs_note_level level, const char *msg);

struct rs_query {
	const char *target;	/* as written after "uprobe:": a path, a binary in
				 * PATH, a library short name (without -p: also
				 * any mapped file of that basename, executables
				 * included), or "*" (with a pid or container:
				 * every mapped executable file) */
	const char *func;	/* a name or a glob */
	int pid;		/* -p; 0: none */
	const struct rs_container *container;	/* --container; NULL: none */
	bool allow_none;	/* --follow: finding nothing (yet) is not an error */
	rs_note_fn note;	/* NULL: notes are dropped */
	void *note_ctx;
};

struct rs_file {
	const char *path;	/* as its processes see it (no " (deleted)") */
	const char *attach_path;/* what the kernel should open for the uprobe:
				 * "/proc/self/fd/N", valid until rs_sites_free */
	uint64_t dev, ino;	/* as /proc/PID/maps and stat() show it */
	int *pids;		/* processes mapping it (or resolved for), sorted */
	size_t npids;
	bool host;		/* sonde's own view of the path (no container root) */
	bool deleted;
	int fd;			/* private: keeps attach_path open */
};

struct rs_site {
	const struct rs_file *file;
	uint64_t offset;	/* file offset of the function */
	const char *sym;	/* preferred name at that offset */
	bool ifunc;
};

struct rs_sites_priv;
struct rs_sites {
	struct rs_site *sites;	/* unique by (dev, ino, offset); the array may
				 * move in rs_resolve_more, rs_file pointers stay */
	size_t nsites;
	struct rs_file **files;	/* files that have sites */
	size_t nfiles;
	struct rs_sites_priv *priv;
};

/* Resolve q.  0 with at least one site, or -errno with err set ("pid 123
 * does not exist", "no process maps a library named 'libfoo'", "symbol
 * 'mallocx' not found in /usr/lib/x86_64-linux-gnu/libc.so.6").  Files that
 * cannot be probed safely are skipped with a warning, never replaced by a
 * host file. */
int rs_resolve(const struct rs_query *q, struct rs_sites **out,
	       char *err, size_t errlen);
/* --follow: rescan and append sites in files not seen before;
 * s->sites[*first_new ..] are new.  Finding nothing new is not an error. */
int rs_resolve_more(const struct rs_query *q, struct rs_sites *s,
		    size_t *first_new, char *err, size_t errlen);
void rs_sites_free(struct rs_sites *s);

/* `sonde -l 'KIND:TARGET:GLOB'`: "KIND:PATH:NAME" lines, sorted, unique
 * per file, as bpftrace -l prints them (kind "uprobe" or "uretprobe"). */
int rs_list_probes(FILE *out, const char *kind, const char *target,
		   const char *func_glob, int pid, char *err, size_t errlen);

#endif
