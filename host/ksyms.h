/*
 * ksyms.h - kernel symbols from /proc/kallsyms, for ksym() and kstack.
 *
 * Text symbols (t T w W) answer address lookups for stacks, data symbols
 * too for ksym(); ksyms_find knows
 * every symbol, for kaddr().  Loading costs one read of /proc/kallsyms
 * (~50 ms of kernel time for 120k symbols), so callers load it lazily,
 * when a script first prints a kernel symbol, and keep it.
 */
#ifndef SONDE_HOST_KSYMS_H
#define SONDE_HOST_KSYMS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct arena;

struct ksyms;

/* Read /proc/kallsyms.  NULL with errno set on failure: EPERM when
 * kptr_restrict hides the addresses (all read as zero), ENOENT when the
 * file lists no symbol, or the error from reading it. */
struct ksyms *ksyms_load(void);
/* The same from kallsyms text ("ADDR TYPE NAME[\t[MODULE]]" lines); the
 * text is copied, not kept. */
struct ksyms *ksyms_parse(const char *text, size_t len);
void ksyms_free(struct ksyms *ks);

/* The text symbol containing addr: the nearest one at or below it (the
 * first in file order when several share an address), with addr minus its
 * start in *offset when offset is not NULL.  NULL below the first symbol. */
const char *ksyms_lookup(const struct ksyms *ks, uint64_t addr,
			 uint64_t *offset);
/* The same among text and data symbols (d D b B r R): ksym() of a
 * variable's address names the variable. */
const char *ksyms_lookup_any(const struct ksyms *ks, uint64_t addr, uint64_t *offset);
/* Address of the symbol called name, text symbols first, then the first
 * other one in file order.  0 or -ENOENT. */
int ksyms_find(const struct ksyms *ks, const char *name, uint64_t *addr);
/* The addresses of every text symbol called name, in address order (a
 * static function can have several: load_elf_binary of binfmt_elf and
 * of its compat copy), the first max of them in addrs; returns how many
 * there are. */
size_t ksyms_find_all(const struct ksyms *ks, const char *name, uint64_t *addrs, size_t max);
/* Number of text symbols (lookups answer from these). */
size_t ksyms_count(const struct ksyms *ks);
/* Number of the kernel's data symbols (d D b B r R): tens of thousands,
 * or a few dozen section markers in a kernel built without
 * CONFIG_KALLSYMS_ALL, whose variables kallsyms does not list. */
size_t ksyms_data_count(const struct ksyms *ks);

#endif
