/* SPDX-License-Identifier: ISC */
/* record: the run's records, to the journal and the run's log
 * (record.h); the journal's writer (--journal; confexec(1), JOURNAL).
 *
 * The journal is shared with other runs and with journalchain, so an
 * append takes its lock (flock LOCK_EX), and it is durable only once
 * fdatasync returns; a payload that may read the journal can hold a
 * shared lock on it for as long as it likes.  So neither happens on the
 * loop: record_events queues each record's canonical text (jansson stays
 * on the main thread) and a thread of its own waits for the lock, reads
 * the tail, writes every record queued by then in one write and one
 * fdatasync, and hands the bytes written back through an eventfd, the
 * descriptor of src_journal.c: the loop adds them to the run's log
 * (--control) in the order written, so the log holds exactly the
 * journal's bytes.
 *
 * Waits, all bounded by RECORD_WAIT_MS: the start record before the
 * payload runs (not written by then: the run is refused), and every
 * record at the end of the run (not written by then: said in one line
 * naming the journal and what was lost, and the run's exit fails).
 * While the run runs, records wait for the lock without limit: the
 * timeout, signals, the control socket and the kill go on.
 *
 * The thread is started once the supervisor's process is set up (after
 * its user namespace, which a process with threads cannot enter), with
 * every signal blocked; it touches nothing but its queue, the journal
 * and the eventfd, and opens nothing: the journal is opened once, on the
 * main thread, and kept for the run (a thread that opened it would race
 * the loop for the last descriptors, src_egress.c's shed).  Its path is
 * made absolute then, for the directory's fsync of a new journal: the
 * loop may change the working directory for a moment (notify_ops.c). */
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "buf.h"
#include "clock.h"
#include "err.h"
#include "journal.h"
#include "record.h"
#include "run.h"

/* Bytes queued at most: what the run's log may hold (run.h). */
#define JW_QUEUE_MAX (LOG_MAX + JOURNAL_RECORD_MAX)

static void log_add(struct run *r, const char *buf, size_t len);

struct jitem {
	struct jitem *next;
	char *ev[2];
	size_t len[2], n;
	size_t bytes;
	const char *what;	/* "egress record": a static string */
	int keep;		/* to the run's log once written */
	int rc;			/* 0 written, -1 failed (err), -2 lost */
	char err[256];
	char *out;		/* the bytes written (keep) */
	size_t outlen;
};

static struct {
	pthread_mutex_t mu;
	pthread_cond_t work;	/* the writer: records queued */
	pthread_cond_t done;	/* the main thread: a batch is done */
	struct jitem *q, **qtail;	/* queued, not taken */
	struct jitem *d, **dtail;	/* done, not collected */
	size_t qbytes;
	int writing;		/* a batch taken: under the lock */
	int abandoned;		/* given up: nothing more is written */
	int started;
	int inited;
	pthread_t th;
	int efd;
	int fd;			/* the journal, open for the run */
	char path[PATH_MAX];
} jw = {
	.mu = PTHREAD_MUTEX_INITIALIZER,
	.efd = -1,
	.fd = -1,
};

static uint64_t
mono_ms(void)
{
	return now_ns(CLOCK_MONOTONIC) / 1000000u;
}

static void
item_free(struct jitem *it)
{
	free(it->ev[0]);
	free(it->ev[1]);
	free(it->out);
	free(it);
}

/* Under mu: it is done, for the main thread to collect. */
static void
done_add(struct jitem *it)
{
	it->next = NULL;
	*jw.dtail = it;
	jw.dtail = &it->next;
}

/* The queue, the eventfd and the journal's absolute path, once, on the
 * main thread. */
static int
writer_init(struct run *r, char *err, size_t errlen)
{
	pthread_condattr_t ca;
	char cwd[PATH_MAX];

	if (jw.inited)
		return 0;
	if (r->journal[0] == '/')
		snprintf(cwd, sizeof(cwd), "%s", "");
	else if (getcwd(cwd, sizeof(cwd)) == NULL) {
		snprintf(err, errlen, "the working directory: %s",
		    strerror(errno));
		return -1;
	}
	if (snprintf(jw.path, sizeof(jw.path), "%s%s%s", cwd, cwd[0] &&
	    cwd[strlen(cwd) - 1] != '/' ? "/" : "", r->journal) >=
	    (int)sizeof(jw.path)) {
		snprintf(err, errlen, "%s: %s", r->journal,
		    strerror(ENAMETOOLONG));
		return -1;
	}
	jw.fd = journal_open(jw.path, err, errlen);
	if (jw.fd == -1)
		return -1;
	jw.efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (jw.efd == -1) {
		snprintf(err, errlen, "eventfd: %s", strerror(errno));
		close(jw.fd);
		jw.fd = -1;
		return -1;
	}
	if (pthread_condattr_init(&ca) != 0 ||
	    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
	    pthread_cond_init(&jw.done, &ca) != 0 ||
	    pthread_cond_init(&jw.work, NULL) != 0) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	pthread_condattr_destroy(&ca);
	jw.qtail = &jw.q;
	jw.dtail = &jw.d;
	jw.inited = 1;
	return 0;
}

/* Under mu: up to 256 items of the queue, taken (jw.writing set). */
static struct jitem *
take(void)
{
	struct jitem *batch = jw.q, *it = batch;
	size_t n;

	for (n = 1; it->next != NULL && n < 256; n++)
		it = it->next;
	jw.q = it->next;
	if (jw.q == NULL)
		jw.qtail = &jw.q;
	it->next = NULL;
	jw.writing = 1;
	return batch;
}

/* The append's outcome to each item of the batch, and its lines of out
 * (the bytes written, one line per event, in order) to those that keep
 * them (the run's log). */
static void
share_out(struct jitem *batch, int rc, const char *err, const char *out,
    size_t outlen)
{
	struct jitem *it;
	size_t k, n, off = 0;
	const char *nl;

	for (it = batch; it != NULL; it = it->next) {
		it->rc = rc;
		if (rc == -1) {
			snprintf(it->err, sizeof(it->err), "%s", err);
			continue;
		}
		k = off;
		for (n = 0; n < it->n; n++) {
			nl = memchr(out + k, '\n', outlen - k);
			k = nl == NULL ? outlen : (size_t)(nl - out) + 1;
		}
		if (it->keep && (it->out = malloc(k > off ? k - off : 1)) !=
		    NULL) {
			memcpy(it->out, out + off, k - off);
			it->outlen = k - off;
		} else if (it->keep) {
			it->rc = -1;
			snprintf(it->err, sizeof(it->err), "written, but not "
			    "kept in the run's log: out of memory");
		}
		off = k;
	}
}

/* Write the batch under the lock held on fd (-1: not taken, err says
 * why), each item's lines apart; then, under mu, done. */
static void
write_batch(int fd, struct jitem *batch, const char *lockerr)
{
	const char *ev[2 * 256];
	size_t lens[2 * 256], n = 0, k, outlen = 0;
	char err[256], *out = NULL;
	struct jitem *it;
	uint64_t one = 1;
	int rc;

	for (it = batch; it != NULL; it = it->next)
		for (k = 0; k < it->n; k++) {
			ev[n] = it->ev[k];
			lens[n++] = it->len[k];
		}
	if (fd == -1) {
		snprintf(err, sizeof(err), "%s", lockerr);
		rc = -1;
	} else
		rc = journal_append_locked(fd, jw.path, ev, lens, n, &out,
		    &outlen, err, sizeof(err));
	share_out(batch, rc, err, out, outlen);
	free(out);
	pthread_mutex_lock(&jw.mu);
	while (batch != NULL) {
		it = batch;
		batch = it->next;
		jw.qbytes -= it->bytes;
		done_add(it);
	}
	jw.writing = 0;
	pthread_cond_broadcast(&jw.done);
	if (jw.started)
		(void)!write(jw.efd, &one, sizeof(one));
	pthread_mutex_unlock(&jw.mu);
}

/* The thread: wait for records, then for the lock; write every record
 * queued by then; hand them back. */
static void *
writer(void *arg)
{
	struct jitem *batch;
	char err[256];
	int rc;

	(void)arg;
	pthread_mutex_lock(&jw.mu);
	for (;;) {
		while (jw.q == NULL && !jw.abandoned)
			pthread_cond_wait(&jw.work, &jw.mu);
		if (jw.abandoned)
			break;
		pthread_mutex_unlock(&jw.mu);
		/* The wait that may last: another run's append, journalchain,
		 * or a payload's shared lock. */
		rc = journal_lock(jw.fd, jw.path, 1, err, sizeof(err));
		pthread_mutex_lock(&jw.mu);
		if (jw.abandoned) {
			if (rc == 0)
				journal_unlock(jw.fd);
			break;
		}
		batch = take();
		pthread_mutex_unlock(&jw.mu);
		write_batch(rc == 0 ? jw.fd : -1, batch, err);
		if (rc == 0)
			journal_unlock(jw.fd);
		pthread_mutex_lock(&jw.mu);
	}
	pthread_mutex_unlock(&jw.mu);
	return NULL;
}

/* The writer starts with the supervision (the first record queued while
 * the run runs): before it, confexec's own steps (its clones, a child
 * sharing its memory) see one thread, and its waits are bounded ones on
 * the main thread (sync_write).  Every signal blocked: they are the
 * loop's. */
static int
writer_start(void)
{
	sigset_t all, old;
	int e;

	if (jw.started)
		return 0;
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	e = pthread_create(&jw.th, NULL, writer, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (e != 0)
		return errno = e, -1;
	jw.started = 1;
	return 0;
}

/* Without the thread: every record queued written on the main thread,
 * the lock retried (LOCK_NB, every 10 ms) until end (CLOCK_MONOTONIC
 * ms).  Returns 0, or -1 when the lock was not had by then. */
static int
sync_write(uint64_t end)
{
	struct timespec ts = {0, 10000000};
	struct jitem *batch;
	char err[256];
	int rc;

	for (;;) {
		pthread_mutex_lock(&jw.mu);
		if (jw.q == NULL) {
			pthread_mutex_unlock(&jw.mu);
			return 0;
		}
		pthread_mutex_unlock(&jw.mu);
		rc = journal_lock(jw.fd, jw.path, 0, err, sizeof(err));
		if (rc == -1 && errno == EWOULDBLOCK) {
			if (mono_ms() >= end)
				return -1;
			nanosleep(&ts, NULL);
			continue;
		}
		pthread_mutex_lock(&jw.mu);
		batch = take();
		pthread_mutex_unlock(&jw.mu);
		write_batch(rc == 0 ? jw.fd : -1, batch, err);
		if (rc == 0)
			journal_unlock(jw.fd);
	}
}

/* A failure of the journal is said once: on stderr, or, while held
 * (record_hold), kept for the caller to say in its own line.  Only the
 * supervisor's thread says anything. */
static struct {
	int on;
	char msg[512 + PATH_MAX];
} held;

static void say_failure(const char *fmt, ...)
    __attribute__((format(printf, 1, 2)));
static void
say_failure(const char *fmt, ...)
{
	va_list ap;
	char buf[sizeof(held.msg)];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	if (!held.on)
		warning("%s", buf);
	else if (held.msg[0] == '\0')
		memcpy(held.msg, buf, sizeof(buf));
}

void
record_hold(int on)
{
	held.on = on;
	if (on)
		held.msg[0] = '\0';
}

const char *
record_held(void)
{
	return held.msg;
}

static int
submit(struct run *r, char **ev, const size_t *lens, size_t n,
    const char *what, int keep)
{
	struct jitem *it;
	size_t k;

	char err[256 + PATH_MAX];

	if (writer_init(r, err, sizeof(err)) == -1) {
		say_failure("journal %s: %s: %s", r->journal, what, err);
		return -1;
	}
	it = calloc(1, sizeof(*it));
	if (it == NULL) {
		say_failure("journal %s: %s: out of memory", r->journal, what);
		return -1;
	}
	for (k = 0; k < n && k < 2; k++) {
		it->ev[k] = ev[k];
		ev[k] = NULL;
		it->len[k] = lens[k];
		it->bytes += lens[k] + JOURNAL_ENVELOPE_MAX;
	}
	it->n = k;
	it->what = what;
	it->keep = keep;
	pthread_mutex_lock(&jw.mu);
	if (jw.abandoned || jw.qbytes + it->bytes > JW_QUEUE_MAX) {
		k = jw.abandoned;
		pthread_mutex_unlock(&jw.mu);
		if (!k)
			say_failure("journal %s: %s: not written: %u bytes "
			    "wait for the journal's lock already", r->journal,
			    what, (unsigned)JW_QUEUE_MAX);
		item_free(it);
		return -1;
	}
	it->next = NULL;
	*jw.qtail = it;
	jw.qtail = &it->next;
	jw.qbytes += it->bytes;
	pthread_cond_signal(&jw.work);
	pthread_mutex_unlock(&jw.mu);
	if (r->state == ST_RUNNING && !jw.started && writer_start() == -1)
		say_failure("journal %s: its writer: %s; the records wait "
			"for the run's end", r->journal, strerror(errno));
	return 0;
}

/* Under mu: nothing more is written, what waits is lost.  A batch is
 * only taken under the lock, and its write is not stopped half-way (a
 * torn record): waited for. */
static void
abandon(void)
{
	struct jitem *it;

	jw.abandoned = 1;
	pthread_cond_signal(&jw.work);
	while (jw.writing)
		pthread_cond_wait(&jw.done, &jw.mu);
	while (jw.q != NULL) {
		it = jw.q;
		jw.q = it->next;
		it->rc = -2;
		jw.qbytes -= it->bytes;
		done_add(it);
	}
	jw.qtail = &jw.q;
}

/* The records written or failed so far, in order: kept ones to the
 * run's log, failures said.  Lost ones (given up) are counted into
 * *lost, the first and last named. */
static int
collect(struct run *r, size_t *lost, const char **first, const char **last)
{
	struct jitem *d, *it;
	int rc = 0;

	pthread_mutex_lock(&jw.mu);
	d = jw.d;
	jw.d = NULL;
	jw.dtail = &jw.d;
	pthread_mutex_unlock(&jw.mu);
	while (d != NULL) {
		it = d;
		d = it->next;
		if (it->rc == 0 && it->keep)
			log_add(r, it->out, it->outlen);
		else if (it->rc == -2) {
			if (*lost == 0)
				*first = it->what;
			*last = it->what;
			(*lost)++;
		} else if (it->rc == -1) {
			say_failure("journal %s: %s: %s", r->journal, it->what,
			    it->err);
		}
		if (it->rc != 0) {
			r->jfailed = 1;
			rc = -1;
		}
		item_free(it);
	}
	return rc;
}

void
record_collect(struct run *r)
{
	size_t lost = 0;
	const char *a, *b;

	if (!jw.inited)
		return;
	(void)collect(r, &lost, &a, &b);
}

int
record_wait(struct run *r, unsigned ms, const char *when)
{
	struct timespec ts;
	uint64_t end;
	size_t lost = 0;
	const char *first = NULL, *last = NULL;
	int rc, gaveup = 0;

	if (!jw.inited)
		return 0;
	end = mono_ms() + ms;
	if (!jw.started && sync_write(end) == -1)
		gaveup = 1;
	pthread_mutex_lock(&jw.mu);
	while ((jw.q != NULL || jw.writing) && !jw.abandoned && !gaveup) {
		if (mono_ms() >= end) {
			gaveup = 1;
			break;
		}
		ts.tv_sec = (time_t)(end / 1000u);
		ts.tv_nsec = (long)(end % 1000u) * 1000000L;
		pthread_cond_timedwait(&jw.done, &jw.mu, &ts);
	}
	if (gaveup || jw.abandoned)
		abandon();
	pthread_mutex_unlock(&jw.mu);
	rc = collect(r, &lost, &first, &last);
	if (lost == 1)
		say_failure("journal %s: %s not written within %u ms %s (its "
			"lock is held by another process)", r->journal, first,
		    ms, when);
	else if (lost > 1)
		say_failure("journal %s: %zu records (%s ... %s) not written "
			"within %u ms %s (its lock is held by another process)",
		    r->journal, lost, first, last, ms, when);
	return rc;
}

int
record_given_up(void)
{
	int a;

	pthread_mutex_lock(&jw.mu);
	a = jw.abandoned;
	pthread_mutex_unlock(&jw.mu);
	return a;
}


/* The writer's eventfd, for src_journal.c to poll (NULL without a
 * journal, or one that cannot be opened: said with the start record). */
const int *
record_eventfd(struct run *r)
{
	char err[256 + PATH_MAX];

	if (r->journal == NULL || writer_init(r, err, sizeof(err)) == -1)
		return NULL;
	return &jw.efd;
}

/* Records built for this run: the journal's, or the control socket's
 * log. */
int
record_wanted(const struct run *r)
{
	return r->journal != NULL || r->control != NULL;
}

/* The records' bytes kept in the run's log (--control), and followers
 * told.  The log was sized for them (run.h, LOG_MAX; admitted in
 * record_events). */
static void
log_add(struct run *r, const char *buf, size_t len)
{
	struct runlog *l = &r->log;

	if (buf_reserve(&l->buf, &l->cap, l->len + len, 16384) == -1) {
		warning("control: the run's log: out of memory; a record of "
		    "the journal is not in it");
		r->jfailed = 1;
		return;
	}
	memcpy(l->buf + l->len, buf, len);
	l->len += len;
}

/* Each source asserts its own records fit its share. */
_Static_assert(LOG_MAX >= JOURNAL_RECORD_MAX + LOG_EGRESS_SHARE +
    LOG_CONTROL_SHARE + LOG_HANDOFF_SHARE + LOG_CANARY_SHARE +
    LOG_END_RESERVE,
    "the run's log cannot hold every record");

/* Whether the run's log has room for a record of len bytes (envelopes
 * counted at their largest): every record but the end record leaves
 * LOG_END_RESERVE for it.  By the bounds LOG_MAX is sized from, a record
 * is never turned away; if one were, it is written neither to the
 * journal nor to the log, and said. */
static int
log_admits(struct run *r, size_t len, int end, const char *what)
{
	struct runlog *l = &r->log;

	if (!end && l->committed + len > LOG_MAX - LOG_END_RESERVE) {
		warning("control: the run's log is full (%u bytes): %s not "
			"written", LOG_MAX, what);
		r->jfailed = 1;
		return 0;
	}
	l->committed += len;
	return 1;
}

/* Append events (consumed) in one write: to the journal, and with
 * --control to the run's log (the exact bytes written, or without
 * --journal records built in memory).  With --journal the records are
 * queued for the journal's writer (src_journal.c), never written here:
 * a caller that must know they are written waits (record_wait).  Returns 0,
 * or -1 with the reason printed (one line, naming what: "end record"). */
int
record_events(struct run *r, json_t **ev, size_t n, const char *what)
{
	char *txt[2] = {NULL, NULL}, *canon[2] = {NULL, NULL}, err[256];
	char *out = NULL;
	int keep = r->control != NULL && r->log.on;
	size_t i, lens[2] = {0, 0}, outlen = 0, size = 0;
	const char *name;
	int rc = -1, end = 0;

	if ((r->journal == NULL && !keep) || n > 2) {
		for (i = 0; i < n; i++)
			json_decref(ev[i]);
		return n > 2 ? -1 : 0;
	}
	for (i = 0; i < n; i++) {
		name = json_string_value(json_object_get(ev[i], "event"));
		end |= name != NULL && strcmp(name, "end") == 0;
		txt[i] = json_dumps(ev[i], JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(ev[i]);
	}
	for (i = 0; i < n; i++) {
		if (txt[i] == NULL || journal_event_canon(txt[i],
		    strlen(txt[i]), &canon[i], &lens[i], err,
		    sizeof(err)) == -1) {
			warning("journal: %s: cannot encode it", what);
			goto out;
		}
		size += lens[i] + JOURNAL_ENVELOPE_MAX;
	}
	if (keep && !log_admits(r, size, end, what))
		goto out;
	if (r->journal != NULL)
		rc = submit(r, canon, lens, n, what, keep);
	else if (journal_build(&r->log.head, (const char *const *)txt, n,
	    &out, &outlen, err, sizeof(err)) == 0) {
		log_add(r, out, outlen);
		rc = 0;
	} else
		warning("control: the run's log: %s: %s", what, err);
out:
	free(out);
	for (i = 0; i < 2; i++) {
		free(txt[i]);
		free(canon[i]);
	}
	return rc;
}

