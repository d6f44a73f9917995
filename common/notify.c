/* SPDX-License-Identifier: ISC */
/* notify: the supervisor's answer to seccomp user notifications. */
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
#include "plan.h"
#include "uapi.h"

#define XNAME_MAX 255		/* XATTR_NAME_MAX */
#define XSIZE_MAX 65536		/* XATTR_SIZE_MAX */
#define SETID (S_ISUID | S_ISGID)

/* One notification being answered. */
struct call {
	const struct seccomp_notif *n;
	const struct notify_policy *np;
	int listenfd;
	int pidfd;		/* the calling thread */
};

/* The answer: a value, or an errno and whether the policy refused. */
enum verdict { ALLOWED, DENIED, FAILED };
struct answer {
	int64_t val;
	int err;
	enum verdict k;
};

#define ARG(c, i) ((c)->n->data.args[i])
#define IARG(c, i) ((int)(uint32_t)ARG(c, i))

static void
deny(struct answer *a, int e)
{
	a->err = e;
	a->k = DENIED;
}

static void
fail(struct answer *a, int e)
{
	a->err = e;
	a->k = FAILED;
}

/* The result of the call the supervisor performed. */
static void
done(struct answer *a, long r)
{
	a->k = ALLOWED;
	if (r < 0)
		a->err = errno;
	else
		a->val = r;
}

static int
id_valid(const struct call *c)
{
	return ioctl(c->listenfd, SECCOMP_IOCTL_NOTIF_ID_VALID,
	    &c->n->id) == 0;
}

/* ---- the caller's memory, read once ---- */

static int
mem_read(const struct call *c, uint64_t addr, void *buf, size_t len)
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
static int
mem_str(const struct call *c, uint64_t addr, char *buf, size_t size,
    int toolong)
{
	size_t got = 0, chunk;
	char *z;

	while (got < size) {
		chunk = 4096 - ((addr + got) & 4095);
		if (chunk > size - got)
			chunk = size - got;
		if (mem_read(c, addr + got, buf + got, chunk) == -1)
			return -1;
		if ((z = memchr(buf + got, '\0', chunk)) != NULL)
			return 0;
		got += chunk;
	}
	errno = toolong;
	return -1;
}

/* ---- the target: one descriptor in the supervisor ---- */

static int
fetch_fd(const struct call *c, int fd)
{
	return (int)syscall(__NR_pidfd_getfd, c->pidfd, fd, 0);
}

static int
caller_cwd(const struct call *c)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/%u/cwd", c->n->pid);
	return open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

#define T_NOFOLLOW 1u	/* l* forms, AT_SYMLINK_NOFOLLOW */
#define T_EMPTY 2u	/* AT_EMPTY_PATH */
#define T_NULLPATH 4u	/* a NULL path names dfd (utimensat) */

/* Resolve path (already copied) against the caller's dfd or cwd, as the
 * caller would, into an O_PATH descriptor.  /proc/self and magic links
 * would name the supervisor's own: RESOLVE_NO_MAGICLINKS refuses them
 * (ELOOP). */
static int
resolve_str(const struct call *c, int dfd, const char *path, unsigned tf)
{
	struct open_how how;
	int base = AT_FDCWD, fd, e;

	if (path[0] == '\0') {
		if (!(tf & T_EMPTY)) {
			errno = ENOENT;
			return -1;
		}
		return dfd == AT_FDCWD ? caller_cwd(c) : fetch_fd(c, dfd);
	}
	if (path[0] != '/') {
		base = dfd == AT_FDCWD ? caller_cwd(c) : fetch_fd(c, dfd);
		if (base == -1)
			return -1;
	}
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC | ((tf & T_NOFOLLOW) ? O_NOFOLLOW : 0);
	how.resolve = RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(__NR_openat2, base, path, &how, sizeof(how));
	e = errno;
	if (base != AT_FDCWD)
		close(base);
	errno = e;
	return fd;
}

static int
resolve(const struct call *c, int dfd, uint64_t upath, unsigned tf)
{
	char path[PATH_MAX];

	if (upath == 0) {
		if ((tf & T_NULLPATH) && dfd != AT_FDCWD)
			return fetch_fd(c, dfd);
		errno = EFAULT;
		return -1;
	}
	if (mem_str(c, upath, path, sizeof(path), ENAMETOOLONG) == -1)
		return -1;
	return resolve_str(c, dfd, path, tf);
}

/* AT_* flags to T_* (EINVAL for others than allowed). */
static int
at_flags(uint64_t fl, unsigned allowed, unsigned *tf)
{
	if ((uint32_t)fl & ~allowed) {
		errno = EINVAL;
		return -1;
	}
	*tf = ((fl & AT_SYMLINK_NOFOLLOW) ? T_NOFOLLOW : 0) |
	    ((fl & AT_EMPTY_PATH) ? T_EMPTY : 0);
	return 0;
}

static void
fdpath(int fd, char *p, size_t n)
{
	snprintf(p, n, "/proc/self/fd/%d", fd);
}

/* 1 when fd's path (the kernel's, through /proc/self/fd) is one of the
 * rule paths or lies below one, and that relative path opened again
 * beneath the rule's descriptor, without symlinks, is fd's inode. */
static int
beneath(int fd, char *const *rules, const int *rfd, size_t n)
{
	struct open_how how;
	struct stat a, b;
	char link[64], buf[PATH_MAX + 16];
	const char *rest;
	ssize_t len;
	size_t i, rl;
	int t, ok;

	fdpath(fd, link, sizeof(link));
	len = readlink(link, buf, sizeof(buf) - 1);
	if (len <= 0 || buf[0] != '/' || fstat(fd, &a) == -1)
		return 0;	/* pipe:[..], anon_inode:, memfd: */
	buf[len] = '\0';
	for (i = 0; i < n; i++) {
		if (rfd[i] < 0)
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
		if (*rest == '\0') {
			if (fstat(rfd[i], &b) == 0 && a.st_dev == b.st_dev &&
			    a.st_ino == b.st_ino)
				return 1;
			continue;
		}
		memset(&how, 0, sizeof(how));
		how.flags = O_PATH | O_NOFOLLOW | O_CLOEXEC;
		how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
		    RESOLVE_NO_MAGICLINKS;
		t = (int)syscall(__NR_openat2, rfd[i], rest, &how, sizeof(how));
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

/* Beneath a --rw rule, and not another name of a file elsewhere. */
static int
check_rw(const struct call *c, int fd, struct stat *st, struct answer *a)
{
	if (fstat(fd, st) == -1) {
		fail(a, errno);
		return -1;
	}
	if ((!S_ISDIR(st->st_mode) && st->st_nlink > 1) ||
	    !beneath(fd, c->np->rw, c->np->rwfd, c->np->nrw)) {
		deny(a, EACCES);
		return -1;
	}
	return 0;
}

static int
in_groups(const struct notify_policy *np, gid_t g)
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
static int
dac_allows(const struct notify_policy *np, const struct stat *st,
    mode_t other)
{
	if (st->st_uid == np->uid)
		return (st->st_mode & (other << 6)) != 0;
	if (in_groups(np, st->st_gid))
		return (st->st_mode & (other << 3)) != 0;
	return (st->st_mode & other) != 0;
}

/* Owner-only changes (CAP_FOWNER is what the caller lacks). */
static int
check_owner(const struct call *c, const struct stat *st, struct answer *a)
{
	if (st->st_uid != c->np->uid) {
		deny(a, EPERM);
		return -1;
	}
	return 0;
}

/* Last check before acting: the caller is still waiting on this id. */
static int
still_valid(const struct call *c, struct answer *a)
{
	if (!id_valid(c)) {
		fail(a, ENOENT);
		return -1;
	}
	return 0;
}

/* ---- metadata ---- */

static void
do_chmod(const struct call *c, int fd, mode_t mode, struct answer *a)
{
	struct stat st;
	char p[64];

	if (check_rw(c, fd, &st, a) == -1)
		return;
	if (S_ISLNK(st.st_mode)) {
		fail(a, EOPNOTSUPP);	/* as glibc's fchmodat answers */
		return;
	}
	if (check_owner(c, &st, a) == -1)
		return;
	if (mode & SETID) {
		deny(a, EPERM);
		return;
	}
	if (still_valid(c, a) == -1)
		return;
	fdpath(fd, p, sizeof(p));
	done(a, chmod(p, mode & 07777));
}

static void
do_chown(const struct call *c, int fd, uid_t u, gid_t g, struct answer *a)
{
	const struct notify_policy *np = c->np;
	struct stat st;

	if (check_rw(c, fd, &st, a) == -1)
		return;
	/* chown_ok/chgrp_ok without CAP_CHOWN: the owner, keeping its uid,
	 * giving the file to one of its own groups. */
	if ((u != (uid_t)-1 || g != (gid_t)-1) && st.st_uid != np->uid) {
		deny(a, EPERM);
		return;
	}
	if ((u != (uid_t)-1 && u != st.st_uid) ||
	    (g != (gid_t)-1 && g != st.st_gid && !in_groups(np, g))) {
		deny(a, EPERM);
		return;
	}
	if (still_valid(c, a) == -1)
		return;
	done(a, fchownat(fd, "", u, g, AT_EMPTY_PATH));
}

/* name: the attribute's name; value NULL: remove. */
static void
do_xattr(const struct call *c, int fd, const char *name, const void *value,
    size_t size, int flags, struct answer *a)
{
	struct stat st;
	char p[64];

	if (check_rw(c, fd, &st, a) == -1 || check_owner(c, &st, a) == -1)
		return;
	if (strncmp(name, "user.", 5) == 0) {
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			deny(a, EPERM);
			return;
		}
	} else if (strcmp(name, "system.posix_acl_access") != 0 &&
	    strcmp(name, "system.posix_acl_default") != 0) {
		deny(a, EPERM);	/* trusted., security.: capabilities */
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		deny(a, EPERM);
		return;
	}
	if (still_valid(c, a) == -1)
		return;
	fdpath(fd, p, sizeof(p));
	if (value == NULL)
		done(a, removexattr(p, name));
	else
		done(a, setxattr(p, name, value, size, flags));
}

/* ts NULL: both "now". */
static void
do_times(const struct call *c, int fd, const struct timespec *ts,
    struct answer *a)
{
	struct stat st;
	char p[64];
	int now, omit;

	if (check_rw(c, fd, &st, a) == -1)
		return;
	now = ts == NULL || (ts[0].tv_nsec == UTIME_NOW &&
	    ts[1].tv_nsec == UTIME_NOW);
	omit = ts != NULL && ts[0].tv_nsec == UTIME_OMIT &&
	    ts[1].tv_nsec == UTIME_OMIT;
	if (!omit && st.st_uid != c->np->uid &&
	    (!now || !dac_allows(c->np, &st, S_IWOTH))) {
		deny(a, now ? EACCES : EPERM);
		return;
	}
	if (still_valid(c, a) == -1)
		return;
	if (S_ISLNK(st.st_mode)) {
		done(a, utimensat(fd, "", ts, AT_EMPTY_PATH |
		    AT_SYMLINK_NOFOLLOW));
		return;
	}
	fdpath(fd, p, sizeof(p));
	done(a, utimensat(AT_FDCWD, p, ts, 0));
}

/* Inode flags: no immutable or append-only change (CAP_LINUX_IMMUTABLE),
 * no project id change. */
static int
flags_ok(uint64_t cur, uint64_t want, uint64_t guarded, struct answer *a)
{
	if ((cur ^ want) & guarded) {
		deny(a, EPERM);
		return 0;
	}
	return 1;
}

static void
do_file_setattr(const struct call *c, int fd, struct answer *a)
{
	struct borne_file_attr fa, cur;
	struct stat st;
	char p[64];

	if (ARG(c, 3) < sizeof(fa)) {
		fail(a, EINVAL);
		return;
	}
	if (mem_read(c, ARG(c, 2), &fa, sizeof(fa)) == -1) {
		fail(a, errno);
		return;
	}
	if (check_rw(c, fd, &st, a) == -1 || check_owner(c, &st, a) == -1)
		return;
	if (S_ISLNK(st.st_mode)) {
		fail(a, EOPNOTSUPP);
		return;
	}
	/* O_PATH descriptors are refused (EBADF): the inode's magic link. */
	fdpath(fd, p, sizeof(p));
	if (syscall(__NR_file_getattr, AT_FDCWD, p, &cur, sizeof(cur),
	    0) == -1) {
		fail(a, errno);
		return;
	}
	if (!flags_ok(cur.fa_xflags, fa.fa_xflags, FS_XFLAG_IMMUTABLE |
	    FS_XFLAG_APPEND, a) || !flags_ok(cur.fa_projid, fa.fa_projid,
	    ~0ull, a))
		return;
	if (still_valid(c, a) == -1)
		return;
	done(a, syscall(__NR_file_setattr, AT_FDCWD, p, &fa, sizeof(fa), 0));
}

static void
do_ioctl(const struct call *c, struct answer *a)
{
	uint32_t req = (uint32_t)ARG(c, 1);
	struct fsxattr fx, cx;
	struct stat st;
	int fd, fl, cf;

	if ((fd = fetch_fd(c, IARG(c, 0))) == -1) {
		fail(a, errno);
		return;
	}
	if (check_rw(c, fd, &st, a) == -1 || check_owner(c, &st, a) == -1)
		goto out;
	if (req == FS_IOC_FSSETXATTR) {
		if (mem_read(c, ARG(c, 2), &fx, sizeof(fx)) == -1 ||
		    ioctl(fd, FS_IOC_FSGETXATTR, &cx) == -1) {
			fail(a, errno);
			goto out;
		}
		if (!flags_ok(cx.fsx_xflags, fx.fsx_xflags,
		    FS_XFLAG_IMMUTABLE | FS_XFLAG_APPEND, a) ||
		    !flags_ok(cx.fsx_projid, fx.fsx_projid, ~0ull, a) ||
		    still_valid(c, a) == -1)
			goto out;
		done(a, ioctl(fd, FS_IOC_FSSETXATTR, &fx));
		goto out;
	}
	/* FS_IOC_SETFLAGS and its 32-bit twin: the kernel reads an int. */
	if (mem_read(c, ARG(c, 2), &fl, sizeof(fl)) == -1 ||
	    ioctl(fd, FS_IOC_GETFLAGS, &cf) == -1) {
		fail(a, errno);
		goto out;
	}
	if (!flags_ok((uint32_t)cf, (uint32_t)fl, FS_IMMUTABLE_FL |
	    FS_APPEND_FL, a) || still_valid(c, a) == -1)
		goto out;
	done(a, ioctl(fd, FS_IOC_SETFLAGS, &fl));
out:
	close(fd);
}

/* ---- the calls, decoded ---- */

static int
target(const struct call *c, int nr, unsigned *tf, struct answer *a)
{
	int fd = -1;

	*tf = 0;
	switch (nr) {
	case __NR_fchmod:
	case __NR_fchown:
	case __NR_fsetxattr:
	case __NR_fremovexattr:
		fd = fetch_fd(c, IARG(c, 0));
		break;
	case __NR_chmod:
	case __NR_chown:
	case __NR_setxattr:
	case __NR_removexattr:
	case __NR_utime:
	case __NR_utimes:
		fd = resolve(c, AT_FDCWD, ARG(c, 0), 0);
		break;
	case __NR_lchown:
	case __NR_lsetxattr:
	case __NR_lremovexattr:
		fd = resolve(c, AT_FDCWD, ARG(c, 0), T_NOFOLLOW);
		break;
	case __NR_fchmodat:
	case __NR_futimesat:
		fd = resolve(c, IARG(c, 0), ARG(c, 1), 0);
		break;
	case __NR_fchmodat2:
	case __NR_fchownat:
	case __NR_utimensat:
	case __NR_file_setattr:
		if (at_flags(ARG(c, nr == __NR_fchmodat2 ? 3 :
		    nr == __NR_file_setattr ? 4 : nr == __NR_fchownat ? 4 : 3),
		    AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH, tf) == 0)
			fd = resolve(c, IARG(c, 0), ARG(c, 1), *tf |
			    (nr == __NR_utimensat ? T_NULLPATH : 0));
		break;
	case __NR_setxattrat:
	case __NR_removexattrat:
		if (at_flags(ARG(c, 2), AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH,
		    tf) == 0)
			fd = resolve(c, IARG(c, 0), ARG(c, 1), *tf);
		break;
	default:
		errno = ENOSYS;
	}
	if (fd == -1)
		fail(a, errno);
	return fd;
}

/* The times argument of utime/utimes/futimesat/utimensat as two
 * timespecs; *tsp NULL for "now". */
static int
read_times(const struct call *c, int nr, struct timespec ts[2],
    struct timespec **tsp)
{
	uint64_t p = ARG(c, nr == __NR_futimesat || nr == __NR_utimensat ?
	    2 : 1);
	struct timeval tv[2];
	long ub[2];
	int i;

	*tsp = NULL;
	if (p == 0)
		return 0;
	*tsp = ts;
	if (nr == __NR_utimensat)
		return mem_read(c, p, ts, 2 * sizeof(ts[0]));
	if (nr == __NR_utime) {
		if (mem_read(c, p, ub, sizeof(ub)) == -1)
			return -1;
		for (i = 0; i < 2; i++) {
			ts[i].tv_sec = ub[i];
			ts[i].tv_nsec = 0;
		}
		return 0;
	}
	if (mem_read(c, p, tv, sizeof(tv)) == -1)
		return -1;
	for (i = 0; i < 2; i++) {
		if (tv[i].tv_usec < 0 || tv[i].tv_usec >= 1000000) {
			errno = EINVAL;
			return -1;
		}
		ts[i].tv_sec = tv[i].tv_sec;
		ts[i].tv_nsec = tv[i].tv_usec * 1000;
	}
	return 0;
}

/* setxattr family: name and value arguments by call. */
static void
xattr_call(const struct call *c, int nr, int fd, struct answer *a)
{
	struct borne_xattr_args xa;
	char name[XNAME_MAX + 1];
	void *val = NULL;
	uint64_t uname, uval;
	size_t size;
	int flags, rm;

	rm = nr == __NR_removexattr || nr == __NR_lremovexattr ||
	    nr == __NR_fremovexattr || nr == __NR_removexattrat;
	uname = ARG(c, nr == __NR_setxattrat || nr == __NR_removexattrat ?
	    3 : 1);
	if (mem_str(c, uname, name, sizeof(name), ERANGE) == -1) {
		fail(a, errno);
		return;
	}
	if (rm) {
		do_xattr(c, fd, name, NULL, 0, 0, a);
		return;
	}
	if (nr == __NR_setxattrat) {
		if (ARG(c, 5) < sizeof(xa)) {
			fail(a, EINVAL);
			return;
		}
		if (mem_read(c, ARG(c, 4), &xa, sizeof(xa)) == -1) {
			fail(a, errno);
			return;
		}
		uval = xa.value;
		size = xa.size;
		flags = (int)xa.flags;
	} else {
		uval = ARG(c, 2);
		size = (size_t)ARG(c, 3);
		flags = IARG(c, 4);
	}
	if (size > XSIZE_MAX) {
		fail(a, E2BIG);
		return;
	}
	if ((val = malloc(size ? size : 1)) == NULL) {
		fail(a, ENOMEM);
		return;
	}
	if (mem_read(c, uval, val, size) == -1)
		fail(a, errno);
	else
		do_xattr(c, fd, name, val, size, flags, a);
	free(val);
}

static void
meta_call(const struct call *c, int nr, struct answer *a)
{
	struct timespec ts[2], *tsp;
	unsigned tf;
	int fd;

	if ((fd = target(c, nr, &tf, a)) == -1)
		return;
	switch (nr) {
	case __NR_chmod:
	case __NR_fchmod:
		do_chmod(c, fd, (mode_t)ARG(c, 1), a);
		break;
	case __NR_fchmodat:
	case __NR_fchmodat2:
		do_chmod(c, fd, (mode_t)ARG(c, 2), a);
		break;
	case __NR_chown:
	case __NR_fchown:
	case __NR_lchown:
		do_chown(c, fd, (uid_t)ARG(c, 1), (gid_t)ARG(c, 2), a);
		break;
	case __NR_fchownat:
		do_chown(c, fd, (uid_t)ARG(c, 2), (gid_t)ARG(c, 3), a);
		break;
	case __NR_utime:
	case __NR_utimes:
	case __NR_futimesat:
	case __NR_utimensat:
		if (read_times(c, nr, ts, &tsp) == -1)
			fail(a, errno);
		else
			do_times(c, fd, tsp, a);
		break;
	case __NR_file_setattr:
		do_file_setattr(c, fd, a);
		break;
	default:
		xattr_call(c, nr, fd, a);
	}
	close(fd);
}

/* inotify_add_watch(fd, path, mask): beneath any rule, readable. */
static void
watch_call(const struct call *c, struct answer *a)
{
	uint32_t mask = (uint32_t)ARG(c, 2);
	struct stat st;
	char p[64];
	int ifd, fd;

	if ((ifd = fetch_fd(c, IARG(c, 0))) == -1) {
		fail(a, errno);
		return;
	}
	fd = resolve(c, AT_FDCWD, ARG(c, 1),
	    (mask & IN_DONT_FOLLOW) ? T_NOFOLLOW : 0);
	if (fd == -1)
		fail(a, errno);
	else if (fstat(fd, &st) == -1)
		fail(a, errno);
	else if (S_ISLNK(st.st_mode) ||
	    !beneath(fd, c->np->any, c->np->anyfd, c->np->nany) ||
	    !dac_allows(c->np, &st, S_IROTH))
		deny(a, EACCES);
	else if (still_valid(c, a) == 0) {
		fdpath(fd, p, sizeof(p));
		done(a, inotify_add_watch(ifd, p, mask & ~IN_DONT_FOLLOW));
	}
	if (fd != -1)
		close(fd);
	close(ifd);
}

/* ---- sockets ---- */

static int
port_ok(const struct notify_policy *np, unsigned port)
{
	size_t i;

	if (port == 0 || port < np->port_floor)
		return 0;
	for (i = 0; i < np->nbind; i++)
		if (np->bind_tcp[i] == port)
			return 1;
	return 0;
}

/* A pathname bind, in the parent directory resolved beneath --rw, as
 * the caller's fsuid/fsgid; the name bound is the last component. */
static void
bind_path(const struct call *c, int s, const struct sockaddr_un *sun,
    socklen_t len, struct answer *a)
{
	struct sockaddr_un b;
	char path[sizeof(sun->sun_path) + 1], *slash, *base;
	struct stat st;
	int dfd, cwd, r, e;

	memset(path, 0, sizeof(path));
	memcpy(path, sun->sun_path, len - offsetof(struct sockaddr_un,
	    sun_path));
	slash = strrchr(path, '/');
	base = slash == NULL ? path : slash + 1;
	if (*base == '\0' || strcmp(base, ".") == 0 ||
	    strcmp(base, "..") == 0) {
		fail(a, EINVAL);
		return;
	}
	if (slash == path)
		dfd = resolve_str(c, AT_FDCWD, "/", 0);
	else if (slash != NULL) {
		*slash = '\0';
		dfd = resolve_str(c, AT_FDCWD, path, 0);
	} else
		dfd = resolve_str(c, AT_FDCWD, ".", 0);
	if (dfd == -1) {
		fail(a, errno);
		return;
	}
	if (fstat(dfd, &st) == -1 || !S_ISDIR(st.st_mode))
		fail(a, ENOTDIR);
	else if (!beneath(dfd, c->np->rw, c->np->rwfd, c->np->nrw))
		deny(a, EACCES);
	else if (still_valid(c, a) == 0 &&
	    (cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) != -1) {
		memset(&b, 0, sizeof(b));
		b.sun_family = AF_UNIX;
		memcpy(b.sun_path, base, strlen(base));
		r = -1;
		e = EIO;
		if (fchdir(dfd) == 0) {
			setfsgid(c->np->gid);
			setfsuid(c->np->uid);
			r = bind(s, (struct sockaddr *)&b, (socklen_t)(offsetof(
			    struct sockaddr_un, sun_path) + strlen(base) + 1));
			e = errno;
			setfsuid(geteuid());
			setfsgid(getegid());
			if (fchdir(cwd) == -1)
				warning_sys("notify: restoring the cwd");
		}
		close(cwd);
		errno = e;
		done(a, r);
	} else if (a->k != FAILED)
		fail(a, errno);
	close(dfd);
}

static void
bind_call(const struct call *c, struct answer *a)
{
	struct sockaddr_storage ss;
	socklen_t len = (socklen_t)ARG(c, 2), dl = sizeof(int);
	uint16_t port;
	int s, dom;

	if (len > sizeof(ss)) {
		fail(a, EINVAL);
		return;
	}
	memset(&ss, 0, sizeof(ss));
	if (mem_read(c, ARG(c, 1), &ss, len) == -1) {
		fail(a, errno);
		return;
	}
	if ((s = fetch_fd(c, IARG(c, 0))) == -1) {
		fail(a, errno);
		return;
	}
	if (getsockopt(s, SOL_SOCKET, SO_DOMAIN, &dom, &dl) == -1) {
		fail(a, errno);
	} else if (dom == AF_UNIX) {
		/* Autobind (family only) and abstract names: a name space
		 * no file rule covers, reachable from the host. */
		if (len <= offsetof(struct sockaddr_un, sun_path) ||
		    ((struct sockaddr_un *)&ss)->sun_path[0] == '\0')
			deny(a, EPERM);
		else if (ss.ss_family != AF_UNIX ||
		    len > sizeof(struct sockaddr_un))
			fail(a, EINVAL);
		else
			bind_path(c, s, (struct sockaddr_un *)&ss, len, a);
	} else if (dom == AF_INET || dom == AF_INET6) {
		memcpy(&port, (char *)&ss + 2, sizeof(port));
		if (!port_ok(c->np, ntohs(port)))
			deny(a, EACCES);
		else if (still_valid(c, a) == 0)
			done(a, bind(s, (struct sockaddr *)&ss, len));
	} else
		deny(a, EAFNOSUPPORT);
	close(s);
}

static void
listen_call(const struct call *c, struct answer *a)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	uint16_t port;
	int s;

	if ((s = fetch_fd(c, IARG(c, 0))) == -1) {
		fail(a, errno);
		return;
	}
	memset(&ss, 0, sizeof(ss));
	if (getsockname(s, (struct sockaddr *)&ss, &len) == -1) {
		fail(a, errno);
		close(s);
		return;
	}
	memcpy(&port, (char *)&ss + 2, sizeof(port));
	/* Unbound: listen would pick an ephemeral port on every address. */
	if ((ss.ss_family == AF_INET || ss.ss_family == AF_INET6) &&
	    port == 0)
		deny(a, EACCES);
	else if (still_valid(c, a) == 0)
		done(a, listen(s, IARG(c, 1)));
	close(s);
}

/* ---- one notification ---- */

static void
dispatch(const struct call *c, struct answer *a)
{
	int nr = c->n->data.nr;

	if (c->n->data.arch != AUDIT_ARCH_X86_64) {
		deny(a, ENOSYS);
		return;
	}
	switch (nr) {
	case __NR_bind:
		bind_call(c, a);
		return;
	case __NR_listen:
		listen_call(c, a);
		return;
	case __NR_inotify_add_watch:
		watch_call(c, a);
		return;
	case __NR_ioctl:
		switch ((uint32_t)ARG(c, 1)) {
		case FS_IOC_SETFLAGS:
		case FS_IOC32_SETFLAGS:
		case FS_IOC_FSSETXATTR:
			do_ioctl(c, a);
			return;
		}
		deny(a, EPERM);
		return;
	default:
		meta_call(c, nr, a);
	}
}

int
notify_handle(int listenfd, const struct notify_policy *np,
    struct notify_stats *st)
{
	struct seccomp_notif n;
	struct seccomp_notif_resp resp;
	struct answer a = {0, 0, FAILED};
	struct call c;

	memset(&n, 0, sizeof(n));
	if (ioctl(listenfd, SECCOMP_IOCTL_NOTIF_RECV, &n) == -1)
		return errno == ENOENT || errno == EINTR ? 0 : -1;
	c.n = &n;
	c.np = np;
	c.listenfd = listenfd;
	c.pidfd = (int)syscall(__NR_pidfd_open, n.pid, PIDFD_THREAD);
	if (c.pidfd == -1 && errno == EINVAL)	/* before 6.9: leaders */
		c.pidfd = (int)syscall(__NR_pidfd_open, n.pid, 0);
	/* The pidfd (and /proc/PID) name the caller only while it still
	 * waits on this id: checked after opening, and before acting. */
	if (c.pidfd == -1)
		fail(&a, EACCES);
	else if (!id_valid(&c))
		fail(&a, ENOENT);
	else
		dispatch(&c, &a);
	if (c.pidfd != -1)
		close(c.pidfd);
	if (a.k == ALLOWED)
		st->allowed++;
	else if (a.k == DENIED)
		st->denied++;
	else
		st->failed++;
	memset(&resp, 0, sizeof(resp));
	resp.id = n.id;
	resp.val = a.err ? 0 : a.val;
	resp.error = a.err ? -a.err : 0;
	if (ioctl(listenfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == -1 &&
	    errno != ENOENT)
		return -1;
	return 0;
}

/* ---- the policy ---- */

static unsigned
read_port_floor(void)
{
	char buf[32];
	unsigned long v;
	ssize_t n;
	int fd;

	fd = open("/proc/sys/net/ipv4/ip_unprivileged_port_start",
	    O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return 1024;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1024;
	buf[n] = '\0';
	v = strtoul(buf, NULL, 10);
	return v > 65536 ? 1024 : (unsigned)v;
}

int
notify_policy_init(struct notify_policy *np, const struct plan *p,
    uid_t uid, gid_t gid, int keep_groups, char *err, size_t errlen)
{
	size_t i;
	int n, fd;

	memset(np, 0, sizeof(*np));
	np->rw = calloc(p->nfs + 1, sizeof(char *));
	np->any = calloc(p->nfs + 1, sizeof(char *));
	np->rwfd = calloc(p->nfs + 1, sizeof(int));
	np->anyfd = calloc(p->nfs + 1, sizeof(int));
	if (np->rw == NULL || np->any == NULL || np->rwfd == NULL ||
	    np->anyfd == NULL)
		goto nomem;
	/* The rules' own inodes, opened now (a rule missing at run time
	 * is refused by ll_build before this). */
	for (i = 0; i < p->nfs; i++) {
		fd = open(p->fs[i].path, O_PATH | O_CLOEXEC);
		np->anyfd[np->nany] = fd;
		np->any[np->nany++] = p->fs[i].path;
		if (p->fs[i].intent != PLAN_RW)
			continue;
		np->rwfd[np->nrw] = fd == -1 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC,
		    0);
		np->rw[np->nrw++] = p->fs[i].path;
	}
	np->bind_tcp = p->bind_tcp;
	np->nbind = p->nbind;
	np->port_floor = read_port_floor();
	np->uid = uid;
	np->gid = gid;
	if (keep_groups) {
		n = getgroups(0, NULL);
		if (n < 0) {
			err_set(err, errlen, "notify: getgroups: %s",
			    strerror(errno));
			notify_policy_free(np);
			return -1;
		}
		np->groups = calloc((size_t)n + 1, sizeof(gid_t));
		if (np->groups == NULL)
			goto nomem;
		n = getgroups(n, np->groups);
		np->ngroups = n < 0 ? 0 : (size_t)n;
	}
	return 0;
nomem:
	notify_policy_free(np);
	err_set(err, errlen, "notify: %s", strerror(ENOMEM));
	errno = ENOMEM;
	return -1;
}

void
notify_policy_free(struct notify_policy *np)
{
	size_t i;

	for (i = 0; np->rwfd != NULL && i < np->nrw; i++)
		if (np->rwfd[i] >= 0)
			close(np->rwfd[i]);
	for (i = 0; np->anyfd != NULL && i < np->nany; i++)
		if (np->anyfd[i] >= 0)
			close(np->anyfd[i]);
	free(np->rwfd);
	free(np->anyfd);
	free(np->rw);
	free(np->any);
	free(np->groups);
	memset(np, 0, sizeof(*np));
}
