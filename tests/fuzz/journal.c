/* SPDX-License-Identifier: ISC */
/* libFuzzer target: arbitrary bytes as a journal, through the one record
 * checker in every verify mode (fast and deep; no --from, the journal's
 * own head, a record in the middle, a rewritten head, genesis), from
 * memory and from a file, which must agree; the record parser; and the
 * tail reader used by append, which must agree with verify. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "hash.h"
#include "journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NFROM 5

static int
same(const struct journal_verdict *a, const struct journal_verdict *b)
{
	return a->status == b->status && a->count == b->count &&
	    a->good_end == b->good_end && a->bad_seq == b->bad_seq &&
	    a->bad_off == b->bad_off && strcmp(a->why, b->why) == 0 &&
	    memcmp(&a->head, &b->head, sizeof(a->head)) == 0;
}

/* The --from heads to try, from the fast verdict v of data. */
static void
heads(const uint8_t *data, size_t size, const struct journal_verdict *v,
    struct journal_head h[NFROM])
{
	const char *p = (const char *)data, *nl;
	uint64_t k, want;

	h[0] = v->head;				/* its own head */
	h[1] = v->head;				/* rewritten */
	h[1].hash[size % SHA256_LEN] ^= (uint8_t)(1u << (size % 8));
	memset(&h[2], 0, sizeof(h[2]));		/* genesis */
	h[3] = v->head;				/* past the end */
	h[3].seq += 1 + size % 3;
	h[4] = h[2];				/* a record in the middle */
	if (v->count == 0)
		return;
	want = 1 + size % v->count;
	for (k = 1; k < want; k++)
		p = (const char *)memchr(p, '\n', size -
		    (size_t)(p - (const char *)data)) + 1;
	nl = memchr(p, '\n', size - (size_t)(p - (const char *)data));
	h[4].seq = want;
	sha256_buf(p, (size_t)(nl - p) + 1, h[4].hash);
}

/* Deep is at least as strict as fast, and fails no later.  jansson never
 * sees bytes after an event object: the shape check refuses such a line
 * (two records on one line) first, in every mode. */
static void
deep_vs_fast(const struct journal_verdict *f, const struct journal_verdict *d)
{
	if (strstr(d->why, "end of file expected") != NULL)
		abort();
	if (d->count > f->count)
		abort();
	if (d->status == JOURNAL_OK && f->status != JOURNAL_OK)
		abort();
	if (f->status == JOURNAL_BAD && (d->status != JOURNAL_BAD ||
	    d->bad_seq > f->bad_seq))
		abort();
}

/* What --from h[i] must give, against the verdict without it. */
static void
from_vs_none(int i, const struct journal_verdict *none,
    const struct journal_verdict *vf)
{
	switch (i) {
	case 0:	/* own head: extends it */
	case 2:	/* genesis: always there */
	case 4:	/* a valid record of it */
		if (!same(vf, none))
			abort();
		break;
	case 1:	/* a different head at a seq it holds */
		if (none->count > 0 && vf->status != JOURNAL_BAD)
			abort();
		break;
	case 3:	/* a record it does not hold: truncated, or bad anyway */
		if (vf->status != JOURNAL_BAD)
			abort();
		break;
	default:
		abort();
	}
}

/* The shape check refuses only what is not a JSON object: data as the
 * event of a record must parse if jansson takes it. */
static void
shape_vs_jansson(const uint8_t *data, size_t size)
{
	static const char pre[] = "{\"seq\":1,\"prev\":\"0000000000000000"
	    "000000000000000000000000000000000000000000000000\",\"time\":\"1\","
	    "\"event\":";
	struct journal_record r;
	char *line, *canon, err[200];
	size_t clen;

	if (memchr(data, '\n', size) != NULL ||
	    journal_event_canon((const char *)data, size, &canon, &clen, err,
	    sizeof(err)) == -1)
		return;
	free(canon);
	line = malloc(sizeof(pre) + size);
	if (line == NULL)
		return;
	memcpy(line, pre, sizeof(pre) - 1);
	memcpy(line + sizeof(pre) - 1, data, size);
	line[sizeof(pre) - 1 + size] = '}';
	/* jansson skips blanks around the object; the record has none */
	if ((size == 0 || (data[0] == '{' && data[size - 1] == '}')) &&
	    journal_record_parse(line, sizeof(pre) + size, &r, NULL) == -1)
		abort();
	free(line);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const unsigned flagset[2] = {0, JOURNAL_DEEP};
	struct journal_verdict v[2], vf, vfd;
	struct journal_head h, from[NFROM];
	struct journal_record r;
	enum journal_status st;
	char path[64], err[256];
	const char *p = (const char *)data, *nl;
	size_t left = size, f;
	int fd, i, have_fd;

	fd = memfd_create("journal", MFD_CLOEXEC);
	have_fd = fd != -1 && write(fd, data, size) == (ssize_t)size;

	journal_verify_buf(data, size, 0, NULL, &v[0]);
	journal_verify_buf(data, size, JOURNAL_DEEP, NULL, &v[1]);
	deep_vs_fast(&v[0], &v[1]);
	if (v[0].status == JOURNAL_OK && v[0].good_end != size)
		abort();
	heads(data, size, &v[0], from);
	for (f = 0; f < 2; f++) {
		/* every mode: the file verifier agrees with the buffer one */
		if (have_fd && journal_verify_fd(fd, flagset[f], NULL,
		    &vfd) == 0 && !same(&vfd, &v[f]))
			abort();
		for (i = 0; i < NFROM; i++) {
			journal_verify_buf(data, size, flagset[f], &from[i],
			    &vf);
			/* the deep run's own head is the fast one's if both
			 * passed; otherwise judge deep against deep */
			if (f == 0 || v[1].count == v[0].count)
				from_vs_none(i, &v[f], &vf);
			if (have_fd && journal_verify_fd(fd, flagset[f],
			    &from[i], &vfd) == 0 && !same(&vfd, &vf))
				abort();
		}
	}

	/* the record parser alone, line by line */
	while (left > 0 && (nl = memchr(p, '\n', left)) != NULL) {
		size_t n = (size_t)(nl - p);

		(void)journal_record_parse(p, n, &r, NULL);
		left -= n + 1;
		p = nl + 1;
	}
	shape_vs_jansson(data, size);

	/* the tail reader (append's view) agrees with verify */
	if (!have_fd) {
		if (fd != -1)
			close(fd);
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (journal_head_read(path, &h, &st, err, sizeof(err)) == 0) {
		if (v[0].status == JOURNAL_TORN)
			abort();
		if (v[0].status == JOURNAL_OK && (h.seq != v[0].head.seq ||
		    memcmp(h.hash, v[0].head.hash, SHA256_LEN) != 0))
			abort();
	} else if (errno == EBADMSG) {
		if (v[0].status == JOURNAL_OK)
			abort();
	}
	close(fd);
	return 0;
}
