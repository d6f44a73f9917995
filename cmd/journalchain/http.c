/* SPDX-License-Identifier: ISC */
/* http: the dashboard's and the AG-UI adapter's answers, streams and
 * request deadlines (http.h).
 *
 *   dashboard  GET /, /app.js, /app.css, /api/runs, /api/runs/ID,
 *              /api/events (SSE: one message per change of the journals)
 *   AG-UI      POST / with a RunAgentInput: the run's events (agui.c)
 * Every request names the listening address in Host (no DNS rebinding),
 * and a request with an Origin must be same-origin or allowed by
 * --allow-origin.  Bounds: a request's time until it is answered
 * (REQUEST_S), a request body (BODY_MAX); a stream holds one event at a
 * time, so a reader that does not read costs its socket's buffers only. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>

#include <jansson.h>
#include <microhttpd.h>

#include "agui.h"
#include "http.h"
#include "page.h"
#include "runs.h"

#define REQUEST_S 10		/* a request's head and body, at most */
#define BODY_MAX (64 * 1024)	/* a RunAgentInput */
#define KEEPALIVE_S 15		/* a waiting stream writes a comment */
#define SUSPENDED_MAX 4096

/* The connections and the streams are lists linked through next and
 * prev: pushed at the head, unlinked from anywhere. */
#define LIST_PUSH(head, n)                                                \
	do {                                                              \
		(n)->prev = NULL;                                         \
		(n)->next = (head);                                       \
		if ((head) != NULL)                                       \
			(head)->prev = (n);                               \
		(head) = (n);                                             \
	} while (0)
#define LIST_UNLINK(head, n)                                              \
	do {                                                              \
		if ((n)->prev != NULL)                                    \
			(n)->prev->next = (n)->next;                      \
		else                                                      \
			(head) = (n)->next;                               \
		if ((n)->next != NULL)                                    \
			(n)->next->prev = (n)->prev;                      \
	} while (0)
#define CSP "default-src 'none'; script-src 'self'; style-src 'self'; " \
	"connect-src 'self'; img-src 'self'; base-uri 'none'; "         \
	"form-action 'none'; frame-ancestors 'none'"

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
	const char *origins[HTTP_ORIGINS_MAX];
	size_t norigins;
	struct stream *streams;
	size_t nstreams;
	struct conn *conns;
	int stopping;		/* every stream ends at its next read */
} H;

int
http_allow_origin(const char *origin)
{
	if (H.norigins == HTTP_ORIGINS_MAX)
		return -1;
	H.origins[H.norigins++] = origin;
	return 0;
}

/* ---- a deadline per request ---- */

/* libmicrohttpd closes a connection idle for TIMEOUT_S, but a client
 * that sends one byte now and then is never idle: each connection's
 * request must be whole (head and body) within REQUEST_S of its first
 * byte being awaited, or its socket is shut down (the loop's next
 * libmicrohttpd run sees the end and closes it). */
void
http_conn_notify(void *cls, struct MHD_Connection *c, void **sctx,
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
		LIST_PUSH(H.conns, k);
		*sctx = k;
		return;
	}
	if (k == NULL)
		return;
	LIST_UNLINK(H.conns, k);
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

	for (k = H.conns; k != NULL; k = k->next)
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
	for (i = 0; i < H.norigins; i++)
		if (strcmp(o, H.origins[i]) == 0)
			return o;
	return NULL;
}

/* Queue r on c with the headers every answer carries (CORS for an
 * allowed origin), c then answered. */
static enum MHD_Result
respond(struct MHD_Connection *c, unsigned status, const char *type,
    struct MHD_Response *r)
{
	const char *origin = allowed_origin(c);
	enum MHD_Result ret;

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
queue(struct MHD_Connection *c, unsigned status, const char *type,
    const void *body, size_t len, enum MHD_ResponseMemoryMode mode)
{
	return respond(c, status, type,
	    MHD_create_response_from_buffer(len, (void *)body, mode));
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
	LIST_UNLINK(H.streams, s);
	H.nstreams--;
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
	if (H.stopping)
		return MHD_CONTENT_READER_END_OF_STREAM;
	if (s->off == s->len) {
		free(s->buf);
		s->buf = NULL;
		s->len = s->off = 0;
		r = stream_fill(s);
		if (r == -1)
			return MHD_CONTENT_READER_END_OF_STREAM;
		if (r == 0) {
			if (H.nstreams > SUSPENDED_MAX)
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

	for (s = H.streams; s != NULL; s = s->next)
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

	if (s == NULL) {
		agui_close(a);
		return error_json(c, 500, "out of memory");
	}
	s->c = c;
	s->a = a;
	s->last = time(NULL);
	r = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096,
	    stream_read, s, stream_free);
	if (r == NULL) {
		agui_close(a);
		free(s);
		return MHD_NO;
	}
	LIST_PUSH(H.streams, s);
	H.nstreams++;
	return respond(c, 200, "text/event-stream", r);
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

/* The AG-UI adapter's answer to an allowed origin's preflight. */
static enum MHD_Result
preflight(struct MHD_Connection *c)
{
	struct MHD_Response *r = MHD_create_response_from_buffer(0, "",
	    MHD_RESPMEM_PERSISTENT);

	if (r != NULL) {
		MHD_add_response_header(r, "Access-Control-Allow-Methods",
		    "POST");
		MHD_add_response_header(r, "Access-Control-Allow-Headers",
		    "content-type, accept");
	}
	return respond(c, 204, "text/plain", r);
}

/* A request's head: answered now (a refusal, a preflight, the
 * dashboard), or MHD_YES to read an AG-UI body. */
static enum MHD_Result
request_head(struct listener *l, struct MHD_Connection *c, const char *url,
    const char *method)
{
	const char *why;

	if ((why = check_host_origin(l, c)) != NULL)
		return error_json(c, 403, why);
	if (l->agui && strcmp(method, "OPTIONS") == 0 &&
	    allowed_origin(c) != NULL)
		return preflight(c);
	if (!l->agui)
		return dashboard(c, url, method);
	if (strcmp(method, "POST") != 0)
		return error_json(c, 405, "AG-UI: POST a RunAgentInput");
	if (strcmp(url, "/") != 0)
		return error_json(c, 404, "AG-UI: POST /");
	return MHD_YES;
}

/* A piece of an AG-UI body: kept, up to BODY_MAX.  MHD_NO on ENOMEM. */
static enum MHD_Result
request_body(struct request *rq, const char *upload, size_t n)
{
	char *p;

	if (rq->len + n > BODY_MAX) {
		rq->toobig = 1;
		return MHD_YES;
	}
	if ((p = realloc(rq->body, rq->len + n + 1)) == NULL)
		return MHD_NO;
	rq->body = p;
	memcpy(rq->body + rq->len, upload, n);
	rq->len += n;
	return MHD_YES;
}

enum MHD_Result
http_request(void *cls, struct MHD_Connection *c, const char *url,
    const char *method, const char *version, const char *upload,
    size_t *upload_size, void **ctx)
{
	struct listener *l = cls;
	struct request *rq = *ctx;
	enum MHD_Result r;
	size_t n = *upload_size;

	(void)version;
	if (rq == NULL) {
		if ((*ctx = rq = calloc(1, sizeof(*rq))) == NULL)
			return MHD_NO;
		return request_head(l, c, url, method);
	}
	*upload_size = 0;
	/* Answered already (a refusal, the dashboard): what else comes is
	 * dropped, never taken for a RunAgentInput. */
	if (!l->agui || (conn_of(c) != NULL && conn_of(c)->answered))
		return MHD_YES;
	if (n > 0) {
		r = request_body(rq, upload, n);
		if (r == MHD_NO)
			*upload_size = n;
		return r;
	}
	return agui(c, rq);
}

void
http_completed(void *cls, struct MHD_Connection *c, void **ctx,
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

void
http_tick(int changed)
{
	streams_wake(changed);
	conns_sweep();
}

void
http_stop(void)
{
	H.stopping = 1;
	streams_wake(1);
}
