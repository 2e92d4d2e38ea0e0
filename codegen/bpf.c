/*
 * bpf.c - the BPF-domain layer over the LLVM C API.
 *
 * Helper calls through inttoptr(helper id), stack memory that the verifier
 * accepts (allocas in the entry block, zeroed before use so map keys have
 * no uninitialised padding), map lookups with the null check the verifier
 * demands, probe reads, and ring-buffer events.  The rest of codegen and
 * stdlib/ speak these terms instead of raw IR.
 */
#include <errno.h>
#include "codegen/cg_int.h"

#include <string.h>

#include "common/arena.h"
#include "common/settings.h"

/* ---- the context's types, constants and source locations ------------------ */

LLVMBuilderRef cg_builder(struct cg_ctx *cg) { return cg->b; }
LLVMContextRef cg_context(struct cg_ctx *cg) { return cg->ctx; }
LLVMTypeRef cg_i8(struct cg_ctx *cg) { return cg->i8; }
LLVMTypeRef cg_i32(struct cg_ctx *cg) { return cg->i32; }
LLVMTypeRef cg_i64(struct cg_ctx *cg) { return cg->i64; }
LLVMTypeRef cg_ptr(struct cg_ctx *cg) { return cg->ptr; }
LLVMValueRef cg_ctx_arg(struct cg_ctx *cg) { return cg->ctx_arg; }
const struct sema_attach *cg_attach(struct cg_ctx *cg) { return cg->attach; }

bool cg_shared_program(struct cg_ctx *cg)
{
	return cg->probe->nattach > 1 && !cg->probe->uses_args;
}

LLVMValueRef cg_attach_cookie(struct cg_ctx *cg)
{
	cg->reads_cookie = true;
	LLVMValueRef args[] = {cg->ctx_arg};
	return cg_helper_call(cg, BPF_FUNC_get_attach_cookie, args, 1);
}
const struct sema_result *cg_sema(struct cg_ctx *cg) { return cg->r; }
const struct cg_opts *cg_options(struct cg_ctx *cg) { return cg->opts; }

LLVMValueRef cg_const(struct cg_ctx *cg, uint64_t v)
{
	return LLVMConstInt(cg->i64, v, 0);
}

void cg_set_loc(struct cg_ctx *cg, struct src_loc loc)
{
	if (!cg->di_sp || loc.line <= 0)
		return;
	LLVMMetadataRef l = LLVMDIBuilderCreateDebugLocation(cg->ctx, (unsigned)loc.line,
							     (unsigned)loc.col, cg->di_sp, NULL);
	LLVMSetCurrentDebugLocation2(cg->b, l);
}

/* DI type `int (*)[n]` */
static LLVMMetadataRef di_uint_field(struct cg_ctx *cg, uint64_t n)
{
	LLVMMetadataRef sub = LLVMDIBuilderGetOrCreateSubrange(cg->dib, 0, (int64_t)n);
	LLVMMetadataRef arr = LLVMDIBuilderCreateArrayType(cg->dib, n * 32, 32, cg->di_int, &sub, 1);
	return LLVMDIBuilderCreatePointerType(cg->dib, arr, 64, 64, 0, "", 0);
}

/* a BTF-defined map: the global, its DI struct, section .maps */
static LLVMValueRef declare_map(struct cg_ctx *cg, const char *name, uint32_t type,
				uint32_t max_entries, uint32_t key_size, uint32_t value_size,
				uint32_t map_flags)
{
	const char *fields[5] = {"type", "max_entries", "key_size", "value_size", "map_flags"};
	uint64_t vals[5] = {type, max_entries, key_size, value_size, map_flags};
	int n = key_size ? 4 : 2;
	if (map_flags) {	/* libbpf finds the fields by name */
		fields[n] = "map_flags";
		vals[n++] = map_flags;
	}
	LLVMTypeRef elems[5] = {cg->ptr, cg->ptr, cg->ptr, cg->ptr, cg->ptr};
	LLVMTypeRef st = LLVMStructTypeInContext(cg->ctx, elems, (unsigned)n, 0);
	LLVMValueRef g = LLVMAddGlobal(cg->mod, st, name);
	LLVMSetInitializer(g, LLVMConstNull(st));
	LLVMSetSection(g, ".maps");
	LLVMSetAlignment(g, 8);
	/* split into several objects, each declares the maps it uses, and the
	 * BPF linker keeps one of the identical weak definitions */
	LLVMSetLinkage(g, cg->split ? LLVMWeakAnyLinkage : LLVMExternalLinkage);

	LLVMMetadataRef members[5];
	for (int i = 0; i < n; i++)
		members[i] = LLVMDIBuilderCreateMemberType(cg->dib, cg->di_file, fields[i],
							   strlen(fields[i]), cg->di_file, 0, 64, 64,
							   (uint64_t)i * 64, 0, di_uint_field(cg, vals[i]));
	LLVMMetadataRef dst = LLVMDIBuilderCreateStructType(cg->dib, cg->di_file, "", 0, cg->di_file, 0,
							    (uint64_t)n * 64, 64, 0, NULL, members,
							    (unsigned)n, 0, NULL, "", 0);
	LLVMMetadataRef expr = LLVMDIBuilderCreateExpression(cg->dib, NULL, 0);
	LLVMMetadataRef gve = LLVMDIBuilderCreateGlobalVariableExpression(
		cg->dib, cg->di_cu, name, strlen(name), name, strlen(name), cg->di_file, 0, dst,
		0, expr, NULL, 64);
	LLVMGlobalSetMetadata(g, LLVMGetMDKindIDInContext(cg->ctx, "dbg", 3), gve);
	return g;
}

LLVMValueRef cg_declare_map(struct cg_ctx *cg, const char *name, uint32_t type,
			    uint32_t max_entries, uint32_t key_size, uint32_t value_size,
			    uint32_t map_flags)
{
	return declare_map(cg, name, type, max_entries, key_size, value_size, map_flags);
}

const char *cg_map_obj_name(struct arena *a, const struct sema_map *m)
{
	char buf[16];
	int n = snprintf(buf, sizeof(buf), "m%d_", m->id);
	for (const char *p = m->name + 1; *p && n < 15; p++)
		buf[n++] = (char)((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
				  (*p >= '0' && *p <= '9') ? *p : '_');
	buf[n] = '\0';
	return arena_strdup(a, buf);
}

#define RINGBUF_SIZE (1u << 20)

static LLVMValueRef declare_user_map(struct cg_ctx *cg, const struct sema_map *m)
{
	bool told = m->max_entries || cg->opts->map_keys_told;
	uint32_t entries = m->max_entries ? m->max_entries
		: cg->opts->map_keys_max ? cg->opts->map_keys_max : CG_MAP_KEYS_MAX;
	if (m->kind == MK_HIST || m->kind == MK_LHIST) {
		/* one slot per (key, bucket) in use; hist(v, k) has 2^k buckets
		 * per power of two where hist(v) has one, so as many times the
		 * slots, up to CG_HIST_SLOTS_MAX in all unless the size was told */
		uint64_t base = (uint64_t)entries * CG_HIST_SLOTS_PER_KEY;
		uint64_t n = m->kind == MK_HIST ? base << m->hist_bits : base;
		if (!told && n > CG_HIST_SLOTS_MAX)
			n = base > CG_HIST_SLOTS_MAX ? base : CG_HIST_SLOTS_MAX;
		entries = n > UINT32_MAX / 2 ? UINT32_MAX / 2 : (uint32_t)n;
	}
	if (m->kind == MK_TSERIES) {	/* one slot per (key, interval) */
		uint64_t e = (uint64_t)(m->key.kind == TY_NONE && !m->max_entries ? 1 : entries) *
			     m->ts_nintervals;
		entries = (uint32_t)(e < CG_TS_SLOTS_MAX || m->key.kind == TY_NONE ? e : CG_TS_SLOTS_MAX);
	}
	cg->map_declared[m->id] = true;
	if (m->array_slots)	/* an aggregation without keys */
		return cg->map_globals[m->id] = declare_map(cg, cg_map_obj_name(cg->a, m),
							    BPF_MAP_TYPE_PERCPU_ARRAY, m->array_slots,
							    4, m->value_size, 0);
	uint32_t type = m->lru ? (m->percpu ? BPF_MAP_TYPE_LRU_PERCPU_HASH : BPF_MAP_TYPE_LRU_HASH)
			       : m->percpu ? BPF_MAP_TYPE_PERCPU_HASH : BPF_MAP_TYPE_HASH;
	return cg->map_globals[m->id] = declare_map(cg, cg_map_obj_name(cg->a, m), type, entries,
						    m->key_size, m->value_size, 0);
}

/* A module's own maps: the two every program may use now, the script's
 * maps when a program first refers to them (cg_map_ref), so that each of
 * several modules describes only its own share in BTF. */
void cg_maps_declare(struct cg_ctx *cg)
{
	const struct sema_result *r = cg->r;
	int n = r->nmaps ? r->nmaps : 1;
	cg->map_globals = arena_new_array(cg->a, LLVMValueRef, n);
	if (!cg->map_declared)
		cg->map_declared = arena_new_array(cg->a, bool, n);
	cg->ringbuf = declare_map(cg, CG_RINGBUF_MAP, BPF_MAP_TYPE_RINGBUF, RINGBUF_SIZE, 0, 0, 0);
	cg->lost = declare_map(cg, CG_LOST_MAP, BPF_MAP_TYPE_PERCPU_ARRAY, 1, 4, 8, 0);
	cg->map_fails = declare_map(cg, CG_MAP_FAILS_MAP, BPF_MAP_TYPE_PERCPU_ARRAY, (uint32_t)n, 4, 8, 0);
}

LLVMValueRef cg_map_ref(struct cg_ctx *cg, const struct sema_map *m)
{
	if (!cg->map_globals[m->id])
		declare_user_map(cg, m);
	return cg->map_globals[m->id];
}

void cg_maps_declare_unused(struct cg_ctx *cg)
{
	for (int i = 0; i < cg->r->nmaps; i++)
		if (!cg->map_declared[cg->r->maps[i]->id])
			declare_user_map(cg, cg->r->maps[i]);
}

/* ---- helper calls ------------------------------------------------------------ */

static LLVMValueRef call_ret(struct cg_ctx *cg, int helper, LLVMTypeRef ret, LLVMValueRef *args,
			     int nargs)
{
	LLVMTypeRef tys[8];
	for (int i = 0; i < nargs && i < 8; i++)
		tys[i] = LLVMTypeOf(args[i]);
	LLVMTypeRef fty = LLVMFunctionType(ret, tys, (unsigned)nargs, 0);
	LLVMValueRef fp = LLVMConstIntToPtr(LLVMConstInt(cg->i64, (unsigned)helper, 0), cg->ptr);
	return LLVMBuildCall2(cg->b, fty, fp, args, (unsigned)nargs, "");
}

static LLVMValueRef header(struct cg_ctx *cg, enum event_kind kind, uint32_t id);
static void output(struct cg_ctx *cg, LLVMValueRef buf, uint32_t size);

/* the name -k reports for a helper whose failure it checks, NULL when
 * unchecked.  Lookups fail as their way of saying "no such key"; map
 * updates and deletes and memory reads only fail when something is wrong
 * (a full map, a bad address).  -k checks them all, as bpftrace 0.23's -k
 * does; -kk is the same (0.17's second level, kept as an alias). */
static const char *checked_helper(int level, int helper)
{
	switch (helper) {
	case BPF_FUNC_map_update_elem: return level >= 1 ? "map_update_elem" : NULL;
	case BPF_FUNC_map_delete_elem: return level >= 1 ? "map_delete_elem" : NULL;
	case BPF_FUNC_probe_read: return level >= 1 ? "probe_read" : NULL;
	case BPF_FUNC_probe_read_str: return level >= 1 ? "probe_read_str" : NULL;
	case BPF_FUNC_probe_read_user: return level >= 1 ? "probe_read_user" : NULL;
	case BPF_FUNC_probe_read_user_str: return level >= 1 ? "probe_read_user_str" : NULL;
	case BPF_FUNC_probe_read_kernel: return level >= 1 ? "probe_read_kernel" : NULL;
	case BPF_FUNC_probe_read_kernel_str: return level >= 1 ? "probe_read_kernel_str" : NULL;
	default: return NULL;
	}
}

LLVMValueRef cg_helper_call_quiet(struct cg_ctx *cg, int helper, LLVMValueRef *args, int nargs)
{
	return call_ret(cg, helper, cg->i64, args, nargs);
}

/*
 * LLVM has no IR for a BTF-id ld_imm64 (clang makes one from an extern
 * __ksym that libbpf relocates), so its 16 bytes are written out in an
 * inline asm: code 0x18, dst r1 and src BPF_PSEUDO_BTF_ID (3) in the
 * register byte, the id, and a second half of zeros (the BTF object fd:
 * 0 is vmlinux).  libbpf passes it to the kernel as it is.
 */
LLVMValueRef cg_ksym_btf(struct cg_ctx *cg, uint32_t btf_id)
{
	char text[96];
	snprintf(text, sizeof(text), ".byte 0x18, 0x%x1, 0, 0\n.4byte %u\n.8byte 0", BPF_PSEUDO_BTF_ID,
		 btf_id);
	LLVMTypeRef fty = LLVMFunctionType(cg->i64, NULL, 0, 0);
	LLVMValueRef as = LLVMGetInlineAsm(fty, text, strlen(text), (char *)"={r1}", 5, 1, 0,
					   LLVMInlineAsmDialectATT, 0);
	return LLVMBuildCall2(cg->b, fty, as, NULL, 0, "ksym");
}

LLVMValueRef cg_kfunc_call(struct cg_ctx *cg, uint32_t btf_id, LLVMValueRef *args, int nargs)
{
	/* BPF_JMP|BPF_CALL with src_reg BPF_PSEUDO_KFUNC_CALL and the
	 * function's BTF id as imm (off 0: vmlinux's BTF); r0-r5 are outputs
	 * (the call clobbers them), the arguments tied to r1.. */
	char text[96];
	snprintf(text, sizeof(text), ".byte 0x85, 0x%x0, 0, 0\n.4byte %u", BPF_PSEUDO_KFUNC_CALL, btf_id);
	LLVMTypeRef outs[6], params[5];
	for (int i = 0; i < 6; i++)
		outs[i] = cg->i64;
	for (int i = 0; i < nargs; i++)
		params[i] = cg->i64;
	LLVMTypeRef rty = LLVMStructTypeInContext(cg->ctx, outs, 6, 0);
	LLVMTypeRef fty = LLVMFunctionType(rty, params, (unsigned)nargs, 0);
	char cons[160] = "={r0},={r1},={r2},={r3},={r4},={r5}";
	for (int i = 0; i < nargs; i++)
		snprintf(cons + strlen(cons), sizeof(cons) - strlen(cons), ",%d", i + 1);
	strcat(cons, ",~{memory}");
	LLVMValueRef as = LLVMGetInlineAsm(fty, text, strlen(text), cons, strlen(cons), 1, 0,
					   LLVMInlineAsmDialectATT, 0);
	LLVMValueRef r = LLVMBuildCall2(cg->b, fty, as, args, (unsigned)nargs, "kfunc");
	return LLVMBuildExtractValue(cg->b, r, 0, "kret");
}

LLVMValueRef cg_opaque(struct cg_ctx *cg, LLVMValueRef v)
{
	LLVMTypeRef fty = LLVMFunctionType(cg->i64, (LLVMTypeRef[]){cg->i64}, 1, 0);
	LLVMValueRef as = LLVMGetInlineAsm(fty, (char *)"", 0, (char *)"=r,0", 4, 1, 0,
					   LLVMInlineAsmDialectATT, 0);
	return LLVMBuildCall2(cg->b, fty, as, &v, 1, "opaque");
}

/* -k: when failed holds, send {site, code} to userspace; the site is
 * helper (map: the map it read) called at the current expression */
static void report_failure(struct cg_ctx *cg, LLVMValueRef failed, const char *helper, const char *map,
			   LLVMValueRef code)
{
	cg->sites = arena_grow(cg->a, cg->sites, (size_t)cg->nsites, sizeof(*cg->sites));
	cg->sites[cg->nsites] = (struct cg_site){.loc = cg->expr_loc, .helper = helper, .map = map};
	struct cg_if f = cg_begin_if(cg, failed, "helper_failed");
	LLVMValueRef ev = cg_alloca_nozero(cg, 16, "helper_error");
	cg_store_i64(cg, header(cg, EV_HELPER_ERROR, (uint32_t)cg->nsites++), ev);
	cg_store_i64(cg, code, cg_gep(cg, ev, 8));
	output(cg, ev, 16);
	cg_end_if(cg, &f);
}

LLVMValueRef cg_helper_call(struct cg_ctx *cg, int helper, LLVMValueRef *args, int nargs)
{
	LLVMValueRef r = call_ret(cg, helper, cg->i64, args, nargs);
	const char *name = checked_helper(cg->opts->helper_check, helper);
	/* -k: a negative result is reported */
	if (name)
		report_failure(cg, LLVMBuildICmp(cg->b, LLVMIntSLT, r, cg_const(cg, 0), ""), name, NULL, r);
	return r;
}

void cg_check_lookup(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef p)
{
	/* bpftrace reports the code of a failed lookup as 0: the helper
	 * returns NULL, not an error */
	if (cg->opts->helper_check >= 1)
		report_failure(cg, LLVMBuildIsNull(cg->b, p, ""), "map_lookup_elem", m->name,
			       cg_const(cg, 0));
}

/* temporaries above on_stack_limit bytes (32 unless the config says, as in the newest bpftrace)
 * go to the function's per-CPU frame (module.c) rather than the 512-byte
 * BPF stack; 8-byte slots always stay on the stack */
static uint32_t stack_slot_max(void)
{
	int64_t n = settings_int(SET_ON_STACK_LIMIT);
	return n < 8 ? 8 : (uint32_t)n;
}

static LLVMValueRef new_slot(struct cg_ctx *cg, uint32_t size, const char *name)
{
	LLVMBasicBlockRef cur = LLVMGetInsertBlock(cg->b);
	if (size > stack_slot_max() && cg->init) {
		/* an offset into the frame, computed in init, which dominates
		 * every use; the frame is looked up once, before init runs */
		if (!cg->frame_slot) {
			LLVMPositionBuilderAtEnd(cg->b, cg->entry);
			cg->frame_slot = LLVMBuildAlloca(cg->b, cg->ptr, "frameptr");
			LLVMPositionBuilderAtEnd(cg->b, cg->init);
			cg->frame_base = LLVMBuildLoad2(cg->b, cg->ptr, cg->frame_slot, "frame");
			/* a map value is 8-byte aligned, and so is each slot: LLVM
			 * then copies into the frame a word at a time, never a
			 * byte at a time with shifts (which the verifier refuses
			 * of a pointer: "pointer arithmetic with >>= operator") */
			LLVMMetadataRef eight = LLVMValueAsMetadata(cg_const(cg, 8));
			LLVMSetMetadata(cg->frame_base, LLVMGetMDKindIDInContext(cg->ctx, "align", 5),
					LLVMMetadataAsValue(cg->ctx, LLVMMDNodeInContext2(cg->ctx, &eight, 1)));
		}
		LLVMPositionBuilderAtEnd(cg->b, cg->init);
		LLVMValueRef p = cg_gep(cg, cg->frame_base, cg->frame_size);
		cg->frame_size += size;
		LLVMPositionBuilderAtEnd(cg->b, cur);
		return p;
	}
	LLVMPositionBuilderAtEnd(cg->b, cg->entry);
	/* i64 elements keep the slot 8-byte aligned */
	LLVMValueRef a = LLVMBuildAlloca(cg->b, LLVMArrayType(cg->i64, size / 8), name);
	LLVMSetAlignment(a, 8);
	LLVMPositionBuilderAtEnd(cg->b, cur);
	return a;
}

LLVMValueRef cg_alloca_nozero(struct cg_ctx *cg, uint32_t size, const char *name)
{
	size = (size + 7) & ~7u;
	if (!size)
		size = 8;
	LLVMValueRef a = new_slot(cg, size, name);
	if (cg->track_temps && LLVMIsAAllocaInst(a)) {
		/* a temporary of this statement: alive from here to its end */
		cg->temps = arena_grow(cg->a, cg->temps, (size_t)cg->ntemps, sizeof(*cg->temps));
		cg->temp_sizes = arena_grow(cg->a, cg->temp_sizes, (size_t)cg->ntemps,
					    sizeof(*cg->temp_sizes));
		cg_lifetime(cg, a, size, true);
		cg->temps[cg->ntemps] = a;
		cg->temp_sizes[cg->ntemps++] = size;
	}
	return a;
}

/* on the stack whatever its size, never in the frame: the context of a
 * helper's callback (bpf_loop takes stack memory only) */
LLVMValueRef cg_alloca_stack(struct cg_ctx *cg, uint32_t size, const char *name)
{
	LLVMBasicBlockRef init = cg->init;
	cg->init = NULL;	/* new_slot puts a slot in the frame only with an init block */
	LLVMValueRef a = new_slot(cg, (size + 7) & ~7u, name);
	cg->init = init;
	return a;
}

/* a slot for the whole program (a $variable), outside any statement's */
LLVMValueRef cg_alloca_program(struct cg_ctx *cg, uint32_t size, const char *name)
{
	size = (size + 7) & ~7u;
	return new_slot(cg, size ? size : 8, name);
}

void cg_temps_begin(struct cg_ctx *cg, int *mark)
{
	*mark = cg->ntemps;
	cg->track_temps = true;
}

void cg_temps_end(struct cg_ctx *cg, int mark, struct src_loc loc)
{
	LLVMBasicBlockRef cur = LLVMGetInsertBlock(cg->b);
	struct cg_fn_stack *fs = cg->nstacks ? &cg->stacks[cg->nstacks - 1] : NULL;
	uint32_t bytes = 0;
	for (int i = mark; i < cg->ntemps; i++)
		bytes += cg->temp_sizes[i];
	if (fs && fs->fn == cg->fn && bytes > fs->max_temps) {
		fs->max_temps = bytes;
		fs->temps_loc = loc;
	}
	if (!LLVMGetBasicBlockTerminator(cur))
		for (int i = mark; i < cg->ntemps; i++)
			cg_lifetime(cg, cg->temps[i], cg->temp_sizes[i], false);
	cg->ntemps = mark;
	cg->track_temps = false;
}

/* llvm.lifetime.start/end on a stack slot: slots whose lifetimes do not
 * overlap share stack (LLVM's stack colouring), so a probe with many map
 * lookups does not pay 512 bytes of keys it never holds at once */
void cg_lifetime(struct cg_ctx *cg, LLVMValueRef slot, uint32_t size, bool start)
{
	if (!LLVMIsAAllocaInst(slot))	/* a slot in the frame */
		return;
	/* a statement's temporary started when it was made (cg_alloca_nozero) */
	for (int i = cg->ntemps - 1; start && i >= 0; i--)
		if (cg->temps[i] == slot)
			return;
	const char *name = start ? "llvm.lifetime.start" : "llvm.lifetime.end";
	unsigned id = LLVMLookupIntrinsicID(name, strlen(name));
	LLVMTypeRef ptr = cg->ptr;
	LLVMValueRef fn = LLVMGetIntrinsicDeclaration(cg->mod, id, &ptr, 1);
	LLVMTypeRef fty = LLVMIntrinsicGetType(cg->ctx, id, &ptr, 1);
	size = (size + 7) & ~7u;
	LLVMValueRef args[] = {LLVMConstInt(cg->i64, size ? size : 8, 0), slot};
	LLVMBuildCall2(cg->b, fty, fn, args, 2, "");
}

LLVMValueRef cg_find_alloca(struct cg_ctx *cg, const char *name)
{
	for (LLVMValueRef i = LLVMGetFirstInstruction(cg->entry); i; i = LLVMGetNextInstruction(i)) {
		size_t len;
		const char *n = LLVMGetValueName2(i, &len);
		if (LLVMIsAAllocaInst(i) && len == strlen(name) && !memcmp(n, name, len))
			return i;
	}
	return NULL;
}

LLVMValueRef cg_alloca_shared(struct cg_ctx *cg, uint32_t size, const char *name)
{
	LLVMValueRef a = cg_find_alloca(cg, name);
	/* found again by later statements: never one statement's temporary */
	return a ? a : cg_alloca_program(cg, size, name);
}

void cg_memset0(struct cg_ctx *cg, LLVMValueRef dst, uint32_t size)
{
	size = (size + 7) & ~7u;
	for (uint32_t off = 0; off < size; off += 8)
		cg_store_i64(cg, cg_const(cg, 0), cg_gep(cg, dst, off));
}

LLVMValueRef cg_alloca(struct cg_ctx *cg, uint32_t size, const char *name)
{
	LLVMValueRef a = cg_alloca_nozero(cg, size, name);
	cg_memset0(cg, a, size);
	return a;
}

void cg_memcpy(struct cg_ctx *cg, LLVMValueRef dst, LLVMValueRef src, uint32_t size)
{
	if (!size)
		return;
	/* the BPF backend unrolls a memcpy of up to 1024 stores and refuses
	 * longer ones (a max_strlen of 9999): one bpf_probe_read_kernel of
	 * the stack or map memory copies those */
	if (size > 1024) {
		LLVMValueRef args[] = {dst, cg_const(cg, size), src};
		cg_helper_call(cg, BPF_FUNC_probe_read_kernel, args, 3);
		return;
	}
	LLVMBuildMemCpy(cg->b, dst, 1, src, 1, cg_const(cg, size));
}

LLVMValueRef cg_gep(struct cg_ctx *cg, LLVMValueRef base, uint32_t off)
{
	if (!off)
		return base;
	LLVMValueRef idx = LLVMConstInt(cg->i64, off, 0);
	return LLVMBuildGEP2(cg->b, cg->i8, base, &idx, 1, "");
}

LLVMValueRef cg_load_i64(struct cg_ctx *cg, LLVMValueRef ptr)
{
	LLVMValueRef v = LLVMBuildLoad2(cg->b, cg->i64, ptr, "");
	LLVMSetAlignment(v, 8);
	return v;
}

void cg_store_i64(struct cg_ctx *cg, LLVMValueRef v, LLVMValueRef ptr)
{
	LLVMValueRef s = LLVMBuildStore(cg->b, v, ptr);
	LLVMSetAlignment(s, 8);
}

LLVMValueRef cg_probe_read(struct cg_ctx *cg, LLVMValueRef dst, uint32_t size, LLVMValueRef src,
			   int user, int str)
{
	int id = str ? (user ? BPF_FUNC_probe_read_user_str : BPF_FUNC_probe_read_kernel_str)
		     : (user ? BPF_FUNC_probe_read_user : BPF_FUNC_probe_read_kernel);
	/* in a uprobe a pointer usually points into the traced process, but
	 * may be a kernel one (curtask): the generic helpers read either on
	 * x86-64, whose user and kernel address ranges do not overlap */
	enum probe_type t = cg->attach ? cg->attach->type : PT_BEGIN;
	if (!user && (sema_provider(t)->ctx & PC_USER))
		id = str ? BPF_FUNC_probe_read_str : BPF_FUNC_probe_read;
	if (LLVMGetTypeKind(LLVMTypeOf(src)) == LLVMIntegerTypeKind)
		src = LLVMBuildIntToPtr(cg->b, src, cg->ptr, "");
	LLVMValueRef args[] = {dst, LLVMConstInt(cg->i32, size, 0), src};
	return cg_helper_call(cg, id, args, 3);
}

struct cg_if cg_begin_if(struct cg_ctx *cg, LLVMValueRef cond, const char *name)
{
	struct cg_if f;
	f.then_bb = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, name);
	f.end_bb = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "endif");
	LLVMBuildCondBr(cg->b, cond, f.then_bb, f.end_bb);
	LLVMPositionBuilderAtEnd(cg->b, f.then_bb);
	return f;
}

void cg_end_if(struct cg_ctx *cg, struct cg_if *f)
{
	if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(cg->b)))
		LLVMBuildBr(cg->b, f->end_bb);
	LLVMPositionBuilderAtEnd(cg->b, f->end_bb);
}

/* return e (never in a for loop's callback, sema sees to it): the
 * program's own return value, truncated to its 32 bits */
void cg_return_value(struct cg_ctx *cg, LLVMValueRef v)
{
	LLVMBuildRet(cg->b, LLVMBuildTrunc(cg->b, v, cg->i32, ""));
	LLVMBasicBlockRef dead = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "after_return");
	LLVMPositionBuilderAtEnd(cg->b, dead);
}

void cg_return(struct cg_ctx *cg)
{
	if (cg->ret_flag) {
		/* in a for loop's body: stop the iteration, the probe returns
		 * after it (loops.c) */
		cg_store_i64(cg, cg_const(cg, 1), cg->ret_flag);
		LLVMBuildRet(cg->b, cg_const(cg, 1));
	} else {
		LLVMBuildRet(cg->b, LLVMConstInt(cg->i32, 0, 0));
	}
	/* code after a return lands in an unreachable block the optimiser drops */
	LLVMBasicBlockRef dead = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "after_return");
	LLVMPositionBuilderAtEnd(cg->b, dead);
}

/* ---- maps ------------------------------------------------------------------ */

LLVMValueRef cg_map_lookup(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key)
{
	LLVMValueRef args[] = {cg_map_ref(cg, m), key};
	return call_ret(cg, BPF_FUNC_map_lookup_elem, cg->ptr, args, 2);
}

LLVMValueRef cg_map_lookup_cpu(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key,
			       LLVMValueRef cpu)
{
	LLVMValueRef args[] = {cg_map_ref(cg, m), key, LLVMBuildTrunc(cg->b, cpu, cg_i32(cg), "")};
	return call_ret(cg, BPF_FUNC_map_lookup_percpu_elem, cg->ptr, args, 3);
}

/* ++ the i64 in slot idx of a per-CPU array of counters */
static void count_in(struct cg_ctx *cg, LLVMValueRef map, uint32_t idx)
{
	LLVMValueRef key = cg_alloca_shared(cg, 8, "sonde.countkey");
	cg_store_i64(cg, cg_const(cg, idx), key);
	LLVMValueRef args[] = {map, key};
	LLVMValueRef p = call_ret(cg, BPF_FUNC_map_lookup_elem, cg->ptr, args, 2);
	struct cg_if f = cg_begin_if(cg, LLVMBuildIsNotNull(cg->b, p, ""), "count");
	cg_store_i64(cg, LLVMBuildAdd(cg->b, cg_load_i64(cg, p), cg_const(cg, 1), ""), p);
	cg_end_if(cg, &f);
}

LLVMValueRef cg_map_update(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key,
			   LLVMValueRef val, uint64_t flags)
{
	LLVMValueRef args[] = {cg_map_ref(cg, m), key, val, cg_const(cg, flags)};
	LLVMValueRef rc = cg_helper_call(cg, BPF_FUNC_map_update_elem, args, 4);
	/* a full map refuses new keys (-E2BIG): count it, userspace warns at
	 * exit; a declared map (let @m = hash(N), which 0.17 does not have)
	 * warns at each refusal, where the update is, as the newest bpftrace
	 * does ("Map full; can't update element"; -k reports it already) */
	if (m->decl && !checked_helper(cg->opts->helper_check, BPF_FUNC_map_update_elem))
		report_failure(cg, LLVMBuildICmp(cg->b, LLVMIntEQ, rc, cg_const(cg, (uint64_t)-E2BIG), ""),
			       "map_update_elem", NULL, rc);
	struct cg_if f = cg_begin_if(cg, LLVMBuildICmp(cg->b, LLVMIntSLT, rc, cg_const(cg, 0), ""),
				     "update_failed");
	count_in(cg, cg->map_fails, (uint32_t)m->id);
	cg_end_if(cg, &f);
	return rc;
}

LLVMValueRef cg_map_delete(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key)
{
	LLVMValueRef args[] = {cg_map_ref(cg, m), key};
	return cg_helper_call(cg, BPF_FUNC_map_delete_elem, args, 2);
}

/* ---- events ------------------------------------------------------------------ */

static void output(struct cg_ctx *cg, LLVMValueRef buf, uint32_t size)
{
	cg_event_output(cg, buf, cg_const(cg, size));
}

void cg_event_output(struct cg_ctx *cg, LLVMValueRef buf, LLVMValueRef size)
{
	LLVMValueRef args[] = {cg->ringbuf, buf, size, cg_const(cg, 0)};
	LLVMValueRef rc = cg_helper_call(cg, BPF_FUNC_ringbuf_output, args, 4);
	LLVMValueRef failed = LLVMBuildICmp(cg->b, LLVMIntSLT, rc, cg_const(cg, 0), "");
	struct cg_if f = cg_begin_if(cg, failed, "lost");
	count_in(cg, cg->lost, 0);
	cg_end_if(cg, &f);
}

/* the exit() word: one word userspace maps and reads without a system
 * call.  It holds 0x100 | the exit status (exit(N)), 0 until exit(). */
static LLVMValueRef stop_word(struct cg_ctx *cg)
{
	LLVMValueRef map = LLVMGetNamedGlobal(cg->mod, CG_STOP_MAP);
	if (!map)
		map = cg_declare_map(cg, CG_STOP_MAP, BPF_MAP_TYPE_ARRAY, 1, 4, 8, BPF_F_MMAPABLE);
	LLVMValueRef key = cg_alloca_shared(cg, 8, "sonde.stopkey");
	cg_store_i64(cg, cg_const(cg, 0), key);
	LLVMValueRef args[] = {map, key};
	return call_ret(cg, BPF_FUNC_map_lookup_elem, cg->ptr, args, 2);
}

void cg_stop_request(struct cg_ctx *cg, LLVMValueRef code)
{
	/* set before the EV_EXIT event, which a full ring buffer would drop */
	LLVMValueRef p = stop_word(cg);
	struct cg_if f = cg_begin_if(cg, LLVMBuildIsNotNull(cg->b, p, ""), "stop");
	LLVMValueRef word = cg_const(cg, 0x100);
	if (code)
		word = LLVMBuildOr(cg->b, word, LLVMBuildAnd(cg->b, code, cg_const(cg, 0xff), ""), "");
	cg_store_i64(cg, word, p);
	cg_end_if(cg, &f);
	cg_event_raw(cg, EV_EXIT, 0, NULL, 0);
}

void cg_return_if_stopped(struct cg_ctx *cg)
{
	LLVMValueRef p = stop_word(cg);
	struct cg_if f = cg_begin_if(cg, LLVMBuildIsNotNull(cg->b, p, ""), "stopped");
	LLVMValueRef word = LLVMBuildLoad2(cg->b, cg->i64, p, "");
	struct cg_if g = cg_begin_if(cg, LLVMBuildIsNotNull(cg->b, word, ""), "after_exit");
	cg_return(cg);
	cg_end_if(cg, &g);
	cg_end_if(cg, &f);
}

static LLVMValueRef header(struct cg_ctx *cg, enum event_kind kind, uint32_t id)
{
	return cg_const(cg, (uint64_t)kind | ((uint64_t)id << 32));
}

void cg_event_raw(struct cg_ctx *cg, enum event_kind kind, uint32_t id, const uint64_t *words,
		  int nwords)
{
	uint32_t size = 8 * (uint32_t)(nwords + 1);
	LLVMValueRef buf = cg_alloca_nozero(cg, size, "event");
	cg_store_i64(cg, header(cg, kind, id), buf);
	for (int i = 0; i < nwords; i++)
		cg_store_i64(cg, cg_const(cg, words[i]), cg_gep(cg, buf, 8 * (uint32_t)(i + 1)));
	output(cg, buf, size);
}

/* events above this size are built in per-CPU scratch memory, not on the
 * 512-byte stack */
#define EVENT_STACK_MAX 192

LLVMValueRef cg_event_begin(struct cg_ctx *cg, const struct sema_event *ev)
{
	uint32_t size = 8 + ev->args.size;
	LLVMValueRef buf;
	if (size <= EVENT_STACK_MAX) {
		buf = cg_alloca(cg, size, "event");
	} else {
		/* one scratch buffer, sized for the program's largest event */
		uint32_t max = 0;
		for (int i = 0; i < cg->r->nevents; i++)
			if (8 + cg->r->events[i]->args.size > max)
				max = 8 + cg->r->events[i]->args.size;
		buf = cg_scratch(cg, "event", max);
		cg_memset0(cg, buf, size);
	}
	cg_store_i64(cg, header(cg, ev->kind, (uint32_t)ev->id), buf);
	return buf;
}

void cg_event_end(struct cg_ctx *cg, const struct sema_event *ev, LLVMValueRef buf)
{
	output(cg, buf, 8 + ev->args.size);
}

/* ---- auxiliary maps and scratch memory ------------------------------------- */

LLVMValueRef cg_aux_map(struct cg_ctx *cg, const char *name, uint32_t type, uint32_t max_entries,
			uint32_t key_size, uint32_t value_size)
{
	return cg_aux_map_flags(cg, name, type, max_entries, key_size, value_size, 0);
}

LLVMValueRef cg_aux_map_flags(struct cg_ctx *cg, const char *name, uint32_t type,
			      uint32_t max_entries, uint32_t key_size, uint32_t value_size,
			      uint32_t flags)
{
	LLVMValueRef g = LLVMGetNamedGlobal(cg->mod, name);
	return g ? g : cg_declare_map(cg, name, type, max_entries, key_size, value_size, flags);
}

LLVMValueRef cg_scratch(struct cg_ctx *cg, const char *name, uint32_t size)
{
	/* one per-CPU array slot per name: a BPF program runs to its end on
	 * one CPU, so the slot is its own while it runs - unless a program in
	 * an interrupt (a tracepoint, a perf event) that uses the same name
	 * lands in the middle, a limit bpftrace's scratch maps share */
	size = (size + 7) & ~7u;
	/* the whole name: a map is found by it, and two functions' frames
	 * that shared their first letters ("fsonde_for_1", "fsonde_for_3")
	 * were one map of the first one's size (the kernel keeps 15
	 * characters, which need not be unique) */
	const char *mname = arena_printf(cg->a, CG_SCRATCH_PREFIX "%s", name);
	LLVMValueRef map = cg_aux_map(cg, mname, BPF_MAP_TYPE_PERCPU_ARRAY, 1, 4, size);
	LLVMValueRef key = cg_alloca_shared(cg, 8, "sonde.scratchkey");
	cg_store_i64(cg, cg_const(cg, 0), key);
	LLVMValueRef args[] = {map, key};
	LLVMValueRef p = call_ret(cg, BPF_FUNC_map_lookup_elem, cg->ptr, args, 2);
	/* 8-byte aligned, as every map value (new_slot says why it matters) */
	LLVMAddCallSiteAttribute(p, LLVMAttributeReturnIndex,
				 LLVMCreateEnumAttribute(cg->ctx, LLVMGetEnumAttributeKindForName("align", 5), 8));
	struct cg_if f = cg_begin_if(cg, LLVMBuildIsNull(cg->b, p, ""), "noscratch");
	cg_return(cg);
	cg_end_if(cg, &f);
	return p;
}

/*
 * The frame of function `name`: one per-CPU array slot of frame_size
 * bytes (its own map, so no other program's frame is the same memory),
 * looked up at the end of entry; init reads its address from frame_slot.
 * (The kernel limits a per-CPU value to 32 KiB: some 500 strings of the
 * default max_strlen, three of 9999; a larger frame is refused when its
 * map is created, S0107.)
 */
void cg_emit_frame(struct cg_ctx *cg, const char *name)
{
	LLVMValueRef p = cg_scratch(cg, arena_printf(cg->a, "f%s", name), cg->frame_size);
	LLVMBuildStore(cg->b, p, cg->frame_slot);
}

/* ---- len(@m): counting through bpf_for_each_map_elem ------------------------ */

enum { DW_ATE_signed_ = 5 };

/* static long sonde_each_cb(void *map, void *key, void *value, void *ctx)
 * { return 0; } - a subprogram in .text; like every function it needs a
 * DISubprogram with named parameters for the BTF the kernel checks */
static LLVMValueRef each_callback(struct cg_ctx *cg)
{
	static const char *name = "sonde_each_cb";
	static const char *pnames[] = {"map", "key", "value", "ctx"};
	LLVMValueRef fn = LLVMGetNamedFunction(cg->mod, name);
	if (fn)
		return fn;
	LLVMTypeRef params[] = {cg->ptr, cg->ptr, cg->ptr, cg->ptr};
	fn = LLVMAddFunction(cg->mod, name, LLVMFunctionType(cg->i64, params, 4, 0));
	LLVMSetLinkage(fn, LLVMInternalLinkage);
	LLVMSetSection(fn, ".text");
	unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
	LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
				LLVMCreateEnumAttribute(cg->ctx, nounwind, 0));
	LLVMMetadataRef di_long = LLVMDIBuilderCreateBasicType(cg->dib, "long", 4, 64, DW_ATE_signed_, 0);
	LLVMMetadataRef tys[] = {di_long, cg->di_ptr, cg->di_ptr, cg->di_ptr, cg->di_ptr};
	LLVMMetadataRef sty = LLVMDIBuilderCreateSubroutineType(cg->dib, cg->di_file, tys, 5, 0);
	LLVMMetadataRef sp = LLVMDIBuilderCreateFunction(cg->dib, cg->di_file, name, strlen(name), name,
							 strlen(name), cg->di_file, 1, sty, 1, 1, 1,
							 LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(fn, sp);
	LLVMBasicBlockRef cur = LLVMGetInsertBlock(cg->b);
	LLVMMetadataRef cur_loc = LLVMGetCurrentDebugLocation2(cg->b);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
	LLVMMetadataRef dl = LLVMDIBuilderCreateDebugLocation(cg->ctx, 1, 1, sp, NULL);
	for (unsigned i = 0; i < 4; i++) {
		LLVMValueRef arg = LLVMGetParam(fn, i);
		LLVMSetValueName2(arg, pnames[i], strlen(pnames[i]));
		LLVMMetadataRef pv = LLVMDIBuilderCreateParameterVariable(
			cg->dib, sp, pnames[i], strlen(pnames[i]), i + 1, cg->di_file, 1, cg->di_ptr, 1, 0);
		LLVMDIBuilderInsertDbgValueAtEnd(cg->dib, arg, pv,
						 LLVMDIBuilderCreateExpression(cg->dib, NULL, 0), dl, entry);
	}
	LLVMPositionBuilderAtEnd(cg->b, entry);
	LLVMSetCurrentDebugLocation2(cg->b, dl);
	LLVMBuildRet(cg->b, cg_const(cg, 0));
	LLVMPositionBuilderAtEnd(cg->b, cur);
	LLVMSetCurrentDebugLocation2(cg->b, cur_loc);
	return fn;
}

LLVMValueRef cg_map_count(struct cg_ctx *cg, const struct sema_map *m)
{
	LLVMValueRef args[] = {cg_map_ref(cg, m), each_callback(cg), LLVMConstNull(cg->ptr),
			       cg_const(cg, 0)};
	return cg_helper_call(cg, BPF_FUNC_for_each_map_elem, args, 4);
}
