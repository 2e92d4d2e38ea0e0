/*
 * llvmdiag.c - LLVM's diagnostics and fatal errors as sonde's located
 * errors.  LLVM meets some BPF limits only while it emits code: the
 * 512-byte stack (a diagnostic: the message names what takes the stack)
 * and a jump over more than 32,767 instructions (a fatal error: the
 * message names the probe whose program is too large).
 */
#include "codegen/llvmdiag.h"

#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "codegen/cg_int.h"
#include "common/diag.h"
#include "common/explain.h"

/*
 * LLVM reports some limits only while emitting code (the 512-byte BPF
 * stack); its default handler would print and exit(1).  Keep the first
 * error instead and turn it into a located message.
 */
void cg_llvm_on_diag(LLVMDiagnosticInfoRef di, void *ctx)
{
	struct cg_llvm_errors *e = ctx;
	if (LLVMGetDiagInfoSeverity(di) != LLVMDSError)
		return;
	if (!e->n++) {
		char *d = LLVMGetDiagInfoDescription(di);
		snprintf(e->first, sizeof(e->first), "%s", d);
		LLVMDisposeMessage(d);
	}
}

/* the stack $variables take, named in the order they were made (the list
 * holds the last made first) */
static uint32_t var_stack(const struct cg_var *v, char *names, size_t cap, size_t *used)
{
	if (!v)
		return 0;
	uint32_t bytes = var_stack(v->next, names, cap, used) + v->size;
	if (!v->size)		/* in the per-CPU frame, not on the stack */
		return bytes;
	if (*used + strlen(v->name) + 20 < cap)
		*used += (size_t)snprintf(names + *used, cap - *used, "%s$%s %u", *used ? ", " : "",
					  v->name, v->size);
	else if (*used + 6 < cap && !strstr(names, ", ..."))
		*used += (size_t)snprintf(names + *used, cap - *used, ", ...");
	return bytes;
}

/* the first $variable made on the stack: the last of the list */
static const struct cg_var *first_var(const struct cg_var *v)
{
	const struct cg_var *first = NULL;
	for (; v; v = v->next)
		if (v->size)
			first = v;
	return first;
}

/*
 * "sonde-src-XXXXXX:3:9: in function p0_0 ...: message" -> located error.
 * Past the BPF stack, the message says what takes it: the $variables,
 * alive through the whole probe, and the temporaries of its largest
 * statement (map keys and values, str() and printf() buffers), alive
 * through that statement; the caret is on the larger of the two.
 */
void cg_llvm_report_error(struct cg_ctx *cg, const char *msg)
{
	const char *file = cg->r->program->loc.file ? cg->r->program->loc.file : "stdin";
	const struct cg_opts *opts = cg->opts;
	int line = 0, col = 0;
	const char *p = strstr(msg, ": in function");
	const char *text = p ? strstr(p + 2, ": ") : NULL;
	text = text ? text + 2 : msg;
	if (p) {
		const char *q = p;
		while (q > msg && q[-1] != ':')
			q--;
		col = atoi(q);
		const char *r = q > msg ? q - 1 : q;
		while (r > msg && r[-1] != ':')
			r--;
		line = atoi(r);
	}
	char what[1024];
	snprintf(what, sizeof(what), "%s", text);
	/* in C the script imported (codegen/cimport.c): its own file and line */
	const char *r0 = p ? strchr(msg, ':') : NULL;
	if (r0 && r0 - msg > 2 && r0[-2] == '.' && (r0[-1] == 'c' || r0[-1] == 'h')) {
		size_t wl = strlen(what);
		while (wl && (what[wl - 1] == '\n' || what[wl - 1] == ' '))
			what[--wl] = '\0';
		fprintf(stderr, "%.*s:%d:%d: error: %s (in C the script imports)\n", (int)(r0 - msg),
			msg, line, col, what);
		return;
	}
	struct src_loc loc = {.file = file, .line = line, .col = col > 0 ? col : 1,
			      .end_line = line, .end_col = (col > 0 ? col : 1) + 1};
	if (strstr(msg, "stack limit")) {
		char fname[128] = "", names[256];
		if (p)
			sscanf(p, ": in function %127s", fname);
		LLVMValueRef fn = fname[0] ? LLVMGetNamedFunction(cg->mod, fname) : NULL;
		const struct cg_fn_stack *fs = NULL;
		for (int i = 0; fn && i < cg->nstacks; i++)
			if (cg->stacks[i].fn == fn)
				fs = &cg->stacks[i];
		size_t used = 0;
		names[0] = '\0';
		uint32_t vars = fs ? var_stack(fs->vars, names, sizeof(names), &used) : 0;
		uint32_t temps = fs ? fs->max_temps : 0;
		int n = snprintf(what, sizeof(what), "this probe needs more than the 512 bytes of stack a "
				 "BPF program may use:");
		if (vars)
			n += snprintf(what + n, sizeof(what) - (size_t)n, " its $variables take %u bytes (%s)%s",
				      vars, names, temps ? "," : ";");
		if (temps && fs)
			n += snprintf(what + n, sizeof(what) - (size_t)n,
				      " the statement at line %d holds %u bytes of temporaries at once "
				      "(map keys and values, str() and printf() buffers);",
				      fs->temps_loc.line, temps);
		snprintf(what + n, sizeof(what) - (size_t)n, " a string takes 64 bytes, so keep fewer "
			 "strings in $variables, map keys and printf() arguments at once, or set a "
			 "lower on_stack_limit (config = { on_stack_limit = 32 }) to keep more of "
			 "them in per-CPU memory");
		if (fs && temps && temps >= vars)
			loc = fs->temps_loc;
		else if (fs && vars && first_var(fs->vars))
			loc = first_var(fs->vars)->loc;
		loc.file = file;
		line = loc.line;
	}
	if (line > 0 && opts->src) {
		struct diag d;
		diag_init(&d, file, opts->src, stderr);
		bool stack = strstr(msg, "stack limit") != NULL;
		diag_error(&d, loc, "%s%s%s%s", what, stack ? " [" : "",
			   stack ? explain_get(EX_STACK)->code : "", stack ? "]" : "");
	} else {
		fprintf(stderr, "sonde: BPF code generation failed: %s\n", what);
	}
}

/*
 * Some limits LLVM's BPF backend meets only as a fatal error, which the
 * default handler turns into abort(): a jump over more than 32,767
 * instructions ("Branch target out of insn range", while it writes the
 * object).  A fatal error handler must not return, so it jumps back to
 * the emission (siglongjmp).  report_fatal_error() holds no lock while it
 * calls the handler, and what the jump skips (the pass manager, the
 * streamer, their memory) belongs to this module's emission alone:
 * sonde touches nothing of that LLVM context afterwards (cg_compile
 * leaks it rather than dispose of it) and reports a located error.
 * Running every emission in a child process would catch crashes too,
 * but would cost a fork per compile and move the compile's memory out of
 * sonde's own accounting for a failure that only oversized programs meet.
 */
static sigjmp_buf *fatal_jump;
static char fatal_reason[256];

void cg_llvm_on_fatal(const char *reason)
{
	snprintf(fatal_reason, sizeof(fatal_reason), "%s", reason);
	if (fatal_jump)
		siglongjmp(*fatal_jump, 1);
	fprintf(stderr, "sonde: internal error: LLVM: %s\n", reason);
	_exit(70);
}

/* the BPF function of the module with the most LLVM instructions: the
 * one whose jumps can span too far */
static LLVMValueRef largest_function(LLVMModuleRef mod, long *count)
{
	LLVMValueRef best = NULL;
	*count = 0;
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f)) {
		long n = 0;
		for (LLVMBasicBlockRef b = LLVMGetFirstBasicBlock(f); b; b = LLVMGetNextBasicBlock(b))
			for (LLVMValueRef i = LLVMGetFirstInstruction(b); i; i = LLVMGetNextInstruction(i))
				n++;
		if (n > *count) {
			*count = n;
			best = f;
		}
	}
	return best;
}

/* the located error for an LLVM fatal error in the program `fn` */
static void report_too_large(struct cg_ctx *cg, const char *fn, long ninsn)
{
	const struct sema_probe *p = NULL;
	for (int i = 0; i < cg->nprogs && !p; i++)
		if (fn && !strcmp(cg->progs[i].name, fn))
			p = cg->progs[i].probe;
	const struct explain *x = explain_get(EX_PROG_SIZE);
	const char *file = cg->r->program->loc.file ? cg->r->program->loc.file : "stdin";
	char what[512];
	snprintf(what, sizeof(what), "the program for %s is too large for BPF: LLVM cannot emit it "
		 "(%s) [%s]", p ? p->attach[0].name : "this script", fatal_reason, x->code);
	if (p && cg->opts->src) {
		struct diag d;
		diag_init(&d, file, cg->opts->src, stderr);
		diag_error(&d, p->node->loc, "%s", what);
	} else {
		fprintf(stderr, "sonde: %s\n", what);
	}
	fprintf(stderr, "note: it holds %ld LLVM instructions (unroll() copies its body), and a BPF "
		"jump reaches 32,767 instructions: make unroll counts smaller, use a while loop, or "
		"split the work across probes\n", ninsn);
	if (!p || !cg->opts->src)
		explain_note(stderr, x, false);	/* diag_error() did, for a line */
}

/* Emit the module under the fatal error handler.  After an LLVM fatal
 * error: the located error, the module's LLVM state abandoned (nothing of
 * it is disposed: the caller leaks its context) and 1. */
__attribute__((noinline)) int cg_llvm_emit_guarded(struct cg_ctx *cg, LLVMTargetMachineRef tm,
						   LLVMCodeGenFileType type, char **err,
						   LLVMMemoryBufferRef *buf, bool *failed)
{
	sigjmp_buf jump;
	if (sigsetjmp(jump, 0)) {
		fatal_jump = NULL;
		long ninsn;
		LLVMValueRef big = largest_function(cg->mod, &ninsn);
		report_too_large(cg, big ? LLVMGetValueName(big) : NULL, ninsn);
		LLVMDisposeDIBuilder(cg->dib);	/* not the emission's */
		cg->dib = NULL;
		cg->mod = NULL;
		return 1;
	}
	fatal_jump = &jump;
	*failed = LLVMTargetMachineEmitToMemoryBuffer(tm, cg->mod, type, err, buf);
	fatal_jump = NULL;
	return 0;
}

