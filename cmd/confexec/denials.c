/* SPDX-License-Identifier: ISC */
/* Denials named: the payload's path calls the plan's rules deny, named
 * after the run with the narrowest flag that would grant them.  By
 * default the calls that can meet a write or execute denial are
 * observed (obs_writes) and named when the run fails; with
 * --explain-denials every path call, named whatever the exit.
 *
 * The supervisor observes the calls (common/observe.h: the path and the
 * access each asks for, the call then continues untouched) and judges
 * each against the plan's rules as Landlock will (the rule paths as
 * resolved, ll_granted; the private tmp as a rw rule).  It does not see
 * the kernel's answer: a call judged denied is one the rules do not
 * grant, which Landlock refuses (EACCES; EROFS from the mount view for
 * a write comes first where the view is read-only there).  Bounded:
 * DENIALS_LISTED distinct (path, access) pairs are listed, each with its
 * count of calls; calls on further pairs are counted, not listed. */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "denials.h"
#include "err.h"
#include "landlock.h"
#include "layers.h"
#include "observe.h"
#include "plan.h"
#include "run.h"

struct denial {
	char path[PATH_MAX];
	char grant[DENIAL_SHOWN + 64];
	enum obs_access access;
	uint64_t count;
};

/* The payload's arguments that name a host path no rule grants read on
 * (denials_argv), at most ARGV_NAMED. */
#define ARGV_NAMED 4
static struct {
	size_t arg;
	char path[PATH_MAX];
	char grant[DENIAL_SHOWN + 64];
} argn[ARGV_NAMED];
static size_t nargn;

static struct {
	struct denial d[DENIALS_LISTED];
	size_t n;
	uint64_t calls;		/* denied calls seen */
	uint64_t unlisted;	/* of which on pairs past the bound */
} den;

static enum plan_intent
need_of(enum obs_access a)
{
	switch (a) {
	case OBS_READ:
		return PLAN_RO;
	case OBS_EXEC:
		return PLAN_ROX;
	default:
		return PLAN_RW;
	}
}

static int
granted(const struct run *r, const char *path, enum obs_access a)
{
	enum plan_intent need = need_of(a);

	if (ll_granted(&r->p, r->real, path, need) >= 0)
		return 1;
	/* The private tmp: a rw rule of its own (boundary_tmp, mountview.h). */
	return r->have_tmp && need != PLAN_ROX &&
	    plan_path_within(path, r->tmpdir);
}

/* Directories whose grant would give far more than the path: the root,
 * the homes, all of /dev. */
static int
too_wide(const char *dir)
{
	static const char *const wide[] = {"/", "/root", "/home", "/dev"};
	const char *slash;
	size_t i;

	for (i = 0; i < sizeof(wide) / sizeof(wide[0]); i++)
		if (strcmp(dir, wide[i]) == 0)
			return 1;
	/* /home/USER */
	return strncmp(dir, "/home/", 6) == 0 && dir[6] != '\0' &&
	    ((slash = strchr(dir + 6, '/')) == NULL || slash[1] == '\0');
}

/* The narrowest flag for (path, a) in buf: a file, device node or
 * directory read, written or executed is granted as itself; a name made
 * or removed needs its directory, unless that directory is too wide, in
 * which case no flag is offered and why is said instead. */
static void
hint(const struct run *r, const char *path, enum obs_access a, char *buf,
    size_t size)
{
	char dir[PATH_MAX], *slash;
	enum plan_intent need = need_of(a);
	const char *flag = plan_intent_name(need);

	if (a != OBS_CREATE && a != OBS_REMOVE) {
		if (too_wide(path))
			snprintf(buf, size, "no narrow grant: --%s %.*s would "
			    "grant all beneath it", flag, DENIAL_SHOWN, path);
		else
			(void)ll_grant_hint_at(&r->p, r->real, path, path,
			    need, buf, size);
		return;
	}
	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
	if (!too_wide(dir))
		(void)ll_grant_hint_at(&r->p, r->real, path, dir, need, buf,
		    size);
	else if (a == OBS_CREATE)
		snprintf(buf, size, "--rw %.180s once it exists (make it first: "
		    "a rule on %.64s grants all of it)", path, dir);
	else
		snprintf(buf, size, "no narrow grant: removing it needs --rw "
		    "%.64s, all of it", dir);
}

static void
seen_one(struct run *r, const char *path, enum obs_access a)
{
	struct denial *d;
	size_t i;

	if (granted(r, path, a))
		return;
	den.calls++;
	for (i = 0; i < den.n; i++)
		if (den.d[i].access == a && strcmp(den.d[i].path, path) == 0) {
			den.d[i].count++;
			return;
		}
	if (den.n == DENIALS_LISTED) {
		den.unlisted++;
		return;
	}
	d = &den.d[den.n++];
	snprintf(d->path, sizeof(d->path), "%s", path);
	d->access = a;
	d->count = 1;
	/* Once per pair: the hint reads the preset's paths (realpath). */
	hint(r, path, a, d->grant, sizeof(d->grant));
}

void
denials_argv(const struct run *r)
{
	char rp[PATH_MAX];
	size_t i;

	nargn = 0;
	if (r->no_denials || r->observing == OBSERVE_ALL ||
	    !layers_on(r, L_LANDLOCK))
		return;
	for (i = 1; i < r->p.argc && nargn < ARGV_NAMED; i++) {
		/* The script handed over sealed needs no rule; a relative
		 * argument is the payload's to resolve. */
		if (i == r->p.script_arg || r->p.argv[i][0] != '/' ||
		    realpath(r->p.argv[i], rp) == NULL ||
		    granted(r, rp, OBS_READ))
			continue;
		argn[nargn].arg = i;
		snprintf(argn[nargn].path, sizeof(argn[nargn].path), "%s", rp);
		hint(r, rp, OBS_READ, argn[nargn].grant,
		    sizeof(argn[nargn].grant));
		nargn++;
	}
}

void
denials_seen(void *arg, const struct obs_seen *s)
{
	size_t i;

	for (i = 0; i < s->n; i++)
		seen_one(arg, s->at[i].path, s->at[i].access);
}

size_t
denials_count(uint64_t *calls, uint64_t *unlisted)
{
	*calls = den.calls;
	*unlisted = den.unlisted;
	return den.n;
}

int
denials_get(size_t i, const char **path, const char **access,
    const char **grant, uint64_t *count)
{
	if (i >= den.n)
		return -1;
	*path = den.d[i].path;
	*access = obs_access_name(den.d[i].access);
	*grant = den.d[i].grant;
	*count = den.d[i].count;
	return 0;
}

/* 1 when the payload exited 0: it went on without what it was denied
 * (a probe it ignores: /proc/filesystems, a cache it may not write). */
int
denials_ignored(const struct outcome *o)
{
	return o->have_status && o->si.si_code == CLD_EXITED &&
	    o->si.si_status == 0;
}

/* After the run, on stderr: one line per pair, its path cut at
 * DENIAL_SHOWN bytes, then one line counting what was not listed.  By
 * default only when the payload failed; with --explain-denials always,
 * marked as no failure when the payload exited 0 (probes it ignores).
 * A run that exited non-zero without every denial observable (no
 * --explain-denials: reads are not) says in one line how to rerun it
 * with them named, where the rerun can. */
void
denials_say(const struct run *r, const struct outcome *o)
{
	char times[48];
	size_t i;
	int quiet = r->observing == 0 ||
	    (r->observing == OBSERVE_WRITES && denials_ignored(o));

	if (r->no_denials)	/* nothing about denials asked */
		return;
	for (i = 0; !quiet && i < den.n; i++) {
		times[0] = '\0';
		if (den.d[i].count > 1)
			snprintf(times, sizeof(times), " (%llu calls)",
			    (unsigned long long)den.d[i].count);
		warning("denied%s: %s %.*s%s%s: %s%s", denials_ignored(o) ?
		    " (not a failure: exit 0)" : "",
		    obs_access_name(den.d[i].access), DENIAL_SHOWN,
		    den.d[i].path, strlen(den.d[i].path) > DENIAL_SHOWN ?
		    "..." : "", times, strncmp(den.d[i].grant, "--", 2) == 0 ?
		    "grant it with " : "", den.d[i].grant);
	}
	if (!quiet && den.unlisted > 0)
		warning("denied: %llu more calls on other paths, not listed "
		    "(at most %u paths are)", (unsigned long long)den.unlisted,
		    (unsigned)DENIALS_LISTED);
	for (i = 0; !denials_ignored(o) && o->have_status && i < nargn; i++)
		warning("argument %zu names %.*s%s, which no rule lets the "
		    "payload read: %s%s", argn[i].arg, DENIAL_SHOWN,
		    argn[i].path, strlen(argn[i].path) > DENIAL_SHOWN ? "..." :
		    "", strncmp(argn[i].grant, "--", 2) == 0 ?
		    "grant it with " : "", argn[i].grant);
	/* Only where the rerun could name them: Landlock denies, and the
	 * listener --explain-denials needs is there. */
	if (r->observing != OBSERVE_ALL && layers_on(r, L_LANDLOCK) &&
	    layers_on(r, L_LISTENER) && o->have_status && o->si.si_code == CLD_EXITED &&
	    o->si.si_status != 0)
		warning("exit %d; reads the rules deny are not named by "
		    "default: rerun as planenc ... | confexec --explain-denials "
		    "to name them", o->si.si_status);
}
