/* SPDX-License-Identifier: ISC */
/* confexec: one builder per journal event type (start, end) and the
 * append.  No records are built without --journal (the callers check). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "confexec.h"
#include "err.h"
#include "journal.h"

static json_t *
u64_string(uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return json_string(buf);
}

static json_t *
layers_json(const struct run *r, enum verdict v)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < L_NLAYERS; i++)
		if (r->layers[i].wanted && r->layers[i].v == v)
			json_array_append_new(a,
			    json_string(r->layers[i].name));
	return a;
}

/* "start": the plan, the program, the credentials, the mode; "layers"
 * lists only what was applied, "degraded" and "refused" what was not. */
json_t *
ev_start(const struct run *r)
{
	json_t *o = json_object(), *w;
	size_t i;

	json_object_set_new(o, "event", json_string("start"));
	json_object_set_new(o, "plan", json_string(r->plan_hex));
	json_object_set_new(o, "program", json_string(r->p.program));
	json_object_set_new(o, "program_sha256",
	    r->prog_hex[0] ? json_string(r->prog_hex) : json_null());
	json_object_set_new(o, "uid", u64_string(r->final_uid));
	json_object_set_new(o, "gid", u64_string(r->final_gid));
	json_object_set_new(o, "mode", json_string(r->p.mode == PLAN_DEGRADE ?
		"degrade" : "strict"));
	json_object_set_new(o, "layers", layers_json(r, V_ENFORCE));
	json_object_set_new(o, "degraded", layers_json(r, V_DEGRADE));
	json_object_set_new(o, "refused", layers_json(r, V_REFUSE));
	w = json_array();
	for (i = 0; i < r->nwarnings; i++)
		json_array_append_new(w, json_string(r->warnings[i]));
	json_object_set_new(o, "warnings", w);
	json_object_set_new(o, "cgroup",
	    r->have_cg ? json_string(r->cg.path) : json_null());
	json_object_set_new(o, "time_ns", u64_string(now_ns(CLOCK_REALTIME)));
	return o;
}

/* What the supervisor answered for the payload's notified calls. */
static json_t *
notify_json(const struct notify_stats *st)
{
	json_t *o = json_object();

	json_object_set_new(o, "allowed", u64_string(st->allowed));
	json_object_set_new(o, "denied", u64_string(st->denied));
	json_object_set_new(o, "failed", u64_string(st->failed));
	return o;
}

/* "end", for every run that journaled a start: the same keys whether
 * the payload ran or not; "refused" only when the run ended before
 * execveat (the reason). */
json_t *
ev_end(const struct run *r, const struct outcome *o)
{
	json_t *ev = json_object();
	int exited = o->have_status && o->si.si_code == CLD_EXITED;

	json_object_set_new(ev, "event", json_string("end"));
	json_object_set_new(ev, "plan", json_string(r->plan_hex));
	json_object_set_new(ev, "exit", json_integer(o->code));
	json_object_set_new(ev, "status", o->have_status && exited ?
	    json_integer(o->si.si_status) : json_null());
	json_object_set_new(ev, "signal", o->have_status && !exited ?
	    json_integer(o->si.si_status) : json_null());
	json_object_set_new(ev, "timeout", json_boolean(r->timed_out));
	json_object_set_new(ev, "cancel",
	    r->cancel[0] ? json_string(r->cancel) : json_null());
	json_object_set_new(ev, "wall_ns", u64_string(o->wall_ns));
	json_object_set_new(ev, "cpu_usec", u64_string(o->cpu_usec));
	json_object_set_new(ev, "residue",
	    o->residue ? json_string(r->cg.path) : json_null());
	json_object_set_new(ev, "oom_kill",
	    o->have_oom ? json_integer((json_int_t)o->oom) : json_null());
	json_object_set_new(ev, "notify", notify_json(&r->notify));
	if (o->refused != NULL)
		json_object_set_new(ev, "refused", json_string(o->refused));
	json_object_set_new(ev, "time_ns", u64_string(now_ns(CLOCK_REALTIME)));
	return ev;
}

/* Append events (consumed) in one write.  Returns 0, or -1 with the
 * reason printed (one line). */
int
journal_events(const struct run *r, json_t **ev, size_t n)
{
	char *txt[2] = {NULL, NULL}, err[256];
	size_t i;
	int rc = -1;

	if (r->journal == NULL || n > 2) {
		for (i = 0; i < n; i++)
			json_decref(ev[i]);
		return r->journal == NULL ? 0 : -1;
	}
	for (i = 0; i < n; i++) {
		txt[i] = json_dumps(ev[i], JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(ev[i]);
	}
	for (i = 0; i < n; i++)
		if (txt[i] == NULL) {
			warning("journal %s: cannot encode a record",
			    r->journal);
			goto out;
		}
	if (journal_append(r->journal, (const char *const *)txt, n, err,
		sizeof(err)) == 0)
		rc = 0;
	else
		warning("journal %s: %s", r->journal, err);
out:
	free(txt[0]);
	free(txt[1]);
	return rc;
}
