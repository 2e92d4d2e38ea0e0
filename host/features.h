/*
 * features.h - kernel features (features.c).
 */
#ifndef SONDE_HOST_FEATURES_H
#define SONDE_HOST_FEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct arena;

/* BPF features that came in later kernels, each asked of the running
 * kernel by loading a tiny program on first use (never by its version) */
enum host_feature {
	HF_BTF,			/* /sys/kernel/btf/vmlinux loads */
	HF_RINGBUF,		/* BPF_MAP_TYPE_RINGBUF (5.8) */
	HF_COOKIE,		/* bpf_get_attach_cookie (5.15) */
	HF_PERCPU_LOOKUP,	/* bpf_map_lookup_percpu_elem (5.19) */
	HF_UPROBE_MULTI,	/* BPF_TRACE_UPROBE_MULTI links (6.6) */
	HF_KPROBE_MULTI,	/* BPF_TRACE_KPROBE_MULTI links (5.18) */
	HF_FENTRY,		/* fentry/fexit attach (5.5) */
	HF_OVERRIDE_RETURN,	/* bpf_override_return in kprobes */
	HF_D_PATH,		/* bpf_d_path in fentry */
	HF_ANCESTOR_CGROUP,	/* bpf_get_current_ancestor_cgroup_id in kprobe programs */
	HF_FOR_EACH,		/* bpf_for_each_map_elem (5.13): for ($kv : @m) */
	HF_LOOP,		/* bpf_loop (5.17): for ($i : a..b) */
	HF_BIG_KEYS,		/* hash map keys over 512 bytes (5.11) */
	HF_ATOMIC_FETCH,	/* atomic add that returns the old value (5.12) */
	HF_TASK_REGS,		/* bpf_task_pt_regs (5.15): a task's user registers anywhere */
	HF_LOOKUP_DELETE,	/* BPF_MAP_LOOKUP_AND_DELETE_BATCH on hash maps (5.6) */
	HF_SKB_OUTPUT,		/* bpf_skb_output in a tp_btf program (5.5): skboutput() */
	HF__COUNT
};
enum host_answer { HF_NO, HF_YES, HF_UNKNOWN };

/* the kernel's answer (HF_UNKNOWN: it would not say, e.g. no privilege);
 * SONDE_NO_FEATURES=name,... answers HF_NO for the named rows */
enum host_answer host_feature_answer(enum host_feature f);
/* false only when the kernel said no */
bool host_feature(enum host_feature f);
const char *host_feature_name(enum host_feature f);	/* "percpu_lookup" */
const char *host_feature_what(enum host_feature f);	/* "bpf_map_lookup_percpu_elem" */
const char *host_feature_since(enum host_feature f);	/* "5.19": the mainline release */
/* may a program of libbpf's section kind ("kprobe", "tracepoint",
 * "raw_tp", "perf_event", "fentry" ...) call the kernel's kfunc name?  One
 * program calling it is loaded: the verifier's "is not allowed" is a no,
 * any other verdict a yes (it got past the kfunc's per-type ID sets).  A
 * name BTF does not declare as a function is a no. */
enum host_answer host_kfunc_allowed(const char *name, const char *section);

/* a BPF_TRACE_UPROBE_MULTI link (BPF_LINK_CREATE, which libbpf 1.1 does
 * not know) for n offsets of path, a cookie each (cookies may be NULL),
 * for pid only when pid > 0; a link fd or -errno */
#define HOST_UMULTI_ATTACH_TYPE 48	/* BPF_TRACE_UPROBE_MULTI */
int host_umulti_link(int prog_fd, const char *path, const uint64_t *offsets,
		     const uint64_t *cookies, uint32_t n, int pid, bool retprobe);

#endif
