/*
 * btf.h - the kernel's BTF (btf.c).
 */
#ifndef SONDE_HOST_BTF_H
#define SONDE_HOST_BTF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct arena;

struct btf;

/* the running kernel's BTF (/sys/kernel/btf/vmlinux, libbpf's BTF API),
 * loaded on first use and kept; NULL (errno set) when the kernel has none */
const struct btf *host_kernel_btf(void);
/* the arguments raw tracepoint `name` passes (its btf_trace_NAME
 * prototype, less the leading void *), or -1 when BTF does not say */
int host_raw_tp_nargs(const char *name);
/* a module's BTF (/sys/kernel/btf/MODULE, split on the kernel's), kept;
 * the kernel's for NULL or "vmlinux"; NULL (errno set) when none */
const struct btf *host_module_btf(const char *module);
/* the BTF id of function fn in b (a module's BTF: its base's first), as
 * btf__find_by_name_kind(b, fn, BTF_KIND_FUNC) answers, from an index
 * built once per BTF; -ENOENT when there is none */
int32_t host_btf_func_id(const struct btf *b, const char *fn);
/* the byte offset of member `member` (a direct one) of struct `sname` in
 * the kernel's BTF; -ENOENT when there is none */
int64_t host_btf_member_offset(const char *sname, const char *member);
/* -lv of a kernel function: a line "    TYPE NAME" per parameter and
 * "    TYPE retval" unless it returns void, as bpftrace prints them;
 * 0, or -ENOENT when b has no function fn */
int host_btf_func_proto(const struct btf *b, const char *fn, FILE *out);
/* -lv of a kprobe (ret: kretprobe): "    TYPE argN" a parameter (floats
 * left out), or "    TYPE retval" / "    void", as the newest bpftrace */
int host_btf_kprobe_proto(const struct btf *b, const char *fn, bool ret, FILE *out);
/* the BTF id of per-CPU kernel variable `name` (a VAR of the kernel's
 * .data..percpu section), or -ENOENT */
int host_btf_percpu_var(const char *name);
/* raw tracepoints: the BTF function that names raw tracepoint name's
 * parameters (__probestub_NAME, else __traceiter_NAME, whose first
 * parameter is the probe's data, not the tracepoint's) into buf, or NULL */
const char *host_raw_tp_func(const struct btf *b, const char *name, char *buf, size_t len);
/* -lv 'struct NAME' (union, enum): the kernel type's definition as C,
 * one member a line, as bpftrace lists it; 0, or -ENOENT when the
 * kernel's BTF has no such type */
int host_btf_type_decl(const char *decl, FILE *out);
/* -lv rawtracepoint:NAME: "    TYPE NAME" per argument; 0 or -ENOENT */
int host_btf_raw_tp_proto(const struct btf *b, const char *name, FILE *out);
/* each raw tracepoint whose name matches glob, of vmlinux and then of
 * each module with BTF (by name) whose name matches module_glob (NULL:
 * all), sorted by name within one; stops at cb's first non-zero result
 * and returns it; 0, or -errno when the kernel has no BTF */
typedef int (*host_raw_tp_cb)(const char *module, const char *name, void *ctx);
int host_raw_tp_each(const char *module_glob, const char *glob, host_raw_tp_cb cb, void *ctx);

#endif
