/*
 * valfmt.c - text forms of buf(), ntop(), strftime() and stacks.
 *
 * Pure functions over bytes and already-resolved symbols (see output/output.h);
 * runtime/symbols.c does the resolving and calls these.  The exact shapes
 * were read off bpftrace 0.17's output: stacks start with a newline and
 * end every frame with one, perf mode prefixes a tab and the hex address,
 * an unresolved frame prints as a pointer ("0x7f12...").
 */
#include "output/output.h"

#include <arpa/inet.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/arena.h"
#include "host/host.h"

const char *vf_demangle(struct arena *a, const char *name)
{
	char *d = rs_demangle(name);
	if (!d)
		return name;
	const char *r = arena_strdup(a, d);
	free(d);
	return r;
}

const char *vf_buf(struct arena *a, const uint8_t *p, size_t n)
{
	char *out = arena_alloc(a, n * 4 + 1), *o = out;
	for (size_t i = 0; i < n; i++) {
		if (p[i] >= 32 && p[i] <= 126)
			*o++ = (char)p[i];
		else
			o += sprintf(o, "\\x%02x", p[i]);
	}
	*o = '\0';
	return out;
}

const char *vf_buf_hex(struct arena *a, const uint8_t *p, size_t n, char mode)
{
	char *out = arena_alloc(a, n * 4 + 1), *o = out;
	for (size_t i = 0; i < n; i++)
		o += sprintf(o, mode == 'h' ? "%s%02x" : "%s\\x%02x", mode == 'h' && i ? " " : "", p[i]);
	*o = '\0';
	return out;
}

const char *vf_inet(struct arena *a, uint64_t af, const uint8_t *addr)
{
	char buf[INET6_ADDRSTRLEN];
	if (af == AF_INET && inet_ntop(AF_INET, addr, buf, sizeof(buf)))
		return arena_strdup(a, buf);
	if (af == AF_INET6 && inet_ntop(AF_INET6, addr, buf, sizeof(buf)))
		return arena_strdup(a, buf);
	return "";
}

const char *vf_strftime(struct arena *a, const char *fmt, const struct timespec *t, bool utc)
{
	/* %f first (strftime does not know it); %% stays for strftime */
	char f[1024];
	size_t o = 0;
	for (const char *p = fmt; *p && o + 8 < sizeof(f); p++) {
		if (p[0] == '%' && p[1] == 'f') {
			o += (size_t)snprintf(f + o, sizeof(f) - o, "%06ld", t->tv_nsec / 1000);
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			f[o++] = *p++;
			f[o++] = *p;
		} else {
			f[o++] = *p;
		}
	}
	f[o] = '\0';
	struct tm tm;
	time_t sec = t->tv_sec;
	if (utc)
		gmtime_r(&sec, &tm);
	else
		localtime_r(&sec, &tm);
	char out[1024];
	size_t n = strftime(out, sizeof(out), f, &tm);
	return arena_strndup(a, out, n);
}

struct timespec vf_mono_to_wall(uint64_t mono_ns, const struct timespec *now_real,
				const struct timespec *now_mono)
{
	int64_t real = (int64_t)now_real->tv_sec * 1000000000 + now_real->tv_nsec;
	int64_t mono = (int64_t)now_mono->tv_sec * 1000000000 + now_mono->tv_nsec;
	int64_t wall = real - mono + (int64_t)mono_ns;
	struct timespec ts = {.tv_sec = wall / 1000000000, .tv_nsec = wall % 1000000000};
	if (ts.tv_nsec < 0) {
		ts.tv_nsec += 1000000000;
		ts.tv_sec--;
	}
	return ts;
}

const char *vf_frame_line(struct arena *a, const struct vf_frame *f, enum vf_stack_mode mode,
			  bool user)
{
	char sym[512];
	if (f->py || mode == VF_STACK_PYTHON)
		return arena_printf(a, "%s (%s:%" PRIu64 ")", f->sym ? f->sym : "[unknown]",
				    f->module ? f->module : "[unknown]", f->off);
	if (f->sym && f->inl)	/* as the newest bpftrace prints them */
		snprintf(sym, sizeof(sym), "%s%s", mode == VF_STACK_PERF ? "" : "[inlined] ", f->sym);
	else if (f->sym)
		snprintf(sym, sizeof(sym), "%s+%" PRIu64, f->sym, f->off);
	else
		snprintf(sym, sizeof(sym), "0x%" PRIx64, f->addr);
	switch (mode) {
	case VF_STACK_BPFTRACE:
		if (f->src)	/* perf mode leaves file and line out */
			return arena_printf(a, "%s@%s", sym, f->src);
		break;
	case VF_STACK_PYTHON:
		break;
	case VF_STACK_PERF:
		if (user)
			return arena_printf(a, "%" PRIx64 " %s (%s)", f->addr, sym,
					    f->inl ? "inlined"
					    : f->sym && f->module ? f->module : "[unknown]");
		return arena_printf(a, "%" PRIx64 " %s", f->addr, sym);
	case VF_STACK_RAW:
		return arena_printf(a, "%" PRIx64, f->addr);
	}
	return arena_strdup(a, sym);
}

const char *vf_stack(struct arena *a, const struct vf_frame *f, int n, enum vf_stack_mode mode,
		     int indent, bool user)
{
	if (n <= 0)
		return "";
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return "";
	fputc('\n', m);
	for (int i = 0; i < n; i++) {
		const char *line = vf_frame_line(a, &f[i], mode, user);
		if (mode == VF_STACK_PERF && !f[i].py)
			fprintf(m, "\t%s\n", line);
		else if (mode == VF_STACK_RAW)
			fprintf(m, "%s\n", line);
		else
			fprintf(m, "%*s%s\n", indent, "", line);
	}
	fclose(m);
	const char *r = arena_strndup(a, buf, len);
	free(buf);
	return r;
}
