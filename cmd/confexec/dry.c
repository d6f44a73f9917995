/* SPDX-License-Identifier: ISC */
/* confexec --dry-run: what the real run would find before it creates
 * anything, with the same verdict and exit status: the layers (layers.c),
 * then, in the run's order, the kept descriptors, the rule paths, the
 * program and its pin, its ELF interpreter under the rules, and the
 * journal.  Nothing is created anywhere: the ruleset and the sealed copy
 * are descriptors of this process only, closed before it exits, and the
 * image cache is not used. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "confexec.h"
#include "err.h"
#include "image.h"
#include "landlock.h"

/* The journal as journal_append would open it (O_APPEND, created when
 * missing): an existing file must open for writing, a missing one needs
 * a writable directory.  0, or -1 with errno. */
static int
journal_writable(const char *path)
{
	char dir[PATH_MAX];
	int fd;

	fd = open(path, O_WRONLY | O_APPEND | O_CLOEXEC | O_NOCTTY);
	if (fd != -1)
		return close(fd), 0;
	if (errno != ENOENT || strlen(path) >= sizeof(dir))
		return -1;
	memcpy(dir, path, strlen(path) + 1);
	return access(dirname(dir), W_OK | X_OK);
}

/* The image's interpreter, when it has one, must be executable under the
 * plan's rules.  0, or 126 with why said. */
static int
interp_check(struct run *r, char *why, size_t len)
{
	char real[PATH_MAX], hint[PATH_MAX + 64];

	exec_interp(r);
	if (r->interp[0] == '\0' || r->abi < 1)
		return 0;
	if (realpath(r->interp, real) == NULL) {
		exec_why(r, ENOENT, why, len);
		return EXIT_NOEXEC;
	}
	if (ll_grant_hint(&r->p, r->real, real, PLAN_ROX, hint,
		sizeof(hint)) == 1)
		return 0;
	exec_why(r, EACCES, why, len);
	return EXIT_NOEXEC;
}

int
dry_checks(struct run *r, char *why, size_t len)
{
	enum image_err ie;
	char err[1024];
	int code = 0;

	r->abi = r->pr.landlock_abi;
	if (bd_inherited(r, why, len) == -1 ||
	    (r->abi >= 1 && bd_rules(r, why, len) == -1))
		return EXIT_FAIL;
	ie = image_seal(r->p.program, r->p.has_sha256 ? r->p.sha256 : NULL,
	    &r->imgfd, r->prog_digest, err, sizeof(err));
	if (ie != IMAGE_OK) {
		snprintf(why, len, "%s", err);
		code = ie == IMAGE_NOTFOUND ? EXIT_NOTFOUND :
		    ie == IMAGE_NOEXEC ? EXIT_NOEXEC : EXIT_FAIL;
	} else
		code = interp_check(r, why, len);
	if (code == 0 && r->p.script_arg != 0) {
		int sfd;
		uint8_t d[SHA256_LEN];

		ie = script_seal(r->p.argv[r->p.script_arg],
		    r->p.script_sha256, &sfd, d, err, sizeof(err));
		if (ie != IMAGE_OK) {
			snprintf(why, len, "%s", err);
			code = ie == IMAGE_NOTFOUND ? EXIT_NOTFOUND :
			    ie == IMAGE_NOEXEC ? EXIT_NOEXEC : EXIT_FAIL;
		} else
			close(sfd);
	}
	if (code == 0 && r->journal != NULL &&
	    journal_writable(r->journal) == -1) {
		snprintf(why, len, "the journal %s cannot be written: %s",
		    r->journal, strerror(errno));
		code = EXIT_FAIL;
	}
	if (r->imgfd != -1)
		close(r->imgfd);
	if (r->rulesetfd != -1)
		close(r->rulesetfd);
	r->imgfd = r->rulesetfd = -1;
	return code;
}
