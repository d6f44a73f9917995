/* SPDX-License-Identifier: ISC */
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

int
journal_leaves(int fd, uint64_t n, journal_leaf_fn *fn, void *arg,
    uint64_t *bad, char *err, size_t errlen)
{
	char prev[SHA256_HEX_LEN + 1], why[200];
	uint8_t d[SHA256_LEN], leaf[SHA256_LEN];
	size_t have = 0, at, bufsz = TBUF + JOURNAL_RECORD_MAX;
	uint64_t off = 0, i = 0;
	char *buf, *nl;
	ssize_t r;
	int e;

	*bad = 0;
	if (n == 0)
		return 0;
	buf = malloc(bufsz);
	if (buf == NULL)
		return err_set_sys(err, errlen, "journal tree");
	memcpy(prev, journal_zero_hex, sizeof(prev));
	while (i < n) {
		r = pread(fd, buf + have, bufsz - have, (off_t)(off + have));
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			e = errno;
			free(buf);
			errno = e;
			return err_set_sys(err, errlen, "reading the journal");
		}
		have += (size_t)r;
		at = 0;
		while (i < n && (nl = memchr(buf + at, '\n', have - at)) !=
		    NULL) {
			size_t len = (size_t)(nl - (buf + at)) + 1;
			struct jrec_want w = {0, i + 1, prev, NULL};

			sha256_buf(buf + at, len, d);
			if (jrec_check(&w, buf + at, len, d, why,
			    sizeof(why)) == -1) {
				free(buf);
				*bad = i + 1;
				errno = EBADMSG;
				return err_set(err, errlen, "record %llu: %s",
				    (unsigned long long)(i + 1), why);
			}
			merkle_leaf_hash(buf + at, len, leaf);
			fn(arg, i, leaf);
			sha256_hex(d, prev);
			at += len;
			i++;
		}
		if (i == n)
			break;
		if (r == 0 || (have - at >= JOURNAL_RECORD_MAX)) {
			free(buf);
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
