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
 * maps.  The walk reads a frame not within the bytes it read last (in
 * 3.11+, with the rest of its page below it: the data stack keeps the
 * callers there, so a 30-deep stack takes one or two reads; 3.9 and 3.10
 * read PY_FRAME_READ bytes at most a frame) into per-CPU scratch, takes
 * the fields at the offsets of py_procs, and stops at the outermost
 * frame, a failed read or N frames (from 5.17 a bpf_loop callback, one
 * frame an iteration, which the verifier checks once; a bounded loop
 * before).  C shim frames (3.12+, owner
 * FRAME_OWNED_BY_CSTACK) are marked by bit 0 of the code address and left
 * out when printed; 3.11's entry frames by bit 1 (ustack(python) needs
 * them).  The key of the stack map ("pstk_<words>") is {pid, (code,
 * instr) x B}, B the frames of the smallest bucket that holds the stack
 * (py_bucket: 8, 16, 32, 64 or N), the frames after the last zeros.  A
 * stack the map did not hold yet is also sent (EV_PY_STACK, the key), so
 * that userspace names its code objects while they live: a process that
 * exits, or frees a module's code, keeps its names.
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
	/* pystack's stack words, few: a ustack(python) in a tracepoint also
	 * calls the CFI walker and its callbacks, and their frames and the
	 * probe's share 512 bytes.  Here the time last asked, then the
	 * value and the event; before (stdlib_pystack_id) the thread's key */
	LLVMValueRef ev = cg_alloca_shared(cg, 16, "sonde.pywords");
	LLVMValueRef last = cg_gep(cg, ev, 8);
	cg_store_i64(cg, cg_const(cg, 0), last);
	struct cg_if k = cg_begin_if(cg, LLVMBuildIsNotNull(b, p, ""), "py_asked_before");
	cg_store_i64(cg, cg_load_i64(cg, p), last);
	cg_end_if(cg, &k);
	LLVMValueRef since = LLVMBuildSub(b, now, cg_load_i64(cg, last), "");
	LLVMValueRef due = LLVMBuildOr(b, LLVMBuildIsNull(b, p, ""),
				       LLVMBuildICmp(b, LLVMIntUGT, since, cg_const(cg, 1000000000), ""), "");
	struct cg_if d = cg_begin_if(cg, due, "py_ask");
	cg_store_i64(cg, now, ev);
	LLVMValueRef up[] = {asked, pidkey, ev, cg_const(cg, BPF_ANY)};
	cg_helper_call_quiet(cg, BPF_FUNC_map_update_elem, up, 4);
	cg_store_i64(cg, cg_const(cg, EV_PY_SCAN), ev);
	cg_store_i64(cg, pid, cg_gep(cg, ev, 8));
	cg_event_output(cg, ev, cg_const(cg, 16));
	cg_end_if(cg, &d);
}

/* a word of the frame at chunk, at the run-time offset off, which
 * the mask keeps within PY_FRAME_READ bytes of it for the verifier */
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

/* a loop "for (; *idx < bound && (!nz || *nz); ++*idx) body" as a test
 * before a do-while: the blocks, the builder left in the body, which
 * loads what it uses again (the head runs once); loop_end closes it.  The
 * latch ends in the conditional jump back: a verifier before 5.12 or so
 * refuses a loop that LLVM's block placement closes by falling through
 * from a plain instruction into its head ("back-edge from insn") */
struct py_loop {
	LLVMBasicBlockRef head, body, done;
	LLVMValueRef idx, nz;
	uint32_t bound;
};

static LLVMValueRef loop_more(struct cg_ctx *cg, struct py_loop *l)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef more = LLVMBuildICmp(b, LLVMIntULT, cg_load_i64(cg, l->idx), cg_const(cg, l->bound), "");
	if (l->nz)
		more = LLVMBuildAnd(b, more, LLVMBuildIsNotNull(b, cg_load_i64(cg, l->nz), ""), "");
	return more;
}

static struct py_loop loop_begin(struct cg_ctx *cg, const char *name, LLVMValueRef idx, uint32_t bound,
				 LLVMValueRef nz)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef fn = LLVMGetBasicBlockParent(LLVMGetInsertBlock(b));
	struct py_loop l = {
		.head = LLVMAppendBasicBlockInContext(cg_context(cg), fn, name),
		.body = LLVMAppendBasicBlockInContext(cg_context(cg), fn, "py_body"),
		.done = LLVMAppendBasicBlockInContext(cg_context(cg), fn, "py_done"),
		.idx = idx, .nz = nz, .bound = bound,
	};
	LLVMBuildBr(b, l.head);
	LLVMPositionBuilderAtEnd(b, l.head);
	LLVMBuildCondBr(b, loop_more(cg, &l), l.body, l.done);
	LLVMPositionBuilderAtEnd(b, l.body);
	return l;
}

static void loop_end(struct cg_ctx *cg, struct py_loop *l)
{
	LLVMBuilderRef b = cg_builder(cg);
	cg_store_i64(cg, LLVMBuildAdd(b, cg_load_i64(cg, l->idx), cg_const(cg, 1), ""), l->idx);
	LLVMBuildCondBr(b, loop_more(cg, l), l->body, l->done);
	LLVMPositionBuilderAtEnd(b, l->done);
}

/* where the walk keeps its state between frames: the next frame to read
 * and the bytes of the target read last, [wbase, wbase + wlen) in chunk */
struct py_walk {
	LLVMValueRef offs, chunk, frame, wbase, wlen, got;
};

enum { OK, TS_FRAME, CFRAME, PREV, CODE, INSTR, OWNER, SKIP, READ, INSTR_MASK, ENTRY, BACK };

/* the innermost frame of thread state ts into *frame (0: none) */
static void walk_start(struct cg_ctx *cg, LLVMValueRef offs, LLVMValueRef ts, LLVMValueRef frame)
{
	LLVMBuilderRef b = cg_builder(cg);
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
}

/* frame *w->frame into dst (code, instr: zeros when it cannot be read);
 * *w->frame becomes its caller, 0 at the outermost or a failed read */
static void walk_frame(struct cg_ctx *cg, const struct py_walk *w, LLVMValueRef dst)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef offs = w->offs, chunk = w->chunk;
	LLVMValueRef p = cg_load_i64(cg, w->frame);
	cg_store_i64(cg, cg_const(cg, 0), w->frame);
	cg_store_i64(cg, cg_const(cg, 0), dst);	/* a read that fails ends the stack */
	cg_store_i64(cg, cg_const(cg, 0), cg_gep(cg, dst, 8));
	LLVMValueRef sz = LLVMBuildAnd(b, field(cg, offs, READ), cg_const(cg, PY_FRAME_READ - 1), "");
	/* the frame lies whole in what was read last: p - wbase <= wlen - sz
	 * (no sum that an untrusted p could wrap) */
	LLVMValueRef wl = cg_load_i64(cg, w->wlen);
	LLVMValueRef hit = LLVMBuildAnd(
		b, LLVMBuildICmp(b, LLVMIntUGE, p, cg_load_i64(cg, w->wbase), ""),
		LLVMBuildAnd(b, LLVMBuildICmp(b, LLVMIntUGE, wl, sz, ""),
			     LLVMBuildICmp(b, LLVMIntULE, LLVMBuildSub(b, p, cg_load_i64(cg, w->wbase), ""),
					   LLVMBuildSub(b, wl, sz, ""), ""), ""), "");
	cg_store_i64(cg, LLVMBuildZExt(b, hit, cg_i64(cg), ""), w->got);
	struct cg_if rd = cg_begin_if(cg, LLVMBuildNot(b, hit, ""), "py_frame_read");
	/* the frame and, in a data stack, the rest of its page below it: the
	 * same page, readable when the frame is */
	LLVMValueRef back = LLVMBuildAnd(b, LLVMBuildAnd(b, p, field(cg, offs, BACK), ""),
					 cg_const(cg, PY_PAGE - 1), "");
	LLVMValueRef len = LLVMBuildAdd(b, back, sz, "");
	LLVMValueRef from = LLVMBuildSub(b, p, back, "");
	LLVMValueRef args[] = {chunk, LLVMBuildTrunc(b, len, cg_i32(cg), ""), from};
	LLVMValueRef rc = cg_helper_call_quiet(cg, BPF_FUNC_probe_read_user, args, 3);
	LLVMValueRef ok = LLVMBuildICmp(b, LLVMIntEQ, rc, cg_const(cg, 0), "");
	cg_store_i64(cg, LLVMBuildZExt(b, ok, cg_i64(cg), ""), w->got);
	cg_store_i64(cg, from, w->wbase);
	cg_store_i64(cg, LLVMBuildSelect(b, ok, len, cg_const(cg, 0), ""), w->wlen);
	cg_end_if(cg, &rd);
	struct cg_if r = cg_begin_if(cg, LLVMBuildIsNotNull(b, cg_load_i64(cg, w->got), ""), "py_frame_ok");
	LLVMValueRef at = LLVMBuildAnd(b, LLVMBuildSub(b, p, cg_load_i64(cg, w->wbase), ""),
				       cg_const(cg, PY_PAGE - 1), "");
	LLVMValueRef fr = LLVMBuildGEP2(b, cg_i8(cg), chunk, &at, 1, "");
	LLVMValueRef code = chunk_word(cg, fr, field(cg, offs, CODE), false);
	LLVMValueRef owner = chunk_word(cg, fr, field(cg, offs, OWNER), true);
	LLVMValueRef shim = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntEQ, owner, field(cg, offs, SKIP), ""),
					  cg_i64(cg), "");
	/* 3.11's is_entry as bit 1 (for ustack(python)); ENTRY ~0: none */
	LLVMValueRef eoff = field(cg, offs, ENTRY);
	LLVMValueRef has = LLVMBuildICmp(b, LLVMIntNE, eoff, cg_const(cg, ~0ull), "");
	LLVMValueRef entry = LLVMBuildAnd(b, has, LLVMBuildICmp(b, LLVMIntNE, chunk_word(cg, fr, eoff, true),
								   cg_const(cg, 0), ""), "");
	entry = LLVMBuildShl(b, LLVMBuildZExt(b, entry, cg_i64(cg), ""), cg_const(cg, 1), "");
	cg_store_i64(cg, LLVMBuildOr(b, LLVMBuildOr(b, code, shim, ""), entry, ""), dst);
	LLVMValueRef instr = LLVMBuildAnd(b, chunk_word(cg, fr, field(cg, offs, INSTR), false),
					  field(cg, offs, INSTR_MASK), "");
	cg_store_i64(cg, LLVMBuildOr(b, instr, cg_const(cg, PY_INSTR_SET), ""), cg_gep(cg, dst, 8));
	cg_store_i64(cg, chunk_word(cg, fr, field(cg, offs, PREV), false), w->frame);
	cg_end_if(cg, &r);
}

/* With bpf_loop the walk and the zeroing are callbacks, which reach the
 * probe's memory through a frame on its stack (bpf_loop takes no other
 * memory) that holds the pointers they need; their state is in the
 * chunk's scratch, after the bytes a read may fill (the probe's stack is
 * short: a ustack(python) also calls the CFI walker and its callbacks) */
enum { F_OFFS, F_CHUNK, F_BUF, F_WORDS };
#define PY_CHUNK (PY_PAGE + 2 * PY_FRAME_READ)
enum { S_FRAME = PY_CHUNK, S_WBASE = PY_CHUNK + 8, S_WLEN = PY_CHUNK + 16, S_N = PY_CHUNK + 24,
       S_END = PY_CHUNK + 32 };

static LLVMValueRef word_ptr(struct cg_ctx *cg, LLVMValueRef fs, unsigned w)
{
	return LLVMBuildLoad2(cg_builder(cg), cg_ptr(cg), cg_gep(cg, fs, w * 8), "");
}

/* the frames from thread state ts into buf (2 words each, at most depth
 * of them); their count into *idx, or with bpf_loop (fs) into the chunk's
 * S_N.  With bpf_loop one frame is one iteration of a callback that the
 * verifier checks once: the same walk as a bounded loop took it 100-300
 * ms to prove */
static void walk(struct cg_ctx *cg, LLVMValueRef offs, LLVMValueRef ts, LLVMValueRef buf,
		 uint32_t depth, LLVMValueRef idx, LLVMValueRef chunk, LLVMValueRef fs)
{
	LLVMBuilderRef b = cg_builder(cg);
	if (!fs) {
		LLVMValueRef frame = cg_alloca_shared(cg, 8, "sonde.pyframe");
		struct py_walk w = {offs, chunk, frame, cg_alloca_shared(cg, 8, "sonde.pywbase"),
				    cg_alloca_shared(cg, 8, "sonde.pywlen"), cg_alloca_shared(cg, 8, "sonde.pygot")};
		walk_start(cg, offs, ts, frame);
		cg_store_i64(cg, cg_const(cg, 0), w.wbase);
		cg_store_i64(cg, cg_const(cg, 0), w.wlen);
		struct py_loop l = loop_begin(cg, "py_walk", idx, depth, frame);
		LLVMValueRef off = LLVMBuildMul(b, cg_load_i64(cg, idx), cg_const(cg, 16), "");
		walk_frame(cg, &w, LLVMBuildGEP2(b, cg_i8(cg), buf, &off, 1, ""));
		loop_end(cg, &l);
		return;
	}
	LLVMBuildStore(b, offs, cg_gep(cg, fs, F_OFFS * 8));
	walk_start(cg, offs, ts, cg_gep(cg, chunk, S_FRAME));
	cg_store_i64(cg, cg_const(cg, 0), cg_gep(cg, chunk, S_WBASE));
	cg_store_i64(cg, cg_const(cg, 0), cg_gep(cg, chunk, S_WLEN));
	LLVMValueRef index, f;
	struct cg_callback *cb = cg_callback_begin(cg, "py_walk", &index, &f);
	LLVMValueRef c = word_ptr(cg, f, F_CHUNK);
	cg_callback_stop_if(cg, LLVMBuildICmp(b, LLVMIntUGE, index, cg_const(cg, depth), ""));
	cg_callback_stop_if(cg, LLVMBuildIsNull(b, cg_load_i64(cg, cg_gep(cg, c, S_FRAME)), ""));
	struct py_walk w = {word_ptr(cg, f, F_OFFS), c, cg_gep(cg, c, S_FRAME), cg_gep(cg, c, S_WBASE),
			    cg_gep(cg, c, S_WLEN), cg_alloca_shared(cg, 8, "sonde.pygot")};
	LLVMValueRef off = LLVMBuildMul(b, index, cg_const(cg, 16), "");
	walk_frame(cg, &w, LLVMBuildGEP2(b, cg_i8(cg), word_ptr(cg, f, F_BUF), &off, 1, ""));
	cg_store_i64(cg, LLVMBuildAdd(b, index, cg_const(cg, 1), ""), cg_gep(cg, c, S_N));
	cg_loop_call(cg, cg_const(cg, depth), cg_callback_end(cg, cb), fs);
}

/* frame slot k of the frames at buf: zeros */
static void zero_frame(struct cg_ctx *cg, LLVMValueRef buf, LLVMValueRef k)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef off = LLVMBuildMul(b, k, cg_const(cg, 16), "");
	LLVMValueRef dst = LLVMBuildGEP2(b, cg_i8(cg), buf, &off, 1, "");
	cg_store_i64(cg, cg_const(cg, 0), dst);
	cg_store_i64(cg, cg_const(cg, 0), cg_gep(cg, dst, 8));
}

/* frame slots n (the chunk's S_N) to bd - 1 of the frames at F_BUF: zeros,
 * in a bpf_loop callback (a bounded loop from a count the verifier does
 * not know lost the bound of the pointer LLVM stepped beside it) */
static void zero_tail(struct cg_ctx *cg, LLVMValueRef fs, LLVMValueRef n, LLVMValueRef bd, uint32_t depth)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef index, f;
	struct cg_callback *cb = cg_callback_begin(cg, "py_zero", &index, &f);
	LLVMValueRef k = LLVMBuildAdd(b, cg_load_i64(cg, cg_gep(cg, word_ptr(cg, f, F_CHUNK), S_N)), index, "");
	cg_callback_stop_if(cg, LLVMBuildICmp(b, LLVMIntUGE, k, cg_const(cg, depth), ""));
	zero_frame(cg, word_ptr(cg, f, F_BUF), k);
	LLVMValueRef fn = cg_callback_end(cg, cb);
	cg_loop_call(cg, LLVMBuildSub(b, bd, n, ""), fn, fs);
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
	snprintf(name, sizeof(name), CG_STACK_MAP_FMT, 'p', words);	/* the scratch's */
	LLVMValueRef tid = stdlib_own_ns_id(cg, false);
	LLVMValueRef procs = cg_aux_map(cg, "py_procs", BPF_MAP_TYPE_HASH, 16384, 8, PY_BPF_OFFS_SIZE);
	LLVMValueRef threads = cg_aux_map(cg, "py_threads", BPF_MAP_TYPE_HASH, 65536, 8, 8);
	/* the key, after an event header: a new stack is sent to userspace as
	 * it is, so that its code objects are named while they live */
	LLVMValueRef ev = cg_scratch(cg, name, 8 + words * 8);
	LLVMValueRef buf = cg_gep(cg, ev, 8);
	cg_store_i64(cg, pid, buf);
	LLVMValueRef chunk = cg_scratch(cg, "py_chunk", S_END);
	LLVMValueRef idx = NULL, fs = NULL;
	if (host_feature(HF_LOOP)) {
		fs = cg_loop_frame(cg, F_WORDS, "py_loop_frame");
		LLVMBuildStore(b, chunk, cg_gep(cg, fs, F_CHUNK * 8));
		LLVMBuildStore(b, cg_gep(cg, buf, 8), cg_gep(cg, fs, F_BUF * 8));
		cg_store_i64(cg, cg_const(cg, 0), cg_gep(cg, chunk, S_N));
	} else {
		idx = cg_alloca_shared(cg, 8, "sonde.pyidx");
		cg_store_i64(cg, cg_const(cg, 0), idx);
	}
	LLVMValueRef pidkey = cg_alloca_shared(cg, 8, "sonde.pypid");
	LLVMValueRef offs = lookup(cg, procs, pidkey, pid);
	struct cg_if unk = cg_begin_if(cg, LLVMBuildIsNull(b, offs, ""), "py_unknown_pid");
	ask_scan(cg, pidkey, pid);
	cg_end_if(cg, &unk);
	struct cg_if py = cg_begin_if(cg, LLVMBuildIsNotNull(b, offs, ""), "py_pid");
	struct cg_if ok = cg_begin_if(cg, LLVMBuildICmp(b, LLVMIntNE, field(cg, offs, 0), cg_const(cg, 0), ""),
				      "py_readable");
	LLVMValueRef ts = lookup(cg, threads, cg_alloca_shared(cg, 16, "sonde.pywords"), tid);
	struct cg_if nt = cg_begin_if(cg, LLVMBuildIsNull(b, ts, ""), "py_new_thread");
	ask_scan(cg, pidkey, pid);
	cg_end_if(cg, &nt);
	struct cg_if wt = cg_begin_if(cg, LLVMBuildIsNotNull(b, ts, ""), "py_thread");
	walk(cg, offs, cg_load_i64(cg, ts), cg_gep(cg, buf, 8), depth, idx, chunk, fs);
	cg_end_if(cg, &wt);
	cg_end_if(cg, &ok);
	cg_end_if(cg, &py);
	/* the stack goes to the map of the first bucket that holds it */
	bool big = host_feature(HF_BIG_KEYS);
	LLVMValueRef n = cg_load_i64(cg, fs ? cg_gep(cg, chunk, S_N) : idx);
	LLVMValueRef id = cg_alloca_shared(cg, 16, "sonde.pywords");	/* free again */
	/* the smallest bucket that holds n */
	unsigned nb = 0;
	while (py_bucket(depth, big, nb))
		nb++;
	LLVMValueRef bd = cg_const(cg, depth);
	while (nb-- > 0) {
		LLVMValueRef k = cg_const(cg, py_bucket(depth, big, nb));
		bd = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntULE, n, k, ""), k, bd, "");
	}
	/* its frames not walked are zeros */
	if (fs)
		zero_tail(cg, fs, n, bd, depth);
	for (unsigned i = 0; py_bucket(depth, big, i); i++) {
		uint32_t bk_frames = py_bucket(depth, big, i), bw = 1 + 2 * bk_frames;
		LLVMValueRef in = LLVMBuildICmp(b, LLVMIntEQ, bd, cg_const(cg, bk_frames), "");
		struct cg_if bk = cg_begin_if(cg, in, "py_bucket");
		/* before bpf_loop, a bounded loop here (254 stores took LLVM's
		 * passes tens of ms) */
		if (!fs) {
			struct py_loop z = loop_begin(cg, "py_zero", idx, bk_frames, NULL);
			zero_frame(cg, cg_gep(cg, buf, 8), cg_load_i64(cg, idx));
			loop_end(cg, &z);
		}
		/* no preallocation: the stacks are big and most runs see few;
		 * a kernel before 5.11 refuses a map that is not preallocated
		 * in a perf_event program (profile:), so there it is, and
		 * smaller */
		char mname[32];
		snprintf(mname, sizeof(mname), CG_STACK_MAP_FMT, 'p', bw);
		LLVMValueRef map = cg_aux_map_flags(cg, mname, BPF_MAP_TYPE_HASH,
						    big ? PY_STACK_MAP_ENTRIES : CG_STACK_MAP_ENTRIES / 16,
						    bw * 8, 4, big ? BPF_F_NO_PREALLOC : 0);
		LLVMValueRef fresh = stdlib_stack_id(cg, map, buf, id);
		LLVMValueRef any = LLVMBuildICmp(b, LLVMIntNE, cg_load_i64(cg, cg_gep(cg, buf, 8)),
						 cg_const(cg, 0), "");
		struct cg_if f = cg_begin_if(cg, LLVMBuildAnd(b, fresh, any, ""), "py_new_stack");
		cg_store_i64(cg, cg_const(cg, EV_PY_STACK), ev);
		cg_event_output(cg, ev, cg_const(cg, 8 + bw * 8));
		cg_end_if(cg, &f);
		cg_end_if(cg, &bk);
	}
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
