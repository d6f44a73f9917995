/* SPDX-License-Identifier: ISC */
/* canary: the probes' lines (canary.h), from their rows
 * (canary/probes.def): what the probe program tries on which argument,
 * what the plan says it should get (canary_expect.c), how its host side
 * is read (canary_host.c).  The rows in order are the lines' order; a
 * probe of a family (one per rw rule, granted port, egress destination,
 * daemon) has a line per instance, the family's rows taken together for
 * each.  A new probe is a row there and, for something no function of
 * the probe program tries yet, that function. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "canary_int.h"
#include "run.h"
#include "esc.h"
#include "probe.h"

#define MAX_RW 16		/* rw rules probed */
#define MAX_PORTS 8		/* granted ports probed */
#define MAX_DAEMONS 24
#define MEM_PROBE_MAX (256ull << 20)	/* memory limits touched past */
#define PIDS_PROBE_MAX 1024

/* A path as lines and records show it: escaped (no tab, newline or
 * invalid UTF-8 to break a line or a record), cut at 900 bytes. */
static const char *
shown(const char *path, char *buf, size_t size)
{
	(void)esc_name(path, buf, size < 900 ? size : 900);
	return buf;
}

static struct probe_line *
add(const char *name, const char *op, const char *arg)
{
	struct probe_line *pl;
	char s[900];

	if (canary_state.n >= CANARY_MAX_PROBES)
		return NULL;
	pl = &canary_state.pl[canary_state.n++];
	memset(pl, 0, sizeof(*pl));
	pl->name = name;
	snprintf(pl->op, sizeof(pl->op), "%s", op);
	snprintf(pl->arg, sizeof(pl->arg), "%s", arg);
	snprintf(pl->tried, sizeof(pl->tried), "%s %s", op,
	    shown(arg, s, sizeof(s)));
	snprintf(pl->got, sizeof(pl->got), "no answer");
	return pl;
}

/* A line for a probe not tried, saying why (expected: "not run: ..."). */
static void
not_run(const char *name, const char *tried, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static void
not_run(const char *name, const char *tried, const char *fmt, ...)
{
	struct probe_line *pl = add(name, "", "");
	va_list ap;
	char s[900];

	if (pl == NULL)
		return;
	pl->x = X_NOTRUN;
	snprintf(pl->tried, sizeof(pl->tried), "%s", shown(tried, s,
	    sizeof(s)));
	va_start(ap, fmt);
	vsnprintf(pl->expected, sizeof(pl->expected), fmt, ap);
	va_end(ap);
	snprintf(pl->got, sizeof(pl->got), "-");
}

/* ---- the rows' arguments: 1 a line, 0 none, -1 not run ---- */

/* Its file in the directory outside every rule. */
static int
arg_outside(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct canary_arg *a)
{
	if (canary_state.dir[0] == '\0') {
		snprintf(a->why, sizeof(a->why), "not run: %s",
		    canary_state.nodir);
		return -1;
	}
	snprintf(a->arg, sizeof(a->arg), "%s/%s", canary_state.dir,
	    canary_state.fname[p->file]);
	return 1;
}

/* A rw file rule: the rule's path. */
static int
arg_rwfile(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct canary_arg *a)
{
	snprintf(a->arg, sizeof(a->arg), "%s", at->path);
	return !at->dir;
}

/* A rw directory rule: a file of the probe's own in it. */
static int
arg_rwdir(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct canary_arg *a)
{
	snprintf(a->arg, sizeof(a->arg), "%s%s.borne-canary.%ld", at->path,
	    strcmp(at->path, "/") == 0 ? "" : "/", (long)getpid());
	return at->dir;
}

/* The first rw directory rule: the privileged file made in it. */
static int
arg_priv(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct canary_arg *a)
{
	char s[900];

	if (!at->dir || !at->first)
		return 0;
	if (canary_setup_priv(r, at->path, a->why, sizeof(a->why)) == -1) {
		snprintf(a->tried, sizeof(a->tried), "%s",
		    canary_state.priv[0] ? canary_state.priv : at->path);
		return -1;
	}
	snprintf(a->arg, sizeof(a->arg), "%s", canary_state.priv);
	snprintf(a->shown, sizeof(a->shown), "%s (mode %04o)",
	    shown(canary_state.priv, s, sizeof(s)),
	    (unsigned)(canary_state.privst.st_mode & 07777));
	return 1;
}

/* The family's instance as it is (a port, an egress destination). */
static int
arg_at(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct canary_arg *a)
{
	snprintf(a->arg, sizeof(a->arg), "%s", at->arg);
	snprintf(a->shown, sizeof(a->shown), "%s", at->arg);
	return 1;
}

static int
arg_unlisted(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct canary_arg *a)
{
	if (r->p.negress == 0) {
		snprintf(a->tried, sizeof(a->tried),
		    "CONNECT canary.invalid:443");
		snprintf(a->why, sizeof(a->why), "not run: the plan has no "
		    "egress broker (no TCP to anywhere but its connect-tcp "
		    "ports)");
		return -1;
	}
	snprintf(a->arg, sizeof(a->arg), "canary.invalid:443");
	snprintf(a->shown, sizeof(a->shown), "%s", a->arg);
	return 1;
}

static int
arg_daemon(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct canary_arg *a)
{
	char s[900];

	snprintf(a->arg, sizeof(a->arg), "%s", at->hit->path);
	snprintf(a->shown, sizeof(a->shown), "%s (%s)",
	    shown(at->hit->path, s, sizeof(s)), at->hit->name);
	return 1;
}

/* A cgroup limit probed past (v + over), when the plan sets one (v) up
 * to max: the probe does it in a child ("VERB past KEY"); the bound
 * said in MiB when mib is set. */
static int
limit(unsigned long long v, unsigned long long over, unsigned long long max,
    int mib, const char *verb, const char *key, struct canary_arg *a)
{
	if (v == 0)
		return 0;
	if (v + over > max) {
		snprintf(a->tried, sizeof(a->tried), "%s past %s", verb, key);
		snprintf(a->why, sizeof(a->why), "not run: %s above %llu%s",
		    key, (max - over) >> (mib ? 20 : 0), mib ? " MiB" : "");
		return -1;
	}
	snprintf(a->arg, sizeof(a->arg), "%llu", v + over);
	return 1;
}

/* 32 MiB past memory-max. */
static int
arg_memory(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct canary_arg *a)
{
	return limit(r->p.mem_max, 32ull << 20, MEM_PROBE_MAX, 1, "touch",
	    "memory-max", a);
}

/* As many processes as pids-max. */
static int
arg_pids(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct canary_arg *a)
{
	return limit(r->p.pids_max, 0, PIDS_PROBE_MAX, 0, "fork", "pids-max",
	    a);
}

/* ---- the table ---- */

/* Confexec's fields of each row (canary/probes.def); the probe
 * program's function is its own. */
#define PROBE(name_, op_, function, ...) \
	{.name = name_, .op = op_, __VA_ARGS__},
static const struct canary_probe probes[] = {
#include "canary/probes.def"
};
#undef PROBE

/* One line of row p for instance at: -1 when no line is left. */
static int
line(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at)
{
	static struct canary_arg a;
	struct probe_line *pl;
	char s[900];
	int rc;

	memset(&a, 0, sizeof(a));
	if (p->arg == NULL) {
		snprintf(a.arg, sizeof(a.arg), "%s", p->fixed);
		rc = 1;
	} else if ((rc = p->arg(r, p, at, &a)) == 0)
		return 0;
	if (rc == -1) {
		not_run(p->name, a.tried[0] ? a.tried : p->op, "%s", a.why);
		return 0;
	}
	if ((pl = add(p->name, p->op, a.arg)) == NULL)
		return -1;
	if (p->tried != NULL)
		snprintf(pl->tried, sizeof(pl->tried), p->tried, a.shown[0] ?
		    a.shown : shown(a.arg, s, sizeof(s)));
	pl->h = p->host;
	pl->file = p->file;
	canary_expect(r, p, at, pl);
	return 0;
}

/* ---- the families: their instances, in the plan's order ---- */

/* Where a family's walk is: the next instance is at i. */
struct cursor {
	size_t i, n, k, skipped;
	char arg[PLAN_MAX_HOST_LEN + 32];
	struct daemon_hit *hits;
	size_t nhits;
};

/* Each rw (and rwx) rule, up to the MAX_RW-th directory; one that
 * cannot be probed is a "rw" line not run, in its place. */
static int
next_rw(const struct run *r, struct cursor *c, struct canary_at *at)
{
	const struct plan_fsrule *f;

	for (; c->i < r->p.nfs; c->i++) {
		f = &r->p.fs[c->i];
		if (f->intent != PLAN_RW && f->intent != PLAN_RWX)
			continue;
		if (c->k >= MAX_RW) {
			c->skipped++;
			continue;
		}
		if (stat(f->path, &at->st) == -1) {
			not_run("rw", f->path, "not run: %s", strerror(errno));
			continue;
		}
		at->path = f->path;
		at->dir = S_ISDIR(at->st.st_mode);
		at->first = at->dir && c->k == 0;
		if (at->dir || S_ISREG(at->st.st_mode) ||
		    S_ISCHR(at->st.st_mode)) {
			c->k += (size_t)at->dir;
			c->i++;
			return 1;
		}
		not_run("rw", f->path, "not run: neither a directory, a "
		    "regular file nor a character device");
	}
	if (c->skipped > 0)
		not_run("rw", "rules past the first 16",
		    "not run: %zu more rw rules", c->skipped);
	return 0;
}

/* Each connect-tcp port with a host listener, the first MAX_PORTS. */
static int
next_port(const struct run *r, struct cursor *c, struct canary_at *at)
{
	const struct plan *p = &r->p;

	for (; c->i < p->nconnect; c->i++) {
		snprintf(c->arg, sizeof(c->arg), "%u",
		    (unsigned)p->connect_tcp[c->i]);
		if (p->negress > 0)
			not_run("tcp-granted", c->arg, "not run: the run's "
			    "network is the egress broker's");
		else if (c->n >= MAX_PORTS)
			not_run("tcp-granted", c->arg, "not run: past the "
			    "first %d ports", MAX_PORTS);
		else if (!canary_setup_listens(p->connect_tcp[c->i]))
			not_run("tcp-granted", c->arg, "not run: no host "
			    "listener on 127.0.0.1:%s", c->arg);
		else {
			at->arg = c->arg;
			c->n++;
			c->i++;
			return 1;
		}
	}
	return 0;
}

/* Each egress destination (a suffix wildcard: a name beneath it). */
static int
next_egress(const struct run *r, struct cursor *c, struct canary_at *at)
{
	const struct plan_egress *e;

	if (c->i >= r->p.negress)
		return 0;
	e = &r->p.egress[c->i++];
	if (e->host[0] == '*')
		snprintf(c->arg, sizeof(c->arg), "borne-canary%s:%u",
		    e->host + 1, (unsigned)e->port);
	else
		snprintf(c->arg, sizeof(c->arg), strchr(e->host, ':') ?
		    "[%s]:%u" : "%s:%u", e->host, (unsigned)e->port);
	at->arg = c->arg;
	return 1;
}

/* Each daemon's socket found for the run's ids (common/probe.h). */
static int
next_daemon(const struct run *r, struct cursor *c, struct canary_at *at)
{
	static struct daemon_hit hits[MAX_DAEMONS];

	if (c->hits == NULL) {
		c->hits = hits;
		if (probe_daemons(r->final_uid, r->final_gid, hits,
		    MAX_DAEMONS, &c->nhits) == -1 && errno != E2BIG)
			c->nhits = 0;
	}
	if (c->i >= c->nhits)
		return 0;
	at->hit = &c->hits[c->i++];
	return 1;
}

static int (*const next[])(const struct run *, struct cursor *,
    struct canary_at *) = {
	[E_RW] = next_rw,
	[E_PORT] = next_port,
	[E_EGRESS] = next_egress,
	[E_DAEMON] = next_daemon,
};

void
canary_probes_derive(const struct run *r)
{
	const size_t n = sizeof(probes) / sizeof(probes[0]);
	struct canary_at at;
	struct cursor c;
	size_t i, j, end;

	for (i = 0; i < n; i = end) {
		memset(&at, 0, sizeof(at));
		end = i + 1;
		if (probes[i].each == E_ONE) {
			if (line(r, &probes[i], &at) == -1)
				return;
			continue;
		}
		while (end < n && probes[end].each == probes[i].each)
			end++;
		memset(&c, 0, sizeof(c));
		while (next[probes[i].each](r, &c, &at))
			for (j = i; j < end; j++)
				if (line(r, &probes[j], &at) == -1)
					return;
	}
}
