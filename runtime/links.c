/*
 * links.c - the links that attach the programs, kept from the attach files
 * (rt_add_link, rt_keep_link, rt_add_link_fd, rt_hold_event) until the run
 * takes every probe down (rt_detach_all) without making the user wait for
 * the kernel's grace periods.
 *
 * Each BPF link the kernel releases waits for a grace period of its own:
 * 100 uprobes (one multi-uprobe link per probe) took 5-9 s.  Those waits
 * overlap when the links are released from several threads at once, so
 * the links are destroyed by a few threads side by side.
 *
 * Tracepoint perf events are worse: the kernel closes them one at a time
 * under the trace events' mutex, with a grace period each (tracepoint.c).
 * Their programs are gone with their links; the events, disabled and
 * running nothing, are then closed by a background process (forked twice,
 * so it is nobody's child to wait for; it keeps no other descriptor, not
 * the terminal nor a pipe a reader waits on; `sonde-release` in ps), and
 * sonde exits at once.
 * A few events (fewer than REAP_MIN) are closed in place.
 */
#include "runtime/rt_int.h"

#include <fcntl.h>
#include <errno.h>
#include <pthread.h>
#include <sys/prctl.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#define DETACH_THREADS 16
/* links per thread, at least: a thread costs more than a link without wait */
#define DETACH_PER_THREAD 4
#define REAP_MIN 8

const struct sema_attach *rt_prog_attach(const struct cg_prog *p, int i)
{
	return &p->probe->attach[p->first_attach + i];
}

void rt_add_link(struct rt *rt, struct bpf_link *l)
{
	struct rt_links *k = &rt->links;
	k->links = vec_grow(k->links, (size_t)k->nlinks, sizeof(*k->links));
	k->links[k->nlinks++] = l;
}

int rt_keep_link(struct rt *rt, const struct sema_attach *at, struct bpf_link *l, int *count)
{
	if (!l) {
		int err = -errno;
		fprintf(stderr, "sonde: %s: cannot attach: %s\n", at->name, strerror(-err));
		return err;
	}
	rt_add_link(rt, l);
	(*count)++;
	return 0;
}

void rt_add_link_fd(struct rt *rt, int fd)
{
	struct rt_links *k = &rt->links;
	k->fds = vec_grow(k->fds, (size_t)k->nfds, sizeof(*k->fds));
	k->fds[k->nfds++] = fd;
}

void rt_hold_event(struct rt *rt, int fd)
{
	struct rt_links *k = &rt->links;
	k->held = vec_grow(k->held, (size_t)k->nheld, sizeof(*k->held));
	k->held[k->nheld++] = fd;
}

struct detach_work {
	struct rt_links *k;
	int next;	/* the next item to take: links, then link fds */
	pthread_mutex_t lock;
};

static void *detach_worker(void *arg)
{
	struct detach_work *w = arg;
	struct rt_links *k = w->k;
	for (;;) {
		pthread_mutex_lock(&w->lock);
		int i = w->next++;
		pthread_mutex_unlock(&w->lock);
		if (i < k->nlinks)
			bpf_link__destroy(k->links[i]);
		else if (i < k->nlinks + k->nfds)
			close(k->fds[i - k->nlinks]);
		else
			return NULL;
	}
}

static void destroy_links(struct rt_links *k)
{
	struct detach_work w = {.k = k};
	pthread_mutex_init(&w.lock, NULL);
	int n = k->nlinks + k->nfds, nt = n / DETACH_PER_THREAD;
	if (nt > DETACH_THREADS)
		nt = DETACH_THREADS;
	pthread_t t[DETACH_THREADS];
	int started = 0;
	while (started < nt && !pthread_create(&t[started], NULL, detach_worker, &w))
		started++;
	detach_worker(&w);	/* this thread too, and all of it without threads */
	for (int i = 0; i < started; i++)
		pthread_join(t[i], NULL);
	pthread_mutex_destroy(&w.lock);
	k->nlinks = 0;
	k->nfds = 0;
}

static int cmp_fd(const void *a, const void *b)
{
	return *(const int *)a - *(const int *)b;
}

/* the background process: close everything but the held events and the
 * pipe, wait until sonde has closed its copies of the events (EOF on the
 * pipe: a close that comes second is the one that waits, and it must not be
 * sonde's), then close them */
static void reap(const int *held, int n, int gate)
{
	/* every descriptor between two kept ones (held is sorted; no
	 * allocation after fork) */
	unsigned from = 0;
	for (int i = 0; i <= n; i++) {
		unsigned keep = i < n ? (unsigned)held[i] : ~0u;
		if (from <= (unsigned)gate && (unsigned)gate < keep) {
			if ((unsigned)gate > from)
				close_range(from, (unsigned)gate - 1, 0);
			from = (unsigned)gate + 1;
		}
		if (keep > from)
			close_range(from, keep - 1, 0);
		from = keep + 1;
	}
	char c;
	while (read(gate, &c, 1) < 0 && errno == EINTR)
		;
	for (int i = 0; i < n; i++)
		close(held[i]);
}

static void release_held(struct rt_links *k)
{
	int n = k->nheld, gate[2] = {-1, -1};
	k->nheld = 0;
	if (n >= REAP_MIN && !pipe2(gate, O_CLOEXEC)) {
		qsort(k->held, (size_t)n, sizeof(*k->held), cmp_fd);
		pid_t c = fork();
		if (c == 0) {
			if (fork() == 0) {
				setsid();
				prctl(PR_SET_NAME, "sonde-release", 0, 0, 0);
				reap(k->held, n, gate[0]);
			}
			_exit(0);
		}
		if (c > 0)
			while (waitpid(c, NULL, 0) < 0 && errno == EINTR)
				;
		/* without a background process (fork failed) they close here */
	}
	for (int i = 0; i < n; i++)
		close(k->held[i]);
	for (int i = 0; i < 2; i++)
		if (gate[i] >= 0)
			close(gate[i]);	/* the background process may go on */
}

void rt_detach_all(struct rt *rt)
{
	destroy_links(&rt->links);
	release_held(&rt->links);
}

void rt_links_free(struct rt *rt)
{
	free(rt->links.links);
	free(rt->links.fds);
	free(rt->links.held);
	rt->links = (struct rt_links){0};
}
