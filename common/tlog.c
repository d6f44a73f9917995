/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "err.h"
#include "note.h"
#include "scan.h"
#include "tlog.h"

int
tlog_origin_ok(const char *origin, size_t len)
{
	size_t i;

	if (len == 0 || len > TLOG_ORIGIN_MAX || !note_text_ok(origin, len))
		return 0;
	for (i = 0; i < len; i++)
		if (origin[i] == '\n' || origin[i] == 0x7f)
			return 0;
	return 1;
}

int
tlog_format(const struct tlog_checkpoint *c, char *buf, size_t bufsz)
{
	char b[B64_LEN(SHA256_LEN) + 1];
	int w;

	b64_encode(c->root, SHA256_LEN, b);
	w = snprintf(buf, bufsz, "%s\n%llu\n%s\n", c->origin,
	    (unsigned long long)c->size, b);
	if (w < 0 || (size_t)w >= bufsz)
		return errno = ENAMETOOLONG, -1;
	return w;
}

/* The next line of buf[*at..len) without its newline: its start and
 * length; -1 when no complete line is left. */
static int
next_line(const char *buf, size_t len, size_t *at, const char **s, size_t *n)
{
	const char *nl;

	if (*at >= len)
		return -1;
	nl = memchr(buf + *at, '\n', len - *at);
	if (nl == NULL)
		return -1;
	*s = buf + *at;
	*n = (size_t)(nl - *s);
	*at += *n + 1;
	return 0;
}

/* A decimal size: no sign, no leading zero, at most 2^63 - 1. */
static int
size_parse(const char *s, size_t n, uint64_t *out)
{
	char tmp[24];

	size_t i;

	if (n == 0 || n >= sizeof(tmp) || (n > 1 && s[0] == '0'))
		return -1;
	/* digits only: a NUL inside would end the number early */
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return -1;
	memcpy(tmp, s, n);
	tmp[n] = '\0';
	return scan_u64(tmp, 0, INT64_MAX, out);
}

static int
hash_parse(const char *s, size_t n, uint8_t h[SHA256_LEN])
{
	size_t got;

	return b64_decode(s, n, h, SHA256_LEN, &got) == -1 ||
	    got != SHA256_LEN ? -1 : 0;
}

int
tlog_parse(const char *text, size_t len, struct tlog_checkpoint *c, char *err,
    size_t errlen)
{
	const char *s;
	size_t at = 0, n, ext = 0;

	memset(c, 0, sizeof(*c));
	if (next_line(text, len, &at, &s, &n) == -1 || !tlog_origin_ok(s, n))
		return errno = EINVAL, err_set(err, errlen, "not a checkpoint: "
		    "line 1 is not an origin");
	memcpy(c->origin, s, n);
	c->origin[n] = '\0';
	if (next_line(text, len, &at, &s, &n) == -1 ||
	    size_parse(s, n, &c->size) == -1)
		return errno = EINVAL, err_set(err, errlen, "not a checkpoint: "
		    "line 2 is not a tree size");
	if (next_line(text, len, &at, &s, &n) == -1 ||
	    hash_parse(s, n, c->root) == -1)
		return errno = EINVAL, err_set(err, errlen, "not a checkpoint: "
		    "line 3 is not a base64 SHA-256 root hash");
	while (next_line(text, len, &at, &s, &n) == 0) {
		if (n == 0 || ++ext > TLOG_EXT_MAX)
			return errno = EINVAL, err_set(err, errlen, "not a "
			    "checkpoint: an empty extension line, or more than "
			    "%d", TLOG_EXT_MAX);
	}
	if (at != len)
		return errno = EINVAL, err_set(err, errlen, "not a checkpoint: "
		    "no newline at its end");
	return 0;
}

int
tlog_proof_parse(const char *buf, size_t len, uint64_t *old,
    uint8_t (*p)[SHA256_LEN], size_t *k, char *err, size_t errlen)
{
	const char *s;
	size_t at = 0, n;

	*k = 0;
	if (next_line(buf, len, &at, &s, &n) == -1 || n < 5 ||
	    memcmp(s, "old ", 4) != 0 || size_parse(s + 4, n - 4, old) == -1)
		return errno = EINVAL, err_set(err, errlen, "not a proof: "
		    "line 1 is not \"old SIZE\"");
	while (next_line(buf, len, &at, &s, &n) == 0) {
		if (*k == MERKLE_PROOF_MAX)
			return errno = EINVAL, err_set(err, errlen, "not a "
			    "proof: more than %d hashes", MERKLE_PROOF_MAX);
		if (hash_parse(s, n, p[*k]) == -1)
			return errno = EINVAL, err_set(err, errlen, "not a "
			    "proof: line %zu is not a base64 SHA-256 hash",
			    *k + 2);
		(*k)++;
	}
	if (at != len)
		return errno = EINVAL, err_set(err, errlen, "not a proof: no "
		    "newline at its end");
	return 0;
}

static const char state_magic[] = "borne-checkpoint-state 1\n";

int
tlog_state_format(const struct tlog_state *s, const char *note, size_t len,
    char **out, size_t *outlen)
{
	char hex[SHA256_HEX_LEN + 1], b[B64_LEN(SHA256_LEN) + 1], *o;
	size_t cap = 256 + s->f.k * (B64_LEN(SHA256_LEN) + 1) + len, at;
	unsigned i;

	if ((o = malloc(cap)) == NULL)
		return -1;
	sha256_hex(s->head, hex);
	at = (size_t)snprintf(o, cap, "%soffset %llu\nhead %s\nfrontier %llu",
	    state_magic, (unsigned long long)s->off, hex,
	    (unsigned long long)s->f.n);
	for (i = 0; i < s->f.k; i++) {
		b64_encode(s->f.h[i], SHA256_LEN, b);
		at += (size_t)snprintf(o + at, cap - at, " %s", b);
	}
	o[at++] = '\n';
	memcpy(o + at, note, len);
	*out = o;
	*outlen = at + len;
	return 0;
}

int
tlog_state_parse(const char *buf, size_t len, struct tlog_state *s,
    char *err, size_t errlen)
{
	const char *l, *p, *sp, *end;
	size_t at = 0, n, k = 0;
	uint64_t v;

	memset(s, 0, sizeof(*s));
	if (len < sizeof(state_magic) - 1 ||
	    memcmp(buf, state_magic, sizeof(state_magic) - 1) != 0)
		return errno = EINVAL, err_set(err, errlen, "not a checkpoint "
		    "state: no borne-checkpoint-state 1 line");
	at = sizeof(state_magic) - 1;
	if (next_line(buf, len, &at, &l, &n) == -1 || n < 8 ||
	    memcmp(l, "offset ", 7) != 0 || size_parse(l + 7, n - 7,
	    &s->off) == -1)
		return errno = EINVAL, err_set(err, errlen, "not a checkpoint "
		    "state: line 2 is not offset N");
	if (next_line(buf, len, &at, &l, &n) == -1 ||
	    n != 5 + SHA256_HEX_LEN || memcmp(l, "head ", 5) != 0 ||
	    strspn(l + 5, "0123456789abcdef") < SHA256_HEX_LEN ||
	    sha256_unhex(l + 5, SHA256_HEX_LEN, s->head) == -1)
		return errno = EINVAL, err_set(err, errlen, "not a checkpoint "
		    "state: line 3 is not head HEX");
	if (next_line(buf, len, &at, &l, &n) == -1 || n < 10 ||
	    memcmp(l, "frontier ", 9) != 0)
		return errno = EINVAL, err_set(err, errlen, "not a checkpoint "
		    "state: line 4 is not frontier N HASH...");
	p = l + 9;
	end = l + n;
	sp = memchr(p, ' ', (size_t)(end - p));
	if (sp == NULL)
		sp = end;
	if (size_parse(p, (size_t)(sp - p), &v) == -1)
		return errno = EINVAL, err_set(err, errlen, "not a checkpoint "
		    "state: frontier N is not a count");
	while (sp < end) {
		p = sp + 1;
		sp = memchr(p, ' ', (size_t)(end - p));
		if (sp == NULL)
			sp = end;
		if (k == 64 || hash_parse(p, (size_t)(sp - p), s->f.h[k]) == -1)
			return errno = EINVAL, err_set(err, errlen, "not a "
			    "checkpoint state: frontier hash %zu", k + 1);
		k++;
	}
	if (k != (size_t)__builtin_popcountll(v))
		return errno = EINVAL, err_set(err, errlen, "not a checkpoint "
		    "state: %zu frontier hashes for %llu records", k,
		    (unsigned long long)v);
	s->f.n = v;
	s->f.k = (unsigned)k;
	s->note = buf + at;
	s->note_len = len - at;
	return 0;
}
