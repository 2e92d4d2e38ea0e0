/*
 * maps.c - map keys, reads, assignments and aggregations.
 *
 * Aggregations live in per-CPU hashes, so an update is a plain
 * read-modify-write of this CPU's slot: no atomics, no lost updates, and
 * userspace folds the CPUs together when it prints.  hist and lhist store
 * one slot per (key, bucket): the bucket index is the key's last 8 bytes.
 * Aggregations without keys are per-CPU arrays (sema_map.array_slots):
 * the key is a u32 index, 0 or the bucket (the last slot of a hist or
 * lhist is its sum), and the slot always exists.
 * tseries() keys end in an 8-byte interval slot (epoch % num_intervals)
 * whose per-CPU value is {value, meta, epoch}: the slot is reset when the
 * epoch it holds is not the current one (ts_update).
 * Values assigned with '=' live in shared hashes; '+=' and '++' on them
 * use atomic adds.
 */
#include "codegen/cg_int.h"
#include "host/host.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>



static int map_name_cmp(const void *name, const void *m)
{
	return strcmp(name, (*(const struct sema_map *const *)m)->name);
}

/* sema sorts the maps by name: a binary search (a script may name 10,000) */
const struct sema_map *cg_map_of(struct cg_ctx *cg, struct ast_node *m)
{
	const struct sema_map *const *found = bsearch(m->map.name, cg->r->maps, (size_t)cg->r->nmaps,
						      sizeof(*cg->r->maps), map_name_cmp);
	return found ? *found : NULL;
}

/* does storing e into `size` bytes write every one of them? */
static bool fills(struct ast_node *e, uint32_t size)
{
	if (type_is(&e->type, TT_INT_VALUE))
		return size == 8;	/* cg_expr_store writes the i64 */
	const struct builtin *b = cg_builtin_of(e);
	return b && b->into_fills && e->type.size == size;
}

/*
 * Zero the words of a key that its fields' stores may leave unwritten:
 * padding, the hist bucket slot at the end (which cg_agg_update then
 * overwrites, and LLVM drops the zero), strings that end before their
 * field does.  A word that the stores fill entirely is not zeroed first:
 * LLVM removes such a zero when a plain store overwrites it, but not when
 * a helper writes the bytes (comm).
 */
static void key_zero_gaps(struct cg_ctx *cg, struct ast_node *m, const struct sema_map *map,
			  LLVMValueRef key)
{
	uint32_t words = (map->key_size + 7) / 8;
	bool full[64] = {false};
	if (words > 64) {	/* keys this long are rare: zero them whole */
		cg_memset0(cg, key, map->key_size);
		return;
	}
	int i = 0;
	for (struct ast_node *k = m->map.keys; k; k = k->next, i++) {
		uint32_t off = m->map.nkeys == 1 ? 0 : map->key.fields[i].offset;
		uint32_t size = m->map.nkeys == 1 ? map->key.size : map->key.fields[i].type.size;
		if (!fills(k, size) || off % 8 || size % 8)
			continue;
		for (uint32_t w = off / 8; w < (off + size) / 8; w++)
			full[w] = true;
	}
	for (uint32_t w = 0; w < words; w++)
		if (!full[w])
			cg_store_i64(cg, cg_const(cg, 0), cg_gep(cg, key, 8 * w));
}

LLVMValueRef cg_map_key(struct cg_ctx *cg, struct ast_node *m, int with_bucket)
{
	const struct sema_map *map = cg_map_of(cg, m);
	if (map->array_slots) {	/* index 0, or the bucket cg_agg_update stores */
		LLVMValueRef idx = cg_alloca_nozero(cg, 4, "index");
		LLVMBuildStore(cg->b, LLVMConstInt(cg->i32, 0, 0), idx);
		return idx;
	}
	LLVMValueRef key = cg_alloca_nozero(cg, map->key_size, "key");
	cg_lifetime(cg, key, map->key_size, true);
	key_zero_gaps(cg, m, map, key);
	if (m->map.nkeys == 1 && map->key.kind == TY_TUPLE) {
		/* a tuple value ($k = (a, b); @m[$k]): element by element, as
		 * the map's key may hold wider strings than this tuple */
		const struct type *t = &m->map.keys->type;
		LLVMValueRef src = cg_expr(cg, m->map.keys);
		for (int i = 0; i < t->nfields && i < map->key.nfields; i++) {
			/* a record's field goes to the key's field of its name */
			const struct type_field *to = t->fields[i].name ?
				type_record_field(&map->key, t->fields[i].name) : &map->key.fields[i];
			if (!to)
				continue;
			uint32_t n = t->fields[i].type.size < to->type.size
					     ? t->fields[i].type.size : to->type.size;
			cg_memcpy(cg, cg_gep(cg, key, to->offset), cg_gep(cg, src, t->fields[i].offset), n);
		}
	} else if (m->map.nkeys == 1) {
		cg_expr_store(cg, m->map.keys, key, map->key.size);
	} else if (m->map.nkeys > 1) {
		int i = 0;
		for (struct ast_node *k = m->map.keys; k; k = k->next, i++) {
			const struct type_field *f = &map->key.fields[i];
			/* a tuple key converts to the map's layout (its strings
			 * may be narrower, its integers of another width) */
			cg_expr_store_as(cg, k, cg_gep(cg, key, f->offset), &f->type);
		}
	}
	(void)with_bucket;	/* the bucket slot is the zeroed tail of key_size */
	return key;
}

/*
 * An aggregation read in an expression (`@n = count(); if (@n > 100)`):
 * its per-CPU slots folded as userspace prints them - counts and sums
 * added, the least of the mins, an avg's total over its count - with
 * bpf_map_lookup_percpu_elem for each possible CPU.  Reading this CPU's
 * slot alone would answer per CPU, a silent undercount.
 */
LLVMValueRef cg_agg_read(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key)
{
	LLVMBuilderRef b = cg->b;
	LLVMValueRef acc = cg_alloca(cg, 16, "agg");	/* {value, count or set} */
	LLVMValueRef a0 = acc, a1 = cg_gep(cg, acc, 8);
	LLVMValueRef cpu = cg_alloca(cg, 8, "cpu");
	int ncpus = cg->opts->ncpus > 0 ? cg->opts->ncpus : 1;
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "agg_cpu");
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "agg_slot");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "agg_done");
	LLVMBuildBr(b, head);
	LLVMPositionBuilderAtEnd(b, head);
	LLVMValueRef i = cg_load_i64(cg, cpu);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, i, cg_const(cg, (uint64_t)ncpus), ""), body, done);
	LLVMPositionBuilderAtEnd(b, body);
	LLVMValueRef p = cg_map_lookup_cpu(cg, m, key, i);
	struct cg_if f = cg_begin_if(cg, LLVMBuildIsNotNull(b, p, ""), "agg_found");
	LLVMValueRef v0 = cg_load_i64(cg, p);
	switch (m->kind) {
	case MK_COUNT: case MK_SUM:
		cg_store_i64(cg, LLVMBuildAdd(b, cg_load_i64(cg, a0), v0, ""), a0);
		break;
	case MK_AVG:	/* {count, total} */
		cg_store_i64(cg, LLVMBuildAdd(b, cg_load_i64(cg, a1), v0, ""), a1);
		cg_store_i64(cg, LLVMBuildAdd(b, cg_load_i64(cg, a0), cg_load_i64(cg, cg_gep(cg, p, 8)), ""), a0);
		break;
	case MK_MIN: case MK_MAX: {	/* {value, set}: the best of the CPUs that saw one */
		LLVMValueRef cur = cg_load_i64(cg, a0);
		LLVMValueRef set = LLVMBuildICmp(b, LLVMIntNE, cg_load_i64(cg, cg_gep(cg, p, 8)), cg_const(cg, 0), "");
		LLVMValueRef first = LLVMBuildICmp(b, LLVMIntEQ, cg_load_i64(cg, a1), cg_const(cg, 0), "");
		LLVMValueRef better = LLVMBuildICmp(b, m->kind == MK_MIN ? LLVMIntSLT : LLVMIntSGT, v0, cur, "");
		LLVMValueRef take = LLVMBuildAnd(b, set, LLVMBuildOr(b, first, better, ""), "");
		cg_store_i64(cg, LLVMBuildSelect(b, take, v0, cur, ""), a0);
		cg_store_i64(cg, LLVMBuildSelect(b, take, cg_const(cg, 1), cg_load_i64(cg, a1), ""), a1);
		break;
	}
	case MK_NONE: case MK_VALUE: case MK_STATS: case MK_HIST: case MK_LHIST: case MK_TSERIES:
		break;	/* sema lets no other kind be read */
	}
	cg_end_if(cg, &f);
	cg_store_i64(cg, LLVMBuildAdd(b, i, cg_const(cg, 1), ""), cpu);
	LLVMBuildBr(b, head);
	LLVMPositionBuilderAtEnd(b, done);
	if (m->kind == MK_AVG)	/* an empty avg reads 0, as it prints */
		return cg_arith(cg, OP_DIV, cg_load_i64(cg, a0), cg_load_i64(cg, a1), true);
	return cg_load_i64(cg, a0);
}

LLVMValueRef cg_map_read(struct cg_ctx *cg, struct ast_node *mn)
{
	const struct sema_map *m = cg_map_of(cg, mn);
	LLVMValueRef key = cg_map_key(cg, mn, 0);
	if (m->percpu)
		return cg_agg_read(cg, m, key);
	LLVMValueRef p = cg_map_lookup(cg, m, key);
	if (!m->array_slots)	/* the key is not needed past the lookup */
		cg_lifetime(cg, key, m->key_size, false);
	cg_check_lookup(cg, m, p);	/* -k: a read of an absent key warns */
	bool isint = m->kind != MK_VALUE || (mn->type.kind != TY_STR && mn->type.kind != TY_TUPLE &&
					     mn->type.kind != TY_BUF && mn->type.kind != TY_INET &&
					     mn->type.kind != TY_USYM && mn->type.kind != TY_STRUCT &&
					     mn->type.kind != TY_ARRAY);
	uint32_t size = isint ? 8 : m->value_size;
	LLVMValueRef res = cg_alloca(cg, size, "mapval");
	struct cg_if f = cg_begin_if(cg, LLVMBuildIsNotNull(cg->b, p, ""), "found");
	cg_memcpy(cg, res, p, size);
	cg_end_if(cg, &f);
	return isint ? cg_load_i64(cg, res) : res;
}

void cg_map_assign(struct cg_ctx *cg, struct ast_node *mn, struct ast_node *value)
{
	if (value->kind == N_CALL) {
		const struct builtin *b = value->note.builtin;
		if (b && b->kind == BI_AGG) {
			cg_agg_update(cg, mn, value);
			return;
		}
	}
	const struct sema_map *m = cg_map_of(cg, mn);
	LLVMValueRef key = cg_map_key(cg, mn, 0);
	if (type_is(&value->type, TT_INT_VALUE) && m->value_size == 8 && !m->percpu) {
		/*
		 * An integer goes into the slot a lookup finds: one aligned
		 * 8-byte store, which readers see whole.  An update would
		 * take the bucket's lock and swap in a fresh element from
		 * the free list every time; only a new key needs it.
		 */
		LLVMValueRef v = cg_expr(cg, value);
		LLVMValueRef p = cg_map_lookup(cg, m, key);
		LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "assign_exists");
		LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "assign_insert");
		LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "assigned");
		LLVMBuildCondBr(cg->b, LLVMBuildIsNotNull(cg->b, p, ""), yes, no);
		LLVMPositionBuilderAtEnd(cg->b, yes);
		cg_store_i64(cg, v, p);
		LLVMBuildBr(cg->b, end);
		LLVMPositionBuilderAtEnd(cg->b, no);
		LLVMValueRef val = cg_alloca_nozero(cg, 8, "val");
		cg_store_i64(cg, v, val);
		cg_map_update(cg, m, key, val, BPF_ANY);
		LLVMBuildBr(cg->b, end);
		LLVMPositionBuilderAtEnd(cg->b, end);
		if (!m->array_slots)
			cg_lifetime(cg, key, m->key_size, false);
		return;
	}
	LLVMValueRef val = cg_alloca_nozero(cg, m->value_size, "val");
	cg_lifetime(cg, val, m->value_size, true);
	cg_memset0(cg, val, m->value_size);
	cg_expr_store_as(cg, value, val, &m->value);
	cg_map_update(cg, m, key, val, BPF_ANY);
	/* neither is needed past the update: later statements may reuse
	 * their stack */
	cg_lifetime(cg, val, m->value_size, false);
	if (!m->array_slots)
		cg_lifetime(cg, key, m->key_size, false);
}

void cg_map_compound(struct cg_ctx *cg, struct ast_node *mn, enum ast_op op, LLVMValueRef v,
		     LLVMValueRef *old_out, LLVMValueRef *new_out)
{
	const struct sema_map *m = cg_map_of(cg, mn);
	/* a map of unsigned values divides and shifts them as unsigned */
	bool sgn = m->kind != MK_VALUE || m->value.kind != TY_INT || m->value.is_signed;
	LLVMValueRef key = cg_map_key(cg, mn, 0);
	LLVMValueRef oldv = cg_alloca(cg, 8, "old");
	LLVMValueRef p = cg_map_lookup(cg, m, key);
	LLVMValueRef found = LLVMBuildIsNotNull(cg->b, p, "");
	LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "exists");
	LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "insert");
	LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "updated");
	LLVMBuildCondBr(cg->b, found, yes, no);

	LLVMPositionBuilderAtEnd(cg->b, yes);
	if ((op == OP_ADD || op == OP_SUB) && (!old_out || host_feature(HF_ATOMIC_FETCH))) {
		/* atomic: several CPUs may update one shared slot.  Before
		 * 5.12 an atomic add returns nothing, so where the old value
		 * is wanted (@n++ as a value) the update is a load and a
		 * store, as on any other operator */
		LLVMValueRef d = op == OP_ADD ? v : LLVMBuildNeg(cg->b, v, "");
		LLVMValueRef old = LLVMBuildAtomicRMW(cg->b, LLVMAtomicRMWBinOpAdd, p, d,
						      LLVMAtomicOrderingMonotonic, 0);
		cg_store_i64(cg, old, oldv);
	} else {
		LLVMValueRef old = cg_load_i64(cg, p);
		cg_store_i64(cg, old, oldv);
		cg_store_i64(cg, cg_arith(cg, op, old, v, sgn), p);
	}
	LLVMBuildBr(cg->b, end);

	LLVMPositionBuilderAtEnd(cg->b, no);
	LLVMValueRef val = cg_alloca(cg, m->value_size, "val");
	cg_store_i64(cg, cg_arith(cg, op, cg_const(cg, 0), v, sgn), val);
	cg_map_update(cg, m, key, val, BPF_ANY);
	LLVMBuildBr(cg->b, end);

	LLVMPositionBuilderAtEnd(cg->b, end);
	if (old_out) {
		*old_out = cg_load_i64(cg, oldv);
		*new_out = cg_arith(cg, op, *old_out, v, true);
	}
}

/* v, through an empty inline asm: LLVM knows nothing of the result, so
 * it cannot turn the arithmetic done on it back into compares (jumps),
 * as it would from the range of values such as tid, or from a mask
 * that is 0 or -1 */
static LLVMValueRef opaque(struct cg_ctx *cg, LLVMValueRef v)
{
	LLVMTypeRef fty = LLVMFunctionType(cg->i64, &cg->i64, 1, 0);
	LLVMValueRef as = LLVMGetInlineAsm(fty, (char *)"", 0, (char *)"=r,0", 4, 0, 0,
					   LLVMInlineAsmDialectATT, 0);
	return LLVMBuildCall2(cg->b, fty, as, &v, 1, "");
}

/* 1 when x > c, else 0, without a branch: for x and c below 2^63 (both
 * non-negative as signed), c - x is negative exactly when x > c.  BPF has
 * no set-on-compare, so a compare would become a jump. */
static LLVMValueRef above(struct cg_ctx *cg, LLVMValueRef x, uint64_t c)
{
	return LLVMBuildLShr(cg->b, LLVMBuildSub(cg->b, cg_const(cg, c), x, ""), cg_const(cg, 63), "");
}

/*
 * log2 bucket: 0 for negatives, 1 for 0, 2 + floor(log2(v)) otherwise.
 * Branch-free: floor(log2) by halving steps (shift by 32, 16 ... when the
 * value is above 2^k - 1), each step's test computed by `above`; then
 * masks pick the bucket for 0 and for negatives.
 */
static LLVMValueRef hist_bucket(struct cg_ctx *cg, LLVMValueRef v, int bits)
{
	LLVMBuilderRef b = cg->b;
	LLVMValueRef x = opaque(cg, v);
	/* a negative v is bucket 0 whatever the steps make of it (the mask
	 * below), so `above` may treat x as non-negative */
	LLVMValueRef neg = LLVMBuildLShr(b, x, cg_const(cg, 63), "");	/* 1 when v < 0 */
	LLVMValueRef nz = above(cg, x, 0);
	LLVMValueRef r = cg_const(cg, 0);
	for (int sh = 32; sh >= 1; sh /= 2) {
		LLVMValueRef t = LLVMBuildShl(b, above(cg, x, (1ull << sh) - 1), cg_const(cg, (uint64_t)__builtin_ctz((unsigned)sh)), "");
		x = LLVMBuildLShr(b, x, t, "");
		r = LLVMBuildOr(b, r, t, "");
	}
	/* v > 0: r + 2; v == 0: the steps leave r = 0, so 1.  An add, not a
	 * multiply by nz: LLVM turns that into a select, which is a jump */
	LLVMValueRef nonneg = LLVMBuildAdd(b, LLVMBuildAdd(b, r, nz, ""), cg_const(cg, 1), "");
	if (bits) {
		/* hist(v, k): with s = max(r - k, 0), 1 + (s << k) + (v >> s): v + 1
		 * below 2^(k+1), else the power's N = 2^k sub-buckets (v >> s is
		 * N + the sub-bucket there); s's max by a sign mask */
		LLVMValueRef d = LLVMBuildSub(b, r, cg_const(cg, (uint64_t)bits), "");
		LLVMValueRef s = LLVMBuildAnd(b, d, LLVMBuildNot(b, LLVMBuildAShr(b, d, cg_const(cg, 63), ""), ""), "");
		LLVMValueRef pos = opaque(cg, v);
		nonneg = LLVMBuildAdd(b, LLVMBuildAdd(b, LLVMBuildShl(b, s, cg_const(cg, (uint64_t)bits), ""),
						      LLVMBuildLShr(b, pos, s, ""), ""),
				      cg_const(cg, 1), "");
	}
	/* negatives: 0 */
	return LLVMBuildAnd(b, nonneg, LLVMBuildSub(b, neg, cg_const(cg, 1), ""), "");
}

/*
 * lhist bucket: 0 below min, n+1 at or above max, else (v-min)/step + 1.
 * Branch-free as hist_bucket: sema keeps 0 <= min < max, so for v >= 0
 * the tests are `above`'s subtractions; masks pick the bucket, and a
 * negative v (below min whatever min is) is masked to 0 at the end.
 */
static LLVMValueRef lhist_bucket(struct cg_ctx *cg, LLVMValueRef v, const struct sema_map *m)
{
	LLVMBuilderRef b = cg->b;
	uint64_t n = (uint64_t)((m->lh_max - m->lh_min) / m->lh_step);
	LLVMValueRef x = opaque(cg, v);
	LLVMValueRef neg = LLVMBuildLShr(b, x, cg_const(cg, 63), "");	/* 1 when v < 0 */
	LLVMValueRef off = LLVMBuildSub(b, x, cg_const(cg, (uint64_t)m->lh_min), "");
	LLVMValueRef below = LLVMBuildLShr(b, off, cg_const(cg, 63), "");	/* v < min */
	LLVMValueRef over = above(cg, x, (uint64_t)m->lh_max - 1);	/* v >= max */
	/* off is what v - min is for any v >= min, so an unsigned division
	 * does (BPF has no signed one); its value is masked away otherwise */
	LLVMValueRef in = LLVMBuildAdd(b, LLVMBuildUDiv(b, off, cg_const(cg, (uint64_t)m->lh_step), ""),
				       cg_const(cg, 1), "");
	/* over ? n + 1 : in, as in ^ ((in ^ (n + 1)) & -over) */
	LLVMValueRef pick = LLVMBuildAnd(b, LLVMBuildXor(b, in, cg_const(cg, n + 1), ""),
					 opaque(cg, LLVMBuildNeg(b, over, "")), "");
	LLVMValueRef r = LLVMBuildXor(b, in, pick, "");
	/* below min or negative: 0 */
	LLVMValueRef zero = LLVMBuildOr(b, below, neg, "");
	return LLVMBuildAnd(b, r, LLVMBuildSub(b, zero, cg_const(cg, 1), ""), "");
}

/* one aggregation step on the slot at p: count, add, min/max ... */
static void agg_apply(struct cg_ctx *cg, const struct sema_map *m, enum map_kind k,
		      LLVMValueRef slot, LLVMValueRef v)
{
	LLVMBuilderRef b = cg->b;
	LLVMValueRef w0 = slot, w1 = cg_gep(cg, slot, 8);
	switch (k) {
	case MK_COUNT: case MK_HIST: case MK_LHIST:
		cg_store_i64(cg, LLVMBuildAdd(b, cg_load_i64(cg, w0), cg_const(cg, 1), ""), w0);
		break;
	case MK_SUM:	/* {sum}, or {sum, set} in an array */
		cg_store_i64(cg, LLVMBuildAdd(b, cg_load_i64(cg, w0), v, ""), w0);
		if (m->value_size > 8)
			cg_store_i64(cg, cg_const(cg, 1), w1);
		break;
	case MK_AVG: case MK_STATS:	/* {count, total} */
		cg_store_i64(cg, LLVMBuildAdd(b, cg_load_i64(cg, w0), cg_const(cg, 1), ""), w0);
		cg_store_i64(cg, LLVMBuildAdd(b, cg_load_i64(cg, w1), v, ""), w1);
		break;
	case MK_MIN: case MK_MAX: {	/* {value, set} */
		LLVMValueRef cur = cg_load_i64(cg, w0);
		LLVMValueRef unset = LLVMBuildICmp(b, LLVMIntEQ, cg_load_i64(cg, w1), cg_const(cg, 0), "");
		LLVMValueRef better = LLVMBuildICmp(b, k == MK_MIN ? LLVMIntSLT : LLVMIntSGT, v, cur, "");
		LLVMValueRef take = LLVMBuildOr(b, unset, better, "");
		cg_store_i64(cg, LLVMBuildSelect(b, take, v, cur, ""), w0);
		cg_store_i64(cg, cg_const(cg, 1), w1);
		break;
	}
	case MK_NONE: case MK_VALUE: case MK_TSERIES:
		break;
	}
}

/* one tseries() step on the {value, meta, epoch} at slot, already reset
 * for this epoch: meta is the time of the last write (last value), the
 * count (avg) or "set" (min/max) */
static void ts_apply(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef slot,
		     LLVMValueRef v, LLVMValueRef now, LLVMValueRef epoch)
{
	LLVMBuilderRef b = cg->b;
	LLVMValueRef w0 = slot, w1 = cg_gep(cg, slot, 8);
	switch (m->ts_agg) {
	case TS_LAST:
		cg_store_i64(cg, v, w0);
		cg_store_i64(cg, now, w1);
		break;
	case TS_AVG:
		cg_store_i64(cg, LLVMBuildAdd(b, cg_load_i64(cg, w1), cg_const(cg, 1), ""), w1);
		__attribute__((fallthrough));	/* and the total */
	case TS_SUM:
		cg_store_i64(cg, LLVMBuildAdd(b, cg_load_i64(cg, w0), v, ""), w0);
		break;
	case TS_MIN: case TS_MAX: {
		LLVMIntPredicate lt = m->ts_unsigned ? LLVMIntULT : LLVMIntSLT;
		LLVMIntPredicate gt = m->ts_unsigned ? LLVMIntUGT : LLVMIntSGT;
		LLVMValueRef cur = cg_load_i64(cg, w0);
		LLVMValueRef unset = LLVMBuildICmp(b, LLVMIntEQ, cg_load_i64(cg, w1), cg_const(cg, 0), "");
		LLVMValueRef better = LLVMBuildICmp(b, m->ts_agg == TS_MIN ? lt : gt, v, cur, "");
		cg_store_i64(cg, LLVMBuildSelect(b, LLVMBuildOr(b, unset, better, ""), v, cur, ""), w0);
		cg_store_i64(cg, cg_const(cg, 1), w1);
		break;
	}
	}
	cg_store_i64(cg, epoch, cg_gep(cg, slot, 16));
}

/*
 * tseries(): the interval of now on bpftrace's clock (sw_tai: boot time
 * plus TAI's offset from it when the program is compiled, so that kernels
 * without bpf_ktime_get_tai_ns work too), its slot in the key, and the
 * slot's value reset when it still holds an older interval.
 */
static void ts_update(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key, LLVMValueRef v)
{
	LLVMBuilderRef b = cg->b;
	struct timespec tai, boot;
	clock_gettime(CLOCK_TAI, &tai);
	clock_gettime(CLOCK_BOOTTIME, &boot);
	int64_t off = (tai.tv_sec - boot.tv_sec) * 1000000000LL + (tai.tv_nsec - boot.tv_nsec);
	LLVMValueRef now = LLVMBuildAdd(b, cg_helper_call(cg, BPF_FUNC_ktime_get_boot_ns, NULL, 0),
					cg_const(cg, (uint64_t)off), "sw_tai");
	LLVMValueRef epoch = LLVMBuildUDiv(b, now, cg_const(cg, m->ts_interval), "epoch");
	cg_store_i64(cg, LLVMBuildURem(b, epoch, cg_const(cg, m->ts_nintervals), "slot"),
		     cg_gep(cg, key, m->key_size - 8));
	LLVMValueRef p = cg_map_lookup(cg, m, key);
	LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "ts_exists");
	LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "ts_insert");
	LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "ts_done");
	LLVMBuildCondBr(b, LLVMBuildIsNotNull(b, p, ""), yes, no);
	LLVMPositionBuilderAtEnd(b, yes);
	if (m->ts_agg != TS_LAST) {	/* a slot of an older interval starts over */
		LLVMValueRef stale = LLVMBuildICmp(b, LLVMIntNE, cg_load_i64(cg, cg_gep(cg, p, 16)),
						   epoch, "stale");
		for (uint32_t w = 0; w < 16; w += 8) {
			LLVMValueRef q = cg_gep(cg, p, w);
			cg_store_i64(cg, LLVMBuildSelect(b, stale, cg_const(cg, 0), cg_load_i64(cg, q), ""), q);
		}
	}
	ts_apply(cg, m, p, v, now, epoch);
	LLVMBuildBr(b, end);
	LLVMPositionBuilderAtEnd(b, no);
	LLVMValueRef fresh = cg_alloca(cg, m->value_size, "tsval");
	ts_apply(cg, m, fresh, v, now, epoch);
	cg_map_update(cg, m, key, fresh, BPF_ANY);
	LLVMBuildBr(b, end);
	LLVMPositionBuilderAtEnd(b, end);
}

LLVMValueRef cg_tseries_delete(struct cg_ctx *cg, struct ast_node *mn)
{
	LLVMBuilderRef b = cg->b;
	const struct sema_map *m = cg_map_of(cg, mn);
	LLVMValueRef key = cg_map_key(cg, mn, 1);
	LLVMValueRef i = cg_alloca(cg, 8, "ts_slot"), any = cg_alloca(cg, 8, "ts_any");
	LLVMBasicBlockRef head = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "ts_del");
	LLVMBasicBlockRef body = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "ts_del_slot");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "ts_del_done");
	LLVMBuildBr(b, head);
	LLVMPositionBuilderAtEnd(b, head);
	LLVMValueRef n = cg_load_i64(cg, i);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntULT, n, cg_const(cg, m->ts_nintervals), ""), body,
			done);
	LLVMPositionBuilderAtEnd(b, body);
	cg_store_i64(cg, n, cg_gep(cg, key, m->key_size - 8));
	/* 1 when rc (0 or -errno) is 0, without a compare: a branch per slot
	 * would leave the verifier a state per slot to explore */
	LLVMValueRef rc = opaque(cg, cg_map_delete(cg, m, key));
	LLVMValueRef hit = LLVMBuildXor(b, LLVMBuildLShr(b, rc, cg_const(cg, 63), ""), cg_const(cg, 1), "");
	cg_store_i64(cg, LLVMBuildOr(b, cg_load_i64(cg, any), hit, ""), any);
	cg_store_i64(cg, LLVMBuildAdd(b, n, cg_const(cg, 1), ""), i);
	LLVMBuildBr(b, head);
	LLVMPositionBuilderAtEnd(b, done);
	return cg_load_i64(cg, any);
}

/*
 * The per-CPU slot update: found -> update in place, missing -> insert the
 * initial value (a fresh, zeroed buffer updated the same way).  An array's
 * slot is always found: no insert path, only the null test the verifier
 * asks for.
 */
static void agg_slot(struct cg_ctx *cg, const struct sema_map *m, LLVMValueRef key, enum map_kind k,
		     LLVMValueRef v)
{
	LLVMBuilderRef b = cg->b;
	LLVMValueRef p = cg_map_lookup(cg, m, key);
	LLVMValueRef found = LLVMBuildIsNotNull(b, p, "");
	if (m->array_slots) {
		struct cg_if f = cg_begin_if(cg, found, "agg_slot");
		agg_apply(cg, m, k, p, v);
		cg_end_if(cg, &f);
		return;
	}
	LLVMValueRef fresh = cg_alloca(cg, m->value_size, "aggval");
	LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "agg_exists");
	LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "agg_insert");
	LLVMBasicBlockRef end = LLVMAppendBasicBlockInContext(cg->ctx, cg->fn, "agg_done");
	LLVMBuildCondBr(b, found, yes, no);
	LLVMPositionBuilderAtEnd(b, yes);
	agg_apply(cg, m, k, p, v);
	LLVMBuildBr(b, end);
	LLVMPositionBuilderAtEnd(b, no);
	agg_apply(cg, m, k, fresh, v);
	cg_map_update(cg, m, key, fresh, BPF_ANY);
	LLVMBuildBr(b, end);
	LLVMPositionBuilderAtEnd(b, end);
}

void cg_agg_update(struct cg_ctx *cg, struct ast_node *mn, struct ast_node *call)
{
	const struct sema_map *m = cg_map_of(cg, mn);
	const struct builtin *bi = call->note.builtin;
	LLVMValueRef v = call->call.nargs ? cg_expr(cg, call->call.args) : cg_const(cg, 0);
	LLVMValueRef key = cg_map_key(cg, mn, 1);
	if (bi->agg == MK_TSERIES) {
		ts_update(cg, m, key, v);
		return;
	}
	if (bi->agg == MK_HIST || bi->agg == MK_LHIST) {
		LLVMValueRef bucket = bi->agg == MK_HIST ? hist_bucket(cg, v, m->hist_bits) : lhist_bucket(cg, v, m);
		if (m->array_slots)
			LLVMBuildStore(cg->b, LLVMBuildTrunc(cg->b, bucket, LLVMInt32TypeInContext(cg->ctx), ""),
				       key);
		else
			cg_store_i64(cg, bucket, cg_gep(cg, key, m->key_size - 8));
	}
	agg_slot(cg, m, key, bi->agg, v);
	/* the sum beside the buckets, in a slot the text printers skip */
	if ((bi->agg == MK_HIST || bi->agg == MK_LHIST) && cg->opts->hist_sum) {
		if (m->array_slots)
			LLVMBuildStore(cg->b, LLVMConstInt(cg->i32, m->array_slots - 1, 0), key);
		else
			cg_store_i64(cg, cg_const(cg, CG_HIST_SUM_BUCKET), cg_gep(cg, key, m->key_size - 8));
		agg_slot(cg, m, key, MK_SUM, v);
	}
}
