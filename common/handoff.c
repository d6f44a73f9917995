/* SPDX-License-Identifier: ISC */
/* handoff: the daemon behind a payload's unix connection, as the kernel
 * reports it (handoff.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <unistd.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <linux/sock_diag.h>
#include <linux/unix_diag.h>

#include "handoff.h"
#include "probe.h"
#include "uapi.h"

#define TCP_LISTEN_STATE 10	/* the socket state sock_diag filters on */

/* One listener of the dump: kept when its bound file is an inventory
 * socket (the kernel's dev_t is MAJOR << 20 | MINOR). */
static void
keep_listener(struct handoff_inv *inv, const struct daemon_hit *hits,
    size_t nhits, const struct unix_diag_msg *m, size_t len)
{
	const struct rtattr *a = (const void *)(m + 1);
	const struct unix_diag_vfs *vfs = NULL;
	const char *name = NULL;
	size_t namelen = 0, i, alen = len;

	for (; RTA_OK(a, alen); a = RTA_NEXT(a, alen)) {
		if (a->rta_type == UNIX_DIAG_NAME) {
			name = RTA_DATA(a);
			namelen = RTA_PAYLOAD(a);
		} else if (a->rta_type == UNIX_DIAG_VFS &&
		    RTA_PAYLOAD(a) >= sizeof(*vfs))
			vfs = RTA_DATA(a);
	}
	if (vfs == NULL || name == NULL || namelen == 0 ||
	    namelen > sizeof(inv->l[0].addr) || inv->n >= HANDOFF_INV_MAX)
		return;
	for (i = 0; i < nhits; i++) {
		if (hits[i].ino != vfs->udiag_vfs_ino || hits[i].dev !=
		    makedev(vfs->udiag_vfs_dev >> 20,
		    vfs->udiag_vfs_dev & 0xfffff))
			continue;
		inv->l[inv->n].name = hits[i].name;
		snprintf(inv->l[inv->n].path, sizeof(inv->l[0].path), "%s",
		    hits[i].path);
		inv->l[inv->n].sock = m->udiag_ino;
		memcpy(inv->l[inv->n].addr, name, namelen);
		inv->l[inv->n].addrlen = namelen;
		inv->n++;
		return;
	}
}

/* The listening unix sockets of confexec's network namespace, with the
 * name and file each is bound to. */
static int
dump_listeners(struct handoff_inv *inv, const struct daemon_hit *hits,
    size_t nhits)
{
	struct {
		struct nlmsghdr h;
		struct unix_diag_req r;
	} req;
	static char buf[32768] __attribute__((aligned(8)));
	const struct nlmsghdr *h;
	ssize_t n;
	int nl, e, done = 0;

	nl = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (nl == -1)
		return -1;
	memset(&req, 0, sizeof(req));
	req.h.nlmsg_len = sizeof(req);
	req.h.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	req.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_DUMP;
	req.r.sdiag_family = AF_UNIX;
	req.r.udiag_states = 1u << TCP_LISTEN_STATE;
	req.r.udiag_show = UDIAG_SHOW_NAME | UDIAG_SHOW_VFS;
	if (send(nl, &req, sizeof(req), 0) != (ssize_t)sizeof(req))
		goto fail;
	/* The kernel fills each part as it is read: never waits. */
	while (!done) {
		n = recv(nl, buf, sizeof(buf), MSG_DONTWAIT);
		if (n <= 0)
			goto fail;
		for (h = (const void *)buf; NLMSG_OK(h, (size_t)n);
		    h = NLMSG_NEXT(h, n)) {
			if (h->nlmsg_type == NLMSG_DONE) {
				done = 1;
				break;
			}
			if (h->nlmsg_type == NLMSG_ERROR) {
				errno = EPROTO;
				goto fail;
			}
			if (h->nlmsg_len < NLMSG_LENGTH(
			    sizeof(struct unix_diag_msg)))
				continue;
			keep_listener(inv, hits, nhits, NLMSG_DATA(h),
			    h->nlmsg_len - NLMSG_LENGTH(
			    sizeof(struct unix_diag_msg)));
		}
	}
	close(nl);
	return 0;
fail:
	e = errno;
	close(nl);
	errno = e;
	return -1;
}

int
handoff_inventory(struct handoff_inv *inv, uid_t uid, gid_t gid)
{
	struct daemon_hit hits[HANDOFF_INV_MAX];
	size_t nhits;

	inv->n = 0;
	inv->payload_uid = uid;
	/* E2BIG: the first ones found are looked at. */
	if (probe_daemons(uid, gid, hits, HANDOFF_INV_MAX, &nhits) == -1 &&
	    errno != E2BIG)
		return -1;
	if (nhits == 0)
		return 0;
	return dump_listeners(inv, hits, nhits);
}

/* 1 when process pid has a descriptor on socket inode ino among its
 * first HANDOFF_FD_SCAN, 0 when not, -1 when its descriptors cannot be
 * read (EACCES: another uid's, for a confexec that is not root).  The
 * bound keeps a peer with a million descriptors (the payload's own
 * listener, named like a daemon's) from holding the loop. */
static int
holds_socket(pid_t pid, ino_t ino)
{
	char dir[64], p[64 + 256], want[64], got[64];
	struct dirent *d;
	ssize_t n;
	DIR *dp;
	int found = 0, seen = 0;

	snprintf(dir, sizeof(dir), "/proc/%ld/fd", (long)pid);
	snprintf(want, sizeof(want), "socket:[%lu]", (unsigned long)ino);
	if ((dp = opendir(dir)) == NULL)
		return errno == EACCES ? -1 : 0;
	while (!found && seen++ < HANDOFF_FD_SCAN &&
	    (d = readdir(dp)) != NULL) {
		if (d->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, d->d_name);
		n = readlink(p, got, sizeof(got) - 1);
		if (n <= 0)
			continue;
		got[n] = '\0';
		found = strcmp(got, want) == 0;
	}
	closedir(dp);
	return found;
}

/* The number of pid namespaces pid is in (its NSpid line's pids), or
 * 0 when unknown; 0 for pid 0: this process. */
static int
pidns_depth(pid_t pid)
{
	char path[64], line[256];
	int n = 0;
	FILE *f;

	if (pid == 0)
		snprintf(path, sizeof(path), "/proc/self/status");
	else
		snprintf(path, sizeof(path), "/proc/%ld/status", (long)pid);
	if ((f = fopen(path, "re")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "NSpid:", 6) == 0) {
			for (char *c = line + 6; *c != '\0'; c++)
				if (*c >= '0' && *c <= '9' && (c[1] < '0' ||
				    c[1] > '9'))
					n++;	/* the last digit of a pid */
			break;
		}
	fclose(f);
	return n;
}

/* Whether the process pid (credentials uid) holds the inventory's
 * listener i.  A process whose descriptors cannot be read (another
 * uid's, confexec not root) is taken at the name it bound when it can
 * be no process of the run: not the payload's uid, and in confexec's
 * pid namespace, not one below it. */
static int
holds_listener(const struct handoff_inv *inv, size_t i, pid_t pid,
    uid_t uid)
{
	int h = holds_socket(pid, inv->l[i].sock), d;

	if (h >= 0)
		return h;
	if (uid == inv->payload_uid)
		return 0;
	d = pidns_depth(pid);
	return d > 0 && d <= pidns_depth(0);
}

/* The inventory listener whose name the peer bound and that the peer's
 * process holds, or -1. */
static int
which_listener(const struct handoff_inv *inv, const struct ucred *cr,
    const struct sockaddr_un *sa, socklen_t salen)
{
	size_t i, len;

	if (salen <= offsetof(struct sockaddr_un, sun_path))
		return -1;
	len = salen - offsetof(struct sockaddr_un, sun_path);
	for (i = 0; i < inv->n; i++)
		if (inv->l[i].addrlen == len && memcmp(inv->l[i].addr,
		    sa->sun_path, len) == 0 && holds_listener(inv, i,
		    cr->pid, cr->uid) == 1)
			return (int)i;
	return -1;
}

int
handoff_peer(int sock, const struct handoff_inv *inv,
    struct handoff_peer *p)
{
	struct sockaddr_un sa;
	struct ucred cr;
	socklen_t sl = sizeof(sa), cl = sizeof(cr), tl = sizeof(p->type);
	char link[64];
	ssize_t n;
	int pidfd = -1, k = -1;

	memset(p, 0, sizeof(*p));
	memset(&sa, 0, sizeof(sa));
	if (getpeername(sock, (struct sockaddr *)&sa, &sl) == -1)
		return errno == ENOTCONN ? 0 : -1;
	if (getsockopt(sock, SOL_SOCKET, SO_PEERCRED, &cr, &cl) == -1 ||
	    getsockopt(sock, SOL_SOCKET, SO_TYPE, &p->type, &tl) == -1)
		return -1;
	if (sl > offsetof(struct sockaddr_un, sun_path) &&
	    sa.sun_path[0] != '\0')
		snprintf(p->address, sizeof(p->address), "%.*s",
		    (int)(sl - offsetof(struct sockaddr_un, sun_path)),
		    sa.sun_path);
	p->pid = cr.pid;
	p->uid = cr.uid;
	p->gid = cr.gid;
	if (cr.pid <= 0)
		return 1;	/* no listener's credentials: no daemon */
	/* The listener's process, pinned while /proc/PID is read: a pid
	 * reused meanwhile is found dead through the pidfd. */
	cl = sizeof(pidfd);
	if (getsockopt(sock, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &cl) == -1) {
		if (errno != ENOPROTOOPT)
			return 1;	/* gone (ESRCH): no daemon read */
		pidfd = -1;	/* before Linux 6.5: the pid as it is */
	}
	snprintf(link, sizeof(link), "/proc/%ld/exe", (long)cr.pid);
	n = readlink(link, p->exe, sizeof(p->exe) - 1);
	p->exe[n > 0 ? n : 0] = '\0';
	k = which_listener(inv, &cr, &sa, sl);
	if (pidfd != -1) {
		/* ESRCH: gone (EPERM: alive, another uid's). */
		if (syscall(__NR_pidfd_send_signal, pidfd, 0, NULL, 0) == -1 &&
		    errno == ESRCH) {
			p->exe[0] = '\0';	/* gone: nothing read holds */
			k = -1;
		}
		close(pidfd);
	}
	if (k >= 0) {
		p->daemon = inv->l[k].name;
		p->socket = inv->l[k].path;
	}
	return 1;
}
