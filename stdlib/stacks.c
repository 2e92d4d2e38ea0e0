/*
 * stacks.c - ustack and kstack.
 *
 *   ustack  ustack()  ustack(N)  ustack(MODE)  ustack(MODE, N)   (and kstack)
 *
 * MODE is bpftrace (default: "sym+off" lines), perf ("\taddr sym+off
 * (file)") or raw (hex addresses); N keeps at most N frames (1 to 127,
 * default 127, the kernel's perf_event_max_stack).  ustack(python) is the
 * ustack(build_id) prints each frame as the newest bpftrace does: its
 * file's build-id in hex and the offset in that file ("<id> 0x<off>"),
 * or the bare address of a frame without one.  ustack(python) is the
 * mixed stack: the native frames and the thread's Python stack (python.c)
 * under one id of the map "mstk_1" (key: the two ids), which
 * runtime/pystack.c merges when it prints: each run of the interpreter's
 * frames becomes the Python frames it ran.
 *
 * The BPF side reads the frames itself (bpf_get_stack, into per-CPU
 * scratch: 127 frames do not fit the 512-byte stack), as newer bpftrace
 * does, and looks them up in a hash map keyed by the frames (CG_STACK_MAP_FMT,
 * one per kind and depth), which gives each distinct stack a u32 id.  A new stack
 * gets the next id of its CPU's counter (CPU in the low 10 bits) and is
 * inserted with BPF_NOEXIST; when another CPU inserted it first, its id is
 * read back.  The kernel's STACK_TRACE map this replaces hashed stacks
 * into 4,096 buckets and dropped the newer one of a collision (13-25 % of
 * the stacks of the book's brkstack); a hash keyed by the whole stack has
 * no collisions, and loses a stack only when it holds
 * CG_STACK_MAP_ENTRIES of them, counted in CG_STACK_LOST_MAP and reported
 * at exit.  The value stored is the id as an 8-byte integer.  A user
 * stack's frames are read with BPF_F_USER_BUILD_ID: each is {status,
 * build-id, offset in the file} (CG_USTACK_FRAME bytes), so a stack means
 * the same in every process and is named after its process exited; a
 * frame the kernel could not give a build-id for is an address, which
 * means something only in its process: then the value carries the pid
 * above the id (frames_need_pid).  runtime/symbols.c and
 * runtime/exited.c read the frames back and name them when the value is
 * printed.  A kernel before 5.11 takes hash keys of
 * at most 512 bytes (16 build-id frames): deeper user stacks there go to a
 * STACK_TRACE map of the same name, of build-id frames too
 * (BPF_F_STACK_BUILD_ID) but always with the pid (bpf_get_stackid gives
 * no frames to look at; a collision loses the newer
 * stack, which is counted the same way), and so do kernel stacks
 * everywhere (CG_KSTACK_MAP_ENTRIES, as before; see lower_stack).
 *
 * How a user stack is walked is `config = { unwind = fp|cfi|auto }`:
 * bpf_get_stack follows frame pointers, which the libraries users trace
 * are built without; cfi calls the walker of codegen/unwind.c, which
 * applies each file's call-frame information (and frame pointers where a
 * file has none), into the same buffer, so that everything after it (the
 * id, symbols, every output) is the same.  auto is cfi where the kernel
 * has what the walker needs (bpf_loop, bpf_task_pt_regs), fp elsewhere.
 */
#include <errno.h>
#include <string.h>

#include "common/settings.h"
#include "host/host.h"
#include "host/python.h"
#include "host/cfi_abi.h"
#include "stdlib/stdlib_int.h"

#define STACK_MAX 127

_Static_assert(sizeof(struct bpf_stack_build_id) == CG_USTACK_FRAME, "a build-id frame's size");

static const char *const modes[] = {"bpftrace", "perf", "raw"};
enum { MODE_BPFTRACE, MODE_PERF, MODE_RAW };	/* type.stack_mode, as modes[] */

/* the kernel feature cfi unwinding lacks, or HF__COUNT */
static enum host_feature cfi_missing(void)
{
	static const enum host_feature needs[] = {HF_LOOP, HF_TASK_REGS, HF_BIG_KEYS};
	for (size_t i = 0; i < sizeof(needs) / sizeof(needs[0]); i++)
		if (host_feature(needs[i]) != HF_YES)
			return needs[i];
	return HF__COUNT;
}

bool stdlib_cfi_available(void)
{
	return cfi_missing() == HF__COUNT;
}

bool stdlib_unwind_cfi(void)
{
	return settings_int(SET_UNWIND) != SET_UNWIND_FP && cfi_missing() == HF__COUNT;
}

static void check_stack(struct sema_ctx *s, struct ast_node *n)
{
	const char *called = n->kind == N_CALL ? n->call.name : n->ident.name;
	bool user = strstr(called, "ustack") != NULL;
	const char *what = user ? "ustack" : "kstack";
	/* the newest release's dw_ustack(): its ustack unwound from DWARF
	 * call-frame information, which sonde's ustack does wherever the
	 * kernel can (config unwind = auto); so it is ustack, refused where
	 * it would not unwind so */
	if (!strcmp(called, "dw_ustack")) {
		enum host_feature no = cfi_missing();
		if (no != HF__COUNT || settings_int(SET_UNWIND) == SET_UNWIND_FP) {
			if (no != HF__COUNT)
				sema_error(s, n->loc, "dw_ustack unwinds by call-frame information, "
					   "which needs %s (Linux %s); ustack walks frame pointers here",
					   host_feature_what(no), host_feature_since(no));
			else
				sema_error(s, n->loc, "dw_ustack unwinds by call-frame information: "
					   "config unwind = fp turns that off (use ustack, or unwind = auto)");
			n->type.kind = TY_ERROR;
			return;
		}
	}
	/* without a MODE: BPFTRACE_STACK_MODE */
	struct type t = {.kind = user ? TY_USTACK : TY_KSTACK, .size = 8, .count = STACK_MAX,
			 .stack_mode = (uint8_t)settings_int(SET_STACK_MODE)};
	struct ast_node *a = n->kind == N_CALL ? n->call.args : NULL;
	if (user && a && a->kind == N_IDENT && !strcmp(a->ident.name, "python")) {
		t.stack_mode = STACK_MODE_MIXED;
		a = a->next;
	} else if (a && a->kind == N_IDENT && !strcmp(a->ident.name, "build_id")) {
		if (!user) {
			sema_error(s, a->loc, "'build_id' stack mode can only be used for ustack "
				   "(kernel frames have no build-id: kstack(raw) gives addresses)");
			n->type.kind = TY_ERROR;
			return;
		}
		t.stack_mode = STACK_MODE_BUILD_ID;
		a = a->next;
	} else if (a && a->kind == N_IDENT) {
		bool found = false;
		for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			if (!strcmp(a->ident.name, modes[i])) {
				t.stack_mode = (uint8_t)i;
				found = true;
			}
		if (!found) {
			sema_error(s, a->loc, "%s(): unknown stack mode '%s' (use bpftrace, perf or raw%s)",
				   what, a->ident.name,
				   user ? "; build_id for build-ids and offsets; python for Python frames" : "");
			n->type.kind = TY_ERROR;
			return;
		}
		a = a->next;
	} else if (a && a->next) {
		sema_error(s, a->loc, "%s(MODE, N): MODE is bpftrace, perf or raw", what);
		n->type.kind = TY_ERROR;
		return;
	}
	enum host_feature lack;
	if (user && settings_int(SET_UNWIND) == SET_UNWIND_CFI && (lack = cfi_missing()) != HF__COUNT) {
		sema_error(s, n->loc, "ustack: config unwind = cfi needs %s (Linux %s); use unwind = auto",
			   host_feature_what(lack), host_feature_since(lack));
		n->type.kind = TY_ERROR;
		return;
	}
	if (a && !stdlib_stack_depth(s, a, what, STACK_MAX, "", &t.count)) {
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = t;
}

bool stdlib_stack_depth(struct sema_ctx *s, struct ast_node *a, const char *what, int max,
			const char *why, uint32_t *count)
{
	int64_t depth;
	sema_expr(s, a);
	if (!sema_const_int(s, a, &depth))
		return false;
	if (depth < 1 || depth > max) {
		sema_error(s, a->loc, "%s(): the number of frames must be 1 to %d%s, not %lld", what, max,
			   why, (long long)depth);
		return false;
	}
	*count = (uint32_t)depth;
	return true;
}

LLVMValueRef stdlib_stack_id(struct cg_ctx *cg, LLVMValueRef map, LLVMValueRef buf, LLVMValueRef id)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMTypeRef i32 = cg_i32(cg);
	LLVMValueRef fresh = cg_alloca_shared(cg, 8, "sonde.stacknew");
	cg_store_i64(cg, cg_const(cg, 0), fresh);
	LLVMValueRef look[] = {map, buf};
	LLVMValueRef p = cg_helper_call(cg, BPF_FUNC_map_lookup_elem, look, 2);
	p = LLVMBuildIntToPtr(b, p, cg_ptr(cg), "");
	LLVMValueRef known = LLVMBuildIsNotNull(b, p, "");
	struct cg_if k = cg_begin_if(cg, known, "stack_known");
	LLVMBuildStore(b, LLVMBuildLoad2(b, i32, p, ""), id);
	cg_end_if(cg, &k);
	struct cg_if f = cg_begin_if(cg, LLVMBuildNot(b, known, ""), "stack_new");
	/* a new id: this CPU's next number, the CPU in the low 10 bits */
	LLVMValueRef ctr = cg_scratch(cg, "stk_next", 8);
	LLVMValueRef next = cg_load_i64(cg, ctr);
	cg_store_i64(cg, LLVMBuildAdd(b, next, cg_const(cg, 1), ""), ctr);
	LLVMValueRef cpu = cg_helper_call(cg, BPF_FUNC_get_smp_processor_id, NULL, 0);
	LLVMValueRef v = LLVMBuildOr(b, LLVMBuildShl(b, next, cg_const(cg, 10), ""),
				     LLVMBuildAnd(b, cpu, cg_const(cg, 1023), ""), "");
	v = LLVMBuildAnd(b, v, cg_const(cg, 0x7fffffff), "");
	LLVMBuildStore(b, LLVMBuildTrunc(b, v, i32, ""), id);
	LLVMValueRef ins[] = {map, buf, id, cg_const(cg, BPF_NOEXIST)};
	LLVMValueRef rc = cg_helper_call_quiet(cg, BPF_FUNC_map_update_elem, ins, 4);
	LLVMValueRef raced = LLVMBuildICmp(b, LLVMIntEQ, rc, cg_const(cg, (uint64_t)-EEXIST), "");
	cg_store_i64(cg, LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntEQ, rc, cg_const(cg, 0), ""), cg_i64(cg), ""),
		     fresh);
	struct cg_if r = cg_begin_if(cg, raced, "stack_raced");
	/* another CPU inserted the same stack meanwhile: its id */
	LLVMValueRef p2 = LLVMBuildIntToPtr(b, cg_helper_call(cg, BPF_FUNC_map_lookup_elem, look, 2),
					    cg_ptr(cg), "");
	struct cg_if r2 = cg_begin_if(cg, LLVMBuildIsNotNull(b, p2, ""), "stack_raced_found");
	LLVMBuildStore(b, LLVMBuildLoad2(b, i32, p2, ""), id);
	cg_end_if(cg, &r2);
	cg_end_if(cg, &r);
	LLVMValueRef full = LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntNE, rc, cg_const(cg, 0), ""),
					 LLVMBuildNot(b, raced, ""), "");
	struct cg_if l = cg_begin_if(cg, full, "stack_lost");
	/* the map is full: the stack is lost, and counted */
	LLVMBuildStore(b, LLVMConstInt(i32, (uint64_t)(int64_t)CG_STACK_LOST_ID, 1), id);
	LLVMValueRef lost = cg_scratch(cg, CG_STACK_LOST_MAP, 8);
	cg_store_i64(cg, LLVMBuildAdd(b, cg_load_i64(cg, lost), cg_const(cg, 1), ""), lost);
	cg_end_if(cg, &l);
	cg_end_if(cg, &f);
	return LLVMBuildICmp(b, LLVMIntNE, cg_load_i64(cg, fresh), cg_const(cg, 0), "stack_inserted");
}

/* the stack value: the id, and a user stack's pid above it, as sonde's
 * /proc names the process (its PID namespace's: sonde started inside a
 * namespace reads the maps of /proc/NSPID, where the initial namespace's
 * pid names nothing or another process) */
static LLVMValueRef stack_pid(struct cg_ctx *cg, LLVMValueRef id, bool user)
{
	LLVMBuilderRef b = cg_builder(cg);
	if (!user)
		return id;
	LLVMValueRef pid = stdlib_own_ns_id(cg, true);
	stdlib_note_pid(cg, pid);
	return LLVMBuildOr(b, id, LLVMBuildShl(b, pid, cg_const(cg, 32), ""), "ustack");
}

/* i1: does a frame of the build-id stack in buf hold an address (the
 * kernel fell back to one: no build-id, or its page not in memory)?  A
 * bounded loop over the frames, up to the first that is not VALID */
static LLVMValueRef frames_need_pid(struct cg_ctx *cg, LLVMValueRef buf, uint32_t depth)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMContextRef c = cg_context(cg);
	LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
	LLVMBasicBlockRef entry = LLVMGetInsertBlock(b);
	LLVMBasicBlockRef loop = LLVMAppendBasicBlockInContext(c, fn, "bid_frame");
	LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(c, fn, "bid_next");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(c, fn, "bid_done");
	LLVMBuildBr(b, loop);
	LLVMPositionBuilderAtEnd(b, loop);
	LLVMValueRef i = LLVMBuildPhi(b, cg_i64(cg), "i");
	LLVMValueRef at = LLVMBuildGEP2(b, cg_i8(cg), buf,
					(LLVMValueRef[]){LLVMBuildMul(b, i, cg_const(cg, CG_USTACK_FRAME), "")},
					1, "");
	LLVMValueRef st = LLVMBuildLoad2(b, cg_i32(cg), at, "status");
	LLVMValueRef valid = LLVMBuildICmp(b, LLVMIntEQ, st, LLVMConstInt(cg_i32(cg), BPF_STACK_BUILD_ID_VALID, 0), "");
	LLVMValueRef ip = LLVMBuildICmp(b, LLVMIntEQ, st, LLVMConstInt(cg_i32(cg), BPF_STACK_BUILD_ID_IP, 0), "");
	LLVMBuildCondBr(b, valid, next, done);
	LLVMPositionBuilderAtEnd(b, next);
	LLVMValueRef i1 = LLVMBuildAdd(b, i, cg_const(cg, 1), "");
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, i1, cg_const(cg, depth), ""), loop, done);
	LLVMAddIncoming(i, (LLVMValueRef[]){cg_const(cg, 0), i1}, (LLVMBasicBlockRef[]){entry, next}, 2);
	LLVMPositionBuilderAtEnd(b, done);
	LLVMValueRef res = LLVMBuildPhi(b, LLVMInt1TypeInContext(c), "need_pid");
	LLVMAddIncoming(res, (LLVMValueRef[]){ip, LLVMConstInt(LLVMInt1TypeInContext(c), 0, 0)},
			(LLVMBasicBlockRef[]){loop, next}, 2);
	return res;
}

/* the kernel's stack map (kernel stacks; user stacks before 5.11);
 * -EEXIST (a collision) is lost */
static LLVMValueRef stack_id_old(struct cg_ctx *cg, const char *name, uint32_t depth, bool user)
{
	LLVMBuilderRef b = cg_builder(cg);
	/* user stacks by build-id here too (BPF_F_STACK_BUILD_ID): named
	 * after their process exited, though each keeps its pid */
	LLVMValueRef map = user ? cg_aux_map_flags(cg, name, BPF_MAP_TYPE_STACK_TRACE, CG_STACK_MAP_ENTRIES,
						   4, depth * CG_USTACK_FRAME, BPF_F_STACK_BUILD_ID)
				: cg_aux_map(cg, name, BPF_MAP_TYPE_STACK_TRACE, CG_KSTACK_MAP_ENTRIES, 4,
					     depth * 8);
	LLVMValueRef args[] = {cg_ctx_arg(cg), map, cg_const(cg, user ? BPF_F_USER_STACK : 0)};
	LLVMValueRef id = cg_helper_call(cg, BPF_FUNC_get_stackid, args, 3);
	LLVMValueRef lost = LLVMBuildICmp(b, LLVMIntEQ, id, cg_const(cg, (uint64_t)-EEXIST), "");
	struct cg_if l = cg_begin_if(cg, lost, "stack_lost");
	LLVMValueRef ctr = cg_scratch(cg, CG_STACK_LOST_MAP, 8);
	cg_store_i64(cg, LLVMBuildAdd(b, cg_load_i64(cg, ctr), cg_const(cg, 1), ""), ctr);
	cg_end_if(cg, &l);
	return LLVMBuildAnd(b, id, cg_const(cg, 0xffffffff), "stackid");
}

LLVMValueRef stdlib_read_stack(struct cg_ctx *cg, bool user, LLVMValueRef buf, uint32_t depth,
			       bool build_id, bool named)
{
	uint32_t size = depth * (build_id ? CG_USTACK_FRAME : 8);
	uint64_t flags = (user ? BPF_F_USER_STACK : 0) | (build_id ? BPF_F_USER_BUILD_ID : 0);
	LLVMValueRef args[] = {cg_ctx_arg(cg), buf, cg_const(cg, size), cg_const(cg, flags)};
	LLVMValueRef got = NULL;
	if (user && stdlib_unwind_cfi())
		got = cg_unwind_user(cg, buf, size, stdlib_own_ns_id(cg, true),
				     (build_id ? UNW_RECORDS : 0) | (build_id && named ? UNW_BUILD_IDS : 0));
	if (!got)
		return cg_helper_call(cg, BPF_FUNC_get_stack, args, 4);
	if (!build_id)
		return got;
	/* the CFI walk met a file whose rows are not read yet (a process
	 * seconds old, which may be gone before they are): the kernel's walk,
	 * whose build-id frames name it after it exits (unwind.bpf.c) */
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef res = cg_alloca_shared(cg, 8, "sonde.stackbytes");
	cg_store_i64(cg, got, res);
	LLVMValueRef unknown = LLVMBuildICmp(b, LLVMIntEQ, got,
					     cg_const(cg, (uint64_t)(int64_t)UNW_UNKNOWN_FILE), "");
	struct cg_if k = cg_begin_if(cg, unknown, "unwind_unknown_file");
	cg_store_i64(cg, cg_helper_call(cg, BPF_FUNC_get_stack, args, 4), res);
	cg_end_if(cg, &k);
	return cg_load_i64(cg, res);
}

/* ustack(python): the id of {native id, Python stack id} in "mstk_1" */
static LLVMValueRef mixed_id(struct cg_ctx *cg, LLVMValueRef native)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef pid = stdlib_own_ns_id(cg, true);
	LLVMValueRef py = stdlib_pystack_id(cg, PY_MIXED_DEPTH(host_feature(HF_BIG_KEYS)), pid);
	char name[32];
	snprintf(name, sizeof(name), CG_STACK_MAP_FMT, 'm', 1);
	/* preallocated before 5.11: a perf_event program (profile:) may use no
	 * other there */
	LLVMValueRef map = cg_aux_map_flags(cg, name, BPF_MAP_TYPE_HASH, CG_STACK_MAP_ENTRIES, 8, 4,
					    host_feature(HF_BIG_KEYS) ? BPF_F_NO_PREALLOC : 0);
	LLVMValueRef key = cg_alloca_shared(cg, 8, "sonde.mixedkey");
	cg_store_i64(cg, LLVMBuildOr(b, LLVMBuildAnd(b, native, cg_const(cg, 0xffffffff), ""),
				     LLVMBuildShl(b, py, cg_const(cg, 32), ""), ""), key);
	LLVMValueRef id = cg_alloca_shared(cg, 4, "sonde.mixedid");
	stdlib_stack_id(cg, map, key, id);
	return LLVMBuildZExt(b, LLVMBuildLoad2(b, cg_i32(cg), id, ""), cg_i64(cg), "mixedid");
}

static LLVMValueRef lower_stack(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMBuilderRef b = cg_builder(cg);
	bool user = n->type.kind == TY_USTACK;
	uint32_t depth = n->type.count ? n->type.count : STACK_MAX;
	char name[32];
	snprintf(name, sizeof(name), CG_STACK_MAP_FMT, user ? 'u' : 'k', depth);
	/* kernel stacks stay in the kernel's stack map: bpf_get_stack in a
	 * syscall tracepoint leaves out a frame (__traceiter_sys_enter) that
	 * bpf_get_stackid and bpftrace show; there are few distinct ones */
	if (!user || (depth * CG_USTACK_FRAME > 512 && !host_feature(HF_BIG_KEYS))) {
		LLVMValueRef old = stack_id_old(cg, name, depth, user);
		if (n->type.stack_mode == STACK_MODE_MIXED)
			old = mixed_id(cg, old);
		return stack_pid(cg, old, user);
	}
	/* user stacks from here on: frames of {status, build-id, file
	 * offset} (see above) */
	uint32_t size = depth * CG_USTACK_FRAME;
	/* no preallocation: 128K stacks of 4 KiB would take 520 MB up front */
	LLVMValueRef map = cg_aux_map_flags(cg, name, BPF_MAP_TYPE_HASH, CG_STACK_MAP_ENTRIES, size,
					    4, BPF_F_NO_PREALLOC);
	LLVMValueRef buf = cg_scratch(cg, name, size);
	/* raw and perf print the process's addresses (t_unwind's backtrace()
	 * oracle): the CFI walk's frames stay addresses there */
	bool named = n->type.stack_mode != MODE_PERF && n->type.stack_mode != MODE_RAW;
	LLVMValueRef got = stdlib_read_stack(cg, user, buf, depth, true, named);
	/* an error (-EFAULT: no stack of that kind here, kstack in a uprobe)
	 * is the id, as bpf_get_stackid gave it */
	LLVMValueRef id = cg_alloca_shared(cg, 4, "sonde.stackid");
	LLVMBuildStore(b, LLVMBuildTrunc(b, got, cg_i32(cg), ""), id);
	LLVMValueRef ok = LLVMBuildICmp(b, LLVMIntSGE, got, cg_const(cg, 0), "");
	struct cg_if f = cg_begin_if(cg, ok, "stack_read");
	stdlib_stack_id(cg, map, buf, id);
	cg_end_if(cg, &f);
	LLVMValueRef v = LLVMBuildZExt(b, LLVMBuildLoad2(b, cg_i32(cg), id, ""), cg_i64(cg), "stackid");
	if (n->type.stack_mode == STACK_MODE_MIXED)
		v = mixed_id(cg, v);
	/* the pid goes with the stack only when a frame needs the process's
	 * mappings (an address): a stack named by build-ids alone is the same
	 * value in every process, one map entry however many ran it */
	LLVMValueRef pid = stdlib_own_ns_id(cg, true);
	stdlib_note_pid(cg, pid);
	LLVMValueRef need = LLVMBuildAnd(b, ok, frames_need_pid(cg, buf, depth), "");
	pid = LLVMBuildSelect(b, need, pid, cg_const(cg, 0), "");
	return LLVMBuildOr(b, v, LLVMBuildShl(b, pid, cg_const(cg, 32), ""), "ustack");
}

void stdlib_note_pid(struct cg_ctx *cg, LLVMValueRef pid)
{
	LLVMValueRef map = cg_aux_map(cg, "pids_seen", BPF_MAP_TYPE_LRU_HASH, 4096, 4, 8);
	/* shared slots: a program may meet many ustack/usym, each on the stack */
	LLVMValueRef key = cg_alloca_shared(cg, 8, "sonde.pidkey");
	cg_store_i64(cg, pid, key);
	LLVMValueRef val = cg_alloca_shared(cg, 8, "sonde.pidval");
	cg_store_i64(cg, cg_const(cg, 0), val);
	LLVMValueRef args[] = {map, key, val, cg_const(cg, BPF_NOEXIST)};
	LLVMValueRef rc = cg_helper_call_quiet(cg, BPF_FUNC_map_update_elem, args, 4);
	LLVMValueRef fresh = LLVMBuildICmp(cg_builder(cg), LLVMIntEQ, rc, cg_const(cg, 0), "");
	struct cg_if f = cg_begin_if(cg, fresh, "newpid");
	LLVMValueRef ev = cg_alloca_shared(cg, 16, "sonde.pidevent");
	cg_store_i64(cg, cg_const(cg, EV_PID_SEEN), ev);
	cg_store_i64(cg, pid, cg_gep(cg, ev, 8));
	cg_event_output(cg, ev, cg_const(cg, 16));
	cg_end_if(cg, &f);
}

#define STACK_VAR(nm, doc) \
	{.name = nm, .kind = BI_VAR, .check = check_stack, .lower = lower_stack, .summary = doc}
#define STACK_FN(nm, doc) \
	{.name = nm, .kind = BI_FUNC, .min_args = 0, .max_args = 2, .check = check_stack, \
	 .lower = lower_stack, .summary = doc}

const struct builtin stdlib_stacks[] = {
	STACK_VAR("ustack", "user stack of the current task"),
	STACK_VAR("kstack", "kernel stack of the current task"),
	STACK_FN("ustack", "user stack: ustack([bpftrace|perf|raw|build_id|python] [, frames])"),
	STACK_FN("kstack", "kernel stack: kstack([bpftrace|perf|raw] [, frames])"),
	STACK_FN("dw_ustack", "ustack unwound by call-frame information (the newest bpftrace's name)"),
	{0},
};
