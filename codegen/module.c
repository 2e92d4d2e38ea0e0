/*
 * module.c - the LLVM module around the probes: target, debug info, map
 * definitions, one function per BPF program, and the ELF at the end.
 *
 * libbpf reads map definitions from BTF, and LLVM writes BTF only from
 * debug info, so every map global and every function carries DI metadata:
 * a map is `struct { int (*type)[T]; int (*max_entries)[N];
 * int (*key_size)[K]; int (*value_size)[V]; }` in section ".maps" (the
 * shape of libbpf's __uint() macro).  Every function needs a DISubprogram
 * (LLVM 16's BTF emitter crashes without one) whose parameter has a named
 * DILocalVariable (the kernel rejects nameless BTF params), and is
 * `nounwind` so no .eh_frame appears.
 */
#include "codegen/cg_int.h"
#include "codegen/llvmdiag.h"
#include "common/settings.h"

#include <errno.h>
#include <setjmp.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sys/mman.h>

#include <bpf/libbpf.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/ErrorHandling.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/InstCombine.h>
#include <llvm-c/Transforms/Scalar.h>
#include <llvm-c/Transforms/Utils.h>

#include "common/arena.h"
#include "common/diag.h"
#include "common/explain.h"
#include "host/host.h"

enum { DW_ATE_signed = 5 };

/* ---- programs ------------------------------------------------------------ */

/* the provider's section; "tracepoint/CAT/NAME", "kprobe/FUNC" where
 * libbpf reads the attach point from it */
static const char *section_of(struct cg_ctx *cg, const struct sema_probe *p,
			      const struct sema_attach *at)
{
	const struct probe_provider *pv = sema_provider(at->type);

	if (!pv->section_names_point)
		return pv->section;
	/* a raw tracepoint typed by BTF: libbpf finds btf_trace_NAME */
	if (at->type == PT_RAWTRACEPOINT && p->btf_ctx)
		return arena_printf(cg->a, "tp_btf/%s", at->func);
	/* libbpf finds fentry/FUNC's BTF id itself, in vmlinux or a module */
	if (at->target && !at->kf && at->type != PT_RAWTRACEPOINT)
		return arena_printf(cg->a, "%s/%s/%s", pv->section, at->target, at->func);
	return arena_printf(cg->a, "%s/%s", pv->section, at->func);
}

LLVMValueRef cg_in_scope(struct cg_ctx *cg)
{
	LLVMValueRef ok = LLVMConstInt(cg->i1, 1, 0);
	if (cg->opts->filter_pid) {
		LLVMValueRef tg = cg_helper_call(cg, BPF_FUNC_get_current_pid_tgid, NULL, 0);
		LLVMValueRef pid = LLVMBuildLShr(cg->b, tg, cg_const(cg, 32), "pid");
		ok = LLVMBuildICmp(cg->b, LLVMIntEQ, pid,
				   cg_const(cg, (uint64_t)cg->opts->filter_pid), "");
	}
	if (cg->opts->filter_cgroup) {
		/*
		 * The ancestor at the container's level, not the task's own
		 * cgroup: engines and systemd put a container's processes in
		 * child cgroups of its scope (init.scope, a pod's containers,
		 * a process started with `docker exec` in a nested cgroup).
		 * The helper is allowed in every program type sonde attaches
		 * (uprobe, tracepoint, raw_tp, perf_event; t_containers.sh
		 * loads each), on kernels after 5.10.  A task whose cgroup is shallower than the
		 * level gets 0, which never equals a real id.
		 */
		LLVMValueRef in;
		if (host_feature(HF_ANCESTOR_CGROUP)) {
			LLVMValueRef lvl = cg_const(cg, (uint64_t)cg->opts->filter_cgroup_level);
			LLVMValueRef id = cg_helper_call(cg, BPF_FUNC_get_current_ancestor_cgroup_id, &lvl, 1);
			in = LLVMBuildICmp(cg->b, LLVMIntEQ, id, cg_const(cg, cg->opts->filter_cgroup), "");
		} else {
			/* 5.10 has that helper in cgroup programs only: there
			 * bpf_current_task_under_cgroup (4.9) asks the same
			 * of the cgroup in slot 0 of a cgroup array (the
			 * runtime puts the container's there) */
			LLVMValueRef map = LLVMGetNamedGlobal(cg->mod, CG_CGROUP_MAP);
			if (!map)
				map = cg_declare_map(cg, CG_CGROUP_MAP, BPF_MAP_TYPE_CGROUP_ARRAY, 1, 4, 4, 0);
			LLVMValueRef args[] = {map, cg_const(cg, 0)};
			LLVMValueRef r = cg_helper_call(cg, BPF_FUNC_current_task_under_cgroup, args, 2);
			in = LLVMBuildICmp(cg->b, LLVMIntEQ, r, cg_const(cg, 1), "");
		}
		ok = LLVMBuildAnd(cg->b, ok, in, "");
	}
	return ok;
}

static void emit_filters(struct cg_ctx *cg)
{
	const struct sema_attach *at = cg->attach;
	if (cg->r->stops && at->type != PT_BEGIN && at->type != PT_END)
		cg_return_if_stopped(cg);
	/* interval probes are timers, not events of a task: the task they
	 * interrupt is whatever ran on CPU 0, so -p/--container would make
	 * `interval:s:1 { print(@); }` silent.  A script that reads in_scope
	 * decides for itself: the scheduler's and the block layer's
	 * tracepoints run in another task's context than the one they are
	 * about (the waker, the interrupted task). */
	if (!(sema_provider(at->type)->ctx & PC_TASK))
		return;
	if (cg->opts->exclude_pid) {
		/* --exclude-self: what sonde does to print an event (a write,
		 * a malloc) must not become another event */
		LLVMValueRef tg = cg_helper_call(cg, BPF_FUNC_get_current_pid_tgid, NULL, 0);
		LLVMValueRef pid = LLVMBuildLShr(cg->b, tg, cg_const(cg, 32), "pid");
		struct cg_if f = cg_begin_if(cg, LLVMBuildICmp(cg->b, LLVMIntEQ, pid,
							       cg_const(cg, (uint64_t)cg->opts->exclude_pid), ""),
					     "self");
		cg_return(cg);
		cg_end_if(cg, &f);
	}
	if (cg->r->own_scope || (!cg->opts->filter_pid && !cg->opts->filter_cgroup))
		return;
	struct cg_if f = cg_begin_if(cg, LLVMBuildNot(cg->b, cg_in_scope(cg), ""), "outofscope");
	cg_return(cg);
	cg_end_if(cg, &f);
}

/* a program's name: its (first) attach point, as bpftool prog shows
 * bpftrace's ("kprobe_ksys_read": the kernel keeps 15 characters of
 * letters, digits and '_'), then p<probe>_<attach>, which keeps it unique */
static const char *prog_name(struct cg_ctx *cg, const struct sema_attach *at, int probe, int first)
{
	char *name = arena_printf(cg->a, "%.48s_p%d_%d", at->name ? at->name : "probe", probe, first);
	for (char *c = name; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9')))
			*c = '_';
	return name;
}

static void emit_program(struct cg_ctx *cg, const struct sema_probe *p, int first, int n)
{
	const struct sema_attach *at = &p->attach[first];
	const char *name = prog_name(cg, at, p->index, first);
	LLVMTypeRef params[] = {cg->ptr};
	LLVMTypeRef fty = LLVMFunctionType(cg->i32, params, 1, 0);
	LLVMValueRef fn = LLVMAddFunction(cg->mod, name, fty);
	LLVMSetSection(fn, section_of(cg, p, at));
	LLVMSetLinkage(fn, LLVMExternalLinkage);
	unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
	LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
				LLVMCreateEnumAttribute(cg->ctx, nounwind, 0));
	LLVMValueRef arg = LLVMGetParam(fn, 0);
	LLVMSetValueName2(arg, "ctx", 3);

	/* debug info: int name(void *ctx) */
	LLVMMetadataRef tys[] = {cg->di_int, cg->di_ptr};
	LLVMMetadataRef sty = LLVMDIBuilderCreateSubroutineType(cg->dib, cg->di_file, tys, 2, 0);
	int line = p->node->loc.line > 0 ? p->node->loc.line : 1;
	LLVMMetadataRef sp = LLVMDIBuilderCreateFunction(cg->dib, cg->di_file, name, strlen(name),
							 name, strlen(name), cg->di_file, (unsigned)line,
							 sty, 0, 1, (unsigned)line, LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(fn, sp);
	LLVMMetadataRef pv = LLVMDIBuilderCreateParameterVariable(cg->dib, sp, "ctx", 3, 1, cg->di_file,
								  (unsigned)line, cg->di_ptr, 1, 0);
	cg->fn = fn;
	cg->stacks = arena_grow(cg->a, cg->stacks, (size_t)cg->nstacks, sizeof(*cg->stacks));
	cg->stacks[cg->nstacks++] = (struct cg_fn_stack){.fn = fn};
	cg->ctx_arg = arg;
	cg->di_sp = sp;
	cg->probe = p;
	cg->attach = at;
	cg->vars = NULL;
	cg->loop = NULL;
	cg->reads_cookie = false;
	cg->entry = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
	LLVMPositionBuilderAtEnd(cg->b, cg->entry);
	cg_set_loc(cg, p->node->loc);
	LLVMMetadataRef dl = LLVMDIBuilderCreateDebugLocation(cg->ctx, (unsigned)line, 1, sp, NULL);
	LLVMDIBuilderInsertDbgValueAtEnd(cg->dib, arg, pv, LLVMDIBuilderCreateExpression(cg->dib, NULL, 0),
					 dl, cg->entry);
	/* fresh blocks after the allocas' entry block keep allocas first */
	cg->init = LLVMAppendBasicBlockInContext(cg->ctx, fn, "init");
	cg->frame_slot = cg->frame_base = NULL;
	cg->frame_size = 0;
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cg->ctx, fn, "body");
	LLVMPositionBuilderAtEnd(cg->b, body);

	emit_filters(cg);
	if (p->node->probe.pred) {
		cg_set_loc(cg, p->node->probe.pred->loc);
		LLVMValueRef c = cg_cond(cg, p->node->probe.pred);
		LLVMValueRef no = LLVMBuildNot(cg->b, c, "");
		struct cg_if f = cg_begin_if(cg, no, "pred");
		cg_return(cg);
		cg_end_if(cg, &f);
	}
	cg_stmt(cg, p->node->probe.body);
	cg->stacks[cg->nstacks - 1].vars = cg->vars;
	if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(cg->b)))
		LLVMBuildRet(cg->b, LLVMConstInt(cg->i32, 0, 0));
	/* entry falls through to init, and init to body, once all allocas and
	 * frame slots are placed */
	LLVMPositionBuilderAtEnd(cg->b, cg->init);
	LLVMBuildBr(cg->b, body);
	LLVMPositionBuilderAtEnd(cg->b, cg->entry);
	if (cg->frame_size)
		cg_emit_frame(cg, name);
	LLVMBuildBr(cg->b, cg->init);
	cg->init = NULL;
	cg->di_sp = NULL;

	cg->progs = arena_grow(cg->a, cg->progs, (size_t)cg->nprogs, sizeof(*cg->progs));
	cg->progs[cg->nprogs++] = (struct cg_prog){name, p, first, n, cg->reads_cookie};
}

/* ---- driver ----------------------------------------------------------------- */

/*
 * A short function pipeline: promote stack slots to registers, fold and
 * clean up.  The whole O2 pipeline (libLLVMPasses) would add ~10 MB of
 * RSS at startup for nothing a probe body needs.
 */
static void optimize(LLVMModuleRef mod)
{
	LLVMPassManagerRef fpm = LLVMCreateFunctionPassManagerForModule(mod);
	LLVMAddScalarReplAggregatesPass(fpm);
	LLVMAddPromoteMemoryToRegisterPass(fpm);
	LLVMAddEarlyCSEPass(fpm);
	LLVMAddInstructionCombiningPass(fpm);
	LLVMAddCFGSimplificationPass(fpm);
	LLVMAddDeadStoreEliminationPass(fpm);
	LLVMAddAggressiveDCEPass(fpm);
	LLVMAddCFGSimplificationPass(fpm);
	LLVMInitializeFunctionPassManager(fpm);
	for (LLVMValueRef f = LLVMGetFirstFunction(mod); f; f = LLVMGetNextFunction(f))
		if (LLVMCountBasicBlocks(f))
			LLVMRunFunctionPassManager(fpm, f);
	LLVMFinalizeFunctionPassManager(fpm);
	LLVMDisposePassManager(fpm);
}

static void init_llvm(void)
{
	static int done;
	if (done)
		return;
	LLVMInitializeBPFTargetInfo();
	LLVMInitializeBPFTarget();
	LLVMInitializeBPFTargetMC();
	LLVMInitializeBPFAsmPrinter();
	LLVMInitializeBPFAsmParser();	/* inline asm: cg_ksym_btf's ld_imm64 */
	done = 1;
}

/*
 * Compile time must grow linearly with the script.  LLVM 16's BTF writer
 * looks each string up by a linear scan of all the strings of the module
 * (BTFStringTable::addString), and a map or program adds a few strings
 * and a few dozen lookups (names, members, one per line-info entry), so
 * one module of N probes costs O(N^2): 1,000 probes with a map each took
 * 12 s, two thirds of it in that scan.  So a large script is compiled as
 * several modules of at most CG_MODULE_PROGS programs, each with the maps
 * it uses (weak, identical definitions), and libbpf's BPF linker joins
 * the objects into one: its string tables and BTF deduplication are
 * hashed.  A small script is one module, as before, and is not linked.
 */
enum { CG_MODULE_PROGS = 48 };

struct cg_driver {
	struct cg_ctx *cg;
	LLVMTargetMachineRef tm;
	struct cg_llvm_errors *lerr;
	bool broken;		/* an LLVM fatal error: its context is abandoned */
	bool broken_link;	/* imported C did not link (said) */
	const char *srcname;	/* the DIFile: the private copy of the source */
	const char *srcdir;
	/* finished modules' objects */
	void **objs;
	size_t *sizes;
	int nobjs;
	/* split: the private copy of the source, rewritten for each module */
	const char *srcpath;
	int *line_owner;	/* per line: the probe it belongs to, or LINE_ANY */
	int nlines;
	bool *in_module;	/* per probe: has a program in this module */
	int mod_probes[CG_MODULE_PROGS], nmod_probes;
};

enum { LINE_ANY = -1, LINE_SHARED = -2 };

/*
 * LLVM's BTF writer reads the whole source file again for each module and
 * splits it into lines, one std::string each (populateFileContent), so
 * 10,000 probes in 209 modules read 10,000 lines 209 times.  Before a
 * module is emitted, its private copy holds only what its line info can
 * point at: lines outside every probe (definitions, macros), lines that
 * several probes share, and the lines of its own probes.  The other
 * probes' lines are left empty, so that line numbers stand.
 */
static void source_index(struct cg_driver *dr, const struct sema_result *r, const char *src)
{
	int n = 1;
	for (const char *p = src; *p; p++)
		n += *p == '\n';
	dr->nlines = n;
	dr->line_owner = arena_new_array(dr->cg->a, int, n + 1);
	for (int l = 0; l <= n; l++)
		dr->line_owner[l] = LINE_ANY;
	for (int i = 0; i < r->nprobes; i++) {
		struct src_loc loc = r->probes[i].node->loc;
		for (int l = loc.line > 0 ? loc.line : 1; l <= loc.end_line && l <= n; l++)
			dr->line_owner[l] = dr->line_owner[l] == LINE_ANY || dr->line_owner[l] == i
						    ? i : LINE_SHARED;
	}
	dr->in_module = arena_new_array(dr->cg->a, bool, r->nprobes ? r->nprobes : 1);
}

static void module_source(struct cg_driver *dr)
{
	const char *src = dr->cg->opts->src;
	if (!dr->srcpath || !dr->line_owner)
		return;
	for (int i = 0; i < dr->nmod_probes; i++)
		dr->in_module[dr->mod_probes[i]] = true;
	FILE *f = fopen(dr->srcpath, "w");
	int line = 1;
	for (const char *p = src; f && *p; line++) {
		const char *nl = strchr(p, '\n');
		size_t len = nl ? (size_t)(nl - p) : strlen(p);
		int own = line <= dr->nlines ? dr->line_owner[line] : LINE_ANY;
		if (own < 0 || dr->in_module[own])
			fwrite(p, 1, len, f);
		if (nl)
			fputc('\n', f);
		p += len + (nl != NULL);
	}
	if (f)
		fclose(f);
	for (int i = 0; i < dr->nmod_probes; i++)
		dr->in_module[dr->mod_probes[i]] = false;
	dr->nmod_probes = 0;
}

/* a fresh module with its debug-info frame, license and the two maps
 * every program may use */
static void module_begin(struct cg_driver *dr)
{
	struct cg_ctx *cg = dr->cg;
	cg->mod = LLVMModuleCreateWithNameInContext("sonde", cg->ctx);
	LLVMSetTarget(cg->mod, "bpfel");
	LLVMTargetDataRef td = LLVMCreateTargetDataLayout(dr->tm);
	LLVMSetModuleDataLayout(cg->mod, td);
	LLVMDisposeTargetData(td);
	LLVMAddModuleFlag(cg->mod, LLVMModuleFlagBehaviorWarning, "Debug Info Version", 18,
			  LLVMValueAsMetadata(LLVMConstInt(cg->i32, LLVMDebugMetadataVersion(), 0)));
	LLVMAddModuleFlag(cg->mod, LLVMModuleFlagBehaviorWarning, "Dwarf Version", 13,
			  LLVMValueAsMetadata(LLVMConstInt(cg->i32, 4, 0)));
	cg->dib = LLVMCreateDIBuilder(cg->mod);
	cg->di_file = LLVMDIBuilderCreateFile(cg->dib, dr->srcname, strlen(dr->srcname),
					      dr->srcdir, strlen(dr->srcdir));
	cg->di_cu = LLVMDIBuilderCreateCompileUnit(cg->dib, LLVMDWARFSourceLanguageC, cg->di_file,
						   "sonde", 5, 1, "", 0, 0, "", 0,
						   LLVMDWARFEmissionFull, 0, 0, 0, "", 0, "", 0);
	cg->di_int = LLVMDIBuilderCreateBasicType(cg->dib, "int", 3, 32, DW_ATE_signed, 0);
	cg->di_ptr = LLVMDIBuilderCreatePointerType(cg->dib, NULL, 64, 64, 0, "", 0);

	/* config = { license = "Dual BSD/GPL" }: one of the GPL-compatible
	 * licences (common/settings.c refuses the others) */
	const char *license = settings_word(SET_LICENSE);
	size_t llen = strlen(license);
	LLVMValueRef lic = LLVMAddGlobal(cg->mod, LLVMArrayType(cg->i8, (unsigned)llen + 1), "_license");
	LLVMSetInitializer(lic, LLVMConstStringInContext(cg->ctx, license, (unsigned)llen, 0));
	LLVMSetSection(lic, "license");
	if (cg->split)	/* the linker wants BTF for global symbols */
		LLVMSetLinkage(lic, LLVMInternalLinkage);
	cg_maps_declare(cg);
	if (cg->opts->cimports && cg_cimport_link(cg))
		dr->broken_link = true;
}

/* emit the module; after an LLVM fatal error its context is abandoned */
static int guarded(struct cg_driver *dr, LLVMCodeGenFileType type, char **err,
		   LLVMMemoryBufferRef *buf, bool *failed)
{
	if (!cg_llvm_emit_guarded(dr->cg, dr->tm, type, err, buf, failed))
		return 0;
	dr->broken = true;
	return 1;
}

/* verify, optimize and emit the current module; its object joins dr->objs */
static int module_end(struct cg_driver *dr)
{
	struct cg_ctx *cg = dr->cg;
	const struct cg_opts *opts = cg->opts;
	char *err = NULL;
	int rc = 0;
	LLVMDIBuilderFinalize(cg->dib);
	if (LLVMVerifyModule(cg->mod, LLVMReturnStatusAction, &err)) {
		fprintf(stderr, "sonde: internal error: invalid LLVM IR:\n%s\n", err);
		if (opts->emit_ir)
			LLVMDumpModule(cg->mod);
		rc = -EINVAL;
		goto out;
	}
	LLVMDisposeMessage(err);
	err = NULL;
	module_source(dr);

	cg_cimport_inline(cg);
	optimize(cg->mod);
	if (opts->emit_ir) {
		char *ir = LLVMPrintModuleToString(cg->mod);
		cg_print_ir(opts->out, ir, opts->src);
		LLVMDisposeMessage(ir);
	}
	if (opts->emit_asm) {
		LLVMMemoryBufferRef abuf;
		bool failed = false;
		if (guarded(dr, LLVMAssemblyFile, &err, &abuf, &failed))
			return -E2BIG;
		if (!failed) {
			size_t n = LLVMGetBufferSize(abuf);
			char *text = malloc(n + 1);
			if (text) {	/* the buffer has no terminating NUL */
				memcpy(text, LLVMGetBufferStart(abuf), n);
				text[n] = '\0';
				cg_print_asm(opts->out, text, opts->src);
				free(text);
			}
			LLVMDisposeMemoryBuffer(abuf);
		}
		LLVMDisposeMessage(err);
		err = NULL;
	}
	LLVMMemoryBufferRef obuf;
	bool failed = false;
	if (guarded(dr, LLVMObjectFile, &err, &obuf, &failed))
		return -E2BIG;
	if (failed) {
		fprintf(stderr, "sonde: internal error: BPF code generation failed: %s\n", err);
		rc = -EINVAL;
		goto out;
	}
	if (dr->lerr->n) {
		cg_llvm_report_error(cg, dr->lerr->first);
		LLVMDisposeMemoryBuffer(obuf);
		rc = -E2BIG;
		goto out;
	}
	size_t n = LLVMGetBufferSize(obuf);
	void *copy = malloc(n ? n : 1);
	if (copy) {
		memcpy(copy, LLVMGetBufferStart(obuf), n);
		dr->objs = arena_grow(cg->a, dr->objs, (size_t)dr->nobjs, sizeof(*dr->objs));
		dr->sizes = arena_grow(cg->a, dr->sizes, (size_t)dr->nobjs, sizeof(*dr->sizes));
		dr->objs[dr->nobjs] = copy;
		dr->sizes[dr->nobjs++] = n;
	} else {
		rc = -ENOMEM;
	}
	LLVMDisposeMemoryBuffer(obuf);
out:
	LLVMDisposeMessage(err);
	LLVMDisposeDIBuilder(cg->dib);
	LLVMDisposeModule(cg->mod);
	cg->dib = NULL;
	cg->mod = NULL;
	return rc;
}

/* Join the modules' objects with libbpf's BPF linker (it reads and writes
 * files: memfds here) into one malloc'd ELF image. */
static int link_objects(struct cg_driver *dr, void **elf, size_t *size)
{
	char path[64];
	int rc = 0, outfd = memfd_create("sonde-bpf", MFD_CLOEXEC);
	if (outfd < 0)
		return -errno;
	snprintf(path, sizeof(path), "/proc/self/fd/%d", outfd);
	struct bpf_linker *lk = bpf_linker__new(path, NULL);
	if (!lk) {
		rc = -errno;
		goto out;
	}
	for (int i = 0; i < dr->nobjs && !rc; i++) {
		int fd = memfd_create("sonde-bpf-part", MFD_CLOEXEC);
		if (fd < 0) {
			rc = -errno;
			break;
		}
		char in[64];
		snprintf(in, sizeof(in), "/proc/self/fd/%d", fd);
		if (write(fd, dr->objs[i], dr->sizes[i]) != (ssize_t)dr->sizes[i])
			rc = -EIO;
		else
			rc = bpf_linker__add_file(lk, in, NULL);
		close(fd);
	}
	if (!rc)
		rc = bpf_linker__finalize(lk);
	bpf_linker__free(lk);
	if (rc)
		goto out;
	off_t end = lseek(outfd, 0, SEEK_END);
	*elf = end > 0 ? malloc((size_t)end) : NULL;
	if (!*elf) {
		rc = -ENOMEM;
		goto out;
	}
	if (pread(outfd, *elf, (size_t)end, 0) != end) {
		free(*elf);
		*elf = NULL;
		rc = -EIO;
		goto out;
	}
	*size = (size_t)end;
out:
	close(outfd);
	if (rc)
		fprintf(stderr, "sonde: internal error: linking the BPF objects failed: %s\n",
			strerror(-rc));
	return rc;
}

int cg_compile(struct arena *a, const struct sema_result *r, const struct cg_opts *opts,
	       struct cg_object *out)
{
	init_llvm();
	LLVMInstallFatalErrorHandler(cg_llvm_on_fatal);
	char *err = NULL;
	LLVMTargetRef target;
	if (LLVMGetTargetFromTriple("bpfel", &target, &err)) {
		fprintf(stderr, "sonde: LLVM has no BPF target: %s\n", err);
		LLVMDisposeMessage(err);
		return -ENOTSUP;
	}
	struct cg_ctx cg = {.a = a, .r = r, .opts = opts};
	cg.ctx = LLVMContextCreate();
	struct cg_llvm_errors lerr = {.n = 0};
	LLVMContextSetDiagnosticHandler(cg.ctx, cg_llvm_on_diag, &lerr);
	cg.b = LLVMCreateBuilderInContext(cg.ctx);
	cg.i1 = LLVMInt1TypeInContext(cg.ctx);
	cg.i8 = LLVMInt8TypeInContext(cg.ctx);
	cg.i32 = LLVMInt32TypeInContext(cg.ctx);
	cg.i64 = LLVMInt64TypeInContext(cg.ctx);
	cg.ptr = LLVMPointerTypeInContext(cg.ctx, 0);
	struct cg_driver dr = {.cg = &cg, .lerr = &lerr};
	dr.tm = LLVMCreateTargetMachine(target, "bpfel", "v3", "", LLVMCodeGenLevelDefault,
					LLVMRelocStatic, LLVMCodeModelDefault);
	int rc = 0;

	/* LLVM's BTF writer copies each line's text into the line info by
	 * reading the DIFile from disk; a private copy of the source gives it
	 * the text even for -e programs */
	char srcpath[] = "/tmp/sonde-src-XXXXXX";
	int srcfd = opts->src ? mkstemp(srcpath) : -1;
	if (srcfd >= 0) {
		size_t n = strlen(opts->src);
		if (write(srcfd, opts->src, n) != (ssize_t)n) {
			unlink(srcpath);
			srcpath[0] = '\0';
		}
		close(srcfd);
	}
	dr.srcname = srcfd >= 0 && srcpath[0] ? srcpath + 5 : "sonde";
	dr.srcdir = srcfd >= 0 ? "/tmp" : ".";

	int total = 0;
	for (int i = 0; i < r->nprobes; i++)
		if (r->probes[i].nattach && !r->probes[i].left_out)
			total += r->probes[i].uses_args ? r->probes[i].nattach : 1;
	cg.split = total > CG_MODULE_PROGS;
	if (cg.split && srcfd >= 0 && srcpath[0]) {
		dr.srcpath = srcpath;
		source_index(&dr, r, opts->src);
	}

	module_begin(&dr);
	if (dr.broken_link)
		rc = -EINVAL;
	int in_module = 0;
	for (int i = 0; i < r->nprobes && !rc; i++) {
		const struct sema_probe *p = &r->probes[i];
		int nprog = !p->nattach || p->left_out ? 0 : p->uses_args ? p->nattach : 1;
		for (int j = 0; j < nprog && !rc; j++) {
			if (in_module == CG_MODULE_PROGS) {
				rc = module_end(&dr);
				if (rc)
					break;
				module_begin(&dr);
				in_module = 0;
				if (dr.broken_link) {
					rc = -EINVAL;
					break;
				}
			}
			emit_program(&cg, p, j, p->uses_args ? 1 : p->nattach);
			if (!dr.nmod_probes || dr.mod_probes[dr.nmod_probes - 1] != i)
				dr.mod_probes[dr.nmod_probes++] = i;
			in_module++;
		}
	}
	/* maps no program refers to (only printed, or cleared from
	 * userspace) still exist in the object: the runtime reads them */
	if (!rc)
		cg_maps_declare_unused(&cg);
	if (!rc)
		rc = module_end(&dr);
	else if (cg.mod)
		module_end(&dr);
	if (!rc && dr.nobjs == 1) {
		out->elf = dr.objs[0];
		out->elf_size = dr.sizes[0];
		dr.objs[0] = NULL;
	} else if (!rc) {
		rc = link_objects(&dr, &out->elf, &out->elf_size);
	}
	for (int i = 0; i < dr.nobjs; i++)
		free(dr.objs[i]);
	if (!rc) {
		out->progs = cg.progs;
		out->nprogs = cg.nprogs;
		out->sites = cg.sites;
		out->nsites = cg.nsites;
	}
	if (srcfd >= 0 && srcpath[0])
		unlink(srcpath);
	LLVMDisposeBuilder(cg.b);
	if (!dr.broken) {
		LLVMDisposeTargetMachine(dr.tm);
		LLVMContextDispose(cg.ctx);
	}
	return rc;
}
