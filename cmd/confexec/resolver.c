/* SPDX-License-Identifier: ISC */
/* resolver: names resolved by a helper process for the egress broker
 * (resolver.h).  getaddrinfo(3) blocks, the loop may not: the first name
 * of a run forks a resolver, which answers one request at a time over a
 * SOCK_SEQPACKET pair.  It dies with confexec (PR_SET_PDEATHSIG), and
 * as root it runs as nobody (65534) with no_new_privs: it only reads
 * the resolver configuration and talks DNS.  The payload never resolves
 * anything (it has no UDP).
 *
 * Nothing here asks for confexec's pid: not root, confexec lives in the
 * run's pid namespace but was born outside it, so its children see
 * getppid() == 0.  Had confexec ended before PR_SET_PDEATHSIG took, its
 * end of the pair is closed (only confexec holds it) and the first recv
 * reads the end: the resolver exits. */
#include <errno.h>
#include <grp.h>
#include <netdb.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loop.h"
#include "plan.h"
#include "resolver.h"

struct res_req {
	uint32_t slot, gen;
	char name[PLAN_MAX_HOST_LEN + 1];
};

struct res_addr {
	uint16_t family;
	uint8_t addr[16];
};

struct res_rep {
	uint32_t slot, gen;
	int32_t gai;
	uint32_t n;
	struct res_addr a[RESOLVER_NADDR];
};

#define NOBODY 65534

_Noreturn static void
serve(int fd, int drop)
{
	struct addrinfo hints, *res, *ai;
	struct res_req q;
	struct res_rep a;
	ssize_t n;

	if (drop && (setgroups(0, NULL) == -1 || setgid(NOBODY) == -1 ||
		setuid(NOBODY) == -1))
		_exit(1);
	/* After the uid change, which clears the parent-death signal
	 * (prctl(2)); not dumpable: no process of the same uid (the
	 * payload's, not root) may trace it or read its memory. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1 ||
	    prctl(PR_SET_DUMPABLE, 0) == -1 ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		_exit(1);
	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	for (;;) {
		n = recv(fd, &q, sizeof(q), 0);
		if (n == -1 && errno == EINTR)
			continue;
		if (n != (ssize_t)sizeof(q))
			_exit(0);
		q.name[sizeof(q.name) - 1] = '\0';
		memset(&a, 0, sizeof(a));
		a.slot = q.slot;
		a.gen = q.gen;
		a.gai = getaddrinfo(q.name, NULL, &hints, &res);
		for (ai = a.gai == 0 ? res : NULL;
		     ai != NULL && a.n < RESOLVER_NADDR; ai = ai->ai_next) {
			if (ai->ai_family == AF_INET) {
				a.a[a.n].family = AF_INET;
				memcpy(a.a[a.n++].addr, &((struct sockaddr_in *)
				    ai->ai_addr)->sin_addr, 4);
			} else if (ai->ai_family == AF_INET6) {
				a.a[a.n].family = AF_INET6;
				memcpy(a.a[a.n++].addr, &((struct sockaddr_in6 *)
				    ai->ai_addr)->sin6_addr, 16);
			}
		}
		if (a.gai == 0)
			freeaddrinfo(res);
		if (send(fd, &a, sizeof(a), MSG_NOSIGNAL) != (ssize_t)sizeof(a))
			_exit(0);
	}
}

static int
start(struct resolver *rs)
{
	int sv[2];
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return -1;
	pid = fork();
	if (pid == -1) {
		close(sv[0]);
		close(sv[1]);
		return -1;
	}
	if (pid == 0) {
		/* Only its end of the pair: 3. */
		if (dup2(sv[1], 3) == -1 ||
		    syscall(SYS_close_range, 4, ~0U, 0) == -1 ||
		    sigprocmask(SIG_SETMASK, rs->mask, NULL) == -1)
			_exit(1);
		serve(3, rs->drop);
	}
	close(sv[1]);
	if (loop_watch(rs->s, sv[0], rs->tag, EPOLLIN) == -1) {
		close(sv[0]);
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
		return -1;
	}
	rs->fd = sv[0];
	rs->pid = pid;
	return 0;
}

int
resolver_ask(struct resolver *rs, uint32_t slot, uint32_t gen,
    const char *name)
{
	struct res_req q;
	size_t len = strlen(name);

	if (len >= sizeof(q.name) || (rs->fd == -1 && start(rs) == -1))
		return -1;
	memset(&q, 0, sizeof(q));
	q.slot = slot;
	q.gen = gen;
	memcpy(q.name, name, len + 1);
	if (send(rs->fd, &q, sizeof(q), MSG_NOSIGNAL | MSG_DONTWAIT) !=
	    (ssize_t)sizeof(q))
		return -1;
	return 0;
}

int
resolver_read(struct resolver *rs)
{
	struct sockaddr_storage ss[RESOLVER_NADDR];
	struct res_rep a;
	ssize_t n;
	uint32_t k;

	for (;;) {
		n = recv(rs->fd, &a, sizeof(a), MSG_DONTWAIT);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1 && errno == EAGAIN)
			return 0;
		if (n != (ssize_t)sizeof(a) || a.n > RESOLVER_NADDR) {
			resolver_stop(rs);
			return -1;
		}
		memset(ss, 0, sizeof(ss));
		for (k = 0; k < a.n; k++) {
			if (a.a[k].family == AF_INET) {
				struct sockaddr_in *s4 = (void *)&ss[k];

				s4->sin_family = AF_INET;
				memcpy(&s4->sin_addr, a.a[k].addr, 4);
			} else {
				struct sockaddr_in6 *s6 = (void *)&ss[k];

				s6->sin6_family = AF_INET6;
				memcpy(&s6->sin6_addr, a.a[k].addr, 16);
			}
		}
		rs->answer(rs->ctx, a.slot, a.gen, a.gai, ss, a.n);
	}
}

void
resolver_stop(struct resolver *rs)
{
	if (rs->fd != -1) {
		loop_unwatch(rs->fd);
		close(rs->fd);
		rs->fd = -1;
	}
	if (rs->pid > 0) {
		kill(rs->pid, SIGKILL);
		while (waitpid(rs->pid, NULL, 0) == -1 && errno == EINTR)
			;
		rs->pid = 0;
	}
}
