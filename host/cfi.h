/*
 * cfi.h - a file's call-frame information as unwind rows (cfi.c), for the
 * BPF stack walker (host/cfi_abi.h has the row format it shares).
 */
#ifndef SONDE_CFI_H
#define SONDE_CFI_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "host/cfi_abi.h"

#define HCFI_MAX_LOADS 16
/* A file's CFI is its owner's to write (any process's mapping): what
 * building its rows may cost is capped.  Rows: no more than the walker's
 * whole budget holds.  Work: libdw runs an FDE's CFA program from its
 * start for each row it asks for, so an FDE of n rows costs about n^2/2
 * instruction steps; the steps a file may cost are capped (libLLVM-16,
 * 1.05 M rows: 8.7 M steps, 0.9 M lookups, about 1 s; a crafted FDE of
 * 100,000 rows would be 5,000 M).  Past either, hcfi_build says -E2BIG. */
#define HCFI_MAX_ROWS (UNW_ROW_BYTES / sizeof(struct unw_row))
#define HCFI_MAX_STEPS (16ull * HCFI_MAX_ROWS)

struct hcfi_rows {
	struct unw_row *rows;	/* sorted by pc; malloc'd */
	uint32_t n;
	uint32_t nfde;		/* FDEs read */
	uint32_t unsupported;	/* rows whose rule the walker does not apply (UNW_UNSUP) */
	const char *source;	/* ".eh_frame" or ".debug_frame" */
	/* the file's PT_LOAD segments, for a mapping's bias */
	struct { uint64_t offset, vaddr, memsz; uint32_t flags; } loads[HCFI_MAX_LOADS];
	int nloads;
};

/* Build the rows of the ELF file open at fd from its .eh_frame (through
 * .eh_frame_hdr's table of FDEs), else its .debug_frame, else that of its
 * separate debug file (by build-id, under /usr/lib/debug).  0, or -errno
 * with one sentence in err: -ENOSYS without libdw, -ENOENT when the file
 * has no CFI (a rows-less result is still filled: its loads give biases). */
int hcfi_build(int fd, struct hcfi_rows *out, char *err, size_t errlen);
/* the same, looking for a separate debug file (by build-id) under
 * debug_dir rather than /usr/lib/debug */
int hcfi_build_in(int fd, const char *debug_dir, struct hcfi_rows *out, char *err, size_t errlen);
/* hcfi_build, given up (-ECANCELED) once *stop is set: sonde's end does
 * not wait for a large file's rows */
int hcfi_build_until(int fd, const atomic_bool *stop, struct hcfi_rows *out, char *err,
		     size_t errlen);
void hcfi_free(struct hcfi_rows *r);

/* p_vaddr - p_offset of the file's (first) executable segment: an address
 * in a mapping at start with file offset pgoff is the file's address
 * address - start + pgoff + delta.  -ENOENT when it has none. */
int hcfi_exec_delta(const struct hcfi_rows *r, int64_t *delta);

/* The rule of one frame state, from libdw's description of it (exposed
 * for the unit test).  cfa: the CFA expression; ra, rbp: the register
 * rules as dwarf_frame_register gives them (nops 0 with ops NULL: same
 * value; nops 0 with ops non-NULL: undefined). */
struct hcfi_op { uint8_t atom; uint64_t number, number2; };
void hcfi_classify(const struct hcfi_op *cfa, size_t ncfa, const struct hcfi_op *ra, size_t nra,
		   bool ra_undefined, const struct hcfi_op *rbp, size_t nrbp, struct unw_row *out);

#endif
