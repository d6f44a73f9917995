/* SPDX-License-Identifier: ISC */
/* fd: keep lists, close_range over the gaps, verification via /proc. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "fd.h"
#include "io.h"
#include "scan.h"
#include "uapi.h"

/* The getdents64 record, declared here: libcs differ on dirent64. */
struct kdirent {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

int
fdset_has(const struct fdset *set, int fd)
{
	size_t i;

	for (i = 0; i < set->n; i++)
		if (set->fd[i] == fd)
			return 1;
	return 0;
}

int
fdset_add(struct fdset *set, int fd)
{
	size_t i;

	if (fd < 0)
		return errno = ERANGE, -1;
	if (fdset_has(set, fd))
		return 0;
	if (set->n >= FDSET_MAX)
		return errno = E2BIG, -1;
	/* Insertion keeps the array sorted: fd_close_except walks the gaps. */
	i = set->n;
	while (i > 0 && set->fd[i - 1] > fd) {
		set->fd[i] = set->fd[i - 1];
		i--;
	}
	set->fd[i] = fd;
	set->n++;
	return 0;
}

int
fdset_parse(struct fdset *set, const char *s)
{
	struct fdset tmp = *set, seen = { .n = 0 };
	char item[16];
	const char *p, *q;
	size_t len;
	int fd;

	if (s == NULL || *s == '\0')
		return errno = EINVAL, -1;
	for (p = s;; p = q + 1) {
		q = strchr(p, ',');
		len = q ? (size_t)(q - p) : strlen(p);
		if (len == 0)
			return errno = EINVAL, -1;
		if (len >= sizeof(item))
			return errno = ERANGE, -1;
		memcpy(item, p, len);
		item[len] = '\0';
		if (scan_int(item, 0, INT_MAX, &fd) == -1)
			return -1;
		if (fdset_has(&seen, fd))
			return errno = EINVAL, -1;
		if (fdset_add(&seen, fd) == -1 || fdset_add(&tmp, fd) == -1)
			return -1;
		if (q == NULL)
			break;
	}
	*set = tmp;
	return 0;
}

static int
sys_close_range(unsigned lo, unsigned hi)
{
	return (int)syscall(__NR_close_range, lo, hi, 0U);
}

/* fn(fd, arg) for each descriptor /proc/self/fd (open as dfd) lists,
 * dfd left out.  Returns 0, or -1 with errno (EBADMSG: an entry that is
 * no descriptor number). */
static int
fd_each(int dfd, void (*fn)(int, void *), void *arg)
{
	char buf[4096] __attribute__((aligned(8)));

	for (;;) {
		long n = syscall(SYS_getdents64, dfd, buf, sizeof(buf));
		long off;

		if (n == -1)
			return -1;
		if (n == 0)
			return 0;
		for (off = 0; off < n;) {
			struct kdirent *d = (void *)(buf + off);
			int fd;

			off += d->d_reclen;
			if (strcmp(d->d_name, ".") == 0 ||
			    strcmp(d->d_name, "..") == 0)
				continue;
			if (scan_int(d->d_name, 0, INT_MAX, &fd) == -1)
				return errno = EBADMSG, -1;
			if (fd != dfd)
				fn(fd, arg);
		}
	}
}

struct walk {
	const struct fdset *set;
	int found;	/* descriptors not in set */
	int low;	/* the lowest of them */
};

static void
close_unkept(int fd, void *arg)
{
	struct walk *w = arg;

	if (fdset_has(w->set, fd))
		return;
	close(fd);
	w->found++;	/* the directory changed under us */
}

/* Fallback for kernels before 5.9: walk /proc/self/fd.  Linear in the
 * number of open fds, never in RLIMIT_NOFILE.  Closing while reading the
 * directory may hide entries, so walk again, a bounded number of times: a
 * close that does nothing must not loop forever (fd_verify catches it). */
static int
close_by_walk(const struct fdset *set)
{
	struct walk w = { set, 1, -1 };
	int dfd, pass, e;

	for (pass = 0; w.found > 0 && pass < 4; pass++) {
		w.found = 0;
		dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd == -1)
			return -1;
		if (fd_each(dfd, close_unkept, &w) == -1) {
			e = errno;
			close(dfd);
			return errno = e, -1;
		}
		close(dfd);
	}
	return 0;
}

int
fd_close_except(const struct fdset *set)
{
	unsigned lo = 0;
	size_t i;

	/* set->fd is sorted: close [lo, kept-1] before each kept fd, then
	 * [last+1, ~0U].  At most FDSET_MAX+1 calls whatever the rlimit. */
	for (i = 0; i < set->n; i++) {
		unsigned k = (unsigned)set->fd[i];

		if (k > lo && sys_close_range(lo, k - 1) == -1)
			goto fallback;
		lo = k + 1;
	}
	if (sys_close_range(lo, ~0U) == -1)
		goto fallback;
	return 0;
fallback:
	if (errno != ENOSYS)
		return -1;
	return close_by_walk(set);
}

static void
count_unkept(int fd, void *arg)
{
	struct walk *w = arg;

	if (fdset_has(w->set, fd))
		return;
	if (!w->found || fd < w->low)
		w->low = fd;
	w->found++;
}

int
fd_verify(const struct fdset *set, struct fd_leak *leak)
{
	struct walk w = { set, 0, -1 };
	struct statfs sf;
	char name[32];
	int dfd;

	dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd == -1)
		return -1;
	/* A tmpfs or bind mount over /proc could show a fake, empty list. */
	if (fstatfs(dfd, &sf) == -1)
		goto fail;
	if (sf.f_type != PROC_SUPER_MAGIC) {
		errno = EXDEV;
		goto fail;
	}
	if (fd_each(dfd, count_unkept, &w) == -1)
		goto fail;
	if (w.found && leak != NULL) {
		ssize_t r;

		leak->fd = w.low;
		leak->count = w.found;
		snprintf(name, sizeof(name), "%d", w.low);
		r = readlinkat(dfd, name, leak->target,
		    sizeof(leak->target) - 1);
		if (r < 0)
			strcpy(leak->target, "?");
		else
			leak->target[r] = '\0';
	}
	close(dfd);
	return w.found ? 1 : 0;
fail:
	return close_errno(dfd);
}
