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
};

struct source {
	const struct source_ops *ops;
	int fd;		/* a descriptor the source owns, or -1 */
	const int *watch;	/* what the loop polls: &fd, or a descriptor
				 * of the run (read when the loop starts);
				 * NULL: unused in this run */
};

/* The sources, one per file. */
extern const struct source_ops src_pidfd, src_signal, src_timer, src_notify;

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
