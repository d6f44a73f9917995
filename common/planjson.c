/* SPDX-License-Identifier: ISC */
/* planjson: the JSON view of a plan (launchplan(5), "JSON"), for
 * planenc --decode: each key's member, named by its row (plankeys.c). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "hash.h"
#include "planint.h"

/* A string as JSON: itself when valid UTF-8, else {"escaped": "..."} in
 * the launchplan(5) escaping (lossless, ASCII). */
static json_t *
jstr(const char *s)
{
	json_t *j = json_string(s);
	size_t n;
	char *e;

	if (j != NULL)
		return j;
	n = strlen(s);
	if ((e = malloc(plan_wire_escape(s, n, NULL) + 1)) == NULL)
		return NULL;
	e[plan_wire_escape(s, n, e)] = '\0';
	j = json_pack("{s:s}", "escaped", e);
	free(e);
	return j;
}

static json_t *
jlim(uint64_t v)
{
	return v == PLAN_RLIM_INF ? json_string("inf") :
	    json_integer((json_int_t)v);
}

/* Set o[k] to v (stolen); 1 when that failed (v NULL included). */
static int
set(json_t *o, const char *k, json_t *v)
{
	return json_object_set_new(o, k, v) == -1;
}

/* Append v (stolen) to array a; 1 when that failed. */
static int
add(json_t *a, json_t *v)
{
	return json_array_append_new(a, v) == -1;
}

/* v when it was made whole (!bad), else NULL (v released). */
static json_t *
jend(json_t *v, int bad)
{
	if (!bad)
		return v;
	json_decref(v);
	return NULL;
}

/* An array of v's n strings, NULL when that failed. */
static json_t *
jstrs(char *const *v, size_t n)
{
	json_t *a = json_array();
	int bad = a == NULL;
	size_t i;

	for (i = 0; !bad && i < n; i++)
		bad |= add(a, jstr(v[i]));
	return jend(a, bad);
}

static json_t *
jints(const void *v, size_t n, int u16)
{
	json_t *a = json_array();
	int bad = a == NULL;
	size_t i;

	for (i = 0; !bad && i < n; i++)
		bad |= add(a, json_integer(u16 ? ((const uint16_t *)v)[i] :
		    ((const int *)v)[i]));
	return jend(a, bad);
}

static json_t *
jopt(int has, uint64_t v)
{
	return has ? json_integer((json_int_t)v) : json_null();
}

static json_t *
jhex(int has, const uint8_t d[32])
{
	char hex[SHA256_HEX_LEN + 1];

	if (!has)
		return json_null();
	sha256_hex(d, hex);
	return json_string(hex);
}

/* ---- each key's member, for q's lists sorted ---- */

json_t *
plan_json_program(const struct plan *q, int k)
{
	return jstr(q->program ? q->program : "");
}

json_t *
plan_json_arg(const struct plan *q, int k)
{
	return jstrs(q->argv, q->argc);
}

json_t *
plan_json_sha256(const struct plan *q, int k)
{
	return jhex(q->has_sha256, q->sha256);
}

json_t *
plan_json_script(const struct plan *q, int k)
{
	char hex[SHA256_HEX_LEN + 1];

	if (q->script_arg == 0)
		return json_null();
	sha256_hex(q->script_sha256, hex);
	return json_pack("{s:I,s:s}", "arg", (json_int_t)q->script_arg,
	    "sha256", hex);
}

/* The paths of key k's intent. */
json_t *
plan_json_fs(const struct plan *q, int k)
{
	json_t *a = json_array();
	int bad = a == NULL;
	size_t i;

	for (i = 0; !bad && i < q->nfs; i++)
		if (PLAN_FS_KEY(q->fs[i].intent) == k)
			bad |= add(a, jstr(q->fs[i].path));
	return jend(a, bad);
}

json_t *
plan_json_follow(const struct plan *q, int k)
{
	return jstrs(q->follow, q->nfollow);
}

json_t *
plan_json_preset(const struct plan *q, int k)
{
	return q->preset == PLAN_PRESET_SYS ? json_string("sys") :
	    json_null();
}

json_t *
plan_json_tmp(const struct plan *q, int k)
{
	return json_boolean(q->tmp);
}

json_t *
plan_json_socket(const struct plan *q, int k)
{
	json_t *a = json_array();
	int bad = a == NULL;

	if (!bad && (q->sock & PLAN_SOCK_UNIX))
		bad |= add(a, json_string("unix"));
	if (!bad && (q->sock & PLAN_SOCK_TCP))
		bad |= add(a, json_string("tcp"));
	return jend(a, bad);
}

json_t *
plan_json_ports(const struct plan *q, int k)
{
	return jints(*(uint16_t *const *)PLAN_CFIELD(q, plan_keys[k].arr),
	    *(const size_t *)PLAN_CFIELD(q, plan_keys[k].len), 1);
}

json_t *
plan_json_egress(const struct plan *q, int k)
{
	json_t *a = json_array();
	int bad = a == NULL;
	size_t i;

	for (i = 0; !bad && i < q->negress; i++)
		bad |= add(a, json_pack("{s:o,s:i}", "host",
		    jstr(q->egress[i].host), "port", (int)q->egress[i].port));
	return jend(a, bad);
}

json_t *
plan_json_env(const struct plan *q, int k)
{
	json_t *o = json_object();
	int bad = o == NULL;
	size_t i, nl;
	char *n;

	for (i = 0; !bad && i < q->nenv; i++) {
		nl = plan_envname_len(q->env[i]);
		n = strndup(q->env[i], nl);
		bad |= n == NULL || set(o, n, jstr(q->env[i] + nl + 1));
		free(n);
	}
	return jend(o, bad);
}

json_t *
plan_json_rlimit(const struct plan *q, int k)
{
	json_t *o = json_object();
	const char *name;
	int bad = o == NULL;
	size_t i;

	for (i = 0; !bad && i < q->nrlim; i++) {
		name = plan_rlimit_name(q->rlim[i].resource);
		bad |= set(o, name ? name : "?", json_pack("{s:o,s:o}",
		    "soft", jlim(q->rlim[i].soft), "hard",
		    jlim(q->rlim[i].hard)));
	}
	return jend(o, bad);
}

json_t *
plan_json_u64(const struct plan *q, int k)
{
	uint64_t v = *(const uint64_t *)PLAN_CFIELD(q, plan_keys[k].val);

	return jopt(v != 0, v);
}

json_t *
plan_json_cpu(const struct plan *q, int k)
{
	return q->cpu_quota_us ? json_pack("{s:I,s:I}", "quota_us",
	    (json_int_t)q->cpu_quota_us, "period_us",
	    (json_int_t)q->cpu_period_us) : json_null();
}

json_t *
plan_json_id(const struct plan *q, int k)
{
	return jopt(*(const int *)PLAN_CFIELD(q, plan_keys[k].has),
	    *(const uint32_t *)PLAN_CFIELD(q, plan_keys[k].val));
}

json_t *
plan_json_ack(const struct plan *q, int k)
{
	return jstrs(q->ack_daemons, q->nack);
}

json_t *
plan_json_keep(const struct plan *q, int k)
{
	return jints(q->keep_fds, q->nkeep, 0);
}

json_t *
plan_json_mode(const struct plan *q, int k)
{
	return json_string(q->mode == PLAN_DEGRADE ? "degrade" : "strict");
}

/* The prompt as its length and SHA-256. */
json_t *
plan_json_prompt(const struct plan *q, int k)
{
	char hex[SHA256_HEX_LEN + 1];
	uint8_t d[SHA256_LEN];

	if (!q->has_prompt)
		return json_null();
	sha256_buf(q->prompt ? q->prompt : (const unsigned char *)"",
	    q->prompt_len, d);
	sha256_hex(d, hex);
	return json_pack("{s:I,s:s}", "length", (json_int_t)q->prompt_len,
	    "sha256", hex);
}

/* warnings: what the plan grants on purpose that weakens a rule
 * (every rwx path), one line each. */
static int
j_warnings(json_t *o, const struct plan *q)
{
	json_t *w = json_array();
	char buf[256];
	int bad = 0;
	size_t i;

	for (i = 0; w != NULL && i < q->nfs; i++)
		if (q->fs[i].intent == PLAN_RWX)
			bad |= add(w, jstr(plan_rwx_warning(q->fs[i].path, buf,
			    sizeof(buf))));
	return bad | set(o, "warnings", w);
}

json_t *
plan_to_json(const struct plan *p)
{
	struct plan q;
	json_t *o = NULL;
	int bad = 1, k;

	/* Lists in canonical order, whatever their order in p; the members
	 * in the keys' order, between the format and the warnings. */
	if (plan_sorted_copy(p, &q) == 0 && (o = json_object()) != NULL) {
		bad = set(o, "format", json_string(PLAN_MAGIC));
		if (q.has_digest)
			bad |= set(o, "plan_sha256", jhex(1, q.digest));
		for (k = 0; k < K_NKEYS; k++)
			bad |= set(o, plan_keys[k].json,
			    plan_keys[k].tojson(&q, k));
		bad |= j_warnings(o, &q);
	}
	plan_sorted_free(&q);
	if (bad) {
		json_decref(o);
		errno = ENOMEM;
		return NULL;
	}
	return o;
}
