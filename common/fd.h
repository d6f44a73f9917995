/* SPDX-License-Identifier: ISC */
/* fd: parse fd lists, close every fd not kept (close_range, constant time
 * in RLIMIT_NOFILE), and verify by re-reading /proc/self/fd.
 * Shared by fdclose-verify and confexec. */
#ifndef BORNE_FD_H
#define BORNE_FD_H

#include <stddef.h>

#define FDSET_MAX 64	/* most fds a keep list may name */

struct fdset {
	int fd[FDSET_MAX];	/* sorted ascending, unique */
	size_t n;
};

/* Parse "0,1,2,7" (decimal, comma-separated, no blanks) and merge into
 * set.  Returns 0, or -1 with errno EINVAL (malformed), ERANGE (fd out of
 * range) or E2BIG (too many). */
int fdset_parse(struct fdset *set, const char *s);

/* Add one fd.  Same errors as fdset_parse. */
int fdset_add(struct fdset *set, int fd);

/* Close every descriptor not in set, with close_range(2) over the gaps
 * (falling back to a /proc/self/fd walk only where close_range is missing).
 * Returns 0, or -1 with errno. */
int fd_close_except(const struct fdset *set);

/* An fd found open that should not be. */
struct fd_leak {
	int fd;
	char target[256];	/* readlink of /proc/self/fd/N, or "?" */
};

/* Re-read /proc/self/fd (the directory fd used for reading is excluded).
 * Returns 0 when the only open fds are in set, 1 when another is open (the
 * lowest one is described in *leak), -1 with errno when /proc cannot be
 * read (callers must treat that as a failure, not a pass). */
int fd_verify(const struct fdset *set, struct fd_leak *leak);

#endif
