/* SPDX-License-Identifier: ISC */
/* confexec's egress broker: one payload connection (broker.h).
 *
 * C_HEAD     the request head is read (EGRESS_MAX_HEAD at most) and
 *            parsed (common/egress); a refusal answers 4xx and closes
 * C_RESOLVE  a listed name waits for the resolver; every address it
 *            gives is judged (egress_addr_why, asking the kernel whether
 *            it is this host's: hostroute.c) and kept only when public
 *            or listed as that IP literal; an unspecified one never
 * C_CONNECT  a non-blocking connect to each kept address in turn
 * C_RELAY    CONNECT: "200 Connection established", then bytes both
 *            ways, opaque; HTTP: the head rewritten to origin form with
 *            "Connection: close", then bytes both ways.  splice(2)
 *            through a pipe per direction, at most RELAY_TURN
 *            bytes per direction per loop turn; every socket's buffers
 *            and every pipe's bytes bounded, each direction's share
 *            growing with its rate from a pool, all of them within
 *            RELAY_MEM (broker.h)
 * C_REFUSE   a 4xx/5xx answer is written, then the connection closes */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <linux/sockios.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "broker.h"
#include "brokersay.h"
#include "clock.h"
#include "err.h"
#include "loop.h"
#include "plan.h"
#include "record.h"
#include "run.h"

static const char ESTABLISHED[] = "HTTP/1.1 200 Connection established\r\n"
				  "\r\n";

uint64_t
broker_ms(void)
{
	return now_ns(CLOCK_MONOTONIC) / 1000000u;
}

static const char *const verdict_name[] = { "refused", "allowed",
	"refused", "failed" };

/* The payload's egress event for c, or for a connection turned away
 * (c NULL: no request was read). */
static void
event(struct broker *b, const struct conn *c, int status, const char *why)
{
	struct run *r = b->r;
	int rq = c != NULL && c->have_rq;
	json_t *ev;

	if (!record_wanted(r) || !r->started)
		return;
	if (b->events >= EGRESS_EVENTS_LOGGED) {
		b->st.unlogged++;
		return;
	}
	b->events++;
	ev = json_object();
	json_object_set_new(ev, "event", json_string("egress"));
	json_object_set_new(ev, "plan", json_string(r->plan_hex));
	json_object_set_new(ev, "host", rq ?
	    json_string(c->rq.host) : json_null());
	json_object_set_new(ev, "port", rq ?
	    json_integer(c->rq.port) : json_null());
	json_object_set_new(ev, "kind", !rq ? json_null() :
	    json_string(c->rq.kind == EGRESS_CONNECT ? "connect" : "http"));
	json_object_set_new(ev, "address", c != NULL && c->address[0] &&
	    c->verdict == CV_ALLOWED ? json_string(c->address) :
	    json_null());
	json_object_set_new(ev, "verdict", json_string(c != NULL ?
	    verdict_name[c->verdict] : "refused"));
	json_object_set_new(ev, "status", status ?
	    json_integer(status) : json_null());
	json_object_set_new(ev, "reason", why[0] ?
	    json_string(why) : json_null());
	json_object_set_new(ev, "bytes_sent", json_integer(c != NULL ?
	    (json_int_t)c->up.bytes : 0));
	json_object_set_new(ev, "bytes_received", json_integer(c != NULL ?
	    (json_int_t)c->down.bytes : 0));
	json_object_set_new(ev, "duration_ms", json_integer(c != NULL ?
	    (json_int_t)(broker_ms() - c->t0) : 0));
	record_events(r, &ev, 1, "egress record");
}

static void
broker_event(struct broker *b, const struct conn *c)
{
	event(b, c, c->status, c->why);
}

void
broker_event_away(struct broker *b, int status, const char *why)
{
	event(b, NULL, status, why);
}

static const char *
reason_phrase(int status)
{
	switch (status) {
	case 400: return "Bad Request";
	case 403: return "Forbidden";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 414: return "URI Too Long";
	case 431: return "Request Header Fields Too Large";
	case 502: return "Bad Gateway";
	case 503: return "Service Unavailable";
	case 504: return "Gateway Timeout";
	default: return "Error";
	}
}

/* Poll fd for ev (0: not at all) when that changes. */
static void
watch(struct broker *b, size_t i, int up, uint32_t ev)
{
	struct conn *c = b->conn[i];
	uint32_t *cur = up ? &c->uev : &c->cev;
	int fd = up ? c->ufd : c->cfd;

	if (fd == -1 || *cur == ev)
		return;
	if (ev == 0) {
		loop_unwatch(fd);
		*cur = 0;
		return;
	}
	/* loop_watch adds fd, or changes its events when it is polled. */
	if (loop_watch(b->s, fd, TAG_CONN(i, up), ev) == -1) {
		warning_sys("egress: poll a connection");
		return;
	}
	*cur = ev;
}

static void
close_fd(int *fd)
{
	if (*fd != -1)
		close(*fd);
	*fd = -1;
}

/* The destination's socket closed, out of the loop first (a closed
 * descriptor still polled would keep its place in the loop's budget). */
static void
close_up(struct broker *b, size_t i)
{
	watch(b, i, 1, 0);
	close_fd(&b->conn[i]->ufd);
}

/* Whether the payload's TLS client gave up during the handshake of a
 * CONNECT tunnel (egress_tls_gave_up): it sent a ClientHello, received the
 * server's first flight, then sent nothing but ChangeCipherSpec and an
 * alert, or closed while the destination was still open.
 * What a client does when it does not trust the certificate's issuer
 * (an intercepting proxy's CA, a self-signed server). */
static int
tls_gave_up(const struct conn *c)
{
	return c->rq.kind == EGRESS_CONNECT && c->verdict == CV_ALLOWED &&
	    egress_tls_gave_up(&c->up.tw, c->down.bytes);
}

/* The --egress that would allow host:port (an IPv6 literal bracketed). */
static void
grant_of(struct conn *c, const char *host, unsigned port)
{
	snprintf(c->grant, sizeof(c->grant), strchr(host, ':') ?
	    "--egress [%s]:%u" : "--egress %s:%u", host, port);
}

static void forward(struct broker *b, size_t i);

/* c's line on stderr, once: a refusal, or why a connection failed. */
static void
say(struct broker *b, struct conn *c)
{
	if (c->said || !c->have_rq)
		return;
	c->said = 1;
	if (c->verdict == CV_REFUSED)
		brokersay_refused(&b->st, c);
	else
		brokersay_failed(&b->st, c);
}

void
broker_end(struct broker *b, size_t i, const char *why)
{
	struct conn *c = b->conn[i];

	if (c == NULL)
		return;
	/* At the run's end, what the payload sent before it ended is read
	 * once more, without waiting: a TLS client's last alert or close
	 * may not have reached the loop yet. */
	if (why != NULL && c->st == C_RELAY && c->up.tw.on && !c->up.dead) {
		forward(b, i);
		if ((c = b->conn[i]) == NULL)
			return;		/* it ended there, said as it ends */
	}
	if (tls_gave_up(c))
		snprintf(c->why, sizeof(c->why), "TLS: the payload closed "
		    "after the server's certificates, likely not trusting "
		    "their CA (an intercepting proxy?): --ro CA.pem --setenv "
		    "NODE_EXTRA_CA_CERTS=CA.pem (node) or SSL_CERT_FILE=CA.pem");
	else if (why != NULL && c->why[0] == '\0')
		snprintf(c->why, sizeof(c->why), "%s", why);
	/* Said before the payload's side closes: its own error about
	 * this connection comes after the cause (idle and the run's end
	 * are not said). */
	if (c->verdict == CV_REFUSED || (c->why[0] != '\0' &&
	    (tls_gave_up(c) || c->verdict == CV_FAILED ||
	    (c->verdict == CV_ALLOWED && why == NULL))))
		say(b, c);
	watch(b, i, 0, 0);
	watch(b, i, 1, 0);
	relay_return(&b->pool, &c->up);
	relay_return(&b->pool, &c->down);
	close_fd(&c->cfd);
	close_fd(&c->ufd);
	close_fd(&c->up.pipe[0]);
	close_fd(&c->up.pipe[1]);
	close_fd(&c->down.pipe[0]);
	close_fd(&c->down.pipe[1]);
	/* Counted in the end record, and an event: after the closes, so
	 * that a confexec out of descriptors can still open its journal. */
	if (c->verdict == CV_ALLOWED)
		b->st.allowed++;
	else
		b->st.refused++;
	broker_event(b, c);
	free(c);
	b->conn[i] = NULL;
	b->nconn--;
}

/* Answer status with a one-line reason, then close (C_REFUSE). */
static void
refuse(struct broker *b, size_t i, enum cverdict v, int status,
    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void
refuse(struct broker *b, size_t i, enum cverdict v, int status,
    const char *fmt, ...)
{
	struct conn *c = b->conn[i];
	char body[300];
	va_list ap;
	int n;

	va_start(ap, fmt);
	vsnprintf(c->why, sizeof(c->why), fmt, ap);
	va_end(ap);
	c->verdict = v;
	c->status = status;
	c->last = broker_ms();
	say(b, c);		/* before the payload can read the answer */
	n = snprintf(body, sizeof(body), "confexec egress: %s\n", c->why);
	if (n < 0 || (size_t)n >= sizeof(body))
		n = (int)sizeof(body) - 1;
	c->down.len = (size_t)snprintf(c->reply, sizeof(c->reply),
	    "HTTP/1.1 %d %s\r\nContent-Type: text/plain\r\n"
	    "Content-Length: %d\r\nConnection: close\r\n\r\n%s", status,
	    reason_phrase(status), n, body);
	if (c->down.len >= sizeof(c->reply))
		c->down.len = sizeof(c->reply) - 1;
	c->down.buf = c->reply;
	c->down.off = 0;
	close_up(b, i);
	c->st = C_REFUSE;
	watch(b, i, 0, EPOLLOUT);
}

/* C_REFUSE: the answer out, then the end. */
static void
refuse_write(struct broker *b, size_t i)
{
	struct conn *c = b->conn[i];
	ssize_t n;

	while (c->down.off < c->down.len) {
		n = write(c->cfd, c->down.buf + c->down.off,
		    c->down.len - c->down.off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return;
		if (n <= 0)
			break;
		c->down.off += (size_t)n;
	}
	shutdown(c->cfd, SHUT_WR);
	broker_end(b, i, NULL);
}

void
broker_accept(struct broker *b, int fd)
{
	struct conn *c;
	size_t i;

	for (i = 0; i < BROKER_MAXCONN && b->conn[i] != NULL; i++)
		;
	c = i < BROKER_MAXCONN ? calloc(1, sizeof(*c)) : NULL;
	if (c != NULL && (relay_sock_size(fd, SO_RCVBUFFORCE, SO_RCVBUF,
	    RELAY_MIN) == -1 || relay_sock_size(fd, SO_SNDBUFFORCE,
	    SO_SNDBUF, RELAY_MIN) == -1)) {
		/* Its memory could not be bounded: refused. */
		free(c);
		close(fd);
		b->st.refused++;
		broker_event_away(b, 0, "its buffer sizes cannot be set");
		return;
	}
	if (c == NULL) {
		static const char busy[] = "HTTP/1.1 503 Service Unavailable"
		    "\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";

		/* Counted, and an event like every connection. */
		(void)!write(fd, busy, sizeof(busy) - 1);
		close(fd);
		b->st.refused++;
		broker_event_away(b, 503, "more than " BROKER_MAXCONN_TEXT
		    " connections at once");
		return;
	}
	c->cfd = fd;
	c->ufd = -1;
	c->up.pipe[0] = c->up.pipe[1] = -1;
	c->down.pipe[0] = c->down.pipe[1] = -1;
	c->gen = ++b->gen;
	c->t0 = c->last = broker_ms();
	c->deadline = c->t0 + BROKER_HEAD_MS;
	c->st = C_HEAD;
	b->conn[i] = c;
	b->nconn++;
	watch(b, i, 0, EPOLLIN);
}


/* ---- connecting ---- */

static socklen_t
sa_len(const struct sockaddr_storage *a)
{
	return a->ss_family == AF_INET ? sizeof(struct sockaddr_in) :
	    sizeof(struct sockaddr_in6);
}

static void
sa_name(const struct sockaddr_storage *a, char *buf, size_t size)
{
	const void *p = a->ss_family == AF_INET ?
	    (const void *)&((const struct sockaddr_in *)a)->sin_addr :
	    (const void *)&((const struct sockaddr_in6 *)a)->sin6_addr;

	if (plan_ip_text(a->ss_family, p, buf, size) == NULL)
		snprintf(buf, size, "?");
}


/* Start a connect to the next kept address; refuse when none is left
 * (err: the last failure). */
static void
connect_next(struct broker *b, size_t i, int err)
{
	struct conn *c = b->conn[i];
	struct sockaddr_storage *a;

	close_up(b, i);
	while (c->next < c->naddr) {
		a = &c->addr[c->next++];
		sa_name(a, c->address, sizeof(c->address));
		c->ufd = socket(a->ss_family, SOCK_STREAM | SOCK_NONBLOCK |
		    SOCK_CLOEXEC, 0);
		if (c->ufd == -1) {
			err = errno;
			continue;
		}
		if (connect(c->ufd, (struct sockaddr *)a, sa_len(a)) == 0 ||
		    errno == EINPROGRESS) {
			c->st = C_CONNECT;
			watch(b, i, 0, 0);	/* the payload waits */
			watch(b, i, 1, EPOLLOUT);
			return;
		}
		err = errno;
		close_fd(&c->ufd);
	}
	refuse(b, i, CV_FAILED, 502, "connect %s port %u: %s", c->address,
	    (unsigned)c->rq.port, strerror(err));
}

/* The connect finished (EPOLLOUT on ufd): relay, or the next address. */
static void
connected(struct broker *b, size_t i)
{
	struct conn *c = b->conn[i];
	int err = 0;
	socklen_t len = sizeof(err);

	if (getsockopt(c->ufd, SOL_SOCKET, SO_ERROR, &err, &len) == -1)
		err = errno;
	if (err != 0) {
		connect_next(b, i, err);
		return;
	}
	if (pipe2(c->up.pipe, O_NONBLOCK | O_CLOEXEC) == -1 ||
	    pipe2(c->down.pipe, O_NONBLOCK | O_CLOEXEC) == -1) {
		refuse(b, i, CV_FAILED, 502, "pipe: %s", strerror(errno));
		return;
	}
	/* Each direction at its least share: sizes left as the kernel
	 * made them would grow by autotuning, past the bound. */
	c->up.share = c->down.share = RELAY_MIN;
	if (relay_set(&c->up, 1, c->cfd, c->ufd, RELAY_MIN) == -1 ||
	    relay_set(&c->down, 0, c->cfd, c->ufd, RELAY_MIN) == -1) {
		refuse(b, i, CV_FAILED, 502, "buffer sizes: %s",
		    strerror(errno));
		return;
	}
	c->verdict = CV_ALLOWED;
	c->status = 200;
	c->up.count_buf = 1;	/* the payload's bytes; down: our 200 */
	c->st = C_RELAY;
	c->last = broker_ms();
	if (c->rq.kind == EGRESS_CONNECT) {
		/* Early bytes (sent before our 200) are not watched. */
		c->up.tw.on = c->hlen == c->rq.head_len;
		c->down.buf = ESTABLISHED;
		c->down.len = sizeof(ESTABLISHED) - 1;
		c->up.buf = c->head + c->rq.head_len;	/* early bytes */
		c->up.len = c->hlen - c->rq.head_len;
	} else {
		/* The rewritten head, then the body bytes that came with
		 * it (out has room: both fit in EGRESS_MAX_HEAD + 64). */
		memcpy(c->out + c->rq.out_len, c->head + c->rq.head_len,
		    c->hlen - c->rq.head_len);
		c->up.buf = c->out;
		c->up.len = c->rq.out_len + c->hlen - c->rq.head_len;
	}
	forward(b, i);
}

/* Keep the addresses that may be reached: public ones, and the others
 * only when the list names that IP literal on this port.  Refuse with
 * what was dropped when none is left. */
static void
resolved(struct broker *b, size_t i, int gai,
    const struct sockaddr_storage *a, size_t n)
{
	struct conn *c = b->conn[i];
	char name[INET6_ADDRSTRLEN], dropped[200] = "";
	const struct plan *p = &b->r->p;
	const char *why;
	size_t k, used = 0;

	if (c == NULL || c->st != C_RESOLVE)
		return;
	if (gai != 0) {
		refuse(b, i, CV_FAILED, 502, "cannot resolve %s: %s",
		    c->rq.host, gai == RESOLVER_LOST ? "the resolver ended" :
		    gai_strerror(gai));
		return;
	}
	c->naddr = 0;
	b->rtport = c->rq.port;
	for (k = 0; k < n && c->naddr < BROKER_NADDR; k++) {
		sa_name(&a[k], name, sizeof(name));
		why = egress_addr_why((const struct sockaddr *)&a[k],
		    &b->self);
		/* Never an unspecified address, whatever the list says (its
		 * rules refuse one; this holds whatever a name gives). */
		if (why != NULL && (egress_addr_unspecified((const struct
		    sockaddr *)&a[k]) || egress_match(p->egress, p->negress,
		    name, c->rq.port) < 0)) {
			/* The first that listing its literal would allow. */
			if (c->grant[0] == '\0' && !egress_addr_unspecified(
			    (const struct sockaddr *)&a[k]))
				grant_of(c, name, c->rq.port);
			if (used < sizeof(dropped))
				used += (size_t)snprintf(dropped + used,
				    sizeof(dropped) - used, "%s%s (%s)",
				    used ? ", " : "", name, why);
			continue;
		}
		c->addr[c->naddr++] = a[k];
	}
	if (c->naddr == 0) {
		refuse(b, i, CV_REFUSED, 403, "%s resolves only to addresses "
		    "refused unless listed as IP literals: %s", c->rq.host,
		    dropped[0] ? dropped : "none");
		return;
	}
	c->next = 0;
	connect_next(b, i, EHOSTUNREACH);
}

void
broker_answered(void *ctx, uint32_t slot, uint32_t gen, int gai,
    struct sockaddr_storage *a, size_t n)
{
	struct broker *b = ctx;
	struct conn *c;
	size_t k;

	if (slot >= BROKER_MAXCONN || (c = b->conn[slot]) == NULL ||
	    c->gen != gen)
		return;		/* that connection is gone */
	for (k = 0; k < n; k++)
		if (a[k].ss_family == AF_INET)
			((struct sockaddr_in *)&a[k])->sin_port =
			    htons(c->rq.port);
		else
			((struct sockaddr_in6 *)&a[k])->sin6_port =
			    htons(c->rq.port);
	resolved(b, slot, gai, a, n);
}

void
broker_resolver(struct broker *b)
{
	size_t i;

	if (resolver_read(&b->res) == 0)
		return;
	for (i = 0; i < BROKER_MAXCONN; i++)
		if (b->conn[i] != NULL && b->conn[i]->st == C_RESOLVE)
			resolved(b, i, RESOLVER_LOST, NULL, 0);
}

/* A literal request on the list: its one address.  A name: ask. */
static void
decide(struct broker *b, size_t i)
{
	struct conn *c = b->conn[i];
	const struct plan *p = &b->r->p;
	struct sockaddr_in *sin = (struct sockaddr_in *)&c->addr[0];
	struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&c->addr[0];

	if (egress_match(p->egress, p->negress, c->rq.host, c->rq.port) < 0) {
		grant_of(c, c->rq.host, c->rq.port);
		refuse(b, i, CV_REFUSED, 403, "%s port %u is not on this "
		    "run's egress list", c->rq.host, (unsigned)c->rq.port);
		return;
	}
	c->deadline = broker_ms() + BROKER_CONNECT_MS;
	watch(b, i, 0, 0);
	if (!c->rq.is_literal) {
		c->st = C_RESOLVE;
		if (resolver_ask(&b->res, (uint32_t)i, c->gen, c->rq.host) ==
		    -1)
			refuse(b, i, CV_FAILED, 502, "cannot resolve %s: the "
			    "resolver cannot be started", c->rq.host);
		return;
	}
	memset(&c->addr[0], 0, sizeof(c->addr[0]));
	if (inet_pton(AF_INET, c->rq.host, &sin->sin_addr) == 1) {
		sin->sin_family = AF_INET;
		sin->sin_port = htons(c->rq.port);
	} else if (inet_pton(AF_INET6, c->rq.host, &sin6->sin6_addr) == 1) {
		sin6->sin6_family = AF_INET6;
		sin6->sin6_port = htons(c->rq.port);
	} else {
		refuse(b, i, CV_REFUSED, 400, "%s: not an address",
		    c->rq.host);
		return;
	}
	if (egress_addr_unspecified((struct sockaddr *)&c->addr[0])) {
		refuse(b, i, CV_REFUSED, 403, "%s: the unspecified address "
		    "is this host, never a destination", c->rq.host);
		return;
	}
	/* Listed as this literal: the guard does not apply. */
	c->naddr = 1;
	c->next = 0;
	connect_next(b, i, EHOSTUNREACH);
}

/* Whether the head of len bytes, the last n of them new, has a blank
 * line ending it or a bare LF: only the new bytes and the 3 before. */
static int
head_ready(const char *h, size_t len, size_t n)
{
	size_t k = len - n > 3 ? len - n - 3 : 0;

	for (; k < len; k++) {
		if (h[k] != '\n')
			continue;
		if (k == 0 || h[k - 1] != '\r')
			return 1;
		if (k >= 3 && h[k - 2] == '\n' && h[k - 3] == '\r')
			return 1;
	}
	return 0;
}

/* C_HEAD: read what came, parse it. */
static void
read_head(struct broker *b, size_t i)
{
	struct conn *c = b->conn[i];
	char why[200];
	ssize_t n;
	int st = 400, ret;

	n = read(c->cfd, c->head + c->hlen, sizeof(c->head) - c->hlen);
	if (n == -1 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		c->verdict = CV_REFUSED;
		broker_end(b, i, n == 0 ? "closed before a request" :
		    strerror(errno));
		return;
	}
	c->hlen += (size_t)n;
	/* Parsed once the head can be judged: its blank line, a bare LF
	 * (refused), or a full buffer.  Each byte is looked at once here,
	 * however slowly the head comes. */
	if (!head_ready(c->head, c->hlen, (size_t)n) &&
	    c->hlen < sizeof(c->head))
		return;
	why[0] = '\0';
	/* out keeps room for the body bytes that came with the head. */
	ret = egress_parse(c->head, c->hlen, &c->rq, c->out,
	    EGRESS_MAX_HEAD + 64, &st, why, sizeof(why));
	if (ret == 0 && c->hlen < sizeof(c->head))
		return;
	if (ret == 0) {
		st = 431;
		snprintf(why, sizeof(why), "request head over %u bytes",
		    (unsigned)EGRESS_MAX_HEAD);
	}
	if (ret != 1) {
		refuse(b, i, CV_REFUSED, st, "%s", why[0] ? why :
		    "malformed request");
		return;
	}
	c->have_rq = 1;
	decide(b, i);
}

/* ---- relaying ---- */

/* Whether bytes of the payload's request are still to go: in the
 * broker's buffer or pipe, or waiting on the payload's socket. */
static int
unsent(const struct conn *c)
{
	int n = 0;

	if (c->up.off < c->up.len || c->up.pend > 0)
		return 1;
	return ioctl(c->cfd, FIONREAD, &n) == 0 && n > 0;
}

static void
forward(struct broker *b, size_t i)
{
	struct conn *c = b->conn[i];
	int u, d;

	u = c->up.dead ? 0 : relay_pump(&c->up, c->cfd, c->ufd, &c->last);
	if ((c->up.eof || c->up.src_failed) && !c->down.eof)
		c->up.tw.closed_first = 1;
	relay_grow(&b->pool, &c->up, 1, c->cfd, c->ufd);
	if (u == -1) {
		/* The destination stopped taking bytes (an early answer, a
		 * reset): what it sent still goes to the payload. */
		if (c->why[0] == '\0')
			snprintf(c->why, sizeof(c->why), "relaying to the "
			    "destination: %s", strerror(errno));
		c->up.dead = 1;
		u = 0;
	}
	d = relay_pump(&c->down, c->ufd, c->cfd, &c->last);
	relay_grow(&b->pool, &c->down, 0, c->cfd, c->ufd);
	if (d == -1) {
		if (c->why[0] == '\0')
			snprintf(c->why, sizeof(c->why), "relaying from the "
			    "destination: %s", strerror(errno));
		broker_end(b, i, NULL);
		return;
	}
	/* Done both ways; or, for a plain HTTP request (Connection:
	 * close), once the answer is through: nothing is left to carry.
	 * An answer that ended while the payload was still sending (bytes
	 * of its request waiting) is said, as a failed send is. */
	if ((u == 0 && d == 0) || (d == 0 && c->rq.kind == EGRESS_HTTP)) {
		if (u != 0 && c->why[0] == '\0' && unsent(c))
			snprintf(c->why, sizeof(c->why), "relaying to the "
			    "destination: it answered and closed before the "
			    "request was through");
		broker_end(b, i, NULL);
		return;
	}
	/* Level-triggered: a source left ready (bit 4) fires again. */
	watch(b, i, 0, (u & 1 ? EPOLLIN : 0) | (d & 2 ? EPOLLOUT : 0));
	watch(b, i, 1, (d & 1 ? EPOLLIN : 0) | (u & 2 ? EPOLLOUT : 0));
}

void
broker_io(struct broker *b, size_t i, int up, uint32_t events)
{
	struct conn *c = b->conn[i];

	if (c == NULL)
		return;
	switch (c->st) {
	case C_HEAD:
		if (!up)
			read_head(b, i);
		break;
	case C_CONNECT:
		if (up)
			connected(b, i);
		break;
	case C_REFUSE:
		if (!up)
			refuse_write(b, i);
		break;
	case C_RELAY:
		forward(b, i);
		break;
	default:
		/* C_RESOLVE polls nothing */
		(void)events;
		break;
	}
}

void
broker_tick(struct broker *b, size_t i, uint64_t now)
{
	struct conn *c = b->conn[i];

	if (c == NULL)
		return;
	switch (c->st) {
	case C_HEAD:
		if (now >= c->deadline)
			refuse(b, i, CV_REFUSED, 408, "no complete request "
			    "in %u ms", (unsigned)BROKER_HEAD_MS);
		break;
	case C_RESOLVE:
	case C_CONNECT:
		if (now >= c->deadline)
			refuse(b, i, CV_FAILED, 504, "%s port %u: no "
			    "connection in %u ms", c->rq.host,
			    (unsigned)c->rq.port, (unsigned)BROKER_CONNECT_MS);
		break;
	case C_RELAY:
		if (now - c->last >= BROKER_IDLE_MS) {
			broker_end(b, i, "idle");
			break;
		}
		relay_shrink(&b->pool, &c->up, 1, c->cfd, c->ufd, now);
		relay_shrink(&b->pool, &c->down, 0, c->cfd, c->ufd, now);
		break;
	case C_REFUSE:
		if (now - c->last >= BROKER_HEAD_MS)
			broker_end(b, i, NULL);
		break;
	default:
		break;
	}
}
