/*
 * cfi_abi.h - what user space and the BPF stack walker
 * (codegen/bpfc/unwind.bpf.c) share: the unwind rows of a file, the
 * files it knows by (device, inode), the maps' names and limits.
 *
 * A file's call-frame information (.eh_frame / .debug_frame) becomes a
 * sorted array of rows (host/cfi.c): from row[i].pc up to row[i+1].pc,
 * the caller's frame is found by `kind`.  Addresses are the file's own
 * (ELF virtual addresses); struct unw_file says how a process address
 * becomes one.  Plain C types only: this header is compiled for BPF too.
 */
#ifndef SONDE_CFI_ABI_H
#define SONDE_CFI_ABI_H

#include <linux/types.h>

enum unw_kind {
	UNW_NONE,	/* no CFI covers this pc: frame pointers */
	UNW_RSP,	/* CFA = rsp + cfa_off */
	UNW_RBP,	/* CFA = rbp + cfa_off */
	UNW_PLT,	/* a PLT entry: CFA = rsp + 8, + 8 more when (pc & 15) >= cfa_off */
	UNW_SIGNAL,	/* a signal trampoline (__restore_rt): the interrupted rsp, rip and
			 * rbp are at rsp + cfa_off, rsp + cfa_off + 8, rsp + rbp_off */
	UNW_STOP,	/* the return address is undefined: the outermost frame (_start) */
	UNW_UNSUP,	/* a rule the walker does not apply: frame pointers */
};

enum unw_rbp {
	UNW_RBP_SAME,	/* the caller's rbp is this frame's */
	UNW_RBP_CFA,	/* saved at CFA + rbp_off */
};

/* 12 bytes: libtorch_cpu.so's ~1.2 M rows take ~14 MB */
struct unw_row {
	__u32 pc;	/* the file's address where the rule starts */
	__s32 cfa_off;
	__s16 rbp_off;
	__u8 kind;	/* enum unw_kind */
	__u8 rbp;	/* enum unw_rbp */
};

/* a file the walker knows, by the (device, inode) of the mapping's file
 * as the kernel has them (dev: the kernel's dev_t, major << 20 | minor) */
struct unw_file_key {
	__u64 dev, ino;
};

/* its rows (nrows 0: none, frame pointers there) and where they are:
 * an address in a mapping of the file at vm_start with page offset
 * vm_pgoff is the file's address  pc - vm_start + vm_pgoff * 4096 + delta
 * (delta: p_vaddr - p_offset of its executable segment); its build-id,
 * for frames as BPF_F_USER_BUILD_ID gives them (UNW_BUILD_IDS) */
struct unw_file {
	__u32 index;	/* in UNW_FILES_MAP */
	__u32 nrows;
	__s64 delta;
	__u8 build_id[20];	/* zero-padded, as the kernel's BUILD_ID_SIZE_MAX */
	__u32 has_build_id;
};

/* a file the walker met with no entry in unw_known, under the key the
 * kernel gives it: the process and an address it maps the file at.  That
 * key may not be the one /proc/PID/maps shows (an overlayfs file since
 * Linux 6.8 shows the overlay's inode there, where the mapping's file is
 * the layer's), so user space learns it from here (runtime/unwind.c) */
struct unw_stale {
	__u64 addr;
	__u32 pid;
	__u32 pad;
};

/* the vDSO (no file backs it): its key, with rows from sonde's own image */
#define UNW_VDSO_DEV 0
#define UNW_VDSO_INO 1

#define UNW_MAX_FRAMES 127	/* the deepest walk, as bpf_get_stack */
#define UNW_ROW_BYTES (40u << 20)	/* every file's rows, in BPF (runtime/unwind.c) */
#define UNW_MAX_FILES 4096	/* files with rows, in a run */
#define UNW_MAX_KNOWN 16384	/* files known, with rows or without */

/* counters (UNW_STATS_MAP, per CPU), for -v and bench/unwind */
enum unw_stat {
	UNW_ST_WALKS,		/* stacks walked */
	UNW_ST_CFI,		/* frames found through CFI rows */
	UNW_ST_FP,		/* frames found through frame pointers */
	UNW_ST_UNKNOWN,		/* frames in a file not read yet (its process is flagged) */
	UNW_ST_ANON,		/* frames outside any file (JIT code, the vdso) */
	UNW_ST_NOVMA,		/* frames whose mapping bpf_find_vma could not give (busy in an interrupt) */
	UNW_ST_ENDED,		/* walks that ended on a failed read or a CFA below the stack pointer */
	UNW_ST__COUNT,
};

/* the maps' names, as the walker defines them */
#define UNW_FILES_MAP "unw_files"	/* ARRAY_OF_MAPS: file index -> ARRAY of rows */
#define UNW_KNOWN_MAP "unw_known"	/* HASH: struct unw_file_key -> struct unw_file */
#define UNW_STALE_MAP "unw_stale"	/* HASH: struct unw_file_key -> struct unw_stale */
#define UNW_STATS_MAP "unw_stats"	/* PERCPU_ARRAY of __u64 by enum unw_stat */
#define UNW_FUNC "sonde_unwind_user"	/* long (void *buf, __u32 size, __u32 pid, __u32 flags) */
#define UNW_RECORDS 1	/* flags: frames as struct bpf_stack_build_id records (32 bytes) */
/* flags, with UNW_RECORDS: a frame in a file with a build-id is
 * {BPF_STACK_BUILD_ID_VALID, its build-id, its file offset}, as the
 * kernel's walk gives it; else {BPF_STACK_BUILD_ID_IP, its address} */
#define UNW_BUILD_IDS 2
/* returned with UNW_RECORDS when a frame's file has no rows yet: the
 * caller takes the kernel's walk (bpf_get_stack with build-ids) instead */
#define UNW_UNKNOWN_FILE (-2)

#endif
