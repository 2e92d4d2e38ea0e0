/*
 * python.h - CPython interpreters inside other processes (python.c).
 *
 * What pystack needs from a target: which file holds its interpreter (the
 * python3.X binary or libpython3.X.so it maps, read through /proc/PID/root),
 * where `_PyRuntime` sits, the minor version, and the layout of the few
 * structures a stack walk touches.  Offsets come from the target itself on
 * 3.13 (`_Py_DebugOffsets`, the first field of `_PyRuntime`, cookie
 * "xdebugpy"), from one table per minor version for 3.9-3.12
 * (py_table(), checked against each interpreter's DWARF in
 * tests/unit/test_python.c).  Everything read from the target is untrusted:
 * every loop and length is bounded, and a read that fails is an answer
 * ("unknown"), never a crash.  Nothing stops the target: reads go through
 * process_vm_readv.
 */
#ifndef SONDE_HOST_PYTHON_H
#define SONDE_HOST_PYTHON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define PY_NONE 0xffffffffu	/* an offset the version does not have */

/* the layout of one minor version */
struct py_offsets {
	int minor;			/* 9 for 3.9 */
	uint32_t rt_interp_head;	/* _PyRuntime.interpreters.head */
	uint32_t is_next, is_threads_head;	/* PyInterpreterState */
	uint32_t ts_next, ts_frame;	/* PyThreadState: next; frame, cframe (3.11, 3.12) or current_frame */
	uint32_t ts_native_tid;		/* native_thread_id (3.11+), else PY_NONE */
	uint32_t ts_thread_id;		/* thread_id (pthread_self()) */
	uint32_t cframe_frame;		/* _PyCFrame.current_frame (3.11, 3.12), else PY_NONE */
	uint32_t fr_prev, fr_code, fr_instr, fr_owner;	/* frame: previous/f_back, code, instruction, owner */
	uint32_t owner_cstack;		/* the owner of C shim frames (3.12+), else PY_NONE */
	uint32_t fr_is_entry;		/* 3.11: the frame a C call into the interpreter began with */
	uint32_t co_filename, co_name, co_qualname, co_firstlineno, co_linetable;
	uint32_t co_code_adaptive;	/* 3.11+: the bytecode inside the code object */
	uint32_t uni_ascii_size, uni_compact_size;	/* PyASCIIObject, PyCompactUnicodeObject */
	/* the GIL: _PyRuntime.ceval.gil (3.9-3.11), else PY_NONE; the pointer
	 * interp->ceval.gil (3.12+: a GIL per interpreter), else PY_NONE */
	uint32_t rt_gil, is_gil;
	/* threading's names: the interpreter's sys.modules (interp->modules,
	 * 3.12+ interp->imports.modules), PyHeapTypeObject.ht_cached_keys */
	uint32_t is_modules, ty_cached_keys;
};

/* struct _gil_runtime_state, the same in 3.9-3.13 (checked against DWARF):
 * last_holder (a PyThreadState *), locked (an int: 1 while held), the
 * condition variable and the mutex take_gil waits on, one after the other */
#define PY_GIL_LAST_HOLDER 8
#define PY_GIL_LOCKED 16
#define PY_GIL_COND 32		/* pthread_cond_t, 48 bytes */
#define PY_GIL_MUTEX 80		/* pthread_mutex_t, 40 bytes */
#define PY_GIL_SWITCH_COND 120	/* the thread that dropped the GIL waits here for a taker */
#define PY_GIL_WAIT_END 208	/* after switch_mutex: futex waits in [COND, WAIT_END) wait for the GIL */

/* the table of a minor version (9 to 12), NULL for another */
const struct py_offsets *py_table(int minor);

/* Offsets from a 3.13 `_Py_DebugOffsets` (the first bytes of _PyRuntime,
 * len of them): 0, or -EINVAL with a reason (cookie, version) in err. */
int py_debug_offsets(const uint8_t *raw, size_t len, struct py_offsets *out, char *err,
		     size_t errlen);
#define PY_DEBUG_OFFSETS_SIZE 640	/* bytes of _PyRuntime read for them (3.13: 584) */

/* What the BPF walker reads for one process: the value of the map
 * "py_procs" (key: the pid, 8 bytes), laid out as 8-byte words. */
struct py_bpf_offs {
	uint64_t ok;		/* 1: walk; 0: not a Python process sonde can read */
	uint64_t ts_frame;	/* offset of the frame (or cframe) pointer in the thread state */
	uint64_t cframe_frame;	/* offset of current_frame in the cframe, ~0 without one */
	uint64_t fr_prev, fr_code, fr_instr, fr_owner;	/* < PY_FRAME_READ - 8 */
	uint64_t owner_skip;	/* owner byte of shim frames, ~0 none */
	uint64_t read;		/* bytes of a frame read at once, <= PY_FRAME_READ */
	uint64_t instr_mask;	/* of the instruction word: f_lasti is an int before 3.11 */
	uint64_t fr_entry;	/* offset of 3.11's is_entry byte, ~0 none: bit 1 of the code word */
	uint64_t back;		/* PY_PAGE - 1 where frames lie in a data stack (3.11+), else 0 */
};
#define PY_FRAME_READ 128
/* distinct stacks each of pystack's maps by depth holds (a quarter of a
 * ustack map's 131072: the five are made at attach, their bucket arrays
 * zeroed, ~8 ms less) */
#define PY_STACK_MAP_ENTRIES 32768
/* 3.11+ keeps a thread's frames side by side in its data stack, each
 * caller below its callee: the walker reads a frame with the rest of its
 * page below it, and reads the frames it holds from there */
#define PY_PAGE 4096
/* the Python part of ustack(python): pystack's default depth (big: the
 * kernel takes hash keys over 512 bytes) */
#define PY_MIXED_DEPTH(big) ((big) ? 127u : 31u)
#define PY_BPF_OFFS_SIZE 96
/* A pystack of depth frames keeps a stack of n frames in the stack map
 * ("pstk_<1 + 2 * frames>") of the first of 8, 16, 32 and 64 frames that
 * holds it and is below depth, else in depth's: the key the kernel hashes
 * and compares is 65 words for a 30-deep stack, not 255.  Frames of bucket
 * i (0 past the last); one bucket where keys are at most 512 bytes (their
 * maps are preallocated there). */
static inline uint32_t py_bucket(uint32_t depth, bool big, unsigned i)
{
	unsigned below = 0;
	while (big && below < 4 && (8u << below) < depth)
		below++;
	return i < below ? 8u << i : i == below ? depth : 0;
}
void py_bpf_offsets(const struct py_offsets *o, struct py_bpf_offs *out);

/* ---- a process --------------------------------------------------------- */

struct py_proc;

/* Find pid's interpreter.  0; -ENOENT when pid maps no python3.X or
 * libpython3.X.so (not Python: err empty); another -errno with one
 * sentence in err naming the file and why (stripped of _PyRuntime, a
 * version sonde has no offsets for, memory it cannot read). */
int py_proc_open(int pid, struct py_proc **out, char *err, size_t errlen);
void py_proc_free(struct py_proc *p);
const char *py_proc_file(const struct py_proc *p);
int py_proc_minor(const struct py_proc *p);
const struct py_offsets *py_proc_offsets(const struct py_proc *p);

/* Each thread state of each interpreter, with the thread's id as sonde's
 * /proc names it (-1 when it cannot be told); at most 4,096. cb returns
 * non-zero to stop.  The count of thread states, or -errno. */
int py_proc_threads(struct py_proc *p, int (*cb)(int tid, uint64_t tstate, void *ctx), void *ctx);

/* glibc's struct pthread keeps the kernel's tid here (x86-64): the way
 * from 3.9's and 3.10's thread_id (pthread_self()) to the thread */
#define PY_PTHREAD_TID_OFF 0x2d0

/* The address of the GIL (struct _gil_runtime_state) of pid's main
 * interpreter, the last in the list of interpreters: 0 or -errno. */
int py_proc_gil(struct py_proc *p, uint64_t *gil);

/* Objects as CPython 3.9-3.13 lay them out (checked against DWARF by
 * tests/unit/test_python.c): PyTypeObject's tp_basicsize, tp_flags and
 * tp_dictoffset; PyModuleObject.md_dict; PyDictObject's ma_keys and
 * ma_values; the type flags of instances whose attributes the interpreter
 * keeps itself (3.11+, and inline after the object in 3.13) */
#define PY_TY_BASICSIZE 0x20
#define PY_TY_FLAGS 0xa8
#define PY_TY_DICTOFFSET 0x120
#define PY_MOD_DICT 0x10
#define PY_DICT_KEYS 0x20
#define PY_DICT_VALUES 0x28
#define PY_TPF_INLINE_VALUES (1ull << 2)
#define PY_TPF_MANAGED_DICT (1ull << 4)

/* The threads the threading module of pid's main interpreter knows
 * (threading._active): cb gets each one's tid as sonde's /proc names it
 * (from Thread._native_id) and its name (Thread._name).  The count, or
 * -errno (no threading module imported is 0). */
int py_proc_thread_names(struct py_proc *p, int (*cb)(int tid, const char *name, void *ctx),
			 void *ctx);

/* The thread whose id in pid's own PID namespace is nstid, as sonde's
 * /proc names it, or -1 (a thread that ended) */
int py_proc_host_tid(struct py_proc *p, int nstid);

/* BPF sets this bit of each frame's instruction word, so that no word of a
 * walked frame is zero (f_lasti 0): the stack index keeps a key's words up
 * to the first zero one */
#define PY_INSTR_SET (1ull << 63)

/* one frame: the code object and the raw instruction word BPF read */
struct py_frame {
	const char *name;	/* qualified name (3.11+), else the name */
	const char *file;
	int line;		/* 0 when unknown */
};
/* Names a frame (read once per code object and cached, re-checked while
 * the process lives).  0, or -errno (a code object that cannot be read). */
int py_proc_frame(struct py_proc *p, uint64_t code, uint64_t instr, struct py_frame *out);

/* The order of a mixed stack (ustack(python)), innermost first: n native
 * frames, eval[k] when frame k is in the interpreter's eval function, and
 * a pystack's (code, instr) pairs (depth of them, code 0 ends them; bit 0
 * marks a C shim frame, bit 1 3.11's entry frame).  Each eval frame is
 * replaced by the Python frames that call of it ran: up to its entry frame
 * (3.11), up to the frame a shim frame precedes (3.12+), one frame (3.9,
 * 3.10); one with no Python frame left stays; Python frames left when the
 * native frames end (the native walk stopped before their eval frames)
 * follow them.  A whole chain (code 0 within depth) of fewer calls than
 * eval frames (a sample as a call begins or ends) leaves the innermost
 * eval frames past its calls as they are.  out[j] is native index k, or ~i for Python pair i; the
 * count (<= cap). */
int py_mix(int minor, const bool *eval, int n, const uint64_t *pairs, uint32_t depth, int *out,
	   int cap);

/* The line of byte offset addr in a line table (unit-tested):
 * minor 9: co_lnotab, 10: co_linetable pairs, 11+: the location table. */
int py_addr2line(int minor, const uint8_t *tab, size_t len, int firstlineno, int64_t addr);

#endif
