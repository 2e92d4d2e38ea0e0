/*
 * usdt.c - arg0..argN in usdt probes.
 *
 * A USDT argument is wherever the compiler left it at the probe site, as
 * the note's format says (host/host.h): a constant, a register, memory
 * at a register plus a displacement, or a symbol relative to %rip.  Each
 * attach point carries its own note, so the value is read per location
 * (sema asks for one program per attach point) and extended from the
 * format's size with its sign to 64 bits.
 */
#include "host/host.h"
#include "stdlib/stdlib_int.h"

bool stdlib_usdt_check_arg(struct sema_ctx *s, struct ast_node *n, int i)
{
	const struct sema_probe *p = sema_cur_probe(s);
	for (int k = 0; k < p->nattach; k++) {
		const struct sema_attach *at = &p->attach[k];
		if (at->type != PT_USDT || !at->usdt)
			continue;
		if (at->usdt->args_err && i < USDT_MAX_ARGS) {
			sema_error(s, n->loc, "%s: cannot read its arguments ('%s'): %s", at->name,
				   at->usdt->args_text, at->usdt->args_err);
			return false;
		}
		if (i >= at->usdt->nargs) {
			sema_error(s, n->loc, "%s has %d argument%s, so there is no arg%d", at->name,
				   at->usdt->nargs, at->usdt->nargs == 1 ? "" : "s", i);
			return false;
		}
	}
	sema_need_per_attach(s);
	return true;
}

/* the low `size` bytes of v, sign- or zero-extended */
static LLVMValueRef extend(struct cg_ctx *cg, LLVMValueRef v, int size, bool is_signed)
{
	if (size >= 8)
		return v;
	LLVMBuilderRef b = cg_builder(cg);
	LLVMTypeRef t = LLVMIntTypeInContext(cg_context(cg), (unsigned)size * 8);
	LLVMValueRef x = LLVMBuildTrunc(b, v, t, "");
	return is_signed ? LLVMBuildSExt(b, x, cg_i64(cg), "") : LLVMBuildZExt(b, x, cg_i64(cg), "");
}

LLVMValueRef stdlib_usdt_arg(struct cg_ctx *cg, int i)
{
	const struct usdt_note *note = cg_attach(cg)->usdt;
	if (!note || i >= note->nargs)
		return cg_const(cg, 0);
	const struct usdt_arg *a = &note->args[i];
	switch (a->kind) {
	case USDT_ARG_CONST:
		return cg_const(cg, (uint64_t)a->val);
	case USDT_ARG_REG: {
		LLVMValueRef r = cg_load_i64(cg, cg_gep(cg, cg_ctx_arg(cg), (uint32_t)a->reg_off));
		int size = a->size < a->reg_size ? a->size : a->reg_size;
		return extend(cg, r, size, a->is_signed);
	}
	case USDT_ARG_MEM: {
		/* for %rip the register holds the probe site (uprobes rewind ip
		 * to the breakpoint), and val is symbol - site */
		LLVMValueRef r = cg_load_i64(cg, cg_gep(cg, cg_ctx_arg(cg), (uint32_t)a->reg_off));
		LLVMValueRef addr = LLVMBuildAdd(cg_builder(cg), r, cg_const(cg, (uint64_t)a->val), "");
		LLVMValueRef tmp = cg_alloca(cg, 8, "usdtarg");
		cg_probe_read(cg, tmp, (uint32_t)a->size, addr, 1, 0);
		return extend(cg, cg_load_i64(cg, tmp), a->size, a->is_signed);
	}
	}
	return cg_const(cg, 0);
}
