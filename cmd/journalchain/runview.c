/* SPDX-License-Identifier: ISC */
/* runview: the JSON views of the runs runs.c keeps: the list, one run in
 * detail, a journal's chain (runs.h). */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "events.h"
#include "hash.h"
#include "plan.h"
#include "runs.h"
#include "runs_int.h"

/* The model's journals (runs_int.h), by short names. */
#define J runs_J
#define NJ runs_NJ

static const char *
status_name(const struct journal *j)
{
	if (j->err)
		return "unreadable";
	if (!j->seen)
		return "unread";
	switch (j->v.status) {
	case JOURNAL_OK:
		return "verified";
	case JOURNAL_TORN:
		return "torn";
	case JOURNAL_BAD:
		return "broken";
	default:
		return "broken";
	}
}

static json_t *
chain_json(size_t ji)
{
	const struct journal *j = &J[ji];
	char hex[SHA256_HEX_LEN + 1], head[SHA256_HEX_LEN + 32];
	json_t *o;

	sha256_hex(j->v.head.hash, hex);
	snprintf(head, sizeof(head), "%" PRIu64 ":%s", j->v.head.seq, hex);
	o = json_pack("{s:s,s:i,s:s,s:I,s:s,s:I,s:I}", "path", j->path,
	    "index", (int)ji + 1, "status", status_name(j),
	    "verified_records", (json_int_t)j->v.count, "head", head,
	    "runs", (json_int_t)j->nruns, "other_records",
	    (json_int_t)j->orphans);
	if (o == NULL)
		return NULL;
	if (j->err)
		json_object_set_new(o, "error", json_string(strerror(j->err)));
	if (j->seen && !j->err && j->v.status != JOURNAL_OK)
		json_object_set_new(o, "bad", json_pack("{s:I,s:I,s:s}",
		    "record", (json_int_t)j->v.bad_seq, "offset",
		    (json_int_t)j->v.bad_off, "why", j->v.why));
	return o;
}

json_t *
runs_chain_json(const char *id)
{
	size_t ji;

	if (runs_find(id, &ji) == NULL)
		return errno = ENOENT, NULL;
	return chain_json(ji);
}

static const char *
state_of(const struct run *r)
{
	json_t *e = r->end;

	if (!r->ended)
		return "running";
	if (json_integer_value(json_object_get(e, "exit")) == 125)
		return "refused";
	if (json_is_true(json_object_get(e, "timeout")))
		return "timeout";
	if (json_is_string(json_object_get(e, "cancel")))
		return "cancelled";
	if (json_is_string(json_object_get(e, "refused")))
		return "failed";
	if (json_is_integer(json_object_get(e, "signal")))
		return "killed";
	if (json_integer_value(json_object_get(e, "exit")) == 0)
		return "ok";
	return "exit";
}

static json_t *
summary(size_t ji, const struct run *r)
{
	const struct journal *j = &J[ji];
	char id[64];
	json_t *o;

	runs_id(ji, r, id, sizeof(id));
	o = json_pack("{s:s,s:i,s:I,s:s,s:s,s:b,s:I,s:I}", "id", id,
	    "journal", (int)ji + 1, "seq", (json_int_t)r->seq, "plan", r->plan,
	    "state", state_of(r), "ended", r->ended, "egress_events",
	    (json_int_t)r->egress, "handoff_events", (json_int_t)r->handoffs);
	if (o == NULL)
		return NULL;
	{
		char t[32];

		snprintf(t, sizeof(t), "%" PRIu64, runs_start_time(j, r));
		json_object_set_new(o, "time", json_string(t));
	}
	json_object_set(o, "start", r->start ? r->start : json_null());
	json_object_set(o, "end", r->end ? r->end : json_null());
	json_object_set(o, "canary", r->canary ? r->canary : json_null());
	/* Verified: every record of the run lies in the verified prefix
	 * (records past it are never read). */
	json_object_set_new(o, "verified", json_boolean(j->v.status ==
	    JOURNAL_OK && !j->err));
	return o;
}

json_t *
runs_list_json(size_t max)
{
	json_t *o = json_object(), *js = json_array(), *rs = json_array();
	size_t ji, i, total = 0, *pos;

	if (o == NULL || js == NULL || rs == NULL)
		goto nomem;
	for (ji = 0; ji < NJ; ji++) {
		json_array_append_new(js, chain_json(ji));
		total += J[ji].nruns;
	}
	/* Newest first: a merge of the journals by start time. */
	pos = calloc(NJ ? NJ : 1, sizeof(*pos));
	if (pos == NULL)
		goto nomem;
	for (ji = 0; ji < NJ; ji++)
		pos[ji] = J[ji].nruns;
	for (i = 0; i < total && (max == 0 || i < max); i++) {
		size_t best = NJ;

		for (ji = 0; ji < NJ; ji++)
			if (pos[ji] > 0 && (best == NJ ||
			    runs_start_time(&J[ji], &J[ji].runs[pos[ji] - 1]) >
			    runs_start_time(&J[best], &J[best].runs[pos[best] - 1])))
				best = ji;
		if (best == NJ)
			break;
		pos[best]--;
		json_array_append_new(rs, summary(best, &J[best].runs[pos[best]]));
	}
	free(pos);
	json_object_set_new(o, "journals", js);
	json_object_set_new(o, "runs", rs);
	json_object_set_new(o, "total_runs", json_integer((json_int_t)total));
	json_object_set_new(o, "version", json_integer((json_int_t)runs_version()));
	return o;
nomem:
	json_decref(o);
	json_decref(js);
	json_decref(rs);
	return NULL;
}

/* The start's rules, those of planenc --preset sys folded into one line
 * naming it: {"preset":"sys","rules":N} then the others as recorded. */
static json_t *
rules_view(json_t *rules)
{
	const struct plan_preset_entry *sys;
	json_t *out = json_array(), *rule;
	size_t i, k, n, inpreset = 0;

	sys = plan_preset_sys(&n);
	if (out == NULL)
		return NULL;
	json_array_foreach(rules, i, rule) {
		const char *path = json_string_value(json_object_get(rule,
		    "path"));
		const char *in = json_string_value(json_object_get(rule,
		    "intent"));
		int hit = 0;

		for (k = 0; path != NULL && in != NULL && k < n; k++)
			if (strcmp(in, plan_intent_name(sys[k].intent)) == 0 &&
			    plan_path_within(path, sys[k].path)) {
				hit = 1;
				break;
			}
		if (hit)
			inpreset++;
		else
			json_array_append(out, rule);
	}
	if (inpreset > 0)
		json_array_insert_new(out, 0, json_pack("{s:s,s:I}",
		    "preset", "sys", "rules", (json_int_t)inpreset));
	return out;
}

/* o's key set to ev's of the same name, or null. */
static void
copy_key(json_t *o, json_t *ev, const char *key)
{
	json_t *v = json_object_get(ev, key);

	json_object_set(o, key, v ? v : json_null());
}

/* What one record of the run adds to its detail o: the start's layers,
 * rules and egress plan, the end's denials and residues, the lists of
 * egress, handoff and other events, the canary's probes. */
static void
detail_take(json_t *o, enum ev_kind kind, json_t *ev)
{
	switch (kind) {
	case EV_START:
		json_object_set_new(o, "layers", json_deep_copy(
		    json_object_get(ev, "layers")));
		json_object_set_new(o, "rules", rules_view(
		    json_object_get(ev, "rules")));
		json_object_set(o, "egress_plan", json_object_get(ev,
		    "egress") ? json_object_get(ev, "egress") : json_null());
		break;
	case EV_END:
		copy_key(o, ev, "denials");
		copy_key(o, ev, "residue");
		copy_key(o, ev, "tmp_residue");
		break;
	case EV_EGRESS:
		json_array_append(json_object_get(o, "egress"), ev);
		break;
	case EV_HANDOFF:
		json_array_append(json_object_get(o, "handoffs"), ev);
		break;
	case EV_CANARY:
		json_object_set(o, "canary_probes", ev);
		break;
	default:
		json_array_append(json_object_get(o, "other"), ev);
		break;
	}
}

/* The k-th record of run id: {"seq","hash","time","event"} appended to
 * recs, its event to the detail o.  0, or -1 (ENOMEM, or gone). */
static int
record_take(json_t *o, json_t *recs, const char *id, size_t k,
    const struct rec *rc)
{
	char *line, hex[SHA256_HEX_LEN + 1], t[32];
	uint8_t d[SHA256_LEN];
	const char *kind;
	uint64_t seq;
	json_t *ev;
	size_t ll;

	if (runs_record(id, k, &ev, &line, &ll, &seq) != 1)
		return -1;
	line[ll] = '\n';
	sha256_buf(line, ll + 1, d);
	sha256_hex(d, hex);
	free(line);
	kind = json_string_value(json_object_get(ev, "event"));
	snprintf(t, sizeof(t), "%" PRIu64, rc->time_ns);
	json_array_append_new(recs, json_pack("{s:I,s:s,s:s,s:s}", "seq",
	    (json_int_t)seq, "hash", hex, "time", t, "event",
	    kind ? kind : "?"));
	detail_take(o, (enum ev_kind)rc->kind, ev);
	json_decref(ev);
	return 0;
}

json_t *
runs_run_json(const char *id)
{
	json_t *o, *recs = json_array();
	struct run *r;
	size_t ji, k;

	if ((r = runs_find(id, &ji)) == NULL) {
		json_decref(recs);
		return errno = ENOENT, NULL;
	}
	o = summary(ji, r);
	if (o == NULL || recs == NULL ||
	    json_object_set_new(o, "egress", json_array()) == -1 ||
	    json_object_set_new(o, "handoffs", json_array()) == -1 ||
	    json_object_set_new(o, "other", json_array()) == -1)
		goto nomem;
	json_object_set_new(o, "chain", chain_json(ji));
	for (k = 0; k < r->n; k++)
		if (record_take(o, recs, id, k, &J[ji].recs[r->recs[k]]) == -1)
			goto nomem;
	json_object_set_new(o, "records", recs);
	return o;
nomem:
	json_decref(o);
	json_decref(recs);
	return errno = ENOMEM, NULL;
}
