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

#define arena_new_obj(a, T) ((T *)arena_alloc((a), sizeof(T)))
#define arena_new_array(a, T, n) ((T *)arena_alloc((a), sizeof(T) * (size_t)(n)))

#endif
