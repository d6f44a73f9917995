/* SPDX-License-Identifier: ISC */
/* runs: the journals served, their runs and JSON views (runs.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "journal.h"
#include "plan.h"
#include "runs.h"

/* Journals served at most (journalchain(1), SERVE). */
#define JOURNALS_MAX 16

enum kind { K_OTHER, K_START, K_END, K_EGRESS, K_HANDOFF, K_CANARY };

struct rec {
	uint64_t off;
	uint32_t len;		/* newline excluded */
	uint64_t seq;
	uint64_t time_ns;
	int32_t run;		/* index in the journal's runs, or -1 */
	uint8_t kind;
};

struct run {
	uint64_t seq;		/* its start record's */
	char plan[SHA256_HEX_LEN + 1];
	size_t *recs;		/* indexes in the journal's records */
	size_t n, cap;
	int ended;
	json_t *start;		/* the start event's summary */
	json_t *end;		/* the end event (without its big lists) */
	uint64_t egress, handoffs;
	json_t *canary;		/* counts */
};

struct journal {
	char *path;
	int fd;
	struct stat st;		/* when last looked at */
	int seen;
	int busy;		/* an appender held the lock: look again */
	int err;		/* errno of the last failed read, or 0 */
	struct journal_verdict v;
	struct rec *recs;
	size_t n, cap;
	uint64_t parsed_end;	/* offset past the last record read */
	uint8_t last[SHA256_LEN];	/* its hash */
	struct run *runs;
	size_t nruns, capruns;
	uint64_t orphans;	/* records of no run */
};

static struct journal J[JOURNALS_MAX];
static size_t NJ;
static uint64_t version = 1;

int
runs_add(const char *path)
{
	struct journal *j;
	int fd;

	if (NJ == JOURNALS_MAX)
		return errno = E2BIG, -1;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		return -1;
	j = &J[NJ++];
	memset(j, 0, sizeof(*j));
	j->path = strdup(path);
	j->fd = fd;
	if (j->path == NULL)
		return errno = ENOMEM, -1;
	return 0;
}

uint64_t
runs_version(void)
{
	return version;
}

static void
forget(struct journal *j)
{
	size_t i;

	for (i = 0; i < j->nruns; i++) {
		free(j->runs[i].recs);
		json_decref(j->runs[i].start);
		json_decref(j->runs[i].end);
		json_decref(j->runs[i].canary);
	}
	free(j->runs);
	free(j->recs);
	j->runs = NULL;
	j->recs = NULL;
	j->n = j->cap = j->nruns = j->capruns = 0;
	j->parsed_end = 0;
	j->orphans = 0;
	memset(j->last, 0, sizeof(j->last));
}

static int
read_at(int fd, char *buf, size_t len, uint64_t off)
{
	size_t got = 0;
	ssize_t r;

	while (got < len) {
		r = pread(fd, buf + got, len - got, (off_t)(off + got));
		if (r == -1 && errno == EINTR)
			continue;
		if (r <= 0)
			return r == 0 ? (errno = EIO, -1) : -1;
		got += (size_t)r;
	}
	return 0;
}

static json_t *
parse_event(const char *text, size_t len)
{
	json_error_t e;

	return json_loadb(text, len, JSON_REJECT_DUPLICATES, &e);
}

static enum kind
kind_of(json_t *ev)
{
	const char *k = json_string_value(json_object_get(ev, "event"));

	if (k == NULL)
		return K_OTHER;
	if (strcmp(k, "start") == 0)
		return K_START;
	if (strcmp(k, "end") == 0)
		return K_END;
	if (strcmp(k, "egress") == 0)
		return K_EGRESS;
	if (strcmp(k, "handoff") == 0)
		return K_HANDOFF;
	if (strcmp(k, "canary") == 0)
		return K_CANARY;
	return K_OTHER;
}

/* The plan a non-start event names (canary: plan_sha256). */
static const char *
plan_of(json_t *ev)
{
	const char *p = json_string_value(json_object_get(ev, "plan"));

	if (p == NULL)
		p = json_string_value(json_object_get(ev, "plan_sha256"));
	return p;
}

static int
run_push(struct run *r, size_t rec)
{
	if (r->n == r->cap) {
		size_t c = r->cap ? 2 * r->cap : 4;
		size_t *p = realloc(r->recs, c * sizeof(*p));

		if (p == NULL)
			return -1;
		r->recs = p;
		r->cap = c;
	}
	r->recs[r->n++] = rec;
	return 0;
}

/* The start event's summary: what the list shows. */
static json_t *
start_summary(json_t *ev)
{
	json_t *s = json_object(), *argv = json_object_get(ev, "argv");
	static const char *keys[] = { "program", "mode", "degraded",
		"refused", "uid", "gid", "time_ns", "program_sha256", "cwd",
		"argv_omitted", "warnings" };
	size_t i;

	if (s == NULL)
		return NULL;
	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		json_t *v = json_object_get(ev, keys[i]);

		if (v != NULL)
			json_object_set(s, keys[i], v);
	}
	if (json_is_array(argv))
		json_object_set(s, "argv", argv);
	json_object_set_new(s, "layers", json_integer((json_int_t)
	    json_array_size(json_object_get(ev, "layers"))));
	json_object_set_new(s, "rules", json_integer((json_int_t)
	    json_array_size(json_object_get(ev, "rules"))));
	return s;
}

/* One verified record read: joined to its run. */
static int
take_record(struct journal *j, struct rec *rc, json_t *ev)
{
	struct run *r = NULL;
	const char *plan;
	size_t i, idx = j->n;

	rc->kind = (uint8_t)kind_of(ev);
	rc->run = -1;
	if (rc->kind == K_START) {
		if (j->nruns == j->capruns) {
			size_t c = j->capruns ? 2 * j->capruns : 16;
			struct run *p = realloc(j->runs, c * sizeof(*p));

			if (p == NULL)
				return -1;
			j->runs = p;
			j->capruns = c;
		}
		r = &j->runs[j->nruns];
		memset(r, 0, sizeof(*r));
		r->seq = rc->seq;
		plan = json_string_value(json_object_get(ev, "plan"));
		snprintf(r->plan, sizeof(r->plan), "%s", plan ? plan : "");
		r->start = start_summary(ev);
		rc->run = (int32_t)j->nruns++;
	} else if ((plan = plan_of(ev)) != NULL) {
		/* The oldest run of this plan still open. */
		for (i = 0; i < j->nruns; i++)
			if (!j->runs[i].ended &&
			    strcmp(j->runs[i].plan, plan) == 0)
				break;
		if (i < j->nruns) {
			r = &j->runs[i];
			rc->run = (int32_t)i;
		}
	}
	if (r == NULL)
		j->orphans++;
	else {
		if (run_push(r, idx) == -1)
			return -1;
		switch (rc->kind) {
		case K_END:
			r->ended = 1;
			r->end = json_deep_copy(ev);
			if (r->end != NULL)
				json_object_del(r->end, "denials");
			json_object_set(r->end, "denials_count", json_object_get(
			    json_object_get(ev, "denials"), "calls"));
			break;
		case K_EGRESS:
			r->egress++;
			break;
		case K_HANDOFF:
			r->handoffs++;
			break;
		case K_CANARY:
			json_decref(r->canary);
			r->canary = json_pack("{s:O?,s:O?,s:O?,s:O?}",
			    "matched", json_object_get(ev, "matched"),
			    "mismatched", json_object_get(ev, "mismatched"),
			    "not_run", json_object_get(ev, "not_run"),
			    "unanswered", json_object_get(ev, "unanswered"));
			break;
		default:
			break;
		}
	}
	if (j->n == j->cap) {
		size_t c = j->cap ? 2 * j->cap : 64;
		struct rec *p = realloc(j->recs, c * sizeof(*p));

		if (p == NULL)
			return -1;
		j->recs = p;
		j->cap = c;
	}
	j->recs[j->n++] = *rc;
	return 0;
}

/* Read the verified records past parsed_end, in chunks, checking each
 * line's link to the one before as read now.  Returns 0, or -1 when the
 * bytes differ from what was verified (look again) or on ENOMEM. */
static int
read_new(struct journal *j)
{
	char *buf = NULL, hex[SHA256_HEX_LEN + 1];
	size_t cap = 0, len, off;
	uint64_t at = j->parsed_end, end = j->v.good_end;
	struct journal_record jr;
	struct rec rc;
	json_t *ev;
	int rv = -1;

	while (at < end) {
		len = end - at;
		if (len > (4u << 20))
			len = 4u << 20;
		if (len < JOURNAL_RECORD_MAX && end - at > len)
			len = JOURNAL_RECORD_MAX;
		if (len > end - at)
			len = end - at;
		if (len > cap) {
			char *p = realloc(buf, len);

			if (p == NULL)
				goto out;
			buf = p;
			cap = len;
		}
		if (read_at(j->fd, buf, len, at) == -1)
			goto out;
		for (off = 0; off < len;) {
			char *nl = memchr(buf + off, '\n', len - off);
			size_t n;

			if (nl == NULL)
				break;
			n = (size_t)(nl - (buf + off));
			sha256_hex(j->last, hex);
			if (journal_record_parse(buf + off, n, &jr, NULL) == -1 ||
			    memcmp(jr.prev_hex, hex, SHA256_HEX_LEN) != 0 ||
			    jr.seq != j->n + 1)
				goto out;
			ev = parse_event(jr.event, jr.event_len);
			if (ev == NULL)
				goto out;
			rc.off = at + off;
			rc.len = (uint32_t)n;
			rc.seq = jr.seq;
			rc.time_ns = jr.time_ns;
			if (take_record(j, &rc, ev) == -1) {
				json_decref(ev);
				goto out;
			}
			json_decref(ev);
			sha256_buf(buf + off, n + 1, j->last);
			off += n + 1;
		}
		if (off == 0)
			goto out;
		at += off;
		j->parsed_end = at;
	}
	rv = 0;
out:
	free(buf);
	return rv;
}

/* Whether the record that ends at parsed_end is still the one read. */
static int
still_there(struct journal *j)
{
	struct rec *r;
	char *buf;
	uint8_t d[SHA256_LEN];
	int same;

	if (j->n == 0)
		return 1;
	r = &j->recs[j->n - 1];
	if (j->v.good_end < r->off + r->len + 1)
		return 0;
	buf = malloc(r->len + 1);
	if (buf == NULL || read_at(j->fd, buf, r->len + 1, r->off) == -1) {
		free(buf);
		return 0;
	}
	sha256_buf(buf, r->len + 1, d);
	free(buf);
	same = memcmp(d, j->last, sizeof(d)) == 0;
	return same;
}

/* Look at one journal; 1 when what it shows changed. */
static int
refresh_one(struct journal *j)
{
	struct journal_verdict v;
	struct stat st;
	int fd;

	/* Replaced (another inode at the path): read the new file. */
	if (stat(j->path, &st) == 0 && (st.st_ino != j->st.st_ino ||
	    st.st_dev != j->st.st_dev) && j->seen &&
	    (fd = open(j->path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) != -1) {
		close(j->fd);
		j->fd = fd;
		forget(j);
	}
	if (fstat(j->fd, &st) == -1) {
		j->err = errno;
		return 0;
	}
	if (j->seen && !j->busy && st.st_size == j->st.st_size &&
	    st.st_mtim.tv_sec == j->st.st_mtim.tv_sec &&
	    st.st_mtim.tv_nsec == j->st.st_mtim.tv_nsec &&
	    st.st_ino == j->st.st_ino && st.st_ctim.tv_sec ==
	    j->st.st_ctim.tv_sec && st.st_ctim.tv_nsec == j->st.st_ctim.tv_nsec)
		return 0;
	/* An appender holds the lock while it writes: never wait for it on
	 * the loop; look again on the next tick. */
	if (flock(j->fd, LOCK_SH | LOCK_NB) == -1) {
		j->busy = 1;
		return 0;
	}
	j->busy = 0;
	if (journal_verify_fd(j->fd, 0, NULL, &v) == -1) {
		flock(j->fd, LOCK_UN);
		j->err = errno;
		j->seen = 1;
		j->st = st;
		version++;
		return 1;
	}
	j->err = 0;
	j->st = st;
	j->seen = 1;
	j->v = v;
	if (!still_there(j))
		forget(j);
	if (read_new(j) == -1) {
		/* Changed between the verification and the read: drop what
		 * was read and look again next tick. */
		forget(j);
		j->busy = 1;
	}
	version++;
	return 1;
}

int
runs_refresh(void)
{
	size_t i;
	int changed = 0;

	for (i = 0; i < NJ; i++)
		changed |= refresh_one(&J[i]);
	return changed;
}

/* ---- ids ---- */

static void
run_id(size_t ji, const struct run *r, char *buf, size_t len)
{
	if (NJ == 1)
		snprintf(buf, len, "%" PRIu64, r->seq);
	else
		snprintf(buf, len, "%zu:%" PRIu64, ji + 1, r->seq);
}

/* "SEQ" (the first journal) or "N:SEQ". */
static struct run *
find(const char *id, size_t *jout)
{
	unsigned long long jn = 1, seq;
	const char *c = strchr(id, ':');
	char *end;
	struct journal *j;
	size_t i;

	if (c != NULL) {
		if (id[0] < '1' || id[0] > '9')
			return NULL;
		errno = 0;
		jn = strtoull(id, &end, 10);
		if (errno || end != c || jn == 0 || jn > NJ)
			return NULL;
		id = c + 1;
	}
	if (id[0] < '1' || id[0] > '9')
		return NULL;
	errno = 0;
	seq = strtoull(id, &end, 10);
	if (errno || *end != '\0')
		return NULL;
	if (jn > NJ)
		return NULL;
	j = &J[jn - 1];
	for (i = 0; i < j->nruns; i++)
		if (j->runs[i].seq == seq) {
			*jout = (size_t)(jn - 1);
			return &j->runs[i];
		}
	return NULL;
}

static uint64_t
start_time(const struct journal *j, const struct run *r)
{
	return j->recs[r->recs[0]].time_ns;
}

int
runs_resolve(const char *id, char *buf, size_t len)
{
	struct run *r, *best = NULL;
	size_t ji, bj = 0, i;

	if (strcmp(id, "last") == 0) {
		for (ji = 0; ji < NJ; ji++)
			for (i = 0; i < J[ji].nruns; i++) {
				r = &J[ji].runs[i];
				if (best == NULL || start_time(&J[ji], r) >=
				    start_time(&J[bj], best)) {
					best = r;
					bj = ji;
				}
			}
		if (best == NULL)
			return errno = ENOENT, -1;
		run_id(bj, best, buf, len);
		return 0;
	}
	if ((r = find(id, &ji)) == NULL)
		return errno = ENOENT, -1;
	run_id(ji, r, buf, len);
	return 0;
}

int
runs_first_after(uint64_t t, char *buf, size_t len)
{
	struct run *r, *best = NULL;
	size_t ji, bj = 0, i;

	for (ji = 0; ji < NJ; ji++)
		for (i = 0; i < J[ji].nruns; i++) {
			r = &J[ji].runs[i];
			if (start_time(&J[ji], r) <= t)
				continue;
			if (best == NULL || start_time(&J[ji], r) <
			    start_time(&J[bj], best)) {
				best = r;
				bj = ji;
			}
		}
	if (best == NULL)
		return errno = ENOENT, -1;
	run_id(bj, best, buf, len);
	return 0;
}

int
runs_record(const char *id, size_t k, json_t **event, char **line,
    size_t *linelen, uint64_t *seq)
{
	struct journal_record jr;
	struct run *r;
	struct rec *rc;
	size_t ji;
	char *buf;

	if ((r = find(id, &ji)) == NULL)
		return errno = ENOENT, -1;
	if (k >= r->n)
		return 0;
	rc = &J[ji].recs[r->recs[k]];
	buf = malloc(rc->len + 1);
	if (buf == NULL)
		return -1;
	if (read_at(J[ji].fd, buf, rc->len, rc->off) == -1 ||
	    journal_record_parse(buf, rc->len, &jr, NULL) == -1 ||
	    jr.seq != rc->seq) {
		free(buf);
		return errno = ENOENT, -1;
	}
	*event = parse_event(jr.event, jr.event_len);
	if (*event == NULL) {
		free(buf);
		return errno = ENOENT, -1;
	}
	buf[rc->len] = '\0';
	*line = buf;
	*linelen = rc->len;
	*seq = rc->seq;
	return 1;
}

int
runs_ended(const char *id)
{
	struct run *r;
	size_t ji;

	if ((r = find(id, &ji)) == NULL)
		return errno = ENOENT, -1;
	return r->ended;
}

/* ---- views ---- */

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

	if (find(id, &ji) == NULL)
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

	run_id(ji, r, id, sizeof(id));
	o = json_pack("{s:s,s:i,s:I,s:s,s:s,s:b,s:I,s:I}", "id", id,
	    "journal", (int)ji + 1, "seq", (json_int_t)r->seq, "plan", r->plan,
	    "state", state_of(r), "ended", r->ended, "egress_events",
	    (json_int_t)r->egress, "handoff_events", (json_int_t)r->handoffs);
	if (o == NULL)
		return NULL;
	{
		char t[32];

		snprintf(t, sizeof(t), "%" PRIu64, start_time(j, r));
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
			    start_time(&J[ji], &J[ji].runs[pos[ji] - 1]) >
			    start_time(&J[best], &J[best].runs[pos[best] - 1])))
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
	json_object_set_new(o, "version", json_integer((json_int_t)version));
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

json_t *
runs_run_json(const char *id)
{
	json_t *o, *recs, *egress, *handoffs, *ev = NULL, *other;
	struct run *r;
	size_t ji, k;
	char *line = NULL, hex[SHA256_HEX_LEN + 1];
	size_t ll;
	uint64_t seq;
	uint8_t d[SHA256_LEN];

	if ((r = find(id, &ji)) == NULL)
		return errno = ENOENT, NULL;
	o = summary(ji, r);
	recs = json_array();
	egress = json_array();
	handoffs = json_array();
	other = json_array();
	if (o == NULL || recs == NULL || egress == NULL || handoffs == NULL ||
	    other == NULL)
		goto nomem;
	json_object_set_new(o, "chain", chain_json(ji));
	for (k = 0; k < r->n; k++) {
		struct rec *rc = &J[ji].recs[r->recs[k]];
		const char *kind;
		char t[32];

		if (runs_record(id, k, &ev, &line, &ll, &seq) != 1)
			goto nomem;
		line[ll] = '\n';
		sha256_buf(line, ll + 1, d);
		sha256_hex(d, hex);
		kind = json_string_value(json_object_get(ev, "event"));
		snprintf(t, sizeof(t), "%" PRIu64, rc->time_ns);
		json_array_append_new(recs, json_pack("{s:I,s:s,s:s,s:s}",
		    "seq", (json_int_t)seq, "hash", hex, "time", t, "event",
		    kind ? kind : "?"));
		switch (rc->kind) {
		case K_START:
			json_object_set_new(o, "layers", json_deep_copy(
			    json_object_get(ev, "layers")));
			json_object_set_new(o, "rules", rules_view(
			    json_object_get(ev, "rules")));
			json_object_set(o, "egress_plan", json_object_get(ev,
			    "egress") ? json_object_get(ev, "egress") :
			    json_null());
			break;
		case K_END:
			json_object_set(o, "denials", json_object_get(ev,
			    "denials") ? json_object_get(ev, "denials") :
			    json_null());
			json_object_set(o, "residue", json_object_get(ev,
			    "residue") ? json_object_get(ev, "residue") :
			    json_null());
			json_object_set(o, "tmp_residue", json_object_get(ev,
			    "tmp_residue") ? json_object_get(ev, "tmp_residue") :
			    json_null());
			break;
		case K_EGRESS:
			json_array_append(egress, ev);
			break;
		case K_HANDOFF:
			json_array_append(handoffs, ev);
			break;
		case K_CANARY:
			json_object_set(o, "canary_probes", ev);
			break;
		default:
			json_array_append(other, ev);
			break;
		}
		json_decref(ev);
		free(line);
		ev = NULL;
		line = NULL;
	}
	json_object_set_new(o, "records", recs);
	json_object_set_new(o, "egress", egress);
	json_object_set_new(o, "handoffs", handoffs);
	json_object_set_new(o, "other", other);
	return o;
nomem:
	json_decref(ev);
	free(line);
	json_decref(o);
	json_decref(recs);
	json_decref(egress);
	json_decref(handoffs);
	json_decref(other);
	return errno = ENOMEM, NULL;
}
