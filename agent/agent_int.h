/*
 * agent_int.h - what the files of agent/ share (not a public header).
 */
#ifndef SONDE_AGENT_INT_H
#define SONDE_AGENT_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "agent/agent.h"

/* patch.c: one hooked entry */
struct sa_hook {
	uint64_t addr;		/* the function */
	uint64_t at;		/* the aligned word written */
	int width;		/* 8 or 16 */
	int len;		/* bytes of instructions displaced */
	uint8_t orig[16];	/* the word before the hook */
	uint8_t *stub;
	int ninsn;		/* displaced instructions: offsets in the */
	uint8_t off[8];		/* function and of their copies in the stub */
	uint8_t stub_off[8];
	bool installed;
};
/* hook addr (a function of size bytes, 0 if unknown) so that it calls
 * sa_on_enter(site, regs) first; 0, or -EINVAL with why set */
int sa_patch_install(struct sa_hook *h, uint64_t addr, uint64_t size, void *site, char *why, size_t wn);
int sa_patch_remove(struct sa_hook *h);
/* stop.c: write(h, bytes) with the other running threads parked, and any
 * of them left inside h's displaced instructions moved to the stub */
int sa_write_stopped(struct sa_hook *h, int (*write)(struct sa_hook *h, const uint8_t *bytes),
		     const uint8_t *bytes);

/* tramp.S, and what it calls (agent.c) */
void sa_tramp_enter(void);
void sa_tramp_return(void);
struct sa_regs;
void sa_on_enter(void *site, struct sa_regs *r);
uint64_t sa_on_return(struct sa_regs *r, struct sa_regs *again);

/* the kernel's struct pt_regs on x86-64: what a probe's ctx points to */
struct sa_regs {
	uint64_t r15, r14, r13, r12, bp, bx, r11, r10, r9, r8, ax, cx, dx, si, di;
	uint64_t orig_ax, ip, cs, flags, sp, ss;
};

/* interp.c: run a program.  The environment of one run: */
struct sa_env {
	uint8_t *shm;		/* the mapped shared memory */
	struct sa_shm *hdr;
	struct sa_map *maps;
	uint32_t shard;		/* this thread's */
	uint64_t cookie;
	uint64_t func_ip;
	uint64_t pid_tgid;
	const char *comm;	/* 16 bytes */
};
/* run n instructions (checked once by sa_prog_check) with ctx in r1;
 * returns r0 */
uint64_t sa_run(const struct sa_env *e, const void *insns, uint32_t n, void *ctx);
/* the agent only runs what the kernel verifier accepted; this checks what
 * the agent itself relies on: known opcodes and helpers, jumps in range,
 * maps in the table.  0 or -EINVAL with why set. */
int sa_prog_check(const struct sa_shm *h, const struct sa_map *maps, const void *insns, uint32_t n,
		  char *why, size_t wn);

#endif
