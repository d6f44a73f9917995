/* SPDX-License-Identifier: ISC */
/* verdict: exit status and report of a journal's verdict (verdict.h). */
#include <fcntl.h>

#include "err.h"
#include "verdict.h"

int
verdict_exit(enum journal_status st)
{
	switch (st) {
	case JOURNAL_OK:
		return EXIT_OK;
	case JOURNAL_TORN:
		return EXIT_TORN;
	case JOURNAL_BAD:
		return EXIT_NO;
	default:
		return EXIT_NO;
	}
}

void
verdict_report(const char *path, const struct journal_verdict *v)
{
	if (v->status == JOURNAL_OK)
		return;
	warning("%s: %s at record %llu, byte %llu: %s", path,
	    v->status == JOURNAL_TORN ? "torn tail" : "verification failed",
	    (unsigned long long)v->bad_seq, (unsigned long long)v->bad_off,
	    v->why);
}

int
verdict_open(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		die_sys(EXIT_NO, "cannot open %s", path);
	return fd;
}
