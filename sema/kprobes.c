/*
 * kprobes.c - attach points on kernel functions: kprobe, kretprobe, and
 * fentry, fexit (below).
 *
 *   kprobe:FUNCTION        kprobe:FUNCTION+OFFSET
 *   kprobe:MODULE:FUNCTION kretprobe:FUNCTION (no offset)
 *
 * FUNCTION may be a wildcard, expanded here against the functions ftrace
 * lists (host/kfuncs.c), one attach point per function and in name
 * order, as bpftrace does; the runtime then attaches them all with one
 * kprobe_multi link where the kernel has them.  What must not be probed
 * (bpftrace's banned list, the kernel's kprobe blacklist) is an error
 * when named and skipped with a warning when a wildcard matches it.  A
 * function that is not there is a warning when the probe has other
 * attach points (a tool written for several kernel versions), and the
 * probe goes on with the rest.
 */
#include "sema/sema_int.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/explain.h"
#include "common/settings.h"
#include <bpf/btf.h>

#include "host/host.h"

static bool has_glob(const char *s)
{
	return strpbrk(s, "*?[") != NULL;
}

static void push_kprobe(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
			enum probe_type type, const char *module, const char *fn, uint64_t off)
{
	const char *kind = sema_probe_type_name(type);
	struct sema_attach *at = sema_push_attach(s, p);
	at->type = type;
	at->target = module;
	at->func = fn;
	at->offset = off;
	at->name = module ? arena_printf(s->a, "%s:%s:%s", kind, module, fn)
		   : off ? arena_printf(s->a, "%s:%s+%llu", kind, fn, (unsigned long long)off)
			 : arena_printf(s->a, "%s:%s", kind, fn);
	at->loc = raw->loc;
}

/* every function the glob matches, skipping (with one warning) those
 * that must not be probed */
static void expand(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
		   enum probe_type type, const char *module, const char *glob)
{
	const struct kfn *v;
	size_t n;
	int err = kfn_load(&v, &n);
	if (err) {
		sema_error(s, raw->loc, "cannot expand '%s': cannot read %s: %s", glob,
			   kfn_funcs_path(), strerror(-err));
		return;
	}
	const char *kind = sema_probe_type_name(type);
	int found = 0, skipped = 0;
	char *why = NULL;
	size_t whylen = 0;
	FILE *w = open_memstream(&why, &whylen);
	for (size_t i = 0; i < n; i++) {
		if (fnmatch(glob, v[i].name, 0) ||
		    (module && fnmatch(module, v[i].module ? v[i].module : "vmlinux", 0)))
			continue;
		/* the same name in vmlinux and a module: one probe */
		if (i && !strcmp(v[i - 1].name, v[i].name) && !module)
			continue;
		const char *no = kfn_refusal(v[i].name, type == PT_KRETPROBE, true);
		if (no) {
			if (w && skipped < 4)
				fprintf(w, "%s%s:%s %s", skipped ? "; " : "", kind, v[i].name, no);
			skipped++;
			continue;
		}
		push_kprobe(s, p, raw, type, v[i].module && module ? v[i].module : NULL,
			    arena_strdup(s->a, v[i].name), 0);
		found++;
	}
	if (w)
		fclose(w);
	if (skipped && !s->quiet)
		diag_warn(s->d, raw->loc, "%s:%s: %d matching function%s skipped: %s%s", kind, glob,
			  skipped, skipped == 1 ? "" : "s", why ? why : "",
			  skipped > 4 ? "; ..." : "");
	free(why);
	if (!found && p->node->probe.attach->next) {
		/* beside other attach points, as a missing function is */
		if (!s->quiet && settings_int(SET_MISSING_PROBES) == SET_MISSING_WARN)
			diag_warn(s->d, raw->loc, "%s: no kernel function matches: not attached", raw->raw);
		p->skipped_attach++;
	} else if (!found) {
		sema_error(s, raw->loc, "no kernel function matches '%s'%s%s%s (sonde -l '%s:*' lists "
			   "them)", glob, module ? " in module '" : "", module ? module : "",
			   module ? "'" : "", kind);
	}
}

void sema_kprobe_resolve(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
			 enum probe_type type, const char **parts, int n)
{
	const char *kind = sema_probe_type_name(type);
	const char *module = n == 3 ? parts[1] : NULL, *fn = n >= 2 ? parts[n - 1] : NULL;
	if (!fn || !*fn || n > 3 || (module && !*module)) {
		sema_error(s, raw->loc, "%s probe expects %s:FUNCTION or %s:MODULE:FUNCTION", kind, kind,
			   kind);
		return;
	}
	if (!tfs_have_kprobes()) {
		sema_error(s, raw->loc, "this kernel has no kprobes (no kprobe event source): "
			   "use a tracepoint instead (sonde -l 'tracepoint:*')");
		return;
	}
	const struct kfn *all;
	size_t nall;
	bool listed = !kfn_load(&all, &nall);
	/* kprobe:vmlinux:fn is the kernel's own; kprobe:vmlinu*:fn, a module
	 * glob, expands like a function glob */
	if (module && !strcmp(module, "vmlinux"))
		module = NULL;
	if (module && has_glob(module) && !strchr(fn, '+')) {
		expand(s, p, raw, type, module, fn);
		return;
	}
	/* kprobe:syscalls:sys_exit_nanosleep: a tracepoint's name, not a
	 * module's function (bpftrace: "requires 1 argument") */
	if (module && listed && !kfn_is_module(module)) {
		char tp[4096], hint[512] = "";
		const char *root = tfs_root();
		snprintf(tp, sizeof(tp), "%s/events/%s/%s", root ? root : "", module, fn);
		if (root && !has_glob(module) && !has_glob(fn) && !access(tp, F_OK))
			snprintf(hint, sizeof(hint), "; for the tracepoint, use tracepoint:%s:%s",
				 module, fn);
		sema_error(s, raw->loc, "%s probe type requires 1 argument: '%s' is not a loaded kernel "
			   "module (%s:MODULE:FUNCTION names a module's function)%s", kind, module, kind,
			   hint);
		return;
	}
	/* FUNCTION+OFFSET */
	uint64_t off = 0;
	char *plus = strchr(fn, '+');
	if (plus) {
		char *end;
		errno = 0;
		off = strtoull(plus + 1, &end, 0);
		if (plus == fn || !plus[1] || *end || errno || has_glob(fn)) {
			sema_error(s, raw->loc, "%s: the offset must be a number after a function name "
				   "(%s:vfs_read+16)", raw->raw, kind);
			return;
		}
		if (type == PT_KRETPROBE) {
			sema_error(s, raw->loc, "kretprobes cannot be attached at a function offset");
			return;
		}
		fn = arena_strndup(s->a, fn, (size_t)(plus - fn));
	}
	if (has_glob(fn)) {
		expand(s, p, raw, type, module, fn);
		return;
	}
	const char *no = kfn_refusal(fn, type == PT_KRETPROBE, true);
	if (no) {
		/* the kernel's blacklist is S0201; bpftrace's banned list is
		 * sonde's own caution, in bpftrace's words (with its period) */
		bool kernel = strstr(no, "blacklist") != NULL;
		sema_error(s, raw->loc, "%s:%s %s%s%s%s", kind, fn, no, kernel ? " [" : ".",
			   kernel ? explain_get(EX_KFUNC)->code : "", kernel ? "]" : "");
		return;
	}
	if (listed && !kfn_find(module, fn)) {
		/* one of several attach points: the others go on (bpftrace
		 * warns and attaches the rest; missing_probes can make it an
		 * error, or silence it) */
		int64_t missing = settings_int(SET_MISSING_PROBES);
		bool several = p->node->probe.attach && p->node->probe.attach->next;
		/* (the probe's only one: with missing_probes set to warn or
		 * ignore, the probe is left out: sema_resolve_attach) */
		if ((several || settings_given(SET_MISSING_PROBES)) && missing != SET_MISSING_ERROR) {
			if (missing == SET_MISSING_WARN && !s->quiet)
				diag_warn(s->d, raw->loc, "%s: no kernel function '%s'%s%s: not attached",
					  raw->raw, fn, module ? " in module " : "", module ? module : "");
			p->skipped_attach++;
			return;
		}
		/* bpftrace's words; a kprobe may still attach where ftrace
		 * cannot hook (the runtime says if it cannot) */
		if (!s->quiet)
			diag_warn(s->d, raw->loc, "%s is not traceable (either non-existing, inlined, or "
				  "marked as \"notrace\"); attaching to it will likely fail", fn);
	}
	push_kprobe(s, p, raw, type, module, fn, off);
}

/* ---- fentry / fexit ---------------------------------------------------------- */

static bool push_fentry(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
			enum probe_type type, const char *module, const char *fn)
{
	const struct sema_kfunc *kf = sema_btf_kfunc(s, module, fn);
	if (!kf)
		return false;
	const char *kind = sema_probe_type_name(type);
	struct sema_attach *at = sema_push_attach(s, p);
	at->type = type;
	at->target = module;
	at->func = fn;
	at->kf = kf;
	at->name = module ? arena_printf(s->a, "%s:%s:%s", kind, module, fn)
		   : arena_printf(s->a, "%s:%s", kind, fn);
	at->loc = raw->loc;
	return true;
}

/*
 * fentry:FUNCTION, fentry:MODULE:FUNCTION (kfunc, fexit and kretfunc
 * alike).  The function's BTF gives its parameters (args.NAME) and, for
 * fexit, the type of retval.  A wildcard matches the functions ftrace
 * lists that BTF declares (every BTF function when the list cannot be
 * read); the banned return probes are skipped for fexit as for kretprobe.
 */
void sema_fentry_resolve(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
			 enum probe_type type, const char **parts, int n)
{
	const char *kind = sema_probe_type_name(type);
	const char *module = n == 3 ? parts[1] : NULL, *fn = n >= 2 ? parts[n - 1] : NULL;
	/* vmlinux, or a module glob that names it (fentry:vmlinu*:vfs_read);
	 * another module glob is not supported: name the module */
	if (module && (!strcmp(module, "vmlinux") || (has_glob(module) && !fnmatch(module, "vmlinux", 0))))
		module = NULL;
	if (!fn || !*fn || n > 3 || (module && !*module) || (module && has_glob(module))) {
		sema_error(s, raw->loc, "%s probe expects %s:FUNCTION or %s:MODULE:FUNCTION (a module "
			   "by its name)", kind, kind, kind);
		return;
	}
	if (!host_module_btf(module)) {
		sema_error(s, raw->loc, "%s probes need the kernel's BTF type information%s%s (%s): "
			   "kprobe:%s works without", kind, module ? " for module " : "",
			   module ? module : "", strerror(errno), fn);
		return;
	}
	bool ret = type == PT_FEXIT;
	if (!has_glob(fn)) {
		const char *no = kfn_refusal(fn, ret, false);
		if (no) {
			sema_error(s, raw->loc, "%s:%s %s.", kind, fn, no);
			return;
		}
		if (push_fentry(s, p, raw, type, module, fn))
			return;
		int64_t missing = settings_int(SET_MISSING_PROBES);
		if ((p->node->probe.attach->next || settings_given(SET_MISSING_PROBES)) &&
		    missing != SET_MISSING_ERROR) {
			if (missing == SET_MISSING_WARN && !s->quiet)
				diag_warn(s->d, raw->loc, "%s: no kernel function '%s' in BTF: not attached",
					  raw->raw, fn);
			p->skipped_attach++;
			return;
		}
		sema_error(s, raw->loc, "no kernel function '%s'%s%s in BTF (sonde -l '%s:*' lists "
			   "them)", fn, module ? " in module " : "", module ? module : "", kind);
		return;
	}
	const struct kfn *v;
	size_t nv;
	int found = 0, skipped = 0;
	if (!kfn_load(&v, &nv)) {
		for (size_t i = 0; i < nv; i++) {
			if (fnmatch(fn, v[i].name, 0) || (i && !strcmp(v[i - 1].name, v[i].name)) ||
			    (module ? !v[i].module || strcmp(v[i].module, module) : v[i].module != NULL))
				continue;
			if (kfn_refusal(v[i].name, ret, false)) {
				skipped++;
				continue;
			}
			found += push_fentry(s, p, raw, type, module, arena_strdup(s->a, v[i].name));
		}
	} else {
		/* no ftrace list to read: every function BTF declares */
		const struct btf *b = host_module_btf(module);
		for (uint32_t id = 1; id < btf__type_cnt(b); id++) {
			const struct btf_type *t = btf__type_by_id(b, id);
			const char *name = btf_is_func(t) ? btf__name_by_offset(b, t->name_off) : NULL;
			if (!name || fnmatch(fn, name, 0))
				continue;
			if (kfn_refusal(name, ret, false)) {
				skipped++;
				continue;
			}
			found += push_fentry(s, p, raw, type, module, arena_strdup(s->a, name));
		}
	}
	if (skipped && !s->quiet)
		diag_warn(s->d, raw->loc, "%s:%s: %d matching function%s skipped: %s", kind, fn, skipped,
			  skipped == 1 ? "" : "s", "can't be used as it might lock up your system");
	if (!found)
		sema_error(s, raw->loc, "no kernel function matches '%s' (sonde -l '%s:*' lists them)",
			   fn, kind);
}

/* ---- rawtracepoint ------------------------------------------------------------ */

static int add_rawtp(const char *module, const char *name, void *ctx)
{
	struct sema_collect *c = ctx;
	struct sema_ctx *s = c->s;
	struct sema_attach *at = sema_push_attach(s, c->p);
	at->type = PT_RAWTRACEPOINT;
	at->target = arena_strdup(s->a, module);
	at->func = arena_strdup(s->a, name);
	at->kf = sema_btf_rawtp(s, module, name);
	at->name = arena_printf(s->a, "rawtracepoint:%s:%s", module, name);
	at->loc = c->at->loc;
	c->n++;
	return 0;
}

/*
 * rawtracepoint:NAME, rawtracepoint:MODULE:NAME.  As the newest
 * bpftrace, the kernel's BTF lists the raw tracepoints (host/btf.c):
 * NAME and MODULE may be wildcards, each match is one attach point named
 * rawtracepoint:MODULE:NAME, and its arguments are args.NAME, typed.
 * Without BTF, a name as written, read through arg0, arg1 ...
 */
void sema_rawtp_resolve(struct sema_ctx *s, struct sema_probe *p, struct ast_attach *raw,
			const char **parts, int n)
{
	const char *module = n == 3 ? parts[1] : NULL, *name = n >= 2 ? parts[n - 1] : NULL;
	if (!name || !*name || n > 3 || (module && !*module)) {
		sema_error(s, raw->loc, "rawtracepoint probe expects rawtracepoint:NAME or "
			   "rawtracepoint:MODULE:NAME");
		return;
	}
	if (!host_kernel_btf()) {
		if (has_glob(name) || module) {
			sema_error(s, raw->loc, "rawtracepoint wildcards and modules need the kernel's BTF "
				   "(/sys/kernel/btf/vmlinux: %s): name a tracepoint of the kernel",
				   strerror(errno));
			return;
		}
		struct sema_attach *at = sema_push_attach(s, p);
		at->type = PT_RAWTRACEPOINT;
		at->func = name;
		at->name = arena_printf(s->a, "rawtracepoint:%s", name);
		at->loc = raw->loc;
		return;
	}
	if (module && !has_glob(module) && strcmp(module, "vmlinux") && !host_module_btf(module)) {
		sema_error(s, raw->loc, "rawtracepoint:%s:%s: no BTF for module '%s' (is it loaded?)",
			   module, name, module);
		return;
	}
	struct sema_collect c = {s, p, raw, 0};
	int err = host_raw_tp_each(module, name, add_rawtp, &c);
	if (c.n || diag_stopped(s->d))
		return;
	if (err < 0) {
		sema_error(s, raw->loc, "cannot list raw tracepoints from BTF: %s", strerror(-err));
		return;
	}
	/* a wildcard beside other attach points may match nothing, as in bpftrace */
	bool glob = has_glob(name) || (module && has_glob(module));
	int64_t missing = settings_int(SET_MISSING_PROBES);
	if (p->node->probe.attach->next && (glob || missing != SET_MISSING_ERROR)) {
		if (!glob && missing == SET_MISSING_WARN && !s->quiet)
			diag_warn(s->d, raw->loc, "%s: no such raw tracepoint: not attached", raw->raw);
		p->skipped_attach++;
		return;
	}
	sema_error(s, raw->loc, "%s '%s'%s%s (sonde -l 'rawtracepoint:*' lists them)",
		   glob ? "no raw tracepoint matches"
		   : "no raw tracepoint", name, module ? " in module " : "", module ? module : "");
}
