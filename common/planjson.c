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

json_t *
plan_to_json(const struct plan *p)
{
	char hex[SHA256_HEX_LEN + 1];
	json_t *o, *a, *fs[3], *env, *rl;
	struct plan q;
	size_t i;
	int bad = 0;

	if (plan_sorted_copy(p, &q) == -1) {
		plan_sorted_free(&q);
		return NULL;
	}
	o = json_object();
	if (o == NULL) {
		plan_sorted_free(&q);
		return NULL;
	}
#define SET(k, v) (bad |= json_object_set_new(o, (k), (v)) == -1)
	SET("format", json_string(PLAN_MAGIC));
	if (q.has_digest) {
		sha256_hex(q.digest, hex);
		SET("plan_sha256", json_string(hex));
	}
	SET("program", jstr(q.program ? q.program : ""));
	a = json_array();
	for (i = 0; i < q.argc; i++)
		bad |= json_array_append_new(a, jstr(q.argv[i])) == -1;
	SET("argv", a);
	if (q.has_sha256) {
		sha256_hex(q.sha256, hex);
		SET("sha256", json_string(hex));
	} else
		SET("sha256", json_null());
	for (i = 0; i < 3; i++)
		fs[i] = json_array();
	for (i = 0; i < q.nfs; i++)
		bad |= json_array_append_new(fs[q.fs[i].intent % 3],
		    jstr(q.fs[i].path)) == -1;
	SET("ro", fs[0]);
	SET("rw", fs[1]);
	SET("rox", fs[2]);
	a = json_array();
	if (q.sock & PLAN_SOCK_UNIX)
		bad |= json_array_append_new(a, json_string("unix")) == -1;
	if (q.sock & PLAN_SOCK_TCP)
		bad |= json_array_append_new(a, json_string("tcp")) == -1;
	SET("socket", a);
	a = json_array();
	for (i = 0; i < q.nconnect; i++)
		bad |= json_array_append_new(a,
		    json_integer(q.connect_tcp[i])) == -1;
	SET("connect_tcp", a);
	a = json_array();
	for (i = 0; i < q.nbind; i++)
		bad |= json_array_append_new(a, json_integer(q.bind_tcp[i])) ==
		    -1;
	SET("bind_tcp", a);
	env = json_object();
	for (i = 0; i < q.nenv; i++) {
		size_t nl = plan_envname_len(q.env[i]);
		char *name = strndup(q.env[i], nl);

		bad |= name == NULL || json_object_set_new(env, name,
		    jstr(q.env[i] + nl + 1)) == -1;
		free(name);
	}
	SET("env", env);
	rl = json_object();
	for (i = 0; i < q.nrlim; i++) {
		const char *name = plan_rlimit_name(q.rlim[i].resource);

		bad |= json_object_set_new(rl, name ? name : "?",
		    json_pack("{s:o,s:o}", "soft", jlim(q.rlim[i].soft),
		    "hard", jlim(q.rlim[i].hard))) == -1;
	}
	SET("rlimit", rl);
	SET("memory_max", q.mem_max ? json_integer((json_int_t)q.mem_max) :
	    json_null());
	SET("pids_max", q.pids_max ? json_integer((json_int_t)q.pids_max) :
	    json_null());
	SET("cpu_max", q.cpu_quota_us ? json_pack("{s:I,s:I}", "quota_us",
	    (json_int_t)q.cpu_quota_us, "period_us",
	    (json_int_t)q.cpu_period_us) : json_null());
	SET("timeout_ms", q.timeout_ms ?
	    json_integer((json_int_t)q.timeout_ms) : json_null());
	SET("uid", q.has_uid ? json_integer((json_int_t)q.uid) : json_null());
	SET("gid", q.has_gid ? json_integer((json_int_t)q.gid) : json_null());
	a = json_array();
	for (i = 0; i < q.nack; i++)
		bad |= json_array_append_new(a, jstr(q.ack_daemons[i])) == -1;
	SET("ack_daemon", a);
	a = json_array();
	for (i = 0; i < q.nkeep; i++)
		bad |= json_array_append_new(a, json_integer(q.keep_fds[i])) ==
		    -1;
	SET("keep_fd", a);
	SET("mode", json_string(q.mode == PLAN_DEGRADE ? "degrade" :
	    "strict"));
	if (q.has_prompt) {
		sha256_buf(q.prompt ? q.prompt : (const unsigned char *)"",
		    q.prompt_len, q.digest);
		sha256_hex(q.digest, hex);
		SET("prompt", json_pack("{s:I,s:s}", "length",
		    (json_int_t)q.prompt_len, "sha256", hex));
	} else
		SET("prompt", json_null());
#undef SET
	plan_sorted_free(&q);
	if (bad) {
		json_decref(o);
		errno = ENOMEM;
		return NULL;
	}
	return o;
}
