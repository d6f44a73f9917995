/* SPDX-License-Identifier: ISC */
/* handoff: which privileged daemon took over a unix connection the
 * payload made, as the kernel reports it on the payload's own socket (a
 * duplicate the supervisor holds, taken with pidfd_getfd when the
 * payload's connect() was notified), never as the payload says.
 *
 * For a connected socket: the listener's credentials (SO_PEERCRED: the
 * process that called listen(), its uid and gid; SO_PEERPIDFD pins that
 * process while it is read), the address the listener bound
 * (getpeername), and the listener's executable (/proc/PID/exe).  The
 * peer is a daemon of the inventory (probe.h, probe_daemons) when that
 * process holds a listening socket bound to an inventory socket file
 * (dev and inode, sock_diag UNIX_DIAG_VFS in confexec's network
 * namespace, the descriptor found in /proc/PID/fd) under the same
 * address: however the payload reached the file (a hard link, a
 * symlink, /proc/self/root, a bind mount), the daemon is named by the
 * file it listens on, and a listener of the payload's own at a path
 * named like docker.sock is no daemon's.  A confexec that is not root
 * cannot read the descriptors of another uid's daemon: such a process
 * is taken at the name it bound, when it can be no process of the run
 * (its uid not the payload's, its pid namespace confexec's).  Nothing here blocks or
 * prints. */
#ifndef BORNE_HANDOFF_H
#define BORNE_HANDOFF_H

#include <limits.h>
#include <stddef.h>
#include <sys/types.h>

#define HANDOFF_INV_MAX 32	/* inventory listeners looked at */
#define HANDOFF_FD_SCAN 65536	/* a listener's descriptors looked at */

/* The inventory's listening sockets, read once per batch of checks. */
struct handoff_inv {
	uid_t payload_uid;	/* the uid it was read for */
	size_t n;
	struct {
		const char *name;	/* "docker", ... (probe.h) */
		char path[PATH_MAX];	/* the inventory path of its file */
		ino_t sock;		/* the listening socket's inode */
		char addr[108];		/* the name it bound (sun_path) */
		size_t addrlen;
	} l[HANDOFF_INV_MAX];
};

/* The peer of a connected unix socket. */
struct handoff_peer {
	const char *daemon;	/* the inventory's name, or NULL */
	const char *socket;	/* its inventory path (in inv), or NULL */
	char address[110];	/* getpeername's path ("" unnamed or
				 * abstract) */
	pid_t pid;		/* SO_PEERCRED: 0 when the kernel has none
				 * (a datagram socket) */
	uid_t uid;
	gid_t gid;
	char exe[PATH_MAX];	/* "" unknown */
	int type;		/* SO_TYPE */
};

/* Read the inventory (probe_daemons for uid/gid, then the listeners
 * bound to those files).  Returns 0, or -1 with errno (inv->n 0). */
int handoff_inventory(struct handoff_inv *inv, uid_t uid, gid_t gid);

/* The peer of sock (AF_UNIX) checked against inv.  Returns 1 connected
 * (p filled; p->daemon NULL when the peer is no daemon of inv, or its
 * process is gone), 0 not connected (yet), -1 with errno. */
int handoff_peer(int sock, const struct handoff_inv *inv,
    struct handoff_peer *p);

#endif
