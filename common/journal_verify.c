/* SPDX-License-Identifier: ISC */
/* journal_verify: the verify drivers.  The buffer and the file are read
 * by the same loop: split a batch of lines, hash them (on two threads
 * when the batch is big: records hash independently), then run the one
 * record checker (jrec_check) on each line in order on this thread.  Only
 * the hashing is parallel, so every mode gets the same verdict. */
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "journal.h"
#include "journal_int.h"

/* Bytes the file verifier reads at a time (plus one longest record). */
#define VBUF (4u << 20)

/* Shortest possible record line: {"seq":1,...,"time":"0","event":{}}\n */
#define LINE_MIN 100

/* Lines hashed on one thread when fewer than this in a batch. */
#define THREAD_MIN 64

/* Lines in the fallback batch when the batch array cannot be allocated. */
#define SMALL_BATCH 16

struct vline {
	size_t start, len;	/* in the buffer, newline included */
	uint8_t d[SHA256_LEN];
};

struct vstate {
	struct journal_verdict *v;
	unsigned flags;
	const struct journal_head *from;
	int from_ok;
	char head_hex[SHA256_HEX_LEN + 1];
	struct vline *ln;	/* one batch of lines */
	size_t max;		/* lines it holds */
};

struct hjob {
	const char *buf;
	struct vline *ln;
	size_t from, to;
};

static void
vbad(struct vstate *st, uint64_t off, const char *fmt, ...)
{
	struct journal_verdict *v = st->v;
	va_list ap;

	v->status = JOURNAL_BAD;
	v->bad_seq = v->count + 1;
	v->bad_off = off;
	va_start(ap, fmt);
	vsnprintf(v->why, sizeof(v->why), fmt, ap);
	va_end(ap);
}

static void
vinit(struct vstate *st, unsigned flags, const struct journal_head *from,
    struct journal_verdict *v)
{
	memset(v, 0, sizeof(*v));
	st->flags = flags;
	st->from = from;
	st->from_ok = from == NULL || from->seq == 0;
	if (from != NULL && from->seq == 0) {
		uint8_t z[SHA256_LEN] = {0};

		if (memcmp(from->hash, z, SHA256_LEN) != 0)
			st->from_ok = 0;
	}
	memcpy(st->head_hex, journal_zero_hex, sizeof(st->head_hex));
	st->v = v;
}

/* Batch arrays for a buffer of len bytes; a small one (on the caller's
 * stack) if memory is short, so that verification never fails. */
static void
vbatch(struct vstate *st, size_t len, struct vline *small)
{
	st->max = len / LINE_MIN + 1;
	if (st->max > (VBUF + JOURNAL_RECORD_MAX) / LINE_MIN + 1)
		st->max = (VBUF + JOURNAL_RECORD_MAX) / LINE_MIN + 1;
	st->ln = malloc(st->max * sizeof(*st->ln));
	if (st->ln == NULL) {
		st->ln = small;
		st->max = SMALL_BATCH;
	}
}

static void
vbatch_free(struct vstate *st, struct vline *small)
{
	if (st->ln != small)
		free(st->ln);
}

static void *
hwork(void *arg)
{
	struct hjob *j = arg;
	size_t i;

	for (i = j->from; i < j->to; i++)
		sha256_buf(j->buf + j->ln[i].start, j->ln[i].len, j->ln[i].d);
	return NULL;
}

void
journal_halves(void *(*fn)(void *), void *a, void *b, int threaded)
{
	pthread_t th;

	threaded = threaded && pthread_create(&th, NULL, fn, a) == 0;
	if (!threaded)
		fn(a);
	fn(b);
	if (threaded)
		pthread_join(th, NULL);
}

/* Hash lines ln[0..k) of buf, half on a second thread if k is big. */
static void
hash_lines(const char *buf, struct vline *ln, size_t k)
{
	struct hjob job[2] = {{buf, ln, 0, k / 2}, {buf, ln, k / 2, k}};

	journal_halves(hwork, &job[0], &job[1], k >= THREAD_MIN);
}

/* Split the complete lines of buf[at..len) into st->ln, at most st->max.
 * Returns how many. */
static size_t
split(struct vstate *st, const char *buf, size_t at, size_t len)
{
	const char *p = buf + at, *end = buf + len, *nl;
	size_t k = 0;

	while (k < st->max && p < end &&
	    (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		st->ln[k].start = (size_t)(p - buf);
		st->ln[k].len = (size_t)(nl - p) + 1;
		k++;
		p = nl + 1;
	}
	return k;
}

/* The record at file offset off: the checker, then advance the head. */
static int
vrecord(struct vstate *st, const char *line, const struct vline *l,
    uint64_t off)
{
	struct journal_verdict *v = st->v;
	struct jrec_want w = {st->flags, v->count + 1, st->head_hex, st->from};
	char why[sizeof(v->why)];

	if (jrec_check(&w, line, l->len, l->d, why, sizeof(why)) == -1) {
		vbad(st, off, "%s", why);
		return -1;
	}
	if (st->from != NULL && st->from->seq == w.seq)
		st->from_ok = 1;
	sha256_hex(l->d, st->head_hex);
	memcpy(v->head.hash, l->d, SHA256_LEN);
	v->count++;
	v->head.seq = v->count;
	v->good_end = off + l->len;
	return 0;
}

/* Check every complete line of buf[0..len) (base: its offset in the
 * file).  Returns the bytes consumed (up to the last newline checked);
 * stops at the first bad record (v->status set). */
static size_t
vfeed(struct vstate *st, const char *buf, size_t len, uint64_t base)
{
	size_t at = 0, k, i;

	while ((k = split(st, buf, at, len)) > 0) {
		hash_lines(buf, st->ln, k);
		for (i = 0; i < k; i++) {
			if (vrecord(st, buf + st->ln[i].start, &st->ln[i],
			    base + st->ln[i].start) == -1)
				return st->ln[i].start;
		}
		at = st->ln[k - 1].start + st->ln[k - 1].len;
	}
	return at;
}

/* The unterminated tail rest[0..n) at offset off, after everything else. */
static void
vend(struct vstate *st, const char *rest, size_t n, uint64_t off)
{
	struct journal_verdict *v = st->v;
	char hdr[128];
	int h;

	if (v->status != JOURNAL_OK)
		return;
	/* A witnessed record is durable: if it is missing, that is not a
	 * crash but truncation, torn tail or not. */
	if (!st->from_ok) {
		v->status = JOURNAL_BAD;
		v->bad_seq = st->from->seq;
		v->bad_off = off;
		if (st->from->seq == 0)
			snprintf(v->why, sizeof(v->why),
			    "--from 0 needs the all-zero hash");
		else
			snprintf(v->why, sizeof(v->why), "record %llu of the "
			    "--from head is missing: the journal was truncated",
			    (unsigned long long)st->from->seq);
		return;
	}
	if (n == 0)
		return;
	/* Even with its newline it would be too long: the same verdict as
	 * the checker's, whether or not the file reader saw the newline. */
	if (n >= JOURNAL_RECORD_MAX) {
		vbad(st, off, "record longer than %u bytes",
		    JOURNAL_RECORD_MAX);
		return;
	}
	h = snprintf(hdr, sizeof(hdr), "{\"seq\":%llu,\"prev\":\"%s\","
	    "\"time\":\"", (unsigned long long)(v->count + 1), st->head_hex);
	if (memcmp(rest, hdr, n < (size_t)h ? n : (size_t)h) != 0) {
		vbad(st, off, "unterminated last line is not the beginning of "
		    "record %llu", (unsigned long long)(v->count + 1));
		return;
	}
	v->status = JOURNAL_TORN;
	v->bad_seq = v->count + 1;
	v->bad_off = off;
	snprintf(v->why, sizeof(v->why), "%zu bytes of an unterminated record",
	    n);
}

void
journal_verify_buf(const void *buf, size_t len, unsigned flags,
    const struct journal_head *from, struct journal_verdict *v)
{
	struct vline small[SMALL_BATCH];
	struct vstate st;
	size_t used;

	vinit(&st, flags, from, v);
	vbatch(&st, len, small);
	used = vfeed(&st, buf, len, 0);
	vend(&st, (const char *)buf + used, len - used, used);
	vbatch_free(&st, small);
}

int
journal_verify_upto(int fd, uint64_t limit, unsigned flags,
    const struct journal_head *from, struct journal_verdict *v)
{
	struct vline small[SMALL_BATCH];
	struct vstate st;
	uint64_t off = 0;
	size_t have = 0, used, bufsz;
	ssize_t r = 0;
	char *buf;
	int e;

	/* small journals get small buffers */
	bufsz = VBUF + JOURNAL_RECORD_MAX;
	if (limit < bufsz)
		bufsz = (size_t)limit + 1;
	buf = malloc(bufsz);
	if (buf == NULL)
		return -1;
	vinit(&st, flags, from, v);
	vbatch(&st, bufsz, small);
	for (;;) {
		size_t want = bufsz - have;

		if ((uint64_t)want > limit - (off + have))
			want = (size_t)(limit - (off + have));
		if (want == 0)
			break;
		r = pread(fd, buf + have, want, (off_t)(off + have));
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		have += (size_t)r;
		used = vfeed(&st, buf, have, off);
		if (v->status != JOURNAL_OK)
			break;
		memmove(buf, buf + used, have - used);
		off += used;
		have -= used;
		if (have >= JOURNAL_RECORD_MAX &&
		    memchr(buf, '\n', have) == NULL)
			break;	/* vend() reports the overlong record */
	}
	e = errno;
	if (r != -1)
		vend(&st, buf, have, off);
	vbatch_free(&st, small);
	free(buf);
	return r == -1 ? (errno = e, -1) : 0;
}

int
journal_verify_fd(int fd, unsigned flags, const struct journal_head *from,
    struct journal_verdict *v)
{
	struct stat sb;
	int r;

	/* Appenders hold the exclusive lock through write and fdatasync:
	 * the size seen under a shared lock ends on a record boundary. */
	while (flock(fd, LOCK_SH) == -1)
		if (errno != EINTR)
			return -1;
	r = fstat(fd, &sb);
	flock(fd, LOCK_UN);
	if (r == -1)
		return -1;
	return journal_verify_upto(fd, (uint64_t)sb.st_size, flags, from, v);
}
