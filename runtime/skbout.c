/*
 * skbout.c - skboutput(): packets from a perf event array into pcap files.
 *
 * bpf_skb_output writes only to a BPF_MAP_TYPE_PERF_EVENT_ARRAY, so a
 * script that calls skboutput() has a second event channel beside the
 * ring buffer: a libbpf perf_buffer over CG_SKB_MAP (one slot per CPU),
 * whose epoll fd the main loop's wait watches with the ring's (stop.c) and
 * which every consume and drain of events.c empties too.  Each sample is
 * an event record like the ring's ({EV_SKBOUTPUT, event id}, then the
 * CLOCK_BOOTTIME ns and the bytes copied, then the packet: CG_SKB_HDR), so
 * it goes through rt_event() (an exit() stops the writing as it stops
 * printf) to rt_skb_write().
 *
 * Each distinct path of the script's skboutput() calls is one pcap file,
 * opened (truncated) before the probes are attached and flushed after
 * every batch: several calls may share a file.  The files are written as
 * bpftrace's are: link type RAW (an IP packet, no link-layer header: an
 * offset of 14 leaves a device's Ethernet header out), microsecond
 * timestamps of the wall clock (the boot-time ns plus the time of boot),
 * snapshot length 65535 (a perf sample holds no more).  A packet's
 * captured and original lengths are both the bytes written, len - offset
 * (nothing when offset >= len).  The perf sample is padded to 8 bytes;
 * the header's length says where the packet ends.
 *
 * libpcap writes the format: it is opened with dlopen() when a script
 * calls skboutput(), not linked, so every other run neither loads it nor
 * the libraries it needs (as serve.c does with libmicrohttpd).
 */
#include "runtime/rt_int.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <linux/perf_event.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

/* libpcap's public types, declared here: <pcap/pcap.h> brings its own
 * struct bpf_insn (pcap/bpf.h), which <linux/bpf.h> also defines */
typedef struct pcap pcap_t;
typedef struct pcap_dumper pcap_dumper_t;
struct pcap_pkthdr {
	struct timeval ts;
	uint32_t caplen;	/* bytes in the file */
	uint32_t len;		/* bytes the packet had */
};
#define DLT_RAW 12	/* raw IP; libpcap writes it as LINKTYPE_RAW (101) */

#define PCAP_SONAME "libpcap.so.0.8"
/* the perf buffer's pages per CPU when BPFTRACE_PERF_RB_PAGES does not
 * say, as bpftrace's default: 256 KiB, some 4 full-size samples of 64 KiB */
#define SKB_PAGES_DEFAULT 64
#define SKB_SNAPLEN 65535

/* the libpcap functions this file calls; each pcap_name is pc.name */
static struct {
	pcap_t *(*open_dead)(int, int);
	pcap_dumper_t *(*dump_open)(pcap_t *, const char *);
	void (*dump)(unsigned char *, const struct pcap_pkthdr *, const unsigned char *);
	int (*dump_flush)(pcap_dumper_t *);
	void (*dump_close)(pcap_dumper_t *);
	void (*close)(pcap_t *);
	char *(*geterr)(pcap_t *);
	const char *(*lib_version)(void);
} pc;

static int pcap_load(void)
{
	static int state;	/* 0: not tried, 1: loaded, -1: not there */
	if (state)
		return state > 0 ? 0 : -ENOENT;
	state = -1;
	void *h = dlopen(PCAP_SONAME, RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -ENOENT;
	void **slots[] = {
		(void **)&pc.open_dead, (void **)&pc.dump_open, (void **)&pc.dump,
		(void **)&pc.dump_flush, (void **)&pc.dump_close, (void **)&pc.close,
		(void **)&pc.geterr, (void **)&pc.lib_version,
	};
	static const char *const names[] = {
		"pcap_open_dead", "pcap_dump_open", "pcap_dump", "pcap_dump_flush",
		"pcap_dump_close", "pcap_close", "pcap_geterr", "pcap_lib_version",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!(*slots[i] = dlsym(h, names[i])))
			return -ENOENT;
	state = 1;
	return 0;
}

const char *rt_pcap_version(void)
{
	return pcap_load() ? NULL : pc.lib_version();
}

/* one pcap file */
struct skb_file {
	const char *path;
	pcap_t *pd;
	pcap_dumper_t *dump;
	bool dirty;		/* written since the last flush */
};

struct rt_skb {
	struct perf_buffer *pb;
	struct skb_file *files;
	int nfiles;
	int *file_of;		/* by event id: its file, or -1 */
	uint64_t boot_ns;	/* CLOCK_REALTIME - CLOCK_BOOTTIME, at start */
	uint64_t lost;		/* samples the full perf buffer dropped */
	size_t pages;
};

static uint64_t clock_ns(clockid_t c)
{
	struct timespec t;
	clock_gettime(c, &t);
	return (uint64_t)t.tv_sec * 1000000000ull + (uint64_t)t.tv_nsec;
}

/* the perf buffer's pages per CPU: a power of two, as the kernel wants */
static size_t skb_pages(const struct rt *rt)
{
	size_t want = rt->o->rb_pages ? rt->o->rb_pages : SKB_PAGES_DEFAULT, n = 1;
	while (n < want)
		n <<= 1;
	return n;
}

int rt_skb_size(struct rt *rt)
{
	struct bpf_map *m = bpf_object__find_map_by_name(rt->bpf, CG_SKB_MAP);
	return m ? bpf_map__set_max_entries(m, (uint32_t)(rt->ncpus > 0 ? rt->ncpus : 1)) : 0;
}

/* a record of a CPU's perf ring: a sample ({u32 size, then the data
 * bpf_skb_output wrote}) or the count of samples it had no room for */
static enum bpf_perf_event_ret on_record(void *ctx, int cpu, struct perf_event_header *e)
{
	struct rt *rt = ctx;
	if (e->type == PERF_RECORD_SAMPLE && e->size >= sizeof(*e) + 4) {
		uint32_t size;
		memcpy(&size, e + 1, 4);
		if (size <= e->size - sizeof(*e) - 4 && !rt_stop_skip_event(rt))
			rt_event(rt, (uint8_t *)(e + 1) + 4, size);
	} else if (e->type == PERF_RECORD_LOST && e->size >= sizeof(*e) + 16) {
		uint64_t lost;
		memcpy(&lost, (uint8_t *)(e + 1) + 8, 8);
		rt->skb->lost += lost;
	}
	return LIBBPF_PERF_EVENT_CONT;
}

static int open_file(struct rt_skb *s, const char *path)
{
	for (int i = 0; i < s->nfiles; i++)
		if (!strcmp(s->files[i].path, path))
			return i;
	struct skb_file *f = &s->files[s->nfiles];
	f->path = path;
	f->pd = pc.open_dead(DLT_RAW, SKB_SNAPLEN);
	if (!f->pd) {
		fprintf(stderr, "sonde: skboutput(\"%s\"): libpcap cannot make a RAW pcap writer\n", path);
		return -ENOMEM;
	}
	f->dump = pc.dump_open(f->pd, path);
	if (!f->dump) {
		fprintf(stderr, "sonde: skboutput(): cannot open the pcap file: %s\n", pc.geterr(f->pd));
		pc.close(f->pd);
		return -EIO;
	}
	return s->nfiles++;
}

int rt_skb_open(struct rt *rt)
{
	const struct sema_result *r = rt->r;
	int n = 0;
	for (int i = 0; i < r->nevents; i++)
		n += r->events[i]->kind == EV_SKBOUTPUT;
	int fd = bpf_object__find_map_fd_by_name(rt->bpf, CG_SKB_MAP);
	if (!n || fd < 0)
		return 0;
	if (pcap_load()) {
		fprintf(stderr, "sonde: skboutput() writes its pcap files through libpcap (%s, Debian's "
			"libpcap0.8), which cannot be loaded: %s\n", PCAP_SONAME, dlerror());
		return -ENOENT;
	}
	struct rt_skb *s = calloc(1, sizeof(*s));
	rt->skb = s;
	if (!s || !(s->files = calloc((size_t)n, sizeof(*s->files))) ||
	    !(s->file_of = calloc((size_t)r->nevents, sizeof(int)))) {
		fprintf(stderr, "sonde: out of memory\n");
		return -ENOMEM;
	}
	for (int i = 0; i < r->nevents; i++) {
		s->file_of[i] = -1;
		if (r->events[i]->kind != EV_SKBOUTPUT)
			continue;
		int f = open_file(s, r->events[i]->fmt);
		if (f < 0)
			return f;
		s->file_of[i] = f;
	}
	s->boot_ns = clock_ns(CLOCK_REALTIME) - clock_ns(CLOCK_BOOTTIME);
	s->pages = skb_pages(rt);
	/* the kernel wakes the reader once a quarter of a CPU's buffer is
	 * filled, not at every packet: a wakeup per sample (libbpf's
	 * perf_buffer__new) is an irq_work and a task wakeup paid on the
	 * sending thread's CPU, which made a UDP sender 3 times slower here
	 * (bench: 100,000 datagrams).  The main loop still reads the buffers
	 * each time it wakes, at least every 100 ms, and at the stop. */
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE, .size = sizeof(attr), .config = PERF_COUNT_SW_BPF_OUTPUT,
		.sample_period = 1, .sample_type = PERF_SAMPLE_RAW, .watermark = 1,
		.wakeup_watermark = (uint32_t)(s->pages * (size_t)sysconf(_SC_PAGESIZE) / 4),
	};
	s->pb = perf_buffer__new_raw(fd, s->pages, &attr, on_record, rt, NULL);
	if (!s->pb) {
		int err = -errno;
		fprintf(stderr, "sonde: skboutput(): cannot open the perf buffer (%zu pages per CPU): %s\n",
			s->pages, strerror(-err));
		return err;
	}
	if (rt->o->verbose)
		fprintf(stderr, "sonde: skboutput perf buffer: %zu KiB per CPU, %d pcap file%s\n",
			s->pages * (size_t)sysconf(_SC_PAGESIZE) >> 10, s->nfiles, s->nfiles == 1 ? "" : "s");
	return 0;
}

int rt_skb_epoll_fd(const struct rt *rt)
{
	return rt->skb && rt->skb->pb ? perf_buffer__epoll_fd(rt->skb->pb) : -1;
}

void rt_skb_write(struct rt *rt, const struct sema_event *ev, const uint8_t *args, size_t size)
{
	struct rt_skb *s = rt->skb;
	uint64_t ns, len;
	if (!s || size < CG_SKB_HDR - 8 || ev->id < 0 || ev->id >= rt->r->nevents || s->file_of[ev->id] < 0)
		return;
	memcpy(&ns, args, 8);
	memcpy(&len, args + 8, 8);
	size -= CG_SKB_HDR - 8;
	if (len > size)
		len = size;
	if (ev->offset >= len)
		return;	/* nothing of it is asked for, as bpftrace */
	struct skb_file *f = &s->files[s->file_of[ev->id]];
	uint64_t t = ns + s->boot_ns;
	struct pcap_pkthdr h = {
		.ts = {.tv_sec = (time_t)(t / 1000000000ull), .tv_usec = (suseconds_t)(t % 1000000000ull / 1000)},
		.caplen = (uint32_t)(len - ev->offset),
		.len = (uint32_t)(len - ev->offset),
	};
	pc.dump((unsigned char *)f->dump, &h, args + (CG_SKB_HDR - 8) + ev->offset);
	f->dirty = true;
}

void rt_skb_consume(struct rt *rt)
{
	struct rt_skb *s = rt->skb;
	if (!s || !s->pb)
		return;
	perf_buffer__consume(s->pb);
	for (int i = 0; i < s->nfiles; i++)
		if (s->files[i].dirty) {
			pc.dump_flush(s->files[i].dump);
			s->files[i].dirty = false;
		}
}

void rt_skb_close(struct rt *rt)
{
	struct rt_skb *s = rt->skb;
	if (!s)
		return;
	if (s->lost)
		fprintf(stderr, "sonde: skboutput: %llu packet%s lost: the perf buffer was full (%zu pages "
			"per CPU; BPFTRACE_PERF_RB_PAGES sets more)\n", (unsigned long long)s->lost,
			s->lost == 1 ? "" : "s", s->pages);
	perf_buffer__free(s->pb);
	for (int i = 0; i < s->nfiles; i++) {
		pc.dump_close(s->files[i].dump);
		pc.close(s->files[i].pd);
	}
	free(s->files);
	free(s->file_of);
	free(s);
	rt->skb = NULL;
}
