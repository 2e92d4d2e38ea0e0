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
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <capstone/capstone.h>

#include "host/host.h"

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
	if (cs_open(CS_ARCH_X86, CS_MODE_64, &h) != CS_ERR_OK) {
		snprintf(err, errlen, "cannot start the disassembler (capstone)");
		return -ENOMEM;
	}
	cs_insn *insn = cs_malloc(h);
	const uint8_t *p = code;
	size_t left = len;
	uint64_t at = 0, prev = 0;
	int rc = -EINVAL;
	while (cs_disasm_iter(h, &p, &left, &at, insn)) {
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
	cs_free(insn, 1);
	cs_close(&h);
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
