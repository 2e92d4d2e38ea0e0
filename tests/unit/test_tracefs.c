/*
 * test_tracefs.c - tracepoint formats, -l output, software events, ksyms.
 *
 * Format texts are copied from a 6.18 kernel's tracefs.  Listing runs
 * against a fake tracefs tree built in a temporary directory (tfs_set_root),
 * so no root and no mounted tracefs are needed; the expected bytes are what
 * bpftrace 0.17 prints for the same tracepoints.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/arena.h"
#include "host/host.h"

static const char sched_switch_fmt[] =
	"name: sched_switch\n"
	"ID: 372\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t prev_pid;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:int prev_prio;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:long prev_state;\toffset:32;\tsize:8;\tsigned:1;\n"
	"\tfield:char next_comm[16];\toffset:40;\tsize:16;\tsigned:0;\n"
	"\tfield:pid_t next_pid;\toffset:56;\tsize:4;\tsigned:1;\n"
	"\tfield:int next_prio;\toffset:60;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"prev_comm=%s prev_pid=%d prev_prio=%d prev_state=%s%s ==> "
	"next_comm=%s next_pid=%d next_prio=%d\", REC->prev_comm, REC->prev_pid, "
	"REC->prev_prio, (REC->prev_state & 0xff) ? \"S\" : \"R\", REC->next_comm, "
	"REC->next_pid, REC->next_prio\n";

static const char ioctl_fmt[] =
	"name: sys_enter_ioctl\n"
	"ID: 898\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:int __syscall_nr;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:unsigned int fd;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int cmd;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long arg;\toffset:32;\tsize:8;\tsigned:0;\n"
	"\n"
	"print fmt: \"fd: 0x%08lx, cmd: 0x%08lx, arg: 0x%08lx\", "
	"((unsigned long)(REC->fd)), ((unsigned long)(REC->cmd)), "
	"((unsigned long)(REC->arg))\n";

static const char exec_fmt[] =
	"name: sched_process_exec\n"
	"ID: 365\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n"
	"\n"
	"\tfield:__data_loc char[] filename;\toffset:8;\tsize:4;\tsigned:0;\n"
	"\tfield:pid_t pid;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:pid_t old_pid;\toffset:16;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"filename=%s pid=%d old_pid=%d\", __get_str(filename), "
	"REC->pid, REC->old_pid\n";

/* pointers in every spelling the kernel prints, a flexible array, args[6],
 * and a print fmt that runs over several lines */
static const char odd_fmt[] =
	"name: odd\n"
	"ID: 7\n"
	"format:\n"
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
	"\n"
	"\tfield:const char * filename;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:const char *const * argv;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:const void* ip;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned long args[6];\toffset:32;\tsize:48;\tsigned:0;\n"
	"\tfield:__data_loc u64[] addrs;\toffset:80;\tsize:4;\tsigned:0;\n"
	"\tfield:__data_loc cpumask_t cpumask;\toffset:88;\tsize:4;\tsigned:0;\n"
	"\tfield:char buf[];\toffset:84;\tsize:0;\tsigned:0;\n"
	"\n"
	"print fmt: \"%s\n"
	"field:not a field; at all\n"
	"\", REC->filename\n";

static struct tp_format parse_ok(struct arena *a, const char *text)
{
	struct tp_format f;

	assert_int_equal(tfs_format_parse(a, text, &f), 0);
	return f;
}

static void test_parse_sched_switch(void **state)
{
	struct arena *a = arena_new();
	struct tp_format f = parse_ok(a, sched_switch_fmt);
	const struct tp_field *p;

	assert_string_equal(f.name, "sched_switch");
	assert_null(f.category);
	assert_int_equal(f.id, 372);
	assert_int_equal(f.nfields, 11);

	p = &f.fields[0];
	assert_string_equal(p->name, "common_type");
	assert_string_equal(p->ctype, "unsigned short");
	assert_true(p->is_common);
	assert_int_equal(p->size, 2);

	p = tfs_field(&f, "prev_comm");
	assert_non_null(p);
	assert_string_equal(p->ctype, "char");
	assert_string_equal(p->decl, "char prev_comm[16]");
	assert_int_equal(p->array_len, 16);
	assert_int_equal(p->offset, 8);
	assert_int_equal(p->size, 16);
	assert_false(p->is_signed);
	assert_false(p->is_common);
	assert_false(p->is_data_loc);

	p = tfs_field(&f, "prev_state");
	assert_string_equal(p->ctype, "long");
	assert_int_equal(p->array_len, -1);
	assert_int_equal(p->offset, 32);
	assert_int_equal(p->size, 8);
	assert_true(p->is_signed);

	p = tfs_field(&f, "next_pid");
	assert_string_equal(p->ctype, "pid_t");
	assert_int_equal(p->offset, 56);

	assert_true(tfs_field(&f, "common_pid")->is_common);
	assert_true(tfs_field(&f, "common_pid")->is_signed);
	assert_null(tfs_field(&f, "prev"));
	assert_null(tfs_field(&f, "next_prio2"));
	assert_null(tfs_field(&f, ""));
	arena_free(a);
}

static void test_parse_ioctl(void **state)
{
	struct arena *a = arena_new();
	struct tp_format f = parse_ok(a, ioctl_fmt);
	const struct tp_field *p;

	assert_int_equal(f.id, 898);
	assert_int_equal(f.nfields, 8);
	p = tfs_field(&f, "fd");
	assert_string_equal(p->ctype, "unsigned int");
	/* the record's size, not the C type's */
	assert_int_equal(p->size, 8);
	assert_int_equal(p->offset, 16);
	p = tfs_field(&f, "__syscall_nr");
	assert_string_equal(p->ctype, "int");
	assert_false(p->is_common);
	assert_string_equal(tfs_field(&f, "arg")->ctype, "unsigned long");
	arena_free(a);
}

static void test_parse_data_loc(void **state)
{
	struct arena *a = arena_new();
	struct tp_format f = parse_ok(a, exec_fmt);
	const struct tp_field *p = tfs_field(&f, "filename");

	assert_non_null(p);
	assert_true(p->is_data_loc);
	assert_string_equal(p->ctype, "char");
	assert_string_equal(p->decl, "__data_loc char[] filename");
	assert_int_equal(p->array_len, 0);
	assert_int_equal(p->offset, 8);
	assert_int_equal(p->size, 4);
	assert_false(tfs_field(&f, "pid")->is_data_loc);
	arena_free(a);
}

static void test_parse_odd_decls(void **state)
{
	struct arena *a = arena_new();
	struct tp_format f = parse_ok(a, odd_fmt);
	const struct tp_field *p;

	assert_int_equal(f.nfields, 8);
	p = tfs_field(&f, "filename");
	assert_string_equal(p->ctype, "const char *");
	assert_int_equal(p->array_len, -1);
	p = tfs_field(&f, "argv");
	assert_string_equal(p->ctype, "const char *const *");
	p = tfs_field(&f, "ip");
	assert_string_equal(p->ctype, "const void*");
	assert_string_equal(p->decl, "const void* ip");
	p = tfs_field(&f, "args");
	assert_string_equal(p->ctype, "unsigned long");
	assert_int_equal(p->array_len, 6);
	assert_int_equal(p->size, 48);
	p = tfs_field(&f, "addrs");
	assert_true(p->is_data_loc);
	assert_string_equal(p->ctype, "u64");
	assert_int_equal(p->array_len, 0);
	p = tfs_field(&f, "cpumask");
	assert_true(p->is_data_loc);
	assert_string_equal(p->ctype, "cpumask_t");
	assert_int_equal(p->array_len, 0);
	assert_int_equal(p->offset, 88);
	p = tfs_field(&f, "buf");
	assert_string_equal(p->ctype, "char");
	assert_int_equal(p->array_len, 0);
	assert_int_equal(p->size, 0);
	assert_null(tfs_field(&f, "not"));
	arena_free(a);
}

static void test_parse_malformed(void **state)
{
	static const char *const bad[] = {
		"",
		"garbage\n",
		/* no ID */
		"name: x\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n",
		/* no name */
		"ID: 1\nformat:\n\tfield:int a;\toffset:0;\tsize:4;\tsigned:1;\n",
		/* no format: */
		"name: x\nID: 1\n",
		"name: x\nID: abc\nformat:\n",
		"name: x\nID: -3\nformat:\n",
		"name: x\nID: 1\nformat:\n\tfield:int a;\toffset:zero;\tsize:4;\tsigned:1;\n",
		"name: x\nID: 1\nformat:\n\tfield:int a;\tsize:4;\tsigned:1;\n",
		"name: x\nID: 1\nformat:\n\tfield:int a;\toffset:0;\tsigned:1;\n",
		"name: x\nID: 1\nformat:\n\tfield:int a\toffset:0;\tsize:4;\n",
		"name: x\nID: 1\nformat:\n\tfield:int;\toffset:0;\tsize:4;\n",
		"name: x\nID: 1\nformat:\n\tfield:a;\toffset:0;\tsize:4;\n",
		"name: x\nID: 1\nformat:\n\tfield:;\toffset:0;\tsize:4;\n",
		"name: x\nID: 1\nformat:\n\tfield:char a[x];\toffset:0;\tsize:4;\n",
		"name: x\nID: 1\nformat:\n\tfield:char a16];\toffset:0;\tsize:4;\n",
		"name: x\nID: 1\nformat:\n\tfield:__data_loc name;\toffset:0;\tsize:4;\n",
		"name: x\nID: 1\nformat:\n\tfield:__data_loc char[] name[4];\toffset:0;\tsize:4;\n",
		"name: x\nID: 1\nformat:\n\tfield:int a;\toffset:-8;\tsize:4;\n",
		"name: x\nID: 1\nformat:\n\tfield:int a;\toffset:99999999999;\tsize:4;\n",
		"name: x\nID: 1\nformat:\n\tfield:int a;\toffset 0;\tsize:4;\n",
	};
	struct arena *a = arena_new();
	struct tp_format f;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		int r = tfs_format_parse(a, bad[i], &f);

		if (r != -EINVAL)
			fail_msg("case %zu parsed (%d): %s", i, r, bad[i]);
	}
	/* the smallest good one, without signed: and without trailing \n */
	assert_int_equal(tfs_format_parse(a,
		"name: x\nID: 1\nformat:\n\tfield:int a;\toffset:0;\tsize:4;", &f), 0);
	assert_int_equal(f.nfields, 1);
	assert_false(f.fields[0].is_signed);
	arena_free(a);
}

/* ---- -l on a fake tracefs ------------------------------------------- */

static char fake_root[64];

static void write_file(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", fake_root, rel);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void make_dir(const char *rel)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/%s", fake_root, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static const char *const fake_events[][2] = {
	{ "syscalls", "sys_enter_ioctl" },
	{ "sched", "sched_switch" },
	{ "sched", "sched_process_exec" },
	{ "fib6", "fib6_table_lookup" },
	{ "fib", "fib_table_lookup" },
	{ "sched", "sched_swap_numa" },
};

static int setup_fake(void **state)
{
	static const char *const texts[] = {
		ioctl_fmt, sched_switch_fmt, exec_fmt,
		"name: fib6_table_lookup\nID: 1\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
		"\tfield:u32 tb_id;\toffset:8;\tsize:4;\tsigned:0;\n",
		"name: fib_table_lookup\nID: 2\nformat:\n"
		"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n\n"
		"\tfield:u32 tb_id;\toffset:8;\tsize:4;\tsigned:0;\n",
		"this is not a format file\n",
	};
	char rel[256];
	FILE *ae;

	strcpy(fake_root, "/tmp/sonde-tfs-XXXXXX");
	assert_non_null(mkdtemp(fake_root));
	make_dir("events");
	/* available_events is in registration order, not sorted */
	snprintf(rel, sizeof(rel), "%s/available_events", fake_root);
	ae = fopen(rel, "w");
	assert_non_null(ae);
	for (size_t i = 0; i < 6; i++) {
		const char *cat = fake_events[i][0], *name = fake_events[i][1];

		fprintf(ae, "%s:%s\n", cat, name);
		snprintf(rel, sizeof(rel), "%s/events/%s", fake_root, cat);
		mkdir(rel, 0755);	/* EEXIST for the second sched event */
		snprintf(rel, sizeof(rel), "events/%s/%s", cat, name);
		make_dir(rel);
		snprintf(rel, sizeof(rel), "events/%s/%s/format", cat, name);
		write_file(rel, texts[i]);
	}
	fprintf(ae, "sched:sched_switch\n");	/* a duplicate is listed once */
	fclose(ae);
	tfs_set_root(fake_root);
	return 0;
}

static int teardown_fake(void **state)
{
	char cmd[128];

	tfs_set_root(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", fake_root);
	return system(cmd) == 0 ? 0 : -1;
}

/* tfs_list into a string; *ret gets its return value */
static char *list_str(const char *pattern, bool verbose, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	*ret = tfs_list(f, pattern, verbose);
	fclose(f);
	return buf;
}

static void expect_list(const char *pattern, bool verbose, int count,
			const char *want)
{
	int ret;
	char *got = list_str(pattern, verbose, &ret);

	if (ret != count || strcmp(got, want))
		fail_msg("pattern '%s': got %d:\n%s\nwant %d:\n%s",
			 pattern ? pattern : "(null)", ret, got, count, want);
	free(got);
}

static void test_list_patterns(void **state)
{
	const char *all =
		"tracepoint:fib6:fib6_table_lookup\n"
		"tracepoint:fib:fib_table_lookup\n"
		"tracepoint:sched:sched_process_exec\n"
		"tracepoint:sched:sched_swap_numa\n"
		"tracepoint:sched:sched_switch\n"
		"tracepoint:syscalls:sys_enter_ioctl\n";
	const char *sched =
		"tracepoint:sched:sched_process_exec\n"
		"tracepoint:sched:sched_swap_numa\n"
		"tracepoint:sched:sched_switch\n";
	int ret;
	char *got;

	/* "fib6:" sorts before "fib:" as bpftrace's strings do */
	expect_list(NULL, false, 6, all);
	expect_list("", false, 6, all);
	expect_list("tracepoint:*:*", false, 6, all);
	expect_list("*", false, 6, all);
	expect_list("tracepoint:sched:*", false, 3, sched);
	expect_list("t:sched:*", false, 3, sched);
	expect_list("*:sched:*", false, 3, sched);
	expect_list("trace*:sched:*", false, 3, sched);
	expect_list("t:sched:sched_sw*", false, 2,
		    "tracepoint:sched:sched_swap_numa\n"
		    "tracepoint:sched:sched_switch\n");
	expect_list("tracepoint:sched:sched_sw?tch", false, 1,
		    "tracepoint:sched:sched_switch\n");
	expect_list("tracepoint:sch*:*switch", false, 1,
		    "tracepoint:sched:sched_switch\n");
	expect_list("tracepoint:*:sched_switch", false, 1,
		    "tracepoint:sched:sched_switch\n");
	expect_list("tracepoint:fib[0-9]:*", false, 1,
		    "tracepoint:fib6:fib6_table_lookup\n");
	/* no provider: the glob covers "CAT:NAME", ':' included */
	expect_list("sched*", false, 3, sched);
	expect_list("*sched_switch*", false, 1, "tracepoint:sched:sched_switch\n");
	expect_list("*:sched*", false, 3, sched);
	expect_list("sched:sched_switch", false, 0, "");
	expect_list("tracepoint:sched:nosuch", false, 0, "");
	/* other providers are someone else's */
	expect_list("software:*", false, 0, "");
	expect_list("kprobe:vfs_read", false, 0, "");
	expect_list("*:a:b:c", false, 0, "");

	got = list_str("tracepoint:sched", false, &ret);
	assert_int_equal(ret, -EINVAL);
	assert_string_equal(got, "");
	free(got);
	got = list_str("tracepoint:sched:sched_switch:x", false, &ret);
	assert_int_equal(ret, -EINVAL);
	free(got);
}

static void test_list_verbose(void **state)
{
	expect_list("tracepoint:sched:sched_switch", true, 1,
		    "tracepoint:sched:sched_switch\n"
		    "    char prev_comm[16]\n"
		    "    pid_t prev_pid\n"
		    "    int prev_prio\n"
		    "    long prev_state\n"
		    "    char next_comm[16]\n"
		    "    pid_t next_pid\n"
		    "    int next_prio\n");
	expect_list("tracepoint:syscalls:sys_enter_ioctl", true, 1,
		    "tracepoint:syscalls:sys_enter_ioctl\n"
		    "    int __syscall_nr\n"
		    "    unsigned int fd\n"
		    "    unsigned int cmd\n"
		    "    unsigned long arg\n");
	expect_list("t:sched:sched_p*", true, 1,
		    "tracepoint:sched:sched_process_exec\n"
		    "    __data_loc char[] filename\n"
		    "    pid_t pid\n"
		    "    pid_t old_pid\n");
	/* an unreadable format still lists the name (and says so on stderr) */
	expect_list("t:sched:sched_swap_numa", true, 1,
		    "tracepoint:sched:sched_swap_numa\n");
}

static int count_cb(const char *cat, const char *name, void *ctx)
{
	char **acc = ctx;
	size_t n = *acc ? strlen(*acc) : 0;

	*acc = realloc(*acc, n + strlen(cat) + strlen(name) + 3);
	sprintf(*acc + n, "%s:%s;", cat, name);
	return 0;
}

static int stop_cb(const char *cat, const char *name, void *ctx)
{
	++*(int *)ctx;
	return 42;
}

static void test_each_and_read(void **state)
{
	char *acc = NULL;
	int n = 0;
	struct arena *a = arena_new();
	struct tp_format f;

	assert_int_equal(tfs_each("sched", "*", count_cb, &acc), 0);
	assert_string_equal(acc, "sched:sched_process_exec;sched:sched_swap_numa;"
			    "sched:sched_switch;");
	free(acc);
	acc = NULL;
	assert_int_equal(tfs_each(NULL, "fib*", count_cb, &acc), 0);
	assert_string_equal(acc, "fib6:fib6_table_lookup;fib:fib_table_lookup;");
	free(acc);
	acc = NULL;
	assert_int_equal(tfs_each("nosuch", NULL, count_cb, &acc), 0);
	assert_null(acc);
	assert_int_equal(tfs_each(NULL, NULL, stop_cb, &n), 42);
	assert_int_equal(n, 1);

	assert_int_equal(tfs_format_read(a, "sched", "sched_switch", &f), 0);
	assert_string_equal(f.category, "sched");
	assert_string_equal(f.name, "sched_switch");
	assert_int_equal(f.id, 372);
	assert_int_equal(tfs_field(&f, "next_prio")->offset, 60);
	assert_int_equal(tfs_format_read(a, "sched", "nosuch", &f), -ENOENT);
	assert_int_equal(tfs_format_read(a, "nosuch", "x", &f), -ENOENT);
	assert_int_equal(tfs_format_read(a, "sched", "sched_swap_numa", &f), -EINVAL);
	assert_int_equal(tfs_format_read(a, "..", "sched", &f), -EINVAL);
	assert_int_equal(tfs_format_read(a, "sched/../sched", "sched_switch", &f), -EINVAL);
	assert_int_equal(tfs_format_read(a, "", "sched_switch", &f), -EINVAL);
	arena_free(a);
}

/* The list is read once per root: setting the root again reads it anew
 * (a test's fake tree, a tracefs mounted late), the same root does not. */
static void test_each_list_per_root(void **state)
{
	char path[256], *acc = NULL;

	assert_int_equal(tfs_each("fib", "*", count_cb, &acc), 0);
	assert_string_equal(acc, "fib:fib_table_lookup;");
	free(acc);
	acc = NULL;
	snprintf(path, sizeof(path), "%s/available_events", fake_root);
	FILE *ae = fopen(path, "w");
	assert_non_null(ae);
	fprintf(ae, "fib:fib_table_lookup\nfib:fib_other\n");
	fclose(ae);
	assert_int_equal(tfs_each("fib", "*", count_cb, &acc), 0);
	assert_string_equal(acc, "fib:fib_table_lookup;");	/* cached */
	free(acc);
	acc = NULL;
	tfs_set_root(fake_root);
	assert_int_equal(tfs_each("fib", "*", count_cb, &acc), 0);
	assert_string_equal(acc, "fib:fib_other;fib:fib_table_lookup;");
	free(acc);
}

/* Without available_events the events/ directories are the list. */
static void test_each_from_dirs(void **state)
{
	char path[256], *acc = NULL;

	snprintf(path, sizeof(path), "%s/available_events", fake_root);
	assert_int_equal(unlink(path), 0);
	make_dir("events/ftrace");
	make_dir("events/ftrace/function");
	write_file("events/enable", "0\n");
	assert_int_equal(tfs_each(NULL, NULL, count_cb, &acc), 0);
	assert_string_equal(acc, "fib6:fib6_table_lookup;fib:fib_table_lookup;"
			    "sched:sched_process_exec;sched:sched_swap_numa;"
			    "sched:sched_switch;syscalls:sys_enter_ioctl;");
	free(acc);
}

static void test_list_entry(void **state)
{
	struct arena *a = arena_new();
	struct tp_format f = parse_ok(a, odd_fmt);
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	tfs_list_entry(out, "cat", "odd", NULL);
	tfs_list_entry(out, "cat", "odd", &f);
	fclose(out);
	assert_string_equal(buf,
		"tracepoint:cat:odd\n"
		"tracepoint:cat:odd\n"
		"    const char * filename\n"
		"    const char *const * argv\n"
		"    const void* ip\n"
		"    unsigned long args[6]\n"
		"    __data_loc u64[] addrs\n"
		"    __data_loc cpumask_t cpumask\n"
		"    char buf[]\n");
	free(buf);
	arena_free(a);
}

/* ---- software events ------------------------------------------------ */

static char *sw_str(const char *pattern, int *ret)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	*ret = tfs_list_software(f, pattern);
	fclose(f);
	return buf;
}

static void expect_sw(const char *pattern, int count, const char *want)
{
	int ret;
	char *got = sw_str(pattern, &ret);

	if (ret != count || strcmp(got, want))
		fail_msg("pattern '%s': got %d:\n%s\nwant %d:\n%s",
			 pattern ? pattern : "(null)", ret, got, count, want);
	free(got);
}

static void test_software_list(void **state)
{
	const char *all =
		"software:alignment-faults:\n"
		"software:bpf-output:\n"
		"software:context-switches:\n"
		"software:cpu-clock:\n"
		"software:cpu-migrations:\n"
		"software:cpu:\n"
		"software:cs:\n"
		"software:dummy:\n"
		"software:emulation-faults:\n"
		"software:faults:\n"
		"software:major-faults:\n"
		"software:minor-faults:\n"
		"software:page-faults:\n"
		"software:task-clock:\n";

	expect_sw(NULL, 14, all);
	expect_sw("software:*", 14, all);
	expect_sw("s:*", 14, all);
	expect_sw("software:*:*", 14, all);
	expect_sw("*:*", 14, all);
	expect_sw("*", 14, all);
	expect_sw("software:cpu*", 3,
		  "software:cpu-clock:\n"
		  "software:cpu-migrations:\n"
		  "software:cpu:\n");
	expect_sw("software:faults", 1, "software:faults:\n");
	expect_sw("software:faults:100", 1, "software:faults:\n");
	expect_sw("*faults*", 6,
		  "software:alignment-faults:\n"
		  "software:emulation-faults:\n"
		  "software:faults:\n"
		  "software:major-faults:\n"
		  "software:minor-faults:\n"
		  "software:page-faults:\n");
	expect_sw("sched*", 0, "");
	expect_sw("tracepoint:*:*", 0, "");
	expect_sw("hardware:*", 0, "");
	expect_sw("software:", 0, "");
}

static void test_software_lookup(void **state)
{
	const struct tfs_swevent *e;

	e = tfs_software_event("cpu-clock");
	assert_non_null(e);
	assert_string_equal(e->name, "cpu-clock");
	assert_string_equal(e->alias, "cpu");
	assert_int_equal(e->config, PERF_COUNT_SW_CPU_CLOCK);
	assert_int_equal(e->default_period, 1000000);
	assert_ptr_equal(tfs_software_event("cpu"), e);

	e = tfs_software_event("faults");
	assert_string_equal(e->name, "page-faults");
	assert_int_equal(e->config, PERF_COUNT_SW_PAGE_FAULTS);
	assert_int_equal(e->default_period, 100);
	e = tfs_software_event("cs");
	assert_string_equal(e->name, "context-switches");
	assert_int_equal(e->default_period, 1000);
	e = tfs_software_event("major-faults");
	assert_int_equal(e->config, PERF_COUNT_SW_PAGE_FAULTS_MAJ);
	assert_null(e->alias);
	assert_int_equal(e->default_period, 1);
	e = tfs_software_event("minor-faults");
	assert_int_equal(e->config, PERF_COUNT_SW_PAGE_FAULTS_MIN);
	assert_int_equal(tfs_software_event("task-clock")->config,
			 PERF_COUNT_SW_TASK_CLOCK);
	assert_int_equal(tfs_software_event("dummy")->config, PERF_COUNT_SW_DUMMY);
	assert_int_equal(tfs_software_event("cpu-migrations")->config,
			 PERF_COUNT_SW_CPU_MIGRATIONS);
	assert_int_equal(tfs_software_event("alignment-faults")->config,
			 PERF_COUNT_SW_ALIGNMENT_FAULTS);
	assert_int_equal(tfs_software_event("emulation-faults")->config,
			 PERF_COUNT_SW_EMULATION_FAULTS);
	assert_null(tfs_software_event("nosuch"));
	assert_null(tfs_software_event(""));
	assert_null(tfs_software_event("cpu-"));
	assert_null(tfs_software_event("CPU"));
}

/* ---- ksyms ---------------------------------------------------------- */

static const char kallsyms[] =
	"ffffffff81000000 T srso_alias_untrain_ret\n"
	"ffffffff81000000 T _stext\n"
	"ffffffff81000100 t do_one_initcall\n"
	"ffffffff81000400 W arch_cpu_idle\n"
	"ffffffff81200000 D jiffies_data\n"
	"ffffffff81001000 T vfs_read\n"
	"0000000000000000 A fixed_percpu_data\n"
	"ffffffffc0201000 t bpf_prog_6deef7357e7b4530_sd_fw\t[bpf]\n"
	"ffffffffc0100000 t ext4_mod_fn\t[ext4]\n"
	"ffffffff81002000 T vfs_write\n"
	"bogus line\n"
	"ffffffff81003000 x\n"
	"\n"
	"ffffffff81004000 T last_fn";

static void test_ksyms_lookup(void **state)
{
	struct ksyms *ks = ksyms_parse(kallsyms, sizeof(kallsyms) - 1);
	uint64_t off = 99, addr;

	assert_non_null(ks);
	assert_int_equal(ksyms_count(ks), 9);
	assert_null(ksyms_lookup(ks, 0xffffffff80ffffffULL, &off));
	assert_null(ksyms_lookup(ks, 0, NULL));
	/* several names at one address: the first in the file */
	assert_string_equal(ksyms_lookup(ks, 0xffffffff81000000ULL, &off),
			    "srso_alias_untrain_ret");
	assert_int_equal(off, 0);
	assert_string_equal(ksyms_lookup(ks, 0xffffffff810000ffULL, &off),
			    "srso_alias_untrain_ret");
	assert_int_equal(off, 0xff);
	assert_string_equal(ksyms_lookup(ks, 0xffffffff81000100ULL, &off),
			    "do_one_initcall");
	assert_int_equal(off, 0);
	assert_string_equal(ksyms_lookup(ks, 0xffffffff81000410ULL, &off),
			    "arch_cpu_idle");
	assert_int_equal(off, 0x10);
	assert_string_equal(ksyms_lookup(ks, 0xffffffff81001234ULL, &off), "vfs_read");
	assert_int_equal(off, 0x234);
	/* data symbols never answer a stack's lookup, but do ksym()'s
	 * (absolute symbols never: they are no addresses) */
	assert_string_equal(ksyms_lookup(ks, 0xffffffff81200010ULL, NULL), "last_fn");
	assert_string_equal(ksyms_lookup_any(ks, 0xffffffff81200010ULL, &off), "jiffies_data");
	assert_int_equal(off, 0x10);
	assert_string_equal(ksyms_lookup_any(ks, 0xffffffff81001234ULL, NULL), "vfs_read");
	assert_null(ksyms_lookup_any(ks, 0x10, NULL));
	/* module symbols came out of order and carry no "[mod]" */
	assert_string_equal(ksyms_lookup(ks, 0xffffffffc0100008ULL, &off),
			    "ext4_mod_fn");
	assert_int_equal(off, 8);
	assert_string_equal(ksyms_lookup(ks, 0xffffffffc0201004ULL, NULL),
			    "bpf_prog_6deef7357e7b4530_sd_fw");
	assert_string_equal(ksyms_lookup(ks, UINT64_MAX, NULL),
			    "bpf_prog_6deef7357e7b4530_sd_fw");
	assert_string_equal(ksyms_lookup(ks, 0xffffffff81004000ULL, &off), "last_fn");

	assert_int_equal(ksyms_find(ks, "vfs_write", &addr), 0);
	assert_int_equal(addr, 0xffffffff81002000ULL);
	assert_int_equal(ksyms_find(ks, "_stext", &addr), 0);
	assert_int_equal(addr, 0xffffffff81000000ULL);
	assert_int_equal(ksyms_find(ks, "jiffies_data", &addr), 0);
	assert_int_equal(addr, 0xffffffff81200000ULL);
	assert_int_equal(ksyms_find(ks, "fixed_percpu_data", &addr), 0);
	assert_int_equal(addr, 0);
	assert_int_equal(ksyms_find(ks, "ext4_mod_fn", &addr), 0);
	assert_int_equal(addr, 0xffffffffc0100000ULL);
	assert_int_equal(ksyms_data_count(ks), 1);	/* jiffies_data; not the absolute one */
	assert_int_equal(ksyms_find(ks, "vfs", &addr), -ENOENT);
	assert_int_equal(ksyms_find(ks, "ext4", &addr), -ENOENT);
	assert_int_equal(ksyms_find(ks, "[ext4]", &addr), -ENOENT);
	ksyms_free(ks);
}

/* a static function compiled twice (binfmt_elf.c and compat_binfmt_elf.c
 * both define load_elf_binary): ksyms_find_all gives every copy, in
 * address order, whatever the file order; the kernel refuses a kprobe
 * on such a name, so runtime/kprobe.c attaches one at each address */
static void test_ksyms_find_all(void **state)
{
	static const char text[] =
		"ffffffff81000000 T _stext\n"
		"ffffffff814ea5f0 t load_elf_binary\n"
		"ffffffff814e7760 t __pfx_load_elf_binary\n"
		"ffffffff814e7770 t load_elf_binary\n"
		"ffffffff81600000 D load_elf_binary_data\n"
		"ffffffffc0100000 t mod_dup\t[m1]\n"
		"ffffffffc0200000 t mod_dup\t[m2]\n";
	struct ksyms *ks = ksyms_parse(text, sizeof(text) - 1);
	uint64_t a[4] = {0};
	assert_non_null(ks);
	assert_int_equal(ksyms_find_all(ks, "load_elf_binary", a, 4), 2);
	assert_int_equal(a[0], 0xffffffff814e7770ULL);
	assert_int_equal(a[1], 0xffffffff814ea5f0ULL);
	/* more than max: the count, the first max filled */
	a[0] = a[1] = 0;
	assert_int_equal(ksyms_find_all(ks, "mod_dup", a, 1), 2);
	assert_int_equal(a[0], 0xffffffffc0100000ULL);
	assert_int_equal(a[1], 0);
	assert_int_equal(ksyms_find_all(ks, "_stext", a, 4), 1);
	assert_int_equal(ksyms_find_all(ks, "load_elf", a, 4), 0);
	assert_int_equal(ksyms_find_all(ks, "load_elf_binary_data", a, 4), 0);
	ksyms_free(ks);
	(void)state;
}

/* more data symbols than text ones (CONFIG_KALLSYMS_ALL): each found,
 * and ksym()'s lookup names them */
static void test_ksyms_many_data(void **state)
{
	char text[2048] = "ffffffff81000000 T _stext\n";
	for (int i = 0; i < 20; i++)
		snprintf(text + strlen(text), sizeof(text) - strlen(text),
			 "ffffffff8200%02x00 D var%d\n", i, i);
	strcat(text, "ffffffff81001000 T vfs_read\n");
	struct ksyms *ks = ksyms_parse(text, strlen(text));
	uint64_t addr;
	assert_non_null(ks);
	for (int i = 0; i < 20; i++) {
		char name[16];
		snprintf(name, sizeof(name), "var%d", i);
		assert_int_equal(ksyms_find(ks, name, &addr), 0);
		assert_int_equal(addr, 0xffffffff82000000ULL + (uint64_t)i * 0x100);
		assert_string_equal(ksyms_lookup_any(ks, addr + 4, NULL), name);
	}
	assert_string_equal(ksyms_lookup(ks, 0xffffffff82000104ULL, NULL), "vfs_read");
	ksyms_free(ks);
	(void)state;
}

static void test_ksyms_hidden(void **state)
{
	static const char hidden[] =
		"0000000000000000 T _stext\n"
		"0000000000000000 t do_one_initcall\n"
		"0000000000000000 T vfs_read\n";
	struct ksyms *ks;

	errno = 0;
	ks = ksyms_parse(hidden, sizeof(hidden) - 1);
	assert_null(ks);
	assert_int_equal(errno, EPERM);
	errno = 0;
	assert_null(ksyms_parse("", 0));
	assert_int_equal(errno, ENOENT);
	errno = 0;
	assert_null(ksyms_parse("junk\nmore junk\n", 15));
	assert_int_equal(errno, ENOENT);
	ksyms_free(NULL);
}

/* The live /proc/kallsyms, when this process may read its addresses. */
static void test_ksyms_live(void **state)
{
	struct ksyms *ks = ksyms_load();
	uint64_t addr, off;
	const char *name;

	if (!ks) {
		skip();
		return;
	}
	assert_true(ksyms_count(ks) > 1000);
	assert_int_equal(ksyms_find(ks, "schedule", &addr), 0);
	name = ksyms_lookup(ks, addr + 1, &off);
	assert_non_null(name);
	assert_int_equal(off, 1);
	ksyms_free(ks);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_sched_switch),
		cmocka_unit_test(test_parse_ioctl),
		cmocka_unit_test(test_parse_data_loc),
		cmocka_unit_test(test_parse_odd_decls),
		cmocka_unit_test(test_parse_malformed),
		cmocka_unit_test(test_list_entry),
		cmocka_unit_test_setup_teardown(test_list_patterns, setup_fake, teardown_fake),
		cmocka_unit_test_setup_teardown(test_list_verbose, setup_fake, teardown_fake),
		cmocka_unit_test_setup_teardown(test_each_and_read, setup_fake, teardown_fake),
		cmocka_unit_test_setup_teardown(test_each_from_dirs, setup_fake, teardown_fake),
		cmocka_unit_test_setup_teardown(test_each_list_per_root, setup_fake, teardown_fake),
		cmocka_unit_test(test_software_list),
		cmocka_unit_test(test_software_lookup),
		cmocka_unit_test(test_ksyms_lookup),
		cmocka_unit_test(test_ksyms_many_data),
		cmocka_unit_test(test_ksyms_find_all),
		cmocka_unit_test(test_ksyms_hidden),
		cmocka_unit_test(test_ksyms_live),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
