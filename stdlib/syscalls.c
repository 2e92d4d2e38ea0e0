/*
 * syscalls.c - syscall_name(nr): a syscall number printed as its name.
 *
 * raw_syscalls:sys_enter gives only the number (args->id).  BPF keeps the
 * number; the name is looked up when the value prints, in a table the
 * build generates from this architecture's kernel headers (<asm/unistd.h>,
 * see the Makefile), so `@[syscall_name(args->id)] = count()` prints
 * `@[read]: 42`.  A number newer than those headers prints as
 * "syscall_N".  32-bit (compat) tasks number their syscalls differently;
 * their numbers are named as if they were 64-bit ones.
 *
 * strerror(errno) is the same idea for error numbers: BPF keeps the
 * integer (a cheap map key), userspace prints strerror()'s text, as
 * bpftrace does ("No such file or directory"), and signal_name(sig) for
 * signal numbers (strsignal's "Interrupt").
 */
#include <signal.h>
#include <string.h>

#include "common/arena.h"
#include "stdlib/decode.h"
#include "stdlib/stdlib_int.h"

static const char *const names[] = {
#include "syscall_names.h"
};

#define NNAMES (sizeof(names) / sizeof(names[0]))

const char *syscall_text(struct arena *a, uint64_t nr)
{
	if (nr < NNAMES && names[nr])
		return names[nr];
	return arena_printf(a, "syscall_%lld", (long long)nr);
}

int64_t syscall_number(const char *name)
{
	for (size_t i = 0; i < NNAMES; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int64_t)i;
	return -1;
}

static const char *render_syscall(struct arena *a, uint64_t v)
{
	return syscall_text(a, v);
}

static const struct type_decoder syscall_decoder = {"syscall_name", true, render_syscall};

static void check_syscall_name(struct sema_ctx *s, struct ast_node *n)
{
	stdlib_check_decoded(s, n, &syscall_decoder);
}

static LLVMValueRef lower_syscall_name(struct cg_ctx *cg, struct ast_node *n)
{
	return cg_expr(cg, n->call.args);
}

static const char *render_strerror(struct arena *a, uint64_t v)
{
	char buf[256];
	return arena_strdup(a, strerror_r((int)(int64_t)v, buf, sizeof(buf)));
}

static const struct type_decoder strerror_decoder = {"strerror", true, render_strerror};

static void check_strerror(struct sema_ctx *s, struct ast_node *n)
{
	stdlib_check_decoded(s, n, &strerror_decoder);
}

/* signal_name(sig): strsignal(3)'s text, as the newest bpftrace's table
 * has it ("Interrupt" for 2, "Real-time signal 0" for 34), N/A past 64 */
static const char *render_signal(struct arena *a, uint64_t v)
{
	int64_t sig = (int64_t)v;
	if (sig < 0 || sig > 64)
		return "N/A";
	/* strsignal's words, without its thread-local buffer (which it
	 * keeps until the thread's next call) */
	const char *d = sigdescr_np((int)sig);
	if (d)
		return d;
	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		return arena_printf(a, "Real-time signal %d", (int)sig - SIGRTMIN);
	return arena_printf(a, "Unknown signal %d", (int)sig);
}

static const struct type_decoder signal_decoder = {"signal_name", true, render_signal};

static void check_signal_name(struct sema_ctx *s, struct ast_node *n)
{
	stdlib_check_decoded(s, n, &signal_decoder);
}

const struct builtin stdlib_syscalls[] = {
	{.name = "syscall_name", .kind = BI_FUNC, .min_args = 1, .max_args = 1,
	 .check = check_syscall_name, .lower = lower_syscall_name,
	 .summary = "a syscall number (raw_syscalls args->id) printed as its name"},
	{.name = "strerror", .kind = BI_FUNC, .min_args = 1, .max_args = 1,
	 .check = check_strerror, .lower = lower_syscall_name,
	 .summary = "an error number printed as its text: strerror(errno)"},
	{.name = "signal_name", .kind = BI_FUNC, .min_args = 1, .max_args = 1,
	 .check = check_signal_name, .lower = lower_syscall_name,
	 .summary = "a signal number printed as its text: signal_name(2) is \"Interrupt\""},
	{0},
};
