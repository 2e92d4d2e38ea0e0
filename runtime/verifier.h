/*
 * verifier.h - read a verifier refusal back to the script: which class of
 * refusal it is, what the kernel's verdict was, and which script line and
 * column the failing instruction came from.
 */
#ifndef SONDE_VERIFIER_H
#define SONDE_VERIFIER_H

#include <stddef.h>

#include "common/explain.h"

/* The index of the instruction the verifier stopped on (the last
 * "N: (op) ..." line of its log), or -1. */
int vf_failing_insn(const char *log, size_t len);

/* The verifier's verdict: the last line of the log that is not its
 * statistics ("processed N insns ...", "verification time ..."); NULL
 * when the log holds none (a refusal before verification). */
const char *vf_verdict(const char *log, size_t len, size_t *vlen);

/* The class of a refusal, from its verdict (EX_UNKNOWN when none fits). */
enum ex_code vf_classify(const char *log, size_t len);

/* The script line (1-based) and column of instruction `insn` of program
 * `prog` in a BPF ELF object, from its BTF line info (.BTF.ext); 0 when
 * the object has none for it.  Code of imported C (a .bpf.c's lines) is
 * located at the script's line that calls it. */
int vf_insn_line(const void *elf, size_t size, const char *prog, int insn, int *col);

#endif
