/*
 * events.c - what the BPF side sends through the ring buffer, and the
 * consumer that reads it.
 *
 * Each record starts with {u32 kind, u32 id}; the arguments follow, laid
 * out as sema described them (struct sema_event.args).  printf, cat and
 * system format in userspace; time() reads the clock here, when the event
 * arrives; exit() asks the main loop to stop.
 *
 * The consumer is built for floods (issue #10).  A printf event allocates
 * nothing once warm (decoded values in the scratch arena, the text in one
 * kept buffer) and makes no system call: output goes to a large stdio
 * buffer that is flushed once per drain (line by line on a terminal).  A
 * drain handles at most DRAIN_BUDGET records and then hands control back
 * to the main loop, so a producer faster than the consumer can never keep
 * it from seeing a signal, a timer or the end of the -c child.  Events the
 * ring had no room for are counted in BPF (a per-CPU counter) and reported
 * as bpftrace does, "Lost N events", at most once a second while running
 * and once more at exit.
 */
#include "runtime/rt_int.h"

#include <bpf/bpf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "common/diag.h"
#include "common/format.h"
#include "common/settings.h"

/* the arguments of ev as printf values; strings point into data */
static struct fmt_val *decode(struct rt *rt, const struct sema_event *ev, const uint8_t *args)
{
	struct fmt_val *v = arena_new_array(rt->a, struct fmt_val, ev->args.nfields ? ev->args.nfields : 1);
	for (int i = 0; i < ev->args.nfields; i++) {
		const struct type_field *f = &ev->args.fields[i];
		const uint8_t *p = args + f->offset;
		if (f->type.kind == TY_INT || f->type.kind == TY_PTR) {
			v[i].kind = f->type.is_signed ? FMT_INT : FMT_UINT;
			v[i].int32 = f->type.kind == TY_INT && f->type.csize && f->type.csize <= 4;
			memcpy(&v[i].i, p, 8);
			if (ev->spec && i < ev->spec->nconvs && ev->spec->convs[i].kind == FMT_STR) {
				v[i].kind = FMT_STR;
				bool s;
				v[i].s = rt_render(rt, &f->type, p, &s);
			}
		} else if (f->type.kind == TY_BUF && ev->spec && i < ev->spec->nconvs &&
			   ev->spec->convs[i].rmode) {
			/* %rx, %rh: the raw bytes, all in hex */
			uint64_t n, cap = f->type.size > 8 ? f->type.size - 8 : 0;
			memcpy(&n, p, 8);
			v[i].kind = FMT_STR;
			v[i].s = vf_buf_hex(rt->a, p + 8, n < cap ? n : cap, ev->spec->convs[i].rmode);
		} else {
			bool s;
			v[i].kind = FMT_STR;
			v[i].s = rt_render(rt, &f->type, p, &s);
		}
	}
	return v;
}

/* the formatted text lives in rt's kept buffer, valid until the next event */
static char *format_event(struct rt *rt, const struct sema_event *ev, const uint8_t *args, size_t *len)
{
	struct fmt_val *v = decode(rt, ev, args);
	return fmt_format_into(&rt->ev.text, &rt->ev.text_cap, ev->fmt, ev->spec, v,
			       ev->args.nfields, len);
}

/* at most max bytes of f into one malloc'd buffer (NULL when out of memory) */
static char *slurp(FILE *f, size_t max, size_t *len)
{
	char *buf = NULL;
	FILE *m = open_memstream(&buf, len);
	if (!m)
		return NULL;
	char chunk[4096];
	size_t n;
	size_t left = max;
	while (left && (n = fread(chunk, 1, left < sizeof(chunk) ? left : sizeof(chunk), f)) > 0) {
		fwrite(chunk, 1, n, m);
		left -= n;
	}
	if (fclose(m)) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* cat(): the file as one "cat" message, as bpftrace, up to
 * BPFTRACE_CAT_BYTES_MAX bytes; a file that cannot be opened is a warning
 * on stderr (and an empty message in JSON, as bpftrace writes it), and the
 * script goes on */
static void do_cat(struct rt *rt, const char *path)
{
	size_t len = 0;
	char *text = NULL;
	FILE *f = fopen(path, "r");
	if (!f)
		diag_warnf("cat: failed to open file '%s': %m\n", path);
	else {
		text = slurp(f, (size_t)settings_int(SET_CAT_BYTES_MAX), &len);
		fclose(f);
	}
	rt->o->writer->message(rt->o->out, "cat", text ? text : "", text ? len : 0);
	free(text);
}

/* -k: a helper failed in BPF; a located warning, as bpftrace -k prints.
 * A read of an absent key (site->map; code 0, as bpftrace reports it)
 * has the newest bpftrace's message in JSON, and names the map in text */
static void helper_warning(struct rt *rt, const struct cg_site *site, int64_t code)
{
	struct diag d;
	diag_init(&d, rt->o->file, rt->o->src, stderr);
	if (rt->o->writer->helper_error) {
		struct src_loc at = site->loc;	/* in an imported file: its line */
		char file[256];
		diag_where(&d, &at, file, sizeof(file));
		rt->o->writer->helper_error(rt->o->out, site->helper, code,
					    site->map ? "Can't lookup map element because it does not exist."
						      : strerror((int)-code),
					    at.line, at.col);
		return;
	}
	fflush(rt->o->out);
	if (code == -E2BIG && !strcmp(site->helper, "map_update_elem")) {
		/* a full map, in the newest bpftrace's words */
		static const char full[] = "Map full; can't update element. Try increasing max_map_keys "
					   "config or manually setting the max entries in a map "
					   "declaration e.g. `let @a = hash(5000)`";
		diag_located(&d, site->loc, "WARNING", full, sizeof(full) - 1);
		return;
	}
	if (site->map)
		diag_warn(&d, site->loc, "%s failed: map '%s' has no such key (the read gives 0)",
			  site->helper, site->map);
	else
		diag_warn(&d, site->loc, "%s failed: %s (%lld)", site->helper, strerror((int)-code),
			  (long long)code);
}

/* errorf()/warnf(): on stderr after what the script printed before */
static void located(struct rt *rt, struct src_loc loc, const char *kind, const char *msg, size_t len)
{
	struct diag d;
	diag_init(&d, rt->o->file, rt->o->src, stderr);
	fflush(rt->o->out);
	diag_located(&d, loc, kind, msg, len);
}

/* one value for the shell: in single quotes, a quote inside as '\'' */
static void shell_quote(FILE *m, const char *s)
{
	fputc('\'', m);
	for (; *s; s++)
		if (*s == '\'')
			fputs("'\\''", m);
		else
			fputc(*s, m);
	fputc('\'', m);
}

/*
 * system()'s command line for `sh -c`, as bpftrace runs it: the format's
 * literal text is the shell's (pipes, redirections, $VAR work as in
 * bpftrace's scripts), and each value a conversion substitutes is
 * formatted on its own (width and precision included) and then quoted for
 * the shell, so a traced value is one word and never shell syntax: a
 * process named ";reboot" is printed by system("echo %s", comm), not run.
 * A malloc'd string, or NULL when out of memory.
 */
static char *system_command(const struct sema_event *ev, const struct fmt_val *v)
{
	const char *fmt = ev->fmt;
	char *cmd = NULL, *one = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&cmd, &len);
	if (!m)
		return NULL;
	int conv = 0, nconvs = ev->spec ? ev->spec->nconvs : 0;
	for (size_t i = 0; fmt[i]; i++) {
		if (conv < nconvs && (int)i == ev->spec->convs[conv].offset) {
			size_t n = (size_t)ev->spec->convs[conv].length;
			one = strndup(fmt + i, n);
			char *w = one && conv < ev->args.nfields ? fmt_format(one, NULL, v + conv, 1, NULL) : NULL;
			shell_quote(m, w ? w : "");
			free(w);
			free(one);
			one = NULL;
			i += n - 1;
			conv++;
		} else if (fmt[i] == '%' && fmt[i + 1] == '%') {
			fputc('%', m);
			i++;
		} else {
			fputc(fmt[i], m);
		}
	}
	if (fclose(m)) {
		free(cmd);
		return NULL;
	}
	return cmd;
}

/* system(): run the command with `sh -c` and capture its stdout as a
 * "syscall" message (bpftrace's name), so it lands in -o FILE and stays
 * valid JSON; its stderr stays sonde's */
static void do_system(struct rt *rt, const struct sema_event *ev, const uint8_t *args)
{
	char *cmd = system_command(ev, decode(rt, ev, args));
	if (!cmd)
		return;
	fflush(rt->o->out);
	int fds[2];
	pid_t pid = -1;
	if (pipe2(fds, O_CLOEXEC) == 0 && (pid = fork()) < 0) {
		close(fds[0]);
		close(fds[1]);
	}
	if (pid < 0) {
		fprintf(stderr, "sonde: system(\"%s\"): %m\n", cmd);
		free(cmd);
		return;
	}
	if (pid == 0) {
		dup2(fds[1], STDOUT_FILENO);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		fprintf(stderr, "sonde: system(): cannot run /bin/sh: %m\n");
		_exit(127);
	}
	free(cmd);
	close(fds[1]);
	FILE *p = fdopen(fds[0], "r");
	size_t len = 0;
	char *text = p ? slurp(p, SIZE_MAX, &len) : NULL;
	if (p)
		fclose(p);
	else
		close(fds[0]);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
	rt->o->writer->message(rt->o->out, "syscall", text ? text : "", text ? len : 0);
	free(text);
}

static void do_time(struct rt *rt, const char *fmt)
{
	char buf[256];
	time_t now = time(NULL);
	struct tm tm;
	localtime_r(&now, &tm);
	size_t n = strftime(buf, sizeof(buf), fmt, &tm);
	rt->o->writer->message(rt->o->out, "time", buf, n);
}

static int handle(struct rt *rt, void *data, size_t size);

/* a drain's record budget is spent (or exit() was seen): libbpf stops
 * there, with this record consumed, and returns this value */
#define DRAIN_PAUSE (-EAGAIN)
/* records per drain: a few ms of formatting, then the main loop runs */
#define DRAIN_BUDGET 4096

/* each event's decoded strings live in the scratch arena, given back right
 * after: no allocation per event once the arena has warmed up.  The
 * kernel's ring and the agents' shared rings (agent.c) both come here. */
int rt_event(struct rt *rt, void *data, size_t size)
{
	struct arena *keep = rt->a;
	struct arena_mark m = arena_mark(rt->scratch);
	rt->a = rt->scratch;
	int rc = handle(rt, data, size);
	arena_release(rt->scratch, m);
	rt->a = keep;
	return rc;
}

static int on_record(void *ctx, void *data, size_t size)
{
	struct rt *rt = ctx;
	if (rt_stop_skip_event(rt))
		return 0;
	rt_event(rt, data, size);
	/* a stop (stop.c: rt_stop_due) or a spent budget leaves libbpf's
	 * drain loop now, not when the ring is empty (never, under a
	 * flood); this event is consumed either way */
	if (++rt->ev.handled >= rt->ev.budget || (rt->ev.pause_on_stop && rt_stop_due(rt)) ||
	    (rt->ev.to_exit && (rt->ev.exited || rt->stopper.hurry)))
		return DRAIN_PAUSE;
	return 0;
}

static int handle(struct rt *rt, void *data, size_t size)
{
	if (size < 8)
		return 0;
	uint32_t kind, id;
	memcpy(&kind, data, 4);
	memcpy(&id, (uint8_t *)data + 4, 4);
	const uint8_t *args = (const uint8_t *)data + 8;
	const struct sema_result *r = rt->r;
	/* after exit(): nothing that a probe sent later prints, as in
	 * bpftrace (the other CPUs run on until the detach); what was queued
	 * before it did print.  Symbols of a new pid are still learnt, for
	 * the stacks the exit-time maps print. */
	if ((rt->ev.exited || rt->ev.discard) && kind != EV_PID_SEEN && kind != EV_EXEC && kind != EV_PY_SCAN &&
	    kind != EV_PY_STACK)
		return 0;
	switch ((enum event_kind)kind) {
	case EV_SYSTEM:
		if (id < (uint32_t)r->nevents && !rt_stop_skip_command(rt))
			do_system(rt, r->events[id], args);
		break;
	case EV_PRINTF:
	case EV_ERRORF:
	case EV_WARNF:
	case EV_CAT: {
		if (id >= (uint32_t)r->nevents)
			return 0;
		size_t len;
		char *s = format_event(rt, r->events[id], args, &len);
		if (!s)
			return 0;
		if (kind == EV_PRINTF)
			rt->o->writer->message(rt->o->out, "printf", s, len);
		else if (kind == EV_CAT)
			do_cat(rt, s);
		else if (kind == EV_ERRORF || !diag_no_warnings)
			located(rt, r->events[id]->loc, kind == EV_ERRORF ? "ERROR" : "WARNING", s, len);
		break;
	}
	case EV_TIME:
		if (id < (uint32_t)r->nevents)
			do_time(rt, r->events[id]->fmt);
		break;
	case EV_PRINT_VAL: {
		if (id >= (uint32_t)r->nevents)
			return 0;
		const struct sema_event *ev = r->events[id];
		rt->o->writer->value(rt->o->out, rt_render_for(rt, &ev->args.fields[0].type, args, NULL));
		break;
	}
	case EV_PRINT_MAP: {
		uint64_t w[3] = {0, 0, 0};	/* top, div, enum print_then */
		memcpy(w, args, size - 8 < sizeof(w) ? size - 8 : sizeof(w));
		/* scrape formats: the scraper reads the maps and takes rates
		 * itself; a recipe's print-and-clear every interval would turn
		 * its counters into sawtooth gauges (docs/metrics.md) */
		if (id < (uint32_t)r->nmaps && !rt->o->writer->scrape) {
			rt_map_print_then(rt, r->maps[id], (uint32_t)w[0], (uint32_t)w[1],
					  w[2] <= PRINT_THEN_ZERO ? (enum print_then)w[2] : PRINT_ONLY);
			rt_ps_map_done(rt, r->maps[id]);
		}
		break;
	}
	case EV_CLEAR:
	case EV_ZERO:
		if (id < (uint32_t)r->nmaps && !rt->o->writer->scrape) {
			rt_map_clear(rt, r->maps[id], kind == EV_ZERO);
			rt_ps_map_done(rt, r->maps[id]);
		}
		break;
	case EV_EXIT:
		rt->stop = 1;
		rt->ev.exited = true;
		break;
	case EV_JOIN:
		if (id < (uint32_t)r->nevents)
			rt_join_event(rt, r->events[id], args, size - 8);
		break;
	case EV_PID_SEEN: {
		uint64_t pid;
		if (size >= 16) {
			memcpy(&pid, args, 8);
			rt_ps_capture(rt, (int)pid);
		}
		break;
	}
	case EV_PY_SCAN: {
		uint64_t pid;
		if (size >= 16) {
			memcpy(&pid, args, 8);
			rt_py_scan(rt, (int)pid);
		}
		break;
	}
	case EV_PY_STACK:
		rt_py_name_stack(rt, args, size - 8);
		break;
	case EV_SKBOUTPUT:
		if (id < (uint32_t)r->nevents)
			rt_skb_write(rt, r->events[id], args, size - 8);
		break;
	case EV_EXEC:
		rt_exec_event(rt, args, size - 8);
		break;
	case EV_HELPER_ERROR: {
		int64_t code;
		if (size >= 16 && id < (uint32_t)rt->obj->nsites) {
			memcpy(&code, args, 8);
			helper_warning(rt, &rt->obj->sites[id], code);
		}
		break;
	}
	}
	return 0;
}

/* ---- the consumer --------------------------------------------------------------- */

/* ring buffer bytes: pages per CPU times the CPUs, as bpftrace counts its
 * per-CPU buffers, rounded up to the power of two a BPF ring needs */
static uint64_t ring_bytes(const struct rt *rt)
{
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	if (!rt->o->rb_pages)
		/* pystack sends each new stack (2 KiB) to be named at once */
		return rt->r->nevents || bpf_object__find_map_by_name(rt->bpf, "py_procs") ? RT_RING_DEFAULT
											: RT_RING_QUIET;
	uint64_t want = (uint64_t)rt->o->rb_pages * page * (uint64_t)(rt->ncpus > 0 ? rt->ncpus : 1);
	uint64_t size = page;
	while (size < want && size < RT_RING_MAX)
		size <<= 1;
	return size;
}

int rt_events_size(struct rt *rt)
{
	struct bpf_map *m = bpf_object__find_map_by_name(rt->bpf, CG_RINGBUF_MAP);
	if (!m)
		return -ENOENT;
	uint64_t size = ring_bytes(rt);
	if (rt->o->verbose && rt->o->rb_pages)
		fprintf(stderr, "sonde: event ring buffer: %llu KiB (%u page%s per CPU, %d CPUs)\n",
			(unsigned long long)size >> 10, rt->o->rb_pages, rt->o->rb_pages == 1 ? "" : "s",
			rt->ncpus);
	else if (rt->o->verbose)
		fprintf(stderr, "sonde: event ring buffer: %llu KiB\n", (unsigned long long)size >> 10);
	return bpf_map__set_max_entries(m, (uint32_t)size);
}

int rt_events_open(struct rt *rt)
{
	int fd = bpf_object__find_map_fd_by_name(rt->bpf, CG_RINGBUF_MAP);
	rt->rb = ring_buffer__new(fd, on_record, rt, NULL);
	if (!rt->rb) {
		int err = -errno;
		fprintf(stderr, "sonde: cannot open the event ring buffer: %s\n", strerror(-err));
		return err;
	}
	/* one write per drain, not per line; a person at a terminal sees
	 * each line as it comes */
	FILE *out = rt->o->out;
	if (isatty(fileno(out)))
		setvbuf(out, NULL, _IOLBF, 0);
	else
		setvbuf(out, NULL, _IOFBF, 1 << 16);
	return 0;
}

void rt_events_report_lost(struct rt *rt)
{
	uint64_t total = rt_lost_events(rt);	/* scrape.c */
	rt->ev.lost_checked_ms = rt_mono_ns() / 1000000;
	if (total > rt->ev.lost_reported) {
		fflush(rt->o->out);	/* after the lines that did arrive */
		rt->o->writer->lost_events(rt->o->out, stderr, total - rt->ev.lost_reported);
		fflush(rt->o->out);	/* JSON: the report is output too */
		rt->ev.lost_reported = total;
	}
}

/* libbpf gives back our pause, or the number of records, or an error */
static int drain_result(struct rt *rt, int n)
{
	rt->ev.more = n == DRAIN_PAUSE && !rt->stop;
	if (n == DRAIN_PAUSE || n == -EINTR)
		return 0;
	return n < 0 ? n : 0;
}

static void drain_begin(struct rt *rt, uint64_t budget, bool pause_on_stop)
{
	rt->ev.handled = 0;
	rt->ev.budget = budget;
	rt->ev.pause_on_stop = pause_on_stop;
}

/* after a drain: the output in one write, and lost events once a second */
static void drain_end(struct rt *rt)
{
	if (rt->ev.handled)
		fflush(rt->o->out);
	if (rt_mono_ns() / 1000000 - rt->ev.lost_checked_ms >= 1000)
		rt_events_report_lost(rt);
}

int rt_events_consume(struct rt *rt)
{
	drain_begin(rt, DRAIN_BUDGET, true);
	int err = drain_result(rt, ring_buffer__consume(rt->rb));
	rt_skb_consume(rt);
	drain_end(rt);
	return err;
}

void rt_events_drain(struct rt *rt)
{
	drain_begin(rt, UINT64_MAX, false);
	drain_result(rt, ring_buffer__consume(rt->rb));
	rt_skb_consume(rt);
	rt->ev.more = false;
	fflush(rt->o->out);
}

/* exit() stops the run as soon as its word is set (stop.c), which can be
 * before the consumer reached the records its probe sent ahead of the
 * exit record: a system("bpftool link") there would run after the
 * detach.  They are handled here, before it: up to the exit record, or a
 * ring's worth of records when that was lost to a full ring; a signal
 * cuts it short. */
void rt_events_drain_to_exit(struct rt *rt)
{
	if (rt->ev.exited)
		return;
	drain_begin(rt, ring_bytes(rt) / 16, false);
	rt->ev.to_exit = true;
	drain_result(rt, ring_buffer__consume(rt->rb));
	rt_skb_consume(rt);
	rt->ev.to_exit = false;
	drain_end(rt);
}

void rt_events_close(struct rt *rt)
{
	ring_buffer__free(rt->rb);
	rt->rb = NULL;
	free(rt->ev.text);
	rt->ev.text = NULL;
}
