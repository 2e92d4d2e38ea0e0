/*
 * kprobe.c - attaching kprobes and kretprobes.
 *
 * sema expanded wildcards into one attach point per function, and codegen
 * gave all of a probe's functions one program unless its body differs per
 * function.  Such a shared program attaches with one kprobe_multi link
 * (Linux 5.18 with fprobe: one registration for a thousand functions,
 * where a link each costs a perf event and a kernel probe each); a
 * program loads for either kind of link, so the choice is made before
 * loading (rt_kprobe_prepare), by asking the kernel.  Elsewhere each
 * function gets a link of its own.  A program that reads its cookie
 * (`func`, `probe`) gets SEMA_FUNC_BASE + the attach point's index as each
 * function's cookie.  A function that cannot be attached among several is
 * a warning, as in bpftrace: the rest of the probe runs.
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* the program of prog in the generated object */
static const struct cg_prog *cg_prog_of(struct rt *rt, const struct bpf_program *prog)
{
	for (int i = 0; i < rt->obj->nprogs; i++)
		if (!strcmp(rt->obj->progs[i].name, bpf_program__name(prog)))
			return &rt->obj->progs[i];
	return NULL;
}

static uint64_t attach_index(struct rt *rt, const struct sema_attach *at)
{
	uint64_t idx = 0;
	for (int i = 0; i < rt->r->nprobes; i++)
		for (int j = 0; j < rt->r->probes[i].nattach; j++, idx++)
			if (&rt->r->probes[i].attach[j] == at)
				return idx;
	return 0;
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

/* Does this kernel have kprobe_multi links?  A two-instruction program
 * loaded for them, linked to fn (a function the script probes anyway);
 * a kernel without fprobe refuses the link (EOPNOTSUPP), an older one
 * the attach type. */
static bool probe_kernel(const char *fn)
{
	struct bpf_insn insns[2];
	memset(insns, 0, sizeof(insns));
	insns[0].code = BPF_ALU64 | BPF_MOV | BPF_K;	/* r0 = 0 */
	insns[1].code = BPF_JMP | BPF_EXIT;
	LIBBPF_OPTS(bpf_prog_load_opts, po, .expected_attach_type = BPF_TRACE_KPROBE_MULTI);
	int pfd = bpf_prog_load(BPF_PROG_TYPE_KPROBE, "sonde_kmulti", "GPL", insns, 2, &po);
	if (pfd < 0)
		return false;
	const char *syms[] = {fn};
	LIBBPF_OPTS(bpf_link_create_opts, lo, .kprobe_multi.syms = syms, .kprobe_multi.cnt = 1);
	int lfd = bpf_link_create(pfd, 0, BPF_TRACE_KPROBE_MULTI, &lo);
	close(pfd);
	if (lfd < 0)
		return false;
	close(lfd);
	return true;
}

void rt_kprobe_prepare(struct rt *rt)
{
	if (getenv("SONDE_NO_KPROBE_MULTI"))
		return;
	int known = -1;
	for (int i = 0; i < rt->obj->nprogs; i++) {
		const struct cg_prog *p = &rt->obj->progs[i];
		struct bpf_program *prog = bpf_object__find_program_by_name(rt->bpf, p->name);
		if (!prog || !wants_multi(p))
			continue;
		if (known < 0)
			known = probe_kernel(rt_prog_attach(p, 0)->func);
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
			cookies[j] = SEMA_FUNC_BASE + attach_index(rt, rt_prog_attach(p, j));
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

int rt_attach_kprobe(struct rt *rt, struct bpf_program *prog, const struct sema_attach *at,
		     int *count)
{
	const struct cg_prog *p = cg_prog_of(rt, prog);
	if (p && is_multi(prog))
		return attach_multi(rt, prog, p, at, count);
	bool cookie = p && p->reads_cookie;
	LIBBPF_OPTS(bpf_kprobe_opts, ko, .retprobe = at->type == PT_KRETPROBE,
		    .offset = (size_t)at->offset,
		    .bpf_cookie = cookie ? SEMA_FUNC_BASE + attach_index(rt, at) : 0);
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
	const char *why = err == -ENOENT ? "no such kernel function" : strerror(-err);
	/* one of several functions of the probe: the rest runs */
	if (p && p->probe->nattach > 1) {
		fprintf(stderr, "sonde: warning: %s: cannot attach (%s): skipped\n", at->name, why);
		return 0;
	}
	if (err == -ENOENT)
		fprintf(stderr, "sonde: %s: no kernel function '%s' can be probed\n", at->name, name);
	else if (cookie && (err == -EINVAL || err == -EOPNOTSUPP))
		fprintf(stderr, "sonde: %s: cannot attach: %s (func and probe here need BPF cookies, "
			"Linux 5.15)\n", at->name, strerror(-err));
	else
		fprintf(stderr, "sonde: %s: cannot attach: %s\n", at->name, strerror(-err));
	return err;
}
