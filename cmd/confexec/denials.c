/* SPDX-License-Identifier: ISC */
/* confexec --explain-denials: the payload's path calls the plan's rules
 * deny, named after the run with the flag that would grant them.
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

#include "denials.h"
#include "err.h"
#include "landlock.h"
#include "observe.h"
#include "plan.h"
#include "run.h"

struct denial {
	char path[PATH_MAX];
	char grant[DENIAL_SHOWN + 64];
	enum obs_access access;
	uint64_t count;
};

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
	(void)ll_grant_hint(&r->p, r->real, path, need_of(a), d->grant,
	    sizeof(d->grant));
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

/* After the run, on stderr: one line per pair, its path cut at
 * DENIAL_SHOWN bytes, then one line counting what was not listed. */
void
denials_say(const struct run *r)
{
	char times[48];
	size_t i;

	if (!r->explain)
		return;
	for (i = 0; i < den.n; i++) {
		times[0] = '\0';
		if (den.d[i].count > 1)
			snprintf(times, sizeof(times), " (%llu calls)",
			    (unsigned long long)den.d[i].count);
		warning("denied: %s %.*s%s%s: grant it with %s",
		    obs_access_name(den.d[i].access), DENIAL_SHOWN,
		    den.d[i].path, strlen(den.d[i].path) > DENIAL_SHOWN ?
		    "..." : "", times, den.d[i].grant);
	}
	if (den.unlisted > 0)
		warning("denied: %llu more calls on other paths, not listed "
		    "(at most %u paths are)", (unsigned long long)den.unlisted,
		    (unsigned)DENIALS_LISTED);
}
