/* SPDX-License-Identifier: ISC */
/* confexec: the child, between clone3 and execveat.
 *
 * INVARIANT.  Everything here runs in a child that shares the parent's
 * memory (CLONE_VM|CLONE_VFORK) until execveat.  It allocates nothing (no
 * malloc, no libcap call that allocates: caps_clear() applies a cap_t the
 * parent built), does no stdio or locale work and no snprintf, and only
 * makes system calls on data the parent prepared in struct run.  A
 * failure is reported as a fixed-size struct report on the report
 * channel, then _exit.  Keep it that way: a new step gets its data
 * prepared in run() and a stage in confexec.h. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "caps.h"
#include "confexec.h"
#include "err.h"
#include "landlock.h"
#include "uapi.h"

const char *const stage_name[S_NSTAGES] = {
	"cgroup membership", "setsid", "signals", "securebits",
	"bounding set", "uid/gid switch", "parent-death signal", "stdin",
	"closing descriptors", "verifying descriptors", "rlimits",
	"dropping capabilities", "no_new_privs", "landlock", "seccomp",
	"seccomp listener", "execveat",
};

/* clone3 with the child running fn(arg) on its own stack and exiting
 * from there (it never returns): the register dance a libc's clone()
 * does, so that CLONE_VM|CLONE_VFORK works without sharing the parent's
 * stack frames.  Returns the child's pid (or -1 with errno) in the
 * parent, which CLONE_VFORK resumes only once the child has called
 * execve or exited. */
long
clone3_run(void *ca, void (*fn)(void *), void *arg)
{
	register void (*r12)(void *) __asm__("r12") = fn;
	register void *r13 __asm__("r13") = arg;
	long ret;

	__asm__ volatile("syscall\n\t"
			 "test %%rax, %%rax\n\t"
			 "jnz 1f\n\t"
			 "xor %%ebp, %%ebp\n\t"
			 "mov %%r13, %%rdi\n\t"
			 "call *%%r12\n\t"
			 "ud2\n"
			 "1:\n\t"
			 : "=a"(ret)
			 : "0"((long)__NR_clone3), "D"(ca),
			 "S"(sizeof(struct borne_clone_args)), "r"(r12),
			 "r"(r13)
			 : "rcx", "r11", "memory");
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

_Noreturn static void
child_fail(const struct run *r, enum stage s, int e, int fd)
{
	struct report rep = {MSG_FAIL, s, e, fd};

	(void)!send(r->sock[1], &rep, sizeof(rep), MSG_NOSIGNAL);
	_exit(EXIT_FAIL);
}

/* The seccomp listener to the parent (SCM_RIGHTS), then closed here: the
 * payload never holds it. */
static int
send_listener(const struct run *r, int lfd)
{
	struct report rep = {MSG_LISTENER, 0, 0, -1};
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} u;
	struct iovec iov = {&rep, sizeof(rep)};
	struct msghdr mh;
	struct cmsghdr *c;
	ssize_t n;

	memset(&mh, 0, sizeof(mh));
	memset(&u, 0, sizeof(u));
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = u.buf;
	mh.msg_controllen = sizeof(u.buf);
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &lfd, sizeof(int));
	n = sendmsg(r->sock[1], &mh, MSG_NOSIGNAL);
	close(lfd);
	if (n != (ssize_t)sizeof(rep)) {
		if (n >= 0)
			errno = EPROTO;
		return -1;
	}
	return 0;
}

/* Seccomp last: with a notification listener when the supervisor
 * answers some calls, handed to the parent before execveat. */
static void
load_filter(const struct run *r)
{
	int lfd;

	if (!r->want_notify) {
		if (sf_load(&r->filter) == -1)
			child_fail(r, S_SECCOMP, errno, -1);
		return;
	}
	lfd = sf_load_listener(&r->filter);
	if (lfd == -1)
		child_fail(r, S_SECCOMP, errno, -1);
	if (send_listener(r, lfd) == -1)
		child_fail(r, S_LISTENER, errno, -1);
}

static void
set_rlimits(const struct run *r)
{
	const struct plan *p = &r->p;
	struct rlimit rl;
	size_t i;

	for (i = 0; i < p->nrlim; i++) {
		rl.rlim_cur = p->rlim[i].soft == PLAN_RLIM_INF ?
		    RLIM_INFINITY : (rlim_t)p->rlim[i].soft;
		rl.rlim_max = p->rlim[i].hard == PLAN_RLIM_INF ?
		    RLIM_INFINITY : (rlim_t)p->rlim[i].hard;
		if (setrlimit(p->rlim[i].resource, &rl) == -1)
			child_fail(r, S_RLIMIT, errno, -1);
	}
}

static void
close_fds(const struct run *r)
{
	struct fd_leak leak;

	if (dup2(r->stdinfd, 0) == -1)
		child_fail(r, S_STDIN, errno, -1);
	if (fd_close_except(&r->keep) == -1)
		child_fail(r, S_FDCLOSE, errno, -1);
	switch (fd_verify(&r->keep, &leak)) {
	case 0:
		break;
	case 1:
		child_fail(r, S_FDVERIFY, EBADF, leak.fd);
	default:
		child_fail(r, S_FDVERIFY, errno, -1);
	}
}

/* The order of SPEC.md, "confexec": membership, session, credentials,
 * stdin, descriptors, rlimits, capabilities, no_new_privs, Landlock,
 * seccomp last, execveat. */
_Noreturn void
child(void *arg)
{
	const struct run *r = arg;
	const struct plan *p = &r->p;
	int s;

	if (cg_is_member(&r->cg) == -1)
		child_fail(r, S_CGROUP, errno, -1);
	/* A new session: no controlling terminal to inject input into
	 * (TIOCSTI) or to be signalled through. */
	if (setsid() == -1)
		child_fail(r, S_SETSID, errno, -1);
	for (s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);	/* EINVAL for KILL/STOP: harmless */
	if (sigprocmask(SIG_SETMASK, &r->oldmask, NULL) == -1)
		child_fail(r, S_SIGNALS, errno, -1);
	if (r->root) {
		if (caps_lock_securebits() == -1)
			child_fail(r, S_SECUREBITS, errno, -1);
		if (caps_drop_bounding() == -1)
			child_fail(r, S_BOUNDING, errno, -1);
	}
	if (creds_switch(p->has_uid, p->uid, p->has_gid, p->gid) == -1)
		child_fail(r, S_CREDS, errno, -1);
	/* Cleared by the credential change; re-armed after it. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		child_fail(r, S_PDEATHSIG, errno, -1);
	if (getppid() != r->parent)
		child_fail(r, S_PDEATHSIG, ESRCH, -1);
	close_fds(r);
	set_rlimits(r);
	if (caps_clear(r->caps_empty) == -1 ||
	    caps_verify_empty(r->root) == -1)
		child_fail(r, S_CAPS, errno, -1);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		child_fail(r, S_NNP, errno, -1);
	if (ll_enforce(r->rulesetfd, r->abi) == -1)
		child_fail(r, S_LANDLOCK, errno, -1);
	load_filter(r);
	syscall(SYS_execveat, r->imgfd, "", p->argv, r->envp, AT_EMPTY_PATH);
	child_fail(r, S_EXEC, errno, -1);
}
