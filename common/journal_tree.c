/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <pthread.h>
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
	pthread_t th;
	int threaded;

	threaded = k >= THREAD_MIN &&
	    pthread_create(&th, NULL, twork, &job[0]) == 0;
	if (!threaded)
		twork(&job[0]);
	twork(&job[1]);
	if (threaded)
		pthread_join(th, NULL);
}

int
journal_leaves(int fd, uint64_t n, journal_leaf_fn *fn, void *arg,
    uint64_t *bad, char *err, size_t errlen)
{
	char prev[SHA256_HEX_LEN + 1], why[200];
	size_t have = 0, at, k, j, bufsz = TBUF + JOURNAL_RECORD_MAX;
	uint64_t off = 0, i = 0;
	struct tline *ln;
	char *buf, *nl;
	ssize_t r;
	int e;

	*bad = 0;
	if (n == 0)
		return 0;
	buf = malloc(bufsz);
	ln = malloc(BATCH * sizeof(*ln));
	if (buf == NULL || ln == NULL) {
		free(buf);
		free(ln);
		return err_set_sys(err, errlen, "journal tree");
	}
	memcpy(prev, journal_zero_hex, sizeof(prev));
	while (i < n) {
		r = pread(fd, buf + have, bufsz - have, (off_t)(off + have));
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			e = errno;
			free(buf);
			free(ln);
			errno = e;
			return err_set_sys(err, errlen, "reading the journal");
		}
		have += (size_t)r;
		at = 0;
		for (;;) {
			/* a batch of complete lines, at most n - i */
			for (k = 0; k < BATCH && i + k < n && (nl = memchr(buf +
			    at, '\n', have - at)) != NULL; k++) {
				ln[k].start = at;
				ln[k].len = (size_t)(nl - (buf + at)) + 1;
				at += ln[k].len;
			}
			if (k == 0)
				break;
			hash_lines(buf, ln, k);
			for (j = 0; j < k; j++, i++) {
				struct jrec_want w = {0, i + 1, prev, NULL};

				if (jrec_check(&w, buf + ln[j].start,
				    ln[j].len, ln[j].d, why, sizeof(why)) ==
				    -1) {
					free(buf);
					free(ln);
					*bad = i + 1;
					errno = EBADMSG;
					return err_set(err, errlen, "record "
					    "%llu: %s", (unsigned long long)(i +
					    1), why);
				}
				fn(arg, i, ln[j].leaf);
				sha256_hex(ln[j].d, prev);
			}
		}
		if (i == n)
			break;
		if (r == 0 || (have - at >= JOURNAL_RECORD_MAX)) {
			free(buf);
			free(ln);
			*bad = i + 1;
			errno = EBADMSG;
			return err_set(err, errlen, "record %llu is missing "
			    "or not terminated", (unsigned long long)(i + 1));
		}
		memmove(buf, buf + at, have - at);
		off += at;
		have -= at;
	}
	free(buf);
	free(ln);
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
