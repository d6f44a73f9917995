/* SPDX-License-Identifier: ISC */
/* canary: the judged probes said (canary.h): one line each on stdout
 * (or one JSON object), the mismatches on stderr, the canary record in
 * the journal, and the end record's summary. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canary_int.h"
#include "record.h"
#include "run.h"
#include "err.h"

/* The canary record at its largest (JSON escapes a field's backslashes,
 * and esc.h's \xNN has one per 4 bytes: 5/4 of each field, plus keys)
 * fits the source's share of the run's log. */
_Static_assert(CANARY_MAX_PROBES * (5 * (sizeof(((struct probe_line *)0)->
    tried) + sizeof(((struct probe_line *)0)->expected) +
    sizeof(((struct probe_line *)0)->got) +
    sizeof(((struct probe_line *)0)->hostsaw)) / 4 + 160) + 1024 <=
    LOG_CANARY_SHARE, "the canary record fits its share");

static json_t *
line_json(const struct probe_line *pl)
{
	json_t *e = json_object();

	json_object_set_new(e, "probe", json_string(pl->name));
	json_object_set_new(e, "tried", json_string(pl->tried));
	json_object_set_new(e, "expected", json_string(pl->expected));
	json_object_set_new(e, "got", json_string(pl->got));
	json_object_set_new(e, "host", json_string(pl->hostsaw));
	json_object_set_new(e, "verdict",
	    json_string(canary_judge_verdict(pl)));
	return e;
}

static json_t *
record_json(const struct run *r)
{
	json_t *o = json_object(), *a = json_array();
	size_t i;

	for (i = 0; i < canary_state.n; i++)
		json_array_append_new(a, line_json(&canary_state.pl[i]));
	json_object_set_new(o, "event", json_string("canary"));
	json_object_set_new(o, "plan_sha256", json_string(r->plan_hex));
	json_object_set_new(o, "probe_sha256", json_string(r->prog_hex));
	json_object_set_new(o, "probes", a);
	json_object_set_new(o, "matched",
	    json_integer((json_int_t)canary_state.matched));
	json_object_set_new(o, "mismatched",
	    json_integer((json_int_t)canary_state.bad));
	json_object_set_new(o, "not_run",
	    json_integer((json_int_t)canary_state.skipped));
	json_object_set_new(o, "unanswered",
	    json_integer((json_int_t)canary_state.missing));
	json_object_set_new(o, "exit", json_integer(canary_state.code));
	return o;
}

/* The lines, tab-separated, or the record's object without "event". */
static void
stdout_say(const struct run *r)
{
	const struct probe_line *pl;
	json_t *o;
	char *txt;
	size_t i;

	if (canary_state.json) {
		o = record_json(r);
		json_object_del(o, "event");
		txt = json_dumps(o, JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(o);
		if (txt != NULL)
			printf("%s\n", txt);
		free(txt);
		return;
	}
	for (i = 0; i < canary_state.n; i++) {
		pl = &canary_state.pl[i];
		printf("%s\t%s\t%s\t%s\t%s\t%s\n", pl->name, pl->tried,
		    pl->expected, pl->got, pl->hostsaw,
		    canary_judge_verdict(pl));
	}
}

/* A mismatch in one line of stderr (the host's side when read). */
static void
mismatch_say(const struct probe_line *pl)
{
	int host = strcmp(pl->hostsaw, "-") != 0;

	warning("canary: %s: %s: expected %s, got %s%s%s", pl->name,
	    pl->tried, pl->expected, pl->got, host ? "; host: " : "",
	    host ? pl->hostsaw : "");
}

void
canary_out_print(struct run *r)
{
	const struct probe_line *pl;
	json_t *o;
	size_t i;

	stdout_say(r);
	if (fflush(stdout) == EOF) {
		warning_sys("canary: standard output");
		canary_state.code = EXIT_FAIL;
	}
	for (i = 0; i < canary_state.n; i++) {
		pl = &canary_state.pl[i];
		if (pl->x != X_NOTRUN && !pl->match &&
		    !canary_judge_unanswered(pl))
			mismatch_say(pl);
	}
	if (record_wanted(r) && r->started) {
		o = record_json(r);
		if (record_events(r, &o, 1, "canary record") == -1 &&
		    canary_state.code == EXIT_OK)
			canary_state.code = EXIT_FAIL;
	}
}

json_t *
canary_out_summary(void)
{
	if (!canary_state.judged)
		return json_null();
	return json_pack("{s:I,s:I,s:I,s:I,s:i}", "matched",
	    (json_int_t)canary_state.matched, "mismatched",
	    (json_int_t)canary_state.bad, "not_run",
	    (json_int_t)canary_state.skipped, "unanswered",
	    (json_int_t)canary_state.missing, "exit", canary_state.code);
}
