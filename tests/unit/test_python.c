/*
 * test_python.c - host/python.c: each minor version's table of offsets
 * (3.9-3.12) and the reading of 3.13's _Py_DebugOffsets, checked against
 * the DWARF of an interpreter of that version: the pyenv builds'
 * libpython3.X.so (their own debug info) and Debian's /usr/bin/python3.11
 * (python3.11-dbg's file under /usr/lib/debug/.build-id).  An interpreter
 * that is not on the machine is a skip naming the path looked for.  Also
 * the line tables of each format on hand-made tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "host/host.h"
#include "host/python.h"

/* the offset of a member path ("threads.head") in struct tag, or -1 */
static long off(struct hdw_file *f, const char *tag, const char *path)
{
	const struct hdw_type *t = hdw_struct_named(f, false, tag);
	long total = 0;
	char buf[128];
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *save = NULL, *name = strtok_r(buf, ".", &save); name; name = strtok_r(NULL, ".", &save)) {
		const struct hdw_member *m = NULL;
		for (int i = 0; t && i < t->nmembers; i++)
			if (t->members[i].name && !strcmp(t->members[i].name, name))
				m = &t->members[i];
		if (!m)
			return -1;
		total += (long)m->offset;
		t = m->type;
	}
	return total;
}

/* every field of o that the version has, against f's DWARF */
static void check_offsets(struct hdw_file *f, const struct py_offsets *o, const char *what)
{
	int v = o->minor;
	print_message("checking %s (3.%d)\n", what, v);
	assert_int_equal(o->rt_interp_head, off(f, "pyruntimestate", "interpreters.head"));
	assert_int_equal(o->is_next, off(f, "_is", "next"));
	assert_int_equal(o->is_threads_head, off(f, "_is", v <= 10 ? "tstate_head" : "threads.head"));
	assert_int_equal(o->ts_next, off(f, "_ts", "next"));
	assert_int_equal(o->ts_frame, off(f, "_ts", v <= 10 ? "frame" : v <= 12 ? "cframe" : "current_frame"));
	assert_int_equal(o->ts_thread_id, off(f, "_ts", "thread_id"));
	if (v >= 11)
		assert_int_equal(o->ts_native_tid, off(f, "_ts", "native_thread_id"));
	else
		assert_int_equal(o->ts_native_tid, PY_NONE);
	if (v == 11 || v == 12)
		assert_int_equal(o->cframe_frame, off(f, "_PyCFrame", "current_frame"));
	const char *fr = v <= 10 ? "_frame" : "_PyInterpreterFrame";
	assert_int_equal(o->fr_prev, off(f, fr, v <= 10 ? "f_back" : "previous"));
	assert_int_equal(o->fr_code, off(f, fr, v <= 10 ? "f_code" : v <= 12 ? "f_code" : "f_executable"));
	assert_int_equal(o->fr_instr, off(f, fr, v <= 10 ? "f_lasti" : v <= 12 ? "prev_instr" : "instr_ptr"));
	if (v >= 11)
		assert_int_equal(o->fr_owner, off(f, fr, "owner"));
	if (v == 11)
		assert_int_equal(o->fr_is_entry, off(f, fr, "is_entry"));
	assert_int_equal(o->co_filename, off(f, "PyCodeObject", "co_filename"));
	assert_int_equal(o->co_name, off(f, "PyCodeObject", "co_name"));
	assert_int_equal(o->co_firstlineno, off(f, "PyCodeObject", "co_firstlineno"));
	assert_int_equal(o->co_linetable, off(f, "PyCodeObject", v <= 9 ? "co_lnotab" : "co_linetable"));
	if (v >= 11) {
		assert_int_equal(o->co_qualname, off(f, "PyCodeObject", "co_qualname"));
		assert_int_equal(o->co_code_adaptive, off(f, "PyCodeObject", "co_code_adaptive"));
	}
	/* the GIL: in the runtime (3.9-3.11), a pointer in the interpreter (3.12+) */
	if (v <= 11) {
		assert_int_equal(o->rt_gil, off(f, "pyruntimestate", "ceval.gil"));
		assert_int_equal(o->is_gil, PY_NONE);
	} else {
		assert_int_equal(o->rt_gil, PY_NONE);
		assert_int_equal(o->is_gil, off(f, "_is", "ceval.gil"));
	}
	assert_int_equal(PY_GIL_LAST_HOLDER, off(f, "_gil_runtime_state", "last_holder"));
	assert_int_equal(PY_GIL_LOCKED, off(f, "_gil_runtime_state", "locked"));
	assert_int_equal(PY_GIL_COND, off(f, "_gil_runtime_state", "cond"));
	assert_int_equal(PY_GIL_MUTEX, off(f, "_gil_runtime_state", "mutex"));
	assert_int_equal(PY_GIL_SWITCH_COND, off(f, "_gil_runtime_state", "switch_cond"));
	assert_int_equal(PY_GIL_WAIT_END, off(f, "_gil_runtime_state", "switch_mutex") + 40);
	/* threading's names */
	assert_int_equal(o->is_modules, off(f, "_is", v <= 11 ? "modules" : "imports.modules"));
	assert_int_equal(o->ty_cached_keys, off(f, "_heaptypeobject", "ht_cached_keys"));
	assert_int_equal(PY_TY_BASICSIZE, off(f, "_typeobject", "tp_basicsize"));
	assert_int_equal(PY_TY_FLAGS, off(f, "_typeobject", "tp_flags"));
	assert_int_equal(PY_TY_DICTOFFSET, off(f, "_typeobject", "tp_dictoffset"));
	/* PyDictObject is an anonymous struct in DWARF: its ma_keys and
	 * ma_values are checked by reading real dicts (t_diagnose_gil.sh) */
	assert_int_equal(off(f, "_dictkeysobject", "dk_indices"), v <= 10 ? 40 : 32);
	/* the walker's one read of a frame holds every field */
	struct py_bpf_offs b;
	py_bpf_offsets(o, &b);
	assert_true(b.read <= PY_FRAME_READ && b.fr_instr + 8 <= b.read && b.fr_prev + 8 <= b.read);
	/* frames in a data stack (3.11+) are read with their page below them */
	assert_int_equal(b.back, v >= 11 ? PY_PAGE - 1 : 0);
}

/* the stack maps pystack keeps a stack in, by its depth */
static void test_buckets(void **state)
{
	(void)state;
	static const struct {
		uint32_t depth;
		bool big;
		uint32_t want[6];
	} c[] = {
		{127, true, {8, 16, 32, 64, 127, 0}},
		{64, true, {8, 16, 32, 64, 0}},
		{65, true, {8, 16, 32, 64, 65, 0}},
		{20, true, {8, 16, 20, 0}},
		{8, true, {8, 0}},
		{1, true, {1, 0}},
		{31, false, {31, 0}},	/* 512-byte keys: one preallocated map */
	};
	for (size_t k = 0; k < sizeof(c) / sizeof(c[0]); k++)
		for (unsigned i = 0; i < 6; i++) {
			assert_int_equal(py_bucket(c[k].depth, c[k].big, i), c[k].want[i]);
			if (!c[k].want[i])
				break;
		}
}

static struct hdw_file *open_dwarf(const char *path)
{
	struct hdw_file *f = NULL;
	char err[512];
	if (hdw_open(path, &f, err, sizeof(err))) {
		print_message("%s\n", err);
		return NULL;
	}
	return f;
}

static const char *pyenv_lib(int minor, char *buf, size_t len)
{
	char pat[256];
	glob_t g;
	const char *root = getenv("PYENV_ROOT") ? getenv("PYENV_ROOT") : "/root/.pyenv";
	snprintf(pat, sizeof(pat), "%s/versions/3.%d.*/lib/libpython3.%d.so.1.0", root, minor, minor);
	const char *r = NULL;
	if (!glob(pat, 0, NULL, &g) && g.gl_pathc) {
		snprintf(buf, len, "%s", g.gl_pathv[g.gl_pathc - 1]);
		r = buf;
	} else {
		snprintf(buf, len, "%s", pat);
	}
	globfree(&g);
	return r;
}

static void test_tables_pyenv(void **state)
{
	(void)state;
	for (int minor = 9; minor <= 12; minor++) {
		char path[512];
		if (!pyenv_lib(minor, path, sizeof(path))) {
			print_message("SKIP 3.%d: no %s\n", minor, path);
			continue;
		}
		struct hdw_file *f = open_dwarf(path);
		assert_non_null(f);
		check_offsets(f, py_table(minor), path);
	}
	assert_null(py_table(8));
	assert_null(py_table(13));
}

static void test_table_debian311(void **state)
{
	(void)state;
	const char *path = "/usr/bin/python3.11";
	if (access(path, R_OK)) {
		skip();
	}
	/* python3.11-dbg (DEPS_PKGS) holds its DWARF */
	struct hdw_file *f = open_dwarf(path);
	assert_non_null(f);
	check_offsets(f, py_table(11), path);
}

/* 3.13: the _Py_DebugOffsets in the file's own _PyRuntime (initialised
 * data), read as from a process, against the DWARF */
static void test_debug_offsets_313(void **state)
{
	(void)state;
	char path[512];
	if (!pyenv_lib(13, path, sizeof(path))) {
		print_message("SKIP 3.13: no %s\n", path);
		skip();
	}
	struct rs_elf_symbol s;
	assert_int_equal(rs_elf_find_symbol(path, "_PyRuntime", &s), 0);
	assert_true(s.found);
	struct rs_elf *e;
	char err[256];
	assert_int_equal(rs_elf_open(path, &e, err, sizeof(err)), 0);
	uint64_t foff;
	assert_int_equal(rs_elf_vaddr_to_offset(e, s.value, &foff), 0);
	rs_elf_free(e);
	uint8_t raw[PY_DEBUG_OFFSETS_SIZE];
	int fd = open(path, O_RDONLY);
	assert_true(fd >= 0);
	assert_int_equal(pread(fd, raw, sizeof(raw), (off_t)foff), (ssize_t)sizeof(raw));
	close(fd);
	struct py_offsets o;
	assert_int_equal(py_debug_offsets(raw, sizeof(raw), &o, err, sizeof(err)), 0);
	struct hdw_file *f = open_dwarf(path);
	assert_non_null(f);
	check_offsets(f, &o, path);
	/* a wrong cookie or version is refused with its reason */
	raw[0] = 'y';
	assert_int_equal(py_debug_offsets(raw, sizeof(raw), &o, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "xdebugpy"));
}

static void test_addr2line(void **state)
{
	(void)state;
	/* 3.9 co_lnotab: bytes 0-5 line 10, 6-11 line 12, 12- line 11 */
	const uint8_t lnotab[] = {6, 2, 6, (uint8_t)-1};
	assert_int_equal(py_addr2line(9, lnotab, sizeof(lnotab), 10, 0), 10);
	assert_int_equal(py_addr2line(9, lnotab, sizeof(lnotab), 10, 6), 12);
	assert_int_equal(py_addr2line(9, lnotab, sizeof(lnotab), 10, 14), 11);
	/* 3.10 co_linetable: 4 bytes line +1, 4 bytes no line, 8 bytes +2 */
	const uint8_t lt10[] = {4, 1, 4, 0x80, 8, 2};
	assert_int_equal(py_addr2line(10, lt10, sizeof(lt10), 20, 2), 21);
	assert_int_equal(py_addr2line(10, lt10, sizeof(lt10), 20, 5), 0);
	assert_int_equal(py_addr2line(10, lt10, sizeof(lt10), 20, 10), 23);
	/* 3.11+: a no-column entry (13) of 2 units, line +1; a short entry (0)
	 * of 1 unit (same line); a one-line entry (11: +1) of 3 units; a long
	 * entry (14) with line -2; a no-location entry (15) */
	const uint8_t lt11[] = {0x80 | 13 << 3 | 1, 2, 0x80 | 0 << 3 | 0, 0,
				0x80 | 11 << 3 | 2, 4, 9, 0x80 | 14 << 3 | 0, 5, 0, 1, 1,
				0x80 | 15 << 3 | 0};
	assert_int_equal(py_addr2line(11, lt11, sizeof(lt11), 5, 0), 6);
	assert_int_equal(py_addr2line(11, lt11, sizeof(lt11), 5, 4), 6);
	assert_int_equal(py_addr2line(11, lt11, sizeof(lt11), 5, 8), 7);
	assert_int_equal(py_addr2line(11, lt11, sizeof(lt11), 5, 12), 5);
	assert_int_equal(py_addr2line(11, lt11, sizeof(lt11), 5, 14), 0);
	assert_int_equal(py_addr2line(11, lt11, sizeof(lt11), 5, 100), 0);
	/* a truncated table ends the walk, never reads past it */
	assert_int_equal(py_addr2line(11, lt11, 1, 5, 100), 0);
	/* a table a process wrote over: line deltas near 2^58 each (the
	 * fuzzer's find: a signed overflow); the line is held to an int */
	uint8_t big[20 * 11];
	for (int i = 0; i < 20; i++) {
		big[i * 11] = 0x80 | 13 << 3;
		memset(big + i * 11 + 1, 0x7e, 9);
		big[i * 11 + 10] = 0x3e;
	}
	assert_int_equal(py_addr2line(11, big, sizeof(big), 2147483647, 38), 2147483647);
	big[1] = 0x7f;	/* its low bit: negative */
	assert_int_equal(py_addr2line(11, big, 11, 0, 0), -2147483647 - 1);
}

/* ustack(python)'s order: native [libc, eval, ext, eval, main] */
static void test_mix(void **state)
{
	(void)state;
	const bool eval[] = {false, true, false, true, false};
	int out[16];
	/* 3.12: f1 f2 | shim | f3 f4 | shim: one call ran f1, f2, the next f3, f4 */
	const uint64_t p12[] = {0x100, 1, 0x200, 2, 0x301, 0, 0x400, 3, 0x500, 4, 0x601, 0, 0, 0};
	int n = py_mix(12, eval, 5, p12, 7, out, 16);
	int want12[] = {0, ~0, ~1, 2, ~3, ~4, 4};
	assert_int_equal(n, 7);
	assert_memory_equal(out, want12, sizeof(want12));
	/* 3.11: entry frames (bit 1) end each call: f1 f2e f3 f4e */
	const uint64_t p11[] = {0x100, 1, 0x202, 2, 0x300, 3, 0x402, 4, 0, 0};
	n = py_mix(11, eval, 5, p11, 5, out, 16);
	int want11[] = {0, ~0, ~1, 2, ~2, ~3, 4};
	assert_int_equal(n, 7);
	assert_memory_equal(out, want11, sizeof(want11));
	/* 3.10: a frame per call; the native walk stopped early (one eval
	 * frame seen): the other Python frames follow the native ones */
	const bool eval2[] = {false, true};
	const uint64_t p10[] = {0x100, 1, 0x200, 2, 0x300, 3, 0, 0};
	n = py_mix(10, eval2, 2, p10, 4, out, 16);
	int want10[] = {0, ~0, ~1, ~2};
	assert_int_equal(n, 4);
	assert_memory_equal(out, want10, sizeof(want10));
	/* 3.11, a sample as a generator's eval call began (or ended): native
	 * [leaf, eval, gen_iternext, builtin_sum, eval, PyIter_Send, eval,
	 * main], the chain tokenize count_tokens(e) | endpoint(e): two calls
	 * for three eval frames.  The innermost stays native, and each call's
	 * frames replace its own eval frame (from the innermost, tokenize
	 * would stand on gen_iternext and endpoint on builtin_sum) */
	const bool eval3[] = {false, true, false, false, true, false, true, false};
	const uint64_t p11g[] = {0x100, 1, 0x202, 2, 0x302, 3, 0, 0};
	n = py_mix(11, eval3, 8, p11g, 4, out, 16);
	int want11g[] = {0, 1, 2, 3, ~0, ~1, 5, ~2, 7};
	assert_int_equal(n, 9);
	assert_memory_equal(out, want11g, sizeof(want11g));
	/* the same chain cut by depth (no code 0 in it): matched from the
	 * innermost, as nothing tells how many calls it has */
	n = py_mix(11, eval3, 8, p11g, 3, out, 16);
	int want11c[] = {0, ~0, ~1, 2, 3, ~2, 5, 6, 7};
	assert_int_equal(n, 9);
	assert_memory_equal(out, want11c, sizeof(want11c));
	/* no Python frames: the native frames as they are; cap respected */
	const uint64_t none[] = {0, 0};
	n = py_mix(12, eval, 5, none, 1, out, 3);
	int wantn[] = {0, 1, 2};
	assert_int_equal(n, 3);
	assert_memory_equal(out, wantn, sizeof(wantn));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tables_pyenv),
		cmocka_unit_test(test_table_debian311),
		cmocka_unit_test(test_debug_offsets_313),
		cmocka_unit_test(test_addr2line),
		cmocka_unit_test(test_mix),
		cmocka_unit_test(test_buckets),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
