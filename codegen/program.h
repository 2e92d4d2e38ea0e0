/*
 * program.h - what a compile hands the runtime, without LLVM: the options
 * cg_compile() takes, the object it makes (the ELF image, its programs and
 * their attach points, the -k helper sites), and the names and sizes of
 * the maps codegen emits and the runtime reads (the ring buffer, the lost
 * events, the stop flag, stacks, scratch).  runtime/ and cli/ include this
 * header only; codegen.h adds the BPF-domain layer stdlib/ lowers through.
 */
#ifndef SONDE_CODEGEN_PROGRAM_H
#define SONDE_CODEGEN_PROGRAM_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "sema/sema.h"

/* ---- C the script imports (codegen/cimport.c) ---- */

enum { CG_CFUNC_MAX_ARGS = 5 };	/* BPF passes five arguments in registers */

/* an integer (bits 8..64, signed or not), a pointer, or (a result) void */
struct cg_cval {
	uint8_t bits;		/* 0: void */
	bool is_signed, is_ptr;
};

/* a function an imported C file defines, as the script may call it */
struct cg_cfunc {
	const char *name;
	const char *file;	/* the .bpf.c (or module) that defines it */
	struct cg_cval ret, params[CG_CFUNC_MAX_ARGS];
	int nparams;
	const char *unsupported;	/* why the script cannot call it ("its
					 * argument 2 is 'struct foo'"), or NULL */
};

/* one of sonde's stdlib modules, compiled at build time (stdlib/modules.c) */
struct cg_cmodule {
	const char *name;	/* "stdlib/test/test.bpf.c" */
	const void *bc;
	size_t size;
};

struct cg_cimports {
	const void **bc;	/* LLVM bitcode of each file, to link */
	size_t *size;
	const char **file;
	int n;
	struct cg_cfunc *funcs;
	int nfuncs;
};

struct arena;
struct diag;
struct ast_node;
/* The C files the program imports (program.cimports): each compiled by a
 * clang found on the machine (a module of sonde's: its bitcode from
 * `modules`), parsed, its functions listed.  0, or -1 after a located
 * error at the import. */
int cg_cimport_load(struct arena *a, struct diag *d, const struct ast_node *program,
		    const struct cg_cmodule *modules, int nmodules, struct cg_cimports *out);

struct cg_opts {
	const struct cg_cimports *cimports;	/* linked into every module */
	int emit_ir;		/* print LLVM IR to `out` */
	int emit_asm;		/* print BPF assembly to `out` */
	FILE *out;
	uint64_t start_ns;	/* CLOCK_MONOTONIC at startup, for elapsed */
	int filter_pid;		/* -p: every probe returns unless pid matches */
	uint64_t filter_cgroup;	/* --container: cgroup id every probe requires */
	int filter_cgroup_level;/* its depth under the v2 root: the task's ancestor
				 * at this level must be filter_cgroup (child
				 * cgroups of the container match too) */
	int child_pid;		/* -c: the child's pid, for cpid */
	uint32_t map_keys_max;	/* keys per map (0: CG_MAP_KEYS_MAX) */
	bool map_keys_told;	/* map_keys_max was set (flag, environment, config):
				 * hist(v, k) slots are then not capped */
	int exclude_pid;	/* --exclude-self: sonde's pid, which no probe sees */
	const char *src;	/* program text: put in BTF line info so the verifier's
				 * log quotes the source line of a failing instruction */
	bool hist_sum;		/* hist/lhist also add each value into the slot
				 * CG_HIST_SUM_BUCKET of their key (the exact _sum of a
				 * Prometheus histogram); only scrape formats read it */
	int helper_check;	/* -k (and -kk): map updates and deletes and
				 * memory reads report failures (EV_HELPER_ERROR) */
	int ncpus;		/* per-CPU slots an aggregation read in an expression
				 * folds (0: 1): the possible CPUs, or with
				 * --user-probes the agents' shards (SA_NSHARDS) */
};

/* -k: a helper call whose failure is reported, by EV_HELPER_ERROR id */
struct cg_site {
	struct src_loc loc;	/* the expression or statement that called it */
	const char *helper;	/* "map_update_elem", "probe_read_str" ... */
	const char *map;	/* map_lookup_elem: the map read ("@start"), whose
				 * key was absent (the error code is then 0) */
};

/* the bucket index of a hist/lhist key's sum slot (cg_opts.hist_sum) */
#define CG_HIST_SUM_BUCKET UINT64_MAX

/* One BPF program in the object and the attach points it serves. */
struct cg_prog {
	const char *name;	/* function / program name in the object */
	const struct sema_probe *probe;
	int first_attach, nattach;	/* slice of probe->attach */
	bool reads_cookie;	/* the code reads its BPF cookie (func, probe in a
				 * shared kprobe program): the runtime must set one */
};

struct cg_object {
	void *elf;		/* malloc'd ELF image */
	size_t elf_size;
	struct cg_prog *progs;	/* arena */
	int nprogs;
	struct cg_site *sites;	/* arena; -k only */
	int nsites;
};

/* name of the ring buffer map and the lost-event counter in the object */
#define CG_RINGBUF_MAP "events"
#define CG_LOST_MAP "lost_events"
/* keys a map holds unless told (--map-keys-max, BPFTRACE_MAP_KEYS_MAX), as
 * bpftrace; hist and lhist maps hold this many slots per key (a slot per
 * (key, bucket) in use) */
#define CG_MAP_KEYS_MAX 4096
#define CG_HIST_SLOTS_PER_KEY 16
/* a keyed tseries() holds keys x num_intervals slots, at most this many */
#define CG_TS_SLOTS_MAX 262144
/* hist(v, k)'s slots are CG_HIST_SLOTS_PER_KEY << k per key, at most this
 * many in all when no size was told (a per-CPU hash: 27 MB on 2 CPUs) */
#define CG_HIST_SLOTS_MAX (1u << 18)
/* per-CPU counters, by map id, of updates a full map refused */
#define CG_MAP_FAILS_MAP "map_fails"
/* exit()'s flag: a one-word mmap'able array, present when the script exits */
#define CG_STOP_MAP "sonde_stop"
/* --container on a kernel without the ancestor helper in tracing programs:
 * a cgroup array whose slot 0 the runtime sets to the container's cgroup */
#define CG_CGROUP_MAP "sonde_cgroup"
/* stack traces of depth N: the hash "ustk_N" (user) or "kstk_N" (kernel)
 * from the frames (N of them, zero padded) to a u32 id; CG_STACK_LOST_MAP
 * counts the stacks they had no room for (per CPU), and CG_STACK_LOST_ID
 * is the id such a stack gets.  Kernel and user stacks have maps of their
 * own so that one program run (@[kstack, ustack] in a perf event's NMI)
 * inserts at most one new stack into each: the kernel's allocator for
 * maps that are not preallocated keeps one free element per CPU at first
 * and refills only after the program returns. */
#define CG_STACK_MAP_FMT "%cstk_%u"
/* a user stack's frame: struct bpf_stack_build_id (status, build-id, file
 * offset or address; BPF_F_USER_BUILD_ID); the kernel stacks' STACK_TRACE
 * map holds u64 addresses.  The runtime tells them by the map's key (or,
 * for a STACK_TRACE map, value) size. */
#define CG_USTACK_FRAME 32
/* a user stack value (ustack: {u32 id, pid in bits 32-55}): the frames it
 * has in bits 56-63 where its frames were read into a hash key (len() of
 * a stack held in a variable reads them there); the pid is
 * (v >> 32) & CG_STACK_PID_MASK */
#define STACK_LEN_SHIFT 56
#define CG_STACK_PID_MASK 0xffffff
#define CG_STACK_MAP_ENTRIES 131072
/* kernel stacks: a preallocated STACK_TRACE map (stdlib/stacks.c) */
#define CG_KSTACK_MAP_ENTRIES 4096
#define CG_STACK_LOST_MAP "stk_lost"
#define CG_STACK_LOST_ID (-28)	/* -ENOSPC */
/* a join() event: header, u64 count, then CG_JOIN_ARGS NUL-terminated
 * slots of CG_JOIN_ARG_SIZE bytes (only `count` of them sent) */
#define CG_JOIN_ARGS 16
#define CG_JOIN_ARG_SIZE 1024
/* skboutput(): the perf event array bpf_skb_output writes to (one slot
 * per CPU, sized by the runtime), and the header before each packet:
 * {u32 EV_SKBOUTPUT, u32 event id}, u64 CLOCK_BOOTTIME ns, u64 bytes copied */
#define CG_SKB_MAP "skb_out"
#define CG_SKB_HDR 24
/* BPF map names are at most 15 characters: maps are named m<ID>_<name> */
const char *cg_map_obj_name(struct arena *a, const struct sema_map *m);

/* 0 or -errno after a message on stderr: -E2BIG when the program passes
 * a BPF limit that only code generation sees (the 512-byte stack), a
 * located user error; anything else is sonde's own fault */
int cg_compile(struct arena *a, const struct sema_result *r,
	       const struct cg_opts *opts, struct cg_object *out);

/* per-CPU scratch maps (cg_scratch) are named this prefix and their use:
 * "scr_" CG_STACK_LOST_MAP is the stacks' lost counter */
#define CG_SCRATCH_PREFIX "scr_"

#endif
