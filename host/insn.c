/*
 * insn.c - is a uprobe offset an instruction boundary?
 *
 * A uprobe replaces the byte at its address with a breakpoint.  Put inside
 * an instruction, it corrupts that instruction: the traced program then
 * crashes or computes garbage.  So `uprobe:bin:func+OFFSET` and
 * `uprobe:bin:0xADDR` are checked before attaching: the function holding
 * the address is disassembled from its first byte with capstone (x86-64
 * instructions have variable length, so only decoding from a known start
 * finds the boundaries), and the offset must land where an instruction
 * starts.  The error names the instruction the offset falls into and the
 * nearest boundaries, so the user can pick a good one.
 *
 * capstone is opened with dlopen() on first use, not linked: its tables'
 * relocations cost 3.3 MB of RSS at every start (BEGIN { exit(); } went
 * from 19.9 to 25 MB), and only a uprobe at an offset needs it.
 */
#include <dlfcn.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>

#include "host/host.h"

/* the library of the headers built against: libcapstone.so.4 */
#define CS_SONAME_(major) "libcapstone.so." #major
#define CS_SONAME(major) CS_SONAME_(major)

/* the capstone functions used here, from the library opened on first use */
static struct {
	cs_err (*open)(cs_arch, cs_mode, csh *);
	cs_insn *(*malloc)(csh);
	bool (*disasm_iter)(csh, const uint8_t **, size_t *, uint64_t *, cs_insn *);
	void (*free)(cs_insn *, size_t);
	cs_err (*close)(csh *);
	unsigned (*version)(int *, int *);
	int state;	/* 0: not tried, 1: loaded, -1: not there */
} cs;

static bool cs_load(void)
{
	if (cs.state)
		return cs.state > 0;
	cs.state = -1;
	void *h = dlopen(CS_SONAME(CS_API_MAJOR), RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return false;
	*(void **)&cs.open = dlsym(h, "cs_open");
	*(void **)&cs.malloc = dlsym(h, "cs_malloc");
	*(void **)&cs.disasm_iter = dlsym(h, "cs_disasm_iter");
	*(void **)&cs.free = dlsym(h, "cs_free");
	*(void **)&cs.close = dlsym(h, "cs_close");
	*(void **)&cs.version = dlsym(h, "cs_version");
	if (!cs.open || !cs.malloc || !cs.disasm_iter || !cs.free || !cs.close || !cs.version)
		return false;
	cs.state = 1;
	return true;
}

int insn_capstone_version(int *major, int *minor)
{
	if (!cs_load())
		return -ENOENT;
	cs.version(major, minor);
	return 0;
}

int insn_check_code(const uint8_t *code, size_t len, uint64_t off, char *err, size_t errlen)
{
	err[0] = '\0';
	if (off == 0)
		return 0;
	if (off >= len) {
		snprintf(err, errlen, "offset +%" PRIu64 " is past the end of the function (%zu bytes)",
			 off, len);
		return -ERANGE;
	}
	csh h;
	if (!cs_load() || cs.open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) {
		snprintf(err, errlen, "cannot start the disassembler (capstone)");
		return -ENOMEM;
	}
	cs_insn *insn = cs.malloc(h);
	const uint8_t *p = code;
	size_t left = len;
	uint64_t at = 0, prev = 0;
	int rc = -EINVAL;
	while (cs.disasm_iter(h, &p, &left, &at, insn)) {
		uint64_t start = insn->address, end = start + insn->size;
		if (start == off) {
			rc = 0;
			break;
		}
		if (off > start && off < end) {
			snprintf(err, errlen,
				 "offset +%" PRIu64 " is inside the instruction at +%" PRIu64
				 " (%s%s%s, %u bytes); the nearest instruction boundaries are +%" PRIu64
				 " and +%" PRIu64,
				 off, start, insn->mnemonic, insn->op_str[0] ? " " : "", insn->op_str,
				 insn->size, start, end);
			break;
		}
		prev = start;
	}
	if (rc && !err[0])
		snprintf(err, errlen,
			 "offset +%" PRIu64 " could not be checked: the code does not decode past +%" PRIu64,
			 off, prev);
	cs.free(insn, 1);
	cs.close(&h);
	return rc;
}

int insn_check_fd(int fd, uint64_t file_off, uint64_t size, uint64_t off, char *err,
		  size_t errlen)
{
	err[0] = '\0';
	if (off == 0)
		return 0;
	if (!size || size > (1u << 24)) {
		snprintf(err, errlen, "the function's size is unknown, so offset +%" PRIu64
			 " cannot be checked against its instructions", off);
		return -EINVAL;
	}
	uint8_t *code = malloc(size);
	ssize_t n = code ? pread(fd, code, size, (off_t)file_off) : -1;
	if (n != (ssize_t)size) {
		free(code);
		snprintf(err, errlen, "cannot read the function's %" PRIu64 " bytes", size);
		return -EIO;
	}
	int rc = insn_check_code(code, size, off, err, errlen);
	free(code);
	return rc;
}
