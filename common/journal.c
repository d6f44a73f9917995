/* SPDX-License-Identifier: ISC */
/* journal: hash-chained JSON-lines journal: append, verify, recover. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <nettle/sha2.h>

#include "err.h"
#include "hash.h"
#include "journal.h"

static const char zero_hex[SHA256_HEX_LEN + 1] =
    "0000000000000000000000000000000000000000000000000000000000000000";

/* Parse 1-20 decimal digits (no leading zero unless "0") at *p, up to
 * end, into *v; advance *p.  Returns 0 or -1. */
static int
digits(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s >= end || *s < '0' || *s > '9')
		return -1;
	if (*s == '0') {
		*v = 0;
		*p = s + 1;
		return 0;
	}
	while (s < end && *s >= '0' && *s <= '9') {
		unsigned d = (unsigned)(*s - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
		s++;
	}
	*v = x;
	*p = s;
	return 0;
}

static int
lit(const char **p, const char *end, const char *s, size_t n)
{
	if ((size_t)(end - *p) < n || memcmp(*p, s, n) != 0)
		return -1;
	*p += n;
	return 0;
}
#define LIT(p, end, s) lit(p, end, s, sizeof(s) - 1)

int
journal_record_parse(const char *line, size_t len, struct journal_record *r,
    const char **why)
{
	const char *p = line, *end = line + len, *w;

	if (LIT(&p, end, "{\"seq\":") == -1) {
		w = "record does not begin with {\"seq\":";
		goto bad;
	}
	if (digits(&p, end, &r->seq) == -1 || r->seq == 0) {
		w = "bad seq (digits, no leading zero, from 1)";
		goto bad;
	}
	if (LIT(&p, end, ",\"prev\":\"") == -1) {
		w = "seq not followed by ,\"prev\":\"";
		goto bad;
	}
	if (end - p < SHA256_HEX_LEN) {
		w = "prev too short";
		goto bad;
	}
	/* Its digits are judged by comparison with the expected hash. */
	r->prev_hex = p;
	p += SHA256_HEX_LEN;
	if (LIT(&p, end, "\",\"time\":\"") == -1) {
		w = "prev not followed by \",\"time\":\"";
		goto bad;
	}
	if (digits(&p, end, &r->time_ns) == -1) {
		w = "bad time (decimal nanoseconds, no leading zero)";
		goto bad;
	}
	if (LIT(&p, end, "\",\"event\":") == -1) {
		w = "time not followed by \",\"event\":";
		goto bad;
	}
	/* The event is everything up to the final '}' of the record. */
	if (end - p < 3 || p[0] != '{' || end[-2] != '}' || end[-1] != '}') {
		w = "event is not an object closing the record";
		goto bad;
	}
	r->event = p;
	r->event_len = (size_t)(end - 1 - p);
	return 0;
bad:
	if (why != NULL)
		*why = w;
	return -1;
}

int
journal_event_canon(const char *text, size_t len, char **out, size_t *outlen,
    char *err, size_t errlen)
{
	json_error_t je;
	json_t *j;
	char *s;

	j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (j == NULL) {
		err_set(err, errlen, "invalid JSON at column %d: %s",
		    je.column, je.text);
		return errno = EINVAL, -1;
	}
	if (!json_is_object(j)) {
		json_decref(j);
		err_set(err, errlen, "not a JSON object");
		return errno = EINVAL, -1;
	}
	s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	if (s == NULL) {
		err_set(err, errlen, "cannot encode event");
		return errno = ENOMEM, -1;
	}
	*out = s;
	*outlen = strlen(s);
	return 0;
}

/* ---- verification ---- */

static void
line_hash(const char *p, size_t n, char hex[SHA256_HEX_LEN + 1],
    uint8_t d[SHA256_LEN])
{
	struct sha256_ctx ctx;

	sha256_init(&ctx);
	sha256_update(&ctx, n, (const uint8_t *)p);
	sha256_digest(&ctx, SHA256_LEN, d);
	sha256_hex(d, hex);
}

struct vstate {
	unsigned flags;
	const struct journal_head *from;
	int from_ok;
	char head_hex[SHA256_HEX_LEN + 1];
	struct journal_verdict *v;
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
	memcpy(st->head_hex, zero_hex, sizeof(zero_hex));
	st->v = v;
}

static int
deep_check(const char *ev, size_t n, char *why, size_t whylen)
{
	char *canon;
	size_t clen;
	int r = 0;

	if (journal_event_canon(ev, n, &canon, &clen, why, whylen) == -1)
		return -1;
	if (clen != n || memcmp(canon, ev, n) != 0) {
		snprintf(why, whylen, "event is not in canonical form");
		r = -1;
	}
	free(canon);
	return r;
}

/* Check every complete line of buf[0..len) (base: its offset in the
 * file).  Returns the bytes consumed (up to the last newline checked);
 * stops at the first bad record (v->status set). */
static size_t
vfeed(struct vstate *st, const char *buf, size_t len, uint64_t base)
{
	struct journal_verdict *v = st->v;
	const char *p = buf, *end = buf + len, *nl;
	struct journal_record r;
	const char *why;
	char w[160], hex[SHA256_HEX_LEN + 1];
	uint8_t d[SHA256_LEN];

	while (p < end && (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		size_t n = (size_t)(nl - p) + 1;
		uint64_t off = base + (uint64_t)(p - buf);

		if (n > JOURNAL_RECORD_MAX) {
			vbad(st, off, "record longer than %u bytes",
			    JOURNAL_RECORD_MAX);
			break;
		}
		if (journal_record_parse(p, n - 1, &r, &why) == -1) {
			vbad(st, off, "%s", why);
			break;
		}
		if (r.seq != v->count + 1) {
			vbad(st, off, "seq is %llu, expected %llu",
			    (unsigned long long)r.seq,
			    (unsigned long long)(v->count + 1));
			break;
		}
		if (memcmp(r.prev_hex, st->head_hex, SHA256_HEX_LEN) != 0) {
			vbad(st, off, "prev does not match the hash of %s",
			    v->count ? "the previous record" : "genesis (zeros)");
			break;
		}
		if ((st->flags & JOURNAL_DEEP) &&
		    deep_check(r.event, r.event_len, w, sizeof(w)) == -1) {
			vbad(st, off, "event: %s", w);
			break;
		}
		line_hash(p, n, hex, d);
		if (st->from != NULL && st->from->seq == v->count + 1) {
			if (memcmp(st->from->hash, d, SHA256_LEN) != 0) {
				vbad(st, off, "record differs from the --from "
				    "head: the journal was rewritten");
				break;
			}
			st->from_ok = 1;
		}
		memcpy(st->head_hex, hex, sizeof(hex));
		memcpy(v->head.hash, d, SHA256_LEN);
		v->count++;
		v->head.seq = v->count;
		v->good_end = off + n;
		p = nl + 1;
	}
	return (size_t)(p - buf);
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
	if (n > 0) {
		h = snprintf(hdr, sizeof(hdr),
		    "{\"seq\":%llu,\"prev\":\"%s\",\"time\":\"",
		    (unsigned long long)(v->count + 1), st->head_hex);
		if (n >= JOURNAL_RECORD_MAX) {
			vbad(st, off, "unterminated record longer than %u "
			    "bytes", JOURNAL_RECORD_MAX);
			return;
		}
		if (memcmp(rest, hdr, n < (size_t)h ? n : (size_t)h) != 0) {
			vbad(st, off, "unterminated last line is not the "
			    "beginning of record %llu",
			    (unsigned long long)(v->count + 1));
			return;
		}
		v->status = JOURNAL_TORN;
		v->bad_seq = v->count + 1;
		v->bad_off = off;
		snprintf(v->why, sizeof(v->why), "%zu bytes of an "
		    "unterminated record", n);
		return;
	}
}

void
journal_verify_buf(const void *buf, size_t len, unsigned flags,
    const struct journal_head *from, struct journal_verdict *v)
{
	struct vstate st;
	size_t used;

	vinit(&st, flags, from, v);
	used = vfeed(&st, buf, len, 0);
	vend(&st, (const char *)buf + used, len - used, used);
}

#define VBUF (4u << 20)


/* ---- the same check over a big buffer, hashing on two threads ----
 * Records are hashed independently; only the links need order.  The main
 * thread scans and parses (and runs jansson for --deep), then the lines
 * are hashed half by a worker and half by the main thread, then the main
 * thread checks the links in order.  The verdict is the same as vfeed's. */

/* Shortest possible record line: {"seq":1,...,"time":"0","event":{}}\n */
#define LINE_MIN 100

struct par {
	size_t max;		/* lines the arrays hold */
	size_t *start, *len;
	const char **prev;
	uint8_t (*dig)[SHA256_LEN];
};

struct hjob {
	const char *buf;
	struct par *pa;
	size_t from, to;
};

static void *
hwork(void *arg)
{
	struct hjob *j = arg;
	struct sha256_ctx ctx;
	size_t i;

	for (i = j->from; i < j->to; i++) {
		sha256_init(&ctx);
		sha256_update(&ctx, j->pa->len[i],
		    (const uint8_t *)j->buf + j->pa->start[i]);
		sha256_digest(&ctx, SHA256_LEN, j->pa->dig[i]);
	}
	return NULL;
}

static size_t
vfeed_par(struct vstate *st, struct par *pa, const char *buf, size_t len,
    uint64_t base)
{
	struct journal_verdict *v = st->v;
	const char *p = buf, *end = buf + len, *nl, *why = NULL;
	char w[200], hex[SHA256_HEX_LEN + 1];
	struct journal_record r;
	struct hjob job[2];
	pthread_t th;
	size_t k = 0, i;
	uint64_t pend_off = 0;
	int pend = 0, threaded;

	/* phase 1: shape, seq, --deep; stop at the first problem */
	while (p < end && k < pa->max &&
	    (nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
		size_t n = (size_t)(nl - p) + 1;

		pend_off = base + (uint64_t)(p - buf);
		if (n > JOURNAL_RECORD_MAX) {
			snprintf(w, sizeof(w), "record longer than %u bytes",
			    JOURNAL_RECORD_MAX);
			pend = 1;
			break;
		}
		if (journal_record_parse(p, n - 1, &r, &why) == -1) {
			snprintf(w, sizeof(w), "%s", why);
			pend = 1;
			break;
		}
		if (r.seq != v->count + 1 + k) {
			snprintf(w, sizeof(w), "seq is %llu, expected %llu",
			    (unsigned long long)r.seq,
			    (unsigned long long)(v->count + 1 + k));
			pend = 1;
			break;
		}
		if (st->flags & JOURNAL_DEEP) {
			char dw[160];

			if (deep_check(r.event, r.event_len, dw,
			    sizeof(dw)) == -1) {
				snprintf(w, sizeof(w), "event: %s", dw);
				pend = 1;
				break;
			}
		}
		pa->start[k] = (size_t)(p - buf);
		pa->len[k] = n;
		pa->prev[k] = r.prev_hex;
		k++;
		p = nl + 1;
	}

	/* phase 2: hash */
	job[0] = (struct hjob){buf, pa, 0, k / 2};
	job[1] = (struct hjob){buf, pa, k / 2, k};
	threaded = k >= 64 && pthread_create(&th, NULL, hwork, &job[0]) == 0;
	if (!threaded)
		hwork(&job[0]);
	hwork(&job[1]);
	if (threaded)
		pthread_join(th, NULL);

	/* phase 3: links, in order */
	for (i = 0; i < k; i++) {
		uint64_t off = base + pa->start[i];

		if (memcmp(pa->prev[i], st->head_hex, SHA256_HEX_LEN) != 0) {
			vbad(st, off, "prev does not match the hash of %s",
			    v->count ? "the previous record" : "genesis (zeros)");
			return pa->start[i];
		}
		sha256_hex(pa->dig[i], hex);
		if (st->from != NULL && st->from->seq == v->count + 1) {
			if (memcmp(st->from->hash, pa->dig[i], SHA256_LEN) !=
			    0) {
				vbad(st, off, "record differs from the --from "
				    "head: the journal was rewritten");
				return pa->start[i];
			}
			st->from_ok = 1;
		}
		memcpy(st->head_hex, hex, sizeof(hex));
		memcpy(v->head.hash, pa->dig[i], SHA256_LEN);
		v->count++;
		v->head.seq = v->count;
		v->good_end = off + pa->len[i];
	}
	if (pend)
		vbad(st, pend_off, "%s", w);
	return (size_t)(p - buf);
}

/* Verify the first limit bytes of fd, big reads, no lock. */
static int
verify_upto(int fd, uint64_t limit, unsigned flags,
    const struct journal_head *from, struct journal_verdict *v)
{
	struct vstate st;
	uint64_t off = 0;
	size_t have = 0, used;
	struct par pa;
	size_t bufsz;
	char *buf;
	ssize_t r = 0;

	/* small journals get small buffers */
	bufsz = VBUF + JOURNAL_RECORD_MAX;
	if (limit < bufsz)
		bufsz = (size_t)limit + 1;
	pa.max = bufsz / LINE_MIN + 1;
	buf = malloc(bufsz);
	pa.start = malloc(pa.max * sizeof(*pa.start));
	pa.len = malloc(pa.max * sizeof(*pa.len));
	pa.prev = malloc(pa.max * sizeof(*pa.prev));
	pa.dig = malloc(pa.max * sizeof(*pa.dig));
	if (buf == NULL || pa.start == NULL || pa.len == NULL ||
	    pa.prev == NULL || pa.dig == NULL) {
		free(buf);
		free(pa.start);
		free(pa.len);
		free(pa.prev);
		free(pa.dig);
		return errno = ENOMEM, -1;
	}
	vinit(&st, flags, from, v);
	for (;;) {
		size_t want = bufsz - have;

		if ((uint64_t)want > limit - (off + have))
			want = (size_t)(limit - (off + have));
		if (want == 0)
			break;
		r = pread(fd, buf + have, want, (off_t)(off + have));
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			break;
		if (r == 0)
			break;
		have += (size_t)r;
		used = vfeed_par(&st, &pa, buf, have, off);
		if (v->status != JOURNAL_OK)
			break;
		memmove(buf, buf + used, have - used);
		off += used;
		have -= used;
		if (have >= JOURNAL_RECORD_MAX && memchr(buf, '\n', have) == NULL)
			break;	/* vend() reports the overlong record */
	}
	if (r == -1) {
		int e = errno;

		free(buf);
		free(pa.start);
		free(pa.len);
		free(pa.prev);
		free(pa.dig);
		return errno = e, -1;
	}
	if (v->status == JOURNAL_OK)
		vend(&st, buf, have, off);
	free(buf);
	free(pa.start);
	free(pa.len);
	free(pa.prev);
	free(pa.dig);
	return 0;
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
	return verify_upto(fd, (uint64_t)sb.st_size, flags, from, v);
}

int
journal_head_parse(const char *s, struct journal_head *h)
{
	const char *colon = strchr(s, ':'), *p = s;

	if (colon == NULL || digits(&p, colon, &h->seq) == -1 || p != colon)
		return errno = EINVAL, -1;
	return sha256_unhex(colon + 1, strlen(colon + 1), h->hash);
}

/* ---- the tail, under the lock ---- */

static int
pread_full(int fd, char *buf, size_t n, uint64_t off)
{
	while (n > 0) {
		ssize_t r = pread(fd, buf, n, (off_t)off);

		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			return -1;
		if (r == 0)
			return errno = EIO, -1;
		buf += r;
		n -= (size_t)r;
		off += (uint64_t)r;
	}
	return 0;
}

/* Read the head from the last record of fd (size bytes), checking the
 * last link.  Returns 0, or -1 with errno (EBADMSG: *st says why). */
static int
tail_head(int fd, uint64_t size, struct journal_head *h,
    enum journal_status *st, char *err, size_t errlen)
{
	size_t want = 16384, s1, s0, e1, e0;
	struct journal_record r1, r0;
	char hex[SHA256_HEX_LEN + 1];
	const char *why, *q;
	char *buf = NULL, *nb;
	int atstart;

	*st = JOURNAL_OK;
	memset(h, 0, sizeof(*h));
	if (size == 0)
		return 0;
	for (;;) {
		if (want > size)
			want = (size_t)size;
		atstart = want == size;
		nb = realloc(buf, want);
		if (nb == NULL)
			goto fail;
		buf = nb;
		if (pread_full(fd, buf, want, size - want) == -1) {
			err_set(err, errlen, "cannot read the tail: %s",
			    strerror(errno));
			goto fail;
		}
		if (buf[want - 1] != '\n') {
			*st = JOURNAL_TORN;
			err_set(err, errlen, "journal ends with an unterminated "
			    "record (torn tail); see journalchain recover");
			errno = EBADMSG;
			goto fail;
		}
		e1 = want - 1;
		q = memrchr(buf, '\n', e1);
		if (q == NULL && !atstart)
			goto grow;
		s1 = q == NULL ? 0 : (size_t)(q - buf) + 1;
		if (journal_record_parse(buf + s1, e1 - s1, &r1, &why) == -1)
			goto broken;
		if (s1 == 0 && atstart) {
			if (r1.seq != 1 ||
			    memcmp(r1.prev_hex, zero_hex, SHA256_HEX_LEN) != 0) {
				why = "only record is not seq 1 with zero prev";
				goto broken;
			}
			break;
		}
		e0 = s1 - 1;
		q = memrchr(buf, '\n', e0);
		if (q == NULL && !atstart)
			goto grow;
		s0 = q == NULL ? 0 : (size_t)(q - buf) + 1;
		if (journal_record_parse(buf + s0, e0 - s0, &r0, &why) == -1)
			goto broken;
		line_hash(buf + s0, e0 - s0 + 1, hex, h->hash);
		if (r0.seq == UINT64_MAX || r1.seq != r0.seq + 1 ||
		    memcmp(r1.prev_hex, hex, SHA256_HEX_LEN) != 0) {
			why = "last record does not follow the one before it";
			goto broken;
		}
		break;
grow:
		if (want >= 2 * (size_t)JOURNAL_RECORD_MAX + 2) {
			why = "last records are longer than the maximum";
			goto broken;
		}
		want *= 2;
	}
	line_hash(buf + s1, e1 - s1 + 1, hex, h->hash);
	h->seq = r1.seq;
	free(buf);
	return 0;
broken:
	*st = JOURNAL_BAD;
	err_set(err, errlen, "the journal's tail is broken (%s); run "
	    "journalchain verify", why);
	errno = EBADMSG;
fail:
	free(buf);
	return -1;
}

static int
open_locked(const char *path, int flags, char *err, size_t errlen)
{
	struct stat sb;
	int fd;

	fd = open(path, flags | O_CLOEXEC, 0600);
	if (fd == -1) {
		err_set(err, errlen, "cannot open %s: %s", path,
		    strerror(errno));
		return -1;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode)) {
		int e = S_ISREG(sb.st_mode) ? errno : EINVAL;

		err_set(err, errlen, "%s: not a regular file", path);
		close(fd);
		return errno = e, -1;
	}
	while (flock(fd, LOCK_EX) == -1) {
		if (errno != EINTR) {
			int e = errno;

			err_set(err, errlen, "cannot lock %s: %s", path,
			    strerror(e));
			close(fd);
			return errno = e, -1;
		}
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
		if (lens[i] > JOURNAL_RECORD_MAX - 160) {
			err_set(err, errlen, "event %zu: record longer than %u "
			    "bytes", i + 1, JOURNAL_RECORD_MAX);
			errno = EINVAL;
			return NULL;
		}
		total += lens[i] + 160;
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
		line_hash(start, (size_t)(p - start), hex, h->hash);
		h->seq++;
	}
	*len = (size_t)(p - buf);
	return buf;
}

static int
write_all(int fd, const char *buf, size_t len)
{
	while (len > 0) {
		ssize_t w = write(fd, buf, len);

		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1)
			return -1;
		if (w == 0)
			return errno = EIO, -1;
		buf += w;
		len -= (size_t)w;
	}
	return 0;
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

/* journal_append_canon, and *out (if out is not NULL) the bytes written. */
static int
append_canon(const char *path, const char *const *events, const size_t *lens,
    size_t n, struct journal_head *head, enum journal_status *status,
    char **out, size_t *outlen, char *err, size_t errlen)
{
	enum journal_status st = JOURNAL_OK;
	struct journal_head h;
	uint64_t size;
	size_t len;
	char *buf = NULL;
	int fd, e, r = -1;

	if (status != NULL)
		*status = JOURNAL_OK;
	fd = open_locked(path, O_RDWR | O_APPEND | O_CREAT, err, errlen);
	if (fd == -1)
		return -1;
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

int
journal_recover(const char *path, uint64_t *dropped, char *err,
    size_t errlen)
{
	struct journal_verdict v;
	struct journal_head h;
	uint8_t d[SHA256_LEN];
	char hex[SHA256_HEX_LEN + 1], ev[256], *buf = NULL, *tail = NULL;
	const char *evp = ev;
	uint64_t size, n;
	size_t evlen, len;
	int fd, r = -1, e;

	*dropped = 0;
	fd = open_locked(path, O_RDWR | O_APPEND, err, errlen);
	if (fd == -1)
		return -1;
	if (fsize(fd, &size) == -1 ||
	    verify_upto(fd, size, 0, NULL, &v) == -1) {
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
	n = size - v.good_end;
	tail = malloc(n ? n : 1);
	if (tail == NULL)
		goto out;
	if (pread_full(fd, tail, n, v.good_end) == -1) {
		err_set(err, errlen, "cannot read the torn tail: %s",
		    strerror(errno));
		goto out;
	}
	sha256_buf(tail, n, d);
	sha256_hex(d, hex);
	evlen = (size_t)snprintf(ev, sizeof(ev), "{\"dropped_bytes\":\"%llu\","
	    "\"dropped_offset\":\"%llu\",\"dropped_sha256\":\"%s\","
	    "\"type\":\"recovered\"}", (unsigned long long)n,
	    (unsigned long long)v.good_end, hex);
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
	*dropped = n;
	r = 0;
out:
	e = errno;
	free(tail);
	free(buf);
	close(fd);
	errno = e;
	return r;
}
