/*
 * kfuncs.h - kernel functions (kfuncs.c).
 */
#ifndef SONDE_HOST_KFUNCS_H
#define SONDE_HOST_KFUNCS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct arena;

/* One function of available_filter_functions; module NULL for vmlinux's. */
struct kfn {
	const char *name;
	const char *module;
};

/* Every function, sorted by name (then module; duplicates dropped),
 * loaded once; 0 or -errno (the file missing or unreadable). */
int kfn_load(const struct kfn **funcs, size_t *n);
/* The entry of name (in module, when not NULL), or NULL. */
const struct kfn *kfn_find(const char *module, const char *name);
/* Is module the name of a module that has traceable functions? */
bool kfn_is_module(const char *module);
/* Why name must not be probed, NULL when it may: bpftrace's banned list
 * for return probes (ret), and with kprobe the kernel's kprobe
 * blacklist.  The text follows the probe's name ("kretprobe:f can't..."). */
const char *kfn_refusal(const char *name, bool ret, bool kprobe);
/* The file read for the functions; tests point both files elsewhere
 * (NULL: the real ones again). */
const char *kfn_funcs_path(void);
void kfn_set_paths(const char *funcs, const char *blacklist);

#endif
