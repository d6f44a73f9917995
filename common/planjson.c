/* SPDX-License-Identifier: ISC */
/* planjson: the JSON view of a plan (launchplan(5), "JSON"), for
 * planenc --decode. */
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

static json_t *
jopt(int has, uint64_t v)
{
	return has ? json_integer((json_int_t)v) : json_null();
}

/* format, plan_sha256, program, argv, sha256, script. */
static int
j_program(json_t *o, const struct plan *q)
{
	char hex[SHA256_HEX_LEN + 1];
	json_t *a = json_array();
	int bad = 0;
	size_t i;

	bad |= set(o, "format", json_string(PLAN_MAGIC));
	if (q->has_digest) {
		sha256_hex(q->digest, hex);
		bad |= set(o, "plan_sha256", json_string(hex));
	}
	bad |= set(o, "program", jstr(q->program ? q->program : ""));
	for (i = 0; a != NULL && i < q->argc; i++)
		bad |= add(a, jstr(q->argv[i]));
	bad |= set(o, "argv", a);
	if (q->has_sha256)
		sha256_hex(q->sha256, hex);
	bad |= set(o, "sha256", q->has_sha256 ? json_string(hex) :
	    json_null());
	if (q->script_arg != 0)
		sha256_hex(q->script_sha256, hex);
	return bad | set(o, "script", q->script_arg != 0 ? json_pack("{s:I,"
	    "s:s}", "arg", (json_int_t)q->script_arg, "sha256", hex) :
	    json_null());
}

/* ro, rw, rox, rwx, follow_symlinks, tmp, socket, connect_tcp,
 * bind_tcp, egress. */
static int
j_access(json_t *o, const struct plan *q)
{
	json_t *fs[4] = { json_array(), json_array(), json_array(),
	    json_array() };
	json_t *so = json_array(), *co = json_array(), *bi = json_array();
	json_t *fo = json_array(), *eg = json_array();
	int bad = 0;
	size_t i;

	for (i = 0; i < q->nfs; i++)
		bad |= fs[q->fs[i].intent % 4] == NULL ||
		    add(fs[q->fs[i].intent % 4], jstr(q->fs[i].path));
	bad |= set(o, "ro", fs[0]);
	bad |= set(o, "rw", fs[1]);
	bad |= set(o, "rox", fs[2]);
	bad |= set(o, "rwx", fs[3]);
	for (i = 0; fo != NULL && i < q->nfollow; i++)
		bad |= add(fo, jstr(q->follow[i]));
	bad |= set(o, "follow_symlinks", fo);
	bad |= set(o, "preset", q->preset == PLAN_PRESET_SYS ?
	    json_string("sys") : json_null());
	bad |= set(o, "tmp", json_boolean(q->tmp));
	if (so && (q->sock & PLAN_SOCK_UNIX))
		bad |= add(so, json_string("unix"));
	if (so && (q->sock & PLAN_SOCK_TCP))
		bad |= add(so, json_string("tcp"));
	bad |= set(o, "socket", so);
	for (i = 0; co != NULL && i < q->nconnect; i++)
		bad |= add(co, json_integer(q->connect_tcp[i]));
	bad |= set(o, "connect_tcp", co);
	for (i = 0; bi != NULL && i < q->nbind; i++)
		bad |= add(bi, json_integer(q->bind_tcp[i]));
	bad |= set(o, "bind_tcp", bi);
	for (i = 0; eg != NULL && i < q->negress; i++)
		bad |= add(eg, json_pack("{s:o,s:i}", "host",
		    jstr(q->egress[i].host), "port", (int)q->egress[i].port));
	return bad | set(o, "egress", eg);
}

/* env, rlimit, memory_max, pids_max, cpu_max, timeout_ms, uid, gid. */
static int
j_process(json_t *o, const struct plan *q)
{
	json_t *env = json_object(), *rl = json_object();
	const char *name;
	int bad = 0;
	size_t i, nl;
	char *n;

	for (i = 0; env != NULL && i < q->nenv; i++) {
		nl = plan_envname_len(q->env[i]);
		n = strndup(q->env[i], nl);
		bad |= n == NULL || set(env, n, jstr(q->env[i] + nl + 1));
		free(n);
	}
	bad |= set(o, "env", env);
	for (i = 0; rl != NULL && i < q->nrlim; i++) {
		name = plan_rlimit_name(q->rlim[i].resource);
		bad |= set(rl, name ? name : "?", json_pack("{s:o,s:o}",
		    "soft", jlim(q->rlim[i].soft), "hard",
		    jlim(q->rlim[i].hard)));
	}
	bad |= set(o, "rlimit", rl);
	bad |= set(o, "memory_max", jopt(q->mem_max != 0, q->mem_max));
	bad |= set(o, "pids_max", jopt(q->pids_max != 0, q->pids_max));
	bad |= set(o, "cpu_max", q->cpu_quota_us ? json_pack("{s:I,s:I}",
	    "quota_us", (json_int_t)q->cpu_quota_us, "period_us",
	    (json_int_t)q->cpu_period_us) : json_null());
	bad |= set(o, "timeout_ms", jopt(q->timeout_ms != 0, q->timeout_ms));
	bad |= set(o, "uid", jopt(q->has_uid, q->uid));
	return bad | set(o, "gid", jopt(q->has_gid, q->gid));
}

/* ack_daemon, keep_fd, mode, prompt (its length and SHA-256). */
static int
j_run(json_t *o, const struct plan *q)
{
	char hex[SHA256_HEX_LEN + 1];
	json_t *ack = json_array(), *keep = json_array();
	uint8_t d[SHA256_LEN];
	int bad = 0;
	size_t i;

	for (i = 0; ack != NULL && i < q->nack; i++)
		bad |= add(ack, jstr(q->ack_daemons[i]));
	bad |= set(o, "ack_daemon", ack);
	for (i = 0; keep != NULL && i < q->nkeep; i++)
		bad |= add(keep, json_integer(q->keep_fds[i]));
	bad |= set(o, "keep_fd", keep);
	bad |= set(o, "mode", json_string(q->mode == PLAN_DEGRADE ?
	    "degrade" : "strict"));
	if (!q->has_prompt)
		return bad | set(o, "prompt", json_null());
	sha256_buf(q->prompt ? q->prompt : (const unsigned char *)"",
	    q->prompt_len, d);
	sha256_hex(d, hex);
	return bad | set(o, "prompt", json_pack("{s:I,s:s}", "length",
	    (json_int_t)q->prompt_len, "sha256", hex));
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
	int bad = 1;

	/* Lists in canonical order, whatever their order in p. */
	if (plan_sorted_copy(p, &q) == 0 && (o = json_object()) != NULL) {
		/* One after the other: the keys keep this order. */
		bad = j_program(o, &q);
		bad |= j_access(o, &q);
		bad |= j_process(o, &q);
		bad |= j_run(o, &q);
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
