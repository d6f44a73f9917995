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
#include "notify_call.h"
#include "observe.h"
#include "plan.h"
#include "uapi.h"

/* ---- one notification ---- */

static void
dispatch(const struct nt_call *c, struct nt_answer *a)
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
	struct nt_call c = {n, np, listenfd, -1};
	socklen_t len = sizeof(int);
	int fd = -1, dom = -1, e = 0;

	memset(&resp, 0, sizeof(resp));
	resp.id = n->id;
	if ((c.pidfd = caller_pidfd(n)) == -1)
		e = errno;
	else if (!nt_id_valid(&c))
		e = ENOENT;	/* gone: the answer is lost anyway */
	else if ((fd = nt_fetch_fd(&c, NT_IARG(&c, 0))) == -1)
		e = errno;
	else if (getsockopt(fd, SOL_SOCKET, SO_DOMAIN, &dom, &len) == -1)
		e = errno;
	else if (!nt_id_valid(&c))
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
	struct nt_answer a = {0, 0, NT_FAILED};
	struct nt_call c;

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
	else if (!nt_id_valid(&c))
		nt_fail(&a, ENOENT);
	else
		dispatch(&c, &a);
	if (c.pidfd != -1)
		close(c.pidfd);
	if (a.k == NT_ALLOWED)
		st->allowed++;
	else if (a.k == NT_DENIED)
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

/* One more rule at the end of a list (its room made): dirfd's duplicate
 * in fds, its path in paths.  0, or -1 with errno ENOMEM. */
static int
rule_push(char **paths, int *fds, size_t *n, int dirfd, const char *path)
{
	fds[*n] = fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if ((paths[*n] = rule_path(dirfd, path)) == NULL) {
		if (fds[*n] != -1)
			close(fds[*n]);
		return errno = ENOMEM, -1;
	}
	(*n)++;
	return 0;
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
	if (rule_push(np->rw, np->rwfd, &np->nrw, dirfd, path) == -1 ||
	    rule_push(np->any, np->anyfd, &np->nany, dirfd, path) == -1)
		return -1;
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
