/*
 * test_stdlib_builtins.c - the builtins of stacks.c, symbols.c, bytes.c,
 * net.c, control.c, usdt.c and strftime: the types sema gives them, the
 * exact text of their errors, and the maps codegen adds for them (stack
 * trace maps per depth, the join scratch buffer, the pid map), read back
 * with libbpf's ELF parser.  No root, no kernel: probes are BEGIN and
 * uprobes, which sema does not resolve.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/libbpf.h>
#include <cmocka.h>

#include "codegen/codegen.h"
#include "common/arena.h"
#include "common/diag.h"
#include "parser/parser.h"
#include "sema/sema.h"
#include "harness.h"
#include "stdlib/stdlib.h"

static void check_opts(struct checked *c, const char *src, bool unsafe)
{
	struct sema_opts o = {.builtins = stdlib_find, .unsafe = unsafe};
	checked_run(c, src, &o);
	assert_non_null(c->ast);
}

static void check(struct checked *c, const char *src)
{
	check_opts(c, src, false);
}

/* the first line of the messages, "t.bt:1:COL: error: ..." */
static void expect_error(const char *src, const char *first_line)
{
	struct checked c;
	check(&c, src);
	if (c.r)
		fail_msg("no error for: %s", src);
	char line[512];
	assert_string_equal(checked_first_line(&c, line, sizeof(line)), first_line);
	checked_free(&c);
}

static void test_value_types(void **state)
{
	struct checked c;
	check(&c, "uprobe:/bin/true:main { @u[ustack] = count(); @k[kstack(perf, 5)] = count();"
		  " @s = usym(reg(\"ip\")); @b = buf(arg0, 10); @n = ntop(2, arg1);"
		  " @t = strftime(\"%H:%M:%f\", nsecs); @l = len(@u); @ks = ksym(arg2); }");
	assert_non_null(c.r);
	const struct sema_map *m = checked_map(c.r, "@u");
	assert_int_equal(m->key.kind, TY_USTACK);
	assert_int_equal(m->key.count, 127);
	assert_int_equal(m->key_size, 8);
	m = checked_map(c.r, "@k");
	assert_int_equal(m->key.kind, TY_KSTACK);
	assert_int_equal(m->key.count, 5);
	assert_int_equal(m->key.stack_mode, 1);
	assert_int_equal(checked_map(c.r, "@s")->value.kind, TY_USYM);
	assert_int_equal(checked_map(c.r, "@s")->value_size, 16);	/* {addr, pid} */
	assert_int_equal(checked_map(c.r, "@b")->value.kind, TY_BUF);
	assert_int_equal(checked_map(c.r, "@b")->value_size, 8 + 16);	/* length + 10 bytes rounded */
	assert_int_equal(checked_map(c.r, "@n")->value_size, 24);
	assert_int_equal(checked_map(c.r, "@t")->value.kind, TY_TIMESTAMP);
	assert_string_equal(checked_map(c.r, "@t")->value.fmt, "%H:%M:%f");
	assert_int_equal(checked_map(c.r, "@l")->value.kind, TY_INT);
	assert_int_equal(checked_map(c.r, "@ks")->value.kind, TY_KSYM);
	checked_free(&c);
}

static void test_stack_errors(void **state)
{
	expect_error("BEGIN { @[ustack(foo)] = count(); }",
		     "t.bt:1:18: error: ustack(): unknown stack mode 'foo' (use bpftrace, perf or raw; build_id for build-ids and offsets; python for Python frames)");
	/* build_id is a user stack's mode only, as in the newest bpftrace */
	expect_error("BEGIN { @[kstack(build_id)] = count(); }",
		     "t.bt:1:18: error: 'build_id' stack mode can only be used for ustack (kernel frames have no build-id: kstack(raw) gives addresses)");
	expect_error("BEGIN { @[kstack(0)] = count(); }",
		     "t.bt:1:18: error: kstack(): the number of frames must be 1 to 127, not 0");
	expect_error("BEGIN { @[kstack(3, 4)] = count(); }",
		     "t.bt:1:18: error: kstack(MODE, N): MODE is bpftrace, perf or raw");
	/* one map cannot mix depths or modes: they print differently */
	expect_error("BEGIN { @[kstack(3)] = count(); @[kstack(4)] = count(); }",
		     "t.bt:1:33: error: map '@' key is kstack here but kstack elsewhere");
}

static void test_symbol_errors(void **state)
{
	expect_error("BEGIN { print(usym(\"x\")); }",
		     "t.bt:1:20: error: usym() needs an address, not string[2]");
	expect_error("BEGIN { print(reg(\"ip\")); }",
		     "t.bt:1:15: error: reg() is not available in BEGIN probes [S0106]");
	expect_error("uprobe:/bin/true:main { print(reg(\"eip\")); }",
		     "t.bt:1:35: error: reg(): unknown register 'eip' (x86-64: ip sp bp ax bx cx dx si di r8..r15 flags orig_ax cs ss)");
	expect_error("uprobe:/bin/true:main { print(reg(arg0)); }",
		     "t.bt:1:35: error: reg() needs a string literal: reg(\"ip\")");
	expect_error("BEGIN { print(uaddr(\"x\")); }",
		     "t.bt:1:15: error: uaddr() is not available in BEGIN probes [S0106]");
	expect_error("BEGIN { print(cgroupid(\"/nonexistent/cg\")); }",
		     "t.bt:1:24: error: cgroupid(): cannot find '/nonexistent/cg': No such file or directory");
}

static void test_bytes_net_time_errors(void **state)
{
	expect_error("BEGIN { print(buf(1)); }",
		     "t.bt:1:15: error: buf(address, length): the length is needed for an address");
	expect_error("BEGIN { print(buf(1, 65)); }", "t.bt:1:22: error: buf() length must be 1 to 64");
	expect_error("BEGIN { print(buf(comm, \"x\")); }",
		     "t.bt:1:25: error: buf() length must be an integer, not string[2]");
	expect_error("BEGIN { join(comm); }",
		     "t.bt:1:14: error: join() needs the address of a char *[] (like argv), not string[16]");
	expect_error("BEGIN { join(1, 2); }", "t.bt:1:17: error: join() separator must be a string literal");
	expect_error("BEGIN { $x = join(1); }", "t.bt:1:14: error: join() returns no value");
	expect_error("BEGIN { print(ntop(comm)); }",
		     "t.bt:1:20: error: ntop() needs an integer or a 4- or 16-byte array, not string[16]");
	expect_error("BEGIN { print(ntop(\"x\", 1)); }",
		     "t.bt:1:20: error: ntop(af, addr): af must be an integer (2 for AF_INET, 10 for AF_INET6)");
	expect_error("BEGIN { print(strftime(\"%H\", comm)); }",
		     "t.bt:1:30: error: strftime() needs nanoseconds (like nsecs), not string[16]");
	expect_error("BEGIN { @t = strftime(\"%H\", 1); @t = strftime(\"%M\", 2); }",
		     "t.bt:1:38: error: map '@t' holds timestamp, cannot assign timestamp");
}

static void test_control_errors(void **state)
{
	expect_error("uprobe:/bin/true:main { signal(\"SIGUSR1\"); }",
		     "t.bt:1:25: error: signal() acts on processes: allow it with --unsafe");
	struct checked c;
	check_opts(&c, "uprobe:/bin/true:main { signal(\"SIGFOO\"); }", true);
	assert_null(c.r);
	assert_non_null(strstr(c.msgs, "t.bt:1:32: error: signal(): 'SIGFOO' is not a signal name"));
	checked_free(&c);
	check_opts(&c, "uprobe:/bin/true:main { signal(99); }", true);
	assert_non_null(strstr(c.msgs, "error: signal(): 99 is not a signal number (1 to 64)"));
	checked_free(&c);
	check_opts(&c, "interval:s:1 { signal(\"KILL\"); }", true);
	assert_non_null(strstr(c.msgs, "error: signal() is not available in interval probes [S0106]"));
	checked_free(&c);
	check_opts(&c, "uprobe:/bin/true:main { signal(\"usr1\"); signal(\"SIGRTMIN+1\"); signal(arg0); }",
		   true);
	assert_non_null(c.r);
	checked_free(&c);
	expect_error("BEGIN { @h = hist(1); print(len(@h)); }",
		     "t.bt:1:33: error: len() of hist map '@h' is not supported (it stores a slot per bucket)");
	expect_error("BEGIN { @h[1] = 1; print(len(@h[1])); }",
		     "t.bt:1:30: error: len() needs a map name without keys, like @m");
}

/* ---- the object -------------------------------------------------------------- */

struct compiled {
	struct checked c;
	struct cg_object obj;
	struct bpf_object *bpf;
};

static void compile(struct compiled *x, const char *src)
{
	memset(x, 0, sizeof(*x));
	check(&x->c, src);
	assert_non_null(x->c.r);
	FILE *ir = fopen("/dev/null", "w");
	struct cg_opts co = {.out = ir, .start_ns = 1};
	assert_int_equal(cg_compile(x->c.a, x->c.r, &co, &x->obj), 0);
	fclose(ir);
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "t");
	x->bpf = bpf_object__open_mem(x->obj.elf, x->obj.elf_size, &oo);
	assert_non_null(x->bpf);
}

static void uncompile(struct compiled *x)
{
	bpf_object__close(x->bpf);
	free(x->obj.elf);
	checked_free(&x->c);
}

static void test_stack_and_scratch_maps(void **state)
{
	struct compiled x;
	compile(&x, "uprobe:/bin/true:main { @a[ustack] = count(); @b[kstack(3)] = count();"
		    " @c[ustack(perf, 3)] = count(); join(arg1); @l = len(@a); }");
	const struct bpf_map *m = bpf_object__find_map_by_name(x.bpf, "ustk_127");
	assert_non_null(m);
	/* the frames are the key (nothing collides), a u32 id the value;
	 * a user frame is {status, build-id, file offset or address} */
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_HASH);
	assert_int_equal(bpf_map__key_size(m), 127 * CG_USTACK_FRAME);
	assert_int_equal(bpf_map__value_size(m), 4);
	assert_int_equal(bpf_map__max_entries(m), CG_STACK_MAP_ENTRIES);
	assert_int_equal(bpf_map__map_flags(m), BPF_F_NO_PREALLOC);
	/* one map per kind and depth; the frames are read into per-CPU
	 * scratch of that size.  Kernel stacks keep the kernel's stack map */
	m = bpf_object__find_map_by_name(x.bpf, "kstk_3");
	assert_non_null(m);
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_STACK_TRACE);
	assert_int_equal(bpf_map__value_size(m), 24);
	m = bpf_object__find_map_by_name(x.bpf, "scr_ustk_127");
	assert_non_null(m);
	assert_int_equal(bpf_map__value_size(m), 127 * CG_USTACK_FRAME);
	m = bpf_object__find_map_by_name(x.bpf, "scr_join");
	assert_non_null(m);
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_PERCPU_ARRAY);
	assert_int_equal(bpf_map__value_size(m), 16 + CG_JOIN_ARGS * CG_JOIN_ARG_SIZE);
	m = bpf_object__find_map_by_name(x.bpf, "pids_seen");
	assert_non_null(m);
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_LRU_HASH);
	uncompile(&x);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_value_types),
		cmocka_unit_test(test_stack_errors),
		cmocka_unit_test(test_symbol_errors),
		cmocka_unit_test(test_bytes_net_time_errors),
		cmocka_unit_test(test_control_errors),
		cmocka_unit_test(test_stack_and_scratch_maps),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
