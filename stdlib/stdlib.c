/*
 * stdlib.c - lookup over the builtin tables of every area.
 */
#include "stdlib/stdlib.h"

#include <string.h>

static const struct builtin *const tables[] = {
	stdlib_process, stdlib_aggregations, stdlib_output, stdlib_strings, stdlib_time,
	stdlib_container, stdlib_stacks, stdlib_symbols, stdlib_bytes, stdlib_net, stdlib_control,
	stdlib_ioctl, stdlib_syscalls, stdlib_block, stdlib_kernel,
};

const struct builtin *stdlib_find(const char *name, bool is_call)
{
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (const struct builtin *b = tables[t]; b->name; b++)
			if (!strcmp(b->name, name) && (b->kind != BI_VAR) == is_call)
				return b;
	return NULL;
}
