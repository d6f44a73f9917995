/* SPDX-License-Identifier: ISC */
/* libFuzzer target: arbitrary bytes as a journal, through the verifier
 * (fast and deep, with and without --from, from memory and from a file),
 * the record parser and the tail reader used by append; they must agree. */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "journal.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal_verdict v, vd, vf;
	struct journal_head h, from;
	struct journal_record r;
	enum journal_status st;
	char path[64], err[256];
	const char *p = (const char *)data, *nl;
	int fd;

	journal_verify_buf(data, size, 0, NULL, &v);
	journal_verify_buf(data, size, JOURNAL_DEEP, NULL, &vd);
	/* deep is at least as strict as fast */
	if (vd.status == JOURNAL_OK && v.status != JOURNAL_OK)
		abort();
	if (vd.count > v.count)
		abort();
	if (v.status == JOURNAL_OK && v.good_end != size)
		abort();
	/* a journal extends its own head, and not a different one */
	from = v.head;
	journal_verify_buf(data, size, 0, &from, &vf);
	if (vf.status != v.status)
		abort();
	if (v.count > 0) {
		from.hash[0] ^= 1;
		journal_verify_buf(data, size, 0, &from, &vf);
		if (vf.status != JOURNAL_BAD)
			abort();
	}
	while (size > 0 && (nl = memchr(p, '\n', size)) != NULL) {
		size_t n = (size_t)(nl - p);

		(void)journal_record_parse(p, n, &r, NULL);
		size -= n + 1;
		p = nl + 1;
	}

	/* the tail reader (append's view) agrees with verify */
	fd = memfd_create("journal", MFD_CLOEXEC);
	if (fd == -1)
		return 0;
	if (write(fd, data, (size_t)(p + size - (const char *)data)) !=
	    (ssize_t)(p + size - (const char *)data)) {
		close(fd);
		return 0;
	}
	/* the file verifier (parallel phases) agrees with the buffer one */
	if (journal_verify_fd(fd, 0, NULL, &vf) == 0 &&
	    (vf.status != v.status || vf.count != v.count ||
	    vf.bad_off != v.bad_off || vf.bad_seq != v.bad_seq ||
	    strcmp(vf.why, v.why) != 0))
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	if (journal_head_read(path, &h, &st, err, sizeof(err)) == 0) {
		if (v.status == JOURNAL_TORN)
			abort();
		if (v.status == JOURNAL_OK && (h.seq != v.head.seq ||
		    memcmp(h.hash, v.head.hash, SHA256_LEN) != 0))
			abort();
	} else if (errno == EBADMSG) {
		if (v.status == JOURNAL_OK)
			abort();
	}
	close(fd);
	return 0;
}
