/* SPDX-License-Identifier: ISC */
/* ctl: requests and answers of the control socket (ctl.h,
 * confexec-control(5)).  One JSON line per answer, keys sorted, with
 * "v":1. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <unistd.h>

#include "buf.h"
#include "cgroup.h"
#include "clock.h"
#include "ctl.h"
#include "err.h"
#include "events.h"
#include "layers.h"
#include "loop.h"
#include "run.h"

static const char *const state_names[] = {
	[ST_STARTING] = "starting",
	[ST_RUNNING] = "running",
	[ST_ENDING] = "ending",
	[ST_ENDED] = "ended",
};

/* ---- clients ---- */

static void
drop(struct client *k)
{
	if (!k->used)
		return;
	loop_unwatch(k->fd);
	close(k->fd);
	free(k->in);
	free(k->out);
	memset(k, 0, sizeof(*k));
	k->fd = -1;
}

void
ctl_client_close_all(struct ctl *c)
{
	size_t i;

	for (i = 0; i < CTL_CLIENTS; i++)
		drop(&c->c[i]);
}

/* The loop's tag of a client: its slot (the loop drops the events of a
 * descriptor unwatched since). */
static uint32_t
tag_of(const struct ctl *c, const struct client *k)
{
	return (uint32_t)(k - c->c);
}

/* Complete request lines read and not yet answered. */
static int
pending(const struct client *k)
{
	return !k->closing && k->inlen > 0 &&
	    (k->eof || memchr(k->in, '\n', k->inlen) != NULL);
}

/* Poll for what the client needs: input unless closing, at its end, or
 * with requests still to answer; output while some is pending, or to
 * come back for the requests left (a writable socket is ready at once).
 * A client that needs neither is done. */
static void
rewatch(struct ctl *c, struct client *k)
{
	uint32_t ev = 0;

	if (!k->closing && !k->eof && !pending(k))
		ev |= EPOLLIN;
	/* A follower behind the log comes back as soon as its socket takes
	 * more: its next pages. */
	if (k->outoff < k->outlen || pending(k) || (k->follow &&
	    !k->closing && k->next < c->r->log.len))
		ev |= EPOLLOUT;
	if (ev == 0 && !(k->follow && !k->closing)) {
		drop(k);
		return;
	}
	if (ev != k->events && loop_watch(c->src, k->fd, tag_of(c, k), ev)
	    == -1) {
		drop(k);
		return;
	}
	k->events = ev;
}

int
ctl_client_add(struct ctl *c, int fd)
{
	struct client *k = NULL;
	size_t i;

	for (i = 0; i < CTL_CLIENTS && k == NULL; i++)
		if (!c->c[i].used)
			k = &c->c[i];
	if (k == NULL)
		return -1;
	memset(k, 0, sizeof(*k));
	k->in = malloc(CTL_LINE_MAX + 1);
	if (k->in == NULL)
		return -1;
	k->used = 1;
	k->fd = fd;
	if (loop_watch(c->src, fd, tag_of(c, k), EPOLLIN) == -1) {
		free(k->in);
		memset(k, 0, sizeof(*k));
		return -1;
	}
	k->events = EPOLLIN;
	return (int)(k - c->c);
}

/* Write what does not block.  Returns 0, or -1 when the client went. */
static int
flush(struct client *k)
{
	ssize_t n;

	while (k->outoff < k->outlen) {
		n = send(k->fd, k->out + k->outoff, k->outlen - k->outoff,
		    MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
			return 0;
		if (n <= 0) {
			drop(k);
			return -1;
		}
		k->outoff += (size_t)n;
	}
	k->outoff = k->outlen = 0;
	return 0;
}

/* Queue one answer (consumed), "v":1 added; over the cap, the client is
 * dropped.  Returns 0 or -1 (gone). */
static int
answer(struct client *k, json_t *o)
{
	char *txt;
	size_t n;

	json_object_set_new(o, "v", json_integer(CTL_VERSION));
	txt = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(o);
	if (txt == NULL) {
		drop(k);
		return -1;
	}
	n = strlen(txt) + 1;
	if (k->outlen + n > CTL_OUT_MAX) {
		free(txt);
		drop(k);
		return -1;
	}
	if (buf_reserve(&k->out, &k->outcap, k->outlen + n, 4096) == -1) {
		free(txt);
		drop(k);
		return -1;
	}
	memcpy(k->out + k->outlen, txt, n - 1);
	k->out[k->outlen + n - 1] = '\n';
	k->outlen += n;
	free(txt);
	return flush(k);
}

/* An error answer; the connection closes once it is written. */
static int
answer_error(struct client *k, const char *msg, int versions)
{
	json_t *o = json_object(), *v;

	json_object_set_new(o, "ok", json_false());
	json_object_set_new(o, "error", json_string(msg));
	if (versions) {
		v = json_array();
		json_array_append_new(v, json_integer(CTL_VERSION));
		json_object_set_new(o, "versions", v);
	}
	k->closing = 1;
	k->follow = 0;
	return answer(k, o);
}

/* ---- the log's pages ---- */

/* Whole records of the log from off, at most limit bytes: "records",
 * "offset", "next", "end".  Returns the answer, or NULL with msg. */
static json_t *
page(const struct run *r, uint64_t off, uint64_t limit, char *msg,
    size_t msglen)
{
	const struct runlog *l = &r->log;
	const char *nl;
	json_t *o, *a, *s;
	size_t p, end;

	if (off > l->len || (off > 0 && l->buf[off - 1] != '\n')) {
		err_set(msg, msglen, "offset %llu is not the start of a record "
		    "(the log has %zu bytes)", (unsigned long long)off, l->len);
		return NULL;
	}
	a = json_array();
	for (p = (size_t)off; p < l->len; p = end) {
		nl = memchr(l->buf + p, '\n', l->len - p);
		end = nl == NULL ? l->len : (size_t)(nl - l->buf) + 1;
		if (end - (size_t)off > limit)
			break;
		s = json_stringn(l->buf + p, end - p);
		if (s == NULL || json_array_append_new(a, s) == -1) {
			json_decref(a);
			err_set(msg, msglen, "record at %zu: cannot encode it",
			    p);
			return NULL;
		}
	}
	if (p == off && p < l->len) {
		json_decref(a);
		err_set(msg, msglen, "limit %llu is less than the record at "
		    "offset %llu (%zu bytes)", (unsigned long long)limit,
		    (unsigned long long)off, end - p);
		return NULL;
	}
	o = json_object();
	json_object_set_new(o, "ok", json_true());
	json_object_set_new(o, "offset", json_integer((json_int_t)off));
	json_object_set_new(o, "next", json_integer((json_int_t)p));
	json_object_set_new(o, "records", a);
	json_object_set_new(o, "end",
	    json_boolean(p == l->len && r->state == ST_ENDED));
	return o;
}

/* A follower's next pages, each once the last one is written (paced,
 * never more than one page waiting), CTL_TURN at most per turn: the
 * rest when its socket takes more (rewatch).  At the log's end after the
 * end record: done, closed. */
static void
push(struct ctl *c, struct client *k)
{
	char msg[256];
	json_t *o;
	int turn;

	if (!k->used || !k->follow || k->closing || k->outlen > 0)
		return;
	for (turn = 0; turn < CTL_TURN && k->outlen == 0 &&
	    k->next < c->r->log.len; turn++) {
		o = page(c->r, k->next, k->limit, msg, sizeof(msg));
		if (o == NULL) {
			if (answer_error(k, msg, 0) == 0)
				rewatch(c, k);
			return;
		}
		k->next = (uint64_t)json_integer_value(json_object_get(o,
		    "next"));
		if (answer(k, o) == -1)
			return;
	}
	if (k->next == c->r->log.len && c->r->state == ST_ENDED)
		k->closing = 1;
	rewatch(c, k);
}

void
ctl_push_all(struct ctl *c)
{
	size_t i;

	for (i = 0; i < CTL_CLIENTS; i++)
		push(c, &c->c[i]);
}

/* ---- requests ---- */

static uint64_t
elapsed_ms(const struct run *r)
{
	return (now_ns(CLOCK_MONOTONIC) - ((uint64_t)r->t0.tv_sec *
	    1000000000u + (uint64_t)r->t0.tv_nsec)) / 1000000u;
}

static json_t *
limit_json(int on, uint64_t v)
{
	return on ? json_integer((json_int_t)v) : json_null();
}

static json_t *
inspect(struct run *r)
{
	json_t *o = json_object(), *lim = json_object();
	uint64_t cpu, el = elapsed_ms(r);
	char t[32];

	json_object_set_new(o, "ok", json_true());
	json_object_set_new(o, "state", json_string(state_names[r->state]));
	json_object_set_new(o, "pid", json_integer(r->pid));
	json_object_set_new(o, "cgroup",
	    r->have_cg ? json_string(r->cg.path) : json_null());
	json_object_set_new(o, "plan_sha256", json_string(r->plan_hex));
	json_object_set_new(o, "program", json_string(r->p.program));
	json_object_set_new(o, "program_sha256", json_string(r->prog_hex));
	json_object_set_new(o, "layers", events_layers(r, V_ENFORCE));
	json_object_set_new(o, "degraded", events_layers(r, V_DEGRADE));
	snprintf(t, sizeof(t), "%llu", (unsigned long long)r->start_real_ns);
	json_object_set_new(o, "start_time_ns", json_string(t));
	json_object_set_new(o, "elapsed_ms", json_integer((json_int_t)el));
	json_object_set_new(o, "cpu_usec", r->have_cg &&
	    cg_cpu_usec(&r->cg, &cpu) == 0 ? json_integer((json_int_t)cpu) :
	    json_null());
	json_object_set_new(lim, "memory_max",
	    limit_json(layers_on(r, L_MEMORY), r->p.mem_max));
	json_object_set_new(lim, "pids_max",
	    limit_json(layers_on(r, L_PIDS), r->p.pids_max));
	json_object_set_new(lim, "cpu_quota_us",
	    limit_json(layers_on(r, L_CPU), r->p.cpu_quota_us));
	json_object_set_new(lim, "cpu_period_us",
	    limit_json(layers_on(r, L_CPU), r->p.cpu_period_us));
	json_object_set_new(lim, "timeout_ms",
	    limit_json(r->p.timeout_ms != 0, r->p.timeout_ms));
	json_object_set_new(o, "limits", lim);
		json_object_set_new(o, "timeout_left_ms", r->p.timeout_ms == 0 ?
	    json_null() : json_integer((json_int_t)(el >= r->p.timeout_ms ?
	    0 : r->p.timeout_ms - el)));
	json_object_set_new(o, "log_bytes", json_integer((json_int_t)
	    r->log.len));
	loop_report(r, o, REPORT_INSPECT);	/* the sources' keys */
	return o;
}

static enum src_ret
cancel(struct ctl *c, struct client *k)
{
	json_t *o = json_object();
	const char *res;

	json_object_set_new(o, "ok", json_true());
	if (c->delivered)
		res = "already_delivered";
	else if (c->r->state != ST_RUNNING)
		res = "ended";		/* ended otherwise first */
	else
		res = "delivered";
	json_object_set_new(o, "result", json_string(res));
	if (strcmp(res, "delivered") != 0) {
		answer(k, o);
		return SRC_CONTINUE;
	}
	c->delivered = 1;
	answer(k, o);
	return loop_cancel(c->r, "control");
}

/* One request line.  Returns SRC_END for a delivered cancel; *gone when
 * the client went or closes. */
static enum src_ret
request(struct ctl *c, struct client *k, const char *line, size_t len,
    int *gone)
{
	struct ctl_req q;
	char err[256];
	json_t *o;

	if (ctlreq_parse(line, len, &q, err, sizeof(err)) == -1) {
		answer_error(k, err, errno == EPROTONOSUPPORT);
		*gone = 1;
		return SRC_CONTINUE;
	}
	switch (q.op) {
	case CTL_INSPECT:
		answer(k, inspect(c->r));
		break;
	case CTL_HEARTBEAT:
		o = json_object();
		json_object_set_new(o, "ok", json_true());
		json_object_set_new(o, "state",
		    json_string(state_names[c->r->state]));
		json_object_set_new(o, "elapsed_ms",
		    json_integer((json_int_t)elapsed_ms(c->r)));
		answer(k, o);
		break;
	case CTL_SUBSCRIBE:
		o = page(c->r, q.offset, q.limit, err, sizeof(err));
		if (o == NULL) {
			answer_error(k, err, 0);
			*gone = 1;
			break;
		}
		k->next = (uint64_t)json_integer_value(json_object_get(o,
		    "next"));
		k->limit = q.limit;
		k->follow = q.follow;
		if (answer(k, o) == 0 && k->follow)
			push(c, k);
		break;
	case CTL_CANCEL:
		return cancel(c, k);
	}
	*gone = !k->used || k->closing;
	return SRC_CONTINUE;
}

/* The complete lines read so far, in order (at EOF, the rest too), at
 * most CTL_TURN of them: the rest on the next turn of the loop. */
static enum src_ret
lines(struct ctl *c, struct client *k)
{
	enum src_ret ret = SRC_CONTINUE;
	char *nl;
	size_t n;
	int gone = 0, turn = 0;

	while (k->used && !k->closing && ret == SRC_CONTINUE && !gone &&
	    turn++ < CTL_TURN) {
		nl = memchr(k->in, '\n', k->inlen);
		if (nl == NULL && k->inlen > CTL_LINE_MAX) {
			answer_error(k, "request longer than 65536 bytes", 0);
			break;
		}
		if (nl == NULL && !(k->eof && k->inlen > 0))
			break;
		n = nl == NULL ? k->inlen : (size_t)(nl - k->in);
		ret = request(c, k, k->in, n, &gone);
		if (!k->used)
			break;
		n = nl == NULL ? k->inlen : n + 1;
		memmove(k->in, k->in + n, k->inlen - n);
		k->inlen -= n;
	}
	if (k->used)
		rewatch(c, k);
	return ret;
}

enum src_ret
ctl_client_ready(struct ctl *c, uint32_t tag, uint32_t events)
{
	struct client *k;
	ssize_t n;

	if (tag >= CTL_CLIENTS)
		return SRC_CONTINUE;
	k = &c->c[tag];
	if (!k->used)
		return SRC_CONTINUE;
	if ((events & EPOLLERR) ||
	    ((events & EPOLLHUP) && !(events & EPOLLIN) && !pending(k))) {
		drop(k);	/* gone: nothing more to read or write */
		return SRC_CONTINUE;
	}
	if ((events & EPOLLOUT) && flush(k) == -1)
		return SRC_CONTINUE;
	if (pending(k))
		return lines(c, k);
	if ((events & (EPOLLIN | EPOLLHUP | EPOLLERR)) && !k->closing &&
	    !k->eof) {
		n = read(k->fd, k->in + k->inlen, CTL_LINE_MAX + 1 - k->inlen);
		if (n == -1 && (errno == EAGAIN || errno == EINTR))
			return SRC_CONTINUE;
		if (n == -1) {
			drop(k);
			return SRC_CONTINUE;
		}
		if (n == 0)
			k->eof = 1;
		k->inlen += (size_t)n;
		return lines(c, k);
	}
	if (k->outlen == 0 && k->follow)
		push(c, k);
	if (k->used)
		rewatch(c, k);
	return SRC_CONTINUE;
}

/* ---- after the end ---- */

int
ctl_linger_ms(struct ctl *c)
{
	uint64_t now = now_ns(CLOCK_MONOTONIC), left;
	size_t i;
	int busy = 0, any = 0;

	if (!c->lingering) {
		/* What was read before the end, then the followers' pages. */
		c->lingering = 1;
		c->linger_t0 = now;
		for (i = 0; i < CTL_CLIENTS; i++)
			if (c->c[i].used && c->c[i].inlen > 0)
				lines(c, &c->c[i]);
		ctl_push_all(c);
	}
	left = CTL_LINGER_MS - (now - c->linger_t0) / 1000000u;
	if ((int64_t)left <= 0)
		return 0;
	for (i = 0; i < CTL_CLIENTS; i++)
		if (c->c[i].used) {
			any = 1;
			busy |= c->c[i].outlen > 0;
		}
	return busy ? (int)left : any ? CTL_QUIET_MS : 0;
}
