/* SPDX-License-Identifier: ISC */
/* source: the payload's seccomp user notifications (sysfilter.h lists
 * the calls), answered by common/notify.c: metadata changes beneath
 * --rw rules, watches beneath any rule, unix binds and listen.  Every
 * program variant has notified calls, so every run loads its filter
 * with a listener; the child hands it over the report channel
 * (r->notifyfd), the loop polls it once the run has started. */
#include <errno.h>
#include <poll.h>
#include <unistd.h>

#include "err.h"
#include "loop.h"
#include "notify.h"

static struct notify_policy policy;

static int
open_notify(struct source *s, struct run *r)
{
	char err[256];

	if (notify_policy_init(&policy, &r->p, r->final_uid, r->final_gid,
		!r->p.has_uid, err, sizeof(err)) == -1)
		return -1;
	r->want_notify = 1;
	s->watch = &r->notifyfd;	/* received after the clone */
	return 0;
}

static enum src_ret
handle_notify(struct source *s, struct run *r)
{
	struct pollfd pf = {r->notifyfd, POLLIN, 0};

	/* RECV blocks when nothing is pending: only when readable.  Once
	 * no task uses the filter the listener only hangs up. */
	if (poll(&pf, 1, 0) <= 0)
		return SRC_CONTINUE;
	if (!(pf.revents & POLLIN)) {
		if (pf.revents & (POLLHUP | POLLERR)) {
			close(r->notifyfd);	/* leaves the epoll set */
			r->notifyfd = -1;
		}
		return SRC_CONTINUE;
	}
	if (notify_handle(r->notifyfd, &policy, &r->notify) == -1) {
		/* Unanswered calls would wait forever: end the run. */
		warning_sys("seccomp notification");
		return loop_cancel(r, "notify");
	}
	return SRC_CONTINUE;
}

static void
close_notify(struct source *s, struct run *r)
{
	if (r->notifyfd != -1)
		close(r->notifyfd);
	r->notifyfd = -1;
	notify_policy_free(&policy);
}

const struct source_ops src_notify = {
	"seccomp listener", open_notify, handle_notify, close_notify, NULL,
};
