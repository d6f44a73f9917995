/* SPDX-License-Identifier: ISC */
/* Unit tests of common/journal: append, verify, tamper detection, recover. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "journal.h"
#include "tap.h"

static char *
slurp(const char *path, size_t *len)
{
	struct stat sb;
	char *buf;
	int fd = open(path, O_RDONLY);

	if (fd == -1 || fstat(fd, &sb) == -1)
		return NULL;
	buf = malloc((size_t)sb.st_size + 1);
	if (buf == NULL || read(fd, buf, (size_t)sb.st_size) != sb.st_size)
		return NULL;
	close(fd);
	*len = (size_t)sb.st_size;
	return buf;
}

static void
spit(const char *path, const char *buf, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	if (fd == -1 || write(fd, buf, len) != (ssize_t)len)
		abort();
	close(fd);
}

static enum journal_status
vbuf(const char *buf, size_t len, unsigned flags,
    const struct journal_head *from, struct journal_verdict *v)
{
	journal_verify_buf(buf, len, flags, from, v);
	return v->status;
}

/* Offsets of the line starts of buf (at most 16 lines). */
static size_t
lines(const char *buf, size_t len, size_t off[17])
{
	size_t n = 0, i;

	off[0] = 0;
	for (i = 0; i < len && n < 16; i++)
		if (buf[i] == '\n')
			off[++n] = i + 1;
	return n;
}

/* journal_verify_fd (pread in chunks) must agree with journal_verify_buf
 * on buf[0..len): same status, counts, offsets, reason and head. */
static int
same_verdicts(const char *path, const char *buf, size_t len, unsigned flags,
    const struct journal_head *from)
{
	struct journal_verdict a, b;
	int fd, r;

	spit(path, buf, len);
	fd = open(path, O_RDONLY);
	if (fd == -1 || journal_verify_fd(fd, flags, from, &a) == -1)
		return 0;
	close(fd);
	journal_verify_buf(buf, len, flags, from, &b);
	r = a.status == b.status && a.count == b.count &&
	    a.good_end == b.good_end && a.bad_seq == b.bad_seq &&
	    a.bad_off == b.bad_off && strcmp(a.why, b.why) == 0 &&
	    memcmp(&a.head, &b.head, sizeof(a.head)) == 0;
	if (!r)
		printf("# fd: %d %llu %s / buf: %d %llu %s\n", a.status,
		    (unsigned long long)a.count, a.why, b.status,
		    (unsigned long long)b.count, b.why);
	return r;
}

/* The --from heads every agreement test tries besides none: the head, a
 * record in the middle, that record with a different hash (rewrite), a
 * record past the end (truncation), and 0 on genesis.  buf[0..len) is
 * the clean journal they are taken from.  Returns how many (at most 5). */
static size_t
heads(const char *buf, size_t len, struct journal_head h[5])
{
	struct journal_verdict v;
	const char *p = buf, *nl;
	uint64_t k;

	journal_verify_buf(buf, len, 0, NULL, &v);
	if (v.status != JOURNAL_OK || v.count < 2)
		abort();
	h[0] = v.head;
	h[1].seq = v.count / 2;
	for (k = 1; k < h[1].seq; k++)
		p = (const char *)memchr(p, '\n', len - (size_t)(p - buf)) + 1;
	nl = memchr(p, '\n', len - (size_t)(p - buf));
	sha256_buf(p, (size_t)(nl - p) + 1, h[1].hash);
	h[2] = h[1];
	h[2].hash[SHA256_LEN - 1] ^= 0x80;
	h[3] = v.head;
	h[3].seq += 3;
	memset(&h[4], 0, sizeof(h[4]));
	return 5;
}

/* Every verify mode on buf[0..len): fast and deep, with no --from and
 * with each of froms[0..nf), each from memory and from a file.  Returns
 * how many modes the two paths disagree on; *modes counts the modes and
 * *notbad (if not NULL) those whose verdict is not JOURNAL_BAD. */
static size_t
agree_all(const char *path, const char *buf, size_t len,
    const struct journal_head *froms, size_t nf, size_t *modes,
    size_t *notbad)
{
	static const unsigned flagset[2] = {0, JOURNAL_DEEP};
	struct journal_verdict v;
	size_t f, i, diff = 0;

	for (f = 0; f < 2; f++) {
		for (i = 0; i <= nf; i++) {
			const struct journal_head *from =
			    i == 0 ? NULL : &froms[i - 1];

			(*modes)++;
			if (!same_verdicts(path, buf, len, flagset[f], from))
				diff++;
			journal_verify_buf(buf, len, flagset[f], from, &v);
			if (notbad != NULL && v.status != JOURNAL_BAD)
				(*notbad)++;
		}
	}
	return diff;
}

/* One record line as append writes it, prev given (64 hex digits). */
static size_t
mkrecord(char *out, size_t outlen, uint64_t seq, const char *prev_hex,
    const char *event)
{
	return (size_t)snprintf(out, outlen, "{\"seq\":%llu,\"prev\":\"%.64s\","
	    "\"time\":\"1\",\"event\":%s}\n", (unsigned long long)seq,
	    prev_hex, event);
}

/* A journal of n records with events that stress the shape check
 * (brackets and quotes inside strings, escapes, nesting), in *len. */
static char *
mkjournal(const char *path, size_t n, size_t *len)
{
	static const char *ev[4] = {"{\"s\":\"}{\\\"]\",\"a\":[1,{\"b\":[]}]}",
	    "{\"u\":\"\\u00e9\\\\\",\"n\":null}", "{}",
	    "{\"deep\":{\"er\":{\"est\":[[[\"x\"]]]}}}"};
	const char *one[1];
	char err[256];
	size_t i;

	unlink(path);
	for (i = 0; i < n; i++) {
		one[0] = ev[i % 4];
		if (journal_append(path, one, 1, err, sizeof(err)) == -1)
			abort();
	}
	return slurp(path, len);
}

/* The forged prev and the non-canonical event in one record: every mode
 * reports the same first failure, the prev (the checker's order). */
static void
test_forged_prev_noncanon(const char *path)
{
	struct journal_head froms[5];
	struct journal_verdict v, w;
	char *buf, *t, line[512];
	size_t len, nf, modes = 0, diff, start, end, rl, k;
	const char *forged = "1111111111111111111111111111111111111111111111"
	    "111111111111111111";

	buf = mkjournal(path, 300, &len);
	nf = heads(buf, len, froms);
	/* record 150: its line starts after the 149th newline */
	for (start = 0, k = 0; k < 149; k++)
		start = (size_t)((char *)memchr(buf + start, '\n',
		    len - start) - buf) + 1;
	end = (size_t)((char *)memchr(buf + start, '\n', len - start) - buf) +
	    1;
	rl = mkrecord(line, sizeof(line), 150, forged, "{\"b\":1,\"a\":2}");
	t = malloc(len + rl);
	memcpy(t, buf, start);
	memcpy(t + start, line, rl);
	memcpy(t + start + rl, buf + end, len - end);
	diff = agree_all(path, t, start + rl + len - end, froms, nf, &modes,
	    NULL);
	is_int(diff, 0, "forged prev + non-canonical event: file and buffer "
	    "agree in all %zu modes", modes);
	journal_verify_buf(t, start + rl + len - end, 0, NULL, &v);
	journal_verify_buf(t, start + rl + len - end, JOURNAL_DEEP, NULL, &w);
	ok(v.status == JOURNAL_BAD && w.status == JOURNAL_BAD &&
	    v.bad_seq == 150 && w.bad_seq == 150 && v.bad_off == start &&
	    w.bad_off == start && strcmp(v.why, w.why) == 0 &&
	    strstr(w.why, "prev does not match") != NULL,
	    "fast and --deep report record 150's prev first: %s", w.why);

	/* the same event with the right prev: only --deep refuses it */
	memcpy(t, buf, start);
	journal_verify_buf(buf, start, 0, NULL, &v);
	{
		char hex[SHA256_HEX_LEN + 1];

		sha256_hex(v.head.hash, hex);
		rl = mkrecord(line, sizeof(line), 150, hex,
		    "{\"b\":1,\"a\":2}");
	}
	memcpy(t + start, line, rl);
	memcpy(t + start + rl, buf + end, len - end);
	modes = 0;
	diff = agree_all(path, t, start + rl + len - end, froms, nf, &modes,
	    NULL);
	is_int(diff, 0, "non-canonical event alone: file and buffer agree in "
	    "all %zu modes", modes);
	journal_verify_buf(t, start + rl + len - end, JOURNAL_DEEP, NULL, &w);
	ok(w.status == JOURNAL_BAD && w.bad_seq == 150 &&
	    strstr(w.why, "canonical") != NULL, "--deep: %s", w.why);
	journal_verify_buf(t, start + rl + len - end, 0, NULL, &v);
	ok(v.status == JOURNAL_BAD && v.bad_seq == 151 &&
	    strstr(v.why, "prev does not match") != NULL,
	    "fast: record 150 passes, 151 no longer follows: %s", v.why);
	free(t);
	free(buf);
}

/* Every mode on a mid-sized journal (hashed on two threads) with bytes
 * flipped, torn, deleted and duplicated. */
static void
test_agreement_matrix(const char *path)
{
	struct journal_head froms[5];
	char *buf, *t;
	size_t len, nf, modes = 0, diff = 0, i, a, l;

	buf = mkjournal(path, 300, &len);
	nf = heads(buf, len, froms);
	t = malloc(2 * len);
	diff += agree_all(path, buf, len, froms, nf, &modes, NULL);
	for (i = 0; i < len; i += 797) {
		memcpy(t, buf, len);
		t[i] ^= (char)(1u << (i % 8));
		diff += agree_all(path, t, len, froms, nf, &modes, NULL);
	}
	diff += agree_all(path, buf, len - 1, froms, nf, &modes, NULL);
	diff += agree_all(path, buf, len - 40, froms, nf, &modes, NULL);
	diff += agree_all(path, buf, len / 2, froms, nf, &modes, NULL);
	a = (size_t)((char *)memchr(buf + len / 3, '\n', len - len / 3) -
	    buf) + 1;
	l = (size_t)((char *)memchr(buf + a, '\n', len - a) - buf) + 1 - a;
	memcpy(t, buf, a);
	memcpy(t + a, buf + a + l, len - a - l);
	diff += agree_all(path, t, len - l, froms, nf, &modes, NULL);
	memcpy(t, buf, a + l);
	memcpy(t + a + l, buf + a, len - a);
	diff += agree_all(path, t, len + l, froms, nf, &modes, NULL);
	is_int(diff, 0, "file and buffer verifiers agree on %zu (case, deep, "
	    "from) combinations", modes);
	free(t);
	free(buf);
}

/* Two records on one line: a bit of the newline between records 49 and
 * 50 of a 50-record journal flipped (any bit), and every bit of every
 * byte near it; every mode must refuse, and name record 49 for the
 * newline. */
static void
test_separator(const char *path)
{
	struct journal_head froms[5];
	struct journal_verdict v;
	char *buf, *t;
	size_t len, nf, nl, i, b, modes = 0, notbad = 0, diff = 0, named = 0;
	size_t lo, hi;

	buf = mkjournal(path, 50, &len);
	nf = heads(buf, len, froms);
	t = malloc(len);
	nl = len - 1;
	while (buf[nl - 1] != '\n')
		nl--;
	nl--;			/* the newline ending record 49 */
	for (b = 0; b < 8; b++) {
		memcpy(t, buf, len);
		t[nl] ^= (char)(1u << b);
		diff += agree_all(path, t, len, froms, nf, &modes, &notbad);
		journal_verify_buf(t, len, 0, NULL, &v);
		if (v.status == JOURNAL_BAD && v.bad_seq == 49 &&
		    strstr(v.why, "more than one record") != NULL)
			named++;
	}
	is_int(notbad, 0, "the newline between records 49 and 50 with any "
	    "bit flipped: refused in all %zu modes", modes);
	is_int(named, 8, "fast verify names record 49: two records on its "
	    "line");
	is_int(diff, 0, "and file and buffer agree");
	journal_verify_buf(t, len, 0, NULL, &v);
	is_int(v.count, 48, "48 valid records before it");
	lo = nl - 8;
	hi = nl + 24;
	modes = notbad = diff = 0;
	for (i = lo; i < hi; i++) {
		for (b = 0; b < 8; b++) {
			memcpy(t, buf, len);
			t[i] ^= (char)(1u << b);
			diff += agree_all(path, t, len, froms, nf, &modes,
			    &notbad);
		}
	}
	is_int(notbad, 0, "every bit of the %zu bytes around that newline: "
	    "refused in all %zu modes", hi - lo, modes);
	is_int(diff, 0, "and file and buffer agree");
	free(t);
	free(buf);
}

int
main(void)
{
	char dir[] = "/tmp/journal-unit.XXXXXX", path[64], path2[64];
	char err[256], *buf, *buf2, *t, *c;
	const char *pl[5] = {"{\"a\":1}", "{\"b\":\"x\"}",
	    "{\"run\":{\"argv\":[\"/bin/true\"],\"status\":0}}", "{}",
	    "{\"z\":[1,2,3],\"y\":null}"};
	struct journal_verdict v;
	struct journal_head h, from;
	enum journal_status st;
	size_t len, len2, off[17], nl, i, clen, bad = 0, dropped_ok;
	uint64_t dropped;
	int b;

	if (mkdtemp(dir) == NULL)
		return 1;
	snprintf(path, sizeof(path), "%s/j", dir);
	snprintf(path2, sizeof(path2), "%s/k", dir);

	/* canonical events */
	b = journal_event_canon("{\"b\":1, \"a\":2}", 14, &c, &clen, err,
	    sizeof(err));
	is_int(b, 0, "event canonicalised");
	is_str(c, "{\"a\":2,\"b\":1}", "keys sorted, compact");
	free(c);
	errno = 0;
	ok(journal_event_canon("{\"a\":1,\"a\":2}", 13, &c, &clen, err,
	    sizeof(err)) == -1 && errno == EINVAL, "duplicate key refused");
	ok(journal_event_canon("[1]", 3, &c, &clen, err, sizeof(err)) == -1,
	    "array refused");
	ok(journal_event_canon("{\"a\":1} x", 9, &c, &clen, err,
	    sizeof(err)) == -1, "trailing bytes refused");

	/* append */
	is_int(journal_append(path, pl, 3, err, sizeof(err)), 0,
	    "append 3 payloads");
	is_int(journal_append(path, pl + 3, 2, err, sizeof(err)), 0,
	    "append 2 more");
	errno = 0;
	const char *badp[2] = {"{\"ok\":1}", "nope"};
	ok(journal_append(path, badp, 2, err, sizeof(err)) == -1 &&
	    errno == EINVAL, "invalid payload refused: %s", err);
	buf = slurp(path, &len);
	ok(buf != NULL, "journal read back");
	nl = lines(buf, len, off);
	is_int(nl, 5, "5 records, nothing of the refused batch");
	ok(strncmp(buf, "{\"seq\":1,\"prev\":\"0000000000000000000000000000"
	    "000000000000000000000000000000000000\",\"time\":\"", 91) == 0,
	    "genesis record shape");
	is_int(vbuf(buf, len, JOURNAL_DEEP, NULL, &v), JOURNAL_OK,
	    "journal verifies (deep)");
	is_int(v.count, 5, "5 records counted");
	ok(journal_head_read(path, &h, &st, err, sizeof(err)) == 0 &&
	    h.seq == 5 && memcmp(h.hash, v.head.hash, SHA256_LEN) == 0,
	    "head from the tail matches verify");

	/* every byte changed, every offset, three ways: with the witnessed
	 * head everything is detected; without it, only changes inside the
	 * last record can pass (nothing follows it to check its hash) */
	t = malloc(len);
	from = v.head;
	for (b = 0, i = 0; i < len; i++) {
		static const unsigned char x[3] = {0x01, 0x20, 0xff};
		int k;

		for (k = 0; k < 3; k++) {
			memcpy(t, buf, len);
			t[i] ^= (char)x[k];
			if (vbuf(t, len, 0, &from, &v) == JOURNAL_OK)
				bad++;
			if (vbuf(t, len, 0, NULL, &v) == JOURNAL_OK &&
			    i < off[nl - 1])
				b++;
		}
	}
	is_int(bad, 0, "every single-byte change at each of %zu offsets "
	    "detected with --from head", len);
	is_int(b, 0, "without --from, every change before the last record "
	    "(its preceding newline included) is detected");

	/* delete, duplicate, swap records */
	for (b = 0, i = 0; i < nl; i++) {
		size_t rl = off[i + 1] - off[i];

		memcpy(t, buf, off[i]);
		memcpy(t + off[i], buf + off[i + 1], len - off[i + 1]);
		if (vbuf(t, len - rl, 0, NULL, &v) != JOURNAL_BAD &&
		    i + 1 != nl)
			b++;
	}
	is_int(b, 0, "deleting any record but the last is detected");
	buf2 = malloc(2 * len);
	for (b = 0, i = 0; i < nl; i++) {
		size_t rl = off[i + 1] - off[i];

		memcpy(buf2, buf, off[i + 1]);
		memcpy(buf2 + off[i + 1], buf + off[i], len - off[i]);
		if (vbuf(buf2, len + rl, 0, NULL, &v) != JOURNAL_BAD)
			b++;
	}
	is_int(b, 0, "duplicating any record is detected");
	for (b = 0, i = 0; i + 1 < nl; i++) {
		size_t a = off[i + 1] - off[i], bb = off[i + 2] - off[i + 1];

		memcpy(t, buf, len);
		memcpy(t + off[i], buf + off[i + 1], bb);
		memcpy(t + off[i] + bb, buf + off[i], a);
		if (vbuf(t, len, 0, NULL, &v) != JOURNAL_BAD)
			b++;
	}
	is_int(b, 0, "swapping any two neighbours is detected");

	/* splice: head of one journal, tail of another */
	is_int(journal_append(path2, pl, 5, err, sizeof(err)), 0,
	    "second journal");
	free(buf2);
	buf2 = slurp(path2, &len2);
	memcpy(t, buf, off[2]);
	memcpy(t + off[2], buf2 + off[2], len2 - off[2]);
	is_int(vbuf(t, off[2] + len2 - off[2], 0, NULL, &v), JOURNAL_BAD,
	    "spliced journals detected");
	is_int(v.bad_seq, 3, "splice found at record 3");
	is_int(v.bad_off, off[2], "at its byte offset");

	/* truncation: only --from sees it */
	vbuf(buf, len, 0, NULL, &v);
	from = v.head;
	is_int(vbuf(buf, off[4], 0, NULL, &v), JOURNAL_OK,
	    "a cleanly truncated journal verifies alone");
	is_int(vbuf(buf, off[4], 0, &from, &v), JOURNAL_BAD,
	    "truncation detected with --from");
	ok(strstr(v.why, "truncated") != NULL, "reason: %s", v.why);
	is_int(vbuf(buf, len, 0, &from, &v), JOURNAL_OK,
	    "full journal extends its own head");
	from.hash[0] ^= 1;
	is_int(vbuf(buf, len, 0, &from, &v), JOURNAL_BAD,
	    "a different head at the same seq is detected (rewrite)");
	memset(&from, 0, sizeof(from));
	is_int(vbuf(buf, len, 0, &from, &v), JOURNAL_OK, "--from 0:zeros");

	/* torn tails */
	for (b = 0, i = off[4] + 1; i < len; i++)
		if (vbuf(buf, i, 0, NULL, &v) != JOURNAL_TORN)
			b++;
	is_int(b, 0, "every prefix cut inside the last record is torn");
	is_int(vbuf(buf, len - 1, 0, NULL, &v), JOURNAL_TORN,
	    "missing final newline is torn");
	is_int(v.count, 4, "torn: 4 good records");
	is_int(v.good_end, off[4], "torn: good end");
	memcpy(t, buf, off[4]);
	memcpy(t + off[4], "garbage", 7);
	is_int(vbuf(t, off[4] + 7, 0, NULL, &v), JOURNAL_BAD,
	    "unterminated garbage is not torn but bad");

	/* deep: non-canonical event with a valid chain */
	{
		const char *nc = "{\"seq\":1,\"prev\":\"000000000000000000000"
		    "0000000000000000000000000000000000000000000\",\"time\":\"1"
		    "\",\"event\":{\"b\":1,\"a\":2}}\n";

		is_int(vbuf(nc, strlen(nc), 0, NULL, &v), JOURNAL_OK,
		    "shape-valid record passes the fast check");
		is_int(vbuf(nc, strlen(nc), JOURNAL_DEEP, NULL, &v),
		    JOURNAL_BAD, "non-canonical event refused by --deep");
	}

	/* append and recover on a torn file */
	spit(path, buf, len - 10);
	errno = 0;
	ok(journal_append(path, pl, 1, err, sizeof(err)) == -1 &&
	    errno == EBADMSG, "append refuses a torn tail: %s", err);
	b = journal_recover(path, &dropped, err, sizeof(err));
	is_int(b, 0, "recover");
	dropped_ok = len - 10 - off[4];
	is_int(dropped, dropped_ok, "dropped the torn bytes");
	free(buf2);
	buf2 = slurp(path, &len2);
	is_int(vbuf(buf2, len2, JOURNAL_DEEP, NULL, &v), JOURNAL_OK,
	    "recovered journal verifies");
	is_int(v.count, 5, "4 records + recovered");
	ok(strstr(buf2 + off[4], "\"type\":\"recovered\"") != NULL,
	    "recovered event written");
	b = journal_recover(path, &dropped, err, sizeof(err));
	ok(b == 0 && dropped == 0, "recover on a valid journal does nothing");

	/* broken chain: append and recover refuse */
	memcpy(t, buf, len);
	t[off[2] + 20] ^= 1;
	spit(path, t, len);
	errno = 0;
	ok(journal_recover(path, &dropped, err, sizeof(err)) == -1 &&
	    errno == EBADMSG, "recover refuses a broken chain");
	t[off[2] + 20] ^= 1;
	t[off[4] + 20] ^= 1;
	spit(path, t, len);
	errno = 0;
	ok(journal_append(path, pl, 1, err, sizeof(err)) == -1 &&
	    errno == EBADMSG, "append refuses a broken last link");
	free(buf2);
	buf2 = slurp(path, &len2);
	ok(len2 == len && memcmp(buf2, t, len) == 0, "and writes nothing");

	/* a big journal: the fd path hashes on two threads */
	{
		enum { N = 20000 };
		static const char *many[N];
		static char txt[N][320];
		struct journal_verdict bv;
		size_t k, cut, agree = 0, tries = 0;

		for (k = 0; k < N; k++) {
			/* 20000 lines of ~370 bytes: more than one read */
			snprintf(txt[k], sizeof(txt[k]), "{\"k\":%zu,\"pad\":"
			    "\"%0250d\"}", k, 0);
			many[k] = txt[k];
		}
		unlink(path2);
		is_int(journal_append(path2, many, N, err, sizeof(err)), 0,
		    "append %d records in one commit", N);
		free(buf2);
		buf2 = slurp(path2, &len2);
		journal_verify_buf(buf2, len2, 0, NULL, &bv);
		is_int(bv.count, N, "all there");
		ok(len2 > (5u << 20), "%zu bytes: more than one read of the "
		    "file verifier", len2);
		from = bv.head;
		free(t);
		t = malloc(len2);
		for (k = 0; k < 16; k++) {
			size_t o = (len2 / 16) * k + k * 7;

			memcpy(t, buf2, len2);
			t[o] ^= 1;
			tries += 2;
			agree += same_verdicts(path, t, len2, 0, NULL);
			agree += same_verdicts(path, t, len2, 0, &from);
		}
		/* torn cuts, a deleted line, the untouched journal */
		cut = len2 - 17;
		tries += 6;
		agree += same_verdicts(path, buf2, cut, 0, NULL);
		agree += same_verdicts(path, buf2, cut, 0, &from);
		agree += same_verdicts(path, buf2, len2, 0, &from);
		agree += same_verdicts(path, buf2, cut, JOURNAL_DEEP, &from);
		agree += same_verdicts(path, buf2, len2, JOURNAL_DEEP, &from);
		agree += same_verdicts(path, buf2, len2, JOURNAL_DEEP, NULL);
		{
			char *nl1 = memchr(buf2 + len2 / 2, '\n', len2 / 2);
			char *nl2 = memchr(nl1 + 1, '\n',
			    (size_t)(buf2 + len2 - nl1 - 1));
			size_t a = (size_t)(nl1 + 1 - buf2);
			size_t l = (size_t)(nl2 - nl1);

			memcpy(t, buf2, a);
			memcpy(t + a, buf2 + a + l, len2 - a - l);
			agree += same_verdicts(path, t, len2 - l, 0, NULL);
			agree += same_verdicts(path, t, len2 - l, JOURNAL_DEEP,
			    &from);
			tries += 2;
		}
		is_int(agree, tries, "file verifier (several reads) agrees "
		    "with the buffer one on %zu cases", tries);
	}

	test_forged_prev_noncanon(path2);
	test_agreement_matrix(path2);
	test_separator(path2);

	/* journal_append_out: the bytes written, exactly; journal_build:
	 * the same records in memory, a journal of their own. */
	{
		const char *ev[2] = {"{\"b\":1,\"a\":[true]}", "{\"x\":\"y\"}"};
		struct journal_head h;
		struct journal_verdict v;
		char *out = NULL, *mem = NULL, *whole;
		size_t outlen = 0, memlen = 0, before = 0, wlen = 0;
		int rc;

		/* ok() evaluates its condition twice: no calls inside. */
		unlink(path);
		rc = journal_append(path, ev, 1, err, sizeof(err));
		ok(rc == 0, "a first record");
		free(slurp(path, &before));
		rc = journal_append_out(path, ev, 2, &out, &outlen, err,
		    sizeof(err));
		ok(rc == 0, "append_out: two records");
		whole = slurp(path, &wlen);
		ok(whole != NULL && wlen == before + outlen &&
		    memcmp(whole + before, out, outlen) == 0,
		    "append_out returns the bytes appended, exactly");
		ok(out != NULL && memcmp(out, "{\"seq\":2,", 9) == 0 &&
		    strstr(out, "\"event\":{\"a\":[true],\"b\":1}}\n") != NULL,
		    "in canonical form, on top of the file's head");
		free(whole);
		memset(&h, 0, sizeof(h));
		rc = journal_build(&h, ev, 2, &mem, &memlen, err, sizeof(err));
		ok(rc == 0 && h.seq == 2, "build: two records from a zeroed "
		    "head");
		journal_verify_buf(mem, memlen, JOURNAL_DEEP, NULL, &v);
		ok(v.status == JOURNAL_OK && v.count == 2 &&
		    memcmp(v.head.hash, h.hash, sizeof(h.hash)) == 0,
		    "built records verify as a journal; the head follows");
		free(mem);
		rc = journal_build(&h, (const char *[]){"[1]"}, 1, &mem,
		    &memlen, err, sizeof(err));
		ok(rc == -1 && mem == NULL && h.seq == 2, "build refuses a "
		    "payload that is not an object, head kept");
		free(out);
	}

	/* journal_open / journal_lock / journal_append_locked: a shared
	 * lock held elsewhere (a reader) refuses the lock without waiting;
	 * once it goes, the append under the lock writes what it returns. */
	{
		const char *ev[1] = {"{\"k\":1}"};
		size_t lens[1] = {7}, before = 0, wlen = 0, outlen = 0;
		char *out = NULL, *whole;
		int fd, rd, rc, e;

		fd = journal_open(path, err, sizeof(err));
		ok(fd >= 0, "journal_open");
		rd = open(path, O_RDONLY | O_CLOEXEC);
		rc = rd >= 0 ? flock(rd, LOCK_SH) : -1;
		ok(rc == 0, "a reader holds a shared lock");
		rc = journal_lock(fd, path, 0, err, sizeof(err));
		e = errno;
		ok(rc == -1 && e == EWOULDBLOCK && strstr(err, "its lock is "
		    "held by another process") != NULL, "journal_lock without "
		    "waiting: EWOULDBLOCK, said");
		close(rd);
		rc = journal_lock(fd, path, 0, err, sizeof(err));
		ok(rc == 0, "the reader gone: locked");
		free(slurp(path, &before));
		rc = journal_append_locked(fd, path, ev, lens, 1, &out, &outlen,
		    err, sizeof(err));
		whole = slurp(path, &wlen);
		ok(rc == 0 && whole != NULL && wlen == before + outlen &&
		    memcmp(whole + before, out, outlen) == 0 &&
		    memchr(out, '\n', outlen) == out + outlen - 1,
		    "append under the lock: one record, the bytes returned");
		journal_unlock(fd);
		rd = open(path, O_RDONLY | O_CLOEXEC);
		ok(rd >= 0 && flock(rd, LOCK_SH | LOCK_NB) == 0,
		    "journal_unlock: a reader may lock it again");
		if (rd >= 0)
			close(rd);
		free(whole);
		free(out);
		close(fd);
	}

	unlink(path);
	unlink(path2);
	rmdir(dir);
	free(t);
	free(buf);
	free(buf2);
	return done_testing();
}
