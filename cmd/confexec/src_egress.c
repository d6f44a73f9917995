/* SPDX-License-Identifier: ISC */
/* source: the egress broker (plan egress; confexec(1), EGRESS).
 *
 * For a plan with egress only, the boundary (boundary_egress in
 * boundary.c) made a network namespace of the run's own where loopback
 * is up and the broker's listener is on 127.0.0.1 at a port the kernel
 * assigned; the payload joins it (stage "network namespace") and has
 * nothing else there: no route out, no other run's broker, no host
 * service.  This source serves that listener.  The broker's own
 * connections leave from confexec's network, to the plan's destinations
 * only (broker.c).
 *
 * Each payload connection is one "egress" event in the journal and the
 * run's log (EGRESS_EVENTS_LOGGED at most, then counted); the end
 * record counts them all.  The listener closes when the run ends. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include "broker.h"
#include "err.h"
#include "loop.h"
#include "run.h"
#include "say.h"

static struct broker br = {.tickfd = -1, .res = {.fd = -1}, .spare = -1,
    .rtfd = -1, .pool = {0, BROKER_POOL}};

static int
fail(struct source *s, int e, const char *what)
{
	snprintf(s->why, sizeof(s->why), "%s: %s", what, strerror(e));
	errno = e;
	return -1;
}

static int
egress_open(struct source *s, struct run *r)
{
	struct itimerspec its = {{1, 0}, {1, 0}};

	if (r->p.negress == 0)
		return 0;
	br.r = r;
	br.s = s;
	br.res = (struct resolver){.s = s, .tag = TAG_RESOLVER,
	    .mask = &r->oldmask, .drop = getuid() == 0 && !r->userns,
	    .answer = broker_answered, .ctx = &br, .fd = -1};
	/* The listener the boundary made (boundary_egress): the loop
	 * closes it.  SIGPIPE is ignored (main): a payload that closes its
	 * end while the broker writes to it costs the broker EPIPE. */
	s->fd = r->egressfd;
	r->egressfd = -1;
	br.port = r->egress_port;
	s->watch = &s->fd;
	if (hostroute_open(&br) == -1)
		return fail(s, errno, "the host's routes (netlink)");
	br.spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (br.spare == -1)
		return fail(s, errno, "/dev/null");
	br.tickfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK |
	    TFD_CLOEXEC);
	if (br.tickfd == -1 || timerfd_settime(br.tickfd, 0, &its, NULL) ==
	    -1 || loop_watch(s, br.tickfd, TAG_TICK, EPOLLIN) == -1)
		return fail(s, errno, "timer");
	return 0;
}

/* Out of descriptors: the waiting connection is taken with the spare
 * one and closed at once (refused), so that the listener does not stay
 * ready, and the loop busy, until a descriptor is free. */
static void
shed(struct source *s, struct run *r)
{
	int fd;

	if (br.spare == -1)
		return;
	close(br.spare);
	fd = accept4(s->fd, NULL, NULL, SOCK_CLOEXEC);
	if (fd != -1) {
		close(fd);
		br.st.refused++;
		broker_event_away(&br, 0, "confexec is out of descriptors");
	}
	br.spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
}

static enum src_ret
egress_handle(struct source *s, struct run *r)
{
	int fd, k;

	for (k = 0; k < 16; k++) {
		fd = accept4(s->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1) {
			if (errno == EMFILE || errno == ENFILE)
				shed(s, r);
			break;
		}
		broker_accept(&br, fd);
	}
	return SRC_CONTINUE;
}

static enum src_ret
egress_extra(struct source *s, struct run *r, uint32_t tag, uint32_t events)
{
	uint64_t ticks, now;
	size_t i;

	(void)s, (void)r;
	if (tag == TAG_TICK) {
		/* EAGAIN: another wakeup read it already. */
		(void)!read(br.tickfd, &ticks, sizeof(ticks));
		now = broker_ms();
		for (i = 0; i < BROKER_MAXCONN; i++)
			broker_tick(&br, i, now);
	} else if (tag == TAG_RESOLVER)
		broker_resolver(&br);
	else if ((tag >> 1) < BROKER_MAXCONN)
		broker_io(&br, tag >> 1, (int)(tag & 1), events);
	return SRC_CONTINUE;
}

/* Before the end record: every connection still open ends (an event
 * each), the listener closes. */
static void
egress_finish(struct source *s, struct run *r)
{
	size_t i;

	if (br.r != r)
		return;
	for (i = 0; i < BROKER_MAXCONN; i++)
		broker_end(&br, i, "the run ended");
	resolver_stop(&br.res);
	/* What stderr was not given: said once, as the rest was. */
	if (!br.said_rest && br.st.unsaid > 0 && say_line("egress: %llu "
	    "more refusals not said here (at most %u destinations are, "
	    "each once; the journal has every refusal)",
	    (unsigned long long)br.st.unsaid, (unsigned)EGRESS_SAID) == 0)
		br.said_rest = 1;
	if (!br.said_failed_rest && br.st.failed_unsaid > 0 &&
	    say_line("egress: %llu more failed connections not said here "
	    "(at most %u are, each destination and cause once; the journal "
	    "has every one)", (unsigned long long)br.st.failed_unsaid,
	    (unsigned)EGRESS_SAID_FAILED) == 0)
		br.said_failed_rest = 1;
	if (br.s != NULL && br.s->fd != -1) {
		loop_unwatch(br.s->fd);
		close(br.s->fd);
		br.s->fd = -1;
	}
}

static void
egress_close(struct source *s, struct run *r)
{
	egress_finish(s, r);
	if (br.tickfd != -1) {
		loop_unwatch(br.tickfd);
		close(br.tickfd);
		br.tickfd = -1;
	}
	if (s->fd != -1)
		close(s->fd);
	s->fd = -1;
	if (r->netnsfd != -1)
		close(r->netnsfd);
	r->netnsfd = -1;
	if (br.spare != -1)
		close(br.spare);
	br.spare = -1;
	hostroute_close(&br);
	br.r = NULL;
}

/* "egress": in the start record the broker's port and the number of
 * destinations; in the end record what it did (allowed, refused,
 * unlogged, said, unsaid); for inspect also its port and the
 * connections open.  null for a plan without egress. */
static void
egress_report(struct source *s, const struct run *r, json_t *o,
    enum report_what what)
{
	json_t *e;

	if (r->p.negress == 0) {
		json_object_set_new(o, "egress", json_null());
		return;
	}
	if (what == REPORT_START) {
		json_object_set_new(o, "egress", json_pack("{s:i,s:I}", "port",
		    (int)br.port, "destinations", (json_int_t)r->p.negress));
		return;
	}
	e = json_pack("{s:I,s:I,s:I,s:I,s:I}", "allowed",
	    (json_int_t)br.st.allowed, "refused",
	    (json_int_t)br.st.refused, "unlogged",
	    (json_int_t)br.st.unlogged, "said",
	    (json_int_t)br.st.said, "unsaid",
	    (json_int_t)br.st.unsaid);
	if (what == REPORT_INSPECT && e != NULL) {
		json_object_set_new(e, "port", json_integer(br.port));
		json_object_set_new(e, "open", json_integer(br.r == r ?
		    (json_int_t)br.nconn : 0));
	}
	json_object_set_new(o, "egress", e != NULL ? e : json_null());
}

const struct source_ops src_egress = {
	.name = "egress",
	/* two per connection, the tick and the resolver */
	.extra_max = 2 * BROKER_MAXCONN + 2,
	.open = egress_open,
	.handle = egress_handle,
	.extra = egress_extra,
	.report = egress_report,
	.finish = egress_finish,
	.close = egress_close,
};
