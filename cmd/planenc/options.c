/* SPDX-License-Identifier: ISC */
/* options: planenc's options and what each adds to the plan (options.h). */
#include <arpa/inet.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "hash.h"
#include "options.h"
#include "scan.h"

/* Every option, its value and its one help line (--help prints them;
 * profile.c reads the same table).  Each is opt_apply's or parse's. */
/* clang-format off */
const struct usage_opt planenc_opts[PLANENC_NOPTS] = {
	USAGE_OPT("profile", O_PROFILE, "FILE", "apply the options of FILE, one a line, here"),
	USAGE_OPT("preset", O_PRESET, "sys", "a read-only view of the operating system"),
	USAGE_SW("tmp", O_TMP, "a private TMPDIR"),
	USAGE_TAG("ro", O_RO, "PATH", PLAN_RO, "read beneath PATH"),
	USAGE_TAG("rw", O_RW, "PATH", PLAN_RW, "read and write beneath PATH"),
	USAGE_TAG("rox", O_ROX, "PATH", PLAN_ROX, "read and execute beneath PATH"),
	USAGE_TAG("rwx", O_RWX, "PATH", PLAN_RWX, "read, write and execute beneath PATH"),
	USAGE_OPT("follow-symlinks", O_FOLLOW, "PATH", "let confexec follow symbolic links in rule PATH"),
	USAGE_SW("unix", O_UNIX, "AF_UNIX sockets"),
	USAGE_SW("tcp", O_TCP, "TCP sockets"),
	USAGE_OPT("connect-tcp", O_CONNECT, "PORT", "connect to TCP PORT"),
	USAGE_OPT("bind-tcp", O_BIND, "PORT", "bind TCP PORT"),
	USAGE_OPT("egress", O_EGRESS, "HOST:PORT", "let the run's broker reach HOST:PORT (implies --tcp)"),
	USAGE_OPT("env", O_ENV, "NAME", "pass NAME from the caller's environment"),
	USAGE_OPT("setenv", O_SETENV, "NAME=VALUE", "set NAME to VALUE"),
	USAGE_OPT("rlimit", O_RLIMIT, "NAME=SOFT[:HARD]", "set a resource limit"),
	USAGE_ONCE("memory-max", O_MEMORY, "SIZE", "the cgroup's memory.max"),
	USAGE_ONCE("pids-max", O_PIDS, "N", "the cgroup's pids.max"),
	USAGE_ONCE("cpu-max", O_CPU, "QUOTA[/PERIOD]", "the cgroup's cpu.max, in microseconds"),
	USAGE_ONCE("timeout", O_TIMEOUT, "DURATION", "kill the run after DURATION"),
	USAGE_ONCE("uid", O_UID, "UID", "run as subordinate UID"),
	USAGE_ONCE("gid", O_GID, "GID", "run as subordinate GID"),
	USAGE_ONCE("sha256", O_SHA256, "HEX", "the program's SHA-256, checked before it runs"),
	USAGE_ONCE("prompt-file", O_PROMPT, "FILE", "FILE's bytes as the payload's standard input"),
	USAGE_OPT("ack-daemon", O_ACK, "NAME", "acknowledge the privileged daemon NAME"),
	USAGE_OPT("keep-fd", O_KEEP, "FD", "keep FD open in the payload"),
	USAGE_ONCE("argv0", O_ARGV0, "NAME", "argv[0] instead of PROGRAM"),
	USAGE_SW("strict", O_STRICT, "refuse to run without every layer (the default)"),
	USAGE_SW("degrade", O_DEGRADE, "run without a missing layer, saying so"),
	USAGE_SW("decode", O_DECODE, "print the plan read on stdin as JSON"),
	USAGE_SW("check", O_CHECK, "check the plan read on stdin"),
	USAGE_SW("reencode", O_REENCODE, "re-encode the plan read on stdin"),
	USAGE_STD_ROWS,
};
/* clang-format on */

void *
push(void *arr, size_t *n, size_t sz)
{
	void *na;

	if (*n >= (size_t)1 << 20)
		die(EXIT_USAGE, "too many options");
	if ((na = realloc(arr, (*n + 1) * sz)) == NULL)
		die_sys(EXIT_USAGE, "out of memory");
	(*n)++;
	return na;
}

static void *
xrealloc(void *a, size_t n)
{
	if ((a = realloc(a, n)) == NULL)
		die_sys(EXIT_USAGE, "out of memory");
	return a;
}

char *
xstrdup(const char *s)
{
	char *d = strdup(s);

	if (d == NULL)
		die_sys(EXIT_USAGE, "out of memory");
	return d;
}

/* A TCP port; bind may ask for 0 (an ephemeral port). */
static uint16_t
port_arg(const char *opt, const char *s, unsigned min)
{
	uint64_t v;

	if (scan_u64(s, min, 65535, &v) == -1)
		die(EXIT_USAGE, "%s %s: port outside %u-65535", opt, s, min);
	return (uint16_t)v;
}

/* The host h of --egress arg as the plan holds it: an address (af
 * AF_INET6 when it was in brackets, AF_INET when all digits and dots) in
 * RFC 5952's form, written into canon; a name as it is, for the rules to
 * judge. */
static const char *
egress_addr(const char *arg, const char *h, int af,
    char canon[INET6_ADDRSTRLEN])
{
	unsigned char a[16];

	if (af == 0 && strspn(h, "0123456789.") == strlen(h))
		af = AF_INET;
	if (af == 0)
		return h;
	if (inet_pton(af, h, a) != 1 ||
	    plan_ip_text(af, a, canon, INET6_ADDRSTRLEN) == NULL)
		die(EXIT_USAGE, "--egress %s: not an %s address", arg,
		    af == AF_INET ? "IPv4" : "IPv6");
	/* However it is spelt (the rules see only the canonical form). */
	if (plan_ip_unspecified(af, a))
		die(EXIT_USAGE, "--egress %s: %s is an unspecified address, "
		    "not a destination (a connection to it reaches this "
		    "host's own listeners)", arg, canon);
	return canon;
}

/* --egress HOST:PORT, [ADDRESS]:PORT for IPv6: a name written in lower
 * case, an address in RFC 5952's form (plan_ip_text); the rest is the
 * plan's rules (launchplan(5)).  A run with egress needs the tcp socket right to reach
 * its broker: --egress implies --tcp. */
static void
opt_egress(struct opts *o, const char *arg)
{
	char h[PLAN_MAX_HOST_LEN + 1], canon[INET6_ADDRSTRLEN];
	const char *host = arg, *end;
	struct plan *p = &o->p;
	size_t hl, i;
	uint64_t port;
	int af = 0;

	if (arg[0] == '[') {
		if ((end = strchr(arg, ']')) == NULL || end[1] != ':')
			die(EXIT_USAGE, "--egress %s: want [ADDRESS]:PORT",
			    arg);
		host++, af = AF_INET6;
	} else if ((end = strrchr(arg, ':')) == NULL)
		die(EXIT_USAGE, "--egress %s: want HOST:PORT", arg);
	else if (memchr(arg, ':', (size_t)(end - arg)) != NULL)
		die(EXIT_USAGE, "--egress %s: an IPv6 address goes in brackets "
		    "([2001:db8::1]:443)", arg);
	if ((hl = (size_t)(end - host)) == 0)
		die(EXIT_USAGE, "--egress %s: empty host", arg);
	if (hl > PLAN_MAX_HOST_LEN)
		die(EXIT_USAGE, "--egress %s: host longer than %d bytes", arg,
		    PLAN_MAX_HOST_LEN);
	if (scan_u64(end + 1 + (af != 0), 1, 65535, &port) == -1)
		die(EXIT_USAGE, "--egress %s: PORT not a number from 1 to "
		    "65535", arg);
	for (i = 0; i < hl; i++)
		h[i] = host[i] >= 'A' && host[i] <= 'Z' ?
		    (char)(host[i] - 'A' + 'a') : host[i];
	h[hl] = '\0';
	if (af == 0 && h[hl - 1] == '.')
		die(EXIT_USAGE, "--egress %s: trailing dot (write the name "
		    "without it)", arg);
	p->egress = push(p->egress, &p->negress, sizeof(*p->egress));
	p->egress[p->negress - 1].host = xstrdup(egress_addr(arg, h, af,
	    canon));
	p->egress[p->negress - 1].port = (uint16_t)port;
	origin_note(o, PLAN_AT_EGRESS);
	p->sock |= PLAN_SOCK_TCP;
}

/* SOFT or HARD of --rlimit: "inf", or a size (K/M/G/T suffixes). */
static uint64_t
rlim_arg(const char *opt, const char *s)
{
	uint64_t v;

	if (strcmp(s, "inf") == 0 || strcmp(s, "unlimited") == 0)
		return PLAN_RLIM_INF;
	if (scan_size(s, 0, PLAN_MAX_RLIMIT_VAL, &v) == -1)
		die(EXIT_USAGE, "--rlimit %s: %s is not inf nor a number "
		    "up to 2^53-1", opt, s);
	return v;
}

/* DURATION: digits then ms, s, m or h (a bare number is seconds). */
static uint64_t
timeout_arg(const char *s)
{
	static const struct { const char *sfx; uint64_t ms; } u[] = {
		{ "ms", 1 }, { "s", 1000 }, { "m", 60000 }, { "h", 3600000 },
	};
	size_t n = strspn(s, "0123456789"), i;
	uint64_t v, mult = 1000;
	char num[24];

	if (n == 0 || n >= sizeof(num))
		goto bad;
	if (s[n] != '\0') {
		for (i = 0; i < sizeof(u) / sizeof(u[0]); i++)
			if (strcmp(s + n, u[i].sfx) == 0)
				break;
		if (i == sizeof(u) / sizeof(u[0]))
			goto bad;
		mult = u[i].ms;
	}
	memcpy(num, s, n);
	num[n] = '\0';
	if (scan_u64(num, 1, PLAN_MAX_TIMEOUT_MS, &v) == -1 ||
	    v > PLAN_MAX_TIMEOUT_MS / mult)
		goto bad;
	return v * mult;
bad:
	die(EXIT_USAGE, "--timeout %s: want N[ms|s|m|h] from 1ms to 31 days",
	    s);
}

void
origin_note(struct opts *o, enum plan_at at)
{
	struct origins *f = &o->from[at];

	f->at = push(f->at, &f->n, sizeof(*f->at));
	f->at[f->n - 1] = o->where;
}

static void
opt_rlimit(struct opts *o, const char *arg)
{
	struct plan *p = &o->p;
	struct plan_rlimit *r;
	char *name = xstrdup(arg), *sep, *hard;
	int res;

	if ((sep = strchr(name, '=')) == NULL)
		die(EXIT_USAGE, "--rlimit %s: want NAME=SOFT[:HARD]", arg);
	*sep++ = '\0';
	if ((res = plan_rlimit_lookup(name)) == -1)
		die(EXIT_USAGE, "--rlimit %s: unknown resource (see "
		    "launchplan(5))", name);
	p->rlim = push(p->rlim, &p->nrlim, sizeof(*p->rlim));
	origin_note(o, PLAN_AT_RLIMIT);
	r = &p->rlim[p->nrlim - 1];
	r->resource = res;
	if ((hard = strchr(sep, ':')) != NULL)
		*hard++ = '\0';
	r->soft = rlim_arg(name, sep);
	r->hard = hard ? rlim_arg(name, hard) : r->soft;
	free(name);
}

/* QUOTA[/PERIOD] in microseconds. */
static void
opt_cpu(struct plan *p, const char *arg)
{
	char q[24];
	size_t n = strcspn(arg, "/");

	p->cpu_period_us = PLAN_DEF_CPU_PERIOD;
	if (n >= sizeof(q) ||
	    (memcpy(q, arg, n), q[n] = '\0',
	    scan_u64(q, PLAN_MIN_CPU_US, PLAN_MAX_CPU_QUOTA,
	    &p->cpu_quota_us) == -1) ||
	    (arg[n] == '/' && scan_u64(arg + n + 1, PLAN_MIN_CPU_US,
	    PLAN_MAX_CPU_PERIOD, &p->cpu_period_us) == -1))
		die(EXIT_USAGE, "--cpu-max %s: want QUOTA_US (1000..1000000000) "
		    "[/PERIOD_US (1000..1000000)]", arg);
}

static void
opt_id(struct plan *p, int c, const char *arg)
{
	uint64_t v;

	if (scan_u64(arg, 1, PLAN_MAX_ID, &v) == -1)
		die(EXIT_USAGE, "%s %s: want a subordinate id from 1 to %u "
		    "(never 0)", c == O_UID ? "--uid" : "--gid", arg,
		    PLAN_MAX_ID);
	if (c == O_UID)
		p->uid = (uid_t)v, p->has_uid = 1;
	else
		p->gid = (gid_t)v, p->has_gid = 1;
}

static void
add_str(struct opts *o, char ***arr, size_t *n, enum plan_at at,
    const char *arg)
{
	*arr = push(*arr, n, sizeof(char *));
	(*arr)[*n - 1] = xstrdup(arg);
	origin_note(o, at);
}

static void
add_port(struct opts *o, uint16_t **arr, size_t *n, enum plan_at at,
    const char *opt, const char *arg, unsigned min)
{
	*arr = push(*arr, n, sizeof(uint16_t));
	(*arr)[*n - 1] = port_arg(opt, arg, min);
	origin_note(o, at);
}

void
opt_add_fs(struct opts *o, enum plan_intent in, const char *arg)
{
	struct plan *p = &o->p;

	p->fs = push(p->fs, &p->nfs, sizeof(*p->fs));
	p->fs[p->nfs - 1].intent = in;
	p->fs[p->nfs - 1].path = xstrdup(arg);
	origin_note(o, PLAN_AT_FS);
}

/* The options that add to a list of the plan. */
static void
opt_list(struct opts *o, int c, const char *arg)
{
	struct plan *p = &o->p;

	switch (c) {
	case O_RO: case O_RW: case O_ROX: case O_RWX:	/* a path rule */
		opt_add_fs(o, usage_row(planenc_opts, c)->tag, arg);
		break;
	case O_FOLLOW:
		add_str(o, &p->follow, &p->nfollow, PLAN_AT_FOLLOW, arg);
		break;
	case O_CONNECT:
		add_port(o, &p->connect_tcp, &p->nconnect, PLAN_AT_CONNECT,
		    "--connect-tcp", arg, 1);
		break;
	case O_BIND:
		add_port(o, &p->bind_tcp, &p->nbind, PLAN_AT_BIND, "--bind-tcp",
		    arg, 0);
		break;
	case O_EGRESS:
		opt_egress(o, arg);
		break;
	case O_ENV:
		o->envnames = push(o->envnames, &o->nenvnames, sizeof(char *));
		o->envnames[o->nenvnames - 1] = (char *)arg;
		o->envfrom = xrealloc(o->envfrom, o->nenvnames *
		    sizeof(*o->envfrom));
		o->envfrom[o->nenvnames - 1] = o->where;
		break;
	case O_SETENV:
		if (strchr(arg, '=') == NULL)
			die(EXIT_USAGE, "--setenv %s: want NAME=VALUE", arg);
		add_str(o, &p->env, &p->nenv, PLAN_AT_ENV, arg);
		break;
	case O_ACK:
		add_str(o, &p->ack_daemons, &p->nack, PLAN_AT_ACK, arg);
		break;
	case O_KEEP:
		p->keep_fds = push(p->keep_fds, &p->nkeep, sizeof(int));
		if (scan_int(arg, 3, PLAN_MAX_FD, &p->keep_fds[p->nkeep - 1]) ==
		    -1)
			die(EXIT_USAGE, "--keep-fd %s: want 3 to %d (0, 1 and 2 "
			    "are always kept)", arg, PLAN_MAX_FD);
		origin_note(o, PLAN_AT_KEEP);
		break;
	default:
		abort();	/* every plan option is handled */
	}
}

/* An option that sets one value of the plan (its row a USAGE_ONCE) may
 * be given once, from the command line or a profile: a second one is
 * refused naming both places, never last-wins.  --strict and --degrade
 * are one choice, the mode; it, and --preset sys, may be repeated but
 * not changed.  Flags that only add a right (--tmp, --unix, --tcp) may
 * repeat. */
static void
once(struct opts *o, int c, const char *arg)
{
	const struct usage_opt *u;
	const char *here = o->where != NULL ? o->where : "";
	int k = c == O_DEGRADE ? O_STRICT : c;

	if ((c == O_STRICT || c == O_DEGRADE) && o->once[k] != NULL &&
	    o->mode_opt != c)
		die(EXIT_USAGE, "--%s: --%s was given (%s%s); the mode is one "
		    "choice", c == O_STRICT ? "strict" : "degrade",
		    c == O_STRICT ? "degrade" : "strict",
		    *o->once[k] ? "in " : "on the command line", o->once[k]);
	if (c == O_STRICT || c == O_DEGRADE)
		o->mode_opt = c;
	if (o->once[k] == NULL) {
		o->once[k] = here;
		return;
	}
	u = usage_row(planenc_opts, c);
	if (u->kind != USAGE_OWN_ONCE)	/* its row says: repeatable */
		return;
	if (strcmp(o->once[k], here) == 0)
		die(EXIT_USAGE, "--%s %s: given twice %s%s; it takes one "
		    "value", u->name, arg, *here ? "in " : "on the command line",
		    here);
	die(EXIT_USAGE, "--%s %s: given twice (first %s%s, again %s%s); it "
	    "takes one value", u->name, arg,
	    *o->once[k] ? "in " : "on the command line", o->once[k],
	    *here ? "in " : "on the command line", here);
}

/* The options that set one field of the plan. */
void
opt_apply(struct opts *o, int c, const char *arg)
{
	struct plan *p = &o->p;

	once(o, c, arg);
	switch (c) {
	case O_UNIX: p->sock |= PLAN_SOCK_UNIX; break;
	case O_TCP: p->sock |= PLAN_SOCK_TCP; break;
	case O_RLIMIT: opt_rlimit(o, arg); break;
	case O_TMP: p->tmp = 1; break;
	case O_PRESET:
		if (strcmp(arg, "sys") != 0)
			die(EXIT_USAGE, "--preset %s: unknown preset (want sys)",
			    arg);
		o->preset_sys = 1;
		break;
	case O_PROFILE:
		die(EXIT_USAGE, "--profile %s: not allowed in a profile", arg);
	case O_MEMORY:
		if (scan_size(arg, PLAN_MIN_MEMORY, PLAN_MAX_MEMORY,
		    &p->mem_max) == -1)
			die(EXIT_USAGE, "--memory-max %s: want a size from 1M "
			    "to 1P", arg);
		break;
	case O_PIDS:
		if (scan_u64(arg, 1, PLAN_MAX_PIDS, &p->pids_max) == -1)
			die(EXIT_USAGE, "--pids-max %s: want 1 to %d", arg,
			    PLAN_MAX_PIDS);
		break;
	case O_CPU: opt_cpu(p, arg); break;
	case O_TIMEOUT: p->timeout_ms = timeout_arg(arg); break;
	case O_UID:
	case O_GID: opt_id(p, c, arg); break;
	case O_SHA256:
		if (sha256_unhex(arg, strlen(arg), p->sha256) == -1)
			die(EXIT_USAGE, "--sha256 %s: want 64 hex digits (as "
			    "sha256sum prints them)", arg);
		p->has_sha256 = 1;
		break;
	case O_PROMPT:
		o->prompt_file = arg;
		break;
	case O_STRICT: p->mode = PLAN_STRICT; break;
	case O_DEGRADE: p->mode = PLAN_DEGRADE; break;
	case O_ARGV0:
		o->argv0 = arg;
		break;
	default: opt_list(o, c, arg); break;
	}
}

