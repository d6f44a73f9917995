/* SPDX-License-Identifier: ISC */
/* egress: whether a destination is on the list, and whether an address
 * the broker resolved may be reached (egress.h).  The special-purpose
 * ranges are those of the IANA IPv4 and IPv6 Special-Purpose Address
 * Registries (RFC 6890 and its updates) that are not globally reachable,
 * plus multicast; an IPv6 address that carries an IPv4 one (mapped,
 * compatible, SIIT, NAT64, 6to4) is judged as that IPv4 address, so a
 * name cannot reach 127.0.0.1 by resolving to ::ffff:127.0.0.1 or
 * 64:ff9b::7f00:1. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <string.h>

#include "egress.h"

/* ---- the list ---- */

/* The bytes of an IP literal (af AF_INET or AF_INET6), or 0 when s is
 * not one. */
static int
literal(const char *s, unsigned char a[16])
{
	if (inet_pton(AF_INET, s, a) == 1)
		return AF_INET;
	if (inet_pton(AF_INET6, s, a) == 1)
		return AF_INET6;
	return 0;
}

static int
entry_matches(const char *ent, const char *host, int haf,
    const unsigned char *ha)
{
	unsigned char ea[16];
	size_t hl, sl;
	int eaf = literal(ent, ea);

	if (haf != 0 || eaf != 0)	/* a literal matches only itself */
		return haf == eaf &&
		    memcmp(ha, ea, haf == AF_INET ? 4 : 16) == 0;
	if (ent[0] == '*' && ent[1] == '.') {
		/* ".suffix" at the end, and a label before it */
		hl = strlen(host);
		sl = strlen(ent + 1);
		return hl > sl && strcmp(host + hl - sl, ent + 1) == 0;
	}
	return strcmp(ent, host) == 0;
}

long
egress_match(const struct plan_egress *list, size_t n, const char *host,
    uint16_t port)
{
	unsigned char ha[16];
	int haf;
	size_t i;

	if (host == NULL || host[0] == '\0')
		return -1;
	haf = literal(host, ha);
	for (i = 0; i < n; i++)
		if (list[i].host != NULL && list[i].port == port &&
		    entry_matches(list[i].host, host, haf, ha))
			return (long)i;
	return -1;
}

/* ---- the address guard ---- */

struct range {
	unsigned char net[16];
	unsigned bits;
	const char *why;	/* NULL: judge the IPv4 address inside */
	unsigned v4at;		/* where that IPv4 address starts */
};

static const struct range v4ranges[] = {
	{ { 0 }, 8, "unspecified", 0 },
	{ { 10 }, 8, "private", 0 },
	{ { 100, 64 }, 10, "shared (CGNAT)", 0 },
	{ { 127 }, 8, "loopback", 0 },
	{ { 169, 254 }, 16, "link-local", 0 },
	{ { 172, 16 }, 12, "private", 0 },
	{ { 192, 0, 0 }, 24, "reserved", 0 },
	{ { 192, 0, 2 }, 24, "documentation", 0 },
	{ { 192, 88, 99 }, 24, "reserved", 0 },	/* 6to4 relay anycast */
	{ { 192, 168 }, 16, "private", 0 },
	{ { 198, 18 }, 15, "benchmarking", 0 },
	{ { 198, 51, 100 }, 24, "documentation", 0 },
	{ { 203, 0, 113 }, 24, "documentation", 0 },
	{ { 224 }, 4, "multicast", 0 },
	{ { 240 }, 4, "reserved", 0 },	/* 255.255.255.255 too */
};

#define V6(...) { __VA_ARGS__ }
static const struct range v4mapped = {
	V6(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff), 96, NULL, 12
};
static const struct range v6ranges[] = {
	{ V6(0), 128, "unspecified", 0 },
	{ V6(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1), 128,
	    "loopback", 0 },
	/* ::ffff:0:0/96 mapped, ::ffff:0:0:0/96 SIIT, ::/96 compatible */
	{ V6(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff), 96, NULL, 12 },
	{ V6(0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff), 96, NULL, 12 },
	{ V6(0), 96, NULL, 12 },
	{ V6(0, 0x64, 0xff, 0x9b), 96, NULL, 12 },	/* NAT64 */
	{ V6(0x20, 0x02), 16, NULL, 2 },		/* 6to4 */
	{ V6(0, 0x64, 0xff, 0x9b, 0, 1), 48, "reserved", 0 }, /* local NAT64 */
	{ V6(0x01, 0x00), 64, "reserved", 0 },		/* discard */
	{ V6(0x20, 0x01, 0, 0), 32, "tunnel", 0 },	/* Teredo */
	{ V6(0x20, 0x01, 0, 0x02, 0, 0), 48, "benchmarking", 0 },
	{ V6(0x20, 0x01, 0x0d, 0xb8), 32, "documentation", 0 },
	{ V6(0x3f, 0xff), 20, "documentation", 0 },
	{ V6(0xfc), 7, "unique local (private)", 0 },
	{ V6(0xfe, 0x80), 10, "link-local", 0 },
	{ V6(0xfe, 0xc0), 10, "site-local", 0 },
	{ V6(0xff), 8, "multicast", 0 },
	/* anything else outside 2000::/3 is not global unicast */
	{ V6(0x20), 3, NULL, 0 },
};

static int
in_range(const unsigned char *a, const struct range *r)
{
	unsigned full = r->bits / 8, rest = r->bits % 8;
	unsigned char mask;

	if (memcmp(a, r->net, full) != 0)
		return 0;
	if (rest == 0)
		return 1;
	mask = (unsigned char)(0xff << (8 - rest));
	return (a[full] & mask) == (r->net[full] & mask);
}

/* The family and bytes of one of the host's addresses, an IPv4-mapped
 * IPv6 address as the IPv4 one. */
static int
self_addr(const struct sockaddr_storage *ss, unsigned char a[16])
{
	const struct sockaddr_in *s4;
	const struct sockaddr_in6 *s6;

	if (ss->ss_family == AF_INET) {
		s4 = (const struct sockaddr_in *)ss;
		memcpy(a, &s4->sin_addr, 4);
		return AF_INET;
	}
	if (ss->ss_family != AF_INET6)
		return 0;
	s6 = (const struct sockaddr_in6 *)ss;
	if (in_range(s6->sin6_addr.s6_addr, &v4mapped)) {
		memcpy(a, s6->sin6_addr.s6_addr + 12, 4);
		return AF_INET;
	}
	memcpy(a, s6->sin6_addr.s6_addr, 16);
	return AF_INET6;
}

static const char *
self_why(int af, const unsigned char *a, const struct egress_self *self)
{
	unsigned char s[16];
	size_t i;

	if (self == NULL)
		return NULL;
	for (i = 0; i < self->n; i++)
		if (self_addr(&self->addr[i], s) == af &&
		    memcmp(s, a, af == AF_INET ? 4 : 16) == 0)
			return "this host's address";
	return self->ask != NULL ? self->ask(self->ctx, af, a) : NULL;
}

static const char *
v4_why(const unsigned char *a, const struct egress_self *self)
{
	size_t i;

	for (i = 0; i < sizeof(v4ranges) / sizeof(v4ranges[0]); i++)
		if (in_range(a, &v4ranges[i]))
			return v4ranges[i].why;
	return self_why(AF_INET, a, self);
}

static const char *
v6_why(const unsigned char *a, const struct egress_self *self)
{
	const struct range *r;
	const char *w;
	size_t i, n = sizeof(v6ranges) / sizeof(v6ranges[0]);

	for (i = 0; i + 1 < n; i++) {
		r = &v6ranges[i];
		if (!in_range(a, r))
			continue;
		if (r->why != NULL)
			return r->why;
		/* the IPv4 address inside, then the IPv6 address itself
		 * (not a mapped one: a connection to it is to the IPv4
		 * address, which is all there is to ask about) */
		w = v4_why(a + r->v4at, self);
		if (w != NULL || in_range(a, &v4mapped))
			return w;
		return self_why(AF_INET6, a, self);
	}
	/* the last entry, 2000::/3: anything else is not global unicast */
	if (!in_range(a, &v6ranges[n - 1]))
		return "reserved";
	return self_why(AF_INET6, a, self);
}

const char *
egress_addr_why(const struct sockaddr *sa, const struct egress_self *self)
{
	struct sockaddr_in s4;
	struct sockaddr_in6 s6;

	if (sa == NULL)
		return "not an IP address";
	if (sa->sa_family == AF_INET) {
		memcpy(&s4, sa, sizeof(s4));
		return v4_why((const unsigned char *)&s4.sin_addr, self);
	}
	if (sa->sa_family == AF_INET6) {
		memcpy(&s6, sa, sizeof(s6));
		return v6_why(s6.sin6_addr.s6_addr, self);
	}
	return "not an IP address";
}

int
egress_addr_unspecified(const struct sockaddr *sa)
{
	struct sockaddr_in s4;
	struct sockaddr_in6 s6;

	if (sa != NULL && sa->sa_family == AF_INET) {
		memcpy(&s4, sa, sizeof(s4));
		return plan_ip_unspecified(AF_INET, &s4.sin_addr);
	}
	if (sa != NULL && sa->sa_family == AF_INET6) {
		memcpy(&s6, sa, sizeof(s6));
		return plan_ip_unspecified(AF_INET6, &s6.sin6_addr);
	}
	return 0;
}
