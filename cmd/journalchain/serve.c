/* SPDX-License-Identifier: ISC */
/* serve: journalchain serve (serve.h; journalchain(1), SERVE).
 *
 * Two listeners, each a libmicrohttpd daemon driven from this one loop on
 * the main thread (no thread of libmicrohttpd's: MHD_USE_EPOLL without
 * an internal polling thread; every callback, and jansson, on the main
 * thread):
 *   dashboard  GET /, /app.js, /app.css, /api/runs, /api/runs/ID,
 *              /api/events (SSE: one message per change of the journals)
 *   AG-UI      POST / with a RunAgentInput: the run's events (agui.c)
 * Before a byte of a connection is read, its peer's socket owner is asked
 * of the kernel (peer.c, from libmicrohttpd's accept policy callback,
 * which runs right after accept(2)): only this process's uid, root and
 * the uids of --allow-uid get in; others are closed unread.  Every request
 * then names the listening address in Host (no DNS rebinding), and a
 * request with an Origin must be same-origin or allowed by --allow-origin.
 * Bounds: connections per listener (--max-connections), a connection's
 * memory (libmicrohttpd's pool, MEMORY_LIMIT), an idle connection's time
 * (TIMEOUT_S), a request's time until it is answered (REQUEST_S), a
 * request body (BODY_MAX); a stream holds one event at a time, so a
 * reader that does not read costs its socket's buffers only.
 * Journals are only ever opened O_RDONLY (runs.c). */
#include <arpa/inet.h>
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <netinet/in.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <microhttpd.h>

#include "agui.h"
#include "err.h"
#include "page.h"
#include "peer.h"
#include "runs.h"
#include "scan.h"
#include "serve.h"
#include "usage.h"

#define SERVE_USAGE                                                       \
	"journalchain serve [--dashboard ADDR:PORT|off] "                 \
	"[--agui ADDR:PORT|off] [--allow-uid UID]... "                    \
	"[--allow-origin ORIGIN]... [--non-loopback] "                    \
	"[--max-connections N] FILE..."

#define DEFAULT_DASHBOARD "127.0.0.1:18082"
#define DEFAULT_AGUI "127.0.0.1:18083"
#define TIMEOUT_S 10		/* an idle connection is closed */
#define REQUEST_S 10		/* a request's head and body, at most */
#define MEMORY_LIMIT (32 * 1024)	/* per connection */
#define BODY_MAX (64 * 1024)	/* a RunAgentInput */
#define TICK_MS 200		/* journals looked at */
#define KEEPALIVE_S 15		/* a waiting stream writes a comment */
#define UIDS_MAX 16
#define ORIGINS_MAX 16
#define SUSPENDED_MAX 4096
#define CSP "default-src 'none'; script-src 'self'; style-src 'self'; " \
	"connect-src 'self'; img-src 'self'; base-uri 'none'; "         \
	"form-action 'none'; frame-ancestors 'none'"

enum {
	OPT_DASHBOARD = USAGE_LONG_ONLY, OPT_AGUI, OPT_ALLOW_UID,
	OPT_ALLOW_ORIGIN, OPT_NON_LOOPBACK, OPT_MAX_CONN, OPT_VERSION,
};

static const struct usage_opt options[] = {
	{ "dashboard", required_argument, OPT_DASHBOARD, "ADDR:PORT|off",
	    "the dashboard's address (" DEFAULT_DASHBOARD ")" },
	{ "agui", required_argument, OPT_AGUI, "ADDR:PORT|off",
	    "the AG-UI adapter's address (" DEFAULT_AGUI ")" },
	{ "allow-uid", required_argument, OPT_ALLOW_UID, "UID",
	    "also let connections owned by UID in" },
	{ "allow-origin", required_argument, OPT_ALLOW_ORIGIN, "ORIGIN",
	    "answer cross-origin requests from ORIGIN" },
	{ "non-loopback", no_argument, OPT_NON_LOOPBACK, NULL,
	    "allow an address that is not a loopback one" },
	{ "max-connections", required_argument, OPT_MAX_CONN, "N",
	    "connections per listener (512)" },
	USAGE_STD_ROWS(OPT_VERSION),
};

struct listener {
	const char *name;	/* "dashboard", "agui" */
	int agui;
	struct sockaddr_storage addr;	/* the address bound, port included */
	socklen_t alen;
	char host[INET6_ADDRSTRLEN + 16];	/* Host: as it must be */
	char localhost[32];	/* "localhost:PORT" (loopback only) */
	struct MHD_Daemon *d;
	int epfd;
	uint64_t refused;	/* connections closed unread */
};

/* A stream: the SSE response's state. */
struct stream {
	struct MHD_Connection *c;
	struct agui *a;		/* AG-UI; NULL: the dashboard's events */
	uint64_t version;	/* dashboard: the version last sent */
	char *buf;		/* bytes of the event being written */
	size_t len, off;
	int suspended;
	int opened;		/* its first comment written */
	int done;
	time_t last;		/* when something was last written */
	struct stream *next, *prev;
};

/* A connection, from accept to close: when its current request began
 * (its first byte awaited), and whether it has been answered. */
struct conn {
	struct MHD_Connection *c;
	int fd;
	time_t since;
	int answered;
	int cut;		/* shut down for its deadline */
	struct conn *next, *prev;
};

/* A request: its body, while it arrives. */
struct request {
	char *body;
	size_t len;
	int toobig;
};

static struct {
	uid_t uids[UIDS_MAX + 2];
	size_t nuids;
	const char *origins[ORIGINS_MAX];
	size_t norigins;
	unsigned maxconn;
	struct listener l[2];
	struct stream *streams;
	size_t nstreams;
	struct conn *conns;
	int stopping;		/* every stream ends at its next read */
} S;

static void
usage_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
static void
usage_fail(const char *fmt, ...)
{
	char buf[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	die_usage_hint(EXIT_USAGE, "serve: %s", buf);
}

/* "ADDR:PORT" or "[ADDR6]:PORT", numeric only. */
static int
parse_addr(const char *s, struct sockaddr_storage *ss, socklen_t *len)
{
	char host[INET6_ADDRSTRLEN + 2];
	const char *colon;
	uint64_t port;
	size_t hl;

	memset(ss, 0, sizeof(*ss));
	if (s[0] == '[') {
		const char *rb = strchr(s, ']');

		if (rb == NULL || rb[1] != ':')
			return -1;
		hl = (size_t)(rb - s - 1);
		colon = rb + 1;
		if (hl >= sizeof(host))
			return -1;
		memcpy(host, s + 1, hl);
	} else {
		colon = strrchr(s, ':');
		if (colon == NULL)
			return -1;
		hl = (size_t)(colon - s);
		if (hl >= sizeof(host))
			return -1;
		memcpy(host, s, hl);
	}
	host[hl] = '\0';
	if (scan_u64(colon + 1, 0, 65535, &port) == -1)
		return -1;
	if (s[0] == '[') {
		struct sockaddr_in6 *a = (struct sockaddr_in6 *)ss;

		a->sin6_family = AF_INET6;
		a->sin6_port = htons((uint16_t)port);
		if (inet_pton(AF_INET6, host, &a->sin6_addr) != 1)
			return -1;
		*len = sizeof(*a);
	} else {
		struct sockaddr_in *a = (struct sockaddr_in *)ss;

		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		if (inet_pton(AF_INET, host, &a->sin_addr) != 1)
			return -1;
		*len = sizeof(*a);
	}
	return 0;
}

static int
is_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr)
		    >> 24) == 127;
	return IN6_IS_ADDR_LOOPBACK(&((const struct sockaddr_in6 *)ss)->
	    sin6_addr);
}

static int
is_any(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return ((const struct sockaddr_in *)ss)->sin_addr.s_addr ==
		    htonl(INADDR_ANY);
	return IN6_IS_ADDR_UNSPECIFIED(&((const struct sockaddr_in6 *)ss)->
	    sin6_addr);
}

static void
addr_str(const struct sockaddr_storage *ss, char *buf, size_t len)
{
	char h[INET6_ADDRSTRLEN];

	if (ss->ss_family == AF_INET) {
		const struct sockaddr_in *a = (const void *)ss;

		inet_ntop(AF_INET, &a->sin_addr, h, sizeof(h));
		snprintf(buf, len, "%s:%u", h, ntohs(a->sin_port));
	} else {
		const struct sockaddr_in6 *a = (const void *)ss;

		inet_ntop(AF_INET6, &a->sin6_addr, h, sizeof(h));
		snprintf(buf, len, "[%s]:%u", h, ntohs(a->sin6_port));
	}
}

/* ---- who may connect: before a byte is read ---- */

static enum MHD_Result
accept_policy(void *cls, const struct sockaddr *addr, socklen_t addrlen)
{
	struct listener *l = cls;
	char who[INET6_ADDRSTRLEN + 16];
	uid_t uid;
	size_t i;

	if (peer_uid(addr, addrlen, (const struct sockaddr *)&l->addr,
	    &uid) == -1) {
		l->refused++;
		if (l->refused <= 20 || (l->refused & 1023) == 0)
			warning_sys("serve: %s: a connection whose peer the "
			    "kernel cannot name: closed unread (%" PRIu64
			    " so far)", l->name, l->refused);
		return MHD_NO;
	}
	for (i = 0; i < S.nuids; i++)
		if (S.uids[i] == uid)
			return MHD_YES;
	l->refused++;
	if (l->refused <= 20 || (l->refused & 1023) == 0) {
		struct sockaddr_storage ss;

		memset(&ss, 0, sizeof(ss));
		memcpy(&ss, addr, addrlen < sizeof(ss) ? addrlen : sizeof(ss));
		addr_str(&ss, who, sizeof(who));
		warning("serve: %s: connection from %s, uid %u: not allowed, "
		    "closed unread (%" PRIu64 " so far)", l->name, who,
		    (unsigned)uid, l->refused);
	}
	return MHD_NO;
}

/* ---- a deadline per request ---- */

/* libmicrohttpd closes a connection idle for TIMEOUT_S, but a client
 * that sends one byte now and then is never idle: each connection's
 * request must be whole (head and body) within REQUEST_S of its first
 * byte being awaited, or its socket is shut down (the loop's next
 * libmicrohttpd run sees the end and closes it). */
static void
conn_notify(void *cls, struct MHD_Connection *c, void **sctx,
    enum MHD_ConnectionNotificationCode toe)
{
	struct conn *k = *sctx;
	const union MHD_ConnectionInfo *fi;

	(void)cls;
	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		k = calloc(1, sizeof(*k));
		if (k == NULL)
			return;
		fi = MHD_get_connection_info(c,
		    MHD_CONNECTION_INFO_CONNECTION_FD);
		k->c = c;
		k->fd = fi != NULL ? fi->connect_fd : -1;
		k->since = time(NULL);
		k->next = S.conns;
		if (S.conns)
			S.conns->prev = k;
		S.conns = k;
		*sctx = k;
		return;
	}
	if (k == NULL)
		return;
	if (k->prev)
		k->prev->next = k->next;
	else
		S.conns = k->next;
	if (k->next)
		k->next->prev = k->prev;
	free(k);
	*sctx = NULL;
}

static struct conn *
conn_of(struct MHD_Connection *c)
{
	const union MHD_ConnectionInfo *i = MHD_get_connection_info(c,
	    MHD_CONNECTION_INFO_SOCKET_CONTEXT);

	return i != NULL ? i->socket_context : NULL;
}

static void
conns_sweep(void)
{
	struct conn *k;
	time_t now = time(NULL);

	for (k = S.conns; k != NULL; k = k->next)
		if (!k->answered && !k->cut && k->fd != -1 &&
		    now - k->since >= REQUEST_S) {
			k->cut = 1;
			shutdown(k->fd, SHUT_RDWR);
		}
}

/* ---- responses ---- */

static void
common_headers(struct MHD_Response *r, const char *type)
{
	MHD_add_response_header(r, "Content-Type", type);
	MHD_add_response_header(r, "Content-Security-Policy", CSP);
	MHD_add_response_header(r, "X-Content-Type-Options", "nosniff");
	MHD_add_response_header(r, "Cache-Control", "no-store");
	MHD_add_response_header(r, "Referrer-Policy", "no-referrer");
	MHD_add_response_header(r, "X-Frame-Options", "DENY");
	MHD_add_response_header(r, "Cross-Origin-Resource-Policy",
	    "same-origin");
}

static const char *
allowed_origin(struct MHD_Connection *c)
{
	const char *o = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Origin");
	size_t i;

	if (o == NULL)
		return NULL;
	for (i = 0; i < S.norigins; i++)
		if (strcmp(o, S.origins[i]) == 0)
			return o;
	return NULL;
}

static enum MHD_Result
queue(struct MHD_Connection *c, unsigned status, const char *type,
    const void *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	struct MHD_Response *r;
	const char *origin = allowed_origin(c);
	enum MHD_Result ret;

	r = MHD_create_response_from_buffer(len, (void *)body, mode);
	if (r == NULL)
		return MHD_NO;
	if (conn_of(c) != NULL)
		conn_of(c)->answered = 1;
	common_headers(r, type);
	if (origin != NULL) {
		MHD_add_response_header(r, "Access-Control-Allow-Origin",
		    origin);
		MHD_add_response_header(r, "Vary", "Origin");
	}
	ret = MHD_queue_response(c, status, r);
	MHD_destroy_response(r);
	return ret;
}

static enum MHD_Result
error_json(struct MHD_Connection *c, unsigned status, const char *msg)
{
	json_t *o = json_pack("{s:i,s:s}", "status", (int)status, "error",
	    msg);
	char *txt = o ? json_dumps(o, JSON_COMPACT) : NULL;
	enum MHD_Result r;

	json_decref(o);
	if (txt == NULL)
		return MHD_NO;
	r = queue(c, status, "application/json", txt, strlen(txt),
	    MHD_RESPMEM_MUST_FREE);
	return r;
}

static enum MHD_Result
send_json(struct MHD_Connection *c, json_t *o)
{
	char *txt;

	if (o == NULL)
		return error_json(c, 500, "out of memory");
	txt = json_dumps(o, JSON_COMPACT);
	json_decref(o);
	if (txt == NULL)
		return error_json(c, 500, "out of memory");
	return queue(c, 200, "application/json", txt, strlen(txt),
	    MHD_RESPMEM_MUST_FREE);
}

/* ---- streams (SSE) ---- */

static void
stream_unlink(struct stream *s)
{
	if (s->prev)
		s->prev->next = s->next;
	else
		S.streams = s->next;
	if (s->next)
		s->next->prev = s->prev;
	S.nstreams--;
}

static void
stream_free(void *cls)
{
	struct stream *s = cls;

	stream_unlink(s);
	agui_close(s->a);
	free(s->buf);
	free(s);
}

/* Fill s->buf with the next bytes to write: 1, or 0 to wait, -1 at the
 * end of the stream. */
static int
stream_fill(struct stream *s)
{
	enum agui_step st;
	char tmp[64];
	int n;

	if (s->done)
		return -1;
	/* A comment first, so that the client has the response's head
	 * even while the stream waits (a follow, the dashboard's events). */
	if (!s->opened) {
		s->opened = 1;
		s->buf = strdup(": borne\n\n");
		s->len = s->buf ? strlen(s->buf) : 0;
		return s->buf ? 1 : -1;
	}
	if (s->a != NULL) {
		st = agui_next(s->a, &s->buf, &s->len);
		if (st == AGUI_EVENT)
			return 1;
		if (st == AGUI_DONE) {
			s->done = 1;
			return -1;
		}
	} else if (s->version != runs_version()) {
		s->version = runs_version();
		n = snprintf(tmp, sizeof(tmp), "data: {\"version\":%" PRIu64
		    "}\n\n", s->version);
		s->buf = strdup(tmp);
		s->len = (size_t)n;
		return s->buf ? 1 : -1;
	}
	/* Nothing new: a comment now and then, so that a client gone is
	 * found (a suspended connection is not watched). */
	if (time(NULL) - s->last >= KEEPALIVE_S) {
		s->buf = strdup(": keepalive\n\n");
		s->len = s->buf ? strlen(s->buf) : 0;
		return s->buf ? 1 : -1;
	}
	return 0;
}

static ssize_t
stream_read(void *cls, uint64_t pos, char *out, size_t max)
{
	struct stream *s = cls;
	size_t n;
	int r;

	(void)pos;
	if (S.stopping)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (s->off == s->len) {
		free(s->buf);
		s->buf = NULL;
		s->len = s->off = 0;
		r = stream_fill(s);
		if (r == -1)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (r == 0) {
			if (S.nstreams > SUSPENDED_MAX)
				return MHD_CONTENT_READER_END_OF_STREAM;
			s->suspended = 1;
			MHD_suspend_connection(s->c);
			return 0;
		}
	}
	n = s->len - s->off;
	if (n > max)
		n = max;
	memcpy(out, s->buf + s->off, n);
	s->off += n;
	s->last = time(NULL);
	return (ssize_t)n;
}

/* Wake every waiting stream: something changed, or it is time for a
 * keepalive. */
static void
streams_wake(int all)
{
	struct stream *s;
	time_t now = time(NULL);

	for (s = S.streams; s != NULL; s = s->next)
		if (s->suspended && (all || now - s->last >= KEEPALIVE_S)) {
			s->suspended = 0;
			MHD_resume_connection(s->c);
		}
}

static enum MHD_Result
start_stream(struct MHD_Connection *c, struct agui *a)
{
	struct MHD_Response *r;
	struct stream *s = calloc(1, sizeof(*s));
	const char *origin = allowed_origin(c);
	enum MHD_Result ret;

	if (s == NULL) {
		agui_close(a);
		return error_json(c, 500, "out of memory");
	}
	s->c = c;
	s->a = a;
	s->last = time(NULL);
	if (conn_of(c) != NULL)
		conn_of(c)->answered = 1;
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096,
	    stream_read, s, stream_free);
	if (r == NULL) {
		agui_close(a);
		free(s);
		return MHD_NO;
	}
	s->next = S.streams;
	if (S.streams)
		S.streams->prev = s;
	S.streams = s;
	S.nstreams++;
	common_headers(r, "text/event-stream");
	if (origin != NULL) {
		MHD_add_response_header(r, "Access-Control-Allow-Origin",
		    origin);
		MHD_add_response_header(r, "Vary", "Origin");
	}
	ret = MHD_queue_response(c, 200, r);
	MHD_destroy_response(r);
	return ret;
}

/* ---- requests ---- */

/* Host must name the listener (its address, or localhost on loopback);
 * an Origin must be this listener's or an allowed one. */
static const char *
check_host_origin(struct listener *l, struct MHD_Connection *c)
{
	const char *h = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Host");
	const char *o = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Origin");
	char self[sizeof(l->host) + 8];

	if (h == NULL || (strcmp(h, l->host) != 0 && (l->localhost[0] ==
	    '\0' || strcmp(h, l->localhost) != 0)))
		return "the Host header does not name this listener";
	if (o == NULL)
		return NULL;
	snprintf(self, sizeof(self), "http://%s", h);
	if (strcmp(o, self) == 0 || allowed_origin(c) != NULL)
		return NULL;
	return "cross-origin request from an origin not allowed";
}

static enum MHD_Result
dashboard(struct MHD_Connection *c, const char *url, const char *method)
{
	json_t *o;

	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return error_json(c, 405, "the dashboard is read-only: GET");
	if (strcmp(url, "/") == 0)
		return queue(c, 200, "text/html; charset=utf-8", page_html,
		    strlen(page_html), MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/app.js") == 0)
		return queue(c, 200, "text/javascript; charset=utf-8", page_js,
		    strlen(page_js), MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/app.css") == 0)
		return queue(c, 200, "text/css; charset=utf-8", page_css,
		    strlen(page_css), MHD_RESPMEM_PERSISTENT);
	if (strcmp(url, "/api/runs") == 0)
		return send_json(c, runs_list_json(0));
	if (strncmp(url, "/api/runs/", 10) == 0) {
		o = runs_run_json(url + 10);
		if (o == NULL && errno == ENOENT)
			return error_json(c, 404, "no such run");
		return send_json(c, o);
	}
	if (strcmp(url, "/api/events") == 0)
		return start_stream(c, NULL);
	return error_json(c, 404, "not found");
}

static enum MHD_Result
agui(struct MHD_Connection *c, struct request *rq)
{
	const char *accept = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Accept");
	const char *type = MHD_lookup_connection_value(c, MHD_HEADER_KIND,
	    "Content-Type");
	struct agui *a;
	char msg[256];
	int status;

	if (rq->toobig)
		return error_json(c, 413, "the RunAgentInput is over 64 KiB");
	if (type == NULL || strncmp(type, "application/json", 16) != 0)
		return error_json(c, 415, "want Content-Type: "
		    "application/json");
	/* No Accept takes anything; one that names types must take an event
	 * stream (text/event-stream, text/ or any). */
	if (accept != NULL && strstr(accept, "text/event-stream") == NULL &&
	    strstr(accept, "text/*") == NULL && strstr(accept, "*/*") == NULL)
		return error_json(c, 406, "want Accept: text/event-stream");
	a = agui_open(rq->body ? rq->body : "", rq->len, &status, msg,
	    sizeof(msg));
	if (a == NULL)
		return error_json(c, (unsigned)status, msg);
	return start_stream(c, a);
}

static enum MHD_Result
handler(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **ctx)
{
	struct listener *l = cls;
	struct request *rq = *ctx;
	const char *why;

	(void)version;
	if (rq == NULL) {
		rq = calloc(1, sizeof(*rq));
		if (rq == NULL)
			return MHD_NO;
		*ctx = rq;
		if ((why = check_host_origin(l, c)) != NULL)
			return error_json(c, 403, why);
		if (l->agui && strcmp(method, "OPTIONS") == 0 &&
		    allowed_origin(c) != NULL) {
			struct MHD_Response *r =
			    MHD_create_response_from_buffer(0, "",
			    MHD_RESPMEM_PERSISTENT);
			enum MHD_Result ret;

			if (conn_of(c) != NULL)
				conn_of(c)->answered = 1;
			common_headers(r, "text/plain");
			MHD_add_response_header(r,
			    "Access-Control-Allow-Origin", allowed_origin(c));
			MHD_add_response_header(r,
			    "Access-Control-Allow-Methods", "POST");
			MHD_add_response_header(r,
			    "Access-Control-Allow-Headers",
			    "content-type, accept");
			MHD_add_response_header(r, "Vary", "Origin");
			ret = MHD_queue_response(c, 204, r);
			MHD_destroy_response(r);
			return ret;
		}
		if (!l->agui)
			return dashboard(c, url, method);
		if (strcmp(method, "POST") != 0)
			return error_json(c, 405, "AG-UI: POST a "
			    "RunAgentInput");
		if (strcmp(url, "/") != 0)
			return error_json(c, 404, "AG-UI: POST /");
		return MHD_YES;
	}
	/* Answered already (a refusal, the dashboard): what else comes is
	 * dropped, never taken for a RunAgentInput. */
	if (!l->agui || (conn_of(c) != NULL && conn_of(c)->answered)) {
		*upload_size = 0;
		return MHD_YES;
	}
	if (*upload_size > 0) {
		if (rq->len + *upload_size > BODY_MAX)
			rq->toobig = 1;
		else {
			char *p = realloc(rq->body, rq->len + *upload_size + 1);

			if (p == NULL)
				return MHD_NO;
			rq->body = p;
			memcpy(rq->body + rq->len, upload, *upload_size);
			rq->len += *upload_size;
		}
		*upload_size = 0;
		return MHD_YES;
	}
	return agui(c, rq);
}

static void
completed(void *cls, struct MHD_Connection *c, void **ctx,
    enum MHD_RequestTerminationCode toe)
{
	struct request *rq = *ctx;
	struct conn *k = conn_of(c);

	(void)cls;
	(void)toe;
	/* A kept-alive connection's next request: a deadline of its own. */
	if (k != NULL) {
		k->answered = 0;
		k->since = time(NULL);
	}
	if (rq != NULL) {
		free(rq->body);
		free(rq);
		*ctx = NULL;
	}
}

static void
mhd_log(void *cls, const char *fmt, va_list ap)
{
	char buf[512];

	(void)cls;
	vsnprintf(buf, sizeof(buf), fmt, ap);
	buf[strcspn(buf, "\n")] = '\0';
	warning("serve: %s", buf);
}

static void
start_listener(struct listener *l, const char *spec, int nonloop)
{
	const union MHD_DaemonInfo *info;
	struct sockaddr_storage bound;
	socklen_t blen = sizeof(bound);
	unsigned flags = MHD_USE_EPOLL | MHD_ALLOW_SUSPEND_RESUME |
	    MHD_USE_ERROR_LOG;
	char a[INET6_ADDRSTRLEN + 16];

	if (!is_loopback(&l->addr)) {
		if (!nonloop)
			die_usage_hint(EXIT_USAGE, "serve: --%s %s: not a "
			    "loopback address (--non-loopback to serve "
			    "there)", l->name, spec);
		warning("serve: WARNING: %s listens on %s, not a loopback "
		    "address: only peers the kernel shows as sockets of this "
		    "host owned by an allowed uid get in", l->name, spec);
	}
	if (l->addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	l->d = MHD_start_daemon(flags, 0, accept_policy, l, handler, l,
	    MHD_OPTION_EXTERNAL_LOGGER, mhd_log, NULL,
	    MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&l->addr,
	    MHD_OPTION_CONNECTION_LIMIT, (unsigned)S.maxconn,
	    MHD_OPTION_CONNECTION_TIMEOUT, (unsigned)TIMEOUT_S,
	    MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)MEMORY_LIMIT,
	    MHD_OPTION_NOTIFY_COMPLETED, completed, NULL,
	    MHD_OPTION_NOTIFY_CONNECTION, conn_notify, NULL,
	    MHD_OPTION_END);
	if (l->d == NULL)
		die(EXIT_NO, "serve: cannot listen on %s for the %s", spec,
		    l->name);
	info = MHD_get_daemon_info(l->d, MHD_DAEMON_INFO_LISTEN_FD);
	if (info == NULL || getsockname(info->listen_fd,
	    (struct sockaddr *)&bound, &blen) == -1)
		die_sys(EXIT_NO, "serve: %s: its address", l->name);
	/* Port 0: the one the kernel chose. */
	memcpy(&l->addr, &bound, blen);
	l->alen = blen;
	addr_str(&l->addr, l->host, sizeof(l->host));
	if (is_loopback(&l->addr))
		snprintf(l->localhost, sizeof(l->localhost), "localhost:%u",
		    l->addr.ss_family == AF_INET ?
		    ntohs(((struct sockaddr_in *)&l->addr)->sin_port) :
		    ntohs(((struct sockaddr_in6 *)&l->addr)->sin6_port));
	info = MHD_get_daemon_info(l->d, MHD_DAEMON_INFO_EPOLL_FD);
	if (info == NULL)
		die(EXIT_NO, "serve: %s: no epoll descriptor", l->name);
	l->epfd = info->epoll_fd;
	addr_str(&l->addr, a, sizeof(a));
	printf("%s http://%s/\n", l->name, a);
}

int
serve_main(int argc, char *argv[])
{
	struct option longopts[sizeof(options) / sizeof(options[0])];
	const char *dash = DEFAULT_DASHBOARD, *ag = DEFAULT_AGUI;
	int c, nonloop = 0, have_d = 0, have_a = 0, have_m = 0, sfd, i;
	uint64_t v;
	char shorts[16];
	sigset_t set;
	size_t k, nl = 0;
	struct rlimit rl;
	struct timespec last;

	usage_getopt_init(options, longopts, sizeof(longopts) /
	    sizeof(longopts[0]), "", shorts, sizeof(shorts));
	S.maxconn = 512;
	S.uids[S.nuids++] = getuid();
	if (getuid() != 0)
		S.uids[S.nuids++] = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		switch (c) {
		case OPT_DASHBOARD:
			usage_once(&have_d, EXIT_USAGE, "dashboard", optarg);
			dash = optarg;
			break;
		case OPT_AGUI:
			usage_once(&have_a, EXIT_USAGE, "agui", optarg);
			ag = optarg;
			break;
		case OPT_ALLOW_UID:
			if (S.nuids == UIDS_MAX + 2 ||
			    scan_u64(optarg, 0, UINT32_MAX - 1, &v) == -1)
				usage_fail("--allow-uid: not a uid (or more "
				    "than %d): %s", UIDS_MAX, optarg);
			S.uids[S.nuids++] = (uid_t)v;
			break;
		case OPT_ALLOW_ORIGIN:
			if (S.norigins == ORIGINS_MAX ||
			    (strncmp(optarg, "http://", 7) != 0 &&
			    strncmp(optarg, "https://", 8) != 0) ||
			    strchr(optarg + 8, '/') != NULL)
				usage_fail("--allow-origin: want SCHEME://HOST"
				    "[:PORT] (%d at most): %s", ORIGINS_MAX,
				    optarg);
			S.origins[S.norigins++] = optarg;
			break;
		case OPT_NON_LOOPBACK:
			nonloop = 1;
			break;
		case OPT_MAX_CONN:
			usage_once(&have_m, EXIT_USAGE, "max-connections",
			    optarg);
			if (scan_u64(optarg, 1, 4096, &v) == -1)
				usage_fail("--max-connections: 1 to 4096: %s",
				    optarg);
			S.maxconn = (unsigned)v;
			break;
		default:
			usage_std(c, SERVE_USAGE, options, OPT_VERSION,
			    EXIT_USAGE, argv);
			abort();
		}
	}
	/* validation, before anything is opened */
	if (optind == argc)
		usage_fail("no FILE");
	if (argc - optind > 16)
		usage_fail("16 journals at most");
	if (strcmp(dash, "off") == 0 && strcmp(ag, "off") == 0)
		usage_fail("--dashboard off and --agui off: nothing to serve");
	if (strcmp(dash, "off") != 0) {
		S.l[nl].name = "dashboard";
		if (parse_addr(dash, &S.l[nl].addr, &S.l[nl].alen) == -1)
			usage_fail("--dashboard: want ADDR:PORT or "
			    "[ADDR6]:PORT (numeric), or off: %s", dash);
		nl++;
	}
	if (strcmp(ag, "off") != 0) {
		S.l[nl].name = "agui";
		S.l[nl].agui = 1;
		if (parse_addr(ag, &S.l[nl].addr, &S.l[nl].alen) == -1)
			usage_fail("--agui: want ADDR:PORT or [ADDR6]:PORT "
			    "(numeric), or off: %s", ag);
		nl++;
	}
	for (k = 0; k < nl; k++)
		if (is_any(&S.l[k].addr))
			usage_fail("--%s: name one address, not a wildcard "
			    "(the peer is looked up by its four-tuple)",
			    S.l[k].name);

	for (i = optind; i < argc; i++)
		if (runs_add(argv[i]) == -1)
			die_sys(EXIT_NO, "serve: cannot open %s", argv[i]);
	/* Room for the connections. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max &&
	    rl.rlim_cur < 2 * S.maxconn + 64) {
		rl.rlim_cur = rl.rlim_max < 2 * S.maxconn + 64 ? rl.rlim_max :
		    2 * S.maxconn + 64;
		(void)setrlimit(RLIMIT_NOFILE, &rl);
	}
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGHUP);
	sigprocmask(SIG_BLOCK, &set, NULL);
	signal(SIGPIPE, SIG_IGN);
	sfd = signalfd(-1, &set, SFD_CLOEXEC | SFD_NONBLOCK);
	if (sfd == -1)
		die_sys(EXIT_NO, "serve: signalfd");
	(void)runs_refresh();
	clock_gettime(CLOCK_MONOTONIC, &last);
	for (k = 0; k < nl; k++)
		start_listener(&S.l[k], S.l[k].agui ? ag : dash, nonloop);
	if (fflush(stdout) == EOF)
		die_sys(EXIT_NO, "serve: writing stdout");

	for (;;) {
		struct pollfd p[3];
		MHD_UNSIGNED_LONG_LONG to;
		int tmo = TICK_MS;
		struct signalfd_siginfo si;
		struct timespec now;

		for (k = 0; k < nl; k++) {
			p[k].fd = S.l[k].epfd;
			p[k].events = POLLIN;
			if (MHD_get_timeout(S.l[k].d, &to) == MHD_YES &&
			    to < (MHD_UNSIGNED_LONG_LONG)tmo)
				tmo = (int)to;
		}
		p[nl].fd = sfd;
		p[nl].events = POLLIN;
		if (poll(p, nl + 1, tmo) == -1 && errno != EINTR)
			die_sys(EXIT_NO, "serve: poll");
		if (p[nl].revents & POLLIN &&
		    read(sfd, &si, sizeof(si)) == (ssize_t)sizeof(si))
			break;
		/* The journals, every tick: a change wakes every stream. */
		clock_gettime(CLOCK_MONOTONIC, &now);
		if ((now.tv_sec - last.tv_sec) * 1000 + (now.tv_nsec -
		    last.tv_nsec) / 1000000 >= TICK_MS) {
			last = now;
			streams_wake(runs_refresh());
			conns_sweep();
		}
		for (k = 0; k < nl; k++)
			MHD_run(S.l[k].d);
	}
	/* Suspended connections must be resumed before the daemon stops;
	 * resumed, they end at once (stopping). */
	S.stopping = 1;
	streams_wake(1);
	for (k = 0; k < nl; k++) {
		MHD_run(S.l[k].d);
		MHD_stop_daemon(S.l[k].d);
	}
	return EXIT_OK;
}
