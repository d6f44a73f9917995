/* SPDX-License-Identifier: ISC */
/* io: the small file loops every tool needs, written once. */
#ifndef BORNE_IO_H
#define BORNE_IO_H

#include <stddef.h>
#include <stdint.h>

/* Write all len bytes of buf to fd, retrying on EINTR and short writes.
 * 0, or -1 with errno (EIO when write(2) returned 0). */
int write_all(int fd, const void *buf, size_t len);

/* Read len bytes of fd at offset off into buf, retrying on EINTR and
 * short reads.  0, or -1 with errno (EIO when the file ends first,
 * EINVAL when off is past the largest offset). */
int pread_all(int fd, void *buf, size_t len, uint64_t off);

/* Read the small file at path into buf (size bytes, size >= 1): at most
 * size - 1 bytes, NUL-terminated, one trailing newline dropped.  0, or -1
 * with errno. */
int read_small(const char *path, char *buf, size_t size);

/* Write the string val to the existing file at path (relative to dirfd,
 * or AT_FDCWD) in one write(2): a kernel interface file (cgroup.procs,
 * memory.max, uid_map) takes a value whole or not at all.  0, or -1 with
 * errno (EIO on a short write). */
int write_small(int dirfd, const char *path, const char *val);

/* Read fd to its end into a malloc'd *buf of *len bytes, refusing more
 * than max: 0, or -1 with errno (EFBIG: more than max bytes; ENOMEM;
 * read(2)'s), nothing allocated. */
int read_bounded(int fd, size_t max, unsigned char **buf, size_t *len);

/* Close fd, errno kept as it was: a failure's last step.  Returns -1. */
int close_errno(int fd);

#endif
