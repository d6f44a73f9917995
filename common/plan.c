/* SPDX-License-Identifier: ISC */
/* plan: the LaunchPlan codec (launchplan(5)), encoding side: the wire
 * escaping, each key's lines (plankeys.c names them) and the canonical
 * encoder. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "planint.h"

/* ---- encoder ---- */

struct plan_out {
	char *b;	/* NULL: count only */
	size_t n;
};

static void
put(struct plan_out *o, const char *s, size_t n)
{
	if (o->b)
		memcpy(o->b + o->n, s, n);
	o->n += n;
}

static void
puts_(struct plan_out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* "key[ escaped-value]\n"; an empty value is the key alone. */
static void
put_str(struct plan_out *o, const char *key, const char *v)
{
	size_t n = strlen(v);

	puts_(o, key);
	if (n > 0) {
		put(o, " ", 1);
		o->n += plan_wire_escape(v, n, o->b ? o->b + o->n : NULL);
	}
	put(o, "\n", 1);
}

static void
put_fmt(struct plan_out *o, const char *fmt, ...)
{
	char line[128];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n > 0)
		put(o, line, (size_t)n);
}

static void
put_lim(char *buf, size_t size, uint64_t v)
{
	if (v == PLAN_RLIM_INF)
		snprintf(buf, size, "inf");
	else
		snprintf(buf, size, "%llu", (unsigned long long)v);
}

/* qsort comparators. */
static int
cmp_fs(const void *a, const void *b)
{
	const struct plan_fsrule *x = a, *y = b;

	if (x->intent != y->intent)
		return x->intent < y->intent ? -1 : 1;
	return strcmp(x->path, y->path);
}

static int
cmp_num(long long x, long long y)
{
	return (x > y) - (x < y);
}

static int
cmp_u16(const void *a, const void *b)
{
	return cmp_num(*(const uint16_t *)a, *(const uint16_t *)b);
}

/* Egress destinations: by host bytes, then port. */
static int
cmp_egress(const void *a, const void *b)
{
	const struct plan_egress *x = a, *y = b;
	int c = strcmp(x->host, y->host);

	return c != 0 ? c : cmp_num(x->port, y->port);
}

static int
cmp_int(const void *a, const void *b)
{
	return cmp_num(*(const int *)a, *(const int *)b);
}

static int
cmp_env(const void *a, const void *b)
{
	return plan_envcmp(*(char *const *)a, *(char *const *)b);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
cmp_rlim(const void *a, const void *b)
{
	return cmp_num(plan_rlim_index(((const struct plan_rlimit *)a)->resource),
	    plan_rlim_index(((const struct plan_rlimit *)b)->resource));
}

/* ---- each key's lines, for p's lists sorted ---- */

void
plan_enc_program(struct plan_out *o, const struct plan *p, int k)
{
	put_str(o, "program", p->program ? p->program : "");
}

void
plan_enc_arg(struct plan_out *o, const struct plan *p, int k)
{
	size_t i;

	for (i = 0; i < p->argc; i++)
		put_str(o, "arg", p->argv[i] ? p->argv[i] : "");
}

static void
put_hex(struct plan_out *o, const char *key, size_t index,
    const uint8_t d[32])
{
	char hex[SHA256_HEX_LEN + 1];

	sha256_hex(d, hex);
	if (index != 0)
		put_fmt(o, "%s %zu %s\n", key, index, hex);
	else
		put_fmt(o, "%s %s\n", key, hex);
}

void
plan_enc_sha256(struct plan_out *o, const struct plan *p, int k)
{
	if (p->has_sha256)
		put_hex(o, "sha256", 0, p->sha256);
}

void
plan_enc_script(struct plan_out *o, const struct plan *p, int k)
{
	if (p->script_arg != 0)
		put_hex(o, "script", p->script_arg, p->script_sha256);
}

/* The rules of k's intent (the list is sorted by intent first). */
void
plan_enc_fs(struct plan_out *o, const struct plan *p, int k)
{
	size_t i;

	for (i = 0; i < p->nfs; i++)
		if (PLAN_FS_KEY(p->fs[i].intent) == k)
			put_str(o, plan_keys[k].name,
			    p->fs[i].path ? p->fs[i].path : "");
}

static void
put_strs(struct plan_out *o, const char *key, char *const *v, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		put_str(o, key, v[i] ? v[i] : "");
}

void
plan_enc_follow(struct plan_out *o, const struct plan *p, int k)
{
	put_strs(o, "follow", p->follow, p->nfollow);
}

void
plan_enc_preset(struct plan_out *o, const struct plan *p, int k)
{
	if (p->preset == PLAN_PRESET_SYS)
		puts_(o, "preset sys\n");
}

void
plan_enc_tmp(struct plan_out *o, const struct plan *p, int k)
{
	if (p->tmp)
		puts_(o, "tmp private\n");
}

void
plan_enc_socket(struct plan_out *o, const struct plan *p, int k)
{
	if (p->sock & PLAN_SOCK_UNIX)
		puts_(o, "socket unix\n");
	if (p->sock & PLAN_SOCK_TCP)
		puts_(o, "socket tcp\n");
}

/* connect-tcp, bind-tcp: the ports at the row's arr and len. */
void
plan_enc_ports(struct plan_out *o, const struct plan *p, int k)
{
	const uint16_t *v = *(uint16_t *const *)PLAN_CFIELD(p,
	    plan_keys[k].arr);
	size_t i, n = *(const size_t *)PLAN_CFIELD(p, plan_keys[k].len);

	for (i = 0; i < n; i++)
		put_fmt(o, "%s %u\n", plan_keys[k].name, v[i]);
}

void
plan_enc_egress(struct plan_out *o, const struct plan *p, int k)
{
	size_t i;

	for (i = 0; i < p->negress; i++) {
		const char *h = p->egress[i].host ? p->egress[i].host : "";

		/* A valid host needs no escape: this is put_str's form. */
		puts_(o, "egress ");
		o->n += plan_wire_escape(h, strlen(h), o->b ? o->b + o->n :
		    NULL);
		put_fmt(o, " %u\n", p->egress[i].port);
	}
}

void
plan_enc_env(struct plan_out *o, const struct plan *p, int k)
{
	put_strs(o, "env", p->env, p->nenv);
}

void
plan_enc_rlimit(struct plan_out *o, const struct plan *p, int k)
{
	char s1[24], s2[24];
	size_t i;

	for (i = 0; i < p->nrlim; i++) {
		const char *name = plan_rlimit_name(p->rlim[i].resource);

		put_lim(s1, sizeof(s1), p->rlim[i].soft);
		put_lim(s2, sizeof(s2), p->rlim[i].hard);
		put_fmt(o, "rlimit %s %s %s\n", name ? name : "?", s1, s2);
	}
}

/* memory-max, pids-max, timeout-ms: the number at the row's val,
 * written only when it is not 0 (0: none). */
void
plan_enc_u64(struct plan_out *o, const struct plan *p, int k)
{
	uint64_t v = *(const uint64_t *)PLAN_CFIELD(p, plan_keys[k].val);

	if (v != 0)
		put_fmt(o, "%s %llu\n", plan_keys[k].name,
		    (unsigned long long)v);
}

void
plan_enc_cpu(struct plan_out *o, const struct plan *p, int k)
{
	if (p->cpu_quota_us)
		put_fmt(o, "cpu-max %llu %llu\n",
		    (unsigned long long)p->cpu_quota_us,
		    (unsigned long long)p->cpu_period_us);
}

/* uid, gid: the id at the row's val, when its flag at has is set. */
void
plan_enc_id(struct plan_out *o, const struct plan *p, int k)
{
	if (*(const int *)PLAN_CFIELD(p, plan_keys[k].has))
		put_fmt(o, "%s %lu\n", plan_keys[k].name, (unsigned long)
		    *(const uint32_t *)PLAN_CFIELD(p, plan_keys[k].val));
}

void
plan_enc_ack(struct plan_out *o, const struct plan *p, int k)
{
	put_strs(o, "ack-daemon", p->ack_daemons, p->nack);
}

void
plan_enc_keep(struct plan_out *o, const struct plan *p, int k)
{
	size_t i;

	for (i = 0; i < p->nkeep; i++)
		put_fmt(o, "keep-fd %d\n", p->keep_fds[i]);
}

void
plan_enc_mode(struct plan_out *o, const struct plan *p, int k)
{
	puts_(o, p->mode == PLAN_DEGRADE ? "mode degrade\n" :
	    "mode strict\n");
}

void
plan_enc_prompt(struct plan_out *o, const struct plan *p, int k)
{
	if (p->has_prompt)
		put_fmt(o, "prompt %zu\n", p->prompt_len);
}

/* The text part of a plan whose lists are already sorted (or its length
 * when buf is NULL: the order does not change the length). */
static size_t
emit(const struct plan *p, char *buf)
{
	struct plan_out o = { buf, 0 };
	int k;

	puts_(&o, PLAN_MAGIC "\n");
	for (k = 0; k < K_NKEYS; k++)
		plan_keys[k].enc(&o, p, k);
	puts_(&o, "end\n");
	return o.n;
}

size_t
plan_text_len(const struct plan *p)
{
	return emit(p, NULL);
}

static void
drop_str(void *e)
{
	free(*(char **)e);
}

static void
drop_fs(void *e)
{
	free(((struct plan_fsrule *)e)->path);
}

static void
drop_egress(void *e)
{
	free(((struct plan_egress *)e)->host);
}

/* Each kind of list entry: its size, its canonical order (NULL: the
 * order given is the meaning), what an entry owns (NULL: nothing). */
static const struct {
	size_t size;
	int (*cmp)(const void *, const void *);
	void (*drop)(void *);
} elems[PLAN_ELEM_NKINDS] = {
	[PLAN_ELEM_ARGV] = { sizeof(char *), NULL, drop_str },
	[PLAN_ELEM_STR] = { sizeof(char *), cmp_str, drop_str },
	[PLAN_ELEM_ENV] = { sizeof(char *), cmp_env, drop_str },
	[PLAN_ELEM_FS] = { sizeof(struct plan_fsrule), cmp_fs, drop_fs },
	[PLAN_ELEM_U16] = { sizeof(uint16_t), cmp_u16, NULL },
	[PLAN_ELEM_INT] = { sizeof(int), cmp_int, NULL },
	[PLAN_ELEM_EGRESS] = { sizeof(struct plan_egress), cmp_egress,
	    drop_egress },
	[PLAN_ELEM_RLIM] = { sizeof(struct plan_rlimit), cmp_rlim, NULL },
};

/* The array of key k's list in p, and its length. */
#define ARR(p, k) ((void **)((char *)(p) + plan_keys[k].arr))
#define LEN(p, k) (*(const size_t *)((const char *)(p) + plan_keys[k].len))

/* Whether key k has a list of its own that plan_sorted_copy sorts. */
static int
sorted(int k)
{
	return plan_keys[k].elem != PLAN_ELEM_NONE &&
	    elems[plan_keys[k].elem].cmp != NULL;
}

int
plan_sorted_copy(const struct plan *p, struct plan *q)
{
	size_t n, sz;
	int k;

	*q = *p;
	for (k = 0; k < K_NKEYS; k++)
		if (sorted(k))
			*ARR(q, k) = NULL;
	for (k = 0; k < K_NKEYS; k++) {
		if (!sorted(k) || (n = LEN(p, k)) == 0)
			continue;
		sz = elems[plan_keys[k].elem].size;
		if ((*ARR(q, k) = calloc(n, sz)) == NULL)
			return -1;
		memcpy(*ARR(q, k), *ARR(p, k), n * sz);
		qsort(*ARR(q, k), n, sz, elems[plan_keys[k].elem].cmp);
	}
	return 0;
}

void
plan_sorted_free(struct plan *q)
{
	int k;

	for (k = 0; k < K_NKEYS; k++)
		if (sorted(k))
			free(*ARR(q, k));
}

int
plan_encode(const struct plan *p, unsigned char **out, size_t *outlen)
{
	struct plan q;
	size_t n;
	char *buf;

	if (plan_validate(p, NULL, 0) == -1)
		return errno = EINVAL, -1;
	if (plan_sorted_copy(p, &q) == -1) {
		plan_sorted_free(&q);
		return errno = ENOMEM, -1;
	}
	n = emit(&q, NULL);
	if ((buf = malloc(n + p->prompt_len + 1)) == NULL) {
		plan_sorted_free(&q);
		return errno = ENOMEM, -1;
	}
	emit(&q, buf);
	plan_sorted_free(&q);
	if (p->prompt_len)
		memcpy(buf + n, p->prompt, p->prompt_len);
	buf[n + p->prompt_len] = '\0';	/* a text-only plan is a string */
	*out = (unsigned char *)buf;
	*outlen = n + p->prompt_len;
	return 0;
}

void
plan_free(struct plan *p)
{
	size_t i, n;
	char *a;
	int k;

	for (k = 0; k < K_NKEYS; k++) {
		if (plan_keys[k].elem == PLAN_ELEM_NONE)
			continue;
		a = *ARR(p, k);
		n = a != NULL ? LEN(p, k) : 0;
		for (i = 0; i < n && elems[plan_keys[k].elem].drop; i++)
			elems[plan_keys[k].elem].drop(a +
			    i * elems[plan_keys[k].elem].size);
		free(a);
	}
	free(p->program);
	free(p->prompt);
	memset(p, 0, sizeof(*p));
}
