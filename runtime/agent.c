/*
 * agent.c - --user-probes: uprobes run inside the traced processes, by
 * libsonde-agent.so (agent/), instead of through a kernel trap per call.
 *
 * The program is compiled and loaded exactly as in kernel mode: the kernel
 * verifier accepts it first, so the agent only ever runs bytecode that was
 * proven to touch nothing but its stack, its context and its maps.  Then,
 * for each agent found in the run directory (chosen by -p, --container or
 * the -c child; every agent without them), sonde:
 *
 *   - lays out one shared memory file (agent/agent.h): every map of the
 *     object (a per-CPU map gets one shard per thread slot), the
 *     programs' final instructions with each map fd replaced by the map's
 *     index, and the sites: each uprobe resolved in that process's own
 *     mount namespace (the container's file and offset), turned into an
 *     address through its /proc/PID/maps, with the function's ELF size
 *     so the agent can refuse what it cannot hook safely;
 *   - sends it (SCM_RIGHTS) and reads back which sites were installed.
 *
 * While running, the agents' event rings feed the same rt_event() as the
 * kernel ring buffer; at exit the agents detach first, then maps.c reads
 * the shared maps through the map source agent.c plugs into maps.c (rt->map_source), shards folded like CPUs.
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/bpf.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "agent/agent.h"
#include "host/proc.h"

#define REPLY_MS	10000
#define RING_BYTES	(256u * 1024)

struct rt_agent {
	int pid;
	int fd;			/* the connection */
	uint8_t *shm;
	size_t size;
	struct sa_shm *hdr;
	struct sa_map *maps;
	struct sa_site *sites;
	const char **site_names;	/* attach point name per site */
	const char **site_syms;		/* and its function's name */
	int ring;		/* index of the event ring map, -1 none */
	bool attached;
};

struct rt_agents {
	struct rt_agent *a;
	int n;
	char dir[PATH_MAX];
	bool detached;
};

const char *rt_agent_dir(void)
{
	const char *d = getenv(SA_RUN_ENV);
	return d && *d ? d : SA_RUN_DIR;
}

/* libsonde-agent.so for a -c child: SONDE_AGENT_LIB, else beside sonde
 * (build/), one up (build/asan/) or in ../lib/sonde (installed) */
const char *rt_agent_lib(char *buf, size_t len)
{
	const char *env = getenv("SONDE_AGENT_LIB");
	if (env && *env)
		return env;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	*strrchr(exe, '/') = 0;
	static const char *const where[] = {"", "/..", "/../lib/sonde"};
	for (size_t i = 0; i < sizeof(where) / sizeof(where[0]); i++) {
		snprintf(buf, len, "%s%s/libsonde-agent.so", exe, where[i]);
		if (!access(buf, R_OK))
			return buf;
	}
	return NULL;
}

/* ---- finding agents ------------------------------------------------------------ */

static int peer_pid(int fd)
{
	struct ucred cr;
	socklen_t len = sizeof(cr);
	return getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cr, &len) ? -1 : cr.pid;
}

static bool wanted(const int *pids, size_t npids, int pid)
{
	if (!pids)
		return true;
	for (size_t i = 0; i < npids; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

/* pid exists and is not a zombie (a -c child that exited is one until
 * sonde reaps it) */
static bool alive(int pid)
{
	return host_proc_exists(pid) && !host_proc_zombie(pid);
}

/* the -c child has not exec'd its command yet (it is still sonde) */
static bool exec_pending(int pid)
{
	char path[64], self[4096], child[4096];
	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	ssize_t a = readlink("/proc/self/exe", self, sizeof(self) - 1);
	ssize_t b = readlink(path, child, sizeof(child) - 1);
	return a > 0 && b > 0 && a == b && !memcmp(self, child, (size_t)a);
}

static int agent_or_loader(const struct rs_mapping *m, void *ctx)
{
	const char *base = strrchr(m->path, '/');
	base = base ? base + 1 : m->path;
	return strstr(base, "libsonde-agent") || !strncmp(base, "ld-", 3);
}

/* the process maps libsonde-agent (it has started and will listen) or a
 * dynamic loader (ld-linux-*, ld-musl-*: it will map the agent from
 * LD_PRELOAD, however slowly a loaded machine reads it) */
static bool will_listen(int pid)
{
	return rs_maps_each(pid, agent_or_loader, NULL) == 1;
}

/* connect to every agent socket in dir whose process is in pids (NULL:
 * any); stale sockets (nobody listening) are removed */
static int connect_all(struct rt_agents *as, const int *pids, size_t npids)
{
	DIR *d = opendir(as->dir);
	if (!d)
		return -errno;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, SA_SOCK_PREFIX, strlen(SA_SOCK_PREFIX)))
			continue;
		struct sockaddr_un sa = {.sun_family = AF_UNIX};
		if ((size_t)snprintf(sa.sun_path, sizeof(sa.sun_path), "%s/%s", as->dir, de->d_name) >=
		    sizeof(sa.sun_path))
			continue;
		/* a pid in the name saves connecting to agents that are not asked for;
		 * only a hint (a container's pid namespace numbers differently) */
		int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (fd < 0)
			break;
		if (connect(fd, (struct sockaddr *)&sa, sizeof(sa))) {
			if (errno == ECONNREFUSED)
				unlink(sa.sun_path);	/* its process is gone */
			close(fd);
			continue;
		}
		int pid = peer_pid(fd);
		bool dup = false;
		for (int i = 0; i < as->n; i++)
			dup |= as->a[i].pid == pid;
		if (pid <= 0 || dup || !wanted(pids, npids, pid)) {
			close(fd);
			continue;
		}
		as->a = vec_grow(as->a, (size_t)as->n, sizeof(*as->a));
		as->a[as->n++] = (struct rt_agent){.pid = pid, .fd = fd, .ring = -1};
	}
	closedir(d);
	return 0;
}

/* ---- the shared memory ------------------------------------------------------------ */

static uint32_t pow2_at_least(uint64_t n)
{
	uint32_t p = 1;
	while (p < n && p < (1u << 30))
		p <<= 1;
	return p;
}

static uint64_t align64(uint64_t x)
{
	return (x + 63) & ~63ull;
}

struct site_req {
	uint64_t addr, size, cookie;
	uint32_t prog, flags;
	const char *name;	/* attach point */
	const char *sym;
};

struct addr_find {
	uint64_t dev, ino, off, addr;
	const char *path;	/* as the process sees it */
};

/* the mapping of the site's file: by (dev, inode), or by path where the
 * file is on overlayfs, whose maps lines show the layer's inode and stat()
 * the overlay's (a container's root, the test VM's) */
static int find_addr(const struct rs_mapping *m, void *ctx)
{
	struct addr_find *f = ctx;
	if ((makedev(m->dev_major, m->dev_minor) != f->dev || m->inode != f->ino) &&
	    (m->deleted || strcmp(m->path, f->path)))
		return 0;
	if (f->off < m->offset || f->off >= m->offset + (m->end - m->start))
		return 0;
	f->addr = m->start + (f->off - m->offset);
	return 1;
}

/* the sites of one uprobe attach point in pid: address, size, cookie */
static int resolve_sites(struct rt *rt, int pid, const struct sema_attach *at, uint32_t prog,
			 struct site_req **out, size_t *n)
{
	struct rs_query q = {.target = at->target, .func = at->func, .pid = pid};
	struct rs_sites *sites = NULL;
	char err[512] = "";
	int rc = rs_resolve(&q, &sites, err, sizeof(err));
	if (rc) {
		fprintf(stderr, "sonde: %s: pid %d: %s\n", at->name, pid, err);
		return rc;
	}
	for (size_t i = 0; i < sites->nsites && !rc; i++) {
		const struct rs_site *s = &sites->sites[i];
		struct addr_find f = {.dev = s->file->dev, .ino = s->file->ino, .off = s->offset,
				      .path = s->file->path};
		if (s->ifunc) {
			fprintf(stderr, "sonde: %s: pid %d: %s is an ifunc resolver; user probes need the function "
				"itself (use kernel mode)\n", at->name, pid, s->sym);
			rc = -EINVAL;
			break;
		}
		if (rs_maps_each(pid, find_addr, &f) != 1) {
			fprintf(stderr, "sonde: %s: pid %d does not map %s at offset 0x%llx\n", at->name, pid,
				s->file->path, (unsigned long long)s->offset);
			rc = -ENOENT;
			break;
		}
		uint64_t size = 0, vaddr;
		struct rs_elf *e = NULL;
		char eerr[256];
		if (!rs_elf_open(s->file->attach_path, &e, eerr, sizeof(eerr)) &&
		    !rs_elf_offset_to_vaddr(e, s->offset, &vaddr)) {
			const struct rs_sym *sym = rs_elf_addr_sym(e, vaddr);
			if (sym && sym->vaddr == vaddr)
				size = sym->size;
		}
		if (e)
			rs_elf_free(e);
		*out = vec_grow(*out, *n, sizeof(**out));
		(*out)[(*n)++] = (struct site_req){
			.addr = f.addr, .size = size, .prog = prog,
			.cookie = (uint64_t)rt_site_cookie(rt, s->sym),
			.flags = at->type == PT_URETPROBE ? SA_SITE_RET : 0,
			.name = at->name, .sym = arena_strdup(rt->perm, s->sym),
		};
		if (!size)
			fprintf(stderr, "sonde: %s: pid %d: %s has no size in its symbol table; the agent "
				"checks less before hooking it\n", at->name, pid, s->sym);
	}
	rs_sites_free(sites);
	return rc;
}

/* the kernel map types sonde's programs use, as the agent has them; 0 others */
static enum sa_map_type map_type(enum bpf_map_type t)
{
	static const struct { enum bpf_map_type k; enum sa_map_type a; } tab[] = {
		{BPF_MAP_TYPE_HASH, SA_MAP_HASH}, {BPF_MAP_TYPE_PERCPU_HASH, SA_MAP_PERCPU_HASH},
		{BPF_MAP_TYPE_ARRAY, SA_MAP_ARRAY}, {BPF_MAP_TYPE_PERCPU_ARRAY, SA_MAP_PERCPU_ARRAY},
		{BPF_MAP_TYPE_RINGBUF, SA_MAP_RINGBUF},
	};
	for (size_t i = 0; i < sizeof(tab) / sizeof(tab[0]); i++)
		if (tab[i].k == t)
			return tab[i].a;
	return 0;
}

/* v2 cgroup of pid: its id and its ancestors' (by level), as the BPF
 * helpers would give them for the process's threads */
static void cgroup_ids(int pid, struct sa_shm *h)
{
	char root[PATH_MAX], path[PATH_MAX];
	if (rs_cgroup2_root(root, sizeof(root)))
		return;
	char *rel = host_proc_cgroup(pid, NULL);
	if (!rel)
		return;
	/* level 0 is the root; each '/'-separated part one level down */
	size_t rl = strlen(root);
	int level = 0;
	struct stat st;
	if (!stat(root, &st))
		h->cgroup_ancestors[0] = st.st_ino;
	for (char *p = rel; *p && level < 15;) {
		char *slash = strchr(p + 1, '/');
		size_t upto = slash ? (size_t)(slash - rel) : strlen(rel);
		if (rl + upto >= sizeof(path))
			break;
		snprintf(path, sizeof(path), "%s%.*s", root, (int)upto, rel);
		if (stat(path, &st))
			break;
		h->cgroup_ancestors[++level] = st.st_ino;
		h->cgroup_id = st.st_ino;
		if (!slash)
			break;
		p = slash;
	}
	if (!level)
		h->cgroup_id = h->cgroup_ancestors[0];
	free(rel);
}

/* build the shared memory for agent a; -errno after a message */
static int build_shm(struct rt *rt, struct rt_agent *a)
{
	struct bpf_map *bm;
	int nmaps = 0;
	bpf_object__for_each_map(bm, rt->bpf)
		nmaps++;
	struct sa_map *maps = calloc((size_t)nmaps + 1, sizeof(*maps));
	struct sa_prog *progs = calloc((size_t)rt->obj->nprogs + 1, sizeof(*progs));
	struct site_req *sites = NULL;
	size_t nsites = 0;
	int rc = -ENOMEM, i = 0;
	if (!maps || !progs)
		goto out;
	uint64_t off = align64(sizeof(struct sa_shm));
	uint64_t off_maps = off;
	off = align64(off + (uint64_t)nmaps * sizeof(struct sa_map));
	uint64_t off_progs = off;
	off = align64(off + (uint64_t)rt->obj->nprogs * sizeof(struct sa_prog));
	/* sites first: they decide nothing about the layout but their count */
	for (int p = 0; p < rt->obj->nprogs; p++) {
		const struct cg_prog *cp = &rt->obj->progs[p];
		for (int j = 0; j < cp->nattach; j++) {
			const struct sema_attach *at = &cp->probe->attach[cp->first_attach + j];
			if (at->type != PT_UPROBE && at->type != PT_URETPROBE)
				continue;
			if ((rc = resolve_sites(rt, a->pid, at, (uint32_t)p, &sites, &nsites)))
				goto out;
		}
	}
	uint64_t off_sites = off;
	off = align64(off + nsites * sizeof(struct sa_site));
	bpf_object__for_each_map(bm, rt->bpf) {
		struct sa_map *m = &maps[i++];
		m->type = map_type(bpf_map__type(bm));
		m->kfd = bpf_map__fd(bm);
		if (!m->type) {
			fprintf(stderr, "sonde: map '%s' has a type user probes do not have\n", bpf_map__name(bm));
			rc = -EINVAL;
			goto out;
		}
		m->key_size = bpf_map__key_size(bm);
		m->value_size = bpf_map__value_size(bm);
		m->stride = (m->value_size + 7) & ~7u;
		bool percpu = m->type == SA_MAP_PERCPU_HASH || m->type == SA_MAP_PERCPU_ARRAY;
		m->nshards = percpu ? SA_NSHARDS : 1;
		if (m->type == SA_MAP_RINGBUF) {
			m->cap = RING_BYTES;
			m->off_vals = off;
			off = align64(off + sizeof(struct sa_ring) + RING_BYTES);
			a->ring = i - 1;
			continue;
		}
		bool array = m->type == SA_MAP_ARRAY || m->type == SA_MAP_PERCPU_ARRAY;
		/* a hash table at most half full keeps probe chains short */
		m->cap = pow2_at_least(array ? bpf_map__max_entries(bm) : 2ull * bpf_map__max_entries(bm));
		m->off_keys = off;
		off = align64(off + (uint64_t)m->cap * sa_key_slot(m));
		m->off_vals = off;
		off = align64(off + (uint64_t)m->nshards * m->cap * m->stride);
	}
	/* bytecode last: its size is known only now */
	for (int p = 0; p < rt->obj->nprogs; p++) {
		struct bpf_program *bp = bpf_object__find_program_by_name(rt->bpf, rt->obj->progs[p].name);
		progs[p].ninsns = bp ? (uint32_t)bpf_program__insn_cnt(bp) : 0;
		progs[p].off_insns = off;
		off = align64(off + (uint64_t)progs[p].ninsns * sizeof(struct bpf_insn));
	}
	a->size = off;
	int mfd = memfd_create("sonde-agent", MFD_CLOEXEC);
	if (mfd < 0 || ftruncate(mfd, (off_t)a->size)) {
		rc = -errno;
		fprintf(stderr, "sonde: shared memory for pid %d: %s\n", a->pid, strerror(errno));
		if (mfd >= 0)
			close(mfd);
		goto out;
	}
	a->shm = mmap(NULL, a->size, PROT_READ | PROT_WRITE, MAP_SHARED, mfd, 0);
	if (a->shm == MAP_FAILED) {
		rc = -errno;
		a->shm = NULL;
		close(mfd);
		goto out;
	}
	struct sa_shm *h = a->hdr = (struct sa_shm *)a->shm;
	*h = (struct sa_shm){.magic = SA_MAGIC, .version = SA_VERSION, .nmaps = (uint32_t)nmaps,
			     .nprogs = (uint32_t)rt->obj->nprogs, .nsites = (uint32_t)nsites, .size = a->size,
			     .off_maps = off_maps, .off_progs = off_progs, .off_sites = off_sites,
			     .host_pid = (uint64_t)a->pid};
	cgroup_ids(a->pid, h);
	char st[64];
	snprintf(st, sizeof(st), "/proc/%d", a->pid);
	struct stat sb;
	if (!stat(st, &sb))
		h->uid_gid = (uint64_t)sb.st_gid << 32 | sb.st_uid;
	a->maps = (struct sa_map *)(a->shm + off_maps);
	memcpy(a->maps, maps, (size_t)nmaps * sizeof(*maps));
	if (a->ring >= 0) {
		struct sa_ring *r = (struct sa_ring *)(a->shm + a->maps[a->ring].off_vals);
		r->size = RING_BYTES;
	}
	memcpy(a->shm + off_progs, progs, (size_t)rt->obj->nprogs * sizeof(*progs));
	for (int p = 0; p < rt->obj->nprogs; p++) {
		struct bpf_program *bp = bpf_object__find_program_by_name(rt->bpf, rt->obj->progs[p].name);
		if (!bp)
			continue;
		struct bpf_insn *in = (struct bpf_insn *)(a->shm + progs[p].off_insns);
		memcpy(in, bpf_program__insns(bp), (size_t)progs[p].ninsns * sizeof(*in));
		/* map fds -> indexes into the map table */
		for (uint32_t k = 0; k + 1 < progs[p].ninsns; k++) {
			if (in[k].code != (BPF_LD | BPF_IMM | BPF_DW))
				continue;
			if (in[k].src_reg == BPF_PSEUDO_MAP_FD) {
				int m = 0;
				while (m < nmaps && maps[m].kfd != in[k].imm)
					m++;
				in[k].imm = m;
			} else if (in[k].src_reg) {
				fprintf(stderr, "sonde: %s: the program uses global data, which user probes do "
					"not have\n", rt->obj->progs[p].name);
				rc = -EINVAL;
				close(mfd);
				goto out;
			}
			k++;
		}
	}
	a->sites = (struct sa_site *)(a->shm + off_sites);
	a->site_names = arena_new_array(rt->perm, const char *, nsites ? nsites : 1);
	a->site_syms = arena_new_array(rt->perm, const char *, nsites ? nsites : 1);
	for (size_t s = 0; s < nsites; s++) {
		a->sites[s] = (struct sa_site){.addr = sites[s].addr, .size = sites[s].size, .cookie = sites[s].cookie,
					       .prog = sites[s].prog, .flags = sites[s].flags};
		a->site_names[s] = sites[s].name;
		a->site_syms[s] = sites[s].sym;
	}
	rc = mfd;
out:
	free(maps);
	free(progs);
	free(sites);
	return rc;
}

/* ---- talking to an agent -------------------------------------------------------- */

static int request(struct rt_agent *a, uint32_t kind, int fd, struct sa_msg *reply)
{
	struct sa_msg m = {.kind = kind};
	struct iovec iov = {&m, sizeof(m)};
	char cbuf[CMSG_SPACE(sizeof(int))] = {0};
	struct msghdr mh = {.msg_iov = &iov, .msg_iovlen = 1};
	if (fd >= 0) {
		mh.msg_control = cbuf;
		mh.msg_controllen = sizeof(cbuf);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	if (sendmsg(a->fd, &mh, MSG_NOSIGNAL) < 0)
		return -errno;
	struct pollfd p = {.fd = a->fd, .events = POLLIN};
	int n = poll(&p, 1, REPLY_MS);
	if (n <= 0)
		return n ? -errno : -ETIMEDOUT;
	ssize_t got = recv(a->fd, reply, sizeof(*reply), 0);
	if (got < (ssize_t)sizeof(uint32_t))
		return got < 0 ? -errno : -ECONNRESET;
	reply->text[sizeof(reply->text) - 1] = 0;
	return 0;
}

static int attach_agent(struct rt *rt, struct rt_agent *a, int *count)
{
	int mfd = build_shm(rt, a);
	if (mfd < 0)
		return mfd;
	const char **syms = a->site_syms;
	struct sa_msg r;
	int rc = request(a, SA_ATTACH, mfd, &r);
	close(mfd);
	if (rc) {
		fprintf(stderr, "sonde: the agent in pid %d did not answer: %s\n", a->pid, strerror(-rc));
		return rc;
	}
	if (r.kind == SA_BUSY) {
		fprintf(stderr, "sonde: the agent in pid %d is serving another sonde\n", a->pid);
		return -EBUSY;
	}
	if (r.kind != SA_ATTACHED) {
		fprintf(stderr, "sonde: the agent in pid %d refused the program: %s\n", a->pid, r.text);
		return r.value ? r.value : -EINVAL;
	}
	a->attached = true;
	for (uint32_t s = 0; s < a->hdr->nsites; s++) {
		struct sa_site *st = &a->sites[s];
		st->why[sizeof(st->why) - 1] = 0;
		if (st->status == SA_SITE_INSTALLED) {
			(*count)++;
			if (rt->o->verbose)
				fprintf(stderr, "sonde: %s: hooked %s at 0x%llx in pid %d (user mode)\n",
					a->site_names[s], syms[s], (unsigned long long)st->addr, a->pid);
		} else {
			fprintf(stderr, "sonde: %s: pid %d: refusing to hook %s: %s\n", a->site_names[s], a->pid,
				syms[s], st->why);
			rc = -EINVAL;
		}
	}
	return rc;
}

/* ---- public ----------------------------------------------------------------------- */

static bool agent_has_map(struct rt *rt, int kfd);
static int agent_map_each(struct rt *rt, int kfd, rt_map_entry_fn cb, void *ctx);
static int agent_map_clear(struct rt *rt, int kfd, bool zero_only);

/* maps.c reads and clears the agents' copies of the maps through this */
static const struct rt_map_source agent_maps = {
	.has = agent_has_map, .each = agent_map_each, .clear = agent_map_clear,
};

int rt_agent_attach(struct rt *rt, int *count)
{
	struct rt_agents *as = calloc(1, sizeof(*as));
	if (!as)
		return -ENOMEM;
	rt->agents = as;
	rt->map_source = &agent_maps;
	snprintf(as->dir, sizeof(as->dir), "%s", rt->o->agent_dir ? rt->o->agent_dir : rt_agent_dir());
	int *pids = NULL;
	size_t npids = 0;
	int one;
	if (rt->o->pid || rt->o->child_pid) {
		one = rt->o->pid ? rt->o->pid : rt->o->child_pid;
		pids = &one;
		npids = 1;
	} else if (rt->o->container) {
		int err = rs_container_pids(rt->o->container, &pids, &npids);
		if (err) {
			fprintf(stderr, "sonde: cannot list the container's processes: %s\n", strerror(-err));
			return err;
		}
	}
	/* the -c child loads its agent as it starts: wait while it lives and
	 * has yet to exec its command (a loaded machine can be slow to),
	 * then, counted from that exec, 300 s for a dynamic command (its
	 * loader maps the agent, which holds the command for sonde until it
	 * listens) and 30 s for a static one, which never maps it (a TCG
	 * guest at load took over 30 s to map it: vm-6.1's
	 * user_probes_count_exact) */
	int rc = 0;
	uint64_t exec_ns = 0;
	for (;;) {
		if ((rc = connect_all(as, pids, npids)) || as->n || rt->stop)	/* Ctrl-C */
			break;
		int child = rt->o->child_pid;
		if (!child || !alive(child))
			break;
		if (!exec_pending(child)) {
			uint64_t now = rt_mono_ns();
			if (!exec_ns)
				exec_ns = now;
			if (now - exec_ns > (will_listen(child) ? 300 : 30) * 1000000000ull)
				break;
		}
		usleep(10000);
	}
	if (rt->o->container) {
		/* a container's process without the agent is not traced: say so */
		size_t missing = 0;
		char list[160] = "";
		for (size_t i = 0; i < npids; i++) {
			bool found = false;
			for (int j = 0; j < as->n && !found; j++)
				found = as->a[j].pid == pids[i];
			if (found)
				continue;
			if (missing++ < 6) {
				size_t l = strlen(list);
				snprintf(list + l, sizeof(list) - l, "%s%d", l ? ", " : "", pids[i]);
			}
		}
		if (missing && as->n)
			diag_warnf("%zu process%s of the container ha%s no agent and %s not "
				"traced in user mode: %s%s\n", missing, missing == 1 ? "" : "es",
				missing == 1 ? "s" : "ve", missing == 1 ? "is" : "are", list, missing > 6 ? " ..." : "");
		free(pids);
	}
	if (rc) {
		fprintf(stderr, "sonde: --user-probes: cannot read the agent directory %s: %s\n", as->dir,
			strerror(-rc));
		return rc;
	}
	if (!as->n) {
		if (rt->o->pid || rt->o->child_pid)
			fprintf(stderr, "sonde: --user-probes: pid %d has no agent in %s (start it with "
				"LD_PRELOAD=libsonde-agent.so, and SONDE_RUN_DIR=%s if not the default)\n", one,
				as->dir, as->dir);
		else
			fprintf(stderr, "sonde: --user-probes: no agent in %s%s (start processes with "
				"LD_PRELOAD=libsonde-agent.so)\n", as->dir, rt->o->container ? " for that container" : "");
		return -ESRCH;
	}
	for (int i = 0; i < as->n; i++)
		if ((rc = attach_agent(rt, &as->a[i], count)))
			return rc;
	return 0;
}

/* after BEGIN: a -c child that waits for its probes may start */
void rt_agent_go(struct rt *rt)
{
	struct rt_agents *as = rt->agents;
	for (int i = 0; as && i < as->n; i++) {
		struct sa_msg m = {.kind = SA_GO};
		if (as->a[i].attached)
			send(as->a[i].fd, &m, sizeof(m), MSG_NOSIGNAL);
	}
}

/* hand every complete event record to rt_event; the consumed bytes are
 * zeroed, so a writer's unpublished record always reads as 0 */
void rt_agent_poll(struct rt *rt)
{
	struct rt_agents *as = rt->agents;
	for (int i = 0; as && i < as->n; i++) {
		struct rt_agent *a = &as->a[i];
		if (!a->shm || a->ring < 0)
			continue;
		struct sa_ring *r = (struct sa_ring *)(a->shm + a->maps[a->ring].off_vals);
		uint8_t *buf = (uint8_t *)(r + 1);
		uint64_t tail = r->tail, head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
		while (tail < head) {
			uint64_t pos = tail & (r->size - 1);
			uint32_t h = __atomic_load_n((uint32_t *)(buf + pos), __ATOMIC_ACQUIRE);
			if (!h)
				break;	/* reserved, not yet written */
			uint64_t len = h & SA_REC_PAD ? (h & ~SA_REC_PAD) : 8 + (((h & ~SA_REC_DONE) + 7) & ~7ull);
			if (!(h & SA_REC_PAD))
				rt_event(rt, buf + pos + 8, h & ~SA_REC_DONE);
			memset(buf + pos, 0, len);
			tail += len;
			__atomic_store_n(&r->tail, tail, __ATOMIC_RELEASE);
		}
	}
}

void rt_agent_detach(struct rt *rt)
{
	struct rt_agents *as = rt->agents;
	if (!as || as->detached)
		return;
	as->detached = true;
	for (int i = 0; i < as->n; i++) {
		struct rt_agent *a = &as->a[i];
		if (!a->attached)
			continue;
		struct sa_msg r;
		int rc = request(a, SA_DETACH, -1, &r);
		/* a process that exited has detached by itself */
		if (rc && rc != -ECONNRESET && rc != -EPIPE && kill(a->pid, 0) == 0)
			fprintf(stderr, "sonde: the agent in pid %d did not confirm detaching: %s\n", a->pid,
				strerror(-rc));
		a->attached = false;
	}
	rt_agent_poll(rt);
	for (int i = 0; as && i < as->n; i++) {
		struct sa_shm *h = as->a[i].hdr;
		if (!h)
			continue;
		if (h->faults)
			diag_warnf("pid %d: %llu probe reads of bad addresses returned an "
				"error (the value read is zero)\n", as->a[i].pid, (unsigned long long)h->faults);
		if (h->no_shard)
			diag_warnf("pid %d: %llu probe hits dropped: more than %d threads "
				"at once, or return probes nested deeper than the agent's shadow stack\n",
				as->a[i].pid, (unsigned long long)h->no_shard, SA_NSHARDS);
		if (h->ring_lost)
			diag_warnf("pid %d: %llu events lost (the event ring was full)\n",
				as->a[i].pid, (unsigned long long)h->ring_lost);
		for (uint32_t m = 0; m < h->nmaps; m++)
			if (as->a[i].maps[m].full)
				diag_warnf("pid %d: %llu map updates dropped: a map is full\n",
					as->a[i].pid, (unsigned long long)as->a[i].maps[m].full);
	}
}

static struct sa_map *agent_map(struct rt_agent *a, int kfd)
{
	for (uint32_t m = 0; a->shm && m < a->hdr->nmaps; m++)
		if (a->maps[m].kfd == kfd)
			return &a->maps[m];
	return NULL;
}

static int agent_map_each(struct rt *rt, int kfd, rt_map_entry_fn cb, void *ctx)
{
	struct rt_agents *as = rt->agents;
	if (!as)
		return -ENOENT;
	/* the values of one key: every agent's shards, as if they were CPUs */
	size_t nvals = 0, stride = 0, ksize = 0;
	for (int i = 0; i < as->n; i++) {
		struct sa_map *m = agent_map(&as->a[i], kfd);
		if (m) {
			nvals += m->nshards;
			stride = m->stride;
			ksize = m->key_size;
		}
	}
	if (!nvals)
		return 0;
	uint8_t *vals = malloc(nvals * stride), *key = malloc(ksize ? ksize : 1);
	if (!vals || !key) {
		free(vals);
		free(key);
		return -ENOMEM;
	}
	int rc = 0;
	for (int i = 0; i < as->n && !rc; i++) {
		struct rt_agent *a = &as->a[i];
		struct sa_map *m = agent_map(a, kfd);
		if (!m || m->type == SA_MAP_RINGBUF)
			continue;
		bool array = m->type == SA_MAP_ARRAY || m->type == SA_MAP_PERCPU_ARRAY;
		for (uint64_t slot = 0; slot < m->cap && !rc; slot++) {
			if (array) {
				uint32_t k = (uint32_t)slot;
				memcpy(key, &k, 4);
			} else {
				if (__atomic_load_n(sa_key_state(a->shm, m, slot), __ATOMIC_ACQUIRE) != SA_SLOT_READY)
					continue;
				memcpy(key, (uint8_t *)sa_key_state(a->shm, m, slot) + 8, ksize);
				/* an earlier agent had this key: already given */
				bool seen = false;
				for (int j = 0; j < i && !seen; j++) {
					struct sa_map *pm = agent_map(&as->a[j], kfd);
					int64_t ps = pm ? sa_key_find(as->a[j].shm, pm, key, 0) : -1;
					seen = ps >= 0 && *sa_key_state(as->a[j].shm, pm, (uint64_t)ps) == SA_SLOT_READY;
				}
				if (seen)
					continue;
			}
			size_t at = 0;
			bool any = false;
			for (int j = i; j < as->n; j++) {
				struct sa_map *jm = agent_map(&as->a[j], kfd);
				if (!jm)
					continue;
				int64_t js = j == i ? (int64_t)slot : sa_key_find(as->a[j].shm, jm, key, 0);
				bool live = js >= 0 && (array || *sa_key_state(as->a[j].shm, jm, (uint64_t)js) ==
									   SA_SLOT_READY);
				for (uint32_t s = 0; s < jm->nshards; s++, at++) {
					if (live)
						memcpy(vals + at * stride, sa_value(as->a[j].shm, jm, s, (uint64_t)js), stride);
					else
						memset(vals + at * stride, 0, stride);
				}
				any |= live;
			}
			/* agents before i do not have the key: only i.. count */
			if (any)
				rc = cb(ctx, key, vals, (int)at);
		}
	}
	free(vals);
	free(key);
	return rc;
}

/* A key is marked deleted before its values are zeroed: an agent thread
 * that looks it up afterwards inserts it afresh.  A thread in the middle
 * of an update may still add its one increment to the old values, as a CPU
 * may in kernel mode while sonde deletes a per-CPU map's keys. */
static int agent_map_clear(struct rt *rt, int kfd, bool zero_only)
{
	struct rt_agents *as = rt->agents;
	for (int i = 0; as && i < as->n; i++) {
		struct rt_agent *a = &as->a[i];
		struct sa_map *m = agent_map(a, kfd);
		if (!m || m->type == SA_MAP_RINGBUF)
			continue;
		bool array = m->type == SA_MAP_ARRAY || m->type == SA_MAP_PERCPU_ARRAY;
		for (uint64_t slot = 0; slot < m->cap; slot++) {
			if (!array) {
				uint64_t *st = sa_key_state(a->shm, m, slot), ready = SA_SLOT_READY;
				if (__atomic_load_n(st, __ATOMIC_ACQUIRE) != SA_SLOT_READY)
					continue;
				if (!zero_only)
					__atomic_compare_exchange_n(st, &ready, SA_SLOT_DEAD, 0, __ATOMIC_ACQ_REL,
								    __ATOMIC_ACQUIRE);
			}
			for (uint32_t s = 0; s < m->nshards; s++)
				memset(sa_value(a->shm, m, s, slot), 0, m->stride);
		}
	}
	return 0;
}

static bool agent_has_map(struct rt *rt, int kfd)
{
	struct rt_agents *as = rt->agents;
	for (int i = 0; as && i < as->n; i++)
		if (agent_map(&as->a[i], kfd))
			return true;
	return false;
}

void rt_agent_free(struct rt *rt)
{
	struct rt_agents *as = rt->agents;
	if (!as)
		return;
	for (int i = 0; i < as->n; i++) {
		if (as->a[i].shm)
			munmap(as->a[i].shm, as->a[i].size);
		close(as->a[i].fd);
	}
	free(as->a);
	free(as);
	rt->agents = NULL;
	rt->map_source = NULL;
}
