/* SPDX-License-Identifier: ISC */
/* loop: the supervisor's one event loop (epoll).  It owns the sources'
 * descriptors and dispatches each ready one to its source; a source is a
 * file src_NAME.c defining one struct source_ops, and one line in the
 * table of loop.c.  Entry points:
 *   open    before the clone: create what the source needs (its
 *           descriptor, or a pointer to one the clone will create, e.g.
 *           the pidfd); may leave the source unused for this run
 *   handle  a ready descriptor: never blocks, bounded work; returns
 *           SRC_CONTINUE, or SRC_END after saying why in the run
 *           (r->exited, r->timed_out, or loop_cancel())
 *   close   release what open made (after the run has ended)
 *   extra   (optional) a ready descriptor the source added with
 *           loop_watch (a client of the control socket): same rules as
 *           handle; tag is what the source gave, events epoll's
 * The code that ends the run (end.c) needs no descriptor or allocation
 * beyond what the sources and the cgroup opened before the clone. */
#ifndef CONFEXEC_LOOP_H
#define CONFEXEC_LOOP_H

#include "confexec.h"

enum src_ret { SRC_CONTINUE, SRC_END };

struct source;
struct source_ops {
	const char *name;
	int (*open)(struct source *s, struct run *r);
	enum src_ret (*handle)(struct source *s, struct run *r);
	void (*close)(struct source *s, struct run *r);
	enum src_ret (*extra)(struct source *s, struct run *r, uint32_t tag,
	    uint32_t events);
};

struct source {
	const struct source_ops *ops;
	int fd;		/* a descriptor the source owns, or -1 */
	const int *watch;	/* what the loop polls: &fd, or a descriptor
				 * of the run (read when the loop starts);
				 * NULL: unused in this run */
	char why[512];		/* open's failure, said instead of errno */
};

/* The sources, one per file. */
extern const struct source_ops src_pidfd, src_signal, src_timer, src_parent,
    src_control, src_notify, src_handoff, src_egress, src_journal,
    src_orphans;

/* A source's extra descriptors, at most LOOP_EXTRA in all: poll fd for
 * events (EPOLLIN, EPOLLOUT), dispatched to s's extra with tag; again
 * for a watched fd: new events.  Returns 0, or -1 with errno. */
#define LOOP_EXTRA 160	/* control clients, broker connections (2 each) */
int loop_watch(struct source *s, int fd, uint32_t tag, uint32_t events);

/* Stop polling fd, before closing it: an extra descriptor closed without
 * it keeps its place in the budget until its number is polled again. */
void loop_unwatch(int fd);

/* Before the clone: the epoll instance and every source's open.
 * Returns 0, or -1 with errno and err naming the source. */
int loop_open(struct run *r, char *err, size_t errlen);

/* Supervise until a source ends the run.  Returns 0, or -1 with errno
 * when the loop itself failed (the caller ends the run anyway). */
int loop_run(struct run *r);

/* After the run: every source's close, and the epoll instance. */
void loop_close(struct run *r);

/* Ask the loop to end the run, cancelled for why ("signal 15",
 * "parent", "control"): no allocation.  Returns SRC_END. */
enum src_ret loop_cancel(struct run *r, const char *why);

#endif
