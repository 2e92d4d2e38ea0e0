/*
 * container.c - builtins that name where a task runs: cgroup_path(id).
 *
 * The BPF side only ever holds a cgroup id (the inode of a cgroup v2
 * directory); names are looked up in userspace when the value is printed
 * (runtime/render.c through rs_cgcache), so a map keyed by cgroup_path()
 * costs 8 bytes per key and the path is resolved once per distinct id.  The
 * `cgroup` and `container` variables live in process.c with the other
 * facts about the current task.
 */
#include "codegen/codegen.h"
#include "stdlib/stdlib.h"

/* cgroup_path(id): id is `cgroup`, `container` or any integer cgroup id */
static void check_cgroup_path(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	struct type *t = sema_expr(s, a);

	switch (t->kind) {
	case TY_INT: case TY_CGROUP_PATH: case TY_CONTAINER: case TY_ERROR:
		break;
	case TY_NONE: case TY_VOID: case TY_STR: case TY_BUF: case TY_TUPLE:
	case TY_STRUCT: case TY_ARRAY: case TY_PTR: case TY_COUNT: case TY_SUM:
	case TY_AVG: case TY_MIN: case TY_MAX: case TY_STATS: case TY_HIST:
	case TY_LHIST: case TY_TSERIES: case TY_USYM: case TY_KSYM: case TY_USTACK: case TY_KSTACK:
	case TY_TIMESTAMP: case TY_USERNAME: case TY_PROBE: case TY_INET: case TY_DECODED:
		sema_error(s, a->loc, "cgroup_path() needs a cgroup id such as `cgroup`, not %s",
			   type_str(sema_arena(s), t));
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = (struct type){.kind = TY_CGROUP_PATH, .size = 8};
}

/* the id itself: every TY_CGROUP_PATH value is an i64 cgroup id */
static LLVMValueRef lower_cgroup_path(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_expr(cg, n->call.args);
}

const struct builtin stdlib_container[] = {
	{.name = "cgroup_path", .kind = BI_FUNC, .min_args = 1, .max_args = 1,
	 .check = check_cgroup_path, .lower = lower_cgroup_path,
	 .summary = "path of a cgroup v2 id under the v2 root: cgroup_path(cgroup)"},
	{0},
};
