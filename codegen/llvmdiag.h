/*
 * llvmdiag.h - what LLVM reports, turned into sonde's errors (llvmdiag.c):
 * the diagnostics it sends while emitting (the 512-byte stack), and its
 * fatal errors (a jump too far), caught around an emission.
 */
#ifndef SONDE_CODEGEN_LLVMDIAG_H
#define SONDE_CODEGEN_LLVMDIAG_H

#include <stdbool.h>

#include <llvm-c/TargetMachine.h>

struct cg_ctx;

/* the errors LLVM sent a context: the first one's text and how many */
struct cg_llvm_errors {
	char first[512];
	int n;
};

/* LLVMContextSetDiagnosticHandler's handler; ctx: a struct cg_llvm_errors */
void cg_llvm_on_diag(LLVMDiagnosticInfoRef di, void *ctx);

/* LLVMInstallFatalErrorHandler's handler */
void cg_llvm_on_fatal(const char *reason);

/* an error LLVM sent while emitting ("sonde-src-X:3:9: in function p0_0
 * ...: message") as a located error */
void cg_llvm_report_error(struct cg_ctx *cg, const char *msg);

/* LLVMTargetMachineEmitToMemoryBuffer under the fatal error handler: 0,
 * with *failed, *err and *buf as it set them; 1 after an LLVM fatal error,
 * reported as a located error, with cg->mod and cg->dib let go */
int cg_llvm_emit_guarded(struct cg_ctx *cg, LLVMTargetMachineRef tm, LLVMCodeGenFileType type,
			 char **err, LLVMMemoryBufferRef *buf, bool *failed);

#endif
