/* SPDX-License-Identifier: ISC */
/* probens: the namespace part of the host probe: whether clone3 answers
 * (a seccomp profile may answer ENOSYS, as container runtimes' default
 * profiles do without CAP_SYS_ADMIN), whether clone and setns with
 * namespace flags pass the caller's seccomp filter, and whether the
 * caller may load a seccomp filter with a listener, and whether the
 * caller can make the pid and IPC namespaces confexec makes (not root:
 * inside a user namespace of its own, as confexec does).  Every call is
 * made in a throwaway child: a filter that kills instead of failing
 * kills only the child, and the namespaces it makes end with it.  The
 * filter checks use arguments the kernel rejects (EINVAL, EBADF) once a
 * filter lets them through, so no process or namespace comes of them. */
#include <errno.h>
#include <fcntl.h>
#include <linux/seccomp.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io.h"
#include "probeint.h"
#include "uapi.h"

/* What the child found: 0, or the errno of each call. */
struct nsres {
	int clone3, clone_flags, setns, userns, pid, ipc, listener;
	int userns_any;	/* unshare(CLONE_NEWUSER) for any caller; -1 untried */
};

/* The errno of a call that must fail with want once allowed (0 then),
 * else its own (EPERM, ENOSYS: a filter or a missing call). */
static int
filtered(long r, int want)
{
	if (r != -1 || errno == want)
		return 0;
	return errno;
}

/* The seccomp filter's answers: arguments the kernel rejects once a
 * filter lets the call through, so no process, namespace or filter comes
 * of them. */
static void
ns_filter(struct nsres *n)
{
	long r;

	/* size 0 is below CLONE_ARGS_SIZE_VER0: EINVAL. */
	r = syscall(__NR_clone3, NULL, 0);
	n->clone3 = filtered(r, EINVAL);
	/* CLONE_THREAD without CLONE_SIGHAND: EINVAL. */
	r = syscall(SYS_clone, CLONE_NEWPID | CLONE_NEWNS | CLONE_THREAD, 0,
	    NULL, NULL, 0);
	n->clone_flags = filtered(r, EINVAL);
	r = syscall(SYS_setns, -1, CLONE_NEWPID);
	n->setns = filtered(r, EBADF);
	/* A NULL program: EFAULT.  A confexec payload's filter refuses a
	 * listener of its own. */
	r = syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, NULL);
	n->listener = filtered(r, EFAULT);
}

/* In the throwaway child: exact, the filter's answers too (a filter
 * that kills kills the child); then the namespaces, as confexec makes
 * them (not root: a user namespace first). */
_Noreturn static void
ns_child(int fd, int root, int exact, struct nsres n)
{
	if (exact)
		ns_filter(&n);
	if (!root && unshare(CLONE_NEWUSER) == -1)
		n.userns = errno;
	if (n.userns == 0 && unshare(CLONE_NEWPID) == -1)
		n.pid = errno;
	if (n.userns == 0 && unshare(CLONE_NEWIPC) == -1)
		n.ipc = errno;
	/* A user namespace as such (cgprobe's userns), root's too: a
	 * runtime's filter may refuse it where the sysctls allow it. */
	if (!root)
		n.userns_any = n.userns;
	else
		n.userns_any = unshare(CLONE_NEWUSER) == -1 ? errno : 0;
	(void)write(fd, &n, sizeof(n));
	_exit(0);
}

static int
has_sys_admin(void)
{
	cap_flag_value_t v = CAP_CLEAR;
	cap_t c = cap_get_proc();

	if (c == NULL)
		return 0;
	(void)cap_get_flag(c, CAP_SYS_ADMIN, CAP_EFFECTIVE, &v);
	cap_free(c);
	return v == CAP_SET;
}

/* The child's answers in *n (it gets n as it is): 0; -1 with errno when
 * it could not be run or said nothing.  Killed by a signal (a filter
 * that kills): *killed the signal, every call refused. */
static int
ns_fork(struct nsres *n, int root, int exact, int *killed)
{
	int fd[2], st;
	ssize_t k;
	pid_t pid;

	if (pipe2(fd, O_CLOEXEC) == -1)
		return -1;
	pid = fork();
	if (pid == -1) {
		close(fd[0]);
		close(fd[1]);
		return -1;
	}
	if (pid == 0) {
		close(fd[0]);
		ns_child(fd[1], root, exact, *n);
	}
	close(fd[1]);
	do
		k = read(fd[0], n, sizeof(*n));
	while (k == -1 && errno == EINTR);
	close(fd[0]);
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR)
			return -1;
	if (WIFSIGNALED(st)) {
		*killed = WTERMSIG(st);
		n->clone3 = n->clone_flags = n->setns = n->pid = n->ipc = EPERM;
		n->listener = EPERM;
		n->userns_any = EPERM;
	} else if (k != (ssize_t)sizeof(*n))
		return -1;
	return 0;
}

void
probe_ns(struct probe *p, int exact)
{
	struct nsres n;

	p->ns_probed = 1;
	p->cap_sys_admin = has_sys_admin();
	p->ns_root = geteuid() == 0;
	memset(&n, 0, sizeof(n));
	n.userns_any = -1;
	/* Not exact, root: no process.  The filter's answers here (the
	 * run makes these very calls: a filter that kills would kill it
	 * there), and CAP_SYS_ADMIN answers for the unshares: the real
	 * calls still fail closed. */
	if (!exact)
		ns_filter(&n);
	if (!exact && p->ns_root)
		n.pid = n.ipc = p->cap_sys_admin ? 0 : EPERM;
	else if (ns_fork(&n, p->ns_root, exact, &p->ns_killed) == -1) {
		p->ns_probed = 0;
		p->ns_pid_errno = p->ns_ipc_errno = errno ? errno : EPROTO;
		p->seccomp_listener_errno = p->ns_pid_errno;
		return;
	}
	p->clone3 = n.clone3 == 0;
	p->clone3_errno = n.clone3;
	p->ns_clone_errno = n.clone_flags;
	p->ns_setns_errno = n.setns;
	p->ns_userns_errno = n.userns;
	p->ns_pid_errno = n.pid;
	p->ns_ipc_errno = n.ipc;
	p->seccomp_listener_errno = n.listener;
	p->userns_errno = n.userns_any;
}
