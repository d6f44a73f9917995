/* SPDX-License-Identifier: ISC */
/* record: the run's records.  record_wanted: records are built for
 * this run (--journal or --control).  record_events appends n events
 * (consumed, at most 2) in one write: to the journal, and with --control
 * to the run's log (the exact bytes written, or without --journal
 * records built in memory); with --journal they are queued for the
 * journal's writer, a thread of its own, never written on the caller's
 * thread: a caller that must know they are written waits
 * (record_wait).  Returns 0, or -1 with the reason said (one line,
 * naming what: "end record").
 * record_wait waits until every record queued is written, ms at most
 * (when says from what, in the message: "before the payload runs"); past
 * it what waits is given up, said in one line, and nothing more is
 * written; returns 0, or -1 when a record was not written (said;
 * r->jfailed).  record_collect: what was written so far, to the run's
 * log, without waiting.  record_given_up: the records were given up.
 * record_eventfd: what src_journal.c polls (records written), or NULL. */
#ifndef CONFEXEC_RECORD_H
#define CONFEXEC_RECORD_H

#include <stddef.h>

#include <jansson.h>

#include "run.h"

#define RECORD_WAIT_MS 5000
int record_wanted(const struct run *r);
int record_events(struct run *r, json_t **ev, size_t n, const char *what);
int record_wait(struct run *r, unsigned ms, const char *when);
void record_collect(struct run *r);
int record_given_up(void);
const int *record_eventfd(struct run *r);
/* record_hold(1): a failure is kept, not said, until record_hold(0);
 * record_held: the first one kept ("journal FILE: start record: cannot
 * open ..."), or "" (run() says it in its one line). */
void record_hold(int on);
const char *record_held(void);

#endif
