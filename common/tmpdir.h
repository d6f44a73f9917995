/* SPDX-License-Identifier: ISC */
/* tmpdir: a run's private temporary directory (launchplan(5), tmp):
 * made by the supervisor under a base it trusts, named from 128 random
 * bits, mode 0700, owned by whoever the payload runs as; removed with
 * the run without following anything the payload left in it.  Nothing
 * here prints. */
#ifndef BORNE_TMPDIR_H
#define BORNE_TMPDIR_H

#include <stddef.h>
#include <sys/types.h>

/* Make base/borne-tmp-<32 hex> (mkdir fails on any existing name, a
 * symlink included), chown it to uid:gid when they are not -1, and open
 * it O_PATH|O_DIRECTORY|O_NOFOLLOW.  path gets the full path (pathsz
 * bytes), *fd the descriptor (close-on-exec).  0, or -1 with errno and err
 * set; nothing is left behind on failure. */
int tmpdir_make(const char *base, uid_t uid, gid_t gid, char *path,
    size_t pathsz, int *fd, char *err, size_t errlen);

/* Remove path and everything in it, directory by directory through
 * descriptors, never following a symbolic link and never leaving the
 * file system it is on.  0, or -1 with errno and err naming what
 * stayed. */
int tmpdir_remove(const char *path, char *err, size_t errlen);

#endif
