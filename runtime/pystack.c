/*
 * pystack.c - the user-space half of pystack (stdlib/python.c).
 *
 * Before the probes' first events (rt_py_start: the -p process) and when
 * BPF asks (EV_PY_SCAN: a pid it has not met, or a thread of a Python pid
 * missing from py_threads, at most once a second per pid), a process is
 * scanned: its interpreter is found and its layout written to py_procs
 * (host/python.c), and each thread state of each interpreter to
 * py_threads under the thread's id.  A process that is not Python gets
 * ok = 0 there, so BPF stops asking; an interpreter sonde cannot read gets
 * the same and one warning naming the pid, the file and why.  When a stack
 * prints, each (code object, instruction) is named through the process's
 * cache of code objects (py_proc_frame); a process that exited keeps what
 * was read while it lived: each new stack comes as an event
 * (EV_PY_STACK) and its code objects are read then, while they live.
 * The per-process state is a procstate client (exited.c): captured with
 * the process, released once it is gone and its stacks were printed, or
 * when the cap evicts it.
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "host/proc.h"
#include "host/python.h"
#include "output/output.h"
#include "runtime/procstate.h"

struct py_pid {
	struct py_proc *p;	/* NULL: not Python, or unreadable */
	uint64_t *tids;		/* the threads last put in py_threads */
	size_t ntids;
};

/* the processes are procstate's (exited.c): a py_pid is the slot of the
 * client "python", captured with the process and released when it is
 * gone (or evicted), so that a later process of that pid is scanned anew
 * and py_procs and py_threads do not fill with the dead */
struct rt_py {
	int procs_fd, threads_fd;
	int client;		/* procstate's index of this reader */
};

static int py_capture(void *ctx, int pid, void **slot);
static void py_release(void *ctx, int pid, void *slot);

static struct rt_py *state(struct rt *rt)
{
	if (rt->py)
		return rt->py;
	int pfd = bpf_object__find_map_fd_by_name(rt->bpf, "py_procs");
	int tfd = bpf_object__find_map_fd_by_name(rt->bpf, "py_threads");
	if (pfd < 0 || tfd < 0 || !(rt->py = calloc(1, sizeof(*rt->py))))
		return NULL;
	rt->py->procs_fd = pfd;
	rt->py->threads_fd = tfd;
	rt->py->client = rt_ps_register(rt, &(struct ps_client){.name = "python", .capture = py_capture,
								 .release = py_release, .ctx = rt});
	if (rt->py->client < 0) {
		free(rt->py);
		rt->py = NULL;
	}
	return rt->py;
}

/* pid's state (touched: in use), NULL when it has none */
static struct py_pid *find(struct rt *rt, int pid)
{
	struct rt_py *s = state(rt);
	return s ? rt_ps_get(rt, pid, s->client) : NULL;
}

struct thread_ctx {
	int fd;
	uint64_t *tids;
	size_t n, cap;
};

static int put_thread(int tid, uint64_t tstate, void *vctx)
{
	struct thread_ctx *c = vctx;
	uint64_t key = (uint64_t)tid;
	if (tid <= 0 || bpf_map_update_elem(c->fd, &key, &tstate, BPF_ANY))
		return 0;
	if (c->n == c->cap) {
		size_t cap = c->cap ? c->cap * 2 : 16;
		uint64_t *t = realloc(c->tids, cap * sizeof(*t));
		if (!t)
			return 0;
		c->tids = t;
		c->cap = cap;
	}
	c->tids[c->n++] = key;
	return 0;
}

/* the threads of e's last scan that this one did not find: gone, their
 * thread states freed (a tid used again must not walk one) */
static void drop_gone(int fd, struct py_pid *e, const struct thread_ctx *now)
{
	for (size_t i = 0; i < e->ntids; i++) {
		bool found = false;
		for (size_t j = 0; j < now->n && !found; j++)
			found = now->tids[j] == e->tids[i];
		if (!found)
			bpf_map_delete_elem(fd, &e->tids[i]);
	}
}

/* each thread state of e into py_threads, the threads gone out of it */
static void scan_threads(struct rt_py *s, struct py_pid *e)
{
	if (!e->p)
		return;
	struct thread_ctx c = {.fd = s->threads_fd};
	py_proc_threads(e->p, put_thread, &c);
	drop_gone(s->threads_fd, e, &c);
	free(e->tids);
	e->tids = c.tids;
	e->ntids = c.n;
}

/* e's threads and its layout out of the BPF maps (none after the BPF
 * object is closed: rt->py is gone then), and e */
static void py_pid_free(struct rt *rt, int pid, struct py_pid *e)
{
	struct rt_py *s = rt->py;
	if (s) {
		struct thread_ctx none = {0};
		drop_gone(s->threads_fd, e, &none);
		uint64_t key = (uint64_t)pid;
		bpf_map_delete_elem(s->procs_fd, &key);
	}
	py_proc_free(e->p);
	free(e->tids);
	free(e);
}

/* a process procstate meets (first seen, or exec'd: read anew): its
 * interpreter into py_procs (ok = 0 when it is not Python, so BPF stops
 * asking), its threads into py_threads */
static int py_capture(void *ctx, int pid, void **slot)
{
	struct rt *rt = ctx;
	struct rt_py *s = rt->py;
	/* captured again (it exec'd: procstate.h): read anew, but one that
	 * is gone keeps the code objects read while it
	 * lived (its stacks are still to be printed) */
	if (*slot && (!host_proc_exists(pid) || host_proc_zombie(pid)))
		return 0;
	if (*slot)
		py_pid_free(rt, pid, *slot);
	struct py_pid *e = calloc(1, sizeof(*e));
	*slot = e;
	if (!s || !e)
		return -ENOMEM;
	char err[512];
	struct py_bpf_offs o = {0};
	int rc = py_proc_open(pid, &e->p, err, sizeof(err));
	if (rc && rc != -ENOENT && rc != -ESRCH)
		diag_warnf("pid %d: cannot read its Python stacks: %s; its pystack is empty\n", pid, err);
	if (!rc) {
		py_bpf_offsets(py_proc_offsets(e->p), &o);
		if (rt->o->verbose)
			fprintf(stderr, "sonde: pid %d runs CPython 3.%d (%s)\n", pid, py_proc_minor(e->p),
				py_proc_file(e->p));
	}
	uint64_t key = (uint64_t)pid;
	bpf_map_update_elem(s->procs_fd, &key, &o, BPF_ANY);
	scan_threads(s, e);
	return 0;
}

static void py_release(void *ctx, int pid, void *slot)
{
	if (slot)
		py_pid_free(ctx, pid, slot);
}

void rt_py_scan(struct rt *rt, int pid)
{
	struct rt_py *s = state(rt);
	if (!s || pid <= 0)
		return;
	struct py_pid *e = find(rt, pid);
	if (e)	/* a thread BPF has not met: the threads again */
		scan_threads(s, e);
	else	/* every per-process reader's first look at pid, ours included */
		rt_ps_capture(rt, pid);
}

void rt_py_start(struct rt *rt)
{
	/* registered with procstate before the first process is captured */
	if (state(rt) && rt->o->pid > 0)
		rt_py_scan(rt, rt->o->pid);
}

static struct vf_frame py_vf_frame(struct rt *rt, struct py_proc *p, uint64_t code, uint64_t instr)
{
	struct py_frame pf;
	code &= ~3ull;	/* the shim and entry marks */
	if (py_proc_frame(p, code, instr, &pf))
		return (struct vf_frame){.addr = code, .py = true};
	return (struct vf_frame){.addr = code, .sym = arena_strdup(rt->a, pf.name),
				 .module = arena_strdup(rt->a, pf.file),
				 .off = (uint64_t)(pf.line > 0 ? pf.line : 0), .py = true};
}

/* the native frames f[0..n) with each frame of the interpreter's eval
 * function replaced by the Python frames it ran (words: a pystack key),
 * in the order py_mix() gives.  The count (<= cap). */
int rt_py_mixed(struct rt *rt, const uint64_t *words, uint32_t nwords, struct vf_frame *f, int n,
		int cap)
{
	struct py_pid *e = words && nwords ? find(rt, (int)words[0]) : NULL;
	uint32_t depth = nwords ? (nwords - 1) / 2 : 0;
	if (!e || !e->p || n < 0)
		return n;
	struct vf_frame *native = arena_new_array(rt->a, struct vf_frame, n ? n : 1);
	bool *eval = arena_new_array(rt->a, bool, n ? n : 1);
	int *order = arena_new_array(rt->a, int, (size_t)cap);
	memcpy(native, f, (size_t)n * sizeof(*f));
	for (int k = 0; k < n; k++)
		eval[k] = native[k].sym && !strcmp(native[k].sym, "_PyEval_EvalFrameDefault");
	int m = py_mix(py_proc_minor(e->p), eval, n, words + 1, depth, order, cap);
	for (int j = 0; j < m; j++)
		f[j] = order[j] >= 0 ? native[order[j]]
				     : py_vf_frame(rt, e->p, words[1 + 2 * (uint32_t)~order[j]],
						   words[2 + 2 * (uint32_t)~order[j]]);
	return m;
}

int rt_py_frames(struct rt *rt, const uint64_t *words, uint32_t nwords, struct vf_frame *f)
{
	struct py_pid *e = nwords ? find(rt, (int)words[0]) : NULL;
	uint32_t depth = nwords ? (nwords - 1) / 2 : 0;
	if (!e || !e->p)
		return 0;
	int n = 0;
	for (uint32_t i = 0; i < depth; i++) {
		uint64_t code = words[1 + 2 * i], instr = words[2 + 2 * i];
		if (!code)
			break;
		if (code & 1)	/* a C shim frame (stdlib/python.c) */
			continue;
		f[n++] = py_vf_frame(rt, e->p, code, instr);
	}
	return n;
}

void rt_py_name_stack(struct rt *rt, const uint8_t *key, size_t len)
{
	uint64_t w[1 + 2 * 127];
	size_t n = len / 8 < sizeof(w) / 8 ? len / 8 : sizeof(w) / 8;
	memcpy(w, key, n * 8);
	struct py_pid *e = n ? find(rt, (int)w[0]) : NULL;
	struct py_frame pf;
	for (size_t i = 0; e && e->p && 2 + 2 * i < n && w[1 + 2 * i]; i++)
		if (!(w[1 + 2 * i] & 1))
			py_proc_frame(e->p, w[1 + 2 * i] & ~3ull, w[2 + 2 * i], &pf);
}

/* the -c child is stopped in its exit (rt_child_wait): the stacks it sent
 * (EV_PY_STACK) are named now, while its code objects live, rather than
 * after it is gone.  At most PY_EXIT_MS, whatever else fills the ring, and
 * not past a stop (its drain follows). */
#define PY_EXIT_MS 500
void rt_py_at_exit(struct rt *rt)
{
	if (!rt->py || !rt->rb)
		return;
	uint64_t until = rt_mono_ns() + PY_EXIT_MS * 1000000ull;
	while (rt_events_consume(rt) >= 0 && rt->ev.more && rt_mono_ns() < until)
		;
}

void rt_py_free(struct rt *rt)
{
	/* the processes' states go with procstate's (rt_ps_free), after this:
	 * the BPF object is closed, so no map is written then */
	free(rt->py);
	rt->py = NULL;
}
