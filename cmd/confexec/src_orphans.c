/* SPDX-License-Identifier: ISC */
/* source: the run's orphans, without a pid namespace (spawn_flat).
 * confexec is then a child subreaper: a process of the run whose parent
 * ends is reparented to it, and when it ends it stays a zombie of
 * confexec, a pid taken, until reaped.  SIGCHLD is blocked (after the
 * signal source saved the caller's mask, which the payload gets back)
 * and read from a signalfd; on each, every child of ours but the payload
 * (its pidfd source reaps it with its status) that has ended is reaped.
 * With a pid namespace the run's init reaps them: unused. */
#include <signal.h>
#include <string.h>
#include <sys/signalfd.h>
#include <sys/wait.h>
#include <unistd.h>

#include "children.h"
#include "layers.h"
#include "loop.h"
#include "run.h"

static int
open_orphans(struct source *s, struct run *r)
{
	sigset_t mask;

	if (layers_on(r, L_PIDNS))
		return 0;
	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	return loop_signalfd(s, &mask, NULL);
}

/* A child that has ended, reaped; the payload left to its source. */
static int
reap_orphan(pid_t pid, void *arg)
{
	const struct run *r = arg;
	siginfo_t si;

	if (pid == r->pid)
		return 0;
	memset(&si, 0, sizeof(si));
	(void)waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | __WALL);
	return 0;
}

static enum src_ret
handle_orphans(struct source *s, struct run *r)
{
	struct signalfd_siginfo ssi;

	while (read(s->fd, &ssi, sizeof(ssi)) == (ssize_t)sizeof(ssi))
		;
	(void)children_each(reap_orphan, r);
	return SRC_CONTINUE;
}

const struct source_ops src_orphans = {
	.name = "orphans",
	.open = open_orphans,
	.handle = handle_orphans,
};
