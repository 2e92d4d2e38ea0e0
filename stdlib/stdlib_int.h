/*
 * stdlib_int.h - helpers shared by the area files of stdlib/ (not a
 * public header).
 */
#ifndef SONDE_STDLIB_INT_H
#define SONDE_STDLIB_INT_H

#include "codegen/codegen.h"
#include "stdlib/stdlib.h"

/* stacks.c: the first time this pid meets ustack/usym, tell userspace to
 * read its mappings while it lives (EV_PID_SEEN); pid is an i64 */
void stdlib_note_pid(struct cg_ctx *cg, LLVMValueRef pid);
/* stacks.c: the current task's stack (user or kernel) into buf, at most
 * depth frames (addresses, or with build_id {status, build-id, offset}
 * records as BPF_F_USER_BUILD_ID gives them), zeros after them, as config
 * unwind says; its bytes of frames, or a negative error (an i64).  The
 * CFI walk's records carry build-ids too with named, else addresses
 * (ustack(raw) and ustack(perf) print the process's addresses) */
LLVMValueRef stdlib_read_stack(struct cg_ctx *cg, bool user, LLVMValueRef buf, uint32_t depth,
			       bool build_id, bool named);

/* stacks.c: a stack builtin's frame count, argument a: a constant of 1 to
 * max into *count, else a located error ("WHAT(): the number of frames must
 * be 1 to MAX<why>, not N") and false */
bool stdlib_stack_depth(struct sema_ctx *s, struct ast_node *a, const char *what, int max,
			const char *why, uint32_t *count);

/* stacks.c: the u32 id of the stack in buf (the map's key, zero padded)
 * in the stack map `map` (frames -> id, a new stack takes its CPU's next
 * number); stored to id (4 bytes).  An i1: this call inserted it. */
LLVMValueRef stdlib_stack_id(struct cg_ctx *cg, LLVMValueRef map, LLVMValueRef buf, LLVMValueRef id);

/* python.c: the id of the current thread's Python stack (at most depth
 * frames) in its stack map, an i64 without the pid (pid: an i64) */
LLVMValueRef stdlib_pystack_id(struct cg_ctx *cg, uint32_t depth, LLVMValueRef pid);

/* process.c: the current task's pid (want_pid) or tid, an i64, as sonde's
 * own PID namespace sees it: bpf_get_current_pid_tgid's where sonde runs in
 * the initial namespace, else bpf_get_ns_current_pid_tgid's (Linux 5.7; 0
 * for a task outside it).  pid(curr_ns), and the pid that ustack and usym
 * carry to userspace, whose /proc names processes by it. */
LLVMValueRef stdlib_own_ns_id(struct cg_ctx *cg, bool want_pid);

/* usdt.c: argument i of the USDT location being generated, as an i64 */
LLVMValueRef stdlib_usdt_arg(struct cg_ctx *cg, int i);
/* sema: every location of the probe has argument i; false after an error */
bool stdlib_usdt_check_arg(struct sema_ctx *s, struct ast_node *n, int i);
/* process.c: a `probe` node read as a string (strcontains(probe, ...)):
 * typed string[STDLIB_PROBE_STR], lowered to its attach point's name */
#define STDLIB_PROBE_STR 128
void stdlib_probe_as_string(struct sema_ctx *s, struct ast_node *a);

/* true when the provider of every attach point of the current probe
 * offers ctx (enum probe_ctx bits, sema's provider table); else reports
 * "NAME is not available in TYPE probes" at n and returns false */
bool stdlib_probe_types(struct sema_ctx *s, struct ast_node *n, const char *what,
			unsigned ctx);

/* a helper the kernel gives only programs with BTF-typed arguments
 * (fentry/fexit, where sonde has them): true in such a probe, else
 * "WHAT needs HELPER, which the kernel allows only in fentry/fexit
 * probes, not in TYPE probes" at n and false */
bool stdlib_btf_probe(struct sema_ctx *s, struct ast_node *n, const char *what, const char *helper,
		      bool raw_tp);

/* decoded.c: every argument of call n is an integer; n's type becomes
 * TY_DECODED printed by d (d NULL: uint64).  False after an error. */
bool stdlib_check_decoded(struct sema_ctx *s, struct ast_node *n, const struct type_decoder *d);

#endif
