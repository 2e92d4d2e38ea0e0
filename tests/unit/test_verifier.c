/*
 * test_verifier.c - a verifier refusal read back to the script: the
 * failing instruction, the verdict and the class from logs shaped like
 * the kernel's, and the report rt_say_refused() prints for them.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "runtime/rt_int.h"
#include "runtime/verifier.h"

static const char *budget_log =
	"func#0 @0\n"
	"0: R1=ctx() R10=fp0\n"
	"; $i++; @ sonde-src-abc:1\n"
	"3: (07) r2 += 1                       ; R2=0x51613\n"
	"4: (65) if r2 s> 0x5f5e0ff goto pc+1          ; R2=0x51613\n"
	"5: (05) goto pc-3\n"
	"3: (07) r2 += 1\n"
	"BPF program is too large. Processed 1000001 insn\n"
	"processed 1000001 insns (limit 1000000) max_states_per_insn 4 total_states 33334 "
	"peak_states 33334 mark_read 0\n";

static void test_failing_insn_and_verdict(void **state)
{
	assert_int_equal(vf_failing_insn(budget_log, strlen(budget_log)), 3);
	size_t n;
	const char *v = vf_verdict(budget_log, strlen(budget_log), &n);
	assert_non_null(v);
	assert_int_equal(n, strlen("BPF program is too large. Processed 1000001 insn"));
	assert_memory_equal(v, "BPF program is too large", 24);
	assert_int_equal(vf_failing_insn("no insns\n", 9), -1);
	/* only statistics and state: no verdict */
	const char *none = "0: R1=ctx() R10=fp0\nprocessed 3 insns (limit 1000000)\n";
	assert_null(vf_verdict(none, strlen(none), &n));
	(void)state;
}

static enum ex_code cls(const char *verdict)
{
	char log[512];
	snprintf(log, sizeof(log), "7: (85) call bpf_map_lookup_elem#1\n%s\n"
		 "verification time 12 usec\nstack depth 8\n"
		 "processed 9 insns (limit 1000000)\n", verdict);
	return vf_classify(log, strlen(log));
}

/* the kernel's wordings, 5.10 to 6.18, and the class each belongs to */
static const struct {
	const char *verdict;
	enum ex_code code;
} wordings[] = {
	{"BPF program is too large. Processed 1000001 insn", EX_BUDGET},
	{"The sequence of 8193 jumps is too complex.", EX_LOOP},
	{"back-edge from insn 5 to 3", EX_LOOP},
	{"infinite loop detected at insn 4", EX_LOOP},
	{"R0 invalid mem access 'map_value_or_null'", EX_NULL},
	{"R1 invalid mem access 'scalar'", EX_MEMORY},
	{"invalid bpf_context access off=72 size=8", EX_MEMORY},
	{"program of this type cannot use helper bpf_probe_write_user#36", EX_HELPER},
	{"unknown func bpf_get_func_ip#173", EX_HELPER},
	{"invalid access to map value, value_size=8 off=8 size=8", EX_MAP_SIZE},
	{"div by zero", EX_DIVZERO},
	{"jump out of range from insn 3 to 40000", EX_PROG_SIZE},
	{"combined stack size of 2 calls is 544. Too large", EX_STACK},
	{"invalid write to stack R10 off=-520 size=8", EX_STACK},
	/* a write above the frame is no stack limit: a bad access */
	{"invalid write to stack R10 off=0 size=8", EX_UNKNOWN},
	{"something new in 7.0", EX_UNKNOWN},
};

static void test_classes(void **state)
{
	for (size_t i = 0; i < sizeof(wordings) / sizeof(wordings[0]); i++) {
		if (cls(wordings[i].verdict) != wordings[i].code)
			fail_msg("'%s': class %d, not %d", wordings[i].verdict, cls(wordings[i].verdict),
				 wordings[i].code);
	}
	(void)state;
}

/* everything rt_say_refused() printed for this log */
static char *refusal(int err, const char *log)
{
	static struct sema_probe probe;
	static struct sema_attach at = {.name = "tracepoint:syscalls:sys_enter_read"};
	static struct cg_prog prog = {.name = "p0_0", .probe = &probe, .nattach = 1};
	static struct sema_result r;
	static struct cg_object obj = {.progs = &prog, .nprogs = 1};
	static struct rt_opts o = {.file = "stdin", .src = "tracepoint:syscalls:sys_enter_read { }"};
	probe.attach = &at;
	struct rt rt = {.r = &r, .obj = &obj, .o = &o};
	fflush(stderr);
	int saved = dup(2);
	FILE *f = tmpfile();
	dup2(fileno(f), 2);
	rt_say_refused(&rt, err, log);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	long n = ftell(f);
	char *text = calloc(1, (size_t)n + 1);
	rewind(f);
	assert_int_equal(fread(text, 1, (size_t)n, f), n);
	fclose(f);
	return text;
}

/* EACCES with the verifier's verdict is the verifier, not a lockdown
 * (#19): the class, the verdict and the --explain pointer */
static void test_eacces_with_verdict_is_the_verifier(void **state)
{
	char *t = refusal(-13, "libbpf: prog 'p0_0': BPF program load failed: Permission denied\n"
			  "libbpf: prog 'p0_0': -- BEGIN PROG LOAD LOG --\n"
			  "0: R1=ctx() R10=fp0\n"
			  "0: (7b) *(u64 *)(r10 +0) = r1\n"
			  "invalid write to stack R10 off=0 size=8\n"
			  "processed 1 insns (limit 1000000)\n"
			  "-- END PROG LOAD LOG --\n");
	assert_non_null(strstr(t, "sonde: the kernel's verifier refused the program for "
			       "tracepoint:syscalls:sys_enter_read: the kernel refused the program "
			       "for a reason sonde does not recognise yet [S0100]\n"));
	assert_non_null(strstr(t, "note: the kernel said: invalid write to stack R10 off=0 size=8\n"));
	assert_non_null(strstr(t, "note: sonde --explain S0100"));
	assert_null(strstr(t, "lockdown"));
	free(t);
	/* no verdict: a question of privileges */
	t = refusal(-1, "libbpf: prog 'p0_0': BPF program load failed: Operation not permitted\n");
	assert_non_null(strstr(t, "[S0110]"));
	assert_null(strstr(t, "verifier refused"));
	free(t);
	(void)state;
}

/* a map the memory cgroup has no room for: named, with S0204 */
static void test_map_refused(void **state)
{
	char *t = refusal(-12, "libbpf: Error in bpf_create_map_xattr(m0_big):Cannot allocate "
			  "memory(-12). Retrying without BTF.\n"
			  "libbpf: map 'm0_big': failed to create: Cannot allocate memory(-12)\n");
	assert_non_null(strstr(t, "sonde: map 'm0_big': the kernel refused to create a map (Cannot "
			       "allocate memory): the memory cgroup's limit"));
	assert_non_null(strstr(t, "[S0204]"));
	free(t);
	/* too large for this kernel (5.10's per-CPU values): S0107, no
	 * word of memory */
	t = refusal(-7, "libbpf: map 'kstk_127': failed to create: Argument list too long(-7)\n");
	assert_non_null(strstr(t, "sonde: map 'kstk_127': the kernel refused to create it (Argument "
			       "list too long): a map key or value is larger than the kernel or sonde "
			       "allows [S0107]\n"));
	assert_null(strstr(t, "cgroup"));
	free(t);
	/* neither a map nor a program: libbpf's last line */
	t = refusal(-22, "libbpf: Error loading BTF: Invalid argument(-22)\n");
	assert_non_null(strstr(t, "sonde: the kernel refused to load the BPF object (Invalid "
			       "argument): Error loading BTF: Invalid argument(-22) [S0100]\n"));
	free(t);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failing_insn_and_verdict),
		cmocka_unit_test(test_classes),
		cmocka_unit_test(test_eacces_with_verdict_is_the_verifier),
		cmocka_unit_test(test_map_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
