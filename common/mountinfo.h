/* SPDX-License-Identifier: ISC */
/* mountinfo: parse /proc/self/mountinfo lines (proc(5)), undoing the
 * kernel's octal escapes (\040 space, \011 tab, \012 newline, \134
 * backslash) in the root, mount point and source fields. */
#ifndef BORNE_MOUNTINFO_H
#define BORNE_MOUNTINFO_H

#include <limits.h>
#include <stddef.h>

#define MOUNTINFO_LINE_MAX (3 * PATH_MAX + 1024)	/* longest line kept */

struct mountinfo {
	int id, parent;
	unsigned major, minor;
	char root[PATH_MAX];		/* path inside the filesystem */
	char mountpoint[PATH_MAX];	/* where it is mounted */
	char options[256];		/* per-mount options, e.g. "rw,nosuid" */
	char fstype[64];		/* e.g. "cgroup2"; "fuse.x" kept whole */
	char source[PATH_MAX];
};

/* Undo octal escapes of src[0..n) into dst (always terminated).  Only
 * "\ooo" with three octal digits and a value 1..255 is an escape; any other
 * backslash, a NUL byte in src, or a result longer than dstlen-1 is an
 * error: -1 with errno EINVAL (malformed) or ENAMETOOLONG. */
int mountinfo_unescape(char *dst, size_t dstlen, const char *src, size_t n);

/* Parse one line (without or with its trailing newline) into *m.
 * Returns 0, or -1 with errno EINVAL when the line does not have the
 * documented shape (fields, ":" in major:minor, the " - " separator), or
 * ENAMETOOLONG when a field does not fit. */
int mountinfo_parse(const char *line, struct mountinfo *m);

/* Call fn for every line of the mountinfo file at path (normally
 * "/proc/self/mountinfo") until fn returns a positive value; that value is
 * returned (fn must not return a negative value).  0 when fn never stopped the walk; -1 with errno when the file
 * cannot be read or a line is malformed (EBADMSG) or too long (E2BIG). */
int mountinfo_each(const char *path,
    int (*fn)(const struct mountinfo *m, void *arg), void *arg);

#endif
