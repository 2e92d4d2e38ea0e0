/*
 * test_containers.c - the pure parts of container-aware tracing:
 * --follow's once-only messages (runtime/follow.c rt_noteset), folding map
 * entries whose `container` keys print the same (runtime/keyfold.c), and
 * how sema types cgroup_path() (stdlib/container.c).  The BPF side, the
 * cgroup filter and the rescans run in tests/e2e/t_containers.sh.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "common/arena.h"
#include "common/diag.h"
#include "parser/parser.h"
#include "runtime/rt_int.h"
#include "sema/sema.h"
#include "harness.h"

/* ---- rt_noteset ------------------------------------------------------------ */

static void test_noteset_once(void **state)
{
	struct rt_noteset *ns = rt_noteset_new(100);
	assert_non_null(ns);
	assert_true(rt_noteset_first(ns, "pid 12 maps no 'libfoo'"));
	assert_false(rt_noteset_first(ns, "pid 12 maps no 'libfoo'"));
	assert_true(rt_noteset_first(ns, "pid 13 maps no 'libfoo'"));
	assert_true(rt_noteset_first(ns, ""));
	assert_false(rt_noteset_first(ns, ""));
	rt_noteset_free(ns);
	/* no set (allocation failed): everything is shown */
	assert_true(rt_noteset_first(NULL, "x"));
	assert_true(rt_noteset_first(NULL, "x"));
	rt_noteset_free(NULL);
}

static void test_noteset_grows(void **state)
{
	struct rt_noteset *ns = rt_noteset_new(100000);
	char buf[32];
	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "message %d", i);
		assert_true(rt_noteset_first(ns, buf));
	}
	for (int i = 0; i < 5000; i++) {
		snprintf(buf, sizeof(buf), "message %d", i);
		assert_false(rt_noteset_first(ns, buf));
	}
	rt_noteset_free(ns);
}

/* at the cap it forgets everything rather than grow without bound */
static void test_noteset_cap(void **state)
{
	struct rt_noteset *ns = rt_noteset_new(3);
	assert_true(rt_noteset_first(ns, "a"));
	assert_true(rt_noteset_first(ns, "b"));
	assert_true(rt_noteset_first(ns, "c"));
	assert_false(rt_noteset_first(ns, "a"));
	assert_true(rt_noteset_first(ns, "d"));	/* forgets a, b, c */
	assert_true(rt_noteset_first(ns, "a"));
	assert_false(rt_noteset_first(ns, "d"));
	rt_noteset_free(ns);
}

/* ---- rt_fold_equal_keys ------------------------------------------------------ */

#define K1(t) ((struct pr_key[]){{(t), true}})

static struct pr_entry int_entry(struct pr_key *k, int nkey, int64_t v)
{
	return (struct pr_entry){.key = k, .nkey = nkey, .ival = v, .count = v};
}

static const struct pr_entry *find(const struct pr_map *pm, const char *k0, const char *k1)
{
	for (size_t i = 0; i < pm->nentries; i++) {
		const struct pr_entry *e = &pm->entries[i];
		if (!strcmp(e->key[0].text, k0) && (!k1 || (e->nkey > 1 && !strcmp(e->key[1].text, k1))))
			return e;
	}
	return NULL;
}

/* @[container] = count(): the host's cgroups and a container's scope and
 * child cgroup each gave an entry */
static void test_fold_count(void **state)
{
	struct pr_entry e[] = {
		int_entry(K1(""), 1, 900), int_entry(K1("e7b03a84a8c8"), 1, 300),
		int_entry(K1(""), 1, 5), int_entry(K1("e7b03a84a8c8"), 1, 200),
		int_entry(K1("0123456789ab"), 1, 7), int_entry(K1(""), 1, 1),
	};
	struct pr_map pm = {.name = "@", .kind = PR_INT, .entries = e, .nentries = 6};
	assert_int_equal(rt_fold_equal_keys(&pm, MK_COUNT), 0);
	assert_int_equal(pm.nentries, 3);
	assert_int_equal(find(&pm, "", NULL)->ival, 906);
	assert_int_equal(find(&pm, "e7b03a84a8c8", NULL)->ival, 500);
	assert_int_equal(find(&pm, "0123456789ab", NULL)->ival, 7);
}

/* tuple keys: only entries equal in every element fold */
static void test_fold_tuple(void **state)
{
	struct pr_key k1[] = {{"abc", true}, {"12", false}};
	struct pr_key k2[] = {{"abc", true}, {"12", false}};
	struct pr_key k3[] = {{"abc", true}, {"13", false}};
	struct pr_key k4[] = {{"", true}, {"12", false}};
	struct pr_entry e[] = {int_entry(k1, 2, 1), int_entry(k2, 2, 2), int_entry(k3, 2, 4),
			       int_entry(k4, 2, 8)};
	struct pr_map pm = {.name = "@", .kind = PR_INT, .entries = e, .nentries = 4};
	assert_int_equal(rt_fold_equal_keys(&pm, MK_SUM), 0);
	assert_int_equal(pm.nentries, 3);
	assert_int_equal(find(&pm, "abc", "12")->ival, 3);
	assert_int_equal(find(&pm, "abc", "13")->ival, 4);
	assert_int_equal(find(&pm, "", "12")->ival, 8);
}

static void test_fold_min_max_avg(void **state)
{
	struct pr_entry e[] = {int_entry(K1("a"), 1, 5), int_entry(K1("a"), 1, -3),
			       int_entry(K1("a"), 1, 9)};
	struct pr_map pm = {.kind = PR_INT, .entries = e, .nentries = 3};
	assert_int_equal(rt_fold_equal_keys(&pm, MK_MIN), 0);
	assert_int_equal(pm.nentries, 1);
	assert_int_equal(pm.entries[0].ival, -3);

	struct pr_entry f[] = {int_entry(K1("a"), 1, 5), int_entry(K1("a"), 1, -3),
			       int_entry(K1("a"), 1, 9)};
	pm = (struct pr_map){.kind = PR_INT, .entries = f, .nentries = 3};
	assert_int_equal(rt_fold_equal_keys(&pm, MK_MAX), 0);
	assert_int_equal(pm.entries[0].ival, 9);

	/* avg 10/2 and 30/3 make 40/5, not the average of averages */
	struct pr_entry g[] = {{.key = K1("a"), .nkey = 1, .count = 2, .total = 10},
			       {.key = K1("a"), .nkey = 1, .count = 3, .total = 30}};
	pm = (struct pr_map){.kind = PR_AVG, .entries = g, .nentries = 2};
	assert_int_equal(rt_fold_equal_keys(&pm, MK_AVG), 0);
	assert_int_equal(pm.nentries, 1);
	assert_int_equal(pm.entries[0].count, 5);
	assert_int_equal(pm.entries[0].total, 40);
}

static void test_fold_hist(void **state)
{
	uint64_t b1[4] = {0, 1, 2, 3}, b2[4] = {10, 0, 0, 1}, b3[4] = {1, 1, 1, 1};
	struct pr_entry e[] = {
		{.key = K1("x"), .nkey = 1, .buckets = b1, .nbuckets = 4},
		{.key = K1("y"), .nkey = 1, .buckets = b3, .nbuckets = 4},
		{.key = K1("x"), .nkey = 1, .buckets = b2, .nbuckets = 4},
	};
	struct pr_map pm = {.kind = PR_HIST, .entries = e, .nentries = 3};
	assert_int_equal(rt_fold_equal_keys(&pm, MK_HIST), 0);
	assert_int_equal(pm.nentries, 2);
	const struct pr_entry *x = find(&pm, "x", NULL);
	uint64_t want[4] = {10, 1, 2, 4};
	assert_memory_equal(x->buckets, want, sizeof(want));
	assert_int_equal(find(&pm, "y", NULL)->buckets[0], 1);
}

/* plain values have no combination: all entries stay */
static void test_fold_values_untouched(void **state)
{
	struct pr_entry e[] = {int_entry(K1("a"), 1, 1), int_entry(K1("a"), 1, 2)};
	struct pr_map pm = {.kind = PR_INT, .entries = e, .nentries = 2};
	assert_int_equal(rt_fold_equal_keys(&pm, MK_VALUE), 0);
	assert_int_equal(pm.nentries, 2);
	struct pr_map empty = {.kind = PR_INT, .entries = e, .nentries = 0};
	assert_int_equal(rt_fold_equal_keys(&empty, MK_COUNT), 0);
	assert_int_equal(empty.nentries, 0);
}

/* ---- which keys fold, as sema types them; cgroup_path() -------------------- */


static void test_keys_with_container(void **state)
{
	struct checked c;
	checked_run(&c, "tracepoint:syscalls:sys_enter_read { @a[container] = count(); "
		    "@b[container, pid, comm] = count(); @c[pid] = count(); "
		    "@d[cgroup_path(cgroup)] = count(); @e[cgroup] = count(); }", NULL);
	assert_non_null(c.r);
	assert_true(rt_type_has_container(&checked_map(c.r, "@a")->key));
	assert_true(rt_type_has_container(&checked_map(c.r, "@b")->key));
	assert_false(rt_type_has_container(&checked_map(c.r, "@c")->key));
	/* distinct cgroup ids have distinct paths: nothing to fold */
	assert_false(rt_type_has_container(&checked_map(c.r, "@d")->key));
	assert_int_equal(checked_map(c.r, "@d")->key.kind, TY_CGROUP_PATH);
	assert_int_equal(checked_map(c.r, "@d")->key.size, 8);
	assert_false(rt_type_has_container(&checked_map(c.r, "@e")->key));
	checked_free(&c);
}

static void test_cgroup_path_args(void **state)
{
	struct checked c;
	checked_run(&c, "BEGIN { @[cgroup_path(container)] = count(); @x = cgroup_path(1234); }", NULL);
	assert_non_null(c.r);
	checked_free(&c);

	checked_run(&c, "BEGIN { @ = cgroup_path(comm); }", NULL);
	assert_null(c.r);
	assert_non_null(strstr(c.msgs, "cgroup_path() needs a cgroup id"));
	checked_free(&c);

	checked_run(&c, "BEGIN { @ = cgroup_path(); }", NULL);
	assert_null(c.r);
	checked_free(&c);

	checked_run(&c, "BEGIN { @ = cgroup_path(cgroup, \"unified\"); }", NULL);
	assert_null(c.r);
	checked_free(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_noteset_once),
		cmocka_unit_test(test_noteset_grows),
		cmocka_unit_test(test_noteset_cap),
		cmocka_unit_test(test_fold_count),
		cmocka_unit_test(test_fold_tuple),
		cmocka_unit_test(test_fold_min_max_avg),
		cmocka_unit_test(test_fold_hist),
		cmocka_unit_test(test_fold_values_untouched),
		cmocka_unit_test(test_keys_with_container),
		cmocka_unit_test(test_cgroup_path_args),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
