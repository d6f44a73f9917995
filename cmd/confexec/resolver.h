/* SPDX-License-Identifier: ISC */
/* resolver: names resolved by a helper process, for the egress broker
 * (broker.h), never by the payload and never blocking the loop.  It
 * knows nothing of the broker: a request carries the asker's slot and
 * generation, and each answer goes back through rs->answer with them.
 *
 * resolver_ask: ask for name (0, or -1: the resolver cannot be
 * reached); resolver_read, when rs->fd is readable: every answer read
 * given to rs->answer (addresses with port 0); -1 when
 * the resolver ended (stopped: every name it owed fails, RESOLVER_LOST);
 * resolver_stop: stop it. */
#ifndef CONFEXEC_RESOLVER_H
#define CONFEXEC_RESOLVER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>
#include <sys/types.h>

#include "loop.h"

#define RESOLVER_NADDR 16		/* addresses answered per name */
#define RESOLVER_LOST INT32_MIN		/* an answer's gai: no resolver */

struct resolver {
	struct source *s;	/* the loop's source that polls fd */
	uint32_t tag;		/* fd's tag (loop_watch) */
	const sigset_t *mask;	/* the resolver's signal mask */
	int drop;		/* run it as nobody */
	/* An answer: addresses (port 0) for the request of slot and gen. */
	void (*answer)(void *ctx, uint32_t slot, uint32_t gen, int gai,
	    struct sockaddr_storage *a, size_t n);
	void *ctx;
	int fd;			/* -1 until the first request */
	pid_t pid;
};

int resolver_ask(struct resolver *rs, uint32_t slot, uint32_t gen,
    const char *name);
int resolver_read(struct resolver *rs);
void resolver_stop(struct resolver *rs);

#endif
