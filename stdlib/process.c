/*
 * process.c - builtins about the current task: pid, tid, comm, uid,
 * cgroup, cpu, and the probe's own context: args, arg0..arg11, retval,
 * func, probe.
 */
#include <stdlib.h>
#include <string.h>

#include "codegen/codegen.h"
#include "common/explain.h"
#include "host/host.h"
#include "stdlib/stdlib.h"
#include "stdlib/stdlib_int.h"

static LLVMValueRef pid_tgid(struct cg_ctx *cg)
{
	return cg_helper_call(cg, BPF_FUNC_get_current_pid_tgid, NULL, 0);
}

static LLVMValueRef lower_pid(struct cg_ctx *cg, struct ast_node *n)
{
	return LLVMBuildLShr(cg_builder(cg), pid_tgid(cg), cg_const(cg, 32), "pid");
}

static LLVMValueRef lower_tid(struct cg_ctx *cg, struct ast_node *n)
{
	return LLVMBuildAnd(cg_builder(cg), pid_tgid(cg), cg_const(cg, 0xffffffff), "tid");
}

/*
 * pid(init), pid(curr_ns), tid(...): the ids as the initial PID namespace
 * or sonde's own sees them (the newest bpftrace's call forms; pid() and
 * plain pid are the initial namespace's here, as in 0.17: where sonde runs
 * in the initial namespace, the two are one).  curr_ns in another
 * namespace reads bpf_get_ns_current_pid_tgid (Linux 5.7) with sonde's
 * namespace's device and inode: 0 for a task outside it.
 */
static void check_pid_ns(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	n->type = ty_uint64;
	if (a->kind != N_IDENT || (strcmp(a->ident.name, "init") && strcmp(a->ident.name, "curr_ns"))) {
		sema_error(s, a->loc, "%s() takes the namespace to see it from: %s(init) for the initial "
			   "PID namespace, %s(curr_ns) for sonde's own", n->call.name, n->call.name,
			   n->call.name);
		n->type.kind = TY_ERROR;
		return;
	}
	a->type = ty_void;	/* a word, not a value */
}

LLVMValueRef stdlib_own_ns_id(struct cg_ctx *cg, bool want_pid)
{
	uint64_t dev, ino;
	if (!rs_pidns_self(&dev, &ino) || ino == RS_PIDNS_INIT_INO)
		return want_pid ? lower_pid(cg, NULL) : lower_tid(cg, NULL);
	/* struct bpf_pidns_info { u32 pid; u32 tgid; }, zeroed on failure */
	LLVMValueRef info = cg_alloca(cg, 8, "pidns");
	LLVMValueRef args[] = {cg_const(cg, dev), cg_const(cg, ino), info, LLVMConstInt(cg_i32(cg), 8, 0)};
	cg_helper_call(cg, BPF_FUNC_get_ns_current_pid_tgid, args, 4);
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef v = LLVMBuildLoad2(b, cg_i32(cg), cg_gep(cg, info, want_pid ? 4 : 0), "");
	return LLVMBuildZExt(b, v, cg_i64(cg), want_pid ? "pid" : "tid");
}

static LLVMValueRef lower_pid_ns(struct cg_ctx *cg, struct ast_node *n)
{
	bool is_pid = n->call.name[0] == 'p';
	if (!strcmp(n->call.args->ident.name, "init"))
		return is_pid ? lower_pid(cg, n) : lower_tid(cg, n);
	return stdlib_own_ns_id(cg, is_pid);
}

static LLVMValueRef lower_uid(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMValueRef v = cg_helper_call(cg, BPF_FUNC_get_current_uid_gid, NULL, 0);
	return LLVMBuildAnd(cg_builder(cg), v, cg_const(cg, 0xffffffff), "uid");
}

static LLVMValueRef lower_gid(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMValueRef v = cg_helper_call(cg, BPF_FUNC_get_current_uid_gid, NULL, 0);
	return LLVMBuildLShr(cg_builder(cg), v, cg_const(cg, 32), "gid");
}

/* bpf_get_current_comm() copies the name; the rest of the buffer is
 * zeroed by 5.10 (strncpy) and 6.12 but not by 6.1 (strscpy), so a map
 * key holding comm is zeroed first (no into_fills): in the 6.1 test VM
 * @[comm] = count() printed one key per event, each with other stack
 * bytes after the name */
static void comm_into(struct cg_ctx *cg, struct ast_node *n, LLVMValueRef dst, uint32_t size)
{
	LLVMValueRef args[] = {dst, LLVMConstInt(cg_i32(cg), size < 16 ? size : 16, 0)};
	cg_helper_call(cg, BPF_FUNC_get_current_comm, args, 2);
}

static LLVMValueRef lower_comm(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMValueRef buf = cg_alloca(cg, 16, "comm");
	comm_into(cg, n, buf, 16);
	return buf;
}

static LLVMValueRef lower_nsecs(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_helper_call(cg, BPF_FUNC_ktime_get_ns, NULL, 0);
}

static LLVMValueRef lower_elapsed(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMValueRef now = cg_helper_call(cg, BPF_FUNC_ktime_get_ns, NULL, 0);
	return LLVMBuildSub(cg_builder(cg), now, cg_const(cg, cg_options(cg)->start_ns), "elapsed");
}

static LLVMValueRef lower_cpu(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_helper_call(cg, BPF_FUNC_get_smp_processor_id, NULL, 0);
}

/* the NUMA node of the CPU the probe runs on (0 on a single-node host) */
static LLVMValueRef lower_numaid(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_helper_call(cg, BPF_FUNC_get_numa_node_id, NULL, 0);
}

static LLVMValueRef lower_cgroup(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_helper_call(cg, BPF_FUNC_get_current_cgroup_id, NULL, 0);
}

static LLVMValueRef lower_rand(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_helper_call(cg, BPF_FUNC_get_prandom_u32, NULL, 0);
}

/* probes on kernel functions: func is the function's name */
static bool is_kfunc_probe(enum probe_type t)
{
	return t == PT_KPROBE || t == PT_KRETPROBE || t == PT_FENTRY || t == PT_FEXIT;
}

/* probe: the global attach index, a constant in a program of its own.
 * A kprobe program serves every function of its probe (one
 * kprobe_multi link), and reads the index back from its cookie. */
static bool has_wildcard(const char *s);

/* probe: the attach point's name.  A wildcard uprobe becomes one attach
 * point per function it matches (sema_expand_func_sites), so that probe
 * names the function that fired, as bpftrace prints it
 * (uprobe:./prog:uprobeFunction1), not the pattern */
static void check_probe(struct sema_ctx *s, struct ast_node *n)
{
	const struct sema_probe *p = sema_cur_probe(s);
	for (int i = 0; i < p->nattach; i++) {
		enum probe_type t = p->attach[i].type;
		if ((t == PT_UPROBE || t == PT_URETPROBE) && has_wildcard(p->attach[i].func))
			sema_need_func_sites(s);
		if (!is_kfunc_probe(t) || !host_feature(HF_COOKIE))
			sema_need_per_attach(s);
	}
	n->type = (struct type){.kind = TY_PROBE, .size = 8};
}

static uint64_t attach_index(struct cg_ctx *cg);

/* `probe` where a string is read (strcontains(probe, "f2")): the attach
 * point's name as a string, each attach point a program of its own that
 * holds its name (a wildcard uprobe: one per function, sema_need_func_sites) */
void stdlib_probe_as_string(struct sema_ctx *s, struct ast_node *a)
{
	if (a->type.kind != TY_PROBE)
		return;
	sema_need_per_attach(s);
	a->type = (struct type){.kind = TY_STR, .size = STDLIB_PROBE_STR};
}

/* the global attach index: probes before this one, plus this attach's slot */
static LLVMValueRef lower_probe(struct cg_ctx *cg, struct ast_node *n)
{
	if (n->type.kind == TY_STR) {	/* stdlib_probe_as_string */
		const char *name = cg_attach(cg)->name;
		return cg_const_bytes(cg, name, (uint32_t)strlen(name), n->type.size);
	}
	/* a shared kernel-function program: the cookie's high half */
	if (is_kfunc_probe(cg_attach(cg)->type) && cg_shared_program(cg))
		return LLVMBuildLShr(cg_builder(cg), cg_attach_cookie(cg), cg_const(cg, 32), "");
	return cg_const(cg, attach_index(cg));
}

/* x86-64 struct pt_regs offsets */
static const uint32_t arg_regs[] = {112, 104, 96, 88, 72, 64};	/* di si dx cx r8 r9 */
enum { REG_AX = 80, REG_IP = 128, REG_SP = 152 };

static void check_argN(struct sema_ctx *s, struct ast_node *n)
{
	const struct sema_probe *p = sema_cur_probe(s);
	for (int i = 0; i < p->nattach; i++) {
		enum probe_type t = p->attach[i].type;
		if (!(sema_provider(t)->ctx & PC_ARGN)) {
			sema_error(s, n->loc, "%s is not available in %s probes (use args->FIELD in tracepoints)",
				   n->ident.name, sema_probe_type_name(t));
			n->type.kind = TY_ERROR;
			return;
		}
		/* rawtracepoint: the kernel refuses a read past the arguments
		 * the tracepoint passes, but only when it attaches */
		int nargs = t != PT_RAWTRACEPOINT ? -1 : p->attach[i].kf ? p->attach[i].kf->nargs
			    : host_raw_tp_nargs(p->attach[i].func);
		if (nargs >= 0 && atoi(n->ident.name + 3) >= nargs) {
			char range[32] = "none";
			if (nargs)
				snprintf(range, sizeof(range), "arg0%s%.*d", nargs > 1 ? " to arg" : "",
					 nargs > 1, nargs - 1);
			sema_error(s, n->loc, "%s: raw tracepoint '%s' passes %d argument%s (%s): %s "
				   "[%s]", n->ident.name, p->attach[i].func, nargs, nargs == 1 ? "" : "s",
				   range, explain_get(EX_MEMORY)->summary, explain_get(EX_MEMORY)->code);
			n->type.kind = TY_ERROR;
			return;
		}
		/* usdt: where each location keeps its arguments (stdlib/usdt.c) */
		if (t == PT_USDT && !stdlib_usdt_check_arg(s, n, atoi(n->ident.name + 3))) {
			n->type.kind = TY_ERROR;
			return;
		}
	}
	n->type = ty_uint64;
}

static LLVMValueRef lower_argN(struct cg_ctx *cg, struct ast_node *n)
{
	int i = atoi(n->ident.name + 3);
	if (cg_attach(cg)->type == PT_USDT)
		return stdlib_usdt_arg(cg, i);
	if (cg_attach(cg)->type == PT_RAWTRACEPOINT)
		return cg_load_i64(cg, cg_gep(cg, cg_ctx_arg(cg), 8 * (uint32_t)i));
	if (i < 6)
		return cg_load_i64(cg, cg_gep(cg, cg_ctx_arg(cg), arg_regs[i]));
	/* arguments 7.. are on the stack above the return address */
	LLVMValueRef sp = cg_load_i64(cg, cg_gep(cg, cg_ctx_arg(cg), REG_SP));
	LLVMValueRef addr = LLVMBuildAdd(cg_builder(cg), sp, cg_const(cg, 8 * (uint64_t)(i - 5)), "");
	LLVMValueRef tmp = cg_alloca(cg, 8, "stackarg");
	cg_probe_read(cg, tmp, 8, addr, cg_attach(cg)->type != PT_KPROBE, 0);
	return cg_load_i64(cg, tmp);
}

/* sargN: the Nth 8-byte word on the stack above the return address
 * (arguments passed on the stack, as Go before 1.17 passes all of them),
 * at function entry: uprobes and kprobes */
static void check_sargN(struct sema_ctx *s, struct ast_node *n)
{
	const struct sema_probe *p = sema_cur_probe(s);
	for (int i = 0; i < p->nattach; i++) {
		enum probe_type t = p->attach[i].type;
		if (t != PT_UPROBE && t != PT_KPROBE) {
			sema_error(s, n->loc, "%s is only available in uprobe and kprobe probes (not %s)",
				   n->ident.name, sema_probe_type_name(t));
			n->type.kind = TY_ERROR;
			return;
		}
	}
	n->type = ty_uint64;
}

static LLVMValueRef lower_sargN(struct cg_ctx *cg, struct ast_node *n)
{
	int i = n->ident.name[4] - '0';
	LLVMValueRef sp = cg_load_i64(cg, cg_gep(cg, cg_ctx_arg(cg), REG_SP));
	LLVMValueRef addr = LLVMBuildAdd(cg_builder(cg), sp, cg_const(cg, 8 * (uint64_t)(i + 1)), "");
	LLVMValueRef tmp = cg_alloca(cg, 8, "sarg");
	cg_probe_read(cg, tmp, 8, addr, cg_attach(cg)->type == PT_UPROBE, 0);
	return cg_load_i64(cg, tmp);
}

/* retval: the return register, or in fexit the slot after the
 * arguments, typed as BTF declares the function's result */
static void check_retval(struct sema_ctx *s, struct ast_node *n)
{
	const struct sema_probe *p = sema_cur_probe(s);
	n->type = ty_int64;
	for (int i = 0; i < p->nattach; i++) {
		const struct sema_attach *at = &p->attach[i];
		if (!(sema_provider(at->type)->ctx & PC_RETVAL)) {
			sema_error(s, n->loc, "retval is only available in uretprobe, kretprobe and "
				   "fexit probes");
			n->type.kind = TY_ERROR;
			return;
		}
		if (!at->kf)
			continue;
		if (at->kf->ret.kind == TY_NONE || at->kf->ret.size > 8) {
			sema_error(s, n->loc, "%s: the function returns %s: no retval to read", at->name,
				   at->kf->ret.kind == TY_NONE ? "void" : "a struct");
			n->type.kind = TY_ERROR;
			return;
		}
		if (i == 0)
			n->type = at->kf->ret;
	}
}

static LLVMValueRef lower_retval(struct cg_ctx *cg, struct ast_node *n)
{
	const struct sema_kfunc *kf = cg_attach(cg)->kf;
	if (kf)
		return cg_kfunc_slot(cg, kf->ret_offset, &n->type);
	return cg_load_i64(cg, cg_gep(cg, cg_ctx_arg(cg), REG_AX));
}

/*
 * func: the probed function.  A uprobe program serves every site its
 * attach point resolved to (wildcards, one site per library file), so the
 * runtime gives each site a BPF cookie naming its symbol; func reads it
 * back and prints the name, in uprobes and uretprobes alike.  In
 * tracepoints func is the probe's name.  A kernel function's func is a
 * constant (SEMA_FUNC_OF_ATTACH + the first attach point of that
 * function), or in a program serving several functions the low half of
 * each function's cookie (the high half is its attach point, for probe).
 * A kernel without BPF cookies (before 5.15) gets one program per attach
 * point instead, each with its function as a constant; a wildcard uprobe
 * there is expanded into one attach point per function it matches
 * (sema_expand_func_sites; kprobe wildcards are expanded by sema anyway).
 */
static bool has_wildcard(const char *s)
{
	return s && strpbrk(s, "*?[") != NULL;
}

static void check_func(struct sema_ctx *s, struct ast_node *n)
{
	const struct sema_probe *p = sema_cur_probe(s);
	for (int i = 0; i < p->nattach; i++) {
		enum probe_type t = p->attach[i].type;
		if (t == PT_TRACEPOINT) {
			sema_need_per_attach(s);
			n->type = (struct type){.kind = TY_PROBE, .size = 8};
			return;
		}
		if (!(sema_provider(t)->ctx & PC_FUNC)) {
			sema_error(s, n->loc, "func is only available in kprobe, kretprobe, uprobe, "
				   "uretprobe and tracepoint probes");
			n->type.kind = TY_ERROR;
			return;
		}
		/* without cookies a wildcard uprobe is expanded into its
		 * functions; one still a wildcard after the expansion matched
		 * none (its library is not there, libcuda before a program's
		 * first CUDA call): it has no site to name, and attaching says
		 * so as on any kernel */
		if (!host_feature(HF_COOKIE) && has_wildcard(p->attach[i].func))
			sema_need_func_sites(s);
	}
	if (!host_feature(HF_COOKIE))
		sema_need_per_attach(s);
	n->type = (struct type){.kind = TY_PROBE, .size = 8};
}

/* the global attach index of the attach point being lowered */
static uint64_t attach_index(struct cg_ctx *cg)
{
	const struct sema_result *r = cg_sema(cg);
	const struct sema_attach *at = cg_attach(cg);
	uint64_t idx = 0;
	for (int i = 0; i < r->nprobes; i++)
		for (int j = 0; j < r->probes[i].nattach; j++, idx++)
			if (&r->probes[i].attach[j] == at)
				return idx;
	return 0;
}

/* the first global attach index probing the same function: one value per
 * name, so a uprobe and a uretprobe of one function are one map key */
static uint64_t first_attach_of_func(struct cg_ctx *cg)
{
	const struct sema_result *r = cg_sema(cg);
	const char *fn = cg_attach(cg)->func;
	uint64_t idx = 0;
	for (int i = 0; i < r->nprobes; i++)
		for (int j = 0; j < r->probes[i].nattach; j++, idx++) {
			const struct sema_attach *a = &r->probes[i].attach[j];
			if ((sema_provider(a->type)->ctx & PC_FUNC) && fn && a->func && !strcmp(a->func, fn))
				return idx;
		}
	return attach_index(cg);
}

static LLVMValueRef lower_func(struct cg_ctx *cg, struct ast_node *n)
{
	enum probe_type t = cg_attach(cg)->type;
	if (!(sema_provider(t)->ctx & PC_FUNC))
		return lower_probe(cg, n);
	if (is_kfunc_probe(t) && cg_shared_program(cg))
		return LLVMBuildAnd(cg_builder(cg), cg_attach_cookie(cg), cg_const(cg, 0xffffffffu), "");
	if (!host_feature(HF_COOKIE) || is_kfunc_probe(t))
		return cg_const(cg, SEMA_FUNC_OF_ATTACH + first_attach_of_func(cg));
	LLVMValueRef args[] = {cg_ctx_arg(cg)};
	return cg_helper_call(cg, BPF_FUNC_get_attach_cookie, args, 1);
}

/* args alone (not args->f): in fentry/fexit a struct of every argument
 * (print(args), a map value), one 8-byte slot each, as the context has
 * them; in a uprobe the same from DWARF, each read from its register or
 * stack slot; in a tracepoint a struct of the record's fields (sema_tp_args) */
static void check_args(struct sema_ctx *s, struct ast_node *n)
{
	const struct sema_probe *p = sema_cur_probe(s);
	if (p->nattach && (p->attach[0].type == PT_UPROBE || p->attach[0].type == PT_URETPROBE) &&
	    !sema_uprobe_args(s, "args", n->loc)) {
		n->type.kind = TY_ERROR;
		return;
	}
	const struct sema_kfunc *kf = p->nattach ? p->attach[0].kf : NULL;
	for (int i = 1; kf && i < p->nattach; i++) {
		const struct sema_kfunc *o = p->attach[i].kf;
		bool same = o && o->nargs == kf->nargs;
		for (int k = 0; same && k < kf->nargs; k++)
			same = !strcmp(o->names[k], kf->names[k]) && o->types[k].kind == kf->types[k].kind;
		if (!same) {
			sema_error(s, n->loc, "args differs between %s and %s: name its fields "
				   "(args.NAME) instead", p->attach[0].name, p->attach[i].name);
			n->type.kind = TY_ERROR;
			return;
		}
	}
	if (!kf && sema_tp_args(s, n))
		return;
	if (!kf) {
		sema_error(s, n->loc, "use args->FIELD to read a tracepoint argument");
		n->type.kind = TY_ERROR;
		return;
	}
	struct arena *a = sema_arena(s);
	if (kf->regs) {
		/* a uprobe's: each argument in an 8-byte slot, a struct passed by
		 * value in as many as it needs */
		struct type t = {.kind = TY_STRUCT, .is_user = true, .newest_print = true};
		t.fields = arena_new_array(a, struct type_field, kf->nargs ? kf->nargs : 1);
		for (int k = 0; k < kf->nargs; k++) {
			if (kf->why_not[k] || kf->types[k].size > SEMA_STRUCT_ARG_MAX) {
				sema_error(s, n->loc, "args in %s: argument '%s' is %s: name the others "
					   "(args.NAME)", p->attach[0].name, kf->names[k],
					   kf->why_not[k] ? kf->why_not[k] : "a struct too big to copy");
				n->type.kind = TY_ERROR;
				return;
			}
			t.fields[t.nfields++] = (struct type_field){.name = kf->names[k],
								    .offset = t.size, .type = kf->types[k]};
			t.size += (kf->types[k].size + 7) / 8 * 8;
		}
		if (!t.size)
			t.size = 8;
		n->type = t;
		return;
	}
	struct type t = {.kind = TY_STRUCT, .size = kf->ret_offset ? kf->ret_offset : 8,
			  .newest_print = true};
	t.fields = arena_new_array(a, struct type_field, kf->nargs ? kf->nargs : 1);
	for (int k = 0; k < kf->nargs; k++) {
		struct type ft = kf->types[k];
		if (ft.kind == TY_STRUCT)	/* passed by value: its bytes as they are */
			ft = (struct type){.kind = TY_ARRAY, .size = ft.size, .count = ft.size,
					   .elem = arena_new_obj(a, struct type)};
		if (ft.kind == TY_ARRAY && ft.elem && !ft.elem->size)
			*ft.elem = (struct type){.kind = TY_INT, .size = 1};
		t.fields[t.nfields++] = (struct type_field){.name = kf->names[k],
							    .offset = kf->offsets[k], .type = ft};
	}
	n->type = t;
}

static LLVMValueRef lower_args(struct cg_ctx *cg, struct ast_node *n)
{
	const struct sema_kfunc *kf = cg_attach(cg)->kf;
	if (!kf && (sema_provider(cg_attach(cg)->type)->ctx & PC_TP_ARGS))
		return cg_tp_args(cg, n);
	if (!kf)
		return cg_const(cg, 0);
	LLVMValueRef buf = cg_alloca(cg, n->type.size, "args");
	if (kf->regs) {
		for (int k = 0; k < n->type.nfields; k++) {
			const struct type_field *f = &n->type.fields[k];
			LLVMValueRef v = cg_uarg(cg, kf, k, &f->type);
			if (f->type.kind == TY_STRUCT)
				cg_memcpy(cg, cg_gep(cg, buf, f->offset), v, f->type.size);
			else
				cg_store_i64(cg, v, cg_gep(cg, buf, f->offset));
		}
		return buf;
	}
	/* slot by slot: the verifier checks each context load against BTF */
	const struct type u64 = ty_uint64;
	for (int k = 0; k < kf->nargs; k++)
		for (uint32_t off = 0; off < (kf->types[k].size > 8 ? 16u : 8u); off += 8)
			cg_store_i64(cg, cg_kfunc_slot(cg, kf->offsets[k] + off,
						       kf->types[k].kind == TY_PTR ? &kf->types[k] : &u64),
				     cg_gep(cg, buf, kf->offsets[k] + off));
	return buf;
}

static void check_cpid(struct sema_ctx *s, struct ast_node *n)
{
	if (!sema_options(s)->has_cpid)
		sema_error(s, n->loc, "cpid needs a child command: run with -c CMD");
	n->type = ty_uint64;
}

static LLVMValueRef lower_cpid(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_const(cg, (uint64_t)cg_options(cg)->child_pid);
}

static LLVMValueRef lower_username(struct cg_ctx *cg, struct ast_node *n)
{
	return lower_uid(cg, n);
}

/*
 * in_scope, scoped: for probes whose task of interest is not the current
 * task.  sonde filters every probe on the task running it when -p or
 * --container is given; the scheduler's tracepoints run in the waker's or
 * the outgoing task's context, so a recipe like runqlat must learn which
 * threads are in scope from their own context and test the thread it
 * measures.  A script that reads either builtin gets no automatic filter
 * on any probe: it applies the scope itself where the task is its own.
 *   in_scope: 1 when the current task passes -p/--container (1 without them)
 *   scoped:   1 when -p or --container was given (a constant)
 */
static void check_in_scope(struct sema_ctx *s, struct ast_node *n)
{
	sema_own_scope(s);
	n->type = ty_int64;
}

static LLVMValueRef lower_in_scope(struct cg_ctx *cg, struct ast_node *n)
{
	return LLVMBuildZExt(cg_builder(cg), cg_in_scope(cg), cg_i64(cg), "in_scope");
}

static void check_scoped(struct sema_ctx *s, struct ast_node *n)
{
	sema_own_scope(s);
	n->type = ty_int64;
	/* a compile-time constant: rewrite the node into a literal */
	n->kind = N_INT;
	n->i.value = sema_options(s)->scoped;
	n->i.is_char = false;
	n->i.is_signed = true;
}

#define INT_VAR(nm, fn, sgn, usr, doc) \
	{.name = nm, .kind = BI_VAR, .type = {.kind = TY_INT, .size = 8, .is_signed = sgn}, \
	 .lower = fn, .user = usr, .summary = doc}
/* arg0..arg5 are registers; arg6.. live on the stack (kernel mode) */
#define ARG(n, usr) {.name = "arg" #n, .kind = BI_VAR, .check = check_argN, .lower = lower_argN, \
		      .user = usr, .summary = "argument " #n " of the probed function"}
#define SARG(n) {.name = "sarg" #n, .kind = BI_VAR, .check = check_sargN, .lower = lower_sargN, \
		  .summary = "stack word " #n " above the return address (stack-passed arguments)"}

const struct builtin stdlib_process[] = {
	INT_VAR("pid", lower_pid, false, true, "process id (thread group id) of the current task"),
	INT_VAR("tid", lower_tid, false, true, "thread id of the current task"),
	INT_VAR("uid", lower_uid, false, false, "user id of the current task"),
	INT_VAR("gid", lower_gid, false, false, "group id of the current task"),
	INT_VAR("nsecs", lower_nsecs, false, true, "nanoseconds since boot (CLOCK_MONOTONIC)"),
	INT_VAR("elapsed", lower_elapsed, false, false, "nanoseconds since sonde started"),
	INT_VAR("cpu", lower_cpu, false, false, "CPU the probe runs on"),
	INT_VAR("numaid", lower_numaid, false, false, "NUMA node of the CPU the probe runs on"),
	INT_VAR("cgroup", lower_cgroup, false, true, "cgroup v2 id of the current task"),
	INT_VAR("rand", lower_rand, false, false, "a random 32-bit number"),
	{.name = "pid", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_pid_ns,
	 .lower = lower_pid_ns, .summary = "process id seen from a namespace: pid(init), pid(curr_ns)"},
	{.name = "tid", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_pid_ns,
	 .lower = lower_pid_ns, .summary = "thread id seen from a namespace: tid(init), tid(curr_ns)"},
	{.name = "comm", .kind = BI_VAR, .type = {.kind = TY_STR, .size = 16}, .lower = lower_comm,
	 .lower_into = comm_into, .user = true,
	 .summary = "name of the current task"},
	{.name = "username", .kind = BI_VAR, .type = {.kind = TY_USERNAME, .size = 8},
	 .lower = lower_username, .summary = "user name of the current task"},
	{.name = "container", .kind = BI_VAR, .type = {.kind = TY_CONTAINER, .size = 8},
	 .lower = lower_cgroup, .user = true, .summary = "short container id of the current task (\"\" on the host)"},
	{.name = "probe", .kind = BI_VAR, .check = check_probe, .lower = lower_probe, .user = true,
	 .summary = "name of the probe that fired"},
	{.name = "func", .kind = BI_VAR, .check = check_func, .lower = lower_func, .user = true,
	 .summary = "name of the probed function"},
	{.name = "retval", .kind = BI_VAR, .check = check_retval, .lower = lower_retval, .user = true,
	 .summary = "return value (uretprobe)"},
	{.name = "args", .kind = BI_VAR, .check = check_args, .lower = lower_args,
	 .summary = "tracepoint or fentry arguments: args->FIELD, args.NAME"},
	{.name = "cpid", .kind = BI_VAR, .check = check_cpid, .lower = lower_cpid, .user = true,
	 .summary = "pid of the -c child command"},
	{.name = "in_scope", .kind = BI_VAR, .check = check_in_scope, .lower = lower_in_scope,
	 .summary = "1 if the current task passes -p/--container; the script is not filtered"},
	{.name = "scoped", .kind = BI_VAR, .check = check_scoped, .lower = lower_cpu,
	 .summary = "1 if -p or --container was given; the script is not filtered"},
	ARG(0, true), ARG(1, true), ARG(2, true), ARG(3, true), ARG(4, true), ARG(5, true),
	ARG(6, false), ARG(7, false), ARG(8, false), ARG(9, false), ARG(10, false), ARG(11, false),
	SARG(0), SARG(1), SARG(2), SARG(3), SARG(4), SARG(5), SARG(6), SARG(7), SARG(8), SARG(9),
	{0},
};
