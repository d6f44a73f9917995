/* SPDX-License-Identifier: ISC */
/* notify: the supervisor's answer to the payload's seccomp user
 * notifications (the calls sysfilter.h lists as notified).  The
 * supervisor performs each call itself, on the inode or socket it
 * checked, and answers with the result; it never lets the payload's own
 * call continue (SECCOMP_USER_NOTIF_FLAG_CONTINUE), which another thread
 * could race, for a call it judges.  Two exceptions judge nothing:
 * with an observer (observe.h) the path calls are only named for a
 * report, and with a handoff hook connect's socket is only taken for a
 * record (below); then they continue, enforced by the kernel alone.
 *
 * For each notification: a pidfd of the calling thread (its pid comes
 * in the notification), then SECCOMP_IOCTL_NOTIF_ID_VALID, so that the
 * pidfd, /proc/PID and the memory read are the caller's; path strings
 * and structs are copied from its memory once (process_vm_readv); the
 * id is checked again before acting.
 *
 * Metadata (chmod, chown, xattr and times families, inode flags) is
 * not notified: the run's mount view refuses it outside the --rw rules
 * (EROFS) and, inside them, the kernel leaves a capability-less caller
 * its own files only (sysfilter.c); the setuid and setgid bits are
 * refused by the filter itself.
 *
 * inotify_add_watch: the watched inode must lie beneath any rule of the
 * plan and be readable by the caller's credentials (mode bits).
 *
 * bind: an AF_UNIX autobind or abstract name is refused
 * (EPERM); a pathname is bound by the supervisor on the fetched socket,
 * in the parent directory it resolved beneath a --rw rule, under the
 * caller's fsuid/fsgid (the name is then relative: getsockname shows the
 * last component).  An inet bind is performed when the port is one of
 * the plan's bind-tcp ports and not below ip_unprivileged_port_start
 * (the supervisor has CAP_NET_BIND_SERVICE and no Landlock domain), or
 * port 0 (an ephemeral port) when the plan has bind-tcp 0; EACCES
 * otherwise.
 * listen: an inet socket still on port 0 (listen would
 * autobind an ephemeral port on every address) is refused with EACCES;
 * otherwise listen() is performed on the fetched socket.
 *
 * connect (only with a handoff hook, in runs granting AF_UNIX): judged
 * by nothing here.  The caller's socket is fetched (pidfd_getfd, between
 * two SECCOMP_IOCTL_NOTIF_ID_VALID) and the duplicate given to the hook,
 * which keeps it to read the peer once connected (handoff.h); then the
 * call continues as the payload made it (SECCOMP_USER_NOTIF_FLAG_CONTINUE):
 * the supervisor never connects for it, the kernel performs and checks
 * the payload's own call.  A descriptor that is no socket or none, and
 * one that cannot be fetched (the supervisor out of descriptors), is
 * answered with the errno and not continued: no call goes on without
 * the hook holding the socket its descriptor named.
 *
 * The supervisor must be single-threaded while notify_handle runs (a
 * unix bind changes the cwd for an instant). */
#ifndef BORNE_NOTIFY_H
#define BORNE_NOTIFY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct plan;
struct obs_seen;

/* A rule kept by its inode's identity (anyfd[i] == NT_BY_ID): opened
 * again by its path when a call is judged, used only while it is still
 * that inode. */
struct notify_id {
	dev_t dev;
	ino_t ino;
};
#define NT_BY_ID (-2)

struct notify_policy {
	char **rw;		/* --rw and --rwx rule paths (and the private
				 * tmp), as the kernel names them */
	int *rwfd;		/* each opened O_PATH (-1: missing) */
	size_t nrw;
	char **any;		/* every rule path: ro, rw and rox */
	int *anyfd;		/* rw ones opened O_PATH, read-only ones
				 * NT_BY_ID (-1: missing) */
	struct notify_id *anyid;	/* the read-only ones' */
	size_t nany;
	const uint16_t *bind_tcp; /* sorted, as in the plan */
	size_t nbind;
	unsigned port_floor;	/* net.ipv4.ip_unprivileged_port_start */
	uid_t uid;		/* the payload's credentials */
	gid_t gid;
	gid_t *groups;		/* its supplementary groups */
	size_t ngroups;
	/* With an observer (confexec's denials, observe.h): the
	 * observed calls are named, given to observe(observe_arg, seen)
	 * when something was seen, and continue as the payload made them
	 * (SECCOMP_USER_NOTIF_FLAG_CONTINUE): the supervisor never acts
	 * for them.  NULL: the filter notifies none of them. */
	void (*observe)(void *arg, const struct obs_seen *seen);
	void *observe_arg;
	/* With a handoff hook: each connect gives handoff(handoff_arg,
	 * pid, fd, domain) the caller's thread id (the notification's), a
	 * duplicate of its socket, which the hook owns (and closes), and
	 * the socket's domain (SO_DOMAIN), before the call continues.
	 * NULL: the filter notifies no connect. */
	void (*handoff)(void *arg, pid_t pid, int fd, int domain);
	void *handoff_arg;
};

/* What the supervisor did, for the run's end record. */
struct notify_stats {
	uint64_t allowed;	/* performed (whatever the kernel answered) */
	uint64_t denied;	/* refused by the policy (EACCES, EPERM) */
	uint64_t failed;	/* could not resolve or act (the caller gets
				 * the errno, e.g. ENOENT, EFAULT) */
	uint64_t observed;	/* seen and continued (an observer, a
				 * connect) */
};

/* The policy for plan p run as uid/gid; groups: the caller's own when
 * keep_groups (no uid switch), none otherwise.  Returns 0, or -1 with
 * errno and err set. */
int notify_policy_init(struct notify_policy *np, const struct plan *p,
    uid_t uid, gid_t gid, int keep_groups, char *err, size_t errlen);
void notify_policy_free(struct notify_policy *np);

/* One more rw directory besides the plan's (the run's private tmp, open
 * at dirfd, at path): metadata changes beneath it are answered as beneath
 * a rw rule.  Returns 0, or -1 (ENOMEM). */
int notify_policy_add_rw(struct notify_policy *np, int dirfd,
    const char *path);

/* Receive and answer one notification from listenfd (call when it polls
 * readable; blocks otherwise).  Returns 0 (answered, or the caller is
 * gone), or -1 with errno when the listener itself fails. */
int notify_handle(int listenfd, const struct notify_policy *np,
    struct notify_stats *st);

#endif
