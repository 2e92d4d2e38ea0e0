/*
 * mapedit.c - a program that runs a script for itself (sonde diagnose
 * --serve) edits a few of its maps from user space: it adds the threads of
 * a container that started after the script (rt_map_set), and forgets the
 * entries of threads that exited once they were exported (rt_map_forget),
 * so that a run of days keeps its maps to the threads that live.
 *
 * Only maps whose key is an integer, or a tuple that starts with one, are
 * edited; the key element is read as the script stored it (its size in the
 * map slot).
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const struct sema_map *find(struct rt *rt, const char *name)
{
	for (int i = 0; i < rt->r->nmaps; i++)
		if (!strcmp(rt->r->maps[i]->name, name))
			return rt->r->maps[i];
	return NULL;
}

/* the first key element: an integer of 4 or 8 bytes at offset 0 */
static const struct type *first_key(const struct sema_map *m)
{
	const struct type *t = &m->key;
	if (t->kind == TY_TUPLE && t->nfields)
		t = &t->fields[0].type;
	return t->kind == TY_INT && (t->size == 4 || t->size == 8) ? t : NULL;
}

static int64_t read_int(const uint8_t *p, uint32_t size)
{
	if (size == 4) {
		int32_t v;
		memcpy(&v, p, 4);
		return v;
	}
	int64_t v;
	memcpy(&v, p, 8);
	return v;
}

int rt_map_set(struct rt *rt, const char *name, int64_t key, int64_t value)
{
	const struct sema_map *m = find(rt, name);
	if (!m || m->kind != MK_VALUE || m->percpu || m->key.kind != TY_INT || !first_key(m) ||
	    m->value.kind != TY_INT || (m->value_size != 4 && m->value_size != 8))
		return -EINVAL;
	int32_t v32 = (int32_t)value;
	uint8_t k[8] = {0};
	if (m->key.size == 4) {
		int32_t v = (int32_t)key;
		memcpy(k, &v, 4);
	} else {
		memcpy(k, &key, 8);
	}
	return bpf_map_update_elem(rt->map_fds[m->id], k, m->value_size == 4 ? (void *)&v32 : (void *)&value,
				   BPF_ANY) ? -errno : 0;
}

static int by_key(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
	return x < y ? -1 : x > y;
}

int rt_map_forget(struct rt *rt, const char *name, const int64_t *keys, size_t n)
{
	const struct sema_map *m = find(rt, name);
	const struct type *t = m ? first_key(m) : NULL;
	if (!m || !t || m->array_slots)
		return m ? -EINVAL : 0;	/* a map the script never made: nothing to forget */
	int64_t *sorted = malloc((n ? n : 1) * sizeof(*sorted));
	uint8_t *cur = malloc(m->key_size), *next = malloc(m->key_size);
	if (!sorted || !cur || !next) {
		free(sorted);
		free(cur);
		free(next);
		return -ENOMEM;
	}
	memcpy(sorted, keys, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), by_key);
	/* deleting the key the walk stands on restarts it from the first
	 * key (the kernel's hash walk): collect first, delete after */
	uint8_t *gone = NULL;
	size_t ngone = 0;
	int fd = rt->map_fds[m->id], err = 0;
	for (bool first = true; !bpf_map_get_next_key(fd, first ? NULL : cur, next); first = false) {
		int64_t v = read_int(next, t->size);
		if (n && bsearch(&v, sorted, n, sizeof(*sorted), by_key)) {
			uint8_t *g = realloc(gone, (ngone + 1) * m->key_size);
			if (!g) {
				err = -ENOMEM;
				break;
			}
			gone = g;
			memcpy(gone + ngone++ * m->key_size, next, m->key_size);
		}
		memcpy(cur, next, m->key_size);
	}
	for (size_t i = 0; i < ngone; i++)
		bpf_map_delete_elem(fd, gone + i * m->key_size);
	free(gone);
	free(sorted);
	free(cur);
	free(next);
	return err;
}
