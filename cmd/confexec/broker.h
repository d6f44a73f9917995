/* SPDX-License-Identifier: ISC */
/* confexec's egress broker (confexec(1), EGRESS): the parts of the
 * source src_egress.c.
 *
 *   src_egress.c  the run's network (child_netns), the listener, the
 *                 loop entry points, the report
 *   broker.c      one payload connection: its request, the decision,
 *                 the upstream connect, the relay (splice), timeouts,
 *                 its journal event
 *   resolver.c    names resolved by a helper process, never by the
 *                 payload and never blocking the loop
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
#include "run.h"

#define BROKER_MAXCONN	64		/* payload connections at once */
#define BROKER_MAXCONN_TEXT "64"
#define BROKER_HEAD_MS	10000		/* the request head must arrive */
#define BROKER_CONNECT_MS 10000		/* resolve and connect */
#define BROKER_IDLE_MS	300000		/* a relay with no byte either way */
#define BROKER_NADDR	RESOLVER_NADDR	/* addresses tried per name */
#define BROKER_RELAY_TURN (1u << 20)	/* bytes per direction per turn */

/* The memory the broker's sockets and pipes may hold in the kernel, all
 * connections together (confexec(1), Egress), whatever the payload and
 * the destinations do.  Left to itself a TCP socket grows its buffers to
 * tcp_rmem and tcp_wmem's largest (MiB each), charged to confexec, not
 * to the run; a size set with SO_RCVBUF or SO_SNDBUF is kept (no
 * autotuning) and held as twice what was asked (socket(7)).  The broker
 * sets them itself, once a connection is established (set before the
 * handshake, a receive buffer would also fix its window scale, and the
 * window could never grow past it: tcp(7), TCP_WINDOW_CLAMP).
 *
 * Each direction of a connection (payload to destination, and back) has
 * a share x: its source socket's SO_RCVBUF, its pipe and its destination
 * socket's SO_SNDBUF, the payload's side and the pipe at most
 * BROKER_LOOP_MAX (loopback: no distance to cover).  A direction of
 * share x holds at most
 *   2 x (the destination's socket) + 2 min(x, LOOP_MAX) (the payload's)
 *   + min(x, LOOP_MAX) (its pipe) + 2 BROKER_SEGMENT
 * a socket queue under its limit taking one more segment (64 KiB at
 * most on loopback, with GSO).  Every direction starts at
 * BROKER_SHARE_MIN, reserved for each of the BROKER_MAXCONN connections
 * in advance; what the run's bound leaves over that (the pool) is lent
 * to the directions that need it: one whose bytes moved in a round trip
 * (at least BROKER_RTT_MIN_US) reach half its share doubles it while the
 * pool has room, as the kernel's own receive autotuning grows a buffer
 * that an application drains faster than it fills (the
 * bandwidth-delay product).  A share goes back to the pool when its
 * connection ends, or when its direction has been idle with its queues
 * empty for BROKER_IDLE_SHRINK_MS.  A stalled direction moves nothing:
 * it grows no more, and keeps what it holds.  A relay pipe is never
 * filled past its share: a slot of a pipe spliced from a socket can
 * hold more than a page, so its F_SETPIPE_SZ alone does not bound its
 * bytes. */
#define BROKER_MEM	(64u << 20)
#define BROKER_SHARE_MIN (32u << 10)	/* each direction's at first */
#define BROKER_SHARE_MAX (8u << 20)	/* the destination's side */
#define BROKER_LOOP_MAX	(1u << 20)	/* the payload's side, pipe */
#define BROKER_SEGMENT	(64u << 10)	/* past a socket queue's limit */
#define BROKER_RTT_MIN_US 2000		/* the loop's own delay */
#define BROKER_IDLE_SHRINK_MS 2000
/* The kernel memory a direction of share x may hold. */
#define BROKER_LOOPSIDE(x) ((x) < BROKER_LOOP_MAX ? (x) : BROKER_LOOP_MAX)
#define BROKER_DIR_MEM(x) (2 * (size_t)(x) + 3 * (size_t)BROKER_LOOPSIDE(x) \
	+ 2 * (size_t)BROKER_SEGMENT)
/* What the minimal shares of every connection leave for the pool. */
#define BROKER_POOL	(BROKER_MEM - BROKER_MAXCONN * 2 * \
	BROKER_DIR_MEM(BROKER_SHARE_MIN))
/* Segments as the path makes them: the 8 KiB clamp (TCP_MAXSEG) that
 * kept buffers of 64 KiB from waiting on delayed ACKs cost CPU (an ACK
 * every 16 KiB on loopback); a share that small now grows as soon as
 * its bytes move. */
_Static_assert(BROKER_MAXCONN * 2 * BROKER_DIR_MEM(BROKER_SHARE_MIN) <
    BROKER_MEM, "the broker's minimal shares are past its memory bound");
_Static_assert(BROKER_DIR_MEM(BROKER_SHARE_MAX) <= BROKER_POOL,
    "one direction's largest share is past the pool");
#define EGRESS_EVENTS_LOGGED 4096	/* events per run; then counted */
_Static_assert(EGRESS_EVENTS_LOGGED * LOG_EGRESS_RECORD_MAX <=
    LOG_EGRESS_SHARE, "the egress events fit the broker's share");
/* Refused destinations said on stderr (say.c), one line each, the first
 * time each is refused; refusals on further destinations are counted and
 * said in one line at the end. */
#define EGRESS_SAID 16

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
};

enum cstate { C_FREE, C_HEAD, C_RESOLVE, C_CONNECT, C_REFUSE, C_RELAY };
enum cverdict { CV_NONE, CV_ALLOWED, CV_REFUSED, CV_FAILED };

/* One direction of a relay, src to dst: first the bytes of buf (a reply
 * or the rewritten head), then whatever src sends, through a pipe. */
struct dir {
	const char *buf;
	size_t len, off;
	int pipe[2];
	size_t cap;		/* bytes the pipe may hold (its share) */
	size_t share;		/* its share (broker.h), 0 before relaying */
	uint64_t mark_us;	/* when its rate was last measured */
	uint64_t mark_bytes;	/* bytes delivered then */
	uint64_t tick_ms;	/* when a tick last saw bytes move */
	uint64_t tick_bytes;	/* bytes delivered then */
	uint32_t rtt_us;	/* the destination's smoothed round trip */
	size_t pend;		/* bytes in the pipe */
	int eof, shut;		/* src ended; dst shut for writing */
	uint64_t bytes;		/* delivered to dst (buf when counted) */
	int count_buf;		/* buf is the payload's (a request head) */
	int dead;		/* failed: the other direction goes on */
};

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
	size_t lent;		/* of BROKER_POOL, to shares past the least */
	uint32_t gen;
	int tickfd;
	int spare;		/* a descriptor kept for running out (shed) */
	int said_rest;		/* the count of refusals not said, said */
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
