/* SPDX-License-Identifier: ISC */
/* confexec: the two processes between clone3 and execveat.
 *
 * init is pid 1 of the run's pid namespace.  confexec clones it with
 * CLONE_VM on its own stack; it arms PR_SET_PDEATHSIG(SIGKILL), checks
 * that its parent is still confexec (a confexec that died before the
 * prctl has already reparented it), makes the run's IPC namespace (while
 * confexec goes on; the payload waits for it and joins it), closes every
 * descriptor, ignores
 * SIGCHLD (orphans of the run are reaped by the kernel) and pauses.  It
 * never exits on its own: confexec kills it to end the run, and the
 * kernel kills it, and with it the whole namespace, when confexec dies
 * however it dies.  Since confexec goes on meanwhile, init makes only
 * raw system calls (no errno: it shares confexec's thread-local
 * storage) and writes nothing but its stage on failure.  As pid 1 it
 * ignores every signal from inside the namespace, and it is outside
 * the payload's Landlock domain.
 *
 * The payload is cloned by confexec into init's namespace (setns on
 * init's pidfd) with CLONE_VM|CLONE_VFORK: it runs in confexec's memory
 * on its own stack until execveat, confexec suspended; a failure is
 * written to r->rep, which confexec reads when it resumes.  It is
 * confexec's own child: its exit status needs no relay.
 *
 * INVARIANT.  Neither process allocates (no malloc, no libcap call that
 * allocates: caps_clear() applies a cap_t the parent built), does stdio
 * or locale work or snprintf: only system calls on data the parent
 * prepared in struct run.  Keep it that way: a new step gets its data
 * prepared in run() and a stage in run.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/futex.h>

#include <net/if.h>
#include <netinet/in.h>
#include <sys/ioctl.h>

#include "caps.h"
#include "cgroup.h"
#include "child.h"
#include "err.h"
#include "fd.h"
#include "landlock.h"
#include "layers.h"
#include "mountview.h"
#include "plan.h"
#include "run.h"
#include "sysfilter.h"
#include "timings.h"
#include "uapi.h"

const char *const child_stage_name[S_NSTAGES] = {
	"init: parent-death signal", "init: IPC namespace",
	"init: closing descriptors", "init: signals", "cgroup membership",
	"setsid", "signals", "IPC namespace", "network namespace", "loopback",
	"mount view", "securebits", "bounding set", "uid/gid switch",
	"parent-death signal", "stdin",
	"closing descriptors", "verifying descriptors", "rlimits",
	"dropping capabilities", "no_new_privs", "landlock", "seccomp",
	"seccomp listener", "execveat",
};

/* clone3 (a0: the args, a1: their size) or clone (x86_64: a0 flags, a1
 * stack top, a2 parent_tid, child_tid and tls 0; CLONE_PIDFD writes the
 * pidfd through parent_tid) with the child running fn(arg) on its own
 * stack and exiting from there (it never returns): the register dance a
 * libc's clone() does, so that CLONE_VM|CLONE_VFORK works without
 * sharing the parent's stack frames.  Returns the child's pid (or
 * -errno) in the parent, which CLONE_VFORK resumes only once the child
 * has called execve or exited. */
static long
clone_raw(long nr, long a0, long a1, long a2, void (*fn)(void *),
    void *arg)
{
	register void (*r12)(void *) __asm__("r12") = fn;
	register void *r13 __asm__("r13") = arg;
	register long r10 __asm__("r10") = 0;
	register long r8 __asm__("r8") = 0;
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
			 : "0"(nr), "D"(a0), "S"(a1), "d"(a2), "r"(r10),
			 "r"(r8), "r"(r12), "r"(r13)
			 : "rcx", "r11", "memory");
	return ret;
}

/* clone3 answered ENOSYS once: clone from then on.  A container
 * runtime's default seccomp profile answers so without CAP_SYS_ADMIN,
 * and so does a confexec payload's filter (nested runs), so that the
 * flags are where a filter can see them. */
static int no_clone3;

void
child_clone3_off(void)
{
	no_clone3 = 1;
}

const char *
child_clone_name(void)
{
	return no_clone3 ? "clone" : "clone3";
}

long
child_clone(void *cav, void (*fn)(void *), void *arg)
{
	struct borne_clone_args *ca = cav;
	long ret = -ENOSYS;

	if (!no_clone3) {
		ret = clone_raw(__NR_clone3, (long)(uintptr_t)ca,
		    (long)sizeof(*ca), 0, fn, arg);
		if (ret == -ENOSYS)
			no_clone3 = 1;
	}
	if (no_clone3) {
		if ((ca->flags & ~0xffffffffULL) != 0 || ca->set_tid != 0 ||
		    ca->exit_signal > 0xff)
			ret = -EINVAL;	/* clone3 only */
		else
			ret = clone_raw(__NR_clone, (long)(ca->flags |
			    ca->exit_signal), (long)(ca->stack + ca->stack_size),
			    (long)ca->pidfd, fn, arg);
	}
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

/* A stage of the payload failed: the report in confexec's memory (it
 * reads it when CLONE_VFORK resumes it), then the end of the payload. */
_Noreturn static void
child_fail(struct run *r, enum stage s, int e, int fd)
{
	r->rep.kind = MSG_FAIL;
	r->rep.stage = s;
	r->rep.err = e;
	r->rep.fd = fd;
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
	if (r->scriptfd != -1 && fcntl(r->scriptfd, F_SETFD, 0) == -1)
		child_fail(r, S_FDCLOSE, errno, -1);
}

static long raw(long n, long a, long b, long c, long d);

/* Bring loopback up on socket s (any socket of the namespace). */
static int
lo_up(int s)
{
	struct ifreq ifr;

	memset(&ifr, 0, sizeof(ifr));
	memcpy(ifr.ifr_name, "lo", 3);
	if (ioctl(s, SIOCGIFFLAGS, &ifr) == -1)
		return -1;
	ifr.ifr_flags |= IFF_UP;
	return ioctl(s, SIOCSIFFLAGS, &ifr);
}

/* Loopback up in the payload's new network namespace. */
static int
loopback_up(void)
{
	int s = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0), r, e;

	if (s == -1)
		return -1;
	r = lo_up(s);
	e = errno;
	close(s);
	errno = e;
	return r;
}

/* Every disposition back to its default and the caller's signal mask
 * back, by system call: libc's signal(3) and sigprocmask(3) leave alone
 * the signals libc keeps for itself (32 to 34), and one the caller
 * ignored would pass through execveat ignored. */
static void
default_signals(struct run *r)
{
	struct borne_ksigaction dfl = { SIG_DFL, 0, NULL, 0 };
	long ret;
	int s;

	for (s = 1; s <= 64; s++) {
		if (s == SIGKILL || s == SIGSTOP)
			continue;
		ret = raw(SYS_rt_sigaction, s, (long)&dfl, 0, 8);
		if (ret < 0)
			child_fail(r, S_SIGNALS, (int)-ret, -1);
	}
	ret = raw(SYS_rt_sigprocmask, SIG_SETMASK, (long)&r->oldmask, 0, 8);
	if (ret < 0)
		child_fail(r, S_SIGNALS, (int)-ret, -1);
}

/* The run's IPC namespace, init's: wait until init has made it (it does
 * so while confexec goes on), then join it through init's pidfd. */
static void
join_ipc(struct run *r)
{
	int v;

	while ((v = __atomic_load_n(&r->ipc_ready, __ATOMIC_ACQUIRE)) == 0)
		raw(SYS_futex, (long)&r->ipc_ready, FUTEX_WAIT, 0, 0);
	if (v < 0)
		child_fail(r, S_IPC, -v, -1);
	if (setns(r->initfd, CLONE_NEWIPC) == -1)
		child_fail(r, S_IPC, errno, -1);
}

/* The payload, in confexec's memory until execveat.  The order of
 * SPEC.md, "confexec": membership, session, the run's namespaces (IPC,
 * network, the mount view, built while still capable), credentials,
 * stdin, descriptors, rlimits, capabilities, no_new_privs, Landlock,
 * seccomp last, execveat. */
_Noreturn void
child_payload(void *arg)
{
	struct run *r = arg;
	const struct plan *p = &r->p;

	timings_mark(r->stamp, TM_CLONE);
	/* Without clone3: into the run's cgroup first, before anything
	 * else (judge_cgroup, layers.c). */
	if (r->cgprocs != -1 && write(r->cgprocs, "0", 1) != 1)
		child_fail(r, S_CGROUP, errno, -1);
	if (r->have_cg && cg_is_member(&r->cg) == -1)
		child_fail(r, S_CGROUP, errno, -1);
	/* A new session: no controlling terminal to inject input into
	 * (TIOCSTI) or to be signalled through. */
	if (setsid() == -1)
		child_fail(r, S_SETSID, errno, -1);
	default_signals(r);
	if (r->own_ipc)
		join_ipc(r);
	/* The egress broker's network: loopback only, its listener; or,
	 * without a host TCP right, a network of the run's own. */
	if (r->netnsfd != -1 && setns(r->netnsfd, CLONE_NEWNET) == -1)
		child_fail(r, S_NETNS, errno, -1);
	if (r->newnet && loopback_up() == -1)
		child_fail(r, S_LOOPBACK, errno, -1);
	/* The read-only view, while capable (mountview.h).
	 * BORNE_WEAK_MOUNTVIEW: a test build only, as below. */
#ifndef BORNE_WEAK_MOUNTVIEW
	if (layers_on(r, L_MOUNTNS) && mv_apply(&r->mv) == -1)
		child_fail(r, S_MOUNT, errno, -1);
#endif
	timings_mark(r->stamp, TM_MOUNT);
	if (r->root) {
		if (caps_lock_securebits() == -1)
			child_fail(r, S_SECUREBITS, errno, -1);
		if (caps_drop_bounding() == -1)
			child_fail(r, S_BOUNDING, errno, -1);
	}
	if (creds_switch(p->has_uid, p->uid, p->has_gid, p->gid) == -1)
		child_fail(r, S_CREDS, errno, -1);
	/* Without a pid namespace: the payload dies with confexec (after
	 * the switch, which clears the setting), unless confexec is gone
	 * already.  Its descendants are not covered (confexec(1)). */
	if (r->subreaper) {
		if (prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0) == -1)
			child_fail(r, S_PDEATH, errno, -1);
		if (getppid() != r->parent)
			child_fail(r, S_PDEATH, ESRCH, -1);
	}
	close_fds(r);
	set_rlimits(r);
	if (caps_clear(r->caps_empty) == -1 ||
	    caps_verify_empty(r->root) == -1)
		child_fail(r, S_CAPS, errno, -1);
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		child_fail(r, S_NNP, errno, -1);
	/* BORNE_WEAK_LANDLOCK: a test build only (the Makefile's
	 * helpers/confexec-weak-landlock), with Landlock left out on purpose
	 * while every verdict still says it is applied, for the canaries to
	 * catch (confexec --canary); never defined for bin/confexec. */
#ifndef BORNE_WEAK_LANDLOCK
	if (ll_enforce(r->rulesetfd, r->abi) == -1)
		child_fail(r, S_LANDLOCK, errno, -1);
#endif
	timings_mark(r->stamp, TM_LANDLOCK);
	load_filter(r);
	timings_mark(r->stamp, TM_SECCOMP);
	syscall(SYS_execveat, r->imgfd, "", r->argv != NULL ? r->argv :
	    p->argv, r->envp, AT_EMPTY_PATH);
	child_fail(r, S_EXEC, errno, -1);
}

/* A system call that leaves errno alone: init runs beside confexec in
 * the same memory, thread-local errno included. */
static long
raw(long n, long a, long b, long c, long d)
{
	register long r10 __asm__("r10") = d;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "0"(n), "D"(a), "S"(b), "d"(c), "r"(r10)
			 : "rcx", "r11", "memory");
	return ret;
}

/* Whether the IPC namespace was made or not, the payload waiting for it
 * goes on. */
static void
ipc_done(struct run *r, int v)
{
	int zero = 0;

	if (__atomic_compare_exchange_n(&r->ipc_ready, &zero, v, 0,
		__ATOMIC_RELEASE, __ATOMIC_RELAXED))
		raw(SYS_futex, (long)&r->ipc_ready, FUTEX_WAKE, 0x7fffffff, 0);
}

_Noreturn static void
init_fail(struct run *r, enum stage s, long ret)
{
	r->init_err = (int)-ret;
	r->init_stage = s + 1;
	ipc_done(r, ret < 0 ? (int)ret : -EPROTO);
	for (;;)
		raw(SYS_exit_group, EXIT_FAIL, 0, 0, 0);
}

/* 1 when our parent, as /proc/self/stat's field 4 gives it (the host
 * pid: /proc is not the run's namespace's), is still parent; else 0 or
 * a negative errno. */
static long
parent_is(pid_t parent)
{
	char buf[512], *p = NULL;
	long fd, n, i, v = 0;

	fd = raw(SYS_open, (long)"/proc/self/stat", O_RDONLY | O_CLOEXEC, 0,
	    0);
	if (fd < 0)
		return fd;
	n = raw(SYS_read, fd, (long)buf, sizeof(buf) - 1, 0);
	raw(SYS_close, fd, 0, 0, 0);
	if (n <= 0)
		return n < 0 ? n : -EPROTO;
	for (i = 0; i < n; i++)	/* the name may hold anything but ')' */
		if (buf[i] == ')')
			p = buf + i;
	if (p == NULL || p + 5 > buf + n || p[1] != ' ' || p[3] != ' ')
		return -EPROTO;
	for (p += 4; p < buf + n && *p >= '0' && *p <= '9'; p++)
		v = v * 10 + (*p - '0');
	return v == parent;
}

/* pid 1 of the run's namespace (see the top of this file). */
_Noreturn void
child_init(void *arg)
{
	struct run *r = arg;
	struct {
		unsigned long handler, flags, restorer, mask;
	} ign = {1 /* SIG_IGN */, 0, 0, 0};
	long ret;

	ret = raw(SYS_prctl, PR_SET_PDEATHSIG, SIGKILL, 0, 0);
	if (ret < 0)
		init_fail(r, S_PDEATHSIG, ret);
	ret = parent_is(r->parent);
	if (ret != 1)
		init_fail(r, S_PDEATHSIG, ret < 0 ? ret : -ESRCH);
	if (r->own_ipc) {
		ret = raw(SYS_unshare, CLONE_NEWIPC, 0, 0, 0);
		if (ret < 0)
			init_fail(r, S_INITIPC, ret);
		ipc_done(r, 1);
	}
	ret = raw(__NR_close_range, 0, ~0L, 0, 0);
	if (ret < 0)
		init_fail(r, S_INITFDS, ret);
	ret = raw(SYS_rt_sigaction, SIGCHLD, (long)&ign, 0, 8);
	if (ret < 0)
		init_fail(r, S_INITSIG, ret);
	for (;;)
		raw(SYS_pause, 0, 0, 0, 0);
}

/* The network of a run with egress (src_egress.c): cloned with
 * CLONE_VM|CLONE_VFORK|CLONE_FILES|CLONE_NEWNET, so that what it opens
 * lands in confexec's descriptor table, it brings loopback up in the new
 * namespace, makes the broker's listener there (127.0.0.1, a port the
 * kernel assigns) and opens the namespace for the payload's setns.
 * Same rule as the payload: system calls only. */
_Noreturn void
child_netns(void *arg)
{
	struct netns_made *m = arg;
	struct sockaddr_in sin;
	socklen_t len = sizeof(sin);
	int s;

	m->what = "socket";
	if ((s = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		 0)) == -1)
		goto fail;
	m->listenfd = s;
	m->what = "loopback";
	if (lo_up(s) == -1)
		goto fail;
	memset(&sin, 0, sizeof(sin));
	sin.sin_family = AF_INET;
	sin.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	m->what = "bind 127.0.0.1";
	if (bind(s, (struct sockaddr *)&sin, sizeof(sin)) == -1)
		goto fail;
	m->what = "listen";
	if (listen(s, 128) == -1 ||
	    getsockname(s, (struct sockaddr *)&sin, &len) == -1)
		goto fail;
	m->port = ntohs(sin.sin_port);
	m->what = "/proc/self/ns/net";
	if ((m->nsfd = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) == -1)
		goto fail;
	m->what = NULL;
	for (;;)
		raw(SYS_exit, 0, 0, 0, 0);
fail:
	m->err = errno;
	for (;;)
		raw(SYS_exit, 1, 0, 0, 0);
}
