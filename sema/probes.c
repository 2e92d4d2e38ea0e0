/*
 * probes.c - attach points: from "t:sched:sched_*" to concrete probes.
 *
 * Splits each raw attach point into provider, target and function,
 * accepts bpftrace's short provider names, expands tracepoint wildcards
 * against tracefs and loads each tracepoint's format (for args->field).
 * uprobe targets are only split here; the runtime resolves them against
 * the processes that map them (host/uresolve.c), since the right file
 * depends on the mount namespace.
 */
#include "sema/sema_int.h"

#include <ctype.h>
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/explain.h"
#include "common/settings.h"
#include "common/suggest.h"
#include "host/host.h"

#define TASK_REGS (PC_TASK | PC_REGS)

static const struct probe_provider providers[] = {
	[PT_BEGIN] = {PT_BEGIN, "BEGIN", NULL, "raw_tp/sonde_run", false, true, 0, NULL, true},
	[PT_END] = {PT_END, "END", NULL, "raw_tp/sonde_run", false, true, 0, NULL, true},
	[PT_TRACEPOINT] = {PT_TRACEPOINT, "tracepoint", "t", "tracepoint", true, false,
			   PC_TASK | PC_TP_ARGS, host_list_tracepoints},
	[PT_RAWTRACEPOINT] = {PT_RAWTRACEPOINT, "rawtracepoint", "rt", "raw_tp", true, false,
			      PC_TASK | PC_ARGN | PC_KARGS, host_list_rawtracepoints},
	[PT_UPROBE] = {PT_UPROBE, "uprobe", "u", "uprobe", false, false,
		       TASK_REGS | PC_ARGN | PC_FUNC | PC_USER, host_list_uprobes, true},
	[PT_URETPROBE] = {PT_URETPROBE, "uretprobe", "ur", "uretprobe", false, false,
			  TASK_REGS | PC_ARGN | PC_RETVAL | PC_FUNC | PC_USER, host_list_uprobes, true},
	[PT_USDT] = {PT_USDT, "usdt", "U", "uprobe", false, false,
		     TASK_REGS | PC_ARGN | PC_USER, host_list_usdt},
	[PT_KPROBE] = {PT_KPROBE, "kprobe", "k", "kprobe", true, false,
		       TASK_REGS | PC_ARGN | PC_FUNC, host_list_kprobes},
	[PT_KRETPROBE] = {PT_KRETPROBE, "kretprobe", "kr", "kretprobe", true, false,
			  TASK_REGS | PC_ARGN | PC_RETVAL | PC_FUNC, host_list_kprobes},
	[PT_FENTRY] = {PT_FENTRY, "fentry", "kfunc", "fentry", true, false,
		       PC_TASK | PC_FUNC | PC_KARGS, host_list_fentry},
	[PT_FEXIT] = {PT_FEXIT, "fexit", "kretfunc", "fexit", true, false,
		      PC_TASK | PC_FUNC | PC_KARGS | PC_RETVAL, host_list_fentry},
	/* an interval fires on a timer, not in the task it interrupts */
	[PT_INTERVAL] = {PT_INTERVAL, "interval", "i", "perf_event", false, false, PC_REGS,
			 host_list_timers, true},
	[PT_PROFILE] = {PT_PROFILE, "profile", "p", "perf_event", false, false, TASK_REGS,
			host_list_timers},
	[PT_SOFTWARE] = {PT_SOFTWARE, "software", "s", "perf_event", false, false, TASK_REGS,
			 host_list_software},
	[PT_HARDWARE] = {PT_HARDWARE, "hardware", "h", "perf_event", false, false, TASK_REGS,
			 host_list_hardware},
	[PT_SELF] = {PT_SELF, "self", NULL, "raw_tp/sonde_run", false, true, 0, NULL, true},
	/* an XDP program: the kernel runs those repeatedly and times them
	 * (BPF_PROG_TEST_RUN's repeat, which raw_tp programs refuse) */
	[PT_BENCH] = {PT_BENCH, "bench", NULL, "xdp", false, true, 0, NULL, false},
	/* a BPF iterator (a tracing program, iter/NAME): it runs in sonde's
	 * own task once per object as sonde reads it */
	[PT_ITER] = {PT_ITER, "iter", "it", "iter", true, false, 0, host_list_iters, false},
};
_Static_assert(sizeof(providers) / sizeof(providers[0]) == PT_COUNT,
	       "every probe type has a row in providers[]");

const struct probe_provider *sema_provider(enum probe_type t)
{
	return &providers[t];
}

/* Exact names and aliases first ("U" is usdt, "u" uprobe); then, as newer
 * bpftrace, a provider's full name in any case ("begin", "Tracepoint"). */
const struct probe_provider *sema_provider_named(const char *name)
{
	for (size_t i = 0; i < PT_COUNT; i++)
		if (!strcmp(name, providers[i].name) ||
		    (providers[i].alias && !strcmp(name, providers[i].alias)))
			return &providers[i];
	for (size_t i = 0; i < PT_COUNT; i++)
		if (!strcasecmp(name, providers[i].name))
			return &providers[i];
	return NULL;
}

const char *sema_probe_type_name(enum probe_type t)
{
	return (unsigned)t < PT_COUNT ? providers[t].name : "?";
}

/* split "a:b:c" into at most n parts; the last part keeps further colons */
static int split(struct arena *a, const char *raw, const char **parts, int n)
{
	int k = 0;
	const char *p = raw;
	while (k < n - 1) {
		const char *c = strchr(p, ':');
		if (!c)
			break;
		parts[k++] = arena_strndup(a, p, (size_t)(c - p));
		p = c + 1;
	}
	parts[k++] = arena_strdup(a, p);
	return k;
}

/* a number in an attach point, as the newest bpftrace reads the
 * language's literals there: 1000000, 0x10, 1_000_000, 1e6 (2e3 is 2000) */
static bool parse_u64(const char *s, uint64_t *out)
{
	if (!s || !*s || !isdigit((unsigned char)*s) || strlen(s) >= 64)
		return false;
	char buf[64], *end;
	size_t n = 0;
	for (const char *c = s; *c; c++)
		if (*c != '_')
			buf[n++] = *c;
	buf[n] = '\0';
	char *e = buf[0] == '0' && (buf[1] == 'x' || buf[1] == 'X') ? NULL : strpbrk(buf, "eE");
	if (e)
		*e = '\0';
	errno = 0;
	unsigned long long v = strtoull(buf, &end, buf[0] == '0' && !e ? 0 : 10);
	if (errno || *end)
		return false;
	if (e) {
		if (!isdigit((unsigned char)e[1]))
			return false;
		unsigned long long x = strtoull(e + 1, &end, 10);
		if (*end || x > 19)
			return false;
		while (x--) {
			if (v > UINT64_MAX / 10)
				return false;
			v *= 10;
		}
	}
	*out = v;
	return true;
}

static struct sema_attach *push(struct sema_ctx *s, struct sema_probe *p)
{
	p->attach = arena_grow(s->a, p->attach, (size_t)p->nattach, sizeof(*p->attach));
	return &p->attach[p->nattach++];
}

struct sema_attach *sema_push_attach(struct sema_ctx *s, struct sema_probe *p)
{
	return push(s, p);
}

static bool has_glob(const char *s);
static void left_out(struct sema_ctx *s, struct sema_probe *p);

/*
 * func without BPF cookies (before Linux 5.15): a uprobe program cannot
 * tell which site fired, so a wildcard uprobe whose body reads func
 * becomes one attach point per function it matches now, each with its own
 * program and its function as a constant (stdlib/process.c).  A wildcard
 * that matches nothing stays, and the check reports it.
 */
void sema_expand_func_sites(struct sema_ctx *s, struct sema_probe *p)
{
	struct sema_attach *old = p->attach;
	int nold = p->nattach;
	p->attach = NULL;
	p->nattach = 0;
	for (int i = 0; i < nold; i++) {
		const struct sema_attach *a = &old[i];
		struct rs_sites *sites = NULL;
		char err[512];
		/* as the runtime resolves it: inside the -p process's root */
		struct rs_query q = {.target = a->target, .func = a->func, .pid = s->opts->target_pid};
		if ((a->type != PT_UPROBE && a->type != PT_URETPROBE) || !has_glob(a->func) ||
		    rs_resolve(&q, &sites, err, sizeof(err)) || !sites->nsites) {
			if (sites)
				rs_sites_free(sites);
			*push(s, p) = *a;
			continue;
		}
		for (size_t j = 0; j < sites->nsites; j++) {
			const char *sym = sites->sites[j].sym;
			bool seen = false;
			for (int k = 0; k < p->nattach && !seen; k++)
				seen = p->attach[k].type == a->type && p->attach[k].loc.line == a->loc.line &&
				       p->attach[k].loc.col == a->loc.col && !strcmp(p->attach[k].func, sym);
			if (seen)
				continue;
			const char *name = arena_printf(s->a, "%s:%s:%s", sema_probe_type_name(a->type),
							a->target, sym);
			/* --probe-filter: the functions whose names it matches */
			if (s->opts->probe_filter && regexec(s->opts->probe_filter, name, 0, NULL, 0))
				continue;
			struct sema_attach *e = push(s, p);
			*e = *a;
			e->func = arena_strdup(s->a, sym);
			e->name = name;
		}
		rs_sites_free(sites);
	}
	s->r->nattach += p->nattach - nold;
	if (!p->nattach && nold) {	/* the filter left none */
		s->r->nattach -= p->nattach;
		left_out(s, p);
		s->r->nattach += p->nattach;
	}
}

static int add_tracepoint(const char *cat, const char *name, void *ctx)
{
	struct sema_collect *c = ctx;
	struct sema_ctx *s = c->s;
	struct tp_format *fmt = arena_new_obj(s->a, struct tp_format);
	int err = tfs_format_read(s->a, cat, name, fmt);
	if (err) {
		sema_error(s, c->at->loc, "tracepoint '%s:%s': cannot read its format: %s",
			   cat, name, strerror(-err));
		return err;
	}
	struct sema_attach *at = push(s, c->p);
	at->type = PT_TRACEPOINT;
	at->target = arena_strdup(s->a, cat);
	at->func = arena_strdup(s->a, name);
	at->name = arena_printf(s->a, "tracepoint:%s:%s", cat, name);
	at->fmt = fmt;
	at->loc = c->at->loc;
	c->n++;
	return 0;
}

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

/* newer bpftrace's one-part rate: "1s", "100ms", "5us", "1000000" (ns),
 * "99hz"; splits it into a unit and a number ("ns" when none is written) */
static bool split_rate(struct sema_ctx *s, const char *text, const char **unit, const char **num)
{
	size_t d = strspn(text, "0123456789");
	static const char *const units[] = {"ns", "us", "ms", "s", "m", "h", "d", "hz"};
	if (!d)
		return false;
	*num = arena_strndup(s->a, text, d);
	if (!text[d]) {
		*unit = "ns";
		return true;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++)
		if (!strcmp(text + d, units[i])) {
			*unit = units[i];
			return true;
		}
	return false;
}

/* interval:s:N, interval:ms:N, interval:us:N, interval:hz:N, profile:hz:N,
 * and the newer interval:1s, interval:100ms, profile:99hz, interval:N (ns) */
static bool parse_rate(struct sema_ctx *s, struct ast_attach *raw, const char **parts, int n,
		       struct sema_attach *at)
{
	uint64_t v;
	const char *unit = n == 3 ? parts[1] : NULL, *num = n == 3 ? parts[2] : NULL;
	if ((n == 2 && !split_rate(s, parts[1], &unit, &num)) || (n != 2 && n != 3) ||
	    !parse_u64(num, &v) || v == 0) {
		sema_error(s, raw->loc, "%s probe expects %s:UNIT:N with UNIT one of s, ms, us, hz and N > 0, "
			   "or %s:Ns, Nms, Nus, Nhz", parts[0], parts[0], parts[0]);
		return false;
	}
	static const struct { const char *unit; uint64_t ns; } longer[] = {
		{"ns", 1}, {"m", 60000000000ull}, {"h", 3600000000000ull}, {"d", 86400000000000ull},
	};
	for (size_t i = 0; i < sizeof(longer) / sizeof(longer[0]); i++)
		if (!strcmp(unit, longer[i].unit)) {
			if (v > UINT64_MAX / longer[i].ns) {
				sema_error(s, raw->loc, "%s period is too long", parts[0]);
				return false;
			}
			at->period_ns = v * longer[i].ns;
			return true;
		}
	const char *u = unit;
	if (!strcmp(u, "s") || !strcmp(u, "sec"))
		at->period_ns = v * 1000000000ull;
	else if (!strcmp(u, "ms"))
		at->period_ns = v * 1000000ull;
	else if (!strcmp(u, "us"))
		at->period_ns = v * 1000ull;
	else if (!strcmp(u, "hz"))
		at->freq = v;
	else {
		sema_error(s, raw->loc, "unknown time unit '%s': use s, ms, us or hz", u);
		return false;
	}
	return true;
}

/* `i:ms:$1`, `uprobe:$1:f`: positional parameters in an attach point are
 * its text ($# the count); NULL after an error (a parameter not given) */
static const char *expand_positional(struct sema_ctx *s, struct ast_attach *raw)
{
	const char *in = raw->raw;
	if (!strchr(in, '$'))
		return in;
	size_t len = 0;
	char *out = NULL;
	FILE *f = open_memstream(&out, &len);
	if (!f)
		return in;
	for (const char *c = in; *c; c++) {
		if (*c == '$' && c[1] == '#') {
			fprintf(f, "%d", s->opts->npos_args);
			c++;
		} else if (*c == '$' && c[1] >= '0' && c[1] <= '9') {
			char *end;
			long i = strtol(c + 1, &end, 10);
			if (i < 1 || i > s->opts->npos_args) {
				sema_error(s, raw->loc, "attach point '%s': positional parameter $%ld is "
					   "not given", in, i);
				fclose(f);
				free(out);
				return NULL;
			}
			fputs(s->opts->pos_args[i - 1], f);
			c = end - 1;
		} else {
			fputc(*c, f);
		}
	}
	fclose(f);
	const char *r = arena_strdup(s->a, out);
	free(out);
	return r;
}

static int suggest_tp_cb(const char *cat, const char *name, void *ctx)
{
	struct suggest *sg = ctx;
	char full[256];
	snprintf(full, sizeof(full), "%s:%s", cat, name);
	suggest_add(sg, full);
	return 0;
}

/* "; did you mean 'syscalls:sys_enter_openat'?" for a misspelled category
 * or name: the nearest CAT:NAME of every tracepoint (names only: no
 * format file is read) */
static const char *tracepoint_hint(struct sema_ctx *s, const char *cat, const char *name)
{
	if (has_glob(cat) || has_glob(name))
		return "";
	struct suggest sg;
	char *word = arena_printf(s->a, "%s:%s", cat, name), hint[512];
	suggest_init(&sg, word);
	if (tfs_each(NULL, NULL, suggest_tp_cb, &sg) < 0)
		return "";
	return arena_strdup(s->a, suggest_text(&sg, 3, hint, sizeof(hint)));
}

/* bpftrace's probe types sonde does not have: what to use instead, rather
 * than "unknown probe type" for a name a bpftrace user knows */
static const char *unsupported_probe(const char *type)
{
	static const struct {
		const char *names[4];
		const char *why;
	} table[] = {
		{{"watchpoint", "asyncwatchpoint", "w", "aw"},
		 "watchpoint probes (hardware breakpoints) are not supported by sonde: a uprobe on the "
		 "code that writes the address, or a tracepoint, can take their place"},
	};
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		for (size_t k = 0; k < 4 && table[i].names[k]; k++)
			if (!strcmp(type, table[i].names[k]))
				return table[i].why;
	return NULL;
}

/* uprobe:, uretprobe:, usdt: on one target (a USDT name may expand into
 * a note each: usdt.c); what is the function or [PROVIDER:]NAME */
static void user_probe(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
		       enum probe_type type, const char *target, const char *what)
{
	if (type == PT_USDT) {
		sema_usdt_expand(s, p, raw, target, what);
		return;
	}
	struct sema_attach *at = push(s, p);
	at->type = type;
	at->target = target;
	at->func = what;
	at->name = arena_printf(s->a, "%s:%s:%s", sema_probe_type_name(type), target, what);
	at->loc = raw->loc;
}

static int cmp_path(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/*
 * uprobe:*:FUNC with -p PID, as bpftrace expands it: one attach point per
 * file the process maps that has a function matching FUNC, named by the
 * path the process sees (uprobe:/usr/lib/x86_64-linux-gnu/libc.so.6:malloc),
 * in the order of the paths.  The host's resolver reads the mappings: a
 * file mapped twice, or under two names of one inode, is one file.  The
 * runtime resolves each path in the process again when it attaches.
 */
static void uprobe_pid_files(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
			     enum probe_type type, const char *what)
{
	int pid = s->opts->target_pid;
	struct rs_query q = {.target = "*", .func = what, .pid = pid};
	struct rs_sites *sites = NULL;
	char err[512];
	if (rs_resolve(&q, &sites, err, sizeof(err))) {
		sema_error(s, raw->loc, "%s:*:%s in pid %d: %s", sema_probe_type_name(type), what, pid, err);
		rs_sites_free(sites);
		return;
	}
	const char **paths = arena_new_array(s->a, const char *, sites->nfiles + 1);
	size_t np = 0;
	for (size_t i = 0; i < sites->nfiles; i++)
		paths[np++] = arena_strdup(s->a, sites->files[i]->path);
	rs_sites_free(sites);
	qsort(paths, np, sizeof(*paths), cmp_path);
	for (size_t i = 0; i < np; i++)
		if (!i || strcmp(paths[i], paths[i - 1]))
			user_probe(s, p, raw, type, paths[i], what);
}

static void resolve_one(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw)
{
	const char *parts[4] = {0};
	const char *text = expand_positional(s, raw);
	if (!text)
		return;
	int n = split(s->a, text, parts, 4);
	const struct probe_provider *pv = sema_provider_named(parts[0]);
	const char *unsupported = unsupported_probe(parts[0]);
	if (!pv && unsupported) {
		sema_error(s, raw->loc, "%s", unsupported);
		return;
	}
	if (!pv) {
		struct suggest sg;
		char hint[256];
		suggest_init(&sg, parts[0]);
		for (size_t i = 0; i < PT_COUNT; i++)
			suggest_add(&sg, providers[i].name);
		sema_error(s, raw->loc, "unknown probe type '%s'%s", parts[0],
			   suggest_text(&sg, 3, hint, sizeof(hint)));
		return;
	}
	enum probe_type type = pv->type;
	/* "begin"/"end" are the newest release's spelling, which 0.17 does
	 * not parse: such a script ends by itself after them (run.c) */
	const char *written = parts[0];
	if (pv->runs_once && strcmp(parts[0], pv->name))
		s->r->ends_itself = true;
	parts[0] = pv->name;
	if (s->opts->user_probes && !pv->user_mode) {
		sema_error(s, raw->loc, "%s probes are not available with --user-probes (uprobe and uretprobe "
			   "run in the traced processes; BEGIN, END and interval in the kernel): drop "
			   "--user-probes for this script", pv->name);
		return;
	}
	switch (type) {
	case PT_BEGIN:
	case PT_END: {
		if (n != 1) {
			sema_error(s, raw->loc, "%s takes no arguments", parts[0]);
			return;
		}
		struct sema_attach *at = push(s, p);
		at->type = type;
		/* `probe` reads as written: BEGIN in 0.17 scripts, begin after */
		at->name = !strcasecmp(written, pv->name) ? written : parts[0];
		at->loc = raw->loc;
		return;
	}
	case PT_SELF: {
		/* the newest bpftrace's one trigger and one signal */
		if (n != 3 || strcmp(parts[1], "signal")) {
			sema_error(s, raw->loc, "%s is not a supported trigger (self:signal:SIGUSR1 is)",
				   n >= 2 ? parts[1] : "''");
			return;
		}
		if (strcmp(parts[2], "SIGUSR1")) {
			sema_error(s, raw->loc, "%s is not a supported signal (self:signal:SIGUSR1 is)",
				   parts[2]);
			return;
		}
		struct sema_attach *at = push(s, p);
		at->type = type;
		at->name = "self:signal:SIGUSR1";
		at->loc = raw->loc;
		s->r->has_self = true;
		return;
	}
	case PT_ITER: {
		/* iter:NAME over the kernel's bpf_iter__NAME (task, task_file,
		 * task_vma ...); the only probe of its script but BEGIN/END, as
		 * in the newest bpftrace */
		if (n != 2 || !*parts[1]) {
			sema_error(s, raw->loc, "iter probe expects iter:NAME (iter:task)");
			return;
		}
		if (sema_kernel_ptr(s, arena_printf(s->a, "bpf_iter__%s", parts[1])).kind != TY_PTR) {
			sema_error(s, raw->loc, "iter:%s: the kernel has no iterator '%s' (no struct "
				   "bpf_iter__%s in its BTF)", parts[1], parts[1], parts[1]);
			return;
		}
		if (s->r->has_iter) {
			sema_error(s, raw->loc, "a script has one iter probe, with BEGIN and END beside "
				   "it at most");
			return;
		}
		struct sema_attach *at = push(s, p);
		at->type = type;
		at->func = parts[1];
		at->name = arena_printf(s->a, "iter:%s", parts[1]);
		at->loc = raw->loc;
		s->r->has_iter = true;
		return;
	}
	case PT_BENCH: {
		/* bench:NAME, each name once (the newest bpftrace's) */
		if (n != 2 || !*parts[1]) {
			sema_error(s, raw->loc, "bench probe expects bench:NAME");
			return;
		}
		for (int i = 0; i < s->r->nprobes; i++)
			for (int j = 0; j < s->r->probes[i].nattach; j++)
				if (s->r->probes[i].attach[j].type == PT_BENCH &&
				    !strcmp(s->r->probes[i].attach[j].func, parts[1])) {
					sema_error(s, raw->loc, "bench:%s is defined twice", parts[1]);
					return;
				}
		struct sema_attach *at = push(s, p);
		at->type = type;
		at->func = parts[1];
		at->name = arena_printf(s->a, "bench:%s", parts[1]);
		at->loc = raw->loc;
		s->r->has_bench = true;
		return;
	}
	case PT_TRACEPOINT: {
		if (n != 3 || !*parts[1] || !*parts[2]) {
			sema_error(s, raw->loc, "tracepoint probe expects tracepoint:CATEGORY:NAME");
			return;
		}
		struct sema_collect c = {s, p, raw, 0};
		int err = tfs_each(parts[1], parts[2], add_tracepoint, &c);
		if (c.n)
			return;
		if (err == -EACCES || err == -EPERM)
			sema_error(s, raw->loc, "cannot read tracefs: %s (run sonde as root)", strerror(-err));
		else if (err < 0 && err != -ENOENT)
			sema_error(s, raw->loc, "cannot list tracepoints: %s", strerror(-err));
		else if ((p->node->probe.attach->next || settings_given(SET_MISSING_PROBES)) &&
			 settings_int(SET_MISSING_PROBES) != SET_MISSING_ERROR) {
			/* one of several attach points: the rest attach, as in
			 * bpftrace (0.17 and the newest) and as a missing kernel
			 * function or uprobe does; missing_probes = error stops.
			 * The probe's only one, with missing_probes set to warn
			 * or ignore: the probe is left out (sema_resolve_attach) */
			if (settings_int(SET_MISSING_PROBES) == SET_MISSING_WARN && !s->quiet)
				diag_warn(s->d, raw->loc, "tracepoint not found: %s:%s: this attach "
					  "point is skipped", parts[1], parts[2]);
			p->skipped_attach++;
			p->skipped_tracepoint = true;
		} else
			sema_error(s, raw->loc, "tracepoint '%s:%s' not found%s%s [%s]", parts[1], parts[2],
				   tracepoint_hint(s, parts[1], parts[2]),
				   has_glob(parts[1]) || has_glob(parts[2]) ? " (no tracepoint matches)" : "",
				   explain_get(EX_TRACEPOINT)->code);
		return;
	}
	case PT_RAWTRACEPOINT:
		sema_rawtp_resolve(s, p, raw, parts, n);
		return;
	case PT_UPROBE:
	case PT_URETPROBE:
	case PT_USDT: {
		/* usdt:BIN::NAME, any provider; usdt::PROV:NAME with -p, the
		 * files the process maps (the newest bpftrace's empty fields) */
		if (type == PT_USDT && n == 4 && !*parts[2])
			parts[2] = "*";
		if (type == PT_USDT && n >= 3 && !*parts[1] && s->opts->target_pid > 0)
			parts[1] = "*";
		/* uprobe:TARGET@FILE:LINE[:COL] (sema/dwarf.c) */
		if (type != PT_USDT && sema_uprobe_srcline(s, p, raw, type, parts, n))
			return;
		if (n < 3 || !*parts[1] || !*parts[2]) {
			sema_error(s, raw->loc, "%s probe expects %s:TARGET:%s", parts[0], parts[0],
				   type == PT_USDT ? "[PROVIDER:]NAME" : "FUNCTION");
			return;
		}
		const char *what = n == 4 ? arena_printf(s->a, "%s:%s", parts[2], parts[3]) : parts[2];
		/* "*" with -p: each file the process maps (without -p the runtime
		 * takes --container's processes, or says it needs one of them;
		 * with --follow it rescans them for files mapped later) */
		if (!strcmp(parts[1], "*") && s->opts->target_pid > 0 &&
		    (type == PT_USDT || !s->opts->follow)) {
			if (type == PT_USDT)
				sema_usdt_expand_pid(s, p, raw, what);
			else
				uprobe_pid_files(s, p, raw, type, what);
			return;
		}
		/* a wildcard in a path: each file it matches, as bpftrace */
		if (!strchr(parts[1], '/') || !has_glob(parts[1])) {
			user_probe(s, p, raw, type, parts[1], what);
			return;
		}
		glob_t g;
		int found = 0;
		if (!glob(parts[1], 0, NULL, &g)) {
			for (size_t i = 0; i < g.gl_pathc && !diag_stopped(s->d); i++) {
				struct stat st;
				if (!stat(g.gl_pathv[i], &st) && S_ISREG(st.st_mode) && ++found)
					user_probe(s, p, raw, type, arena_strdup(s->a, g.gl_pathv[i]), what);
			}
			globfree(&g);
		}
		if (!found)
			sema_error(s, raw->loc, "%s target '%s': no file matches", parts[0], parts[1]);
		return;
	}
	case PT_KPROBE:
	case PT_KRETPROBE:
		sema_kprobe_resolve(s, p, raw, type, parts, n);
		return;
	case PT_FENTRY:
	case PT_FEXIT:
		sema_fentry_resolve(s, p, raw, type, parts, n);
		return;
	case PT_INTERVAL:
	case PT_PROFILE: {
		struct sema_attach at = {.type = type, .loc = raw->loc};
		if (!parse_rate(s, raw, parts, n, &at))
			return;
		at.name = n == 2 ? arena_printf(s->a, "%s:%s", parts[0], parts[1])
				 : arena_printf(s->a, "%s:%s:%s", parts[0], parts[1], parts[2]);
		*push(s, p) = at;
		return;
	}
	case PT_SOFTWARE:
	case PT_HARDWARE: {
		/* software:EVENT[:COUNT], hardware:EVENT[:COUNT] */
		const struct tfs_swevent *ev = n < 2 ? NULL
					       : type == PT_SOFTWARE ? tfs_software_event(parts[1])
								     : tfs_hardware_event(parts[1]);
		if (n < 2 || n > 3 || !ev) {
			sema_error(s, raw->loc, "unknown %s event '%s' (sonde -l '%s:*' lists them)",
				   parts[0], n >= 2 ? parts[1] : "", parts[0]);
			return;
		}
		struct sema_attach *at = push(s, p);
		at->type = type;
		at->target = ev->name;
		if (n == 3) {
			if (!parse_u64(parts[2], &at->count) || !at->count) {
				sema_error(s, raw->loc, "%s event count must be a positive integer", parts[0]);
				return;
			}
		} else {
			at->count = ev->default_period;
		}
		at->name = arena_printf(s->a, "%s:%s:%llu", parts[0], parts[1],
					(unsigned long long)at->count);
		at->loc = raw->loc;
		return;
	}
	}
}

/*
 * A probe missing_probes let go keeps one attach point that is never
 * loaded: its first as written, so that its body is still checked in its
 * own context (arg0 of a kprobe) and the maps it assigns have their types
 * where other probes use them (biolatency-kp.bt's END clears @start).
 */
static void left_out(struct sema_ctx *s, struct sema_probe *p)
{
	struct ast_attach *raw = p->node->probe.attach;
	const char *parts[4] = {0};
	int n = split(s->a, raw->raw, parts, 4);
	const struct probe_provider *pv = sema_provider_named(parts[0]);
	if (!pv)
		return;
	struct sema_attach *at = push(s, p);
	at->type = pv->type;
	at->name = raw->raw;
	at->func = parts[n - 1];
	at->loc = raw->loc;
	p->left_out = true;
}

/*
 * --probe-filter REGEX (the newest bpftrace's): only the attach points
 * whose full name ("interval:ms:200", "uprobe:/bin/bash:readline") the
 * extended regex matches anywhere are attached; BEGIN, END and self run
 * whatever it says.  A probe left with none is checked but never loaded,
 * as one missing_probes lets go.
 */
static void filter_attach(struct sema_ctx *s, struct sema_probe *p)
{
	int kept = 0;
	for (int i = 0; i < p->nattach; i++) {
		const struct sema_attach *a = &p->attach[i];
		/* a wildcard uprobe's functions are known when it attaches:
		 * the runtime keeps those whose names match (runtime/uprobe.c) */
		bool sites = (a->type == PT_UPROBE || a->type == PT_URETPROBE) && has_glob(a->func);
		if (providers[a->type].runs_once || sites ||
		    !regexec(s->opts->probe_filter, a->name, 0, NULL, 0))
			p->attach[kept++] = *a;
	}
	if (kept || !p->nattach)
		p->nattach = kept;
	else {
		p->nattach = 0;
		left_out(s, p);
	}
}

void sema_resolve_attach(struct sema_ctx *s, struct sema_probe *p)
{
	for (struct ast_attach *at = p->node->probe.attach; at && !diag_stopped(s->d); at = at->next)
		resolve_one(s, p, at);
	if (s->opts->probe_filter)
		filter_attach(s, p);
	/* each fentry program is loaded for one function's BTF id */
	for (int i = 0; i < p->nattach; i++)
		if (p->attach[i].type == PT_FENTRY || p->attach[i].type == PT_FEXIT)
			p->uses_args = p->nattach > 1;
	if (!p->nattach && p->skipped_attach) {
		/* missing_probes set to warn or ignore (config block or
		 * BPFTRACE_MISSING_PROBES) lets the probe go, as the newest
		 * bpftrace does (biolatency-kp.bt on a kernel without
		 * blk_account_io_*); left at the default it stops sonde, as
		 * in bpftrace 0.17 and as uprobes do (runtime/uprobe.c) */
		int64_t missing = settings_int(SET_MISSING_PROBES);
		if (!settings_given(SET_MISSING_PROBES) || missing == SET_MISSING_ERROR) {
			sema_error(s, p->node->loc, "none of this probe's %s exist: "
				   "nothing to attach it to", p->skipped_tracepoint ?
				   "attach points (kernel functions, tracepoints)" : "kernel functions");
			return;
		}
		if (missing == SET_MISSING_WARN && !s->quiet)
			diag_warn(s->d, p->node->loc, "none of this probe's %s exist: the probe is "
				  "left out (missing_probes)", p->skipped_tracepoint ?
				  "attach points (kernel functions, tracepoints)" : "kernel functions");
		left_out(s, p);
		return;
	}
	for (int i = 1; i < p->nattach; i++) {
		bool ev = providers[p->attach[0].type].runs_once;
		bool ev2 = providers[p->attach[i].type].runs_once;
		if (ev != ev2) {
			sema_error(s, p->attach[i].loc, "BEGIN, END and self cannot share a block with other "
				   "probes");
			return;
		}
	}
}

/* ---- kernel limits -------------------------------------------------------- */

/*
 * The kernel keeps at most BPF_TRACE_MAX_PROGS (64) BPF programs on one
 * tracepoint (a perf-event attachment; include/linux/bpf.h), and says
 * only E2BIG ("Argument list too long") at attach time, after the whole
 * compile and load.  Each attach point of a tracepoint is one program
 * there, so count them here and name the tracepoint.  Other tools'
 * programs on it count too: only the script's own share is known now.
 */
enum { SEMA_TRACE_MAX_PROGS = 64 };

static int attach_by_name(const void *a, const void *b)
{
	const struct sema_attach *x = *(const struct sema_attach *const *)a;
	const struct sema_attach *y = *(const struct sema_attach *const *)b;
	int c = strcmp(x->name, y->name);
	/* equal names keep source order: the error points at the 65th */
	return c ? c : (x->loc.line != y->loc.line ? x->loc.line - y->loc.line
						   : x->loc.col - y->loc.col);
}

void sema_check_attach_limits(struct sema_ctx *s)
{
	const struct sema_result *r = s->r;
	int n = 0;
	for (int i = 0; i < r->nprobes; i++)
		for (int j = 0; j < r->probes[i].nattach; j++)
			n += r->probes[i].attach[j].type == PT_TRACEPOINT;
	if (n <= SEMA_TRACE_MAX_PROGS)
		return;
	const struct sema_attach **v = arena_new_array(s->a, const struct sema_attach *, n);
	int k = 0;
	for (int i = 0; i < r->nprobes; i++)
		for (int j = 0; j < r->probes[i].nattach; j++)
			if (r->probes[i].attach[j].type == PT_TRACEPOINT)
				v[k++] = &r->probes[i].attach[j];
	qsort(v, (size_t)n, sizeof(*v), attach_by_name);
	for (int i = 0; i < n;) {
		int e = i;
		while (e < n && !strcmp(v[e]->name, v[i]->name))
			e++;
		if (e - i > SEMA_TRACE_MAX_PROGS)
			sema_error(s, v[i + SEMA_TRACE_MAX_PROGS]->loc,
				   "%s: %d probes attach to it, and the kernel runs at most %d BPF "
				   "programs on one tracepoint (other tools' programs count too): "
				   "merge them into fewer probes",
				   v[i]->name, e - i, SEMA_TRACE_MAX_PROGS);
		i = e;
	}
}
