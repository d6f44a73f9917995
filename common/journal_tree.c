/* SPDX-License-Identifier: ISC */
/* journal_tree: the records as Merkle leaves (journal_tree.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "hash.h"
#include "journal.h"
#include "journal_int.h"
#include "journal_tree.h"
#include "merkle.h"

/* Bytes read at a time (plus one longest record). */
#define TBUF (4u << 20)
/* Lines hashed in one batch, and on one thread when fewer than THREAD_MIN
 * (the shortest record is about 100 bytes). */
#define BATCH (TBUF / 64)
#define THREAD_MIN 64

struct tline {
	size_t start, len;	/* in the buffer, newline included */
	uint8_t d[SHA256_LEN];	/* SHA-256(line): the chain's hash */
	uint8_t leaf[SHA256_LEN]; /* SHA-256(0x00 || line) */
};

struct tjob {
	const char *buf;
	struct tline *ln;
	size_t from, to;
};

static void *
twork(void *arg)
{
	struct tjob *j = arg;
	size_t i;

	for (i = j->from; i < j->to; i++) {
		sha256_buf(j->buf + j->ln[i].start, j->ln[i].len, j->ln[i].d);
		merkle_leaf_hash(j->buf + j->ln[i].start, j->ln[i].len,
		    j->ln[i].leaf);
	}
	return NULL;
}

/* Both hashes of lines ln[0..k) of buf, half on a second thread when k
 * is big: records hash independently. */
static void
hash_lines(const char *buf, struct tline *ln, size_t k)
{
	struct tjob job[2] = {{buf, ln, 0, k / 2}, {buf, ln, k / 2, k}};

	journal_halves(twork, &job[0], &job[1], k >= THREAD_MIN);
}

/* A walk of journal_leaves_from: where it is, what is left to do. */
struct leaves {
	struct journal_pos *pos;
	uint64_t max, done;
	journal_leaf_fn *fn;
	void *arg;
	struct tline *ln;	/* BATCH lines */
	char prev[SHA256_HEX_LEN + 1];	/* the last record's hash, hex */
};

/* The complete lines of buf from *at (have bytes in all), batch by batch
 * and at most L->max in all: each checked against the chain (prev, seq),
 * handed to L->fn, and L->pos moved past it; *at moved past the last
 * one.  0, or -1 (EBADMSG, *bad its seq) at a record that fails. */
static int
leaves_check(struct leaves *L, const char *buf, size_t have, size_t *at,
    uint64_t *bad, char *err, size_t errlen)
{
	struct journal_pos *pos = L->pos;
	struct tline *ln = L->ln;
	char why[200], *nl;
	size_t k, j;

	for (;;) {
		for (k = 0; k < BATCH && L->done + k < L->max &&
		    (nl = memchr(buf + *at, '\n', have - *at)) != NULL; k++) {
			ln[k].start = *at;
			ln[k].len = (size_t)(nl - (buf + *at)) + 1;
			*at += ln[k].len;
		}
		if (k == 0)
			return 0;
		hash_lines(buf, ln, k);
		for (j = 0; j < k; j++) {
			struct jrec_want w = {0, pos->seq + 1, L->prev, NULL};

			if (jrec_check(&w, buf + ln[j].start, ln[j].len,
			    ln[j].d, why, sizeof(why)) == -1) {
				*bad = pos->seq + 1;
				errno = EBADMSG;
				return err_set(err, errlen, "record %llu: %s",
				    (unsigned long long)*bad, why);
			}
			L->fn(L->arg, pos->seq, ln[j].leaf);
			sha256_hex(ln[j].d, L->prev);
			memcpy(pos->head, ln[j].d, SHA256_LEN);
			pos->seq++;
			pos->off += ln[j].len;
			L->done++;
		}
	}
}

int
journal_leaves_from(int fd, struct journal_pos *pos, uint64_t limit,
    uint64_t max, journal_leaf_fn *fn, void *arg, uint64_t *bad, char *err,
    size_t errlen)
{
	struct leaves L = {pos, max, 0, fn, arg, NULL, ""};
	size_t have = 0, at, want, bufsz = TBUF + JOURNAL_RECORD_MAX;
	char *buf;
	ssize_t r;
	int e, rc = 0;

	*bad = 0;
	if (max == 0 || pos->off >= limit)
		return 0;
	buf = malloc(bufsz);
	L.ln = malloc(BATCH * sizeof(*L.ln));
	if (buf == NULL || L.ln == NULL) {
		free(buf);
		free(L.ln);
		return err_set_sys(err, errlen, "journal tree");
	}
	sha256_hex(pos->head, L.prev);
	if (pos->seq == 0)
		memcpy(L.prev, journal_zero_hex, sizeof(L.prev));
	while (L.done < max) {
		want = bufsz - have;
		if ((uint64_t)want > limit - (pos->off + have))
			want = (size_t)(limit - (pos->off + have));
		r = want == 0 ? 0 : pread(fd, buf + have, want,
		    (off_t)(pos->off + have));
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			rc = err_set_sys(err, errlen, "reading the journal");
			break;
		}
		have += (size_t)r;
		at = 0;
		if ((rc = leaves_check(&L, buf, have, &at, bad, err, errlen)) ==
		    -1)
			break;
		memmove(buf, buf + at, have - at);
		have -= at;
		/* The end, or an unterminated tail too long to be a record:
		 * the caller judges what is left after pos->off. */
		if (r == 0 || have >= JOURNAL_RECORD_MAX)
			break;
	}
	e = errno;
	free(buf);
	free(L.ln);
	errno = e;
	return rc;
}

int
journal_leaves(int fd, uint64_t n, journal_leaf_fn *fn, void *arg,
    uint64_t *bad, char *err, size_t errlen)
{
	struct journal_pos pos;

	memset(&pos, 0, sizeof(pos));
	if (journal_leaves_from(fd, &pos, UINT64_MAX, n, fn, arg, bad, err,
	    errlen) == -1)
		return -1;
	if (pos.seq < n) {
		*bad = pos.seq + 1;
		errno = EBADMSG;
		return err_set(err, errlen, "record %llu is missing or not "
		    "terminated", (unsigned long long)*bad);
	}
	return 0;
}

/* The last line before pos->off, read (at most one longest record back)
 * into *bufp (NUL-ended), *len bytes from its read's start, the line at
 * *start.  0, or -1 with errno and err (EBADMSG: no record ends there). */
static int
last_line(int fd, const struct journal_pos *pos, char **bufp, size_t *len,
    size_t *start, char *err, size_t errlen)
{
	uint64_t from;
	char *buf, *nl;
	ssize_t r;
	size_t n;

	from = pos->off > JOURNAL_RECORD_MAX ? pos->off - JOURNAL_RECORD_MAX :
	    0;
	n = (size_t)(pos->off - from);
	if ((buf = malloc(n + 1)) == NULL)
		return err_set_sys(err, errlen, "journal tree");
	do
		r = pread(fd, buf, n, (off_t)from);
	while (r == -1 && errno == EINTR);
	if (r == -1) {
		free(buf);
		return err_set_sys(err, errlen, "reading the journal");
	}
	if ((size_t)r != n || n == 0 || buf[n - 1] != '\n') {
		free(buf);
		errno = EBADMSG;
		return err_set(err, errlen, "record %llu does not end at byte "
		    "%llu: the journal was truncated or rewritten",
		    (unsigned long long)pos->seq,
		    (unsigned long long)pos->off);
	}
	buf[n] = '\0';
	nl = n >= 2 ? memrchr(buf, '\n', n - 1) : NULL;
	if (nl == NULL && from != 0) {
		free(buf);
		errno = EBADMSG;
		return err_set(err, errlen, "no record ends at byte %llu",
		    (unsigned long long)pos->off);
	}
	*start = nl != NULL ? (size_t)(nl + 1 - buf) : 0;
	*bufp = buf;
	*len = n;
	return 0;
}

int
journal_pos_check(int fd, const struct journal_pos *pos, char *err,
    size_t errlen)
{
	struct journal_record rec;
	uint8_t d[SHA256_LEN];
	size_t len = 0, start = 0;
	char *buf = NULL;
	int ok;

	if (pos->seq == 0)
		return pos->off == 0 ? 0 : (errno = EBADMSG, err_set(err,
		    errlen, "no record before byte %llu",
		    (unsigned long long)pos->off));
	if (last_line(fd, pos, &buf, &len, &start, err, errlen) == -1)
		return -1;
	sha256_buf(buf + start, len - start, d);
	ok = memcmp(d, pos->head, SHA256_LEN) == 0 &&
	    journal_record_parse(buf + start, len - start - 1, &rec, NULL) ==
	    0 && rec.seq == pos->seq;
	free(buf);
	if (!ok) {
		errno = EBADMSG;
		return err_set(err, errlen, "record %llu, ending at byte %llu, "
		    "is not the one checkpointed: the journal was rewritten",
		    (unsigned long long)pos->seq,
		    (unsigned long long)pos->off);
	}
	return 0;
}

static void
push(void *arg, uint64_t i, const uint8_t leaf[SHA256_LEN])
{
	merkle_push(arg, leaf);
}

int
journal_tree_root(int fd, uint64_t n, uint8_t root[SHA256_LEN],
    uint64_t *bad, char *err, size_t errlen)
{
	struct merkle_frontier f;

	merkle_init(&f);
	if (journal_leaves(fd, n, push, &f, bad, err, errlen) == -1)
		return -1;
	merkle_root(&f, root);
	return 0;
}
