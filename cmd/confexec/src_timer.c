/* SPDX-License-Identifier: ISC */
/* source: the plan's timeout, a CLOCK_MONOTONIC timerfd armed when the
 * supervisor is set up (absolute: r->t0 + timeout, r->t0 taken just
 * before the sources open, the start record and the clone).  Unused
 * without a timeout. */
#include <stdint.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "loop.h"
#include "run.h"

static int
open_timer(struct source *s, struct run *r)
{
	struct itimerspec it = {{0, 0}, {0, 0}};
	uint64_t ns;

	if (r->p.timeout_ms == 0)
		return 0;
	s->fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC | TFD_NONBLOCK);
	if (s->fd == -1)
		return -1;
	ns = (uint64_t)r->t0.tv_sec * 1000000000u + (uint64_t)r->t0.tv_nsec +
	    r->p.timeout_ms * 1000000u;
	it.it_value.tv_sec = (time_t)(ns / 1000000000u);
	it.it_value.tv_nsec = (long)(ns % 1000000000u);
	if (timerfd_settime(s->fd, TFD_TIMER_ABSTIME, &it, NULL) == -1)
		return -1;
	s->watch = &s->fd;
	return 0;
}

static enum src_ret
handle_timer(struct source *s, struct run *r)
{
	uint64_t n;

	if (read(s->fd, &n, sizeof(n)) != (ssize_t)sizeof(n))
		return SRC_CONTINUE;
	r->timed_out = 1;
	return SRC_END;
}

const struct source_ops src_timer = {
	.name = "timerfd",
	.open = open_timer,
	.handle = handle_timer,
};
