/*
 * test_sema.c - sema_run(): types, map kinds, per-attach programs and the
 * exact text of semantic errors.
 *
 * Tracepoints come from a fake tracefs tree made in a temp directory
 * (tfs_set_root), so these tests need neither root nor a kernel.
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
#include "stdlib/stdlib.h"

static char tracefs[] = "/tmp/sonde-test-sema-XXXXXX";

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void add_tracepoint(const char *cat, const char *name, const char *fields)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/events/%s", tracefs, cat);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events/%s/%s", tracefs, cat, name);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events/%s/%s/format", tracefs, cat, name);
	char text[2048];
	snprintf(text, sizeof(text),
		 "name: %s\nID: 1\nformat:\n"
		 "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
		 "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
		 "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
		 "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n%s\n"
		 "print fmt: \"\"\n", name, fields);
	write_file(path, text);
}

static int setup(void **state)
{
	assert_non_null(mkdtemp(tracefs));
	char path[512];
	snprintf(path, sizeof(path), "%s/events", tracefs);
	mkdir(path, 0755);
	add_tracepoint("sched", "sched_switch",
		       "\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		       "\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
		       "\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;");
	add_tracepoint("sched", "sched_wakeup",
		       "\tfield:char comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		       "\tfield:pid_t pid;\toffset:24;\tsize:4;\tsigned:1;");
	add_tracepoint("syscalls", "sys_enter_ioctl",
		       "\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
		       "\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
		       "\tfield:unsigned int cmd;\toffset:24;\tsize:8;\tsigned:0;");
	snprintf(path, sizeof(path), "%s/available_events", tracefs);
	write_file(path, "sched:sched_switch\nsched:sched_wakeup\nsyscalls:sys_enter_ioctl\n");
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

static void check(struct checked *c, const char *src, const char **pos, int npos)
{
	struct sema_opts o = {.builtins = stdlib_find, .pos_args = pos, .npos_args = npos};
	checked_run(c, src, &o);
	assert_non_null(c->ast);
}

/* map kinds come from assignments anywhere, even after a read */
static void test_map_kinds(void **state)
{
	struct checked c;
	check(&c, "tracepoint:sched:sched_switch /@qt[args->next_pid]/ { @h = hist(1); @c[comm] = count(); }"
		  "tracepoint:sched:sched_wakeup { @qt[args->pid] = nsecs; @s = stats(2); @l = lhist(1, 0, 10, 2); }",
	      NULL, 0);
	assert_non_null(c.r);
	assert_int_equal(checked_map(c.r, "@qt")->kind, MK_VALUE);
	assert_false(checked_map(c.r, "@qt")->percpu);
	assert_int_equal(checked_map(c.r, "@h")->kind, MK_HIST);
	assert_true(checked_map(c.r, "@h")->percpu);
	assert_int_equal(checked_map(c.r, "@h")->key_size, 16);	/* dummy key + bucket */
	assert_int_equal(checked_map(c.r, "@c")->kind, MK_COUNT);
	assert_int_equal(checked_map(c.r, "@c")->key.kind, TY_STR);
	assert_int_equal(checked_map(c.r, "@c")->key_size, 16);
	assert_int_equal(checked_map(c.r, "@s")->value_size, 16);
	assert_int_equal(checked_map(c.r, "@l")->lh_step, 2);
	/* maps come out sorted by name */
	for (int i = 1; i < c.r->nmaps; i++)
		assert_true(strcmp(c.r->maps[i - 1]->name, c.r->maps[i]->name) < 0);
	checked_free(&c);
}

/* tuple keys are laid out 8-aligned; strings widen to the largest use */
static void test_key_layout(void **state)
{
	struct checked c;
	check(&c, "BEGIN { @m[1, comm] = 1; @m[2, \"a much longer string\"] = 2; }", NULL, 0);
	assert_non_null(c.r);
	const struct sema_map *m = checked_map(c.r, "@m");
	assert_int_equal(m->key.kind, TY_TUPLE);
	assert_int_equal(m->key.nfields, 2);
	assert_int_equal(m->key.fields[0].offset, 0);
	assert_int_equal(m->key.fields[1].offset, 8);
	assert_int_equal(m->key.fields[1].type.size, 21);
	assert_int_equal(m->key_size, 32);
	checked_free(&c);
}

/* args-> over several tracepoints needs one program per attach point */
static void test_per_attach(void **state)
{
	struct checked c;
	check(&c, "tracepoint:sched:sched_* { @[probe] = count(); }", NULL, 0);
	assert_non_null(c.r);
	assert_int_equal(c.r->probes[0].nattach, 2);
	assert_true(c.r->probes[0].uses_args);
	checked_free(&c);
	check(&c, "tracepoint:sched:sched_* { @ = count(); }", NULL, 0);
	assert_non_null(c.r);
	assert_false(c.r->probes[0].uses_args);
	checked_free(&c);
}

/* $1 is an integer when numeric, a string otherwise; $# counts them */
static void test_positional(void **state)
{
	const char *pos[] = {"42", "bash"};
	struct checked c;
	check(&c, "BEGIN { @a = $1 + $#; @b[$2] = count(); }", pos, 2);
	assert_non_null(c.r);
	assert_int_equal(checked_map(c.r, "@a")->value.kind, TY_INT);
	assert_int_equal(checked_map(c.r, "@b")->key.kind, TY_STR);
	assert_int_equal(checked_map(c.r, "@b")->key.size, 5);
	checked_free(&c);
}

/* a number past 64 bits is refused, as bpftrace 0.17 does; it was -1 */
static void test_positional_out_of_range(void **state)
{
	static const char *const bad[] = {"18446744073709551616", "99999999999999999999999",
					  "-9223372036854775809"};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		const char *pos[] = {bad[i]};
		struct checked c;
		char want[256];
		snprintf(want, sizeof(want),
			 "t.bt:1:14: error: $1 used numerically but given \"%s\", which does not "
			 "fit in 64 bits; str($1) is the text\n"
			 "BEGIN { @a = $1; }\n"
			 "             ^~\n", bad[i]);
		check(&c, "BEGIN { @a = $1; }", pos, 1);
		assert_null(c.r);
		assert_string_equal(c.msgs, want);
		checked_free(&c);
	}
	/* all 64 bits, and text, still do */
	const char *pos[] = {"0xffffffffffffffff", "99999999999999999999999"};
	struct checked c;
	check(&c, "BEGIN { @a = $1; @b = str($2); }", pos, 2);
	assert_non_null(c.r);
	checked_free(&c);
}

static void test_printf_event(void **state)
{
	struct checked c;
	check(&c, "BEGIN { printf(\"%s %d\\n\", comm, pid); }", NULL, 0);
	assert_non_null(c.r);
	assert_int_equal(c.r->nevents, 1);
	assert_int_equal(c.r->events[0]->args.nfields, 2);
	assert_int_equal(c.r->events[0]->args.fields[1].offset, 16);
	assert_int_equal(c.r->events[0]->args.size, 24);
	checked_free(&c);
}

/* print(@m); clear(@m); or zero(@m); next to each other, on one map and
 * without top: the print's note says what follows and the clear sends
 * nothing (sema/printclear.c) */
static void test_print_clear_joined(void **state)
{
	struct checked c;
	check(&c, "BEGIN { @a = count(); @b = count(); print(@a); clear(@a); print(@b); zero(@b); "
		  "print(@a, 2); clear(@a); print(@a, 0, 3); clear(@a); print(@b); printf(\"x\"); "
		  "clear(@b); print(@a); clear(@b); }", NULL, 0);
	assert_non_null(c.r);
	const struct ast_node *st = c.ast->program.items->probe.body->block.stmts->next->next;
	/* each statement's call: the expected note, in order */
	const uint64_t want[] = {PRINT_THEN_CLEAR, 1, PRINT_THEN_ZERO, 1, 0, 0, PRINT_THEN_CLEAR, 1,
				 0, 0, 0, 0, 0};
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++, st = st->next) {
		assert_non_null(st);
		assert_int_equal(st->expr_stmt.expr->note.value, want[i]);
	}
	assert_null(st);
	checked_free(&c);
	/* an aggregation read in BPF, before the assignment that makes it
	 * one: the runtime must clear its slots, not keep a base */
	check(&c, "BEGIN { if (@n > 1) { exit(); } print(@n); clear(@n); @n = count(); @m = count(); }",
	      NULL, 0);
	assert_non_null(c.r);
	assert_int_equal(c.r->nmaps, 2);
	assert_true(c.r->maps[1]->bpf_read);	/* maps in name order: @m, @n */
	assert_false(c.r->maps[0]->bpf_read);
	checked_free(&c);
	(void)state;
}

static void expect_error(const char *src, const char *msg)
{
	struct checked c;
	check(&c, src, NULL, 0);
	assert_null(c.r);
	assert_string_equal(c.msgs, msg);
	checked_free(&c);
}

/* 6,000 bad attach points on one 12 KB line: 20 errors, each quoting the
 * 120 columns around its column, then a note; it printed 96 MB */
static void test_error_limit(void **state)
{
	size_t n = 6000, len = n * 2 + 8;
	char *src = malloc(len);
	size_t o = 0;
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(src + o, len - o, "%sa", i ? "," : "");
	snprintf(src + o, len - o, " { }");
	struct checked c;
	check(&c, src, NULL, 0);
	assert_null(c.r);
	int errors = 0;
	for (const char *p = c.msgs; (p = strstr(p, ": error: ")); p++)
		errors++;
	assert_int_equal(errors, DIAG_MAX_ERRORS);
	assert_non_null(strstr(c.msgs, "t.bt: too many errors: stopped after 20\n"));
	/* the 20th point, at column 39: the line from its start, cut */
	assert_non_null(strstr(c.msgs, "t.bt:1:39: error: unknown probe type 'a'\na,a,a,"));
	for (const char *l = c.msgs; *l;) {
		const char *e = strchr(l, '\n');
		assert_non_null(e);
		assert_true(e - l <= DIAG_LINE_MAX + 60);
		l = e + 1;
	}
	assert_true(strlen(c.msgs) < 6000);
	checked_free(&c);
	free(src);
}

/* let and for variables live in their block (scope.c); a variable
 * without let in the whole probe, as in 0.17 */
static void test_let_and_for(void **state)
{
	struct checked c;
	check(&c, "begin { let $a = 1; if ($a) { let $a = \"s\"; $t = $a; } $b = $a + 1; "
		  "@m[1, \"k\"] = (2, 3); for ($kv : @m) { $k = $kv.0.1; $v = $kv.1.0; } "
		  "for ($i : 0..$b) { $n = $i; } let $z: uint8; }", NULL, 0);
	assert_non_null(c.r);
	assert_true(c.r->ends_itself);
	checked_free(&c);
	check(&c, "BEGIN { $x = 1 }", NULL, 0);
	assert_non_null(c.r);
	assert_false(c.r->ends_itself);	/* 0.17's spelling: waits for Ctrl-C */
	checked_free(&c);
	expect_error("begin { if (1) { let $x = 1; } print($x); }",
		     "t.bt:1:38: error: variable '$x' is used before it is assigned\n"
		     "begin { if (1) { let $x = 1; } print($x); }\n"
		     "                                     ^~\n");
	expect_error("begin { let $x = 1; let $x = 2; }",
		     "t.bt:1:25: error: variable '$x' is already declared in this block\n"
		     "begin { let $x = 1; let $x = 2; }\n"
		     "                        ^~\n");
	expect_error("begin { for ($i : 0..2) { } print($i); }",
		     "t.bt:1:35: error: variable '$i' is used before it is assigned\n"
		     "begin { for ($i : 0..2) { } print($i); }\n"
		     "                                  ^~\n");
	expect_error("begin { @c[1] = hist(1); for ($kv : @c) { } }",
		     "t.bt:1:37: error: map '@c' holds hist: for loops iterate over maps of values "
		     "and of count, sum, min, max and avg\n"
		     "begin { @c[1] = hist(1); for ($kv : @c) { } }\n"
		     "                                    ^~\n");
	expect_error("begin { @s = 1; for ($kv : @s) { } }",
		     "t.bt:1:28: error: map '@s' has no keys: a for loop iterates over a map with keys\n"
		     "begin { @s = 1; for ($kv : @s) { } }\n"
		     "                           ^~\n");
	/* messages name a block's variable as written */
	expect_error("begin { let $x = 1; if (1) { let $x = 2; $x = \"s\"; } }",
		     "t.bt:1:47: error: variable '$x' holds int64, cannot assign string[2]\n"
		     "begin { let $x = 1; if (1) { let $x = 2; $x = \"s\"; } }\n"
		     "                                              ^~~\n");
	expect_error("begin { break; }",
		     "t.bt:1:9: error: 'break' outside a loop\n"
		     "begin { break; }\n"
		     "        ^~~~~\n");
}

/* let @m = type(n): the BPF map's type and size */
static void test_map_decls(void **state)
{
	struct checked c;
	check(&c, "let @a = lruhash(7); let @b = percpuhash(3); let @c = percpuarray(1); let @d = hash(2);"
		  "begin { @a[1] = 1; @b[2] = count(); @c = sum(1); @d = 5; }", NULL, 0);
	assert_non_null(c.r);
	assert_int_equal(checked_map(c.r, "@a")->max_entries, 7);
	assert_true(checked_map(c.r, "@a")->lru);
	assert_int_equal(checked_map(c.r, "@b")->max_entries, 3);
	assert_false(checked_map(c.r, "@b")->lru);
	assert_true(checked_map(c.r, "@c")->array_slots > 0);
	assert_int_equal(checked_map(c.r, "@d")->array_slots, 0);	/* a hash, as declared */
	checked_free(&c);
	expect_error("let @a = lruhash(0); begin { @a[1] = 1; }",
		     "t.bt:1:18: error: map '@a': the number of entries must be 1 to 4294967295\n"
		     "let @a = lruhash(0); begin { @a[1] = 1; }\n"
		     "                 ^\n");
	expect_error("let @a = percpuhash(4); begin { @a[1] = 1; }",
		     "t.bt:1:10: error: map '@a' holds values (int64): declare it hash or lruhash\n"
		     "let @a = percpuhash(4); begin { @a[1] = 1; }\n"
		     "         ^~~~~~~~~~\n");
	expect_error("let @a = hash(4); let @a = hash(5); begin { @a[1] = 1; }",
		     "t.bt:1:23: error: map '@a' is declared twice\n"
		     "let @a = hash(4); let @a = hash(5); begin { @a[1] = 1; }\n"
		     "                      ^~\n");
}

static void test_errors(void **state)
{
	expect_error("BEGIN { @x = count(); @x = sum(1); }",
		     "t.bt:1:28: error: map '@x' is used as sum here but as count elsewhere\n"
		     "BEGIN { @x = count(); @x = sum(1); }\n"
		     "                           ^~~~~~\n");
	expect_error("tracepoint:sched:sched_switch { @[args->pid] = count(); }",
		     "t.bt:1:35: error: tracepoint sched:sched_switch has no field 'pid'\n"
		     "tracepoint:sched:sched_switch { @[args->pid] = count(); }\n"
		     "                                  ^~~~~~~~~\n");
	expect_error("tracepoint:nosuch:thing { }",
		     "t.bt:1:1: error: tracepoint 'nosuch:thing' not found [S0202]\n"
		     "tracepoint:nosuch:thing { }\n"
		     "^~~~~~~~~~~~~~~~~~~~~~~\n"
		     "note: This kernel has no such tracepoint.\n"
		     "note: sonde --explain S0202 tells more\n");
	expect_error("BEGIN { count(); }",
		     "t.bt:1:9: error: count() must be assigned to a map: @name = count(...)\n"
		     "BEGIN { count(); }\n"
		     "        ^~~~~~~\n");
	expect_error("BEGIN { $x = $y; }",
		     "t.bt:1:14: error: variable '$y' is used before it is assigned\n"
		     "BEGIN { $x = $y; }\n"
		     "             ^~\n");
	expect_error("BEGIN { @a = arg0; }",
		     "t.bt:1:14: error: arg0 is not available in BEGIN probes (use args->FIELD in tracepoints)\n"
		     "BEGIN { @a = arg0; }\n"
		     "             ^~~~\n");
	expect_error("BEGIN { @l = lhist(1, 10, 5, 1); }",
		     "t.bt:1:14: error: lhist(value, min, max, step) needs 0 <= min < max and step > 0\n"
		     "BEGIN { @l = lhist(1, 10, 5, 1); }\n"
		     "             ^~~~~~~~~~~~~~~~~~\n");
	expect_error("BEGIN { printf(\"%d\\n\", comm); }",
		     "t.bt:1:24: error: printf: '%d' needs an integer, not string[16]\n"
		     "BEGIN { printf(\"%d\\n\", comm); }\n"
		     "                       ^~~~\n");
	expect_error("BEGIN { @r = @never; }",
		     "t.bt:1:14: error: map '@never' is read but never assigned\n"
		     "BEGIN { @r = @never; }\n"
		     "             ^~~~~~\n");
	/* a map that only reads itself: the first pass must not leave it
	 * quietly poisoned (a fuzz finding: no error, then invalid IR) */
	expect_error("BEGIN { @s = @s; }",
		     "t.bt:1:14: error: map '@s' is read but never assigned\n"
		     "BEGIN { @s = @s; }\n"
		     "             ^~\n");
	/* a tuple may be one of several keys; its layout must then agree */
	expect_error("BEGIN { @tk[1, (1, 2)] = 1; @tk[1, 2] = 1; }",
		     "t.bt:1:29: error: map '@tk' key is (int64, int64) here but (int64, (int64, int64)) elsewhere\n"
		     "BEGIN { @tk[1, (1, 2)] = 1; @tk[1, 2] = 1; }\n"
		     "                            ^~~~~~~~~\n");
	expect_error("BEGIN { $s = (string[4])pid; }",
		     "t.bt:1:14: error: cannot cast uint64 to string[4]: a string cast takes a string or an array of 1-byte integers\n"
		     "BEGIN { $s = (string[4])pid; }\n"
		     "             ^~~~~~~~~~~~~~\n");
	expect_error("BEGIN { unroll(0) { } }",
		     "t.bt:1:16: error: unroll count must be 1 to 100, not 0\n"
		     "BEGIN { unroll(0) { } }\n"
		     "               ^\n");
}

/* uprobe:BIN@FILE:LINE: the line's address from the binary's line table
 * as the attach point's function, named as written; not for uretprobe;
 * a target whose whole name (with its '@') is a file stays a target */
static void test_source_line(void **state)
{
	char dir[] = "/tmp/sonde-sema-XXXXXX", cmd[1024], bin[256], odd[256], src[256];
	assert_non_null(mkdtemp(dir));
	snprintf(src, sizeof(src), "%s/line.c", dir);
	snprintf(bin, sizeof(bin), "%s/line", dir);
	snprintf(odd, sizeof(odd), "%s/x@line.c", dir);
	write_file(src, "int f(int x)\n{\n\treturn x + 1;\n}\nint main(void) { return f(1); }\n");
	snprintf(cmd, sizeof(cmd), "gcc -g -O0 -o %s %s && cp %s %s", bin, src, bin, odd);
	assert_int_equal(system(cmd), 0);
	struct rs_elf_symbol f;
	assert_int_equal(rs_elf_find_symbol(bin, "f", &f), 0);
	char prog[1024], want[64], buf[512];
	struct checked c;
	snprintf(prog, sizeof(prog), "uprobe:%s@line.c:2 { @ = count(); }", bin);
	check(&c, prog, NULL, 0);
	assert_non_null(c.r);
	const struct sema_attach *at = &c.r->probes[0].attach[0];
	assert_true(at->src_line);
	assert_string_equal(at->target, bin);
	snprintf(want, sizeof(want), "0x%llx", (unsigned long long)f.value);
	assert_string_equal(at->func, want);	/* the brace: the function's entry */
	snprintf(want, sizeof(want), "uprobe:%s@line.c:2", bin);
	assert_string_equal(at->name, want);
	checked_free(&c);
	snprintf(prog, sizeof(prog), "uretprobe:%s@line.c:3 { @ = count(); }", bin);
	check(&c, prog, NULL, 0);
	assert_null(c.r);
	assert_non_null(strstr(checked_first_line(&c, buf, sizeof(buf)), "uretprobe cannot probe"));
	checked_free(&c);
	snprintf(prog, sizeof(prog), "uprobe:%s@line.c:3 { @ = args.x; }", bin);
	check(&c, prog, NULL, 0);
	assert_null(c.r);
	assert_non_null(strstr(checked_first_line(&c, buf, sizeof(buf)), "reg()"));
	checked_free(&c);
	/* "x@line.c" is a file: uprobe:DIR/x@line.c:2 is its function "2" */
	snprintf(prog, sizeof(prog), "uprobe:%s:2 { @ = count(); }", odd);
	check(&c, prog, NULL, 0);
	assert_non_null(c.r);
	assert_false(c.r->probes[0].attach[0].src_line);
	assert_string_equal(c.r->probes[0].attach[0].func, "2");
	checked_free(&c);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	assert_int_equal(system(cmd), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_map_kinds),
		cmocka_unit_test(test_key_layout),
		cmocka_unit_test(test_per_attach),
		cmocka_unit_test(test_positional),
		cmocka_unit_test(test_error_limit),
		cmocka_unit_test(test_positional_out_of_range),
		cmocka_unit_test(test_printf_event),
		cmocka_unit_test(test_print_clear_joined),
		cmocka_unit_test(test_let_and_for),
		cmocka_unit_test(test_map_decls),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_source_line),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
