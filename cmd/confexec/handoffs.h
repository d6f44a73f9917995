/* SPDX-License-Identifier: ISC */
/* confexec's trust handoff records (confexec(1), HANDOFF RECORDS): a
 * part of the source src_notify.c.
 *
 *   src_notify.c  the seccomp listener; in a run that grants AF_UNIX
 *                 and has a listener (layers_handoff), each connect
 *                 notified gives handoffs_seen a duplicate of the
 *                 socket it names, and the call continues, performed
 *                 and checked by the kernel alone (notify.h)
 *   handoffs.c    the duplicates, at most HANDOFF_PENDING, held until
 *                 the kernel shows them connected (a timer polls them
 *                 while any waits, never blocking; handoffs_finish reads
 *                 them a last time before the end record), then read on
 *                 that same socket (common/handoff.h) and closed: a
 *                 connection to a daemon of the inventory is one
 *                 "handoff" event (at most HANDOFF_EVENTS_LOGGED, then
 *                 counted); the end record's "handoff" counts them per
 *                 daemon, with the connections to other peers and the
 *                 connects not seen to connect the socket they named
 *                 (unresolved: failed, repeated on a socket, or another
 *                 thread of the payload put another socket under the
 *                 descriptor's number before the kernel's call). */
#ifndef CONFEXEC_HANDOFFS_H
#define CONFEXEC_HANDOFFS_H

#include "loop.h"
#include "run.h"

#define HANDOFF_PENDING 64	/* duplicates held at once */
#define HANDOFF_EVENTS_LOGGED 256
#define LOG_HANDOFF_RECORD_MAX 8192	/* a handoff record's line */
#define HANDOFF_EXE_SHOWN 512	/* bytes shown of a path in it */
_Static_assert(HANDOFF_EVENTS_LOGGED * LOG_HANDOFF_RECORD_MAX <=
    LOG_HANDOFF_SHARE, "the handoff records fit their share of the log");

/* Before the clone, in a run that records handoffs (layers_handoff):
 * the state, and the poll's timer, returned for the loop to watch;
 * -1 with errno. */
int handoffs_open(struct run *r);
/* The hook (notify.h): the caller's socket, before its call continues. */
void handoffs_seen(void *run, pid_t tid, int fd, int domain);
/* The timer fired. */
void handoffs_tick(struct run *r);
/* The run ended: the waiting sockets read a last time, the rest
 * counted unresolved. */
void handoffs_finish(struct run *r);
void handoffs_close(struct run *r);
/* "handoff" in the end record and inspect (with "pending"); null in a
 * run that records none. */
void handoffs_report(const struct run *r, json_t *o, enum report_what what);

#endif
