/*
 * agent.c - libsonde-agent.so: loaded with LD_PRELOAD, it waits for a
 * sonde on a Unix socket and, while one is connected, runs its probe
 * programs at the entries and returns of the functions it names.
 *
 * Until a sonde connects the agent is one thread blocked in accept() on
 * <run dir>/agent-<pid>-<nonce>.sock (SONDE_RUN_DIR, default /run/sonde;
 * bind-mount that directory into a container and its processes are
 * reachable from the host).  sonde tells agents apart by the peer
 * credentials of the connection, which name the process as sonde's pid
 * namespace sees it, so socket names only have to be unique.
 *
 * Per thread (initial-exec TLS, so the hot path has no lookups): a busy
 * flag (a probe body never runs inside another, nor on the agent's own
 * thread, so the agent's mallocs are never counted), the shard it writes,
 * its tid and comm, and the shadow stack of return addresses that return
 * probes swapped.  A shadow entry remembers the stack pointer it belongs
 * to, so entries left behind by longjmp or exceptions are dropped, never
 * returned to.
 *
 * Detaching restores each entry (last hooked first) and turns the sites
 * off; stubs, site records and the session's shared memory stay mapped,
 * so a thread still inside a stub, a probe body or a swapped return
 * finishes normally.
 */
#include "agent/agent_int.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#define SHADOW	128
#define TLS	__thread __attribute__((tls_model("initial-exec")))

struct site_rt {
	struct sa_hook hook;
	struct session *sess;
	uint64_t addr, cookie;
	const struct bpf_insn *insns;
	uint32_t ninsns;
	bool ret;
	volatile bool active;
};

struct session {
	uint8_t *shm;
	size_t size;
	struct sa_shm *hdr;
	struct sa_map *maps;
	struct site_rt *sites;
	uint32_t nsites;
	uint64_t id;
};

static pthread_mutex_t go_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t go_cond = PTHREAD_COND_INITIALIZER;
static bool go;

static void let_go(void)
{
	pthread_mutex_lock(&go_lock);
	go = true;
	pthread_cond_broadcast(&go_cond);
	pthread_mutex_unlock(&go_lock);
}

static struct {
	char path[sizeof(((struct sockaddr_un *)0)->sun_path)];
	int listen_fd;
	pid_t pid;
	uint64_t next_session;
	struct session *cur;
} ag = {.listen_fd = -1};

struct shadow {
	uint64_t ret, sp;
	struct site_rt *site;
};

static TLS int t_busy;
static TLS int32_t t_shard = -1;
static TLS uint64_t t_session;
static TLS uint64_t t_tid;
static TLS char t_comm[16];
static TLS uint32_t t_depth;
static TLS struct shadow t_stack[SHADOW];

/* ---- the hot path ------------------------------------------------------------ */

/* a shard for this thread in s: a free one, else one whose thread is gone */
static int32_t take_shard(struct session *s)
{
	uint64_t tid = t_tid;
	for (int pass = 0; pass < 2; pass++)
		for (int32_t i = 0; i < SA_NSHARDS; i++) {
			uint64_t owner = __atomic_load_n(&s->hdr->shard_owner[i], __ATOMIC_ACQUIRE);
			if (pass == 0 ? owner != 0
				      : owner == 0 || syscall(SYS_tgkill, ag.pid, (pid_t)owner, 0) == 0 || errno != ESRCH)
				continue;
			if (__atomic_compare_exchange_n(&s->hdr->shard_owner[i], &owner, tid, 0, __ATOMIC_ACQ_REL,
							__ATOMIC_ACQUIRE))
				return i;
		}
	return -1;
}

static void thread_join(struct session *s)
{
	if (!t_tid) {
		t_tid = (uint64_t)syscall(SYS_gettid);
		prctl(PR_GET_NAME, t_comm, 0, 0, 0);
	}
	t_session = s->id;
	t_shard = take_shard(s);
}

static void run(struct site_rt *st, struct sa_regs *r)
{
	struct session *s = st->sess;
	if (t_session != s->id)
		thread_join(s);
	if (t_shard < 0) {
		__atomic_fetch_add(&s->hdr->no_shard, 1, __ATOMIC_RELAXED);
		return;
	}
	struct sa_env e = {
		.shm = s->shm, .hdr = s->hdr, .maps = s->maps, .shard = (uint32_t)t_shard,
		.cookie = st->cookie, .func_ip = st->addr,
		.pid_tgid = s->hdr->host_pid << 32 | (t_tid & 0xffffffff), .comm = t_comm,
	};
	sa_run(&e, st->insns, st->ninsns, r);
}

void sa_on_enter(void *site, struct sa_regs *r)
{
	struct site_rt *st = site;
	if (t_busy || !st->active)
		return;
	/* the program's system calls (a probe read) must not change what
	 * the traced code sees in errno */
	int saved_errno = errno;
	t_busy = 1;
	r->ip = st->addr;
	if (!st->ret) {
		run(st, r);
	} else if (t_depth < SHADOW) {
		/* the return address goes on the shadow stack; the function
		 * returns into sa_tramp_return instead */
		uint64_t *slot = (uint64_t *)r->sp;
		t_stack[t_depth++] = (struct shadow){*slot, r->sp, st};
		*slot = (uint64_t)sa_tramp_return;
	} else {
		__atomic_fetch_add(&st->sess->hdr->no_shard, 1, __ATOMIC_RELAXED);
	}
	t_busy = 0;
	errno = saved_errno;
}

uint64_t sa_on_return(struct sa_regs *r, struct sa_regs *again)
{
	(void)again;
	/* the entry that belongs here pushed sp == r->sp - 8; deeper ones
	 * were skipped by longjmp or an exception and are dropped */
	while (t_depth > 1 && t_stack[t_depth - 1].sp < r->sp - 8)
		t_depth--;
	struct shadow sh = t_stack[--t_depth];
	if (!t_busy && sh.site->active) {
		int saved_errno = errno;	/* the function's own errno, as it returns */
		t_busy = 1;
		r->ip = sh.site->addr;
		run(sh.site, r);
		t_busy = 0;
		errno = saved_errno;
	}
	return sh.ret;
}

/* ---- attaching ------------------------------------------------------------------ */

static int error_reply(int fd, int err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int error_reply(int fd, int err, const char *fmt, ...)
{
	struct sa_msg m = {.kind = SA_ERROR, .value = err};
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	send(fd, &m, sizeof(m), MSG_NOSIGNAL);
	return err;
}

static bool in_bounds(const struct session *s, uint64_t off, uint64_t len)
{
	return off <= s->size && len <= s->size - off;
}

/* the bytecode with each map's index replaced by its address */
static struct bpf_insn *prog_load(struct session *s, const struct sa_prog *p, char *why, size_t wn)
{
	if (!in_bounds(s, p->off_insns, (uint64_t)p->ninsns * sizeof(struct bpf_insn))) {
		snprintf(why, wn, "program out of bounds");
		return NULL;
	}
	const struct bpf_insn *src = (const struct bpf_insn *)(s->shm + p->off_insns);
	if (sa_prog_check(s->hdr, s->maps, src, p->ninsns, why, wn))
		return NULL;
	struct bpf_insn *in = malloc((size_t)p->ninsns * sizeof(*in));
	if (!in) {
		snprintf(why, wn, "out of memory");
		return NULL;
	}
	memcpy(in, src, (size_t)p->ninsns * sizeof(*in));
	for (uint32_t i = 0; i + 1 < p->ninsns; i++)
		if (in[i].code == (BPF_LD | BPF_IMM | BPF_DW)) {
			if (in[i].src_reg == BPF_PSEUDO_MAP_FD) {
				uint64_t a = (uint64_t)&s->maps[in[i].imm];
				in[i].imm = (int32_t)(uint32_t)a;
				in[i + 1].imm = (int32_t)(uint32_t)(a >> 32);
				in[i].src_reg = 0;
			}
			i++;
		}
	return in;
}

static int check_maps(struct session *s, char *why, size_t wn)
{
	for (uint32_t i = 0; i < s->hdr->nmaps; i++) {
		struct sa_map *m = &s->maps[i];
		uint64_t vals = m->type == SA_MAP_RINGBUF ? sizeof(struct sa_ring) + (uint64_t)m->cap
							  : (uint64_t)m->nshards * m->cap * m->stride;
		bool pow2 = m->cap && !(m->cap & (m->cap - 1));
		if (!pow2 || m->nshards < 1 || m->nshards > SA_NSHARDS || m->stride < m->value_size ||
		    !in_bounds(s, m->off_vals, vals) ||
		    (m->type != SA_MAP_RINGBUF && !in_bounds(s, m->off_keys, (uint64_t)m->cap * sa_key_slot(m)))) {
			snprintf(why, wn, "map %u is malformed", i);
			return -EINVAL;
		}
	}
	return 0;
}

static void detach(struct session *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < s->nsites; i++)
		s->sites[i].active = false;
	for (uint32_t i = s->nsites; i-- > 0;)
		sa_patch_remove(&s->sites[i].hook);
	__atomic_store_n(&s->hdr->active, 0, __ATOMIC_RELEASE);
	/* s, its sites and its mapping stay: see the file comment */
	ag.cur = NULL;
}

static int attach(int fd, int memfd)
{
	struct stat st;
	char why[200] = "";
	if (fstat(memfd, &st) || st.st_size < (off_t)sizeof(struct sa_shm))
		return error_reply(fd, -EINVAL, "shared memory too small");
	struct session *s = calloc(1, sizeof(*s));
	if (!s)
		return error_reply(fd, -ENOMEM, "out of memory");
	s->size = (size_t)st.st_size;
	s->shm = mmap(NULL, s->size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
	if (s->shm == MAP_FAILED) {
		free(s);
		return error_reply(fd, -errno, "mmap: %s", strerror(errno));
	}
	s->hdr = (struct sa_shm *)s->shm;
	s->id = ++ag.next_session;
	struct sa_shm *h = s->hdr;
	struct bpf_insn **progs = NULL;
	int err = -EINVAL;
	if (h->magic != SA_MAGIC || h->version != SA_VERSION || h->size != s->size ||
	    !in_bounds(s, h->off_maps, (uint64_t)h->nmaps * sizeof(struct sa_map)) ||
	    !in_bounds(s, h->off_progs, (uint64_t)h->nprogs * sizeof(struct sa_prog)) ||
	    !in_bounds(s, h->off_sites, (uint64_t)h->nsites * sizeof(struct sa_site))) {
		snprintf(why, sizeof(why), "shared memory header is not sonde's (version %u)", h->version);
		goto fail;
	}
	s->maps = (struct sa_map *)(s->shm + h->off_maps);
	if (check_maps(s, why, sizeof(why)))
		goto fail;
	progs = calloc(h->nprogs + 1, sizeof(*progs));
	s->sites = calloc(h->nsites + 1, sizeof(*s->sites));
	if (!progs || !s->sites) {
		err = -ENOMEM;
		snprintf(why, sizeof(why), "out of memory");
		goto fail;
	}
	const struct sa_prog *pt = (const struct sa_prog *)(s->shm + h->off_progs);
	for (uint32_t i = 0; i < h->nprogs; i++)
		if (!(progs[i] = prog_load(s, &pt[i], why, sizeof(why))))
			goto fail;
	struct sa_site *ss = (struct sa_site *)(s->shm + h->off_sites);
	int installed = 0;
	s->nsites = h->nsites;
	for (uint32_t i = 0; i < h->nsites; i++) {
		struct site_rt *rt = &s->sites[i];
		struct sa_site *d = &ss[i];
		if (d->prog >= h->nprogs) {
			d->status = SA_SITE_REFUSED, d->err = -EINVAL;
			snprintf(d->why, sizeof(d->why), "no program %u", d->prog);
			continue;
		}
		*rt = (struct site_rt){.sess = s, .addr = d->addr, .cookie = d->cookie, .insns = progs[d->prog],
				       .ninsns = pt[d->prog].ninsns, .ret = d->flags & SA_SITE_RET};
		int rc = sa_patch_install(&rt->hook, d->addr, d->size, rt, d->why, sizeof(d->why));
		/* a kernel uprobe's breakpoint: the kernel removes those of a
		 * tracer that just exited a little later (RCU); wait up to 1 s */
		for (int tries = 0; rc == -EBUSY && tries < 20; tries++) {
			usleep(50000);
			rc = sa_patch_install(&rt->hook, d->addr, d->size, rt, d->why, sizeof(d->why));
		}
		d->err = rc;
		d->status = rc ? SA_SITE_REFUSED : SA_SITE_INSTALLED;
		installed += !rc;
	}
	free(progs);
	ag.cur = s;
	__atomic_store_n(&h->active, 1, __ATOMIC_RELEASE);
	for (uint32_t i = 0; i < s->nsites; i++)
		if (s->sites[i].hook.installed)
			s->sites[i].active = true;
	struct sa_msg m = {.kind = SA_ATTACHED, .value = installed};
	send(fd, &m, sizeof(m), MSG_NOSIGNAL);
	return 0;
fail:	/* nothing is hooked yet: all of it can go */
	for (uint32_t i = 0; progs && i < h->nprogs; i++)
		free(progs[i]);
	free(progs);
	free(s->sites);
	munmap(s->shm, s->size);
	free(s);
	return error_reply(fd, err, "%s", why);
}

/* one sonde, from SA_ATTACH to SA_DETACH or a closed connection */
static void serve(int fd)
{
	for (;;) {
		struct sa_msg m;
		char cbuf[CMSG_SPACE(sizeof(int))];
		struct iovec iov = {&m, sizeof(m)};
		struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				    .msg_controllen = sizeof(cbuf)};
		ssize_t n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
		int memfd = -1;
		for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c; c = CMSG_NXTHDR(&mh, c))
			if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS)
				memcpy(&memfd, CMSG_DATA(c), sizeof(int));
		if (n < (ssize_t)sizeof(uint32_t) || m.kind == SA_DETACH) {
			if (memfd >= 0)
				close(memfd);
			detach(ag.cur);
			if (n > 0) {
				struct sa_msg r = {.kind = SA_DETACHED};
				send(fd, &r, sizeof(r), MSG_NOSIGNAL);
			}
			let_go();
			return;
		}
		if (m.kind == SA_GO)
			let_go();
		else if (m.kind == SA_ATTACH && memfd >= 0 && !ag.cur)
			attach(fd, memfd);
		else
			error_reply(fd, -EINVAL, "unexpected message %u", m.kind);
		if (memfd >= 0)
			close(memfd);
	}
}

static bool trusted(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len))
		return false;
	return cr.uid == 0 || cr.uid == getuid();
}

static void *listener(void *arg)
{
	(void)arg;
	t_busy = 1;	/* never probed: the agent's own calls are not the target's */
	for (;;) {
		int fd = accept4(ag.listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (fd < 0) {
			if (errno == EINTR || errno == ECONNABORTED)
				continue;
			return NULL;
		}
		if (!trusted(fd)) {
			close(fd);
			continue;
		}
		if (ag.cur) {	/* still attached: one sonde at a time */
			struct sa_msg m = {.kind = SA_BUSY};
			send(fd, &m, sizeof(m), MSG_NOSIGNAL);
		} else {
			serve(fd);
		}
		close(fd);
	}
}

static void start(void)
{
	const char *dir = getenv(SA_RUN_ENV);
	if (!dir || !*dir)
		dir = SA_RUN_DIR;
	ag.pid = getpid();
	mkdir(dir, 01777);
	uint64_t nonce;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	nonce = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 20) ^ ((uint64_t)ag.pid << 40);
	struct sockaddr_un sa = {.sun_family = AF_UNIX};
	int len = snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/" SA_SOCK_PREFIX "%d-%08x.sock", dir, ag.pid,
			   (unsigned)(nonce ^ (nonce >> 32)));
	if (len <= 0 || (size_t)len >= sizeof(sa.sun_path))
		return;
	int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return;
	unlink(sa.sun_path);
	if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) || listen(fd, 4)) {
		close(fd);
		return;	/* no run directory we may write: stay inert */
	}
	chmod(sa.sun_path, 0666);	/* the peer's credentials are checked instead */
	memcpy(ag.path, sa.sun_path, sizeof(ag.path));
	ag.listen_fd = fd;
	pthread_attr_t at;
	pthread_t th;
	pthread_attr_init(&at);
	pthread_attr_setstacksize(&at, 256 * 1024);
	pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
	/* the listener takes no signals: they are the target's */
	sigset_t all, old;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if (pthread_create(&th, &at, listener, NULL)) {
		close(fd);
		unlink(ag.path);
		ag.listen_fd = -1;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&at);
}

/* a forked child shares the parent's session memory but is not the
 * process sonde attached: its hooks come out and it gets its own socket */
static void after_fork(void)
{
	struct session *s = ag.cur;
	if (s) {
		for (uint32_t i = 0; i < s->nsites; i++)
			s->sites[i].active = false;
		for (uint32_t i = s->nsites; i-- > 0;)
			sa_patch_remove(&s->sites[i].hook);
		ag.cur = NULL;
	}
	if (ag.listen_fd >= 0)
		close(ag.listen_fd);
	ag.listen_fd = -1;
	t_tid = 0;
	t_session = 0;
	start();
}

static void stop(void)
{
	if (ag.listen_fd >= 0 && getpid() == ag.pid)
		unlink(ag.path);
}

__attribute__((constructor)) static void sa_init(void)
{
	const char *off = getenv("SONDE_AGENT");
	if (off && !strcmp(off, "off"))
		return;
	start();
	pthread_atfork(NULL, NULL, after_fork);
	atexit(stop);
	/* sonde -c: the command's first call must already be probed.  Only
	 * this process waits; what it starts does not. */
	const char *wait = getenv("SONDE_AGENT_WAIT");
	if (wait && !strcmp(wait, "1") && ag.listen_fd >= 0) {
		unsetenv("SONDE_AGENT_WAIT");
		/* while sonde, the parent, lives (a loaded machine, or an
		 * emulated one, can take minutes to compile and attach), and
		 * 600 s at most */
		pid_t parent = getppid();
		pthread_mutex_lock(&go_lock);
		for (int s = 0; s < 600 && !go && getppid() == parent; s++) {
			struct timespec until;
			clock_gettime(CLOCK_REALTIME, &until);
			until.tv_sec += 1;
			while (!go && pthread_cond_timedwait(&go_cond, &go_lock, &until) == 0)
				;
		}
		pthread_mutex_unlock(&go_lock);
	}
}
