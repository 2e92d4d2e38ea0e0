/*
 * stdlib.c - lookup over the builtin tables of every area.
 */
#include "stdlib/stdlib.h"

#include <string.h>

#include "common/suggest.h"

static const struct builtin *const tables[] = {
	stdlib_process, stdlib_aggregations, stdlib_output, stdlib_strings, stdlib_time,
	stdlib_container, stdlib_stacks, stdlib_symbols, stdlib_bytes, stdlib_net, stdlib_control,
	stdlib_ioctl, stdlib_syscalls, stdlib_block, stdlib_kernel, stdlib_numbers, stdlib_options,
	stdlib_meta, stdlib_debug, stdlib_system, stdlib_python,
};

const struct builtin *stdlib_find(const char *name, bool is_call)
{
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (const struct builtin *b = tables[t]; b->name; b++)
			if (!strcmp(b->name, name) && (b->kind != BI_VAR) == is_call)
				return b;
	return is_call ? stdlib_find_cfunc(name) : NULL;
}

const char *stdlib_suggest(const char *name, bool is_call, char *buf, size_t len)
{
	struct suggest sg;
	suggest_init(&sg, name);
	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (const struct builtin *b = tables[t]; b->name; b++)
			if ((b->kind != BI_VAR) == is_call)
				suggest_add(&sg, b->name);
	return suggest_text(&sg, 3, buf, len);
}
