/*
 * test_types.c - the language's types (issue 8): C's usual arithmetic
 * conversions, struct layout with bitfields and multi-dimensional arrays,
 * tracepoint fields typed as their format files declare them (user
 * pointers for syscalls), pointer arithmetic, strings that widen across a
 * variable's assignments, the ternary of two void calls, positional
 * parameters in attach points.
 *
 * Tracepoints come from a fake tracefs tree (tfs_set_root); nothing here
 * needs root, the kernel's BTF or BPF.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/arena.h"
#include "common/diag.h"
#include "parser/parser.h"
#include "host/host.h"
#include "sema/sema.h"
#include "harness.h"

static char tracefs[] = "/tmp/sonde-test-types-XXXXXX";

static int setup(void **state)
{
	assert_non_null(mkdtemp(tracefs));
	char path[512];
	snprintf(path, sizeof(path), "mkdir -p '%s/events/syscalls/sys_enter_openat'", tracefs);
	assert_int_equal(system(path), 0);
	snprintf(path, sizeof(path), "%s/events/syscalls/sys_enter_openat/format", tracefs);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs("name: sys_enter_openat\nID: 1\nformat:\n"
	      "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	      "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	      "\tfield:int dfd;\toffset:16;\tsize:8;\tsigned:0;\n"
	      "\tfield:const char * filename;\toffset:24;\tsize:8;\tsigned:0;\n"
	      "\tfield:unsigned long flags;\toffset:32;\tsize:8;\tsigned:0;\n"
	      "print fmt: \"\"\n", f);
	fclose(f);
	snprintf(path, sizeof(path), "%s/available_events", tracefs);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("syscalls:sys_enter_openat\n", f);
	fclose(f);
	tfs_set_root(tracefs);
	(void)state;
	return 0;
}

static int teardown(void **state)
{
	harness_rm_tracefs(tracefs);
	(void)state;
	return 0;
}

/* the first expression statement of the first probe, typed */
static struct ast_node *first_expr(struct checked *c)
{
	assert_non_null(c->r);
	struct ast_node *st = c->r->probes[0].node->probe.body->block.stmts;
	assert_int_equal(st->kind, N_EXPR_STMT);
	return st->expr_stmt.expr;
}

static void check_ok(struct checked *c, const char *src)
{
	static const char *pos[] = {"100", "/bin/true"};
	struct sema_opts o = {.pos_args = pos, .npos_args = 2};
	checked_run(c, src, &o);
	if (!c->r)
		fail_msg("%s: %s", src, c->msgs);
}

static void test_arith_signed(void **state)
{
	const struct type u8 = {.kind = TY_INT, .size = 1}, s8 = {.kind = TY_INT, .size = 1, .is_signed = true};
	const struct type u32 = {.kind = TY_INT, .size = 4}, s32 = {.kind = TY_INT, .size = 4, .is_signed = true};
	const struct type u64 = {.kind = TY_INT, .size = 8}, s64 = {.kind = TY_INT, .size = 8, .is_signed = true};
	assert_false(type_arith_signed(&u64, &s64));	/* uint64 > -1 is unsigned */
	assert_true(type_arith_signed(&u32, &s64));	/* int64 holds every uint32 */
	assert_false(type_arith_signed(&u32, &s32));
	assert_true(type_arith_signed(&u8, &s8));	/* both promote to int */
	assert_true(type_arith_signed(&u8, &u8));
	assert_true(type_arith_signed(&s64, &s64));
	(void)state;
}

/* sizeof folds to a literal: C layout with padding, bitfields packed in
 * units of their type, multi-dimensional arrays */
static void test_struct_layout(void **state)
{
	struct checked c;
	check_ok(&c, "struct S { char a; long b; short c; }\n"
		     "struct B { unsigned int f:1, m:3, l:4; short s; char t[6]; }\n"
		     "struct G { int g[2][3]; char *p[2]; }\n"
		     "BEGIN { print(sizeof(struct S) * 10000 + sizeof(struct B) * 100 + sizeof(struct G)); }");
	struct ast_node *e = first_expr(&c)->call.args;
	assert_int_equal(e->kind, N_BINARY);
	/* 24, 12, 40 */
	assert_int_equal(e->bin.lhs->bin.lhs->bin.lhs->i.value, 24);
	assert_int_equal(e->bin.lhs->bin.rhs->bin.lhs->i.value, 12);
	assert_int_equal(e->bin.rhs->i.value, 40);
	checked_free(&c);
	check_ok(&c, "BEGIN { print(sizeof(((int8)1, (int16)1, (int32)1))); }");
	assert_int_equal(first_expr(&c)->call.args->i.value, 8);
	checked_free(&c);
	/* held in a variable, its integers in 8-byte slots: still 8 */
	check_ok(&c, "BEGIN { $t = ((int8)1, (int16)1, (int32)1); print(sizeof($t)); }");
	struct ast_node *st = c.r->probes[0].node->probe.body->block.stmts->next;
	assert_int_equal(st->expr_stmt.expr->call.args->i.value, 8);
	checked_free(&c);
	/* a union: members at 0, as large as the largest, aligned */
	check_ok(&c, "union U { char a; int b[3]; short c; } BEGIN { print(sizeof(union U)); }");
	assert_int_equal(first_expr(&c)->call.args->i.value, 12);
	checked_free(&c);
}

/* enumerators are int64 constants, counting on from the last value given */
static void test_enums(void **state)
{
	struct checked c;
	check_ok(&c, "enum E { A = 3, B, C = -2, D } BEGIN { print((B, D, sizeof(enum E))); }");
	struct ast_node *t = first_expr(&c)->call.args->tuple.elems;
	assert_int_equal(t->kind, N_INT);
	assert_int_equal(t->i.value, 4);
	assert_true(t->type.is_signed);
	assert_int_equal((int64_t)t->next->i.value, -1);
	assert_int_equal(t->next->next->i.value, 4);
	checked_free(&c);
}

/* the format file's C type, not its slot size: int dfd is a signed int32;
 * a syscall's pointer argument points into user memory */
static void test_tracepoint_ctypes(void **state)
{
	struct checked c;
	check_ok(&c, "tracepoint:syscalls:sys_enter_openat { print((args->dfd, args->filename, args->flags)); }");
	struct ast_node *t = first_expr(&c)->call.args;
	struct ast_node *dfd = t->tuple.elems, *fn = dfd->next, *fl = fn->next;
	assert_int_equal(dfd->type.kind, TY_INT);
	assert_int_equal(dfd->type.size, 4);
	assert_true(dfd->type.is_signed);
	assert_int_equal(fn->type.kind, TY_PTR);
	assert_true(fn->type.is_user);
	assert_int_equal(fn->type.elem->size, 1);
	assert_int_equal(fl->type.size, 8);
	assert_false(fl->type.is_signed);
	checked_free(&c);
}

static void test_pointer_arith(void **state)
{
	struct checked c;
	check_ok(&c, "struct P { long a; long b; }\n"
		     "BEGIN { print(((struct P *)nsecs + 1, (int32 *)nsecs - (int32 *)pid)); }");
	struct ast_node *t = first_expr(&c)->call.args;
	struct ast_node *p = t->tuple.elems, *d = p->next;
	assert_int_equal(p->type.kind, TY_PTR);
	assert_int_equal(p->type.elem->size, 16);
	assert_false(p->type.is_user);	/* outside uprobes: kernel memory */
	assert_int_equal(d->type.kind, TY_INT);
	assert_true(d->type.is_signed);
	checked_free(&c);
}

/* strings of different lengths in one variable; void ternary; $1 in an
 * attach point */
static void test_language_forms(void **state)
{
	struct checked c;
	check_ok(&c, "BEGIN { $a = \"\"; if (nsecs) { $a = \"hi\"; } else { $a = \"hello\"; } "
		     "nsecs ? printf(\"a\") : printf(\"b\"); }");
	checked_free(&c);
	check_ok(&c, "i:ms:$1 { exit(); }");
	assert_int_equal(c.r->probes[0].attach[0].period_ns, 100000000);
	checked_free(&c);
	checked_run(&c, "i:ms:$3 { exit(); }", NULL);
	assert_null(c.r);
	assert_non_null(strstr(c.msgs, "positional parameter $3 is not given"));
	checked_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_arith_signed),
		cmocka_unit_test(test_struct_layout),
		cmocka_unit_test(test_enums),
		cmocka_unit_test(test_tracepoint_ctypes),
		cmocka_unit_test(test_pointer_arith),
		cmocka_unit_test(test_language_forms),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
