/*
 * folded.c - the folded writer (-f folded): Brendan Gregg's folded stacks,
 * what flamegraph.pl, inferno and speedscope read.
 *
 * Each map whose key holds a kstack or ustack prints one line per entry:
 * the frames root first, joined by ";", then a space and the value (a
 * count or a sum).  The key parts that are not stacks lead, in key order;
 * then the user stacks and the kernel stacks, each root first, so that
 * `@[kstack, ustack, comm]` reads comm;main;...;write;entry_SYSCALL_64;...
 * as the call went.  A frame is its function alone ("main"), as
 * stackcollapse-perf.pl and inferno collapse perf's frames by default, so
 * that the samples at two offsets of one function sum in every flame graph
 * tool; a frame without a symbol is "[FILE]", the base name of the file
 * its address lies in, or "[unknown]", as they write it (the samples of
 * one library's stripped code sum too).  The setting folded_offsets
 * (config = { folded_offsets = 1 }, or SONDE_FOLDED_OFFSETS=1) writes the
 * frames as the text output prints them instead, offset or address
 * included ("main+22", "0x7f12..."): what stackcollapse-bpftrace.pl makes
 * of bpftrace's text.  Entries whose lines are then the same (one
 * function reached at two offsets) are one line, their values summed.
 * Lines come in print order (ascending value, as the text output; equal
 * values in the order of their first entry).  Maps without a stack in the
 * key print nothing here: they would not parse as folded lines; printf
 * output still goes to the output.
 * The path helpers here serve the flame graph and pprof writers too.
 */
#include "output/out_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/settings.h"

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

static void path_push(struct pr_path *p, const char *name, enum pr_frame_kind kind,
		      const struct pr_frame *frame)
{
	if (p->n == p->cap) {
		p->cap = p->cap ? p->cap * 2 : 64;
		p->name = pr_xrealloc(p->name, (size_t)p->cap * sizeof(*p->name));
		p->kind = pr_xrealloc(p->kind, (size_t)p->cap * sizeof(*p->kind));
		p->frame = pr_xrealloc(p->frame, (size_t)p->cap * sizeof(*p->frame));
	}
	p->name[p->n] = name;
	p->frame[p->n] = frame;
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
				  kernel ? PF_KERNEL : PF_USER, &s->frames[i]);
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
			path_push(p, e->key[k].text ? e->key[k].text : "", PF_KEY, NULL);
	}
	int keys = p->n;
	push_stacks(p, e, false, use_func);
	push_stacks(p, e, true, use_func);
	/* no stack could be read (lost to a hash collision, or none of that
	 * kind here): one frame says so, so that the line still parses */
	if (any && p->n == keys)
		path_push(p, "[unknown]", PF_USER, NULL);
	return any;
}

void pr_path_free(struct pr_path *p)
{
	free(p->name);
	free(p->kind);
	free(p->frame);
	memset(p, 0, sizeof(*p));
}

/* a frame as one folded field: ";" separates frames and a newline ends
 * the line, so both become "_" (a comm or a string key may hold them) */
static void folded_frame(FILE *out, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' || *s == '\n' ? '_' : *s, out);
}

/* a frame without a symbol, as stackcollapse-perf.pl names it: the base
 * name of its file in brackets, or [unknown] */
static void folded_unnamed(FILE *out, const struct pr_frame *fr)
{
	const char *base = fr->file ? strrchr(fr->file, '/') : NULL;
	base = base ? base + 1 : fr->file;
	fputc('[', out);
	folded_frame(out, base && *base ? base : "unknown");
	fputc(']', out);
}

/* one output line: its frames, the summed value, its first entry's place */
struct fline {
	char *text;
	int64_t v;
	size_t first;
};

static int by_text(const void *a, const void *b)
{
	const struct fline *x = a, *y = b;
	int c = strcmp(x->text, y->text);
	return c ? c : (x->first > y->first) - (x->first < y->first);
}

static int by_value(const void *a, const void *b, void *is_unsigned)
{
	const struct fline *x = a, *y = b;
	int c = *(const bool *)is_unsigned ? ((uint64_t)x->v > (uint64_t)y->v) - ((uint64_t)x->v < (uint64_t)y->v)
					   : (x->v > y->v) - (x->v < y->v);
	return c ? c : (x->first > y->first) - (x->first < y->first);
}

static void folded_map(FILE *out, struct pr_map *m, uint32_t top, uint32_t div)
{
	if (!pr_is_stack_map(m))
		return;
	bool offsets = settings_int(SET_FOLDED_OFFSETS);
	size_t first = pr_map_order(m, &top, &div);
	struct pr_path p = {0};
	struct fline *l = pr_xrealloc(NULL, (m->nentries - first + 1) * sizeof(*l));
	size_t n = 0;
	for (size_t i = first; i < m->nentries; i++) {
		const struct pr_entry *e = &m->entries[i];
		if (!pr_stack_path(e, !offsets, &p))
			continue;
		size_t len = 0;
		FILE *s = open_memstream(&l[n].text, &len);
		if (!s)
			break;
		for (int f = 0; f < p.n; f++) {
			if (f)
				fputc(';', s);
			if (!offsets && p.frame[f] && !p.frame[f]->named)
				folded_unnamed(s, p.frame[f]);
			else
				folded_frame(s, p.name[f]);
		}
		fclose(s);
		l[n].v = m->is_unsigned ? (int64_t)((uint64_t)e->ival / div) : e->ival / (int64_t)div;
		l[n].first = n;
		n++;
	}
	pr_path_free(&p);
	/* equal lines are one, their values summed (wrapping as the map's do) */
	qsort(l, n, sizeof(*l), by_text);
	size_t k = 0;
	for (size_t i = 0; i < n; i++) {
		if (k && !strcmp(l[k - 1].text, l[i].text)) {
			l[k - 1].v = (int64_t)((uint64_t)l[k - 1].v + (uint64_t)l[i].v);
			free(l[i].text);
		} else {
			l[k++] = l[i];
		}
	}
	qsort_r(l, k, sizeof(*l), by_value, &m->is_unsigned);
	for (size_t i = 0; i < k; i++) {
		if (m->is_unsigned)
			fprintf(out, "%s %" PRIu64 "\n", l[i].text, (uint64_t)l[i].v);
		else
			fprintf(out, "%s %" PRId64 "\n", l[i].text, l[i].v);
		free(l[i].text);
	}
	free(l);
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
