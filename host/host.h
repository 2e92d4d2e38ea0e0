/*
 * host.h - what sonde learns from the machine it runs on.
 *
 * Used by the compiler (sema, codegen, stdlib) and by the runtime alike:
 * tracefs and tracepoint formats, perf software events, /proc/kallsyms,
 * USDT notes, ELF symbols, /proc/PID/maps, containers and cgroups, and
 * uprobe target resolution.  host/ depends only on common/.  The sections
 * below keep the prose of the files they describe:
 *
 *   tracefs.c    tfs_   tracefs, tracepoint formats, -l for tracepoints
 *   ksyms.c      ksyms_ /proc/kallsyms
 *   usdt.c       usdt_  SDT notes and their argument strings
 *   list.c       host_list_  `sonde -l` for each probe provider
 *   btf.c        host_       the kernel's BTF, for kernel types
 *   dwarf.c      hdw_   a user-space binary's DWARF (libdw), for uprobe args
 *   ubtf.c       hubtf_ (host_int.h) the same from its .BTF when it has no DWARF
 *   kfuncs.c     kfn_   kernel functions kprobes and fentry can attach to
 *   features.c   host_feature  what the kernel's BPF accepts (probed once)
 *   procmaps.c, elfsym.c, container.c, uresolve.c   rs_ (see below)
 */
#ifndef SONDE_HOST_H
#define SONDE_HOST_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct arena;

/*
 * tracefs.h - tracepoints as tracefs describes them.
 *
 * tfs_root() finds tracefs (/sys/kernel/tracing, or debugfs's tracing
 * directory) and mounts it when nothing is mounted.  Format files give
 * the byte offset, size and signedness of each field of a tracepoint's
 * record, which is what `args->field` reads in BPF.  Also here: `-l`
 * output for tracepoints and perf software events, byte for byte as
 * bpftrace prints it, and the table of software events for attaching.
 */

struct tp_field {
	const char *name;	/* "prev_comm" */
	const char *ctype;	/* the declaration's type as written, without the
				 * name and any [N]: "char", "unsigned int",
				 * "const char *", "const void*"; for __data_loc
				 * the element type ("char" of "char[]", or
				 * "cpumask_t" of "__data_loc cpumask_t mask") */
	const char *decl;	/* the whole declaration, verbatim between
				 * "field:" and ';': "char prev_comm[16]" */
	int offset, size;	/* size as the kernel stores it, which may differ
				 * from ctype's (syscall args are 8 bytes) */
	bool is_signed;
	int array_len;		/* -1 when not an array; N for "x[N]"; 0 for a
				 * flexible "x[]" and for __data_loc arrays */
	bool is_data_loc;	/* "__data_loc char[] name": the 4-byte field holds
				 * (len << 16 | offset from the record start) */
	bool is_common;		/* common_* header field */
};

struct tp_format {
	const char *category, *name;	/* category: set by tfs_format_read only;
					 * a format file does not name it */
	int id;
	struct tp_field *fields;	/* common fields first, as in the file */
	int nfields;
};

/* Path of a mounted tracefs, mounting it on /sys/kernel/tracing if
 * needed.  NULL (errno set) when it cannot be found or mounted. */
const char *tfs_root(void);
/* Use DIR as the tracefs root instead of searching (unit tests, or a
 * tracefs mounted somewhere unusual); NULL goes back to searching. */
void tfs_set_root(const char *dir);

/* Parse the text of a format file (unit-testable). 0 or -EINVAL (no
 * "name:", no "ID:", no "format:", or a field line that does not read as
 * "field:DECL;\toffset:N;\tsize:N;[\tsigned:N;]").  Strings live in a. */
int tfs_format_parse(struct arena *a, const char *text, struct tp_format *out);
/* Read events/CAT/NAME/format. 0, -ENOENT when no such tracepoint,
 * -EINVAL when CAT or NAME holds '/' or is "." or "..", -errno. */
int tfs_format_read(struct arena *a, const char *cat, const char *name,
		    struct tp_format *out);
const struct tp_field *tfs_field(const struct tp_format *f, const char *name);

/* Call cb for each tracepoint whose CAT matches cat_glob and NAME matches
 * name_glob (fnmatch; * ? [..]; NULL matches everything), in byte order of
 * "CAT:NAME" as bpftrace lists them.  The list is available_events (which
 * leaves out the ftrace category, as bpftrace does), or the events/
 * directories when that file is missing.  Stops and returns cb's value
 * when it is non-zero; 0 after the last one; -errno on failure. */
int tfs_each(const char *cat_glob, const char *name_glob,
	     int (*cb)(const char *cat, const char *name, void *ctx), void *ctx);

/* -l / -lv for tracepoints: lines "tracepoint:CAT:NAME" matching pattern;
 * with verbose, each non-common field below it as bpftrace -lv prints.
 * Patterns: NULL or "" (all); "tracepoint:CAT:NAME" or "t:CAT:NAME" with
 * globs in CAT and NAME; a glob provider that matches "tracepoint"
 * ("*:sched:*"); no provider at all (no ':'), which matches the whole
 * "CAT:NAME" ("sched*", "*switch*"), as bpftrace does ("*:sched*" is the
 * same).  Any other provider lists nothing.  Returns the number of
 * tracepoints listed, or -errno after a message on stderr (-EINVAL for
 * "tracepoint:X" without NAME).  A format that cannot be read under -v
 * leaves the entry without fields and a warning on stderr. */
int tfs_list(FILE *out, const char *pattern, bool verbose);
/* One -l entry: "tracepoint:CAT:NAME\n", then when fmt is not NULL
 * "    DECL\n" for each non-common field (the -lv form). */
void tfs_list_entry(FILE *out, const char *cat, const char *name,
		    const struct tp_format *fmt);

/* Perf software events (software:EVENT:COUNT), as bpftrace knows them. */
struct tfs_swevent {
	const char *name;	/* "cpu-clock" */
	const char *alias;	/* "cpu", or NULL */
	uint32_t config;	/* PERF_COUNT_SW_*: perf_event_attr.config for
				 * type PERF_TYPE_SOFTWARE */
	uint64_t default_period;/* sample_period when the probe gives no COUNT */
};
/* By name or alias ("cpu-clock", "cpu"); NULL when sonde knows no such
 * event. */
const struct tfs_swevent *tfs_software_event(const char *name);
/* -l for software events: "software:NAME:" for each name and alias that
 * matches pattern (NULL, "software:GLOB", "s:GLOB", a glob provider, or a
 * bare glob without ':'), in byte order as bpftrace sorts them.  Returns
 * the number listed. */
int tfs_list_software(FILE *out, const char *pattern);
/* The same for hardware events (hardware:EVENT:COUNT, PERF_TYPE_HARDWARE
 * counters; config is a PERF_COUNT_HW_*), "hardware:" or "h:". */
const struct tfs_swevent *tfs_hardware_event(const char *name);
int tfs_list_hardware(FILE *out, const char *pattern);
/* Does this machine have a CPU performance monitoring unit (hardware
 * counters)?  Virtual machines often have none. */
bool tfs_have_pmu(void);

/* Can this kernel attach kprobes (a kprobe perf event source exists)? */
bool tfs_have_kprobes(void);

/*
 * ksyms.h - kernel symbols from /proc/kallsyms, for ksym() and kstack.
 *
 * Text symbols (t T w W) answer address lookups for stacks, data symbols
 * too for ksym(); ksyms_find knows
 * every symbol, for kaddr().  Loading costs one read of /proc/kallsyms
 * (~50 ms of kernel time for 120k symbols), so callers load it lazily,
 * when a script first prints a kernel symbol, and keep it.
 */

struct ksyms;

/* Read /proc/kallsyms.  NULL with errno set on failure: EPERM when
 * kptr_restrict hides the addresses (all read as zero), ENOENT when the
 * file lists no symbol, or the error from reading it. */
struct ksyms *ksyms_load(void);
/* The same from kallsyms text ("ADDR TYPE NAME[\t[MODULE]]" lines); the
 * text is copied, not kept. */
struct ksyms *ksyms_parse(const char *text, size_t len);
void ksyms_free(struct ksyms *ks);

/* The text symbol containing addr: the nearest one at or below it (the
 * first in file order when several share an address), with addr minus its
 * start in *offset when offset is not NULL.  NULL below the first symbol. */
const char *ksyms_lookup(const struct ksyms *ks, uint64_t addr,
			 uint64_t *offset);
/* The same among text and data symbols (d D b B r R): ksym() of a
 * variable's address names the variable. */
const char *ksyms_lookup_any(const struct ksyms *ks, uint64_t addr, uint64_t *offset);
/* Address of the symbol called name, text symbols first, then the first
 * other one in file order.  0 or -ENOENT. */
int ksyms_find(const struct ksyms *ks, const char *name, uint64_t *addr);
/* The addresses of every text symbol called name, in address order (a
 * static function can have several: load_elf_binary of binfmt_elf and
 * of its compat copy), the first max of them in addrs; returns how many
 * there are. */
size_t ksyms_find_all(const struct ksyms *ks, const char *name, uint64_t *addrs, size_t max);
/* Number of text symbols (lookups answer from these). */
size_t ksyms_count(const struct ksyms *ks);
/* Number of the kernel's data symbols (d D b B r R): tens of thousands,
 * or a few dozen section markers in a kernel built without
 * CONFIG_KALLSYMS_ALL, whose variables kallsyms does not list. */
size_t ksyms_data_count(const struct ksyms *ks);

/*
 * usdt.h - USDT (SystemTap SDT) probes: the notes of an ELF file and the
 * x86-64 registers their arguments name.
 *
 * <sys/sdt.h> leaves a nop at each probe site and an ELF note in
 * .note.stapsdt (type 3, owner "stapsdt") with the site's address, the
 * link-time address of .stapsdt.base, the semaphore's address (0 when
 * none), and three strings: provider, name, and the argument formats,
 * "SIZE@OPERAND" separated by spaces, e.g. "-4@%edi 8@-8(%rbp) -4@$5":
 * a negative SIZE is signed; the operand is a register, memory at a
 * displacement from a register, a constant, or a symbol relative to %rip.
 * A probe is a uprobe at the site's file offset; a semaphore is
 * incremented by the kernel while a uprobe with its reference-counter
 * offset is attached.
 */

enum usdt_arg_kind {
	USDT_ARG_CONST,	/* $5: val */
	USDT_ARG_REG,	/* %edi: the register's low reg_size bytes */
	USDT_ARG_MEM,	/* -8(%rbp): size bytes at register + val;
			 * sym(%rip): at the symbol (val: symbol - site, once resolved) */
};

struct usdt_arg {
	enum usdt_arg_kind kind;
	int size;		/* 1, 2, 4 or 8 bytes */
	bool is_signed;
	int64_t val;
	int reg_off;		/* REG, MEM: offset in struct pt_regs */
	int reg_size;		/* REG: bytes the register name covers (%edi: 4) */
	const char *sym;	/* MEM relative to %rip: the symbol, NULL otherwise */
};

#define USDT_MAX_ARGS 32	/* <sys/sdt.h> writes 12; hand-made notes have more */

struct usdt_note {
	const char *provider, *name;
	const char *args_text;	/* as in the note */
	uint64_t pc;		/* link-time address of the site (.stapsdt.base applied) */
	uint64_t pc_off;	/* its file offset, where the uprobe goes */
	uint64_t sema;		/* semaphore address, 0 when there is none */
	uint64_t sema_off;	/* its file offset, for the kernel's reference counter */
	int nargs;
	struct usdt_arg args[USDT_MAX_ARGS];
	const char *args_err;	/* NULL, or why the arguments cannot be read */
};

/* Parse an argument string into at most max args; the count, or -EINVAL
 * with one sentence in err.  A "sym(%rip)" operand keeps the name in sym
 * (strings point into the arena). */
int usdt_parse_args(struct arena *a, const char *text, struct usdt_arg *args, int max,
		    char *err, size_t errlen);

/* An assembler register name ("rdi", "edi", "di", "dil", "r8d", "rip")
 * -> offset in x86-64 struct pt_regs and width in bytes; -1 if unknown. */
int usdt_asm_reg(const char *name, int *size);
/* A struct pt_regs field name as reg() takes it ("ip", "sp", "ax", "r8",
 * "orig_ax") -> its offset; -1 if unknown. */
int usdt_ptregs_offset(const char *name);

/* Every USDT note of the ELF file at path, in file order; strings and the
 * array live in the arena.  0 (possibly none), or -errno with err set. */
int usdt_read_notes(struct arena *a, const char *path, struct usdt_note **out, size_t *n,
		    char *err, size_t errlen);

/* Does "provider:name" match pattern?  The pattern is "NAME" (any
 * provider) or "PROVIDER:NAME"; both parts may hold glob characters. */
bool usdt_match(const struct usdt_note *n, const char *pattern);

/* `sonde -l 'usdt:PATH:PATTERN'`: "usdt:PATH:PROVIDER:NAME" lines, sorted,
 * unique.  0, or -errno with err set. */
int usdt_list(FILE *out, const char *path, const char *pattern, char *err, size_t errlen);

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
 *   elfsym.c     libelf: function symbols, symbol -> uprobe file offset,
 *                address -> symbol for usym()/ustack, per-pid caches
 *   container.c  cgroup v2: container id <-> cgroup directory, id, pids;
 *                cgroup id -> short container id / path at print time
 *   uresolve.c   target + function (+ pid / container) -> attach sites;
 *                `-l` listing of uprobe targets
 *
 * Errors are 0 / -errno with one sentence (no trailing period) written to a
 * caller's err buffer; warnings and -v lines go to a note callback.
 */

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

/* usym()/ustack: per-pid mappings and parsed files (cached by dev, inode). */
struct rs_symcache;
struct rs_usym {
	const char *name;	/* NULL when no symbol covers the address */
	uint64_t off;		/* addr - symbol start */
	const char *file;	/* the mapped file's path, NULL when unmapped */
};
struct rs_symcache *rs_symcache_new(void);
void rs_symcache_free(struct rs_symcache *c);
/* 0 (out->name set), -ENOENT (no symbol; out->file may be set), -ESRCH
 * (pid gone and never seen).  Strings live until rs_symcache_free. */
int rs_usym(struct rs_symcache *c, int pid, uint64_t addr, struct rs_usym *out);
/* Forget pid's mappings (it exited or exec'd). */
void rs_symcache_forget(struct rs_symcache *c, int pid);

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

/* ---- a binary's DWARF (dwarf.c) ---------------------------------------- */

/* A type as a binary's DWARF describes it, typedefs and qualifiers
 * looked through.  The types a function reaches form a graph (a struct
 * pointing to itself is a cycle); each lives as long as its file. */
enum hdw_kind {
	HDW_VOID, HDW_INT, HDW_FLOAT, HDW_PTR, HDW_ARRAY, HDW_STRUCT, HDW_UNION, HDW_ENUM,
	HDW_FUNC, HDW_OTHER,
};

struct hdw_member;

struct hdw_type {
	enum hdw_kind kind;
	const char *name;	/* struct/union/enum tag, base type name; NULL: anonymous */
	uint64_t size;		/* bytes */
	bool is_signed, is_bool;	/* INT, ENUM */
	const struct hdw_type *elem;	/* PTR (VOID for void *), ARRAY */
	uint64_t count;		/* ARRAY: elements (0: unknown); int a[2][3] is an
				 * ARRAY of 2 ARRAYs of 3 */
	struct hdw_member *members;	/* STRUCT, UNION, in order */
	int nmembers;
	bool declared_only;	/* STRUCT, UNION: no unit defines it */
	const char **enum_names;	/* ENUM: its enumerators */
	uint64_t *enum_values;
	int nenum;
};

struct hdw_member {
	const char *name;	/* NULL: an anonymous struct or union */
	uint64_t offset;	/* bytes */
	uint8_t bit_off, bit_size;	/* bitfields: bits from offset (little endian) */
	const struct hdw_type *type;
};

struct hdw_param {
	const char *name;	/* NULL when DWARF gives none */
	const char *ctype;	/* its type as bpftrace -lv prints it: "const char*" */
	const struct hdw_type *type;
};

struct hdw_func {
	const char *name;
	struct hdw_param *params;
	int nparams;
	bool varargs;		/* ends in "..." */
	const struct hdw_type *ret;	/* VOID for void */
};

struct hdw_file;
/* The DWARF of the ELF file at path (in the file or a separate debug
 * file libdwfl finds: build-id, .gnu_debuglink), opened once and kept.
 * 0; -ENOENT when there is none (err says to build with -g or install
 * debug info), -ENOSYS when libdw cannot be loaded, -EINVAL unreadable. */
int hdw_open(const char *path, struct hdw_file **out, char *err, size_t errlen);
/* The function DWARF defines under name (or C++ linkage name), NULL when
 * none does. */
const struct hdw_func *hdw_func(struct hdw_file *f, const char *name);
/* The struct (or union) called name that some unit defines, NULL when none
 * does (a cast in a uprobe: `(struct node *)arg0`). */
const struct hdw_type *hdw_struct_named(struct hdw_file *f, bool is_union, const char *name);
/* -lv: "    TYPE NAME" per parameter, as bpftrace prints them */
void hdw_print_params(const struct hdw_func *fn, FILE *out);

/* ---- the kernel's BTF (btf.c) ------------------------------------------ */

struct btf;

/* the running kernel's BTF (/sys/kernel/btf/vmlinux, libbpf's BTF API),
 * loaded on first use and kept; NULL (errno set) when the kernel has none */
const struct btf *host_kernel_btf(void);
/* the arguments raw tracepoint `name` passes (its btf_trace_NAME
 * prototype, less the leading void *), or -1 when BTF does not say */
int host_raw_tp_nargs(const char *name);
/* a module's BTF (/sys/kernel/btf/MODULE, split on the kernel's), kept;
 * the kernel's for NULL or "vmlinux"; NULL (errno set) when none */
const struct btf *host_module_btf(const char *module);
/* the BTF id of function fn in b (a module's BTF: its base's first), as
 * btf__find_by_name_kind(b, fn, BTF_KIND_FUNC) answers, from an index
 * built once per BTF; -ENOENT when there is none */
int32_t host_btf_func_id(const struct btf *b, const char *fn);
/* -lv of a kernel function: a line "    TYPE NAME" per parameter and
 * "    TYPE retval" unless it returns void, as bpftrace prints them;
 * 0, or -ENOENT when b has no function fn */
int host_btf_func_proto(const struct btf *b, const char *fn, FILE *out);
/* the BTF id of per-CPU kernel variable `name` (a VAR of the kernel's
 * .data..percpu section), or -ENOENT */
int host_btf_percpu_var(const char *name);
/* raw tracepoints: the BTF function that names raw tracepoint name's
 * parameters (__probestub_NAME, else __traceiter_NAME, whose first
 * parameter is the probe's data, not the tracepoint's) into buf, or NULL */
const char *host_raw_tp_func(const struct btf *b, const char *name, char *buf, size_t len);
/* -lv 'struct NAME' (union, enum): the kernel type's definition as C,
 * one member a line, as bpftrace lists it; 0, or -ENOENT when the
 * kernel's BTF has no such type */
int host_btf_type_decl(const char *decl, FILE *out);
/* -lv rawtracepoint:NAME: "    TYPE NAME" per argument; 0 or -ENOENT */
int host_btf_raw_tp_proto(const struct btf *b, const char *name, FILE *out);
/* each raw tracepoint whose name matches glob, of vmlinux and then of
 * each module with BTF (by name) whose name matches module_glob (NULL:
 * all), sorted by name within one; stops at cb's first non-zero result
 * and returns it; 0, or -errno when the kernel has no BTF */
typedef int (*host_raw_tp_cb)(const char *module, const char *name, void *ctx);
int host_raw_tp_each(const char *module_glob, const char *glob, host_raw_tp_cb cb, void *ctx);

/* ---- kernel functions (kfuncs.c) -------------------------------------- */

/* One function of available_filter_functions; module NULL for vmlinux's. */
struct kfn {
	const char *name;
	const char *module;
};

/* Every function, sorted by name (then module; duplicates dropped),
 * loaded once; 0 or -errno (the file missing or unreadable). */
int kfn_load(const struct kfn **funcs, size_t *n);
/* The entry of name (in module, when not NULL), or NULL. */
const struct kfn *kfn_find(const char *module, const char *name);
/* Is module the name of a module that has traceable functions? */
bool kfn_is_module(const char *module);
/* Why name must not be probed, NULL when it may: bpftrace's banned list
 * for return probes (ret), and with kprobe the kernel's kprobe
 * blacklist.  The text follows the probe's name ("kretprobe:f can't..."). */
const char *kfn_refusal(const char *name, bool ret, bool kprobe);
/* The file read for the functions; tests point both files elsewhere
 * (NULL: the real ones again). */
const char *kfn_funcs_path(void);
void kfn_set_paths(const char *funcs, const char *blacklist);

/* ---- kernel features (features.c) -------------------------------------- */

/* BPF features that came in later kernels, each asked of the running
 * kernel by loading a tiny program on first use (never by its version) */
enum host_feature {
	HF_BTF,			/* /sys/kernel/btf/vmlinux loads */
	HF_RINGBUF,		/* BPF_MAP_TYPE_RINGBUF (5.8) */
	HF_COOKIE,		/* bpf_get_attach_cookie (5.15) */
	HF_PERCPU_LOOKUP,	/* bpf_map_lookup_percpu_elem (5.19) */
	HF_UPROBE_MULTI,	/* BPF_TRACE_UPROBE_MULTI links (6.6) */
	HF_KPROBE_MULTI,	/* BPF_TRACE_KPROBE_MULTI links (5.18) */
	HF_FENTRY,		/* fentry/fexit attach (5.5) */
	HF_OVERRIDE_RETURN,	/* bpf_override_return in kprobes */
	HF_D_PATH,		/* bpf_d_path in fentry */
	HF_ANCESTOR_CGROUP,	/* bpf_get_current_ancestor_cgroup_id in kprobe programs */
	HF_FOR_EACH,		/* bpf_for_each_map_elem (5.13): for ($kv : @m) */
	HF_LOOP,		/* bpf_loop (5.17): for ($i : a..b) */
	HF_BIG_KEYS,		/* hash map keys over 512 bytes (5.11) */
	HF_ATOMIC_FETCH,	/* atomic add that returns the old value (5.12) */
	HF__COUNT
};
enum host_answer { HF_NO, HF_YES, HF_UNKNOWN };

/* the kernel's answer (HF_UNKNOWN: it would not say, e.g. no privilege);
 * SONDE_NO_FEATURES=name,... answers HF_NO for the named rows */
enum host_answer host_feature_answer(enum host_feature f);
/* false only when the kernel said no */
bool host_feature(enum host_feature f);
const char *host_feature_name(enum host_feature f);	/* "percpu_lookup" */
const char *host_feature_what(enum host_feature f);	/* "bpf_map_lookup_percpu_elem" */
const char *host_feature_since(enum host_feature f);	/* "5.19": the mainline release */
/* may a program of libbpf's section kind ("kprobe", "tracepoint",
 * "raw_tp", "perf_event", "fentry" ...) call the kernel's kfunc name?  One
 * program calling it is loaded: the verifier's "is not allowed" is a no,
 * any other verdict a yes (it got past the kfunc's per-type ID sets).  A
 * name BTF does not declare as a function is a no. */
enum host_answer host_kfunc_allowed(const char *name, const char *section);

/* a BPF_TRACE_UPROBE_MULTI link (BPF_LINK_CREATE, which libbpf 1.1 does
 * not know) for n offsets of path, a cookie each (cookies may be NULL),
 * for pid only when pid > 0; a link fd or -errno */
#define HOST_UMULTI_ATTACH_TYPE 48	/* BPF_TRACE_UPROBE_MULTI */
int host_umulti_link(int prog_fd, const char *path, const uint64_t *offsets,
		     const uint64_t *cookies, uint32_t n, int pid, bool retprobe);

/* ---- -l listers (list.c) --------------------------------------------- */

/* `sonde -l PATTERN` for one provider: kind is the provider's canonical
 * name ("uretprobe"), pattern the whole pattern as written ("ur:libc:m*").
 * Prints what matches to out; 0, or -errno after one sentence on stderr.
 * These are the `list` hooks of sema's provider table. */
int host_list_tracepoints(FILE *out, const char *kind, const char *pattern, bool verbose,
			  int pid);
int host_list_software(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
int host_list_hardware(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
int host_list_timers(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
int host_list_kprobes(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
int host_list_fentry(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
int host_list_rawtracepoints(FILE *out, const char *kind, const char *pattern, bool verbose,
			     int pid);
int host_list_usdt(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
int host_list_uprobes(FILE *out, const char *kind, const char *pattern, bool verbose, int pid);
/* -l -p PID alone: the uprobes of the process's executable and the USDT
 * probes of the files it maps, as bpftrace 0.17 lists them */
int host_list_pid(FILE *out, int pid);

/* ---- Kubernetes names (kube.c) ---------------------------------------- */

/* A pod's containers live in cgroups the kubelet names after the pod UID
 * and the runtime after the container id; the kubelet also keeps each
 * pod's logs under <logs>/pods/<namespace>_<pod>_<uid>/<container>/.
 * Together they turn a cgroup path into namespace, pod and container
 * without an API server or credentials. */

/* Pod UID (with dashes, as in the API) and container id (64 hex, "" when
 * the cgroup is the pod's own, not one of its containers) from a cgroup
 * path of either layout:
 *   systemd:  .../kubepods-burstable-pod<uid_with_underscores>.slice/cri-containerd-<id>.scope
 *   cgroupfs: .../kubepods/burstable/pod<uid>/<id>
 * (crio-<id>.scope and docker-<id>.scope too).  0, or -ENOENT when the
 * path is not a pod's. */
int kube_parse_cgroup(const char *path, char uid[37], char cid[65]);

struct kube_names {
	const char *namespace_;
	const char *pod;
	const char *container;	/* "" when the logs do not say which */
};

/* An index of <logs>/pods and <logs>/containers (logs: "/var/log" on a
 * node; a temporary tree in tests).  Rescanned when a UID is not found,
 * at most once a second. */
struct kube_index;
struct kube_index *kube_index_new(const char *logs);
void kube_index_free(struct kube_index *k);
/* Names of the pod `uid` and its container `cid`; false when the node's
 * logs do not know the pod.  The strings live as long as k. */
bool kube_lookup(struct kube_index *k, const char *uid, const char *cid, struct kube_names *out);

#endif
