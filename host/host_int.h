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
const struct hdw_func *hubtf_func(struct hubtf *b, const char *name);
const struct hdw_type *hubtf_struct_named(struct hubtf *b, bool is_union, const char *name);

#endif
