/* SPDX-License-Identifier: ISC */
/* planrules: the rules of launchplan(5), each written once.  plan_validate()
 * runs them over a whole plan (planenc before it encodes, confexec after
 * it decodes); the decoder runs the same functions on each line as it
 * reads it, so both refuse the same plans with the same reason. */
#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "err.h"
#include "esc.h"
#include "planint.h"

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
	int i = plan_rlim_index(resource);

	return i < 0 ? NULL : rlims[i].name;
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

int
plan_rlim_index(int resource)
{
	size_t i;

	for (i = 0; i < NRLIMS; i++)
		if (rlims[i].resource == resource)
			return (int)i;
	return -1;
}

/* ---- one field ---- */

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

size_t
plan_envname_len(const char *nv)
{
	return strcspn(nv, "=");
}

int
plan_envcmp(const char *a, const char *b)
{
	size_t na = plan_envname_len(a), nb = plan_envname_len(b);
	int c = memcmp(a, b, na < nb ? na : nb);

	if (c != 0)
		return c;
	return na < nb ? -1 : na > nb;
}

static const char *
rlimit_why(const struct plan_rlimit *r)
{
	int i = plan_rlim_index(r->resource);

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

/* An untrusted string as it appears in a message (common/esc). */
static const char *
shown(const char *s, char out[96])
{
	esc_name(s ? s : "", out, 96);
	return out;
}

/* Value v of key name, why it is refused (NULL: it is not): 0, or -1
 * with "<name> <v>: <why>". */
static int
why_rule(const char *name, const char *v, const char *why, char *msg,
    size_t len)
{
	char e[96];

	if (why == NULL)
		return 0;
	return err_set(msg, len, "%s %s: %s", name, shown(v, e), why);
}

static int
path_rule(const char *name, const char *path, char *msg, size_t len)
{
	return why_rule(name, path, plan_path_why(path), msg, len);
}

/* ---- the rules of each key ---- */

int
plan_rule_count(int k, size_t n, char *msg, size_t len)
{
	const struct plan_keydef *d = &plan_keys[k];

	if (d->max > 0 && n > (size_t)d->max)
		return err_set(msg, len, "%s: more than %d %s", d->group,
		    d->max, d->what);
	return 0;
}

int
plan_rule_program(const struct plan *p, int k, size_t i, char *msg,
    size_t len)
{
	if (p->program == NULL)
		return err_set(msg, len, "program: missing");
	return path_rule("program", p->program, msg, len);
}

/* The script argument: a path after argv[0], absolute and normalised
 * (confexec opens it). */
int
plan_rule_script(const struct plan *p, int k, size_t i, char *msg,
    size_t len)
{
	const char *why;
	char e[96];

	if (p->script_arg == 0)
		return 0;
	if (p->argv == NULL || p->script_arg >= p->argc)
		return err_set(msg, len, "script %zu: no such argument (argv "
		    "has %zu)", p->script_arg, p->argv ? p->argc : 0);
	if ((why = plan_path_why(p->argv[p->script_arg])) != NULL)
		return err_set(msg, len, "script %zu: arg %s: %s",
		    p->script_arg, shown(p->argv[p->script_arg], e), why);
	return 0;
}

int
plan_rule_arg(const struct plan *p, int k, size_t i, char *msg, size_t len)
{
	if (p->argv[i] == NULL)
		return err_set(msg, len, "arg %zu: missing", i);
	if (strlen(p->argv[i]) > PLAN_MAX_ARG_LEN)
		return err_set(msg, len, "arg %zu: longer than %d bytes", i,
		    PLAN_MAX_ARG_LEN);
	return 0;
}

const struct plan_preset_entry *
plan_preset_sys(size_t *n)
{
	static const struct plan_preset_entry sys[] = {
		{ "/usr", PLAN_ROX, 0 },
		{ "/lib", PLAN_ROX, 0 },
		{ "/lib64", PLAN_ROX, 0 },
		{ "/lib32", PLAN_ROX, 0 },
		{ "/libx32", PLAN_ROX, 0 },
		{ "/bin", PLAN_ROX, 0 },
		{ "/sbin", PLAN_ROX, 0 },
		{ "/etc", PLAN_RO, 1 },
		{ "/dev/null", PLAN_RW, 0 },
		{ "/dev/zero", PLAN_RW, 0 },
		{ "/dev/full", PLAN_RW, 0 },
		{ "/dev/random", PLAN_RO, 0 },
		{ "/dev/urandom", PLAN_RO, 0 },
	};

	*n = sizeof(sys) / sizeof(sys[0]);
	return sys;
}

const char *
plan_intent_name(enum plan_intent in)
{
	return (unsigned)in < 4 ? plan_keys[PLAN_FS_KEY(in)].name : "?";
}

int
plan_path_within(const char *a, const char *b)
{
	size_t n = strlen(b);

	if (strcmp(b, "/") == 0)
		return 1;
	return strncmp(a, b, n) == 0 && (a[n] == '\0' || a[n] == '/');
}

const char *
plan_rwx_warning(const char *path, char *buf, size_t size)
{
	char e[96];

	err_set(buf, size, "rwx %s: the payload may write files there and "
	    "execute them (no write-xor-execute)", shown(path, e));
	return buf;
}

/* Write-xor-execute across nesting: Landlock adds up the rights of every
 * rule above a file, so rw on one path and rox on a path inside it (or
 * around it) grant both beneath the inner one.  Only rwx says so. */
static int
rule_wx(const struct plan_fsrule *f, const struct plan_fsrule *g, char *msg,
    size_t len)
{
	char e[96], e2[96];
	int in = plan_path_within(f->path, g->path);

	if (!((f->intent == PLAN_RW && g->intent == PLAN_ROX) ||
	    (f->intent == PLAN_ROX && g->intent == PLAN_RW)))
		return 0;
	if (!in && !plan_path_within(g->path, f->path))
		return 0;
	return err_set(msg, len, "%s %s: %s %s %s (write and execute would "
	    "both apply %s: use rwx to mean it)", plan_intent_name(f->intent),
	    shown(f->path, e), in ? "inside" : "contains",
	    plan_intent_name(g->intent), shown(g->path, e2),
	    in ? "there" : "in it");
}

int
plan_rule_fs(const struct plan *p, int k, size_t i, char *msg, size_t len)
{
	const struct plan_fsrule *f = &p->fs[i];
	const char *name;
	char e[96];
	size_t j;

	if (f->intent != PLAN_RO && f->intent != PLAN_RW &&
	    f->intent != PLAN_ROX && f->intent != PLAN_RWX)
		return err_set(msg, len, "fs rule %zu: unknown intent", i);
	name = plan_intent_name(f->intent);
	if (path_rule(name, f->path, msg, len) == -1)
		return -1;
	/* The kernel's controls: /proc/sys, sysrq-trigger, /sys act on the
	 * host whatever namespace the run is in. */
	if ((f->intent == PLAN_RW || f->intent == PLAN_RWX) &&
	    strcmp(f->path, "/") != 0 && (plan_path_within(f->path, "/proc") ||
	    plan_path_within(f->path, "/sys")))
		return err_set(msg, len, "%s %s: /proc and /sys are read-only "
		    "in a run (their files act on the host's kernel: "
		    "/proc/sys, sysrq-trigger); grant --ro", name,
		    shown(f->path, e));
	for (j = 0; j < i; j++) {
		if (strcmp(p->fs[j].path, f->path) != 0) {
			if (rule_wx(f, &p->fs[j], msg, len) == -1)
				return -1;
			continue;
		}
		if (p->fs[j].intent == f->intent)
			return err_set(msg, len, "%s %s: same path given twice",
			    name, shown(f->path, e));
		return err_set(msg, len, "%s %s: same path also given as %s",
		    name, shown(f->path, e), plan_intent_name(p->fs[j].intent));
	}
	return 0;
}

/* follow PATH: a rule path whose symbolic links confexec may follow. */
int
plan_rule_follow(const struct plan *p, int k, size_t i, char *msg,
    size_t len)
{
	const char *f = p->follow[i];
	char e[96];
	size_t j;

	if (path_rule("follow", f, msg, len) == -1)
		return -1;
	for (j = 0; j < i; j++)
		if (strcmp(p->follow[j], f) == 0)
			return err_set(msg, len, "follow %s: same path given "
			    "twice", shown(f, e));
	for (j = 0; j < p->nfs; j++)
		if (strcmp(p->fs[j].path, f) == 0)
			return 0;
	return err_set(msg, len, "follow %s: no ro, rw, rox or rwx rule for "
	    "this path", shown(f, e));
}

/* Port i of v, the list of key k: a port from min, 1-65535. */
static int
rule_port(const struct plan *p, int k, const uint16_t *v, size_t i,
    unsigned min, char *msg, size_t len)
{
	const char *name = plan_keys[k].name;
	size_t j;

	if (v[i] < min)
		return err_set(msg, len, "%s 0: port outside 1-65535", name);
	if (!(p->sock & PLAN_SOCK_TCP))
		return err_set(msg, len, "%s %u: without the tcp socket right",
		    name, v[i]);
	for (j = 0; j < i; j++)
		if (v[j] == v[i])
			return err_set(msg, len, "%s %u: same port given twice",
			    name, v[i]);
	return 0;
}

/* The names confexec sets to the broker in a run with egress. */
int
plan_rule_connect(const struct plan *p, int k, size_t i, char *msg,
    size_t len)
{
	return rule_port(p, k, p->connect_tcp, i, 1, msg, len);
}

/* bind-tcp 0: bind(2) to port 0 picks an ephemeral port, which Landlock
 * allows by a rule for port 0 (ABI 4). */
int
plan_rule_bind(const struct plan *p, int k, size_t i, char *msg, size_t len)
{
	return rule_port(p, k, p->bind_tcp, i, 0, msg, len);
}

static int
proxy_var(const char *nv)
{
	static const char *const names[] = { "HTTP_PROXY", "HTTPS_PROXY",
		"http_proxy", "https_proxy", "ALL_PROXY", "all_proxy" };
	size_t i, n = plan_envname_len(nv);

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (strlen(names[i]) == n && memcmp(names[i], nv, n) == 0)
			return 1;
	return 0;
}

int
plan_rule_egress(const struct plan *p, int k, size_t i, char *msg,
    size_t len)
{
	const struct plan_egress *e = &p->egress[i];
	const char *why;
	char h[96];
	size_t j;

	shown(e->host, h);
	if ((why = plan_host_why(e->host)) != NULL)
		return err_set(msg, len, "egress %s %u: %s", h, e->port, why);
	if (e->port == 0)
		return err_set(msg, len, "egress %s 0: port outside 1-65535",
		    h);
	if (!(p->sock & PLAN_SOCK_TCP))
		return err_set(msg, len, "egress %s %u: without the tcp socket "
		    "right (the payload reaches the broker over TCP)", h,
		    e->port);
	if (p->nconnect > 0 || p->nbind > 0)
		return err_set(msg, len, "egress %s %u: contradicts %s (a run "
		    "with egress has a network of its own, loopback only, "
		    "where its broker listens; list each destination with "
		    "--egress)", h, e->port, p->nconnect > 0 ? "connect-tcp" :
		    "bind-tcp");
	for (j = 0; j < i; j++)
		if (p->egress[j].port == e->port &&
		    strcmp(p->egress[j].host, e->host) == 0)
			return err_set(msg, len, "egress %s %u: same "
			    "destination given twice", h, e->port);
	return 0;
}

int
plan_rule_env(const struct plan *p, int k, size_t i, char *msg, size_t len)
{
	size_t j;

	if (why_rule("env", p->env[i], plan_env_why(p->env[i]), msg, len) ==
	    -1)
		return -1;
	/* From here on the name is [A-Za-z_][A-Za-z0-9_]*. */
	if (p->tmp && plan_envname_len(p->env[i]) == 6 &&
	    memcmp(p->env[i], "TMPDIR", 6) == 0)
		return err_set(msg, len, "env TMPDIR: contradicts tmp (confexec "
		    "sets TMPDIR to the run's private directory)");
	if (p->negress > 0 && proxy_var(p->env[i]))
		return err_set(msg, len, "env %.*s: contradicts egress "
		    "(confexec sets it to the run's broker)",
		    (int)plan_envname_len(p->env[i]), p->env[i]);
	for (j = 0; j < i; j++)
		if (plan_envcmp(p->env[i], p->env[j]) == 0)
			return err_set(msg, len, "env %.*s: same name given "
			    "twice", (int)plan_envname_len(p->env[i]),
			    p->env[i]);
	return 0;
}

int
plan_rule_rlimit(const struct plan *p, int k, size_t i, char *msg,
    size_t len)
{
	const char *name = plan_rlimit_name(p->rlim[i].resource), *why;
	size_t j;

	if ((why = rlimit_why(&p->rlim[i])) != NULL)
		return err_set(msg, len, "rlimit %s: %s", name ? name : "?",
		    why);
	for (j = 0; j < i; j++)
		if (p->rlim[j].resource == p->rlim[i].resource)
			return err_set(msg, len, "rlimit %s: same resource "
			    "given twice", name);
	return 0;
}

int
plan_rule_ack(const struct plan *p, int k, size_t i, char *msg, size_t len)
{
	size_t j;

	if (p->ack_daemons[i] == NULL)
		return err_set(msg, len, "ack-daemon: missing name");
	if (why_rule("ack-daemon", p->ack_daemons[i],
	    ack_why(p->ack_daemons[i]), msg, len) == -1)
		return -1;
	for (j = 0; j < i; j++)
		if (strcmp(p->ack_daemons[i], p->ack_daemons[j]) == 0)
			return err_set(msg, len, "ack-daemon %s: same name "
			    "given twice", p->ack_daemons[i]);
	return 0;
}

int
plan_rule_keep(const struct plan *p, int k, size_t i, char *msg, size_t len)
{
	size_t j;

	if (p->keep_fds[i] < 3 || p->keep_fds[i] > PLAN_MAX_FD)
		return err_set(msg, len, "keep-fd %d: outside 3..%d",
		    p->keep_fds[i], PLAN_MAX_FD);
	for (j = 0; j < i; j++)
		if (p->keep_fds[j] == p->keep_fds[i])
			return err_set(msg, len, "keep-fd %d: same descriptor "
			    "given twice", p->keep_fds[i]);
	return 0;
}

/* The single keys: cgroup limits and the wall clock (0 means none), ids,
 * and the fields whose decoder admits only valid values (the rule guards
 * a plan built in memory). */
int
plan_rule_sha256(const struct plan *p, int k, size_t i, char *msg,
    size_t len)
{
	return 0;	/* any 32 bytes: its decoder admits only a digest */
}

int
plan_rule_preset(const struct plan *p, int k, size_t i, char *msg,
    size_t len)
{
	if (p->preset != 0 && p->preset != PLAN_PRESET_SYS)
		return err_set(msg, len, "preset: unknown preset");
	return 0;
}

int
plan_rule_tmp(const struct plan *p, int k, size_t i, char *msg, size_t len)
{
	if (p->tmp != 0 && p->tmp != 1)
		return err_set(msg, len, "tmp: neither on nor off");
	return 0;
}

int
plan_rule_socket(const struct plan *p, int k, size_t i, char *msg,
    size_t len)
{
	if (p->sock & ~(PLAN_SOCK_UNIX | PLAN_SOCK_TCP))
		return err_set(msg, len, "socket: unknown socket shape");
	return 0;
}

/* memory-max, pids-max, timeout-ms: the number at the row's val, 0
 * (none) or within the row's bounds. */
int
plan_rule_u64(const struct plan *p, int k, size_t i, char *msg, size_t len)
{
	const struct plan_keydef *d = &plan_keys[k];
	uint64_t v = *(const uint64_t *)PLAN_CFIELD(p, d->val);

	if (v != 0 && (v < d->lo || v > d->hi))
		return err_set(msg, len, "%s %llu: %s", d->name,
		    (unsigned long long)v, d->range);
	return 0;
}

int
plan_rule_cpu(const struct plan *p, int k, size_t i, char *msg, size_t len)
{
	unsigned long long q = p->cpu_quota_us, per = p->cpu_period_us;

	if (q == 0 && per != 0)
		return err_set(msg, len, "cpu-max: period without quota");
	if (q != 0 && (q < PLAN_MIN_CPU_US || q > PLAN_MAX_CPU_QUOTA))
		return err_set(msg, len, "cpu-max %llu: quota outside "
		    "1000..1000000000 us", q);
	if (q != 0 && (per < PLAN_MIN_CPU_US || per > PLAN_MAX_CPU_PERIOD))
		return err_set(msg, len, "cpu-max: period %llu outside "
		    "1000..1000000 us", per);
	return 0;
}

/* uid, gid: the id at the row's val, when its flag at has is set. */
int
plan_rule_id(const struct plan *p, int k, size_t i, char *msg, size_t len)
{
	const char *name = plan_keys[k].name;
	uint32_t v = *(const uint32_t *)PLAN_CFIELD(p, plan_keys[k].val);

	if (*(const int *)PLAN_CFIELD(p, plan_keys[k].has) &&
	    (v == 0 || v > PLAN_MAX_ID))
		return err_set(msg, len, "%s %lu: not a subordinate %s "
		    "(1..4294967294)", name, (unsigned long)v, name);
	return 0;
}

int
plan_rule_mode(const struct plan *p, int k, size_t i, char *msg, size_t len)
{
	if (p->mode != PLAN_STRICT && p->mode != PLAN_DEGRADE)
		return err_set(msg, len, "mode: neither strict nor degrade");
	return 0;
}

int
plan_rule_prompt(const struct plan *p, int k, size_t i, char *msg,
    size_t len)
{
	if (p->prompt_len > PLAN_MAX_PROMPT)
		return err_set(msg, len, "prompt %zu: longer than %u bytes",
		    p->prompt_len, PLAN_MAX_PROMPT);
	return 0;
}

int
plan_rule(const struct plan *p, int k, size_t i, char *msg, size_t len)
{
	return plan_keys[k].rule(p, k, i, msg, len);
}

int
plan_rules_end(const struct plan *p, char *msg, size_t len)
{
	if (p->argc == 0 || p->argv == NULL)
		return err_set(msg, len, "arg: argv[0] missing");
	if (p->has_uid && !p->has_gid)
		return err_set(msg, len, "uid: without gid (the payload would "
		    "keep group 0)");
	if (!p->has_prompt && p->prompt_len != 0)
		return err_set(msg, len, "prompt: length without prompt");
	if (p->prompt_len != 0 && p->prompt == NULL)
		return err_set(msg, len, "prompt: missing bytes");
	if (plan_text_len(p) > PLAN_MAX_TEXT)
		return err_set(msg, len, "plan: text part longer than %u bytes",
		    PLAN_MAX_TEXT);
	return 0;
}

/* ---- the whole plan ---- */

int
plan_validate_at(const struct plan *p, enum plan_at *at, size_t *index,
    char *err, size_t errlen)
{
	size_t i, n;
	int k;

	*at = PLAN_AT_NONE;
	*index = 0;
	for (k = 0; k < K_NKEYS; k++) {
		n = plan_keys[k].count(p);
		if (plan_rule_count(k, n, err, errlen) == -1)
			goto fail;
		for (i = 0; i < n; i++)
			if (plan_rule(p, k, i, err, errlen) == -1) {
				*at = plan_keys[k].at;
				*index = i;
				goto fail;
			}
	}
	if (plan_rules_end(p, err, errlen) == -1)
		goto fail;
	return 0;
fail:
	errno = EINVAL;
	return -1;
}

int
plan_validate(const struct plan *p, char *err, size_t errlen)
{
	enum plan_at at;
	size_t i;

	return plan_validate_at(p, &at, &i, err, errlen);
}
