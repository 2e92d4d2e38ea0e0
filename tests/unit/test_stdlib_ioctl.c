/*
 * test_stdlib_ioctl.c - stdlib/ioctl.c: ioctl request decoding and fdpath().
 *
 * The pure parts first: the _IOC field macros, the text of a direction and
 * of a driver magic byte, which paths are NVIDIA driver files, and reading
 * a descriptor's file (this process's own, and links in a fake /proc).
 * Then the builtins through the real front end: programs using them pass
 * parse_program -> sema_run -> cg_compile, with the decoded types sema
 * gives them; constant requests fold to the expected fields in the IR
 * (so the BPF-side shifts and masks are checked without a kernel); wrong
 * arguments and mixed decoders are located errors.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "codegen/codegen.h"
#include "common/arena.h"
#include "parser/parser.h"
#include "stdlib/decode.h"
#include "harness.h"

/* _IOWR('F', 42, 48): what NVIDIA's driver requests look like */
#define NV_CMD 0xc030462au
/* _IOC(2, 0x5a, 0x99, 0x1234) */
#define ODD_CMD 0x92345a99u

static void test_field_macros(void **state)
{
	assert_int_equal(IOC_DIR(NV_CMD), 3);
	assert_int_equal(IOC_SIZE(NV_CMD), 48);
	assert_int_equal(IOC_TYPE(NV_CMD), 'F');
	assert_int_equal(IOC_NR(NV_CMD), 42);
	assert_int_equal(IOC_DIR(ODD_CMD), 2);
	assert_int_equal(IOC_SIZE(ODD_CMD), 0x1234);
	assert_int_equal(IOC_TYPE(ODD_CMD), 0x5a);
	assert_int_equal(IOC_NR(ODD_CMD), 0x99);
	/* TCGETS is _IO('T', 1): no direction, no size */
	assert_int_equal(IOC_DIR(0x5401u), 0);
	assert_int_equal(IOC_SIZE(0x5401u), 0);
	assert_int_equal(IOC_TYPE(0x5401u), 'T');
	assert_int_equal(IOC_NR(0x5401u), 1);
}

static void test_dir_text(void **state)
{
	assert_string_equal(ioc_dir_text(0), "NONE");
	assert_string_equal(ioc_dir_text(1), "W");
	assert_string_equal(ioc_dir_text(2), "R");
	assert_string_equal(ioc_dir_text(3), "RW");
	assert_string_equal(ioc_dir_text(7), "RW");	/* two bits only */
}

static void test_type_text(void **state)
{
	struct arena *a = arena_new();
	assert_string_equal(ioc_type_text(a, 'F'), "'F'");
	assert_string_equal(ioc_type_text(a, 'T'), "'T'");
	assert_string_equal(ioc_type_text(a, '$'), "'$'");
	assert_string_equal(ioc_type_text(a, 0x1b), "0x1b");
	assert_string_equal(ioc_type_text(a, 0), "0x00");
	assert_string_equal(ioc_type_text(a, ' '), "0x20");
	assert_string_equal(ioc_type_text(a, 0x7f), "0x7f");
	assert_string_equal(ioc_type_text(a, 0xae), "0xae");	/* KVM */
	/* a quote or backslash in quotes would read badly */
	assert_string_equal(ioc_type_text(a, '\''), "0x27");
	assert_string_equal(ioc_type_text(a, '\\'), "0x5c");
	assert_string_equal(ioc_type_text(a, 0x146), "'F'");	/* one byte */
	arena_free(a);
}

static void test_gpu_device(void **state)
{
	assert_true(ioc_is_gpu_device("/dev/nvidiactl"));
	assert_true(ioc_is_gpu_device("/dev/nvidia0"));
	assert_true(ioc_is_gpu_device("/dev/nvidia15"));
	assert_true(ioc_is_gpu_device("/dev/nvidia-uvm"));
	assert_true(ioc_is_gpu_device("/dev/nvidia-uvm-tools"));
	assert_false(ioc_is_gpu_device("/dev/nvidia"));
	assert_false(ioc_is_gpu_device("/dev/nvidia0x"));
	assert_false(ioc_is_gpu_device("/dev/nvidia-modeset"));
	assert_false(ioc_is_gpu_device("/dev/nvidiactl2"));
	assert_false(ioc_is_gpu_device("/tmp/dev/nvidiactl"));
	assert_false(ioc_is_gpu_device("/dev/null"));
	assert_false(ioc_is_gpu_device(""));
}

/* NVIDIA requests by name (nv_escape.h, nv-ioctl-numbers.h, uvm_ioctl.h):
 * _IOWR('F', nr, size) on the control file and a GPU's, plain numbers on
 * nvidia-uvm; an RM control call with its control command */
static void test_nvidia_names(void **state)
{
	struct arena *a = arena_new();
	assert_string_equal(ioc_nvidia_text(a, "/dev/nvidiactl", 0xc030462b, 0), "NV_ESC_RM_ALLOC");
	assert_string_equal(ioc_nvidia_text(a, "/dev/nvidia0", 0xc00446c9, 0), "NV_ESC_REGISTER_FD");
	assert_string_equal(ioc_nvidia_text(a, "/dev/nvidiactl", 0xc020462a, 0x20800110),
			    "NV_ESC_RM_CONTROL NV2080_CTRL 0x20800110");
	assert_string_equal(ioc_nvidia_text(a, "/dev/nvidiactl", 0xc020462a, 0), "NV_ESC_RM_CONTROL");
	assert_string_equal(ioc_nvidia_text(a, "/dev/nvidiactl", 0xc0204601, 0), "NV escape 1");
	assert_string_equal(ioc_nvidia_text(a, "/dev/nvidiactl", 0x5401, 0), "request 0x5401");
	assert_string_equal(ioc_nvidia_text(a, "/dev/nvidia-uvm", 0x30000001, 0), "UVM_INITIALIZE");
	assert_string_equal(ioc_nvidia_text(a, "/dev/nvidia-uvm", 51, 0), "UVM_MIGRATE");
	assert_string_equal(ioc_nvidia_text(a, "/dev/nvidia-uvm", 999, 0), "uvm request 999");
	assert_null(ioc_nvidia_text(a, "/dev/null", 0xc030462b, 0));
	arena_free(a);
}

static void test_fd_path_own(void **state)
{
	struct arena *a = arena_new();
	int fd = open("/dev/null", O_RDONLY);
	assert_true(fd >= 0);
	const char *p = fd_path_text(a, NULL, (uint32_t)getpid(), (uint32_t)fd);
	assert_non_null(p);
	assert_string_equal(p, "/dev/null");
	close(fd);
	assert_null(fd_path_text(a, NULL, (uint32_t)getpid(), (uint32_t)fd));
	assert_null(fd_path_text(a, NULL, 0x7ffffff0u, 3));	/* no such process */
	assert_int_equal(FDPATH_PACK(4242, 77), (4242ull << 32) | 77);
	assert_int_equal(FDPATH_PACK(1, -1), (1ull << 32) | 0xffffffffu);
	arena_free(a);
}

/* a /proc with one process whose descriptors point at driver files (as a
 * container's processes see them) */
static void test_fd_path_fake_proc(void **state)
{
	struct arena *a = arena_new();
	char root[] = "/tmp/sonde-ioctl-XXXXXX";
	assert_non_null(mkdtemp(root));
	char dir[128], link[160];
	snprintf(dir, sizeof(dir), "%s/4242", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	snprintf(dir, sizeof(dir), "%s/4242/fd", root);
	assert_int_equal(mkdir(dir, 0755), 0);
	static const struct { int fd; const char *target, *want; } fds[] = {
		{3, "/dev/nvidiactl", "/dev/nvidiactl (GPU driver)"},
		{4, "/dev/nvidia0", "/dev/nvidia0 (GPU driver)"},
		{5, "/dev/nvidia-uvm", "/dev/nvidia-uvm (GPU driver)"},
		{6, "socket:[12345]", "socket:[12345]"},
		{7, "/dev/pts/0", "/dev/pts/0"},
	};
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		snprintf(link, sizeof(link), "%s/%d", dir, fds[i].fd);
		assert_int_equal(symlink(fds[i].target, link), 0);
	}
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		const char *p = fd_path_text(a, root, 4242, (uint32_t)fds[i].fd);
		assert_non_null(p);
		assert_string_equal(p, fds[i].want);
	}
	assert_null(fd_path_text(a, root, 4242, 8));
	assert_null(fd_path_text(a, root, 4243, 3));
	for (size_t i = 0; i < sizeof(fds) / sizeof(fds[0]); i++) {
		snprintf(link, sizeof(link), "%s/%d", dir, fds[i].fd);
		unlink(link);
	}
	rmdir(dir);
	snprintf(dir, sizeof(dir), "%s/4242", root);
	rmdir(dir);
	rmdir(root);
	arena_free(a);
}

/* ---- through the front end and codegen ----------------------------------- */

struct compiled {
	struct checked c;
	struct sema_result *r;
	char *ir;
	const char *err;	/* sema's messages */
	int rc;			/* codegen's result; -1 when sema failed */
};

/* parse, check and (when sema passes) compile src */
static void compile(struct compiled *x, const char *src)
{
	memset(x, 0, sizeof(*x));
	checked_run(&x->c, src, NULL);
	assert_non_null(x->c.ast);
	x->r = x->c.r;
	x->err = x->c.msgs;
	x->rc = x->r ? checked_codegen(&x->c, &x->ir, NULL) : -1;
}

static void done(struct compiled *x)
{
	free(x->ir);
	checked_free(&x->c);
}

static void test_compile_key(void **state)
{
	struct compiled c;
	compile(&c, "BEGIN { $cmd = (uint64)nsecs; "
		    "@[ioc_dir($cmd), ioc_type($cmd), ioc_nr($cmd), ioc_size($cmd), fdpath(pid, 3)] = count(); }");
	assert_non_null(c.r);
	assert_int_equal(c.rc, 0);
	const struct sema_map *m = checked_map(c.r, "@");
	assert_int_equal(m->key.kind, TY_TUPLE);
	assert_int_equal(m->key.nfields, 5);
	assert_int_equal(m->key.fields[0].type.kind, TY_DECODED);
	assert_string_equal(m->key.fields[0].type.decoder->name, "ioc_dir");
	assert_int_equal(m->key.fields[1].type.kind, TY_DECODED);
	assert_string_equal(m->key.fields[1].type.decoder->name, "ioc_type");
	assert_int_equal(m->key.fields[2].type.kind, TY_INT);
	assert_int_equal(m->key.fields[3].type.kind, TY_INT);
	assert_int_equal(m->key.fields[4].type.kind, TY_DECODED);
	assert_string_equal(m->key.fields[4].type.decoder->name, "fdpath");
	/* every field is 8 bytes in the key */
	assert_int_equal(m->key_size, 40);
	assert_string_equal(type_str(c.c.a, &m->key), "(ioc_dir, ioc_type, uint64, uint64, fdpath)");
	/* the fields are shifts and masks of the request */
	assert_non_null(strstr(c.ir, "lshr i64"));
	assert_non_null(strstr(c.ir, ", 16383"));	/* size: 0x3fff */
	assert_non_null(strstr(c.ir, ", 255"));
	done(&c);
}

/* a constant request folds: the stored values are the fields */
static void test_constant_fields(void **state)
{
	struct compiled c;
	compile(&c, "BEGIN { @size = ioc_size(0x92345a99); @nr = ioc_nr(0x92345a99); "
		    "@fd = fdpath(4242, 77); @nvsize = ioc_size(0xc030462a); }");
	assert_int_equal(c.rc, 0);
	assert_non_null(strstr(c.ir, "store i64 4660,"));		/* 0x1234 */
	assert_non_null(strstr(c.ir, "store i64 153,"));		/* 0x99 */
	assert_non_null(strstr(c.ir, "store i64 48,"));
	assert_non_null(strstr(c.ir, "store i64 18219251269709,"));	/* 4242 << 32 | 77 */
	done(&c);
}

/* in a tracepoint, on the real argument (when tracefs is readable) */
static void test_tracepoint_args(void **state)
{
	if (access("/sys/kernel/tracing/events/syscalls/sys_enter_ioctl/format", R_OK) &&
	    access("/sys/kernel/debug/tracing/events/syscalls/sys_enter_ioctl/format", R_OK))
		skip();
	struct compiled c;
	compile(&c, "tracepoint:syscalls:sys_enter_ioctl { @[comm, fdpath(pid, args->fd), "
		    "ioc_dir(args->cmd), ioc_type(args->cmd), ioc_nr(args->cmd), ioc_size(args->cmd)] = count(); }");
	assert_non_null(c.r);
	assert_int_equal(c.rc, 0);
	done(&c);
}

static void expect_error(const char *src, const char *message)
{
	struct compiled c;
	compile(&c, src);
	assert_null(c.r);
	if (!strstr(c.err, message))
		fail_msg("expected \"%s\" in:\n%s", message, c.err);
	done(&c);
}

static void test_errors(void **state)
{
	expect_error("BEGIN { @ = ioc_dir(\"x\"); }", "ioc_dir() needs integer arguments, not string[2]");
	expect_error("BEGIN { @ = ioc_nr(comm); }", "ioc_nr() needs integer arguments, not string[16]");
	expect_error("BEGIN { @ = fdpath(1); }", "fdpath() takes 2 arguments, 1 given");
	expect_error("BEGIN { @ = ioc_size(1, 2); }", "ioc_size() takes 1 argument, 2 given");
	expect_error("BEGIN { @ = fdpath(pid, \"3\"); }", "fdpath() needs integer arguments");
	/* values printed by different decoders do not share a map */
	expect_error("BEGIN { @x = ioc_dir(1); @x = ioc_type(1); }", "map '@x' holds ioc_dir, cannot assign ioc_type");
	/* nor are they integers to compute with */
	expect_error("BEGIN { @x = ioc_dir(1) + 1; }", "operator '+' needs integers, not ioc_dir and int64");
	/* a location points at the argument */
	expect_error("BEGIN { @ = ioc_type(comm); }", "t.bt:1:22: error:");
}

static void test_printf_as_string(void **state)
{
	struct compiled c;
	compile(&c, "BEGIN { printf(\"%s %s %d %d %s\\n\", ioc_dir(1 << 30), ioc_type(0x4600), "
		    "ioc_nr(7), ioc_size(0x10000), fdpath(pid, 0)); }");
	assert_non_null(c.r);
	assert_int_equal(c.rc, 0);
	done(&c);
	/* %d of a decoded value is refused: it prints as text */
	expect_error("BEGIN { printf(\"%d\\n\", ioc_dir(1)); }", "needs an integer, not ioc_dir");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_field_macros),
		cmocka_unit_test(test_dir_text),
		cmocka_unit_test(test_type_text),
		cmocka_unit_test(test_nvidia_names),
		cmocka_unit_test(test_gpu_device),
		cmocka_unit_test(test_fd_path_own),
		cmocka_unit_test(test_fd_path_fake_proc),
		cmocka_unit_test(test_compile_key),
		cmocka_unit_test(test_constant_fields),
		cmocka_unit_test(test_tracepoint_args),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_printf_as_string),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
