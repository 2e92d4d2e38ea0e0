/*
 * python.c - CPython interpreters inside other processes: where the
 * interpreter is, its version and layout, its threads, and the names,
 * files and lines of its code objects.  See python.h.
 *
 * The interpreter is the python3.X or libpython3.X.so* file the process
 * maps (its /proc/PID/maps, the file opened through map_files or inside
 * /proc/PID/root, so a container's own interpreter is read).  _PyRuntime is
 * its symbol (.dynsym: Debian's stripped binary exports it), else the start
 * of its .PyRuntime section (3.10+, a binary stripped of it); the version is
 * Py_Version (3.11+), else the file's name.  The tables below were written
 * from each version's headers (Include/internal/pycore_frame.h,
 * pycore_interp.h, cpython/code.h ...) and are checked against the DWARF of
 * an interpreter of that version by tests/unit/test_python.c.
 */
#include "host/python.h"
#include "host/host.h"
#include "host/proc.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <unistd.h>

/* ---- the tables --------------------------------------------------------- */

static const struct py_offsets tables[] = {
	{.minor = 9, .rt_interp_head = 32, .is_next = 0, .is_threads_head = 8, .ts_next = 8,
	 .ts_frame = 24, .ts_native_tid = PY_NONE, .ts_thread_id = 176, .cframe_frame = PY_NONE,
	 .fr_prev = 24, .fr_code = 32, .fr_instr = 104, .fr_owner = PY_NONE, .owner_cstack = PY_NONE, .fr_is_entry = PY_NONE,
	 .co_filename = 104, .co_name = 112, .co_qualname = PY_NONE, .co_firstlineno = 40,
	 .co_linetable = 120, .co_code_adaptive = PY_NONE, .uni_ascii_size = 48, .uni_compact_size = 72,
	 .rt_gil = 0x160, .is_gil = PY_NONE, .is_modules = 0x358, .ty_cached_keys = 0x360},
	{.minor = 10, .rt_interp_head = 32, .is_next = 0, .is_threads_head = 8, .ts_next = 8,
	 .ts_frame = 24, .ts_native_tid = PY_NONE, .ts_thread_id = 176, .cframe_frame = PY_NONE,
	 .fr_prev = 24, .fr_code = 32, .fr_instr = 96, .fr_owner = PY_NONE, .owner_cstack = PY_NONE, .fr_is_entry = PY_NONE,
	 .co_filename = 104, .co_name = 112, .co_qualname = PY_NONE, .co_firstlineno = 40,
	 .co_linetable = 120, .co_code_adaptive = PY_NONE, .uni_ascii_size = 48, .uni_compact_size = 72,
	 .rt_gil = 0x160, .is_gil = PY_NONE, .is_modules = 0x358, .ty_cached_keys = 0x368},
	{.minor = 11, .rt_interp_head = 40, .is_next = 0, .is_threads_head = 16, .ts_next = 8,
	 .ts_frame = 56, .ts_native_tid = 160, .ts_thread_id = 152, .cframe_frame = 8,
	 .fr_prev = 48, .fr_code = 32, .fr_instr = 56, .fr_owner = 69, .owner_cstack = PY_NONE, .fr_is_entry = 68,
	 .co_filename = 112, .co_name = 120, .co_qualname = 128, .co_firstlineno = 72,
	 .co_linetable = 136, .co_code_adaptive = 184, .uni_ascii_size = 48, .uni_compact_size = 72,
	 .rt_gil = 0x168, .is_gil = PY_NONE, .is_modules = 0x378, .ty_cached_keys = 0x368},
	{.minor = 12, .rt_interp_head = 40, .is_next = 0, .is_threads_head = 72, .ts_next = 8,
	 .ts_frame = 56, .ts_native_tid = 144, .ts_thread_id = 136, .cframe_frame = 0,
	 .fr_prev = 8, .fr_code = 0, .fr_instr = 56, .fr_owner = 70, .owner_cstack = 3, .fr_is_entry = PY_NONE,
	 .co_filename = 112, .co_name = 120, .co_qualname = 128, .co_firstlineno = 68,
	 .co_linetable = 136, .co_code_adaptive = 192, .uni_ascii_size = 40, .uni_compact_size = 56,
	 .rt_gil = PY_NONE, .is_gil = 0x180, .is_modules = 0x3b0, .ty_cached_keys = 0x370},
};

const struct py_offsets *py_table(int minor)
{
	for (size_t i = 0; i < sizeof(tables) / sizeof(tables[0]); i++)
		if (tables[i].minor == minor)
			return &tables[i];
	return NULL;
}

static uint64_t word(const uint8_t *raw, size_t i)
{
	uint64_t v;
	memcpy(&v, raw + i * 8, 8);
	return v;
}

/* 3.13's _Py_DebugOffsets (Include/internal/pycore_runtime.h), as 8-byte
 * words: cookie, version, free_threaded, then per structure its size
 * followed by its fields in declaration order */
enum {
	DO_VERSION = 1, DO_FREE_THREADED = 2,
	DO_RT_INTERP_HEAD = 5,
	DO_IS_NEXT = 8, DO_IS_THREADS_HEAD = 9, DO_IS_MODULES = 11, DO_IS_CEVAL_GIL = 14,
	DO_TS_NEXT = 21, DO_TS_CURRENT_FRAME = 23, DO_TS_THREAD_ID = 24, DO_TS_NATIVE_TID = 25,
	DO_FR_PREVIOUS = 29, DO_FR_EXECUTABLE = 30, DO_FR_INSTR_PTR = 31, DO_FR_OWNER = 33,
	DO_CO_FILENAME = 35, DO_CO_NAME = 36, DO_CO_QUALNAME = 37, DO_CO_LINETABLE = 38,
	DO_CO_FIRSTLINENO = 39, DO_CO_ADAPTIVE = 43,
	DO_UNI_ASCII_SIZE = 70, DO_WORDS = 73,
};

int py_debug_offsets(const uint8_t *raw, size_t len, struct py_offsets *out, char *err,
		     size_t errlen)
{
	if (len < DO_WORDS * 8 || memcmp(raw, "xdebugpy", 8)) {
		snprintf(err, errlen, "_PyRuntime does not start with _Py_DebugOffsets (no \"xdebugpy\" cookie)");
		return -EINVAL;
	}
	uint64_t v = word(raw, DO_VERSION);	/* PY_VERSION_HEX */
	if ((v >> 24) != 3 || ((v >> 16) & 0xff) != 13) {
		snprintf(err, errlen, "_Py_DebugOffsets of version %llu.%llu: sonde reads 3.13's layout",
			 (unsigned long long)(v >> 24), (unsigned long long)((v >> 16) & 0xff));
		return -EINVAL;
	}
	if (word(raw, DO_FREE_THREADED)) {
		snprintf(err, errlen, "a free-threaded build (3.13t), which sonde cannot walk yet");
		return -EINVAL;
	}
	*out = (struct py_offsets){
		.minor = 13,
		.rt_interp_head = (uint32_t)word(raw, DO_RT_INTERP_HEAD),
		.is_next = (uint32_t)word(raw, DO_IS_NEXT),
		.is_threads_head = (uint32_t)word(raw, DO_IS_THREADS_HEAD),
		.ts_next = (uint32_t)word(raw, DO_TS_NEXT),
		.ts_frame = (uint32_t)word(raw, DO_TS_CURRENT_FRAME),
		.ts_native_tid = (uint32_t)word(raw, DO_TS_NATIVE_TID),
		.ts_thread_id = (uint32_t)word(raw, DO_TS_THREAD_ID),
		.cframe_frame = PY_NONE,
		.fr_prev = (uint32_t)word(raw, DO_FR_PREVIOUS),
		.fr_code = (uint32_t)word(raw, DO_FR_EXECUTABLE),
		.fr_instr = (uint32_t)word(raw, DO_FR_INSTR_PTR),
		.fr_owner = (uint32_t)word(raw, DO_FR_OWNER),
		.owner_cstack = 3,	/* FRAME_OWNED_BY_CSTACK */
		.fr_is_entry = PY_NONE,
		.co_filename = (uint32_t)word(raw, DO_CO_FILENAME),
		.co_name = (uint32_t)word(raw, DO_CO_NAME),
		.co_qualname = (uint32_t)word(raw, DO_CO_QUALNAME),
		.co_firstlineno = (uint32_t)word(raw, DO_CO_FIRSTLINENO),
		.co_linetable = (uint32_t)word(raw, DO_CO_LINETABLE),
		.co_code_adaptive = (uint32_t)word(raw, DO_CO_ADAPTIVE),
		.uni_ascii_size = (uint32_t)word(raw, DO_UNI_ASCII_SIZE),
		.uni_compact_size = (uint32_t)word(raw, DO_UNI_ASCII_SIZE) + 16,
		.rt_gil = PY_NONE,
		.is_gil = (uint32_t)word(raw, DO_IS_CEVAL_GIL),
		.is_modules = (uint32_t)word(raw, DO_IS_MODULES),
		.ty_cached_keys = 0x370,	/* not among the debug offsets; checked against DWARF */
	};
	/* the walker reads a frame's fields from one read of PY_FRAME_READ bytes */
	if (out->fr_prev > PY_FRAME_READ - 8 || out->fr_code > PY_FRAME_READ - 8 ||
	    out->fr_instr > PY_FRAME_READ - 8 || out->fr_owner > PY_FRAME_READ - 1 ||
	    out->uni_ascii_size > 256 || out->co_code_adaptive > 4096 || out->is_gil > (1u << 20) ||
	    out->is_modules > (1u << 20)) {
		snprintf(err, errlen, "_Py_DebugOffsets holds offsets out of range");
		return -EINVAL;
	}
	return 0;
}

void py_bpf_offsets(const struct py_offsets *o, struct py_bpf_offs *out)
{
	uint32_t end = o->fr_instr + 8;
	if (o->fr_code + 8 > end)
		end = o->fr_code + 8;
	if (o->fr_prev + 8 > end)
		end = o->fr_prev + 8;
	if (o->fr_owner != PY_NONE && o->fr_owner + 1 > end)
		end = o->fr_owner + 1;
	if (o->fr_is_entry != PY_NONE && o->fr_is_entry + 1 > end)
		end = o->fr_is_entry + 1;
	*out = (struct py_bpf_offs){
		.ok = 1,
		.ts_frame = o->ts_frame,
		.cframe_frame = o->cframe_frame == PY_NONE ? ~0ull : o->cframe_frame,
		.fr_prev = o->fr_prev,
		.fr_code = o->fr_code,
		.fr_instr = o->fr_instr,
		/* no owner byte: read the code pointer's first byte, never 0xff's skip */
		.fr_owner = o->fr_owner == PY_NONE ? o->fr_code : o->fr_owner,
		.owner_skip = o->owner_cstack == PY_NONE ? ~0ull : o->owner_cstack,
		.read = (end + 7) & ~7u,
		.instr_mask = o->minor <= 10 ? 0xffffffffull : ~0ull,
		.fr_entry = o->fr_is_entry == PY_NONE ? ~0ull : o->fr_is_entry,
		.back = o->minor >= 11 ? PY_PAGE - 1 : 0,
	};
}

/* ---- line tables -------------------------------------------------------- */

/* 3.11+ location table: Objects/locations.md */
static uint64_t varint(const uint8_t *t, size_t len, size_t *i)
{
	uint64_t v = 0;
	for (int shift = 0; *i < len && shift < 60; shift += 6) {
		uint8_t b = t[(*i)++];
		v |= (uint64_t)(b & 63) << shift;
		if (!(b & 64))
			break;
	}
	return v;
}

static int64_t svarint(const uint8_t *t, size_t len, size_t *i)
{
	uint64_t v = varint(t, len, i);
	return v & 1 ? -(int64_t)(v >> 1) : (int64_t)(v >> 1);
}

/* line + d, held to an int: a table read from a process may hold any
 * deltas (d is below 2^59, so the sum does not overflow first) */
static int64_t add_line(int64_t line, int64_t d)
{
	line += d;
	return line < INT32_MIN ? INT32_MIN : line > INT32_MAX ? INT32_MAX : line;
}

int py_addr2line(int minor, const uint8_t *t, size_t len, int firstlineno, int64_t addr)
{
	int64_t line = firstlineno;
	if (addr < 0)
		return firstlineno;
	if (minor <= 9) {	/* co_lnotab: (address increment, signed line increment) */
		int64_t a = 0;
		for (size_t i = 0; i + 1 < len; i += 2) {
			a += t[i];
			if (a > addr)
				break;
			line = add_line(line, (int8_t)t[i + 1]);
		}
		return (int)line;
	}
	if (minor == 10) {	/* co_linetable: (bytes, signed line delta or -128: none) */
		int64_t end = 0, cur = -1;
		for (size_t i = 0; i + 1 < len; i += 2) {
			end += t[i];
			if ((int8_t)t[i + 1] != -128) {
				line = add_line(line, (int8_t)t[i + 1]);
				cur = line;
			} else {
				cur = -1;
			}
			if (end > addr)
				return cur < 0 ? 0 : (int)cur;
		}
		return 0;
	}
	int64_t a = 0;
	for (size_t i = 0; i < len;) {
		uint8_t first = t[i++];
		if (!(first & 0x80))
			return 0;	/* not at an entry's start: a corrupt table */
		int code = (first >> 3) & 15;
		int64_t end = a + ((first & 7) + 1) * 2;
		bool none = false;
		if (code == 15) {
			none = true;
		} else if (code == 14) {
			line = add_line(line, svarint(t, len, &i));
			varint(t, len, &i);
			varint(t, len, &i);
			varint(t, len, &i);
		} else if (code == 13) {
			line = add_line(line, svarint(t, len, &i));
		} else if (code >= 10) {
			line = add_line(line, code - 10);
			i += 2;
		} else {
			i += 1;
		}
		if (addr < end)
			return none ? 0 : (int)line;
		a = end;
	}
	return 0;
}

/* ---- mixed stacks ------------------------------------------------------ */

/* the Python frames of one eval call from pair *i on, into out (NULL:
 * counted only) */
static int one_call(int minor, const uint64_t *pairs, uint32_t depth, uint32_t *i, int *out, int cap)
{
	int m = 0;
	while (*i < depth && pairs[2 * *i] && m < cap) {
		uint64_t code = pairs[2 * *i];
		if (code & 1) {	/* a shim before any frame of this call */
			(*i)++;
			continue;
		}
		if (out)
			out[m] = (int)~*i;
		m++;
		(*i)++;
		if (minor <= 10 || (minor == 11 && (code & 2)))
			break;
		if (minor >= 12 && *i < depth && (pairs[2 * *i] & 1)) {
			(*i)++;	/* the shim that began this call */
			break;
		}
	}
	return m;
}

int py_mix(int minor, const bool *eval, int n, const uint64_t *pairs, uint32_t depth, int *out,
	   int cap)
{
	/* A sample taken as an eval call begins or ends (a generator resumed
	 * for each item of sum(x for x in ...): the call has no frame of its
	 * own in the chain yet, or no more) sees one eval frame more than the
	 * chain has calls: matched from the innermost, every call would take
	 * the frames of the one below it.  So, when the chain is whole (it
	 * ends within depth), the innermost eval frames past its calls keep no
	 * Python frame */
	int calls = 0, evals = 0;
	uint32_t i = 0;
	while (one_call(minor, pairs, depth, &i, NULL, INT_MAX))
		calls++;
	for (int k = 0; k < n; k++)
		evals += eval[k];
	int idle = i < depth && evals > calls ? evals - calls : 0;
	int m = 0;
	i = 0;
	for (int k = 0; k < n && m < cap; k++) {
		int got = 0;
		if (eval[k] && idle > 0)
			idle--;
		else if (eval[k])
			got = one_call(minor, pairs, depth, &i, out + m, cap - m);
		if (!got)
			out[m++] = k;
		m += got;
	}
	while (m < cap) {
		int got = one_call(minor, pairs, depth, &i, out + m, cap - m);
		if (!got)
			break;
		m += got;
	}
	return m;
}

/* ---- the target's memory ------------------------------------------------ */

#define CODE_SLOTS 16384		/* code objects cached per process (a power of 2) */
#define STR_MAX 1024

struct code_entry {
	uint64_t addr;		/* 0: empty */
	uint64_t filename_ptr;
	int firstlineno;
	char *name, *file;
	uint8_t *table;
	size_t tlen;
};

struct py_proc {
	int pid;
	int minor;
	char file[RS_PATH_MAX];
	uint64_t runtime;
	struct py_offsets off;
	struct code_entry *codes;	/* CODE_SLOTS, open addressing; a full table evicts */
};

static int rd(const struct py_proc *p, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len}, r = {(void *)(uintptr_t)addr, len};
	if (!addr)
		return -EFAULT;
	ssize_t n = process_vm_readv(p->pid, &l, 1, &r, 1, 0);
	return n == (ssize_t)len ? 0 : n < 0 ? -errno : -EFAULT;
}

static int rd64(const struct py_proc *p, uint64_t addr, uint64_t *v)
{
	return rd(p, addr, v, 8);
}

/* a str object as UTF-8 (malloc'd), NULL when it cannot be read */
static char *read_str(const struct py_proc *p, uint64_t obj)
{
	uint8_t head[32 + 8];
	if (rd(p, obj, head, sizeof(head)))
		return NULL;
	int64_t n;
	uint32_t state;
	memcpy(&n, head + 16, 8);
	memcpy(&state, head + 32, 4);
	unsigned kind = (state >> 2) & 7, compact = (state >> 5) & 1, ascii = (state >> 6) & 1;
	if (!compact || n < 0 || (kind != 1 && kind != 2 && kind != 4))
		return NULL;
	if (n > STR_MAX)
		n = STR_MAX;
	uint64_t data = obj + (ascii ? p->off.uni_ascii_size : p->off.uni_compact_size);
	uint8_t *raw = malloc((size_t)n * kind + 1);
	char *s = malloc((size_t)n * 4 + 1);
	if (!raw || !s || rd(p, data, raw, (size_t)n * kind)) {
		free(raw);
		free(s);
		return NULL;
	}
	size_t o = 0;
	for (int64_t i = 0; i < n; i++) {
		uint32_t c = kind == 1 ? raw[i] : kind == 2 ? ((uint16_t *)raw)[i] : ((uint32_t *)raw)[i];
		if (c < 0x80) {
			s[o++] = (char)(c ? c : '?');
		} else if (c < 0x800) {
			s[o++] = (char)(0xc0 | c >> 6);
			s[o++] = (char)(0x80 | (c & 63));
		} else if (c < 0x10000) {
			s[o++] = (char)(0xe0 | c >> 12);
			s[o++] = (char)(0x80 | ((c >> 6) & 63));
			s[o++] = (char)(0x80 | (c & 63));
		} else if (c < 0x110000) {
			s[o++] = (char)(0xf0 | c >> 18);
			s[o++] = (char)(0x80 | ((c >> 12) & 63));
			s[o++] = (char)(0x80 | ((c >> 6) & 63));
			s[o++] = (char)(0x80 | (c & 63));
		} else {
			s[o++] = '?';
		}
	}
	s[o] = 0;
	free(raw);
	return s;
}

/* a bytes object's contents (malloc'd, at most 1 MiB) */
static uint8_t *read_bytes(const struct py_proc *p, uint64_t obj, size_t *len)
{
	int64_t n;
	if (rd(p, obj + 16, &n, 8) || n < 0 || n > (1 << 20))
		return NULL;
	uint8_t *b = malloc((size_t)n + 1);
	if (b && rd(p, obj + 32, b, (size_t)n)) {	/* PyBytesObject.ob_sval */
		free(b);
		return NULL;
	}
	*len = (size_t)n;
	return b;
}

/* ---- finding the interpreter -------------------------------------------- */

/* "python3.11", "libpython3.9.so.1.0", "python3.12d": the minor version, or -1 */
static int name_minor(const char *path)
{
	const char *b = strrchr(path, '/');
	b = b ? b + 1 : path;
	if (!strncmp(b, "lib", 3))
		b += 3;
	if (strncmp(b, "python3.", 8) || !isdigit((unsigned char)b[8]))
		return -1;
	int minor = atoi(b + 8);
	const char *e = b + 8;
	while (isdigit((unsigned char)*e))
		e++;
	/* the binary (python3.11, python3.11d) or the library (.so...) */
	if (*e && strcmp(e, "d") && strncmp(e, ".so", 3) && strncmp(e, "d.so", 4))
		return -1;
	return minor;
}

struct find_ctx {
	struct rs_mapping m;
	bool found, lib;
	int minor;
};

static int find_one(const struct rs_mapping *m, void *vctx)
{
	struct find_ctx *c = vctx;
	int minor = name_minor(m->path);
	if (minor < 0)
		return 0;
	bool lib = strstr(m->path, "libpython") != NULL;
	/* libpython wins over the python binary that links it */
	if (!c->found || (lib && !c->lib)) {
		c->m = *m;
		c->found = true;
		c->lib = lib;
		c->minor = minor;
	}
	return 0;
}

static int load_bias(int pid, const struct rs_mapping *m, int fd, uint64_t *bias, char *err,
		     size_t errlen)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct rs_elf *e;
	if (rs_elf_open_fd(fd, path, NULL, &e, err, errlen))
		return -EINVAL;
	uint64_t vaddr;
	int rc = rs_elf_offset_to_vaddr(e, m->offset, &vaddr);
	rs_elf_free(e);
	if (rc) {
		snprintf(err, errlen, "no segment of %s maps file offset 0x%llx", m->path,
			 (unsigned long long)m->offset);
		return rc;
	}
	(void)pid;
	*bias = m->start - vaddr;
	return 0;
}

int py_proc_open(int pid, struct py_proc **out, char *err, size_t errlen)
{
	struct find_ctx c = {0};
	err[0] = 0;
	int rc = rs_maps_each(pid, find_one, &c);
	if (rc < 0) {
		snprintf(err, errlen, "cannot read the mappings of pid %d: %s", pid, strerror(-rc));
		return rc;
	}
	if (!c.found)
		return -ENOENT;
	struct py_proc *p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->pid = pid;
	snprintf(p->file, sizeof(p->file), "%s", c.m.path);
	int fd = rs_open_mapping(pid, &c.m, 0, err, errlen);
	if (fd < 0) {
		free(p);
		return fd;
	}
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	struct rs_elf_symbol rt_sym, ver_sym;
	uint64_t bias = 0;
	rc = rs_elf_find_symbol(path, "_PyRuntime", &rt_sym);
	/* stripped of the symbol: CPython 3.10+ puts _PyRuntime alone at
	 * the start of a section of its own, .PyRuntime (3.13's is checked
	 * by its debug offsets' cookie below) */
	if (!rc && !rt_sym.found)
		rc = rs_elf_find_section(path, ".PyRuntime", &rt_sym);
	if (!rc)
		rc = rs_elf_find_symbol(path, "Py_Version", &ver_sym);
	if (!rc && rt_sym.found && rt_sym.pie)
		rc = load_bias(pid, &c.m, fd, &bias, err, errlen);
	close(fd);
	if (rc || !rt_sym.found) {
		if (!err[0])
			snprintf(err, errlen, "%s has neither a _PyRuntime symbol nor a .PyRuntime "
				 "section (stripped, or older than CPython 3.10)", p->file);
		free(p);
		return rc ? rc : -ENOENT;
	}
	p->runtime = rt_sym.value + bias;
	p->minor = c.minor;
	uint32_t hex;
	if (ver_sym.found && !rd(p, ver_sym.value + bias, &hex, 4)) {
		if ((hex >> 24) != 3) {
			snprintf(err, errlen, "%s: Py_Version 0x%x is not CPython 3", p->file, hex);
			free(p);
			return -EINVAL;
		}
		p->minor = (int)((hex >> 16) & 0xff);
	}
	if (p->minor >= 13) {
		uint8_t raw[PY_DEBUG_OFFSETS_SIZE];
		char why[200];
		if (rd(p, p->runtime, raw, sizeof(raw))) {
			snprintf(err, errlen, "cannot read _PyRuntime of %s in pid %d", p->file, pid);
			free(p);
			return -EFAULT;
		}
		if (py_debug_offsets(raw, sizeof(raw), &p->off, why, sizeof(why))) {
			snprintf(err, errlen, "%s (CPython 3.%d): %s", p->file, p->minor, why);
			free(p);
			return -EINVAL;
		}
	} else {
		const struct py_offsets *t = py_table(p->minor);
		if (!t) {
			snprintf(err, errlen, "%s is CPython 3.%d: sonde reads 3.9 to 3.13", p->file,
				 p->minor);
			free(p);
			return -ENOTSUP;
		}
		p->off = *t;
	}
	p->codes = calloc(CODE_SLOTS, sizeof(*p->codes));
	if (!p->codes) {
		free(p);
		return -ENOMEM;
	}
	*out = p;
	return 0;
}

static void code_clear(struct code_entry *e)
{
	free(e->name);
	free(e->file);
	free(e->table);
	memset(e, 0, sizeof(*e));
}

void py_proc_free(struct py_proc *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < CODE_SLOTS; i++)
		code_clear(&p->codes[i]);
	free(p->codes);
	free(p);
}

const char *py_proc_file(const struct py_proc *p)
{
	return p->file;
}

int py_proc_minor(const struct py_proc *p)
{
	return p->minor;
}

const struct py_offsets *py_proc_offsets(const struct py_proc *p)
{
	return &p->off;
}

/* ---- threads ------------------------------------------------------------ */

#define MAX_TIDS 4096

struct tidmap {
	int n;
	int tid[MAX_TIDS], nstid[MAX_TIDS];	/* sonde's /proc, the target's namespace */
};

static void read_tids(int pid, struct tidmap *m)
{
	int *tids;
	size_t ntids;
	m->n = 0;
	if (host_proc_ids(pid, &tids, &ntids))
		return;
	for (size_t i = 0; i < ntids && m->n < MAX_TIDS; i++) {
		int tid = tids[i];
		char sp[96], line[256];
		snprintf(sp, sizeof(sp), "/proc/%d/task/%d/status", pid, tid);
		FILE *f = fopen(sp, "re");
		int ns = tid;
		while (f && fgets(line, sizeof(line), f))
			if (!strncmp(line, "NSpid:", 6)) {	/* the last field is the innermost */
				char *last = strrchr(line, '\t');
				if (last)
					ns = atoi(last + 1);
				break;
			}
		if (f)
			fclose(f);
		m->tid[m->n] = tid;
		m->nstid[m->n++] = ns;
	}
	free(tids);
}

static int tid_of(const struct tidmap *m, int nstid)
{
	for (int i = 0; i < m->n; i++)
		if (m->nstid[i] == nstid)
			return m->tid[i];
	return -1;
}

/* glibc's struct pthread keeps the kernel's tid at this offset (x86-64);
 * checked on sonde's own thread before it is trusted, and each tid read
 * this way must be one of the process's */
#define PTHREAD_TID_OFF PY_PTHREAD_TID_OFF

static bool pthread_tid_known(void)
{
#if defined(__x86_64__)
	pid_t t;
	memcpy(&t, (const char *)(uintptr_t)pthread_self() + PTHREAD_TID_OFF, sizeof(t));
	return t == gettid();
#else
	return false;
#endif
}

int py_proc_threads(struct py_proc *p, int (*cb)(int tid, uint64_t tstate, void *ctx), void *ctx)
{
	struct tidmap *m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	read_tids(p->pid, m);
	bool by_pthread = p->off.ts_native_tid == PY_NONE && pthread_tid_known();
	uint64_t interp;
	int n = 0;
	if (rd64(p, p->runtime + p->off.rt_interp_head, &interp)) {
		free(m);
		return -EFAULT;
	}
	for (int ni = 0; interp && ni < 64; ni++) {
		uint64_t ts;
		if (rd64(p, interp + p->off.is_threads_head, &ts))
			break;
		for (; ts && n < MAX_TIDS; n++) {
			uint64_t id = 0;
			int tid = -1;
			if (p->off.ts_native_tid != PY_NONE) {
				if (!rd64(p, ts + p->off.ts_native_tid, &id))
					tid = tid_of(m, (int)id);
			} else if (by_pthread && !rd64(p, ts + p->off.ts_thread_id, &id)) {
				int32_t t;
				if (!rd(p, id + PTHREAD_TID_OFF, &t, 4))
					tid = tid_of(m, t);
			}
			if (cb(tid, ts, ctx))
				goto done;
			if (rd64(p, ts + p->off.ts_next, &ts))
				break;
		}
		if (rd64(p, interp + p->off.is_next, &interp))
			break;
	}
done:
	free(m);
	return n;
}

int py_proc_host_tid(struct py_proc *p, int nstid)
{
	struct tidmap *m = malloc(sizeof(*m));
	if (!m)
		return -1;
	read_tids(p->pid, m);
	int tid = tid_of(m, nstid);
	free(m);
	return tid;
}

/* ---- the GIL ------------------------------------------------------------ */

int py_proc_gil(struct py_proc *p, uint64_t *gil)
{
	const struct py_offsets *o = &p->off;
	if (o->rt_gil != PY_NONE) {
		*gil = p->runtime + o->rt_gil;
		return 0;
	}
	if (o->is_gil == PY_NONE)
		return -ENOTSUP;
	/* the main interpreter is the first made, the last in the list */
	uint64_t interp, next = 0;
	if (rd64(p, p->runtime + o->rt_interp_head, &interp) || !interp)
		return -EFAULT;
	for (int n = 0; n < 64 && !rd64(p, interp + o->is_next, &next) && next; n++)
		interp = next;
	if (rd64(p, interp + o->is_gil, gil) || !*gil)
		return -EFAULT;
	return 0;
}

/* ---- threading's names -------------------------------------------------- */

#define DICT_MAX 65536			/* entries read of one dict */

/* the value of key name in the dict whose keys object is keys and whose
 * values are in the entries (values 0) or the array at values; 0 when
 * absent or unreadable */
static uint64_t keys_get(const struct py_proc *p, uint64_t keys, uint64_t values, const char *name)
{
	uint8_t head[40];
	if (rd(p, keys, head, sizeof(head)))
		return 0;
	int64_t n;
	uint64_t entries;
	size_t esize = 24, koff = 8, voff = 16;	/* {hash, key, value} */
	if (p->minor <= 10) {
		int64_t size;
		memcpy(&size, head + 8, 8);
		memcpy(&n, head + 32, 8);
		if (size <= 0 || size > (1 << 26))
			return 0;
		int ix = size <= 0xff ? 1 : size <= 0xffff ? 2 : 4;
		entries = keys + 40 + (uint64_t)size * ix;
	} else {
		memcpy(&n, head + 24, 8);
		if (head[9] > 40)
			return 0;
		entries = keys + 32 + (1ull << head[9]);
		if (head[10]) {	/* PY_DICT_KEYS_UNICODE or SPLIT: {key, value} */
			esize = 16;
			koff = 0;
			voff = 8;
		}
	}
	if (n <= 0 || n > DICT_MAX)
		return 0;
	uint8_t *e = malloc((size_t)n * esize);
	uint64_t found = 0;
	if (!e || rd(p, entries, e, (size_t)n * esize)) {
		free(e);
		return 0;
	}
	for (int64_t i = 0; i < n && !found; i++) {
		uint64_t k, v;
		memcpy(&k, e + i * esize + koff, 8);
		if (!k)
			continue;	/* a deleted entry */
		char *ks = read_str(p, k);
		if (ks && !strcmp(ks, name)) {
			if (!values)
				memcpy(&v, e + i * esize + voff, 8);
			else if (rd64(p, values + (uint64_t)i * 8, &v))
				v = 0;
			found = v;
		}
		free(ks);
	}
	free(e);
	return found;
}

static uint64_t dict_get(const struct py_proc *p, uint64_t dict, const char *name)
{
	uint64_t keys, values;
	if (rd64(p, dict + PY_DICT_KEYS, &keys) || rd64(p, dict + PY_DICT_VALUES, &values))
		return 0;
	/* a split dict's values: 3.13's array follows a header of 8 bytes */
	if (values && p->minor >= 13)
		values += 8;
	return keys_get(p, keys, values, name);
}

/* the attribute name of an instance of a Python class, from its __dict__
 * or the values kept inline (3.11+: the class's shared keys) */
static uint64_t attr_get(const struct py_proc *p, uint64_t obj, const char *name)
{
	uint64_t type, flags, v, keys;
	if (rd64(p, obj + 8, &type) || rd64(p, type + PY_TY_FLAGS, &flags))
		return 0;
	if (p->minor <= 10) {
		int64_t off;
		if (rd(p, type + PY_TY_DICTOFFSET, &off, 8) || off <= 0 || rd64(p, obj + (uint64_t)off, &v))
			return 0;
		return v ? dict_get(p, v, name) : 0;
	}
	if (!(flags & PY_TPF_MANAGED_DICT) || rd64(p, type + p->off.ty_cached_keys, &keys))
		return 0;
	if (p->minor == 11) {	/* values at obj[-4], else the dict at obj[-3] */
		if (rd64(p, obj - 32, &v))
			return 0;
		if (v)
			return keys_get(p, keys, v, name);
		return rd64(p, obj - 24, &v) || !v ? 0 : dict_get(p, v, name);
	}
	if (p->minor == 12) {	/* obj[-3]: the values - 1 (odd), or the dict */
		if (rd64(p, obj - 24, &v) || !v)
			return 0;
		return v & 1 ? keys_get(p, keys, v + 1, name) : dict_get(p, v, name);
	}
	/* 3.13: values inline after the object while valid, else the dict */
	int64_t basic;
	uint8_t vhead[8];
	if ((flags & PY_TPF_INLINE_VALUES) && !rd(p, type + PY_TY_BASICSIZE, &basic, 8) && basic > 0 &&
	    !rd(p, obj + (uint64_t)basic, vhead, sizeof(vhead)) && vhead[3])
		return keys_get(p, keys, obj + (uint64_t)basic + 8, name);
	return rd64(p, obj - 24, &v) || !v ? 0 : dict_get(p, v, name);
}

/* a small int object's value (at most two 30-bit digits), or -1 */
static int64_t read_long(const struct py_proc *p, uint64_t obj)
{
	int64_t tag;
	uint32_t d[2] = {0, 0};
	if (!obj || rd(p, obj + 16, &tag, 8))
		return -1;
	int64_t n = p->minor >= 12 ? ((tag & 3) == 1 ? 0 : (tag & 3) ? -1 : tag >> 3) : tag;
	if (n < 0 || n > 2 || (n && rd(p, obj + 24, d, (size_t)n * 4)))
		return -1;
	return (int64_t)d[0] | (int64_t)d[1] << 30;
}

int py_proc_thread_names(struct py_proc *p, int (*cb)(int tid, const char *name, void *ctx),
			 void *ctx)
{
	uint64_t interp, next = 0, modules, mod, mdict, active;
	if (rd64(p, p->runtime + p->off.rt_interp_head, &interp) || !interp)
		return -EFAULT;
	for (int n = 0; n < 64 && !rd64(p, interp + p->off.is_next, &next) && next; n++)
		interp = next;
	if (rd64(p, interp + p->off.is_modules, &modules) || !modules)
		return -EFAULT;
	if (!(mod = dict_get(p, modules, "threading")))
		return 0;
	if (rd64(p, mod + PY_MOD_DICT, &mdict) || !(active = dict_get(p, mdict, "_active")))
		return -EFAULT;
	/* _active: {ident: Thread}; its values one by one */
	uint64_t keys, values;
	uint8_t head[40];
	if (rd64(p, active + PY_DICT_KEYS, &keys) || rd64(p, active + PY_DICT_VALUES, &values) || values ||
	    rd(p, keys, head, sizeof(head)))
		return -EFAULT;
	int64_t n;
	uint64_t entries;
	if (p->minor <= 10) {
		int64_t size;
		memcpy(&size, head + 8, 8);
		memcpy(&n, head + 32, 8);
		if (size <= 0 || size > (1 << 26))
			return -EFAULT;
		entries = keys + 40 + (uint64_t)size * (size <= 0xff ? 1 : size <= 0xffff ? 2 : 4);
	} else {
		memcpy(&n, head + 24, 8);
		if (head[9] > 40 || head[10])	/* int keys: a general table */
			return -EFAULT;
		entries = keys + 32 + (1ull << head[9]);
	}
	if (n < 0 || n > MAX_TIDS)
		return -EFAULT;
	struct tidmap *m = malloc(sizeof(*m));
	if (!m)
		return -ENOMEM;
	read_tids(p->pid, m);
	int count = 0;
	for (int64_t i = 0; i < n; i++) {
		uint64_t thread;
		if (rd64(p, entries + (uint64_t)i * 24 + 16, &thread) || !thread)
			continue;
		int64_t nid = read_long(p, attr_get(p, thread, "_native_id"));
		char *name = read_str(p, attr_get(p, thread, "_name"));
		int tid = nid > 0 ? tid_of(m, (int)nid) : -1;
		int stop = tid > 0 && name ? cb(tid, name, ctx) : 0;
		count += tid > 0 && name;
		free(name);
		if (stop)
			break;
	}
	free(m);
	return count;
}

/* ---- code objects ------------------------------------------------------- */

static struct code_entry *code_slot(struct py_proc *p, uint64_t addr)
{
	size_t h = (size_t)((addr >> 4) * 0x9E3779B97F4A7C15ull >> 52) & (CODE_SLOTS - 1);
	for (size_t k = 0; k < 8; k++) {
		struct code_entry *e = &p->codes[(h + k) & (CODE_SLOTS - 1)];
		if (!e->addr || e->addr == addr)
			return e;
	}
	return &p->codes[h];	/* evict the first */
}

static int code_read(struct py_proc *p, uint64_t addr, struct code_entry *e)
{
	const struct py_offsets *o = &p->off;
	uint64_t fname, name, tab;
	int32_t first;
	if (rd64(p, addr + o->co_filename, &fname) ||
	    rd64(p, addr + (o->co_qualname != PY_NONE ? o->co_qualname : o->co_name), &name) ||
	    rd64(p, addr + o->co_linetable, &tab) || rd(p, addr + o->co_firstlineno, &first, 4))
		return -EFAULT;
	code_clear(e);
	e->file = read_str(p, fname);
	e->name = read_str(p, name);
	if (!e->file || !e->name) {
		code_clear(e);
		return -EFAULT;
	}
	e->table = read_bytes(p, tab, &e->tlen);
	e->addr = addr;
	e->filename_ptr = fname;
	e->firstlineno = first;
	return 0;
}

int py_proc_frame(struct py_proc *p, uint64_t code, uint64_t instr, struct py_frame *out)
{
	const struct py_offsets *o = &p->off;
	instr &= ~PY_INSTR_SET;
	struct code_entry *e = code_slot(p, code);
	if (e->addr == code) {
		/* still the same object? (freed and reused: another file or line) */
		uint64_t fname;
		int32_t first;
		if (!rd64(p, code + o->co_filename, &fname) && !rd(p, code + o->co_firstlineno, &first, 4) &&
		    (fname != e->filename_ptr || first != e->firstlineno))
			e->addr = 0;
	}
	if (e->addr != code && code_read(p, code, e))
		return -EFAULT;
	int64_t addr;	/* the instruction's byte offset in the bytecode */
	if (p->minor >= 11)
		addr = (int64_t)(instr - (code + o->co_code_adaptive));
	else if (p->minor == 10)
		addr = (int64_t)(int32_t)instr * 2;	/* f_lasti counts code units */
	else
		addr = (int32_t)instr;
	*out = (struct py_frame){.name = e->name, .file = e->file,
				 .line = e->table ? py_addr2line(p->minor, e->table, e->tlen,
								 e->firstlineno, addr)
						  : e->firstlineno};
	return 0;
}
_Static_assert(sizeof(struct py_bpf_offs) == PY_BPF_OFFS_SIZE, "py_procs value size");
