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
#ifndef SONDE_HOST_USDT_H
#define SONDE_HOST_USDT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct arena;

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

#endif
