/*
 * test_symcache.c - naming {build-id, file offset} frames (host/symcache.c):
 * a file learnt from the path an exec names is found by its build-id and
 * its symbols name an offset; a build-id no file has is -ESRCH until a
 * walk of the live processes finds a file that has it (this test's own
 * executable, mapped by itself), or the capture of a process that maps
 * it.  The whole path through BPF runs in
 * tests/e2e/t_exited.sh.
 */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "host/host.h"
#include "host/host_int.h"

__attribute__((noinline)) void symcache_marker(void);
__attribute__((noinline)) void symcache_marker(void)
{
	__asm__ volatile("" ::: "memory");
}

static int find_marker(const struct rs_sym *s, void *ctx)
{
	*(uint64_t *)ctx = s->vaddr;
	return 1;
}

/* this executable's path, build-id (zero padded to 20) and the file
 * offset of symcache_marker */
static void self(char *path, size_t len, unsigned char bid[20], uint64_t *off)
{
	ssize_t n = readlink("/proc/self/exe", path, len - 1);
	assert_true(n > 0);
	path[n] = '\0';
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	size_t blen = 0;
	memset(bid, 0, 20);
	assert_int_equal(rs_elf_build_id_fd(fd, bid, 20, &blen), 0);
	close(fd);
	struct rs_elf *e;
	char err[256];
	assert_int_equal(rs_elf_open(path, &e, err, sizeof(err)), 0);
	uint64_t vaddr = 0;
	assert_int_equal(rs_elf_each_match(e, "symcache_marker", find_marker, &vaddr), 1);
	assert_int_equal(rs_elf_vaddr_to_offset(e, vaddr, off), 0);
	rs_elf_free(e);
}

/* learn: how the cache comes to know this executable */
static void named_after(void (*learn)(struct rs_symcache *c, const char *path))
{
	char path[4096];
	unsigned char bid[20];
	uint64_t off;
	self(path, sizeof(path), bid, &off);
	struct rs_symcache *c = rs_symcache_new();
	struct rs_usym u;
	assert_int_equal(rs_usym_build_id(c, bid, off, &u), -ESRCH);
	learn(c, path);
	assert_int_equal(rs_usym_build_id(c, bid, off, &u), 0);
	assert_string_equal(u.name, "symcache_marker");
	assert_int_equal(u.off, 0);
	assert_string_equal(u.file, path);
	/* another build-id at that offset names nothing */
	bid[0] ^= 0xff;
	assert_int_equal(rs_usym_build_id(c, bid, off, &u), -ESRCH);
	rs_symcache_free(c);
}

static void by_exec(struct rs_symcache *c, const char *path)
{
	rs_symcache_add_path(c, getpid(), path);
}

static void by_walk(struct rs_symcache *c, const char *path)
{
	assert_int_equal(rs_symcache_scan(c), 0);
}

/* the capture of a process (its first stack): its mappings, read once,
 * name its addresses, and the files it maps are known by build-id */
static void by_capture(struct rs_symcache *c, const char *path)
{
	assert_int_equal(rs_symcache_capture(c, getpid()), 0);
	assert_int_equal(rs_symcache_nprocs(c), 1);
	struct rs_usym u;
	assert_int_equal(rs_usym(c, getpid(), (uint64_t)(uintptr_t)&symcache_marker, &u), 0);
	assert_string_equal(u.name, "symcache_marker");
	/* captured again (after an exec): read anew, still one process */
	assert_int_equal(rs_symcache_capture(c, getpid()), 0);
	assert_int_equal(rs_symcache_nprocs(c), 1);
}

static void test_capture(void **state)
{
	named_after(by_capture);
}

/* files no kept process maps: their symbols go at a trim beyond
 * keep_open, unless they named an address since the trim before, and a
 * frame that names the build-id again reopens the file by its path */
static void test_trim(void **state)
{
	char path[4096];
	unsigned char bid[20];
	uint64_t off;
	self(path, sizeof(path), bid, &off);
	struct rs_symcache *c = rs_symcache_new();
	struct rs_usym u;
	assert_int_equal(rs_symcache_capture(c, getpid()), 0);
	size_t open = rs_symcache_nopen(c);
	assert_true(open >= 2);	/* this executable, libc (and the vDSO) */
	assert_int_equal(rs_usym_build_id(c, bid, off, &u), 0);
	rs_symcache_trim(c, 0);
	assert_int_equal(rs_symcache_nopen(c), open);	/* mapped by a kept process */
	rs_symcache_forget(c, getpid());
	assert_int_equal(rs_usym_build_id(c, bid, off, &u), 0);
	rs_symcache_trim(c, 0);
	/* libc went; this executable named an address since the last trim */
	size_t kept = rs_symcache_nopen(c);
	assert_true(kept >= 1 && kept < open);
	rs_symcache_trim(c, kept);
	assert_int_equal(rs_symcache_nopen(c), kept);	/* within keep_open */
	rs_symcache_trim(c, 0);
	assert_int_equal(rs_symcache_nopen(c), kept - 1);
	assert_int_equal(rs_usym_build_id(c, bid, off, &u), 0);	/* reopened */
	assert_string_equal(u.name, "symcache_marker");
	assert_int_equal(rs_symcache_nopen(c), kept);
	rs_symcache_free(c);
}

static void test_exec_path(void **state)
{
	named_after(by_exec);
}

/* the libraries an exec'd program names (DT_NEEDED, through the host's
 * ld.so cache) are known with it: a process gone before any walk has its
 * libc frames named (getppid, at its offset in the libc this test maps) */
static void test_exec_needed(void **state)
{
	char path[4096], libc[4096];
	unsigned char bid[20] = {0};
	size_t blen = 0;
	self(path, sizeof(path), (unsigned char[20]){0}, &(uint64_t){0});
	assert_int_equal(rs_ldcache_find("libc.so.6", libc, sizeof(libc)), 0);
	int fd = open(libc, O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	assert_int_equal(rs_elf_build_id_fd(fd, bid, 20, &blen), 0);
	close(fd);
	struct rs_elf *e;
	char err[256];
	uint64_t vaddr = 0, off;
	assert_int_equal(rs_elf_open(libc, &e, err, sizeof(err)), 0);
	assert_int_equal(rs_elf_each_match(e, "getppid", find_marker, &vaddr), 1);
	assert_int_equal(rs_elf_vaddr_to_offset(e, vaddr, &off), 0);
	rs_elf_free(e);
	struct rs_symcache *c = rs_symcache_new();
	struct rs_usym u;
	pid_t gone = fork();
	if (!gone)
		_exit(0);
	waitpid(gone, NULL, 0);
	rs_symcache_add_path(c, gone, path);
	assert_int_equal(rs_usym_build_id(c, bid, off + 7, &u), 0);
	assert_string_equal(u.name, "getppid");
	assert_int_equal(u.off, 7);
	rs_symcache_free(c);
}

static void test_scan(void **state)
{
	named_after(by_walk);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exec_path),
		cmocka_unit_test(test_exec_needed),
		cmocka_unit_test(test_scan),
		cmocka_unit_test(test_capture),
		cmocka_unit_test(test_trim),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
