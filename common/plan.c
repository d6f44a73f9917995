/* SPDX-License-Identifier: ISC */
/* plan: the LaunchPlan codec (launchplan(5)): strict decoder, canonical
 * encoder, validation shared by both, and the JSON view. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include <jansson.h>

#include "err.h"
#include "hash.h"
#include "plan.h"
#include "scan.h"

/* Keys in canonical order: a key's rank is its index. */
enum {
	K_PROGRAM, K_ARG, K_SHA256, K_RO, K_RW, K_ROX, K_SOCKET, K_CONNECT,
	K_BIND, K_ENV, K_RLIMIT, K_MEMORY, K_PIDS, K_CPU, K_TIMEOUT, K_UID,
	K_GID, K_ACK, K_KEEP, K_MODE, K_PROMPT, K_NKEYS
};

static const struct {
	const char *name;
	int repeat;	/* may appear on several lines */
} keys[K_NKEYS] = {
	[K_PROGRAM] = { "program", 0 },
	[K_ARG] = { "arg", 1 },
	[K_SHA256] = { "sha256", 0 },
	[K_RO] = { "ro", 1 },
	[K_RW] = { "rw", 1 },
	[K_ROX] = { "rox", 1 },
	[K_SOCKET] = { "socket", 1 },
	[K_CONNECT] = { "connect-tcp", 1 },
	[K_BIND] = { "bind-tcp", 1 },
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

static const char *const intent_key[] = { "ro", "rw", "rox" };

/* rlimits in RLIMIT_* order, which is also their canonical order.  zero:
 * whether 0 is a sensible limit (core 0 is; nofile 0 is not). */
static const struct {
	const char *name;
	int resource;
	int zero;
} rlims[] = {
	{ "cpu", RLIMIT_CPU, 0 },
	{ "fsize", RLIMIT_FSIZE, 1 },
	{ "data", RLIMIT_DATA, 0 },
	{ "stack", RLIMIT_STACK, 0 },
	{ "core", RLIMIT_CORE, 1 },
	{ "rss", RLIMIT_RSS, 1 },
	{ "nproc", RLIMIT_NPROC, 0 },
	{ "nofile", RLIMIT_NOFILE, 0 },
	{ "memlock", RLIMIT_MEMLOCK, 1 },
	{ "as", RLIMIT_AS, 0 },
	{ "locks", RLIMIT_LOCKS, 1 },
	{ "sigpending", RLIMIT_SIGPENDING, 1 },
	{ "msgqueue", RLIMIT_MSGQUEUE, 1 },
	{ "nice", RLIMIT_NICE, 1 },
	{ "rtprio", RLIMIT_RTPRIO, 1 },
	{ "rttime", RLIMIT_RTTIME, 1 },
};
#define NRLIMS (sizeof(rlims) / sizeof(rlims[0]))

const char *
plan_rlimit_name(int resource)
{
	size_t i;

	for (i = 0; i < NRLIMS; i++)
		if (rlims[i].resource == resource)
			return rlims[i].name;
	return NULL;
}

int
plan_rlimit_lookup(const char *name)
{
	size_t i;

	for (i = 0; i < NRLIMS; i++)
		if (strcmp(rlims[i].name, name) == 0)
			return rlims[i].resource;
	return -1;
}

static int
rlim_index(int resource)
{
	size_t i;

	for (i = 0; i < NRLIMS; i++)
		if (rlims[i].resource == resource)
			return (int)i;
	return -1;
}

/* ---- escaping ---- */

/* Whether byte b at index i of an n-byte string is written as \ooo. */
static int
must_escape(unsigned char b, size_t i, size_t n)
{
	if (b == '\\' || b < 0x20 || b >= 0x7f)
		return 1;
	return b == ' ' && (i == 0 || i + 1 == n);
}

/* Append the escaped form of s[0..n) at out (when out is not NULL);
 * return its length. */
static size_t
escape(const char *s, size_t n, char *out)
{
	static const char oct[] = "01234567";
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];

		if (must_escape(b, i, n)) {
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

void
plan_escape_short(const char *s, size_t n, char *out, size_t outsize)
{
	static const char oct[] = "01234567";
	size_t i, k = 0;

	if (outsize == 0)
		return;
	for (i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];
		char tmp[4] = { (char)b };
		size_t w = 1;

		if (must_escape(b, i, n)) {
			tmp[0] = '\\';
			tmp[1] = oct[b >> 6];
			tmp[2] = oct[(b >> 3) & 7];
			tmp[3] = oct[b & 7];
			w = 4;
		}
		if (k + w + 4 > outsize) {	/* room for "..." and NUL */
			if (k + 4 <= outsize)
				memcpy(out + k, "...", 3), k += 3;
			break;
		}
		memcpy(out + k, tmp, w);
		k += w;
	}
	out[k] = '\0';
}

/* Check the escaped value v[0..n): canonical escapes only, no NUL.
 * Return the decoded length, or -1 with *why set. */
static long
unescape_len(const unsigned char *v, size_t n, const char **why)
{
	size_t i = 0, k = 0;

	while (i < n) {
		unsigned char b = v[i];

		if (b == '\\') {
			unsigned d;

			if (n - i < 4 || v[i + 1] < '0' || v[i + 1] > '3' ||
			    v[i + 2] < '0' || v[i + 2] > '7' ||
			    v[i + 3] < '0' || v[i + 3] > '7') {
				*why = "bad escape (want \\ooo, 000 to 377)";
				return -1;
			}
			d = (unsigned)(v[i + 1] - '0') << 6 |
			    (unsigned)(v[i + 2] - '0') << 3 |
			    (unsigned)(v[i + 3] - '0');
			if (d == 0) {
				*why = "NUL byte (\\000) not allowed";
				return -1;
			}
			if (!must_escape((unsigned char)d, k,
			    i + 4 == n ? k + 1 : k + 2)) {
				*why = "escape of a byte written literally "
				    "(not canonical)";
				return -1;
			}
			i += 4;
		} else {
			if (b < 0x20 || b >= 0x7f) {
				*why = "raw byte outside printable ASCII "
				    "(must be \\ooo)";
				return -1;
			}
			if (b == ' ' && (i == 0 || i + 1 == n)) {
				*why = "leading or trailing space must be "
				    "\\040";
				return -1;
			}
			i++;
		}
		k++;
	}
	return (long)k;
}

/* Decode a value already checked by unescape_len() into out (k bytes). */
static void
unescape(const unsigned char *v, size_t n, char *out)
{
	size_t i = 0, k = 0;

	while (i < n) {
		if (v[i] == '\\') {
			out[k++] = (char)((v[i + 1] - '0') << 6 |
			    (v[i + 2] - '0') << 3 | (v[i + 3] - '0'));
			i += 4;
		} else
			out[k++] = (char)v[i++];
	}
	out[k] = '\0';
}

/* ---- field rules, shared by plan_validate() and the decoder ---- */

const char *
plan_path_why(const char *s)
{
	size_t n, i;

	if (s == NULL || *s == '\0')
		return "empty path";
	if (*s != '/')
		return "not an absolute path";
	n = strlen(s);
	if (n > PLAN_MAX_PATH_LEN)
		return "path longer than 4095 bytes";
	if (n > 1 && s[n - 1] == '/')
		return "path not normalised (trailing /)";
	for (i = 0; i < n; i++) {
		const char *c;
		size_t len;

		if (s[i] != '/')
			continue;
		c = s + i + 1;
		len = strcspn(c, "/");
		if (len == 0 && i + 1 < n)
			return "path not normalised (//)";
		if ((len == 1 && c[0] == '.') ||
		    (len == 2 && c[0] == '.' && c[1] == '.'))
			return "path not normalised (. or .. component)";
	}
	return NULL;
}

const char *
plan_envname_why(const char *s, size_t n)
{
	size_t i;

	if (n == 0)
		return "empty env name";
	for (i = 0; i < n; i++) {
		char c = s[i];
		int alpha = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
		    c == '_';

		if (!alpha && !(i > 0 && c >= '0' && c <= '9'))
			return "env name fails [A-Za-z_][A-Za-z0-9_]*";
	}
	return NULL;
}

const char *
plan_env_why(const char *nv)
{
	const char *eq;

	if (nv == NULL)
		return "missing env entry";
	if (strlen(nv) > PLAN_MAX_ENV_LEN)
		return "NAME=VALUE longer than 32768 bytes";
	if ((eq = strchr(nv, '=')) == NULL)
		return "env entry without =";
	return plan_envname_why(nv, (size_t)(eq - nv));
}

static const char *
ack_why(const char *s)
{
	size_t i, n = strlen(s);

	if (n == 0 || n > PLAN_MAX_ACK_LEN)
		return "daemon name empty or longer than 64 bytes";
	for (i = 0; i < n; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
		    (i > 0 && (c == '-' || c == '_' || c == '.'))))
			return "daemon name fails [a-z0-9][a-z0-9._-]*";
	}
	return NULL;
}

static size_t
envname_len(const char *nv)
{
	return strcspn(nv, "=");
}

/* Compare env entries by name (byte order, a prefix first). */
static int
envcmp(const char *a, const char *b)
{
	size_t na = envname_len(a), nb = envname_len(b);
	int c = memcmp(a, b, na < nb ? na : nb);

	if (c != 0)
		return c;
	return na < nb ? -1 : na > nb;
}

static const char *
rlimit_why(const struct plan_rlimit *r)
{
	int i = rlim_index(r->resource);

	if (i < 0)
		return "unknown resource";
	if ((r->soft != PLAN_RLIM_INF && r->soft > PLAN_MAX_RLIMIT_VAL) ||
	    (r->hard != PLAN_RLIM_INF && r->hard > PLAN_MAX_RLIMIT_VAL))
		return "value over 2^53-1 (use inf)";
	if (r->soft > r->hard)
		return "soft limit above hard limit";
	if (!rlims[i].zero && (r->soft == 0 || r->hard == 0))
		return "zero limit for this resource";
	return NULL;
}

static void
esc(const char *s, char out[96])
{
	plan_escape_short(s, strlen(s), out, 96);
}

/* Length of the text part; written to out unless out is NULL. */
static size_t emit(const struct plan *p, char *out);

int
plan_validate(const struct plan *p, char *err, size_t errlen)
{
	const char *why;
	char e1[96];
	size_t i, j;

#define FAIL(...) do { err_set(err, errlen, __VA_ARGS__); \
		errno = EINVAL; return -1; } while (0)

	if (p->program == NULL)
		FAIL("program: missing");
	if ((why = plan_path_why(p->program)) != NULL)
		FAIL("program %s: %s", (esc(p->program, e1), e1), why);
	if (p->argc == 0 || p->argv == NULL)
		FAIL("arg: argv[0] missing");
	if (p->argc > PLAN_MAX_ARGS)
		FAIL("arg: more than %d arguments", PLAN_MAX_ARGS);
	for (i = 0; i < p->argc; i++) {
		if (p->argv[i] == NULL)
			FAIL("arg %zu: missing", i);
		if (strlen(p->argv[i]) > PLAN_MAX_ARG_LEN)
			FAIL("arg %zu: longer than %d bytes", i,
			    PLAN_MAX_ARG_LEN);
	}
	if (p->nfs > PLAN_MAX_PATHS)
		FAIL("ro/rw/rox: more than %d paths", PLAN_MAX_PATHS);
	for (i = 0; i < p->nfs; i++) {
		const struct plan_fsrule *f = &p->fs[i];

		if (f->intent != PLAN_RO && f->intent != PLAN_RW &&
		    f->intent != PLAN_ROX)
			FAIL("fs rule %zu: unknown intent", i);
		if ((why = plan_path_why(f->path)) != NULL)
			FAIL("%s %s: %s", intent_key[f->intent],
			    (esc(f->path ? f->path : "", e1), e1), why);
		for (j = 0; j < i; j++) {
			if (strcmp(p->fs[j].path, f->path) != 0)
				continue;
			esc(f->path, e1);
			if (p->fs[j].intent == f->intent)
				FAIL("%s %s: same path given twice",
				    intent_key[f->intent], e1);
			FAIL("%s %s: same path also given as %s",
			    intent_key[f->intent], e1,
			    intent_key[p->fs[j].intent]);
		}
	}
	if (p->sock & ~(PLAN_SOCK_UNIX | PLAN_SOCK_TCP))
		FAIL("socket: unknown socket shape");
	for (int b = 0; b < 2; b++) {
		const uint16_t *v = b ? p->bind_tcp : p->connect_tcp;
		size_t n = b ? p->nbind : p->nconnect;
		const char *k = b ? "bind-tcp" : "connect-tcp";

		if (n > PLAN_MAX_PORTS)
			FAIL("%s: more than %d ports", k, PLAN_MAX_PORTS);
		for (i = 0; i < n; i++) {
			if (v[i] == 0)
				FAIL("%s 0: port outside 1-65535", k);
			if (!(p->sock & PLAN_SOCK_TCP))
				FAIL("%s %u: without the tcp socket right", k,
				    v[i]);
			for (j = 0; j < i; j++)
				if (v[j] == v[i])
					FAIL("%s %u: same port given twice", k,
					    v[i]);
		}
	}
	if (p->nenv > PLAN_MAX_ENV)
		FAIL("env: more than %d entries", PLAN_MAX_ENV);
	for (i = 0; i < p->nenv; i++) {
		if ((why = plan_env_why(p->env[i])) != NULL)
			FAIL("env %s: %s",
			    (esc(p->env[i] ? p->env[i] : "", e1), e1), why);
		for (j = 0; j < i; j++)
			if (envcmp(p->env[i], p->env[j]) == 0)
				FAIL("env %.*s: same name given twice",
				    (int)envname_len(p->env[i]), p->env[i]);
	}
	if (p->nrlim > PLAN_MAX_RLIMITS)
		FAIL("rlimit: more than %d entries", PLAN_MAX_RLIMITS);
	for (i = 0; i < p->nrlim; i++) {
		const char *name = plan_rlimit_name(p->rlim[i].resource);

		if ((why = rlimit_why(&p->rlim[i])) != NULL)
			FAIL("rlimit %s: %s", name ? name : "?", why);
		for (j = 0; j < i; j++)
			if (p->rlim[j].resource == p->rlim[i].resource)
				FAIL("rlimit %s: same resource given twice",
				    name);
	}
	if (p->mem_max != 0 &&
	    (p->mem_max < PLAN_MIN_MEMORY || p->mem_max > PLAN_MAX_MEMORY))
		FAIL("memory-max %llu: outside 1M..1P bytes",
		    (unsigned long long)p->mem_max);
	if (p->pids_max > PLAN_MAX_PIDS)
		FAIL("pids-max %llu: over %d", (unsigned long long)p->pids_max,
		    PLAN_MAX_PIDS);
	if (p->cpu_quota_us == 0 && p->cpu_period_us != 0)
		FAIL("cpu-max: period without quota");
	if (p->cpu_quota_us != 0 &&
	    (p->cpu_quota_us < PLAN_MIN_CPU_US ||
	    p->cpu_quota_us > PLAN_MAX_CPU_QUOTA))
		FAIL("cpu-max %llu: quota outside 1000..1000000000 us",
		    (unsigned long long)p->cpu_quota_us);
	if (p->cpu_quota_us != 0 &&
	    (p->cpu_period_us < PLAN_MIN_CPU_US ||
	    p->cpu_period_us > PLAN_MAX_CPU_PERIOD))
		FAIL("cpu-max: period %llu outside 1000..1000000 us",
		    (unsigned long long)p->cpu_period_us);
	if (p->timeout_ms > PLAN_MAX_TIMEOUT_MS)
		FAIL("timeout-ms %llu: over 31 days",
		    (unsigned long long)p->timeout_ms);
	if (p->has_uid && (p->uid == 0 || (uint64_t)p->uid > PLAN_MAX_ID))
		FAIL("uid %lu: not a subordinate uid (1..4294967294)",
		    (unsigned long)p->uid);
	if (p->has_gid && (p->gid == 0 || (uint64_t)p->gid > PLAN_MAX_ID))
		FAIL("gid %lu: not a subordinate gid (1..4294967294)",
		    (unsigned long)p->gid);
	if (p->has_uid && !p->has_gid)
		FAIL("uid: without gid (the payload would keep group 0)");
	if (p->nack > PLAN_MAX_ACK)
		FAIL("ack-daemon: more than %d names", PLAN_MAX_ACK);
	for (i = 0; i < p->nack; i++) {
		if (p->ack_daemons[i] == NULL)
			FAIL("ack-daemon: missing name");
		if ((why = ack_why(p->ack_daemons[i])) != NULL)
			FAIL("ack-daemon %s: %s",
			    (esc(p->ack_daemons[i], e1), e1), why);
		for (j = 0; j < i; j++)
			if (strcmp(p->ack_daemons[i], p->ack_daemons[j]) == 0)
				FAIL("ack-daemon %s: same name given twice",
				    p->ack_daemons[i]);
	}
	if (p->nkeep > PLAN_MAX_KEEP)
		FAIL("keep-fd: more than %d descriptors", PLAN_MAX_KEEP);
	for (i = 0; i < p->nkeep; i++) {
		if (p->keep_fds[i] < 3 || p->keep_fds[i] > PLAN_MAX_FD)
			FAIL("keep-fd %d: outside 3..%d", p->keep_fds[i],
			    PLAN_MAX_FD);
		for (j = 0; j < i; j++)
			if (p->keep_fds[j] == p->keep_fds[i])
				FAIL("keep-fd %d: same descriptor given twice",
				    p->keep_fds[i]);
	}
	if (p->mode != PLAN_STRICT && p->mode != PLAN_DEGRADE)
		FAIL("mode: neither strict nor degrade");
	if (!p->has_prompt && p->prompt_len != 0)
		FAIL("prompt: length without prompt");
	if (p->prompt_len > PLAN_MAX_PROMPT)
		FAIL("prompt: longer than %u bytes", PLAN_MAX_PROMPT);
	if (p->prompt_len != 0 && p->prompt == NULL)
		FAIL("prompt: missing bytes");
	if (emit(p, NULL) > PLAN_MAX_TEXT)
		FAIL("plan: text part longer than %u bytes", PLAN_MAX_TEXT);
#undef FAIL
	return 0;
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
		o->n += escape(v, n, o->b ? o->b + o->n : NULL);
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

static int
cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static int
cmp_env(const void *a, const void *b)
{
	return envcmp(*(char *const *)a, *(char *const *)b);
}

static int
cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int
cmp_rlim(const void *a, const void *b)
{
	int x = rlim_index(((const struct plan_rlimit *)a)->resource);
	int y = rlim_index(((const struct plan_rlimit *)b)->resource);

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
	for (i = 0; i < p->nfs; i++)
		put_str(&o, intent_key[p->fs[i].intent % 3],
		    p->fs[i].path ? p->fs[i].path : "");
	if (p->sock & PLAN_SOCK_UNIX)
		puts_(&o, "socket unix\n");
	if (p->sock & PLAN_SOCK_TCP)
		puts_(&o, "socket tcp\n");
	for (i = 0; i < p->nconnect; i++)
		put_fmt(&o, "connect-tcp %u\n", p->connect_tcp[i]);
	for (i = 0; i < p->nbind; i++)
		put_fmt(&o, "bind-tcp %u\n", p->bind_tcp[i]);
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

/* Sorted shallow copies of p's lists into q (q's arrays are owned by the
 * caller, their elements still by p).  Returns 0 or -1 (ENOMEM). */
static int
sorted_copy(const struct plan *p, struct plan *q)
{
	*q = *p;
	q->fs = NULL, q->connect_tcp = NULL, q->bind_tcp = NULL;
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
	DUP(connect_tcp, p->nconnect, cmp_u16);
	DUP(bind_tcp, p->nbind, cmp_u16);
	DUP(env, p->nenv, cmp_env);
	DUP(rlim, p->nrlim, cmp_rlim);
	DUP(ack_daemons, p->nack, cmp_str);
	DUP(keep_fds, p->nkeep, cmp_int);
#undef DUP
	return 0;
}

static void
sorted_free(struct plan *q)
{
	free(q->fs);
	free(q->connect_tcp);
	free(q->bind_tcp);
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
	if (sorted_copy(p, &q) == -1) {
		sorted_free(&q);
		return errno = ENOMEM, -1;
	}
	n = emit(&q, NULL);
	if ((buf = malloc(n + p->prompt_len + 1)) == NULL) {
		sorted_free(&q);
		return errno = ENOMEM, -1;
	}
	emit(&q, buf);
	sorted_free(&q);
	if (p->prompt_len)
		memcpy(buf + n, p->prompt, p->prompt_len);
	*out = (unsigned char *)buf;
	*outlen = n + p->prompt_len;
	return 0;
}

/* ---- decoder ---- */

struct dec {
	const unsigned char *v;	/* value of the current line */
	size_t vn;
	size_t line;
	const char *key;
	char *err;
	size_t errlen;
};

static int
derr(struct dec *d, const char *fmt, ...)
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

/* Decode the current value as a string of at most max bytes. */
static int
dec_str(struct dec *d, size_t max, char **out)
{
	const char *why = NULL;
	long n = unescape_len(d->v, d->vn, &why);
	char *s;

	if (n < 0)
		return derr(d, "%s", why);
	if ((size_t)n > max)
		return derr(d, "longer than %zu bytes", max);
	if ((s = malloc((size_t)n + 1)) == NULL)
		return derr(d, "out of memory");
	unescape(d->v, d->vn, s);
	*out = s;
	return 0;
}

/* Split the value into exactly n space-separated tokens of at most 23
 * bytes each, NUL-terminated in tok[i]. */
static int
dec_tokens(struct dec *d, size_t n, char tok[][24])
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

static int
dec_u64(struct dec *d, uint64_t min, uint64_t max, uint64_t *out)
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
dec_lim(struct dec *d, const char *s, uint64_t *out)
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
grow(struct dec *d, void *arrp, size_t n, size_t sz)
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

static int
dec_line(struct dec *d, int k, struct plan *p)
{
	char tok[3][24], e1[96];
	const char *why;
	uint64_t v;
	char *s;
	size_t i;

	switch (k) {
	case K_PROGRAM:
		if (dec_str(d, PLAN_MAX_PATH_LEN, &p->program) == -1)
			return -1;
		if ((why = plan_path_why(p->program)) != NULL)
			return (esc(p->program, e1),
			    derr(d, "%s: %s", e1, why));
		return 0;
	case K_ARG:
		if (p->argc >= PLAN_MAX_ARGS)
			return derr(d, "more than %d arguments", PLAN_MAX_ARGS);
		if (grow(d, &p->argv, p->argc, sizeof(char *)) == -1)
			return -1;
		p->argv[p->argc] = NULL;
		if (dec_str(d, PLAN_MAX_ARG_LEN, &p->argv[p->argc]) == -1)
			return -1;
		p->argv[++p->argc] = NULL;
		return 0;
	case K_SHA256:
		if (d->vn != SHA256_HEX_LEN)
			return derr(d, "want 64 lower-case hex digits");
		for (i = 0; i < d->vn; i++)
			if (!((d->v[i] >= '0' && d->v[i] <= '9') ||
			    (d->v[i] >= 'a' && d->v[i] <= 'f')))
				return derr(d, "want 64 lower-case hex digits");
		if (sha256_unhex((const char *)d->v, d->vn, p->sha256) == -1)
			return derr(d, "bad digest");
		p->has_sha256 = 1;
		return 0;
	case K_RO:
	case K_RW:
	case K_ROX: {
		struct plan_fsrule *f;

		if (p->nfs >= PLAN_MAX_PATHS)
			return derr(d, "more than %d paths", PLAN_MAX_PATHS);
		if (grow(d, &p->fs, p->nfs, sizeof(*p->fs)) == -1)
			return -1;
		f = &p->fs[p->nfs];
		f->intent = k == K_RO ? PLAN_RO :
		    k == K_RW ? PLAN_RW : PLAN_ROX;
		if (dec_str(d, PLAN_MAX_PATH_LEN, &f->path) == -1)
			return -1;
		p->nfs++;
		esc(f->path, e1);
		if ((why = plan_path_why(f->path)) != NULL)
			return derr(d, "%s: %s", e1, why);
		for (i = 0; i + 1 < p->nfs; i++) {
			int c = strcmp(p->fs[i].path, f->path);

			if (c == 0 && p->fs[i].intent == f->intent)
				return derr(d, "%s: same path given twice",
				    e1);
			if (c == 0)
				return derr(d, "%s: same path also given as %s",
				    e1, intent_key[p->fs[i].intent]);
			if (p->fs[i].intent == f->intent && c > 0)
				return derr(d, "%s: out of order (paths are "
				    "sorted by bytes)", e1);
		}
		return 0;
	}
	case K_SOCKET:
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
	case K_CONNECT:
	case K_BIND: {
		uint16_t **arr = k == K_CONNECT ? &p->connect_tcp : &p->bind_tcp;
		size_t *n = k == K_CONNECT ? &p->nconnect : &p->nbind;

		if (*n >= PLAN_MAX_PORTS)
			return derr(d, "more than %d ports", PLAN_MAX_PORTS);
		if (dec_u64(d, 1, 65535, &v) == -1)
			return -1;
		if (!(p->sock & PLAN_SOCK_TCP))
			return derr(d, "%llu without the tcp socket right",
			    (unsigned long long)v);
		if (*n > 0 && (*arr)[*n - 1] >= v)
			return derr(d, "%llu: duplicate or out of order "
			    "(ports ascend)", (unsigned long long)v);
		if (grow(d, arr, *n, sizeof(uint16_t)) == -1)
			return -1;
		(*arr)[(*n)++] = (uint16_t)v;
		return 0;
	}
	case K_ENV:
		if (p->nenv >= PLAN_MAX_ENV)
			return derr(d, "more than %d entries", PLAN_MAX_ENV);
		if (grow(d, &p->env, p->nenv, sizeof(char *)) == -1)
			return -1;
		if (dec_str(d, PLAN_MAX_ENV_LEN, &s) == -1)
			return -1;
		p->env[p->nenv++] = s;
		if ((why = plan_env_why(s)) != NULL)
			return (esc(s, e1), derr(d, "%s: %s", e1, why));
		if (p->nenv > 1) {
			int c = envcmp(p->env[p->nenv - 2], s);

			if (c >= 0)
				return derr(d, "%.*s: %s",
				    (int)envname_len(s), s, c == 0 ?
				    "same name given twice" :
				    "out of order (sorted by name)");
		}
		return 0;
	case K_RLIMIT: {
		struct plan_rlimit r;
		int ri;

		if (p->nrlim >= PLAN_MAX_RLIMITS)
			return derr(d, "more than %d entries",
			    PLAN_MAX_RLIMITS);
		if (dec_tokens(d, 3, tok) == -1)
			return -1;
		if ((r.resource = plan_rlimit_lookup(tok[0])) == -1)
			return derr(d, "%s: unknown resource", tok[0]);
		if (dec_lim(d, tok[1], &r.soft) == -1 ||
		    dec_lim(d, tok[2], &r.hard) == -1)
			return -1;
		if ((why = rlimit_why(&r)) != NULL)
			return derr(d, "%s: %s", tok[0], why);
		ri = rlim_index(r.resource);
		if (p->nrlim > 0 &&
		    rlim_index(p->rlim[p->nrlim - 1].resource) >= ri)
			return derr(d, "%s: duplicate or out of order", tok[0]);
		if (grow(d, &p->rlim, p->nrlim, sizeof(r)) == -1)
			return -1;
		p->rlim[p->nrlim++] = r;
		return 0;
	}
	case K_MEMORY:
		return dec_u64(d, PLAN_MIN_MEMORY, PLAN_MAX_MEMORY,
		    &p->mem_max);
	case K_PIDS:
		return dec_u64(d, 1, PLAN_MAX_PIDS, &p->pids_max);
	case K_CPU:
		if (dec_tokens(d, 2, tok) == -1)
			return -1;
		if (scan_u64(tok[0], PLAN_MIN_CPU_US, PLAN_MAX_CPU_QUOTA,
		    &p->cpu_quota_us) == -1)
			return derr(d, "quota %s: not in 1000..1000000000",
			    tok[0]);
		if (scan_u64(tok[1], PLAN_MIN_CPU_US, PLAN_MAX_CPU_PERIOD,
		    &p->cpu_period_us) == -1)
			return derr(d, "period %s: not in 1000..1000000",
			    tok[1]);
		return 0;
	case K_TIMEOUT:
		return dec_u64(d, 1, PLAN_MAX_TIMEOUT_MS, &p->timeout_ms);
	case K_UID:
		if (dec_u64(d, 1, PLAN_MAX_ID, &v) == -1)
			return -1;
		p->uid = (uid_t)v, p->has_uid = 1;
		return 0;
	case K_GID:
		if (dec_u64(d, 1, PLAN_MAX_ID, &v) == -1)
			return -1;
		p->gid = (gid_t)v, p->has_gid = 1;
		return 0;
	case K_ACK:
		if (p->nack >= PLAN_MAX_ACK)
			return derr(d, "more than %d names", PLAN_MAX_ACK);
		if (grow(d, &p->ack_daemons, p->nack, sizeof(char *)) == -1)
			return -1;
		if (dec_str(d, PLAN_MAX_ACK_LEN, &s) == -1)
			return -1;
		p->ack_daemons[p->nack++] = s;
		if ((why = ack_why(s)) != NULL)
			return (esc(s, e1), derr(d, "%s: %s", e1, why));
		if (p->nack > 1 && strcmp(p->ack_daemons[p->nack - 2], s) >= 0)
			return derr(d, "%s: duplicate or out of order", s);
		return 0;
	case K_KEEP:
		if (p->nkeep >= PLAN_MAX_KEEP)
			return derr(d, "more than %d descriptors",
			    PLAN_MAX_KEEP);
		if (dec_u64(d, 3, PLAN_MAX_FD, &v) == -1)
			return -1;
		if (p->nkeep > 0 && p->keep_fds[p->nkeep - 1] >= (int)v)
			return derr(d, "%llu: duplicate or out of order",
			    (unsigned long long)v);
		if (grow(d, &p->keep_fds, p->nkeep, sizeof(int)) == -1)
			return -1;
		p->keep_fds[p->nkeep++] = (int)v;
		return 0;
	case K_MODE:
		if (d->vn == 6 && memcmp(d->v, "strict", 6) == 0)
			p->mode = PLAN_STRICT;
		else if (d->vn == 7 && memcmp(d->v, "degrade", 7) == 0)
			p->mode = PLAN_DEGRADE;
		else
			return derr(d, "want strict or degrade");
		return 0;
	case K_PROMPT:
		if (dec_u64(d, 0, PLAN_MAX_PROMPT, &v) == -1)
			return -1;
		p->has_prompt = 1;
		p->prompt_len = (size_t)v;
		return 0;
	default:
		return derr(d, "unknown key");
	}
}

int
plan_decode(const unsigned char *buf, size_t len, struct plan *p,
    char *err, size_t errlen)
{
	struct dec d = { NULL, 0, 1, NULL, err, errlen };
	size_t pos, mlen = sizeof(PLAN_MAGIC) - 1;
	int last = -1, seen_end = 0, seen_mode = 0;
	const unsigned char *nl;

	memset(p, 0, sizeof(*p));
	if (len < mlen + 1 || memcmp(buf, PLAN_MAGIC "\n", mlen + 1) != 0) {
		if (len >= 11 && memcmp(buf, "borne-plan ", 11) == 0)
			derr(&d, "unsupported format version (want \""
			    PLAN_MAGIC "\")");
		else
			derr(&d, "not a launch plan (first line must be \""
			    PLAN_MAGIC "\")");
		goto fail;
	}
	pos = mlen + 1;
	while (!seen_end) {
		size_t avail = len - pos, ll, kl;
		int k;

		d.line++;
		d.key = NULL;
		if (avail > PLAN_MAX_TEXT - pos)
			avail = PLAN_MAX_TEXT - pos;
		nl = memchr(buf + pos, '\n', avail);
		if (nl == NULL) {
			if (len - pos > avail)
				derr(&d, "text part longer than %u bytes "
				    "without an end line", PLAN_MAX_TEXT);
			else
				derr(&d, "truncated: no end line");
			goto fail;
		}
		ll = (size_t)(nl - (buf + pos));
		kl = 0;
		while (kl < ll && buf[pos + kl] != ' ')
			kl++;
		if (kl == 3 && ll == 3 && memcmp(buf + pos, "end", 3) == 0) {
			seen_end = 1;
			pos += ll + 1;
			break;
		}
		for (k = 0; k < K_NKEYS; k++)
			if (strlen(keys[k].name) == kl &&
			    memcmp(keys[k].name, buf + pos, kl) == 0)
				break;
		if (k == K_NKEYS) {
			char kb[40];

			plan_escape_short((const char *)buf + pos, kl, kb,
			    sizeof(kb));
			derr(&d, "unknown key \"%s\"", kb);
			goto fail;
		}
		d.key = keys[k].name;
		if (k < last) {
			derr(&d, "out of order (canonical order puts it "
			    "before %s)", keys[last].name);
			goto fail;
		}
		if (k == last && !keys[k].repeat) {
			derr(&d, "given twice");
			goto fail;
		}
		last = k;
		seen_mode |= k == K_MODE;
		if (kl < ll) {
			d.v = buf + pos + kl + 1;
			d.vn = ll - kl - 1;
			if (d.vn == 0) {
				derr(&d, "space without a value");
				goto fail;
			}
		} else {
			d.v = buf + pos + kl;
			d.vn = 0;
			if (k != K_ARG) {
				derr(&d, "missing value");
				goto fail;
			}
		}
		if (dec_line(&d, k, p) == -1)
			goto fail;
		pos += ll + 1;
	}
	d.key = NULL;
	if (p->program == NULL || p->argc == 0 || !seen_mode) {
		derr(&d, "end: missing %s", p->program == NULL ? "program" :
		    p->argc == 0 ? "arg (argv[0])" : "mode");
		goto fail;
	}
	if (p->has_uid && !p->has_gid) {
		derr(&d, "end: uid without gid (the payload would keep "
		    "group 0)");
		goto fail;
	}
	if (len - pos != p->prompt_len) {
		if (len - pos < p->prompt_len)
			derr(&d, "truncated prompt: %zu of %zu bytes after "
			    "end", len - pos, p->prompt_len);
		else
			derr(&d, "%zu trailing bytes after %s", len - pos -
			    p->prompt_len, p->has_prompt ? "the prompt" :
			    "end");
		goto fail;
	}
	if (p->prompt_len) {
		if ((p->prompt = malloc(p->prompt_len)) == NULL) {
			derr(&d, "prompt: out of memory");
			goto fail;
		}
		memcpy(p->prompt, buf + pos, p->prompt_len);
	}
	/* Every rule was checked line by line; check again as a whole. */
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
	unsigned char *buf = NULL, *nb;
	size_t len = 0, cap = 0;
	int r;

	memset(p, 0, sizeof(*p));
	for (;;) {
		ssize_t n;

		if (len == cap) {
			if (cap > max) {
				err_set(err, errlen, "plan longer than %zu "
				    "bytes", max);
				free(buf);
				return errno = EFBIG, -1;
			}
			cap = cap ? cap * 2 : 65536;
			if (cap > max + 1)
				cap = max + 1;
			if ((nb = realloc(buf, cap)) == NULL) {
				err_set(err, errlen, "reading plan: out of "
				    "memory");
				free(buf);
				return errno = ENOMEM, -1;
			}
			buf = nb;
		}
		n = read(fd, buf + len, cap - len);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			int e = errno;

			err_set(err, errlen, "reading plan: %s", strerror(e));
			free(buf);
			return errno = e, -1;
		}
		if (n == 0)
			break;
		len += (size_t)n;
		if (len > max) {
			err_set(err, errlen, "plan longer than %zu bytes", max);
			free(buf);
			return errno = EFBIG, -1;
		}
	}
	r = plan_decode(buf ? buf : (const unsigned char *)"", len, p, err,
	    errlen);
	free(buf);
	return r;
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
	free(p->connect_tcp);
	free(p->bind_tcp);
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

/* ---- JSON ---- */

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
	if ((e = malloc(escape(s, n, NULL) + 1)) == NULL)
		return NULL;
	e[escape(s, n, e)] = '\0';
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

	if (sorted_copy(p, &q) == -1) {
		sorted_free(&q);
		return NULL;
	}
	o = json_object();
	if (o == NULL) {
		sorted_free(&q);
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
		size_t nl = envname_len(q.env[i]);
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
	sorted_free(&q);
	if (bad) {
		json_decref(o);
		errno = ENOMEM;
		return NULL;
	}
	return o;
}
