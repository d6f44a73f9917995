/* SPDX-License-Identifier: ISC */
/* confexec: one builder per journal event type (start, end, reaped,
 * control_refused) and the append.  No records are built without
 * --journal or --control (the callers check, log_wanted); with --control
 * every record from the start record on is kept in the run's log. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "broker.h"
#include "confexec.h"
#include "control.h"
#include "err.h"
#include "esc.h"
#include "journal.h"

static json_t *
u64_string(uint64_t v)
{
	char buf[32];

	snprintf(buf, sizeof(buf), "%llu", (unsigned long long)v);
	return json_string(buf);
}

json_t *
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

/* A string that may not be UTF-8 (a path, an argument): itself, or
 * {"escaped": ...} in common/esc's lossless \xNN form. */
json_t *
str_or_escaped(const char *s)
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
		json_array_append_new(a, str_or_escaped(r->p.argv[i]));
	json_object_set_new(o, "argv", a);
	if (i < r->p.argc)
		json_object_set_new(o, "argv_omitted",
		    json_integer((json_int_t)(r->p.argc - i)));
	json_object_set_new(o, "cwd", r->cwd[0] ? str_or_escaped(r->cwd) :
	    json_null());
	for (i = 0; i < r->p.nfs; i++) {
		rp = r->real ? r->real[i] : NULL;
		if (!afford(&left, r->p.fs[i].path) || !afford(&left, rp))
			break;
		json_array_append_new(rules, json_pack("{s:s,s:o,s:o}",
		    "intent", plan_intent_name(r->p.fs[i].intent),
		    "path", str_or_escaped(r->p.fs[i].path),
		    "resolved", rp ? str_or_escaped(rp) : json_null()));
	}
	json_object_set_new(o, "rules", rules);
	if (i < r->p.nfs)
		json_object_set_new(o, "rules_omitted",
		    json_integer((json_int_t)(r->p.nfs - i)));
	json_object_set_new(o, "tmp", r->tmpdir[0] ?
	    json_string(r->tmpdir) : json_null());
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
	if (r->script_hex[0] != '\0')
		json_object_set_new(o, "script_sha256",
		    json_string(r->script_hex));
	start_payload(o, r);
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
	json_object_set_new(o, "egress", r->p.negress == 0 ? json_null() :
	    json_pack("{s:i,s:I}", "port", (int)r->egress_port,
	    "destinations", (json_int_t)r->p.negress));
	json_object_set_new(o, "time_ns", u64_string(now_ns(CLOCK_REALTIME)));
	return o;
}

/* The start record of a run refused before it started: no layer was
 * applied, so "layers" is empty ("degraded" and "refused" still give
 * the verdicts that refused it). */
json_t *
ev_start_refused(const struct run *r)
{
	json_t *o = ev_start(r);

	json_object_set_new(o, "layers", json_array());
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
	json_object_set_new(o, "observed", u64_string(st->observed));
	return o;
}

/* With --explain-denials: the (path, access) pairs the plan's rules
 * denied, each with the flag that would grant it and its count of calls,
 * at most DENIALS_LISTED, paths cut at DENIAL_SHOWN bytes ("cut": true);
 * "calls": every denied call seen, "unlisted": those on pairs past the
 * bound.  null without the option. */
static json_t *
denials_json(const struct run *r)
{
	json_t *o, *a, *e;
	const char *path, *access, *grant;
	char cut[DENIAL_SHOWN + 1];
	uint64_t calls, unlisted, count;
	size_t i, n;

	if (!r->explain)
		return json_null();
	n = denials_count(&calls, &unlisted);
	a = json_array();
	for (i = 0; i < n && denials_get(i, &path, &access, &grant,
	    &count) == 0; i++) {
		snprintf(cut, sizeof(cut), "%s", path);
		e = json_object();
		json_object_set_new(e, "path", str_or_escaped(cut));
		if (strlen(path) > DENIAL_SHOWN)
			json_object_set_new(e, "cut", json_true());
		json_object_set_new(e, "access", json_string(access));
		json_object_set_new(e, "grant", str_or_escaped(grant));
		json_object_set_new(e, "calls", u64_string(count));
		json_array_append_new(a, e);
	}
	o = json_object();
	json_object_set_new(o, "listed", a);
	json_object_set_new(o, "calls", u64_string(calls));
	json_object_set_new(o, "unlisted", u64_string(unlisted));
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
	json_object_set_new(ev, "signal_by", o->signal_by != NULL ?
	    json_string(o->signal_by) : json_null());
	json_object_set_new(ev, "timeout", json_boolean(r->timed_out));
	json_object_set_new(ev, "cancel",
	    r->cancel[0] ? json_string(r->cancel) : json_null());
	json_object_set_new(ev, "wall_ns", u64_string(o->wall_ns));
	json_object_set_new(ev, "cpu_usec", u64_string(o->cpu_usec));
	json_object_set_new(ev, "residue",
	    o->residue ? json_string(r->cg.path) : json_null());
	json_object_set_new(ev, "tmp_residue",
	    r->tmp_residue ? json_string(r->tmpdir) : json_null());
	json_object_set_new(ev, "oom_kill",
	    o->have_oom ? json_integer((json_int_t)o->oom) : json_null());
	json_object_set_new(ev, "notify", notify_json(&r->notify));
	json_object_set_new(ev, "denials", denials_json(r));
	json_object_set_new(ev, "egress", egress_json(r, 0));
	json_object_set_new(ev, "handoff", handoff_json(r, 0));
	if (o->refused != NULL)
		json_object_set_new(ev, "refused", json_string(o->refused));
	json_object_set_new(ev, "time_ns", u64_string(now_ns(CLOCK_REALTIME)));
	return ev;
}

/* Records built for this run: the journal's, or the control socket's
 * log. */
int
log_wanted(const struct run *r)
{
	return r->journal != NULL || r->control != NULL;
}

/* The records' bytes kept in the run's log (--control), and followers
 * told.  The log was sized for them (confexec.h, LOG_MAX; admitted in
 * journal_events). */
void
log_add(struct run *r, const char *buf, size_t len)
{
	struct runlog *l = &r->log;
	size_t cap;
	char *p;

	if (l->len + len > l->cap) {
		cap = l->cap ? l->cap : 16384;
		while (cap < l->len + len)
			cap *= 2;
		p = realloc(l->buf, cap);
		if (p == NULL) {
			warning("control: the run's log: out of memory; a "
				"record of the journal is not in it");
			r->jfailed = 1;
			return;
		}
		l->buf = p;
		l->cap = cap;
	}
	memcpy(l->buf + l->len, buf, len);
	l->len += len;
	control_log_grew(r);
}

_Static_assert(LOG_MAX >= JOURNAL_RECORD_MAX + EGRESS_EVENTS_LOGGED *
    LOG_EGRESS_RECORD_MAX + CTL_REFUSALS_LOGGED * LOG_REFUSED_RECORD_MAX +
    HANDOFF_EVENTS_LOGGED * LOG_HANDOFF_RECORD_MAX + LOG_END_RESERVE, "the run's log cannot hold every record");

/* Whether the run's log has room for a record of len bytes (envelopes
 * counted at their largest): every record but the end record leaves
 * LOG_END_RESERVE for it.  By the bounds LOG_MAX is sized from, a record
 * is never turned away; if one were, it is written neither to the
 * journal nor to the log, and said. */
static int
log_admits(struct run *r, size_t len, int end, const char *what)
{
	struct runlog *l = &r->log;

	if (!end && l->committed + len > LOG_MAX - LOG_END_RESERVE) {
		warning("control: the run's log is full (%u bytes): %s not "
			"written", LOG_MAX, what);
		r->jfailed = 1;
		return 0;
	}
	l->committed += len;
	return 1;
}

/* Append events (consumed) in one write: to the journal, and with
 * --control to the run's log (the exact bytes written, or without
 * --journal records built in memory).  With --journal the records are
 * queued for the journal's writer (src_journal.c), never written here:
 * a caller that must know they are written waits (jw_wait).  Returns 0,
 * or -1 with the reason printed (one line, naming what: "end record"). */
int
journal_events(struct run *r, json_t **ev, size_t n, const char *what)
{
	char *txt[2] = {NULL, NULL}, *canon[2] = {NULL, NULL}, err[256];
	char *out = NULL;
	int keep = r->control != NULL && r->log.on;
	size_t i, lens[2] = {0, 0}, outlen = 0, size = 0;
	const char *name;
	int rc = -1, end = 0;

	if ((r->journal == NULL && !keep) || n > 2) {
		for (i = 0; i < n; i++)
			json_decref(ev[i]);
		return n > 2 ? -1 : 0;
	}
	for (i = 0; i < n; i++) {
		name = json_string_value(json_object_get(ev[i], "event"));
		end |= name != NULL && strcmp(name, "end") == 0;
		txt[i] = json_dumps(ev[i], JSON_COMPACT | JSON_SORT_KEYS);
		json_decref(ev[i]);
	}
	for (i = 0; i < n; i++) {
		if (txt[i] == NULL || journal_event_canon(txt[i],
		    strlen(txt[i]), &canon[i], &lens[i], err,
		    sizeof(err)) == -1) {
			warning("journal: %s: cannot encode it", what);
			goto out;
		}
		size += lens[i] + JOURNAL_ENVELOPE_MAX;
	}
	if (keep && !log_admits(r, size, end, what))
		goto out;
	if (r->journal != NULL)
		rc = jw_submit(r, canon, lens, n, what, keep);
	else if (journal_build(&r->log.head, (const char *const *)txt, n,
	    &out, &outlen, err, sizeof(err)) == 0) {
		log_add(r, out, outlen);
		rc = 0;
	} else
		warning("control: the run's log: %s: %s", what, err);
out:
	free(out);
	for (i = 0; i < 2; i++) {
		free(txt[i]);
		free(canon[i]);
	}
	return rc;
}

/* "control_refused": a peer of the control socket closed unread (not
 * root nor the caller, or one of the run's own processes). */
json_t *
ev_control_refused(uid_t uid, pid_t pid, const char *why)
{
	json_t *o = json_object();

	json_object_set_new(o, "event", json_string("control_refused"));
	json_object_set_new(o, "uid", u64_string(uid));
	json_object_set_new(o, "pid", u64_string((uint64_t)pid));
	json_object_set_new(o, "reason", json_string(why));
	json_object_set_new(o, "time_ns", u64_string(now_ns(CLOCK_REALTIME)));
	return o;
}

/* "reaped": a stale run cgroup (its supervisor gone) that this confexec
 * found, emptied and removed (or could not). */
json_t *
ev_reaped(const struct cg_reaped *rp)
{
	json_t *o = json_object();

	json_object_set_new(o, "event", json_string("reaped"));
	json_object_set_new(o, "residue", json_string(rp->path));
	json_object_set_new(o, "populated", json_boolean(rp->populated));
	json_object_set_new(o, "removed", json_boolean(rp->removed));
	json_object_set_new(o, "time_ns", u64_string(now_ns(CLOCK_REALTIME)));
	return o;
}
