/* SPDX-License-Identifier: ISC */
/* confexec: the run's private temporary directory (launchplan(5), tmp):
 * made before the clone under confexec's own TMPDIR (else /tmp), granted
 * rw by a rule on its descriptor, TMPDIR set in the payload's
 * environment, removed once the payload's whole tree is gone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "confexec.h"
#include "err.h"
#include "landlock.h"
#include "tmpdir.h"

/* The base: confexec's TMPDIR when it is an absolute, normalised path
 * (the caller's choice, like any other of its files), else /tmp. */
static const char *
tmp_base(void)
{
	const char *t = getenv("TMPDIR");

	return t != NULL && plan_path_why(t) == NULL ? t : "/tmp";
}

int
tmp_make(struct run *r, char *err, size_t errlen)
{
	uid_t uid = r->p.has_uid ? r->p.uid : (uid_t)-1;
	gid_t gid = r->p.has_gid ? r->p.gid : (gid_t)-1;

	r->tmpfd = -1;
	if (!r->p.tmp)
		return 0;
	if (tmpdir_make(tmp_base(), uid, gid, r->tmpdir, sizeof(r->tmpdir),
		&r->tmpfd, err, errlen) == -1)
		return -1;
	r->have_tmp = 1;
	if (ll_add_fd(r->rulesetfd, r->tmpfd, PLAN_RW, r->abi, err,
		errlen) == -1)
		return -1;
	if (snprintf(r->tmpenv, sizeof(r->tmpenv), "TMPDIR=%s", r->tmpdir) >=
	    (int)sizeof(r->tmpenv))
		return errno = ENAMETOOLONG, err_set_sys(err, errlen, "tmp");
	return 0;
}

void
tmp_end(struct run *r)
{
	char err[PATH_MAX + 128];

	if (r->tmpfd != -1) {
		close(r->tmpfd);
		r->tmpfd = -1;
	}
	if (!r->have_tmp)
		return;
	r->have_tmp = 0;
	if (tmpdir_remove(r->tmpdir, err, sizeof(err)) == -1) {
		r->tmp_residue = 1;
		warning("residue: %s", err);
	}
}
