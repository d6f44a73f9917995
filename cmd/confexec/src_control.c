/* SPDX-License-Identifier: ISC */
/* source: the control socket (--control PATH, confexec-control(5)).
 *
 * Made before the clone: a Unix stream socket at PATH, mode 0600, in a
 * directory only the caller or root can write (checked on an O_PATH
 * descriptor of it, which every later step goes through, by its
 * /proc/self/fd name; PATH itself only without /proc).  An existing
 * PATH is replaced only when it is the caller's stale socket (connect:
 * ECONNREFUSED).  Removed at the end, on every path (loop_close,
 * end_early, and exit() as a last resort).
 *
 * Peers are judged before a byte is read: SO_PEERCRED's uid must be root
 * or the caller's, and the peer must not live in the run's pid namespace
 * or one below it (its pidfd's pid namespace, walked up with
 * NS_GET_PARENT): the payload may hold the caller's uid, never its pid
 * namespace.  Refused peers are closed unread and journaled
 * ("control_refused").  The others get one answer per request line
 * (control.c); all I/O is non-blocking, each client bounded. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <linux/nsfs.h>

#include "boundary.h"
#include "clock.h"
#include "ctl.h"
#include "err.h"
#include "events.h"
#include "layers.h"
#include "loop.h"
#include "plan.h"
#include "record.h"
#include "run.h"
#include "uapi.h"

static struct ctl ctl = {.dirfd = -1, .fd = -1};

/* ---- the socket ---- */

static int fail(struct source *s, int e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int
fail(struct source *s, int e, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(s->why, sizeof(s->why), fmt, ap);
	va_end(ap);
	errno = e;
	return -1;
}

/* dir and base of path; the directory only the caller or root can
 * write.  Returns 0 or -1 (s->why). */
static int
open_dir(struct source *s, const char *path)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	struct stat st;
	size_t n;

	if (slash == NULL) {
		strcpy(dir, ".");
		slash = path - 1;
	} else {
		n = slash == path ? 1 : (size_t)(slash - path);
		if (n >= sizeof(dir))
			return fail(s, ENAMETOOLONG, "%s: %s", path,
			    strerror(ENAMETOOLONG));
		memcpy(dir, path, n);
		dir[n] = '\0';
	}
	n = strlen(slash + 1);
	if (n == 0 || strcmp(slash + 1, ".") == 0 ||
	    strcmp(slash + 1, "..") == 0 || n >= sizeof(ctl.base))
		return fail(s, EINVAL, "%s: not a socket name (at most %zu "
		    "bytes after the last slash)", path, sizeof(ctl.base) - 1);
	strcpy(ctl.base, slash + 1);
	ctl.dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (ctl.dirfd == -1)
		return fail(s, errno, "directory %s: %s", dir,
		    strerror(errno));
	if (fstat(ctl.dirfd, &st) == -1)
		return -1;
	if (st.st_uid != 0 && st.st_uid != geteuid())
		return fail(s, EPERM, "directory %s is owned by uid %ld, "
		    "neither root nor the caller", dir, (long)st.st_uid);
	if (st.st_mode & (S_IWGRP | S_IWOTH))
		return fail(s, EPERM, "directory %s is writable by others "
		    "(mode %lo)", dir, (unsigned long)(st.st_mode & 07777));
	return 0;
}

/* A payload that may write the socket's directory, or one above it,
 * could move the socket away and bind its own in its place. */
static int
payload_writes_dir(struct source *s, struct run *r)
{
	int i = boundary_rw_over(r, ctl.dirfd, NULL);

	if (i >= 0)
		return fail(s, EPERM, "%s: the payload may write its "
		    "directory (rule %s %s) and could put its own socket in "
		    "its place; use a directory no rw or rwx rule covers",
		    r->control, plan_intent_name(r->p.fs[i].intent),
		    r->p.fs[i].path);
	return 0;
}

static socklen_t
addr(struct sockaddr_un *sa)
{
	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (ctl.path != NULL)
		snprintf(sa->sun_path, sizeof(sa->sun_path), "%s", ctl.path);
	else
		snprintf(sa->sun_path, sizeof(sa->sun_path),
		    "/proc/self/fd/%d/%s", ctl.dirfd, ctl.base);
	return (socklen_t)sizeof(*sa);
}

/* An existing name: the caller's stale socket goes, anything else
 * refuses.  Returns 0 or -1 (s->why). */
static int
stale(struct source *s, const char *path)
{
	struct sockaddr_un sa;
	struct stat st;
	int fd, rc, e;

	if (fstatat(ctl.dirfd, ctl.base, &st, AT_SYMLINK_NOFOLLOW) == -1) {
		if (errno == ENOENT)
			return 0;
		return fail(s, errno, "%s: %s", path, strerror(errno));
	}
	if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid())
		return fail(s, EEXIST, "%s exists and is not a socket of uid "
		    "%ld", path, (long)geteuid());
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd == -1)
		return -1;
	rc = connect(fd, (struct sockaddr *)&sa, addr(&sa));
	e = errno;
	close(fd);
	if (rc == 0 || e != ECONNREFUSED)
		return fail(s, EADDRINUSE, "%s is in use (a live run's "
		    "socket?)", path);
	if (unlinkat(ctl.dirfd, ctl.base, 0) == -1)
		return -1;
	return 0;
}

static void
remove_socket(void)
{
	struct stat st;

	if (ctl.made && ctl.pid == getpid() &&
	    fstatat(ctl.dirfd, ctl.base, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	    st.st_dev == ctl.dev && st.st_ino == ctl.ino)
		unlinkat(ctl.dirfd, ctl.base, 0);
	ctl.made = 0;
}

/* The socket made and bound, mode 0600 (umask), removed at exit: 0, or
 * -1 (s->why when said). */
static int
bind_socket(struct source *s, struct run *r)
{
	static int registered;
	struct sockaddr_un sa;
	struct stat st;
	mode_t old;
	int rc;

	s->fd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
	    0);
	if (s->fd == -1)
		return -1;
	ctl.fd = s->fd;
	old = umask(0177);
	rc = bind(s->fd, (struct sockaddr *)&sa, addr(&sa));
	umask(old);
	if (rc == -1)
		return fail(s, errno, "%s: bind: %s", r->control,
		    strerror(errno));
	if (fstatat(ctl.dirfd, ctl.base, &st, AT_SYMLINK_NOFOLLOW) == -1)
		return -1;
	ctl.made = 1;
	ctl.pid = getpid();
	ctl.dev = st.st_dev;
	ctl.ino = st.st_ino;
	if (!registered && atexit(remove_socket) == 0)
		registered = 1;
	if (!S_ISSOCK(st.st_mode) || st.st_uid != geteuid() ||
	    (st.st_mode & 07777) != 0600)
		return fail(s, EPERM, "%s: made with mode %lo, not 0600",
		    r->control, (unsigned long)(st.st_mode & 07777));
	return 0;
}

static int
open_control(struct source *s, struct run *r)
{
	struct sockaddr_un sa;

	if (r->control == NULL)
		return 0;
	ctl.r = r;
	ctl.src = s;
	ctl.caller_uid = getuid();	/* served, with root */
	/* In its own user namespace (a caller that is not root) confexec
	 * cannot judge a peer: root's uid is unmapped there, and a peer's
	 * pid namespace out of reach; every one would be refused. */
	if (r->userns)
		return fail(s, EPERM, "%s: the control socket needs a "
		    "confexec run by root (in the user namespace of a caller "
		    "that is not root its peers cannot be told apart)",
		    r->control);
	if (access("/proc/self/fd", X_OK) == -1) {
		if (strlen(r->control) >= sizeof(sa.sun_path))
			return fail(s, ENAMETOOLONG, "%s: longer than %zu "
			    "bytes (without /proc)", r->control,
			    sizeof(sa.sun_path) - 1);
		ctl.path = r->control;
	}
	if (open_dir(s, r->control) == -1 ||
	    payload_writes_dir(s, r) == -1 || stale(s, r->control) == -1)
		return -1;
	if (bind_socket(s, r) == -1)
		return -1;
	if (listen(s->fd, CTL_CLIENTS) == -1)
		return -1;
	s->watch = &s->fd;
	return 0;
}

/* ---- peers ---- */

/* The payload runs: the run's pid namespace, recorded once init runs
 * (its processes are never served). */
static void
running_control(struct source *s, struct run *r)
{
	char p[64];
	struct stat st;
	int ns, rc;

	if (r->control == NULL)
		return;
	/* Without a pid namespace of its own the run's processes cannot be
	 * told from the host's: fail closed. */
	if (!layers_on(r, L_PIDNS)) {
		warning("control: the run has no pid namespace of its own; "
			"every peer will be refused");
		ctl.have_pidns = -1;
		return;
	}
	/* Through init's pidfd (Linux 6.11), else /proc: init is our
	 * child, not reaped, its pid its own.  Unknown: every peer is
	 * refused (fail closed). */
	ns = ioctl(r->pidfd, PIDFD_GET_PID_NAMESPACE, 0);
	if (ns >= 0) {
		rc = fstat(ns, &st);
		close(ns);
	} else {
		snprintf(p, sizeof(p), "/proc/%ld/ns/pid", (long)r->pid);
		rc = stat(p, &st);
	}
	if (rc == 0) {
		ctl.pidns_dev = st.st_dev;
		ctl.pidns_ino = st.st_ino;
		ctl.have_pidns = 1;
	} else {
		warning("control: the run's pid namespace: %s; every peer "
			"will be refused", strerror(errno));
		ctl.have_pidns = -1;
	}
}

/* The peer's pid namespace, from its pidfd (SO_PEERPIDFD, Linux 6.5;
 * PIDFD_GET_PID_NAMESPACE, 6.11).  Only where the kernel has neither,
 * from /proc by pid (racy there: a peer that exits before it is judged
 * leaves its pid to be reused).  Returns a descriptor, or -1 with errno
 * (ESRCH: the peer is gone). */
static int
peer_pidns(int fd, pid_t pid)
{
	socklen_t len = sizeof(int);
	char p[64];
	int pidfd, ns, e;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERPIDFD, &pidfd, &len) == 0) {
		ns = ioctl(pidfd, PIDFD_GET_PID_NAMESPACE, 0);
		e = errno;
		close(pidfd);
		if (ns >= 0)
			return ns;
		if (e != ENOTTY && e != EINVAL && e != EOPNOTSUPP)
			return errno = e, -1;
	} else if (errno == ESRCH)
		return -1;
	if (pid <= 0)
		return errno = ESRCH, -1;
	snprintf(p, sizeof(p), "/proc/%ld/ns/pid", (long)pid);
	ns = open(p, O_RDONLY | O_CLOEXEC);
	if (ns == -1 && errno == ENOENT)
		errno = ESRCH;
	return ns;
}

/* Is the peer one of the run's processes?  1 yes, 0 no, -1 unknown
 * (errno ESRCH: the process that connected is gone). */
static int
peer_in_run(const struct run *r, int fd, pid_t pid)
{
	struct stat st;
	int ns, up, depth;

	if (ctl.have_pidns == 0)
		return 0;	/* the payload never ran */
	if (ctl.have_pidns < 0)
		return errno = EIO, -1;
	ns = peer_pidns(fd, pid);
	if (ns == -1)
		return -1;
	for (depth = 0; depth < 40; depth++) {
		if (fstat(ns, &st) == -1)
			break;
		if (st.st_dev == ctl.pidns_dev && st.st_ino == ctl.pidns_ino) {
			close(ns);
			return 1;
		}
		up = ioctl(ns, NS_GET_PARENT);
		close(ns);
		if (up == -1)	/* EPERM: above ours, the walk is over */
			return errno == EPERM ? 0 : -1;
		ns = up;
	}
	close(ns);
	return errno = ELOOP, -1;
}

/* "control_refused": a peer of the control socket closed unread (not
 * root nor the caller, or one of the run's own processes). */
static json_t *
refused_event(uid_t uid, pid_t pid, const char *why)
{
	json_t *o = json_object();

	json_object_set_new(o, "event", json_string("control_refused"));
	json_object_set_new(o, "uid", events_u64(uid));
	json_object_set_new(o, "pid", events_u64((uint64_t)pid));
	json_object_set_new(o, "reason", json_string(why));
	json_object_set_new(o, "time_ns", events_u64(now_ns(CLOCK_REALTIME)));
	return o;
}

/* Before any read: 0 served, -1 refused (closed, journaled). */
static int
authenticate(struct run *r, int fd)
{
	struct ucred uc;
	socklen_t len = sizeof(uc);
	const char *why = NULL;
	json_t *ev;

	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &uc, &len) == -1) {
		uc.uid = (uid_t)-1;
		uc.pid = 0;
		why = "credentials";
	} else if (uc.uid != 0 && uc.uid != ctl.caller_uid)
		why = "uid";
	else {
		switch (peer_in_run(r, fd, uc.pid)) {
		case 0:
			return 0;
		case 1:
			why = "run";
			break;
		default:
			/* Unknown is refused: the descriptor may live on
			 * in a process of the run. */
			why = errno == ESRCH ? "gone" : "pid namespace";
		}
	}
	close(fd);
	/* Recorded until the end record, never after it (the linger). */
	if (ctl.refused++ < CTL_REFUSALS_LOGGED && r->state != ST_ENDED) {
		ev = refused_event(uc.uid, uc.pid, why);
		record_events(r, &ev, 1, "control_refused record");
	}
	return -1;
}

/* Accept what is pending, each peer judged first. */
static void
accept_all(void)
{
	int fd, i, n;

	for (n = 0; n < 64; n++) {
		fd = accept4(ctl.fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		if (fd == -1)
			return;
		if (authenticate(ctl.r, fd) == -1)
			continue;
		i = ctl_client_add(&ctl, fd);
		if (i < 0) {
			/* Served, but no room: one line, closed. */
			static const char busy[] = "{\"error\":\"too many "
			    "clients (16)\",\"ok\":false,\"v\":1}\n";
			if (send(fd, busy, sizeof(busy) - 1,
				MSG_NOSIGNAL) < 0)
				errno = 0;
			close(fd);
		}
	}
}

/* A record was added to the run's log: followers get it now, while the
 * run runs (from its end on, the linger sends the last pages, the end
 * record's with "end":true). */
static void
logged_control(struct source *s, struct run *r)
{
	if (ctl.r == r && ctl.fd != -1 && r->state == ST_RUNNING)
		ctl_push_all(&ctl);
}

/* ---- the source ---- */

static enum src_ret
handle_control(struct source *s, struct run *r)
{
	accept_all();
	return SRC_CONTINUE;
}

static enum src_ret
extra_control(struct source *s, struct run *r, uint32_t tag,
    uint32_t events)
{
	return ctl_client_ready(&ctl, tag, events);
}

/* After the end record: served until quiet (ctl_linger_ms). */
static int
linger_control(struct source *s, struct run *r)
{
	if (ctl.fd == -1 || !ctl.made || s->watch == NULL ||
	    r->state != ST_ENDED)
		return 0;
	return ctl_linger_ms(&ctl);
}

/* The end: every client closed, the socket removed. */
static void
close_control(struct source *s, struct run *r)
{
	ctl_client_close_all(&ctl);
	remove_socket();
	if (s->fd != -1)
		close(s->fd);
	s->fd = ctl.fd = -1;
	if (ctl.dirfd != -1)
		close(ctl.dirfd);
	ctl.dirfd = -1;
	ctl.lingering = 0;
}

const struct source_ops src_control = {
	.name = "control",
	.extra_max = CTL_CLIENTS,
	.open = open_control,
	.running = running_control,
	.handle = handle_control,
	.extra = extra_control,
	.logged = logged_control,
	.linger = linger_control,
	.close = close_control,
};
