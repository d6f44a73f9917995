/* SPDX-License-Identifier: ISC */
/* events: what journalchain reads in a confexec event, for show and serve
 * alike: its kind and the plan it names (confexec(1), --journal). */
#ifndef JC_EVENTS_H
#define JC_EVENTS_H

#include <stddef.h>

#include <jansson.h>

enum ev_kind { EV_OTHER, EV_START, EV_END, EV_EGRESS, EV_HANDOFF, EV_CANARY };

/* Parse an event's text strictly (no duplicate key).  NULL when it is
 * not one JSON value, or on ENOMEM. */
json_t *ev_parse(const char *text, size_t len);

/* The kind its "event" key names; EV_OTHER for any other or none. */
enum ev_kind ev_kind(json_t *ev);

/* The plan digest a record of a run names ("plan", or a canary's
 * "plan_sha256"), or NULL.  A start event opens a run of its plan; the
 * events naming that plan after it join the oldest run of it still open,
 * up to its end event. */
const char *ev_plan(json_t *ev);

#endif
