/* SPDX-License-Identifier: ISC */
/* Unit tests of common/handoff: the peer of a connected unix socket and
 * whether it is a daemon of the inventory, against listeners made here
 * in a private mount namespace (a tmpfs on /run). */
#include <errno.h>
#include <limits.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "handoff.h"
#include "tap.h"

static int
listener(const char *path, int type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, path);
	if (s == -1 || bind(s, (void *)&sa, sizeof(sa)) == -1 ||
	    listen(s, 8) == -1)
		return -1;
	return s;
}

/* A socket of type connected to path (the listener's backlog takes it),
 * or -1. */
static int
client(const char *path, int type)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int s = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, path);
	if (s == -1 || connect(s, (void *)&sa, sizeof(sa)) == -1)
		return -1;
	return s;
}

int
main(void)
{
	struct handoff_inv inv;
	struct handoff_peer p;
	char self[PATH_MAX];
	ssize_t n;
	int l, l2, c, r, st, sv[2];
	pid_t pid;

	if (geteuid() != 0 || unshare(CLONE_NEWNS) == -1 ||
	    mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) == -1 ||
	    mount("tmpfs", "/run", "tmpfs", 0, "mode=0755") == -1) {
		skip("handoff", "needs root for a mount namespace");
		return done_testing();
	}
	unsetenv("XDG_RUNTIME_DIR");
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	self[n > 0 ? n : 0] = '\0';

	r = handoff_inventory(&inv, 0, 0);
	ok(r == 0 && inv.n == 0, "no daemon socket: an empty inventory (%zu)",
	    inv.n);
	l = listener("/run/docker.sock", SOCK_STREAM);
	ok(l >= 0, "a docker listener of our own");
	r = handoff_inventory(&inv, 0, 0);
	ok(r == 0 && inv.n == 1, "its listening socket is in the inventory "
	    "(%zu)", inv.n);

	c = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	r = handoff_peer(c, &inv, &p);
	is_int(r, 0, "an unconnected socket: 0");
	close(c);

	c = client("/run/docker.sock", SOCK_STREAM);
	r = handoff_peer(c, &inv, &p);
	is_int(r, 1, "connected: 1");
	is_str(p.daemon, "docker", "the daemon is named by its file");
	is_str(p.socket, "/run/docker.sock", "its inventory path");
	is_str(p.address, "/run/docker.sock", "the address it bound");
	is_int(p.pid, getpid(), "the listener's pid");
	is_int(p.uid, 0, "its uid");
	is_str(p.exe, self, "its executable");
	is_int(p.type, SOCK_STREAM, "a stream socket");
	close(c);

	r = link("/run/docker.sock", "/run/other.sock");
	ok(r == 0, "a hard link");
	c = client("/run/other.sock", SOCK_STREAM);
	r = handoff_peer(c, &inv, &p);
	ok(r == 1 && p.daemon != NULL && strcmp(p.daemon, "docker") == 0,
	    "through a hard link: still docker");
	close(c);

	/* Another listener, not on an inventory file, named like one. */
	mkdir("/run/own", 0755);
	l2 = listener("/run/own/docker.sock", SOCK_STREAM);
	c = client("/run/own/docker.sock", SOCK_STREAM);
	r = handoff_peer(c, &inv, &p);
	ok(l2 >= 0 && r == 1 && p.daemon == NULL && p.pid == getpid(),
	    "a listener elsewhere named docker.sock: "
	    "a peer, no daemon");
	close(c);
	close(l2);

	r = socketpair(AF_UNIX, SOCK_STREAM, 0, sv);
	ok(r == 0, "a socketpair");
	r = handoff_peer(sv[0], &inv, &p);
	ok(r == 1 && p.daemon == NULL,
	    "a socketpair's peer: no daemon (no listener)");
	close(sv[0]);
	close(sv[1]);

	mkdir("/run/containerd", 0755);
	l2 = listener("/run/containerd/containerd.sock", SOCK_SEQPACKET);
	r = handoff_inventory(&inv, 0, 0);
	ok(r == 0 && inv.n == 2, "two listeners in the inventory (%zu)",
	    inv.n);
	c = client("/run/containerd/containerd.sock", SOCK_SEQPACKET);
	r = handoff_peer(c, &inv, &p);
	ok(l2 >= 0 && r == 1 && p.daemon != NULL &&
	    strcmp(p.daemon, "containerd") == 0 && p.type == SOCK_SEQPACKET,
	    "seqpacket: containerd");
	close(c);

	/* Read by a process that is not root (uid 65534): our descriptors
	 * are not its to read; the name the listener bound decides, unless
	 * the listener has the payload's uid. */
	chmod("/run/docker.sock", 0666);
	fflush(stdout);
	if ((pid = fork()) == 0) {
		int got = 0;

		if (setgid(65534) == -1 || setuid(65534) == -1)
			_exit(100);
		c = client("/run/docker.sock", SOCK_STREAM);
		if (handoff_inventory(&inv, 65534, 65534) == 0 &&
		    handoff_peer(c, &inv, &p) == 1 && p.daemon != NULL &&
		    strcmp(p.daemon, "docker") == 0 && p.pid == getppid())
			got |= 1;
		if (handoff_inventory(&inv, 0, 0) == 0 &&
		    handoff_peer(c, &inv, &p) == 1 && p.daemon == NULL)
			got |= 2;
		_exit(got);
	}
	r = pid == -1 || waitpid(pid, &st, 0) == -1 || !WIFEXITED(st) ? -1 :
	    WEXITSTATUS(st);
	ok(r != -1 && r != 100, "a reader of uid 65534 ran (%d)", r);
	ok(r != -1 && (r & 1), "not root: root's listener named by its name");
	ok(r != -1 && (r & 2), "not root: a listener of the payload's uid "
	    "is not taken at its name");

	/* The listener closed: its file stays, nobody listens. */
	c = client("/run/docker.sock", SOCK_STREAM);
	close(l);
	r = handoff_inventory(&inv, 0, 0);
	ok(r == 0 && inv.n == 1, "a closed listener leaves the inventory "
	    "(%zu)", inv.n);
	r = handoff_peer(c, &inv, &p);
	ok(r == 1 && p.daemon == NULL,
	    "its connection made before: no daemon named any more");
	close(c);
	return done_testing();
}
