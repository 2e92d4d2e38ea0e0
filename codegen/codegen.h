/*
 * codegen.h - typed AST to a BPF ELF object, through the LLVM C API.
 *
 * cg_compile() (declared in codegen/program.h, with the object it makes)
 * emits one BPF function per probe (one per attach point when the body
 * reads per-attach data such as tracepoint args), BTF-defined maps in
 * ".maps" (per-CPU hashes for aggregations, one ring buffer for events),
 * and debug info so LLVM writes the BTF libbpf needs.  The result is an
 * ELF image in memory.
 *
 * This header is the BPF-domain layer over LLVM (cg_map_lookup,
 * cg_helper_call, cg_probe_read ...) that stdlib/ builtins lower through.
 */
#ifndef SONDE_CODEGEN_H
#define SONDE_CODEGEN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <linux/bpf.h>
#include <llvm-c/Core.h>

#include "codegen/program.h"
#include "sema/sema.h"

/* ---- the BPF-domain layer, for stdlib/ ------------------------------------ */

struct cg_ctx;

/* BPF helper ids: enum bpf_func_id in <linux/bpf.h> (BPF_FUNC_*) */

LLVMBuilderRef cg_builder(struct cg_ctx *cg);
LLVMContextRef cg_context(struct cg_ctx *cg);
LLVMTypeRef cg_i8(struct cg_ctx *cg);
LLVMTypeRef cg_i32(struct cg_ctx *cg);
LLVMTypeRef cg_i64(struct cg_ctx *cg);
LLVMTypeRef cg_ptr(struct cg_ctx *cg);
LLVMValueRef cg_const(struct cg_ctx *cg, uint64_t v);	/* i64 */
LLVMValueRef cg_ctx_arg(struct cg_ctx *cg);	/* the program's context pointer */
const struct sema_attach *cg_attach(struct cg_ctx *cg);	/* attach point being generated */
const struct sema_result *cg_sema(struct cg_ctx *cg);
/* does the program being generated serve several attach points? */
bool cg_shared_program(struct cg_ctx *cg);
/* bpf_get_attach_cookie(ctx), and the note that the runtime must set it */
LLVMValueRef cg_attach_cookie(struct cg_ctx *cg);
const struct cg_opts *cg_options(struct cg_ctx *cg);

/* integer or pointer-to-bytes, see struct builtin's lower */
LLVMValueRef cg_expr(struct cg_ctx *cg, struct ast_node *e);
/* store e's value into dst (size e->type.size, zero-padded to dst_size) */
void cg_expr_store(struct cg_ctx *cg, struct ast_node *e, LLVMValueRef dst, uint32_t dst_size);
/* the same into memory laid out as `to` (a tuple whose strings are wider
 * than e's: each member goes to its own offset) */
void cg_expr_store_as(struct cg_ctx *cg, struct ast_node *e, LLVMValueRef dst,
		      const struct type *to);
/* stack memory in the entry block, zeroed at the point of the call */
LLVMValueRef cg_alloca(struct cg_ctx *cg, uint32_t size, const char *name);
LLVMValueRef cg_alloca_nozero(struct cg_ctx *cg, uint32_t size, const char *name);
/* a slot that outlives the statement being lowered (a $variable) */
LLVMValueRef cg_alloca_program(struct cg_ctx *cg, uint32_t size, const char *name);
/* a statement's temporaries: every slot made between begin and end is
 * alive from where it is made to end (codegen/expr.c's cg_stmt) */
void cg_temps_begin(struct cg_ctx *cg, int *mark);
void cg_temps_end(struct cg_ctx *cg, int mark, struct src_loc loc);
/* where a stack slot's contents begin (start) and stop mattering */
void cg_lifetime(struct cg_ctx *cg, LLVMValueRef slot, uint32_t size, bool start);
/* one entry-block slot per name and program, not zeroed: for temporaries
 * used in a stretch of code that cannot run itself again before it is done
 * (a helper's key, a fixed-size event), saving BPF stack */
LLVMValueRef cg_alloca_shared(struct cg_ctx *cg, uint32_t size, const char *name);
void cg_memset0(struct cg_ctx *cg, LLVMValueRef dst, uint32_t size);
void cg_memcpy(struct cg_ctx *cg, LLVMValueRef dst, LLVMValueRef src, uint32_t size);
LLVMValueRef cg_gep(struct cg_ctx *cg, LLVMValueRef base, uint32_t off);
/* a string of size bytes on the stack holding s (len bytes, cut to size - 1) */
LLVMValueRef cg_const_bytes(struct cg_ctx *cg, const char *s, uint32_t len, uint32_t size);
LLVMValueRef cg_load_i64(struct cg_ctx *cg, LLVMValueRef ptr);	/* 8-byte load */
/* fentry/fexit: the 8-byte context slot at off as a value of type t (an
 * integer narrower than 8 bytes is its low part, extended as t says) */
LLVMValueRef cg_kfunc_slot(struct cg_ctx *cg, uint32_t off, const struct type *t);
/* uprobe (kf->regs): argument i as a value of type t, from its register or
 * its stack slot (a struct: a pointer to its bytes on the BPF stack) */
LLVMValueRef cg_uarg(struct cg_ctx *cg, const struct sema_kfunc *kf, int i, const struct type *t);
/* args alone in a tracepoint: the record's fields into a value laid out
 * as n's struct type (sema_tp_args) */
LLVMValueRef cg_tp_args(struct cg_ctx *cg, struct ast_node *n);
void cg_store_i64(struct cg_ctx *cg, LLVMValueRef v, LLVMValueRef ptr);

LLVMValueRef cg_helper_call(struct cg_ctx *cg, int helper, LLVMValueRef *args, int nargs);
/* the address of the kernel variable with vmlinux BTF id btf_id, as the
 * verifier resolves it (ld_imm64 with BPF_PSEUDO_BTF_ID: for a per-CPU
 * variable a per-CPU pointer, for bpf_per_cpu_ptr/bpf_this_cpu_ptr) */
LLVMValueRef cg_ksym_btf(struct cg_ctx *cg, uint32_t btf_id);
/* a call of the kernel function (kfunc) whose id in the kernel's BTF is
 * btf_id, with up to 5 i64 arguments: its i64 result (r0) */
LLVMValueRef cg_kfunc_call(struct cg_ctx *cg, uint32_t btf_id, LLVMValueRef *args, int nargs);
/* v as a value LLVM cannot see through (no arithmetic on it is moved
 * before the branch this is in: a kfunc's pointer, null-checked) */
LLVMValueRef cg_opaque(struct cg_ctx *cg, LLVMValueRef v);
/* the same, never checked by -k: for calls whose failure is part of the
 * protocol (a BPF_NOEXIST insert that finds the key there) */
LLVMValueRef cg_helper_call_quiet(struct cg_ctx *cg, int helper, LLVMValueRef *args, int nargs);
/* bpf_probe_read_{kernel,user}[_str](dst, size, src) */
LLVMValueRef cg_probe_read(struct cg_ctx *cg, LLVMValueRef dst, uint32_t size,
			   LLVMValueRef src, int user, int str);
/* the map an N_MAP node names */
const struct sema_map *cg_map_of(struct cg_ctx *cg, struct ast_node *map);
/* pointer to the map's definition global, for helper arguments */
LLVMValueRef cg_map_ref(struct cg_ctx *cg, const struct sema_map *m);
LLVMValueRef cg_map_lookup(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key);
/* -k: a lookup p of m that found nothing is reported (EV_HELPER_ERROR of
 * map_lookup_elem, code 0); reads of a value only, not the lookups of an
 * update that creates the key */
void cg_check_lookup(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef p);
/* bpf_map_lookup_percpu_elem: the value a given CPU holds (cpu: i64) */
LLVMValueRef cg_map_lookup_cpu(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key,
			       LLVMValueRef cpu);
LLVMValueRef cg_map_update(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key,
			   LLVMValueRef val, uint64_t flags);
LLVMValueRef cg_map_delete(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key);
/* the key of an N_MAP node built on the stack (extra 8 bytes zeroed at the end
 * when with_bucket, for hist/lhist slot index); returns the pointer */
LLVMValueRef cg_map_key(struct cg_ctx *cg, struct ast_node *map, int with_bucket);
/* delete(@m, k) of a tseries map: each of k's interval slots; an i64,
 * 1 when any was there */
LLVMValueRef cg_tseries_delete(struct cg_ctx *cg, struct ast_node *map);
/* a tseries map deletes a key's slots one by one: at most this many */
#define CG_TS_DELETE_MAX 4096
/* update map node `map` with aggregation call `call` (count(), hist(x) ...) */
void cg_agg_update(struct cg_ctx *cg, struct ast_node *map, struct ast_node *call);
/* send event ev: header {u32 kind, u32 id}, then args laid out per ev->args;
 * extra (if not NULL) are raw i64 words stored first (e.g. top/div) */
void cg_event_emit(struct cg_ctx *cg, const struct sema_event *ev, struct ast_node *args);
void cg_event_raw(struct cg_ctx *cg, enum event_kind kind, uint32_t id,
		  const uint64_t *words, int nwords);
/* exit(): set the stop flag userspace reads from memory, then send EV_EXIT
 * (the event only wakes the consumer; a full ring buffer may drop it) */
/* exit(): code (an i64, or NULL for 0) becomes sonde's exit status */
void cg_stop_request(struct cg_ctx *cg, LLVMValueRef code);
/* the probe returns when exit() has been called (sema_result.stops) */
void cg_return_if_stopped(struct cg_ctx *cg);
/* send `size` bytes at buf as one event (buf starts with the header);
 * size may be a run-time value bounded by the buffer's size */
void cg_event_output(struct cg_ctx *cg, LLVMValueRef buf, LLVMValueRef size);
/* a map beside the program's @maps (stack traces, scratch buffers),
 * declared on first use; the same name always gives the same map */
LLVMValueRef cg_aux_map(struct cg_ctx *cg, const char *name, uint32_t type,
			uint32_t max_entries, uint32_t key_size, uint32_t value_size);
/* the same with map_flags (BPF_F_NO_PREALLOC ...) */
LLVMValueRef cg_aux_map_flags(struct cg_ctx *cg, const char *name, uint32_t type,
			      uint32_t max_entries, uint32_t key_size, uint32_t value_size,
			      uint32_t flags);
/* `size` bytes of per-CPU scratch memory named `name`, for temporaries too
 * big for the 512-byte BPF stack (join buffers ...).  Not zeroed; valid
 * until the program returns; the program returns if the lookup fails. */
LLVMValueRef cg_scratch(struct cg_ctx *cg, const char *name, uint32_t size);
/* unwind.c: the current task's user stack walked through call-frame
 * information (codegen/bpfc/unwind.bpf.c, linked in on first use) into buf
 * (`size` bytes: the frames, then zeros; flags UNW_RECORDS: each frame a
 * struct bpf_stack_build_id holding its address, BPF_STACK_BUILD_ID_IP,
 * and with UNW_BUILD_IDS its build-id and file offset where its file has
 * one: host/cfi_abi.h), for process pid (an i64, as sonde's /proc names
 * it); its bytes of frames, an i64.  NULL after a message when the walker
 * cannot be linked. */
LLVMValueRef cg_unwind_user(struct cg_ctx *cg, LLVMValueRef buf, uint32_t size, LLVMValueRef pid,
			    uint32_t flags);
/* bpf_loop (5.17, HF_LOOP) around a body the caller builds, verified once
 * however many times it runs (loops.c):
 *   frame = cg_loop_frame(cg, words, name);   the probe's stack, which the
 *       body reaches (bpf_loop's callback takes no other memory), one per
 *       name and probe; fill it
 *   cb = cg_callback_begin(cg, name, &index, &f);   the builder in the body
 *       of long name(u64 index, void *f): index the iteration (unknown to
 *       the verifier: bound it before it addresses memory), f the frame
 *   cg_callback_stop_if(cg, cond);   ends the loop when cond (i1) holds
 *   fn = cg_callback_end(cg, cb);   falling off the body continues; the
 *       builder back where it was
 *   cg_loop_call(cg, count, fn, frame);
 * A cg_return in the body stops the loop (the probe goes on after it). */
struct cg_callback;
LLVMValueRef cg_loop_frame(struct cg_ctx *cg, uint32_t words, const char *name);
struct cg_callback *cg_callback_begin(struct cg_ctx *cg, const char *name, LLVMValueRef *index,
				      LLVMValueRef *frame);
void cg_callback_stop_if(struct cg_ctx *cg, LLVMValueRef cond);
LLVMValueRef cg_callback_end(struct cg_ctx *cg, struct cg_callback *cb);
void cg_loop_call(struct cg_ctx *cg, LLVMValueRef count, LLVMValueRef fn, LLVMValueRef frame);
/* number of entries in map m (bpf_for_each_map_elem with a callback that
 * only continues), an i64 */
LLVMValueRef cg_map_count(struct cg_ctx *cg, const struct sema_map *m);
/* i1: does the current task pass -p / --container (true without them) */
LLVMValueRef cg_in_scope(struct cg_ctx *cg);
/* stop the program here: return 0 */
void cg_return(struct cg_ctx *cg);

/* if-then helper: returns the "then" block already positioned; call
 * cg_end_if() to continue after it */
struct cg_if { LLVMBasicBlockRef then_bb, end_bb; };
struct cg_if cg_begin_if(struct cg_ctx *cg, LLVMValueRef cond_i1, const char *name);
void cg_end_if(struct cg_ctx *cg, struct cg_if *b);

#endif
