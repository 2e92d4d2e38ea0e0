/*
 * host_int.h - what the files of host/ share (not a public header).
 */
#ifndef SONDE_HOST_INT_H
#define SONDE_HOST_INT_H

#include <stddef.h>

#include "host/host.h"

/* The one-sentence error convention of this layer: format into err
 * (nothing when err is NULL or errlen 0).  Shared by the rs_ files and
 * usdt.c. */
void rs_set_err(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ldcache.c: the first entry of /etc/ld.so.cache whose soname is a
 * short-name match for name (rs_libname_match) and which this machine can
 * run, its path in out: 0 or -ENOENT */
int rs_ldcache_find(const char *name, char *out, size_t outlen);

/* A user binary's .BTF section (ubtf.c): dwarf.c's types and functions
 * from there when the file has no DWARF.  hubtf_open returns NULL when
 * the file has no BTF; the rest lives in the arena. */
struct arena;
struct hubtf;
struct hubtf *hubtf_open(const char *path, struct arena *a);
/* dwarf.c: a function of libdw, opened on first use (cfi.c reads call-frame
 * information through it), or NULL when libdw is not installed */
void *hdw_libdw_sym(const char *name);
const struct hdw_func *hubtf_func(struct hubtf *b, const char *name);
const struct hdw_type *hubtf_struct_named(struct hubtf *b, bool is_union, const char *name);
#ifdef _LIBDW_H
/* dwarf.c: the unit DIE holding cu's entries: for a skeleton unit of
 * split DWARF (gcc -gsplit-dwarf), the split unit libdw found in its .dwo
 * file (DW_AT_dwo_name under DW_AT_comp_dir) or in the binary's DWARF
 * package beside it (BINARY.dwp), in buf; cu itself otherwise, and when
 * neither is found (the skeleton keeps the line table and the address
 * ranges alone).  libdw must be loaded (hdw_open did). */
Dwarf_Die *hdw_unit_die(Dwarf_Die *cu, Dwarf_Die *buf);
/* dwp.c: the compile units of the DWARF package at path (BINARY.dwp),
 * each read by libdw from a .dwo of its own laid out in memory (elfutils
 * before 0.191 reads no package): *n unit DIEs in *out (in a), whose
 * sessions stay open for the run.  0, -ENOENT (none), -EINVAL (not a
 * package), -ENOSYS (no libdw), -errno. */
int hdw_dwp_units(const char *path, struct arena *a, Dwarf_Die **out, size_t *n);
#endif

#endif
