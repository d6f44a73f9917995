/* SPDX-License-Identifier: ISC */
/* canary: what the plan says a probe should get (canary.h).  Most rows
 * name the guards in a route's way: denied while one is on ("denied (a,
 * b)"), else granted ("granted (x missing)" when degrade mode dropped
 * what would have denied it).  The rest have a function here. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>
#include <unistd.h>

#include "canary_int.h"
#include "layers.h"
#include "run.h"
#include "esc.h"
#include "probe.h"

/* When an off guard is said missing: never (a property of the plan, or
 * a layer another stands in for), when the plan wants it, always. */
enum miss { M_NEVER, M_WANTED, M_ALWAYS };

static int
scope_on(const struct run *r)
{
	return layers_on(r, L_LANDLOCK) && r->pr.landlock_abi >= 6;
}

/* /dev/shm is often noexec: in the way of the exec probe too. */
static int
noexec_on(const struct run *r)
{
	struct statvfs vfs;

	return statvfs(canary_state.dir, &vfs) == 0 &&
	    (vfs.f_flag & ST_NOEXEC);
}

/* The host process is root's (or another uid's) and the run's is not. */
static int
uid_on(const struct run *r)
{
	return r->final_uid != geteuid();
}

static int
broker_on(const struct run *r)
{
	return r->p.negress > 0;
}

/* Each guard: a layer of the run, or on as its function says; its name
 * (NULL: the layer's; "uid": the run's uid). */
static const struct {
	int layer;
	int (*on)(const struct run *r);
	enum miss miss;
	const char *name;
} guard[G_N] = {
	[G_LANDLOCK] = {L_LANDLOCK, NULL, M_WANTED, NULL},
	[G_MOUNTNS] = {L_MOUNTNS, NULL, M_WANTED, NULL},
	[G_PIDNS] = {L_PIDNS, NULL, M_WANTED, NULL},
	[G_NETNS] = {L_NETNS, NULL, M_WANTED, NULL},
	[G_TCP] = {L_TCP, NULL, M_WANTED, NULL},
	[G_MEMORY] = {L_MEMORY, NULL, M_WANTED, NULL},
	[G_PIDS] = {L_PIDS, NULL, M_WANTED, NULL},
	/* Without the run's own IPC namespace seccomp refuses SysV. */
	[G_IPCNS] = {L_IPCNS, NULL, M_NEVER, NULL},
	[G_SECCOMP] = {L_SECCOMP, NULL, M_NEVER, "seccomp"},
	/* Landlock's scopes (abstract unix, signals): applied with Landlock
	 * from ABI 6 on, whatever the plan grants. */
	[G_SCOPE] = {-1, scope_on, M_ALWAYS, "landlock-scope"},
	[G_NOEXEC] = {-1, noexec_on, M_NEVER, "noexec mount"},
	[G_UID] = {-1, uid_on, M_NEVER, "uid"},
	[G_BROKER] = {-1, broker_on, M_NEVER,
	    "net-namespace (the egress broker's)"},
};

/* Whether the plan lets the call past seccomp (enum canary_unless). */
static int
unless_given(const struct run *r, enum canary_unless u)
{
	switch (u) {
	case U_NONE:
		return 1;
	case U_TCP:
		return (r->p.sock & PLAN_SOCK_TCP) != 0;
	case U_UNIX:
		return (r->p.sock & PLAN_SOCK_UNIX) != 0;
	case U_IPCNS:
		return layers_on(r, L_IPCNS);
	default:
		return 0;
	}
}

/* ", name" added to list (size 200). */
static void
list_add(char *list, const struct run *r, enum canary_guard g)
{
	size_t n = strlen(list);

	if (guard[g].layer >= 0 && guard[g].name == NULL)
		snprintf(list + n, 200 - n, "%s%s", n ? ", " : "",
		    r->layers[guard[g].layer].name);
	else if (g == G_UID)
		snprintf(list + n, 200 - n, "%suid %lu", n ? ", " : "",
		    (unsigned long)r->final_uid);
	else
		snprintf(list + n, 200 - n, "%s%s", n ? ", " : "",
		    guard[g].name);
}

/* Denied (or killed) while a guard is on, else granted, saying which
 * are missing. */
static void
expect_guards(const struct run *r, const struct canary_probe *p,
    struct probe_line *pl)
{
	static const enum canary_guard sc[] = {G_SECCOMP, G_END};
	const enum canary_guard *g = unless_given(r, p->unless) ? p->guards :
	    sc;
	char on[200] = "", off[200] = "";
	int o, wanted;

	for (; *g != G_END; g++) {
		o = guard[*g].on != NULL ? guard[*g].on(r) :
		    layers_on(r, guard[*g].layer);
		wanted = guard[*g].layer >= 0 &&
		    r->layers[guard[*g].layer].wanted;
		if (o)
			list_add(on, r, *g);
		else if (guard[*g].miss == M_ALWAYS ||
		    (guard[*g].miss == M_WANTED && wanted))
			list_add(off, r, *g);
	}
	if (on[0] != '\0') {
		pl->x = p->x;
		pl->want = p->want;
		snprintf(pl->expected, sizeof(pl->expected), "%s (%s)",
		    p->x == X_KILL ? "killed" : "denied", on);
	} else {
		pl->x = X_GRANT;
		snprintf(pl->expected, sizeof(pl->expected), "granted%s%s%s",
		    off[0] ? " (" : "", off, off[0] ? " missing)" : "");
	}
}

void
canary_expect(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct probe_line *pl)
{
	if (p->expect != NULL)
		p->expect(r, p, at, pl);
	else if (p->says != NULL) {
		pl->x = p->x;
		snprintf(pl->expected, sizeof(pl->expected), p->says, pl->arg);
	} else
		expect_guards(r, p, pl);
}

/* The view's own root is there (a directory), and no rule grants
 * reading it unless one names / itself: its guards alone are in the
 * way. */
void
canary_expect_root(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct probe_line *pl)
{
	size_t i;

	for (i = 0; i < r->p.nfs; i++)
		if (strcmp(r->p.fs[i].path, "/") == 0) {
			pl->x = X_GRANT;
			snprintf(pl->expected, sizeof(pl->expected), "granted "
			    "(%s /)", plan_intent_name(r->p.fs[i].intent));
			return;
		}
	expect_guards(r, p, pl);
}

/* DAC for the run's credentials (no capability: the payload holds
 * none, uid 0 included): want of rwx on st. */
static int
dac(const struct run *r, const struct stat *st, unsigned want)
{
	unsigned m = (unsigned)st->st_mode;

	if (st->st_uid == r->final_uid)
		return ((m >> 6) & want) == want;
	if (st->st_gid == r->final_gid)
		return ((m >> 3) & want) == want;
	return (m & want) == want;
}

/* DAC along path: search on every directory above it, want on path
 * itself (st, already looked at). */
static int
dac_path(const struct run *r, const char *path, const struct stat *st,
    unsigned want)
{
	char up[PATH_MAX];
	struct stat ust;
	char *slash;

	snprintf(up, sizeof(up), "%s", path);
	while ((slash = strrchr(up, '/')) != NULL && slash != up) {
		*slash = '\0';
		if (stat(up, &ust) == -1 || !dac(r, &ust, 1))
			return 0;
	}
	if (strcmp(path, "/") != 0 && (stat("/", &ust) == -1 ||
	    !dac(r, &ust, 1)))
		return 0;
	return dac(r, st, want);
}

/* Inside a rw rule only the file modes on its path stand in the way. */
void
canary_expect_rw(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct probe_line *pl)
{
	char shown[900];

	if (dac_path(r, at->path, &at->st, p->dac)) {
		pl->x = X_GRANT;
		(void)esc_name(at->path, shown, sizeof(shown));
		snprintf(pl->expected, sizeof(pl->expected),
		    "granted (rw rule %.400s)", shown);
	} else {
		pl->x = X_DENY;
		snprintf(pl->expected, sizeof(pl->expected), "denied (file "
		    "modes on the path, for uid %lu)",
		    (unsigned long)r->final_uid);
	}
}

/* Granted as the rule is, and its privilege stripped before the run by
 * the check of the rw trees (privileged.c). */
void
canary_expect_priv(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct probe_line *pl)
{
	size_t n;

	canary_expect_rw(r, p, at, pl);
	n = strlen(pl->expected);
	if (pl->x == X_GRANT)
		snprintf(pl->expected + n, sizeof(pl->expected) - n, ", its "
		    "privilege stripped before the run");
}

/* A daemon's socket: seccomp without the unix right, the view when no
 * rule names it, its mode; else granted, acknowledged or not. */
void
canary_expect_daemon(const struct run *r, const struct canary_probe *p,
    const struct canary_at *at, struct probe_line *pl)
{
	const struct plan *pn = &r->p;
	size_t j;
	int acked = 0, named = 0;

	for (j = 0; j < pn->nack; j++)
		acked |= strcmp(pn->ack_daemons[j], at->hit->name) == 0;
	for (j = 0; j < pn->nfs; j++)
		named |= plan_path_within(at->hit->path, pn->fs[j].path);
	pl->x = X_DENY;
	if (!(pn->sock & PLAN_SOCK_UNIX))
		snprintf(pl->expected, sizeof(pl->expected),
		    "denied (seccomp: no unix right)");
	else if (layers_on(r, L_MOUNTNS) && !named)
		snprintf(pl->expected, sizeof(pl->expected),
		    "denied (mount-view: no rule names it)");
	else if (!at->hit->connectable)
		snprintf(pl->expected, sizeof(pl->expected),
		    "denied (socket mode, for uid %lu)",
		    (unsigned long)r->final_uid);
	else {
		pl->x = X_GRANT;
		snprintf(pl->expected, sizeof(pl->expected), acked ?
		    "granted (acknowledged: --ack-daemon %s)" :
		    "granted (not acknowledged: degrade)", at->hit->name);
	}
}
