/* SPDX-License-Identifier: ISC */
/* libFuzzer target: the egress broker's proxy request head, list match,
 * address guard and TLS handshake watch (common/egress). */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "egress.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

struct answer {
	int r, status;
	struct egress_req rq;
	char out[EGRESS_MAX_HEAD + 64];
	char why[128];
};

static struct answer whole, part;

static void
ask(struct answer *a, const uint8_t *data, size_t size)
{
	memset(a, 0, sizeof(*a));
	a->r = egress_parse((const char *)data, size, &a->rq, a->out,
	    sizeof(a->out), &a->status, a->why, sizeof(a->why));
}

/* A host as plan.h describes it: a lowercase name of labels [a-z0-9-]
 * (1..63 bytes, no '-' at either end, the last not all digits, nothing
 * inet_aton would read as an address), or an IP literal exactly as
 * plan_ip_text writes it (RFC 5952). */
static int
host_ok(const char *h, size_t size, int lit)
{
	unsigned char a[16];
	char back[INET6_ADDRSTRLEN];
	struct in_addr ia;
	size_t n, i, lab = 0;
	int af, digits = 1;

	if (memchr(h, '\0', size) == NULL)
		return 0;
	n = strlen(h);
	if (n == 0 || n > PLAN_MAX_HOST_LEN)
		return 0;
	if (lit) {
		af = strchr(h, ':') ? AF_INET6 : AF_INET;
		return inet_pton(af, h, a) == 1 &&
		    plan_ip_text(af, a, back, sizeof(back)) != NULL &&
		    strcmp(back, h) == 0;
	}
	if (inet_pton(AF_INET, h, a) == 1 || inet_pton(AF_INET6, h, a) == 1 ||
	    inet_aton(h, &ia) != 0)
		return 0;
	for (i = 0; i <= n; i++) {
		if (i == n || h[i] == '.') {
			if (lab == 0 || lab > 63 || h[i - 1] == '-' ||
			    h[i - lab] == '-')
				return 0;
			if (i < n) {
				lab = 0;
				digits = 1;
			}
			continue;
		}
		if (!((h[i] >= 'a' && h[i] <= 'z') ||
		    (h[i] >= '0' && h[i] <= '9') || h[i] == '-'))
			return 0;
		if (h[i] < '0' || h[i] > '9')
			digits = 0;
		lab++;
	}
	return !digits;
}

static void
check_accepted(const uint8_t *data, size_t size, const struct answer *a)
{
	const struct egress_req *rq = &a->rq;
	struct plan_egress l[2];
	const char *sp, *p;
	size_t mlen;

	if (rq->head_len < 4 || rq->head_len > size ||
	    rq->head_len > EGRESS_MAX_HEAD ||
	    memcmp(data + rq->head_len - 4, "\r\n\r\n", 4) != 0 ||
	    memmem(data, rq->head_len - 1, "\r\n\r\n", 4) != NULL)
		abort();
	if (!host_ok(rq->host, sizeof(rq->host), rq->is_literal) ||
	    rq->port == 0 || (rq->is_literal != 0 && rq->is_literal != 1))
		abort();
	/* the destination matches itself, and not another port */
	l[0] = (struct plan_egress){ (char *)rq->host,
	    (uint16_t)(rq->port == 65535 ? 1 : rq->port + 1) };
	l[1] = (struct plan_egress){ (char *)rq->host, rq->port };
	if (egress_match(l, 2, rq->host, rq->port) != 1 ||
	    egress_match(l, 1, rq->host, rq->port) != -1)
		abort();
	if (rq->kind == EGRESS_CONNECT) {
		if (rq->out_len != 0 || memcmp(data, "CONNECT ", 8) != 0)
			abort();
		return;
	}
	if (rq->kind != EGRESS_HTTP)
		abort();
	/* the upstream head: one line of request in origin form, Host
	 * first, Connection: close last, CRLF only */
	if (rq->out_len >= sizeof(a->out) || strlen(a->out) != rq->out_len ||
	    rq->out_len < 4 ||
	    strcmp(a->out + rq->out_len - 23, "\r\nConnection: close\r\n\r\n") !=
	    0)
		abort();
	sp = memchr(data, ' ', size);
	mlen = (size_t)(sp - (const char *)data);
	if (memcmp(a->out, data, mlen + 1) != 0 || a->out[mlen + 1] != '/')
		abort();
	p = strstr(a->out, "\r\n");
	if (p == NULL || strncmp(p, "\r\nHost: ", 8) != 0)
		abort();
	for (p = a->out; (p = strchr(p, '\n')) != NULL; p++)
		if (p == a->out || p[-1] != '\r')
			abort();
	for (p = a->out; *p != '\0'; p++)
		if (*p == '\r' && p[1] != '\n')
			abort();
}

static void
check_refused(size_t size, const struct answer *a)
{
	size_t i;

	if (a->status < 400 || a->status > 499 || a->why[0] == '\0')
		abort();
	for (i = 0; a->why[i] != '\0'; i++)
		if ((unsigned char)a->why[i] < 0x20 ||
		    (unsigned char)a->why[i] >= 0x7f)
			abort();
	/* the upstream head always fits the out buffer egress.h asks for:
	 * rewriting grows a head by a few dozen bytes at most */
	if (strstr(a->why, "rewritten") != NULL)
		abort();
	if (a->rq.kind != 0 || a->rq.head_len != 0 || a->rq.out_len != 0 ||
	    a->rq.host[0] != '\0' || a->out[0] != '\0')
		abort();
	(void)size;
}

/* A prefix of the bytes gives 0, or the very answer the whole gives. */
static void
check_prefix(const uint8_t *data, size_t k)
{
	ask(&part, data, k);
	if (part.r == 0)
		return;
	if (part.r != whole.r || part.status != whole.status ||
	    strcmp(part.why, whole.why) != 0 ||
	    part.rq.kind != whole.rq.kind ||
	    part.rq.head_len != whole.rq.head_len ||
	    part.rq.port != whole.rq.port ||
	    part.rq.is_literal != whole.rq.is_literal ||
	    strcmp(part.rq.host, whole.rq.host) != 0 ||
	    part.rq.out_len != whole.rq.out_len ||
	    strcmp(part.out, whole.out) != 0)
		abort();
	if (whole.r == 1 && k < whole.rq.head_len)
		abort();
}

static void
check_parse(const uint8_t *data, size_t size)
{
	size_t i, nlf = 0;

	ask(&whole, data, size);
	switch (whole.r) {
	case 1:
		check_accepted(data, size, &whole);
		break;
	case 0:
		if (size >= EGRESS_MAX_HEAD ||
		    memmem(data, size, "\r\n\r\n", 4) != NULL)
			abort();
		break;
	case -1:
		check_refused(size, &whole);
		break;
	default:
		abort();
	}
	/* split delivery: cut after each of the first LFs, just before the
	 * end and just before the blank line */
	for (i = 0; i < size && nlf < 16; i++)
		if (data[i] == '\n') {
			nlf++;
			check_prefix(data, i + 1 < size ? i + 1 : i);
		}
	if (size > 0)
		check_prefix(data, size - 1);
	if (whole.r == 1) {
		check_prefix(data, whole.rq.head_len - 1);
		check_prefix(data, whole.rq.head_len);
	}
	if (size > 0)
		check_prefix(data, data[0] * size / 256);
}

/* ---- the address guard ---- */

static const char *
why4(const uint8_t *a, const struct egress_self *self)
{
	struct sockaddr_in s = { .sin_family = AF_INET };

	memcpy(&s.sin_addr, a, 4);
	return egress_addr_why((struct sockaddr *)&s, self);
}

static const char *
why6(const uint8_t *a, const struct egress_self *self)
{
	struct sockaddr_in6 s = { .sin6_family = AF_INET6 };

	memcpy(&s.sin6_addr, a, 16);
	return egress_addr_why((struct sockaddr *)&s, self);
}

static void
check_why(const char *w)
{
	size_t i;

	if (w == NULL)
		return;
	if (w[0] == '\0')
		abort();
	for (i = 0; w[i] != '\0'; i++)
		if ((unsigned char)w[i] < 0x20 || (unsigned char)w[i] >= 0x7f)
			abort();
}

static int
same(const char *a, const char *b)
{
	return (a == NULL && b == NULL) ||
	    (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static void
check_addr(const uint8_t *data, size_t size)
{
	struct sockaddr_storage ss[2];
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss[0];
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss[1];
	struct egress_self self = { .addr = ss, .n = 2 };
	uint8_t v4[4], v6[16], m[16];
	const char *w4;

	if (size < 4)
		return;
	memcpy(v4, data, 4);
	memset(v6, 0, sizeof(v6));
	memcpy(v6, data, size < 16 ? size : 16);
	w4 = why4(v4, NULL);
	check_why(w4);
	check_why(why6(v6, NULL));
	/* an IPv4 address inside IPv6 is judged as that IPv4 address */
	memset(m, 0, sizeof(m));
	m[10] = m[11] = 0xff;
	memcpy(m + 12, v4, 4);
	if (!same(why6(m, NULL), w4))
		abort();
	memset(m, 0, sizeof(m));
	m[8] = m[9] = 0xff;
	memcpy(m + 12, v4, 4);
	if (!same(why6(m, NULL), w4))
		abort();
	memset(m, 0, sizeof(m));
	m[1] = 0x64;
	m[2] = 0xff;
	m[3] = 0x9b;
	memcpy(m + 12, v4, 4);
	if (!same(why6(m, NULL), w4))
		abort();
	memcpy(m, v6, 16);
	m[0] = 0x20;
	m[1] = 0x02;
	memcpy(m + 2, v4, 4);
	if (!same(why6(m, NULL), w4))
		abort();
	/* one of the host's own addresses is always refused */
	memset(ss, 0, sizeof(ss));
	s4->sin_family = AF_INET;
	memcpy(&s4->sin_addr, v4, 4);
	s6->sin6_family = AF_INET6;
	memcpy(&s6->sin6_addr, v6, 16);
	if (why4(v4, &self) == NULL || why6(v6, &self) == NULL)
		abort();
	if (w4 == NULL && !same(why4(v4, &self), "this host's address"))
		abort();
}

/* ---- the TLS handshake watch: the bytes as the client's stream ---- */

static void
check_tls(const uint8_t *data, size_t size)
{
	struct egress_tls tw;
	size_t off = 0, n;
	unsigned seen = 0;
	int r;

	memset(&tw, 0, sizeof(tw));
	tw.on = 1;
	tw.closed_first = size > 0 && (data[size - 1] & 1);
	for (;;) {
		n = size - off < (seen == 0 ? 6 : 5) ? size - off :
		    (seen == 0 ? 6 : 5);
		r = egress_tls_record(&tw, data + off, n);
		if (r == 0)
			break;
		if (r != 1 || !tw.on || tw.left < 5 ||
		    tw.left != 5 + ((size_t)data[off + 3] << 8 | data[off + 4]))
			abort();
		if (++seen != tw.records || seen > EGRESS_TLS_RECORDS)
			abort();
		off += tw.left;	/* relayed whole */
		tw.left = 0;
		if (off >= size)
			break;
	}
	if (r == 0 && tw.on)
		abort();
	if (tw.moved_on && tw.on)
		abort();
	/* a ClientHello first, or nothing was watched */
	if (tw.hello != (size >= 6 && data[0] == 22 && data[1] == 3 &&
	    data[5] == 1))
		abort();
	if (!tw.hello && (seen != 0 || tw.alert))
		abort();
	if (egress_tls_gave_up(&tw, EGRESS_TLS_SERVER_FLIGHT) &&
	    (!tw.hello || tw.moved_on || !(tw.alert || tw.closed_first)))
		abort();
	if (egress_tls_gave_up(&tw, EGRESS_TLS_SERVER_FLIGHT - 1))
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_parse(data, size);
	check_addr(data, size);
	check_tls(data, size);
	return 0;
}
