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

/* Initialiser for the usual set: stdin, stdout, stderr. */
#define FDSET_STDIO { .fd = { 0, 1, 2 }, .n = 3 }

/* Parse "0,1,2,7" (decimal, comma-separated, no blanks) and merge into
 * set.  Returns 0, or -1 with errno EINVAL (malformed: empty, empty item,
 * sign, non-digit, leading zero, or the same fd twice in s), ERANGE (fd out
 * of range 0..INT_MAX) or E2BIG (too many).  An fd already in set is not
 * an error (merging is idempotent).  On error set is unchanged. */
int fdset_parse(struct fdset *set, const char *s);

/* Add one fd (no-op when already there).  -1 with errno ERANGE (negative)
 * or E2BIG (set full). */
int fdset_add(struct fdset *set, int fd);

/* Close every descriptor not in set, with close_range(2) over the gaps
 * (falling back to a /proc/self/fd walk only where close_range is missing).
 * Returns 0, or -1 with errno. */
int fd_close_except(const struct fdset *set);

/* 1 when fd is in set, else 0. */
int fdset_has(const struct fdset *set, int fd);

/* An fd found open that should not be. */
struct fd_leak {
	int fd;
	char target[256];	/* readlink of /proc/self/fd/N, or "?" */
	int count;		/* how many unexpected fds were open in all */
};

/* Re-read /proc/self/fd (the directory fd used for reading is excluded;
 * the directory must be on procfs, checked with fstatfs).  Allocates
 * nothing, so it may run between fork and exec.
 * Returns 0 when the only open fds are in set, 1 when another is open (the
 * lowest one is described in *leak), -1 with errno when /proc cannot be
 * read (callers must treat that as a failure, not a pass). */
int fd_verify(const struct fdset *set, struct fd_leak *leak);

#endif
