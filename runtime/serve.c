/*
 * serve.c - --serve [ADDR:]PORT: the maps as a Prometheus scrape target.
 *
 * The HTTP side is libmicrohttpd, driven from sonde's own main loop rather
 * than from a thread of its own: the runtime's caches (symbols, cgroups,
 * Kubernetes names) and arenas are single-threaded, and a scrape reads the
 * maps in the same thread that consumes the ring buffer.  MHD's epoll fd is
 * polled with the ring buffer's and the stop causes (stop.c); sockets are
 * non-blocking,
 * so a slow or stuck client only holds its own connection, never the loop.
 * What a scrape costs the loop is the rendering itself, bounded by the
 * series cap and the response byte limit (scrape.c).
 *
 * /debug/pprof/profile?seconds=N (default 30, as Go's net/http/pprof)
 * answers as a Go service does, with a gzipped pprof profile of the stack
 * maps' growth over the next N seconds (profile.c): the request is
 * suspended in libmicrohttpd meanwhile, and resumed by the main loop when
 * its time is up (or at exit, with what it has).  With -f pprof this is
 * the only endpoint besides /; /metrics needs a metrics format.
 *
 * Only GET (and HEAD) of those paths are answered; everything else is
 * 404 or 405.  Connections are capped in total and per client address and
 * time out when idle.  The address defaults to 127.0.0.1: exposing a
 * node's processes to the network is a choice the user makes by naming an
 * address (deploy/daemonset.yaml does, inside the pod network).
 *
 * libmicrohttpd is opened with dlopen() when --serve starts, not linked:
 * it and the TLS libraries it needs cost 3 MB of RSS at every start of
 * every script (BEGIN { exit(); } peaked at 25 MB), served or not.
 */
#include "runtime/rt_int.h"

#include <arpa/inet.h>
#include <dlfcn.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* the libmicrohttpd functions this file calls, from the library opened
 * by rt_serve_start(); each MHD_name below is mhd.name */
static struct {
	struct MHD_Daemon *(*start_daemon)(unsigned, uint16_t, MHD_AcceptPolicyCallback, void *,
					   MHD_AccessHandlerCallback, void *, ...);
	void (*stop_daemon)(struct MHD_Daemon *);
	enum MHD_Result (*run)(struct MHD_Daemon *);
	const union MHD_DaemonInfo *(*get_daemon_info)(struct MHD_Daemon *, enum MHD_DaemonInfoType, ...);
	enum MHD_Result (*get_timeout)(struct MHD_Daemon *, MHD_UNSIGNED_LONG_LONG *);
	const char *(*lookup_connection_value)(struct MHD_Connection *, enum MHD_ValueKind, const char *);
	struct MHD_Response *(*create_response_from_buffer)(size_t, void *, enum MHD_ResponseMemoryMode);
	enum MHD_Result (*add_response_header)(struct MHD_Response *, const char *, const char *);
	enum MHD_Result (*queue_response)(struct MHD_Connection *, unsigned int, struct MHD_Response *);
	void (*destroy_response)(struct MHD_Response *);
	void (*suspend_connection)(struct MHD_Connection *);
	enum MHD_Result (*resume_connection)(struct MHD_Connection *);
} mhd;

static int mhd_load(void)
{
	static int state;	/* 0: not tried, 1: loaded, -1: not there */
	if (state)
		return state > 0 ? 0 : -ENOENT;
	state = -1;
	void *h = dlopen("libmicrohttpd.so.12", RTLD_NOW | RTLD_LOCAL);
	if (!h)
		return -ENOENT;
	void **slots[] = {
		(void **)&mhd.start_daemon, (void **)&mhd.stop_daemon, (void **)&mhd.run,
		(void **)&mhd.get_daemon_info, (void **)&mhd.get_timeout,
		(void **)&mhd.lookup_connection_value, (void **)&mhd.create_response_from_buffer,
		(void **)&mhd.add_response_header, (void **)&mhd.queue_response,
		(void **)&mhd.destroy_response, (void **)&mhd.suspend_connection,
		(void **)&mhd.resume_connection,
	};
	static const char *const names[] = {
		"MHD_start_daemon", "MHD_stop_daemon", "MHD_run", "MHD_get_daemon_info",
		"MHD_get_timeout", "MHD_lookup_connection_value", "MHD_create_response_from_buffer",
		"MHD_add_response_header", "MHD_queue_response", "MHD_destroy_response",
		"MHD_suspend_connection", "MHD_resume_connection",
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!(*slots[i] = dlsym(h, names[i])))
			return -ENOENT;
	state = 1;
	return 0;
}

#define MHD_start_daemon mhd.start_daemon
#define MHD_stop_daemon mhd.stop_daemon
#define MHD_run mhd.run
#define MHD_get_daemon_info mhd.get_daemon_info
#define MHD_get_timeout mhd.get_timeout
#define MHD_lookup_connection_value mhd.lookup_connection_value
#define MHD_create_response_from_buffer mhd.create_response_from_buffer
#define MHD_add_response_header mhd.add_response_header
#define MHD_queue_response mhd.queue_response
#define MHD_destroy_response mhd.destroy_response
#define MHD_suspend_connection mhd.suspend_connection
#define MHD_resume_connection mhd.resume_connection

#define SERVE_MAX_CONNECTIONS 16
#define SERVE_MAX_PER_CLIENT 4
#define SERVE_IDLE_TIMEOUT_S 10

#define CT_TEXT "text/plain; version=0.0.4; charset=utf-8"
#define CT_OPENMETRICS "application/openmetrics-text; version=1.0.0; charset=utf-8"

#define PROFILE_SECONDS_DEFAULT 30
#define PROFILE_SECONDS_MAX 3600

/* a /debug/pprof/profile request waiting for its seconds */
struct profile_req {
	struct MHD_Connection *c;
	struct rt_baseline *base;
	double deadline;	/* CLOCK_MONOTONIC seconds */
	bool resumed;
	struct profile_req *next;
};

struct rt_serve {
	struct MHD_Daemon *d;
	int epfd;
	char url[300];
	struct profile_req *waiting;
};

/*
 * OpenMetrics when the client prefers it: the Accept header lists media
 * ranges with optional q= weights (Prometheus sends openmetrics-text at
 * q=1, text/plain at q=0.5); the higher weight wins, text on a tie.
 */
static bool wants_openmetrics(const char *accept)
{
	double om = -1, text = -1;
	const char *p = accept;
	while (p && *p) {
		size_t len = strcspn(p, ",");
		char part[256];
		snprintf(part, sizeof(part), "%.*s", (int)(len < sizeof(part) ? len : sizeof(part) - 1), p);
		double q = 1;
		const char *qs = strstr(part, ";q=");
		if (!qs)
			qs = strstr(part, "; q=");
		if (qs)
			q = strtod(strchr(qs, '=') + 1, NULL);
		const char *t = part + strspn(part, " \t");
		if (!strncmp(t, "application/openmetrics-text", 28) && q > om)
			om = q;
		else if ((!strncmp(t, "text/plain", 10) || !strncmp(t, "*/*", 3)) && q > text)
			text = q;
		p += len;
		if (*p == ',')
			p++;
	}
	return om > 0 && om > text;
}

static enum MHD_Result reply(struct MHD_Connection *c, unsigned status, const char *type, char *body,
			     size_t len)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(len, body, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(r, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	enum MHD_Result ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result reply_text(struct MHD_Connection *c, unsigned status, const char *type,
				  const char *text)
{
	char *body = strdup(text);
	return body ? reply(c, status, type, body, strlen(body)) : MHD_NO;
}

/* first call: read the baseline and wait suspended; called again once
 * resumed (rt_serve_run): the profile of the time between */
static enum MHD_Result profile(struct rt *rt, struct MHD_Connection *c, void **state)
{
	struct profile_req *req = *state;
	if (!req) {
		const char *sec = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "seconds");
		char *end = NULL;
		long n = sec ? strtol(sec, &end, 10) : PROFILE_SECONDS_DEFAULT;
		if (sec && (!*sec || *end || n < 1 || n > PROFILE_SECONDS_MAX))
			return reply_text(c, MHD_HTTP_BAD_REQUEST, "text/plain",
					  "seconds: a whole number from 1 to 3600\n");
		req = calloc(1, sizeof(*req));
		if (!req || !(req->base = rt_profile_begin(rt))) {
			free(req);
			return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", "out of memory\n");
		}
		req->c = c;
		req->deadline = (double)rt_mono_ns() / 1e9 + (double)n;
		req->next = rt->metrics.serve->waiting;
		rt->metrics.serve->waiting = req;
		*state = req;
		MHD_suspend_connection(c);
		return MHD_YES;
	}
	if (!req->resumed)
		return MHD_YES;
	*state = NULL;
	uint8_t *buf = NULL;
	size_t len = 0;
	int err = rt_profile_end(rt, req->base, &buf, &len);
	free(req);
	if (err)
		return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", "cannot encode the profile\n");
	struct MHD_Response *r = MHD_create_response_from_buffer(len, buf, MHD_RESPMEM_MUST_FREE);
	if (!r) {
		free(buf);
		return MHD_NO;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, "application/octet-stream");
	MHD_add_response_header(r, "Content-Disposition", "attachment; filename=\"profile\"");
	enum MHD_Result ret = MHD_queue_response(c, MHD_HTTP_OK, r);
	MHD_destroy_response(r);
	return ret;
}

/* resume the requests whose time is up (all of them when `all`) */
static void resume_due(struct rt_serve *s, bool all)
{
	double now = (double)rt_mono_ns() / 1e9;
	for (struct profile_req **p = &s->waiting; *p;) {
		struct profile_req *r = *p;
		if (all || now >= r->deadline) {
			*p = r->next;
			r->resumed = true;
			MHD_resume_connection(r->c);
		} else {
			p = &r->next;
		}
	}
}

/* a request that ends without its second call (the client went away)
 * still frees its baseline */
static void completed(void *cls, struct MHD_Connection *c, void **state,
		      enum MHD_RequestTerminationCode why)
{
	struct profile_req *req = *state;
	if (!req)
		return;
	rt_profile_free(req->base);
	free(req);
	*state = NULL;
}

static enum MHD_Result handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			      const char *version, const char *upload, size_t *upload_size, void **state)
{
	struct rt *rt = cls;
	if (strcmp(method, MHD_HTTP_METHOD_GET) && strcmp(method, MHD_HTTP_METHOD_HEAD))
		return reply_text(c, MHD_HTTP_METHOD_NOT_ALLOWED, "text/plain", "only GET\n");
	if (!strcmp(url, "/debug/pprof/profile"))
		return profile(rt, c, state);
	if (!strcmp(url, "/metrics") && !rt->o->writer->scrape)
		return reply_text(c, MHD_HTTP_NOT_FOUND, "text/plain",
				  "not found: this run serves /debug/pprof/profile (-f pprof)\n");
	if (!strcmp(url, "/metrics")) {
		const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_ACCEPT);
		bool om = accept && wants_openmetrics(accept);
		char *body = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&body, &len);
		if (!f)
			return MHD_NO;
		rt_scrape(rt, f, om ? &output_openmetrics : &output_prometheus);
		if (fclose(f)) {
			free(body);
			return reply_text(c, MHD_HTTP_INTERNAL_SERVER_ERROR, "text/plain", "out of memory\n");
		}
		return reply(c, MHD_HTTP_OK, om ? CT_OPENMETRICS : CT_TEXT, body, len);
	}
	if (!strcmp(url, "/")) {
		char *body = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&body, &len);
		if (!f)
			return MHD_NO;
		fputs("<html><head><title>sonde</title></head><body>\n<h1>sonde</h1>\n"
		      "<p>Serving the maps of <code>", f);
		for (const char *p = rt->o->file; *p; p++)	/* the script's name, escaped */
			if (*p == '<' || *p == '>' || *p == '&' || *p == '"')
				fprintf(f, "&#%d;", *p);
			else
				fputc(*p, f);
		if (rt->o->writer->scrape)
			fputs("</code> as <a href=\"/metrics\">/metrics</a> (Prometheus text 0.0.4, or "
			      "OpenMetrics 1.0 by Accept header)", f);
		else
			fputs("</code>", f);
		fputs(", and its stack maps as a pprof profile at <a href=\"/debug/pprof/profile?seconds=30\">"
		      "/debug/pprof/profile?seconds=N</a>.</p>\n</body></html>\n", f);
		fclose(f);
		return reply(c, MHD_HTTP_OK, "text/html; charset=utf-8", body, len);
	}
	return reply_text(c, MHD_HTTP_NOT_FOUND, "text/plain", "not found: try /metrics\n");
}

/* "PORT", "ADDR:PORT", "[V6ADDR]:PORT"; 127.0.0.1 without an address */
static int parse_addr(const char *spec, struct sockaddr_storage *ss, char *shown, size_t shownlen)
{
	char host[256] = "127.0.0.1";
	const char *port = spec;
	const char *colon = strrchr(spec, ':');
	if (spec[0] == '[') {
		const char *close = strchr(spec, ']');
		if (!close || close[1] != ':')
			return -EINVAL;
		snprintf(host, sizeof(host), "%.*s", (int)(close - spec - 1), spec + 1);
		port = close + 2;
	} else if (colon) {
		if ((size_t)(colon - spec) >= sizeof(host))
			return -EINVAL;
		snprintf(host, sizeof(host), "%.*s", (int)(colon - spec), spec);
		port = colon + 1;
	}
	char *end;
	long pn = strtol(port, &end, 10);
	if (!*port || *end || pn < 0 || pn > 65535)
		return -EINVAL;
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM, .ai_flags = AI_PASSIVE};
	struct addrinfo *ai = NULL;
	if (getaddrinfo(*host ? host : NULL, port, &hints, &ai) || !ai)
		return -EADDRNOTAVAIL;
	memcpy(ss, ai->ai_addr, ai->ai_addrlen);
	freeaddrinfo(ai);
	snprintf(shown, shownlen, "%s", host);
	return 0;
}

int rt_serve_start(struct rt *rt, const char *spec)
{
	struct sockaddr_storage ss;
	char host[256];
	if (parse_addr(spec, &ss, host, sizeof(host))) {
		fprintf(stderr, "sonde: --serve %s: expected [ADDR:]PORT (PORT 0 to 65535; ADDR a "
			"numeric address or a host name, [::1] for IPv6)\n", spec);
		return -EINVAL;
	}
	if (mhd_load()) {
		const char *why = dlerror();
		fprintf(stderr, "sonde: --serve needs libmicrohttpd (libmicrohttpd.so.12): %s\n",
			why ? why : "not found");
		return -ENOENT;
	}
	struct rt_serve *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME | (ss.ss_family == AF_INET6 ? MHD_USE_IPv6 : 0) |
			 (rt->o->verbose ? MHD_USE_ERROR_LOG : 0);
	s->d = MHD_start_daemon(flags, 0, NULL, NULL, handle, rt,
				MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss,
				MHD_OPTION_CONNECTION_LIMIT, (unsigned)SERVE_MAX_CONNECTIONS,
				MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)SERVE_MAX_PER_CLIENT,
				MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)SERVE_IDLE_TIMEOUT_S,
				MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
				MHD_OPTION_END);
	if (!s->d) {
		int err = errno ? -errno : -EADDRINUSE;
		fprintf(stderr, "sonde: --serve %s: cannot listen: %s\n", spec, strerror(-err));
		free(s);
		return err;
	}
	const union MHD_DaemonInfo *ep = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_EPOLL_FD);
	const union MHD_DaemonInfo *pi = MHD_get_daemon_info(s->d, MHD_DAEMON_INFO_BIND_PORT);
	s->epfd = ep ? ep->epoll_fd : -1;
	bool v6 = ss.ss_family == AF_INET6;
	bool scrape = rt->o->writer->scrape;
	snprintf(s->url, sizeof(s->url), "http://%s%s%s:%u%s", v6 ? "[" : "", host, v6 ? "]" : "",
		 pi ? pi->port : 0, scrape ? "/metrics" : "/debug/pprof/profile");
	rt->metrics.serve = s;
	rt->stopper.extra_fd = s->epfd;
	/* the port chosen for PORT 0 is only known here: tests read it */
	fprintf(stderr, "sonde: serving %s at %s\n", scrape ? "metrics" : "profiles", s->url);
	return 0;
}

int rt_serve_timeout(struct rt *rt, int timeout_ms)
{
	MHD_UNSIGNED_LONG_LONG to;
	for (struct profile_req *r = rt->metrics.serve->waiting; r; r = r->next) {
		double left = r->deadline - (double)rt_mono_ns() / 1e9;
		int ms = left > 0 ? (int)(left * 1000) + 1 : 0;
		timeout_ms = ms < timeout_ms ? ms : timeout_ms;
	}
	if (MHD_get_timeout(rt->metrics.serve->d, &to) == MHD_YES && to < (MHD_UNSIGNED_LONG_LONG)timeout_ms)
		return (int)to;
	return timeout_ms;
}

void rt_serve_run(struct rt *rt)
{
	resume_due(rt->metrics.serve, false);
	MHD_run(rt->metrics.serve->d);
}

void rt_serve_stop(struct rt *rt)
{
	if (!rt->metrics.serve)
		return;
	rt->stopper.extra_fd = -1;
	/* a suspended request gets what it has: libmicrohttpd stops only
	 * with every connection resumed */
	if (rt->metrics.serve->waiting) {
		resume_due(rt->metrics.serve, true);
		MHD_run(rt->metrics.serve->d);
	}
	MHD_stop_daemon(rt->metrics.serve->d);
	free(rt->metrics.serve);
	rt->metrics.serve = NULL;
}
