/* SPDX-License-Identifier: ISC */
/* journal_rec: the record format (journalchain(5)) and the one record
 * checker every verify mode calls. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "err.h"
#include "esc.h"
#include "hash.h"
#include "journal.h"
#include "journal_int.h"

const char journal_zero_hex[SHA256_HEX_LEN + 1] =
    "0000000000000000000000000000000000000000000000000000000000000000";

/* Deepest nesting the shape check follows.  jansson's parser refuses
 * deeper input (JSON_PARSER_MAX_DEPTH), so no event it wrote is deeper. */
#define EVENT_DEPTH_MAX 2048

/* Parse 1-20 decimal digits (no leading zero unless "0") at *p, up to
 * end, into *v; advance *p.  Returns 0 or -1. */
static int
digits(const char **p, const char *end, uint64_t *v)
{
	const char *s = *p;
	uint64_t x = 0;

	if (s >= end || *s < '0' || *s > '9')
		return -1;
	if (*s == '0') {
		*v = 0;
		*p = s + 1;
		return 0;
	}
	while (s < end && *s >= '0' && *s <= '9') {
		unsigned d = (unsigned)(*s - '0');

		if (x > (UINT64_MAX - d) / 10)
			return -1;
		x = x * 10 + d;
		s++;
	}
	*v = x;
	*p = s;
	return 0;
}

static int
lit(const char **p, const char *end, const char *s, size_t n)
{
	if ((size_t)(end - *p) < n || memcmp(*p, s, n) != 0)
		return -1;
	*p += n;
	return 0;
}
#define LIT(p, end, s) lit(p, end, s, sizeof(s) - 1)

/* Skip the string whose opening quote is ev[*i]; leave *i on its closing
 * quote.  JSON strings hold no control byte, escaped or not. */
static const char *
skip_string(const char *ev, size_t n, size_t *i)
{
	size_t k;

	for (k = *i + 1; k < n && ev[k] != '"'; k++) {
		if (ev[k] == '\\')
			k++;
		if (k < n && (unsigned char)ev[k] < 0x20)
			return "control byte in a string of the event";
	}
	if (k >= n)
		return "unterminated string in the event";
	*i = k;
	return NULL;
}

/* The event ev[0..n) is one JSON object by its structure: strings closed,
 * brackets balanced and matched, no control byte but JSON's blanks, and
 * nothing after the object's closing brace.  Its content (numbers,
 * literals, keys, UTF-8) is --deep's job.  A line holding two records
 * fails here: the first event closes before the end of the line.
 * Returns NULL or what is wrong. */
static const char *
event_shape(const char *ev, size_t n)
{
	uint8_t arr[EVENT_DEPTH_MAX / 8];	/* bit set: that level is [ */
	size_t depth = 0, i;
	const char *w;

	for (i = 0; i < n; i++) {
		unsigned char c = (unsigned char)ev[i];
		uint8_t bit;

		switch (c) {
		case '"':
			if ((w = skip_string(ev, n, &i)) != NULL)
				return w;
			break;
		case '{':
		case '[':
			if (depth == EVENT_DEPTH_MAX)
				return "event nested too deep";
			bit = (uint8_t)(1u << (depth % 8));
			if (c == '[')
				arr[depth / 8] |= bit;
			else
				arr[depth / 8] &= (uint8_t)~bit;
			depth++;
			break;
		case '}':
		case ']':
			if (depth == 0)
				return "unbalanced brackets in the event";
			depth--;
			bit = (uint8_t)(1u << (depth % 8));
			if (((arr[depth / 8] & bit) != 0) != (c == ']'))
				return "mismatched brackets in the event";
			if (depth == 0 && i + 1 != n)
				return "bytes after the event object "
				    "(more than one record on the line?)";
			break;
		case ' ':
		case '\t':
		case '\r':
			break;
		default:
			if (c < 0x20)
				return "control byte in the event";
			break;
		}
	}
	return depth == 0 ? NULL : "event object not closed";
}

int
journal_record_parse(const char *line, size_t len, struct journal_record *r,
    const char **why)
{
	const char *p = line, *end = line + len, *w;

	if (LIT(&p, end, "{\"seq\":") == -1) {
		w = "record does not begin with {\"seq\":";
		goto bad;
	}
	if (digits(&p, end, &r->seq) == -1 || r->seq == 0) {
		w = "bad seq (digits, no leading zero, from 1)";
		goto bad;
	}
	if (LIT(&p, end, ",\"prev\":\"") == -1) {
		w = "seq not followed by ,\"prev\":\"";
		goto bad;
	}
	if (end - p < SHA256_HEX_LEN) {
		w = "prev too short";
		goto bad;
	}
	/* Its digits are judged by comparison with the expected hash. */
	r->prev_hex = p;
	p += SHA256_HEX_LEN;
	if (LIT(&p, end, "\",\"time\":\"") == -1) {
		w = "prev not followed by \",\"time\":\"";
		goto bad;
	}
	if (digits(&p, end, &r->time_ns) == -1) {
		w = "bad time (decimal nanoseconds, no leading zero)";
		goto bad;
	}
	if (LIT(&p, end, "\",\"event\":") == -1) {
		w = "time not followed by \",\"event\":";
		goto bad;
	}
	/* The event is everything up to the final '}' of the record. */
	if (end - p < 3 || p[0] != '{' || end[-2] != '}' || end[-1] != '}') {
		w = "event is not an object closing the record";
		goto bad;
	}
	r->event = p;
	r->event_len = (size_t)(end - 1 - p);
	if ((w = event_shape(r->event, r->event_len)) != NULL)
		goto bad;
	return 0;
bad:
	if (why != NULL)
		*why = w;
	return -1;
}

int
journal_event_canon(const char *text, size_t len, char **out, size_t *outlen,
    char *err, size_t errlen)
{
	json_error_t je;
	json_t *j;
	char *s;

	j = json_loadb(text, len, JSON_REJECT_DUPLICATES, &je);
	if (j == NULL) {
		char t[ESC_SIZE(JSON_ERROR_TEXT_LENGTH)];

		esc_name(je.text, t, sizeof(t));	/* it quotes the record */
		err_set(err, errlen, "invalid JSON at column %d: %s",
		    je.column, t);
		return errno = EINVAL, -1;
	}
	if (!json_is_object(j)) {
		json_decref(j);
		err_set(err, errlen, "not a JSON object");
		return errno = EINVAL, -1;
	}
	s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);
	json_decref(j);
	if (s == NULL) {
		err_set(err, errlen, "cannot encode event");
		return errno = ENOMEM, -1;
	}
	*out = s;
	*outlen = strlen(s);
	return 0;
}

/* --deep: the event parses strictly and is already canonical. */
static int
deep_check(const char *ev, size_t n, char *why, size_t whylen)
{
	char *canon;
	size_t clen;
	int r = 0;

	if (journal_event_canon(ev, n, &canon, &clen, why, whylen) == -1)
		return -1;
	if (clen != n || memcmp(canon, ev, n) != 0) {
		err_set(why, whylen, "event is not in canonical form");
		r = -1;
	}
	free(canon);
	return r;
}

int
jrec_check(const struct jrec_want *w, const char *line, size_t n,
    const uint8_t d[SHA256_LEN], char *why, size_t whylen)
{
	struct journal_record r;
	const char *pw;
	char dw[160];

	if (n > JOURNAL_RECORD_MAX)
		return err_set(why, whylen, "record longer than %u bytes",
		    JOURNAL_RECORD_MAX);
	if (n == 0 || line[n - 1] != '\n')
		return err_set(why, whylen, "record does not end in a "
		    "newline");
	if (journal_record_parse(line, n - 1, &r, &pw) == -1)
		return err_set(why, whylen, "%s", pw);
	if (r.seq != w->seq)
		return err_set(why, whylen, "seq is %llu, expected %llu",
		    (unsigned long long)r.seq, (unsigned long long)w->seq);
	if (memcmp(r.prev_hex, w->prev_hex, SHA256_HEX_LEN) != 0)
		return err_set(why, whylen, "prev does not match the hash "
		    "of %s", w->seq > 1 ? "the previous record" :
		    "genesis (zeros)");
	if ((w->flags & JOURNAL_DEEP) &&
	    deep_check(r.event, r.event_len, dw, sizeof(dw)) == -1)
		return err_set(why, whylen, "event: %s", dw);
	if (w->from != NULL && w->from->seq == w->seq &&
	    memcmp(w->from->hash, d, SHA256_LEN) != 0)
		return err_set(why, whylen, "record differs from the --from "
		    "head: the journal was rewritten");
	return 0;
}

int
journal_head_parse(const char *s, struct journal_head *h)
{
	const char *colon = strchr(s, ':'), *p = s;

	if (colon == NULL || digits(&p, colon, &h->seq) == -1 || p != colon)
		return errno = EINVAL, -1;
	return sha256_unhex(colon + 1, strlen(colon + 1), h->hash);
}
