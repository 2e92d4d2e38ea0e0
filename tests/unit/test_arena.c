/*
 * test_arena.c - the compile arena: zeroed, aligned allocations, marks that
 * give memory back for reuse (still zeroed), and the derived-capacity growth
 * of arena_grow/vec_grow.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/arena.h"

static void test_zeroed_aligned(void **state)
{
	struct arena *a = arena_new();
	for (int i = 1; i < 100; i++) {
		unsigned char *p = arena_alloc(a, (size_t)i * 37);
		assert_int_equal((uintptr_t)p % 16, 0);
		for (int j = 0; j < i * 37; j++)
			assert_int_equal(p[j], 0);
		memset(p, 0xab, (size_t)i * 37);
	}
	/* bigger than any chunk so far */
	unsigned char *big = arena_alloc(a, 1u << 23);
	assert_int_equal(big[(1u << 23) - 1], 0);
	arena_free(a);
	(void)state;
}

static void test_mark_release_reuses_zeroed(void **state)
{
	struct arena *a = arena_new();
	char *keep = arena_strdup(a, "kept");
	struct arena_mark m = arena_mark(a);
	for (int round = 0; round < 3; round++) {
		struct arena_mark inner = arena_mark(a);
		unsigned char *p = arena_alloc(a, 1000);
		for (int j = 0; j < 1000; j++)
			assert_int_equal(p[j], 0);	/* released memory comes back zeroed */
		memset(p, 0xcd, 1000);
		arena_alloc(a, 1u << 22);	/* a chunk of its own, freed again */
		arena_release(a, inner);
	}
	arena_release(a, m);
	assert_string_equal(keep, "kept");	/* before the mark: untouched */
	/* a mark of an empty arena releases everything */
	struct arena *b = arena_new();
	struct arena_mark e = arena_mark(b);
	arena_alloc(b, 64);
	arena_release(b, e);
	assert_int_equal(((unsigned char *)arena_alloc(b, 8))[0], 0);
	arena_free(b);
	arena_free(a);
	(void)state;
}

/* the runtime takes its per-event mark on an empty arena: the chunk an
 * event used must come back for the next event, not be freed and
 * allocated again (issue #10: a 4 MB calloc per event) */
static void test_release_keeps_chunks_for_reuse(void **state)
{
	struct arena *a = arena_new();
	struct arena_mark m = arena_mark(a);
	unsigned char *p1 = arena_alloc(a, 64);
	memset(p1, 0xab, 64);
	arena_release(a, m);
	/* were the chunk freed, this block of its size would take its place */
	void *squat = malloc(16384 + 64);
	unsigned char *p2 = arena_alloc(a, 64);
	assert_ptr_equal(p1, p2);
	for (int j = 0; j < 64; j++)
		assert_int_equal(p2[j], 0);
	/* a request larger than every spare gets a chunk of its own */
	arena_release(a, m);
	unsigned char *big = arena_alloc(a, 1u << 20);
	assert_ptr_not_equal(big, p1);
	assert_int_equal(big[(1u << 20) - 1], 0);
	free(squat);
	arena_free(a);
	(void)state;
}

static void test_grow(void **state)
{
	struct arena *a = arena_new();
	int *arr = NULL, *vec = NULL;
	for (size_t n = 0; n < 1000; n++) {
		arr = arena_grow(a, arr, n, sizeof(*arr));
		arr[n] = (int)n;
		vec = vec_grow(vec, n, sizeof(*vec));
		vec[n] = (int)n;
	}
	for (int i = 0; i < 1000; i++) {
		assert_int_equal(arr[i], i);
		assert_int_equal(vec[i], i);
	}
	free(vec);
	arena_free(a);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_zeroed_aligned),
		cmocka_unit_test(test_mark_release_reuses_zeroed),
		cmocka_unit_test(test_release_keeps_chunks_for_reuse),
		cmocka_unit_test(test_grow),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
