/* SPDX-License-Identifier: ISC */
/* source: the payload's seccomp user notifications (sysfilter.h lists
 * the calls), answered by common/notify.c: metadata changes beneath
 * --rw rules, watches beneath any rule, unix binds and listen; the path
 * calls the observer names, continued (denials.c, observe.h); in a run
 * that grants AF_UNIX, connect, continued once its socket is held for
 * the trust handoff records (handoffs.h).  Every
 * program variant has notified calls, so every run loads its filter
 * with a listener; the child hands it over the report channel
 * (r->notifyfd), the loop polls it once the run has started. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/magic.h>
#include <linux/openat2.h>

#include "denials.h"
#include "err.h"
#include "events.h"
#include "handoffs.h"
#include "layers.h"
#include "loop.h"
#include "notify.h"
#include "observe.h"
#include "run.h"
#include "uapi.h"

static struct notify_policy policy;
static struct notify_stats stats;	/* what was answered */
static int tmp_pending;	/* the view's tmpfs, added at the first call */

static int
open_notify(struct source *s, struct run *r)
{
	char err[256];
	int tfd;

	if (notify_policy_init(&policy, &r->p, r->final_uid, r->final_gid,
		!r->p.has_uid, err, sizeof(err)) == -1)
		return -1;
	/* With the mount view the private tmp is a tmpfs of the run's
	 * namespace, which exists once the payload runs. */
	tmp_pending = r->have_tmp && layers_on(r, L_MOUNTNS);
	if (r->have_tmp && !tmp_pending && notify_policy_add_rw(&policy,
		r->tmpfd, r->tmpdir) == -1)
		return -1;
	if (r->observing) {	/* the path calls: observed (denials.c) */
		policy.observe = denials_seen;
		policy.observe_arg = r;
	}
	if (layers_handoff(r)) {	/* connect (handoffs.h) */
		if ((tfd = handoffs_open(r)) == -1 ||
		    loop_watch(s, tfd, 0, EPOLLIN) == -1)
			return -1;
		policy.handoff = handoffs_seen;
		policy.handoff_arg = r;
	}
	if (!r->want_notify)	/* the filter notifies nothing */
		return 0;
	s->watch = &r->notifyfd;	/* received after the clone */
	return 0;
}

/* The run's tmpfs, through the payload's root: its mount point, never a
 * symlink, must be a mount root on a tmpfs (else nothing is added and
 * watches there are refused). */
static void
add_view_tmp(struct run *r)
{
	struct open_how how;
	struct statfs sfs;
	struct stat self, up;
	char root[64];
	int base, fd;

	tmp_pending = 0;
	snprintf(root, sizeof(root), "/proc/%ld/root", (long)r->pid);
	base = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (base == -1)
		return;
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC;
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_SYMLINKS;
	fd = (int)syscall(__NR_openat2, base, r->tmpdir, &how, sizeof(how));
	close(base);
	if (fd == -1)
		return;
	/* A tmpfs whose parent is another file system: its root. */
	if (fstatfs(fd, &sfs) == 0 && sfs.f_type == TMPFS_MAGIC &&
	    fstat(fd, &self) == 0 && fstatat(fd, "..", &up, 0) == 0 &&
	    self.st_dev != up.st_dev)
		(void)notify_policy_add_rw(&policy, fd, r->tmpdir);
	close(fd);
}

static enum src_ret
handle_notify(struct source *s, struct run *r)
{
	struct pollfd pf = {r->notifyfd, POLLIN, 0};

	if (tmp_pending)
		add_view_tmp(r);

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
	if (notify_handle(r->notifyfd, &policy, &stats) == -1) {
		/* Unanswered calls would wait forever: end the run. */
		warning_sys("seccomp notification");
		return loop_cancel(r, "notify");
	}
	return SRC_CONTINUE;
}

/* The handoffs' timer (handoffs.h), the one extra descriptor. */
static enum src_ret
extra_notify(struct source *s, struct run *r, uint32_t tag, uint32_t ev)
{
	handoffs_tick(r);
	return SRC_CONTINUE;
}

static void
finish_notify(struct source *s, struct run *r)
{
	handoffs_finish(r);
}

static void
close_notify(struct source *s, struct run *r)
{
	handoffs_close(r);
	if (r->notifyfd != -1)
		close(r->notifyfd);
	r->notifyfd = -1;
	notify_policy_free(&policy);
	obs_end();
}

/* The end record's "notify": what was answered for the payload's
 * notified calls; "handoff" (handoffs.h) in it and inspect. */
static void
report_notify(struct source *s, const struct run *r, json_t *o,
    enum report_what what)
{
	json_t *n;

	handoffs_report(r, o, what);
	if (what != REPORT_END)
		return;
	n = json_object();
	json_object_set_new(n, "allowed", events_u64(stats.allowed));
	json_object_set_new(n, "denied", events_u64(stats.denied));
	json_object_set_new(n, "failed", events_u64(stats.failed));
	json_object_set_new(n, "observed", events_u64(stats.observed));
	json_object_set_new(o, "notify", n);
}

const struct source_ops src_notify = {
	.name = "seccomp listener",
	.extra_max = 1,
	.open = open_notify,
	.handle = handle_notify,
	.extra = extra_notify,
	.report = report_notify,
	.finish = finish_notify,
	.close = close_notify,
};
