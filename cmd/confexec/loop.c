/* SPDX-License-Identifier: ISC */
/* confexec: the supervisor's event loop (loop.h). */
#include <errno.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "loop.h"
#include "run.h"

/* The sources, one per file, in dispatch order when several are ready at
 * once: the payload's exit first (a run that ended on its own is not a
 * timeout). */
extern const struct source_ops src_pidfd, src_signal, src_orphans,
    src_timer, src_parent, src_control, src_notify, src_egress, src_journal,
    src_canary;
static const struct source_ops *const table[] = {
	&src_pidfd,
	&src_signal,
	&src_orphans,	/* after src_signal: it saved the caller's mask */
	&src_timer,
	&src_parent,
	&src_control,
	&src_notify,
	&src_egress,
	&src_journal,
	&src_canary,
};
#define NSRC (sizeof(table) / sizeof(table[0]))
_Static_assert(NSRC < 256, "a source's index fits epoll's data");

int
loop_signalfd(struct source *s, const sigset_t *mask, sigset_t *old)
{
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, mask, old, (size_t)8) ==
	    -1)
		return -1;
	s->fd = signalfd(-1, mask, SFD_CLOEXEC | SFD_NONBLOCK);
	if (s->fd == -1)
		return -1;
	s->watch = &s->fd;
	return 0;
}

static struct source sources[NSRC];
static int epfd = -1;

/* The extra descriptors polled, a slot each.  A slot's generation goes
 * up each time it is given a descriptor; epoll's data carries it, and an
 * event of an older generation is dropped. */
static struct slot {
	int used;
	int fd;
	uint8_t src;		/* the source's index */
	uint32_t tag;
	uint32_t gen;
} slots[LOOP_EXTRA];
static unsigned used_by[NSRC];	/* slots per source */
static uint32_t gen;
static size_t logseen;		/* r->log.len the sources were told of */

/* epoll's data: the source's index in bits 0-7, EXTRA_BIT for an extra
 * descriptor, its slot in bits 16-31, the slot's generation in the high
 * half. */
#define EXTRA_BIT 0x100u
#define MAXEV (NSRC + LOOP_EXTRA)

static struct slot *
slot_of(int fd)
{
	size_t k;

	for (k = 0; k < LOOP_EXTRA; k++)
		if (slots[k].used && slots[k].fd == fd)
			return &slots[k];
	return NULL;
}

static void
slot_free(struct slot *sl)
{
	used_by[sl->src]--;
	memset(sl, 0, sizeof(*sl));
	sl->fd = -1;
}

static uint64_t
slot_data(const struct slot *sl)
{
	return (uint64_t)sl->gen << 32 | (uint64_t)(sl - slots) << 16 |
	    EXTRA_BIT | sl->src;
}

int
loop_watch(struct source *s, int fd, uint32_t tag, uint32_t events)
{
	struct epoll_event ev;
	size_t i = (size_t)(s - sources), k;
	struct slot *sl = slot_of(fd);

	memset(&ev, 0, sizeof(ev));
	ev.events = events;
	if (sl != NULL && sl->src == i) {
		sl->tag = tag;
		ev.data.u64 = slot_data(sl);
		if (epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) == 0)
			return 0;
		if (errno != ENOENT)
			return -1;
	}
	/* New, or a number closed without loop_unwatch and reused: a new
	 * generation. */
	if (sl != NULL)
		slot_free(sl);
	if (used_by[i] >= s->ops->extra_max)
		return errno = EMFILE, -1;
	for (k = 0; k < LOOP_EXTRA && slots[k].used; k++)
		;
	if (k == LOOP_EXTRA)
		return errno = EMFILE, -1;
	sl = &slots[k];
	sl->fd = fd;
	sl->src = (uint8_t)i;
	sl->tag = tag;
	sl->gen = ++gen;
	ev.data.u64 = slot_data(sl);
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &ev) == -1 &&
	    (errno != EEXIST ||
	     epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &ev) == -1)) {
		sl->fd = -1;
		return -1;
	}
	sl->used = 1;
	used_by[i]++;
	return 0;
}

void
loop_unwatch(int fd)
{
	struct slot *sl = slot_of(fd);

	if (epfd != -1)
		(void)epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL);
	if (sl != NULL)
		slot_free(sl);
}

int
loop_open(struct run *r, char *err, size_t errlen)
{
	unsigned budget = 0;
	size_t i;

	for (i = 0; i < NSRC; i++)
		budget += table[i]->extra_max;
	if (budget > LOOP_EXTRA)
		return errno = EMFILE, err_set(err, errlen, "the sources' "
		    "descriptor budgets (%u) are past the loop's (%u)",
		    budget, (unsigned)LOOP_EXTRA);
	for (i = 0; i < LOOP_EXTRA; i++)
		slots[i].fd = -1;
	epfd = epoll_create1(EPOLL_CLOEXEC);
	if (epfd == -1)
		return err_set(err, errlen, "epoll: %s", strerror(errno));
	for (i = 0; i < NSRC; i++) {
		sources[i].ops = table[i];
		sources[i].fd = -1;
		sources[i].watch = NULL;
		sources[i].why[0] = '\0';
		if (table[i]->open != NULL &&
		    table[i]->open(&sources[i], r) == -1) {
			int e = errno;

			err_set(err, errlen, "%s: %s", table[i]->name,
			    sources[i].why[0] ? sources[i].why : strerror(e));
			errno = e;
			return -1;
		}
	}
	return 0;
}

/* Poll source i's own descriptor (EEXIST: already). */
static int
watch_source(size_t i)
{
	struct epoll_event ev;

	if (sources[i].watch == NULL || *sources[i].watch < 0)
		return 0;
	memset(&ev, 0, sizeof(ev));
	ev.events = EPOLLIN;
	ev.data.u64 = i;
	if (epoll_ctl(epfd, EPOLL_CTL_ADD, *sources[i].watch, &ev) == -1 &&
	    errno != EEXIST) {
		warning_sys("epoll: %s", sources[i].ops->name);
		return -1;
	}
	return 0;
}

/* The run's log grew: every source told. */
static void
logged(struct run *r)
{
	size_t i;

	if (r->log.len == logseen)
		return;
	logseen = r->log.len;
	for (i = 0; i < NSRC; i++)
		if (sources[i].ops != NULL && sources[i].ops->logged != NULL)
			sources[i].ops->logged(&sources[i], r);
}

/* The ready descriptors, in table order: a payload exit beats a timer
 * that fired in the same wakeup, and both beat the control socket. */
static enum src_ret
dispatch(struct run *r, const struct epoll_event *ev, int n)
{
	const struct slot *sl;
	struct source *s;
	enum src_ret ret;
	size_t i;
	uint64_t d;
	int k;

	for (i = 0; i < NSRC; i++)
		for (k = 0; k < n; k++) {
			d = ev[k].data.u64;
			if ((d & 0xffu) != i)
				continue;
			s = &sources[i];
			if ((d & EXTRA_BIT) == 0) {
				if (s->ops->handle == NULL)
					continue;
				ret = s->ops->handle(s, r);
			} else {
				sl = &slots[(d >> 16 & 0xffffu) % LOOP_EXTRA];
				if (!sl->used || sl->gen != (uint32_t)(d >> 32)
				    || sl->src != i || s->ops->extra == NULL)
					continue;	/* unwatched since */
				ret = s->ops->extra(s, r, sl->tag,
				    ev[k].events);
			}
			logged(r);
			if (ret == SRC_END)
				return SRC_END;
		}
	return SRC_CONTINUE;
}

int
loop_run(struct run *r)
{
	struct epoll_event ev[MAXEV];
	size_t i;
	int n;

	for (i = 0; i < NSRC; i++)
		if (sources[i].ops != NULL && sources[i].ops->running != NULL)
			sources[i].ops->running(&sources[i], r);
	for (i = 0; i < NSRC; i++)
		if (watch_source(i) == -1)
			return -1;
	logged(r);
	for (;;) {
		n = epoll_wait(epfd, ev, (int)MAXEV, -1);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			warning_sys("epoll_wait");
			return -1;
		}
		if (dispatch(r, ev, n) == SRC_END)
			return 0;
	}
}

void
loop_report(const struct run *r, json_t *o,
    enum report_what what)
{
	size_t i;

	for (i = 0; i < NSRC; i++)
		if (table[i]->report != NULL)
			table[i]->report(&sources[i], r, o, what);
}

void
loop_finish(struct run *r)
{
	size_t i;

	for (i = 0; i < NSRC; i++)
		if (table[i]->finish != NULL)
			table[i]->finish(&sources[i], r);
}

/* After the end record: only the lingering sources are polled, served
 * until none wants more (each bounds its own time). */
static void
linger(struct run *r)
{
	struct epoll_event ev[MAXEV];
	size_t i, k;
	int n, t, ms;

	for (i = 0; i < NSRC; i++) {
		if (sources[i].ops == NULL)
			continue;
		if (sources[i].ops->linger != NULL) {
			if (watch_source(i) == -1)
				return;
			continue;
		}
		if (sources[i].watch != NULL && *sources[i].watch >= 0)
			(void)epoll_ctl(epfd, EPOLL_CTL_DEL,
			    *sources[i].watch, NULL);
		for (k = 0; k < LOOP_EXTRA; k++)
			if (slots[k].used && slots[k].src == i)
				loop_unwatch(slots[k].fd);
	}
	for (;;) {
		t = 0;
		for (i = 0; i < NSRC; i++)
			if (sources[i].ops != NULL &&
			    sources[i].ops->linger != NULL &&
			    (ms = sources[i].ops->linger(&sources[i], r)) > t)
				t = ms;
		if (t <= 0)
			return;
		n = epoll_wait(epfd, ev, (int)MAXEV, t);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		(void)dispatch(r, ev, n);
	}
}

void
loop_close(struct run *r)
{
	size_t i;

	if (epfd != -1)
		linger(r);
	for (i = 0; i < NSRC; i++) {
		if (sources[i].ops == NULL)
			continue;
		if (sources[i].ops->close != NULL)
			sources[i].ops->close(&sources[i], r);
		if (sources[i].fd != -1)	/* the source's own */
			close(sources[i].fd);
		sources[i].fd = -1;
	}
	if (epfd != -1)
		close(epfd);
	epfd = -1;
	for (i = 0; i < LOOP_EXTRA; i++)
		if (slots[i].used)
			slot_free(&slots[i]);
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
