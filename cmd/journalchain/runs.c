/* SPDX-License-Identifier: ISC */
/* runs: the journals served and their runs, read and kept up to date;
 * runs looked up by id (runs.h, runs_int.h). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "events.h"
#include "hash.h"
#include "io.h"
#include "journal.h"
#include "runs.h"
#include "runs_int.h"

#define J runs_J
#define NJ runs_NJ

struct journal runs_J[JOURNALS_MAX];
size_t runs_NJ;
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

/* A start record opens a run: the run, or NULL (ENOMEM). */
static struct run *
run_open(struct journal *j, struct rec *rc, json_t *ev)
{
	const char *plan = json_string_value(json_object_get(ev, "plan"));
	struct run *r;

	if (j->nruns == j->capruns) {
		size_t c = j->capruns ? 2 * j->capruns : 16;
		struct run *p = realloc(j->runs, c * sizeof(*p));

		if (p == NULL)
			return NULL;
		j->runs = p;
		j->capruns = c;
	}
	r = &j->runs[j->nruns];
	memset(r, 0, sizeof(*r));
	r->seq = rc->seq;
	snprintf(r->plan, sizeof(r->plan), "%s", plan ? plan : "");
	r->start = start_summary(ev);
	rc->run = (int32_t)j->nruns++;
	return r;
}

/* The oldest run of plan still open (events.h), or NULL. */
static struct run *
run_of(struct journal *j, struct rec *rc, const char *plan)
{
	size_t i;

	for (i = 0; plan != NULL && i < j->nruns; i++)
		if (!j->runs[i].ended && strcmp(j->runs[i].plan, plan) == 0) {
			rc->run = (int32_t)i;
			return &j->runs[i];
		}
	return NULL;
}

/* What the run keeps of a record of its: the end, counts, the canary's. */
static void
run_take(struct run *r, enum ev_kind kind, json_t *ev)
{
	switch (kind) {
	case EV_END:
		r->ended = 1;
		r->end = json_deep_copy(ev);
		if (r->end != NULL)
			json_object_del(r->end, "denials");
		json_object_set(r->end, "denials_count", json_object_get(
		    json_object_get(ev, "denials"), "calls"));
		break;
	case EV_EGRESS:
		r->egress++;
		break;
	case EV_HANDOFF:
		r->handoffs++;
		break;
	case EV_CANARY:
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

/* One verified record read: joined to its run. */
static int
take_record(struct journal *j, struct rec *rc, json_t *ev)
{
	struct run *r;

	rc->kind = (uint8_t)ev_kind(ev);
	rc->run = -1;
	if (rc->kind == EV_START) {
		if ((r = run_open(j, rc, ev)) == NULL)
			return -1;
	} else
		r = run_of(j, rc, ev_plan(ev));
	if (r == NULL)
		j->orphans++;
	else {
		if (run_push(r, j->n) == -1)
			return -1;
		run_take(r, rc->kind, ev);
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

/* Take the whole lines of buf[0..len), read at offset at, each linked
 * to the one before: the bytes taken, or -1 when one differs from what
 * was verified or on ENOMEM. */
static ssize_t
take_lines(struct journal *j, const char *buf, size_t len, uint64_t at)
{
	char hex[SHA256_HEX_LEN + 1];
	struct journal_record jr;
	struct rec rc;
	size_t off, n;
	const char *nl;
	json_t *ev;
	int r;

	for (off = 0; off < len; off += n + 1) {
		if ((nl = memchr(buf + off, '\n', len - off)) == NULL)
			break;
		n = (size_t)(nl - (buf + off));
		sha256_hex(j->last, hex);
		if (journal_record_parse(buf + off, n, &jr, NULL) == -1 ||
		    memcmp(jr.prev_hex, hex, SHA256_HEX_LEN) != 0 ||
		    jr.seq != j->n + 1 ||
		    (ev = ev_parse(jr.event, jr.event_len)) == NULL)
			return -1;
		rc.off = at + off;
		rc.len = (uint32_t)n;
		rc.seq = jr.seq;
		rc.time_ns = jr.time_ns;
		r = take_record(j, &rc, ev);
		json_decref(ev);
		if (r == -1)
			return -1;
		sha256_buf(buf + off, n + 1, j->last);
	}
	return (ssize_t)off;
}

/* Read the verified records past parsed_end, in chunks of 4 MiB (one
 * record at least).  Returns 0, or -1 when the bytes differ from what was
 * verified (look again) or on ENOMEM. */
static int
read_new(struct journal *j)
{
	char *buf = NULL;
	size_t cap = 0, len;
	uint64_t at = j->parsed_end, end = j->v.good_end;
	ssize_t took;

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
				break;
			buf = p;
			cap = len;
		}
		if (pread_all(j->fd, buf, len, at) == -1 ||
		    (took = take_lines(j, buf, len, at)) <= 0)
			break;
		at += (size_t)took;
		j->parsed_end = at;
	}
	free(buf);
	return at < end ? -1 : 0;
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
	if (buf == NULL || pread_all(j->fd, buf, r->len + 1, r->off) == -1) {
		free(buf);
		return 0;
	}
	sha256_buf(buf, r->len + 1, d);
	free(buf);
	same = memcmp(d, j->last, sizeof(d)) == 0;
	return same;
}

/* Replaced (another inode at the path): read the new file. */
static void
reopen_if_replaced(struct journal *j)
{
	struct stat st;
	int fd;

	if (stat(j->path, &st) == 0 && (st.st_ino != j->st.st_ino ||
	    st.st_dev != j->st.st_dev) && j->seen &&
	    (fd = open(j->path, O_RDONLY | O_CLOEXEC | O_NOCTTY)) != -1) {
		close(j->fd);
		j->fd = fd;
		forget(j);
	}
}

/* Whether st is what the journal was when last looked at. */
static int
unchanged(const struct journal *j, const struct stat *st)
{
	return j->seen && !j->busy && st->st_size == j->st.st_size &&
	    st->st_mtim.tv_sec == j->st.st_mtim.tv_sec &&
	    st->st_mtim.tv_nsec == j->st.st_mtim.tv_nsec &&
	    st->st_ino == j->st.st_ino &&
	    st->st_ctim.tv_sec == j->st.st_ctim.tv_sec &&
	    st->st_ctim.tv_nsec == j->st.st_ctim.tv_nsec;
}

/* Look at one journal; 1 when what it shows changed. */
static int
refresh_one(struct journal *j)
{
	struct journal_verdict v;
	struct stat st;

	reopen_if_replaced(j);
	if (fstat(j->fd, &st) == -1) {
		j->err = errno;
		return 0;
	}
	if (unchanged(j, &st))
		return 0;
	/* An appender holds the lock while it writes: never wait for it on
	 * the loop; look again on the next tick. */
	if (flock(j->fd, LOCK_SH | LOCK_NB) == -1) {
		j->busy = 1;
		return 0;
	}
	j->busy = 0;
	j->st = st;
	j->seen = 1;
	version++;
	if (journal_verify_fd(j->fd, 0, NULL, &v) == -1) {
		flock(j->fd, LOCK_UN);
		j->err = errno;
		return 1;
	}
	j->err = 0;
	j->v = v;
	if (!still_there(j))
		forget(j);
	if (read_new(j) == -1) {
		/* Changed between the verification and the read: drop what
		 * was read and look again next tick. */
		forget(j);
		j->busy = 1;
	}
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

void
runs_id(size_t ji, const struct run *r, char *buf, size_t len)
{
	if (NJ == 1)
		snprintf(buf, len, "%" PRIu64, r->seq);
	else
		snprintf(buf, len, "%zu:%" PRIu64, ji + 1, r->seq);
}

struct run *
runs_find(const char *id, size_t *jout)
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
	if (errno || *end != '\0' || jn > NJ)
		return NULL;
	j = &J[jn - 1];
	for (i = 0; i < j->nruns; i++)
		if (j->runs[i].seq == seq) {
			*jout = (size_t)(jn - 1);
			return &j->runs[i];
		}
	return NULL;
}

uint64_t
runs_start_time(const struct journal *j, const struct run *r)
{
	return j->recs[r->recs[0]].time_ns;
}

/* The newest run (the last of those started at the same time), or the
 * first one started after `after`; its id in buf.  0, or -1 ENOENT. */
static int
pick(int newest, uint64_t after, char *buf, size_t len)
{
	struct run *best = NULL;
	uint64_t bt = 0, t;
	size_t ji, i, bj = 0;

	for (ji = 0; ji < NJ; ji++)
		for (i = 0; i < J[ji].nruns; i++) {
			t = runs_start_time(&J[ji], &J[ji].runs[i]);
			if (!newest && t <= after)
				continue;
			if (best == NULL || (newest ? t >= bt : t < bt)) {
				best = &J[ji].runs[i];
				bt = t;
				bj = ji;
			}
		}
	if (best == NULL)
		return errno = ENOENT, -1;
	runs_id(bj, best, buf, len);
	return 0;
}

int
runs_resolve(const char *id, char *buf, size_t len)
{
	struct run *r;
	size_t ji;

	if (strcmp(id, "last") == 0)
		return pick(1, 0, buf, len);
	if ((r = runs_find(id, &ji)) == NULL)
		return errno = ENOENT, -1;
	runs_id(ji, r, buf, len);
	return 0;
}

int
runs_first_after(uint64_t t, char *buf, size_t len)
{
	return pick(0, t, buf, len);
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

	if ((r = runs_find(id, &ji)) == NULL)
		return errno = ENOENT, -1;
	if (k >= r->n)
		return 0;
	rc = &J[ji].recs[r->recs[k]];
	buf = malloc(rc->len + 1);
	if (buf == NULL)
		return -1;
	if (pread_all(J[ji].fd, buf, rc->len, rc->off) == -1 ||
	    journal_record_parse(buf, rc->len, &jr, NULL) == -1 ||
	    jr.seq != rc->seq) {
		free(buf);
		return errno = ENOENT, -1;
	}
	*event = ev_parse(jr.event, jr.event_len);
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

	if ((r = runs_find(id, &ji)) == NULL)
		return errno = ENOENT, -1;
	return r->ended;
}

