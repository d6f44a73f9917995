/* SPDX-License-Identifier: ISC */
/* confexec's egress broker (confexec(1), EGRESS): the parts of the
 * source src_egress.c.
 *
 *   src_egress.c  the listener the boundary made in the run's network
 *                 (boundary_egress), the loop entry points, the report
 *   broker.c      one payload connection: its request, the decision,
 *                 the upstream connect, the relay, timeouts, its
 *                 journal event
 *   brokersay.c   its lines on stderr, each destination once
 *   relay.c       one direction of a relay (splice), within its share
 *                 of the broker's memory (relay.h)
 *   resolver.c    names resolved by a helper process, never by the
 *                 payload and never blocking the loop (resolver.h)
 *   hostroute.c   whether a resolved address is this host's: its route
 *                 asked of the kernel at each connection
 *
 * Every descriptor is non-blocking; a handler does bounded work and
 * returns to the loop. */
#ifndef CONFEXEC_BROKER_H
#define CONFEXEC_BROKER_H

#include <netinet/in.h>
#include <stdint.h>
#include <sys/socket.h>

#include "egress.h"
#include "loop.h"
#include "plan.h"
#include "resolver.h"
#include "relay.h"
#include "run.h"

#define BROKER_MAXCONN	64		/* payload connections at once */
#define BROKER_MAXCONN_TEXT "64"
#define BROKER_HEAD_MS	10000		/* the request head must arrive */
#define BROKER_CONNECT_MS 10000		/* resolve and connect */
#define BROKER_IDLE_MS	300000		/* a relay with no byte either way */
#define BROKER_NADDR	RESOLVER_NADDR	/* addresses tried per name */

/* The memory every connection's shares may hold together (relay.h):
 * each direction's least share reserved for every connection in
 * advance, the rest the pool lent to the directions that need it. */
#define BROKER_POOL	(RELAY_MEM - BROKER_MAXCONN * 2 * \
	RELAY_DIR_MEM(RELAY_MIN))
_Static_assert(BROKER_MAXCONN * 2 * RELAY_DIR_MEM(RELAY_MIN) <
    RELAY_MEM, "the broker's minimal shares are past its memory bound");
_Static_assert(RELAY_DIR_MEM(RELAY_MAX) <= BROKER_POOL,
    "one direction's largest share is past the pool");
#define EGRESS_EVENTS_LOGGED 4096	/* events per run; then counted */
_Static_assert(EGRESS_EVENTS_LOGGED * LOG_EGRESS_RECORD_MAX <=
    LOG_EGRESS_SHARE, "the egress events fit the broker's share");
/* Refused destinations said on stderr (say.c), one line each, the first
 * time each is refused; refusals on further destinations are counted and
 * said in one line at the end. */
#define EGRESS_SAID 16
/* Failed connections (cannot resolve, cannot connect, reset, a TLS
 * client that gave up) said on stderr likewise, at most EGRESS_SAID_FAILED
 * lines, each destination and cause once; the rest counted and said in
 * one line at the end. */
#define EGRESS_SAID_FAILED 16

/* epoll tags of the source's extra descriptors. */
#define TAG_TICK	0xffffu
#define TAG_RESOLVER	0xfffeu
#define TAG_CONN(i, up)	((uint32_t)(i) << 1 | (up))

/* What the egress broker did in the run (end record). */
struct egress_stats {
	uint64_t allowed, refused;	/* connections */
	uint64_t unlogged;		/* events past EGRESS_EVENTS_LOGGED */
	uint64_t said;			/* refusals said on stderr */
	uint64_t unsaid;		/* refused destinations past
					 * EGRESS_SAID, or lines stderr did
					 * not take at once */
	uint64_t failed_said;		/* failures said on stderr */
	uint64_t failed_unsaid;		/* failures past EGRESS_SAID_FAILED
					 * or not taken at once */
};

enum cstate { C_FREE, C_HEAD, C_RESOLVE, C_CONNECT, C_REFUSE, C_RELAY };
enum cverdict { CV_NONE, CV_ALLOWED, CV_REFUSED, CV_FAILED };

struct conn {
	enum cstate st;
	uint32_t gen;		/* tells a resolver answer's connection */
	int cfd, ufd;		/* the payload's side, the destination's */
	uint32_t cev, uev;	/* events polled on each (0: none) */
	char head[EGRESS_MAX_HEAD];
	size_t hlen;
	char out[2 * EGRESS_MAX_HEAD + 64];	/* HTTP: the head sent
						 * upstream, then the body
						 * bytes that came with it */
	char reply[512];
	struct egress_req rq;
	int have_rq;
	int said;		/* its line on stderr: said, or counted
				 * unsaid (once) */
	struct sockaddr_storage addr[BROKER_NADDR];
	size_t naddr, next;
	char address[INET6_ADDRSTRLEN];	/* the one connected, or "" */
	uint64_t t0, deadline, last;	/* ms, CLOCK_MONOTONIC */
	enum cverdict verdict;
	int status;
	char why[256];
	char grant[PLAN_MAX_HOST_LEN + 48];	/* a refusal: the --egress
						 * that would allow it, or
						 * "" (none would) */
	struct dir up, down;	/* payload to destination, and back */
};

/* The broker's state, one per run. */
struct broker {
	struct run *r;
	struct source *s;
	uint16_t port;		/* the listener's, in the run's network */
	struct egress_stats st;	/* what it did (end record, inspect) */
	struct conn *conn[BROKER_MAXCONN];
	size_t nconn;
	struct relay_pool pool;	/* BROKER_POOL, lent to shares past the least */
	uint32_t gen;
	int tickfd;
	int spare;		/* a descriptor kept for running out (shed) */
	int said_rest;		/* the count of refusals not said, said */
	int said_failed_rest;	/* the count of failures not said, said */
	struct egress_self self;	/* its ask: hostroute.c */
	/* hostroute.c */
	int rtfd;		/* NETLINK_ROUTE, in confexec's network */
	uint32_t rtseq;
	uint16_t rtport;	/* the port of the address asked about */
	struct resolver res;	/* its names: resolver.c */
	uint64_t events;	/* journaled so far */
};

uint64_t broker_ms(void);

/* broker.c */
void broker_accept(struct broker *b, int fd);
void broker_io(struct broker *b, size_t i, int up, uint32_t events);
void broker_tick(struct broker *b, size_t i, uint64_t now);
/* The resolver's answer (b->res.answer, ctx b); broker_resolver: its
 * answers are ready (TAG_RESOLVER), and when it ended every name it
 * owed fails. */
void broker_answered(void *ctx, uint32_t slot, uint32_t gen, int gai,
    struct sockaddr_storage *a, size_t n);
void broker_resolver(struct broker *b);
void broker_end(struct broker *b, size_t i, const char *why);

/* The event of a connection turned away before it had a slot (status
 * 503 when too many are open; 0 when out of descriptors). */
void broker_event_away(struct broker *b, int status, const char *why);

/* hostroute.c: open the kernel socket and set b->self.ask (0, or -1
 * with errno); close it. */
int hostroute_open(struct broker *b);
void hostroute_close(struct broker *b);

#endif
