/*
 * kprobe.c - attaching kprobes and kretprobes.
 *
 * sema expanded wildcards into one attach point per function, and codegen
 * gave all of a probe's functions one program unless its body differs per
 * function.  Such a shared program attaches with one kprobe_multi link
 * (Linux 5.18 with fprobe: one registration for a thousand functions,
 * where a link each costs a perf event and a kernel probe each); a
 * program loads for either kind of link, so the choice is made before
 * loading (rt_kprobe_prepare), by asking the kernel (host/features.c).
 * Elsewhere each
 * function gets a link of its own.  A program that reads its cookie
 * (`func`, `probe`) gets a cookie per function that says both
 * (SEMA_FUNC_OF_ATTACH in sema.h).  A function that cannot be attached among several is
 * a warning, as in bpftrace: the rest of the probe runs.  A name that
 * kallsyms has more than once (a static function of two objects) gets a
 * kprobe at each address, as the kernel refuses it by name.
 */
#include "runtime/rt_int.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "common/explain.h"

/* the program of prog in the generated object */
static const struct cg_prog *cg_prog_of(struct rt *rt, const struct bpf_program *prog)
{
	for (int i = 0; i < rt->obj->nprogs; i++)
		if (!strcmp(rt->obj->progs[i].name, bpf_program__name(prog)))
			return &rt->obj->progs[i];
	return NULL;
}

/* the cookie of at in a shared program: its global attach index above
 * (probe), func's value below (the first attach point of its function,
 * so a kprobe and a kretprobe of one function are one map key) */
static uint64_t kfunc_cookie(struct rt *rt, const struct sema_attach *at)
{
	uint64_t idx = 0, first = UINT64_MAX, self = 0;
	for (int i = 0; i < rt->r->nprobes; i++)
		for (int j = 0; j < rt->r->probes[i].nattach; j++, idx++) {
			const struct sema_attach *a = &rt->r->probes[i].attach[j];
			if (a == at)
				self = idx;
			if (first == UINT64_MAX && (sema_provider(a->type)->ctx & PC_FUNC) && a->func &&
			    !strcmp(a->func, at->func))
				first = idx;
		}
	return self << 32 | (SEMA_FUNC_OF_ATTACH + (first == UINT64_MAX ? self : first));
}

/* every attach point of p a kprobe (or every one a kretprobe) on a
 * function by its name alone: what one kprobe_multi link can attach */
static bool wants_multi(const struct cg_prog *p)
{
	if (p->nattach < 2)
		return false;
	for (int j = 0; j < p->nattach; j++) {
		const struct sema_attach *at = rt_prog_attach(p, j);
		if ((at->type != PT_KPROBE && at->type != PT_KRETPROBE) ||
		    at->type != rt_prog_attach(p, 0)->type || at->offset || at->target)
			return false;
	}
	return true;
}

void rt_kprobe_prepare(struct rt *rt)
{
	if (getenv("SONDE_NO_KPROBE_MULTI"))
		return;
	int known = -1;	/* the kernel is asked only when a program wants it */
	for (int i = 0; i < rt->obj->nprogs; i++) {
		const struct cg_prog *p = &rt->obj->progs[i];
		struct bpf_program *prog = bpf_object__find_program_by_name(rt->bpf, p->name);
		if (!prog || !wants_multi(p))
			continue;
		if (known < 0)
			known = host_feature_answer(HF_KPROBE_MULTI) == HF_YES;
		if (known)
			bpf_program__set_expected_attach_type(prog, BPF_TRACE_KPROBE_MULTI);
	}
	if (known >= 0 && rt->o->verbose)
		fprintf(stderr, "sonde: kprobe_multi links: %s\n",
			known ? "yes" : "no (a link per function)");
}

static bool is_multi(const struct bpf_program *prog)
{
	return bpf_program__expected_attach_type(prog) == BPF_TRACE_KPROBE_MULTI;
}

/* the whole program's functions in one link, when its first attach
 * point comes; the others only count */
static int attach_multi(struct rt *rt, struct bpf_program *prog, const struct cg_prog *p,
			const struct sema_attach *at, int *count)
{
	if (at != rt_prog_attach(p, 0)) {
		(*count)++;
		return 0;
	}
	const char **syms = calloc((size_t)p->nattach, sizeof(*syms));
	__u64 *cookies = calloc((size_t)p->nattach, sizeof(*cookies));
	struct bpf_link *l = NULL;
	errno = ENOMEM;
	if (syms && cookies) {
		for (int j = 0; j < p->nattach; j++) {
			syms[j] = rt_prog_attach(p, j)->func;
			cookies[j] = kfunc_cookie(rt, rt_prog_attach(p, j));
		}
		LIBBPF_OPTS(bpf_kprobe_multi_opts, ko, .syms = syms, .cnt = (size_t)p->nattach,
			    .cookies = p->reads_cookie ? cookies : NULL,
			    .retprobe = at->type == PT_KRETPROBE);
		l = bpf_program__attach_kprobe_multi_opts(prog, NULL, &ko);
	}
	int err = l ? 0 : -errno;
	free(syms);
	free(cookies);
	if (err) {
		fprintf(stderr, "sonde: %s: cannot attach %d functions with one kprobe_multi link: "
			"%s\n", p->probe->attach[0].name, p->nattach, strerror(-err));
		return err;
	}
	if (rt->o->verbose)
		fprintf(stderr, "sonde: %s...: %d functions share one kprobe_multi link\n", at->name,
			p->nattach);
	rt_add_link(rt, l);
	(*count)++;
	return 0;
}

/* a name kallsyms has more than once, which the kernel refuses to probe
 * by name since Linux 6.7 (EADDRNOTAVAIL: a static function of two
 * objects, binfmt_elf's and compat_binfmt_elf's load_elf_binary): a
 * kprobe at the address of each.  0, or the error of the first refused */
static int attach_each_copy(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
			    uint64_t cookie)
{
	uint64_t addrs[16];
	struct ksyms *ks = rt_kernel_syms(rt);
	if (!ks)
		return -EADDRNOTAVAIL;
	size_t n = ksyms_find_all(ks, at->func, addrs, 16);
	if (n < 2 || n > 16)
		return -EADDRNOTAVAIL;
	for (size_t i = 0; i < n; i++) {
		LIBBPF_OPTS(bpf_kprobe_opts, ko, .retprobe = at->type == PT_KRETPROBE,
			    .offset = (size_t)(addrs[i] + at->offset), .bpf_cookie = cookie);
		struct bpf_link *l = bpf_program__attach_kprobe_opts(prog, NULL, &ko);
		if (!l)
			return -errno;
		rt_add_link(rt, l);
	}
	if (rt->o->verbose)
		fprintf(stderr, "sonde: %s: %zu kernel functions of this name, a probe on each\n",
			at->name, n);
	return 0;
}

int rt_attach_kprobe(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
		     int *count)
{
	const struct cg_prog *p = cg_prog_of(rt, prog);
	if (p && is_multi(prog))
		return attach_multi(rt, prog, p, at, count);
	bool cookie = p && p->reads_cookie;
	LIBBPF_OPTS(bpf_kprobe_opts, ko, .retprobe = at->type == PT_KRETPROBE,
		    .offset = (size_t)at->offset,
		    .bpf_cookie = cookie ? kfunc_cookie(rt, at) : 0);
	/* a module's function as the kernel's kallsyms names it */
	char name[512];
	snprintf(name, sizeof(name), "%s%s%s", at->target ? at->target : "", at->target ? ":" : "",
		 at->func);
	struct bpf_link *l = bpf_program__attach_kprobe_opts(prog, name, &ko);
	if (l) {
		rt_add_link(rt, l);
		(*count)++;
		return 0;
	}
	int err = -errno;
	if (err == -EADDRNOTAVAIL && !at->target &&
	    !(err = attach_each_copy(rt, prog, at, ko.bpf_cookie))) {
		(*count)++;
		return 0;
	}
	const char *why = err == -ENOENT ? "no such kernel function" : strerror(-err);
	/* one of several functions of the probe: the rest runs */
	if (p && p->probe->nattach > 1) {
		diag_warnf("%s: cannot attach (%s): skipped\n", at->name, why);
		return 0;
	}
	if (err == -ENOENT || err == -EINVAL) {
		/* inlined, renamed (foo.isra.0), notrace: S0201 says which to try */
		const struct explain *x = explain_get(EX_KFUNC);
		fprintf(stderr, "sonde: %s: %s: '%s' %s (%s) [%s]\n", at->name, x->summary, name,
			err == -ENOENT ? "is no function of this kernel that kprobes can reach (inlined "
					 "into its callers, or renamed: sonde -l 'kprobe:NAME*')"
				       : "is notrace or otherwise refused", strerror(-err), x->code);
		explain_note(stderr, x, true);
		if (err == -EINVAL && cookie)
			fprintf(stderr, "note: func and probe here need BPF cookies (Linux 5.15)\n");
		return err;
	}
	if (cookie && err == -EOPNOTSUPP)
		fprintf(stderr, "sonde: %s: cannot attach: %s (func and probe here need BPF cookies, "
			"Linux 5.15)\n", at->name, strerror(-err));
	else
		fprintf(stderr, "sonde: %s: cannot attach: %s\n", at->name, strerror(-err));
	return err;
}
