/*
 * test_procstate.c - the per-process state lifecycle (runtime/procstate.c):
 * capture once per process and again after an exec, the LRU cap and its
 * eviction count, the sweep that releases what is gone and was not
 * printed, a later process given the same pid.  Real processes: this
 * one, its children (alive, then reaped).
 */
#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <cmocka.h>

#include "runtime/procstate.h"

struct log {
	int captured[16], released[16];
	int ncap, nrel;
};

static int cap(void *ctx, int pid, void **slot)
{
	struct log *l = ctx;
	if (l->ncap < 16)
		l->captured[l->ncap++] = pid;
	if (!*slot)
		*slot = malloc(8);	/* released below: ASan finds a leak */
	return 0;
}

static void rel(void *ctx, int pid, void *slot)
{
	struct log *l = ctx;
	if (l->nrel < 16)
		l->released[l->nrel++] = pid;
	free(slot);
}

/* a child that waits to be killed */
static pid_t child(void)
{
	pid_t p = fork();
	if (p == 0) {
		pause();
		_exit(0);
	}
	return p;
}

static void reap(pid_t p)
{
	kill(p, SIGKILL);
	waitpid(p, NULL, 0);
}

static void test_capture_sweep(void **state)
{
	struct log l = {0};
	struct procstate *ps = ps_new(8);
	assert_non_null(ps);
	assert_int_equal(ps_register(ps, &(struct ps_client){"log", cap, rel, &l}), 0);
	pid_t a = child(), b = child();
	assert_int_equal(ps_capture(ps, getpid()), 1);
	assert_int_equal(ps_capture(ps, a), 1);
	assert_int_equal(ps_capture(ps, b), 1);
	/* a second first look at the same program keeps what was read */
	assert_int_equal(ps_capture(ps, a), 0);
	assert_int_equal(l.ncap, 3);
	ps_exec(ps, a);
	assert_int_equal(ps_capture(ps, a), 0);	/* exec'd: captured anew */
	assert_int_equal(l.ncap, 4);
	assert_int_equal(ps_capture(ps, a), 0);	/* once */
	assert_int_equal(l.ncap, 4);
	ps_exec(ps, 999999999);			/* unknown: nothing */
	assert_non_null(ps_get(ps, a, 0));
	assert_null(ps_get(ps, a, 1));
	reap(a);
	reap(b);
	ps_sweep(ps);		/* a and b were touched in this round: kept */
	assert_int_equal(l.nrel, 0);
	ps_touch(ps, b);	/* b printed again: kept one more round */
	assert_int_equal(ps_sweep(ps), 1);
	assert_int_equal(l.released[0], a);
	assert_int_equal(ps_sweep(ps), 1);
	assert_int_equal(l.released[1], b);
	assert_int_equal(ps_sweep(ps), 0);	/* this one lives */
	struct ps_stats st;
	ps_stats(ps, &st);
	assert_int_equal(st.live, 1);
	assert_int_equal(st.captured, 3);
	assert_int_equal(st.released, 2);
	assert_int_equal(st.evicted, 0);
	ps_free(ps);
	assert_int_equal(l.nrel, 3);
}

static void test_lru_cap(void **state)
{
	struct log l = {0};
	struct procstate *ps = ps_new(2);
	ps_register(ps, &(struct ps_client){"log", cap, rel, &l});
	pid_t a = child(), b = child(), c = child();
	ps_capture(ps, a);
	ps_capture(ps, b);
	ps_touch(ps, a);		/* b is now the least recently used */
	assert_int_equal(ps_capture(ps, c), 1);
	assert_int_equal(l.nrel, 1);
	assert_int_equal(l.released[0], b);
	struct ps_stats st;
	ps_stats(ps, &st);
	assert_int_equal(st.live, 2);
	assert_int_equal(st.evicted, 1);
	ps_release(ps, a);		/* exec'd or known gone */
	assert_int_equal(l.released[1], a);
	assert_null(ps_get(ps, a, 0));
	ps_free(ps);
	reap(a);
	reap(b);
	reap(c);
}

static void test_gone_pid(void **state)
{
	struct log l = {0};
	struct procstate *ps = ps_new(4);
	ps_register(ps, &(struct ps_client){"log", cap, rel, &l});
	assert_int_equal(ps_capture(ps, 0), -EINVAL);
	pid_t a = child();
	reap(a);
	/* first seen when it is gone already: kept (its stacks may print),
	 * released by the first sweep that did not print it */
	assert_int_equal(ps_capture(ps, a), 1);
	ps_sweep(ps);
	assert_int_equal(ps_sweep(ps), 1);
	ps_free(ps);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_capture_sweep),
		cmocka_unit_test(test_lru_cap),
		cmocka_unit_test(test_gone_pid),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
