/*
 * bpf.c - the BPF-domain layer over the LLVM C API.
 *
 * Helper calls through inttoptr(helper id), stack memory that the verifier
 * accepts (allocas in the entry block, zeroed before use so map keys have
 * no uninitialised padding), map lookups with the null check the verifier
 * demands, probe reads, and ring-buffer events.  The rest of codegen and
 * stdlib/ speak these terms instead of raw IR.
 */
#include "cg_int.h"

#include <string.h>

#include "../common/arena.h"

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

LLVMValueRef cg_helper_call(struct cg_ctx *cg, int helper, LLVMValueRef *args, int nargs)
{
	return call_ret(cg, helper, cg->i64, args, nargs);
}

LLVMValueRef cg_alloca_nozero(struct cg_ctx *cg, uint32_t size, const char *name)
{
	size = (size + 7) & ~7u;
	if (!size)
		size = 8;
	LLVMBasicBlockRef cur = LLVMGetInsertBlock(cg->b);
	LLVMPositionBuilderAtEnd(cg->b, cg->entry);
	/* i64 elements keep the slot 8-byte aligned */
	LLVMValueRef a = LLVMBuildAlloca(cg->b, LLVMArrayType(cg->i64, size / 8), name);
	LLVMSetAlignment(a, 8);
	LLVMPositionBuilderAtEnd(cg->b, cur);
	return a;
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
	if (size)
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

void cg_return(struct cg_ctx *cg)
{
	LLVMBuildRet(cg->b, LLVMConstInt(cg->i32, 0, 0));
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

LLVMValueRef cg_map_update(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key,
			   LLVMValueRef val, uint64_t flags)
{
	LLVMValueRef args[] = {cg_map_ref(cg, m), key, val, cg_const(cg, flags)};
	return cg_helper_call(cg, BPF_FUNC_map_update_elem, args, 4);
}

LLVMValueRef cg_map_delete(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key)
{
	LLVMValueRef args[] = {cg_map_ref(cg, m), key};
	return cg_helper_call(cg, BPF_FUNC_map_delete_elem, args, 2);
}

/* ---- events ------------------------------------------------------------------ */

static void output(struct cg_ctx *cg, LLVMValueRef buf, uint32_t size)
{
	LLVMValueRef args[] = {cg->ringbuf, buf, cg_const(cg, size), cg_const(cg, 0)};
	LLVMValueRef rc = cg_helper_call(cg, BPF_FUNC_ringbuf_output, args, 4);
	LLVMValueRef failed = LLVMBuildICmp(cg->b, LLVMIntSLT, rc, cg_const(cg, 0), "");
	struct cg_if f = cg_begin_if(cg, failed, "lost");
	LLVMValueRef key = cg_alloca(cg, 8, "lostkey");
	LLVMValueRef largs[] = {cg->lost, key};
	LLVMValueRef p = call_ret(cg, BPF_FUNC_map_lookup_elem, cg->ptr, largs, 2);
	LLVMValueRef ok = LLVMBuildIsNotNull(cg->b, p, "");
	struct cg_if g = cg_begin_if(cg, ok, "count_lost");
	cg_store_i64(cg, LLVMBuildAdd(cg->b, cg_load_i64(cg, p), cg_const(cg, 1), ""), p);
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

void cg_event_emit(struct cg_ctx *cg, const struct sema_event *ev, struct ast_node *args)
{
	uint32_t size = 8 + ev->args.size;
	LLVMValueRef buf = cg_alloca(cg, size, "event");
	cg_store_i64(cg, header(cg, ev->kind, (uint32_t)ev->id), buf);
	int i = 0;
	for (struct ast_node *a = args; a; a = a->next, i++) {
		const struct type_field *f = &ev->args.fields[i];
		cg_expr_store(cg, a, cg_gep(cg, buf, 8 + f->offset), f->type.size);
	}
	output(cg, buf, size);
}
