/* SPDX-License-Identifier: ISC */
/* relay: one direction of an egress connection's relay (broker.h: each
 * connection relays two, struct dir), its bytes moved within its share
 * of the broker's memory.
 *
 * relay_pump: the direction moved as far as it goes without blocking
 * (below); relay_sock_size: a socket's buffer set to a size (0, or -1
 * with errno); relay_set: direction up (1: the payload's bytes to the
 * destination) of the connection on cfd (the payload's side) and ufd
 * (the destination's) sized to share x; relay_grow: once a round trip
 * has passed, its share doubled from the pool when its rate asks for
 * it; relay_shrink: an idle direction back to the least share;
 * relay_return: what a direction borrowed, back to the pool. */
#ifndef CONFEXEC_RELAY_H
#define CONFEXEC_RELAY_H

#include <stddef.h>
#include <stdint.h>

#include "egress.h"

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
 * RELAY_LOOP_MAX (loopback: no distance to cover).  A direction of
 * share x holds at most
 *   2 x (the destination's socket) + 2 min(x, LOOP_MAX) (the payload's)
 *   + min(x, LOOP_MAX) (its pipe) + 2 RELAY_SEGMENT
 * a socket queue under its limit taking one more segment (64 KiB at
 * most on loopback, with GSO).  Every direction starts at
 * RELAY_MIN, reserved for each of the BROKER_MAXCONN connections
 * in advance; what the run's bound leaves over that (the pool) is lent
 * to the directions that need it: one whose bytes moved in a round trip
 * (at least RELAY_RTT_MIN_US) reach half its share doubles it while the
 * pool has room, as the kernel's own receive autotuning grows a buffer
 * that an application drains faster than it fills (the
 * bandwidth-delay product).  A share goes back to the pool when its
 * connection ends, or when its direction has been idle with its queues
 * empty for RELAY_IDLE_MS.  A stalled direction moves nothing:
 * it grows no more, and keeps what it holds.  A relay pipe is never
 * filled past its share: a slot of a pipe spliced from a socket can
 * hold more than a page, so its F_SETPIPE_SZ alone does not bound its
 * bytes. */
#define RELAY_TURN (1u << 20)	/* bytes per direction per loop turn */
#define RELAY_MEM	(64u << 20)
#define RELAY_MIN (32u << 10)	/* each direction's at first */
#define RELAY_MAX (8u << 20)	/* the destination's side */
#define RELAY_LOOP_MAX	(1u << 20)	/* the payload's side, pipe */
#define RELAY_SEGMENT	(64u << 10)	/* past a socket queue's limit */
#define RELAY_RTT_MIN_US 2000		/* the loop's own delay */
#define RELAY_IDLE_MS 2000
/* The kernel memory a direction of share x may hold. */
#define RELAY_LOOPSIDE(x) ((x) < RELAY_LOOP_MAX ? (x) : RELAY_LOOP_MAX)
#define RELAY_DIR_MEM(x) (2 * (size_t)(x) + 3 * (size_t)RELAY_LOOPSIDE(x) \
	+ 2 * (size_t)RELAY_SEGMENT)

/* One direction of a relay, src to dst: first the bytes of buf (a reply
 * or the rewritten head), then whatever src sends, through a pipe. */
struct dir {
	const char *buf;
	size_t len, off;
	int pipe[2];
	size_t cap;		/* bytes the pipe may hold (its share) */
	size_t share;		/* its share, 0 before relaying */
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
	int src_failed;		/* reading src failed (a reset) */
	struct egress_tls tw;	/* up of a CONNECT only (egress.h) */
};

/* The pool: its size, and what of it is lent to shares past the least. */
struct relay_pool {
	size_t lent, size;
};

/* Returns the events it waits for: EPOLLIN on src (bit 0) or EPOLLOUT
 * on dst (bit 1), with bit 2 when it stopped at RELAY_TURN (src still
 * ready); 0 when it is done (src ended, all delivered, dst shut) or -1
 * on an error (errno).  *last: when bytes last moved (ms). */
int relay_pump(struct dir *d, int src, int dst, uint64_t *last);
int relay_sock_size(int fd, int force, int opt, size_t size);
int relay_set(struct dir *d, int up, int cfd, int ufd, size_t x);
void relay_return(struct relay_pool *p, struct dir *d);
void relay_grow(struct relay_pool *p, struct dir *d, int up, int cfd,
    int ufd);
void relay_shrink(struct relay_pool *p, struct dir *d, int up, int cfd,
    int ufd, uint64_t now);

#endif
