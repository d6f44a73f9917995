/* SPDX-License-Identifier: ISC */
/* show: a journal's records as bounded lines or JSON lines (show.h). */
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "err.h"
#include "esc.h"
#include "events.h"
#include "hash.h"
#include "io.h"
#include "journal.h"
#include "scan.h"
#include "show.h"
#include "usage.h"
#include "verdict.h"

/* The cut fields' widths: an event's name, a run's program and its
 * arguments, the outcome and counts.  With the separators and the time,
 * SHOW_LINE_MAX in all. */
#define EVENT_W 12
#define EVENT_PAD 7
#define PROG_W 40
#define DETAIL_W 80

/* A run whose end has not been read: the records naming its plan join
 * the oldest one (events.h). */
struct open_run {
	char plan[SHA256_HEX_LEN + 1];
	uint64_t seq;			/* its id: its start record's */
	char prog[PROG_W + 1];
};

struct show {
	const char *path;
	int json, width;
	uint64_t want;			/* --run: its id; 0: every record */
	int found;
	struct open_run *open;
	size_t nopen, cap;
};

/* A bounded string builder: what does not fit is dropped, and cut()
 * then says so. */
struct sbuf {
	char b[4 * DETAIL_W];
	size_t n;
};

static void
sadd(struct sbuf *s, const char *fmt, ...)
{
	va_list ap;
	int r;

	if (s->n >= sizeof(s->b) - 1)
		return;
	va_start(ap, fmt);
	r = vsnprintf(s->b + s->n, sizeof(s->b) - s->n, fmt, ap);
	va_end(ap);
	if (r > 0)
		s->n += (size_t)r < sizeof(s->b) - s->n ? (size_t)r :
		    sizeof(s->b) - s->n - 1;
}

/* Cut s to at most max bytes, visibly ("..." at the end), never inside
 * a UTF-8 sequence. */
static void
cut(char *s, size_t max)
{
	size_t i;

	if (strlen(s) <= max)
		return;
	i = max - 3;
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	memcpy(s + i, "...", 4);
}

/* A value as text: an integer, a string escaped (esc.h), true or false;
 * "-" for null or missing. */
static const char *
val(json_t *v, char *out, size_t len)
{
	if (json_is_integer(v))
		snprintf(out, len, "%" JSON_INTEGER_FORMAT,
		    json_integer_value(v));
	else if (json_is_string(v))
		esc_mem(json_string_value(v), json_string_length(v), out, len,
		    0);
	else if (json_is_boolean(v))
		snprintf(out, len, "%s", json_is_true(v) ? "true" : "false");
	else
		snprintf(out, len, "-");
	return out;
}

#define VAL(v) val((v), (char[ESC_SIZE(DETAIL_W)]){ 0 }, ESC_SIZE(DETAIL_W))
#define KEY(o, k) json_object_get((o), (k))

/* The run's program and its arguments (argv[1] on), from its start; when
 * they do not fit, the program by its last name (".../NAME"), so that
 * the arguments show. */
static void
program_of(json_t *start, char out[PROG_W + 1])
{
	json_t *argv = KEY(start, "argv"), *prog = KEY(start, "program");
	struct sbuf s;
	const char *name, *slash;
	size_t i;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		s.n = 0;
		s.b[0] = '\0';
		name = VAL(json_is_string(prog) ? prog : json_array_get(argv, 0));
		if (pass == 1 && (slash = strrchr(name, '/')) != NULL &&
		    slash != name)
			sadd(&s, ".../%s", slash + 1);
		else
			sadd(&s, "%s", name);
		for (i = 1; i < json_array_size(argv) && s.n <= PROG_W; i++)
			sadd(&s, " %s", VAL(json_array_get(argv, i)));
		if (s.n <= PROG_W)
			break;
	}
	cut(s.b, PROG_W);
	memcpy(out, s.b, strlen(s.b) + 1);
}

static void
start_detail(json_t *ev, struct sbuf *s)
{
	sadd(s, "mode=%s", VAL(KEY(ev, "mode")));
	if (json_is_string(KEY(ev, "preset")))
		sadd(s, " preset=%s", VAL(KEY(ev, "preset")));
	sadd(s, " rules=%zu layers=%zu degraded=%zu",
	    json_array_size(KEY(ev, "rules")),
	    json_array_size(KEY(ev, "layers")),
	    json_array_size(KEY(ev, "degraded")));
	if (json_array_size(KEY(ev, "refused")) > 0)
		sadd(s, " refused=%zu", json_array_size(KEY(ev, "refused")));
}

/* The connections daemons took over: the sum of handoff.daemons. */
static json_int_t
handoffs_of(json_t *handoff)
{
	json_t *n;
	const char *k;
	json_int_t sum = 0;

	json_object_foreach(KEY(handoff, "daemons"), k, n)
		sum += json_integer_value(n);
	return sum;
}

static void
end_detail(json_t *ev, struct sbuf *s)
{
	json_t *eg = KEY(ev, "egress");

	sadd(s, "exit=%s", VAL(KEY(ev, "exit")));
	if (json_is_integer(KEY(ev, "signal")))
		sadd(s, " signal=%s by=%s", VAL(KEY(ev, "signal")),
		    VAL(KEY(ev, "signal_by")));
	if (json_is_true(KEY(ev, "timeout")))
		sadd(s, " timeout");
	if (json_is_string(KEY(ev, "cancel")))
		sadd(s, " cancel=%s", VAL(KEY(ev, "cancel")));
	/* Ended before the payload ran: why, and no counts. */
	if (json_is_string(KEY(ev, "refused"))) {
		sadd(s, ": %s", VAL(KEY(ev, "refused")));
		return;
	}
	/* Denials the payload went on without (it exited 0): not failures. */
	sadd(s, " denials=%s", VAL(KEY(KEY(ev, "denials"), "calls")));
	if (json_is_true(KEY(KEY(ev, "denials"), "ignored")) &&
	    strcmp(VAL(KEY(KEY(ev, "denials"), "calls")), "0") != 0)
		sadd(s, "(ignored)");
	sadd(s, " egress=%s/%s", json_is_object(eg) ?
	    VAL(KEY(eg, "allowed")) : "0", json_is_object(eg) ?
	    VAL(KEY(eg, "refused")) : "0");
	sadd(s, " handoffs=%" JSON_INTEGER_FORMAT,
	    handoffs_of(KEY(ev, "handoff")));
}

static void
detail(json_t *ev, const struct journal_record *r, struct sbuf *s)
{
	s->n = 0;
	s->b[0] = '\0';
	switch (ev_kind(ev)) {
	case EV_START:
		start_detail(ev, s);
		break;
	case EV_END:
		end_detail(ev, s);
		break;
	case EV_EGRESS:
		sadd(s, "%s %s:%s", VAL(KEY(ev, "verdict")),
		    VAL(KEY(ev, "host")), VAL(KEY(ev, "port")));
		if (json_is_integer(KEY(ev, "status")))
			sadd(s, " status=%s", VAL(KEY(ev, "status")));
		if (json_is_string(KEY(ev, "reason")))
			sadd(s, ": %s", VAL(KEY(ev, "reason")));
		break;
	case EV_HANDOFF:
		sadd(s, "%s pid=%s uid=%s", VAL(KEY(ev, "daemon")),
		    VAL(KEY(ev, "pid")), VAL(KEY(ev, "uid")));
		break;
	case EV_CANARY:
		sadd(s, "matched=%s mismatched=%s not_run=%s unanswered=%s",
		    VAL(KEY(ev, "matched")), VAL(KEY(ev, "mismatched")),
		    VAL(KEY(ev, "not_run")), VAL(KEY(ev, "unanswered")));
		break;
	default: {
		/* Not confexec's: the event as written (canonical JSON, its
		 * own escapes kept). */
		char t[ESC_SIZE(DETAIL_W)];

		esc_mem(r->event, r->event_len < DETAIL_W + 1 ? r->event_len :
		    DETAIL_W + 1, t, sizeof(t), ESC_KEEP_BACKSLASH);
		sadd(s, "%s", t);
		break;
	}
	}
	cut(s->b, DETAIL_W);
}

/* The run the record belongs to, or NULL: a start opens one, the other
 * records naming its plan join the oldest open one (events.h). */
static struct open_run *
join(struct show *sh, json_t *ev, uint64_t seq)
{
	const char *plan = json_string_value(KEY(ev, "plan"));
	struct open_run *o;
	size_t i;

	if (ev_kind(ev) != EV_START) {
		plan = ev_plan(ev);
		for (i = 0; plan != NULL && i < sh->nopen; i++)
			if (strcmp(sh->open[i].plan, plan) == 0)
				return &sh->open[i];
		return NULL;
	}
	if (sh->nopen == sh->cap) {
		size_t c = sh->cap ? 2 * sh->cap : 16;

		o = realloc(sh->open, c * sizeof(*o));
		if (o == NULL)
			die(EXIT_NO, "out of memory");
		sh->open = o;
		sh->cap = c;
	}
	o = &sh->open[sh->nopen++];
	snprintf(o->plan, sizeof(o->plan), "%s", plan ? plan : "");
	o->seq = seq;
	program_of(ev, o->prog);
	return o;
}

/* The run's end was read: later records of its plan are another's. */
static void
leave(struct show *sh, struct open_run *o)
{
	size_t i = (size_t)(o - sh->open);

	memmove(o, o + 1, (sh->nopen - i - 1) * sizeof(*o));
	sh->nopen--;
}

static void
time_str(uint64_t ns, char *buf, size_t len)
{
	time_t s = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (gmtime_r(&s, &tm) == NULL ||
	    strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm) == 0)
		snprintf(buf, len, "%" PRIu64, ns);
}

static void
print_line(struct show *sh, const struct journal_record *r, json_t *ev,
    const struct open_run *o)
{
	char ts[64], ename[ESC_SIZE(EVENT_W)], run[24];
	struct sbuf d;

	time_str(r->time_ns, ts, sizeof(ts));
	val(KEY(ev, "event"), ename, sizeof(ename));
	cut(ename, EVENT_W);
	snprintf(run, sizeof(run), o ? "%" PRIu64 : "-", o ? o->seq : 0);
	detail(ev, r, &d);
	printf("%*" PRIu64 "  %s  %*s  %-*s  %-*s  %s\n", sh->width, r->seq,
	    ts, sh->width, run, EVENT_PAD, ename, PROG_W, o ? o->prog : "-",
	    d.b);
}

static void
print_json(const struct journal_record *r, const char *line, size_t n)
{
	char hex[SHA256_HEX_LEN + 1];
	uint8_t d[SHA256_LEN];

	sha256_buf(line, n + 1, d);
	sha256_hex(d, hex);
	printf("{\"seq\":%" PRIu64 ",\"hash\":\"%s\",\"prev\":\"%.64s\","
	    "\"time\":\"%" PRIu64 "\",\"event\":%.*s}\n", r->seq, hex,
	    r->prev_hex, r->time_ns, (int)r->event_len, r->event);
}

/* One record of the valid prefix: printed when it is wanted. */
static void
show_record(struct show *sh, const char *line, size_t n)
{
	struct journal_record r;
	struct open_run *o;
	json_t *ev;

	if (journal_record_parse(line, n, &r, NULL) == -1 ||
	    (ev = ev_parse(r.event, r.event_len)) == NULL)
		die(EXIT_NO, "%s: record changed while reading", sh->path);
	o = join(sh, ev, r.seq);
	if (sh->want == 0 || (o != NULL && o->seq == sh->want)) {
		sh->found = 1;
		if (sh->json)
			print_json(&r, line, n);
		else
			print_line(sh, &r, ev, o);
	}
	if (o != NULL && ev_kind(ev) == EV_END)
		leave(sh, o);
	json_decref(ev);
}

/* The journal's valid prefix, every event checked as verify --deep
 * checks it, in memory: its length in *len. */
static char *
read_valid(const char *path, struct journal_verdict *v, size_t *len)
{
	int fd = verdict_open(path);
	char *buf;

	if (journal_verify_fd(fd, JOURNAL_DEEP, NULL, v) == -1)
		die_sys(EXIT_NO, "cannot read %s", path);
	*len = (size_t)v->good_end;
	buf = malloc(*len ? *len : 1);
	if (buf == NULL)
		die(EXIT_NO, "out of memory");
	if (pread_all(fd, buf, *len, 0) == -1)
		die_sys(EXIT_NO, "cannot read %s", path);
	close(fd);
	return buf;
}

int
show_main(const char *path, int json, const char *run)
{
	struct show sh = { .path = path, .json = json };
	struct journal_verdict v;
	size_t off, len;
	char *buf, count[24];

	if (run != NULL && scan_u64(run, 1, UINT64_MAX, &sh.want) == -1)
		die_usage_hint(EXIT_USAGE, "--run: not a run id (a start "
		    "record's number, show's RUN column): %s", run);
	buf = read_valid(path, &v, &len);
	sh.width = snprintf(count, sizeof(count), "%" PRIu64, v.count);
	for (off = 0; off < len;) {
		char *nl = memchr(buf + off, '\n', len - off);
		size_t n = (size_t)(nl - (buf + off));

		show_record(&sh, buf + off, n);
		off += n + 1;
	}
	free(buf);
	free(sh.open);
	if (fflush(stdout) == EOF)
		die_sys(EXIT_NO, "writing stdout");
	verdict_report(path, &v);
	if (run != NULL && !sh.found)
		die(EXIT_NO, "%s: no run %s: no start record %s in its %" PRIu64
		    " valid records (show's RUN column names the runs)", path,
		    run, run, v.count);
	return verdict_exit(v.status);
}
