/*
 * debug.c - debugf(fmt, args...): bpftrace 0.17's kernel-side printf.
 *
 * The probe formats through bpf_trace_printk, whose line goes to the
 * kernel's trace buffer (/sys/kernel/tracing/trace_pipe), not to sonde's
 * output: it needs no event or userspace, which is what debugging a
 * script's event path wants, and it is slow and leaves a notice in the
 * kernel log, hence the warning at every call (0.17's words).  The helper
 * takes at most three arguments; an integer conversion without a length
 * prints the whole 64-bit value (%d becomes %lld), a string is passed by
 * its address on the stack.  The format is built on the stack too.
 */
#include <string.h>

#include "codegen/codegen.h"
#include "common/arena.h"
#include "stdlib/stdlib.h"

enum { DEBUGF_ARGS = 3, DEBUGF_FMT_MAX = 256 };

/* the format as the helper gets it: %d %i %u %x %X %o with no length
 * become their ll forms; NULL (an error at loc) for more than 3 or an
 * unknown conversion; *nconv the conversions */
static char *debugf_format(struct sema_ctx *s, struct ast_node *f, int *nconv)
{
	const char *p = f->s.value;
	char *out = arena_alloc(sema_arena(s), strlen(p) * 2 + 8), *o = out;
	*nconv = 0;
	while (*p) {
		if (*p != '%') {
			*o++ = *p++;
			continue;
		}
		if (p[1] == '%') {
			*o++ = *p++;
			*o++ = *p++;
			continue;
		}
		size_t k = 1 + strspn(p + 1, "-+ #0123456789.");
		size_t m = strspn(p + k, "l");
		char conv = p[k + m];
		if (!conv || !strchr("diuxXopsc", conv)) {
			sema_error(s, f->loc, "debugf(): bpf_trace_printk has no conversion '%%%.*s' "
				   "(use %%d %%i %%u %%x %%o %%p %%s %%c)", (int)(k + m + (conv != 0)) - 1, p + 1);
			return NULL;
		}
		if (++*nconv > DEBUGF_ARGS) {
			sema_error(s, f->loc, "debugf(): bpf_trace_printk takes at most %d conversions",
				   DEBUGF_ARGS);
			return NULL;
		}
		memcpy(o, p, k);
		o += k;
		if (!m && strchr("diuxXo", conv)) {
			*o++ = 'l';
			*o++ = 'l';
		} else {
			memcpy(o, p + k, m);
			o += m;
		}
		*o++ = conv;
		p += k + m + 1;
	}
	*o = '\0';
	return out;
}

static void check_debugf(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *f = n->call.args;
	n->type = ty_void;
	if (f->kind != N_STR) {
		sema_expr(s, f);
		sema_error(s, f->loc, "debugf() takes a format string literal first: debugf(\"pid %%d\\n\", pid)");
		return;
	}
	int nconv, nargs = 0;
	char *fmt = debugf_format(s, f, &nconv);
	for (struct ast_node *a = f->next; a; a = a->next, nargs++) {
		struct type *t = sema_expr(s, a);
		if (t->kind != TY_INT && t->kind != TY_STR && t->kind != TY_PTR && t->kind != TY_ERROR)
			sema_error(s, a->loc, "debugf() prints integers, pointers and strings, not %s",
				   type_str(sema_arena(s), t));
	}
	if (!fmt)
		return;
	if (nargs != nconv) {
		sema_error(s, n->loc, "debugf(): the format has %d conversion%s but %d argument%s follow%s",
			   nconv, nconv == 1 ? "" : "s", nargs, nargs == 1 ? "" : "s", nargs == 1 ? "s" : "");
		return;
	}
	if (strlen(fmt) + 1 > DEBUGF_FMT_MAX) {
		sema_error(s, f->loc, "debugf(): the format is longer than %d bytes", DEBUGF_FMT_MAX - 1);
		return;
	}
	f->s.value = fmt;	/* codegen stores this text */
	f->s.len = (uint32_t)strlen(fmt);
	sema_warn(s, n->loc, "The debugf() builtin is not recommended for production use. For more "
		  "information see bpf_trace_printk in bpf-helpers(7).");
}

static LLVMValueRef lower_debugf(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *f = n->call.args;
	LLVMBuilderRef b = cg_builder(cg);
	uint32_t len = f->s.len + 1;
	LLVMValueRef fmt = cg_alloca_nozero(cg, len, "debugf.fmt");
	for (uint32_t i = 0; i < len; i++)
		LLVMBuildStore(b, LLVMConstInt(cg_i8(cg), (unsigned char)f->s.value[i], 0), cg_gep(cg, fmt, i));
	LLVMValueRef args[2 + DEBUGF_ARGS] = {fmt, LLVMConstInt(cg_i32(cg), len, 0)};
	int k = 2;
	for (struct ast_node *a = f->next; a; a = a->next) {
		LLVMValueRef v = cg_expr(cg, a);
		if (a->type.kind == TY_STR)
			v = LLVMBuildPtrToInt(b, v, cg_i64(cg), "");
		args[k++] = v;
	}
	cg_helper_call(cg, BPF_FUNC_trace_printk, args, k);
	return NULL;
}

const struct builtin stdlib_debug[] = {
	{.name = "debugf", .kind = BI_STMT, .min_args = 1, .max_args = 1 + DEBUGF_ARGS,
	 .check = check_debugf, .lower = lower_debugf,
	 .summary = "printf into the kernel's trace_pipe (bpf_trace_printk): debugf(\"%d\\n\", pid)"},
	{0},
};
