/* SPDX-License-Identifier: ISC */
/* agui: a journaled run as AG-UI events (agui.h).
 *
 * The mapping (journalchain(5), AG-UI EVENTS), in stream order:
 *   RUN_STARTED {threadId, runId}            the client's ids
 *   STATE_SNAPSHOT {snapshot}                the run's id, its journal's
 *                                            chain, records 0, state running
 *   per record: RAW {event: {journal, seq, line}, source "borne.journal"},
 *     STATE_DELTA replacing /records (the run's records streamed so far)
 *     start: STEP_STARTED/STEP_FINISHED per layer applied, in order;
 *            CUSTOM borne.degraded when layers are missing; then, when
 *            the payload was started (layers applied), TOOL_CALL_START
 *            {toolCallName: program} and TOOL_CALL_ARGS {argv, plan}
 *     egress, handoff, canary: CUSTOM borne.egress, borne.handoff,
 *            borne.canary {value: the event}; others CUSTOM borne.record
 *     end:   CUSTOM borne.denials, borne.residue when there are any;
 *            TOOL_CALL_END, TOOL_CALL_RESULT {content: exit, time,
 *            counts}; STATE_DELTA replacing /state (refused, failed,
 *            timeout, cancelled or finished); then RUN_ERROR {message,
 *            code} for a refused run
 *            (exit 125: borne.refused; 126/127 with a refusal:
 *            borne.exec), RUN_FINISHED {outcome cancelled} for a timeout
 *            or a cancel, RUN_FINISHED {outcome success, result} else.
 * Records are read when the client is ready for them: nothing is
 * queued for a slow client but its position in the run. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "agui.h"
#include "esc.h"
#include "runs.h"

/* A request body's largest JSON depth is jansson's own bound. */

struct agui {
	char thread[256], runid[256];
	char id[64];		/* the run's, once known */
	int follow;
	uint64_t after;		/* follow: start records after this time */
	size_t k;		/* the next record of the run */
	json_t *q;		/* events made, not yet given */
	size_t qi;
	int started;		/* RUN_STARTED given */
	int toolcall;		/* a tool call open */
	int done;
	char tcid[96];
};

static void
say(char *msg, size_t len, const char *what)
{
	snprintf(msg, len, "%s", what);
}

/* A string member of at most 255 bytes. */
static int
id_member(json_t *o, const char *key, char *buf, size_t len)
{
	const char *s = json_string_value(json_object_get(o, key));

	if (s == NULL || strlen(s) >= len)
		return -1;
	memcpy(buf, s, strlen(s) + 1);
	return 0;
}

/* The RunAgentInput's required members: 0, or -1 with why in msg. */
static int
input_check(json_t *in, struct agui *a, char *msg, size_t msglen)
{
	if (!json_is_object(in)) {
		say(msg, msglen, "RunAgentInput: not an object");
		return -1;
	}
	if (id_member(in, "threadId", a->thread, sizeof(a->thread)) == -1 ||
	    id_member(in, "runId", a->runid, sizeof(a->runid)) == -1) {
		say(msg, msglen, "RunAgentInput: threadId and runId must be "
		    "strings (255 bytes at most)");
		return -1;
	}
	if (!json_is_array(json_object_get(in, "messages"))) {
		say(msg, msglen, "RunAgentInput: messages must be an array");
		return -1;
	}
	return 0;
}

/* forwardedProps.borne: the run named, or the next one to start.  0, or
 * -1 with the status (400, 404) and why. */
static int
input_run(json_t *in, struct agui *a, int *status, char *msg,
    size_t msglen)
{
	json_t *borne, *run, *follow;
	struct timespec ts;

	borne = json_object_get(json_object_get(in, "forwardedProps"),
	    "borne");
	run = json_object_get(borne, "run");
	follow = json_object_get(borne, "follow");
	if (!json_is_object(borne) || (run == NULL) == (follow == NULL) ||
	    (run != NULL && !json_is_string(run)) ||
	    (follow != NULL && !json_is_true(follow))) {
		say(msg, msglen, "forwardedProps.borne: want {\"run\": ID} or "
		    "{\"follow\": true}");
		return -1;
	}
	if (run == NULL) {
		a->follow = 1;
		clock_gettime(CLOCK_REALTIME, &ts);
		a->after = (uint64_t)ts.tv_sec * 1000000000u +
		    (uint64_t)ts.tv_nsec;
		return 0;
	}
	if (runs_resolve(json_string_value(run), a->id, sizeof(a->id)) == -1) {
		char e[ESC_SIZE(64)];

		/* The id as the caller sent it, escaped: one line. */
		esc_name(json_string_value(run), e, sizeof(e));
		*status = 404;
		snprintf(msg, msglen, "no such run: %.64s", e);
		return -1;
	}
	return 0;
}

struct agui *
agui_open(const char *body, size_t len, int *status, char *msg,
    size_t msglen)
{
	json_error_t e;
	json_t *in;
	struct agui *a;

	*status = 400;
	in = json_loadb(body, len, JSON_REJECT_DUPLICATES, &e);
	if (in == NULL) {
		/* The parser's text quotes the body near the fault:
		 * escaped, one line. */
		char t[ESC_SIZE(JSON_ERROR_TEXT_LENGTH)];

		esc_name(e.text, t, sizeof(t));
		snprintf(msg, msglen, "the body is not JSON: %s", t);
		return NULL;
	}
	a = calloc(1, sizeof(*a));
	if (a == NULL) {
		*status = 500;
		say(msg, msglen, "out of memory");
	} else if (input_check(in, a, msg, msglen) == -1 ||
	    input_run(in, a, status, msg, msglen) == -1) {
		free(a);
		a = NULL;
	}
	json_decref(in);
	return a;
}

void
agui_close(struct agui *a)
{
	if (a == NULL)
		return;
	json_decref(a->q);
	free(a);
}

/* Queue an event (stolen). */
static void
emit(struct agui *a, json_t *ev)
{
	if (ev == NULL)
		return;
	if (a->q == NULL)
		a->q = json_array();
	json_array_append_new(a->q, ev);
}

static json_t *
custom(const char *name, json_t *value)
{
	return json_pack("{s:s,s:s,s:O}", "type", "CUSTOM", "name", name,
	    "value", value ? value : json_null());
}

static void
on_start(struct agui *a, json_t *ev)
{
	json_t *layers = json_object_get(ev, "layers"), *l, *args;
	size_t i;
	char *txt;

	json_array_foreach(layers, i, l) {
		char step[96];

		if (!json_is_string(l))
			continue;
		snprintf(step, sizeof(step), "layer:%s", json_string_value(l));
		emit(a, json_pack("{s:s,s:s}", "type", "STEP_STARTED",
		    "stepName", step));
		emit(a, json_pack("{s:s,s:s}", "type", "STEP_FINISHED",
		    "stepName", step));
	}
	if (json_array_size(json_object_get(ev, "degraded")) > 0)
		emit(a, custom("borne.degraded", json_object_get(ev,
		    "degraded")));
	/* No layer applied: refused before the payload was started. */
	if (json_array_size(layers) == 0)
		return;
	snprintf(a->tcid, sizeof(a->tcid), "borne-run-%s", a->id);
	emit(a, json_pack("{s:s,s:s,s:s}", "type", "TOOL_CALL_START",
	    "toolCallId", a->tcid, "toolCallName",
	    json_string_value(json_object_get(ev, "program")) ?
	    json_string_value(json_object_get(ev, "program")) : "?"));
	args = json_pack("{s:O,s:O}", "argv", json_object_get(ev, "argv") ?
	    json_object_get(ev, "argv") : json_null(), "plan",
	    json_object_get(ev, "plan") ? json_object_get(ev, "plan") :
	    json_null());
	txt = args ? json_dumps(args, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	json_decref(args);
	emit(a, json_pack("{s:s,s:s,s:s}", "type", "TOOL_CALL_ARGS",
	    "toolCallId", a->tcid, "delta", txt ? txt : "{}"));
	free(txt);
	a->toolcall = 1;
}

static json_t *
get_or_null(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	return v ? v : json_null();
}

/* The end's denials and residues, as custom events. */
static void
end_customs(struct agui *a, json_t *ev)
{
	json_t *v;

	if (json_is_object(json_object_get(ev, "denials")))
		emit(a, custom("borne.denials", json_object_get(ev,
		    "denials")));
	if (!json_is_null(get_or_null(ev, "residue")) ||
	    !json_is_null(get_or_null(ev, "tmp_residue"))) {
		v = json_pack("{s:O,s:O}", "residue", get_or_null(ev,
		    "residue"), "tmp_residue", get_or_null(ev, "tmp_residue"));
		emit(a, custom("borne.residue", v));
		json_decref(v);
	}
}

/* The run's result: its end's outcome and counts (NULL on ENOMEM). */
static json_t *
end_result(json_t *ev)
{
	return json_pack("{s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:O,s:o}",
	    "exit", get_or_null(ev, "exit"), "status", get_or_null(ev,
	    "status"), "signal", get_or_null(ev, "signal"), "signal_by",
	    get_or_null(ev, "signal_by"), "timeout", get_or_null(ev,
	    "timeout"), "cancel", get_or_null(ev, "cancel"), "wall_ns",
	    get_or_null(ev, "wall_ns"), "cpu_usec", get_or_null(ev,
	    "cpu_usec"), "refused", get_or_null(ev, "refused"), "counts",
	    json_pack("{s:O,s:O,s:O,s:O}", "denials", get_or_null(
	    get_or_null(ev, "denials"), "calls"), "egress", get_or_null(ev,
	    "egress"), "handoff", get_or_null(ev, "handoff"), "canary",
	    get_or_null(ev, "canary")));
}

/* The open tool call ends, its result the run's. */
static void
tool_call_end(struct agui *a, json_t *res)
{
	char *txt, mid[128];

	txt = res ? json_dumps(res, JSON_COMPACT | JSON_SORT_KEYS) : NULL;
	emit(a, json_pack("{s:s,s:s}", "type", "TOOL_CALL_END",
	    "toolCallId", a->tcid));
	snprintf(mid, sizeof(mid), "%s-result", a->tcid);
	emit(a, json_pack("{s:s,s:s,s:s,s:s,s:s}", "type",
	    "TOOL_CALL_RESULT", "messageId", mid, "toolCallId", a->tcid,
	    "content", txt ? txt : "{}", "role", "tool"));
	free(txt);
	a->toolcall = 0;
}

static void
on_end(struct agui *a, json_t *ev)
{
	json_int_t exitc = json_integer_value(json_object_get(ev, "exit"));
	const char *refused = json_string_value(json_object_get(ev,
	    "refused"));
	int failed = exitc == 125 || (refused != NULL && (exitc == 126 ||
	    exitc == 127));
	int cut = json_is_true(json_object_get(ev, "timeout")) ||
	    json_is_string(json_object_get(ev, "cancel"));
	const char *st = exitc == 125 ? "refused" : failed ? "failed" :
	    json_is_true(json_object_get(ev, "timeout")) ? "timeout" :
	    cut ? "cancelled" : "finished";
	json_t *res = end_result(ev);

	end_customs(a, ev);
	if (a->toolcall)
		tool_call_end(a, res);
	emit(a, json_pack("{s:s,s:[{s:s,s:s,s:s}]}", "type", "STATE_DELTA",
	    "delta", "op", "replace", "path", "/state", "value", st));
	if (failed)
		emit(a, json_pack("{s:s,s:s,s:s}", "type", "RUN_ERROR",
		    "message", refused ? refused : "refused", "code",
		    exitc == 125 ? "borne.refused" : "borne.exec"));
	else
		emit(a, json_pack("{s:s,s:s,s:s,s:O,s:{s:s}}", "type",
		    "RUN_FINISHED", "threadId", a->thread, "runId", a->runid,
		    "result", res ? res : json_null(), "outcome", "type",
		    cut ? "cancelled" : "success"));
	json_decref(res);
	a->done = 1;
}

static void
on_record(struct agui *a, json_t *ev, const char *line, size_t ll,
    uint64_t seq)
{
	const char *kind = json_string_value(json_object_get(ev, "event"));
	json_t *chain = runs_chain_json(a->id);

	emit(a, json_pack("{s:s,s:{s:O,s:I,s:s%},s:s}", "type", "RAW",
	    "event", "journal", chain ? json_object_get(chain, "path") :
	    json_null(), "seq", (json_int_t)seq, "line", line, ll, "source",
	    "borne.journal"));
	json_decref(chain);
	emit(a, json_pack("{s:s,s:[{s:s,s:s,s:I}]}", "type", "STATE_DELTA",
	    "delta", "op", "replace", "path", "/records", "value",
	    (json_int_t)a->k));
	if (kind == NULL)
		kind = "";
	if (strcmp(kind, "start") == 0)
		on_start(a, ev);
	else if (strcmp(kind, "end") == 0)
		on_end(a, ev);
	else if (strcmp(kind, "egress") == 0)
		emit(a, custom("borne.egress", ev));
	else if (strcmp(kind, "handoff") == 0)
		emit(a, custom("borne.handoff", ev));
	else if (strcmp(kind, "canary") == 0)
		emit(a, custom("borne.canary", ev));
	else
		emit(a, custom("borne.record", ev));
}

/* Make the next events; 0 when some were made, 1 to wait, -1 when the
 * run is gone (an error event made). */
static int
produce(struct agui *a)
{
	json_t *ev;
	char *line;
	size_t ll;
	uint64_t seq;
	int r;

	if (a->id[0] == '\0') {
		if (runs_first_after(a->after, a->id, sizeof(a->id)) == -1)
			return 1;
	}
	if (!a->started) {
		json_t *chain = runs_chain_json(a->id);

		a->started = 1;
		emit(a, json_pack("{s:s,s:s,s:s}", "type", "RUN_STARTED",
		    "threadId", a->thread, "runId", a->runid));
		emit(a, json_pack("{s:s,s:{s:s,s:O,s:i,s:s}}", "type",
		    "STATE_SNAPSHOT", "snapshot", "run", a->id, "chain",
		    chain ? chain : json_null(), "records", 0, "state",
		    "running"));
		json_decref(chain);
		return 0;
	}
	r = runs_record(a->id, a->k, &ev, &line, &ll, &seq);
	if (r == 0)
		return 1;
	if (r == -1) {
		emit(a, json_pack("{s:s,s:s,s:s}", "type", "RUN_ERROR",
		    "message", "the run is no longer in the journal (the "
		    "journal was rewritten or cut)", "code", "borne.journal"));
		a->done = 1;
		return -1;
	}
	a->k++;
	on_record(a, ev, line, ll, seq);
	json_decref(ev);
	free(line);
	return 0;
}

enum agui_step
agui_next(struct agui *a, char **out, size_t *outlen)
{
	json_t *ev;
	char *txt;
	size_t n;

	while (a->q == NULL || a->qi >= json_array_size(a->q)) {
		json_decref(a->q);
		a->q = NULL;
		a->qi = 0;
		if (a->done)
			return AGUI_DONE;
		if (produce(a) == 1)
			return AGUI_WAIT;
	}
	ev = json_array_get(a->q, a->qi++);
	txt = json_dumps(ev, JSON_COMPACT);
	if (txt == NULL)
		return AGUI_DONE;
	n = strlen(txt);
	*out = malloc(n + 8);
	if (*out == NULL) {
		free(txt);
		return AGUI_DONE;
	}
	memcpy(*out, "data: ", 6);
	memcpy(*out + 6, txt, n);
	memcpy(*out + 6 + n, "\n\n", 2);
	*outlen = n + 8;
	free(txt);
	return AGUI_EVENT;
}
