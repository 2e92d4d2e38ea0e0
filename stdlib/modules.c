/*
 * modules.c - the modules of sonde's stdlib that a script imports by name
 * (`import "stdlib/test";`): BPF C under stdlib/modules/, compiled to LLVM
 * bitcode at build time (Makefile, as codegen/bpfc/unwind.bpf.c is) and
 * embedded here.  Embedded rather than installed: a module then needs no
 * clang on the machine that runs sonde, and cannot go missing or be
 * replaced beside the binary; codegen/cimport.c links one as it links a
 * script's own .bpf.c.
 */
#include "stdlib/stdlib.h"

#ifndef SONDE_GEN_DIR
#define SONDE_GEN_DIR "build/gen"
#endif

/* the bitcode of one module, between SYM and SYM_end */
#define EMBED(sym, file)						\
	extern const char sym[], sym##_end[];				\
	__asm__(".section .rodata\n"					\
		".balign 8\n"						\
		".globl " #sym "\n"					\
		#sym ":\n"						\
		".incbin \"" SONDE_GEN_DIR "/modules/" file "\"\n"	\
		".globl " #sym "_end\n"					\
		#sym "_end:\n"						\
		".previous\n")

EMBED(stdlib_mod_test, "test/test.bc");

static const struct {
	const char *name;
	const char *start, *end;
} modules[] = {
	{"stdlib/test/test.bpf.c", stdlib_mod_test, stdlib_mod_test_end},
};

int stdlib_cmodules(struct cg_cmodule *out, int max)
{
	int n = 0;
	for (size_t i = 0; i < sizeof(modules) / sizeof(modules[0]) && n < max; i++)
		out[n++] = (struct cg_cmodule){.name = modules[i].name, .bc = modules[i].start,
					       .size = (size_t)(modules[i].end - modules[i].start)};
	return n;
}
