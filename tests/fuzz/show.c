/* SPDX-License-Identifier: ISC */
/* libFuzzer target: journalchain show's lines (cmd/journalchain/show.c)
 * for a journal of up to eight events from the input, one a line: every
 * line within its bound, no control byte but its newline, one line a
 * record. */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "journal.h"
#include "show.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* The input's lines that are JSON objects, canonical, at most 8. */
static size_t
events(const uint8_t *data, size_t size, char *ev[8])
{
	const char *p = (const char *)data, *end = p + size, *nl;
	char *canon, err[128];
	size_t n = 0, clen;

	while (p < end && n < 8) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			nl = end;
		if (journal_event_canon(p, (size_t)(nl - p), &canon, &clen,
		    err, sizeof(err)) == 0)
			ev[n++] = canon;
		p = nl + 1;
	}
	return n;
}

/* Every line of out[0..len) within the bound for n records. */
static void
check(const char *out, size_t len, size_t n)
{
	size_t lines = 0, i, start = 0;

	for (i = 0; i < len; i++) {
		if (out[i] == '\n') {
			if (i - start > SHOW_LINE_MAX + 2)
				abort();
			lines++;
			start = i + 1;
		} else if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
			abort();
	}
	if (start != len || lines != n)
		abort();
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct journal_head head = { 0 };
	char *ev[8], *jnl, *out, path[64], err[128];
	size_t n = events(data, size, ev), len, i;
	int jfd, ofd, saved;
	off_t olen;

	if (n == 0)
		return 0;
	if (journal_build(&head, (const char *const *)ev, n, &jnl, &len, err,
	    sizeof(err)) == -1)
		abort();
	jfd = memfd_create("journal", MFD_CLOEXEC);
	ofd = memfd_create("show", MFD_CLOEXEC);
	if (jfd == -1 || ofd == -1 || write(jfd, jnl, len) != (ssize_t)len)
		abort();
	snprintf(path, sizeof(path), "/proc/self/fd/%d", jfd);
	fflush(stdout);
	saved = dup(1);
	if (saved == -1 || dup2(ofd, 1) == -1)
		abort();
	if (show_main(path, 0, NULL) != 0)
		abort();
	fflush(stdout);
	if (dup2(saved, 1) == -1)
		abort();
	close(saved);
	olen = lseek(ofd, 0, SEEK_END);
	out = malloc((size_t)olen + 1);
	if (olen < 0 || out == NULL ||
	    pread(ofd, out, (size_t)olen, 0) != (ssize_t)olen)
		abort();
	check(out, (size_t)olen, n);
	free(out);
	close(jfd);
	close(ofd);
	free(jnl);
	for (i = 0; i < n; i++)
		free(ev[i]);
	return 0;
}
