/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include <nettle/eddsa.h>
#include <nettle/sha2.h>

#include "b64.h"
#include "err.h"
#include "hash.h"
#include "note.h"

/* "\u2014 ": the em dash and a space that open a signature line. */
static const char sig_prefix[] = "\xe2\x80\x94 ";
#define SIG_PREFIX_LEN 4

/* Decode one UTF-8 sequence at s[0..len): its code point, and its length
 * in *n; -1 for an invalid one (overlong, surrogate, beyond U+10FFFF,
 * truncated), as Go's utf8.DecodeRune reports RuneError of size 1. */
static long
utf8_at(const unsigned char *s, size_t len, size_t *n)
{
	unsigned char c = s[0];
	long cp, min;
	size_t k, i;

	if (c < 0x80) {
		*n = 1;
		return c;
	}
	if (c >= 0xc2 && c <= 0xdf)
		k = 2, cp = c & 0x1f, min = 0x80;
	else if (c >= 0xe0 && c <= 0xef)
		k = 3, cp = c & 0x0f, min = 0x800;
	else if (c >= 0xf0 && c <= 0xf4)
		k = 4, cp = c & 0x07, min = 0x10000;
	else
		return -1;
	if (len < k)
		return -1;
	for (i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	*n = k;
	return cp;
}

/* Go's unicode.IsSpace. */
static int
is_space(long cp)
{
	return cp == '\t' || cp == '\n' || cp == '\v' || cp == '\f' ||
	    cp == '\r' || cp == ' ' || cp == 0x85 || cp == 0xa0 ||
	    cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200a) || cp == 0x2028 ||
	    cp == 0x2029 || cp == 0x202f || cp == 0x205f || cp == 0x3000;
}

int
note_name_ok(const char *name, size_t len)
{
	const unsigned char *s = (const unsigned char *)name;
	size_t at, n;
	long cp;

	if (len == 0 || len > NOTE_NAME_MAX)
		return 0;
	for (at = 0; at < len; at += n) {
		cp = utf8_at(s + at, len - at, &n);
		if (cp < 0x20 || cp == '+' || cp == 0x7f ||
		    (cp >= 0x80 && cp <= 0x9f) || is_space(cp))
			return 0;
	}
	return 1;
}

int
note_text_ok(const char *text, size_t len)
{
	const unsigned char *s = (const unsigned char *)text;
	size_t at, n;
	long cp;

	for (at = 0; at < len; at += n) {
		cp = utf8_at(s + at, len - at, &n);
		if (cp < 0 || (cp < 0x20 && cp != '\n'))
			return 0;
	}
	return 1;
}

static uint32_t
key_hash(const char *name, const uint8_t pub[NOTE_KEY_LEN])
{
	struct sha256_ctx ctx;
	uint8_t alg = NOTE_ED25519, d[SHA256_LEN];

	sha256_init(&ctx);
	sha256_update(&ctx, strlen(name), (const uint8_t *)name);
	sha256_update(&ctx, 1, (const uint8_t *)"\n");
	sha256_update(&ctx, 1, &alg);
	sha256_update(&ctx, NOTE_KEY_LEN, pub);
	sha256_digest(&ctx, SHA256_LEN, d);
	return (uint32_t)d[0] << 24 | (uint32_t)d[1] << 16 |
	    (uint32_t)d[2] << 8 | d[3];
}

/* The signer's public key and hash from its name and seed. */
static void
signer_derive(struct note_signer *s)
{
	ed25519_sha512_public_key(s->v.pub, s->seed);
	s->v.hash = key_hash(s->v.name, s->v.pub);
}

int
note_keygen(const char *name, struct note_signer *s, char *err,
    size_t errlen)
{
	size_t got = 0;
	ssize_t r;

	if (!note_name_ok(name, strlen(name)))
		return errno = EINVAL, err_set(err, errlen, "not a key name "
		    "(UTF-8, no '+', no space, at most %d bytes)",
		    NOTE_NAME_MAX);
	memset(s, 0, sizeof(*s));
	memcpy(s->v.name, name, strlen(name));
	while (got < NOTE_KEY_LEN) {
		r = getrandom(s->seed + got, NOTE_KEY_LEN - got, 0);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1)
			return err_set_sys(err, errlen, "getrandom");
		got += (size_t)r;
	}
	signer_derive(s);
	return 0;
}

static int
key_text(const char *pre, const char *name, uint32_t hash,
    const uint8_t key[NOTE_KEY_LEN], char *buf, size_t bufsz)
{
	uint8_t raw[1 + NOTE_KEY_LEN];
	char b[B64_LEN(sizeof(raw)) + 1];
	int w;

	raw[0] = NOTE_ED25519;
	memcpy(raw + 1, key, NOTE_KEY_LEN);
	b64_encode(raw, sizeof(raw), b);
	w = snprintf(buf, bufsz, "%s%s+%08x+%s", pre, name, (unsigned)hash, b);
	explicit_bzero(raw, sizeof(raw));
	explicit_bzero(b, sizeof(b));
	if (w < 0 || (size_t)w >= bufsz)
		return errno = ENAMETOOLONG, -1;
	return 0;
}

int
note_verifier_text(const struct note_verifier *v, char *buf, size_t bufsz)
{
	return key_text("", v->name, v->hash, v->pub, buf, bufsz);
}

int
note_signer_text(const struct note_signer *s, char *buf, size_t bufsz)
{
	return key_text("PRIVATE+KEY+", s->v.name, s->v.hash, s->seed, buf,
	    bufsz);
}

/* The 8 hex digits (either case) at p as a number in *h.  0 or -1. */
static int
hex8(const char *p, uint32_t *h)
{
	uint32_t v = 0;
	int i;

	for (i = 0; i < 8; i++) {
		v <<= 4;
		if (p[i] >= '0' && p[i] <= '9')
			v |= (uint32_t)(p[i] - '0');
		else if (p[i] >= 'a' && p[i] <= 'f')
			v |= (uint32_t)(p[i] - 'a' + 10);
		else if (p[i] >= 'A' && p[i] <= 'F')
			v |= (uint32_t)(p[i] - 'A' + 10);
		else
			return -1;
	}
	*h = v;
	return 0;
}

/* NAME+HASH8+KEY64 in text[0..len): name, hash and 32 key bytes. */
static int
key_parse(const char *text, size_t len, char name[NOTE_NAME_MAX + 1],
    uint32_t *hash, uint8_t key[NOTE_KEY_LEN], char *err, size_t errlen)
{
	const char *p1, *p2;
	uint8_t raw[1 + NOTE_KEY_LEN + 1];
	size_t nlen, n;
	uint32_t h;

	p1 = memchr(text, '+', len);
	if (p1 == NULL)
		return errno = EINVAL, err_set(err, errlen, "not a key: "
		    "want NAME+HASH+KEY");
	nlen = (size_t)(p1 - text);
	p2 = memchr(p1 + 1, '+', len - nlen - 1);
	if (p2 == NULL || p2 - p1 - 1 != 8)
		return errno = EINVAL, err_set(err, errlen, "not a key: "
		    "want NAME+HASH+KEY, HASH 8 hex digits");
	if (!note_name_ok(text, nlen))
		return errno = EINVAL, err_set(err, errlen, "not a key: "
		    "bad key name");
	if (hex8(p1 + 1, &h) == -1)
		return errno = EINVAL, err_set(err, errlen, "not a key: HASH "
		    "is not 8 hex digits");
	if (b64_decode(p2 + 1, len - (size_t)(p2 + 1 - text), raw,
	    sizeof(raw), &n) == -1 || n == 0)
		return errno = EINVAL, err_set(err, errlen, "not a key: KEY "
		    "is not base64");
	if (raw[0] != NOTE_ED25519)
		return errno = EINVAL, explicit_bzero(raw, sizeof(raw)),
		    err_set(err, errlen, "key algorithm %u is not Ed25519 "
		    "(1)", raw[0]);
	if (n != 1 + NOTE_KEY_LEN)
		return errno = EINVAL, explicit_bzero(raw, sizeof(raw)),
		    err_set(err, errlen, "not an Ed25519 key: %zu bytes, "
		    "want 32", n - 1);
	memcpy(name, text, nlen);
	name[nlen] = '\0';
	*hash = h;
	memcpy(key, raw + 1, NOTE_KEY_LEN);
	explicit_bzero(raw, sizeof(raw));
	return 0;
}

int
note_verifier_parse(const char *text, size_t len, struct note_verifier *v,
    char *err, size_t errlen)
{
	memset(v, 0, sizeof(*v));
	if (key_parse(text, len, v->name, &v->hash, v->pub, err, errlen) == -1)
		return -1;
	if (key_hash(v->name, v->pub) != v->hash)
		return errno = EINVAL, err_set(err, errlen, "key %s: its hash "
		    "%08x does not match its name and key", v->name,
		    (unsigned)v->hash);
	return 0;
}

int
note_signer_parse(const char *text, size_t len, struct note_signer *s,
    char *err, size_t errlen)
{
	static const char pre[] = "PRIVATE+KEY+";
	uint32_t h;

	memset(s, 0, sizeof(*s));
	if (len < sizeof(pre) - 1 || memcmp(text, pre, sizeof(pre) - 1) != 0)
		return errno = EINVAL, err_set(err, errlen, "not a signer key: "
		    "want PRIVATE+KEY+NAME+HASH+KEY");
	if (key_parse(text + sizeof(pre) - 1, len - (sizeof(pre) - 1),
	    s->v.name, &h, s->seed, err, errlen) == -1)
		return -1;
	signer_derive(s);
	if (s->v.hash != h) {
		explicit_bzero(s->seed, sizeof(s->seed));
		return errno = EINVAL, err_set(err, errlen, "key %s: its hash "
		    "%08x does not match its name and key", s->v.name,
		    (unsigned)h);
	}
	return 0;
}

int
note_sign(const char *text, size_t len, const struct note_signer *s,
    char **out, size_t *outlen, char *err, size_t errlen)
{
	uint8_t raw[4 + NOTE_SIG_LEN];
	char b[B64_LEN(sizeof(raw)) + 1], *o;
	size_t nl = strlen(s->v.name), n;

	if (len == 0 || text[len - 1] != '\n' || !note_text_ok(text, len) ||
	    (len >= 2 && text[len - 2] == '\n'))
		return errno = EINVAL, err_set(err, errlen, "not a note text "
		    "(UTF-8, no control character but newline, ending in one "
		    "newline)");
	n = len + 1 + SIG_PREFIX_LEN + nl + 1 + B64_LEN(sizeof(raw)) + 1;
	if (n > NOTE_MAX)
		return errno = EINVAL, err_set(err, errlen, "note text too "
		    "long: %zu bytes", len);
	raw[0] = (uint8_t)(s->v.hash >> 24);
	raw[1] = (uint8_t)(s->v.hash >> 16);
	raw[2] = (uint8_t)(s->v.hash >> 8);
	raw[3] = (uint8_t)s->v.hash;
	ed25519_sha512_sign(s->v.pub, s->seed, len, (const uint8_t *)text,
	    raw + 4);
	b64_encode(raw, sizeof(raw), b);
	o = malloc(n + 1);
	if (o == NULL)
		return err_set_sys(err, errlen, "note");
	snprintf(o, n + 1, "%.*s\n%s%s %s\n", (int)len, text, sig_prefix,
	    s->v.name, b);
	*out = o;
	*outlen = n;
	return 0;
}

/* Where msg's text ends: at its last blank line (*split, just past it),
 * signature lines after it, ending with a newline.  0, or -1 with errno
 * EINVAL and err. */
static int
note_split(const char *msg, size_t len, size_t *split, char *err,
    size_t errlen)
{
	size_t i;

	if (len > NOTE_MAX)
		return errno = EINVAL, err_set(err, errlen, "malformed note: "
		    "more than %d bytes", NOTE_MAX);
	if (!note_text_ok(msg, len))
		return errno = EINVAL, err_set(err, errlen, "malformed note: "
		    "not UTF-8, or a control character");
	for (i = len; i >= 2; i--)
		if (msg[i - 1] == '\n' && msg[i - 2] == '\n')
			break;
	if (i < 2)
		return errno = EINVAL, err_set(err, errlen, "malformed note: "
		    "no blank line before the signatures");
	if (i == len || msg[len - 1] != '\n')
		return errno = EINVAL, err_set(err, errlen, "malformed note: "
		    "no signature line, or no newline at its end");
	*split = i;
	return 0;
}

/* Signature line count, [line, nl): an em dash, a space, NAME, a space,
 * BASE64; *name its name (*namelen bytes), its decoded bytes in raw
 * (rawsz), *n of them, at least a key hash and one byte.  0, or -1 with
 * errno EINVAL and err. */
static int
sig_line(const char *line, const char *nl, size_t count, const char **name,
    size_t *namelen, uint8_t *raw, size_t rawsz, size_t *n, char *err,
    size_t errlen)
{
	const char *sp;

	if (nl - line < SIG_PREFIX_LEN ||
	    memcmp(line, sig_prefix, SIG_PREFIX_LEN) != 0)
		return errno = EINVAL, err_set(err, errlen, "malformed note: "
		    "signature line %zu does not start with an em dash and a "
		    "space", count);
	line += SIG_PREFIX_LEN;
	sp = memchr(line, ' ', (size_t)(nl - line));
	if (sp == NULL || !note_name_ok(line, (size_t)(sp - line)) ||
	    b64_decode(sp + 1, (size_t)(nl - sp - 1), raw, rawsz, n) == -1 ||
	    *n < 5)
		return errno = EINVAL, err_set(err, errlen, "malformed note: "
		    "signature line %zu", count);
	*name = line;
	*namelen = (size_t)(sp - line);
	return 0;
}

int
note_open(const char *msg, size_t len, const struct note_verifier *v,
    size_t *textlen, char *err, size_t errlen)
{
	const char *end = msg + len, *line, *nl, *name = NULL;
	size_t split = 0, n, namelen = 0, count = 0, vl = strlen(v->name);
	uint8_t *raw;
	uint32_t h;
	int found = 0, rc = -1;

	if (note_split(msg, len, &split, err, errlen) == -1)
		return -1;
	/* A signature of another algorithm may be longer than Ed25519's:
	 * room for the longest line. */
	raw = malloc(len / 4 * 3 + 3);
	if (raw == NULL)
		return err_set_sys(err, errlen, "note");
	for (line = msg + split; line < end; line = nl + 1) {
		nl = memchr(line, '\n', (size_t)(end - line));
		if (++count > NOTE_SIGS_MAX) {
			errno = EINVAL;
			err_set(err, errlen, "malformed note: more than %d "
			    "signatures", NOTE_SIGS_MAX);
			goto out;
		}
		if (sig_line(line, nl, count, &name, &namelen, raw,
		    len / 4 * 3 + 3, &n, err, errlen) == -1)
			goto out;
		h = (uint32_t)raw[0] << 24 | (uint32_t)raw[1] << 16 |
		    (uint32_t)raw[2] << 8 | raw[3];
		if (namelen != vl || memcmp(name, v->name, vl) != 0 ||
		    h != v->hash)
			continue;	/* another key's: a cosignature */
		if (n != 4 + NOTE_SIG_LEN ||
		    !ed25519_sha512_verify(v->pub, split - 1,
		    (const uint8_t *)msg, raw + 4)) {
			errno = EBADMSG;
			err_set(err, errlen, "the signature by %s+%08x does "
			    "not verify", v->name, (unsigned)v->hash);
			goto out;
		}
		found = 1;
	}
	if (!found) {
		errno = ENOENT;
		err_set(err, errlen, "no signature by %s+%08x", v->name,
		    (unsigned)v->hash);
		goto out;
	}
	*textlen = split - 1;
	rc = 0;
out:
	n = (size_t)errno;
	free(raw);
	errno = (int)n;
	return rc;
}
