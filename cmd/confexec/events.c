/* SPDX-License-Identifier: ISC */
/* confexec: the builders of the run's own records (start, end, reaped);
 * the sources add their keys (loop_report) and their own events.  No
 * records are built without --journal or --control (the callers check,
 * record_wanted); record.c appends them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "clock.h"
#include "denials.h"
#include "err.h"
#include "esc.h"
#include "events.h"
#include "journal.h"
#include "plan.h"
#include "run.h"

json_t *
events_u64(uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return json_string(buf);
}

json_t *
events_layers(const struct run *r, enum verdict v)
{
	json_t *a = json_array();
	size_t i;

	for (i = 0; i < L_NLAYERS; i++)
		if (r->layers[i].wanted && r->layers[i].v == v)
			json_array_append_new(a,
			    json_string(r->layers[i].name));
	return a;
}

/* A string that may not be UTF-8 (a path, an argument): itself, or
 * {"escaped": ...} in common/esc's lossless \xNN form. */
json_t *
events_str(const char *s)
{
	json_t *j = json_string(s), *e;
	size_t n;
	char *buf;

	if (j != NULL)
		return j;
	n = ESC_SIZE(strlen(s));
	if ((buf = malloc(n)) == NULL)
		return json_null();
	esc_name(s, buf, n);
	e = json_pack("{s:s}", "escaped", buf);
	free(buf);
	return e;
}

/* What argv and rules may cost in the start record, counted as if every
 * byte were escaped (6 bytes each, plus 16 per entry): a plan's text part
 * is at most 1 MiB, a journal record too, so the largest plans are
 * listed in part, with the number left out. */
#define START_BUDGET (640u << 10)

static int
afford(size_t *left, const char *s)
{
	size_t c = s ? 6 * strlen(s) + 16 : 16;

	if (c > *left)
		return 0;
	*left -= c;
	return 1;
}

/* The payload's argv, its working directory, each rule with the path it
 * resolved to, the private tmp: three runs of /bin/sh told apart, and
 * what a followed symlink granted. */
static void
start_payload(json_t *o, const struct run *r)
{
	json_t *a = json_array(), *rules = json_array();
	size_t i, left = START_BUDGET;
	const char *rp;

	for (i = 0; i < r->p.argc && afford(&left, r->p.argv[i]); i++)
		json_array_append_new(a, events_str(r->p.argv[i]));
	json_object_set_new(o, "argv", a);
	if (i < r->p.argc)
		json_object_set_new(o, "argv_omitted",
		    json_integer((json_int_t)(r->p.argc - i)));
	json_object_set_new(o, "cwd", r->cwd[0] ? events_str(r->cwd) :
	    json_null());
	for (i = 0; i < r->p.nfs; i++) {
		rp = r->real ? r->real[i] : NULL;
		if (!afford(&left, r->p.fs[i].path) || !afford(&left, rp))
			break;
		json_array_append_new(rules, json_pack("{s:s,s:o,s:o}",
		    "intent", plan_intent_name(r->p.fs[i].intent),
		    "path", events_str(r->p.fs[i].path),
		    "resolved", rp ? events_str(rp) : json_null()));
	}
	json_object_set_new(o, "rules", rules);
	if (i < r->p.nfs)
		json_object_set_new(o, "rules_omitted",
		    json_integer((json_int_t)(r->p.nfs - i)));
	/* The preset that made some of the rules, and how the view
	 * withholds the host's secrets beneath /etc (mountview.h). */
	json_object_set_new(o, "preset", r->p.preset == PLAN_PRESET_SYS ?
	    json_string("sys") : json_null());
	json_object_set_new(o, "etc_secrets", r->mv.etc_how != NULL ?
	    json_pack("{s:s,s:I}", "how", r->mv.etc_how, "covered",
	    (json_int_t)r->mv.ncover) : json_null());
	json_object_set_new(o, "tmp", r->tmpdir[0] ?
	    json_string(r->tmpdir) : json_null());
}

/* "start": the plan, the program, the credentials, the mode; "layers"
 * lists only what was applied, "degraded" and "refused" what was not. */
json_t *
events_start(const struct run *r)
{
	json_t *o = json_object(), *w;
	size_t i;

	json_object_set_new(o, "event", json_string("start"));
	json_object_set_new(o, "plan", json_string(r->plan_hex));
	json_object_set_new(o, "program", json_string(r->p.program));
	json_object_set_new(o, "program_sha256",
	    r->prog_hex[0] ? json_string(r->prog_hex) : json_null());
	if (r->script_hex[0] != '\0')
		json_object_set_new(o, "script_sha256",
		    json_string(r->script_hex));
	json_object_set_new(o, "registry", r->ev_registry != NULL ?
	    json_incref(r->ev_registry) : json_null());
	start_payload(o, r);
	json_object_set_new(o, "uid", events_u64(r->final_uid));
	json_object_set_new(o, "gid", events_u64(r->final_gid));
	json_object_set_new(o, "mode", json_string(r->p.mode == PLAN_DEGRADE ?
		"degrade" : "strict"));
	json_object_set_new(o, "layers", events_layers(r, V_ENFORCE));
	json_object_set_new(o, "degraded", events_layers(r, V_DEGRADE));
	json_object_set_new(o, "refused", events_layers(r, V_REFUSE));
	w = json_array();
	for (i = 0; i < r->nwarnings; i++)
		json_array_append_new(w, json_string(r->warnings[i]));
	json_object_set_new(o, "warnings", w);
	json_object_set_new(o, "privileged", r->ev_privileged != NULL ?
	    json_incref(r->ev_privileged) : json_null());
	json_object_set_new(o, "cgroup",
	    r->have_cg ? json_string(r->cg.path) : json_null());
	json_object_set_new(o, "time_ns", events_u64(now_ns(CLOCK_REALTIME)));
	return o;
}

/* The start record of a run refused before it started: no layer was
 * applied, so "layers" is empty ("degraded" and "refused" still give
 * the verdicts that refused it). */
json_t *
events_start_refused(const struct run *r)
{
	json_t *o = events_start(r);

	json_object_set_new(o, "layers", json_array());
	return o;
}

/* With an observer: the (path, access) pairs the plan's rules denied,
 * each with the flag that would grant it and its count of calls, at
 * most DENIALS_LISTED, paths cut at DENIAL_SHOWN bytes ("cut": true);
 * "calls": every denied call seen, "unlisted": those on pairs past the
 * bound; "seen": "writes" (the default observer: writes and execs) or
 * "all" (--explain-denials); "ignored": the payload exited 0, going on
 * without them.  null without an observer. */
static json_t *
denials_json(const struct run *r, const struct outcome *oc)
{
	json_t *o, *a, *e;
	const char *path, *access, *grant;
	char cut[DENIAL_SHOWN + 1];
	uint64_t calls, unlisted, count;
	size_t i, n;

	if (!r->observing)
		return json_null();
	n = denials_count(&calls, &unlisted);
	a = json_array();
	for (i = 0; i < n && denials_get(i, &path, &access, &grant,
	    &count) == 0; i++) {
		snprintf(cut, sizeof(cut), "%s", path);
		e = json_object();
		json_object_set_new(e, "path", events_str(cut));
		if (strlen(path) > DENIAL_SHOWN)
			json_object_set_new(e, "cut", json_true());
		json_object_set_new(e, "access", json_string(access));
		json_object_set_new(e, "grant", events_str(grant));
		json_object_set_new(e, "calls", events_u64(count));
		json_array_append_new(a, e);
	}
	o = json_object();
	json_object_set_new(o, "listed", a);
	json_object_set_new(o, "calls", events_u64(calls));
	json_object_set_new(o, "unlisted", events_u64(unlisted));
	json_object_set_new(o, "seen", json_string(r->observing ==
	    OBSERVE_ALL ? "all" : "writes"));
	json_object_set_new(o, "ignored", json_boolean(denials_ignored(oc)));
	return o;
}
/* Escaped, a byte of a path or a grant costs at most 6 in the record
 * ("\\xNN" or "\u00NN"): the list fits the end record's reserve, with
 * 8 KiB left for the rest of the record. */
_Static_assert(DENIALS_LISTED * (6 * (2 * DENIAL_SHOWN + 64) + 128) <
    LOG_END_RESERVE - 8192, "the denials fit the end record");

/* "end", for every run that journaled a start: the same keys whether
 * the payload ran or not; "refused" only when the run ended before
 * execveat (the reason). */
json_t *
events_end(const struct run *r, const struct outcome *o)
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
	json_object_set_new(ev, "signal_by", o->signal_by != NULL ?
	    json_string(o->signal_by) : json_null());
	json_object_set_new(ev, "timeout", json_boolean(r->timed_out));
	json_object_set_new(ev, "cancel",
	    r->cancel[0] ? json_string(r->cancel) : json_null());
	json_object_set_new(ev, "wall_ns", events_u64(o->wall_ns));
	json_object_set_new(ev, "cpu_usec", events_u64(o->cpu_usec));
	json_object_set_new(ev, "residue",
	    o->residue ? json_string(r->cg.path) : json_null());
	json_object_set_new(ev, "tmp_residue",
	    r->tmp_residue ? json_string(r->tmpdir) : json_null());
	json_object_set_new(ev, "oom_kill",
	    o->have_oom ? json_integer((json_int_t)o->oom) : json_null());
	json_object_set_new(ev, "denials", denials_json(r, o));
	if (o->refused != NULL)
		json_object_set_new(ev, "refused", json_string(o->refused));
	json_object_set_new(ev, "time_ns", events_u64(now_ns(CLOCK_REALTIME)));
	return ev;
}

/* "reaped": a stale run cgroup (its supervisor gone) that this confexec
 * found, emptied and removed (or could not). */
json_t *
events_reaped(const struct cg_reaped *rp)
{
	json_t *o = json_object();

	json_object_set_new(o, "event", json_string("reaped"));
	json_object_set_new(o, "residue", json_string(rp->path));
	json_object_set_new(o, "populated", json_boolean(rp->populated));
	json_object_set_new(o, "removed", json_boolean(rp->removed));
	json_object_set_new(o, "time_ns", events_u64(now_ns(CLOCK_REALTIME)));
	return o;
}
