/* SPDX-License-Identifier: ISC */
/* source: the payload's exit, through the pidfd clone3 returned
 * (readable once the process has exited).  Reaping is end.c's. */
#include "loop.h"
#include "run.h"

static int
open_pidfd(struct source *s, struct run *r)
{
	s->watch = &r->pidfd;	/* made by the clone */
	return 0;
}

static enum src_ret
handle_pidfd(struct source *s, struct run *r)
{
	r->exited = 1;
	return SRC_END;
}

const struct source_ops src_pidfd = {
	.name = "pidfd",
	.open = open_pidfd,
	.handle = handle_pidfd,
};
