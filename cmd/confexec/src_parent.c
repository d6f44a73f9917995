/* SPDX-License-Identifier: ISC */
/* source: the caller.  When confexec's parent dies the run is cancelled
 * ("parent"), unless --outlive-caller.  A pidfd of the parent, opened
 * before the clone and checked against getppid() after opening (a
 * parent that died first has reparented us already: the pid no longer
 * matches, so a reused pid cannot stand in for it). */
#include <errno.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "loop.h"
#include "run.h"
#include "uapi.h"

static int
open_parent(struct source *s, struct run *r)
{
	pid_t pp;

	if (r->outlive_caller)
		return 0;
	pp = getppid();
	/* 0: the parent is outside our pid namespace (a nested run, a
	 * process a container runtime's exec started), and no pidfd can
	 * name it.  Its death then comes as SIGHUP, which cancels the run
	 * (src_signal.c): the kernel sends it when the parent's thread
	 * that made us ends. */
	if (pp == 0)
		return prctl(PR_SET_PDEATHSIG, SIGHUP, 0, 0, 0);
	s->fd = (int)syscall(__NR_pidfd_open, pp, 0);
	if (s->fd == -1 && errno != ESRCH)
		return -1;
	if (s->fd == -1 || getppid() != pp) {
		/* Gone already: the loop ends the run at once. */
		errno = ESRCH;
		return -1;
	}
	s->watch = &s->fd;
	return 0;
}

static enum src_ret
handle_parent(struct source *s, struct run *r)
{
	return loop_cancel(r, "parent");
}

const struct source_ops src_parent = {
	.name = "parent",
	.open = open_parent,
	.handle = handle_parent,
};
