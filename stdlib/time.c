/*
 * time.c - time(fmt): print the wall-clock time from userspace when the
 * event arrives (strftime format, default "%H:%M:%S\n"); strftime(fmt,
 * nsecs): a timestamp value printed with fmt; nsecs(monotonic | boot |
 * tai | sw_tai), the newest bpftrace's clocks.
 */
#include <string.h>
#include <time.h>

#include "codegen/codegen.h"
#include "stdlib/stdlib.h"

/* nsecs(CLOCK): monotonic (nsecs), boot (counts suspend), tai
 * (bpf_ktime_get_tai_ns, Linux 6.1), sw_tai (boot time plus the offset of
 * CLOCK_TAI from CLOCK_BOOTTIME read when the program is compiled, for
 * kernels without the helper) */
static const char *const clocks[] = {"monotonic", "boot", "tai", "sw_tai"};

static void check_nsecs(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	n->type = (struct type){.kind = TY_INT, .size = 8};
	n->note.value = 0;
	if (!a)
		return;
	for (size_t i = 0; a->kind == N_IDENT && i < sizeof(clocks) / sizeof(clocks[0]); i++)
		if (!strcmp(a->ident.name, clocks[i])) {
			n->note.value = i;
			return;
		}
	sema_error(s, a->loc, "nsecs() takes a clock: monotonic, boot, tai or sw_tai");
	n->type.kind = TY_ERROR;
}

static LLVMValueRef lower_nsecs_clock(struct cg_ctx *cg, struct ast_node *n)
{
	switch (n->note.value) {
	case 1:
		return cg_helper_call(cg, BPF_FUNC_ktime_get_boot_ns, NULL, 0);
	case 2:
		return cg_helper_call(cg, BPF_FUNC_ktime_get_tai_ns, NULL, 0);
	case 3: {
		struct timespec tai, boot;
		clock_gettime(CLOCK_TAI, &tai);
		clock_gettime(CLOCK_BOOTTIME, &boot);
		int64_t off = (tai.tv_sec - boot.tv_sec) * 1000000000LL + (tai.tv_nsec - boot.tv_nsec);
		LLVMValueRef b = cg_helper_call(cg, BPF_FUNC_ktime_get_boot_ns, NULL, 0);
		return LLVMBuildAdd(cg_builder(cg), b, cg_const(cg, (uint64_t)off), "sw_tai");
	}
	default:
		return cg_helper_call(cg, BPF_FUNC_ktime_get_ns, NULL, 0);
	}
}

static void check_time(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *f = n->call.args;
	n->type = ty_void;
	if (f && f->kind != N_STR) {
		sema_error(s, f->loc, "time() needs a string literal format");
		return;
	}
	struct sema_event *ev = sema_add_event(s, EV_TIME, n, NULL, NULL);
	ev->fmt = f ? f->s.value : "%H:%M:%S\n";
	n->note.event = ev;
}

static LLVMValueRef lower_time(struct cg_ctx *cg, struct ast_node *n)
{
	cg_event_emit(cg, n->note.event, NULL);
	return NULL;
}

/* strftime(fmt, nsecs): the monotonic timestamp (as `nsecs`) is stored;
 * userspace turns it into wall-clock time with fmt when it prints it
 * (output/valfmt.c; %f is microseconds, as in bpftrace) */
static void check_strftime(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *f = n->call.args, *ns = f->next;
	struct type *t = sema_expr(s, ns);
	if (f->kind != N_STR) {
		sema_error(s, f->loc, "strftime() needs a string literal format");
		n->type.kind = TY_ERROR;
		return;
	}
	if (t->kind != TY_INT && t->kind != TY_ERROR) {
		sema_error(s, ns->loc, "strftime() needs nanoseconds (like nsecs), not %s",
			   type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = (struct type){.kind = TY_TIMESTAMP, .size = 8, .fmt = f->s.value};
}

static LLVMValueRef lower_strftime(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_expr(cg, n->call.args->next);
}

const struct builtin stdlib_time[] = {
	{.name = "nsecs", .kind = BI_FUNC, .min_args = 0, .max_args = 1, .check = check_nsecs,
	 .lower = lower_nsecs_clock,
	 .summary = "nanoseconds of a clock: nsecs(monotonic), nsecs(boot), nsecs(tai), nsecs(sw_tai)"},
	{.name = "strftime", .kind = BI_FUNC, .min_args = 2, .max_args = 2, .check = check_strftime,
	 .lower = lower_strftime, .summary = "a timestamp as text: strftime(\"%H:%M:%S\", nsecs)"},
	{.name = "time", .kind = BI_STMT, .min_args = 0, .max_args = 1, .check = check_time,
	 .lower = lower_time, .summary = "print the current time: time(\"%H:%M:%S\\n\")"},
	{0},
};
