/*
 * exited.c - stacks of processes that have exited: named, and what is kept
 * for them bounded.
 *
 * A user stack is recorded by the kernel at event time as {build-id, file
 * offset} per frame (BPF_F_USER_BUILD_ID, stdlib/stacks.c), so naming it
 * needs only a file with that build-id, found long after the process is
 * gone: the files processes map (read when a pid's first stack arrives,
 * EV_PID_SEEN), the file each exec names (EV_EXEC, from the program this
 * file loads on sched:sched_process_exec: the exec'd binary of a process
 * that lives a millisecond, and the libraries it names, are known before
 * its first stack is read), and,
 * when a frame names a build-id none of those had, a walk of every live
 * process's mappings (at most every SCAN_EVERY_S seconds).
 *
 * A frame the kernel could not give a build-id for (a file without one,
 * anonymous code, the build-id's page not in memory, the mm lock taken)
 * is an address of that process, named through its mappings, which must
 * be read while it lives; those are per-process state, kept in procstate
 * (procstate.h) with the other per-process readers: captured at
 * EV_PID_SEEN, released once the maps that can hold the pid's stacks
 * have all been printed, cleared or scraped and the process is gone, and
 * at most SONDE_PROCSTATE_MAX (PS_MAX_DEFAULT) processes at once, the
 * least recently used evicted beyond that, with a warning.
 */
#include "runtime/rt_int.h"
#include "runtime/procstate.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "host/host.h"

#define SCAN_EVERY_S 5.0
/* text mode sweeps at most this often: a sweep reads /proc/PID/stat of
 * every process kept (300 processes and a print every millisecond took a
 * whole CPU); a later sweep only keeps state longer */
#define SWEEP_EVERY_S 1.0
#define EXEC_PATH_MAX 256	/* bytes of the exec'd path an EV_EXEC carries */

struct rt_procs {
	struct procstate *ps;
	int syms;		/* the symbol cache's client index */
	int seen_fd;		/* the BPF "pids_seen" map, -1 when none */
	bool *holds;		/* by map id: can hold user stacks or usym */
	bool *done;		/* ... printed or cleared since the last sweep */
	double next_scan;
	double next_sweep;	/* text mode: not before this (SWEEP_EVERY_S) */
	uint64_t warned_evicted;
};

static double now_s(void)
{
	return (double)rt_mono_ns() / 1e9;
}

/* ---- the symbol cache as a procstate client ------------------------------------ */

static int syms_capture(void *ctx, int pid, void **slot)
{
	struct rt *rt = ctx;
	(void)slot;
	/* native frames only (pids_seen: ustack, usym); a process that only
	 * pystack met (procstate's python client) needs no mappings read */
	if (rt->procs->seen_fd >= 0)
		rt_prime_pid(rt, pid);
	return 0;
}

static void syms_release(void *ctx, int pid, void *slot)
{
	struct rt *rt = ctx;
	(void)slot;
	if (rt->sym.cache)
		rs_symcache_forget(rt->sym.cache, pid);
	/* a later process given this pid sends its first stack again */
	uint32_t k = (uint32_t)pid;
	if (rt->procs->seen_fd >= 0)
		bpf_map_delete_elem(rt->procs->seen_fd, &k);
}

static bool user_addrs(const struct type *t)
{
	return t->kind == TY_USTACK || t->kind == TY_USYM;
}

static struct rt_procs *procs(struct rt *rt)
{
	if (rt->procs)
		return rt->procs;
	struct rt_procs *p = calloc(1, sizeof(*p));
	const char *env = getenv("SONDE_PROCSTATE_MAX");
	size_t max = env ? strtoul(env, NULL, 10) : 0;
	int n = rt->r->nmaps ? rt->r->nmaps : 1;
	if (!p || !(p->ps = ps_new(max)) || !(p->holds = calloc((size_t)n, 1)) ||
	    !(p->done = calloc((size_t)n, 1))) {
		if (p)
			ps_free(p->ps);
		free(p ? p->holds : NULL);
		free(p);
		return NULL;
	}
	rt->procs = p;
	p->seen_fd = bpf_object__find_map_fd_by_name(rt->bpf, "pids_seen");
	for (int i = 0; i < rt->r->nmaps; i++) {
		const struct sema_map *m = rt->r->maps[i];
		p->holds[m->id] = type_any(&m->key, user_addrs) || type_any(&m->value, user_addrs);
	}
	p->syms = ps_register(p->ps, &(struct ps_client){.name = "symbols", .capture = syms_capture,
							 .release = syms_release, .ctx = rt});
	return p;
}

void rt_ps_capture(struct rt *rt, int pid)
{
	struct rt_procs *p = procs(rt);
	if (!p || pid <= 0)
		return;
	ps_capture(p->ps, pid);
	struct ps_stats st;
	ps_stats(p->ps, &st);
	if (st.evicted && !p->warned_evicted)
		diag_warnf("more than %zu processes' mappings are kept (SONDE_PROCSTATE_MAX): "
			   "the least recently used are dropped, and the address frames of their "
			   "stacks may print unnamed\n", st.live);
	p->warned_evicted = st.evicted;
}

int rt_ps_register(struct rt *rt, const struct ps_client *cl)
{
	struct rt_procs *p = procs(rt);
	return p ? ps_register(p->ps, cl) : -ENOMEM;
}

void *rt_ps_get(struct rt *rt, int pid, int client)
{
	return rt->procs ? ps_get(rt->procs->ps, pid, client) : NULL;
}

void rt_ps_touch(struct rt *rt, int pid)
{
	if (rt->procs)
		ps_touch(rt->procs->ps, pid);
}

void rt_ps_stats(struct rt *rt, uint64_t *kept, uint64_t *evicted)
{
	struct ps_stats st = {0};
	if (rt->procs)
		ps_stats(rt->procs->ps, &st);
	*kept = st.live;
	*evicted = st.evicted;
}

void rt_ps_sweep(struct rt *rt)
{
	if (!rt->procs)
		return;
	ps_sweep(rt->procs->ps);
	/* the files of the processes released: what is kept for them
	 * bounded (between prints: no name handed out is in use) */
	if (rt->sym.cache)
		rs_symcache_trim(rt->sym.cache, RS_SYMCACHE_KEEP_OPEN);
}

void rt_ps_map_done(struct rt *rt, const struct sema_map *m)
{
	struct rt_procs *p = rt->procs;
	if (!p || !p->holds[m->id])
		return;
	p->done[m->id] = true;
	for (int i = 0; i < rt->r->nmaps; i++)
		if (p->holds[rt->r->maps[i]->id] && !p->done[rt->r->maps[i]->id])
			return;
	/* every map that can hold a process's stacks was read or cleared:
	 * the next pass starts; a sweep once a second at most */
	memset(p->done, 0, (size_t)rt->r->nmaps);
	double now = now_s();
	if (now < p->next_sweep)
		return;
	p->next_sweep = now + SWEEP_EVERY_S;
	rt_ps_sweep(rt);
}

void rt_ps_free(struct rt *rt)
{
	if (!rt->procs)
		return;
	rt->procs->seen_fd = -1;	/* closed with the BPF object already */
	ps_free(rt->procs->ps);
	free(rt->procs->holds);
	free(rt->procs->done);
	free(rt->procs);
	rt->procs = NULL;
}

/* ---- exec ------------------------------------------------------------------------- */

/* EV_EXEC: {u64 pid, char path[EXEC_PATH_MAX]} */
void rt_exec_event(struct rt *rt, const uint8_t *args, size_t len)
{
	uint64_t pid;
	char path[EXEC_PATH_MAX + 1];
	if (len < 8)
		return;
	memcpy(&pid, args, 8);
	size_t n = strnlen((const char *)args + 8, len - 8 < EXEC_PATH_MAX ? len - 8 : EXEC_PATH_MAX);
	memcpy(path, args + 8, n);
	path[n] = '\0';
	struct rs_symcache *c = rt_symcache(rt);
	if (c)
		rs_symcache_add_path(c, (int)pid, path);
	rt_unwind_exec(rt, (int)pid, path);
	/* the pid's mappings are another program's now: its next stack reads
	 * them again (pids_seen forgets it) */
	uint32_t k = (uint32_t)pid;
	if (rt->procs)
		ps_exec(rt->procs->ps, (int)pid);
	if (rt->procs && rt->procs->seen_fd >= 0)
		bpf_map_delete_elem(rt->procs->seen_fd, &k);
}

#define INSN(c, d, s, o, i) ((struct bpf_insn){.code = (c), .dst_reg = (d), .src_reg = (s), .off = (o), .imm = (i)})

int rt_exec_watch(struct rt *rt)
{
	/* only a script with user stacks needs it (pids_seen: stdlib/stacks.c);
	 * with -p the one process traced is read at its first stack */
	if (rt->o->pid)
		return 0;
	/* BEGIN and END alone see no other process */
	bool others = false;
	for (int i = 0; i < rt->r->nprobes && !others; i++)
		for (int j = 0; j < rt->r->probes[i].nattach; j++)
			others |= !sema_provider(rt->r->probes[i].attach[j].type)->runs_once;
	if (!others)
		return 0;
	int rb = bpf_object__find_map_fd_by_name(rt->bpf, CG_RINGBUF_MAP);
	if (bpf_object__find_map_fd_by_name(rt->bpf, "pids_seen") < 0 || rb < 0 || !procs(rt))
		return 0;
	/* sched_process_exec: u32 __data_loc filename at 8, pid at 12 */
	const struct bpf_insn prog[] = {
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_6, BPF_REG_1, 0, 0),
		INSN(BPF_LD | BPF_DW | BPF_IMM, BPF_REG_1, BPF_PSEUDO_MAP_FD, 0, rb), INSN(0, 0, 0, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 16 + EXEC_PATH_MAX),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_3, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_reserve),
		INSN(BPF_JMP | BPF_JEQ | BPF_K, BPF_REG_0, 0, 15, 0),	/* full: to the end */
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_7, BPF_REG_0, 0, 0),
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_7, 0, 0, EV_EXEC),
		INSN(BPF_ST | BPF_MEM | BPF_W, BPF_REG_7, 0, 4, 0),
		INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_1, BPF_REG_6, 12, 0),
		INSN(BPF_STX | BPF_MEM | BPF_DW, BPF_REG_7, BPF_REG_1, 8, 0),
		INSN(BPF_LDX | BPF_MEM | BPF_W, BPF_REG_3, BPF_REG_6, 8, 0),
		INSN(BPF_ALU64 | BPF_AND | BPF_K, BPF_REG_3, 0, 0, 0xffff),
		INSN(BPF_ALU64 | BPF_ADD | BPF_X, BPF_REG_3, BPF_REG_6, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_7, 0, 0),
		INSN(BPF_ALU64 | BPF_ADD | BPF_K, BPF_REG_1, 0, 0, 16),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, EXEC_PATH_MAX),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_probe_read_kernel_str),
		INSN(BPF_ALU64 | BPF_MOV | BPF_X, BPF_REG_1, BPF_REG_7, 0, 0),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_2, 0, 0, 0),
		INSN(BPF_JMP | BPF_CALL, 0, 0, 0, BPF_FUNC_ringbuf_submit),
		INSN(BPF_ALU64 | BPF_MOV | BPF_K, BPF_REG_0, 0, 0, 0),
		INSN(BPF_JMP | BPF_EXIT, 0, 0, 0, 0),
	};
	int id = -1;
	char fn[4096];
	const char *root = tfs_root();
	if (root) {
		snprintf(fn, sizeof(fn), "%s/events/sched/sched_process_exec/id", root);
		FILE *f = fopen(fn, "re");
		if (f && fscanf(f, "%d", &id) != 1)
			id = -1;
		if (f)
			fclose(f);
	}
	int pfd = -1, link = -1;
	int pr = bpf_prog_load(BPF_PROG_TYPE_TRACEPOINT, "sonde_exec", "GPL", prog,
			       sizeof(prog) / sizeof(prog[0]), NULL);
	if (pr >= 0 && id >= 0) {
		struct perf_event_attr a = {.type = PERF_TYPE_TRACEPOINT, .size = sizeof(a),
					    .config = (uint64_t)id, .sample_period = 1, .wakeup_events = 1};
		pfd = (int)syscall(SYS_perf_event_open, &a, -1, 0, -1, PERF_FLAG_FD_CLOEXEC);
	}
	if (pfd >= 0)
		link = bpf_link_create(pr, pfd, BPF_PERF_EVENT, NULL);
	bool held = link >= 0;
	if (pfd >= 0 && link < 0 && !ioctl(pfd, PERF_EVENT_IOC_SET_BPF, pr) &&
	    !ioctl(pfd, PERF_EVENT_IOC_ENABLE, 0))
		link = pfd;	/* before 5.15 (no perf links): closing the event detaches */
	if (pr >= 0)
		close(pr);
	if (link < 0) {
		/* stacks of processes that exit before sonde reads them may
		 * then print addresses of their own binary */
		if (rt->o->verbose)
			fprintf(stderr, "sonde: cannot watch execs (sched:sched_process_exec): %s\n",
				strerror(errno));
		if (pfd >= 0)
			close(pfd);
		return 0;
	}
	/* destroyed with the probes' links; the event closed in the
	 * background, as the probes' tracepoints are (detach.c) */
	rt_add_link_fd(rt, link);
	if (held)
		rt_hold_event(rt, pfd);
	return 0;
}

/* ---- build-id frames --------------------------------------------------------------- */

int rt_ustack_bid_frame(struct rt *rt, const uint8_t *p, struct vf_frame *f, uint64_t *ip)
{
	struct bpf_stack_build_id b;
	memcpy(&b, p, sizeof(b));
	if (b.status == BPF_STACK_BUILD_ID_EMPTY)
		return 0;
	if (b.status != BPF_STACK_BUILD_ID_VALID) {
		*ip = b.ip;
		return 2;
	}
	struct rs_symcache *c = rt_symcache(rt);
	struct rs_usym u = {0};
	int rc = c ? rs_usym_build_id(c, b.build_id, b.offset, &u) : -ENOMEM;
	if (rc == -ESRCH && c && procs(rt) && now_s() >= rt->procs->next_scan) {
		/* a file no process sonde read maps, nor an exec named */
		rt->procs->next_scan = now_s() + SCAN_EVERY_S;
		rs_symcache_scan(c);
		rc = rs_usym_build_id(c, b.build_id, b.offset, &u);
	}
	/* unnamed: the offset in its file, as the address of a file at 0 */
	*f = (struct vf_frame){.addr = u.vaddr ? u.vaddr : b.offset, .module = u.file};
	if (!rc && u.name) {
		f->sym = vf_demangle(rt->a, u.name);
		f->off = u.off;
	}
	return 1;
}
