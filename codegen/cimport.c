/*
 * cimport.c - BPF C the script imports (`import "lib.bpf.c";`): compiled,
 * linked into the program, its functions callable from the script.
 *
 * Before sema, cg_cimport_load() turns each C import (program.cimports,
 * parser/import.c) into LLVM bitcode: a file is compiled by a clang found
 * on the machine exactly as the Makefile compiles sonde's own BPF C
 * (codegen/bpfc/unwind.bpf.c): -target bpfel -O2 -g -emit-llvm; a module
 * of sonde's stdlib ("stdlib/test") was compiled so at build time and is
 * embedded (stdlib/modules.c), so it needs no clang at run time.  The
 * bitcode is parsed once here, in a context of its own, for the
 * signatures of the functions it defines (not the static ones): integer
 * and pointer arguments and results from the IR's types, an integer's
 * signedness from the debug info's base type (the IR has none), and a
 * struct, union or floating-point value named as what the script cannot
 * pass (stdlib/cfunc.c reports it at a call).
 *
 * cg_cimport_link() links the bitcode into each module the compile makes
 * (LLVMLinkModules2, as codegen/unwind.c links the stack walker) and makes
 * the imported functions internal and always inlined (cg_cimport_inline
 * runs the inliner before the module is emitted).  Not calls: the BTF of
 * a function clang compiled says "global" (its debug info does, whatever
 * the IR's linkage), and the kernel verifies a global function alone,
 * with any argument its BTF type allows: a `const char *` is then a
 * pointer that may be NULL, and the string the script passes is refused.
 * Inlined, the verifier checks the code with the caller's arguments.  Module flags: clang's "Dwarf Version" is
 * behaviour Max (5), sonde's Warning (4); LLVM 16's linker accepts that
 * pair and warns (ignored, as sonde's diagnostic handler keeps errors
 * only), where two different behaviours other than Max/Min against
 * Warning would be refused.  The build-time rewrite of unwind.bc's flag
 * keeps that file at Warning 4 whatever comes first.
 */
#include "codegen/cg_int.h"
#include "common/file.h"

#include <errno.h>
#include <fcntl.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/DebugInfo.h>
#include <llvm-c/Linker.h>
#include <llvm-c/Transforms/IPO.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

/* the clang to compile with: $SONDE_CLANG, else the newest LLVM 16 reads
 * the bitcode of (clang 17+ writes bitcode LLVM 16 may refuse) */
static const char *const clang_names[] = {"clang-16", "clang-15", "clang-14", "clang"};

static const char *find_clang(struct arena *a, char *looked, size_t cap)
{
	char path[4096];
	const char *env = getenv("SONDE_CLANG");
	size_t used = 0;
	looked[0] = '\0';
	if (env && *env) {
		if (file_which(env, path, sizeof(path)))
			return arena_strdup(a, path);
		used += (size_t)snprintf(looked, cap, "$SONDE_CLANG (%s), ", env);
	}
	for (size_t i = 0; i < sizeof(clang_names) / sizeof(clang_names[0]); i++) {
		if (file_which(clang_names[i], path, sizeof(path)))
			return arena_strdup(a, path);
		if (used < cap)
			used += (size_t)snprintf(looked + used, cap - used, "%s%s", clang_names[i],
						 i + 2 < sizeof(clang_names) / sizeof(clang_names[0]) ?
						 ", " : i + 1 < sizeof(clang_names) / sizeof(clang_names[0]) ?
						 " and " : "");
	}
	return NULL;
}

/* clang FILE to bitcode in the arena; its messages go to stderr */
static int compile_c(struct arena *a, const char *clang, const char *file, const void **bc,
		     size_t *size)
{
	int fd = memfd_create("sonde-cimport", MFD_CLOEXEC);	/* clang gets it as its stdout only */
	if (fd < 0)
		return -errno;
	const char *slash = strrchr(file, '/');
	const char *dir = slash ? arena_strndup(a, file, (size_t)(slash - file)) : ".";
	struct utsname un;
	const char *multiarch = !uname(&un) ? arena_printf(a, "-I/usr/include/%s-linux-gnu",
							    un.machine) : "-I/usr/include";
	const char *argv[] = {clang, "-target", "bpfel", "-O2", "-g", "-emit-llvm", "-c",
			      arena_printf(a, "-I%s", dir), multiarch, "-o", "-", file, NULL};
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd, STDOUT_FILENO);
	pid_t pid;
	int rc = posix_spawn(&pid, clang, &fa, NULL, (char *const *)argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	if (rc) {
		close(fd);
		return -rc;
	}
	int status = 0;
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		close(fd);
		return -EINVAL;
	}
	struct stat sb;
	if (fstat(fd, &sb) || sb.st_size <= 0) {
		close(fd);
		return -EIO;
	}
	char *buf = arena_alloc(a, (size_t)sb.st_size);
	ssize_t got = pread(fd, buf, (size_t)sb.st_size, 0);
	close(fd);
	if (got != sb.st_size)
		return -EIO;
	*bc = buf;
	*size = (size_t)sb.st_size;
	return 0;
}

/* ---- signatures ------------------------------------------------------------ */

static LLVMMetadataRef md_operand(LLVMContextRef ctx, LLVMMetadataRef md, LLVMMetadataKind kind,
				  unsigned from)
{
	LLVMValueRef v = LLVMMetadataAsValue(ctx, md);
	unsigned n = LLVMGetMDNodeNumOperands(v);
	if (!n || n > 64)
		return NULL;
	LLVMValueRef ops[64];
	LLVMGetMDNodeOperands(v, ops);
	for (unsigned i = from; i < n; i++)
		if (ops[i]) {
			LLVMMetadataRef m = LLVMValueAsMetadata(ops[i]);
			if (LLVMGetMetadataKind(m) == kind)
				return m;
		}
	return NULL;
}

static bool is_di_type(LLVMMetadataKind k)
{
	return k == LLVMDIBasicTypeMetadataKind || k == LLVMDIDerivedTypeMetadataKind ||
	       k == LLVMDICompositeTypeMetadataKind || k == LLVMDISubroutineTypeMetadataKind;
}

/* the subprogram's types: [0] the result (NULL: void), then the params */
static int di_types(LLVMContextRef ctx, LLVMValueRef fn, LLVMMetadataRef *out, int max)
{
	LLVMMetadataRef sp = LLVMGetSubprogram(fn);
	LLVMMetadataRef st = sp ? md_operand(ctx, sp, LLVMDISubroutineTypeMetadataKind, 0) : NULL;
	LLVMMetadataRef arr = st ? md_operand(ctx, st, LLVMMDTupleMetadataKind, 0) : NULL;
	if (!arr)
		return 0;
	LLVMValueRef v = LLVMMetadataAsValue(ctx, arr);
	unsigned n = LLVMGetMDNodeNumOperands(v);
	if ((int)n > max)
		n = (unsigned)max;
	LLVMValueRef ops[CG_CFUNC_MAX_ARGS + 8];
	if (n > sizeof(ops) / sizeof(ops[0]))
		return 0;
	LLVMGetMDNodeOperands(v, ops);
	for (unsigned i = 0; i < n; i++)
		out[i] = ops[i] ? LLVMValueAsMetadata(ops[i]) : NULL;
	return (int)n;
}

/* typedefs, const and volatile stripped: their base type (a derived
 * type's base is the first type among its operands after the name) */
static LLVMMetadataRef di_strip(LLVMContextRef ctx, LLVMMetadataRef t)
{
	for (int i = 0; t && i < 16 && LLVMGetMetadataKind(t) == LLVMDIDerivedTypeMetadataKind &&
			!LLVMDITypeGetSizeInBits(t); i++) {
		LLVMValueRef v = LLVMMetadataAsValue(ctx, t);
		unsigned n = LLVMGetMDNodeNumOperands(v);
		LLVMValueRef ops[16];
		if (n > 16)
			return t;
		LLVMGetMDNodeOperands(v, ops);
		LLVMMetadataRef base = NULL;
		for (unsigned k = 3; k < n && !base; k++)
			if (ops[k] && is_di_type(LLVMGetMetadataKind(LLVMValueAsMetadata(ops[k]))))
				base = LLVMValueAsMetadata(ops[k]);
		t = base;
	}
	return t;
}

static const char *di_name(struct arena *a, LLVMMetadataRef t)
{
	size_t len = 0;
	const char *n = t ? LLVMDITypeGetName(t, &len) : NULL;
	return n && len ? arena_strndup(a, n, len) : NULL;
}

/* an enum's composite type holds enumerators */
static bool di_is_enum(LLVMContextRef ctx, LLVMMetadataRef t)
{
	LLVMMetadataRef elems = md_operand(ctx, t, LLVMMDTupleMetadataKind, 0);
	return elems && md_operand(ctx, elems, LLVMDIEnumeratorMetadataKind, 0);
}

/* one argument or result: false (and *why) when the script cannot pass it */
static bool classify(struct arena *a, LLVMContextRef ctx, LLVMTypeRef ty, LLVMMetadataRef di,
		     struct cg_cval *out, const char **why)
{
	LLVMMetadataRef base = di_strip(ctx, di);
	if (base && LLVMGetMetadataKind(base) == LLVMDICompositeTypeMetadataKind &&
	    !di_is_enum(ctx, base)) {
		const char *n = di_name(a, base);
		*why = n ? arena_printf(a, "'%s' (a struct, union or array by value)", n)
			 : "a struct, union or array by value";
		return false;
	}
	switch (LLVMGetTypeKind(ty)) {
	case LLVMVoidTypeKind:
		out->bits = 0;
		return true;
	case LLVMPointerTypeKind:
		out->is_ptr = true;
		out->bits = 64;
		return true;
	case LLVMIntegerTypeKind: {
		unsigned w = LLVMGetIntTypeWidth(ty);
		if (w > 64)
			break;
		out->bits = (uint8_t)(w <= 8 ? 8 : w <= 16 ? 16 : w <= 32 ? 32 : 64);
		const char *n = base && LLVMGetMetadataKind(base) == LLVMDIBasicTypeMetadataKind
					? di_name(a, base) : NULL;
		out->is_signed = !(w == 1 || (n && (strstr(n, "unsigned") || !strcmp(n, "_Bool") ||
						     !strcmp(n, "bool"))));
		return true;
	}
	case LLVMHalfTypeKind: case LLVMBFloatTypeKind: case LLVMFloatTypeKind:
	case LLVMDoubleTypeKind: case LLVMX86_FP80TypeKind: case LLVMFP128TypeKind:
	case LLVMPPC_FP128TypeKind: case LLVMLabelTypeKind: case LLVMFunctionTypeKind:
	case LLVMStructTypeKind: case LLVMArrayTypeKind: case LLVMVectorTypeKind:
	case LLVMMetadataTypeKind: case LLVMX86_MMXTypeKind: case LLVMTokenTypeKind:
	case LLVMScalableVectorTypeKind: case LLVMX86_AMXTypeKind: case LLVMTargetExtTypeKind:
		break;
	}
	const char *n = di_name(a, base);
	char *s = LLVMPrintTypeToString(ty);
	*why = arena_printf(a, "'%s'", n ? n : s);
	LLVMDisposeMessage(s);
	return false;
}

static void list_functions(struct arena *a, LLVMContextRef ctx, LLVMModuleRef m, const char *file,
			   struct cg_cimports *out)
{
	for (LLVMValueRef fn = LLVMGetFirstFunction(m); fn; fn = LLVMGetNextFunction(fn)) {
		size_t nlen;
		const char *name = LLVMGetValueName2(fn, &nlen);
		if (LLVMIsDeclaration(fn) || LLVMGetLinkage(fn) == LLVMInternalLinkage ||
		    LLVMGetLinkage(fn) == LLVMPrivateLinkage || !strncmp(name, "llvm.", 5))
			continue;
		struct cg_cfunc f = {.name = arena_strndup(a, name, nlen), .file = file};
		LLVMTypeRef ft = LLVMGlobalGetValueType(fn);
		unsigned np = LLVMCountParamTypes(ft);
		LLVMMetadataRef di[CG_CFUNC_MAX_ARGS + 2] = {0};
		int ndi = di_types(ctx, fn, di, CG_CFUNC_MAX_ARGS + 2);
		if (LLVMIsFunctionVarArg(ft)) {
			f.unsupported = "it takes a variable number of arguments";
		} else if (np > CG_CFUNC_MAX_ARGS) {
			f.unsupported = arena_printf(a, "it takes %u arguments, more than the %d BPF "
						     "passes", np, CG_CFUNC_MAX_ARGS);
		} else if (ndi && ndi != (int)np + 1) {
			f.unsupported = "its result is a struct or union (returned through memory)";
		} else {
			LLVMTypeRef pt[CG_CFUNC_MAX_ARGS];
			LLVMGetParamTypes(ft, pt);
			const char *why = NULL;
			if (!classify(a, ctx, LLVMGetReturnType(ft), ndi ? di[0] : NULL, &f.ret, &why))
				f.unsupported = arena_printf(a, "its result is %s", why);
			for (unsigned i = 0; i < np && !f.unsupported; i++)
				if (!classify(a, ctx, pt[i], ndi ? di[i + 1] : NULL, &f.params[i], &why))
					f.unsupported = arena_printf(a, "its argument %u is %s", i + 1,
								     why);
			f.nparams = (int)np;
		}
		out->funcs = arena_grow(a, out->funcs, (size_t)out->nfuncs, sizeof(*out->funcs));
		out->funcs[out->nfuncs++] = f;
	}
}

/* parse bc in a context of its own and list its functions */
static int add_bitcode(struct arena *a, struct diag *d, const struct ast_cimport *ci,
		       const char *file, const void *bc, size_t size, struct cg_cimports *out)
{
	LLVMContextRef ctx = LLVMContextCreate();
	LLVMMemoryBufferRef mb = LLVMCreateMemoryBufferWithMemoryRange(bc, size, file, 0);
	LLVMModuleRef m = NULL;
	bool bad = LLVMParseBitcodeInContext2(ctx, mb, &m);
	LLVMDisposeMemoryBuffer(mb);
	if (bad || !m) {
		diag_error(d, ci->loc, "import: the bitcode clang made of %s does not parse in "
			   "LLVM 16 (a clang newer than LLVM 16 writes bitcode it cannot read: set "
			   "SONDE_CLANG to clang-16 or older)", file);
		LLVMContextDispose(ctx);
		return -1;
	}
	list_functions(a, ctx, m, file, out);
	LLVMDisposeModule(m);
	LLVMContextDispose(ctx);
	for (int i = 0; i < out->n; i++)
		if (!strcmp(out->file[i], file))
			return 0;
	out->bc = arena_grow(a, out->bc, (size_t)out->n, sizeof(*out->bc));
	out->size = arena_grow(a, out->size, (size_t)out->n, sizeof(*out->size));
	out->file = arena_grow(a, out->file, (size_t)out->n, sizeof(*out->file));
	out->bc[out->n] = bc;
	out->size[out->n] = size;
	out->file[out->n++] = file;
	return 0;
}

/* "stdlib" or "stdlib/DIR" names the modules under it, a file itself */
static bool module_matches(const char *want, const char *name)
{
	size_t n = strlen(want);
	return !strcmp(want, name) || (!strncmp(want, name, n) && name[n] == '/');
}

int cg_cimport_load(struct arena *a, struct diag *d, const struct ast_node *program,
		    const struct cg_cmodule *modules, int nmodules, struct cg_cimports *out)
{
	memset(out, 0, sizeof(*out));
	const char *clang = NULL;
	for (const struct ast_cimport *ci = program->program.cimports; ci; ci = ci->next) {
		if (ci->module) {
			int found = 0;
			for (int i = 0; i < nmodules; i++)
				if (module_matches(ci->module, modules[i].name)) {
					found++;
					if (add_bitcode(a, d, ci, modules[i].name, modules[i].bc,
							modules[i].size, out))
						return -1;
				}
			if (!found) {
				const char *names = "";
				for (int i = 0; i < nmodules; i++) {
					const char *m = modules[i].name, *slash = strrchr(m, '/');
					names = arena_printf(a, "%s%s%.*s", names, *names ? ", " : "",
							     (int)(slash - m), m);
				}
				diag_error(d, ci->loc, "import \"%s\": no such file or directory: %s, and "
					   "sonde's stdlib has no module of that name (it has: %s)",
					   ci->module, ci->tried, names);
				return -1;
			}
			continue;
		}
		char looked[512];
		if (!clang && !(clang = find_clang(a, looked, sizeof(looked)))) {
			diag_error(d, ci->loc, "import \"%s\": compiling BPF C needs clang, and none was "
				   "found: looked for %s in PATH (`make deps` installs clang-14; or set "
				   "SONDE_CLANG)", ci->path, looked);
			return -1;
		}
		const void *bc = NULL;
		size_t size = 0;
		int err = compile_c(a, clang, ci->path, &bc, &size);
		if (err) {
			diag_error(d, ci->loc, "import \"%s\": %s could not compile it%s", ci->path, clang,
				   err == -EINVAL ? " (its messages are above)" :
				   arena_printf(a, ": %s", strerror(-err)));
			return -1;
		}
		if (add_bitcode(a, d, ci, ci->path, bc, size, out))
			return -1;
	}
	for (int i = 0; i < out->nfuncs; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(out->funcs[i].name, out->funcs[j].name)) {
				diag_error(d, program->program.cimports->loc, "import: the function '%s' is "
					   "defined by both %s and %s", out->funcs[i].name,
					   out->funcs[j].file, out->funcs[i].file);
				return -1;
			}
	return 0;
}

/* ---- in the module ------------------------------------------------------------ */

int cg_cimport_link(struct cg_ctx *cg)
{
	const struct cg_cimports *ci = cg->opts->cimports;
	for (int i = 0; ci && i < ci->n; i++) {
		int err = cg_link_bitcode(cg, ci->bc[i], ci->size[i], ci->file[i]);
		if (err == -EBADMSG)
			fprintf(stderr, "sonde: internal error: the bitcode of %s does not parse\n",
				ci->file[i]);
		else if (err)
			fprintf(stderr, "sonde: %s does not link into the program (a name it defines "
				"clashes with one of sonde's?)\n", ci->file[i]);
		if (err)
			return -EINVAL;
	}
	unsigned always = LLVMGetEnumAttributeKindForName("alwaysinline", 12);
	unsigned never = LLVMGetEnumAttributeKindForName("noinline", 8);
	for (int i = 0; ci && i < ci->nfuncs; i++) {
		LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, ci->funcs[i].name);
		if (!fn || LLVMIsDeclaration(fn))
			continue;
		LLVMSetLinkage(fn, LLVMInternalLinkage);
		LLVMRemoveEnumAttributeAtIndex(fn, LLVMAttributeFunctionIndex, never);
		LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
					   LLVMCreateEnumAttribute(cg->ctx, always, 0));
	}
	return 0;
}

void cg_cimport_inline(struct cg_ctx *cg)
{
	if (!cg->opts->cimports)
		return;
	/* the inliner alone: a global-DCE pass would drop what nothing refers
	 * to, a split module's internal _license among it */
	LLVMPassManagerRef pm = LLVMCreatePassManager();
	LLVMAddAlwaysInlinerPass(pm);
	LLVMRunPassManager(pm, cg->mod);
	LLVMDisposePassManager(pm);
}

LLVMValueRef cg_cfunc_call(struct cg_ctx *cg, const struct cg_cfunc *f, LLVMValueRef *args)
{
	LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, f->name);
	if (!fn)
		return NULL;
	LLVMTypeRef ft = LLVMGlobalGetValueType(fn);
	LLVMTypeRef pt[CG_CFUNC_MAX_ARGS];
	LLVMGetParamTypes(ft, pt);
	LLVMValueRef v[CG_CFUNC_MAX_ARGS];
	for (int i = 0; i < f->nparams; i++) {
		LLVMValueRef x = args[i];
		bool xptr = LLVMGetTypeKind(LLVMTypeOf(x)) == LLVMPointerTypeKind;
		if (LLVMGetTypeKind(pt[i]) == LLVMPointerTypeKind) {
			v[i] = xptr ? x : LLVMBuildIntToPtr(cg->b, x, pt[i], "");
			continue;
		}
		if (xptr)
			x = LLVMBuildPtrToInt(cg->b, x, cg->i64, "");
		unsigned w = LLVMGetIntTypeWidth(pt[i]);
		v[i] = w < 64 ? LLVMBuildTrunc(cg->b, x, pt[i], "") : x;
	}
	LLVMValueRef r = LLVMBuildCall2(cg->b, ft, fn, v, (unsigned)f->nparams, "");
	LLVMTypeRef rt = LLVMGetReturnType(ft);
	LLVMTypeKind k = LLVMGetTypeKind(rt);
	if (k == LLVMPointerTypeKind)
		return LLVMBuildPtrToInt(cg->b, r, cg->i64, "");
	if (k != LLVMIntegerTypeKind)
		return NULL;
	if (LLVMGetIntTypeWidth(rt) == 64)
		return r;
	return f->ret.is_signed ? LLVMBuildSExt(cg->b, r, cg->i64, "")
				: LLVMBuildZExt(cg->b, r, cg->i64, "");
}
