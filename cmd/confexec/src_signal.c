/* SPDX-License-Identifier: ISC */
/* source: SIGINT, SIGTERM and SIGHUP cancel the run.  They are blocked
 * and read from a signalfd; the child restores the caller's mask
 * (r->oldmask) before execveat. */
#include <signal.h>
#include <stdio.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "loop.h"

static int
open_signal(struct source *s, struct run *r)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	/* By system call: libc hides its own signals (32 to 34) from the
	 * old mask it returns, and the caller's mask is the payload's. */
	sigemptyset(&r->oldmask);
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, &mask, &r->oldmask,
		(size_t)8) == -1)
		return -1;
	s->fd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->fd == -1)
		return -1;
	s->watch = &s->fd;
	return 0;
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
