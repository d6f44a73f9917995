/* SPDX-License-Identifier: ISC */
/* Unit tests of common/egress: the proxy request head, the list match and
 * the address guard of the egress broker. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/un.h>

#include "egress.h"
#include "esc.h"
#include "tap.h"

static struct egress_req rq;
static char out[EGRESS_MAX_HEAD + 64], why[128];
static int status;

/* The first bytes of s (n in all), escaped for a test's name. */
static const char *
show(const char *s, size_t n)
{
	static char buf[ESC_SIZE(48)];

	esc_mem(s, n < 48 ? n : 48, buf, sizeof(buf), 0);
	return buf;
}

static int
parse_n(const char *s, size_t n)
{
	status = 0;
	why[0] = '\0';
	return egress_parse(s, n, &rq, out, sizeof(out), &status, why,
	    sizeof(why));
}

static int
parse(const char *s)
{
	return parse_n(s, strlen(s));
}

/* s (n bytes) refused with status want and a reason containing msg. */
static void
refused_n(const char *s, size_t n, int want, const char *msg)
{
	int r = parse_n(s, n);
	int good = r == -1 && status == want && strstr(why, msg) != NULL &&
	    rq.kind == 0 && rq.host[0] == '\0' && rq.head_len == 0 &&
	    out[0] == '\0' && strpbrk(why, "\r\n") == NULL;

	ok(good, "refused %d \"%s\": %s", want, msg, show(s, n));
	if (!good)
		printf("#   got %d, status %d, why '%s'\n", r, status, why);
}

static void
refused(const char *s, int want, const char *msg)
{
	refused_n(s, strlen(s), want, msg);
}

/* A CONNECT head accepted, with what it names. */
static void
connect_ok(const char *s, const char *host, int lit, unsigned port)
{
	int r = parse(s);
	int good = r == 1 && rq.kind == EGRESS_CONNECT &&
	    strcmp(rq.host, host) == 0 && rq.is_literal == lit &&
	    rq.port == port && rq.out_len == 0 && rq.head_len == strlen(s);

	ok(good, "CONNECT to %s:%u: %s", host, port, show(s, strlen(s)));
	if (!good)
		printf("#   got %d (%s), host '%s' lit %d port %u\n", r, why,
		    rq.host, rq.is_literal, (unsigned)rq.port);
}

/* A plain HTTP head accepted and rewritten into want. */
static void
http_ok(const char *s, const char *host, unsigned port, const char *want)
{
	int r = parse(s);
	int good = r == 1 && rq.kind == EGRESS_HTTP &&
	    strcmp(rq.host, host) == 0 && rq.port == port &&
	    rq.out_len == strlen(want) && strcmp(out, want) == 0;

	ok(good, "HTTP to %s:%u: %s", host, port, show(s, strlen(s)));
	if (!good)
		printf("#   got %d (%s), host '%s' port %u, out:\n%s\n", r,
		    why, rq.host, (unsigned)rq.port, out);
}

/* Every proper prefix of s gives 0 (or the refusal s gets, never another
 * one), and s itself gives the same answer as when it came whole. */
static void
split(const char *s)
{
	struct egress_req whole;
	char wout[sizeof(out)], wwhy[sizeof(why)];
	size_t n = strlen(s), i, bad = 0;
	int wr, wst, r;

	wr = parse(s);
	whole = rq;
	wst = status;
	memcpy(wout, out, sizeof(out));
	memcpy(wwhy, why, sizeof(why));
	for (i = 0; i < n; i++) {
		r = parse_n(s, i);
		if (wr == 1 && i < whole.head_len && r != 0)
			bad++;
		if (wr == 1 && i >= whole.head_len &&
		    (r != 1 || rq.head_len != whole.head_len))
			bad++;
		if (wr == -1 && r == -1 && (status != wst ||
		    strcmp(why, wwhy) != 0))
			bad++;
		if (wr != -1 && r == -1)
			bad++;
	}
	r = parse_n(s, n);
	if (r != wr || memcmp(&rq, &whole, sizeof(rq)) != 0 ||
	    strcmp(out, wout) != 0 || (r == -1 && status != wst))
		bad++;
	ok(bad == 0, "byte by byte, the same answer (%d): %s", wr,
	    show(s, n));
}

/* A head of exactly n bytes: request line, one header of filler, blank
 * line. */
static char *
sized_head(size_t n, int blank)
{
	const char *rl = "CONNECT a.example:443 HTTP/1.1\r\nX: ";
	char *s = malloc(n + 1);

	if (s == NULL)
		abort();
	memset(s, 'x', n);
	memcpy(s, rl, strlen(rl));
	if (blank)
		memcpy(s + n - 4, "\r\n\r\n", 4);
	s[n] = '\0';
	return s;
}

static void
test_connect(void)
{
	char name[300], line[400];

	connect_ok("CONNECT example.com:443 HTTP/1.1\r\n"
	    "Host: example.com:443\r\n\r\n", "example.com", 0, 443);
	connect_ok("CONNECT Pkgs.EXAMPLE:443 HTTP/1.0\r\n\r\n", "pkgs.example", 0,
	    443);
	connect_ok("CONNECT a-b.c0.example:1 HTTP/1.1\r\n\r\n",
	    "a-b.c0.example", 0, 1);
	connect_ok("CONNECT x.example:65535 HTTP/1.1\r\n\r\n", "x.example",
	    0, 65535);
	connect_ok("CONNECT x.example:00443 HTTP/1.1\r\n\r\n", "x.example",
	    0, 443);
	connect_ok("CONNECT localhost:22 HTTP/1.1\r\n\r\n", "localhost", 0,
	    22);
	connect_ok("CONNECT 192.0.2.7:8443 HTTP/1.1\r\n\r\n", "192.0.2.7", 1,
	    8443);
	connect_ok("CONNECT [2001:DB8:0::0:1]:443 HTTP/1.1\r\n\r\n",
	    "2001:db8::1", 1, 443);
	connect_ok("CONNECT [::ffff:127.0.0.1]:443 HTTP/1.1\r\n\r\n",
	    "::ffff:127.0.0.1", 1, 443);
	connect_ok("CONNECT a.example:443 HTTP/1.1\r\nX-Tab: a\tb\r\n"
	    "X-Utf8: \xc3\xa9t\xc3\xa9\r\nEmpty:\r\n\r\n", "a.example", 0, 443);

	/* what follows the blank line is the caller's */
	{
		const char *s = "CONNECT a.example:443 HTTP/1.1\r\n\r\n"
		    "\x16\x03\x01\r\n\r\n";
		int r = parse(s);

		ok(r == 1 && rq.head_len == 34, "early TLS bytes left over");
	}

	/* a name of 253 bytes and labels of 63 */
	memset(name, 'a', sizeof(name));
	name[63] = name[127] = name[191] = '.';
	name[253] = '\0';
	snprintf(line, sizeof(line), "CONNECT %s:443 HTTP/1.1\r\n\r\n", name);
	connect_ok(line, name, 0, 443);
	name[253] = 'a';
	name[254] = '\0';
	snprintf(line, sizeof(line), "CONNECT %s:443 HTTP/1.1\r\n\r\n", name);
	refused(line, 400, "host name too long");
	memset(name, 'b', 64);
	snprintf(line, sizeof(line), "CONNECT %.64s.example:443 HTTP/1.1\r\n"
	    "\r\n", name);
	refused(line, 400, "host label over 63 bytes");

	refused("CONNECT example.com HTTP/1.1\r\n\r\n", 400,
	    "CONNECT target without a port");
	refused("CONNECT example.com: HTTP/1.1\r\n\r\n", 400, "empty port");
	refused("CONNECT example.com:0 HTTP/1.1\r\n\r\n", 400, "bad port");
	refused("CONNECT example.com:65536 HTTP/1.1\r\n\r\n", 400, "bad port");
	refused("CONNECT example.com:100000 HTTP/1.1\r\n\r\n", 400,
	    "bad port");
	refused("CONNECT example.com:-1 HTTP/1.1\r\n\r\n", 400, "bad port");
	refused("CONNECT example.com:4a3 HTTP/1.1\r\n\r\n", 400, "bad port");
	refused("CONNECT example.com:443:1 HTTP/1.1\r\n\r\n", 400, "bad port");
	refused("CONNECT :443 HTTP/1.1\r\n\r\n", 400, "empty host");
	refused("CONNECT ::1:443 HTTP/1.1\r\n\r\n", 400, "empty host");
	refused("CONNECT user@example.com:443 HTTP/1.1\r\n\r\n", 400,
	    "userinfo");
	refused("CONNECT example.com.:443 HTTP/1.1\r\n\r\n", 400,
	    "trailing dot");
	refused("CONNECT a..example:443 HTTP/1.1\r\n\r\n", 400, "empty label");
	refused("CONNECT .example:443 HTTP/1.1\r\n\r\n", 400, "empty label");
	refused("CONNECT -a.example:443 HTTP/1.1\r\n\r\n", 400, "'-'");
	refused("CONNECT a-.example:443 HTTP/1.1\r\n\r\n", 400, "'-'");
	refused("CONNECT a_b.example:443 HTTP/1.1\r\n\r\n", 400,
	    "bad character");
	refused("CONNECT a%2eb:443 HTTP/1.1\r\n\r\n", 400, "bad character");
	refused("CONNECT a\\b.example:443 HTTP/1.1\r\n\r\n", 400,
	    "bad character");
	/* numbers a resolver would take for an address */
	refused("CONNECT 127.1:443 HTTP/1.1\r\n\r\n", 400, "not a canonical");
	refused("CONNECT 0x7f.1:443 HTTP/1.1\r\n\r\n", 400, "not a canonical");
	refused("CONNECT 2130706433:443 HTTP/1.1\r\n\r\n", 400,
	    "not a canonical");
	refused("CONNECT 0x7f000001:443 HTTP/1.1\r\n\r\n", 400,
	    "not a canonical");
	refused("CONNECT 0X7F000001:443 HTTP/1.1\r\n\r\n", 400,
	    "not a canonical");
	refused("CONNECT 017700000001:443 HTTP/1.1\r\n\r\n", 400,
	    "not a canonical");
	refused("CONNECT 127.000.000.001:443 HTTP/1.1\r\n\r\n", 400,
	    "not a canonical");
	refused("CONNECT 1.2.3.4.5:443 HTTP/1.1\r\n\r\n", 400,
	    "not a canonical");
	refused("CONNECT example.123:443 HTTP/1.1\r\n\r\n", 400,
	    "not a canonical");
	refused("CONNECT [::1%25lo]:443 HTTP/1.1\r\n\r\n", 400,
	    "bad IPv6 literal");
	refused("CONNECT [::1%lo]:443 HTTP/1.1\r\n\r\n", 400,
	    "bad IPv6 literal");
	refused("CONNECT [192.0.2.1]:443 HTTP/1.1\r\n\r\n", 400,
	    "bad IPv6 literal");
	refused("CONNECT [example.com]:443 HTTP/1.1\r\n\r\n", 400,
	    "bad IPv6 literal");
	refused("CONNECT []:443 HTTP/1.1\r\n\r\n", 400, "empty host");
	refused("CONNECT [::1:443 HTTP/1.1\r\n\r\n", 400, "unterminated");
	refused("CONNECT [::1]x:443 HTTP/1.1\r\n\r\n", 400, "bytes after");
	refused("CONNECT [::1] HTTP/1.1\r\n\r\n", 400, "without a port");
	refused("connect example.com:443 HTTP/1.1\r\n\r\n", 405,
	    "method not proxied");
	refused("CONNECT example.com:443 HTTP/2.0\r\n\r\n", 400,
	    "not an HTTP/1.1");
	refused("CONNECT example.com:443 http/1.1\r\n\r\n", 400,
	    "not an HTTP/1.1");
	refused("CONNECT example.com:443\r\n\r\n", 400,
	    "malformed request line");
}

static void
test_http(void)
{
	const char *full = "GET http://example.com/a/b?c=d&e HTTP/1.1\r\n"
	    "Host: evil.example\r\n"
	    "User-Agent: t/1\r\n"
	    "Proxy-Connection: keep-alive\r\n"
	    "Proxy-Authorization: Basic eDp5\r\n"
	    "proxy-anything: 1\r\n"
	    "Connection: keep-alive, X-Secret\r\n"
	    "x-secret: 1\r\n"
	    "Keep-Alive: 300\r\n"
	    "Accept: */*\r\n"
	    "\r\nBODY";

	http_ok(full, "example.com", 80,
	    "GET /a/b?c=d&e HTTP/1.1\r\n"
	    "Host: example.com\r\n"
	    "User-Agent: t/1\r\n"
	    "Accept: */*\r\n"
	    "Connection: close\r\n\r\n");
	ok(rq.head_len == strlen(full) - 4,
	    "head_len counted up to the blank line, the body left over");
	http_ok("GET HTTP://Example.COM:8080 HTTP/1.0\r\n\r\n", "example.com",
	    8080, "GET / HTTP/1.0\r\nHost: example.com:8080\r\n"
	    "Connection: close\r\n\r\n");
	http_ok("HEAD http://[2001:db8::1]:80?x HTTP/1.1\r\n\r\n",
	    "2001:db8::1", 80, "HEAD /?x HTTP/1.1\r\nHost: [2001:db8::1]\r\n"
	    "Connection: close\r\n\r\n");
	ok(rq.is_literal == 1, "an IPv6 literal in a URL");
	http_ok("POST http://192.0.2.1:81/p HTTP/1.1\r\nContent-Length: 3\r\n"
	    "\r\nabc", "192.0.2.1", 81, "POST /p HTTP/1.1\r\nHost: 192.0.2.1:81"
	    "\r\nContent-Length: 3\r\nConnection: close\r\n\r\n");
	ok(rq.is_literal == 1, "an IPv4 literal in a URL");
	http_ok("PUT http://a.example/u HTTP/1.1\r\n"
	    "Transfer-Encoding: gzip, chunked\r\n\r\n", "a.example", 80,
	    "PUT /u HTTP/1.1\r\nHost: a.example\r\n"
	    "Transfer-Encoding: gzip, chunked\r\nConnection: close\r\n\r\n");
	http_ok("DELETE http://a.example/ HTTP/1.1\r\n\r\n", "a.example", 80,
	    "DELETE / HTTP/1.1\r\nHost: a.example\r\nConnection: close\r\n\r\n");
	http_ok("PATCH http://a.example:80/x HTTP/1.1\r\n\r\n", "a.example",
	    80, "PATCH /x HTTP/1.1\r\nHost: a.example\r\n"
	    "Connection: close\r\n\r\n");
	http_ok("OPTIONS http://a.example/ HTTP/1.1\r\nConnection: close\r\n"
	    "\r\n", "a.example", 80, "OPTIONS / HTTP/1.1\r\nHost: a.example\r\n"
	    "Connection: close\r\n\r\n");

	refused("GET https://example.com/ HTTP/1.1\r\n\r\n", 405,
	    "use CONNECT for https");
	refused("GET HTTPS://example.com/ HTTP/1.1\r\n\r\n", 405,
	    "use CONNECT for https");
	refused("GET ftp://example.com/ HTTP/1.1\r\n\r\n", 405,
	    "scheme not proxied");
	refused("GET 1http://example.com/ HTTP/1.1\r\n\r\n", 400,
	    "malformed URL scheme");
	refused("GET /index.html HTTP/1.1\r\nHost: a\r\n\r\n", 400,
	    "not a proxy request");
	refused("OPTIONS * HTTP/1.1\r\n\r\n", 400, "not a proxy request");
	refused("GET example.com/x HTTP/1.1\r\n\r\n", 400,
	    "malformed request target");
	refused("GET ://example.com/x HTTP/1.1\r\n\r\n", 400,
	    "malformed request target");
	refused("GET http://u:p@example.com/ HTTP/1.1\r\n\r\n", 400,
	    "userinfo");
	refused("GET http://allowed.example\\@evil.example/ HTTP/1.1\r\n\r\n",
	    400, "userinfo");
	refused("GET http://example.com/#frag HTTP/1.1\r\n\r\n", 400,
	    "fragment");
	refused("GET http://example.com:/ HTTP/1.1\r\n\r\n", 400,
	    "empty port");
	refused("GET http:///x HTTP/1.1\r\n\r\n", 400, "empty host");
	refused("GET http://127.1/ HTTP/1.1\r\n\r\n", 400, "not a canonical");
	refused("TRACE http://a.example/ HTTP/1.1\r\n\r\n", 405,
	    "method not proxied");
	refused("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n", 400, "not an HTTP/1.1");
	refused("G(T http://a.example/ HTTP/1.1\r\n\r\n", 400,
	    "method not a token");
	refused("GET  http://a.example/ HTTP/1.1\r\n\r\n", 400,
	    "malformed request line");
	refused("GET http://a.example/ HTTP/1.1 \r\n\r\n", 400,
	    "malformed request line");
	refused(" GET http://a.example/ HTTP/1.1\r\n\r\n", 400,
	    "malformed request line");
	refused("\r\nGET http://a.example/ HTTP/1.1\r\n\r\n", 400,
	    "malformed request line");
	refused("GET http://a.example/\xc3\xa9 HTTP/1.1\r\n\r\n", 400,
	    "non-ASCII");
	refused("GET http://a.example/\t HTTP/1.1\r\n\r\n", 400,
	    "control byte in the request line");
}

static void
test_fields(void)
{
	const char *rl = "GET http://a.example/ HTTP/1.1\r\n";
	char s[4096];
	size_t i;
	int r;

#define F(hdrs) (snprintf(s, sizeof(s), "%s%s", rl, hdrs), s)
	refused(F("X: a\r\n b\r\n\r\n"), 400, "obsolete line folding");
	refused(F("X: a\r\n\tb\r\n\r\n"), 400, "obsolete line folding");
	refused(F("X : a\r\n\r\n"), 400, "header name not a token");
	refused(F("X(: a\r\n\r\n"), 400, "header name not a token");
	refused(F(": a\r\n\r\n"), 400, "empty header name");
	refused(F("Xa\r\n\r\n"), 400, "without a colon");
	refused(F("X: a\x01" "b\r\n\r\n"), 400, "control byte in a header");
	refused(F("X: a\x7f\r\n\r\n"), 400, "control byte in a header");
	refused(F("X: a\x1b[2J\r\n\r\n"), 400, "control byte in a header");
	refused(F("X: a\r\r\n\r\n"), 400, "CR not followed by LF");
	refused(F("X: a\rb\r\n\r\n"), 400, "CR not followed by LF");
	refused(F("X: a\nY: b\r\n\r\n"), 400, "bare LF");
	refused("GET http://a.example/ HTTP/1.1\n\n", 400, "bare LF");
	refused("\n", 400, "bare LF");
	refused_n("GET http://a.example/ HTTP/1.1\r\nX: a\0b\r\n\r\n", 42, 400,
	    "NUL byte");
	refused_n("\0", 1, 400, "NUL byte");
	refused(F("Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n"),
	    400, "both Transfer-Encoding and Content-Length");
	refused(F("Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n"),
	    400, "both Transfer-Encoding and Content-Length");
	refused(F("Content-Length: 3\r\nContent-Length: 3\r\n\r\n"), 400,
	    "more than one Content-Length");
	refused(F("Content-Length: 3, 3\r\n\r\n"), 400, "bad Content-Length");
	refused(F("Content-Length: -1\r\n\r\n"), 400, "bad Content-Length");
	refused(F("Content-Length:\r\n\r\n"), 400, "bad Content-Length");
	refused(F("Content-Length: 1234567890123456789\r\n\r\n"), 400,
	    "bad Content-Length");
	refused(F("Transfer-Encoding: chunked, gzip\r\n\r\n"), 400,
	    "not ending in chunked");
	refused(F("Transfer-Encoding: chunked\r\nTransfer-Encoding: \r\n\r\n"),
	    400, "not ending in chunked");
	refused("POST http://a.example/ HTTP/1.0\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n", 400, "HTTP/1.0");
	refused(F("Connection: Content-Length\r\n\r\n"), 400,
	    "framing header");
	refused(F("Connection: close, transfer-encoding\r\n\r\n"), 400,
	    "framing header");
	refused(F("Connection: a b\r\n\r\n"), 400,
	    "malformed Connection header");
	/* the same checks hold for CONNECT */
	refused("CONNECT a.example:443 HTTP/1.1\r\nContent-Length: 1\r\n"
	    "Content-Length: 2\r\n\r\n", 400, "more than one Content-Length");
	refused("CONNECT a.example:443 HTTP/1.1\r\nX : 1\r\n\r\n", 400,
	    "not a token");

	/* 32 Connection options, then 33 */
	strcpy(s, rl);
	strcat(s, "Connection: o0");
	for (i = 1; i < 32; i++)
		snprintf(s + strlen(s), sizeof(s) - strlen(s), ",o%zu", i);
	strcat(s, "\r\n\r\n");
	r = parse(s);
	ok(r == 1, "32 Connection options");
	strcpy(s + strlen(s) - 4, ",o32\r\n\r\n");
	refused(s, 400, "too many Connection options");

	/* 100 fields, then 101 */
	strcpy(s, rl);
	for (i = 0; i < 100; i++)
		snprintf(s + strlen(s), sizeof(s) - strlen(s), "X%zu: v\r\n", i);
	strcat(s, "\r\n");
	r = parse(s);
	ok(r == 1, "100 header fields");
	strcpy(s + strlen(s) - 2, "Y: 1\r\n\r\n");
	refused(s, 431, "too many header fields");
#undef F
}

static void
test_bounds(void)
{
	char *s;
	char small[16], w[8];
	const char *rl;
	int r, st = 0;

	r = parse("");
	ok(r == 0, "nothing yet: more needed");
	r = parse("CONNECT a.example:443 HTTP/1.1\r\nHost: a\r\n");
	ok(r == 0 && rq.kind == 0 && rq.head_len == 0,
	    "no blank line yet: more needed, nothing filled");
	r = parse("CONNECT a.example:443 HTTP/1.1\r\n\r");
	ok(r == 0, "half a blank line: more needed");

	s = sized_head(EGRESS_MAX_HEAD, 1);
	r = parse(s);
	ok(r == 1 && rq.head_len == EGRESS_MAX_HEAD,
	    "a head of exactly EGRESS_MAX_HEAD bytes");
	free(s);
	s = sized_head(EGRESS_MAX_HEAD + 1, 1);
	refused(s, 431, "too long");
	r = parse_n(s, EGRESS_MAX_HEAD - 1);
	ok(r == 0, "EGRESS_MAX_HEAD - 1 bytes without a blank line: more");
	refused_n(s, EGRESS_MAX_HEAD, 431, "too long");
	free(s);
	s = sized_head(20000, 0);
	refused(s, 431, "too long");
	free(s);

	/* the largest growth: "/" for an empty path, an IPv6 literal whose
	 * canonical form is longer, Connection: close */
	s = sized_head(EGRESS_MAX_HEAD, 1);
	rl = "GET http://[::ffff:ffff:ffff]:65535 HTTP/1.1\r\nX: ";
	memcpy(s, rl, strlen(rl));
	r = parse(s);
	ok(r == 1 && strcmp(rq.host, "::ffff:255.255.255.255") == 0 &&
	    rq.out_len == EGRESS_MAX_HEAD + 1 + 6 + 1 + 19,
	    "a full head grows by 27 bytes once rewritten, within out");
	free(s);

	/* a refusal inside the first bytes is not delayed to the bound */
	refused("GET /x HTTP/1.1\r\n", 400, "not a proxy request");

	/* an out buffer too small for the rewritten head */
	r = egress_parse("GET http://a.example/ HTTP/1.1\r\n\r\n", 34, &rq,
	    small, sizeof(small), &st, why, sizeof(why));
	ok(r == -1 && st == 431 && strstr(why, "once rewritten") != NULL &&
	    small[0] == '\0', "out too small: refused, nothing written");
	/* a short why is cut, terminated */
	r = egress_parse("GET /x HTTP/1.1\r\n\r\n", 19, &rq, out, sizeof(out),
	    &st, w, sizeof(w));
	ok(r == -1 && strlen(w) == sizeof(w) - 1 &&
	    strncmp(w, "not a p", 7) == 0, "why cut to whylen");
	/* CONNECT needs no out buffer */
	r = egress_parse("CONNECT a.example:443 HTTP/1.1\r\n\r\n", 34, &rq,
	    NULL, 0, &st, why, sizeof(why));
	ok(r == 1 && rq.out_len == 0, "CONNECT without an out buffer");
}

static void
test_split(void)
{
	split("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n"
	    "User-Agent: curl/8\r\n\r\n\x16\x03\x01");
	split("GET http://example.com/a?b HTTP/1.1\r\nHost: x\r\n"
	    "Connection: keep-alive, X-A\r\nX-A: 1\r\nAccept: */*\r\n\r\nbody");
	split("POST http://[2001:db8::1]:8080/ HTTP/1.0\r\n"
	    "Content-Length: 4\r\n\r\nbody");
	split("GET http://example.com/ HTTP/1.1\r\nX: a\r\n b\r\n\r\n");
	split("GET https://example.com/ HTTP/1.1\r\nX: a\r\n\r\n");
	split("GET http://a.example/ HTTP/1.1\r\nX: 1\r\nY: \x01\r\n\r\n");
	split("GET http://a.example/ HTTP/1.1\r\nX: 1\rY: 2\r\n\r\n");
	split("GET http://a.example/ HTTP/1.1\r\nContent-Length: 1\r\n"
	    "Transfer-Encoding: chunked\r\n\r\n");
}

static void
test_match(void)
{
	struct plan_egress l[] = {
		{ "*.forge.test", 443 },
		{ "192.0.2.7", 8080 },
		{ "2001:db8::1", 443 },
		{ "pkgs.test", 443 },
		{ "forge.test", 22 },
		{ NULL, 443 },
		{ "*.0.2.7", 8080 },
		{ "a.example", 443 },
		{ "*.example", 443 },
	};
	size_t n = sizeof(l) / sizeof(l[0]);

	is_int(egress_match(l, n, "api.forge.test", 443), 0, "wildcard");
	is_int(egress_match(l, n, "a.b.forge.test", 443), 0,
	    "wildcard, two labels more");
	is_int(egress_match(l, n, "forge.test", 443), -1,
	    "a wildcard does not match its own suffix");
	is_int(egress_match(l, n, "xforge.test", 443), -1,
	    "a wildcard needs the dot");
	is_int(egress_match(l, n, "api.forge.test", 80), -1,
	    "wildcard, other port");
	is_int(egress_match(l, n, "forge.test", 22), 4, "exact, its port");
	is_int(egress_match(l, n, "pkgs.test", 443), 3, "exact name");
	is_int(egress_match(l, n, "pkgs.test", 80), -1, "exact, other port");
	is_int(egress_match(l, n, "www.pkgs.test", 443), -1,
	    "a name does not match its subdomains");
	is_int(egress_match(l, n, "pkgs.tes", 443), -1, "a prefix is not it");
	is_int(egress_match(l, n, "192.0.2.7", 8080), 1, "IPv4 literal");
	is_int(egress_match(l, n, "192.0.2.7", 443), -1,
	    "IPv4 literal, other port");
	is_int(egress_match(l, n, "192.0.2.70", 8080), -1,
	    "another IPv4 literal");
	is_int(egress_match(l, n, "2001:db8::1", 443), 2, "IPv6 literal");
	is_int(egress_match(l, n, "2001:db8:0::1", 443), 2,
	    "IPv6 literal, by its address");
	is_int(egress_match(l, n, "2001:db8::2", 443), -1,
	    "another IPv6 literal");
	is_int(egress_match(l, n, "::ffff:192.0.2.7", 8080), -1,
	    "a mapped address is not the IPv4 literal");
	is_int(egress_match(l, n, "1.0.2.7", 8080), -1,
	    "a literal never matches a wildcard");
	is_int(egress_match(l, n, "a.example", 443), 7,
	    "the first entry that matches");
	is_int(egress_match(l, n, "b.a.example", 443), 8,
	    "a name under an exact entry takes the wildcard");
	is_int(egress_match(l, n, "", 443), -1, "empty host");
	is_int(egress_match(l, 0, "pkgs.example", 443), -1, "empty list");
	{
		struct plan_egress lit[] = { { "127.0.0.1", 80 },
			{ "localhost", 80 } };

		is_int(egress_match(lit, 2, "localhost", 80), 1,
		    "a name matches its name entry");
		is_int(egress_match(lit, 1, "localhost", 80), -1,
		    "a name never matches a literal entry");
	}
}

/* ---- the address guard ---- */

static const char *
addr_why(const char *a, const struct egress_self *self)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };

	if (strchr(a, ':') != NULL) {
		if (inet_pton(AF_INET6, a, &s6.sin6_addr) != 1)
			abort();
		return egress_addr_why((struct sockaddr *)&s6, self);
	}
	if (inet_pton(AF_INET, a, &s4.sin_addr) != 1)
		abort();
	return egress_addr_why((struct sockaddr *)&s4, self);
}

static void
addr_is(const char *a, const char *want, const struct egress_self *self)
{
	const char *got = addr_why(a, self);
	int e = (got == NULL && want == NULL) ||
	    (got != NULL && want != NULL && strcmp(got, want) == 0);

	ok(e, "%s: %s", a, want ? want : "may be reached");
	if (!e)
		printf("#   got %s\n", got ? got : "(may be reached)");
}

static void
test_addr4(void)
{
	static const char *const cases[][2] = {
		{ "0.0.0.0", "unspecified" }, { "0.255.1.2", "unspecified" },
		{ "127.0.0.1", "loopback" }, { "127.255.255.254", "loopback" },
		{ "10.0.0.1", "private" }, { "10.255.255.255", "private" },
		{ "172.15.255.255", NULL }, { "172.16.0.0", "private" },
		{ "172.31.255.255", "private" }, { "172.32.0.0", NULL },
		{ "192.168.1.1", "private" }, { "192.169.0.1", NULL },
		{ "100.63.255.255", NULL }, { "100.64.0.0", "shared (CGNAT)" },
		{ "100.127.255.255", "shared (CGNAT)" }, { "100.128.0.0", NULL },
		{ "169.254.169.254", "link-local" }, { "169.255.0.1", NULL },
		{ "224.0.0.1", "multicast" }, { "239.255.255.255", "multicast" },
		{ "240.0.0.1", "reserved" }, { "255.255.255.255", "reserved" },
		{ "192.0.0.8", "reserved" }, { "192.0.1.1", NULL },
		{ "192.88.99.1", "reserved" },
		{ "198.17.255.255", NULL }, { "198.18.0.0", "benchmarking" },
		{ "198.19.255.255", "benchmarking" }, { "198.20.0.0", NULL },
		{ "192.0.2.7", "documentation" },
		{ "198.51.100.1", "documentation" },
		{ "203.0.113.9", "documentation" },
		{ "8.8.8.8", NULL }, { "1.1.1.1", NULL },
		{ "151.101.0.223", NULL }, { "223.255.255.255", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		addr_is(cases[i][0], cases[i][1], NULL);
}

static void
test_addr6(void)
{
	static const char *const cases[][2] = {
		{ "::", "unspecified" }, { "::1", "loopback" },
		{ "fe80::1", "link-local" }, { "febf:ffff::1", "link-local" },
		{ "fec0::1", "site-local" }, { "feff::1", "site-local" },
		{ "fc00::1", "unique local (private)" },
		{ "fdff:ffff::1", "unique local (private)" },
		{ "ff02::1", "multicast" }, { "ff0e::1", "multicast" },
		{ "2001:db8::1", "documentation" },
		{ "2001:db8:ffff::1", "documentation" },
		{ "3fff::1", "documentation" },
		{ "2001::1", "tunnel" }, { "2001:0:ffff::1", "tunnel" },
		{ "2001:2::1", "benchmarking" },
		{ "100::1", "reserved" }, { "100::ffff:1", "reserved" },
		{ "64:ff9b:1::1", "reserved" },
		{ "4000::1", "reserved" }, { "1::1", "reserved" },
		{ "::1:0:0:1", "reserved" },
		{ "2606:4700:4700::1111", NULL }, { "2a00:1450::1", NULL },
		{ "2001:4860::8888", NULL },
		/* IPv4 inside IPv6, judged as that IPv4 */
		{ "::ffff:127.0.0.1", "loopback" },
		{ "::ffff:10.1.2.3", "private" },
		{ "::ffff:169.254.169.254", "link-local" },
		{ "::ffff:0.0.0.0", "unspecified" },
		{ "::ffff:8.8.8.8", NULL },
		{ "::ffff:0:127.0.0.1", "loopback" },
		{ "::ffff:0:8.8.8.8", NULL },
		{ "::127.0.0.1", "loopback" },
		{ "::192.168.0.1", "private" },
		{ "::8.8.8.8", NULL },
		{ "::2", "unspecified" },
		{ "64:ff9b::7f00:1", "loopback" },
		{ "64:ff9b::a00:1", "private" },
		{ "64:ff9b::808:808", NULL },
		{ "2002:7f00:1::1", "loopback" },
		{ "2002:c0a8:101::1", "private" },
		{ "2002:e000:1::", "multicast" },
		{ "2002:808:808::1", NULL },
	};
	size_t i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		addr_is(cases[i][0], cases[i][1], NULL);
}

static void
test_self(void)
{
	struct sockaddr_storage ss[5];
	struct sockaddr_in *s4 = (struct sockaddr_in *)&ss[0];
	struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss[1];
	struct sockaddr_in6 *m6 = (struct sockaddr_in6 *)&ss[2];
	struct sockaddr_un *su = (struct sockaddr_un *)&ss[3];
	struct sockaddr_in6 *n6 = (struct sockaddr_in6 *)&ss[4];
	struct egress_self self = { .addr = ss, .n = 5 }, none = { .n = 0 };
	const char *w;

	memset(ss, 0, sizeof(ss));
	s4->sin_family = AF_INET;
	inet_pton(AF_INET, "93.184.216.34", &s4->sin_addr);
	s6->sin6_family = AF_INET6;
	inet_pton(AF_INET6, "2606:2800:220:1::1", &s6->sin6_addr);
	m6->sin6_family = AF_INET6;
	inet_pton(AF_INET6, "::ffff:8.8.4.4", &m6->sin6_addr);
	su->sun_family = AF_UNIX;
	n6->sin6_family = AF_INET6;
	inet_pton(AF_INET6, "64:ff9b::909:909", &n6->sin6_addr);

	addr_is("93.184.216.34", "this host's address", &self);
	addr_is("93.184.216.35", NULL, &self);
	addr_is("::ffff:93.184.216.34", "this host's address", &self);
	addr_is("64:ff9b::5db8:d822", "this host's address", &self);
	addr_is("2002:5db8:d822::1", "this host's address", &self);
	addr_is("2606:2800:220:1::1", "this host's address", &self);
	addr_is("2606:2800:220:1::2", NULL, &self);
	addr_is("8.8.4.4", "this host's address", &self);
	addr_is("::ffff:8.8.4.4", "this host's address", &self);
	addr_is("64:ff9b::909:909", "this host's address", &self);
	addr_is("9.9.9.9", NULL, &self);
	addr_is("127.0.0.1", "loopback", &self);
	addr_is("93.184.216.34", NULL, NULL);
	addr_is("93.184.216.34", NULL, &none);

	w = egress_addr_why((struct sockaddr *)su, NULL);
	is_str(w, "not an IP address", "AF_UNIX");
	w = egress_addr_why(NULL, NULL);
	is_str(w, "not an IP address", "no address");
}

/* ask: what the broker's kernel query is to the guard.  It answers
 * "this host's address" for 93.184.216.34 and 2606:2800:220:1::1, a
 * failure to tell for 9.9.9.9, and records what it was asked. */
static char asked[512];

static const char *
fake_ask(void *ctx, int af, const unsigned char *a)
{
	char t[64];
	size_t n = strlen(asked);

	is_int(*(int *)ctx, 42, "ask gets its ctx");
	inet_ntop(af, a, t, sizeof(t));
	snprintf(asked + n, sizeof(asked) - n, "%s%s", n ? " " : "", t);
	if (strcmp(t, "93.184.216.34") == 0 ||
	    strcmp(t, "2606:2800:220:1::1") == 0)
		return "this host's address";
	if (strcmp(t, "9.9.9.9") == 0)
		return "cannot tell";
	return NULL;
}

static void
ask_is(const char *a, const char *want, const char *want_asked)
{
	int ctx = 42;
	struct egress_self self = { NULL, 0, fake_ask, &ctx };

	asked[0] = '\0';
	addr_is(a, want, &self);
	is_str(asked, want_asked, "%s: asked %s", a,
	    want_asked[0] ? want_asked : "nothing");
}

static void
test_ask(void)
{
	struct sockaddr_in s4 = { .sin_family = AF_INET };
	struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };
	static const char *const unspec[] = { "::", "::ffff:0.0.0.0" },
	    *const spec[] = { "::1", "::ffff:0.0.0.1", "::ffff:0:0:0",
		"64:ff9b::", "2002::" };
	size_t i;

	ask_is("93.184.216.34", "this host's address", "93.184.216.34");
	ask_is("93.184.216.35", NULL, "93.184.216.35");
	ask_is("9.9.9.9", "cannot tell", "9.9.9.9");
	ask_is("2606:2800:220:1::1", "this host's address",
	    "2606:2800:220:1::1");
	ask_is("2606:2800:220:1::2", NULL, "2606:2800:220:1::2");
	/* A mapped address is a connection to the IPv4 one: only it. */
	ask_is("::ffff:93.184.216.34", "this host's address",
	    "93.184.216.34");
	ask_is("::ffff:93.184.216.35", NULL, "93.184.216.35");
	/* NAT64 and 6to4: the IPv4 address inside, then the IPv6 one. */
	ask_is("64:ff9b::5db8:d822", "this host's address", "93.184.216.34");
	ask_is("64:ff9b::5db8:d823", NULL,
	    "93.184.216.35 64:ff9b::5db8:d823");
	/* A special-purpose range is refused without asking. */
	ask_is("127.0.0.1", "loopback", "");
	ask_is("10.0.0.1", "private", "");
	ask_is("fe80::1", "link-local", "");
	ask_is("::ffff:127.0.0.1", "loopback", "");
	ask_is("0.0.0.0", "unspecified", "");

	inet_pton(AF_INET, "0.0.0.0", &s4.sin_addr);
	ok(egress_addr_unspecified((struct sockaddr *)&s4) == 1,
	    "egress_addr_unspecified: 0.0.0.0");
	inet_pton(AF_INET, "0.0.0.1", &s4.sin_addr);
	ok(egress_addr_unspecified((struct sockaddr *)&s4) == 0,
	    "egress_addr_unspecified: 0.0.0.1 is not");
	for (i = 0; i < sizeof(unspec) / sizeof(unspec[0]); i++) {
		inet_pton(AF_INET6, unspec[i], &s6.sin6_addr);
		ok(egress_addr_unspecified((struct sockaddr *)&s6) == 1,
		    "egress_addr_unspecified: %s", unspec[i]);
	}
	for (i = 0; i < sizeof(spec) / sizeof(spec[0]); i++) {
		inet_pton(AF_INET6, spec[i], &s6.sin6_addr);
		ok(egress_addr_unspecified((struct sockaddr *)&s6) == 0,
		    "egress_addr_unspecified: %s is not", spec[i]);
	}
	ok(egress_addr_unspecified(NULL) == 0, "egress_addr_unspecified: NULL");
}

/* ---- the TLS handshake watch ---- */

/* Feed the record headers r (n of them, each a type and a length; the
 * first a ClientHello) to a fresh watch, each record relayed whole: its
 * last answer, or -1 when a record's length came out wrong. */
struct rec { unsigned char type; unsigned len; };

static int
tls_run(const struct rec *r, size_t n, struct egress_tls *tw)
{
	unsigned char h[6];
	size_t i;
	int last = 1;

	memset(tw, 0, sizeof(*tw));
	tw->on = 1;
	for (i = 0; i < n && last == 1; i++) {
		h[0] = r[i].type;
		h[1] = 3;
		h[2] = i == 0 ? 1 : 3;
		h[3] = (unsigned char)(r[i].len >> 8);
		h[4] = (unsigned char)r[i].len;
		h[5] = 1;	/* ClientHello, for the first */
		last = egress_tls_record(tw, h, i == 0 ? 6 : 5);
		if (last == 1 && tw->left != 5 + r[i].len)
			return -1;
		tw->left = 0;	/* relayed */
	}
	return last;
}

static void
test_tls(void)
{
	struct egress_tls tw;
	static const struct rec refused13[] = { { 22, 512 }, { 20, 1 },
	    { 23, 19 } };
	static const struct rec refused12[] = { { 22, 512 }, { 21, 2 } };
	static const struct rec done13[] = { { 22, 512 }, { 20, 1 },
	    { 23, 53 } };
	static const struct rec done12[] = { { 22, 512 }, { 22, 70 },
	    { 20, 1 }, { 22, 40 } };
	static const struct rec hello[] = { { 22, 512 } };
	static const struct rec notls[] = { { 'G', 0x4554 } };
	static const struct rec many[] = { { 22, 512 }, { 20, 1 }, { 20, 1 },
	    { 20, 1 }, { 20, 1 }, { 20, 1 }, { 20, 1 }, { 20, 1 }, { 21, 2 } };
	unsigned char h[6] = { 22, 3, 1, 0, 5, 2 };

	ok(tls_run(refused13, 3, &tw) == 1 && tw.alert &&
	    egress_tls_gave_up(&tw, 1400) == 1,
	    "tls: TLS 1.3 ClientHello, CCS, encrypted alert: gave up");
	ok(egress_tls_gave_up(&tw, EGRESS_TLS_SERVER_FLIGHT - 1) == 0,
	    "tls: not before the server sent its certificates");
	ok(tls_run(refused12, 2, &tw) == 1 && egress_tls_gave_up(&tw, 900),
	    "tls: TLS 1.2 ClientHello, plaintext alert: gave up");
	ok(tls_run(done13, 3, &tw) == 0 && tw.moved_on && !tw.on &&
	    egress_tls_gave_up(&tw, 1400) == 0,
	    "tls: TLS 1.3 Finished (53 bytes): the handshake moved on");
	ok(tls_run(done12, 4, &tw) == 0 && tw.moved_on &&
	    egress_tls_gave_up(&tw, 1400) == 0,
	    "tls: TLS 1.2 key exchange: moved on");
	ok(tls_run(hello, 1, &tw) == 1 && egress_tls_gave_up(&tw, 1400) == 0,
	    "tls: a ClientHello alone, still open: no verdict");
	tw.closed_first = 1;
	ok(egress_tls_gave_up(&tw, 1400) == 1,
	    "tls: a ClientHello, then the client closed first: gave up");
	ok(tls_run(notls, 1, &tw) == 0 && !tw.hello && !tw.on &&
	    egress_tls_gave_up(&tw, 1400) == 0,
	    "tls: not TLS (an HTTP request through the tunnel): not watched");
	ok(tls_run(many, 9, &tw) == 0 && !tw.on && !tw.alert &&
	    tw.records == EGRESS_TLS_RECORDS,
	    "tls: at most %d records are watched", EGRESS_TLS_RECORDS);
	memset(&tw, 0, sizeof(tw));
	tw.on = 1;
	ok(egress_tls_record(&tw, h, 5) == 0 && !tw.on,
	    "tls: a first header without its handshake type: not watched");
	memset(&tw, 0, sizeof(tw));
	tw.on = 1;
	h[5] = 2;	/* a ServerHello from the client's side */
	ok(egress_tls_record(&tw, h, 6) == 0 && !tw.hello,
	    "tls: a first handshake record that is not a ClientHello");
	memset(&tw, 0, sizeof(tw));
	ok(egress_tls_record(&tw, h, 6) == 0,
	    "tls: a watch not on stays off");
}

int
main(void)
{
	test_connect();
	test_http();
	test_fields();
	test_bounds();
	test_split();
	test_match();
	test_addr4();
	test_addr6();
	test_self();
	test_ask();
	test_tls();
	return done_testing();
}
