/* SPDX-License-Identifier: ISC */
/* confexec: an execveat failure said in full: the program, its ELF
 * interpreter (read from the sealed image before the clone), and the
 * flag that would grant it.  The sealed image is a memfd, outside the
 * path hierarchy: Landlock's execute right is checked on the interpreter
 * the kernel opens by path, not on the program. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elfinterp.h"
#include "explain.h"
#include "landlock.h"
#include "plan.h"
#include "run.h"

void
explain_interp(struct run *r)
{
	r->interp[0] = '\0';
	if (elf_interp(r->imgfd, r->interp, sizeof(r->interp)) != 1)
		r->interp[0] = '\0';
}

void
explain_why(const struct run *r, int e, char *why, size_t size)
{
	char real[PATH_MAX], hint[PATH_MAX + 64];
	const char *ip = r->interp;

	/* "child: execveat: <errno>" first, as every stage says it. */
	if (ip[0] == '\0' || (e != EACCES && e != ENOENT)) {
		snprintf(why, size, "child: execveat: %s: program %s",
		    strerror(e), r->p.program);
		return;
	}
	if (realpath(ip, real) == NULL) {
		snprintf(why, size, "child: execveat: %s: program %s: its ELF "
		    "interpreter %s is missing on this host", strerror(e),
		    r->p.program, ip);
		return;
	}
	if (ll_grant_hint(&r->p, (char *const *)r->real, real, PLAN_ROX, hint,
		sizeof(hint)) == 1) {
		snprintf(why, size, "child: execveat: %s: program %s (its ELF "
		    "interpreter %s is under %s)", strerror(e), r->p.program,
		    ip, hint);
		return;
	}
	snprintf(why, size, "child: execveat: %s: program %s: its ELF "
	    "interpreter %s%s%s%s is not executable under the plan's rules "
	    "(grant it with %s)", strerror(e), r->p.program, ip,
	    strcmp(ip, real) ? " (" : "", strcmp(ip, real) ? real : "",
	    strcmp(ip, real) ? ")" : "", hint);
}
