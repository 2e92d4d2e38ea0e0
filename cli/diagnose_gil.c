/*
 * diagnose_gil.c - the Python side of `sonde diagnose`: the GIL as a
 * blind spot (see diagnose_gil.h and docs/diagnose.md).
 *
 * A CPython thread that wants the GIL and finds it taken sleeps in futex
 * on the GIL's condition variable (or, briefly, its mutex): both live in
 * struct _gil_runtime_state, whose address host/python.c computes from
 * the interpreter's state.  So a futex wait whose address falls there is
 * a wait for the GIL: sys_enter marks the thread's syscall with a value no
 * syscall has (GIL_SC), and the blocked spell that follows is classed as
 * waiting for the GIL instead of futex, and so is the wait for a CPU
 * after its wakeup, until the syscall returns: a thread that dropped the
 * GIL waits (switch_cond) until the woken one runs and takes it, and a
 * waiter woken by its 5 ms timeout only goes back to sleep.  Waits on the
 * GIL's switch_cond and switch_mutex (the dropper's) count too.  At the same moment the GIL's
 * last_holder names the thread that holds it (its thread state's
 * native_thread_id, 3.11+; before, the kernel tid inside glibc's struct
 * pthread that thread_id points at), and the wait's time is counted to
 * that holder at sys_exit.
 *
 * What the holder does is sampled: at 99 Hz on each CPU, a service thread
 * that holds the GIL (locked, and last_holder is itself) counts a sample
 * of holding it, and while some thread of its process waits for the GIL,
 * a sample of its Python stack.  take_gil and drop_gil are static
 * functions of libpython (stripped from Debian's binary, inlined in some
 * builds), so no uprobe marks the moments the GIL changes hands; the
 * sampled holding time misses the time a holder spends off its CPU.
 */
#include "cli/diagnose_gil.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host/host.h"
#include "host/proc.h"
#include "host/python.h"
#include "stdlib/decode.h"

#define GIL_SC 65536		/* "syscall + 1" of a futex wait for the GIL */
#define SAMPLE_HZ 99
#define HOLDER_DEPTH 6		/* Python frames kept of a holder's stack */
#define WHERE_DEPTH 6		/* frames kept of a stack where time was lost */

struct dx_pyproc {
	int pid;
	struct py_proc *p;
	uint64_t gil;
	uint64_t tid_how;	/* the offset of the holder's tid, | 1 << 32: through pthread */
};

struct dx_name {
	int pid, tid;
	const char *name;
};

struct dx_py {
	struct arena *a;
	struct dx_pyproc *procs;
	int n;
	int64_t futex_nr;
	struct dx_name *names;	/* threading's names, the latest read first */
	int nnames;
};

struct dx_py *dxpy_open(struct arena *a, const int *pids, int n, int verbose)
{
	struct dx_py *py = arena_alloc(a, sizeof(*py));
	memset(py, 0, sizeof(*py));
	py->a = a;
	py->futex_nr = syscall_number("futex");
	for (int i = 0; i < n; i++) {
		struct py_proc *p;
		char err[512];
		int rc = py_proc_open(pids[i], &p, err, sizeof(err));
		if (rc == -ENOENT && !err[0])
			continue;	/* not Python */
		if (rc) {
			fprintf(stderr, "sonde diagnose: pid %d: %s: the GIL is not followed there\n", pids[i],
				err);
			continue;
		}
		const struct py_offsets *o = py_proc_offsets(p);
		uint64_t gil;
		if ((rc = py_proc_gil(p, &gil))) {
			fprintf(stderr, "sonde diagnose: pid %d (%s): cannot find its GIL (%s): the GIL is not "
				"followed there\n", pids[i], py_proc_file(p), strerror(-rc));
			py_proc_free(p);
			continue;
		}
		py->procs = arena_grow(a, py->procs, py->n, sizeof(*py->procs));
		py->procs[py->n++] = (struct dx_pyproc){
			.pid = pids[i], .p = p, .gil = gil,
			.tid_how = o->ts_native_tid != PY_NONE ? o->ts_native_tid
				: (1ull << 32) | o->ts_thread_id,
		};
		if (verbose)
			fprintf(stderr, "sonde diagnose: pid %d runs CPython 3.%d (%s), its GIL at 0x%" PRIx64 "\n",
				pids[i], py_proc_minor(p), py_proc_file(p), gil);
	}
	return py;
}

void dxpy_free(struct dx_py *py)
{
	for (int i = 0; py && i < py->n; i++)
		py_proc_free(py->procs[i].p);
}

void dxpy_begin(FILE *f, const struct dx_py *py)
{
	if (!py->n)
		return;
	fputs("BEGIN {", f);
	for (int i = 0; i < py->n; i++)
		fprintf(f, " @gil[%d] = 0x%" PRIx64 "; @gilto[%d] = 0x%" PRIx64 ";", py->procs[i].pid,
			py->procs[i].gil, py->procs[i].pid, py->procs[i].tid_how);
	fputs(" }\n", f);
}

/* $ht = the tid of the thread whose state $h is (0 when unreadable) */
#define HOLDER_TID \
"		$o = @gilto[pid];\n" \
"		if ($o > 0xffffffff) {\n" \
"			$ht = (uint64)*(uint32 *)uptr(*(uint64 *)uptr($h + ($o & 0xffffffff)) + " \
	STR(PY_PTHREAD_TID_OFF) ");\n" \
"		} else {\n" \
"			$ht = *(uint64 *)uptr($h + $o);\n" \
"		}\n"
#define STR_(x) #x
#define STR(x) STR_(x)

const char *dxpy_sys_enter(const struct dx_py *py)
{
	if (!py->n || py->futex_nr < 0)
		return "";
	/* a wait (FUTEX_WAIT, FUTEX_WAIT_BITSET, private or not) on the GIL's
	 * condition variable or mutex */
	return arena_printf(py->a,
"	if (args->id == %" PRId64 " && @gil[pid]) {\n"
"		$ga = @gil[pid]; $fa = args->args[0]; $op = args->args[1] & 127;\n"
"		if ($fa >= $ga + %d && $fa < $ga + %d && ($op == 0 || $op == 9)) {\n"
"		@sc[tid] = %d;\n"
"		$h = *(uint64 *)uptr($ga + %d);\n"
HOLDER_TID
"		@gilh[tid] = $ht; @gilwn[pid] += 1;\n"
"		}\n"
"	}\n", py->futex_nr, PY_GIL_COND, PY_GIL_WAIT_END, GIL_SC, PY_GIL_LAST_HOLDER);
}

const char *dxpy_sys_exit(const struct dx_py *py)
{
	if (!py->n)
		return "";
	return arena_printf(py->a,
"	if (@sc[tid] == %d) {\n"
"		@gilby[pid, @gilh[tid]] = sum($d); @gilwn[pid] -= 1; delete(@gilh[tid]);\n"
"	}\n", GIL_SC);
}

const char *dxpy_where(const struct dx_py *py, const char *t, const char *tgid, bool runq,
		       const char *dur, int64_t ioctl_nr)
{
	struct arena *a = py->a;
	/* the spell's kind: 0 a wait for a CPU, else its syscall + 1 and D */
	const char *code = runq ? "0" : arena_printf(a, "@bsc[%s] * 2 + @bd[%s] + 1", t, t);
	const char *rec = arena_printf(a, "@wrn[%s, %s, @wsn[%s]] = sum(%s);", t, code, t, dur);
	if (py->n)
		rec = arena_printf(a, "if (@gil[%s]) { @wrp[%s, %s, @wsp[%s], @wsn[%s]] = sum(%s); } "
				   "else { %s }", tgid, t, code, t, t, dur, rec);
	if (!runq)	/* asleep by its own choice is no blind spot: D sleeps and ioctls */
		return arena_printf(a, "			if (@bd[%s] || @bsc[%s] == %" PRId64 ") { %s }\n", t, t,
				    ioctl_nr + 1, rec);
	if (!py->n)
		return arena_printf(a, "			%s\n", rec);
	/* woken inside a futex wait for the GIL and waiting for a CPU: still
	 * waiting for the GIL (the thread that dropped it waits for this one
	 * to take it; a waiter woken by its 5 ms timeout only goes back to
	 * sleep) */
	return arena_printf(a, "			if (@sc[%s] == %d) { @gilq[%s] = sum(%s); } else { %s }\n", t,
			    GIL_SC, t, dur, rec);
}

void dxpy_probes(FILE *f, const struct dx_py *py)
{
	/* the stack a service thread leaves its CPU with (a program of its
	 * own: the stack walks would not fit in the 512 bytes of
	 * sched_switch's; current is still the thread leaving) */
	fputs("rawtracepoint:sched_switch /!@tend && @svt[((struct task_struct *)arg1)->pid]/ {\n"
	      "	@wsn[((struct task_struct *)arg1)->pid] = ustack(" STR(WHERE_DEPTH) ");\n"
	      "}\n", f);
	if (!py->n)
		return;
	fputs("rawtracepoint:sched_switch /!@tend && @svt[((struct task_struct *)arg1)->pid] &&\n"
	      "		@gil[((struct task_struct *)arg1)->tgid]/ {\n"
	      "	@wsp[((struct task_struct *)arg1)->pid] = pystack(" STR(WHERE_DEPTH) ");\n"
	      "}\n", f);
	fprintf(f,
"profile:hz:%d /!@tend && @svt[tid] && @gil[pid]/ {\n"
"	$ga = @gil[pid];\n"
"	if (*(int32 *)uptr($ga + %d) == 1) {\n"
"		$h = *(uint64 *)uptr($ga + %d);\n"
HOLDER_TID
"		if ($ht == tid) {\n"
"			@gilheld[tid] = count();\n"
"			if (@gilwn[pid] > 0) { @gilstk[tid, pystack(%d)] = count(); }\n"
"		}\n"
"	}\n"
"}\n", SAMPLE_HZ, PY_GIL_LOCKED, PY_GIL_LAST_HOLDER, HOLDER_DEPTH);
}

bool dxpy_gil_sc(uint64_t sc1)
{
	return sc1 == GIL_SC;
}

/* ---- threading's names --------------------------------------------------- */

struct name_ctx {
	struct dx_py *py;
	int pid;
};

static int add_name(int tid, const char *name, void *vctx)
{
	struct name_ctx *c = vctx;
	struct dx_py *py = c->py;
	py->names = arena_grow(py->a, py->names, (size_t)py->nnames, sizeof(*py->names));
	/* newest first: a later read of the same thread wins */
	memmove(py->names + 1, py->names, sizeof(*py->names) * (size_t)py->nnames);
	py->names[0] = (struct dx_name){c->pid, tid, arena_strdup(py->a, name)};
	py->nnames++;
	return 0;
}

void dxpy_snapshot(struct dx_py *py)
{
	for (int i = 0; i < py->n; i++) {
		struct name_ctx c = {py, py->procs[i].pid};
		py_proc_thread_names(py->procs[i].p, add_name, &c);
	}
}

static const char *py_name(const struct dx_py *py, int pid, int tid)
{
	for (int i = 0; i < py->nnames; i++)
		if (py->names[i].pid == pid && py->names[i].tid == tid)
			return py->names[i].name;
	return NULL;
}

/* ---- from the maps to the report ------------------------------------------- */

static const struct pr_map *find(const struct pr_map *maps, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(maps[i].name, name))
			return &maps[i];
	return NULL;
}

static uint64_t key_u(const struct pr_entry *e, int k)
{
	return k < e->nkey && e->key[k].text ? strtoull(e->key[k].text, NULL, 10) : 0;
}

/* a printed stack ("\n        frame\n        frame\n") as one frame a line */
static const char *frames_of(struct arena *a, const char *text, const char *none)
{
	char *out = arena_alloc(a, strlen(text) + 1), *o = out;
	for (const char *l = text; *l;) {
		size_t len = strcspn(l, "\n");
		const char *s = l;
		while (s < l + len && (*s == ' ' || *s == '\t'))
			s++;
		if (s < l + len) {
			if (o > out)
				*o++ = '\n';
			memcpy(o, s, (size_t)(l + len - s));
			o += l + len - s;
		}
		l += len + (l[len] == '\n');
	}
	*o = 0;
	return *out ? out : none;
}

static const char *thread_name(struct arena *a, const struct dx_report *r, int pid, int tid)
{
	for (int i = 0; i < r->nthreads; i++)
		if (r->threads[i].tid == tid)
			return r->threads[i].comm;
	char comm[64];
	host_proc_comm(pid, tid, comm, sizeof(comm));
	return *comm ? arena_strdup(a, comm) : "?";
}

static void add_stack(struct arena *a, struct dx_report *r, enum dx_cat c, const char *frames,
		      uint64_t weight, bool samples)
{
	int j;
	for (j = 0; j < r->nstacks; j++)
		if (r->stacks[j].cat == c && !strcmp(r->stacks[j].frames, frames))
			break;
	if (j == r->nstacks) {
		r->stacks = arena_grow(a, r->stacks, (size_t)r->nstacks, sizeof(*r->stacks));
		r->stacks[r->nstacks++] = (struct dx_stack){.cat = c, .frames = frames, .samples = samples};
	}
	r->stacks[j].weight += weight;
}

static int by_ns_desc(const void *p, const void *q)
{
	const struct dx_holder *a = p, *b = q;
	return a->ns < b->ns ? 1 : a->ns > b->ns ? -1 : a->tid - b->tid;
}

/* the stacks threads left their CPU with, by the time they lost */
static void where_report(struct arena *a, const struct pr_map *maps, int nmaps, struct dx_report *r,
			 enum dx_cat (*cat_of)(uint64_t sc1, bool d, int tid, const struct dx_report *r))
{
	static const char *const where[] = {"@wrp", "@wrn"};
	for (int w = 0; w < 2; w++) {
		const struct pr_map *m = find(maps, nmaps, where[w]);
		for (size_t i = 0; m && i < m->nentries; i++) {
			const struct pr_entry *e = &m->entries[i];
			uint64_t code = key_u(e, 1);
			if (e->nkey < 3 || !e->key[2].text)
				continue;
			enum dx_cat c = code ? cat_of((code - 1) >> 1, (code - 1) & 1, (int)key_u(e, 0), r)
					     : DX_RUNQ;
			if (c == DX_GIL)
				continue;	/* the GIL's stacks are the holder's */
			/* Python frames where the thread ran Python, native otherwise */
			const char *frames = frames_of(a, e->key[2].text, "");
			if (!*frames && e->nkey > 3 && e->key[3].text)
				frames = frames_of(a, e->key[3].text, "");
			add_stack(a, r, c, *frames ? frames : "(no stack)", (uint64_t)e->ival, false);
		}
	}
}

void dxpy_report(struct dx_py *py, const struct pr_map *maps, int nmaps, struct dx_report *r,
		 enum dx_cat (*cat_of)(uint64_t sc1, bool d, int tid, const struct dx_report *r))
{
	struct arena *a = py->a;
	where_report(a, maps, nmaps, r, cat_of);
	if (!py->n)
		return;
	/* threads under their threading names, where the interpreter has them */
	dxpy_snapshot(py);
	for (int t = 0; t < r->nthreads; t++) {
		const char *name = py_name(py, r->threads[t].pid, r->threads[t].tid);
		if (name)
			r->threads[t].comm = name;
	}
	const struct pr_map *held = find(maps, nmaps, "@gilheld");
	for (size_t i = 0; held && i < held->nentries; i++)
		for (int t = 0; t < r->nthreads; t++)
			if ((uint64_t)r->threads[t].tid == key_u(&held->entries[i], 0))
				r->threads[t].gil_held_ns =
					(uint64_t)held->entries[i].ival * (1000000000ull / SAMPLE_HZ);
	/* the waits for a CPU inside futex waits for the GIL */
	const struct pr_map *q = find(maps, nmaps, "@gilq");
	for (size_t i = 0; q && i < q->nentries; i++)
		for (int t = 0; t < r->nthreads; t++) {
			struct dx_thread *th = &r->threads[t];
			uint64_t ns = (uint64_t)q->entries[i].ival;
			if ((uint64_t)th->tid != key_u(&q->entries[i], 0))
				continue;
			if (ns > th->ns[DX_RUNQ])
				ns = th->ns[DX_RUNQ];
			th->ns[DX_RUNQ] -= ns;
			th->ns[DX_GIL] += ns;
			th->gil_runq_ns += ns;
		}
	const struct pr_map *by = find(maps, nmaps, "@gilby");
	r->holders = arena_new_array(a, struct dx_holder, by && by->nentries ? by->nentries : 1);
	for (size_t i = 0; by && i < by->nentries; i++) {
		int pid = (int)key_u(&by->entries[i], 0), tid = (int)key_u(&by->entries[i], 1);
		if (tid <= 0)
			continue;	/* the holder could not be read */
		/* its id in its own PID namespace (a container's): sonde's */
		for (int k = 0; k < py->n; k++)
			if (py->procs[k].pid == pid) {
				int host = py_proc_host_tid(py->procs[k].p, tid);
				tid = host > 0 ? host : tid;
			}
		r->holders[r->nholders++] = (struct dx_holder){
			.pid = pid, .tid = tid, .comm = thread_name(a, r, pid, tid),
			.ns = (uint64_t)by->entries[i].ival,
		};
	}
	qsort(r->holders, (size_t)r->nholders, sizeof(*r->holders), by_ns_desc);
	const struct pr_map *stk = find(maps, nmaps, "@gilstk");
	for (size_t i = 0; stk && i < stk->nentries; i++) {
		const struct pr_entry *e = &stk->entries[i];
		add_stack(a, r, DX_GIL, frames_of(a, e->nkey > 1 && e->key[1].text ? e->key[1].text : "",
						  "(no Python frame: the holder runs C code)"),
			  (uint64_t)e->ival, true);
	}

}
