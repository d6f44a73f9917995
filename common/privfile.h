/* SPDX-License-Identifier: ISC */
/* privfile: the one stripper.  What makes a file carry privilege to whoever
 * runs it next (setuid, setgid, a security.capability xattr), and the work
 * on one entry of a walk (walk.h) that removes it: suidstrip's two steps
 * (ownership restore, then strip) and confexec's check of its rw trees
 * (confexec(1), PRIVILEGED FILES) call these from their walk callbacks,
 * so that both see and change files the same way: never following a
 * symbolic link, never opening a file to read it, each change made
 * through an fd whose statx matches what the walk saw (walk_open).
 * Thread-safe: the walk's callbacks run on its worker threads. */
#ifndef BORNE_PRIVFILE_H
#define BORNE_PRIVFILE_H

#include <sys/types.h>

#include "walk.h"

/* The statx fields both need beyond the walk's own. */
#define PRIV_STX_MASK (STATX_UID | STATX_GID | STATX_NLINK)
/* A security.capability larger than this is still one (ERANGE). */
#define PRIV_CAP_MAX 64

/* What priv_look found in a privileged file. */
struct priv_file {
	ssize_t capn;		/* size of security.capability, 0: none */
	char ctext[512];	/* the capability as getcap prints it, or "" */
	int ver;		/* its version (1, 2, 3), 0: none or invalid */
	long long rootid;	/* version 3: its root id, else -1 */
	unsigned after;		/* the mode once stripped */
	struct statx fresh;	/* the file as last seen */
};

/* Whether the regular file e carries privilege: setuid or setgid in its
 * mode (e->stx), or a security.capability (read by name in e->dirfd,
 * without opening the file).  1 with f filled, 0 when it carries none, -1
 * with errno when its capability could not be read. */
int priv_look(const struct walk_ent *e, struct priv_file *f);

/* Strip the privileged file e (f from priv_look): setuid and setgid
 * cleared, security.capability removed, through an fd matching e's statx;
 * the owner is never changed.  f->fresh and f->after get the file as
 * opened.  A file with several links is stripped too (mode and xattrs
 * are the inode's, shared by every link: the caller decides beforehand
 * and says so).  NULL, or the operation that failed ("open", "chmod",
 * "remove capability") with errno (ESTALE: not the file the walk saw). */
const char *priv_strip(const struct walk_ent *e, struct priv_file *f);

/* The ownership restore of e (suidstrip --chown), root-owned: given to
 * uid:gid through its own fd (a directory's, e->fd) or one matching e's
 * statx; the kernel's chown clears setuid, setgid and the capability.
 * Never a regular file with several links (chown would move every link,
 * some perhaps elsewhere).  0, or -1 with errno (ESTALE: changed since
 * the walk saw it). */
int priv_chown(const struct walk_ent *e, uid_t uid, gid_t gid);

#endif
