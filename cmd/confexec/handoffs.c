/* SPDX-License-Identifier: ISC */
/* confexec's trust handoff records (handoffs.h), a part of src_notify.c:
 * the sockets the payload's connects named, held until the kernel shows
 * them connected, then read and recorded. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "events.h"
#include "handoff.h"
#include "handoffs.h"
#include "loop.h"
#include "record.h"
#include "run.h"
#include "say.h"

#define TICK_MS 10		/* while a young one waits */
#define SLOW_MS 200		/* while only old ones (> 1 s) wait: a
				 * connect that failed stays until the end */

struct pending {
	int fd;
	int is_unix;	/* AF_UNIX (else a TCP socket: no daemon's) */
	dev_t dev;
	ino_t ino;
	pid_t tid;	/* the calling thread, as the notification gave it */
	uint64_t t0;	/* ms */
};

static struct {
	int on;
	struct run *r;
	int tfd;	/* the poll's timer */
	struct pending p[HANDOFF_PENDING];
	size_t np;
	struct handoff_inv inv;
	/* what the end record says */
	uint64_t connects, other, unresolved, unlogged, events;
	size_t nd;
	struct {
		const char *name;
		uint64_t n;
	} d[HANDOFF_INV_MAX];
	int said;
} ho = {.tfd = -1};

static uint64_t
ms_now(void)
{
	return now_ns(CLOCK_MONOTONIC) / 1000000;
}

static void
arm(unsigned ms)
{
	struct itimerspec it;

	memset(&it, 0, sizeof(it));
	it.it_value.tv_sec = ms / 1000;
	it.it_value.tv_nsec = (long)(ms % 1000) * 1000000;
	if (ho.tfd != -1)
		(void)timerfd_settime(ho.tfd, 0, &it, NULL);
}

static const char *
type_name(int t)
{
	return t == SOCK_STREAM ? "stream" : t == SOCK_SEQPACKET ?
	    "seqpacket" : t == SOCK_DGRAM ? "dgram" : "other";
}

/* The event: the daemon as the kernel reported it. */
static void
event(const struct handoff_peer *pe, pid_t tid)
{
	struct run *r = ho.r;
	char exe[HANDOFF_EXE_SHOWN + 1], sock[HANDOFF_EXE_SHOWN + 1];
	json_t *ev;

	if (!record_wanted(r) || !r->started)
		return;
	if (ho.events >= HANDOFF_EVENTS_LOGGED) {
		ho.unlogged++;
		return;
	}
	ho.events++;
	/* Paths cut at HANDOFF_EXE_SHOWN bytes: the record's size is
	 * bounded (LOG_HANDOFF_RECORD_MAX). */
	snprintf(exe, sizeof(exe), "%.*s", HANDOFF_EXE_SHOWN, pe->exe);
	snprintf(sock, sizeof(sock), "%.*s", HANDOFF_EXE_SHOWN, pe->socket);
	ev = json_object();
	json_object_set_new(ev, "event", json_string("handoff"));
	json_object_set_new(ev, "plan", json_string(r->plan_hex));
	json_object_set_new(ev, "daemon", json_string(pe->daemon));
	json_object_set_new(ev, "socket", events_str(sock));
	json_object_set_new(ev, "address", events_str(pe->address));
	json_object_set_new(ev, "type", json_string(type_name(pe->type)));
	json_object_set_new(ev, "pid", json_integer(pe->pid));
	json_object_set_new(ev, "uid", json_integer(pe->uid));
	json_object_set_new(ev, "gid", json_integer(pe->gid));
	json_object_set_new(ev, "exe", exe[0] ? events_str(exe) :
	    json_null());
	if (strlen(pe->exe) > HANDOFF_EXE_SHOWN)
		json_object_set_new(ev, "exe_cut", json_true());
	json_object_set_new(ev, "payload_pid", json_integer(tid));
	record_events(r, &ev, 1, "handoff record");
}

static void
count(const char *name)
{
	size_t i;

	for (i = 0; i < ho.nd; i++)
		if (strcmp(ho.d[i].name, name) == 0)
			break;
	if (i == ho.nd) {
		if (ho.nd >= HANDOFF_INV_MAX)
			return;	/* more names than the inventory has */
		ho.d[ho.nd].name = name;
		ho.d[ho.nd++].n = 0;
	}
	ho.d[i].n++;
}

static void
drop(size_t i)
{
	close(ho.p[i].fd);
	ho.p[i] = ho.p[--ho.np];
}

static int
connected(int fd)
{
	struct sockaddr_storage ss;
	socklen_t l = sizeof(ss);

	return getpeername(fd, (struct sockaddr *)&ss, &l) == 0;
}

/* Read every duplicate the kernel shows connected (the inventory once
 * per batch) and forget it; the others wait. */
static void
check_all(void)
{
	struct handoff_peer pe;
	size_t i = 0;
	int loaded = 0, k;

	while (i < ho.np) {
		if (!connected(ho.p[i].fd)) {
			i++;
			continue;
		}
		if (!ho.p[i].is_unix) {
			ho.other++;
			drop(i);
			continue;
		}
		if (!loaded++ && handoff_inventory(&ho.inv, ho.r->final_uid,
		    ho.r->final_gid) == -1) {
			ho.inv.n = 0;
			if (!ho.said++)
				say_line("handoff: the daemons' listening "
				    "sockets cannot be read (%s): connections "
				    "are counted as unresolved",
				    strerror(errno));
			ho.unresolved++;
			drop(i);
			loaded = 0;	/* tried again for the next */
			continue;
		}
		k = handoff_peer(ho.p[i].fd, &ho.inv, &pe);
		if (k == 1 && pe.daemon != NULL) {
			count(pe.daemon);
			event(&pe, ho.p[i].tid);
		} else if (k == 1)
			ho.other++;
		else
			ho.unresolved++;
		drop(i);
	}
}

/* The youngest duplicate's age decides the next poll: one made a
 * moment ago is read within TICK_MS of its connection. */
static void
rearm(void)
{
	uint64_t now = ms_now(), young = 0;
	size_t i;

	for (i = 0; i < ho.np; i++)
		if (ho.p[i].t0 > young)
			young = ho.p[i].t0;
	arm(ho.np == 0 ? 0 : now - young < 1000 ? TICK_MS : SLOW_MS);
}

/* From src_notify (notify.h): the caller's socket, before its connect
 * continues.  A connect that is not seen to connect the socket it named
 * is unresolved: it failed, or it was repeated on a socket, or another
 * thread of the payload put another socket under the descriptor's
 * number before the kernel's call (that socket's connection is then
 * not read: the count says so). */
void
handoffs_seen(void *arg, pid_t tid, int fd, int domain)
{
	struct stat st;
	size_t i, old;

	ho.connects++;
	if (!ho.on || fstat(fd, &st) == -1) {
		ho.unresolved++;
		close(fd);
		return;
	}
	check_all();
	/* The same socket still waiting: that connect never connected it. */
	for (i = 0; i < ho.np; i++)
		if (ho.p[i].ino == st.st_ino && ho.p[i].dev == st.st_dev) {
			ho.unresolved++;
			drop(i);
			break;
		}
	/* Connected already: this call cannot be told from one on another
	 * socket (it fails with EISCONN, or a datagram socket keeps a peer
	 * it had). */
	if (connected(fd)) {
		ho.unresolved++;
		close(fd);
		return;
	}
	if (ho.np == HANDOFF_PENDING) {
		for (old = 0, i = 1; i < ho.np; i++)
			if (ho.p[i].t0 < ho.p[old].t0)
				old = i;
		ho.unresolved++;
		drop(old);
	}
	ho.p[ho.np].fd = fd;
	ho.p[ho.np].is_unix = domain == AF_UNIX;
	ho.p[ho.np].dev = st.st_dev;
	ho.p[ho.np].ino = st.st_ino;
	ho.p[ho.np].tid = tid;
	ho.p[ho.np++].t0 = ms_now();
	rearm();
}

int
handoffs_open(struct run *r)
{
	memset(&ho, 0, sizeof(ho));
	ho.tfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (ho.tfd == -1)
		return -1;
	ho.on = 1;
	ho.r = r;
	return ho.tfd;
}

void
handoffs_tick(struct run *r)
{
	uint64_t ticks;

	if (read(ho.tfd, &ticks, sizeof(ticks)) == -1 && errno != EAGAIN)
		return;
	check_all();
	rearm();
}

void
handoffs_finish(struct run *r)
{
	if (!ho.on || ho.r != r)
		return;
	check_all();
	ho.unresolved += ho.np;
	while (ho.np > 0)
		drop(0);
	arm(0);
}

void
handoffs_close(struct run *r)
{
	if (!ho.on)
		return;	/* never opened: nothing of this run's */
	handoffs_finish(r);
	if (ho.tfd != -1) {
		loop_unwatch(ho.tfd);
		close(ho.tfd);
	}
	ho.tfd = -1;
}

void
handoffs_report(const struct run *r, json_t *o, enum report_what what)
{
	json_t *h, *d;
	size_t i;

	if (what == REPORT_START)
		return;
	if (!ho.on || ho.r != r) {
		json_object_set_new(o, "handoff", json_null());
		return;
	}
	d = json_object();
	for (i = 0; i < ho.nd; i++)
		json_object_set_new(d, ho.d[i].name,
		    json_integer((json_int_t)ho.d[i].n));
	h = json_pack("{s:I,s:o,s:I,s:I,s:I}", "connects",
	    (json_int_t)ho.connects, "daemons", d, "other",
	    (json_int_t)ho.other, "unresolved", (json_int_t)ho.unresolved,
	    "unlogged", (json_int_t)ho.unlogged);
	if (what == REPORT_INSPECT && h != NULL)
		json_object_set_new(h, "pending", json_integer(
		    (json_int_t)ho.np));
	json_object_set_new(o, "handoff", h != NULL ? h : json_null());
}
