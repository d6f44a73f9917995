/* SPDX-License-Identifier: ISC */
/* ctl: the clients of the control socket (confexec-control(5)), for
 * src_control.c (the socket, the peers, the source): requests and
 * answers.  Not a common/ module.
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

#include "ctlreq.h"
#include "loop.h"
#include "run.h"

#define CTL_CLIENTS 16
#define CTL_OUT_MAX (4u << 20)
#define CTL_REFUSALS_LOGGED 64	/* control_refused records per run */
_Static_assert(CTL_REFUSALS_LOGGED * LOG_REFUSED_RECORD_MAX <=
    LOG_CONTROL_SHARE, "the refusals fit the control socket's share");
#define CTL_TURN 8		/* requests answered per turn of the loop */
#define CTL_QUIET_MS 50		/* after the end: serve until quiet */
#define CTL_LINGER_MS 1000	/* ... or this long at most */

struct client {
	int used;
	int fd;
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
	uid_t caller_uid;	/* served, with root */
	unsigned refused;	/* peers refused */
	int delivered;		/* a cancel was delivered */
	/* The run's pid namespace (its processes are never served): 1
	 * recorded, 0 not yet (never ran), -1 unknown. */
	int have_pidns;
	dev_t pidns_dev;
	ino_t pidns_ino;
	int lingering;		/* after the end: since linger_t0 (ns) */
	uint64_t linger_t0;
	struct client c[CTL_CLIENTS];
};

/* A served peer: a client slot, polled.  Returns it, or -1 (full). */
int ctl_client_add(struct ctl *c, int fd);

/* A client's descriptor is ready (tag from ctl_client_add's watch):
 * read, answer, write.  SRC_END when a cancel was delivered. */
enum src_ret ctl_client_ready(struct ctl *c, uint32_t tag, uint32_t events);

/* New records in the log: followers get their next page. */
void ctl_push_all(struct ctl *c);

/* After the end record, the loop's linger: the ms to go on serving, 0
 * once the clients were quiet for CTL_QUIET_MS, or CTL_LINGER_MS
 * passed.  The first call answers what was read and pushes the last
 * pages. */
int ctl_linger_ms(struct ctl *c);

void ctl_client_close_all(struct ctl *c);

#endif
