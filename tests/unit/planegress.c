/* SPDX-License-Identifier: ISC */
/* Unit tests of common/plan: the egress key (launchplan(5), "egress"):
 * its host forms, order, bounds and contradictions, in the decoder and in
 * plan_validate_at, and its round trip. */
#include <arpa/inet.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "esc.h"
#include "plan.h"
#include "tap.h"
#include "planbad.h"

static char err[512];

/* A plan with only egress destinations, unsorted; tcp granted. */
static void
egress_plan(struct plan *p, struct plan_egress *e, size_t n)
{
	static char *argv[] = { "pip", NULL };

	memset(p, 0, sizeof(*p));
	p->program = "/usr/bin/pip";
	p->argv = argv;
	p->argc = 1;
	p->sock = PLAN_SOCK_TCP;
	p->egress = e;
	p->negress = n;
}


/* A plan with "socket tcp" and the lines ins before "mode strict". */
static void
bad_lines(const char *ins, const char *want)
{
	char buf[2048];

	snprintf(buf, sizeof(buf), "borne-plan 1\nprogram /bin/true\n"
	    "arg /bin/true\nsocket tcp\n%smode strict\nend\n", ins);
	bad(buf, strlen(buf), want, ins);
}

/* The host h alone: whether plan_validate takes it. */
static int
host_ok(const char *h)
{
	struct plan_egress e = { (char *)h, 443 };
	struct plan p;

	egress_plan(&p, &e, 1);
	return plan_validate(&p, err, sizeof(err)) == 0;
}

static void
round_trip(void)
{
	struct plan_egress e[] = {
		{ "pkgs.example", 443 }, { "pkgs.example", 80 },
		{ "*.files.example", 443 }, { "2001:db8::1", 8443 },
		{ "192.0.2.7", 3128 }, { "::ffff:192.0.2.1", 1 },
	};
	static const char want[] = "socket tcp\n"
	    "egress *.files.example 443\n"
	    "egress 192.0.2.7 3128\n"
	    "egress 2001:db8::1 8443\n"
	    "egress ::ffff:192.0.2.1 1\n"
	    "egress pkgs.example 80\n"
	    "egress pkgs.example 443\n"
	    "mode strict\n";
	unsigned char *enc = NULL, *enc2 = NULL;
	struct plan p, d;
	size_t n = 0, n2 = 0;
	json_t *j;
	char *js;
	int r;

	egress_plan(&p, e, 6);
	is_int(plan_validate(&p, err, sizeof(err)), 0, "egress plan valid (%s)",
	    err);
	r = plan_encode(&p, &enc, &n);
	is_int(r, 0, "egress plan encodes");
	if (r != 0)
		return;
	ok(memmem(enc, n, want, sizeof(want) - 1) != NULL,
	    "egress lines sorted by host bytes, then port as a number");
	r = plan_decode(enc, n, &d, err, sizeof(err));
	is_int(r, 0, "and decodes (%s)", err);
	if (r == 0) {
		ok(d.negress == 6 && strcmp(d.egress[0].host,
		    "*.files.example") == 0 && d.egress[4].port == 80 &&
		    d.egress[5].port == 443 &&
		    strcmp(d.egress[5].host, "pkgs.example") == 0,
		    "egress read back in order");
		is_int(plan_encode(&d, &enc2, &n2), 0, "decoded plan re-encodes");
		ok(enc2 && n2 == n && memcmp(enc, enc2, n) == 0,
		    "identical bytes");
		free(enc2);
		j = plan_to_json(&d);
		js = j ? json_dumps(j, JSON_COMPACT) : NULL;
		ok(js && strstr(js, "\"bind_tcp\":[],\"egress\":[{\"host\":"
		    "\"*.files.example\",\"port\":443},{\"host\":"
		    "\"192.0.2.7\",\"port\":3128},") != NULL,
		    "JSON egress: objects in plan order, after bind_tcp");
		free(js);
		json_decref(j);
		plan_free(&d);
	}
	prefixes_and_flips(enc, n);
	free(enc);
}

static void
hosts(void)
{
	static const char *const good[] = { "pkgs.example", "localhost",
		"a-b.example", "x1.example", "*.forge.example", "*.a.b.example",
		"192.0.2.7", "0.0.0.1", "2001:db8::1", "::1", "::ffff:0.0.0.1",
		"::ffff:192.0.2.1", "::ffff:0:0:0", "xn--bcher-kva.example" };
	/* What a connect(2) takes for this host: never a destination. */
	static const char *const unspec[] = { "0.0.0.0", "::",
		"::ffff:0.0.0.0" };
	static const char *const badh[] = { "", "Pkgs.example", "pkgs.example.",
		".pkgs.example", "a..b", "-a.example", "a-.example", "a_b.example",
		"a b.example", "*", "*.com", "**.a.example", "a.*.example",
		"*a.example", "*.", "127.1", "192.0.2.01", "256.0.0.1",
		"1.2.3.4.5", "0x7f.1", "1.example.42", "2001:DB8::1",
		"2001:db8:0::1", "[::1]", "fe80::1%eth0", "2001:db8::1/64",
		"caf\xc3\xa9.example" };
	char h[300];
	size_t i;

	for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
		ok(host_ok(good[i]), "host %s accepted (%s)", good[i],
		    host_ok(good[i]) ? "" : err);
	for (i = 0; i < sizeof(badh) / sizeof(badh[0]); i++)
		ok(!host_ok(badh[i]) && strstr(err, "egress ") == err,
		    "host '%s' refused (%s)", badh[i], err);
	for (i = 0; i < sizeof(unspec) / sizeof(unspec[0]); i++)
		ok(!host_ok(unspec[i]) && strstr(err, "an unspecified "
		    "address is not a destination") != NULL,
		    "host %s refused: unspecified (%s)", unspec[i], err);
	/* Labels of 63 bytes, and 253 bytes in all. */
	memset(h, 'a', 63);
	strcpy(h + 63, ".example");
	ok(host_ok(h), "63-byte label accepted");
	memset(h, 'a', 64);
	strcpy(h + 64, ".example");
	ok(!host_ok(h) && strstr(err, "label longer than 63 bytes"),
	    "64-byte label refused (%s)", err);
	for (i = 0; i < 253; i++)
		h[i] = i % 64 == 63 ? '.' : 'a';
	h[253] = '\0';
	ok(host_ok(h), "253-byte host accepted (%s)", err);
	h[253] = 'a';
	h[254] = '\0';
	ok(!host_ok(h) && strstr(err, "host longer than 253 bytes"),
	    "254-byte host refused (%s)", err);
	h[0] = '*';
	h[1] = '.';
	h[253] = '\0';
	ok(host_ok(h), "253-byte wildcard accepted (%s)", err);
}

static void
validate_at(void)
{
	struct plan_egress e[] = { { "a.example", 1 }, { "b.example", 2 },
		{ "B.example", 3 } };
	static uint16_t con[] = { 443 };
	static char *env[] = { "PATH=/bin", "all_proxy=socks5://x", NULL };
	enum plan_at at;
	struct plan p;
	size_t i;

	egress_plan(&p, e, 3);
	is_int(plan_validate_at(&p, &at, &i, err, sizeof(err)), -1,
	    "an upper-case host refused");
	ok(at == PLAN_AT_EGRESS && i == 2, "at egress index 2 (%d %zu)",
	    (int)at, i);
	e[2].host = "a.example";
	e[2].port = 1;
	is_int(plan_validate_at(&p, &at, &i, err, sizeof(err)), -1,
	    "a duplicate refused, in any order");
	ok(at == PLAN_AT_EGRESS && i == 2 &&
	    strstr(err, "egress a.example 1: same destination given twice"),
	    "at index 2: %s", err);
	p.negress = 2;
	e[1].port = 0;
	is_int(plan_validate_at(&p, &at, &i, err, sizeof(err)), -1,
	    "port 0 refused");
	ok(at == PLAN_AT_EGRESS && i == 1 &&
	    strstr(err, "egress b.example 0: port outside 1-65535"), "%s",
	    err);
	e[1].port = 2;
	p.sock = PLAN_SOCK_UNIX;
	is_int(plan_validate_at(&p, &at, &i, err, sizeof(err)), -1,
	    "egress without the tcp socket right refused");
	ok(strstr(err, "egress a.example 1: without the tcp socket right"),
	    "%s", err);
	p.sock = PLAN_SOCK_TCP;
	p.connect_tcp = con;
	p.nconnect = 1;
	is_int(plan_validate_at(&p, &at, &i, err, sizeof(err)), -1,
	    "egress with connect-tcp refused");
	ok(at == PLAN_AT_EGRESS && i == 0 && strstr(err, "egress a.example 1: "
	    "contradicts connect-tcp (a run with egress has a network of its "
	    "own, loopback only, where its broker listens; list each "
	    "destination with --egress)"), "%s", err);
	p.nconnect = 0;
	p.bind_tcp = con;
	p.nbind = 1;
	is_int(plan_validate(&p, err, sizeof(err)), -1,
	    "egress with bind-tcp refused");
	ok(strstr(err, "contradicts bind-tcp") != NULL, "%s", err);
	p.nbind = 0;
	p.env = env;
	p.nenv = 2;
	is_int(plan_validate_at(&p, &at, &i, err, sizeof(err)), -1,
	    "egress with env all_proxy refused");
	ok(at == PLAN_AT_ENV && i == 1 && strstr(err, "env all_proxy: "
	    "contradicts egress (confexec sets it to the run's broker)"),
	    "at env index 1: %s", err);
	p.negress = 0;
	err[0] = '\0';
	is_int(plan_validate(&p, err, sizeof(err)), 0,
	    "all_proxy without egress is the plan's own (%s)", err);
}

static void
decoder(void)
{
	size_t cap = 65536, k = 0, i;
	char *b = malloc(cap), h[300];

	bad_lines("egress Pkgs.example 443\n",
	    "line 5: egress Pkgs.example 443: upper-case letter");
	bad_lines("egress pkgs.example. 443\n", "trailing dot");
	bad_lines("egress 2001:DB8::1 443\n", "not in RFC 5952's form");
	bad_lines("egress *.com 443\n", "wildcard over a top-level domain");
	bad_lines("egress 0.0.0.0 80\n", "line 5: egress 0.0.0.0 80: an "
	    "unspecified address is not a destination");
	bad_lines("egress :: 80\n", "line 5: egress :: 80: an unspecified");
	bad_lines("egress ::ffff:0.0.0.0 80\n", "egress ::ffff:0.0.0.0 80: "
	    "an unspecified");
	bad_lines("egress 0::0 80\n", "not in RFC 5952's form");
	bad_lines("egress pkgs.example 443\negress pkgs.example 80\n",
	    "line 6: egress: pkgs.example 80: out of order (sorted by host, "
	    "then port)");
	bad_lines("egress b.example 1\negress a.example 2\n",
	    "line 6: egress: a.example 2: out of order");
	bad_lines("egress a.example 1\negress a.example 1\n",
	    "line 6: egress a.example 1: same destination given twice");
	bad_lines("egress a.example 0\n", "port outside 1-65535");
	bad_lines("egress a.example 65536\n", "not a canonical number");
	bad_lines("egress a.example 080\n", "not a canonical number");
	bad_lines("egress a.example\n", "line 5: egress: want HOST PORT");
	bad_lines("egress  a.example 1\n", "line 5: egress: empty field");
	bad_lines("egress a.example  1\n", "empty field");
	bad_lines("egress a.example 1 2\n", "too many fields");
	bad_lines("egress a\\011b 1\n", "byte outside");
	bad_lines("egress a\tb 1\n", "byte outside printable ASCII");
	bad_lines("egress\n", "egress: missing value");
	bad_lines("connect-tcp 443\negress a.example 1\n",
	    "line 6: egress a.example 1: contradicts connect-tcp");
	bad_lines("egress a.example 1\nconnect-tcp 443\n",
	    "line 6: connect-tcp: out of order");
	bad_lines("egress a.example 1\nenv HTTP_PROXY=http://x\n",
	    "line 6: env HTTP_PROXY: contradicts egress");
	snprintf(b, cap, "borne-plan 1\nprogram /p\narg x\n"
	    "egress a.example 1\nmode strict\nend\n");
	bad(b, strlen(b), "line 4: egress a.example 1: without the tcp "
	    "socket right", "egress without socket tcp");
	/* Bounds: 64 destinations and a 253-byte host pass, one more
	 * does not; the host is measured before it is copied. */
	k += (size_t)snprintf(b + k, cap - k, "borne-plan 1\nprogram /p\n"
	    "arg x\nsocket tcp\n");
	for (i = 0; i < PLAN_MAX_EGRESS; i++)
		k += (size_t)snprintf(b + k, cap - k, "egress h%03zu.example "
		    "443\n", i);
	k += (size_t)snprintf(b + k, cap - k, "mode strict\nend\n");
	{
		struct plan p;
		int r = plan_decode((unsigned char *)b, k, &p, err,
		    sizeof(err));

		is_int(r, 0, "64 destinations decode (%s)", err);
		if (r == 0)
			plan_free(&p);
	}
	k -= strlen("mode strict\nend\n");
	k += (size_t)snprintf(b + k, cap - k, "egress h999.example 443\n"
	    "mode strict\nend\n");
	bad(b, k, "line 69: egress: more than 64 destinations",
	    "65 destinations");
	for (i = 0; i < 253; i++)
		h[i] = i % 64 == 63 ? '.' : 'b';
	h[253] = '\0';
	snprintf(b, cap, "borne-plan 1\nprogram /p\narg x\nsocket tcp\n"
	    "egress %s 443\nmode strict\nend\n", h);
	{
		struct plan p;
		int r = plan_decode((unsigned char *)b, strlen(b), &p, err,
		    sizeof(err));

		is_int(r, 0, "253-byte host decodes (%s)", err);
		if (r == 0) {
			ok(strlen(p.egress[0].host) == 253, "all of it");
			plan_free(&p);
		}
	}
	snprintf(b, cap, "borne-plan 1\nprogram /p\narg x\nsocket tcp\n"
	    "egress %sb 443\nmode strict\nend\n", h);
	bad(b, strlen(b), "line 5: egress: host longer than 253 bytes",
	    "254-byte host");
	free(b);
}

/* plan_ip_text: RFC 5952, the same with every libc (glibc's inet_ntop
 * writes ::/96 as "::a.b.c.d", musl's does not). */
static void
ip_text(void)
{
	static const char *const cases[][2] = {
		{ "::", "::" },
		{ "::1", "::1" },
		{ "1::", "1::" },
		{ "2001:DB8:0:0:0:0:0:1", "2001:db8::1" },
		{ "2001:db8:0:1:1:1:1:1", "2001:db8:0:1:1:1:1:1" },
		{ "1:0:0:2:0:0:0:3", "1:0:0:2::3" },
		{ "1:0:0:2:0:0:3:4", "1::2:0:0:3:4" },
		{ "0:0:1:0:0:0:0:0", "0:0:1::" },
		{ "::ffff:1.2.3.4", "::ffff:1.2.3.4" },
		{ "::ffff:0:0", "::ffff:0.0.0.0" },
		{ "::1.2.3.4", "::102:304" },
		{ "::255.255.255.255", "::ffff:ffff" },
		{ "64:ff9b::192.0.2.1", "64:ff9b::c000:201" },
		{ "fe80:0:0:0:0:0:0:00a", "fe80::a" },
		{ "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff",
		    "ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff" },
	};
	unsigned char a[16];
	char buf[64];
	const char *got;
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		if (inet_pton(AF_INET6, cases[i][0], a) != 1) {
			ok(0, "inet_pton %s", cases[i][0]);
			continue;
		}
		got = plan_ip_text(AF_INET6, a, buf, sizeof(buf));
		is_str(got, cases[i][1], "%s is written %s",
		    cases[i][0], cases[i][1]);
	}
	/* plan_ip_unspecified: 0.0.0.0, ::, and 0.0.0.0 mapped only. */
	memset(a, 0, sizeof(a));
	ok(plan_ip_unspecified(AF_INET, a) == 1, "0.0.0.0 unspecified");
	ok(plan_ip_unspecified(AF_INET6, a) == 1, ":: unspecified");
	a[10] = a[11] = 0xff;
	ok(plan_ip_unspecified(AF_INET6, a) == 1, "::ffff:0.0.0.0 unspecified");
	a[15] = 1;
	ok(plan_ip_unspecified(AF_INET6, a) == 0, "::ffff:0.0.0.1 is not");
	ok(plan_ip_unspecified(AF_INET, a + 12) == 0, "0.0.0.1 is not");
	memset(a, 0, sizeof(a));
	a[9] = 0xff;
	ok(plan_ip_unspecified(AF_INET6, a) == 0, "::ff:0:0:0 is not");
	ok(plan_ip_unspecified(AF_UNIX, a) == 0, "not an IP family: 0");
	memcpy(a, "\xc0\x00\x02\x07", 4);
	got = plan_ip_text(AF_INET, a, buf, sizeof(buf));
	is_str(got, "192.0.2.7", "IPv4 dotted");
	memcpy(a, "\xff\xff\xff\xff", 4);
	got = plan_ip_text(AF_INET, a, buf, 15);
	ok(got == NULL, "a buffer too small: NULL");
	got = plan_ip_text(AF_INET, a, buf, 16);
	is_str(got, "255.255.255.255", "exactly enough");
}

int
main(void)
{
	ip_text();
	round_trip();
	hosts();
	validate_at();
	decoder();
	return done_testing();
}
