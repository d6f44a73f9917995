/* SPDX-License-Identifier: ISC */
/* plandec: the LaunchPlan codec (launchplan(5)), decoding side: a strict
 * decoder that accepts only the canonical encoding, bounds every count
 * before it allocates, and runs the rules of planrules.c on each line.
 * Each key's decoder is named by its row (plankeys.c). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "esc.h"
#include "hash.h"
#include "io.h"
#include "planint.h"
#include "scan.h"

/* ---- decoder ---- */

struct plan_dec {
	const unsigned char *v;	/* value of the current line */
	size_t vn;
	size_t line;
	const char *key;
	char *err;
	size_t errlen;
};

/* A format error of the current line: "line N: key: message". */
static int
derr(struct plan_dec *d, const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (d->key)
		err_set(d->err, d->errlen, "line %zu: %s: %s", d->line, d->key,
		    msg);
	else
		err_set(d->err, d->errlen, "line %zu: %s", d->line, msg);
	errno = EINVAL;
	return -1;
}

/* The rules of key k (planrules.c) on the entry just read, index i. */
static int
dec_rule(struct plan_dec *d, const struct plan *p, int k, size_t i)
{
	char msg[256];

	if (plan_rule(p, k, i, msg, sizeof(msg)) == 0)
		return 0;
	err_set(d->err, d->errlen, "line %zu: %s", d->line, msg);
	errno = EINVAL;
	return -1;
}

/* Room for one more entry of list key k, which has n: the bound is
 * checked before anything is allocated. */
static int
dec_count(struct plan_dec *d, int k, size_t n)
{
	char msg[256];

	if (plan_rule_count(k, n + 1, msg, sizeof(msg)) == 0)
		return 0;
	err_set(d->err, d->errlen, "line %zu: %s", d->line, msg);
	errno = EINVAL;
	return -1;
}

/* Decode the current value as a string of at most max bytes. */
static int
dec_str(struct plan_dec *d, size_t max, char **out)
{
	const char *why = NULL;
	long n = plan_wire_unescape_len(d->v, d->vn, &why);
	char *s;

	if (n < 0)
		return derr(d, "%s", why);
	if ((size_t)n > max)
		return derr(d, "longer than %zu bytes", max);
	if ((s = malloc((size_t)n + 1)) == NULL)
		return derr(d, "out of memory");
	plan_wire_unescape(d->v, d->vn, s);
	*out = s;
	return 0;
}

/* Split the value into exactly n space-separated tokens of at most 23
 * bytes each, NUL-terminated in tok[i]. */
static int
dec_tokens(struct plan_dec *d, size_t n, char tok[][24])
{
	size_t i = 0, t = 0, start = 0;

	if (d->vn == 0)
		return derr(d, "missing value");
	for (i = 0; i <= d->vn; i++) {
		if (i < d->vn && (d->v[i] < 0x20 || d->v[i] >= 0x7f))
			return derr(d, "byte outside printable ASCII");
		if (i < d->vn && d->v[i] != ' ')
			continue;
		if (i == start)
			return derr(d, "empty field (extra space)");
		if (t == n)
			return derr(d, "too many fields (want %zu)", n);
		if (i - start > 23)
			return derr(d, "field too long");
		memcpy(tok[t], d->v + start, i - start);
		tok[t][i - start] = '\0';
		t++;
		start = i + 1;
	}
	if (t != n)
		return derr(d, "too few fields (want %zu)", n);
	return 0;
}

/* One canonical number in min..max: the range of the field's type (the
 * rules check the range launchplan(5) allows). */
static int
dec_u64(struct plan_dec *d, uint64_t min, uint64_t max, uint64_t *out)
{
	char tok[1][24];

	if (dec_tokens(d, 1, tok) == -1)
		return -1;
	if (scan_u64(tok[0], min, max, out) == -1)
		return derr(d, "%s: not a canonical number in %llu..%llu",
		    tok[0], (unsigned long long)min, (unsigned long long)max);
	return 0;
}

static int
dec_lim(struct plan_dec *d, const char *s, uint64_t *out)
{
	if (strcmp(s, "inf") == 0) {
		*out = PLAN_RLIM_INF;
		return 0;
	}
	if (scan_u64(s, 0, PLAN_MAX_RLIMIT_VAL, out) == -1)
		return derr(d, "%s: not inf nor a canonical number "
		    "up to 2^53-1", s);
	return 0;
}

/* Grow *arr (element size sz) to hold n+1 elements; n < bound checked
 * by the caller, so the size is bounded. */
static int
grow(struct plan_dec *d, void *arrp, size_t n, size_t sz)
{
	void **arr = arrp;
	void *na;

	/* Capacity after a grow at n = 0 or 2^m is 2n + 2 elements, which
	 * holds every count up to the next power of two plus a NULL slot. */
	if (n != 0 && (n & (n - 1)) != 0)
		return 0;
	na = realloc(*arr, (n ? 2 * n : 1) * sz + sz);
	if (na == NULL)
		return derr(d, "out of memory");
	*arr = na;
	return 0;
}

/* ---- one line per key: parse, run the key's rules, then the codec's
 * own rule for lists: canonical order ---- */

int
plan_dec_program(struct plan_dec *d, int k, struct plan *p)
{
	if (dec_str(d, PLAN_MAX_PATH_LEN, &p->program) == -1)
		return -1;
	return dec_rule(d, p, k, 0);
}

int
plan_dec_arg(struct plan_dec *d, int k, struct plan *p)
{
	if (dec_count(d, k, p->argc) == -1 ||
	    grow(d, &p->argv, p->argc, sizeof(char *)) == -1)
		return -1;
	p->argv[p->argc] = NULL;
	if (dec_str(d, PLAN_MAX_ARG_LEN, &p->argv[p->argc]) == -1)
		return -1;
	p->argv[++p->argc] = NULL;
	return dec_rule(d, p, k, p->argc - 1);
}

/* 64 lower-case hex digits at v into out. */
static int
dec_hex(struct plan_dec *d, const unsigned char *v, size_t n, uint8_t out[32])
{
	size_t i;

	if (n != SHA256_HEX_LEN)
		return derr(d, "want 64 lower-case hex digits");
	for (i = 0; i < n; i++)
		if (!((v[i] >= '0' && v[i] <= '9') ||
		    (v[i] >= 'a' && v[i] <= 'f')))
			return derr(d, "want 64 lower-case hex digits");
	if (sha256_unhex((const char *)v, n, out) == -1)
		return derr(d, "bad digest");
	return 0;
}

int
plan_dec_sha256(struct plan_dec *d, int k, struct plan *p)
{
	if (dec_hex(d, d->v, d->vn, p->sha256) == -1)
		return -1;
	p->has_sha256 = 1;
	return 0;
}

/* "script INDEX HEX": the index a canonical number, then one space and
 * the digest. */
int
plan_dec_script(struct plan_dec *d, int k, struct plan *p)
{
	const unsigned char *sp = memchr(d->v, ' ', d->vn);
	char tok[24];
	uint64_t v;
	size_t n;

	if (sp == NULL)
		return derr(d, "want INDEX HEX");
	n = (size_t)(sp - d->v);
	if (n == 0 || n >= sizeof(tok))
		return derr(d, "want INDEX HEX");
	memcpy(tok, d->v, n);
	tok[n] = '\0';
	/* Digits only: a NUL would end the number early, and the index
	 * then re-encode differently. */
	if (strspn(tok, "0123456789") != n)
		return derr(d, "want INDEX HEX (INDEX in decimal digits)");
	if (scan_u64(tok, 1, PLAN_MAX_ARGS, &v) == -1)
		return derr(d, "%s: not a canonical number in 1..%u", tok,
		    PLAN_MAX_ARGS);
	if (dec_hex(d, sp + 1, d->vn - n - 1, p->script_sha256) == -1)
		return -1;
	p->script_arg = (size_t)v;
	return dec_rule(d, p, k, 0);
}

int
plan_dec_fs(struct plan_dec *d, int k, struct plan *p)
{
	struct plan_fsrule *f;
	char e[96];

	if (dec_count(d, k, p->nfs) == -1 ||
	    grow(d, &p->fs, p->nfs, sizeof(*p->fs)) == -1)
		return -1;
	f = &p->fs[p->nfs];
	f->intent = (enum plan_intent)(k - K_RO);
	if (dec_str(d, PLAN_MAX_PATH_LEN, &f->path) == -1)
		return -1;
	p->nfs++;
	if (dec_rule(d, p, k, p->nfs - 1) == -1)
		return -1;
	if (p->nfs > 1 && f[-1].intent == f->intent &&
	    strcmp(f[-1].path, f->path) > 0)
		return (esc_name(f->path, e, sizeof(e)), derr(d, "%s: out of "
		    "order (paths are sorted by bytes)", e));
	return 0;
}

/* A string entry of list key k (at most max bytes) appended to *arr,
 * which has *n, and its rules run: 0, -1, or 1 when it sorts before the
 * entry above it by cmp (the caller says so). */
static int
dec_strs(struct plan_dec *d, int k, struct plan *p, char ***arr, size_t *n,
    size_t max, int (*cmp)(const char *, const char *))
{
	char *s;

	if (dec_count(d, k, *n) == -1 || grow(d, arr, *n, sizeof(char *)) == -1 ||
	    dec_str(d, max, &s) == -1)
		return -1;
	(*arr)[(*n)++] = s;
	if (dec_rule(d, p, k, *n - 1) == -1)
		return -1;
	return *n > 1 && cmp((*arr)[*n - 2], s) > 0;
}

int
plan_dec_follow(struct plan_dec *d, int k, struct plan *p)
{
	char e[96];
	int r = dec_strs(d, k, p, &p->follow, &p->nfollow, PLAN_MAX_PATH_LEN,
	    strcmp);

	if (r != 1)
		return r;
	esc_name(p->follow[p->nfollow - 1], e, sizeof(e));
	return derr(d, "%s: out of order (paths are sorted by bytes)", e);
}

int
plan_dec_preset(struct plan_dec *d, int k, struct plan *p)
{
	if (d->vn != 3 || memcmp(d->v, "sys", 3) != 0)
		return derr(d, "want sys");
	p->preset = PLAN_PRESET_SYS;
	return dec_rule(d, p, k, 0);
}

int
plan_dec_tmp(struct plan_dec *d, int k, struct plan *p)
{
	if (d->vn != 7 || memcmp(d->v, "private", 7) != 0)
		return derr(d, "want private");
	p->tmp = 1;
	return dec_rule(d, p, k, 0);
}

int
plan_dec_socket(struct plan_dec *d, int k, struct plan *p)
{
	if (d->vn == 4 && memcmp(d->v, "unix", 4) == 0) {
		if (p->sock)
			return derr(d, "unix: duplicate or after tcp");
		p->sock |= PLAN_SOCK_UNIX;
	} else if (d->vn == 3 && memcmp(d->v, "tcp", 3) == 0) {
		if (p->sock & PLAN_SOCK_TCP)
			return derr(d, "tcp: given twice");
		p->sock |= PLAN_SOCK_TCP;
	} else
		return derr(d, "want unix or tcp");
	return 0;
}

/* connect-tcp, bind-tcp: a port into the list at the row's arr and
 * len, in ascending order. */
int
plan_dec_ports(struct plan_dec *d, int k, struct plan *p)
{
	uint16_t **arr = PLAN_FIELD(p, plan_keys[k].arr);
	size_t *n = PLAN_FIELD(p, plan_keys[k].len);
	uint64_t v;

	if (dec_count(d, k, *n) == -1 || dec_u64(d, 0, 65535, &v) == -1 ||
	    grow(d, arr, *n, sizeof(uint16_t)) == -1)
		return -1;
	(*arr)[(*n)++] = (uint16_t)v;
	if (dec_rule(d, p, k, *n - 1) == -1)
		return -1;
	if (*n > 1 && (*arr)[*n - 2] > v)
		return derr(d, "%llu: out of order (ports ascend)",
		    (unsigned long long)v);
	return 0;
}

/* egress HOST PORT: the host bounded before it is copied; its form is
 * the rules' (a valid host is printable ASCII without escapes). */
int
plan_dec_egress(struct plan_dec *d, int k, struct plan *p)
{
	const unsigned char *sp = memchr(d->v, ' ', d->vn);
	struct plan_egress *e;
	size_t hl, i;
	uint64_t v;
	char *h;

	if (dec_count(d, k, p->negress) == -1)
		return -1;
	if (sp == NULL)
		return derr(d, "want HOST PORT");
	if ((hl = (size_t)(sp - d->v)) > PLAN_MAX_HOST_LEN)
		return derr(d, "host longer than %d bytes", PLAN_MAX_HOST_LEN);
	for (i = 0; i < hl; i++)
		if (d->v[i] < 0x21 || d->v[i] >= 0x7f)
			return derr(d, "host: byte outside printable ASCII");
	if (hl == 0)
		return derr(d, "empty field (extra space)");
	d->v += hl + 1, d->vn -= hl + 1;
	if (dec_u64(d, 0, 65535, &v) == -1 ||
	    grow(d, &p->egress, p->negress, sizeof(*p->egress)) == -1)
		return -1;
	if ((h = malloc(hl + 1)) == NULL)
		return derr(d, "out of memory");
	memcpy(h, sp - hl, hl);
	h[hl] = '\0';
	e = &p->egress[p->negress++];
	e->host = h, e->port = (uint16_t)v;
	if (dec_rule(d, p, k, p->negress - 1) == -1)
		return -1;
	if (p->negress > 1 && (strcmp(e[-1].host, h) > 0 ||
	    (strcmp(e[-1].host, h) == 0 && e[-1].port > e->port)))
		return derr(d, "%s %u: out of order (sorted by host, then "
		    "port)", h, e->port);
	return 0;
}

int
plan_dec_env(struct plan_dec *d, int k, struct plan *p)
{
	int r = dec_strs(d, k, p, &p->env, &p->nenv, PLAN_MAX_ENV_LEN,
	    plan_envcmp);
	const char *s;

	if (r != 1)
		return r;
	s = p->env[p->nenv - 1];
	return derr(d, "%.*s: out of order (sorted by name)",
	    (int)plan_envname_len(s), s);
}

int
plan_dec_rlimit(struct plan_dec *d, int k, struct plan *p)
{
	struct plan_rlimit r;
	char tok[3][24];

	if (dec_count(d, k, p->nrlim) == -1 || dec_tokens(d, 3, tok) == -1)
		return -1;
	if ((r.resource = plan_rlimit_lookup(tok[0])) == -1)
		return derr(d, "%s: unknown resource", tok[0]);
	if (dec_lim(d, tok[1], &r.soft) == -1 ||
	    dec_lim(d, tok[2], &r.hard) == -1 ||
	    grow(d, &p->rlim, p->nrlim, sizeof(r)) == -1)
		return -1;
	p->rlim[p->nrlim++] = r;
	if (dec_rule(d, p, k, p->nrlim - 1) == -1)
		return -1;
	if (p->nrlim > 1 && plan_rlim_index(p->rlim[p->nrlim - 2].resource) >
	    plan_rlim_index(r.resource))
		return derr(d, "%s: out of order", tok[0]);
	return 0;
}

/* memory-max, pids-max, timeout-ms: the number at the row's val, a
 * line only when not 0 ("none"). */
int
plan_dec_u64(struct plan_dec *d, int k, struct plan *p)
{
	if (dec_u64(d, 1, UINT64_MAX, PLAN_FIELD(p, plan_keys[k].val)) == -1)
		return -1;
	return dec_rule(d, p, k, 0);
}

int
plan_dec_cpu(struct plan_dec *d, int k, struct plan *p)
{
	char tok[2][24];

	if (dec_tokens(d, 2, tok) == -1)
		return -1;
	if (scan_u64(tok[0], 1, UINT64_MAX, &p->cpu_quota_us) == -1)
		return derr(d, "quota %s: not a canonical number", tok[0]);
	if (scan_u64(tok[1], 0, UINT64_MAX, &p->cpu_period_us) == -1)
		return derr(d, "period %s: not a canonical number", tok[1]);
	return dec_rule(d, p, k, 0);
}

/* uid, gid: any 32-bit number here, the rules say which; the id at the
 * row's val, its flag at has. */
int
plan_dec_id(struct plan_dec *d, int k, struct plan *p)
{
	uint64_t v;

	if (dec_u64(d, 0, UINT32_MAX, &v) == -1)
		return -1;
	*(uint32_t *)PLAN_FIELD(p, plan_keys[k].val) = (uint32_t)v;
	*(int *)PLAN_FIELD(p, plan_keys[k].has) = 1;
	return dec_rule(d, p, k, 0);
}

int
plan_dec_ack(struct plan_dec *d, int k, struct plan *p)
{
	int r = dec_strs(d, k, p, &p->ack_daemons, &p->nack, PLAN_MAX_ACK_LEN,
	    strcmp);

	if (r != 1)
		return r;
	return derr(d, "%s: out of order", p->ack_daemons[p->nack - 1]);
}

int
plan_dec_keep(struct plan_dec *d, int k, struct plan *p)
{
	uint64_t v;

	if (dec_count(d, k, p->nkeep) == -1 ||
	    dec_u64(d, 0, INT32_MAX, &v) == -1 ||
	    grow(d, &p->keep_fds, p->nkeep, sizeof(int)) == -1)
		return -1;
	p->keep_fds[p->nkeep++] = (int)v;
	if (dec_rule(d, p, k, p->nkeep - 1) == -1)
		return -1;
	if (p->nkeep > 1 && p->keep_fds[p->nkeep - 2] > (int)v)
		return derr(d, "%llu: out of order", (unsigned long long)v);
	return 0;
}

int
plan_dec_mode(struct plan_dec *d, int k, struct plan *p)
{
	if (d->vn == 6 && memcmp(d->v, "strict", 6) == 0)
		p->mode = PLAN_STRICT;
	else if (d->vn == 7 && memcmp(d->v, "degrade", 7) == 0)
		p->mode = PLAN_DEGRADE;
	else
		return derr(d, "want strict or degrade");
	return 0;
}

int
plan_dec_prompt(struct plan_dec *d, int k, struct plan *p)
{
	uint64_t v;

	if (dec_u64(d, 0, SIZE_MAX, &v) == -1)
		return -1;
	p->has_prompt = 1;
	p->prompt_len = (size_t)v;
	return dec_rule(d, p, k, 0);
}

/* ---- the text part, line by line ---- */

static int
dec_magic(struct plan_dec *d, const unsigned char *buf, size_t len)
{
	size_t mlen = sizeof(PLAN_MAGIC) - 1;

	/* No byte at all: the encoder before us in the pipeline failed
	 * (its own message is above), not a plan of another format. */
	if (len == 0) {
		err_set(d->err, d->errlen, "empty: no bytes (did the encoder "
		    "fail?)");
		errno = EINVAL;
		return -1;
	}
	if (len >= mlen + 1 && memcmp(buf, PLAN_MAGIC "\n", mlen + 1) == 0)
		return 0;
	if (len >= 11 && memcmp(buf, "borne-plan ", 11) == 0)
		return derr(d, "unsupported format version (want \""
		    PLAN_MAGIC "\")");
	return derr(d, "not a launch plan (first line must be \""
	    PLAN_MAGIC "\")");
}

/* The key of the line buf[0..ll) (kl bytes), its rank checked against
 * the last key seen: the index, or -1. */
static int
dec_key_of(struct plan_dec *d, const unsigned char *buf, size_t kl, int last)
{
	char kb[40];
	int k;

	for (k = 0; k < K_NKEYS; k++)
		if (strlen(plan_keys[k].name) == kl &&
		    memcmp(plan_keys[k].name, buf, kl) == 0)
			break;
	if (k == K_NKEYS) {
		esc_mem(buf, kl, kb, sizeof(kb), 0);
		return derr(d, "unknown key \"%s\"", kb);
	}
	d->key = plan_keys[k].name;
	if (k < last)
		return derr(d, "out of order (canonical order puts it "
		    "before %s)", plan_keys[last].name);
	if (k == last && !plan_keys[k].list)
		return derr(d, "given twice");
	return k;
}

/* One "key[ value]" line of ll bytes at buf (no newline): its key's
 * decoder.  Returns the key, or -1. */
static int
dec_one(struct plan_dec *d, const unsigned char *buf, size_t ll, int last,
    struct plan *p)
{
	size_t kl = 0;
	int k;

	while (kl < ll && buf[kl] != ' ')
		kl++;
	if ((k = dec_key_of(d, buf, kl, last)) == -1)
		return -1;
	d->v = buf + kl + (kl < ll);
	d->vn = kl < ll ? ll - kl - 1 : 0;
	if (kl < ll && d->vn == 0)
		return derr(d, "space without a value");
	if (kl == ll && !plan_keys[k].empty)
		return derr(d, "missing value");
	return plan_keys[k].dec(d, k, p) == -1 ? -1 : k;
}

/* Decode the lines after the magic up to "end"; *pos moves past it. */
static int
dec_lines(struct plan_dec *d, const unsigned char *buf, size_t len, size_t *pos,
    struct plan *p)
{
	const unsigned char *nl;
	int last = -1, seen_mode = 0;
	size_t avail, ll;

	for (;;) {
		d->line++;
		d->key = NULL;
		avail = len - *pos;
		if (avail > PLAN_MAX_TEXT - *pos)
			avail = PLAN_MAX_TEXT - *pos;
		if ((nl = memchr(buf + *pos, '\n', avail)) == NULL) {
			if (len - *pos > avail)
				return derr(d, "text part longer than %u bytes "
				    "without an end line", PLAN_MAX_TEXT);
			return derr(d, "truncated: no end line");
		}
		ll = (size_t)(nl - (buf + *pos));
		if (ll == 3 && memcmp(buf + *pos, "end", 3) == 0)
			break;
		if ((last = dec_one(d, buf + *pos, ll, last, p)) == -1)
			return -1;
		seen_mode |= last == K_MODE;
		*pos += ll + 1;
	}
	*pos += 4;
	d->key = NULL;
	if (p->program == NULL || p->argc == 0 || !seen_mode)
		return derr(d, "end: missing %s", p->program == NULL ?
		    "program" : p->argc == 0 ? "arg (argv[0])" : "mode");
	if (p->has_uid && !p->has_gid)
		return derr(d, "end: uid without gid (the payload would keep "
		    "group 0)");
	return 0;
}

/* The prompt: exactly prompt_len bytes after "end\n". */
static int
dec_prompt_bytes(struct plan_dec *d, const unsigned char *buf, size_t len,
    size_t pos, struct plan *p)
{
	if (len - pos < p->prompt_len)
		return derr(d, "truncated prompt: %zu of %zu bytes after end",
		    len - pos, p->prompt_len);
	if (len - pos > p->prompt_len)
		return derr(d, "%zu trailing bytes after %s", len - pos -
		    p->prompt_len, p->has_prompt ? "the prompt" : "end");
	if (p->prompt_len == 0)
		return 0;
	if ((p->prompt = malloc(p->prompt_len)) == NULL)
		return derr(d, "prompt: out of memory");
	memcpy(p->prompt, buf + pos, p->prompt_len);
	return 0;
}

int
plan_decode(const unsigned char *buf, size_t len, struct plan *p,
    char *err, size_t errlen)
{
	struct plan_dec d = { NULL, 0, 1, NULL, err, errlen };
	size_t pos = sizeof(PLAN_MAGIC);	/* magic and its newline */

	memset(p, 0, sizeof(*p));
	if (dec_magic(&d, buf, len) == -1 ||
	    dec_lines(&d, buf, len, &pos, p) == -1 ||
	    dec_prompt_bytes(&d, buf, len, pos, p) == -1)
		goto fail;
	/* Each line met its key's rules as it was read; the whole plan
	 * goes through the same rules once more, as plan_validate() runs
	 * them for planenc. */
	if (plan_validate(p, err, errlen) == -1)
		goto fail;
	sha256_buf(buf, len, p->digest);
	p->has_digest = 1;
	return 0;
fail:
	plan_free(p);
	errno = EINVAL;
	return -1;
}

int
plan_read_fd(int fd, struct plan *p, char *err, size_t errlen)
{
	const size_t max = (size_t)PLAN_MAX_TEXT + PLAN_MAX_PROMPT;
	unsigned char *buf;
	size_t len;
	int r;

	memset(p, 0, sizeof(*p));
	if (read_bounded(fd, max, &buf, &len) == -1) {
		if (errno == EFBIG)
			err_set(err, errlen, "plan longer than %zu bytes", max);
		else if (errno == ENOMEM)
			err_set(err, errlen, "reading plan: out of memory");
		else
			err_set_sys(err, errlen, "reading plan");
		return -1;
	}
	r = plan_decode(buf, len, p, err, errlen);
	free(buf);
	return r;
}
