/* SPDX-License-Identifier: ISC */
/* loop: the supervisor's one event loop (epoll).  It owns every
 * descriptor it polls and dispatches each ready one to its source.  A
 * source is one file src_NAME.c defining one struct source_ops, and one
 * line in the table of loop.c: nothing else names it.  What a source
 * tells the run's records, inspect and the journal goes through the
 * operations below, called by the loop (and by the sinks through
 * loop_report, loop_finish); every operation but name is optional.
 *
 *   extra_max  the descriptors it may add with loop_watch at once (its
 *              budget: loop_open checks the sum against LOOP_EXTRA, and
 *              loop_watch refuses a source past its own with EMFILE)
 *   open       before the clone: create what the source needs (its
 *              descriptor, or a pointer to one the clone will create,
 *              e.g. the pidfd); may leave the source unused for this run
 *   running    the payload runs, before the loop's first wait
 *   handle     its descriptor is ready: never blocks, bounded work;
 *              returns SRC_CONTINUE, or SRC_END after saying why in the
 *              run (r->exited, r->timed_out, or loop_cancel())
 *   extra      a descriptor it added with loop_watch is ready: same
 *              rules; tag is what the source gave, events epoll's
 *   logged     the run's log grew (--control): after a handler
 *   report     its part of a record: REPORT_START (start record),
 *              REPORT_END (end record), REPORT_INSPECT (the control
 *              socket's inspect answer); o is the record's object, keys
 *              its own (json_object_set_new).  Called for every source
 *              of the table, opened or not (a run refused early still
 *              says every key): keep each key's shape in every case
 *   finish     the run ended, before the end record: end what it serves
 *              (an event each, journaled), close its listeners
 *   linger     after the end record (state ST_ENDED): the ms it wants to
 *              go on serving (0: done).  While any source lingers the
 *              loop polls only the lingering sources
 *   close      release what open made; the loop closes s->fd after it
 *
 * How a source adds to what the run says (broker.c's egress event and
 * src_egress.c's report are the worked example):
 *   a journal event, from handle or extra: when record_wanted(r) and
 *     r->started, build one json object, "event" its type, and give
 *     it to record_events(r, &ev, 1, "NAME record")
 *     (record.h: consumed; queued to the journal and the run's log in
 *     order, never blocking the loop).  Bound how many a run journals
 *     (then count the rest): the run's log is sized from each source's
 *     share (LOG_*_SHARE in run.h, asserted in the source's file
 *     and summed in record.c); a new kind of event takes a share.
 *   an end-record field: in report, for REPORT_END, set the key (the
 *     same key and shape in every run, null when it does not apply).
 *   an inspect field: the same, for REPORT_INSPECT (live values).
 * Keys are the source's own: no other file names them or the source.
 *
 * Descriptors: every extra descriptor is one slot of the loop's, with a
 * generation: an event for a descriptor unwatched (and its number
 * reused) in the same wakeup is dropped by the loop, never given to a
 * source.  The code that ends the run (end.c) needs no descriptor or
 * allocation beyond what the sources and the cgroup opened before the
 * clone. */
#ifndef CONFEXEC_LOOP_H
#define CONFEXEC_LOOP_H

#include "run.h"

enum src_ret { SRC_CONTINUE, SRC_END };
enum report_what { REPORT_START, REPORT_END, REPORT_INSPECT };

struct source;
struct source_ops {
	const char *name;
	unsigned extra_max;
	int (*open)(struct source *s, struct run *r);
	void (*running)(struct source *s, struct run *r);
	enum src_ret (*handle)(struct source *s, struct run *r);
	enum src_ret (*extra)(struct source *s, struct run *r, uint32_t tag,
	    uint32_t events);
	void (*logged)(struct source *s, struct run *r);
	void (*report)(struct source *s, const struct run *r, json_t *o,
	    enum report_what what);
	void (*finish)(struct source *s, struct run *r);
	int (*linger)(struct source *s, struct run *r);
	void (*close)(struct source *s, struct run *r);
};

struct source {
	const struct source_ops *ops;	/* NULL: not opened */
	int fd;		/* a descriptor the source owns, or -1 */
	const int *watch;	/* what the loop polls: &fd, or a descriptor
				 * of the run (read when the loop starts);
				 * NULL: unused in this run */
	char why[512];		/* open's failure, said instead of errno */
};

/* The extra descriptors of every source at once, at most. */
#define LOOP_EXTRA 160

/* Poll fd for events (EPOLLIN, EPOLLOUT), dispatched to s's extra with
 * tag; again for a watched fd: new events and tag.  Returns 0, or -1
 * with errno (EMFILE: past the source's extra_max). */
int loop_watch(struct source *s, int fd, uint32_t tag, uint32_t events);

/* Stop polling fd, before closing it: an extra descriptor closed without
 * it keeps its slot until its number is polled again. */
void loop_unwatch(int fd);

/* For a source's open: block mask (by system call: libc hides its own
 * signals, 32 to 34, from the old mask it returns, and the caller's mask
 * is the payload's), saving the mask before in old unless NULL, and
 * read mask from a signalfd, s->fd, which the loop polls.  Returns 0, or
 * -1 with errno. */
int loop_signalfd(struct source *s, const sigset_t *mask, sigset_t *old);

/* Before the clone: the epoll instance and every source's open.
 * Returns 0, or -1 with errno and err naming the source. */
int loop_open(struct run *r, char *err, size_t errlen);

/* Supervise until a source ends the run (each source's running first).
 * Returns 0, or -1 with errno when the loop itself failed (the caller
 * ends the run anyway). */
int loop_run(struct run *r);

/* Every source's part of a record (see report above). */
void loop_report(const struct run *r, json_t *o,
    enum report_what what);

/* The run ended: every source's finish, before the end record. */
void loop_finish(struct run *r);

/* After the run: the lingering sources served until done, then every
 * source's close, and the epoll instance. */
void loop_close(struct run *r);

/* Ask the loop to end the run, cancelled for why ("signal 15",
 * "parent", "control"): no allocation.  Returns SRC_END. */
enum src_ret loop_cancel(struct run *r, const char *why);

#endif
