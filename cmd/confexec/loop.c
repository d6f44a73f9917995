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
	&src_orphans,	/* after src_signal: it saved the caller's mask */
	&src_timer,
	&src_parent,
	&src_control,
	&src_notify,
	&src_handoff,	/* the connections src_notify gave it */
	&src_egress,
	&src_journal,
};
#define NSRC (sizeof(table) / sizeof(table[0]))

static struct source sources[NSRC];
static int epfd = -1;
/* The extra descriptors polled, for the budget: an fd number counts
 * once, even when it was closed without loop_unwatch and is polled
 * again as a new descriptor. */
static int extra_fd[LOOP_EXTRA];
static int nextra;

static int
extra_find(int fd)
{
	int k;

	for (k = 0; k < nextra; k++)
		if (extra_fd[k] == fd)
			return k;
	return -1;
}

/* epoll's data: the source's index, bit 8 for an extra descriptor, the
 * source's tag in the high half. */
#define EXTRA_BIT 0x100u
#define MAXEV (NSRC + LOOP_EXTRA)

int
loop_watch(struct source *s, int fd, uint32_t tag, uint32_t events)
{
	struct epoll_event ev;
	size_t i = (size_t)(s - sources);
	int known;

	memset(&ev, 0, sizeof(ev));
	ev.events = events;
	ev.data.u64 = (uint64_t)tag << 32 | EXTRA_BIT | i;
	if (epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) == 0)
		return 0;
	if (errno != ENOENT)
		return -1;
	known = extra_find(fd) >= 0;
	if (!known && nextra >= LOOP_EXTRA) {
		errno = EMFILE;
		return -1;
	}
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == -1)
		return -1;
	if (!known)
		extra_fd[nextra++] = fd;
	return 0;
}

void
loop_unwatch(int fd)
{
	int k = extra_find(fd);

	if (epfd != -1)
		(void)epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
	if (k >= 0)
		extra_fd[k] = extra_fd[--nextra];
}

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
		sources[i].why[0] = '\0';
		if (table[i]->open(&sources[i], r) == -1) {
			int e = errno;

			err_set(err, errlen, "%s: %s", table[i]->name,
			    sources[i].why[0] ? sources[i].why : strerror(e));
			errno = e;
			return -1;
		}
	}
	return 0;
}

int
loop_run(struct run *r)
{
	struct epoll_event ev[MAXEV];
	struct source *s;
	size_t i;
	uint64_t d;
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
		n = epoll_wait(epfd, ev, (int)MAXEV, -1);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			warning_sys("epoll_wait");
			return -1;
		}
		/* Table order: a payload exit beats a timer that fired in
		 * the same wakeup, and both beat the control socket. */
		for (i = 0; i < NSRC; i++)
			for (k = 0; k < n; k++) {
				d = ev[k].data.u64;
				if ((d & 0xffu) != i)
					continue;
				s = &sources[i];
				if ((d & EXTRA_BIT) == 0 ?
				    s->ops->handle(s, r) == SRC_END :
				    s->ops->extra(s, r, (uint32_t)(d >> 32),
					ev[k].events) == SRC_END)
					return 0;
			}
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
	nextra = 0;
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
