/*
 * arena.h - bump allocator for everything that lives as long as a compile.
 *
 * The lexer, parser, sema and codegen allocate AST nodes, strings and tables
 * from one arena and free it in one call; nothing compile-time is freed
 * piecemeal.  Allocation never fails: on out-of-memory the process aborts
 * with a message, since a compiler that cannot allocate a few KiB has no
 * useful recovery.
 */
#ifndef SONDE_ARENA_H
#define SONDE_ARENA_H

#include <stdarg.h>
#include <stddef.h>

struct arena;

struct arena *arena_new(void);
void arena_free(struct arena *a);
/* zeroed, 16-byte aligned */
void *arena_alloc(struct arena *a, size_t size);
char *arena_strdup(struct arena *a, const char *s);
char *arena_strndup(struct arena *a, const char *s, size_t n);
char *arena_printf(struct arena *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
char *arena_vprintf(struct arena *a, const char *fmt, va_list ap);

/* Everything allocated after a mark is given back by arena_release (marks
 * nest); the memory is kept for reuse.  For per-event scratch memory. */
struct arena_mark {
	void *chunk;
	size_t used;
};
struct arena_mark arena_mark(struct arena *a);
void arena_release(struct arena *a, struct arena_mark m);

/* Make room for element n of an arena array of n elements (elem bytes
 * each) and return the array, moved to a bigger block when n is 0, 8, 16,
 * 32 ...: the capacity follows from n, so callers keep no capacity field. */
void *arena_grow(struct arena *a, void *arr, size_t n, size_t elem);

/* The same growth for a malloc'd array (free it with free()); out of
 * memory aborts, as arena_alloc does. */
void *vec_grow(void *arr, size_t n, size_t elem);

#define arena_new_obj(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define arena_new_array(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

#endif
