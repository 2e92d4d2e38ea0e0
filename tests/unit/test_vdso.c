/*
 * test_vdso.c - host/vdso.c: the [vdso] mapping of a process, its image
 * parsed as an ELF (from /proc/PID/mem, or this process's own vDSO when the
 * process is gone), refusals of what is no vDSO, and the usym cache naming
 * an address inside it (tests/e2e/t_stacks.sh checks real profiles).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/wait.h>
#include <unistd.h>

#include "host/host.h"

static uint64_t vstart, vend;

static int have_vdso(void **state)
{
	if (!getauxval(AT_SYSINFO_EHDR) || rs_vdso_mapping(getpid(), &vstart, &vend))
		vstart = vend = 0;
	return 0;
}

/* the address in this process of the vDSO's symbol name, through e */
static uint64_t sym_addr(const struct rs_elf *e, const char *name)
{
	size_t n;
	const struct rs_sym *s = rs_elf_syms(e, &n);
	uint64_t off;
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s[i].name, name) && !rs_elf_vaddr_to_offset(e, s[i].vaddr, &off))
			return vstart + off;
	return 0;
}

static void test_vdso_self(void **state)
{
	if (!vend)
		skip();
	assert_int_equal(vstart, getauxval(AT_SYSINFO_EHDR));
	struct rs_elf *e;
	char err[256];
	assert_int_equal(rs_vdso_open(getpid(), vstart, vend, &e, err, sizeof(err)), 0);
	assert_string_equal(rs_elf_name(e), "[vdso]");
	uint64_t a = sym_addr(e, "__vdso_clock_gettime");
	if (!a)
		a = sym_addr(e, "__kernel_clock_gettime");	/* arm64's name */
	assert_true(a > vstart && a < vend);
	rs_elf_free(e);

	/* the usym cache names an address inside it, as any mapped file */
	struct rs_symcache *c = rs_symcache_new();
	struct rs_usym u;
	assert_int_equal(rs_usym(c, getpid(), a + 1, &u), 0);
	assert_true(!strcmp(u.name, "__vdso_clock_gettime") || !strcmp(u.name, "__kernel_clock_gettime"));
	assert_int_equal(u.off, 1);
	assert_string_equal(u.file, "[vdso]");
	rs_symcache_free(c);
}

static void test_vdso_process_gone(void **state)
{
	if (!vend)
		skip();
	pid_t pid = fork();
	if (!pid)
		_exit(0);
	assert_true(pid > 0);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	/* its memory is gone: sonde's own image of that size stands in */
	struct rs_elf *e;
	char err[256];
	assert_int_equal(rs_vdso_open(pid, vstart, vend, &e, err, sizeof(err)), 0);
	assert_true(sym_addr(e, "__vdso_clock_gettime") || sym_addr(e, "__kernel_clock_gettime"));
	rs_elf_free(e);
	/* but not for an image of another size */
	assert_int_not_equal(rs_vdso_open(pid, vstart, vend + 4096, &e, err, sizeof(err)), 0);
	assert_null(e);
	assert_non_null(strstr(err, "cannot read its [vdso]"));
}

static void test_vdso_refused(void **state)
{
	struct rs_elf *e;
	char err[256];
	/* empty, or too big to be a vDSO */
	assert_int_equal(rs_vdso_open(getpid(), 4096, 4096, &e, err, sizeof(err)), -EINVAL);
	assert_int_equal(rs_vdso_open(getpid(), 4096, 4096 + (64u << 20), &e, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "is not one"));
	/* memory that holds no ELF image */
	size_t len = 8192;
	unsigned char *junk = aligned_alloc(4096, len);
	assert_non_null(junk);
	memset(junk, 0x5a, len);
	uint64_t j = (uint64_t)(uintptr_t)junk;
	assert_int_equal(rs_vdso_open(getpid(), j, j + len, &e, err, sizeof(err)), -ENOEXEC);
	assert_null(e);
	free(junk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vdso_self),
		cmocka_unit_test(test_vdso_process_gone),
		cmocka_unit_test(test_vdso_refused),
	};
	return cmocka_run_group_tests(tests, have_vdso, NULL);
}
