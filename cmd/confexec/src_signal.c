/* SPDX-License-Identifier: ISC */
/* source: SIGINT, SIGTERM and SIGHUP cancel the run.  They are blocked
 * and read from a signalfd; the child restores the caller's mask
 * (r->oldmask) before execveat. */
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <unistd.h>

#include "loop.h"
#include "run.h"

static int
open_signal(struct source *s, struct run *r)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigemptyset(&r->oldmask);	/* the caller's: the payload's */
	return loop_signalfd(s, &mask, &r->oldmask);
}

static enum src_ret
handle_signal(struct source *s, struct run *r)
{
	struct signalfd_siginfo ssi;
	char why[CANCEL_LEN];

	if (read(s->fd, &ssi, sizeof(ssi)) != (ssize_t)sizeof(ssi))
		return SRC_CONTINUE;
	snprintf(why, sizeof(why), "signal %u", ssi.ssi_signo);
	return loop_cancel(r, why);
}

const struct source_ops src_signal = {
	.name = "signalfd",
	.open = open_signal,
	.handle = handle_signal,
};
