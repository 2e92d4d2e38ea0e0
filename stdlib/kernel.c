/*
 * kernel.c - kernel types and address spaces: curtask, uptr(), kptr(), and
 * the current task's parent and process: ppid, pcomm.
 *
 * curtask is the current task_struct, typed from the kernel's BTF so that
 * `curtask->real_parent->pid` reads as C would (uint64 on a kernel without
 * BTF).  A pointer carries its address space in its type (is_user): the
 * pointer arguments of syscall tracepoints point into the calling process,
 * curtask and what it leads to into the kernel.  uptr(p) and kptr(p) say
 * which, where sonde cannot know: the value is unchanged, reads through it
 * use bpf_probe_read_user or bpf_probe_read_kernel.
 *
 * percpu_kaddr("name"[, cpu]) is a per-CPU variable's address (its BTF
 * id resolved by the verifier).  path(p) is bpf_d_path, which the kernel allows only where arguments
 * are BTF-typed (fentry/fexit in sonde).
 */
#include <string.h>

#include "common/settings.h"
#include "host/host.h"
#include "stdlib/stdlib_int.h"

static void check_curtask(struct sema_ctx *s, struct ast_node *n)
{
	n->type = sema_kernel_ptr(s, "task_struct");
}

static LLVMValueRef lower_curtask(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_helper_call(cg, BPF_FUNC_get_current_task, NULL, 0);
}

/* ctx: the program's context pointer, as the newest bpftrace types it
 * where sonde's programs have the same context: a struct pt_regs * in
 * kprobes, uprobes and usdt; elsewhere an untyped kernel pointer (cast
 * it: `((struct x *)ctx).x`).  Reads through it are probe reads. */
static void check_ctx(struct sema_ctx *s, struct ast_node *n)
{
	const struct sema_probe *p = sema_cur_probe(s);
	enum probe_type t = p && p->nattach ? p->attach[0].type : PT_BEGIN;
	if (t == PT_KPROBE || t == PT_KRETPROBE || t == PT_UPROBE || t == PT_URETPROBE || t == PT_USDT) {
		n->type = sema_kernel_ptr(s, "pt_regs");
		if (n->type.kind == TY_PTR)
			return;
	}
	struct type p8 = {.kind = TY_PTR, .size = 8};
	p8.elem = arena_new_obj(sema_arena(s), struct type);
	*p8.elem = (struct type){.kind = TY_INT, .size = 1};
	n->type = p8;
}

static LLVMValueRef lower_ctx(struct cg_ctx *cg, struct ast_node *n)
{
	return LLVMBuildPtrToInt(cg_builder(cg), cg_ctx_arg(cg), cg_i64(cg), "ctx");
}

/*
 * comm(pid): the name of the process pid (the newest bpftrace's), through
 * the kfuncs bpf_task_from_pid and bpf_task_release, which the kernel
 * gives tracing programs (iter: probes here; fentry where it has them):
 * "N/A" when there is no such process.  The kfuncs' BTF ids and comm's
 * offset in task_struct come from the kernel's BTF.
 */
static void check_comm_of(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	struct type *t = sema_expr(s, a);
	n->type = (struct type){.kind = TY_STR, .size = 16};
	if (t->kind == TY_ERROR)
		return;
	if (!type_is(t, TT_INT_VALUE)) {
		sema_error_release(s, a->loc, "Only integer supported for comm()'s pid");
		return;
	}
	const struct sema_probe *p = sema_cur_probe(s);
	enum probe_type pt = p && p->nattach ? p->attach[0].type : PT_BEGIN;
	if (pt != PT_ITER && pt != PT_FENTRY && pt != PT_FEXIT) {
		char msg[160];
		snprintf(msg, sizeof(msg), "Syntax comm(PID) is not supported in this probe type yet. "
			 "Type: %s", sema_probe_type_name(pt));
		sema_error_release(s, n->loc, msg);
		return;
	}
	const struct btf *b = host_kernel_btf();
	int32_t from = b ? host_btf_func_id(b, "bpf_task_from_pid") : -1;
	int32_t rel = b ? host_btf_func_id(b, "bpf_task_release") : -1;
	int64_t off = host_btf_member_offset("task_struct", "comm");
	if (from <= 0 || rel <= 0 || off < 0) {
		sema_error(s, n->loc, "comm(pid) needs the kernel's bpf_task_from_pid and "
			   "bpf_task_release kfuncs (Linux 6.2) and task_struct in its BTF");
		return;
	}
	n->note.value = (uint64_t)from << 32 | (uint32_t)rel;
	n->note.site = (uint64_t)off;
}

static LLVMValueRef lower_comm_of(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef buf = cg_alloca(cg, 16, "comm_of");
	LLVMValueRef pid = LLVMBuildAnd(b, cg_expr(cg, n->call.args), cg_const(cg, 0xffffffff), "");
	LLVMValueRef task = cg_kfunc_call(cg, (uint32_t)(n->note.value >> 32), &pid, 1);
	cg_store_i64(cg, cg_const(cg, 'N' | '/' << 8 | 'A' << 16), buf);	/* no such process */
	struct cg_if has = cg_begin_if(cg, LLVMBuildICmp(b, LLVMIntNE, task, cg_const(cg, 0), ""),
				       "task_of_pid");
	/* the pointer is known not NULL only here: nothing computed from it
	 * may move above the test (the verifier refuses arithmetic on it) */
	LLVMValueRef t = cg_opaque(cg, task);
	LLVMValueRef src = LLVMBuildAdd(b, t, cg_const(cg, n->note.site), "");
	LLVMValueRef args[] = {buf, LLVMConstInt(cg_i32(cg), 16, 0), LLVMBuildIntToPtr(b, src, cg_ptr(cg), "")};
	cg_helper_call_quiet(cg, BPF_FUNC_probe_read_kernel, args, 3);
	cg_kfunc_call(cg, (uint32_t)n->note.value, &t, 1);
	cg_end_if(cg, &has);
	return buf;
}

/* ppid: curtask->real_parent->tgid, the parent's pid; pcomm:
 * curtask->real_parent->comm, the parent's name; leader_comm and
 * leader_tid: curtask->group_leader's comm and pid, the process's name
 * and thread id (comm and tid are the thread's), as bpftrace v0.26.1's
 * stdlib.md defines them; the node becomes that field read */
static struct ast_node *node(struct sema_ctx *s, enum node_kind k, struct src_loc loc)
{
	struct ast_node *n = arena_new_obj(sema_arena(s), struct ast_node);
	n->kind = k;
	n->loc = loc;
	return n;
}

static void check_parent(struct sema_ctx *s, struct ast_node *n)
{
	const char *name = n->ident.name;
	bool leader = !strncmp(name, "leader_", 7);
	const char *field = !strcmp(name, "ppid") ? "tgid" : !strcmp(name, "leader_tid") ? "pid" : "comm";
	struct ast_node *task = node(s, N_IDENT, n->loc), *parent = node(s, N_FIELD, n->loc);
	task->ident.name = "curtask";
	parent->field.base = task;
	parent->field.name = leader ? "group_leader" : "real_parent";
	parent->field.is_arrow = true;
	n->kind = N_FIELD;
	n->field.base = parent;
	n->field.name = field;
	n->field.is_arrow = true;
	sema_expr(s, n);
	if (n->type.kind == TY_INT)	/* pid_t: as pid, an unsigned 64-bit value */
		n->type = (struct type){.kind = TY_INT, .size = n->type.size};
}

/* uptr(p), kptr(p): p's type (an integer becomes a pointer to int64) in
 * the named address space */
static void check_addrspace(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	struct type *t = sema_expr(s, a);
	if (t->kind == TY_ERROR) {
		n->type = *t;
		return;
	}
	if (t->kind != TY_PTR && t->kind != TY_INT) {
		sema_error(s, a->loc, "%s() needs a pointer or an integer address, not %s",
			   n->call.name, type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = *t;
	if (t->kind == TY_INT) {
		struct type *el = arena_new_obj(sema_arena(s), struct type);
		*el = ty_int64;
		n->type = (struct type){.kind = TY_PTR, .size = 8, .elem = el};
	}
	n->type.is_user = n->call.name[0] == 'u';
}

static LLVMValueRef lower_addrspace(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_expr(cg, n->call.args);
}

/* path(p[, size]): the full path of a struct path * (bpf_d_path), a
 * string of size bytes (BPFTRACE_STRLEN without it).  The kernel takes
 * only a BTF pointer (an fentry/fexit argument, or a member address of
 * one: &args.file->f_path) in the functions of its d_path allowlist; the
 * verifier refuses the others. */
static void check_path(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	struct type *t = sema_expr(s, a);
	uint32_t size = (uint32_t)settings_int(SET_STRLEN);
	if (a->next) {
		int64_t k;
		sema_expr(s, a->next);
		if (!sema_const_int(s, a->next, &k)) {
			n->type.kind = TY_ERROR;
			return;
		}
		if (k < 1 || k > size) {
			sema_error(s, a->next->loc, "path() size must be 1 to %u (BPFTRACE_STRLEN)", size);
			n->type.kind = TY_ERROR;
			return;
		}
		size = (uint32_t)k;
	}
	if (t->kind == TY_ERROR) {
		n->type.kind = TY_ERROR;
		return;
	}
	/* a struct path in traced memory is taken by its address, as the
	 * newest bpftrace does: path(args.file.f_path) is
	 * path(&args.file->f_path) */
	if (t->kind == TY_STRUCT && t->sname && !strcmp(t->sname, "path")) {
		struct ast_node *addr = ast_new(sema_arena(s), N_UNARY, a->loc);
		addr->un.op = OP_ADDR;
		addr->un.operand = a;
		addr->next = a->next;
		a->next = NULL;
		n->call.args = a = addr;
		t = sema_expr(s, a);
		if (t->kind == TY_ERROR) {
			n->type.kind = TY_ERROR;
			return;
		}
	}
	if (t->kind != TY_PTR && t->kind != TY_INT) {
		sema_error(s, a->loc, "path() needs a struct path pointer, not %s", type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = ty_str(size);
	if (!stdlib_btf_probe(s, n, "path()", "bpf_d_path", false))
		return;
	if (!host_feature(HF_D_PATH)) {
		sema_error(s, n->loc, "path() needs %s (Linux %s), which this kernel does not have",
			   host_feature_what(HF_D_PATH), host_feature_since(HF_D_PATH));
		n->type.kind = TY_ERROR;
	}
}

static LLVMValueRef lower_path(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef buf = cg_alloca(cg, n->type.size, "path");
	LLVMValueRef p = LLVMBuildIntToPtr(b, cg_expr(cg, n->call.args), cg_ptr(cg), "");
	LLVMValueRef args[] = {p, buf, LLVMConstInt(cg_i32(cg), n->type.size, 0)};
	cg_helper_call(cg, BPF_FUNC_d_path, args, 3);
	return buf;
}

/*
 * percpu_kaddr("name"[, cpu]): the address of a per-CPU kernel variable
 * on this CPU (bpf_this_cpu_ptr) or on `cpu` (bpf_per_cpu_ptr: 0 when cpu
 * is not a possible CPU), as uint64 * (cast it: (struct rq *)...).  The
 * variable is found in the kernel's BTF at compile time; the verifier then
 * resolves it through the kernel's own symbol table, which lists data
 * symbols only with CONFIG_KALLSYMS_ALL: /proc/kallsyms shows the same
 * table, so sonde checks there first.
 */
static void check_percpu_kaddr(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	if (a->next) {
		struct type *t = sema_expr(s, a->next);
		if (t->kind != TY_INT && t->kind != TY_ERROR) {
			sema_error(s, a->next->loc, "percpu_kaddr(name, cpu): cpu must be an integer, not %s",
				   type_str(sema_arena(s), t));
			n->type.kind = TY_ERROR;
			return;
		}
	}
	if (a->kind != N_STR) {
		sema_error(s, a->loc, "percpu_kaddr() needs a string literal: the variable's name");
		n->type.kind = TY_ERROR;
		return;
	}
	const char *name = a->s.value;
	int id = host_btf_percpu_var(name);
	if (id < 0) {
		sema_error(s, a->loc, "percpu_kaddr(): the kernel's BTF has no per-CPU variable named '%s'",
			   name);
		n->type.kind = TY_ERROR;
		return;
	}
	static struct ksyms *ks;
	uint64_t addr;
	if (!ks)
		ks = ksyms_load();
	if (!ks || ksyms_find(ks, name, &addr)) {
		sema_error(s, a->loc, "percpu_kaddr(): '%s' is not in the kernel's symbol table "
			   "(/proc/kallsyms), where the verifier looks it up: this kernel lists data "
			   "symbols only with CONFIG_KALLSYMS_ALL", name);
		n->type.kind = TY_ERROR;
		return;
	}
	struct type *el = arena_new_obj(sema_arena(s), struct type);
	*el = ty_uint64;
	n->type = (struct type){.kind = TY_PTR, .size = 8, .elem = el};
	n->note.value = (uint64_t)id;
}

/* a pointer, not an error code: -k has nothing to check */
static LLVMValueRef lower_percpu_kaddr(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *cpu = n->call.args->next;
	LLVMValueRef args[2] = {cg_ksym_btf(cg, (uint32_t)n->note.value), NULL};
	if (!cpu)
		return cg_helper_call_quiet(cg, BPF_FUNC_this_cpu_ptr, args, 1);
	args[1] = LLVMBuildTrunc(cg_builder(cg), cg_expr(cg, cpu), cg_i32(cg), "");
	return cg_helper_call_quiet(cg, BPF_FUNC_per_cpu_ptr, args, 2);
}

const struct builtin stdlib_kernel[] = {
	{.name = "curtask", .kind = BI_VAR, .check = check_curtask, .lower = lower_curtask,
	 .summary = "the current task_struct (typed from the kernel's BTF)"},
	{.name = "comm", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_comm_of,
	 .lower = lower_comm_of, .summary = "name of the process pid (iter probes): comm(pid)"},
	{.name = "ctx", .kind = BI_VAR, .check = check_ctx, .lower = lower_ctx,
	 .summary = "the BPF program's context (struct pt_regs * in kprobes and uprobes)"},
	{.name = "ppid", .kind = BI_VAR, .check = check_parent,
	 .summary = "process id of the current task's parent"},
	{.name = "pcomm", .kind = BI_VAR, .check = check_parent,
	 .summary = "name of the current task's parent process"},
	{.name = "leader_comm", .kind = BI_VAR, .check = check_parent,
	 .summary = "name of the current process (its thread group leader's comm)"},
	{.name = "leader_tid", .kind = BI_VAR, .check = check_parent,
	 .summary = "thread id of the current process's thread group leader"},
	{.name = "uptr", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_addrspace,
	 .lower = lower_addrspace, .summary = "the pointer, read as user memory"},
	{.name = "kptr", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_addrspace,
	 .lower = lower_addrspace, .summary = "the pointer, read as kernel memory"},
	{.name = "percpu_kaddr", .kind = BI_FUNC, .min_args = 1, .max_args = 2,
	 .check = check_percpu_kaddr, .lower = lower_percpu_kaddr,
	 .summary = "address of a per-CPU kernel variable: percpu_kaddr(\"name\"[, cpu])"},
	{.name = "path", .kind = BI_FUNC, .min_args = 1, .max_args = 2, .check = check_path,
	 .lower = lower_path, .summary = "full path of a struct path * (fentry/fexit): path(p[, size])"},
	{0},
};
