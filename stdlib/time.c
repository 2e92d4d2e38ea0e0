/*
 * time.c - time(fmt): print the wall-clock time from userspace when the
 * event arrives (strftime format, default "%H:%M:%S\n").
 */
#include "../codegen/codegen.h"
#include "stdlib.h"

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
	n->sema_data = ev;
}

static LLVMValueRef lower_time(struct cg_ctx *cg, struct ast_node *n)
{
	cg_event_emit(cg, n->sema_data, NULL);
	return NULL;
}

const struct builtin stdlib_time[] = {
	{.name = "time", .kind = BI_STMT, .min_args = 0, .max_args = 1, .check = check_time,
	 .lower = lower_time, .summary = "print the current time: time(\"%H:%M:%S\\n\")"},
	{0},
};
