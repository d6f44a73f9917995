/* SPDX-License-Identifier: ISC */
/* relay: one direction of an egress connection's relay, its bytes moved
 * within its share of the broker's memory (relay.h). */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>
#include <linux/sockios.h>

#include "clock.h"
#include "egress.h"
#include "relay.h"

/* Set fd's buffer (force, or plain opt without CAP_NET_ADMIN: then no
 * larger than net.core's rmem_max or wmem_max, which holds less) to
 * size; a receive buffer's window clamp too (a window clamped when the
 * connection was made cannot grow otherwise).  0, or -1 with errno. */
int
relay_sock_size(int fd, int force, int opt, size_t size)
{
	int v = (int)size, win = 2 * (int)size;

	if (setsockopt(fd, SOL_SOCKET, force, &v, sizeof(v)) == -1 &&
	    (errno != EPERM || setsockopt(fd, SOL_SOCKET, opt, &v,
	    sizeof(v)) == -1))
		return -1;
	if (opt == SO_RCVBUF && setsockopt(fd, IPPROTO_TCP,
	    TCP_WINDOW_CLAMP, &win, sizeof(win)) == -1)
		return -1;
	return 0;
}

/* Size direction d (up 1: the payload's bytes to the destination) of the
 * connection on cfd and ufd to share x: its source socket's receive
 * buffer, its pipe, its destination socket's send buffer; the payload's
 * side and the pipe at most RELAY_LOOP_MAX.  Its pipe is empty when it shrinks.  0, or -1
 * with errno (some sizes may be set). */
int
relay_set(struct dir *d, int up, int cfd, int ufd, size_t x)
{
	size_t lx = RELAY_LOOPSIDE(x);
	int n;

	if (relay_sock_size(up ? cfd : ufd, SO_RCVBUFFORCE, SO_RCVBUF,
	    up ? lx : x) == -1 || relay_sock_size(up ? ufd : cfd,
	    SO_SNDBUFFORCE, SO_SNDBUF, up ? x : lx) == -1)
		return -1;
	/* A pipe the caller's limits keep smaller holds less. */
	n = fcntl(d->pipe[1], F_SETPIPE_SZ, (int)lx);
	if (n == -1)
		n = fcntl(d->pipe[1], F_GETPIPE_SZ);
	if (n == -1)
		return -1;
	d->cap = (size_t)n < lx ? (size_t)n : lx;
	return 0;
}

/* What direction d borrowed from the pool, back to it. */
void
relay_return(struct relay_pool *p, struct dir *d)
{
	if (d->share > RELAY_MIN)
		p->lent -= RELAY_DIR_MEM(d->share) -
		    RELAY_DIR_MEM(RELAY_MIN);
	d->share = 0;
}

/* Once a round trip (at least RELAY_RTT_MIN_US) has passed since it
 * was last measured: double direction up's share when the bytes it
 * moved in a round trip reached half of it and the pool has room. */
void
relay_grow(struct relay_pool *p, struct dir *d, int up, int cfd, int ufd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);
	uint64_t now = now_ns(CLOCK_MONOTONIC) / 1000u, span, rtt, moved;
	size_t need;

	if (d->share == 0 || ufd == -1)
		return;
	if (d->mark_us == 0) {
		d->mark_us = now;
		d->mark_bytes = d->bytes;
		return;
	}
	rtt = d->rtt_us > RELAY_RTT_MIN_US ? d->rtt_us : RELAY_RTT_MIN_US;
	span = now - d->mark_us;
	if (span < rtt)
		return;
	moved = d->bytes - d->mark_bytes;
	d->mark_us = now;
	d->mark_bytes = d->bytes;
	if (getsockopt(ufd, IPPROTO_TCP, TCP_INFO, &ti, &len) == 0 &&
	    len >= offsetof(struct tcp_info, tcpi_rtt) + sizeof(ti.tcpi_rtt))
		d->rtt_us = ti.tcpi_rtt;
	if (d->share >= RELAY_MAX || moved * rtt / span * 2 < d->share)
		return;
	need = RELAY_DIR_MEM(2 * d->share) - RELAY_DIR_MEM(d->share);
	if (p->lent + need > p->size)
		return;
	/* Counted before it is set: a size set halfway is within it. */
	p->lent += need;
	d->share *= 2;
	(void)relay_set(d, up, cfd, ufd, d->share);
}

/* A direction idle for RELAY_IDLE_MS, nothing queued in its
 * sockets or its pipe: back to the least share, the rest to the pool. */
void
relay_shrink(struct relay_pool *p, struct dir *d, int up, int cfd, int ufd,
    uint64_t now)
{
	int in = 0, out = 0;

	if (d->bytes != d->tick_bytes || d->tick_ms == 0) {
		d->tick_bytes = d->bytes;
		d->tick_ms = now;
		return;
	}
	if (d->share <= RELAY_MIN || now - d->tick_ms <
	    RELAY_IDLE_MS || d->pend > 0 || d->off < d->len)
		return;
	if (ioctl(up ? cfd : ufd, FIONREAD, &in) == -1 || in > 0 ||
	    ioctl(up ? ufd : cfd, SIOCOUTQ, &out) == -1 || out > 0)
		return;
	if (relay_set(d, up, cfd, ufd, RELAY_MIN) == -1)
		return;		/* still counted at its share */
	relay_return(p, d);
	d->share = RELAY_MIN;
	d->mark_us = 0;
}

/* What d holds, its buf and then its pipe, written to dst: 0 all of it,
 * 2 dst is full (EPOLLOUT), -1 an error (errno). */
static int
deliver(struct dir *d, int dst)
{
	ssize_t n;

	while (d->off < d->len) {
		n = write(dst, d->buf + d->off, d->len - d->off);
		if (n == -1 && errno == EAGAIN)
			return 2;
		if (n == -1)
			return -1;
		d->off += (size_t)n;
		if (d->count_buf)
			d->bytes += (uint64_t)n;
	}
	while (d->pend > 0) {
		n = splice(d->pipe[0], NULL, dst, NULL, d->pend,
		    SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n == -1 && errno == EAGAIN)
			return 2;
		if (n == 0)
			errno = EPIPE;
		if (n <= 0)
			return -1;
		d->pend -= (size_t)n;
		d->bytes += (uint64_t)n;
	}
	return 0;
}

/* Move one direction as far as it goes without blocking (relay.h). */
/* At a record's start, its header read with MSG_PEEK and judged
 * (egress_tls_record).  1 while the current record is being watched
 * (tw->left its bytes still to splice), 2 when src has nothing yet
 * (wait: what comes next is a record's start), 0 otherwise (the end,
 * or the watch is over: tw->on 0). */
static int
tls_record(struct egress_tls *tw, int src)
{
	unsigned char h[6];
	ssize_t n;

	if (tw->left > 0)
		return 1;
	n = recv(src, h, tw->records == 0 ? 6 : 5, MSG_PEEK | MSG_DONTWAIT);
	if (n == -1 && errno == EAGAIN)
		return 2;		/* nothing yet */
	if (n == 0)
		return 0;		/* the end: splice says so */
	return egress_tls_record(tw, h, n < 0 ? 0 : (size_t)n);
}

/* How many bytes to splice from src: the share, or while a TLS
 * handshake is watched the rest of the current record; 0 to wait for
 * a record's start. */
static size_t
tls_want(struct dir *d, int src)
{
	int t;

	if (!d->tw.on)
		return d->cap;
	t = tls_record(&d->tw, src);
	if (t == 2)
		return 0;
	if (t == 1 && d->tw.left < d->cap)
		return d->tw.left;
	return d->cap;
}

int
relay_pump(struct dir *d, int src, int dst, uint64_t *last)
{
	size_t moved = 0, want;
	ssize_t n;
	int k;

	for (;;) {
		if ((k = deliver(d, dst)) != 0)
			return k;
		if (d->eof) {
			if (!d->shut)
				shutdown(dst, SHUT_WR);
			d->shut = 1;
			return 0;
		}
		if (moved >= RELAY_TURN)
			return 1 | 4;	/* more later: src is still ready */
		/* At most cap into the empty pipe: spliced from a socket,
		 * one slot may take more than a page.  While a TLS
		 * handshake is watched, one record at a time. */
		if ((want = tls_want(d, src)) == 0)
			return 1;
		n = splice(src, NULL, d->pipe[1], NULL, want,
		    SPLICE_F_NONBLOCK | SPLICE_F_MOVE);
		if (n == -1 && errno == EAGAIN)
			return 1;
		if (n == -1) {
			d->src_failed = 1;
			return -1;
		}
		if (d->tw.on)
			d->tw.left -= (size_t)n < d->tw.left ?
			    (size_t)n : d->tw.left;
		if (n == 0)
			d->eof = 1;
		d->pend += (size_t)n;
		moved += (size_t)n;
		*last = now_ns(CLOCK_MONOTONIC) / 1000000u;
	}
}
