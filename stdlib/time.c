/*
 * time.c - time(fmt): print the wall-clock time from userspace when the
 * event arrives (strftime format, default "%H:%M:%S\n"); strftime(fmt,
 * nsecs): a timestamp value printed with fmt.
 */
#include "codegen/codegen.h"
#include "stdlib/stdlib.h"

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
 * (runtime/valfmt.c; %f is microseconds, as in bpftrace) */
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
	{.name = "strftime", .kind = BI_FUNC, .min_args = 2, .max_args = 2, .check = check_strftime,
	 .lower = lower_strftime, .summary = "a timestamp as text: strftime(\"%H:%M:%S\", nsecs)"},
	{.name = "time", .kind = BI_STMT, .min_args = 0, .max_args = 1, .check = check_time,
	 .lower = lower_time, .summary = "print the current time: time(\"%H:%M:%S\\n\")"},
	{0},
};
