/* SPDX-License-Identifier: ISC */
/* confexec: the two processes between clone3 and execveat.
 *
 * init is pid 1 of the run's pid namespace (and, for a caller that is
 * not root, of a user namespace mapping only the caller's uid and gid).
 * confexec clones it with CLONE_VM on its own stack (no page-table
 * copy), without CLONE_VFORK: confexec waits on the report channel
 * until init says the payload executed, writing nothing init or the
 * payload reads, and then goes on while init, from then on, touches
 * only its own stack (raw system calls: not even errno).  init arms its
 * parent-death signal, so that the kernel kills the whole namespace when
 * confexec dies however it dies, starts the payload, keeps only the
 * report channel, and relays the payload's exit to confexec.  As pid 1 it ignores every signal sent
 * from inside the namespace, and it is outside the payload's Landlock
 * domain (no signal, no ptrace from the payload).
 *
 * The payload is cloned by init with CLONE_VM|CLONE_VFORK: it runs in
 * the same memory on its own stack until execveat, init suspended.
 *
 * INVARIANT.  Neither process allocates (no malloc, no libcap call that
 * allocates: caps_clear() applies a cap_t the parent built), does stdio
 * or locale work or snprintf: only system calls on data the parent
 * prepared in struct run.  A failure is one fixed-size struct report on
 * the report channel, then _exit(125).  Keep it that way: a new step
 * gets its data prepared in run() and a stage in confexec.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "caps.h"
#include "confexec.h"
#include "err.h"
#include "landlock.h"
#include "uapi.h"

const char *const stage_name[S_NSTAGES] = {
	"init: parent-death signal", "init: user namespace",
	"init: cgroup membership", "init: starting the payload",
	"init: closing descriptors",
	"setsid", "signals", "securebits", "bounding set", "uid/gid switch",
	"stdin", "closing descriptors", "verifying descriptors", "rlimits",
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

/* One message; 0 or -1 (confexec is gone, or the channel failed). */
static int
report(const struct run *r, const struct report *rep)
{
	return send(r->sock[1], rep, sizeof(*rep), MSG_NOSIGNAL) ==
	    (ssize_t)sizeof(*rep) ? 0 : -1;
}

/* A stage failed: one report, then the end of this process.  In the
 * payload, init learns it from payload_failed (its own memory). */
_Noreturn static void
child_fail(struct run *r, enum stage s, int e, int fd)
{
	struct report rep = {MSG_FAIL, s, e, fd, 0, 0};

	(void)report(r, &rep);
	if (s >= S_SETSID)
		r->payload_failed = 1;
	_exit(EXIT_FAIL);
}

/* The seccomp listener to the parent (SCM_RIGHTS), then closed here: the
 * payload never holds it. */
static int
send_listener(const struct run *r, int lfd)
{
	struct report rep = {MSG_LISTENER, 0, 0, -1, 0, 0};
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
 * answers some calls, handed to the parent before execveat.  The
 * supervisor reads notifications only once init reports the payload
 * executed: between this load and execveat the payload must make no
 * call the filter sends to the listener (sendmsg and execveat here). */
static void
load_filter(struct run *r)
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
set_rlimits(struct run *r)
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
close_fds(struct run *r)
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

/* write(2) of a string prepared by the parent to a /proc file. */
static int
put(const char *path, const char *val)
{
	size_t n = strlen(val);
	ssize_t w;
	int fd;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd == -1)
		return -1;
	w = write(fd, val, n);
	close(fd);
	if (w != (ssize_t)n) {
		if (w >= 0)
			errno = EIO;
		return -1;
	}
	return 0;
}

/* The payload, in init's memory until execveat.  The order of SPEC.md,
 * "confexec": session, credentials, stdin, descriptors, rlimits,
 * capabilities, no_new_privs, Landlock, seccomp last, execveat. */
_Noreturn static void
payload(void *arg)
{
	struct run *r = arg;
	const struct plan *p = &r->p;
	int s;

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

/* init, before the payload: die with confexec, map the ids, check the
 * cgroup. */
static void
init_setup(struct run *r)
{
	struct pollfd pf;

	/* Only confexec holds the other end: when it is gone the channel
	 * hangs up.  Checked after arming the signal, so a confexec that
	 * died before is seen too (its descriptors close before its
	 * children are reparented). */
	close(r->sock[0]);
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) == -1)
		child_fail(r, S_PDEATHSIG, errno, -1);
	pf.fd = r->sock[1];
	pf.events = 0;
	pf.revents = 0;
	if (poll(&pf, 1, 0) == -1)
		child_fail(r, S_PDEATHSIG, errno, -1);
	if (pf.revents & (POLLHUP | POLLERR))
		child_fail(r, S_PDEATHSIG, ESRCH, -1);
	if (r->userns && (put("/proc/self/setgroups", "deny") == -1 ||
		put("/proc/self/uid_map", r->uid_map) == -1 ||
		put("/proc/self/gid_map", r->gid_map) == -1))
		child_fail(r, S_USERNS, errno, -1);
	if (r->have_cg && cg_is_member(&r->cg) == -1)
		child_fail(r, S_CGROUP, errno, -1);
}

/* A system call that leaves errno alone: once the payload runs, init
 * shares confexec's memory (thread-local errno included) while confexec
 * goes on, so init writes nothing outside its own stack. */
static long
raw(long n, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8),
			 "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

/* After the payload executed: one message, then reap everything the
 * namespace reparents to us; when the payload ends, say how, and exit:
 * the kernel then kills what is left.  Only raw() calls on the stack. */
_Noreturn static void
init_relay(int sock, pid_t pl)
{
	struct report rep = {MSG_READY, 0, 0, -1, 0, 0};
	siginfo_t si;

	if (raw(SYS_sendto, sock, (long)&rep, sizeof(rep), MSG_NOSIGNAL, 0,
		0) != (long)sizeof(rep))
		raw(SYS_exit_group, EXIT_FAIL, 0, 0, 0, 0, 0);
	for (;;) {
		memset(&si, 0, sizeof(si));
		if (raw(SYS_waitid, P_ALL, 0, (long)&si, WEXITED, 0, 0) < 0)
			continue;	/* EINTR; ECHILD cannot be: pl lives */
		if (si.si_pid == pl)
			break;
	}
	rep.kind = MSG_STATUS;
	rep.code = si.si_code;
	rep.status = si.si_status;
	raw(SYS_exit_group, raw(SYS_sendto, sock, (long)&rep, sizeof(rep),
	    MSG_NOSIGNAL, 0, 0) == (long)sizeof(rep) ? 0 : EXIT_FAIL, 0, 0, 0,
	    0, 0);
	for (;;)
		;
}

/* pid 1 of the run's namespace. */
_Noreturn void
init(void *arg)
{
	struct run *r = arg;
	int sock = r->sock[1];
	pid_t pl;

	init_setup(r);
	pl = (pid_t)clone3_run(&r->payload_ca, payload, r);
	if (pl == -1)
		child_fail(r, S_SPAWN, errno, -1);
	/* CLONE_VFORK: the payload has executed or failed by now. */
	if (*(volatile int *)&r->payload_failed)
		_exit(EXIT_FAIL);
	if (fd_close_except(&r->init_keep) == -1)
		child_fail(r, S_INITFDS, errno, -1);
	init_relay(sock, pl);
}
