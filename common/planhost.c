/* SPDX-License-Identifier: ISC */
/* planhost: the host of an egress line (launchplan(5), "egress"; plan.h,
 * struct plan_egress): a lower-case DNS name, a "*." suffix wildcard or
 * an IP literal in RFC 5952's form (plan_ip_text).  Used by the rules of
 * planrules.c. */
#include <arpa/inet.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>

#include "planint.h"

/* One label of a name, n bytes: [a-z0-9-], 1 to 63, no - at either end. */
static const char *
label_why(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return "empty label (a dot at either end, or ..)";
	if (n > 63)
		return "label longer than 63 bytes";
	for (i = 0; i < n; i++) {
		if (s[i] >= 'A' && s[i] <= 'Z')
			return "upper-case letter (names are written in lower "
			    "case)";
		if (!((s[i] >= 'a' && s[i] <= 'z') ||
		    (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
			return "byte outside [a-z0-9-] in a name";
	}
	if (s[0] == '-' || s[n - 1] == '-')
		return "label begins or ends with -";
	return NULL;
}

/* A DNS name; *labels gets its number of labels.  Its last label begins
 * with a letter: a resolver reads "127.1" or "0x7f.1" as an address. */
static const char *
name_why(const char *s, size_t *labels)
{
	const char *why, *last = s;
	size_t n = strlen(s), l;

	if (n > 0 && s[n - 1] == '.')
		return "trailing dot (write the name without it)";
	for (*labels = 0;; s += l + 1) {
		l = strcspn(s, ".");
		if ((why = label_why(s, l)) != NULL)
			return why;
		++*labels;
		last = s;
		if (s[l] == '\0')
			break;
	}
	if (!(*last >= 'a' && *last <= 'z'))
		return "last label does not begin with a letter (not a name, "
		    "not an IP address in RFC 5952's form)";
	return NULL;
}

/* RFC 5952's text of an address, the same whatever the libc (their
 * inet_ntop differ on IPv4-compatible addresses, which a plan made by
 * one build and read by another would trip on): IPv4 dotted; IPv6 in
 * lowercase hex without leading zeros, the longest run of two or more
 * zero groups (the first of equal runs) as "::", ::ffff:0:0/96 as
 * ::ffff:a.b.c.d. */
const char *
plan_ip_text(int af, const void *addr, char *buf, size_t size)
{
	const unsigned char *a = addr;
	static const unsigned char mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0,
		0, 0xff, 0xff };
	unsigned g[8];
	int i, best = -1, bestlen = 1, run = 0, n = 0;
	char tmp[64];

	if (size == 0)
		return NULL;
	if (af == AF_INET) {
		snprintf(tmp, sizeof(tmp), "%u.%u.%u.%u", a[0], a[1], a[2],
		    a[3]);
	} else if (memcmp(a, mapped, 12) == 0) {
		snprintf(tmp, sizeof(tmp), "::ffff:%u.%u.%u.%u", a[12], a[13],
		    a[14], a[15]);
	} else {
		for (i = 0; i < 8; i++) {
			g[i] = (unsigned)a[2 * i] << 8 | a[2 * i + 1];
			run = g[i] == 0 ? run + 1 : 0;
			if (run > bestlen) {
				bestlen = run;
				best = i - run + 1;
			}
		}
		for (i = 0; i < 8; i++) {
			if (i == best) {
				n += snprintf(tmp + n, sizeof(tmp) - (size_t)n,
				    "::");
				i += bestlen - 1;
				continue;
			}
			n += snprintf(tmp + n, sizeof(tmp) - (size_t)n, "%s%x",
			    n > 0 && tmp[n - 1] != ':' ? ":" : "", g[i]);
		}
	}
	if (strlen(tmp) >= size)
		return NULL;
	memcpy(buf, tmp, strlen(tmp) + 1);
	return buf;
}

/* Linux connects a socket to the unspecified address, or to 0.0.0.0
 * mapped, as to loopback (tcp_v4_connect, tcp_v6_connect): whatever
 * listens on this host answers. */
int
plan_ip_unspecified(int af, const void *addr)
{
	static const unsigned char zero[16], mapped[16] = { 0, 0, 0, 0, 0, 0,
		0, 0, 0, 0, 0xff, 0xff };

	if (af == AF_INET)
		return memcmp(addr, zero, 4) == 0;
	if (af == AF_INET6)
		return memcmp(addr, zero, 16) == 0 ||
		    memcmp(addr, mapped, 16) == 0;
	return 0;
}

/* An IP literal of family af, exactly in RFC 5952's form, and not an
 * unspecified address (a destination that is this host). */
static const char *
literal_why(const char *s, int af)
{
	unsigned char a[16];
	char back[64];

	if (inet_pton(af, s, a) != 1)
		return af == AF_INET ? "not an IPv4 address" :
		    "not an IPv6 address";
	if (plan_ip_text(af, a, back, sizeof(back)) == NULL ||
	    strcmp(back, s) != 0)
		return "IP address not in RFC 5952's form (planenc writes "
		    "it so)";
	if (plan_ip_unspecified(af, a))
		return "an unspecified address is not a destination (a "
		    "connection to it reaches this host's own listeners)";
	return NULL;
}

const char *
plan_host_why(const char *h)
{
	size_t n, labels;
	const char *why;

	if (h == NULL || *h == '\0')
		return "empty host";
	if ((n = strlen(h)) > PLAN_MAX_HOST_LEN)
		return "host longer than 253 bytes";
	if (strchr(h, ':') != NULL)
		return literal_why(h, AF_INET6);
	if (strspn(h, "0123456789.") == n)
		return literal_why(h, AF_INET);
	if (strncmp(h, "*.", 2) == 0) {
		if (strchr(h + 2, '*') != NULL)
			return "* only as the whole first label "
			    "(*.example.com)";
		if ((why = name_why(h + 2, &labels)) != NULL)
			return why;
		if (labels < 2)
			return "wildcard over a top-level domain (want at "
			    "least two labels after *.)";
		return NULL;
	}
	if (strchr(h, '*') != NULL)
		return "* only as the whole first label (*.example.com)";
	return name_why(h, &labels);
}
