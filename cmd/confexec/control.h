/* SPDX-License-Identifier: ISC */
/* control: the clients of the control socket (confexec-control(5)),
 * shared by src_control.c (the socket, the peers, the source) and
 * control.c (requests and answers).  Not a common/ module.
 *
 * Bounds: CTL_CLIENTS clients at once (one more is told so and closed);
 * a request line of at most CTL_LINE_MAX bytes; per client an output
 * buffer of at most CTL_OUT_MAX bytes, past which the client is dropped
 * (a follower is paced instead: its next page is built only once the
 * last one left).  Every descriptor is non-blocking; a handler does one
 * read, answers at most CTL_TURN requests, and the writes that do not
 * block. */
#ifndef CONFEXEC_CONTROL_H
#define CONFEXEC_CONTROL_H

#include <stdint.h>
#include <sys/types.h>

#include "confexec.h"
#include "ctlreq.h"
#include "loop.h"

#define CTL_CLIENTS 16
#define CTL_OUT_MAX (4u << 20)
#define CTL_REFUSALS_LOGGED 64	/* control_refused records per run */
#define CTL_TURN 8		/* requests answered per turn of the loop */
#define CTL_QUIET_MS 50		/* after the end: serve until quiet */
#define CTL_LINGER_MS 1000	/* ... or this long at most */

struct client {
	int used;
	int fd;
	uint32_t gen;		/* in the loop's tag: stale events go */
	char *in;		/* CTL_LINE_MAX + 1 bytes */
	size_t inlen;
	int eof;		/* the peer shut its side: no more reads */
	char *out;
	size_t outlen, outoff, outcap;
	uint32_t events;	/* what the loop polls for it */
	int follow;		/* subscribe "follow": next page at next */
	uint64_t next, limit;
	int closing;		/* close once out is written */
};

struct ctl {
	struct run *r;
	struct source *src;
	int fd;			/* the listening socket */
	int dirfd;		/* its directory (O_PATH) */
	char base[83];		/* its name there */
	const char *path;	/* bound by this path: no /proc */
	int made;		/* the name is ours to remove */
	pid_t pid;		/* who made it */
	dev_t dev;
	ino_t ino;
	unsigned refused;	/* peers refused */
	int delivered;		/* a cancel was delivered */
	uint32_t gen;
	struct client c[CTL_CLIENTS];
};

/* A served peer: a client slot, polled.  Returns it, or -1 (full). */
int ctl_client_add(struct ctl *c, int fd);

/* A client's descriptor is ready (tag from ctl_client_add's watch):
 * read, answer, write.  SRC_END when a cancel was delivered. */
enum src_ret ctl_client_ready(struct ctl *c, uint32_t tag, uint32_t events);

/* New records in the log: followers get their next page. */
void ctl_push_all(struct ctl *c);

/* After the end record: serve (accepting with accept_all) until the
 * clients are quiet for CTL_QUIET_MS, CTL_LINGER_MS at most. */
void ctl_linger(struct ctl *c, void (*accept_all)(void));

void ctl_client_close_all(struct ctl *c);

#endif
