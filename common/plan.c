/* SPDX-License-Identifier: ISC */
/* plan: the LaunchPlan codec (launchplan(5)), encoding side: the keys, the
 * wire escaping and the canonical encoder.  The decoder is plandec.c, the
 * rules a plan must obey planrules.c, the JSON view planjson.c. */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "planint.h"

const struct plan_keydef plan_keys[K_NKEYS] = {
	[K_PROGRAM] = { "program", 0 },
	[K_ARG] = { "arg", 1 },
	[K_SHA256] = { "sha256", 0 },
	[K_SCRIPT] = { "script", 0 },
	[K_RO] = { "ro", 1 },
	[K_RW] = { "rw", 1 },
	[K_ROX] = { "rox", 1 },
	[K_RWX] = { "rwx", 1 },
	[K_FOLLOW] = { "follow", 1 },
	[K_PRESET] = { "preset", 0 },
	[K_TMP] = { "tmp", 0 },
	[K_SOCKET] = { "socket", 1 },
	[K_CONNECT] = { "connect-tcp", 1 },
	[K_BIND] = { "bind-tcp", 1 },
	[K_EGRESS] = { "egress", 1 },
	[K_ENV] = { "env", 1 },
	[K_RLIMIT] = { "rlimit", 1 },
	[K_MEMORY] = { "memory-max", 0 },
	[K_PIDS] = { "pids-max", 0 },
	[K_CPU] = { "cpu-max", 0 },
	[K_TIMEOUT] = { "timeout-ms", 0 },
	[K_UID] = { "uid", 0 },
	[K_GID] = { "gid", 0 },
	[K_ACK] = { "ack-daemon", 1 },
	[K_KEEP] = { "keep-fd", 1 },
	[K_MODE] = { "mode", 0 },
	[K_PROMPT] = { "prompt", 0 },
};

const char *const plan_intent_key[4] = { "ro", "rw", "rox", "rwx" };

/* ---- wire escaping ---- */

int
plan_wire_must_escape(unsigned char b, size_t i, size_t n)
{
	if (b == '\\' || b < 0x20 || b >= 0x7f)
		return 1;
	return b == ' ' && (i == 0 || i + 1 == n);
}

size_t
plan_wire_escape(const char *s, size_t n, char *out)
{
	static const char oct[] = "01234567";
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];

		if (plan_wire_must_escape(b, i, n)) {
			if (out) {
				out[k] = '\\';
				out[k + 1] = oct[b >> 6];
				out[k + 2] = oct[(b >> 3) & 7];
				out[k + 3] = oct[b & 7];
			}
			k += 4;
		} else {
			if (out)
				out[k] = (char)b;
			k++;
		}
	}
	return k;
}

/* ---- encoder ---- */


struct out {
	char *b;	/* NULL: count only */
	size_t n;
};

static void
put(struct out *o, const char *s, size_t n)
{
	if (o->b)
		memcpy(o->b + o->n, s, n);
	o->n += n;
}

static void
puts_(struct out *o, const char *s)
{
	put(o, s, strlen(s));
}

/* "key[ escaped-value]\n"; an empty value is the key alone. */
static void
put_str(struct out *o, const char *key, const char *v)
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
put_fmt(struct out *o, const char *fmt, ...)
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
cmp_u16(const void *a, const void *b)
{
	uint16_t x = *(const uint16_t *)a, y = *(const uint16_t *)b;

	return (x > y) - (x < y);
}

/* Egress destinations: by host bytes, then port. */
static int
cmp_egress(const void *a, const void *b)
{
	const struct plan_egress *x = a, *y = b;
	int c = strcmp(x->host, y->host);

	if (c != 0)
		return c;
	return (x->port > y->port) - (x->port < y->port);
}

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
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
	int x = plan_rlim_index(((const struct plan_rlimit *)a)->resource);
	int y = plan_rlim_index(((const struct plan_rlimit *)b)->resource);

	return (x > y) - (x < y);
}

/* Emit the text part of a plan whose lists are already sorted (or count
 * it when out is NULL: the order does not change the length). */
static size_t
emit(const struct plan *p, char *buf)
{
	struct out o = { buf, 0 };
	char hex[SHA256_HEX_LEN + 1], s1[24], s2[24];
	size_t i;

	puts_(&o, PLAN_MAGIC "\n");
	put_str(&o, "program", p->program ? p->program : "");
	for (i = 0; i < p->argc; i++)
		put_str(&o, "arg", p->argv[i] ? p->argv[i] : "");
	if (p->has_sha256) {
		sha256_hex(p->sha256, hex);
		put_fmt(&o, "sha256 %s\n", hex);
	}
	if (p->script_arg != 0) {
		sha256_hex(p->script_sha256, hex);
		put_fmt(&o, "script %zu %s\n", p->script_arg, hex);
	}
	for (i = 0; i < p->nfs; i++)
		put_str(&o, plan_intent_key[p->fs[i].intent % 4],
		    p->fs[i].path ? p->fs[i].path : "");
	for (i = 0; i < p->nfollow; i++)
		put_str(&o, "follow", p->follow[i] ? p->follow[i] : "");
	if (p->preset == PLAN_PRESET_SYS)
		puts_(&o, "preset sys\n");
	if (p->tmp)
		puts_(&o, "tmp private\n");
	if (p->sock & PLAN_SOCK_UNIX)
		puts_(&o, "socket unix\n");
	if (p->sock & PLAN_SOCK_TCP)
		puts_(&o, "socket tcp\n");
	for (i = 0; i < p->nconnect; i++)
		put_fmt(&o, "connect-tcp %u\n", p->connect_tcp[i]);
	for (i = 0; i < p->nbind; i++)
		put_fmt(&o, "bind-tcp %u\n", p->bind_tcp[i]);
	for (i = 0; i < p->negress; i++) {
		const char *h = p->egress[i].host ? p->egress[i].host : "";

		/* A valid host needs no escape: this is put_str's form. */
		puts_(&o, "egress ");
		o.n += plan_wire_escape(h, strlen(h), o.b ? o.b + o.n : NULL);
		put_fmt(&o, " %u\n", p->egress[i].port);
	}
	for (i = 0; i < p->nenv; i++)
		put_str(&o, "env", p->env[i] ? p->env[i] : "");
	for (i = 0; i < p->nrlim; i++) {
		const char *name = plan_rlimit_name(p->rlim[i].resource);

		put_lim(s1, sizeof(s1), p->rlim[i].soft);
		put_lim(s2, sizeof(s2), p->rlim[i].hard);
		put_fmt(&o, "rlimit %s %s %s\n", name ? name : "?", s1, s2);
	}
	if (p->mem_max)
		put_fmt(&o, "memory-max %llu\n",
		    (unsigned long long)p->mem_max);
	if (p->pids_max)
		put_fmt(&o, "pids-max %llu\n",
		    (unsigned long long)p->pids_max);
	if (p->cpu_quota_us)
		put_fmt(&o, "cpu-max %llu %llu\n",
		    (unsigned long long)p->cpu_quota_us,
		    (unsigned long long)p->cpu_period_us);
	if (p->timeout_ms)
		put_fmt(&o, "timeout-ms %llu\n",
		    (unsigned long long)p->timeout_ms);
	if (p->has_uid)
		put_fmt(&o, "uid %lu\n", (unsigned long)p->uid);
	if (p->has_gid)
		put_fmt(&o, "gid %lu\n", (unsigned long)p->gid);
	for (i = 0; i < p->nack; i++)
		put_str(&o, "ack-daemon", p->ack_daemons[i]);
	for (i = 0; i < p->nkeep; i++)
		put_fmt(&o, "keep-fd %d\n", p->keep_fds[i]);
	puts_(&o, p->mode == PLAN_DEGRADE ? "mode degrade\n" :
	    "mode strict\n");
	if (p->has_prompt)
		put_fmt(&o, "prompt %zu\n", p->prompt_len);
	puts_(&o, "end\n");
	return o.n;
}

size_t
plan_text_len(const struct plan *p)
{
	return emit(p, NULL);
}

int
plan_sorted_copy(const struct plan *p, struct plan *q)
{
	*q = *p;
	q->fs = NULL, q->connect_tcp = NULL, q->bind_tcp = NULL;
	q->follow = NULL, q->egress = NULL;
	q->env = NULL, q->rlim = NULL, q->ack_daemons = NULL;
	q->keep_fds = NULL;
#define DUP(f, n, cmp) do {						\
		if ((n) > 0) {						\
			if ((q->f = calloc((n), sizeof(*p->f))) == NULL)\
				return -1;				\
			memcpy(q->f, p->f, (n) * sizeof(*p->f));	\
			qsort(q->f, (n), sizeof(*p->f), cmp);		\
		}							\
	} while (0)
	DUP(fs, p->nfs, cmp_fs);
	DUP(follow, p->nfollow, cmp_str);
	DUP(connect_tcp, p->nconnect, cmp_u16);
	DUP(bind_tcp, p->nbind, cmp_u16);
	DUP(egress, p->negress, cmp_egress);
	DUP(env, p->nenv, cmp_env);
	DUP(rlim, p->nrlim, cmp_rlim);
	DUP(ack_daemons, p->nack, cmp_str);
	DUP(keep_fds, p->nkeep, cmp_int);
#undef DUP
	return 0;
}

void
plan_sorted_free(struct plan *q)
{
	free(q->fs);
	free(q->follow);
	free(q->connect_tcp);
	free(q->bind_tcp);
	free(q->egress);
	free(q->env);
	free(q->rlim);
	free(q->ack_daemons);
	free(q->keep_fds);
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
	*out = (unsigned char *)buf;
	*outlen = n + p->prompt_len;
	return 0;
}

void
plan_free(struct plan *p)
{
	size_t i;

	free(p->program);
	if (p->argv)
		for (i = 0; i < p->argc; i++)
			free(p->argv[i]);
	free(p->argv);
	for (i = 0; i < p->nfs; i++)
		free(p->fs[i].path);
	free(p->fs);
	for (i = 0; i < p->nfollow; i++)
		free(p->follow[i]);
	free(p->follow);
	free(p->connect_tcp);
	free(p->bind_tcp);
	for (i = 0; i < p->negress; i++)
		free(p->egress[i].host);
	free(p->egress);
	for (i = 0; i < p->nenv; i++)
		free(p->env[i]);
	free(p->env);
	free(p->rlim);
	for (i = 0; i < p->nack; i++)
		free(p->ack_daemons[i]);
	free(p->ack_daemons);
	free(p->keep_fds);
	free(p->prompt);
	memset(p, 0, sizeof(*p));
}

