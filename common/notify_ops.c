/* SPDX-License-Identifier: ISC */
/* notify_ops: the calls the supervisor still performs for the payload,
 * each on the descriptor it checked (notify.h): a watch, and in the
 * host's network a bind or a listen. */
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

#define XNAME_MAX 255		/* XATTR_NAME_MAX */
#define XSIZE_MAX 65536		/* XATTR_SIZE_MAX */
#define SETID (S_ISUID | S_ISGID)

/* ---- watches ---- */

/* inotify_add_watch(fd, path, mask): beneath any rule, readable. */
void
nt_watch_call(const struct nt_call *c, struct nt_answer *a)
{
	uint32_t mask = (uint32_t)NT_ARG(c, 2);
	struct stat st;
	char p[64];
	int ifd, fd;

	if ((ifd = nt_fetch_fd(c, NT_IARG(c, 0))) == -1) {
		nt_fail(a, errno);
		return;
	}
	fd = nt_resolve(c, AT_FDCWD, NT_ARG(c, 1),
	    (mask & IN_DONT_FOLLOW) ? NT_NOFOLLOW : 0);
	if (fd == -1)
		nt_fail(a, errno);
	else if (fstat(fd, &st) == -1)
		nt_fail(a, errno);
	else if (S_ISLNK(st.st_mode) ||
	    !nt_beneath(fd, c->np->any, c->np->anyfd, c->np->anyid,
	    c->np->nany) ||
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
bind_path(const struct nt_call *c, int s, const struct sockaddr_un *sun,
    socklen_t len, struct nt_answer *a)
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
	else if (!nt_beneath(dfd, c->np->rw, c->np->rwfd, NULL, c->np->nrw))
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
nt_bind_call(const struct nt_call *c, struct nt_answer *a)
{
	struct sockaddr_storage ss;
	socklen_t len = (socklen_t)NT_ARG(c, 2), dl = sizeof(int);
	uint16_t port;
	int s, dom;

	if (len > sizeof(ss)) {
		nt_fail(a, EINVAL);
		return;
	}
	memset(&ss, 0, sizeof(ss));
	if (nt_mem_read(c, NT_ARG(c, 1), &ss, len) == -1) {
		nt_fail(a, errno);
		return;
	}
	if ((s = nt_fetch_fd(c, NT_IARG(c, 0))) == -1) {
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
nt_listen_call(const struct nt_call *c, struct nt_answer *a)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof(ss);
	uint16_t port;
	int s;

	if ((s = nt_fetch_fd(c, NT_IARG(c, 0))) == -1) {
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
			nt_done(a, listen(s, NT_IARG(c, 1)));
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
			nt_done(a, listen(s, NT_IARG(c, 1)));
	} else if (!port_ok(c->np, ntohs(port)))
		nt_deny(a, EACCES);
	else if (nt_still_valid(c, a) == 0) {
		if (bind(s, (struct sockaddr *)&ss, len) == -1 &&
		    errno != EINVAL)
			nt_fail(a, errno);
		else
			nt_done(a, listen(s, NT_IARG(c, 1)));
	}
	close(s);
}

