/*
 * interp.c - runs the BPF bytecode sonde compiled, inside the traced
 * process, with the helpers a user-space probe needs mapped to agent
 * functions.
 *
 * Why an interpreter and not native code: the bytecode is what sonde
 * already makes, and the kernel verifier has already accepted it (sonde
 * loads every program before it ships it), so every load and store it
 * makes is to its stack, its context or a map value; arbitrary memory is
 * only read through the probe_read helpers, which here go through
 * process_vm_readv on this process: a bad pointer gives -EFAULT and a
 * zeroed buffer, never a signal.  Native x86-64 code would need LLVM's
 * X86 backend in sonde (bigger and slower to start) for a saving of tens
 * of nanoseconds per probe (README: bench/uprobe-modes).
 *
 * Maps are the shared tables of agent.h: a per-CPU map's value is this
 * thread's shard.  Events (printf and the like) go to the shared ring.
 */
#include "agent/agent_int.h"

#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define STACK	512

static void copy(uint8_t *d, const uint8_t *s, uint64_t n)
{
	while (n--)
		*d++ = *s++;
}

static void zero(uint8_t *d, uint64_t n)
{
	while (n--)
		*d++ = 0;
}

/* ---- maps -------------------------------------------------------------------- */

static bool percpu(const struct sa_map *m)
{
	return m->type == SA_MAP_PERCPU_HASH || m->type == SA_MAP_PERCPU_ARRAY;
}

static bool array(const struct sa_map *m)
{
	return m->type == SA_MAP_ARRAY || m->type == SA_MAP_PERCPU_ARRAY;
}

/* the value of key in a shard: a per-CPU map's shard is a thread's (the
 * kernel's CPU), a plain map has shard 0 only */
static uint8_t *map_lookup_shard(const struct sa_env *e, struct sa_map *m, const uint8_t *key,
				 uint32_t shard)
{
	if (shard >= m->nshards)
		return NULL;
	if (array(m)) {
		uint32_t i = *(const uint32_t *)key;
		return i < m->cap ? sa_value(e->shm, m, shard, i) : NULL;
	}
	int64_t slot = sa_key_find(e->shm, m, key, 0);
	if (slot < 0 || __atomic_load_n(sa_key_state(e->shm, m, (uint64_t)slot), __ATOMIC_ACQUIRE) != SA_SLOT_READY)
		return NULL;
	return sa_value(e->shm, m, shard, (uint64_t)slot);
}

static uint8_t *map_lookup(const struct sa_env *e, struct sa_map *m, const uint8_t *key)
{
	return map_lookup_shard(e, m, key, percpu(m) ? e->shard : 0);
}

static int64_t map_update(const struct sa_env *e, struct sa_map *m, const uint8_t *key, const uint8_t *val,
			  uint64_t flags)
{
	uint32_t shard = percpu(m) ? e->shard : 0;
	if (array(m)) {
		uint32_t i = *(const uint32_t *)key;
		if (i >= m->cap)
			return -E2BIG;
		if (flags == BPF_NOEXIST)
			return -EEXIST;
		copy(sa_value(e->shm, m, shard, i), val, m->value_size);
		return 0;
	}
	int64_t slot = sa_key_find(e->shm, m, key, 1);
	if (slot < 0)
		return -E2BIG;
	uint64_t *state = sa_key_state(e->shm, m, (uint64_t)slot);
	bool live = __atomic_load_n(state, __ATOMIC_ACQUIRE) == SA_SLOT_READY;
	if ((flags == BPF_NOEXIST && live) || (flags == BPF_EXIST && !live))
		return live ? -EEXIST : -ENOENT;
	copy(sa_value(e->shm, m, shard, (uint64_t)slot), val, m->value_size);
	if (!live)
		__atomic_store_n(state, SA_SLOT_READY, __ATOMIC_RELEASE);
	return 0;
}

static int64_t map_delete(const struct sa_env *e, struct sa_map *m, const uint8_t *key)
{
	if (array(m))
		return -EINVAL;
	int64_t slot = sa_key_find(e->shm, m, key, 0);
	if (slot < 0)
		return -ENOENT;
	uint64_t *state = sa_key_state(e->shm, m, (uint64_t)slot);
	uint64_t expect = SA_SLOT_READY;
	if (!__atomic_compare_exchange_n(state, &expect, SA_SLOT_DEAD, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return -ENOENT;
	for (uint32_t s = 0; s < m->nshards; s++)
		zero(sa_value(e->shm, m, s, (uint64_t)slot), m->value_size);
	return 0;
}

/* ---- the event ring ---------------------------------------------------------- */

static int64_t ring_output(const struct sa_env *e, struct sa_map *m, const uint8_t *data, uint64_t size)
{
	struct sa_ring *r = (struct sa_ring *)(e->shm + m->off_vals);
	uint8_t *buf = (uint8_t *)(r + 1);
	uint64_t need = 8 + ((size + 7) & ~7ull);
	if (size > 0xffffff || need > r->size / 4)
		goto lost;
	for (;;) {
		uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		uint64_t tail = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
		uint64_t pos = head & (r->size - 1), pad = 0;
		if (pos + need > r->size)
			pad = r->size - pos;	/* a record never wraps: skip to the start */
		if (head + pad + need - tail > r->size)
			goto lost;
		if (!__atomic_compare_exchange_n(&r->head, &head, head + pad + need, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_ACQUIRE))
			continue;
		if (pad) {
			*(uint64_t *)(buf + pos) = 0;
			__atomic_store_n((uint32_t *)(buf + pos), (uint32_t)pad | SA_REC_PAD, __ATOMIC_RELEASE);
			pos = 0;
		}
		uint32_t *hdr = (uint32_t *)(buf + pos);
		hdr[1] = 0;
		copy(buf + pos + 8, data, size);
		__atomic_store_n(hdr, (uint32_t)size | SA_REC_DONE, __ATOMIC_RELEASE);
		return 0;
	}
lost:
	__atomic_fetch_add(&e->hdr->ring_lost, 1, __ATOMIC_RELAXED);
	return -EAGAIN;
}

/* ---- helpers ----------------------------------------------------------------- */

static int64_t read_mem(const struct sa_env *e, uint8_t *dst, uint64_t size, uint64_t src, bool str)
{
	if (!size)
		return 0;
	uint64_t done = 0;
	/* a string is read a page piece at a time: the rest of a page may be
	 * unmapped and is not ours to read past the NUL */
	while (done < size) {
		uint64_t a = src + done;
		uint64_t n = size - done;
		if (str && n > 4096 - (a & 4095))
			n = 4096 - (a & 4095);
		struct iovec l = {dst + done, n}, rv = {(void *)a, n};
		long got = syscall(SYS_process_vm_readv, getpid(), &l, 1, &rv, 1, 0);
		if (got <= 0) {
			__atomic_fetch_add(&e->hdr->faults, 1, __ATOMIC_RELAXED);
			zero(dst, size);
			return -EFAULT;
		}
		if (str) {
			for (uint64_t i = done; i < done + (uint64_t)got; i++)
				if (!dst[i])
					return (int64_t)i + 1;
		}
		done += (uint64_t)got;
	}
	if (str) {
		dst[size - 1] = 0;
		return (int64_t)size;
	}
	return 0;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static __thread uint64_t rnd_state __attribute__((tls_model("initial-exec")));

static uint64_t helper(const struct sa_env *e, int32_t id, uint64_t *r, void *ctx)
{
	switch (id) {
	case BPF_FUNC_map_lookup_elem:
		return (uint64_t)map_lookup(e, (struct sa_map *)r[1], (const uint8_t *)r[2]);
	case BPF_FUNC_map_update_elem:
		return (uint64_t)map_update(e, (struct sa_map *)r[1], (const uint8_t *)r[2], (const uint8_t *)r[3],
					    r[4]);
	case BPF_FUNC_map_delete_elem:
		return (uint64_t)map_delete(e, (struct sa_map *)r[1], (const uint8_t *)r[2]);
	case BPF_FUNC_map_lookup_percpu_elem:	/* an aggregation read folds the shards */
		return (uint64_t)map_lookup_shard(e, (struct sa_map *)r[1], (const uint8_t *)r[2], (uint32_t)r[3]);
	case BPF_FUNC_probe_read: case BPF_FUNC_probe_read_user: case BPF_FUNC_probe_read_kernel:
		return (uint64_t)read_mem(e, (uint8_t *)r[1], (uint32_t)r[2], r[3], false);
	case BPF_FUNC_probe_read_str: case BPF_FUNC_probe_read_user_str: case BPF_FUNC_probe_read_kernel_str:
		return (uint64_t)read_mem(e, (uint8_t *)r[1], (uint32_t)r[2], r[3], true);
	case BPF_FUNC_ktime_get_ns:
		return now_ns();
	case BPF_FUNC_get_prandom_u32:
		if (!rnd_state)
			rnd_state = now_ns() | 1;
		rnd_state ^= rnd_state << 13, rnd_state ^= rnd_state >> 7, rnd_state ^= rnd_state << 17;
		return (uint32_t)rnd_state;
	case BPF_FUNC_get_smp_processor_id: {
		unsigned cpu = 0;
		syscall(SYS_getcpu, &cpu, NULL, NULL);
		return cpu;
	}
	case BPF_FUNC_get_current_pid_tgid:
		return e->pid_tgid;
	case BPF_FUNC_get_current_uid_gid:
		return e->hdr->uid_gid;
	case BPF_FUNC_get_current_comm: {
		uint64_t n = (uint32_t)r[2];
		uint8_t *d = (uint8_t *)r[1];
		for (uint64_t i = 0; i < n; i++)
			d[i] = i < 16 ? (uint8_t)e->comm[i] : 0;
		if (n)
			d[n - 1] = 0;
		return 0;
	}
	case BPF_FUNC_get_current_cgroup_id:
		return e->hdr->cgroup_id;
	case BPF_FUNC_get_current_ancestor_cgroup_id:
		return r[1] < 16 ? e->hdr->cgroup_ancestors[r[1]] : 0;
	case BPF_FUNC_ringbuf_output:
		return (uint64_t)ring_output(e, (struct sa_map *)r[1], (const uint8_t *)r[2], r[3]);
	case BPF_FUNC_get_attach_cookie:
		return e->cookie;
	case BPF_FUNC_get_func_ip:
		return e->func_ip;
	default:
		__atomic_fetch_add(&e->hdr->helper_errors, 1, __ATOMIC_RELAXED);
		return (uint64_t)-ENOSYS;
	}
}

static bool helper_known(int32_t id)
{
	switch (id) {
	case BPF_FUNC_map_lookup_elem: case BPF_FUNC_map_update_elem: case BPF_FUNC_map_delete_elem:
	case BPF_FUNC_map_lookup_percpu_elem: case BPF_FUNC_probe_read: case BPF_FUNC_probe_read_user: case BPF_FUNC_probe_read_kernel:
	case BPF_FUNC_probe_read_str: case BPF_FUNC_probe_read_user_str: case BPF_FUNC_probe_read_kernel_str:
	case BPF_FUNC_ktime_get_ns: case BPF_FUNC_get_prandom_u32: case BPF_FUNC_get_smp_processor_id:
	case BPF_FUNC_get_current_pid_tgid: case BPF_FUNC_get_current_uid_gid: case BPF_FUNC_get_current_comm:
	case BPF_FUNC_get_current_cgroup_id: case BPF_FUNC_get_current_ancestor_cgroup_id:
	case BPF_FUNC_ringbuf_output: case BPF_FUNC_get_attach_cookie: case BPF_FUNC_get_func_ip:
		return true;
	default:
		return false;
	}
}

/* ---- the interpreter ------------------------------------------------------------ */

static void atomic(const struct bpf_insn *in, uint64_t *r)
{
	uint64_t a = r[in->dst_reg] + (uint64_t)(int64_t)in->off, v = r[in->src_reg], old = 0;
	bool w = BPF_SIZE(in->code) == BPF_W;
	bool fetch = in->imm & BPF_FETCH;
	switch (in->imm & ~BPF_FETCH) {
	case BPF_ADD:
		old = w ? __atomic_fetch_add((uint32_t *)a, (uint32_t)v, __ATOMIC_SEQ_CST)
			: __atomic_fetch_add((uint64_t *)a, v, __ATOMIC_SEQ_CST);
		break;
	case BPF_OR:
		old = w ? __atomic_fetch_or((uint32_t *)a, (uint32_t)v, __ATOMIC_SEQ_CST)
			: __atomic_fetch_or((uint64_t *)a, v, __ATOMIC_SEQ_CST);
		break;
	case BPF_AND:
		old = w ? __atomic_fetch_and((uint32_t *)a, (uint32_t)v, __ATOMIC_SEQ_CST)
			: __atomic_fetch_and((uint64_t *)a, v, __ATOMIC_SEQ_CST);
		break;
	case BPF_XOR:
		old = w ? __atomic_fetch_xor((uint32_t *)a, (uint32_t)v, __ATOMIC_SEQ_CST)
			: __atomic_fetch_xor((uint64_t *)a, v, __ATOMIC_SEQ_CST);
		break;
	case BPF_XCHG & ~BPF_FETCH:
		old = w ? __atomic_exchange_n((uint32_t *)a, (uint32_t)v, __ATOMIC_SEQ_CST)
			: __atomic_exchange_n((uint64_t *)a, v, __ATOMIC_SEQ_CST);
		break;
	case BPF_CMPXCHG & ~BPF_FETCH:
		if (w) {
			uint32_t exp = (uint32_t)r[0];
			__atomic_compare_exchange_n((uint32_t *)a, &exp, (uint32_t)v, 0, __ATOMIC_SEQ_CST,
						    __ATOMIC_SEQ_CST);
			r[0] = exp;
		} else {
			uint64_t exp = r[0];
			__atomic_compare_exchange_n((uint64_t *)a, &exp, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
			r[0] = exp;
		}
		return;
	}
	if (fetch)
		r[in->src_reg] = old;
}

/*
 * One flat switch on the opcode byte: the compiler makes it one jump
 * table, one indirect branch per instruction, instead of a switch on the
 * class and then on the operation.  The macros spell each operation once
 * for its four forms (64/32 bits, register/immediate).
 */
#define DST r[in->dst_reg]
#define SRC r[in->src_reg]
#define IMM ((uint64_t)(int64_t)in->imm)
#define ALU(OP, expr)								\
	case BPF_ALU64 | BPF_##OP | BPF_X: { uint64_t a = DST, b = SRC; DST = (expr); break; }	\
	case BPF_ALU64 | BPF_##OP | BPF_K: { uint64_t a = DST, b = IMM; DST = (expr); break; }	\
	case BPF_ALU | BPF_##OP | BPF_X: { uint32_t a = (uint32_t)DST, b = (uint32_t)SRC; DST = (uint32_t)(expr); break; } \
	case BPF_ALU | BPF_##OP | BPF_K: { uint32_t a = (uint32_t)DST, b = (uint32_t)in->imm; DST = (uint32_t)(expr); break; }
#define JMP(OP, T64, T32, test)							\
	case BPF_JMP | BPF_##OP | BPF_X: { T64 a = (T64)DST, b = (T64)SRC; if (test) pc += in->off; break; } \
	case BPF_JMP | BPF_##OP | BPF_K: { T64 a = (T64)DST, b = (T64)IMM; if (test) pc += in->off; break; } \
	case BPF_JMP32 | BPF_##OP | BPF_X: { T32 a = (T32)DST, b = (T32)SRC; if (test) pc += in->off; break; } \
	case BPF_JMP32 | BPF_##OP | BPF_K: { T32 a = (T32)DST, b = (T32)in->imm; if (test) pc += in->off; break; }
#define MEM(SZ, T)								\
	case BPF_LDX | BPF_MEM | BPF_##SZ: DST = *(T *)(SRC + (uint64_t)(int64_t)in->off); break;	\
	case BPF_ST | BPF_MEM | BPF_##SZ: *(T *)(DST + (uint64_t)(int64_t)in->off) = (T)IMM; break;	\
	case BPF_STX | BPF_MEM | BPF_##SZ: *(T *)(DST + (uint64_t)(int64_t)in->off) = (T)SRC; break;
#define SHIFT(a) (b & (sizeof(a) * 8 - 1))

uint64_t sa_run(const struct sa_env *e, const void *insns, uint32_t n, void *ctx)
{
	uint64_t stack[STACK / 8];
	uint64_t r[11];
	r[1] = (uint64_t)ctx;
	r[10] = (uint64_t)stack + sizeof(stack);
	/* sa_prog_check: the last instruction is an exit or a jump, every
	 * jump lands inside: the loop needs no bound */
	const struct bpf_insn *pc = insns;
	(void)n;
	for (;;) {
		const struct bpf_insn *in = pc++;
		switch (in->code) {
		ALU(ADD, a + b) ALU(SUB, a - b) ALU(MUL, a * b) ALU(OR, a | b) ALU(AND, a & b)
		ALU(XOR, a ^ b) ALU(MOV, ((void)a, b)) ALU(DIV, b ? a / b : 0) ALU(MOD, b ? a % b : a)
		ALU(LSH, a << SHIFT(a)) ALU(RSH, a >> SHIFT(a))
		case BPF_ALU64 | BPF_ARSH | BPF_X: DST = (uint64_t)((int64_t)DST >> (SRC & 63)); break;
		case BPF_ALU64 | BPF_ARSH | BPF_K: DST = (uint64_t)((int64_t)DST >> (in->imm & 63)); break;
		case BPF_ALU | BPF_ARSH | BPF_X: DST = (uint32_t)((int32_t)DST >> (SRC & 31)); break;
		case BPF_ALU | BPF_ARSH | BPF_K: DST = (uint32_t)((int32_t)DST >> (in->imm & 31)); break;
		case BPF_ALU64 | BPF_NEG: DST = -DST; break;
		case BPF_ALU | BPF_NEG: DST = (uint32_t)-(uint32_t)DST; break;
		case BPF_ALU | BPF_END | BPF_TO_LE:
			DST = in->imm == 16 ? (uint16_t)DST : in->imm == 32 ? (uint32_t)DST : DST;
			break;
		case BPF_ALU | BPF_END | BPF_TO_BE:
			DST = in->imm == 16 ? __builtin_bswap16((uint16_t)DST)
			    : in->imm == 32 ? __builtin_bswap32((uint32_t)DST) : __builtin_bswap64(DST);
			break;
		JMP(JEQ, uint64_t, uint32_t, a == b) JMP(JNE, uint64_t, uint32_t, a != b)
		JMP(JGT, uint64_t, uint32_t, a > b) JMP(JGE, uint64_t, uint32_t, a >= b)
		JMP(JLT, uint64_t, uint32_t, a < b) JMP(JLE, uint64_t, uint32_t, a <= b)
		JMP(JSET, uint64_t, uint32_t, a & b)
		JMP(JSGT, int64_t, int32_t, a > b) JMP(JSGE, int64_t, int32_t, a >= b)
		JMP(JSLT, int64_t, int32_t, a < b) JMP(JSLE, int64_t, int32_t, a <= b)
		case BPF_JMP | BPF_JA:
			pc += in->off;
			break;
		case BPF_JMP | BPF_CALL:
			r[0] = helper(e, in->imm, r, ctx);
			break;
		case BPF_JMP | BPF_EXIT:
			return r[0];
		case BPF_LD | BPF_IMM | BPF_DW:	/* agent.c's prog_load put the full value in */
			DST = (uint32_t)in->imm | ((uint64_t)(uint32_t)pc->imm << 32);
			pc++;
			break;
		MEM(B, uint8_t) MEM(H, uint16_t) MEM(W, uint32_t) MEM(DW, uint64_t)
		case BPF_STX | BPF_ATOMIC | BPF_W: case BPF_STX | BPF_ATOMIC | BPF_DW:
			atomic(in, r);
			break;
		default:	/* sa_prog_check let nothing else through */
			return 0;
		}
	}
}

/* the opcodes sa_run has: the flat switch above, as a predicate */
static bool opcode_known(const struct bpf_insn *in)
{
	uint8_t c = in->code, cls = BPF_CLASS(c), op = BPF_OP(c);
	switch (cls) {
	case BPF_ALU64: case BPF_ALU:
		if (op == BPF_END)
			return cls == BPF_ALU && (in->imm == 16 || in->imm == 32 || in->imm == 64);
		return op <= BPF_ARSH && in->off == 0 &&
		       !(op == BPF_NEG && BPF_SRC(c) == BPF_X);
	case BPF_JMP: case BPF_JMP32:
		if (op == BPF_JA || op == BPF_CALL || op == BPF_EXIT)
			return cls == BPF_JMP && BPF_SRC(c) == BPF_K;
		return op <= BPF_JSLE;
	case BPF_LD:
		return c == (BPF_LD | BPF_IMM | BPF_DW);
	case BPF_LDX: case BPF_ST:
		return BPF_MODE(c) == BPF_MEM;
	case BPF_STX:
		return BPF_MODE(c) == BPF_MEM ||
		       (BPF_MODE(c) == BPF_ATOMIC && (BPF_SIZE(c) == BPF_W || BPF_SIZE(c) == BPF_DW));
	default:
		return false;
	}
}

/* ---- checking what the agent relies on ------------------------------------------- */

int sa_prog_check(const struct sa_shm *h, const struct sa_map *maps, const void *insns, uint32_t n,
		  char *why, size_t wn)
{
	const struct bpf_insn *p = insns;
	(void)maps;
	if (!n || (p[n - 1].code != (BPF_JMP | BPF_EXIT) && p[n - 1].code != (BPF_JMP | BPF_JA))) {
		snprintf(why, wn, "the program does not end in an exit");
		return -EINVAL;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct bpf_insn *in = &p[i];
		uint8_t cls = BPF_CLASS(in->code), op = BPF_OP(in->code);
		if (in->dst_reg > 10 || in->src_reg > 10 || !opcode_known(in)) {
			snprintf(why, wn, "instruction %u (opcode 0x%02x) is not one the agent runs", i, in->code);
			return -EINVAL;
		}
		if (in->code == (BPF_JMP | BPF_CALL) && (in->src_reg != 0 || !helper_known(in->imm))) {
			snprintf(why, wn, "instruction %u calls %s %d, which the agent does not have", i,
				 in->src_reg ? "BPF function" : "helper", in->imm);
			return -EINVAL;
		}
		if ((cls == BPF_JMP || cls == BPF_JMP32) && op != BPF_CALL && op != BPF_EXIT &&
		    ((int64_t)i + 1 + in->off < 0 || (int64_t)i + 1 + in->off >= n)) {
			snprintf(why, wn, "instruction %u jumps out of the program", i);
			return -EINVAL;
		}
		if (cls == BPF_LD) {
			/* ld_imm64 of a constant or of a map (an index into the table) */
			if (i + 1 >= n || (in->src_reg != 0 && in->src_reg != BPF_PSEUDO_MAP_FD) ||
			    (in->src_reg == BPF_PSEUDO_MAP_FD && (uint32_t)in->imm >= h->nmaps)) {
				snprintf(why, wn, "instruction %u loads something the agent does not have", i);
				return -EINVAL;
			}
			i++;
		}
	}
	return 0;
}
