/*
 * stacks.c - ustack and kstack.
 *
 *   ustack  ustack()  ustack(N)  ustack(MODE)  ustack(MODE, N)   (and kstack)
 *
 * MODE is bpftrace (default: "sym+off" lines), perf ("\taddr sym+off
 * (file)") or raw (hex addresses); N keeps at most N frames (1 to 127,
 * default 127, the kernel's perf_event_max_stack).  The BPF side calls
 * bpf_get_stackid() into a STACK_TRACE map of depth N (CG_STACK_MAP_FMT;
 * one map per depth, so the kernel hashes only the frames kept and
 * ustack(3) aggregates by the top three frames), and stores the id as an
 * 8-byte integer: a user stack carries the pid above it, since its
 * addresses mean something only in that process.  runtime/symbols.c reads
 * the frames back and symbolizes them when the value is printed.
 *
 * A hash collision in the stack map loses the newer stack (no
 * BPF_F_REUSE_STACKID: a reused id would make older map keys print the
 * wrong stack); userspace warns once.
 */
#include <string.h>

#include "common/settings.h"
#include "stdlib/stdlib_int.h"

#define STACK_MAX 127
#define STACK_MAP_ENTRIES 4096

static const char *const modes[] = {"bpftrace", "perf", "raw"};

static void check_stack(struct sema_ctx *s, struct ast_node *n)
{
	bool user = (n->kind == N_CALL ? n->call.name : n->ident.name)[0] == 'u';
	const char *what = user ? "ustack" : "kstack";
	/* without a MODE: BPFTRACE_STACK_MODE */
	struct type t = {.kind = user ? TY_USTACK : TY_KSTACK, .size = 8, .count = STACK_MAX,
			 .stack_mode = (uint8_t)settings_int(SET_STACK_MODE)};
	struct ast_node *a = n->kind == N_CALL ? n->call.args : NULL;
	if (a && a->kind == N_IDENT) {
		bool found = false;
		for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
			if (!strcmp(a->ident.name, modes[i])) {
				t.stack_mode = (uint8_t)i;
				found = true;
			}
		if (!found) {
			sema_error(s, a->loc, "%s(): unknown stack mode '%s' (use bpftrace, perf or raw)",
				   what, a->ident.name);
			n->type.kind = TY_ERROR;
			return;
		}
		a = a->next;
	} else if (a && a->next) {
		sema_error(s, a->loc, "%s(MODE, N): MODE is bpftrace, perf or raw", what);
		n->type.kind = TY_ERROR;
		return;
	}
	if (a) {
		int64_t depth;
		sema_expr(s, a);
		if (!sema_const_int(s, a, &depth)) {
			n->type.kind = TY_ERROR;
			return;
		}
		if (depth < 1 || depth > STACK_MAX) {
			sema_error(s, a->loc, "%s(): the number of frames must be 1 to %d, not %lld", what,
				   STACK_MAX, (long long)depth);
			n->type.kind = TY_ERROR;
			return;
		}
		t.count = (uint32_t)depth;
	}
	n->type = t;
}

static LLVMValueRef lower_stack(struct cg_ctx *cg, struct ast_node *n)
{
	LLVMBuilderRef b = cg_builder(cg);
	bool user = n->type.kind == TY_USTACK;
	uint32_t depth = n->type.count ? n->type.count : STACK_MAX;
	char name[32];
	snprintf(name, sizeof(name), CG_STACK_MAP_FMT, depth);
	LLVMValueRef map = cg_aux_map(cg, name, BPF_MAP_TYPE_STACK_TRACE, STACK_MAP_ENTRIES, 4,
				      depth * 8);
	LLVMValueRef args[] = {cg_ctx_arg(cg), map, cg_const(cg, user ? BPF_F_USER_STACK : 0)};
	LLVMValueRef id = cg_helper_call(cg, BPF_FUNC_get_stackid, args, 3);
	LLVMValueRef v = LLVMBuildAnd(b, id, cg_const(cg, 0xffffffff), "stackid");
	if (!user)
		return v;
	LLVMValueRef tg = cg_helper_call(cg, BPF_FUNC_get_current_pid_tgid, NULL, 0);
	LLVMValueRef pid = LLVMBuildLShr(b, tg, cg_const(cg, 32), "pid");
	stdlib_note_pid(cg, pid);
	return LLVMBuildOr(b, v, LLVMBuildShl(b, pid, cg_const(cg, 32), ""), "ustack");
}

void stdlib_note_pid(struct cg_ctx *cg, LLVMValueRef pid)
{
	LLVMValueRef map = cg_aux_map(cg, "pids_seen", BPF_MAP_TYPE_LRU_HASH, 4096, 4, 8);
	/* shared slots: a program may meet many ustack/usym, each on the stack */
	LLVMValueRef key = cg_alloca_shared(cg, 8, "sonde.pidkey");
	cg_store_i64(cg, pid, key);
	LLVMValueRef val = cg_alloca_shared(cg, 8, "sonde.pidval");
	cg_store_i64(cg, cg_const(cg, 0), val);
	LLVMValueRef args[] = {map, key, val, cg_const(cg, BPF_NOEXIST)};
	LLVMValueRef rc = cg_helper_call(cg, BPF_FUNC_map_update_elem, args, 4);
	LLVMValueRef fresh = LLVMBuildICmp(cg_builder(cg), LLVMIntEQ, rc, cg_const(cg, 0), "");
	struct cg_if f = cg_begin_if(cg, fresh, "newpid");
	LLVMValueRef ev = cg_alloca_shared(cg, 16, "sonde.pidevent");
	cg_store_i64(cg, cg_const(cg, EV_PID_SEEN), ev);
	cg_store_i64(cg, pid, cg_gep(cg, ev, 8));
	cg_event_output(cg, ev, cg_const(cg, 16));
	cg_end_if(cg, &f);
}

#define STACK_VAR(nm, doc) \
	{.name = nm, .kind = BI_VAR, .check = check_stack, .lower = lower_stack, .summary = doc}
#define STACK_FN(nm, doc) \
	{.name = nm, .kind = BI_FUNC, .min_args = 0, .max_args = 2, .check = check_stack, \
	 .lower = lower_stack, .summary = doc}

const struct builtin stdlib_stacks[] = {
	STACK_VAR("ustack", "user stack of the current task"),
	STACK_VAR("kstack", "kernel stack of the current task"),
	STACK_FN("ustack", "user stack: ustack([bpftrace|perf|raw] [, frames])"),
	STACK_FN("kstack", "kernel stack: kstack([bpftrace|perf|raw] [, frames])"),
	{0},
};
