/*
 * test_kprobes.c - attach points on kernel functions (sema/kprobes.c,
 * host/kfuncs.c, -l 'kprobe:...'): wildcards, modules, offsets, the
 * functions that must not be probed, missing functions, and `func`; and
 * fentry/fexit against the host's own BTF.
 *
 * A fake tracefs tree (tfs_set_root) with a kprobe_events file, an
 * available_filter_functions of a few functions (out of order, one in a
 * module, one listed twice) and a fake kprobe blacklist (kfn_set_paths)
 * stand in for the kernel, so these run on a host without kprobes.
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
#include <bpf/btf.h>
#include <errno.h>

#include "common/arena.h"
#include "common/diag.h"
#include "common/settings.h"
#include "parser/parser.h"
#include "host/host.h"
#include "sema/sema.h"
#include "codegen/codegen.h"
#include "harness.h"
#include "stdlib/stdlib.h"

static char tracefs[] = "/tmp/sonde-test-kprobes-kprobe-XXXXXX";

static void write_file(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static int setup(void **state)
{
	assert_non_null(mkdtemp(tracefs));
	char path[512];
	snprintf(path, sizeof(path), "%s/events", tracefs);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events/syscalls", tracefs);
	mkdir(path, 0755);
	snprintf(path, sizeof(path), "%s/events/syscalls/sys_exit_nanosleep", tracefs);
	mkdir(path, 0755);
	write_file(tracefs, "available_events", "syscalls:sys_exit_nanosleep\n");
	write_file(tracefs, "kprobe_events", "");
	write_file(tracefs, "available_filter_functions",
		   "vfs_write\nvfs_readv\nvfs_read\n_raw_spin_unlock\n_raw_spin_lock_irqsave\n"
		   "_raw_spin_lock\n_raw_spin_unlock_irqrestore\n_raw_spin_trylock\n"
		   "queued_spin_lock_slowpath\nkprobe_ftrace_handler\nirq_handler\ndo_nanosleep\n"
		   "vfs_readlink\nnft_do_chain [nf_tables]\nvfs_read\n");
	write_file(tracefs, "blacklist",
		   "0xffffffff81000000-0xffffffff81000040\tkprobe_ftrace_handler\n"
		   "0xffffffff81000100-0xffffffff81000140\tnmi_handle\n");
	char funcs[600], bl[600];
	snprintf(funcs, sizeof(funcs), "%s/available_filter_functions", tracefs);
	snprintf(bl, sizeof(bl), "%s/blacklist", tracefs);
	tfs_set_root(tracefs);
	kfn_set_paths(funcs, bl);
	(void)state;
	return 0;
}

static int teardown(void **state)
{
	harness_rm_tracefs(tracefs);
	kfn_set_paths(NULL, NULL);
	(void)state;
	return 0;
}

/* the attach point names of the first probe, "a b c" */
static const char *names(struct checked *c, char *buf, size_t len)
{
	buf[0] = '\0';
	assert_non_null(c->r);
	const struct sema_probe *p = &c->r->probes[c->r->nprobes > 1 ? 1 : 0];
	for (int i = 0; i < p->nattach; i++)
		snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? " " : "", p->attach[i].name);
	return buf;
}

/* bpftrace's banned list: refused when named, skipped under a wildcard,
 * for kretprobes; kprobes on the same functions stay allowed (bpftrace) */
static void test_banned(void **state)
{
	struct checked c;
	char buf[512];
	checked_run(&c, "kretprobe:_raw_spin_lock { @ = count(); }", NULL);
	assert_null(c.r);
	assert_string_equal(checked_first_line(&c, buf, sizeof(buf)),
			    "t.bt:1:1: error: kretprobe:_raw_spin_lock can't be used as it might "
			    "lock up your system.");
	checked_free(&c);

	checked_run(&c, "kretprobe:queued_spin_lock_slowpath { }", NULL);
	assert_null(c.r);
	assert_non_null(strstr(c.msgs, "might lock up your system"));
	checked_free(&c);

	checked_run(&c, "kretprobe:_raw_spin_* { @[func] = count(); }", NULL);
	assert_string_equal(names(&c, buf, sizeof(buf)),
			    "kretprobe:_raw_spin_trylock kretprobe:_raw_spin_unlock");
	assert_string_equal(checked_first_line(&c, buf, sizeof(buf)),
			    "t.bt:1:1: warning: kretprobe:_raw_spin_*: 3 matching functions skipped: "
			    "kretprobe:_raw_spin_lock can't be used as it might lock up your system; "
			    "kretprobe:_raw_spin_lock_irqsave can't be used as it might lock up your "
			    "system; kretprobe:_raw_spin_unlock_irqrestore can't be used as it might lock "
			    "up your system");
	checked_free(&c);

	checked_run(&c, "kprobe:_raw_spin_lock { @ = count(); }", NULL);
	assert_non_null(c.r);
	assert_string_equal(c.msgs, "");
	checked_free(&c);
	(void)state;
}

/* the kernel's kprobe blacklist: refused when named, skipped under a
 * wildcard (kprobes and kretprobes) */
static void test_blacklist(void **state)
{
	struct checked c;
	char buf[512];
	checked_run(&c, "kprobe:kprobe_ftrace_handler { }", NULL);
	assert_null(c.r);
	assert_non_null(strstr(c.msgs, "error: kprobe:kprobe_ftrace_handler cannot be probed: the "
				       "kernel refuses kprobes on it"));
	checked_free(&c);
	checked_run(&c, "kprobe:*_handler, kprobe:vfs_read { }", NULL);
	assert_string_equal(names(&c, buf, sizeof(buf)), "kprobe:irq_handler kprobe:vfs_read");
	assert_non_null(strstr(c.msgs, "warning: kprobe:*_handler: 1 matching function skipped"));
	checked_free(&c);
	(void)state;
}

/* wildcards: sorted by name, each function once, modules named */
static void test_wildcards(void **state)
{
	struct checked c;
	char buf[512];
	checked_run(&c, "kprobe:vfs_read* { @[func] = count(); }", NULL);
	assert_string_equal(names(&c, buf, sizeof(buf)),
			    "kprobe:vfs_read kprobe:vfs_readlink kprobe:vfs_readv");
	/* one program for all three: func comes from each link's cookie */
	assert_false(c.r->probes[0].uses_args);
	checked_free(&c);

	checked_run(&c, "kprobe:nf_tables:nft_* { }", NULL);
	assert_string_equal(names(&c, buf, sizeof(buf)), "kprobe:nf_tables:nft_do_chain");
	assert_string_equal(c.r->probes[0].attach[0].target, "nf_tables");
	checked_free(&c);

	checked_run(&c, "kprobe:nosuch_* { }", NULL);
	assert_null(c.r);
	assert_non_null(strstr(c.msgs, "error: no kernel function matches 'nosuch_*' (sonde -l "
				       "'kprobe:*' lists them)"));
	checked_free(&c);
	(void)state;
}

/* kprobe:MODULE:FUNCTION, kprobe:FUNCTION+OFFSET, and a tracepoint's
 * name written as a kprobe */
static void test_forms(void **state)
{
	struct checked c;
	char buf[512];
	checked_run(&c, "kprobe:vfs_read+16 { }", NULL);
	assert_string_equal(names(&c, buf, sizeof(buf)), "kprobe:vfs_read+16");
	assert_int_equal(c.r->probes[0].attach[0].offset, 16);
	assert_string_equal(c.r->probes[0].attach[0].func, "vfs_read");
	checked_free(&c);

	checked_run(&c, "kprobe:vfs_read+0x10 { }", NULL);
	assert_int_equal(c.r->probes[0].attach[0].offset, 16);
	checked_free(&c);

	checked_run(&c, "kretprobe:vfs_read+4 { }", NULL);
	assert_null(c.r);
	assert_non_null(strstr(c.msgs, "kretprobes cannot be attached at a function offset"));
	checked_free(&c);

	checked_run(&c, "kprobe:nf_tables:nft_do_chain { }", NULL);
	assert_string_equal(names(&c, buf, sizeof(buf)), "kprobe:nf_tables:nft_do_chain");
	checked_free(&c);

	/* bpftrace's tests/runtime/probe: the kernel's own as a module, a
	 * module glob, and a glob that matches nothing beside a function */
	checked_run(&c, "kprobe:vmlinux:vfs_read { }", NULL);
	assert_string_equal(names(&c, buf, sizeof(buf)), "kprobe:vfs_read");
	checked_free(&c);
	checked_run(&c, "kretprobe:vmlinu*:vfs_read { }", NULL);
	assert_string_equal(names(&c, buf, sizeof(buf)), "kretprobe:vfs_read");
	checked_free(&c);
	checked_run(&c, "kprobe:vfs_read,kprobe:nonsense* { }", NULL);
	assert_string_equal(names(&c, buf, sizeof(buf)), "kprobe:vfs_read");
	assert_non_null(strstr(c.msgs, "warning: kprobe:nonsense*: no kernel function matches: not "
				       "attached"));
	checked_free(&c);
	checked_run(&c, "fentry:vmlinu*:vfs_read { }", NULL);
	assert_string_equal(names(&c, buf, sizeof(buf)), "fentry:vfs_read");
	checked_free(&c);

	checked_run(&c, "kprobe:syscalls:sys_exit_nanosleep { }", NULL);
	assert_null(c.r);
	assert_string_equal(checked_first_line(&c, buf, sizeof(buf)),
			    "t.bt:1:1: error: kprobe probe type requires 1 argument: 'syscalls' is "
			    "not a loaded kernel module (kprobe:MODULE:FUNCTION names a module's "
			    "function); for the tracepoint, use tracepoint:syscalls:sys_exit_nanosleep");
	checked_free(&c);
	(void)state;
}

/* a missing function: a warning among several (the rest attach), and
 * bpftrace's warning alone (the kernel may still attach a kprobe) */
static void test_missing(void **state)
{
	struct checked c;
	char buf[512];
	checked_run(&c, "kprobe:vfs_read, kprobe:vfs_nosuch { @ = count(); }", NULL);
	assert_string_equal(names(&c, buf, sizeof(buf)), "kprobe:vfs_read");
	assert_string_equal(checked_first_line(&c, buf, sizeof(buf)),
			    "t.bt:1:18: warning: kprobe:vfs_nosuch: no kernel function 'vfs_nosuch': "
			    "not attached");
	checked_free(&c);

	checked_run(&c, "kprobe:vfs_nosuch { }", NULL);
	assert_non_null(c.r);
	assert_non_null(strstr(c.msgs, "warning: vfs_nosuch is not traceable (either non-existing, "
				       "inlined, or marked as \"notrace\"); attaching to it will likely fail"));
	checked_free(&c);

	checked_run(&c, "kprobe:vfs_nosuch, kprobe:vfs_nosuch2 { }", NULL);
	assert_null(c.r);
	assert_non_null(strstr(c.msgs, "none of this probe's kernel functions exist"));
	checked_free(&c);

	/* missing_probes given (config block or environment): such a probe
	 * is left out and the rest stays (biolatency-kp.bt on a kernel that
	 * inlines blk_account_io_*) */
	char msg[128];
	assert_int_equal(settings_config("missing_probes", "ignore", msg, sizeof(msg)), 0);
	checked_run(&c, "BEGIN { printf(\"hi\\n\"); }\n"
			"kprobe:vfs_nosuch, kprobe:vfs_nosuch2 { @s[arg0] = nsecs; }\n"
			"END { clear(@s); }", NULL);
	assert_non_null(c.r);
	assert_string_equal(c.msgs, "");
	assert_int_equal(c.r->nprobes, 3);
	/* checked as the kprobe it is (arg0 is one), its map typed for END */
	assert_true(c.r->probes[1].left_out);
	assert_int_equal(c.r->probes[1].attach[0].type, PT_KPROBE);
	assert_int_equal(checked_map(c.r, "@s")->kind, MK_VALUE);
	struct cg_object obj;
	char *ir = NULL;
	assert_int_equal(checked_codegen(&c, &ir, &obj), 0);
	assert_int_equal(obj.nprogs, 2);	/* BEGIN and END, not the kprobe */
	free(ir);
	free(obj.elf);
	checked_free(&c);
	assert_int_equal(settings_load(stderr), 0);	/* the first setting wins */
	assert_int_equal(settings_config("missing_probes", "warn", msg, sizeof(msg)), 0);
	checked_run(&c, "kprobe:vfs_nosuch, kprobe:vfs_nosuch2 { } END { }", NULL);
	assert_non_null(c.r);
	assert_non_null(strstr(c.msgs, "t.bt:1:1: warning: none of this probe's kernel functions "
				       "exist: the probe is left out (missing_probes)"));
	checked_free(&c);
	/* a probe's only function too (bpftrace's
	 * regression.async_id_invalid_probe_expansion: the rest runs) */
	checked_run(&c, "kprobe:vfs_nosuch { } END { }", NULL);
	assert_non_null(c.r);
	assert_true(c.r->probes[0].left_out);
	assert_non_null(strstr(c.msgs, "t.bt:1:1: warning: kprobe:vfs_nosuch: no kernel function "
				       "'vfs_nosuch': not attached"));
	checked_free(&c);
	assert_int_equal(settings_load(stderr), 0);	/* back to the defaults */
	(void)state;
}

/* func, probe, arg0 and retval in kernel probes; func reads the cookie
 * only where one program serves several functions */
static void test_func(void **state)
{
	struct checked c;
	checked_run(&c, "kprobe:vfs_read { @[func, probe] = count(); } "
			"kretprobe:vfs_read* { @r[func] = hist(retval); }", NULL);
	assert_non_null(c.r);
	struct cg_object obj;
	char *ir = NULL;
	assert_int_equal(checked_codegen(&c, &ir, &obj), 0);
	assert_int_equal(obj.nprogs, 2);
	assert_false(obj.progs[0].reads_cookie);	/* a constant */
	assert_true(obj.progs[1].reads_cookie);		/* three functions, one program */
	assert_int_equal(obj.progs[1].nattach, 3);
	free(ir);
	free(obj.elf);
	checked_free(&c);
	/* two of one builtin compare (the newest bpftrace's macro tests);
	 * func against probe is no comparison */
	checked_run(&c, "kprobe:vfs_read { if (__builtin_func == func() && __builtin_probe != probe) "
			"{ print(func); } }", NULL);
	assert_non_null(c.r);
	assert_string_equal(c.msgs, "");
	checked_free(&c);
	checked_run(&c, "kprobe:vfs_read { if (func == probe) { } }", NULL);
	assert_null(c.r);
	assert_non_null(strstr(c.msgs, "operator '==' needs integers, not probe and probe"));
	checked_free(&c);

	checked_run(&c, "rawtracepoint:sched_switch { @[func] = count(); }", NULL);
	assert_null(c.r);
	assert_non_null(strstr(c.msgs, "func is only available in kprobe, kretprobe, uprobe"));
	checked_free(&c);
	(void)state;
}

/* a helper that takes a BTF pointer in a raw tracepoint (socket_cookie):
 * the probe is loaded as tp_btf, one program per attach point; other raw
 * tracepoints stay raw_tp; an interval may not call it */
static void test_rawtp_btf_ctx(void **state)
{
	struct checked c;
	checked_run(&c, "rawtracepoint:sched_switch,rawtracepoint:sched_wakeup "
			"{ @ = socket_cookie(0); } rawtracepoint:sched_waking { @n = count(); }", NULL);
	assert_non_null(c.r);
	assert_true(c.r->probes[0].btf_ctx);
	assert_true(c.r->probes[0].uses_args);
	assert_false(c.r->probes[1].btf_ctx);
	struct cg_object obj;
	char *ir = NULL;
	assert_int_equal(checked_codegen(&c, &ir, &obj), 0);
	assert_int_equal(obj.nprogs, 3);
	assert_non_null(strstr(ir, "section \"tp_btf/sched_switch\""));
	assert_non_null(strstr(ir, "section \"tp_btf/sched_wakeup\""));
	assert_non_null(strstr(ir, "section \"raw_tp/sched_waking\""));
	free(ir);
	free(obj.elf);
	checked_free(&c);

	checked_run(&c, "interval:s:1 { @ = socket_cookie(0); }", NULL);
	assert_null(c.r);
	if (!strstr(c.msgs, "allows only in fentry/fexit probes and raw tracepoints with BTF, not in "
			    "interval probes"))
		fail_msg("%s", c.msgs);
	checked_free(&c);
	(void)state;
}

/* skboutput(): a raw tracepoint that calls it is tp_btf; each call is an
 * EV_SKBOUTPUT event holding its path and offset (two calls may share a
 * path); bpf_skb_output (111) writes to the perf event array skb_out */
static void test_skboutput(void **state)
{
	struct checked c;
	checked_run(&c, "rawtracepoint:net_dev_queue { $a = skboutput(\"a.pcap\", args.skb, args.skb->len, 14); "
			"$b = skboutput(\"a.pcap\", args.skb, 34, 0); }", NULL);
	assert_non_null(c.r);
	assert_true(c.r->probes[0].btf_ctx);
	assert_int_equal(c.r->nevents, 2);
	for (int i = 0; i < 2; i++) {
		assert_int_equal(c.r->events[i]->kind, EV_SKBOUTPUT);
		assert_string_equal(c.r->events[i]->fmt, "a.pcap");
		assert_int_equal(c.r->events[i]->offset, i ? 0 : 14);
	}
	struct cg_object obj;
	char *ir = NULL;
	assert_int_equal(checked_codegen(&c, &ir, &obj), 0);
	assert_non_null(strstr(ir, "section \"tp_btf/net_dev_queue\""));
	assert_non_null(strstr(ir, "@skb_out = "));
	assert_non_null(strstr(ir, "inttoptr (i64 111 to ptr)"));
	free(ir);
	free(obj.elf);
	checked_free(&c);

	checked_run(&c, "interval:s:1 { $r = skboutput(\"a.pcap\", 0, 1, 0); }", NULL);
	assert_null(c.r);
	if (!strstr(c.msgs, "skboutput() needs bpf_skb_output, which the kernel allows only in fentry/fexit "
			    "probes and raw tracepoints with BTF, not in interval probes"))
		fail_msg("%s", c.msgs);
	checked_free(&c);
	(void)state;
}

/* -l 'kprobe:...': sorted by name, each name once; a module's with it */
static void test_list(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(host_list_kprobes(f, "kprobe", "kprobe:vfs_*", false, 0), 0);
	assert_int_equal(host_list_kprobes(f, "kprobe", "kprobe:nf_tables:*", false, 0), 0);
	fclose(f);
	assert_string_equal(buf, "kprobe:vfs_read\nkprobe:vfs_readlink\nkprobe:vfs_readv\n"
				 "kprobe:vfs_write\nkprobe:nf_tables:nft_do_chain\n");
	free(buf);
	(void)state;
}

/* fentry/fexit from the host's BTF: arguments by name and type, retval,
 * print(args), the errors; sema and codegen only (no load) */
static void test_fentry(void **state)
{
	struct checked c;
	char buf[512];
	checked_run(&c, "kfunc:vfs_read { @[func, args.count, args->file->f_flags] = count(); } "
			"kretfunc:vfs_read { @r = hist(retval); print(args); }", NULL);
	assert_non_null(c.r);
	const struct sema_attach *at = &c.r->probes[1].attach[0];
	assert_int_equal(at->type, PT_FEXIT);
	assert_string_equal(at->name, "fexit:vfs_read");
	assert_int_equal(at->kf->nargs, 4);
	assert_string_equal(at->kf->names[2], "count");
	assert_int_equal(at->kf->offsets[2], 16);
	assert_int_equal(at->kf->ret.kind, TY_INT);
	assert_true(at->kf->ret.is_signed);	/* ssize_t */
	struct cg_object obj;
	char *ir = NULL;
	assert_int_equal(checked_codegen(&c, &ir, &obj), 0);
	assert_non_null(strstr(ir, "section \"fentry/vfs_read\""));
	assert_non_null(strstr(ir, "section \"fexit/vfs_read\""));
	free(ir);
	free(obj.elf);
	checked_free(&c);

	/* a wildcard: a program per function (each is loaded for its BTF id) */
	checked_run(&c, "fentry:vfs_read* { @[probe] = count(); }", NULL);
	assert_string_equal(names(&c, buf, sizeof(buf)),
			    "fentry:vfs_read fentry:vfs_readlink fentry:vfs_readv");
	assert_true(c.r->probes[0].uses_args);
	checked_free(&c);

	checked_run(&c, "fentry:vfs_read { @ = args.coutn; }", NULL);
	assert_null(c.r);
	assert_non_null(strstr(c.msgs, "error: fentry:vfs_read has no argument 'coutn'; did you mean "
				       "'count'?"));
	checked_free(&c);

	checked_run(&c, "fexit:_raw_spin_unlock_irqrestore { }", NULL);
	assert_null(c.r);
	assert_non_null(strstr(c.msgs, "fexit:_raw_spin_unlock_irqrestore can't be used as it might "
				       "lock up your system.\n"));
	checked_free(&c);

	checked_run(&c, "fentry:vfs_read { @ = retval; }", NULL);
	assert_null(c.r);
	assert_non_null(strstr(c.msgs, "retval is only available in uretprobe, kretprobe and fexit"));
	checked_free(&c);

	checked_run(&c, "fentry:no_such_function_sonde { }", NULL);
	assert_null(c.r);
	assert_non_null(strstr(c.msgs, "no kernel function 'no_such_function_sonde' in BTF"));
	checked_free(&c);

	/* -lv: the signature as bpftrace prints it */
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);
	assert_int_equal(host_list_fentry(f, "fentry", "fentry:vfs_read", true, 0), 0);
	fclose(f);
	assert_string_equal(text, "fentry:vmlinux:vfs_read\n    struct file * file\n    char * buf\n"
				  "    size_t count\n    loff_t * pos\n    ssize_t retval\n");
	free(text);
	(void)state;
}

/* a function's BTF id from the sorted index: what libbpf's linear search
 * answers, for a sample of the host's functions, and -ENOENT for none */
static void test_btf_func_id(void **state)
{
	const struct btf *b = host_kernel_btf();
	if (!b)
		skip();
	int n = 0, seen = 0;
	for (uint32_t id = 1; id < btf__type_cnt(b); id++) {
		const struct btf_type *t = btf__type_by_id(b, id);
		if (!btf_is_func(t) || seen++ % 997)
			continue;
		const char *name = btf__name_by_offset(b, t->name_off);
		assert_int_equal(host_btf_func_id(b, name), btf__find_by_name_kind(b, name, BTF_KIND_FUNC));
		n++;
	}
	assert_true(n > 10);
	assert_int_equal(host_btf_func_id(b, "vfs_read"), btf__find_by_name_kind(b, "vfs_read", BTF_KIND_FUNC));
	assert_int_equal(host_btf_func_id(b, "no_such_function_sonde"), -ENOENT);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_banned),
		cmocka_unit_test(test_blacklist),
		cmocka_unit_test(test_wildcards),
		cmocka_unit_test(test_forms),
		cmocka_unit_test(test_missing),
		cmocka_unit_test(test_func),
		cmocka_unit_test(test_rawtp_btf_ctx),
		cmocka_unit_test(test_skboutput),
		cmocka_unit_test(test_list),
		cmocka_unit_test(test_fentry),
		cmocka_unit_test(test_btf_func_id),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
