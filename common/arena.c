/*
 * arena.c - chunked bump allocator.
 *
 * Chunks grow geometrically; a request larger than the next chunk size
 * gets a chunk of its own.  A mark and a release give the runtime a scratch
 * arena whose memory is reused event after event instead of allocated: the
 * chunks a release gives back are kept as spares (zeroed) and taken again
 * before any new chunk is allocated, so a steady state allocates nothing,
 * even when the mark was taken on an empty arena.
 */
#include "common/arena.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct chunk {
	struct chunk *next;
	size_t size, used;
	_Alignas(16) unsigned char data[];
};

struct arena {
	struct chunk *head;
	struct chunk *spare;	/* given back by arena_release, all zero */
	size_t next_size;
};

static void *xcalloc(size_t n)
{
	void *p = calloc(1, n);
	if (!p) {
		fprintf(stderr, "sonde: out of memory\n");
		abort();
	}
	return p;
}

struct arena *arena_new(void)
{
	struct arena *a = xcalloc(sizeof(*a));
	a->next_size = 16384;
	return a;
}

static void free_chunks(struct chunk *c)
{
	for (struct chunk *n; c; c = n) {
		n = c->next;
		free(c);
	}
}

void arena_free(struct arena *a)
{
	if (!a)
		return;
	free_chunks(a->head);
	free_chunks(a->spare);
	free(a);
}

/* a spare chunk with room for size bytes, unlinked; NULL when none */
static struct chunk *take_spare(struct arena *a, size_t size)
{
	for (struct chunk **pp = &a->spare; *pp; pp = &(*pp)->next)
		if ((*pp)->size >= size) {
			struct chunk *c = *pp;
			*pp = c->next;
			return c;
		}
	return NULL;
}

void *arena_alloc(struct arena *a, size_t size)
{
	size = (size + 15) & ~(size_t)15;
	struct chunk *c = a->head;
	if (!c || c->size - c->used < size) {
		c = take_spare(a, size);
		if (!c) {
			size_t csize = size > a->next_size ? size : a->next_size;
			c = xcalloc(sizeof(*c) + csize);
			c->size = csize;
			if (size <= a->next_size && a->next_size < (1u << 22))
				a->next_size *= 2;
		}
		/* the newest chunk is always the head, so a mark is a chunk and
		 * its fill level (an oversize request leaves the previous
		 * chunk's tail unused) */
		c->next = a->head;
		a->head = c;
	}
	void *p = c->data + c->used;
	c->used += size;
	return p;
}

char *arena_strndup(struct arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = '\0';
	return p;
}

char *arena_strdup(struct arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_vprintf(struct arena *a, const char *fmt, va_list ap)
{
	va_list ap2;
	va_copy(ap2, ap);
	int n = vsnprintf(NULL, 0, fmt, ap2);
	va_end(ap2);
	char *p = arena_alloc(a, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, ap);
	return p;
}

char *arena_printf(struct arena *a, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	char *p = arena_vprintf(a, fmt, ap);
	va_end(ap);
	return p;
}

/* 0 or a power of two from 8 up: the array is full */
static int full(size_t n)
{
	return n == 0 || (n >= 8 && !(n & (n - 1)));
}

void *arena_grow(struct arena *a, void *arr, size_t n, size_t elem)
{
	if (!full(n))
		return arr;
	void *b = arena_alloc(a, (n ? 2 * n : 8) * elem);
	if (n)
		memcpy(b, arr, n * elem);
	return b;
}

void *vec_grow(void *arr, size_t n, size_t elem)
{
	if (!full(n))
		return arr;
	void *b = realloc(arr, (n ? 2 * n : 8) * elem);
	if (!b) {
		fprintf(stderr, "sonde: out of memory\n");
		abort();
	}
	return b;
}

struct arena_mark arena_mark(struct arena *a)
{
	return (struct arena_mark){a->head, a->head ? a->head->used : 0};
}

void arena_release(struct arena *a, struct arena_mark m)
{
	while (a->head && a->head != m.chunk) {
		struct chunk *c = a->head;
		a->head = c->next;
		memset(c->data, 0, c->used);
		c->used = 0;
		c->next = a->spare;
		a->spare = c;
	}
	/* arena_alloc promises zeroed memory: clear what is handed back */
	if (a->head) {
		memset(a->head->data + m.used, 0, a->head->used - m.used);
		a->head->used = m.used;
	}
}
