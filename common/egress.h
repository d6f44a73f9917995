/* SPDX-License-Identifier: ISC */
/* egress: what confexec's egress broker decides, without any I/O: the
 * proxy request a payload sends (HTTP/1.1 CONNECT, or a plain HTTP
 * request in absolute form), whether a destination is on the plan's
 * list, and whether an address the broker resolved may be reached.
 * Everything here reads untrusted bytes; nothing allocates beyond the
 * caller's buffers, exits or prints. */
#ifndef BORNE_EGRESS_H
#define BORNE_EGRESS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#include "plan.h"

#define EGRESS_MAX_HEAD	8192	/* request line and headers, CRLFCRLF incl. */

enum egress_kind { EGRESS_CONNECT = 1, EGRESS_HTTP = 2 };

struct egress_req {
	enum egress_kind kind;
	char host[PLAN_MAX_HOST_LEN + 1];	/* lowercase name, or an IP
						 * literal as plan_ip_text
						 * writes it (no brackets) */
	int is_literal;		/* host is an IPv4 or IPv6 literal */
	uint16_t port;		/* CONNECT: required; HTTP: default 80 */
	size_t head_len;	/* bytes of buf up to and including the
				 * blank line; what follows is body */
	/* EGRESS_HTTP: the head to send upstream, written by
	 * egress_parse into the caller's out buffer: the request line in
	 * origin form ("GET /path?q HTTP/1.1"), the client's headers minus
	 * Proxy-*, Connection and Keep-Alive (and the headers Connection
	 * names), then "Connection: close", then the blank line. */
	size_t out_len;
};

/* Parse the head of one proxy request from buf (len bytes received so
 * far).  Returns 1 when the head is complete and acceptable (rq filled;
 * for EGRESS_HTTP the upstream head in out, outsize bytes at least
 * EGRESS_MAX_HEAD + 64), 0 when more bytes are needed (len <
 * EGRESS_MAX_HEAD and no blank line yet), or -1 when refused: *status
 * gets the HTTP status to answer (400 malformed, 405 a method or scheme
 * not proxied, 431 head over EGRESS_MAX_HEAD, ...) and why a one-line
 * reason (no CR or LF, at most whylen bytes incl. the NUL). */
int egress_parse(const char *buf, size_t len, struct egress_req *rq,
    char *out, size_t outsize, int *status, char *why, size_t whylen);

/* Whether host:port (host as egress_parse gives it) is on the list:
 * the index of the first entry that matches (a name exactly, a
 * "*.suffix" entry any name ending in ".suffix", a literal only the same
 * address), or -1. */
long egress_match(const struct plan_egress *list, size_t n,
    const char *host, uint16_t port);

/* The host's own addresses, as the caller knows them: a list (every
 * interface, IPv4 and IPv6), and/or ask, called with an address (af
 * AF_INET, 4 bytes, or AF_INET6, 16) that no special-purpose range
 * refused: NULL when a connection to it leaves this host, else a static
 * reason ("this host's address", or why that cannot be told: the
 * address is then refused too).  ask may do I/O (confexec's broker asks
 * the kernel for its route at each connection); ctx is its own. */
struct egress_self {
	struct sockaddr_storage *addr;
	size_t n;
	const char *(*ask)(void *ctx, int af, const unsigned char *a);
	void *ctx;
};

/* Whether the broker may connect to sa (AF_INET or AF_INET6, as
 * resolved): NULL when it may, else a static reason ("loopback",
 * "private", "link-local", "multicast", "unspecified", "reserved",
 * "this host's address", ...).  IPv4-mapped and IPv4-compatible IPv6
 * addresses are judged as the IPv4 address they carry.  self may be
 * NULL. */
const char *egress_addr_why(const struct sockaddr *sa,
    const struct egress_self *self);

/* Whether sa is an unspecified address (plan_ip_unspecified): one the
 * broker never connects to, listed or not.  1 or 0. */
int egress_addr_unspecified(const struct sockaddr *sa);

/* A TLS client's first records through a CONNECT tunnel, judged by
 * their 5-byte headers only (the broker reads them with MSG_PEEK and
 * relays each record whole), to tell a client that gave up during the
 * handshake: its ClientHello, then nothing but ChangeCipherSpec and an
 * alert (plaintext, or TLS 1.3's encrypted one: an application_data
 * record of 19 bytes), or a close while the server's side was open.
 * Anything else, or EGRESS_TLS_RECORDS records, ends the watch. */
#define EGRESS_TLS_RECORDS 8
/* Bytes the server must have sent before a client that gave up is said
 * to have seen its certificates (a ServerHello alone is ~100). */
#define EGRESS_TLS_SERVER_FLIGHT 300
struct egress_tls {
	int on;			/* still watching (the caller sets it) */
	int hello;		/* the first record was a ClientHello */
	int moved_on;		/* a record past the handshake: no refusal */
	int alert;		/* an alert after the ClientHello */
	int closed_first;	/* the client ended its side while the
				 * server's was open (the caller sets it) */
	unsigned records;	/* judged so far */
	size_t left;		/* bytes of the current record still to
				 * relay (the caller counts them down) */
};

/* Judge the header of the record that starts now: h, n bytes (6 for the
 * first record, the ClientHello's handshake type included; 5 after).
 * Returns 1 while watching (tw->left: the record's length with its
 * header), 0 once the watch is over (tw->on 0: not TLS, the handshake
 * moved on, a header cut short, or enough records). */
int egress_tls_record(struct egress_tls *tw, const unsigned char *h,
    size_t n);

/* Whether the client gave up during the handshake after server_bytes
 * of the server's: 1 or 0. */
int egress_tls_gave_up(const struct egress_tls *tw, uint64_t server_bytes);

#endif
