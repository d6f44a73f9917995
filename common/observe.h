/* SPDX-License-Identifier: ISC */
/* observe: the payload's path calls seen through its seccomp listener,
 * without acting for it.  With confexec's observer the filter notifies
 * these calls too (sf_observe_watch: by default obs_writes, with
 * --explain-denials every one of obs_calls), and the supervisor answers each
 * with SECCOMP_USER_NOTIF_FLAG_CONTINUE: the payload's own call then
 * runs, under its own Landlock domain, mount view and credentials, so
 * the kernel alone decides.  Before answering, the supervisor names what
 * the call asks for: the path (copied once from the caller's memory and
 * resolved in the caller's root, cwd or dirfd, as the kernel names it
 * through /proc/self/fd) and the access (read, write, exec, create, ...).
 * What is seen is for the report only: a thread that rewrites the path
 * after it was copied, or a file swapped meanwhile, makes the report
 * wrong, never the enforcement (which is the kernel's, on the call as it
 * runs).
 *
 * Observed (x86_64): open, openat, creat, execve, mkdir, mkdirat, mknod,
 * mknodat, unlink, unlinkat, rmdir, rename, renameat, renameat2, link,
 * linkat, symlink, symlinkat, truncate; and the calls that only look a
 * name up (stat, lstat, newfstatat, statx, access, faccessat,
 * faccessat2, chdir, readlink, readlinkat), seen only where a view has
 * nothing of that name and the host has (obs_host_names).  Not observed: openat2 (the
 * filter answers ENOSYS), execveat (the supervisor's own execveat of
 * the sealed image comes before it reads notifications), calls on a
 * descriptor (ftruncate, fchmod...) and the other calls Landlock does not
 * restrict.
 *
 * Nothing is seen (obs_see returns 0) where the call cannot meet a
 * Landlock denial or cannot be named: an O_PATH open, a target missing
 * without O_CREAT (ENOENT comes first), a create whose target exists
 * (EEXIST) or whose parent is missing, a path through a magic link
 * (/proc/self/fd/N), a path the supervisor cannot resolve. */
#ifndef BORNE_OBSERVE_H
#define BORNE_OBSERVE_H

#include <limits.h>
#include <stddef.h>
#include <linux/seccomp.h>

#include "sysfilter.h"

/* The observed call numbers (for sf_observe). */
extern const int obs_calls[];
extern const size_t obs_ncalls;

/* The cheap observer's watches (sf_observe_watch): the calls that can
 * meet a write or execute denial and are rare in path-heavy work:
 * execve, creat, mkdir, mknod, link, symlink, unlink, rmdir, rename,
 * truncate, each form; open and openat only when their flags ask to
 * write, create or truncate (O_WRONLY, O_RDWR, O_CREAT, O_TRUNC), so a
 * read-only open and every lookup stay in the filter. */
extern const struct sf_watch obs_writes[];
extern const size_t obs_nwrites;

/* 1 when nr is observed. */
int obs_is_observed(int nr);

/* The access a call asks for; OBS_READ, OBS_EXEC: a read or execute
 * right on the file; the others: a write right on it (OBS_WRITE,
 * OBS_RDWR, OBS_TRUNCATE) or on its directory (OBS_CREATE, OBS_REMOVE). */
enum obs_access {
	OBS_READ, OBS_WRITE, OBS_RDWR, OBS_TRUNCATE, OBS_EXEC, OBS_CREATE,
	OBS_REMOVE, OBS_NACCESS
};

/* "read", "write", "read-write", "truncate", "exec", "create",
 * "remove". */
const char *obs_access_name(enum obs_access a);

/* What one call asks for: at most two paths (rename: the old name
 * removed, the new one created). */
#define OBS_MAX 2
struct obs_seen {
	size_t n;
	struct {
		enum obs_access access;
		char path[PATH_MAX];	/* absolute, as the kernel names it */
	} at[OBS_MAX];
};

/* Name what notification n (an observed call, from listenfd) asks for.
 * Returns the number of paths seen (0: nothing to judge, see above).
 * Bounded work: one copy of each path, one resolution each; never
 * waits on the payload. */
size_t obs_see(const struct seccomp_notif *n, int listenfd,
    struct obs_seen *s);

/* on: the callers' root is a view that holds only what the plan names,
 * each rule at its own path (mountview.h).  A path missing there (the
 * payload got ENOENT) is then resolved on the supervisor's own host
 * (O_PATH, no magic link): where it exists, what it names is what the
 * payload would have needed granted. */
void obs_host_names(int on);

/* After the run: release what obs_see keeps (the callers' root). */
void obs_end(void);

#endif
