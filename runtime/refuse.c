/*
 * refuse.c - say why the kernel refused to load the object, in the
 * script's terms.
 *
 * libbpf's log of the load (captured by run.c) says which map or program
 * failed and, for a program, frames the verifier's log.  A refusal whose
 * log holds a verdict is the verifier's, whatever the errno (EACCES is
 * the verifier's "not safe" too): it is located at the script line of the
 * failing instruction (runtime/verifier.c) and explained by class
 * (common/explain.c).  A refusal with no verdict is about privileges (EPERM,
 * EACCES) or a map.  The raw log shows only under -v.
 */
#include "runtime/rt_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "common/diag.h"
#include "common/explain.h"
#include "runtime/verifier.h"

/*
 * The kernel said EPERM to loading: say which capability is missing,
 * from this process's effective set (CAP_SYS_ADMIN covers CAP_BPF and
 * CAP_PERFMON).  Root in a container or under a bounding set lacks them
 * while being uid 0, and "run as root" would be no help there.
 */
enum { CAP_SYS_ADMIN_ = 21, CAP_PERFMON_ = 38, CAP_BPF_ = 39 };

static void say_missing_caps(int err)
{
	unsigned long long eff = 0;
	bool known = false;
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			known = true;
	if (f)
		fclose(f);
	bool admin = eff >> CAP_SYS_ADMIN_ & 1;
	bool bpf = admin || (eff >> CAP_BPF_ & 1), perfmon = admin || (eff >> CAP_PERFMON_ & 1);
	const char *missing = !bpf && !perfmon ? "CAP_BPF and CAP_PERFMON" :
			      !bpf ? "CAP_BPF" : "CAP_PERFMON";
	const char *code = explain_get(EX_PERMISSION)->code;
	/* what else forbids it: lockdown's mode ("none [integrity]
	 * confidentiality"), the sysctl that keeps non-root users out */
	char lock[128] = "", unpriv[16] = "";
	f = fopen("/sys/kernel/security/lockdown", "re");
	if (f && fgets(lock, sizeof(lock), f) && !strstr(lock, "[none]") && strchr(lock, '[')) {
		char *b = strchr(lock, '['), *e = strchr(b, ']');
		if (e)
			*e = '\0';
		memmove(lock, b + 1, strlen(b));
	} else {
		lock[0] = '\0';
	}
	if (f)
		fclose(f);
	f = fopen("/proc/sys/kernel/unprivileged_bpf_disabled", "re");
	if (!f || !fgets(unpriv, sizeof(unpriv), f))
		unpriv[0] = '\0';
	if (f)
		fclose(f);
	if (!known)
		fprintf(stderr, "sonde: loading BPF programs needs CAP_BPF and CAP_PERFMON (or "
			"CAP_SYS_ADMIN): %s [%s]\n", strerror(-err), code);
	else if (bpf && perfmon && lock[0])
		fprintf(stderr, "sonde: the kernel refused to load BPF programs (%s) although this "
			"process has %s: the kernel is locked down (%s mode, "
			"/sys/kernel/security/lockdown) [%s]\n", strerror(-err),
			admin ? "CAP_SYS_ADMIN" : "CAP_BPF and CAP_PERFMON", lock, code);
	else if (bpf && perfmon)
		fprintf(stderr, "sonde: the kernel refused to load BPF programs (%s) although this "
			"process has %s: kernel lockdown, a security module or a seccomp filter "
			"forbids it [%s]\n", strerror(-err),
			admin ? "CAP_SYS_ADMIN" : "CAP_BPF and CAP_PERFMON", code);
	else if (geteuid() == 0)
		fprintf(stderr, "sonde: loading BPF programs needs %s (or CAP_SYS_ADMIN): this "
			"process runs as root without them (a container or a capability bounding "
			"set took them away) [%s]\n", missing, code);
	else
		fprintf(stderr, "sonde: loading BPF programs needs root (or %s): run sonde as "
			"root%s [%s]\n", missing, unpriv[0] && unpriv[0] != '0' ?
			" (kernel.unprivileged_bpf_disabled keeps other users out)" : "", code);
	explain_note(stderr, explain_get(EX_PERMISSION), false);
}

/* the end column of what starts at col: a name or number with its call's
 * parentheses or a trailing ++/--, else the rest of the word */
static int span_end(const char *src, int line, int col)
{
	const char *p = src;
	for (int l = 1; l < line && *p; p++)
		if (*p == '\n')
			l++;
	const char *s = p;
	for (int c = 1; c < col && *s && *s != '\n'; c++)
		s++;
	const char *e = s;
	while (*e && (strchr("$@_.>", *e) || (*e >= '0' && *e <= '9') ||
		      ((*e | 32) >= 'a' && (*e | 32) <= 'z') || (*e == '-' && e[1] == '>')))
		e += *e == '-' ? 2 : 1;
	const char *q = e;
	while (*q == ' ')
		q++;
	if (*q == '(' || *q == '[') {
		char open = *q, close = open == '(' ? ')' : ']';
		int depth = 0;
		for (; *q && *q != '\n'; q++) {
			depth += *q == open;
			if (*q == close && !--depth) {
				e = q + 1;
				break;
			}
		}
	} else if ((e[0] == '+' || e[0] == '-') && e[1] == e[0]) {
		e += 2;
	}
	if (e == s)
		e = s + 1;
	return col + (int)(e - s);
}

/* the kernel's log for program `name`, inside libbpf's frame */
static const char *prog_log(const char *log, const char *name, const char **end)
{
	char needle[160];
	snprintf(needle, sizeof(needle), "prog '%s': -- BEGIN PROG LOAD LOG --", name);
	const char *b = strstr(log, needle);
	const char *e = b ? strstr(b, "-- END PROG LOAD LOG --") : NULL;
	if (!e)
		return NULL;
	b = strchr(b, '\n');
	*end = e;
	return b && b < e ? b + 1 : e;
}

/* the verifier's refusal of program p, located and explained */
static void say_refused(struct rt *rt, const struct cg_prog *p, const char *probe, int err,
			const char *b, const char *e)
{
	size_t len = b ? (size_t)(e - b) : 0;
	enum ex_code c = !b ? (err == -E2BIG ? EX_PROG_SIZE : EX_UNKNOWN) : vf_classify(b, len);
	const struct explain *x = explain_get(c);
	/* under -v, libbpf's own messages above hold the whole log */
	int col = 0;
	int line = p && b ? vf_insn_line(rt->obj->elf, rt->obj->elf_size, p->name,
					vf_failing_insn(b, len), &col) : 0;
	char what[512];
	snprintf(what, sizeof(what), "the kernel's verifier refused the program for %s: %s [%s]",
		 probe, x->summary, x->code);
	if (line > 0 && rt->o->src) {
		struct diag d;
		diag_init(&d, rt->o->file, rt->o->src, stderr);
		col = col > 0 ? col : 1;
		struct src_loc loc = {.file = rt->o->file, .line = line, .col = col, .end_line = line,
				      .end_col = span_end(rt->o->src, line, col)};
		diag_error(&d, loc, "%s", what);
	} else {
		fprintf(stderr, "sonde: %s\n", what);
	}
	size_t vlen = 0;
	const char *v = b ? vf_verdict(b, len, &vlen) : NULL;
	if (v)
		fprintf(stderr, "note: the kernel said: %.*s\n", (int)vlen, v);
	else
		fprintf(stderr, "note: the kernel said: %s\n", strerror(-err));
	if (line <= 0 || !rt->o->src)
		explain_note(stderr, x, true);	/* diag_error() did, for a line */
	if (!rt->o->verbose)
		fprintf(stderr, "note: -v shows the verifier's whole log\n");
}

/* "libbpf: map 'm0_x': failed to create: ..." names a map of the script */
static bool say_map_refused(struct rt *rt, const char *log, int err)
{
	const char *f = strstr(log, "': failed to create: ");
	if (!f)
		return false;
	const char *q = f;
	while (q > log && q[-1] != '\'')
		q--;
	const char *name = NULL;
	for (int i = 0; i < rt->r->nmaps && !name; i++) {
		const char *on = cg_map_obj_name(rt->perm, rt->r->maps[i]);
		if (strlen(on) == (size_t)(f - q) && !memcmp(on, q, (size_t)(f - q)))
			name = rt->r->maps[i]->name;
	}
	int nlen = name ? (int)strlen(name) : (int)(f - q);
	name = name ? name : q;
	/* ENOMEM: the memory cgroup; EPERM: RLIMIT_MEMLOCK before 5.11;
	 * E2BIG: a key or value this kernel finds too large */
	const struct explain *x = explain_get(err == -E2BIG ? EX_MAP_SIZE : EX_MAP_CREATE);
	if (err == -ENOMEM || err == -EPERM)
		fprintf(stderr, "sonde: map '%.*s': %s (%s): the memory cgroup's limit (or "
			"RLIMIT_MEMLOCK on kernels before 5.11) does not leave room for it [%s]\n", nlen,
			name, x->summary, strerror(-err), x->code);
	else
		fprintf(stderr, "sonde: map '%.*s': the kernel refused to create it (%s): %s [%s]\n",
			nlen, name, strerror(-err), x->summary, x->code);
	explain_note(stderr, x, true);
	return true;
}

void rt_say_refused(struct rt *rt, int err, const char *log)
{
	log = log ? log : "";
	if (say_map_refused(rt, log, err))
		return;
	for (int i = 0; i < rt->obj->nprogs; i++) {
		const struct cg_prog *p = &rt->obj->progs[i];
		char needle[160];
		snprintf(needle, sizeof(needle), "prog '%s': BPF program load failed", p->name);
		if (!strstr(log, needle))
			continue;
		const char *e = NULL, *b = prog_log(log, p->name, &e);
		size_t vlen;
		const char *probe = p->probe->attach[p->first_attach].name;
		/* EACCES and EPERM with the verifier's verdict are the
		 * verifier's; without one, the kernel did not let us in */
		if ((err == -EPERM || err == -EACCES) && !(b && vf_verdict(b, (size_t)(e - b), &vlen)))
			break;
		say_refused(rt, p, probe, err, b, e);
		return;
	}
	if (err == -EPERM || err == -EACCES) {
		say_missing_caps(err);
		return;
	}
	/* neither a map nor a program: libbpf's last word says what */
	size_t n = 0;
	const char *last = NULL;
	for (const char *l = log; (l = strstr(l, "libbpf: ")); l += 8)
		last = l + 8;
	if (last)
		n = strcspn(last, "\n");
	fprintf(stderr, "sonde: the kernel refused to load the BPF object (%s)%s%.*s [%s]\n",
		strerror(-err), last ? ": " : "", (int)n, last ? last : "",
		explain_get(EX_UNKNOWN)->code);
	explain_note(stderr, explain_get(EX_UNKNOWN), false);
}
