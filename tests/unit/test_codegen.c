/*
 * test_codegen.c - cg_compile(): the BPF object's shape, read back with
 * libbpf's ELF parser (no kernel, no root): program sections, BTF-defined
 * maps with the right types and sizes, the ring buffer, and the IR that
 * --emit ir prints.
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
#include "parser/parser.h"
#include "harness.h"

struct compiled {
	struct checked c;
	struct cg_object obj;
	struct bpf_object *bpf;
	char *ir;
};

static void compile(struct compiled *c, const char *src)
{
	memset(c, 0, sizeof(*c));
	checked_run(&c->c, src, NULL);
	assert_non_null(c->c.r);
	assert_int_equal(checked_codegen(&c->c, &c->ir, &c->obj), 0);
	assert_non_null(c->obj.elf);
	LIBBPF_OPTS(bpf_object_open_opts, oo, .object_name = "t");
	c->bpf = bpf_object__open_mem(c->obj.elf, c->obj.elf_size, &oo);
	assert_non_null(c->bpf);
}

static void done(struct compiled *c)
{
	bpf_object__close(c->bpf);
	free(c->obj.elf);
	free(c->ir);
	checked_free(&c->c);
}

static const struct bpf_map *map_named(struct compiled *c, const char *name)
{
	const struct bpf_map *m = bpf_object__find_map_by_name(c->bpf, name);
	if (!m)
		fail_msg("no map %s in the object", name);
	return m;
}

/* aggregations are per-CPU hashes (arrays without keys); '=' values are
 * shared hashes */
static void test_map_definitions(void **state)
{
	struct compiled c;
	compile(&c, "BEGIN { @c[pid] = count(); @v[comm] = nsecs; @h = hist(1); @s = stats(2); }");
	const struct bpf_map *m = map_named(&c, "m0_c");
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_PERCPU_HASH);
	assert_int_equal(bpf_map__key_size(m), 8);
	assert_int_equal(bpf_map__value_size(m), 8);
	m = map_named(&c, "m3_v");
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_HASH);
	assert_int_equal(bpf_map__key_size(m), 16);
	/* aggregations without keys: per-CPU arrays indexed by a u32, one
	 * slot per hist bucket and one for the sum (--serve's _sum) */
	m = map_named(&c, "m1_h");
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_PERCPU_ARRAY);
	assert_int_equal(bpf_map__key_size(m), 4);
	assert_int_equal(bpf_map__max_entries(m), 67);
	m = map_named(&c, "m2_s");
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_PERCPU_ARRAY);
	assert_int_equal(bpf_map__max_entries(m), 1);
	assert_int_equal(bpf_map__value_size(m), 16);	/* {count, total} */
	done(&c);
	/* with keys, hist slots are (key, bucket) in a per-CPU hash */
	compile(&c, "BEGIN { @k[pid] = hist(1); }");
	m = map_named(&c, "m0_k");
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_PERCPU_HASH);
	assert_int_equal(bpf_map__key_size(m), 16);	/* key + bucket index */
	m = map_named(&c, CG_RINGBUF_MAP);
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_RINGBUF);
	m = map_named(&c, CG_LOST_MAP);
	assert_int_equal(bpf_map__type(m), BPF_MAP_TYPE_PERCPU_ARRAY);
	done(&c);
}

/* BEGIN/END are raw_tp programs run once; interval is a perf event */
static void test_program_sections(void **state)
{
	struct compiled c;
	compile(&c, "BEGIN { @a = 1; } END { @b = 2; } interval:ms:10 { @c = 3; }");
	assert_int_equal(c.obj.nprogs, 3);
	struct bpf_program *p = bpf_object__find_program_by_name(c.bpf, c.obj.progs[0].name);
	assert_non_null(p);
	assert_string_equal(bpf_program__section_name(p), "raw_tp/sonde_run");
	p = bpf_object__find_program_by_name(c.bpf, c.obj.progs[2].name);
	assert_string_equal(bpf_program__section_name(p), "perf_event");
	assert_int_equal(bpf_program__type(p), BPF_PROG_TYPE_PERF_EVENT);
	done(&c);
}

/* printf goes through the ring buffer (helper 130), never trace_printk (6) */
static void test_printf_uses_ringbuf(void **state)
{
	struct compiled c;
	compile(&c, "BEGIN { printf(\"%d %s\\n\", pid, comm); }");
	assert_non_null(strstr(c.ir, "inttoptr (i64 130 to ptr)"));
	assert_null(strstr(c.ir, "inttoptr (i64 6 to ptr)"));
	done(&c);
}

/* every function carries debug info (else LLVM 16's BTF writer crashes) */
static void test_debug_info(void **state)
{
	struct compiled c;
	compile(&c, "BEGIN { @x = count(); } BEGIN { @y = count(); }");
	assert_non_null(strstr(c.ir, "!DISubprogram(name: \"BEGIN_p0_0\""));
	assert_non_null(strstr(c.ir, "!DISubprogram(name: \"BEGIN_p1_0\""));
	assert_non_null(strstr(c.ir, "nounwind"));
	done(&c);
}

/* hist buckets are computed branch-free: no loop, no libcall */
static void test_hist_no_calls(void **state)
{
	struct compiled c;
	compile(&c, "BEGIN { @h = hist(nsecs); }");
	assert_null(strstr(c.ir, "@llvm.ctlz"));
	assert_null(strstr(c.ir, "declare i"));	/* only llvm.dbg.* declarations */
	done(&c);
}

int main(void)
{
	libbpf_set_print(NULL);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_definitions),
		cmocka_unit_test(test_program_sections),
		cmocka_unit_test(test_printf_uses_ringbuf),
		cmocka_unit_test(test_debug_info),
		cmocka_unit_test(test_hist_no_calls),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
