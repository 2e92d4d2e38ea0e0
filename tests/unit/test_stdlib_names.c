/*
 * test_stdlib_names.c - syscall_name() (stdlib/syscalls.c) and disk()
 * (stdlib/block.c): numbers kept in BPF, named when printed.
 *
 * The syscall table is generated at build time from <asm/unistd.h>, so the
 * expectations come from the same header's __NR_* constants rather than
 * from x86-64 numbers written here.  Disk names are read from a fake /sys
 * laid out as the kernel's /sys/dev/block/MAJ:MIN/uevent.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <asm/unistd.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "common/arena.h"
#include "parser/parser.h"
#include "stdlib/decode.h"
#include "stdlib/stdlib.h"

static void test_syscall_names(void **state)
{
	struct arena *a = arena_new();
	assert_string_equal(syscall_text(a, __NR_read), "read");
	assert_string_equal(syscall_text(a, __NR_write), "write");
	assert_string_equal(syscall_text(a, __NR_ioctl), "ioctl");
	assert_string_equal(syscall_text(a, __NR_futex), "futex");
	assert_string_equal(syscall_text(a, __NR_epoll_wait), "epoll_wait");
	assert_string_equal(syscall_text(a, __NR_execve), "execve");
	assert_string_equal(syscall_text(a, __NR_openat), "openat");
	assert_string_equal(syscall_text(a, __NR_clone3), "clone3");
	/* numbers the headers do not know (and -1, as args->id can be) */
	assert_string_equal(syscall_text(a, 99999), "syscall_99999");
	assert_string_equal(syscall_text(a, (uint64_t)-1), "syscall_-1");
	assert_int_equal(syscall_number("ioctl"), __NR_ioctl);
	assert_int_equal(syscall_number("exit_group"), __NR_exit_group);
	assert_int_equal(syscall_number("no_such_call"), -1);
	/* the table is dense enough to be a table: most numbers have names */
	int named = 0;
	for (int i = 0; i < 300; i++)
		named += strncmp(syscall_text(a, (uint64_t)i), "syscall_", 8) != 0;
	assert_true(named > 250);
	arena_free(a);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void test_disk_names(void **state)
{
	struct arena *a = arena_new();
	char root[] = "/tmp/sonde-sys-XXXXXX";
	assert_non_null(mkdtemp(root));
	char p[256];
	snprintf(p, sizeof(p), "%s/dev", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dev/block", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dev/block/254:0", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dev/block/254:0/uevent", root);
	write_file(p, "MAJOR=254\nMINOR=0\nDEVNAME=vda\nDEVTYPE=disk\n");
	snprintf(p, sizeof(p), "%s/dev/block/259:1", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dev/block/259:1/uevent", root);
	write_file(p, "MAJOR=259\nMINOR=1\nDEVNAME=nvme0n1\n");
	snprintf(p, sizeof(p), "%s/dev/block/8:16", root);
	mkdir(p, 0755);
	snprintf(p, sizeof(p), "%s/dev/block/8:16/uevent", root);
	write_file(p, "MAJOR=8\nMINOR=16\n");	/* no DEVNAME */

	/* block tracepoints carry the kernel's dev_t: major << 20 | minor */
	assert_string_equal(disk_text(a, root, 254ull << 20), "vda");
	assert_string_equal(disk_text(a, root, (259ull << 20) | 1), "nvme0n1");
	assert_string_equal(disk_text(a, root, (8ull << 20) | 16), "8:16");
	assert_string_equal(disk_text(a, root, (8ull << 20) | 1), "8:1");
	assert_string_equal(disk_text(a, root, (1ull << 20) | 0xfffff), "1:1048575");

	snprintf(p, sizeof(p), "rm -rf '%s'", root);
	assert_int_equal(system(p), 0);
	arena_free(a);
}

static struct sema_result *check(struct arena *a, const char *src, char **err)
{
	size_t len;
	FILE *f = open_memstream(err, &len);
	struct diag d;
	diag_init(&d, "t.bt", src, f);
	struct ast_node *ast = parse_program(a, &d, src);
	assert_non_null(ast);
	struct sema_opts so = {.builtins = stdlib_find};
	struct sema_result *r = sema_run(a, &d, ast, &so);
	fclose(f);
	return r;
}

static void test_compile(void **state)
{
	struct arena *a = arena_new();
	char *err = NULL;
	struct sema_result *r = check(a, "BEGIN { $n = (uint64)nsecs; @[syscall_name($n), disk($n)] = count(); "
				      "printf(\"%s %s\\n\", syscall_name(0), disk(0)); }", &err);
	assert_non_null(r);
	assert_int_equal(r->nmaps, 1);
	assert_string_equal(type_str(a, &r->maps[0]->key), "(syscall_name, disk)");
	struct cg_opts co = {.start_ns = 1};
	struct cg_object obj = {0};
	assert_int_equal(cg_compile(a, r, &co, &obj), 0);
	free(obj.elf);
	free(err);

	err = NULL;
	assert_null(check(a, "BEGIN { @ = syscall_name(comm); }", &err));
	assert_non_null(strstr(err, "syscall_name() needs integer arguments, not string[16]"));
	free(err);
	err = NULL;
	assert_null(check(a, "BEGIN { @x = disk(1); @x = syscall_name(1); }", &err));
	assert_non_null(strstr(err, "map '@x' holds disk, cannot assign syscall_name"));
	free(err);
	arena_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syscall_names),
		cmocka_unit_test(test_disk_names),
		cmocka_unit_test(test_compile),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
