/* SPDX-License-Identifier: ISC */
/* confexec: the run's private temporary directory (launchplan(5), tmp):
 * made before the clone under confexec's own TMPDIR (else /tmp), TMPDIR
 * set in the payload's environment.  With the mount view it is only a
 * mount point: the payload mounts a tmpfs of the run's namespace on it
 * (mountview.h) and confexec removes the empty directory at the end.
 * Without it (degrade), the directory itself, granted rw by a rule on
 * its descriptor and removed once the payload's whole tree is gone. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "layers.h"
#include "plan.h"
#include "run.h"
#include "tmp.h"
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
	/* With the mount view the payload's files were on a tmpfs of the
	 * run's namespace, gone with it: the host's directory was only its
	 * mount point, and nothing in it is walked (another run may have
	 * put something there: a residue, never followed). */
	if (layers_on(r, L_MOUNTNS)) {
		if (rmdir(r->tmpdir) == -1) {
			r->tmp_residue = 1;
			warning("residue: %s: %s", r->tmpdir, strerror(errno));
		}
		return;
	}
	if (tmpdir_remove(r->tmpdir, err, sizeof(err)) == -1) {
		r->tmp_residue = 1;
		warning("residue: %s", err);
	}
}
