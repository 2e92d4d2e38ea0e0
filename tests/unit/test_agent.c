/*
 * test_agent.c - the agent's patcher and interpreter, in this process.
 *
 * Hooks go on functions written in assembly below, so the bytes under the
 * hook are known: a plain prologue, a RIP-relative load, a conditional
 * jump, a loop that branches back into the first bytes (refused), a
 * function too short for the jump (refused).  sa_on_enter is this file's:
 * it records the registers the trampoline built.  The interpreter runs
 * hand-assembled BPF against shared-memory maps laid out as sonde lays
 * them out: a per-shard count, a lookup of a missing key, and a probe
 * read of a bad pointer, which must give -EFAULT, not a signal.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <pthread.h>
#include <linux/bpf.h>
#include <stdlib.h>
#include <string.h>

#include "agent/agent_int.h"

__asm__(".text\n"
	".p2align 4\n"
	"t_plain: push %rbx\n mov %rdi, %rbx\n lea 1(%rbx), %rax\n pop %rbx\n ret\n"
	".p2align 4\n"
	"t_rip: mov t_val(%rip), %rax\n add %rdi, %rax\n ret\n"
	".p2align 4\n"
	"t_jcc: test %rdi, %rdi\n je 1f\n mov $10, %eax\n ret\n1: mov $20, %eax\n ret\n"
	".p2align 4\n"
	"t_loop: xor %eax, %eax\n2: inc %eax\n cmp %edi, %eax\n jl 2b\n ret\n"
	".p2align 4\n"
	"t_short: lea 1(%rdi), %eax\n ret\n"
	".p2align 4\n"
	"t_end: ret\n"
	".data\n t_val: .quad 1000\n .text\n");
long t_plain(long), t_rip(long), t_jcc(long), t_loop(long), t_short(long), t_end(void);

static int entered;
static int hammer_site;
static long hammer_hooked;
static uint64_t seen_di, seen_ip;
static void *seen_site;

void sa_on_enter(void *site, struct sa_regs *r)
{
	if (site == &hammer_site) {	/* the race test's thread: count only */
		__atomic_add_fetch(&hammer_hooked, 1, __ATOMIC_RELAXED);
		return;
	}
	entered++;
	seen_di = r->di;
	seen_site = site;
	seen_ip = r->sp;
	/* clobber what C may clobber: the trampoline must give the function
	 * its registers back */
	__asm__ volatile("" ::: "rax", "rcx", "rdx", "rsi", "rdi", "r8", "r9", "r10", "r11", "memory");
}

uint64_t sa_on_return(struct sa_regs *r, struct sa_regs *again)
{
	(void)r, (void)again;
	abort();	/* no return probes here */
}

static long (*volatile call)(long);

static void hook_calls(void **state, long (*fn)(long), uint64_t size, long arg, long want)
{
	struct sa_hook h;
	char why[128] = "";
	int site;
	int rc = sa_patch_install(&h, (uint64_t)fn, size, &site, why, sizeof(why));
	if (rc)
		fail_msg("refused: %s", why);
	entered = 0;
	call = fn;
	assert_int_equal(call(arg), want);
	assert_int_equal(entered, 1);
	assert_int_equal(seen_di, (uint64_t)arg);
	assert_ptr_equal(seen_site, &site);
	assert_true(seen_ip > 4096);	/* the stack pointer at the entry */
	assert_int_equal(sa_patch_remove(&h), 0);
	assert_int_equal(call(arg), want);
	assert_int_equal(entered, 1);
	assert_memory_equal((void *)h.at, h.orig, (size_t)h.width);
}

static uint64_t size_of(void *a, void *b)
{
	return (uint64_t)((uint8_t *)b - (uint8_t *)a);
}

static void test_plain_prologue(void **state)
{
	hook_calls(state, t_plain, size_of(t_plain, t_rip), 41, 42);
}

static void test_rip_relative_moves(void **state)
{
	/* the load's displacement is rewritten for the stub's address */
	hook_calls(state, t_rip, size_of(t_rip, t_jcc), 5, 1005);
}

static void test_conditional_jump_moves(void **state)
{
	hook_calls(state, t_jcc, size_of(t_jcc, t_loop), 0, 20);
	hook_calls(state, t_jcc, size_of(t_jcc, t_loop), 3, 10);
}

static void test_refusals(void **state)
{
	struct sa_hook h;
	char why[128] = "";
	int site;
	assert_int_equal(sa_patch_install(&h, (uint64_t)t_loop, size_of(t_loop, t_short), &site, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "inside the bytes the hook replaces"));
	assert_int_equal(sa_patch_install(&h, (uint64_t)t_short, 4 /* its ELF size */, &site, why, sizeof(why)),
			 -EINVAL);
	assert_non_null(strstr(why, "too short"));
	assert_false(h.installed);
	call = t_loop;
	assert_int_equal(call(5), 5);	/* untouched */
}

/* a thread calls t_plain (3 displaced instructions) in a loop while the
 * hook goes in and out: one caught between two of them at a store would
 * run the middle of the jump; the patcher parks it and moves it to the
 * stub instead, so every call returns the right value */
static volatile int hammer_stop;
static long hammer_bad;

static void *hammer(void *arg)
{
	long (*volatile fn)(long) = t_plain;
	for (long i = 0; !hammer_stop; i++)
		if (fn(i) != i + 1)
			hammer_bad++;
	return arg;
}

static void test_install_while_called(void **state)
{
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, hammer, NULL), 0);
	char why[128];
	for (int i = 0; i < 1000; i++) {
		struct sa_hook h;
		if (sa_patch_install(&h, (uint64_t)t_plain, size_of(t_plain, t_rip), &hammer_site, why, sizeof(why)))
			fail_msg("refused: %s", why);
		assert_int_equal(h.ninsn, 3);
		assert_int_equal(sa_patch_remove(&h), 0);
	}
	hammer_stop = 1;
	pthread_join(th, NULL);
	assert_int_equal(hammer_bad, 0);
	assert_true(hammer_hooked > 0);
}

/* ---- the interpreter ---------------------------------------------------------- */

#define INSN(c, d, s, o, i) ((struct bpf_insn){.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)})

struct shm_fixture {
	uint64_t words[8192];
};

/* one per-shard hash map: key u64, value u64, 16 slots */
static struct sa_env env_for(struct shm_fixture *f, uint32_t shard)
{
	memset(f, 0, sizeof(*f));
	uint8_t *base = (uint8_t *)f->words;
	struct sa_shm *h = (struct sa_shm *)base;
	h->magic = SA_MAGIC;
	h->nmaps = 1;
	h->off_maps = 1024;
	struct sa_map *m = (struct sa_map *)(base + h->off_maps);
	*m = (struct sa_map){.type = SA_MAP_PERCPU_HASH, .key_size = 8, .value_size = 8, .cap = 16, .stride = 8,
			     .nshards = 4, .off_keys = 2048, .off_vals = 4096};
	return (struct sa_env){.shm = base, .hdr = h, .maps = m, .shard = shard, .pid_tgid = 7ull << 32 | 9};
}

/* @[pid] = count() as sonde lowers it: lookup; found: +1; else insert 1 */
static void count_prog(struct bpf_insn *p, int *n, struct sa_map *m)
{
	int i = 0;
	p[i++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_pid_tgid);
	p[i++] = INSN(BPF_ALU64 | BPF_RSH | BPF_K, 0, 0, 0, 32);
	p[i++] = INSN(BPF_STX | BPF_MEM | BPF_DW, 10, 0, -8, 0);	/* key at fp-8 */
	p[i++] = INSN(BPF_LD | BPF_IMM | BPF_DW, 1, 0, 0, (int32_t)(uint32_t)(uint64_t)m);
	p[i++] = INSN(0, 0, 0, 0, (int32_t)(uint32_t)((uint64_t)m >> 32));
	p[i++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0);
	p[i++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -8);
	p[i++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_lookup_elem);
	p[i++] = INSN(BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 4, 0);
	p[i++] = INSN(BPF_LDX | BPF_MEM | BPF_DW, 1, 0, 0, 0);
	p[i++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, 1);
	p[i++] = INSN(BPF_STX | BPF_MEM | BPF_DW, 0, 1, 0, 0);
	p[i++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	/* insert: value 1 at fp-16 */
	p[i++] = INSN(BPF_ST | BPF_MEM | BPF_DW, 10, 0, -16, 1);
	p[i++] = INSN(BPF_LD | BPF_IMM | BPF_DW, 1, 0, 0, (int32_t)(uint32_t)(uint64_t)m);
	p[i++] = INSN(0, 0, 0, 0, (int32_t)(uint32_t)((uint64_t)m >> 32));
	p[i++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, 2, 10, 0, 0);
	p[i++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, 2, 0, 0, -8);
	p[i++] = INSN(BPF_ALU64 | BPF_MOV | BPF_X, 3, 10, 0, 0);
	p[i++] = INSN(BPF_ALU64 | BPF_ADD | BPF_K, 3, 0, 0, -16);
	p[i++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 4, 0, 0, BPF_ANY);
	p[i++] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_map_update_elem);
	p[i++] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 0, 0, 0, 0);
	p[i++] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	*n = i;
}

static void test_interp_count_per_shard(void **state)
{
	static struct shm_fixture f;
	struct sa_env e0 = env_for(&f, 0), e2 = e0;
	e2.shard = 2;
	struct bpf_insn p[32];
	int n;
	count_prog(p, &n, e0.maps);
	for (int i = 0; i < 5; i++)
		sa_run(&e0, p, (uint32_t)n, NULL);
	for (int i = 0; i < 3; i++)
		sa_run(&e2, p, (uint32_t)n, NULL);
	uint64_t key = 7;
	int64_t slot = sa_key_find(e0.shm, e0.maps, (uint8_t *)&key, 0);
	assert_true(slot >= 0);
	assert_int_equal(*(uint64_t *)sa_value(e0.shm, e0.maps, 0, (uint64_t)slot), 5);
	assert_int_equal(*(uint64_t *)sa_value(e0.shm, e0.maps, 2, (uint64_t)slot), 3);
	assert_int_equal(*(uint64_t *)sa_value(e0.shm, e0.maps, 1, (uint64_t)slot), 0);
	assert_int_equal(e0.maps->used, 1);
	char why[128];
	assert_int_equal(sa_prog_check(e0.hdr, e0.maps, p, (uint32_t)n, why, sizeof(why)), 0);
}

static void test_interp_bad_pointer_faults(void **state)
{
	static struct shm_fixture f;
	struct sa_env e = env_for(&f, 0);
	struct bpf_insn p[] = {
		/* r0 = probe_read_user(fp-8, 8, 16) */
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, 1, 10, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, 1, 0, 0, -8),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 2, 0, 0, 8),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 16),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_user),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	assert_int_equal((int64_t)sa_run(&e, p, 6, NULL), -EFAULT);
	assert_int_equal(e.hdr->faults, 1);
	/* and a good one reads */
	static uint64_t good = 0x1122334455667788ull;
	p[3] = INSN(BPF_ALU64 | BPF_MOV | BPF_K, 3, 0, 0, 0);
	struct bpf_insn q[8];
	memcpy(q, p, sizeof(p));
	q[3] = INSN(BPF_LD | BPF_IMM | BPF_DW, 3, 0, 0, (int32_t)(uint32_t)(uint64_t)&good);
	q[4] = INSN(0, 0, 0, 0, (int32_t)(uint32_t)((uint64_t)&good >> 32));
	q[5] = INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_user);
	q[6] = INSN(BPF_LDX | BPF_MEM | BPF_DW, 0, 10, -8, 0);
	q[7] = INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0);
	assert_int_equal(sa_run(&e, q, 8, NULL), good);
}

static void test_check_refuses_unknown_helper(void **state)
{
	static struct shm_fixture f;
	struct sa_env e = env_for(&f, 0);
	struct bpf_insn p[] = {
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_get_current_task),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	char why[128] = "";
	assert_int_equal(sa_prog_check(e.hdr, e.maps, p, 2, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "helper 35"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_plain_prologue),
		cmocka_unit_test(test_rip_relative_moves),
		cmocka_unit_test(test_conditional_jump_moves),
		cmocka_unit_test(test_refusals),
		cmocka_unit_test(test_install_while_called),
		cmocka_unit_test(test_interp_count_per_shard),
		cmocka_unit_test(test_interp_bad_pointer_faults),
		cmocka_unit_test(test_check_refuses_unknown_helper),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
