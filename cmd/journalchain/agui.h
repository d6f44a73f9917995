/* SPDX-License-Identifier: ISC */
/* agui: one journaled run as a stream of AG-UI events (journalchain(5),
 * AG-UI EVENTS), produced one event at a time as the client reads, so
 * that a stream holds one event's bytes at most however slow its reader. */
#ifndef JC_AGUI_H
#define JC_AGUI_H

#include <stddef.h>

struct agui;

/* A stream for the RunAgentInput in body[0..len): threadId, runId
 * (strings) and messages (an array) required; forwardedProps.borne.run
 * (a run's id or "last") or forwardedProps.borne.follow (true: the next
 * run to start).  NULL when refused: *status gets the HTTP status (400
 * malformed, 404 no such run, 500 out of memory) and msg why. */
struct agui *agui_open(const char *body, size_t len, int *status, char *msg,
    size_t msglen);

enum agui_step { AGUI_EVENT, AGUI_WAIT, AGUI_DONE };

/* The next event as one SSE message ("data: JSON\n\n", malloc'ed, in
 * *out of *outlen bytes): AGUI_EVENT; AGUI_WAIT when the journal must
 * grow first (call again when it did); AGUI_DONE after the last one. */
enum agui_step agui_next(struct agui *a, char **out, size_t *outlen);

void agui_close(struct agui *a);

#endif
