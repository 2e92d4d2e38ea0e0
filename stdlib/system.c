/*
 * system.c - builtins of the newest bpftrace about the machine rather
 * than the task: jiffies, ncpus, usermode.
 *
 * jiffies is the kernel's 64-bit tick counter (bpf_jiffies64, Linux 5.5);
 * ncpus the number of possible CPUs, a constant fixed when sonde compiles
 * the script (as bpftrace's); usermode is 1 when the context the probe
 * interrupted was running user code (the privilege level in the saved
 * code segment register, x86-64), so it needs a probe whose context is
 * the interrupted registers (probetype is meta.c's); in begin and end,
 * which sonde runs from user space, it is 1, as in the newest bpftrace.
 */
#include "stdlib/stdlib_int.h"

static LLVMValueRef lower_jiffies(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_helper_call(cg, BPF_FUNC_jiffies64, NULL, 0);
}

static LLVMValueRef lower_ncpus(struct cg_ctx *cg, struct ast_node *n)
{
	int c = cg_options(cg)->ncpus;
	return cg_const(cg, (uint64_t)(c > 0 ? c : 1));
}

/* struct pt_regs on x86-64: cs at byte 136; its low two bits are the
 * privilege level the registers were saved at (3: user) */
enum { REG_CS = 136 };

/* a probe of begin and end only: run from user space */
static bool special_only(const struct sema_probe *p)
{
	for (int i = 0; i < p->nattach; i++)
		if (p->attach[i].type != PT_BEGIN && p->attach[i].type != PT_END)
			return false;
	return p->nattach > 0;
}

/* a probe of fentry and fexit only: a kernel function's entry or exit,
 * in kernel mode always (and its context holds no registers) */
static bool kernel_fn_only(const struct sema_probe *p)
{
	for (int i = 0; i < p->nattach; i++)
		if (p->attach[i].type != PT_FENTRY && p->attach[i].type != PT_FEXIT)
			return false;
	return p->nattach > 0;
}

static void check_usermode(struct sema_ctx *s, struct ast_node *n)
{
	if (special_only(sema_cur_probe(s)) || kernel_fn_only(sema_cur_probe(s))) {
		n->type = (struct type){.kind = TY_INT, .size = 1};
		return;
	}
	if (!stdlib_probe_types(s, n, "usermode", PC_REGS)) {
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = (struct type){.kind = TY_INT, .size = 1};
}

static LLVMValueRef lower_usermode(struct cg_ctx *cg, struct ast_node *n)
{
	enum probe_type t = cg_attach(cg)->type;
	if (t == PT_BEGIN || t == PT_END)
		return cg_const(cg, 1);
	if (t == PT_FENTRY || t == PT_FEXIT)
		return cg_const(cg, 0);
	LLVMBuilderRef b = cg_builder(cg);
	LLVMValueRef cs = cg_load_i64(cg, cg_gep(cg, cg_ctx_arg(cg), REG_CS));
	LLVMValueRef pl = LLVMBuildAnd(b, cs, cg_const(cg, 3), "");
	LLVMValueRef user = LLVMBuildICmp(b, LLVMIntEQ, pl, cg_const(cg, 3), "");
	return LLVMBuildZExt(b, user, cg_i64(cg), "");
}

const struct builtin stdlib_system[] = {
	{.name = "jiffies", .kind = BI_VAR, .type = {.kind = TY_INT, .size = 8},
	 .lower = lower_jiffies, .summary = "the kernel's jiffies (bpf_jiffies64, Linux 5.5)"},
	{.name = "ncpus", .kind = BI_VAR, .type = {.kind = TY_INT, .size = 8},
	 .lower = lower_ncpus, .summary = "number of possible CPUs (a constant)"},
	{.name = "usermode", .kind = BI_VAR, .check = check_usermode, .lower = lower_usermode,
	 .summary = "1 if the probe interrupted user code, else 0 (kprobe, uprobe, profile ...; "
		    "0 in fentry/fexit)"},
	{0},
};
