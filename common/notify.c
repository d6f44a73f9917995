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
#include "notify_impl.h"
#include "observe.h"
#include "plan.h"
#include "uapi.h"

void
nt_deny(struct answer *a, int e)
{
	a->err = e;
	a->k = DENIED;
}

void
nt_fail(struct answer *a, int e)
{
	a->err = e;
	a->k = FAILED;
}

/* The result of the call the supervisor performed. */
void
nt_done(struct answer *a, long r)
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

int
nt_mem_read(const struct call *c, uint64_t addr, void *buf, size_t len)
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
nt_mem_str(const struct call *c, uint64_t addr, char *buf, size_t size,
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
nt_fetch_fd(const struct call *c, int fd)
{
	return (int)syscall(__NR_pidfd_getfd, c->pidfd, fd, 0);
}

/* The caller's cwd or root ("cwd", "root"): its mount view's, not the
 * supervisor's. */
static int
caller_dir(const struct call *c, const char *which)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/%u/%s", c->n->pid, which);
	return open(p, O_PATH | O_DIRECTORY | O_CLOEXEC);
}

static int
caller_cwd(const struct call *c)
{
	return caller_dir(c, "cwd");
}


/* Resolve path (already copied) against the caller's dfd or cwd, an
 * absolute one beneath the caller's root (RESOLVE_IN_ROOT: the run's
 * mount view), as the caller would, into an O_PATH descriptor.
 * /proc/self and magic links would name the supervisor's own:
 * RESOLVE_NO_MAGICLINKS refuses them (ELOOP). */
int
nt_resolve_str(const struct call *c, int dfd, const char *path, unsigned tf)
{
	struct open_how how;
	int base, fd, e;

	if (path[0] == '\0') {
		if (!(tf & T_EMPTY)) {
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
	how.flags = O_PATH | O_CLOEXEC | ((tf & T_NOFOLLOW) ? O_NOFOLLOW : 0);
	how.resolve = RESOLVE_NO_MAGICLINKS | RESOLVE_IN_ROOT;
	fd = (int)syscall(__NR_openat2, base, path, &how, sizeof(how));
	e = errno;
	close(base);
	errno = e;
	return fd;
}

int
nt_resolve(const struct call *c, int dfd, uint64_t upath, unsigned tf)
{
	char path[PATH_MAX];

	if (upath == 0) {
		if ((tf & T_NULLPATH) && dfd != AT_FDCWD)
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
	*tf = ((fl & AT_SYMLINK_NOFOLLOW) ? T_NOFOLLOW : 0) |
	    ((fl & AT_EMPTY_PATH) ? T_EMPTY : 0);
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
nt_still_valid(const struct call *c, struct answer *a)
{
	if (!id_valid(c)) {
		nt_fail(a, ENOENT);
		return -1;
	}
	return 0;
}

/* ---- one notification ---- */

static void
dispatch(const struct call *c, struct answer *a)
{
	int nr = c->n->data.nr;

	if (c->n->data.arch != AUDIT_ARCH_X86_64) {
		nt_deny(a, ENOSYS);
		return;
	}
	switch (nr) {
	case __NR_bind:
		nt_bind_call(c, a);
		return;
	case __NR_listen:
		nt_listen_call(c, a);
		return;
	case __NR_inotify_add_watch:
		nt_watch_call(c, a);
		return;
	default:
		/* Nothing else is notified (sysfilter.h). */
		nt_deny(a, ENOSYS);
	}
}

/* An observed call: named for the observer, then the payload's own
 * call continues.  The kernel enforces it as if never notified (this
 * filter would have allowed it; Landlock and the mount view apply to
 * the call as it runs): what was named can only make the report wrong. */
static int
observe(int listenfd, const struct notify_policy *np,
    struct notify_stats *st, const struct seccomp_notif *n)
{
	struct seccomp_notif_resp resp;
	static struct obs_seen seen;	/* 8 KiB: not on the loop's stack */

	if (obs_see(n, listenfd, &seen) > 0)
		np->observe(np->observe_arg, &seen);
	st->observed++;
	memset(&resp, 0, sizeof(resp));
	resp.id = n->id;
	resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	if (ioctl(listenfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == -1 &&
	    errno != ENOENT)
		return -1;
	return 0;
}

/* A pidfd of the calling thread (its pid comes in the notification). */
static int
caller_pidfd(const struct seccomp_notif *n)
{
	int fd = (int)syscall(__NR_pidfd_open, n->pid, PIDFD_THREAD);

	if (fd == -1 && errno == EINVAL)	/* before 6.9: leaders */
		fd = (int)syscall(__NR_pidfd_open, n->pid, 0);
	return fd;
}

/* A connect (notify.h): the caller's socket to the handoff hook, then
 * the call continues.  A descriptor that is no socket, or none, is
 * answered with the kernel's errno (ENOTSOCK, EBADF) and not continued:
 * another thread could put a socket under its number before the call
 * ran; so is any failure to fetch it. */
static int
connect_seen(int listenfd, const struct notify_policy *np,
    struct notify_stats *st, const struct seccomp_notif *n)
{
	struct seccomp_notif_resp resp;
	struct call c = {n, np, listenfd, -1};
	socklen_t len = sizeof(int);
	int fd = -1, dom = -1, e = 0;

	memset(&resp, 0, sizeof(resp));
	resp.id = n->id;
	if ((c.pidfd = caller_pidfd(n)) == -1)
		e = errno;
	else if (!id_valid(&c))
		e = ENOENT;	/* gone: the answer is lost anyway */
	else if ((fd = nt_fetch_fd(&c, IARG(&c, 0))) == -1)
		e = errno;
	else if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) == -1)
		e = errno;
	else if (!id_valid(&c))
		e = ENOENT;
	if (c.pidfd != -1)
		close(c.pidfd);
	if (e == 0) {
		np->handoff(np->handoff_arg, (pid_t)n->pid, fd, dom);
		st->observed++;
		resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
	} else {
		if (fd != -1)
			close(fd);
		st->failed++;
		resp.error = -e;
	}
	if (ioctl(listenfd, SECCOMP_IOCTL_NOTIF_SEND, &resp) == -1 &&
	    errno != ENOENT)
		return -1;
	return 0;
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
	if (np->observe != NULL && n.data.arch == AUDIT_ARCH_X86_64 &&
	    obs_is_observed(n.data.nr))
		return observe(listenfd, np, st, &n);
	if (np->handoff != NULL && n.data.arch == AUDIT_ARCH_X86_64 &&
	    n.data.nr == __NR_connect)
		return connect_seen(listenfd, np, st, &n);
	c.n = &n;
	c.np = np;
	c.listenfd = listenfd;
	c.pidfd = caller_pidfd(&n);
	/* The pidfd (and /proc/PID) name the caller only while it still
	 * waits on this id: checked after opening, and before acting. */
	if (c.pidfd == -1)
		nt_fail(&a, EACCES);
	else if (!id_valid(&c))
		nt_fail(&a, ENOENT);
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

/* A rule's path as the kernel names its inode (symlinks in the plan's
 * path resolved), the form nt_beneath compares; the plan's own path when
 * the rule is missing.  Malloc'd. */
static char *
rule_path(int fd, const char *path)
{
	char link[64], buf[PATH_MAX];
	ssize_t n = -1;

	if (fd != -1) {
		nt_fdpath(fd, link, sizeof(link));
		n = readlink(link, buf, sizeof(buf) - 1);
	}
	if (n <= 0 || buf[0] != '/')
		return strdup(path);
	buf[n] = '\0';
	return strdup(buf);
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
	np->anyid = calloc(p->nfs + 1, sizeof(*np->anyid));
	if (np->rw == NULL || np->any == NULL || np->rwfd == NULL ||
	    np->anyfd == NULL || np->anyid == NULL)
		goto nomem;
	/* The rules' own inodes, opened now (a rule missing at run time
	 * is refused by ll_build before this).  A read-only rule is kept
	 * by its identity, not a descriptor: the system preset lists /etc
	 * entry by entry, and the supervisor's descriptors are few. */
	for (i = 0; i < p->nfs; i++) {
		struct stat st;

		fd = open(p->fs[i].path, O_PATH | O_CLOEXEC);
		np->anyfd[np->nany] = fd;
		if ((np->any[np->nany++] = rule_path(fd, p->fs[i].path)) ==
		    NULL)
			goto nomem;
		if (p->fs[i].intent != PLAN_RW && p->fs[i].intent != PLAN_RWX) {
			if (fd != -1 && fstat(fd, &st) == 0) {
				np->anyid[np->nany - 1].dev = st.st_dev;
				np->anyid[np->nany - 1].ino = st.st_ino;
				np->anyfd[np->nany - 1] = NT_BY_ID;
			} else
				np->anyfd[np->nany - 1] = -1;
			if (fd != -1)
				close(fd);
			continue;
		}
		np->rwfd[np->nrw] = fd == -1 ? -1 : fcntl(fd, F_DUPFD_CLOEXEC,
		    0);
		/* The same inode as any[]'s: its path, not read again. */
		if ((np->rw[np->nrw++] = strdup(np->any[np->nany - 1])) ==
		    NULL)
			goto nomem;
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

int
notify_policy_add_rw(struct notify_policy *np, int dirfd, const char *path)
{
	char **rw, **any;
	int *rwfd, *anyfd;
	struct notify_id *anyid;

	if ((rw = realloc(np->rw, (np->nrw + 2) * sizeof(char *))) != NULL)
		np->rw = rw;
	if ((any = realloc(np->any, (np->nany + 2) * sizeof(char *))) != NULL)
		np->any = any;
	if ((rwfd = realloc(np->rwfd, (np->nrw + 2) * sizeof(int))) != NULL)
		np->rwfd = rwfd;
	if ((anyfd = realloc(np->anyfd, (np->nany + 2) * sizeof(int))) != NULL)
		np->anyfd = anyfd;
	if ((anyid = realloc(np->anyid, (np->nany + 2) *
	    sizeof(*anyid))) != NULL)
		np->anyid = anyid;
	if (rw == NULL || any == NULL || rwfd == NULL || anyfd == NULL ||
	    anyid == NULL)
		return errno = ENOMEM, -1;
	np->rwfd[np->nrw] = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if ((np->rw[np->nrw] = rule_path(dirfd, path)) == NULL) {
		if (np->rwfd[np->nrw] != -1)
			close(np->rwfd[np->nrw]);
		return errno = ENOMEM, -1;
	}
	np->nrw++;
	np->anyfd[np->nany] = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if ((np->any[np->nany] = rule_path(dirfd, path)) == NULL) {
		if (np->anyfd[np->nany] != -1)
			close(np->anyfd[np->nany]);
		return errno = ENOMEM, -1;
	}
	np->nany++;
	return 0;
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
	for (i = 0; np->rw != NULL && i < np->nrw; i++)
		free(np->rw[i]);
	for (i = 0; np->any != NULL && i < np->nany; i++)
		free(np->any[i]);
	free(np->rwfd);
	free(np->anyfd);
	free(np->anyid);
	free(np->rw);
	free(np->any);
	free(np->groups);
	memset(np, 0, sizeof(*np));
}
