/* SPDX-License-Identifier: ISC */
/* egress: the proxy request head of egress.h (RFC 9112 request line and
 * header fields, RFC 9110 section 9.3.6 CONNECT), strictly: one shape of
 * each thing is accepted, everything else is refused with a status and a
 * fixed reason (never an echo of the client's bytes).  The list match and
 * the address guard are in egressaddr.c. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "egress.h"

#define MAX_HEADERS	100	/* header fields of one request */
#define MAX_CONN_OPTS	32	/* options named by Connection headers */
#define MAX_CL_DIGITS	18	/* a Content-Length below 10^18 */

/* One piece of buf. */
struct span {
	const char *p;
	size_t n;
};

/* What the parse has learnt so far, line by line. */
struct pstate {
	struct egress_req *rq;
	struct span method, version;
	struct span path;	/* EGRESS_HTTP: after the authority, may be
				 * empty or start with '?' */
	size_t nhdr;
	int ncl;		/* Content-Length fields */
	int nte;		/* Transfer-Encoding fields */
	struct span te_last;	/* the last coding of the last one */
	struct span opt[MAX_CONN_OPTS];	/* what Connection names */
	size_t nopt;
	int status;
	const char *why;
};

static int
fail(struct pstate *st, int status, const char *why)
{
	st->status = status;
	st->why = why;
	return -1;
}

/* tchar of RFC 9110 section 5.6.2. */
static int
is_tchar(unsigned char c)
{
	if ((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') ||
	    (c >= 'A' && c <= 'Z'))
		return 1;
	return c != '\0' && strchr("!#$%&'*+-.^_`|~", c) != NULL;
}

static int
is_token(const char *p, size_t n)
{
	size_t i;

	if (n == 0)
		return 0;
	for (i = 0; i < n; i++)
		if (!is_tchar((unsigned char)p[i]))
			return 0;
	return 1;
}

static int
span_is(struct span s, const char *lit)
{
	return s.n == strlen(lit) && memcmp(s.p, lit, s.n) == 0;
}

static int
span_case(struct span s, const char *lit)
{
	return s.n == strlen(lit) && strncasecmp(s.p, lit, s.n) == 0;
}

static const char *
mem_find(const char *p, size_t n, char c)
{
	return memchr(p, c, n);
}

/* ---- the host and port of a target ---- */

/* Digits only, 1..65535. */
static int
parse_port(struct span s, uint16_t *port)
{
	unsigned long v = 0;
	size_t i;

	if (s.n == 0 || s.n > 5)
		return -1;
	for (i = 0; i < s.n; i++) {
		if (s.p[i] < '0' || s.p[i] > '9')
			return -1;
		v = v * 10 + (unsigned long)(s.p[i] - '0');
	}
	if (v == 0 || v > 65535)
		return -1;
	*port = (uint16_t)v;
	return 0;
}

/* A host name of labels [a-z0-9-], each 1..63 bytes and neither starting
 * nor ending with '-', lowercased into host.  Refused too: a name that a
 * resolver would read as a number ("127.1", "0x7f.1", "2130706433",
 * inet_aton(3)), and any name whose last label is all digits (no top
 * level domain is): they must never reach getaddrinfo. */
static int
parse_name(struct pstate *st, struct span s, char *host)
{
	size_t i, lab = 0, labstart = 0;
	struct in_addr a;
	int digits = 1;

	if (s.n > PLAN_MAX_HOST_LEN)
		return fail(st, 400, "host name too long");
	if (s.p[s.n - 1] == '.')
		return fail(st, 400, "trailing dot in host name");
	for (i = 0; i <= s.n; i++) {
		unsigned char c = i < s.n ? (unsigned char)s.p[i] : '.';

		if (c == '.') {
			if (lab == 0)
				return fail(st, 400, "empty label in host name");
			if (host[i - 1] == '-' || host[labstart] == '-')
				return fail(st, 400,
				    "host label starts or ends with '-'");
			if (i < s.n) {
				host[i] = '.';
				lab = 0;
				labstart = i + 1;
				digits = 1;
			}
			continue;
		}
		if (c >= 'A' && c <= 'Z')
			c = (unsigned char)(c - 'A' + 'a');
		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    c == '-'))
			return fail(st, 400, "bad character in host name");
		if (c < '0' || c > '9')
			digits = 0;
		if (++lab > 63)
			return fail(st, 400, "host label over 63 bytes");
		host[i] = (char)c;
	}
	host[s.n] = '\0';
	if (digits || inet_aton(host, &a) != 0)
		return fail(st, 400, "host not a canonical address");
	return 0;
}

/* An IP literal: IPv4 dotted quad (inet_pton's strict form) or, when
 * bracketed, IPv6; written back in RFC 5952's form (plan_ip_text).  Returns 1 when
 * s is a literal, 0 when it is not, -1 when bracketed but not IPv6. */
static int
parse_literal(struct pstate *st, struct span s, int bracketed, char *host)
{
	char tmp[INET6_ADDRSTRLEN];
	unsigned char a[16];
	int af = bracketed ? AF_INET6 : AF_INET;

	if (s.n >= sizeof(tmp)) {
		if (bracketed)
			return fail(st, 400, "bad IPv6 literal");
		return 0;
	}
	memcpy(tmp, s.p, s.n);
	tmp[s.n] = '\0';
	if (inet_pton(af, tmp, a) != 1) {
		if (bracketed)
			return fail(st, 400, "bad IPv6 literal");
		return 0;
	}
	if (plan_ip_text(af, a, host, PLAN_MAX_HOST_LEN + 1) == NULL)
		return fail(st, 400, "bad IP literal");
	return 1;
}

/* authority = host [":" port]; host a name, an IPv4 literal or a
 * bracketed IPv6 literal.  No userinfo. */
static int
parse_authority(struct pstate *st, struct span a, int need_port)
{
	struct egress_req *rq = st->rq;
	struct span host, port = { NULL, 0 };
	const char *end = a.p + a.n, *c;
	int has_port = 0, bracketed = 0, r;

	if (mem_find(a.p, a.n, '@') != NULL)
		return fail(st, 400, "userinfo in the request target");
	if (a.n > 0 && a.p[0] == '[') {
		c = mem_find(a.p, a.n, ']');
		if (c == NULL)
			return fail(st, 400, "unterminated IPv6 literal");
		host = (struct span){ a.p + 1, (size_t)(c - a.p - 1) };
		bracketed = 1;
		c++;
		if (c < end && *c != ':')
			return fail(st, 400, "bytes after an IPv6 literal");
	} else {
		c = mem_find(a.p, a.n, ':');
		host = (struct span){ a.p, c ? (size_t)(c - a.p) : a.n };
	}
	if (c != NULL && c < end) {
		has_port = 1;
		port = (struct span){ c + 1, (size_t)(end - c - 1) };
	}
	if (host.n == 0)
		return fail(st, 400, "empty host in the request target");
	if (has_port && port.n == 0)
		return fail(st, 400, "empty port in the request target");
	if (has_port && parse_port(port, &rq->port) == -1)
		return fail(st, 400, "bad port in the request target");
	if (!has_port) {
		if (need_port)
			return fail(st, 400, "CONNECT target without a port");
		rq->port = 80;
	}
	if ((r = parse_literal(st, host, bracketed, rq->host)) == -1)
		return -1;
	if (r == 1) {
		rq->is_literal = 1;
		return 0;
	}
	return parse_name(st, host, rq->host);
}

/* ---- the request line ---- */

/* RFC 9112 section 3.2.2: absolute-form, http only; https goes through
 * CONNECT (the broker never sees inside TLS). */
static int
parse_absolute(struct pstate *st, struct span t)
{
	const char *sep, *end = t.p + t.n, *p;
	struct span scheme;
	size_t i;

	if (t.n > 0 && (t.p[0] == '/' || span_is(t, "*")))
		return fail(st, 400, "not a proxy request (origin-form target)");
	sep = memmem(t.p, t.n, "://", 3);
	if (sep == NULL || sep == t.p)
		return fail(st, 400, "malformed request target");
	scheme = (struct span){ t.p, (size_t)(sep - t.p) };
	for (i = 0; i < scheme.n; i++) {
		unsigned char c = (unsigned char)scheme.p[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (i > 0 && ((c >= '0' && c <= '9') || c == '+' ||
		    c == '-' || c == '.'))))
			return fail(st, 400, "malformed URL scheme");
	}
	if (span_case(scheme, "https"))
		return fail(st, 405, "use CONNECT for https");
	if (!span_case(scheme, "http"))
		return fail(st, 405, "URL scheme not proxied");
	if (mem_find(t.p, t.n, '#') != NULL)
		return fail(st, 400, "fragment in the request target");
	for (p = sep + 3; p < end && *p != '/' && *p != '?'; p++)
		;
	st->path = (struct span){ p, (size_t)(end - p) };
	return parse_authority(st,
	    (struct span){ sep + 3, (size_t)(p - sep - 3) }, 0);
}

static const char *const proxied[] = {
	"GET", "HEAD", "POST", "PUT", "DELETE", "PATCH", "OPTIONS",
};

/* method SP request-target SP HTTP-version, visible ASCII only. */
static int
parse_reqline(struct pstate *st, const char *s, size_t n)
{
	const char *sp1, *sp2;
	struct span target;
	size_t i;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c < 0x20 || c == 0x7f)
			return fail(st, 400, "control byte in the request line");
		if (c >= 0x80)
			return fail(st, 400, "non-ASCII byte in the request line");
	}
	sp1 = mem_find(s, n, ' ');
	sp2 = sp1 ? mem_find(sp1 + 1, n - (size_t)(sp1 + 1 - s), ' ') : NULL;
	if (sp1 == NULL || sp2 == NULL || sp1 == s || sp2 == sp1 + 1 ||
	    sp2 + 1 == s + n ||
	    mem_find(sp2 + 1, n - (size_t)(sp2 + 1 - s), ' ') != NULL)
		return fail(st, 400, "malformed request line");
	st->method = (struct span){ s, (size_t)(sp1 - s) };
	target = (struct span){ sp1 + 1, (size_t)(sp2 - sp1 - 1) };
	st->version = (struct span){ sp2 + 1, n - (size_t)(sp2 + 1 - s) };
	if (!is_token(st->method.p, st->method.n))
		return fail(st, 400, "method not a token");
	if (!span_is(st->version, "HTTP/1.1") &&
	    !span_is(st->version, "HTTP/1.0"))
		return fail(st, 400, "not an HTTP/1.1 or HTTP/1.0 request");
	if (span_is(st->method, "CONNECT")) {
		st->rq->kind = EGRESS_CONNECT;
		return parse_authority(st, target, 1);
	}
	for (i = 0; i < sizeof(proxied) / sizeof(proxied[0]); i++)
		if (span_is(st->method, proxied[i])) {
			st->rq->kind = EGRESS_HTTP;
			return parse_absolute(st, target);
		}
	return fail(st, 405, "method not proxied");
}

/* ---- header fields ---- */

static struct span
trim(struct span s)
{
	while (s.n > 0 && (s.p[0] == ' ' || s.p[0] == '\t')) {
		s.p++;
		s.n--;
	}
	while (s.n > 0 && (s.p[s.n - 1] == ' ' || s.p[s.n - 1] == '\t'))
		s.n--;
	return s;
}

/* Split a comma list (RFC 9110 section 5.6.1), calling fn on each
 * non-empty trimmed element; stops at fn's -1. */
static int
each_elem(struct pstate *st, struct span v,
    int (*fn)(struct pstate *, struct span))
{
	const char *p = v.p, *end = v.p + v.n, *c;
	struct span e;

	for (;;) {
		c = mem_find(p, (size_t)(end - p), ',');
		if (c == NULL)
			c = end;
		e = trim((struct span){ p, (size_t)(c - p) });
		if (e.n > 0 && fn(st, e) == -1)
			return -1;
		if (c == end)
			return 0;
		p = c + 1;
	}
}

static int
conn_opt(struct pstate *st, struct span e)
{
	if (!is_token(e.p, e.n))
		return fail(st, 400, "malformed Connection header");
	if (span_case(e, "content-length") ||
	    span_case(e, "transfer-encoding"))
		return fail(st, 400, "Connection names a framing header");
	if (st->nopt == MAX_CONN_OPTS)
		return fail(st, 400, "too many Connection options");
	st->opt[st->nopt++] = e;
	return 0;
}

static int
te_coding(struct pstate *st, struct span e)
{
	st->te_last = e;
	return 0;
}

/* One field line: name ":" OWS value OWS (RFC 9112 section 5). */
static int
parse_field(struct pstate *st, const char *s, size_t n)
{
	struct span name, val;
	const char *colon;
	size_t i;

	if (s[0] == ' ' || s[0] == '\t')
		return fail(st, 400, "obsolete line folding");
	if (++st->nhdr > MAX_HEADERS)
		return fail(st, 431, "too many header fields");
	colon = mem_find(s, n, ':');
	if (colon == NULL)
		return fail(st, 400, "header line without a colon");
	name = (struct span){ s, (size_t)(colon - s) };
	if (name.n == 0)
		return fail(st, 400, "empty header name");
	if (!is_token(name.p, name.n))
		return fail(st, 400, "header name not a token");
	val = (struct span){ colon + 1, n - name.n - 1 };
	for (i = 0; i < val.n; i++) {
		unsigned char c = (unsigned char)val.p[i];

		if ((c < 0x20 && c != '\t') || c == 0x7f)
			return fail(st, 400, "control byte in a header value");
	}
	val = trim(val);
	if (span_case(name, "content-length")) {
		if (++st->ncl > 1)
			return fail(st, 400, "more than one Content-Length");
		if (val.n == 0 || val.n > MAX_CL_DIGITS)
			return fail(st, 400, "bad Content-Length");
		for (i = 0; i < val.n; i++)
			if (val.p[i] < '0' || val.p[i] > '9')
				return fail(st, 400, "bad Content-Length");
	} else if (span_case(name, "transfer-encoding")) {
		st->nte++;
		st->te_last = (struct span){ NULL, 0 };
		(void)each_elem(st, val, te_coding);
	} else if (span_case(name, "connection"))
		return each_elem(st, val, conn_opt);
	return 0;
}

/* The checks that need every field (RFC 9112 section 6.1 and 6.3: what
 * would let the broker and the server disagree on where a body ends). */
static int
check_framing(struct pstate *st)
{
	if (st->nte == 0)
		return 0;
	if (st->ncl > 0)
		return fail(st, 400,
		    "both Transfer-Encoding and Content-Length");
	if (span_is(st->version, "HTTP/1.0"))
		return fail(st, 400, "Transfer-Encoding in an HTTP/1.0 request");
	if (!span_case(st->te_last, "chunked"))
		return fail(st, 400, "Transfer-Encoding not ending in chunked");
	return 0;
}

/* ---- the head sent upstream ---- */

struct outbuf {
	char *p;
	size_t size, len;
	int over;
};

static void
put(struct outbuf *o, const char *s, size_t n)
{
	if (o->over || n >= o->size - o->len) {
		o->over = 1;
		return;
	}
	memcpy(o->p + o->len, s, n);
	o->len += n;
	o->p[o->len] = '\0';
}

static void
put_str(struct outbuf *o, const char *s)
{
	put(o, s, strlen(s));
}

/* Hop-by-hop fields the upstream must not see (RFC 9110 section 7.6.1),
 * and Host, which is written from the checked URL instead. */
static int
dropped(const struct pstate *st, struct span name)
{
	size_t i;

	if (name.n >= 6 && strncasecmp(name.p, "proxy-", 6) == 0)
		return 1;
	if (span_case(name, "connection") || span_case(name, "keep-alive") ||
	    span_case(name, "host"))
		return 1;
	for (i = 0; i < st->nopt; i++)
		if (name.n == st->opt[i].n &&
		    strncasecmp(name.p, st->opt[i].p, name.n) == 0)
			return 1;
	return 0;
}

/* fields: the header lines of the head (each ending in CRLF), after the
 * request line and before the blank line. */
static int
rewrite(struct pstate *st, struct span fields, char *out, size_t outsize)
{
	const struct egress_req *rq = st->rq;
	struct outbuf o = { out, outsize, 0, out == NULL || outsize == 0 };
	const char *p = fields.p, *end = fields.p + fields.n, *eol, *colon;
	char port[8];

	put(&o, st->method.p, st->method.n);
	put_str(&o, " ");
	if (st->path.n == 0 || st->path.p[0] == '?')
		put_str(&o, "/");
	put(&o, st->path.p, st->path.n);
	put_str(&o, " ");
	put(&o, st->version.p, st->version.n);
	put_str(&o, "\r\nHost: ");
	put_str(&o, strchr(rq->host, ':') ? "[" : "");
	put_str(&o, rq->host);
	put_str(&o, strchr(rq->host, ':') ? "]" : "");
	if (rq->port != 80) {
		snprintf(port, sizeof(port), ":%u", (unsigned)rq->port);
		put_str(&o, port);
	}
	put_str(&o, "\r\n");
	/* every line here was judged whole: a name, a colon, CRLF */
	for (; p < end; p = eol + 2) {
		eol = memmem(p, (size_t)(end - p), "\r\n", 2);
		colon = mem_find(p, (size_t)(eol - p), ':');
		if (!dropped(st, (struct span){ p, (size_t)(colon - p) }))
			put(&o, p, (size_t)(eol + 2 - p));
	}
	put_str(&o, "Connection: close\r\n\r\n");
	if (o.over)
		return fail(st, 431, "request head too long once rewritten");
	st->rq->out_len = o.len;
	return 0;
}

/* ---- the head ---- */

/* Walk the lines of buf in order, judging each as soon as its CRLF
 * arrives, so that a refusal never depends on how the bytes were split:
 * any prefix of a head gives 0 or the answer the whole head gives. */
int
egress_parse(const char *buf, size_t len, struct egress_req *rq,
    char *out, size_t outsize, int *status, char *why, size_t whylen)
{
	struct pstate st = { .rq = rq };
	size_t lim = len < EGRESS_MAX_HEAD ? len : EGRESS_MAX_HEAD;
	size_t i, start = 0, fields = 0;
	int r = 0;

	memset(rq, 0, sizeof(*rq));
	if (out != NULL && outsize > 0)
		out[0] = '\0';
	for (i = 0; i < lim && r == 0; i++) {
		if (buf[i] == '\0') {
			r = fail(&st, 400, "NUL byte in the request head");
			break;
		}
		if (buf[i] == '\r' && i + 1 < lim && buf[i + 1] != '\n') {
			r = fail(&st, 400, "CR not followed by LF");
			break;
		}
		if (buf[i] != '\n')
			continue;
		if (i == 0 || buf[i - 1] != '\r') {
			r = fail(&st, 400, "bare LF in the request head");
			break;
		}
		if (start == 0) {
			if (parse_reqline(&st, buf, i - 1) == -1)
				r = -1;
			fields = i + 1;
		} else if (i - 1 == start) {
			rq->head_len = i + 1;
			if (check_framing(&st) == -1 ||
			    (rq->kind == EGRESS_HTTP &&
			    rewrite(&st, (struct span){ buf + fields,
			    start - fields }, out, outsize) == -1))
				r = -1;
			else
				r = 1;
		} else if (parse_field(&st, buf + start, i - 1 - start) == -1)
			r = -1;
		start = i + 1;
	}
	if (r == 0 && len >= EGRESS_MAX_HEAD)
		r = fail(&st, 431, "request head too long (no blank line)");
	if (r == 1)
		return 1;
	memset(rq, 0, sizeof(*rq));
	if (out != NULL && outsize > 0)
		out[0] = '\0';
	if (r == -1) {
		*status = st.status;
		if (whylen > 0)
			snprintf(why, whylen, "%s", st.why);
	}
	return r;
}

int
egress_tls_record(struct egress_tls *tw, const unsigned char *h, size_t n)
{
	size_t len;

	if (!tw->on)
		return 0;
	if (tw->records == EGRESS_TLS_RECORDS ||
	    n < (tw->records == 0 ? 6u : 5u))
		return tw->on = 0;
	len = (size_t)h[3] << 8 | h[4];
	if (tw->records == 0) {
		/* handshake (22), TLS 1.x, a ClientHello (1) */
		if (h[0] != 22 || h[1] != 3 || h[5] != 1)
			return tw->on = 0;
		tw->hello = 1;
	} else if (h[0] == 21 || (h[0] == 23 && len == 19)) {
		/* an alert; 23 of 19 bytes: TLS 1.3's encrypted one (2 +
		 * content type + 16-byte tag) */
		tw->alert = 1;
	} else if (h[0] != 20) {
		/* not ChangeCipherSpec: a Finished, a key exchange, data
		 * moves the handshake on */
		tw->moved_on = 1;
		return tw->on = 0;
	}
	tw->records++;
	tw->left = 5 + len;
	return 1;
}

int
egress_tls_gave_up(const struct egress_tls *tw, uint64_t server_bytes)
{
	return tw->hello && !tw->moved_on &&
	    server_bytes >= EGRESS_TLS_SERVER_FLIGHT &&
	    (tw->alert || tw->closed_first);
}
