/* SPDX-License-Identifier: ISC */
/* source: the journal's writer (--journal; record.c): its eventfd says
 * records were written; the loop adds them to the run's log in the order
 * written. */
#include <stdint.h>
#include <unistd.h>

#include "loop.h"
#include "record.h"
#include "run.h"

static int
open_journal(struct source *s, struct run *r)
{
	s->watch = record_eventfd(r);
	return 0;
}

static enum src_ret
handle_journal(struct source *s, struct run *r)
{
	uint64_t n;

	(void)!read(*s->watch, &n, sizeof(n));
	record_collect(r);
	return SRC_CONTINUE;
}

/* The eventfd stays open: the writer may still be waiting for the lock
 * when the run's records were given up (it never writes again). */
const struct source_ops src_journal = {
	.name = "journal",
	.open = open_journal,
	.handle = handle_journal,
};
