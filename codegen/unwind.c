/*
 * unwind.c - the user stack walker that applies call-frame information,
 * linked into a script's module.
 *
 * The walker (codegen/bpfc/unwind.bpf.c) is BPF C: a binary search over a
 * process's mappings, another over a file's unwind rows, and the frame
 * step, in a bpf_loop callback.  Written through the cg_* layer it would
 * be several hundred lines of LLVM builder calls that say much less than
 * the C; so clang compiles it to LLVM bitcode at build time (Makefile),
 * the bitcode is embedded here, and the first ustack that unwinds with
 * CFI parses it into the module's context and links it in
 * (LLVMLinkModules2).  Its maps then live in the module as sonde's own
 * do: weak in a split compile, so that the BPF linker keeps one of each.
 * Its entry is static: a static BPF function is verified with its
 * caller's arguments (the buffer's size is a constant there).
 */
#include "codegen/cg_int.h"

#include <errno.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/Linker.h>
#include <stdio.h>
#include <string.h>

#include "host/cfi_abi.h"

#ifndef SONDE_GEN_DIR
#define SONDE_GEN_DIR "build/gen"
#endif

extern const char cg_unwind_bc[], cg_unwind_bc_end[];
__asm__(".section .rodata\n"
	".balign 8\n"
	".globl cg_unwind_bc\n"
	"cg_unwind_bc:\n"
	".incbin \"" SONDE_GEN_DIR "/unwind.bc\"\n"
	".globl cg_unwind_bc_end\n"
	"cg_unwind_bc_end:\n"
	".previous\n");

int cg_link_bitcode(struct cg_ctx *cg, const void *bc, size_t size, const char *name)
{
	LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRange(bc, size, name, 0);
	LLVMModuleRef src = NULL;
	bool bad = LLVMParseBitcodeInContext2(cg->ctx, mb, &src);
	LLVMDisposeMemoryBuffer(mb);
	if (bad || !src)
		return -EBADMSG;
	LLVMSetTarget(src, LLVMGetTarget(cg->mod));
	LLVMSetDataLayout(src, LLVMGetDataLayoutStr(cg->mod));
	for (LLVMValueRef g = LLVMGetFirstGlobal(src); g; g = LLVMGetNextGlobal(g)) {
		const char *sec = LLVMGetSection(g);
		if (sec && !strcmp(sec, ".maps"))
			LLVMSetLinkage(g, cg->split ? LLVMWeakAnyLinkage : LLVMExternalLinkage);
	}
	return LLVMLinkModules2(cg->mod, src) ? -EINVAL : 0;
}

static LLVMValueRef link_walker(struct cg_ctx *cg)
{
	int err = cg_link_bitcode(cg, cg_unwind_bc, (size_t)(cg_unwind_bc_end - cg_unwind_bc), "unwind.bc");
	LLVMValueRef fn = err ? NULL : LLVMGetNamedFunction(cg->mod, UNW_FUNC);
	if (!fn)
		fprintf(stderr, "sonde: internal error: the embedded stack walker does not %s\n",
			err == -EBADMSG ? "parse" : "link");
	return fn;
}

LLVMValueRef cg_unwind_user(struct cg_ctx *cg, LLVMValueRef buf, uint32_t size, LLVMValueRef pid,
			    uint32_t flags)
{
	LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, UNW_FUNC);
	if (!fn && !(fn = link_walker(cg)))
		return NULL;
	LLVMTypeRef params[] = {cg->ptr, cg->i32, cg->i32, cg->i32};
	LLVMTypeRef ft = LLVMFunctionType(cg->i64, params, 4, 0);
	LLVMValueRef args[] = {buf, LLVMConstInt(cg->i32, size, 0),
			       LLVMBuildTrunc(cg->b, pid, cg->i32, ""),
			       LLVMConstInt(cg->i32, flags, 0)};
	return LLVMBuildCall2(cg->b, ft, fn, args, 4, "ustack_bytes");
}
