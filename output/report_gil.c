/*
 * report_gil.c - the GIL in `sonde diagnose`'s report, and where the time
 * of each blind spot was lost.
 *
 * The cli (cli/diagnose_gil.c) fills dx_report.holders (the threads that
 * held a Python process's GIL while others waited for it, with the time
 * they waited) and dx_report.stacks (the stacks seen while time was lost:
 * the GIL holder's Python frames, sampled; for the other blind spots the
 * stack a thread left its CPU with, weighted by the time lost until it ran
 * again).  Like report.c, these are pure functions of the report.
 */
#include <inttypes.h>
#include <string.h>

#include "common/arena.h"
#include "output/output.h"

#define WHERE_TOP 3		/* stacks shown per blind spot */
#define WHERE_FRAMES 4		/* innermost frames shown per stack */

/* the first line of a stack's frames (its innermost frame) */
static const char *innermost(struct arena *a, const char *frames)
{
	return arena_printf(a, "%.*s", (int)strcspn(frames, "\n"), frames);
}

/* the stacks of blind spot c, heaviest first (at most WHERE_TOP), and the
 * total weight of all of them */
static int top_stacks(const struct dx_report *r, enum dx_cat c, const struct dx_stack **out,
		      uint64_t *total)
{
	int n = 0;
	*total = 0;
	/* throttling is a wait for a CPU: its stacks are the waits' */
	if (c == DX_THROTTLED)
		c = DX_RUNQ;
	for (int i = 0; i < r->nstacks; i++)
		if (r->stacks[i].cat == c)
			*total += r->stacks[i].weight;
	/* the heaviest not taken yet, WHERE_TOP times */
	for (; n < WHERE_TOP; n++) {
		const struct dx_stack *best = NULL;
		for (int i = 0; i < r->nstacks; i++) {
			const struct dx_stack *s = &r->stacks[i];
			bool taken = false;
			for (int k = 0; k < n; k++)
				taken |= out[k] == s;
			if (s->cat == c && s->weight && !taken && (!best || s->weight > best->weight))
				best = s;
		}
		if (!best)
			break;
		out[n] = best;
	}
	return n;
}

const char *dx_gil_evidence(struct arena *a, const struct dx_report *r, double share,
			    const struct dx_group *top)
{
	const char *e = arena_printf(a, "%s (pid %d) waited for the GIL %.0f %% of its time",
				     top->comm, top->pid, share * 100);
	uint64_t waited = 0;
	for (int i = 0; i < r->nholders; i++)
		waited += r->holders[i].ns;
	if (r->nholders && waited) {
		const struct dx_holder *h = &r->holders[0];
		e = arena_printf(a, "%s; the GIL was held meanwhile most by %s (tid %d, pid %d: %.0f %% "
				 "of the waits)", e, h->comm, h->tid, h->pid, 100.0 * h->ns / waited);
	}
	const struct dx_stack *st[WHERE_TOP];
	uint64_t total;
	if (top_stacks(r, DX_GIL, st, &total))
		e = arena_printf(a, "%s, running %s", e, innermost(a, st[0]->frames));
	return e;
}

const char *dx_gil_advice(void)
{
	return "take the CPU-bound Python work off the threads that wait: a process pool "
	       "(multiprocessing, ProcessPoolExecutor), code that releases the GIL (NumPy, "
	       "PyTorch, a C extension), or fewer threads running Python at once";
}

static const char *what_seen(enum dx_cat c)
{
	switch (c) {
	case DX_GIL:
		return "the GIL holder's stack, sampled";
	case DX_RUNQ: case DX_THROTTLED:
		return "the stack each thread waited with, by time";
	case DX_RUN: case DX_FAULT: case DX_IO: case DX_GPU: case DX_FUTEX: case DX_SLEEP:
	case DX_POLL: case DX_OTHER: case DX_NCAT:
		break;
	}
	return "the stack each thread slept with, by time";
}

void dx_where_text(FILE *out, const struct dx_report *r, enum dx_cat c)
{
	const struct dx_stack *st[WHERE_TOP];
	uint64_t total;
	int n = top_stacks(r, c, st, &total);
	if (!n || !total)
		return;
	fprintf(out, "     Seen most (%s):\n", what_seen(c));
	for (int i = 0; i < n; i++) {
		const char *f = st[i]->frames;
		for (int k = 0; k < WHERE_FRAMES && *f; k++) {
			int len = (int)strcspn(f, "\n");
			if (k == 0)
				fprintf(out, "       %3.0f %%  %.*s\n", 100.0 * st[i]->weight / total, len, f);
			else
				fprintf(out, "              %.*s\n", len, f);
			f += len + (f[len] == '\n');
		}
	}
}

static void json_str(FILE *out, const char *s)
{
	pr_json_string(out, s, strlen(s));
}

/* , "stacks": [{"frames": [...], "weight": W, "unit": "ns"|"samples"}, ...] */
void dx_where_json(FILE *out, const struct dx_report *r, enum dx_cat c)
{
	const struct dx_stack *st[WHERE_TOP];
	uint64_t total;
	int n = top_stacks(r, c, st, &total);
	fputs(", \"stacks\": [", out);
	for (int i = 0; i < n; i++) {
		fprintf(out, "%s{\"frames\": [", i ? ", " : "");
		const char *f = st[i]->frames;
		for (int k = 0; *f; k++) {
			size_t len = strcspn(f, "\n");
			fputs(k ? ", " : "", out);
			pr_json_string(out, f, len);
			f += len + (f[len] == '\n');
		}
		fprintf(out, "], \"weight\": %" PRIu64 ", \"unit\": \"%s\"}", st[i]->weight,
			st[i]->samples ? "samples" : "ns");
	}
	fputc(']', out);
}

/* , "gil_holders": [{"pid", "tid", "thread", "waited_ns"}, ...] */
void dx_gil_json(FILE *out, const struct dx_report *r)
{
	fputs(", \"gil_holders\": [", out);
	for (int i = 0; i < r->nholders; i++) {
		const struct dx_holder *h = &r->holders[i];
		fprintf(out, "%s{\"pid\": %d, \"tid\": %d, \"thread\": ", i ? ", " : "", h->pid, h->tid);
		json_str(out, h->comm);
		fprintf(out, ", \"waited_ns\": %" PRIu64 "}", h->ns);
	}
	fputc(']', out);
}

/* , "threads": [{"pid", "tid", "comm", "wall_ns", "ns": {...}, "gil_held_ns"}, ...]: each
 * thread's own figures (a group sums them) */
void dx_threads_json(FILE *out, const struct dx_report *r, const char *const *keys)
{
	fputs(", \"threads\": [", out);
	for (int i = 0; i < r->nthreads; i++) {
		const struct dx_thread *t = &r->threads[i];
		fprintf(out, "%s{\"pid\": %d, \"tid\": %d, \"comm\": ", i ? ", " : "", t->pid, t->tid);
		json_str(out, t->comm);
		fprintf(out, ", \"wall_ns\": %" PRIu64 ", \"ns\": {", t->wall_ns);
		for (int c = 0; c < DX_NCAT; c++)
			fprintf(out, "%s\"%s\": %" PRIu64, c ? ", " : "", keys[c], t->ns[c]);
		fprintf(out, "}, \"gil_held_ns\": %" PRIu64 ", \"gil_runq_ns\": %" PRIu64 "}", t->gil_held_ns,
			t->gil_runq_ns);
	}
	fputc(']', out);
}
