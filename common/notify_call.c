/* SPDX-License-Identifier: ISC */
/* notify_call: one notification's means (notify_call.h): its answer, the
 * caller's memory, the descriptors it names resolved in the supervisor,
 * the rule checks.  notify.c and notify_ops.c use them; it uses neither. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/fsuid.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/fs.h>
#include <linux/openat2.h>
#include <linux/seccomp.h>

#include "err.h"
#include "notify.h"
#include "notify_call.h"
#include "plan.h"
#include "uapi.h"

void
nt_deny(struct nt_answer *a, int e)
{
	a->err = e;
	a->k = NT_DENIED;
}

void
nt_fail(struct nt_answer *a, int e)
{
	a->err = e;
	a->k = NT_FAILED;
}

/* The result of the call the supervisor performed. */
void
nt_done(struct nt_answer *a, long r)
{
	a->k = NT_ALLOWED;
	if (r < 0)
		a->err = errno;
	else
		a->val = r;
}

/* The caller still waits on this notification's id. */
int
nt_id_valid(const struct nt_call *c)
{
	return ioctl(c->listenfd, SECCOMP_IOCTL_NOTIF_ID_VALID,
	    &c->n->id) == 0;
}

/* ---- the caller's memory, read once ---- */

int
nt_mem_read(const struct nt_call *c, uint64_t addr, void *buf, size_t len)
{
	struct iovec l = {buf, len}, r = {(void *)(uintptr_t)addr, len};

	if (len == 0)
		return 0;
	if (addr == 0 || process_vm_readv((pid_t)c->n->pid, &l, 1, &r, 1,
	    0) != (ssize_t)len) {
		errno = EFAULT;
		return -1;
	}
	return 0;
}

/* A NUL-terminated string of at most size-1 bytes, read page by page
 * (a string may end just before an unmapped page). */
int
nt_mem_str(const struct nt_call *c, uint64_t addr, char *buf, size_t size,
    int toolong)
{
	size_t got = 0, chunk;
	char *z;

	while (got < size) {
		chunk = 4096 - ((addr + got) & 4095);
		if (chunk > size - got)
			chunk = size - got;
		if (nt_mem_read(c, addr + got, buf + got, chunk) == -1)
			return -1;
		if ((z = memchr(buf + got, '\0', chunk)) != NULL)
			return 0;
		got += chunk;
	}
	errno = toolong;
	return -1;
}

/* ---- the target: one descriptor in the supervisor ---- */

int
nt_fetch_fd(const struct nt_call *c, int fd)
{
	return (int)syscall(__NR_pidfd_getfd, c->pidfd, fd, 0);
}

/* The caller's cwd or root ("cwd", "root"): its mount view's, not the
 * supervisor's. */
static int
caller_dir(const struct nt_call *c, const char *which)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/%u/%s", c->n->pid, which);
	return open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static int
caller_cwd(const struct nt_call *c)
{
	return caller_dir(c, "cwd");
}


/* Resolve path (already copied) against the caller's dfd or cwd, an
 * absolute one beneath the caller's root (RESOLVE_IN_ROOT: the run's
 * mount view), as the caller would, into an O_PATH descriptor.
 * /proc/self and magic links would name the supervisor's own:
 * RESOLVE_NO_MAGICLINKS refuses them (ELOOP). */
int
nt_resolve_str(const struct nt_call *c, int dfd, const char *path, unsigned tf)
{
	struct open_how how;
	int base, fd, e;

	if (path[0] == '\0') {
		if (!(tf & NT_EMPTY)) {
			errno = ENOENT;
			return -1;
		}
		return dfd == AT_FDCWD ? caller_cwd(c) : nt_fetch_fd(c, dfd);
	}
	base = path[0] == '/' ? caller_dir(c, "root") : dfd == AT_FDCWD ?
	    caller_cwd(c) : nt_fetch_fd(c, dfd);
	if (base == -1)
		return -1;
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC | ((tf & NT_NOFOLLOW) ? O_NOFOLLOW : 0);
	how.resolve = RESOLVE_NO_MAGICLINKS | RESOLVE_IN_ROOT;
	fd = (int)syscall(__NR_openat2, base, path, &how, sizeof(how));
	e = errno;
	close(base);
	errno = e;
	return fd;
}

int
nt_resolve(const struct nt_call *c, int dfd, uint64_t upath, unsigned tf)
{
	char path[PATH_MAX];

	if (upath == 0) {
		if ((tf & NT_NULLPATH) && dfd != AT_FDCWD)
			return nt_fetch_fd(c, dfd);
		errno = EFAULT;
		return -1;
	}
	if (nt_mem_str(c, upath, path, sizeof(path), ENAMETOOLONG) == -1)
		return -1;
	return nt_resolve_str(c, dfd, path, tf);
}

/* AT_* flags to T_* (EINVAL for others than allowed). */
int
nt_at_flags(uint64_t fl, unsigned allowed, unsigned *tf)
{
	if ((uint32_t)fl & ~allowed) {
		errno = EINVAL;
		return -1;
	}
	*tf = ((fl & AT_SYMLINK_NOFOLLOW) ? NT_NOFOLLOW : 0) |
	    ((fl & AT_EMPTY_PATH) ? NT_EMPTY : 0);
	return 0;
}

void
nt_fdpath(int fd, char *p, size_t n)
{
	snprintf(p, n, "/proc/self/fd/%d", fd);
}

/* 1 when fd's path (the kernel's, through /proc/self/fd) is one of the
 * rule paths or lies below one, and that relative path opened again
 * beneath the rule's descriptor, without symlinks, is fd's inode.  A
 * rule kept by its identity (rfd NT_BY_ID, ids[i]) is opened again by
 * its path, and used only while that is still the rule's inode. */
int
nt_beneath(int fd, char *const *rules, const int *rfd,
    const struct notify_id *ids, size_t n)
{
	struct open_how how;
	struct stat a, b;
	char link[64], buf[PATH_MAX + 16];
	const char *rest;
	ssize_t len;
	size_t i, rl;
	int t, ok, base;

	nt_fdpath(fd, link, sizeof(link));
	len = readlink(link, buf, sizeof(buf) - 1);
	if (len <= 0 || buf[0] != '/' || fstat(fd, &a) == -1)
		return 0;	/* pipe:[..], anon_inode:, memfd: */
	buf[len] = '\0';
	for (i = 0; i < n; i++) {
		if (rfd[i] < 0 && rfd[i] != NT_BY_ID)
			continue;
		rl = strlen(rules[i]);
		if (rl == 1 && rules[i][0] == '/')
			rl = 0;
		else if (strncmp(buf, rules[i], rl) != 0 ||
		    (buf[rl] != '\0' && buf[rl] != '/'))
			continue;
		rest = buf + rl;
		while (*rest == '/')
			rest++;
		if (rfd[i] == NT_BY_ID) {
			if (*rest == '\0') {
				if (a.st_dev == ids[i].dev &&
				    a.st_ino == ids[i].ino)
					return 1;
				continue;
			}
			base = open(rules[i], O_PATH | O_NOFOLLOW | O_CLOEXEC);
			if (base == -1)
				continue;
			if (fstat(base, &b) == -1 || b.st_dev != ids[i].dev ||
			    b.st_ino != ids[i].ino) {
				close(base);
				continue;
			}
		} else {
			base = rfd[i];
			if (*rest == '\0') {
				if (fstat(base, &b) == 0 &&
				    a.st_dev == b.st_dev &&
				    a.st_ino == b.st_ino)
					return 1;
				continue;
			}
		}
		memset(&how, 0, sizeof(how));
		how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS;
		t = (int)syscall(__NR_openat2, base, rest, &how, sizeof(how));
		if (base != rfd[i])
			close(base);
		if (t == -1)
			continue;
		ok = fstat(t, &b) == 0 && a.st_dev == b.st_dev &&
		    a.st_ino == b.st_ino;
		close(t);
		if (ok)
			return 1;
	}
	return 0;
}

int
nt_in_groups(const struct notify_policy *np, gid_t g)
{
	size_t i;

	if (g == np->gid)
		return 1;
	for (i = 0; i < np->ngroups; i++)
		if (np->groups[i] == g)
			return 1;
	return 0;
}

/* The mode bits grant the caller's credentials bit (S_IW* or S_IR*,
 * given as the "other" bit) without capabilities. */
int
nt_dac_allows(const struct notify_policy *np, const struct stat *st,
    mode_t other)
{
	if (st->st_uid == np->uid)
		return (st->st_mode & (other << 6)) != 0;
	if (nt_in_groups(np, st->st_gid))
		return (st->st_mode & (other << 3)) != 0;
	return (st->st_mode & other) != 0;
}

/* Last check before acting: the caller is still waiting on this id. */
int
nt_still_valid(const struct nt_call *c, struct nt_answer *a)
{
	if (!nt_id_valid(c)) {
		nt_fail(a, ENOENT);
		return -1;
	}
	return 0;
}
