/*
 * folded.c - the folded writer (-f folded): Brendan Gregg's folded stacks,
 * what flamegraph.pl, inferno and speedscope read.
 *
 * Each map whose key holds a kstack or ustack prints one line per entry:
 * the frames root first, joined by ";", then a space and the value (a
 * count or a sum).  The key parts that are not stacks lead, in key order;
 * then the user stacks and the kernel stacks, each root first, so that
 * `@[kstack, ustack, comm]` reads comm;main;...;write;entry_SYSCALL_64;...
 * as the call went.  Frames are written as the text output prints them,
 * offset included ("main+22"): exactly what stackcollapse-bpftrace.pl
 * makes of bpftrace's text for a map keyed by one stack and at most one
 * other part.  Lines come in print order (ascending value, as the text
 * output).  Maps without a stack in the key print nothing here: they
 * would not parse as folded lines; printf output still goes to the output.
 * The path helpers here serve the flame graph and pprof writers too.
 */
#include "output/out_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

bool pr_is_stack_map(const struct pr_map *m)
{
	if (m->kind != PR_INT)
		return false;
	for (size_t i = 0; i < m->nentries; i++)
		for (int k = 0; k < pr_entry_nkey(&m->entries[i]); k++)
			if (m->entries[i].key[k].stack)
				return true;
	return false;
}

static void path_push(struct pr_path *p, const char *name, enum pr_frame_kind kind)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->name = pr_xrealloc(p->name, (size_t)p->cap * sizeof(*p->name));
		p->kind = pr_xrealloc(p->kind, (size_t)p->cap * sizeof(*p->kind));
	}
	p->name[p->n] = name;
	p->kind[p->n++] = kind;
}

static void push_stacks(struct pr_path *p, const struct pr_entry *e, bool kernel, bool use_func)
{
	for (int k = 0; k < pr_entry_nkey(e); k++) {
		const struct pr_stack *s = e->key[k].stack;
		if (!s || s->kernel != kernel)
			continue;
		for (int i = s->n - 1; i >= 0; i--)
			path_push(p, use_func ? s->frames[i].func : s->frames[i].line,
				  kernel ? PF_KERNEL : PF_USER);
	}
}

bool pr_stack_path(const struct pr_entry *e, bool use_func, struct pr_path *p)
{
	bool any = false;
	p->n = 0;
	for (int k = 0; k < pr_entry_nkey(e); k++) {
		if (e->key[k].stack)
			any = true;
		else
			path_push(p, e->key[k].text ? e->key[k].text : "", PF_KEY);
	}
	int keys = p->n;
	push_stacks(p, e, false, use_func);
	push_stacks(p, e, true, use_func);
	/* no stack could be read (lost to a hash collision, or none of that
	 * kind here): one frame says so, so that the line still parses */
	if (any && p->n == keys)
		path_push(p, "[unknown]", PF_USER);
	return any;
}

void pr_path_free(struct pr_path *p)
{
	free(p->name);
	free(p->kind);
	memset(p, 0, sizeof(*p));
}

/* a frame as one folded field: ";" separates frames and a newline ends
 * the line, so both become "_" (a comm or a string key may hold them) */
static void folded_frame(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' || *s == '\n' ? '_' : *s, out);
}

static void folded_map(FILE *out, struct pr_map *m, uint32_t top, uint32_t div)
{
	if (!pr_is_stack_map(m))
		return;
	size_t first = pr_map_order(m, &top, &div);
	struct pr_path p = {0};
	for (size_t i = first; i < m->nentries; i++) {
		const struct pr_entry *e = &m->entries[i];
		if (!pr_stack_path(e, false, &p))
			continue;
		for (int f = 0; f < p.n; f++) {
			if (f)
				fputc(';', out);
			folded_frame(out, p.name[f]);
		}
		if (m->is_unsigned)
			fprintf(out, " %" PRIu64 "\n", (uint64_t)e->ival / div);
		else
			fprintf(out, " %" PRId64 "\n", e->ival / (int64_t)div);
	}
	pr_path_free(&p);
}

/* no blank lines before the maps: every output line is a stack */
void pr_nothing_before_maps(FILE *out)
{
}

const struct output_writer output_folded = {
	.name = "folded",
	.render = PR_RENDER_TEXT,
	.stacks = true,
	PR_TEXT_EVENTS,
	.maps_begin = pr_nothing_before_maps,
	.map = folded_map,
};
