/* SPDX-License-Identifier: ISC */
/* confexec: the supervisor's event loop (loop.h). */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <unistd.h>

#include "err.h"
#include "loop.h"

/* The sources, in dispatch order when several are ready at once: the
 * payload's exit first (a run that ended on its own is not a timeout). */
static const struct source_ops *const table[] = {
	&src_pidfd,
	&src_signal,
	&src_timer,
	&src_notify,
};
#define NSRC (sizeof(table) / sizeof(table[0]))

static struct source sources[NSRC];
static int epfd = -1;

int
loop_open(struct run *r, char *err, size_t errlen)
{
	size_t i;

	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd == -1)
		return err_set(err, errlen, "epoll: %s", strerror(errno));
	for (i = 0; i < NSRC; i++) {
		sources[i].ops = table[i];
		sources[i].fd = -1;
		sources[i].watch = NULL;
		if (table[i]->open(&sources[i], r) == -1) {
			int e = errno;

			err_set(err, errlen, "%s: %s", table[i]->name,
			    strerror(e));
			errno = e;
			return -1;
		}
	}
	return 0;
}

int
loop_run(struct run *r)
{
	struct epoll_event ev[NSRC];
	size_t i;
	int n, k;

	for (i = 0; i < NSRC; i++) {
		if (sources[i].watch == NULL || *sources[i].watch < 0)
			continue;
		memset(&ev[0], 0, sizeof(ev[0]));
		ev[0].events = EPOLLIN;
		ev[0].data.u64 = i;
		if (epoll_ctl(epfd, EPOLL_CTL_ADD, *sources[i].watch,
			&ev[0]) == -1) {
			warning_sys("epoll: %s", sources[i].ops->name);
			return -1;
		}
	}
	for (;;) {
		n = epoll_wait(epfd, ev, (int)NSRC, -1);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			warning_sys("epoll_wait");
			return -1;
		}
		/* Table order: a payload exit beats a timer that fired in
		 * the same wakeup. */
		for (i = 0; i < NSRC; i++)
			for (k = 0; k < n; k++)
				if (ev[k].data.u64 == i &&
				    sources[i].ops->handle(&sources[i], r) ==
				    SRC_END)
					return 0;
	}
}

void
loop_close(struct run *r)
{
	size_t i;

	for (i = 0; i < NSRC; i++)
		if (sources[i].ops != NULL)
			sources[i].ops->close(&sources[i], r);
	if (epfd != -1)
		close(epfd);
	epfd = -1;
}

enum src_ret
loop_cancel(struct run *r, const char *why)
{
	size_t n = strlen(why);

	if (n >= sizeof(r->cancel))
		n = sizeof(r->cancel) - 1;
	memcpy(r->cancel, why, n);
	r->cancel[n] = '\0';
	return SRC_END;
}
