/* SPDX-License-Identifier: ISC */
/* source: confexec --canary's answers (canary.c): the pipe the probe
 * program answers on, read as the answers come (bounded, never
 * blocking: the pipe never fills); once the run has ended, the answers
 * judged, printed and journaled as the canary record, before the end
 * record, whose "canary" key says how they came out (null without a
 * verdict).  Unused without --canary. */
#include "canary.h"
#include "loop.h"
#include "run.h"

static int
open_canary(struct source *s, struct run *r)
{
	if (canary_on())
		s->watch = canary_answers_fd();
	return 0;
}

static enum src_ret
handle_canary(struct source *s, struct run *r)
{
	canary_read();
	return SRC_CONTINUE;
}

static void
report_canary(struct source *s, const struct run *r, json_t *o,
    enum report_what what)
{
	if (what == REPORT_END)
		json_object_set_new(o, "canary", canary_summary());
}

static void
finish_canary(struct source *s, struct run *r)
{
	if (canary_on())
		canary_finish(r);
}

const struct source_ops src_canary = {
	.name = "canary",
	.open = open_canary,
	.handle = handle_canary,
	.report = report_canary,
	.finish = finish_canary,
};
