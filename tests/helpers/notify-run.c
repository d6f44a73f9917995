/* SPDX-License-Identifier: ISC */
/* notify-run: the seccomp side of confexec alone, for tests of
 * common/notify.c without Landlock: a child loads the payload's filter
 * (sysfilter variant V) with a notification listener, passes the
 * listener back over a socketpair and execs PROG; this process answers
 * with notify_handle until the child exits, then prints
 * "notify: allowed A denied D failed F" on stderr and exits with the
 * child's status (128+signal when killed).
 *   notify-run [-v V] [-w RWPATH]... [-r RULEPATH]... [-b PORT]...
 *              [-u UID -g GID] -- PROG [ARG...]
 * -w: a --rw rule (also a rule for watches); -r: any other rule;
 * -u/-g: the credentials the child switches to (default: unchanged). */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "notify.h"
#include "plan.h"
#include "sysfilter.h"
#include "uapi.h"

#define MAXR 16

static int
send_fd(int s, int fd)
{
	char cb[CMSG_SPACE(sizeof(int))], b = 'L';
	struct iovec iov = {&b, 1};
	struct msghdr m;
	struct cmsghdr *c;

	memset(&m, 0, sizeof(m));
	memset(cb, 0, sizeof(cb));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cb;
	m.msg_controllen = sizeof(cb);
	c = CMSG_FIRSTHDR(&m);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(int));
	return sendmsg(s, &m, 0) == 1 ? 0 : -1;
}

static int
recv_fd(int s)
{
	char cb[CMSG_SPACE(sizeof(int))], b;
	struct iovec iov = {&b, 1};
	struct msghdr m;
	struct cmsghdr *c;
	int fd = -1;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = cb;
	m.msg_controllen = sizeof(cb);
	if (recvmsg(s, &m, MSG_CMSG_CLOEXEC) != 1)
		return -1;
	c = CMSG_FIRSTHDR(&m);
	if (c != NULL && c->cmsg_type == SCM_RIGHTS)
		memcpy(&fd, CMSG_DATA(c), sizeof(int));
	return fd;
}

int
main(int argc, char *argv[])
{
	static struct plan_fsrule rules[MAXR];
	static uint16_t ports[MAXR];
	struct plan p;
	struct notify_policy np;
	struct notify_stats st = {0, 0, 0, 0};
	struct sock_fprog prog;
	struct pollfd pf[2];
	char err[256];
	unsigned variant = 0;
	long uid = -1, gid = -1;
	int c, sv[2], lfd, pidfd, status;
	pid_t pid;

	memset(&p, 0, sizeof(p));
	p.fs = rules;
	p.bind_tcp = ports;
	while ((c = getopt(argc, argv, "+v:w:r:b:u:g:")) != -1) {
		switch (c) {
		case 'v':
			variant = (unsigned)atoi(optarg);
			break;
		case 'w':
		case 'r':
			if (p.nfs == MAXR)
				return 2;
			rules[p.nfs].intent = c == 'w' ? PLAN_RW : PLAN_RO;
			rules[p.nfs++].path = optarg;
			break;
		case 'b':
			if (p.nbind == MAXR)
				return 2;
			ports[p.nbind++] = (uint16_t)atoi(optarg);
			break;
		case 'u':
			uid = atol(optarg);
			break;
		case 'g':
			gid = atol(optarg);
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: notify-run [-v V] [-w P] [-r P] "
				"[-b PORT] [-u U -g G] -- PROG [ARG...]\n");
		return 2;
	}
	if (sf_build(variant, &prog, err, sizeof(err)) == -1 ||
	    notify_policy_init(&np, &p, uid >= 0 ? (uid_t)uid : geteuid(),
	    gid >= 0 ? (gid_t)gid : getegid(), uid < 0, err,
	    sizeof(err)) == -1) {
		fprintf(stderr, "notify-run: %s\n", err);
		return 125;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) == -1)
		return 125;
	pid = fork();
	if (pid == -1)
		return 125;
	if (pid == 0) {
		close(sv[0]);
		if ((gid >= 0 && setresgid((gid_t)gid, (gid_t)gid,
		    (gid_t)gid) == -1) || (uid >= 0 && setresuid((uid_t)uid,
		    (uid_t)uid, (uid_t)uid) == -1))
			_exit(125);
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
			_exit(125);
		if ((lfd = sf_load_listener(&prog)) == -1 ||
		    send_fd(sv[1], lfd) == -1)
			_exit(125);
		close(lfd);
		execvp(argv[optind], argv + optind);
		_exit(127);
	}
	close(sv[1]);
	lfd = recv_fd(sv[0]);
	pidfd = (int)syscall(__NR_pidfd_open, pid, 0);
	if (lfd == -1 || pidfd == -1) {
		fprintf(stderr, "notify-run: no listener from the child\n");
		waitpid(pid, &status, 0);
		return 125;
	}
	pf[0].fd = pidfd;
	pf[0].events = POLLIN;
	pf[1].fd = lfd;
	pf[1].events = POLLIN;
	for (;;) {
		if (poll(pf, 2, -1) == -1 && errno != EINTR)
			break;
		if (pf[1].revents & POLLIN) {
			if (notify_handle(lfd, &np, &st) == -1) {
				perror("notify-run: notify_handle");
				break;
			}
			continue;
		}
		if (pf[0].revents & POLLIN)
			break;
		if (pf[1].revents & (POLLHUP | POLLERR))
			pf[1].fd = -1;
	}
	waitpid(pid, &status, 0);
	fprintf(stderr, "notify: allowed %llu denied %llu failed %llu\n",
	    (unsigned long long)st.allowed, (unsigned long long)st.denied,
	    (unsigned long long)st.failed);
	notify_policy_free(&np);
	sf_free(&prog);
	return WIFEXITED(status) ? WEXITSTATUS(status) :
	    128 + WTERMSIG(status);
}
