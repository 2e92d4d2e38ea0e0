/*
 * loops.c - for loops, as bpftrace lowers them: the body is a callback.
 *
 *   for ($kv : @m) { body }    bpf_for_each_map_elem(@m, body_cb, &frame, 0)
 *   for ($i : a..b) { body }   bpf_loop(b - a, body_cb, &frame, 0)
 *
 * The verifier checks a callback once, however many times it runs, so the
 * loop costs no unrolling and no bound proof.  The callback is a function
 * of its own (in .text, with a DISubprogram like every function here): it
 * reaches the probe's variables through the frame, an array on the probe's
 * stack holding a pointer to each variable the body names, then the
 * probe's context pointer (for builtins such as args), a "returned" word,
 * and the range's start and length.  bpf_loop runs at least once: with a
 * length the verifier knows is 0 it would not check the callback, and the
 * kernel then fails to JIT the program; the callback skips that run.  A
 * range empty at compile time (5..5) emits nothing: the callback's body
 * would be dead code, which this kernel's dead-code removal mishandles
 * when a program holds several callbacks ("No program to jit").  `break` is a callback returning 1 (stop),
 * `continue` one returning 0; `return` sets the returned word and stops,
 * and the caller returns after the helper.
 */
#include "codegen/cg_int.h"

#include <string.h>

#include <linux/bpf.h>

#include "common/arena.h"

/* the variables a body names: each gets a frame slot */
struct var_set {
	struct arena *a;
	struct ast_node **vars;
	int n;
	const char *skip;	/* the loop's own variable */
};

static void collect(const struct ast_node *n, void *ctx)
{
	struct var_set *vs = ctx;
	if (n->kind == N_VAR && strcmp(n->var.name, vs->skip)) {
		for (int i = 0; i < vs->n; i++)
			if (!strcmp(vs->vars[i]->var.name, n->var.name))
				goto children;
		vs->vars = arena_grow(vs->a, vs->vars, (size_t)vs->n, sizeof(*vs->vars));
		vs->vars[vs->n++] = (struct ast_node *)n;
	}
children:
	ast_each_child(n, collect, ctx);
}

/* what a function's generation keeps in cg_ctx, saved over a callback */
struct fn_state {
	LLVMValueRef fn, ctx_arg, ret_flag, frame_slot, frame_base;
	uint32_t frame_size;
	LLVMBasicBlockRef entry, init, cur;
	LLVMMetadataRef di_sp, loc;
	struct cg_var *vars;
	struct cg_loop *loop;
};

enum { DW_ATE_signed_ = 5 };

/* long NAME(params...): a subprogram in .text, the builder in its body;
 * `is_ptr` says which parameters are pointers (the others are u64) */
static LLVMValueRef callback_begin(struct cg_ctx *cg, const char *name, int np,
				   const char *const *pnames, const bool *is_ptr,
				   struct fn_state *saved)
{
	*saved = (struct fn_state){cg->fn, cg->ctx_arg, cg->ret_flag, cg->frame_slot, cg->frame_base,
				   cg->frame_size, cg->entry, cg->init, LLVMGetInsertBlock(cg->b),
				   cg->di_sp, LLVMGetCurrentDebugLocation2(cg->b), cg->vars, cg->loop};
	LLVMTypeRef params[4];
	LLVMMetadataRef tys[5];
	LLVMMetadataRef di_long = LLVMDIBuilderCreateBasicType(cg->dib, "long", 4, 64, DW_ATE_signed_, 0);
	tys[0] = di_long;
	for (int i = 0; i < np; i++) {
		params[i] = is_ptr[i] ? cg->ptr : cg->i64;
		tys[i + 1] = is_ptr[i] ? cg->di_ptr : di_long;
	}
	LLVMValueRef fn = LLVMAddFunction(cg->mod, name, LLVMFunctionType(cg->i64, params, (unsigned)np, 0));
	LLVMSetLinkage(fn, LLVMInternalLinkage);
	LLVMSetSection(fn, ".text");
	unsigned nounwind = LLVMGetEnumAttributeKindForName("nounwind", 8);
	LLVMAddAttributeAtIndex(fn, LLVMAttributeFunctionIndex,
				LLVMCreateEnumAttribute(cg->ctx, nounwind, 0));
	LLVMMetadataRef sty = LLVMDIBuilderCreateSubroutineType(cg->dib, cg->di_file, tys, (unsigned)np + 1, 0);
	unsigned line = saved->loc ? LLVMDILocationGetLine(saved->loc) : 1;
	LLVMMetadataRef sp = LLVMDIBuilderCreateFunction(cg->dib, cg->di_file, name, strlen(name), name,
							 strlen(name), cg->di_file, line, sty, 1, 1, line,
							 LLVMDIFlagPrototyped, 1);
	LLVMSetSubprogram(fn, sp);
	cg->fn = fn;
	cg->di_sp = sp;
	cg->entry = LLVMAppendBasicBlockInContext(cg->ctx, fn, "entry");
	/* as a probe's function: allocas in entry, zeroing and the frame's
	 * slots in init, then the body */
	cg->init = LLVMAppendBasicBlockInContext(cg->ctx, fn, "init");
	cg->frame_slot = cg->frame_base = NULL;
	cg->frame_size = 0;
	LLVMMetadataRef dl = LLVMDIBuilderCreateDebugLocation(cg->ctx, line, 1, sp, NULL);
	for (int i = 0; i < np; i++) {
		LLVMValueRef arg = LLVMGetParam(fn, (unsigned)i);
		LLVMSetValueName2(arg, pnames[i], strlen(pnames[i]));
		LLVMMetadataRef pv = LLVMDIBuilderCreateParameterVariable(
			cg->dib, sp, pnames[i], strlen(pnames[i]), (unsigned)i + 1, cg->di_file, line,
			tys[i + 1], 1, 0);
		LLVMDIBuilderInsertDbgValueAtEnd(cg->dib, arg, pv, LLVMDIBuilderCreateExpression(cg->dib, NULL, 0),
						 dl, cg->entry);
	}
	LLVMPositionBuilderAtEnd(cg->b, cg->entry);
	LLVMSetCurrentDebugLocation2(cg->b, dl);
	return fn;
}

/* close the callback (falling off the body continues the iteration) and
 * return to the probe where it was */
static void callback_end(struct cg_ctx *cg, const char *name, LLVMBasicBlockRef body,
			 const struct fn_state *saved)
{
	if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(cg->b)))
		LLVMBuildRet(cg->b, cg_const(cg, 0));
	LLVMPositionBuilderAtEnd(cg->b, cg->init);
	LLVMBuildBr(cg->b, body);
	LLVMPositionBuilderAtEnd(cg->b, cg->entry);
	if (cg->frame_size)	/* its own frame: the probe's is not reachable here */
		cg_emit_frame(cg, name);
	LLVMBuildBr(cg->b, cg->init);
	cg->fn = saved->fn;
	cg->init = saved->init;
	cg->frame_slot = saved->frame_slot;
	cg->frame_base = saved->frame_base;
	cg->frame_size = saved->frame_size;
	cg->ctx_arg = saved->ctx_arg;
	cg->ret_flag = saved->ret_flag;
	cg->entry = saved->entry;
	cg->di_sp = saved->di_sp;
	cg->vars = saved->vars;
	cg->loop = saved->loop;
	LLVMPositionBuilderAtEnd(cg->b, saved->cur);
	LLVMSetCurrentDebugLocation2(cg->b, saved->loc);
}

static LLVMValueRef load_ptr(struct cg_ctx *cg, LLVMValueRef at)
{
	return LLVMBuildLoad2(cg->b, cg->ptr, at, "");
}

/* compound_stmt = "for" "(" "$" name ":" (map | unary ".." unary) ")" block */
void cg_for(struct cg_ctx *cg, struct ast_node *st)
{
	static int serial;
	int64_t a0, b0;
	if (!st->for_.map && sema_fold_const(st->for_.start, &a0) && sema_fold_const(st->for_.end, &b0) &&
	    b0 <= a0)
		return;
	struct var_set vs = {.a = cg->a, .skip = st->for_.var->var.name};
	collect(st->for_.body, &vs);
	int n = vs.n;
	/* the frame: variables, the probe's context, returned, start, length */
	/* on the stack: the helpers take no other memory for the callback's */
	LLVMValueRef frame = cg_alloca_stack(cg, (uint32_t)(n + 4) * 8, "for_frame");
	struct cg_var **slots = arena_new_array(cg->a, struct cg_var *, n ? n : 1);
	for (int i = 0; i < n; i++) {
		slots[i] = cg_var_slot(cg, vs.vars[i]);
		LLVMBuildStore(cg->b, slots[i]->slot, cg_gep(cg, frame, (uint32_t)i * 8));
	}
	LLVMBuildStore(cg->b, cg->ctx_arg, cg_gep(cg, frame, (uint32_t)n * 8));
	cg_store_i64(cg, cg_const(cg, 0), cg_gep(cg, frame, (uint32_t)(n + 1) * 8));
	LLVMValueRef count = NULL;
	const struct sema_map *m = NULL;
	if (st->for_.map) {
		m = cg_map_of(cg, st->for_.map);
	} else {
		/* start and end are evaluated once, before the first iteration */
		LLVMValueRef a = cg_expr(cg, st->for_.start), b = cg_expr(cg, st->for_.end);
		cg_store_i64(cg, a, cg_gep(cg, frame, (uint32_t)(n + 2) * 8));
		LLVMValueRef none = LLVMBuildICmp(cg->b, LLVMIntSLE, b, a, "");
		count = LLVMBuildSelect(cg->b, none, cg_const(cg, 0), LLVMBuildSub(cg->b, b, a, ""), "");
		cg_store_i64(cg, count, cg_gep(cg, frame, (uint32_t)(n + 3) * 8));
		LLVMValueRef zero = LLVMBuildICmp(cg->b, LLVMIntEQ, count, cg_const(cg, 0), "");
		count = LLVMBuildSelect(cg->b, zero, cg_const(cg, 1), count, "");
	}

	static const char *const map_params[] = {"map", "key", "value", "ctx"};
	static const bool map_ptr[] = {true, true, true, true};
	static const char *const range_params[] = {"index", "ctx"};
	static const bool range_ptr[] = {false, true};
	struct fn_state saved;
	const char *name = arena_printf(cg->a, "sonde_for_%d", serial++);
	LLVMValueRef fn = m ? callback_begin(cg, name, 4, map_params, map_ptr, &saved)
			    : callback_begin(cg, name, 2, range_params, range_ptr, &saved);
	LLVMValueRef cb_frame = LLVMGetParam(fn, m ? 3 : 1);
	/* in entry: the frame lookup (of a body with big values) may return */
	cg->ret_flag = cg_gep(cg, cb_frame, (uint32_t)(n + 1) * 8);
	/* in init, which dominates the body: the probe's variables */
	LLVMPositionBuilderAtEnd(cg->b, cg->init);
	cg->vars = NULL;
	for (int i = 0; i < n; i++) {
		struct cg_var *v = arena_new_obj(cg->a, struct cg_var);
		v->name = slots[i]->name;
		v->slot = load_ptr(cg, cg_gep(cg, cb_frame, (uint32_t)i * 8));
		v->next = cg->vars;
		cg->vars = v;
	}
	cg->ctx_arg = load_ptr(cg, cg_gep(cg, cb_frame, (uint32_t)n * 8));
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cg->ctx, fn, "body");
	LLVMPositionBuilderAtEnd(cg->b, body);
	struct ast_node *var = st->for_.var;
	LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(cg->ctx, fn, "for_next");
	LLVMBasicBlockRef stop = LLVMAppendBasicBlockInContext(cg->ctx, fn, "for_stop");
	if (!m) {
		LLVMValueRef len = cg_load_i64(cg, cg_gep(cg, cb_frame, (uint32_t)(n + 3) * 8));
		LLVMValueRef past = LLVMBuildICmp(cg->b, LLVMIntUGE, LLVMGetParam(fn, 0), len, "");
		LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(cg->ctx, fn, "for_run");
		LLVMBuildCondBr(cg->b, past, stop, run);
		LLVMPositionBuilderAtEnd(cg->b, run);
	}
	LLVMValueRef slot = cg_var_slot(cg, var)->slot;
	if (m) {
		/* $kv = (key, value) */
		const struct type_field *k = &var->type.fields[0], *v = &var->type.fields[1];
		cg_memcpy(cg, cg_gep(cg, slot, k->offset), LLVMGetParam(fn, 1), k->type.size);
		if (m->percpu) {
			/* an aggregation: the value is this CPU's slot; fold them
			 * all, as a read of @m[k] does */
			LLVMValueRef key = cg_alloca_nozero(cg, m->key_size, "for_key");
			cg_memcpy(cg, key, LLVMGetParam(fn, 1), m->key_size);
			cg_store_i64(cg, cg_agg_read(cg, m, key), cg_gep(cg, slot, v->offset));
		} else {
			cg_memcpy(cg, cg_gep(cg, slot, v->offset), LLVMGetParam(fn, 2),
				  v->type.size < m->value_size ? v->type.size : m->value_size);
		}
	} else {
		LLVMValueRef start = cg_load_i64(cg, cg_gep(cg, cb_frame, (uint32_t)(n + 2) * 8));
		cg_store_i64(cg, LLVMBuildAdd(cg->b, start, LLVMGetParam(fn, 0), ""), slot);
	}
	struct cg_loop l = {next, stop, NULL};
	cg->loop = &l;
	cg_stmt(cg, st->for_.body);
	if (!LLVMGetBasicBlockTerminator(LLVMGetInsertBlock(cg->b)))
		LLVMBuildBr(cg->b, next);
	LLVMPositionBuilderAtEnd(cg->b, next);
	LLVMBuildRet(cg->b, cg_const(cg, 0));
	LLVMPositionBuilderAtEnd(cg->b, stop);
	LLVMBuildRet(cg->b, cg_const(cg, 1));
	LLVMPositionBuilderAtEnd(cg->b, body);	/* terminated: callback_end adds nothing */
	callback_end(cg, name, body, &saved);

	cg_set_loc(cg, st->loc);
	if (m) {
		LLVMValueRef args[] = {cg_map_ref(cg, m), fn, frame, cg_const(cg, 0)};
		cg_helper_call(cg, BPF_FUNC_for_each_map_elem, args, 4);
	} else {
		LLVMValueRef args[] = {count, fn, frame, cg_const(cg, 0)};
		cg_helper_call(cg, BPF_FUNC_loop, args, 4);
	}
	/* a `return` in the body ends the probe here */
	LLVMValueRef returned = cg_load_i64(cg, cg_gep(cg, frame, (uint32_t)(n + 1) * 8));
	struct cg_if f = cg_begin_if(cg, LLVMBuildICmp(cg->b, LLVMIntNE, returned, cg_const(cg, 0), ""),
				     "for_returned");
	cg_return(cg);
	cg_end_if(cg, &f);
}

/* ---- a bpf_loop callback whose body another stage builds (codegen.h) ---- */

struct cg_callback {
	struct fn_state saved;
	LLVMValueRef fn;
	LLVMBasicBlockRef body;
	const char *name;
};

LLVMValueRef cg_loop_frame(struct cg_ctx *cg, uint32_t words, const char *name)
{
	/* one per name and function: a probe's loops run one after another */
	LLVMValueRef a = cg_find_alloca(cg, name);
	return a ? a : cg_alloca_stack(cg, words * 8, name);
}

struct cg_callback *cg_callback_begin(struct cg_ctx *cg, const char *name, LLVMValueRef *index,
				      LLVMValueRef *frame)
{
	static const char *const params[] = {"index", "ctx"};
	static const bool is_ptr[] = {false, true};
	static int serial;
	struct cg_callback *cb = arena_new_obj(cg->a, struct cg_callback);
	cb->name = arena_printf(cg->a, "sonde_%s_%d", name, serial++);
	cb->fn = callback_begin(cg, cb->name, 2, params, is_ptr, &cb->saved);
	*index = LLVMGetParam(cb->fn, 0);
	*frame = LLVMGetParam(cb->fn, 1);
	/* a cg_return (a failed scratch lookup) stops the loop */
	cg->ret_flag = LLVMBuildAlloca(cg->b, cg->i64, "cb_stopped");
	cg->vars = NULL;
	cg->loop = NULL;
	cb->body = LLVMAppendBasicBlockInContext(cg->ctx, cb->fn, "body");
	LLVMPositionBuilderAtEnd(cg->b, cb->body);
	return cb;
}

void cg_callback_stop_if(struct cg_ctx *cg, LLVMValueRef cond)
{
	LLVMBasicBlockRef stop = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "cb_stop");
	LLVMBasicBlockRef go = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "cb_go");
	LLVMBuildCondBr(cg->b, cond, stop, go);
	LLVMPositionBuilderAtEnd(cg->b, stop);
	LLVMBuildRet(cg->b, cg_const(cg, 1));
	LLVMPositionBuilderAtEnd(cg->b, go);
}

LLVMValueRef cg_callback_end(struct cg_ctx *cg, struct cg_callback *cb)
{
	callback_end(cg, cb->name, cb->body, &cb->saved);
	return cb->fn;
}

void cg_loop_call(struct cg_ctx *cg, LLVMValueRef count, LLVMValueRef fn, LLVMValueRef frame)
{
	LLVMValueRef args[] = {count, fn, frame, cg_const(cg, 0)};
	cg_helper_call_quiet(cg, BPF_FUNC_loop, args, 4);
}
