/* SPDX-License-Identifier: ISC */
/* canary: the probe program's answers read into the lines, and each
 * probe judged against what the plan says it should get and against its
 * host side (canary.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "canary_int.h"
#include "run.h"
#include "err.h"
#include "esc.h"

/* The answers a layer gives when it stands in a route's way (EACCES and
 * EPERM: Landlock, seccomp, a file mode; EROFS: the mount view; ESRCH:
 * another pid namespace; ECONNREFUSED, ENOENT, EINVAL: the name, the
 * socket or the queue is not in the run's namespaces; EAGAIN: the pids
 * limit).  Any other errno (EMFILE under a small nofile limit, ENOMEM)
 * says nothing of the boundary: not a match. */
static const int denials[] = {EACCES, EPERM, EROFS, ESRCH, ECONNREFUSED,
	ENOENT, EINVAL, EAGAIN};

void
canary_judge_errno(int e, char *buf, size_t size)
{
	const char *n = err_name(e);

	if (n != NULL)
		snprintf(buf, size, "%s", n);
	else
		snprintf(buf, size, "errno %d", e);
}

/* The line of the k-th probe that ran (argv's order), or NULL. */
static struct probe_line *
ran(unsigned long k)
{
	size_t i;

	for (i = 0; i < canary_state.n; i++) {
		if (canary_state.pl[i].x == X_NOTRUN)
			continue;
		if (k-- == 0)
			return &canary_state.pl[i];
	}
	return NULL;
}

/* "start", "end", or "K ANSWER": into probe K's got field. */
void
canary_judge_answers(char *buf)
{
	struct probe_line *pl;
	char *line, *sp, *save = NULL;
	int v;

	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strcmp(line, "start") == 0 || strcmp(line, "end") == 0) {
			*(line[0] == 's' ? &canary_state.started :
			    &canary_state.ended) = 1;
			continue;
		}
		pl = ran(strtoul(line, &sp, 10));
		if (*sp != ' ' || pl == NULL)
			continue;
		sp++;
		if (sscanf(sp, "errno %d", &v) == 1)
			canary_judge_errno(v, pl->got, sizeof(pl->got));
		else if (strncmp(sp, "error ", 6) == 0 ||
		    strcmp(sp, "ok") == 0 || strcmp(sp, "timeout") == 0 ||
		    sscanf(sp, "signal %d", &v) == 1 ||
		    sscanf(sp, "http %d", &v) == 1)
			esc_name(sp, pl->got, sizeof(pl->got));
	}
}

/* A denial the row allows (pl->want: that one only). */
static int
denied(const struct probe_line *pl)
{
	char name[32];
	size_t i;

	for (i = 0; i < sizeof(denials) / sizeof(denials[0]); i++) {
		if (pl->want != 0 && denials[i] != pl->want)
			continue;
		canary_judge_errno(denials[i], name, sizeof(name));
		if (strcmp(pl->got, name) == 0)
			return 1;
	}
	return 0;
}

static int
judge(struct probe_line *pl)
{
	int veto, changed = canary_host_check(pl, &veto), code;

	if (veto)
		return 0;
	switch (pl->x) {
	case X_NOTRUN:
		return 1;
	case X_DENY:
		return !changed && denied(pl);
	case X_GRANT:
		return strcmp(pl->got, "ok") == 0;
	case X_KILL:
		return strcmp(pl->got, "signal 9") == 0;
	case X_HTTP403:
		return strcmp(pl->got, "http 403") == 0;
	case X_HTTPOK:
		return strcmp(pl->got, "timeout") == 0 ||
		    (sscanf(pl->got, "http %d", &code) == 1 && code != 403);
	default:
		return 0;
	}
}

int
canary_judge_unanswered(const struct probe_line *pl)
{
	return pl->x != X_NOTRUN && strcmp(pl->got, "no answer") == 0;
}

const char *
canary_judge_verdict(const struct probe_line *pl)
{
	return pl->x == X_NOTRUN ? "not run" : canary_judge_unanswered(pl) ?
	    "unanswered" : pl->match ? "match" : "MISMATCH";
}

/* Judged only when it answered every probe in a run that neither timed
 * out, was cancelled nor failed. */
void
canary_judge_all(const struct run *r)
{
	struct probe_line *pl;
	size_t i;

	for (i = 0; i < canary_state.n; i++) {
		pl = &canary_state.pl[i];
		pl->match = judge(pl);
		if (pl->x == X_NOTRUN)
			canary_state.skipped++;
		else if (canary_judge_unanswered(pl))
			canary_state.missing++;
		else if (pl->match)
			canary_state.matched++;
		else
			canary_state.bad++;
	}
	canary_state.code = canary_state.bad > 0 ? EXIT_NO : EXIT_OK;
	if (canary_state.missing > 0 || !canary_state.ended || r->failed ||
	    r->timed_out || r->cancel[0] != '\0') {
		warning("canary: the probe program ended with %zu "
		    "probe(s) unanswered: the plan is not judged",
		    canary_state.missing);
		canary_state.code = EXIT_FAIL;
	}
	canary_state.judged = 1;
}
