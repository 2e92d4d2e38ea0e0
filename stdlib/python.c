/*
 * python.c - pystack: the Python stack of the current thread.
 *
 *   pystack  pystack()  pystack(N)
 *
 * N keeps at most N frames (1 to 127; default 127, 31 on a kernel before
 * 5.11 whose hash keys hold at most 512 bytes).  The value is a ustack-kind
 * stack (TY_USTACK in the Python mode): an id with the pid above it, so
 * every writer, key folding and printf("%s") treat it as they treat ustack.
 *
 * BPF walks the frame chain and records only what identifies each frame:
 * the code object's address and the raw instruction word (prev_instr or
 * instr_ptr from 3.11, f_lasti before), innermost first.  Userspace
 * (runtime/pystack.c, host/python.c) fills two maps beforehand: py_procs,
 * pid -> struct py_bpf_offs (the layout of that process's interpreter, or
 * ok = 0 for a process that is not Python or cannot be read), and
 * py_threads, tid -> PyThreadState address.  A pid missing from py_procs, or
 * a thread of a Python pid missing from py_threads (a thread started after
 * the scan), sends EV_PY_SCAN at most once a second per pid (py_asked) and
 * gives an empty stack this time; userspace scans the process and fills the
 * maps.  The walk reads each frame once (at most PY_FRAME_READ bytes into
 * per-CPU scratch, fields at the offsets of py_procs) and stops at the
 * outermost frame, a failed read or N frames; the key's frames after the
 * last are zeros.  C shim frames (3.12+, owner FRAME_OWNED_BY_CSTACK) are
 * marked by bit 0 of the code address and left out when printed; 3.11's
 * entry frames by bit 1 (ustack(python) needs them).  The key of the stack
 * map ("pstk_<words>") is {pid, (code, instr) x N}.  A stack the map did
 * not hold yet is also sent (EV_PY_STACK, the key), so that userspace names
 * its code objects while they live: a process that exits, or frees a
 * module's code, keeps its names.
 */
#include <errno.h>
#include <string.h>

#include "host/host.h"
#include "host/python.h"
#include "stdlib/stdlib_int.h"

#define PY_STACK_MAX 127
#define PY_STACK_SMALL 31	/* (1 + 2 * 31) * 8 = 504 bytes of key */

static void check_pystack(struct sema_ctx *s, struct ast_node *n)
{
	bool big = host_feature(HF_BIG_KEYS);
	struct type t = {.kind = TY_USTACK, .size = 8, .count = big ? PY_STACK_MAX : PY_STACK_SMALL,
			 .stack_mode = STACK_MODE_PYTHON};
	struct ast_node *a = n->kind == N_CALL ? n->call.args : NULL;
	if (a && !stdlib_stack_depth(s, a, "pystack", (int)t.count,
				     big ? "" : " on this kernel (hash keys of at most 512 bytes)", &t.count)) {
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = t;
}

/* at most one EV_PY_SCAN a second per pid: userspace scans the process */
static void ask_scan(struct cg_ctx *cg, LLVMValueRef pidkey, LLVMValueRef pid)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef asked = cg_aux_map(cg, "py_asked", BPF_MAP_TYPE_LRU_HASH, 16384, 8, 8);
	LLVMValueRef now = cg_helper_call(cg, BPF_FUNC_ktime_get_ns, NULL, 0);
	LLVMValueRef look[] = {asked, pidkey};
	LLVMValueRef p = LLVMBuildIntToPtr(b, cg_helper_call(cg, BPF_FUNC_map_lookup_elem, look, 2),
					   cg_ptr(cg), "");
	LLVMValueRef last = cg_alloca_shared(cg, 8, "sonde.pylast");
	cg_store_i64(cg, cg_const(cg, 0), last);
	struct cg_if k = cg_begin_if(cg, LLVMBuildIsNotNull(b, p, ""), "py_asked_before");
	cg_store_i64(cg, cg_load_i64(cg, p), last);
	cg_end_if(cg, &k);
	LLVMValueRef since = LLVMBuildSub(b, now, cg_load_i64(cg, last), "");
	LLVMValueRef due = LLVMBuildOr(b, LLVMBuildIsNull(b, p, ""),
				       LLVMBuildICmp(b, LLVMIntUGT, since, cg_const(cg, 1000000000), ""), "");
	struct cg_if d = cg_begin_if(cg, due, "py_ask");
	LLVMValueRef val = cg_alloca_shared(cg, 8, "sonde.pynow");
	cg_store_i64(cg, now, val);
	LLVMValueRef up[] = {asked, pidkey, val, cg_const(cg, BPF_ANY)};
	cg_helper_call_quiet(cg, BPF_FUNC_map_update_elem, up, 4);
	LLVMValueRef ev = cg_alloca_shared(cg, 16, "sonde.pyevent");
	cg_store_i64(cg, cg_const(cg, EV_PY_SCAN), ev);
	cg_store_i64(cg, pid, cg_gep(cg, ev, 8));
	cg_event_output(cg, ev, cg_const(cg, 16));
	cg_end_if(cg, &d);
}

/* a word of the frame read into chunk at the run-time offset off, which
 * the mask keeps inside the 128-byte scratch for the verifier */
static LLVMValueRef chunk_word(struct cg_ctx *cg, LLVMValueRef chunk, LLVMValueRef off, bool byte)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef i = LLVMBuildAnd(b, off, cg_const(cg, byte ? 0x7f : 0x78), "");
	LLVMValueRef p = LLVMBuildGEP2(b, cg_i8(cg), chunk, &i, 1, "");
	if (!byte)
		return LLVMBuildLoad2(b, cg_i64(cg), p, "");
	return LLVMBuildZExt(b, LLVMBuildLoad2(b, cg_i8(cg), p, ""), cg_i64(cg), "");
}

static LLVMValueRef field(struct cg_ctx *cg, LLVMValueRef offs, uint32_t word)
{
	return cg_load_i64(cg, cg_gep(cg, offs, word * 8));
}

/* a loop "for (; *idx < depth && more(); ++*idx) body": the blocks, the
 * builder left in the body; loop_end closes it */
struct py_loop {
	LLVMBasicBlockRef head, body, done;
};

static struct py_loop loop_begin(struct cg_ctx *cg, const char *name)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
	struct py_loop l = {
		.head = LLVMAppendBasicBlockInContext(cg_context(cg), fn, name),
		.body = LLVMAppendBasicBlockInContext(cg_context(cg), fn, "py_body"),
		.done = LLVMAppendBasicBlockInContext(cg_context(cg), fn, "py_done"),
	};
	LLVMBuildBr(b, l.head);
	LLVMPositionBuilderAtEnd(b, l.head);
	return l;
}

/* after the head's test (more, an i1): into the body */
static void loop_test(struct cg_ctx *cg, struct py_loop *l, LLVMValueRef more)
{
	LLVMBuildCondBr(cg_builder(cg), more, l->body, l->done);
	LLVMPositionBuilderAtEnd(cg_builder(cg), l->body);
}

static void loop_end(struct cg_ctx *cg, struct py_loop *l, LLVMValueRef idx)
{
	LLVMBuilderRef b = cg_builder(cg);
	cg_store_i64(cg, LLVMBuildAdd(b, cg_load_i64(cg, idx), cg_const(cg, 1), ""), idx);
	LLVMBuildBr(b, l->head);
	LLVMPositionBuilderAtEnd(b, l->done);
}

/* the frames from thread state ts into buf (2 words each, at most depth
 * of them); *idx becomes their count */
static void walk(struct cg_ctx *cg, LLVMValueRef offs, LLVMValueRef ts, LLVMValueRef buf,
		 uint32_t depth, LLVMValueRef idx)
{
	LLVMBuilderRef b = cg_builder(cg);
	enum { OK, TS_FRAME, CFRAME, PREV, CODE, INSTR, OWNER, SKIP, READ, INSTR_MASK, ENTRY };
	LLVMValueRef frame = cg_alloca_shared(cg, 8, "sonde.pyframe");
	cg_store_i64(cg, cg_const(cg, 0), frame);
	cg_probe_read(cg, frame, 8, LLVMBuildAdd(b, ts, field(cg, offs, TS_FRAME), ""), 1, 0);
	LLVMValueRef cf = field(cg, offs, CFRAME);
	struct cg_if c = cg_begin_if(cg, LLVMBuildICmp(b, LLVMIntNE, cf, cg_const(cg, ~0ull), ""),
				     "py_cframe");
	LLVMValueRef cfp = cg_load_i64(cg, frame);
	cg_store_i64(cg, cg_const(cg, 0), frame);
	struct cg_if c2 = cg_begin_if(cg, LLVMBuildIsNotNull(b, cfp, ""), "py_cframe_set");
	cg_probe_read(cg, frame, 8, LLVMBuildAdd(b, cfp, cf, ""), 1, 0);
	cg_end_if(cg, &c2);
	cg_end_if(cg, &c);
	LLVMValueRef chunk = cg_scratch(cg, "py_chunk", PY_FRAME_READ);
	struct py_loop l = loop_begin(cg, "py_walk");
	LLVMValueRef i = cg_load_i64(cg, idx);
	LLVMValueRef p = cg_load_i64(cg, frame);
	loop_test(cg, &l, LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntULT, i, cg_const(cg, depth), ""),
				       LLVMBuildIsNotNull(b, p, ""), ""));
	LLVMValueRef off = LLVMBuildMul(b, i, cg_const(cg, 16), "");
	LLVMValueRef dst = LLVMBuildGEP2(b, cg_i8(cg), buf, &off, 1, "");
	cg_store_i64(cg, cg_const(cg, 0), frame);
	cg_store_i64(cg, cg_const(cg, 0), dst);	/* a read that fails ends the stack */
	cg_store_i64(cg, cg_const(cg, 0), cg_gep(cg, dst, 8));
	LLVMValueRef sz = LLVMBuildAnd(b, field(cg, offs, READ), cg_const(cg, PY_FRAME_READ - 1), "");
	LLVMValueRef args[] = {chunk, LLVMBuildTrunc(b, sz, cg_i32(cg), ""), p};
	LLVMValueRef rc = cg_helper_call_quiet(cg, BPF_FUNC_probe_read_user, args, 3);
	struct cg_if r = cg_begin_if(cg, LLVMBuildICmp(b, LLVMIntEQ, rc, cg_const(cg, 0), ""), "py_frame_ok");
	LLVMValueRef code = chunk_word(cg, chunk, field(cg, offs, CODE), false);
	LLVMValueRef owner = chunk_word(cg, chunk, field(cg, offs, OWNER), true);
	LLVMValueRef shim = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntEQ, owner, field(cg, offs, SKIP), ""),
					  cg_i64(cg), "");
	/* 3.11's is_entry as bit 1 (for ustack(python)); ENTRY ~0: none */
	LLVMValueRef eoff = field(cg, offs, ENTRY);
	LLVMValueRef has = LLVMBuildICmp(b, LLVMIntNE, eoff, cg_const(cg, ~0ull), "");
	LLVMValueRef entry = LLVMBuildAnd(b, has, LLVMBuildICmp(b, LLVMIntNE, chunk_word(cg, chunk, eoff, true),
								   cg_const(cg, 0), ""), "");
	entry = LLVMBuildShl(b, LLVMBuildZExt(b, entry, cg_i64(cg), ""), cg_const(cg, 1), "");
	cg_store_i64(cg, LLVMBuildOr(b, LLVMBuildOr(b, code, shim, ""), entry, ""), dst);
	LLVMValueRef instr = LLVMBuildAnd(b, chunk_word(cg, chunk, field(cg, offs, INSTR), false),
					  field(cg, offs, INSTR_MASK), "");
	cg_store_i64(cg, LLVMBuildOr(b, instr, cg_const(cg, PY_INSTR_SET), ""), cg_gep(cg, dst, 8));
	cg_store_i64(cg, chunk_word(cg, chunk, field(cg, offs, PREV), false), frame);
	cg_end_if(cg, &r);
	loop_end(cg, &l, idx);
}

/* the value of 8-byte key k (stored to slot) in map, or NULL */
static LLVMValueRef lookup(struct cg_ctx *cg, LLVMValueRef map, LLVMValueRef slot, LLVMValueRef k)
{
	cg_store_i64(cg, k, slot);
	LLVMValueRef args[] = {map, slot};
	return LLVMBuildIntToPtr(cg_builder(cg), cg_helper_call(cg, BPF_FUNC_map_lookup_elem, args, 2),
				 cg_ptr(cg), "");
}

LLVMValueRef stdlib_pystack_id(struct cg_ctx *cg, uint32_t depth, LLVMValueRef pid)
{
	LLVMBuilderRef b = cg_builder(cg);
	uint32_t words = 1 + 2 * depth;
	char name[32];
	snprintf(name, sizeof(name), CG_STACK_MAP_FMT, 'p', words);
	LLVMValueRef tid = stdlib_own_ns_id(cg, false);
	LLVMValueRef procs = cg_aux_map(cg, "py_procs", BPF_MAP_TYPE_HASH, 16384, 8, PY_BPF_OFFS_SIZE);
	LLVMValueRef threads = cg_aux_map(cg, "py_threads", BPF_MAP_TYPE_HASH, 65536, 8, 8);
	/* the key, after an event header: a new stack is sent to userspace as
	 * it is, so that its code objects are named while they live */
	LLVMValueRef ev = cg_scratch(cg, name, 8 + words * 8);
	LLVMValueRef buf = cg_gep(cg, ev, 8);
	cg_store_i64(cg, pid, buf);
	LLVMValueRef idx = cg_alloca_shared(cg, 8, "sonde.pyidx");
	cg_store_i64(cg, cg_const(cg, 0), idx);
	LLVMValueRef pidkey = cg_alloca_shared(cg, 8, "sonde.pypid");
	LLVMValueRef offs = lookup(cg, procs, pidkey, pid);
	struct cg_if unk = cg_begin_if(cg, LLVMBuildIsNull(b, offs, ""), "py_unknown_pid");
	ask_scan(cg, pidkey, pid);
	cg_end_if(cg, &unk);
	struct cg_if py = cg_begin_if(cg, LLVMBuildIsNotNull(b, offs, ""), "py_pid");
	struct cg_if ok = cg_begin_if(cg, LLVMBuildICmp(b, LLVMIntNE, field(cg, offs, 0), cg_const(cg, 0), ""),
				      "py_readable");
	LLVMValueRef ts = lookup(cg, threads, cg_alloca_shared(cg, 8, "sonde.pytid"), tid);
	struct cg_if nt = cg_begin_if(cg, LLVMBuildIsNull(b, ts, ""), "py_new_thread");
	ask_scan(cg, pidkey, pid);
	cg_end_if(cg, &nt);
	struct cg_if wt = cg_begin_if(cg, LLVMBuildIsNotNull(b, ts, ""), "py_thread");
	walk(cg, offs, cg_load_i64(cg, ts), cg_gep(cg, buf, 8), depth, idx);
	cg_end_if(cg, &wt);
	cg_end_if(cg, &ok);
	cg_end_if(cg, &py);
	/* the frames not walked are zeros (a loop: 254 stores took LLVM's
	 * passes tens of ms) */
	struct py_loop z = loop_begin(cg, "py_zero");
	LLVMValueRef k = cg_load_i64(cg, idx);
	loop_test(cg, &z, LLVMBuildICmp(b, LLVMIntULT, k, cg_const(cg, depth), ""));
	LLVMValueRef off = LLVMBuildAdd(b, LLVMBuildMul(b, k, cg_const(cg, 16), ""), cg_const(cg, 8), "");
	LLVMValueRef dst = LLVMBuildGEP2(b, cg_i8(cg), buf, &off, 1, "");
	cg_store_i64(cg, cg_const(cg, 0), dst);
	cg_store_i64(cg, cg_const(cg, 0), cg_gep(cg, dst, 8));
	loop_end(cg, &z, idx);
	/* no preallocation: the stacks are big and most runs see few; a
	 * kernel before 5.11 refuses a map that is not preallocated in a
	 * perf_event program (profile:), so there it is, and smaller */
	bool prealloc = !host_feature(HF_BIG_KEYS);
	LLVMValueRef map = cg_aux_map_flags(cg, name, BPF_MAP_TYPE_HASH,
					    prealloc ? CG_STACK_MAP_ENTRIES / 16 : CG_STACK_MAP_ENTRIES,
					    words * 8, 4, prealloc ? 0 : BPF_F_NO_PREALLOC);
	LLVMValueRef id = cg_alloca_shared(cg, 4, "sonde.pystackid");
	LLVMValueRef fresh = stdlib_stack_id(cg, map, buf, id);
	struct cg_if f = cg_begin_if(cg, LLVMBuildAnd(b, fresh, LLVMBuildICmp(b, LLVMIntNE, cg_load_i64(cg, cg_gep(cg, buf, 8)),
									 cg_const(cg, 0), ""), ""),
				     "py_new_stack");
	cg_store_i64(cg, cg_const(cg, EV_PY_STACK), ev);
	cg_event_output(cg, ev, cg_const(cg, 8 + words * 8));
	cg_end_if(cg, &f);
	return LLVMBuildZExt(b, LLVMBuildLoad2(b, cg_i32(cg), id, ""), cg_i64(cg), "pystackid");
}

static LLVMValueRef lower_pystack(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMValueRef pid = stdlib_own_ns_id(cg, true);
	LLVMValueRef v = stdlib_pystack_id(cg, n->type.count, pid);
	return LLVMBuildOr(cg_builder(cg), v, LLVMBuildShl(cg_builder(cg), pid, cg_const(cg, 32), ""), "pystack");
}

const struct builtin stdlib_python[] = {
	{.name = "pystack", .kind = BI_VAR, .check = check_pystack, .lower = lower_pystack,
	 .summary = "Python stack of the current thread (CPython 3.9-3.13)"},
	{.name = "pystack", .kind = BI_FUNC, .min_args = 0, .max_args = 1, .check = check_pystack,
	 .lower = lower_pystack, .summary = "Python stack: pystack([frames])"},
	{0},
};
