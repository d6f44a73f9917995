/* SPDX-License-Identifier: ISC */
/* journal: the journal file: locking, reading the tail, append, recover.
 * The record format and checker are in journal_rec.c, the verify drivers
 * in journal_verify.c (journal_int.h says what they share). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "hash.h"
#include "io.h"
#include "journal.h"
#include "journal_int.h"

/* ---- the tail, under the lock ---- */

/* The last want bytes of fd (size bytes) in *buf (grown), ending with a
 * newline.  0, or -1 with errno and err (EBADMSG and *st JOURNAL_TORN:
 * an unterminated record). */
static int
tail_read(int fd, uint64_t size, size_t want, char **buf,
    enum journal_status *st, char *err, size_t errlen)
{
	char *nb;

	if ((nb = realloc(*buf, want)) == NULL)
		return -1;
	*buf = nb;
	if (pread_all(fd, nb, want, size - want) == -1)
		return err_set(err, errlen, "cannot read the tail: %s",
		    strerror(errno));
	if (nb[want - 1] != '\n') {
		*st = JOURNAL_TORN;
		errno = EBADMSG;
		return err_set(err, errlen, "journal ends with an unterminated "
		    "record (torn tail); see journalchain recover");
	}
	return 0;
}

/* Where the line of buf that ends at end (a newline, or the end of what
 * was read) begins: *start.  1 when it may begin before buf (buf does
 * not start at the file's start: read more). */
static int
line_start(const char *buf, size_t end, int atstart, size_t *start)
{
	const char *q = memrchr(buf, '\n', end);

	if (q == NULL && !atstart)
		return 1;
	*start = q == NULL ? 0 : (size_t)(q - buf) + 1;
	return 0;
}

/* What the record len bytes at rec (without its newline) makes the next
 * one's link: w's seq and prev_hex (in hex).  0, or -1 with *why. */
static int
next_link(const char *rec, size_t len, struct jrec_want *w,
    char hex[SHA256_HEX_LEN + 1], const char **why)
{
	struct journal_record r0;
	uint8_t d0[SHA256_LEN];

	if (journal_record_parse(rec, len, &r0, why) == -1)
		return -1;
	if (r0.seq == UINT64_MAX) {
		*why = "seq overflows";
		return -1;
	}
	sha256_buf(rec, len + 1, d0);
	sha256_hex(d0, hex);
	w->seq = r0.seq + 1;
	w->prev_hex = hex;
	return 0;
}

/* Read the head from the last record of fd (size bytes), checking the
 * last link with the record checker (the line before it is only parsed).
 * The tail read grows until both lines are whole.  Returns 0, or -1 with
 * errno (EBADMSG: *st says why). */
static int
tail_head(int fd, uint64_t size, struct journal_head *h,
    enum journal_status *st, char *err, size_t errlen)
{
	size_t want = 16384, s1, s0, e1;
	struct jrec_want w = {0, 1, journal_zero_hex, NULL};
	char hex[SHA256_HEX_LEN + 1], whybuf[200];
	const char *why;
	char *buf = NULL;
	int atstart;

	*st = JOURNAL_OK;
	memset(h, 0, sizeof(*h));
	if (size == 0)
		return 0;
	for (;;) {
		if (want > size)
			want = (size_t)size;
		atstart = want == size;
		if (tail_read(fd, size, want, &buf, st, err, errlen) == -1)
			goto fail;
		e1 = want - 1;
		if (line_start(buf, e1, atstart, &s1) == 0) {
			if (s1 == 0)	/* the only record: seq 1 on genesis */
				break;
			if (line_start(buf, s1 - 1, atstart, &s0) == 0) {
				if (next_link(buf + s0, s1 - 1 - s0, &w, hex,
				    &why) == -1)
					goto broken;
				break;
			}
		}
		if (want >= 2 * (size_t)JOURNAL_RECORD_MAX + 2) {
			why = "last records are longer than the maximum";
			goto broken;
		}
		want *= 2;
	}
	sha256_buf(buf + s1, e1 - s1 + 1, h->hash);
	if (jrec_check(&w, buf + s1, e1 - s1 + 1, h->hash, whybuf,
	    sizeof(whybuf)) == -1) {
		why = whybuf;
		goto broken;
	}
	h->seq = w.seq;
	free(buf);
	return 0;
broken:
	*st = JOURNAL_BAD;
	memset(h, 0, sizeof(*h));
	err_set(err, errlen, "the journal's tail is broken (%s); run "
	    "journalchain verify", why);
	errno = EBADMSG;
fail:
	free(buf);
	return -1;
}

static int
open_checked(const char *path, int flags, char *err, size_t errlen)
{
	struct stat sb;
	int fd;

	fd = open(path, flags | O_CLOEXEC, 0600);
	if (fd == -1) {
		int e = errno;
		const char *slash = strrchr(path, '/');

		/* Creating it, ENOENT: its directory is missing.  Name the
		 * command that makes it (the journal's own directory only:
		 * never made here, its owner and mode are the host's call). */
		if (e == ENOENT && (flags & O_CREAT) && slash != NULL &&
		    slash != path)
			err_set(err, errlen, "cannot open %s: %s (make its "
			    "directory first: mkdir -p %.*s)", path,
			    strerror(e), (int)(slash - path), path);
		else
			err_set(err, errlen, "cannot open %s: %s", path,
			    strerror(e));
		return errno = e, -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		int e = S_ISREG(sb.st_mode) ? errno : EINVAL;

		err_set(err, errlen, "%s: not a regular file", path);
		close(fd);
		return errno = e, -1;
	}
	return fd;
}

static int
lock_fd(int fd, const char *path, int op, char *err, size_t errlen)
{
	int e;

	while (flock(fd, op) == -1) {
		if (errno == EINTR)
			continue;
		e = errno;
		if (e == EWOULDBLOCK)
			err_set(err, errlen, "%s: its lock is held by another "
			    "process", path);
		else
			err_set(err, errlen, "cannot lock %s: %s", path,
			    strerror(e));
		return errno = e, -1;
	}
	return 0;
}

static int
open_locked(const char *path, int flags, char *err, size_t errlen)
{
	int fd = open_checked(path, flags, err, errlen), e;

	if (fd != -1 && lock_fd(fd, path, LOCK_EX, err, errlen) == -1) {
		e = errno;
		close(fd);
		return errno = e, -1;
	}
	return fd;
}

static int
fsize(int fd, uint64_t *size)
{
	struct stat sb;

	if (fstat(fd, &sb) == -1)
		return -1;
	*size = (uint64_t)sb.st_size;
	return 0;
}

/* fsync the directory holding path, so a new file's entry is durable. */
static int
sync_dir(const char *path)
{
	const char *slash = strrchr(path, '/');
	char *dir;
	int fd, r;

	if (slash == NULL)
		dir = strdup(".");
	else if (slash == path)
		dir = strdup("/");
	else
		dir = strndup(path, (size_t)(slash - path));
	if (dir == NULL)
		return -1;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	free(dir);
	if (fd == -1)
		return -1;
	r = fsync(fd);
	close(fd);
	return r;
}

/* Build the records for events on top of *h (updated) into a malloc'ed
 * buffer.  Returns it (length in *len) or NULL with errno. */
static char *
build(const char *const *events, const size_t *lens, size_t n,
    struct journal_head *h, size_t *len, char *err, size_t errlen)
{
	char hex[SHA256_HEX_LEN + 1], *buf, *p;
	struct timespec ts;
	uint64_t now;
	size_t total = 0, i;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	for (i = 0; i < n; i++) {
		/* envelope: at most 7+20+10+64+10+20+11+2 bytes */
		if (lens[i] > JOURNAL_RECORD_MAX - JOURNAL_ENVELOPE_MAX) {
			err_set(err, errlen, "event %zu: record longer than %u "
			    "bytes", i + 1, JOURNAL_RECORD_MAX);
			errno = EINVAL;
			return NULL;
		}
		total += lens[i] + JOURNAL_ENVELOPE_MAX;
	}
	buf = malloc(total ? total : 1);
	if (buf == NULL)
		return NULL;
	sha256_hex(h->hash, hex);
	p = buf;
	for (i = 0; i < n; i++) {
		char *start = p;
		int k;

		k = sprintf(p, "{\"seq\":%llu,\"prev\":\"%s\",\"time\":\"%llu"
		    "\",\"event\":", (unsigned long long)(h->seq + 1), hex,
		    (unsigned long long)now);
		p += k;
		memcpy(p, events[i], lens[i]);
		p += lens[i];
		*p++ = '}';
		*p++ = '\n';
		sha256_buf(start, (size_t)(p - start), h->hash);
		sha256_hex(h->hash, hex);
		h->seq++;
	}
	*len = (size_t)(p - buf);
	return buf;
}

/* Write buf at the end of fd (size bytes before), then fdatasync; on
 * failure take the partial write back out.  Returns 0 or -1 with errno. */
static int
commit(int fd, const char *path, uint64_t size, const char *buf, size_t len,
    char *err, size_t errlen)
{
	int e;

	if (write_all(fd, buf, len) == -1 || fdatasync(fd) == -1) {
		e = errno;
		err_set(err, errlen, "cannot write %s: %s", path, strerror(e));
		if (ftruncate(fd, (off_t)size) == 0)
			(void)fdatasync(fd);
		return errno = e, -1;
	}
	if (size == 0 && sync_dir(path) == -1) {
		e = errno;
		err_set(err, errlen, "cannot sync the directory of %s: %s",
		    path, strerror(e));
		return errno = e, -1;
	}
	return 0;
}

int
journal_open(const char *path, char *err, size_t errlen)
{
	return open_checked(path, O_RDWR | O_APPEND | O_CREAT, err, errlen);
}

int
journal_lock(int fd, const char *path, int wait, char *err, size_t errlen)
{
	return lock_fd(fd, path, wait ? LOCK_EX : LOCK_EX | LOCK_NB, err,
	    errlen);
}

void
journal_unlock(int fd)
{
	(void)flock(fd, LOCK_UN);
}

/* Under the lock held on fd: the tail, the records, the write. */
static int
append_fd(int fd, const char *path, const char *const *events,
    const size_t *lens, size_t n, struct journal_head *head,
    enum journal_status *status, char **out, size_t *outlen, char *err,
    size_t errlen)
{
	enum journal_status st = JOURNAL_OK;
	struct journal_head h;
	uint64_t size;
	size_t len;
	char *buf = NULL;
	int e, r = -1;

	if (status != NULL)
		*status = JOURNAL_OK;
	if (fsize(fd, &size) == -1) {
		err_set(err, errlen, "cannot stat %s: %s", path,
		    strerror(errno));
		goto out;
	}
	if (tail_head(fd, size, &h, &st, err, errlen) == -1) {
		if (status != NULL)
			*status = st;
		goto out;
	}
	if (n > 0) {
		buf = build(events, lens, n, &h, &len, err, errlen);
		if (buf == NULL)
			goto out;
		if (commit(fd, path, size, buf, len, err, errlen) == -1)
			goto out;
	}
	if (head != NULL)
		*head = h;
	if (out != NULL) {
		*out = buf;
		*outlen = n > 0 ? len : 0;
		buf = NULL;
	}
	r = 0;
out:
	e = errno;
	free(buf);
	errno = e;
	return r;
}

int
journal_append_locked(int fd, const char *path, const char *const *events,
    const size_t *lens, size_t n, char **out, size_t *outlen, char *err,
    size_t errlen)
{
	*out = NULL;
	*outlen = 0;
	return append_fd(fd, path, events, lens, n, NULL, NULL, out, outlen,
	    err, errlen);
}

/* journal_append_canon, and *out (if out is not NULL) the bytes written. */
static int
append_canon(const char *path, const char *const *events, const size_t *lens,
    size_t n, struct journal_head *head, enum journal_status *status,
    char **out, size_t *outlen, char *err, size_t errlen)
{
	int fd, e, r;

	if (status != NULL)
		*status = JOURNAL_OK;
	fd = open_locked(path, O_RDWR | O_APPEND | O_CREAT, err, errlen);
	if (fd == -1)
		return -1;
	r = append_fd(fd, path, events, lens, n, head, status, out, outlen,
	    err, errlen);
	e = errno;
	close(fd);
	errno = e;
	return r;
}

int
journal_append_canon(const char *path, const char *const *events,
    const size_t *lens, size_t n, struct journal_head *head,
    enum journal_status *status, char *err, size_t errlen)
{
	return append_canon(path, events, lens, n, head, status, NULL, NULL,
	    err, errlen);
}

/* Canonical forms of n payloads, in malloc'ed arrays (free_canon). */
static int
canon_all(const char *const *payloads, size_t n, char ***ev, size_t **lens,
    char *err, size_t errlen)
{
	char msg[160];
	size_t i;

	*ev = calloc(n ? n : 1, sizeof(**ev));
	*lens = calloc(n ? n : 1, sizeof(**lens));
	if (*ev == NULL || *lens == NULL)
		return err_set(err, errlen, "out of memory");
	for (i = 0; i < n; i++)
		if (journal_event_canon(payloads[i], strlen(payloads[i]),
		    &(*ev)[i], &(*lens)[i], msg, sizeof(msg)) == -1)
			return err_set(err, errlen, "payload %zu: %s", i + 1,
			    msg);
	return 0;
}

static void
free_canon(char **ev, size_t *lens, size_t n)
{
	size_t i;
	int e = errno;

	for (i = 0; ev != NULL && i < n; i++)
		free(ev[i]);
	free(ev);
	free(lens);
	errno = e;
}

int
journal_append_out(const char *path, const char *const *payloads, size_t n,
    char **out, size_t *outlen, char *err, size_t errlen)
{
	char **ev = NULL;
	size_t *lens = NULL;
	int r = -1;

	if (out != NULL) {
		*out = NULL;
		*outlen = 0;
	}
	if (canon_all(payloads, n, &ev, &lens, err, errlen) == 0)
		r = append_canon(path, (const char *const *)ev, lens, n, NULL,
		    NULL, out, outlen, err, errlen);
	free_canon(ev, lens, n);
	return r;
}

int
journal_build(struct journal_head *head, const char *const *payloads,
    size_t n, char **out, size_t *outlen, char *err, size_t errlen)
{
	char **ev = NULL;
	size_t *lens = NULL;
	int r = -1;

	*out = NULL;
	*outlen = 0;
	if (canon_all(payloads, n, &ev, &lens, err, errlen) == 0) {
		*out = build((const char *const *)ev, lens, n, head, outlen,
		    err, errlen);
		r = *out == NULL ? -1 : 0;
	}
	free_canon(ev, lens, n);
	return r;
}

int
journal_append(const char *path, const char *const *payloads, size_t n,
    char *err, size_t errlen)
{
	return journal_append_out(path, payloads, n, NULL, NULL, err, errlen);
}

int
journal_head_read(const char *path, struct journal_head *head,
    enum journal_status *status, char *err, size_t errlen)
{
	enum journal_status st = JOURNAL_OK;
	uint64_t size;
	int fd, r = -1, e;

	if (status != NULL)
		*status = JOURNAL_OK;
	fd = open_locked(path, O_RDONLY, err, errlen);
	if (fd == -1)
		return -1;
	if (fsize(fd, &size) == 0)
		r = tail_head(fd, size, head, &st, err, errlen);
	else
		err_set(err, errlen, "cannot stat %s: %s", path,
		    strerror(errno));
	if (status != NULL)
		*status = st;
	e = errno;
	close(fd);
	errno = e;
	return r;
}

/* The "recovered" event for the torn tail of fd past v->good_end (size
 * bytes in all): its length, offset and SHA-256, in ev (evsz bytes).
 * Its length, or -1 with errno and err. */
static int
recovered_event(int fd, const struct journal_verdict *v, uint64_t size,
    char *ev, size_t evsz, char *err, size_t errlen)
{
	char hex[SHA256_HEX_LEN + 1], *tail;
	uint8_t d[SHA256_LEN];
	uint64_t n = size - v->good_end;
	int e;

	if ((tail = malloc(n ? n : 1)) == NULL)
		return -1;
	if (pread_all(fd, tail, n, v->good_end) == -1) {
		err_set(err, errlen, "cannot read the torn tail: %s",
		    strerror(errno));
		e = errno;
		free(tail);
		errno = e;
		return -1;
	}
	sha256_buf(tail, n, d);
	free(tail);
	sha256_hex(d, hex);
	return snprintf(ev, evsz, "{\"dropped_bytes\":\"%llu\","
	    "\"dropped_offset\":\"%llu\",\"dropped_sha256\":\"%s\","
	    "\"type\":\"recovered\"}", (unsigned long long)n,
	    (unsigned long long)v->good_end, hex);
}

int
journal_recover(const char *path, uint64_t *dropped, char *err,
    size_t errlen)
{
	struct journal_verdict v;
	struct journal_head h;
	char ev[256], *buf = NULL;
	const char *evp = ev;
	uint64_t size;
	size_t evlen, len;
	int fd, r = -1, n;

	*dropped = 0;
	fd = open_locked(path, O_RDWR | O_APPEND, err, errlen);
	if (fd == -1)
		return -1;
	if (fsize(fd, &size) == -1 ||
	    journal_verify_upto(fd, size, 0, NULL, &v) == -1) {
		err_set(err, errlen, "cannot read %s: %s", path,
		    strerror(errno));
		goto out;
	}
	if (v.status == JOURNAL_BAD) {
		err_set(err, errlen, "refusing to recover a broken chain: "
		    "record %llu at byte %llu: %s",
		    (unsigned long long)v.bad_seq,
		    (unsigned long long)v.bad_off, v.why);
		errno = EBADMSG;
		goto out;
	}
	if (v.status == JOURNAL_OK) {
		r = 0;
		goto out;
	}
	if ((n = recovered_event(fd, &v, size, ev, sizeof(ev), err,
	    errlen)) == -1)
		goto out;
	evlen = (size_t)n;
	h = v.head;
	buf = build(&evp, &evlen, 1, &h, &len, err, errlen);
	if (buf == NULL)
		goto out;
	if (ftruncate(fd, (off_t)v.good_end) == -1 || fdatasync(fd) == -1) {
		err_set(err, errlen, "cannot truncate %s: %s", path,
		    strerror(errno));
		goto out;
	}
	if (commit(fd, path, v.good_end, buf, len, err, errlen) == -1)
		goto out;
	*dropped = size - v.good_end;
	r = 0;
out:
	n = errno;
	free(buf);
	close(fd);
	errno = n;
	return r;
}
