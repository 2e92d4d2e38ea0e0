/*
 * control.c - signal(), signal_thread() and len().
 *
 * signal("SIGUSR1" | "USR1" | N) sends a signal to the current process
 * with bpf_send_signal, signal_thread() to the current thread alone with
 * bpf_send_signal_thread (5.5); they need --unsafe and a probe that runs in some task's
 * context (not BEGIN/END, whose task is sonde, nor interval, whose task is
 * whoever happens to be on the CPU).
 *
 * len(@m) counts the map's entries in BPF with bpf_for_each_map_elem and a
 * callback that only continues: the helper returns how many elements it
 * visited.  That costs a walk of the map per call (at most the map's 4096
 * entries), but it is exact under concurrent inserts and deletes from BPF
 * and from userspace (clear(), delete()), which a counter kept beside the
 * map would not be without a lookup before every update.  hist and lhist
 * maps store one slot per (key, bucket), so their entries cannot be
 * counted this way: len() refuses them.
 */
#include <signal.h>
#include <string.h>
#include <stdint.h>
#include <stdlib.h>
#include <strings.h>

#include "stdlib/stdlib_int.h"

static int signal_by_name(const char *s)
{
	if (!strncasecmp(s, "SIG", 3))
		s += 3;
	for (int i = 1; i < 65; i++) {
		const char *abbrev = sigabbrev_np(i);
		if (abbrev && !strcasecmp(abbrev, s))
			return i;
	}
	if (!strncasecmp(s, "RTMIN", 5) || !strncasecmp(s, "RTMAX", 5)) {
		char *end;
		long off = s[5] ? strtol(s + 5, &end, 10) : 0;
		if (!s[5] || !*end) {
			int sig = (s[3] | 0x20) == 'i' ? SIGRTMIN + (int)off : SIGRTMAX + (int)off;
			if (sig >= SIGRTMIN && sig <= SIGRTMAX)
				return sig;
		}
	}
	return -1;
}

static void check_signal(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	n->type = ty_void;
	if (!sema_options(s)->unsafe)
		sema_error(s, n->loc, "%s() acts on processes: allow it with --unsafe", n->call.name);
	if (!stdlib_probe_types(s, n, n->call.name[6] ? "signal_thread()" : "signal()", PC_TASK)) {
		n->type = ty_void;
		return;
	}
	if (a->kind == N_STR) {
		int sig = signal_by_name(a->s.value);
		if (sig < 0)
			sema_error(s, a->loc, "%s(): '%s' is not a signal name", n->call.name, a->s.value);
		n->note.value = (uint64_t)sig;
		return;
	}
	struct type *t = sema_expr(s, a);
	int64_t v;
	if (t->kind != TY_INT && t->kind != TY_ERROR) {
		sema_error(s, a->loc, "%s() needs a signal name or number, not %s", n->call.name,
			   type_str(sema_arena(s), t));
		return;
	}
	if ((a->kind == N_INT || a->kind == N_UNARY) && sema_const_int(s, a, &v) && (v < 1 || v > 64))
		sema_error(s, a->loc, "%s(): %lld is not a signal number (1 to 64)", n->call.name,
			   (long long)v);
}

static LLVMValueRef lower_signal(struct cg_ctx *cg, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	LLVMValueRef sig = a->kind == N_STR ? cg_const(cg, n->note.value)
					    : cg_expr(cg, a);
	LLVMValueRef args[] = {LLVMBuildTrunc(cg_builder(cg), sig, cg_i32(cg), "sig")};
	cg_helper_call(cg, n->call.name[6] ? BPF_FUNC_send_signal_thread : BPF_FUNC_send_signal, args, 1);
	return NULL;
}

/* len(ustack), len(kstack): the frames a stack has here (newer bpftrace) */
static bool stack_arg(const struct ast_node *a)
{
	const char *name = a->kind == N_IDENT ? a->ident.name : a->kind == N_CALL ? a->call.name : "";
	return !strcmp(name, "ustack") || !strcmp(name, "kstack");
}

static void check_len(struct sema_ctx *s, struct ast_node *n)
{
	struct ast_node *a = n->call.args;
	if (stack_arg(a)) {
		struct type *t = sema_expr(s, a);
		n->type = t->kind == TY_ERROR ? *t : ty_int64;
		return;
	}
	if (a->kind != N_MAP || a->map.nkeys) {
		sema_error(s, a->loc, "len() needs a map name without keys, like @m");
		n->type.kind = TY_ERROR;
		return;
	}
	struct sema_map *m = sema_map_of(s, a);
	if (m->kind == MK_HIST || m->kind == MK_LHIST || m->kind == MK_TSERIES) {
		sema_error(s, a->loc, "len() of %s map '%s' is not supported (it stores a slot per %s)",
			   m->kind == MK_HIST ? "hist" : m->kind == MK_LHIST ? "lhist" : "tseries", m->name,
			   m->kind == MK_TSERIES ? "interval" : "bucket");
		n->type.kind = TY_ERROR;
		return;
	}
	n->type = ty_int64;
}

static LLVMValueRef lower_len(struct cg_ctx *cg, struct ast_node *n)
{
	const struct ast_node *a = n->call.args;
	if (stack_arg(a)) {
		/* the frames, read into per-CPU scratch: bytes / 8 */
		bool user = a->type.kind == TY_USTACK;
		uint32_t depth = a->type.count ? a->type.count : 127;
		LLVMBuilderRef b = cg_builder(cg);
		LLVMValueRef buf = cg_scratch(cg, user ? "len_ustack" : "len_kstack", depth * 8);
		LLVMValueRef got = stdlib_read_stack(cg, user, buf, depth, false, false);
		LLVMValueRef ok = LLVMBuildICmp(b, LLVMIntSGT, got, cg_const(cg, 0), "");
		return LLVMBuildSelect(b, ok, LLVMBuildUDiv(b, got, cg_const(cg, 8), ""), cg_const(cg, 0),
				       "frames");
	}
	return cg_map_count(cg, cg_map_of(cg, n->call.args));
}

const struct builtin stdlib_control[] = {
	{.name = "signal", .kind = BI_STMT, .min_args = 1, .max_args = 1, .check = check_signal,
	 .lower = lower_signal, .summary = "send a signal to the current task (--unsafe)"},
	{.name = "signal_thread", .kind = BI_STMT, .min_args = 1, .max_args = 1, .check = check_signal,
	 .lower = lower_signal, .summary = "send a signal to the current thread alone (--unsafe)"},
	{.name = "len", .kind = BI_FUNC, .min_args = 1, .max_args = 1, .check = check_len,
	 .lower = lower_len,
	 .summary = "number of entries in a map: len(@m); frames of a stack: len(ustack)"},
	{0},
};
