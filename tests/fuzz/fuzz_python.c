/*
 * fuzz_python.c - what sonde decodes from a Python process's memory, under
 * a fuzzer: a traced process is not trusted, and its bytes may be anything
 * (a process that writes over its own interpreter, a reused address).
 *
 * The first byte of an input chooses the decoder:
 *   9 to 13    py_addr2line of that minor version: then firstlineno (4
 *              bytes, little-endian), the instruction's byte offset (8),
 *              and the rest is the line table (co_lnotab, 3.10's
 *              co_linetable, 3.11's location table);
 *   else       py_debug_offsets of the rest (3.13's _Py_DebugOffsets at
 *              _PyRuntime), whose offsets then go through py_bpf_offsets.
 * Besides the sanitizers it checks that a decoded offset sonde hands to
 * BPF stays where BPF reads it (a frame's fields within PY_FRAME_READ
 * bytes) and aborts when not.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "host/python.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	uint8_t what = data[0];
	if (what >= 9 && what <= 13) {
		if (size < 13)
			return 0;
		int32_t first;
		int64_t addr;
		memcpy(&first, data + 1, 4);
		memcpy(&addr, data + 5, 8);
		(void)py_addr2line(what, data + 13, size - 13, first, addr);
		return 0;
	}
	struct py_offsets o;
	char err[256];
	if (py_debug_offsets(data + 1, size - 1, &o, err, sizeof(err)))
		return 0;
	struct py_bpf_offs b;
	py_bpf_offsets(&o, &b);
	if (b.read > PY_FRAME_READ || b.fr_prev >= PY_FRAME_READ || b.fr_code >= PY_FRAME_READ ||
	    b.fr_instr >= PY_FRAME_READ)
		abort();
	return 0;
}
