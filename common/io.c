/* SPDX-License-Identifier: ISC */
/* io: write_all, pread_all, read_small, write_small and read_bounded. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "io.h"

/* All len bytes of b read from fd at off (reading), or written to fd:
 * the one loop of pread_all and write_all. */
static int
all(int fd, char *b, size_t len, int reading, uint64_t off)
{
	while (len > 0) {
		ssize_t n = reading ? pread(fd, b, len, (off_t)off) :
		    write(fd, b, len);

		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1)
			return -1;
		if (n == 0)
			return errno = EIO, -1;
		b += n;
		len -= (size_t)n;
		off += (uint64_t)n;
	}
	return 0;
}

int
write_all(int fd, const void *buf, size_t len)
{
	return all(fd, (char *)buf, len, 0, 0);	/* only read from */
}

int
pread_all(int fd, void *buf, size_t len, uint64_t off)
{
	if (off > (uint64_t)INT64_MAX)
		return errno = EINVAL, -1;
	return all(fd, buf, len, 1, off);
}

int
read_small(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t r;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		return -1;
	while (len < size - 1) {
		r = read(fd, buf + len, size - 1 - len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			e = errno;
			close(fd);
			return errno = e, -1;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return 0;
}

int
write_small(int dirfd, const char *path, const char *val)
{
	size_t n = strlen(val);
	ssize_t w;
	int fd, e;

	fd = openat(dirfd, path, O_WRONLY | O_CLOEXEC);
	if (fd == -1)
		return -1;
	w = write(fd, val, n);
	e = errno;
	close(fd);
	if (w != (ssize_t)n) {
		errno = w == -1 ? e : EIO;
		return -1;
	}
	return 0;
}

int
close_errno(int fd)
{
	int e = errno;

	close(fd);
	errno = e;
	return -1;
}

int
read_bounded(int fd, size_t max, unsigned char **buf, size_t *len)
{
	unsigned char *b = NULL, *nb;
	size_t n = 0, cap = 0;
	ssize_t r;

	for (;;) {
		if (n == cap) {
			cap = cap ? cap * 2 : 65536;
			if (cap > max + 1)
				cap = max + 1;
			if ((nb = realloc(b, cap)) == NULL)
				goto fail;
			b = nb;
		}
		if ((r = read(fd, b + n, cap - n)) == -1 && errno == EINTR)
			continue;
		if (r == -1)
			goto fail;
		if (r == 0)
			break;
		if ((n += (size_t)r) > max) {
			errno = EFBIG;
			goto fail;
		}
	}
	*buf = b, *len = n;
	return 0;
fail:
	free(b);
	return -1;
}
