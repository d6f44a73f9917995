/* SPDX-License-Identifier: ISC */
/* notify_ops: the calls the supervisor performs for the payload, each
 * on the descriptor it checked (notify.h). */
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
#include "notify_impl.h"
#include "plan.h"
#include "uapi.h"

#define XNAME_MAX 255		/* XATTR_NAME_MAX */
#define XSIZE_MAX 65536		/* XATTR_SIZE_MAX */
#define SETID (S_ISUID | S_ISGID)

/* ---- metadata ---- */

static void
do_chmod(const struct call *c, int fd, mode_t mode, struct answer *a)
{
	struct stat st;
	char p[64];

	if (nt_check_rw(c, fd, &st, a) == -1)
		return;
	if (S_ISLNK(st.st_mode)) {
		nt_fail(a, EOPNOTSUPP);	/* as glibc's fchmodat answers */
		return;
	}
	if (nt_check_owner(c, &st, a) == -1)
		return;
	/* No setuid or setgid bit; a sticky directory (a shared /tmp a
	 * rule names) keeps its mode. */
	if ((mode & SETID) || (S_ISDIR(st.st_mode) &&
	    (st.st_mode & S_ISVTX))) {
		nt_deny(a, EPERM);
		return;
	}
	if (nt_still_valid(c, a) == -1)
		return;
	nt_fdpath(fd, p, sizeof(p));
	nt_done(a, chmod(p, mode & 07777));
}

static void
do_chown(const struct call *c, int fd, uid_t u, gid_t g, struct answer *a)
{
	const struct notify_policy *np = c->np;
	struct stat st;

	if (nt_check_rw(c, fd, &st, a) == -1)
		return;
	/* chown_ok/chgrp_ok without CAP_CHOWN: the owner, keeping its uid,
	 * giving the file to one of its own groups.  chown(-1, -1) too:
	 * done as root it still clears another owner's setuid, setgid and
	 * capabilities. */
	if (st.st_uid != np->uid) {
		nt_deny(a, EPERM);
		return;
	}
	if ((u != (uid_t)-1 && u != st.st_uid) ||
	    (g != (gid_t)-1 && g != st.st_gid && !nt_in_groups(np, g)) ||
	    (S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) &&
	    g != (gid_t)-1 && g != st.st_gid)) {
		nt_deny(a, EPERM);
		return;
	}
	if (nt_still_valid(c, a) == -1)
		return;
	nt_done(a, fchownat(fd, "", u, g, AT_EMPTY_PATH));
}

/* name: the attribute's name; value NULL: remove. */
static void
do_xattr(const struct call *c, int fd, const char *name, const void *value,
    size_t size, int flags, struct answer *a)
{
	struct stat st;
	char p[64];

	if (nt_check_rw(c, fd, &st, a) == -1 || nt_check_owner(c, &st, a) == -1)
		return;
	if (strncmp(name, "user.", 5) == 0) {
		if (!S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode)) {
			nt_deny(a, EPERM);
			return;
		}
	} else if (strcmp(name, "system.posix_acl_access") != 0 &&
	    strcmp(name, "system.posix_acl_default") != 0) {
		nt_deny(a, EPERM);	/* trusted., security.: capabilities */
		return;
	} else if (S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX)) {
		/* A sticky directory keeps its mode (do_chmod), and others'
		 * files in it their umask: no access or default ACL. */
		nt_deny(a, EPERM);
		return;
	}
	if (S_ISLNK(st.st_mode)) {
		nt_deny(a, EPERM);
		return;
	}
	if (nt_still_valid(c, a) == -1)
		return;
	nt_fdpath(fd, p, sizeof(p));
	if (value == NULL)
		nt_done(a, removexattr(p, name));
	else
		nt_done(a, setxattr(p, name, value, size, flags));
}

/* ts NULL: both "now". */
static void
do_times(const struct call *c, int fd, const struct timespec *ts,
    struct answer *a)
{
	struct stat st;
	char p[64];
	int now, omit;

	if (nt_check_rw(c, fd, &st, a) == -1)
		return;
	now = ts == NULL || (ts[0].tv_nsec == UTIME_NOW &&
	    ts[1].tv_nsec == UTIME_NOW);
	omit = ts != NULL && ts[0].tv_nsec == UTIME_OMIT &&
	    ts[1].tv_nsec == UTIME_OMIT;
	if (!omit && st.st_uid != c->np->uid &&
	    (!now || !nt_dac_allows(c->np, &st, S_IWOTH))) {
		nt_deny(a, now ? EACCES : EPERM);
		return;
	}
	if (nt_still_valid(c, a) == -1)
		return;
	if (S_ISLNK(st.st_mode)) {
		nt_done(a, utimensat(fd, "", ts, AT_EMPTY_PATH |
		    AT_SYMLINK_NOFOLLOW));
		return;
	}
	nt_fdpath(fd, p, sizeof(p));
	nt_done(a, utimensat(AT_FDCWD, p, ts, 0));
}

/* Inode flags: no immutable or append-only change (CAP_LINUX_IMMUTABLE),
 * no project id change. */
static int
flags_ok(uint64_t cur, uint64_t want, uint64_t guarded, struct answer *a)
{
	if ((cur ^ want) & guarded) {
		nt_deny(a, EPERM);
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
		nt_fail(a, EINVAL);
		return;
	}
	if (nt_mem_read(c, ARG(c, 2), &fa, sizeof(fa)) == -1) {
		nt_fail(a, errno);
		return;
	}
	if (nt_check_rw(c, fd, &st, a) == -1 || nt_check_owner(c, &st, a) == -1)
		return;
	if (S_ISLNK(st.st_mode)) {
		nt_fail(a, EOPNOTSUPP);
		return;
	}
	/* O_PATH descriptors are refused (EBADF): the inode's magic link. */
	nt_fdpath(fd, p, sizeof(p));
	if (syscall(__NR_file_getattr, AT_FDCWD, p, &cur, sizeof(cur),
	    0) == -1) {
		nt_fail(a, errno);
		return;
	}
	if (!flags_ok(cur.fa_xflags, fa.fa_xflags, FS_XFLAG_IMMUTABLE |
	    FS_XFLAG_APPEND, a) || !flags_ok(cur.fa_projid, fa.fa_projid,
	    ~0ull, a))
		return;
	if (nt_still_valid(c, a) == -1)
		return;
	nt_done(a, syscall(__NR_file_setattr, AT_FDCWD, p, &fa, sizeof(fa), 0));
}

void
nt_do_ioctl(const struct call *c, struct answer *a)
{
	uint32_t req = (uint32_t)ARG(c, 1);
	struct fsxattr fx, cx;
	struct stat st;
	int fd, fl, cf;

	if ((fd = nt_fetch_fd(c, IARG(c, 0))) == -1) {
		nt_fail(a, errno);
		return;
	}
	if (nt_check_rw(c, fd, &st, a) == -1 || nt_check_owner(c, &st, a) == -1)
		goto out;
	if (req == FS_IOC_FSSETXATTR) {
		if (nt_mem_read(c, ARG(c, 2), &fx, sizeof(fx)) == -1 ||
		    ioctl(fd, FS_IOC_FSGETXATTR, &cx) == -1) {
			nt_fail(a, errno);
			goto out;
		}
		if (!flags_ok(cx.fsx_xflags, fx.fsx_xflags,
		    FS_XFLAG_IMMUTABLE | FS_XFLAG_APPEND, a) ||
		    !flags_ok(cx.fsx_projid, fx.fsx_projid, ~0ull, a) ||
		    nt_still_valid(c, a) == -1)
			goto out;
		nt_done(a, ioctl(fd, FS_IOC_FSSETXATTR, &fx));
		goto out;
	}
	/* FS_IOC_SETFLAGS and its 32-bit twin: the kernel reads an int. */
	if (nt_mem_read(c, ARG(c, 2), &fl, sizeof(fl)) == -1 ||
	    ioctl(fd, FS_IOC_GETFLAGS, &cf) == -1) {
		nt_fail(a, errno);
		goto out;
	}
	/* Immutable and append-only need CAP_LINUX_IMMUTABLE, ext4's
	 * data journaling CAP_SYS_RESOURCE: the supervisor's, not the
	 * caller's. */
	if (!flags_ok((uint32_t)cf, (uint32_t)fl, FS_IMMUTABLE_FL |
	    FS_APPEND_FL | FS_JOURNAL_DATA_FL, a) ||
	    nt_still_valid(c, a) == -1)
		goto out;
	nt_done(a, ioctl(fd, FS_IOC_SETFLAGS, &fl));
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
		fd = nt_fetch_fd(c, IARG(c, 0));
		break;
	case __NR_chmod:
	case __NR_chown:
	case __NR_setxattr:
	case __NR_removexattr:
	case __NR_utime:
	case __NR_utimes:
		fd = nt_resolve(c, AT_FDCWD, ARG(c, 0), 0);
		break;
	case __NR_lchown:
	case __NR_lsetxattr:
	case __NR_lremovexattr:
		fd = nt_resolve(c, AT_FDCWD, ARG(c, 0), T_NOFOLLOW);
		break;
	case __NR_fchmodat:
		fd = nt_resolve(c, IARG(c, 0), ARG(c, 1), 0);
		break;
	case __NR_futimesat:	/* a NULL path names the descriptor */
		fd = nt_resolve(c, IARG(c, 0), ARG(c, 1), T_NULLPATH);
		break;
	case __NR_fchmodat2:
	case __NR_fchownat:
	case __NR_utimensat:
	case __NR_file_setattr:
		if (nt_at_flags(ARG(c, nr == __NR_fchmodat2 ? 3 :
		    nr == __NR_file_setattr ? 4 : nr == __NR_fchownat ? 4 : 3),
		    AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH, tf) == 0)
			fd = nt_resolve(c, IARG(c, 0), ARG(c, 1), *tf |
			    (nr == __NR_utimensat ? T_NULLPATH : 0));
		break;
	case __NR_setxattrat:
	case __NR_removexattrat:
		if (nt_at_flags(ARG(c, 2), AT_SYMLINK_NOFOLLOW | AT_EMPTY_PATH,
		    tf) == 0)
			fd = nt_resolve(c, IARG(c, 0), ARG(c, 1), *tf);
		break;
	default:
		errno = ENOSYS;
	}
	if (fd == -1)
		nt_fail(a, errno);
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
		return nt_mem_read(c, p, ts, 2 * sizeof(ts[0]));
	if (nr == __NR_utime) {
		if (nt_mem_read(c, p, ub, sizeof(ub)) == -1)
			return -1;
		for (i = 0; i < 2; i++) {
			ts[i].tv_sec = ub[i];
			ts[i].tv_nsec = 0;
		}
		return 0;
	}
	if (nt_mem_read(c, p, tv, sizeof(tv)) == -1)
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
	if (nt_mem_str(c, uname, name, sizeof(name), ERANGE) == -1) {
		nt_fail(a, errno);
		return;
	}
	if (rm) {
		do_xattr(c, fd, name, NULL, 0, 0, a);
		return;
	}
	if (nr == __NR_setxattrat) {
		if (ARG(c, 5) < sizeof(xa)) {
			nt_fail(a, EINVAL);
			return;
		}
		if (nt_mem_read(c, ARG(c, 4), &xa, sizeof(xa)) == -1) {
			nt_fail(a, errno);
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
		nt_fail(a, E2BIG);
		return;
	}
	if ((val = malloc(size ? size : 1)) == NULL) {
		nt_fail(a, ENOMEM);
		return;
	}
	if (nt_mem_read(c, uval, val, size) == -1)
		nt_fail(a, errno);
	else
		do_xattr(c, fd, name, val, size, flags, a);
	free(val);
}

void
nt_meta_call(const struct call *c, int nr, struct answer *a)
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
			nt_fail(a, errno);
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
void
nt_watch_call(const struct call *c, struct answer *a)
{
	uint32_t mask = (uint32_t)ARG(c, 2);
	struct stat st;
	char p[64];
	int ifd, fd;

	if ((ifd = nt_fetch_fd(c, IARG(c, 0))) == -1) {
		nt_fail(a, errno);
		return;
	}
	fd = nt_resolve(c, AT_FDCWD, ARG(c, 1),
	    (mask & IN_DONT_FOLLOW) ? T_NOFOLLOW : 0);
	if (fd == -1)
		nt_fail(a, errno);
	else if (fstat(fd, &st) == -1)
		nt_fail(a, errno);
	else if (S_ISLNK(st.st_mode) ||
	    !nt_beneath(fd, c->np->any, c->np->anyfd, c->np->nany) ||
	    !nt_dac_allows(c->np, &st, S_IROTH))
		nt_deny(a, EACCES);
	else if (nt_still_valid(c, a) == 0) {
		nt_fdpath(fd, p, sizeof(p));
		nt_done(a, inotify_add_watch(ifd, p, mask & ~IN_DONT_FOLLOW));
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

	/* Port 0 (an ephemeral port) only when the plan grants it; below
	 * the floor never. */
	if (port != 0 && port < np->port_floor)
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
		nt_fail(a, EINVAL);
		return;
	}
	if (slash == path)
		dfd = nt_resolve_str(c, AT_FDCWD, "/", 0);
	else if (slash != NULL) {
		*slash = '\0';
		dfd = nt_resolve_str(c, AT_FDCWD, path, 0);
	} else
		dfd = nt_resolve_str(c, AT_FDCWD, ".", 0);
	if (dfd == -1) {
		nt_fail(a, errno);
		return;
	}
	if (fstat(dfd, &st) == -1 || !S_ISDIR(st.st_mode))
		nt_fail(a, ENOTDIR);
	else if (!nt_beneath(dfd, c->np->rw, c->np->rwfd, c->np->nrw))
		nt_deny(a, EACCES);
	/* The caller's own write and search rights on the directory: as
	 * fsuid 0 the bind would keep the supervisor's DAC override. */
	else if (!nt_dac_allows(c->np, &st, S_IWOTH) ||
	    !nt_dac_allows(c->np, &st, S_IXOTH))
		nt_deny(a, EACCES);
	else if (nt_still_valid(c, a) == -1)
		;	/* answered */
	else if ((cwd = open(".", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		nt_fail(a, errno);
	else {
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
		nt_done(a, r);
	}
	close(dfd);
}

void
nt_bind_call(const struct call *c, struct answer *a)
{
	struct sockaddr_storage ss;
	socklen_t len = (socklen_t)ARG(c, 2), dl = sizeof(int);
	uint16_t port;
	int s, dom;

	if (len > sizeof(ss)) {
		nt_fail(a, EINVAL);
		return;
	}
	memset(&ss, 0, sizeof(ss));
	if (nt_mem_read(c, ARG(c, 1), &ss, len) == -1) {
		nt_fail(a, errno);
		return;
	}
	if ((s = nt_fetch_fd(c, IARG(c, 0))) == -1) {
		nt_fail(a, errno);
		return;
	}
	if (getsockopt(s, SOL_SOCKET, SO_DOMAIN, &dom, &dl) == -1) {
		nt_fail(a, errno);
	} else if (dom == AF_UNIX) {
		/* Autobind (family only) and abstract names: a name space
		 * no file rule covers, reachable from the host. */
		if (len <= offsetof(struct sockaddr_un, sun_path) ||
		    ((struct sockaddr_un *)&ss)->sun_path[0] == '\0')
			nt_deny(a, EPERM);
		else if (ss.ss_family != AF_UNIX ||
		    len > sizeof(struct sockaddr_un))
			nt_fail(a, EINVAL);
		else
			bind_path(c, s, (struct sockaddr_un *)&ss, len, a);
	} else if (dom == AF_INET || dom == AF_INET6) {
		memcpy(&port, (char *)&ss + 2, sizeof(port));
		if (!port_ok(c->np, ntohs(port)))
			nt_deny(a, EACCES);
		else if (nt_still_valid(c, a) == 0)
			nt_done(a, bind(s, (struct sockaddr *)&ss, len));
	} else
		nt_deny(a, EAFNOSUPPORT);
	close(s);
}

void
nt_listen_call(const struct call *c, struct answer *a)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	uint16_t port;
	int s;

	if ((s = nt_fetch_fd(c, IARG(c, 0))) == -1) {
		nt_fail(a, errno);
		return;
	}
	memset(&ss, 0, sizeof(ss));
	if (getsockname(s, (struct sockaddr *)&ss, &len) == -1) {
		nt_fail(a, errno);
		close(s);
		return;
	}
	memcpy(&port, (char *)&ss + 2, sizeof(port));
	if (ss.ss_family != AF_INET && ss.ss_family != AF_INET6) {
		if (nt_still_valid(c, a) == 0)
			nt_done(a, listen(s, IARG(c, 1)));
		close(s);
		return;
	}
	/* An unbound socket would listen on an ephemeral port of every
	 * address.  The port getsockname shows can be a stale one: a
	 * failed connect, or connect(AF_UNSPEC), gives an autobound port
	 * back and leaves its number.  So, unless the plan grants port 0
	 * (any ephemeral port), only a port it grants, bound here again:
	 * EINVAL when the socket still holds it. */
	if (port_ok(c->np, 0)) {
		if (nt_still_valid(c, a) == 0)
			nt_done(a, listen(s, IARG(c, 1)));
	} else if (!port_ok(c->np, ntohs(port)))
		nt_deny(a, EACCES);
	else if (nt_still_valid(c, a) == 0) {
		if (bind(s, (struct sockaddr *)&ss, len) == -1 &&
		    errno != EINVAL)
			nt_fail(a, errno);
		else
			nt_done(a, listen(s, IARG(c, 1)));
	}
	close(s);
}

