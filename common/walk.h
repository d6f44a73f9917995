/* SPDX-License-Identifier: ISC */
/* walk: race-free, parallel, fd-relative directory walk for trees a hostile
 * process may be changing while we walk them (a running container's bind
 * mounts).  No path is ever resolved from the top: every step is an
 * openat2(2) relative to the parent directory's fd with RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV, nested
 * mounts (same-filesystem bind mounts included) are pruned by mount id, and
 * a file is changed only through an fd whose statx matches what the walk
 * saw.  Also the fd-based file operations, chosen once by walk_probe(). */
#ifndef BORNE_WALK_H
#define BORNE_WALK_H

#include <dirent.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <linux/stat.h>	/* struct statx, STATX_*: musl 1.2.3 has neither */

#include "uapi.h"

/* Bit for a d_type value (DT_REG ...) in walk_ops.want. */
#define WALK_DT(t) (1u << (t))

/* One entry handed to walk_ops.ent.  For a directory (including the root,
 * whose dpath and name are both "") fd is the directory's own open fd
 * (O_RDONLY|O_DIRECTORY) and dirfd its parent's (-1 for the root); for
 * anything else fd is -1 and the entry is name in dirfd.  stx was filled
 * with AT_SYMLINK_NOFOLLOW and the ops' mask (plus type, inode, mount id). */
struct walk_ent {
	int dirfd;
	int fd;
	const char *dpath;	/* directory path relative to the root */
	const char *name;
	const struct statx *stx;
};

struct walk_ops {
	unsigned want;		/* WALK_DT() of non-directories to stat */
	unsigned stx_mask;	/* extra STATX_* wanted */
	/* Every directory, and every non-directory whose type is in want. */
	void (*ent)(void *ctx, const struct walk_ent *e);
	/* A nested mount at dpath/name was pruned (not entered). */
	void (*mount)(void *ctx, const char *dpath, const char *name);
	/* Something could not be read or changed under our feet: err is the
	 * errno (ESTALE: the entry changed type or identity during the walk),
	 * what the operation ("open", "stat", "read"). */
	void (*error)(void *ctx, const char *dpath, const char *name, int err,
	    const char *what);
	/* Called from the controlling thread about 4 times a second. */
	void (*progress)(void *ctx, uint64_t scanned, double seconds);
};

enum walk_result {
	WALK_DONE = 0,		/* every reachable entry was visited */
	WALK_BUDGET = 1,	/* the budget ran out; the walk stopped early */
};

/* Walk the directory open as rootfd (not closed; read from its start) with nthreads workers
 * (1..16; 0: none, the caller walks, making no thread) until done or
 * budget_ns (0: none) has passed.  Callbacks run
 * concurrently on the worker threads.  *scanned receives the number of
 * entries read.  Returns a walk_result, or -1 with errno when the walk
 * could not start (rootfd unusable, no threads). */
int walk_run(int rootfd, const struct walk_ops *ops, void *ctx, int nthreads,
    uint64_t budget_ns, uint64_t *scanned);

/* statx(2) through syscall(2), for C libraries without the wrapper.
 * Returns 0 or -1 with errno. */
int walk_statx(int dirfd, const char *path, int flags, unsigned mask,
    struct statx *st);

/* Choose, once, the system calls used below: openat2 is required (-1 with
 * ENOSYS without it); fchmodat2 with AT_EMPTY_PATH, getxattrat and
 * removexattrat are used when the kernel has them, /proc/self/fd/N paths
 * otherwise (also when the environment has BORNE_WALK_FALLBACK, so that
 * tests can prove the fallbacks on a new kernel).  Returns 0, or -1 with
 * errno. */
int walk_probe(void);

/* A short text naming the calls chosen by walk_probe(). */
const char *walk_methods(void);

/* Open name in dirfd as O_PATH|O_NOFOLLOW (same RESOLVE_* flags as the
 * walk) and check that its type, inode, device and mount id are those of
 * seen; fresh (may be NULL) gets the fd's own statx (mode, owner, links).
 * Returns the fd, or -1 with errno (ESTALE when it is not the same file). */
int walk_open(int dirfd, const char *name, const struct statx *seen,
    struct statx *fresh);

/* chmod the file open as fd (O_PATH is fine).  Returns 0 or -1 with errno. */
int walk_chmod(int fd, mode_t mode);

/* chown the file open as fd, a symlink itself when fd is one.  0 or -1. */
int walk_chown(int fd, uid_t uid, gid_t gid);

/* Read name's security.capability (name in dirfd, never following a
 * symlink, never opening the file).  Returns its size, or -1 with errno
 * (ENODATA when it has none). */
ssize_t walk_getcap(int dirfd, const char *name, void *buf, size_t size);

/* Remove security.capability from the file open as fd.  0 or -1. */
int walk_removecap(int fd);

#endif
