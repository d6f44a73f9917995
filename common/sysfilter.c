/* SPDX-License-Identifier: ISC */
/* sysfilter: the payload's seccomp filter (libseccomp), from one table. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <stddef.h>
#include <seccomp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/fs.h>
#include <linux/ioprio.h>
#include <linux/seccomp.h>

#include "plan.h"
#include "sysfilter.h"
#include "uapi.h"

/* Every namespace flag clone() can carry (CLONE_NEWTIME only exists for
 * clone3/unshare, whose low byte for clone() is the exit signal). */
#define CLONE_NEW_MASK                                                   \
	((uint64_t)(CLONE_NEWNS | CLONE_NEWCGROUP | CLONE_NEWUTS |       \
	    CLONE_NEWIPC | CLONE_NEWUSER | CLONE_NEWPID | CLONE_NEWNET))

#define SOCK_TYPE_MASK32 (~(uint32_t)(SOCK_NONBLOCK | SOCK_CLOEXEC))

/* How each call is answered.  The "base" program (default EPERM) allows
 * or refuses by number and by the arguments it can read; the "args"
 * program (default ALLOW, evaluated first) picks out argument values
 * (ioctl requests, flag bits) whose complement libseccomp cannot state.
 * sf_compile joins the two into one program (see join_programs). */
enum rule {
	R_EPERM,	/* refused */
	R_ENOSYS,	/* refused as absent: libcs fall back */
	R_META,		/* user notification: the supervisor answers
			 * (watches) */
	R_HOSTNET,	/* user notification in the host's network
			 * (SF_HOST_NET: bind, listen), else allowed */
	R_SYSV,		/* allowed in the run's IPC namespace
			 * (SF_OWN_IPC), else EPERM */
	R_CHMOD,	/* mode arg .a with S_ISUID or S_ISGID: EPERM */
	R_PID0,		/* arg .a (a pid) must be 0: this process */
	R_PRLIMIT,	/* pid 0, or no new limit (a read) */
	R_WHO0,		/* setpriority/ioprio_set: process or own pgrp, 0 */
	R_CLONE,	/* no CLONE_NEW* flag */
	R_SOCKET,	/* the plan's socket shapes */
	R_OPEN,		/* access mode 3 EACCES; a setuid/setgid O_CREAT
			 * mode EPERM; the truncate stand-in */
	R_TRUNCATE,	/* EACCES with the truncate stand-in */
	R_FLAGBIT,	/* arg .a & .v set: EPERM (MSG_FASTOPEN) */
	R_SOCKOPT,	/* setsockopt: a few (level, name) pairs EPERM */
	R_FCNTL,	/* fcntl F_SETLEASE EPERM */
	R_IOCTL,	/* ioctl requests: see ioctl_rules[] */
	R_SECCOMP,	/* seccomp(2) without NEW_LISTENER */
	R_CREATMODE,	/* mode arg .a with S_ISUID or S_ISGID: EPERM */
};

/* A group of calls answered by one rule for one reason.  Each call is
 * named once, in the table (calls[] of its group); the groups stand in
 * the order the rules are added. */
#define CALLS(...) (const int[]){__VA_ARGS__}, \
	sizeof((const int[]){__VA_ARGS__}) / sizeof(int)

static const struct sf_group {
	unsigned char rule;
	unsigned char a;	/* the argument the rule reads */
	uint32_t v;		/* its value (R_FLAGBIT) */
	const char *why;
	const int *calls;
	size_t n;
} table[] = {
	/* -- other processes and the kernel -- */
	{R_EPERM, 0, 0, "reads, writes or observes other processes, steals "
	    "or probes their fds, acts on their mm", CALLS(__NR_ptrace,
	    __NR_process_vm_readv, __NR_process_vm_writev, __NR_pidfd_getfd,
	    __NR_kcmp, __NR_perf_event_open,
	    440 /* process_madvise */, 448 /* process_mrelease */)},
	{R_PRLIMIT, 0, 0,
	    "sets limits by pid (RLIMIT_NOFILE 0 on the supervisor)",
	    CALLS(__NR_prlimit64)},
	{R_WHO0, 0, 0, "renices (or sets the I/O priority) by pid, pgrp or "
	    "uid (PRIO_USER 0: every uid-0 process)",
	    CALLS(__NR_setpriority, __NR_ioprio_set)},
	{R_PID0, 0, 0, "pins, reschedules, moves the memory of or reads the "
	    "futex list of another process", CALLS(__NR_sched_setaffinity,
	    __NR_sched_setscheduler, __NR_sched_setparam, __NR_sched_setattr,
	    __NR_migrate_pages, __NR_move_pages, __NR_get_robust_list)},
	{R_EPERM, 0, 0, "new or other namespaces",
	    CALLS(__NR_unshare, __NR_setns)},
	{R_CLONE, 0, 0, "no CLONE_NEW* flag", CALLS(__NR_clone)},
	{R_ENOSYS, 0, 0, "flags in memory BPF cannot read; libcs fall back "
	    "to clone and openat", CALLS(__NR_clone3, __NR_openat2)},
	{R_EPERM, 0, 0, "io_uring bypasses this table",
	    CALLS(425 /* io_uring_setup */,
	    426 /* io_uring_enter */, 427 /* io_uring_register */)},
	{R_SECCOMP, 0, 0,
	    "a listener of its own would answer our notifications",
	    CALLS(__NR_seccomp)},
	{R_EPERM, 0, 0, "defence in depth (each needs a capability)",
	    CALLS(__NR_kexec_load, __NR_kexec_file_load, __NR_init_module,
	    __NR_finit_module, __NR_delete_module, __NR_bpf, __NR_mount,
	    __NR_umount2, __NR_pivot_root, __NR_swapon, __NR_swapoff,
	    __NR_reboot, __NR_acct, __NR_quotactl, 443 /* quotactl_fd */)},
	{R_EPERM, 0, 0, "uid-0 keyrings are the host's",
	    CALLS(__NR_keyctl, __NR_add_key, __NR_request_key)},
	{R_EPERM, 0, 0, "stalls the kernel on faults", CALLS(__NR_userfaultfd)},
	{R_EPERM, 0, 0, "the host's kernel log", CALLS(__NR_syslog)},
	{R_EPERM, 0, 0, "opens beside Landlock", CALLS(__NR_open_by_handle_at)},
	{R_EPERM, 0, 0, "the mount API", CALLS(428 /* open_tree */,
	    429 /* move_mount */, 430 /* fsopen */, 431 /* fsconfig */,
	    432 /* fsmount */, 433 /* fspick */,
	    442 /* mount_setattr */, 467 /* open_tree_attr */)},
	{R_EPERM, 0, 0,
	    "the host's mount table (as /proc/self/mountinfo, unruled)",
	    CALLS(457 /* statmount */, 458 /* listmount */)},
	{R_EPERM, 0, 0, "LSM context changes",
	    CALLS(460 /* lsm_set_self_attr */)},
	{R_EPERM, 0, 0, "watches files outside the rules (read access only)",
	    CALLS(__NR_fanotify_init, __NR_fanotify_mark)},
	/* -- IPC outside every file rule -- */
	{R_SYSV, 0, 0, "SysV IPC: the host's segments, queues and "
	    "semaphores, unless the run has its own", CALLS(__NR_shmget,
	    __NR_shmat, __NR_shmctl, __NR_shmdt, __NR_msgget, __NR_msgsnd,
	    __NR_msgrcv, __NR_msgctl, __NR_semget, __NR_semop,
	    __NR_semtimedop, __NR_semctl)},
	{R_EPERM, 0, 0,
	    "POSIX queues: mqueue's internal mount, no Landlock path walk",
	    CALLS(__NR_mq_open, __NR_mq_unlink, __NR_mq_timedsend,
	    __NR_mq_timedreceive, __NR_mq_notify, __NR_mq_getsetattr)},
	/* -- file metadata: Landlock has no right for it.  Owner, xattr,
	 * times and inode flags are the kernel's: the run's mount view
	 * refuses them outside the rw rules (EROFS), and inside them a
	 * capability-less caller may only change its own files.  The
	 * mode is in a register: no setuid or setgid file, ever (a
	 * planted one is itself the hazard, seeds/000).  The calls of a
	 * rule that reads an argument are grouped by where it is. -- */
	{R_CHMOD, 1, 0, "no setuid or setgid mode",
	    CALLS(__NR_chmod, __NR_fchmod)},
	{R_CHMOD, 2, 0, "no setuid or setgid mode (after a dirfd)",
	    CALLS(__NR_fchmodat, __NR_fchmodat2)},
	{R_META, 0, 0, "watches: only beneath a rule, resolved by the "
	    "supervisor", CALLS(__NR_inotify_add_watch)},
	{R_IOCTL, 1, 0, "see ioctl_rules[]", CALLS(__NR_ioctl)},
	{R_FCNTL, 1, 0,
	    "F_SETLEASE blocks host writers of files outside the rules",
	    CALLS(__NR_fcntl)},
	{R_OPEN, 1, 0, "access mode 3: ioctls and leases without read or "
	    "write; O_CREAT with a setuid or setgid mode, as chmod",
	    CALLS(__NR_open)},
	{R_OPEN, 2, 0, "the same, after a dirfd", CALLS(__NR_openat)},
	{R_CREATMODE, 1, 0, "a setuid or setgid file, as chmod (mknod: "
	    "S_IFREG)", CALLS(__NR_creat, __NR_mknod)},
	{R_CREATMODE, 2, 0, "the same, after a dirfd", CALLS(__NR_mknodat)},
	{R_TRUNCATE, 0, 0, "truncate stand-in (ABI < 3)",
	    CALLS(__NR_truncate)},
	/* -- sockets -- */
	{R_SOCKET, 0, 0, "the plan's socket shapes only",
	    CALLS(__NR_socket, __NR_socketpair)},
	{R_FLAGBIT, 3, MSG_FASTOPEN,
	    "TCP fast open connects beside Landlock's connect check",
	    CALLS(__NR_sendto, __NR_sendmmsg)},
	{R_FLAGBIT, 2, MSG_FASTOPEN, "the same (the flags after the msghdr)",
	    CALLS(__NR_sendmsg)},
	{R_SOCKOPT, 1, 0, "see sockopt_rules[]", CALLS(__NR_setsockopt)},
	{R_HOSTNET, 0, 0, "in the host's network, abstract and autobound "
	    "unix names, and listen()'s autobind of an unbound TCP socket "
	    "(inherited sockets too): the supervisor binds and checks",
	    CALLS(__NR_bind, __NR_listen)},
};

/* Argument values the args program refuses for one call (R_IOCTL,
 * R_SOCKOPT): argument 1 under mask equal to v1 and, with two, argument
 * 2 equal to v2, compared on the low 32 bits (how the kernel reads an
 * int).  What they answer: */
enum { I_EPERM, I_NOTSUP };
struct argval {
	uint32_t v1, mask;
	int two;
	uint32_t v2;
	int what;
};

/* ioctl requests. */
static const struct argval ioctl_rules[] = {
#define ONE(r, w) {(r), 0xffffffffu, 0, 0, (w)}
	/* inode metadata without a Landlock right; none is needed by
	 * a build, an owner could otherwise set them on host files */
	ONE(FS_IOC_SETVERSION, I_EPERM), ONE(FS_IOC32_SETVERSION, I_EPERM),
	ONE(0x40086604 /* EXT4_IOC_SETVERSION */, I_EPERM),
	ONE(0x800c6613 /* FS_IOC_SET_ENCRYPTION_POLICY */, I_EPERM),
	ONE(0xc0506617 /* FS_IOC_ADD_ENCRYPTION_KEY */, I_EPERM),
	ONE(0xc0406618 /* FS_IOC_REMOVE_ENCRYPTION_KEY */, I_EPERM),
	ONE(0xc0406619 /* ..._ALL_USERS */, I_EPERM),
	ONE(0x40806685 /* FS_IOC_ENABLE_VERITY */, I_EPERM),
	ONE(0x6609 /* EXT4_IOC_MIGRATE */, I_EPERM),
	/* type 0x94: btrfs subvolumes and snapshots (made beside Landlock's
	 * mkdir hook), FIDEDUPERANGE into read-only files, FICLONE: as if
	 * the filesystem had none (cp --reflink=auto copies instead) */
	{0x9400, 0xff00, 0, 0, I_NOTSUP},
	/* an inherited terminal, changed for after the run */
	ONE(TCSETS, I_EPERM), ONE(TCSETSW, I_EPERM), ONE(TCSETSF, I_EPERM),
	ONE(TCSETA, I_EPERM), ONE(TCSETAW, I_EPERM), ONE(TCSETAF, I_EPERM),
	ONE(0x402c542b /* TCSETS2 */, I_EPERM),
	ONE(0x402c542c /* TCSETSW2 */, I_EPERM),
	ONE(0x402c542d /* TCSETSF2 */, I_EPERM),
	ONE(0x5433 /* TCSETX */, I_EPERM), ONE(0x5434 /* TCSETXF */, I_EPERM),
	ONE(0x5435 /* TCSETXW */, I_EPERM), ONE(TIOCSWINSZ, I_EPERM),
	ONE(TIOCEXCL, I_EPERM), ONE(TIOCNXCL, I_EPERM), ONE(TIOCSCTTY, I_EPERM),
	ONE(TIOCCONS, I_EPERM), ONE(TIOCSETD, I_EPERM), ONE(TIOCSTI, I_EPERM),
	ONE(TIOCLINUX, I_EPERM), ONE(TIOCSPGRP, I_EPERM),
	ONE(TIOCVHANGUP, I_EPERM), ONE(TCXONC, I_EPERM), ONE(TCFLSH, I_EPERM),
	ONE(TCSBRKP, I_EPERM), ONE(TIOCSBRK, I_EPERM),
	ONE(TIOCCBRK, I_EPERM), ONE(TIOCMSET, I_EPERM), ONE(TIOCMBIS, I_EPERM),
	ONE(TIOCMBIC, I_EPERM), ONE(TIOCSSOFTCAR, I_EPERM),
	ONE(TIOCSSERIAL, I_EPERM), ONE(TIOCSLCKTRMIOS, I_EPERM),
	ONE(TIOCSRS485, I_EPERM), ONE(TIOCNOTTY, I_EPERM),
#undef ONE
};

/* setsockopt (level, name) pairs refused with EPERM. */
static const struct argval sockopt_rules[] = {
#define OPT(level, name) {(level), 0xffffffffu, 1, (name), I_EPERM}
	OPT(IPPROTO_TCP, 30 /* TCP_FASTOPEN_CONNECT */),
	OPT(SOL_SOCKET, 16 /* SO_PASSCRED: autobinds an abstract name */),
	OPT(SOL_SOCKET, 76 /* SO_PASSPIDFD: same */),
#undef OPT
};

#define NGROUPS (sizeof(table) / sizeof(table[0]))

static const struct sf_group *
lookup(int nr)
{
	size_t i, j;

	for (i = 0; i < NGROUPS; i++)
		for (j = 0; j < table[i].n; j++)
			if (table[i].calls[j] == nr)
				return &table[i];
	return NULL;
}

const char *
sf_why(int nr)
{
	const struct sf_group *g = lookup(nr);

	return g == NULL ? NULL : g->why;
}

int
sf_is_notified(int nr, unsigned variant)
{
	const struct sf_group *g = lookup(nr);

	if (g == NULL || (variant & SF_NO_NOTIFY))
		return 0;
	return g->rule == R_META ||
	    (g->rule == R_HOSTNET && (variant & SF_HOST_NET));
}

int
sf_notifies(unsigned variant)
{
	size_t i, j;

	for (i = 0; i < NGROUPS; i++)
		for (j = 0; j < table[i].n; j++)
			if (sf_is_notified(table[i].calls[j], variant))
				return 1;
	return 0;
}

/* Low-32-bit equality: MASKED_EQ with a 32-bit mask leaves the high word
 * unchecked, which is how the kernel reads an int argument. */
#define EQ32(arg, v) SCMP_CMP((arg), SCMP_CMP_MASKED_EQ, 0xffffffffULL, (v))
#define BITS32(arg, m, v) SCMP_CMP((arg), SCMP_CMP_MASKED_EQ, (m), (v))
#define TYPE32(a, v) BITS32(a, (uint64_t)SOCK_TYPE_MASK32, (v))
#define ALLOW SCMP_ACT_ALLOW
#define EPERM_ SCMP_ACT_ERRNO(EPERM)

static int
add_sock_rules(scmp_filter_ctx ctx, unsigned sock)
{
	static const int utypes[] = {SOCK_STREAM, SOCK_DGRAM, SOCK_SEQPACKET};
	static const int inet[] = {AF_INET, AF_INET6};
	static const int tproto[] = {0, IPPROTO_TCP};
	size_t i, j;
	int r = 0;

	if (sock & PLAN_SOCK_UNIX)
		for (i = 0; r == 0 && i < 3; i++) {
			r = seccomp_rule_add(ctx, ALLOW, SCMP_SYS(socket), 3,
			    EQ32(0, AF_UNIX), TYPE32(1, utypes[i]), EQ32(2, 0));
			if (r == 0)
				r = seccomp_rule_add(ctx, ALLOW,
				    SCMP_SYS(socketpair), 3, EQ32(0, AF_UNIX),
				    TYPE32(1, utypes[i]), EQ32(2, 0));
		}
	if (sock & PLAN_SOCK_TCP)
		for (i = 0; r == 0 && i < 2; i++)
			for (j = 0; r == 0 && j < 2; j++)
				r = seccomp_rule_add(ctx, ALLOW,
				    SCMP_SYS(socket), 3, EQ32(0, inet[i]),
				    TYPE32(1, SOCK_STREAM), EQ32(2, tproto[j]));
	return r;
}

/* The kernel's access-mode bits (musl's O_ACCMODE also holds O_PATH). */
#define ACCMODE 3u

/* open/openat in the base program, split on (flags & (3|O_TRUNC)):
 * disjoint cases covering every value.  Access mode 3 is refused in
 * every variant; with the truncate stand-in (Landlock ABI < 3)
 * O_RDONLY|O_TRUNC is too, as Landlock answers a missing truncate
 * right from ABI 3 on.  The masks' high words are zero: only the low 32
 * bits the kernel reads count. */
static int
add_open_rules(scmp_filter_ctx ctx, int nr, unsigned arg, int trunc)
{
	static const struct {
		uint32_t mask, val;
		int deny_trunc;	/* EACCES with the stand-in, else allowed */
	} cases[] = {
		{ACCMODE | O_TRUNC, O_RDONLY, 0},
		{ACCMODE | O_TRUNC, O_WRONLY, 0},
		{ACCMODE | O_TRUNC, O_RDWR, 0},
		{ACCMODE | O_TRUNC, O_WRONLY | O_TRUNC, 0},
		{ACCMODE | O_TRUNC, O_RDWR | O_TRUNC, 0},
		{ACCMODE | O_TRUNC, O_RDONLY | O_TRUNC, 1},
	};
	size_t j;
	int r = 0;

	for (j = 0; r == 0 && j < sizeof(cases) / sizeof(cases[0]); j++) {
		if (cases[j].deny_trunc && trunc)
			r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), nr, 1,
			    BITS32(arg, cases[j].mask, cases[j].val));
		else
			r = seccomp_rule_add(ctx, ALLOW, nr, 1,
			    BITS32(arg, cases[j].mask, cases[j].val));
	}
	/* Access mode 3, with or without O_TRUNC. */
	if (r == 0)
		r = seccomp_rule_add(ctx, SCMP_ACT_ERRNO(EACCES), nr, 1,
		    BITS32(arg, ACCMODE, ACCMODE));
	return r;
}

/* setpriority and ioprio_set allowed on the caller's own process or
 * process group only (who 0).  PRIO_PROCESS == IOPRIO_WHO_PROCESS - 1,
 * and so on: the two calls number "which" differently. */
static int
add_who0(scmp_filter_ctx ctx, int nr)
{
	int proc = nr == __NR_setpriority ? PRIO_PROCESS : IOPRIO_WHO_PROCESS;
	int pgrp = nr == __NR_setpriority ? PRIO_PGRP : IOPRIO_WHO_PGRP;
	int r;

	r = seccomp_rule_add(ctx, ALLOW, nr, 2, EQ32(0, proc), EQ32(1, 0));
	if (r == 0)
		r = seccomp_rule_add(ctx, ALLOW, nr, 2, EQ32(0, pgrp),
		    EQ32(1, 0));
	return r;
}

/* The base program's rule for call nr of group g. */
static int
add_base(scmp_filter_ctx ctx, const struct sf_group *g, int nr,
    unsigned variant)
{
	int trunc = (variant & SF_DENY_TRUNCATE) != 0, r = 0;

	switch (g->rule) {
	case R_EPERM:
		return 0;	/* the default */
	case R_ENOSYS:
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), nr, 0);
	case R_PID0:
		return seccomp_rule_add(ctx, ALLOW, nr, 1, EQ32(0, 0));
	case R_PRLIMIT:
		r = seccomp_rule_add(ctx, ALLOW, nr, 1, EQ32(0, 0));
		if (r == 0)
			r = seccomp_rule_add(ctx, ALLOW, nr, 1,
			    SCMP_CMP(2, SCMP_CMP_EQ, 0, 0));
		return r;
	case R_WHO0:
		return add_who0(ctx, nr);
	case R_CLONE:
		return seccomp_rule_add(ctx, ALLOW, nr, 1,
		    SCMP_CMP(0, SCMP_CMP_MASKED_EQ, CLONE_NEW_MASK, 0));
	case R_SOCKET:
		return nr == __NR_socket ? add_sock_rules(ctx, variant) : 0;
	case R_OPEN:
		return add_open_rules(ctx, nr, g->a, trunc);
	case R_TRUNCATE:
		return seccomp_rule_add(ctx, trunc ? SCMP_ACT_ERRNO(EACCES) :
		    ALLOW, nr, 0);
	case R_SYSV:
		return (variant & SF_OWN_IPC) ?
		    seccomp_rule_add(ctx, ALLOW, nr, 0) : 0;
	default:
		/* Decided in the args program. */
		return seccomp_rule_add(ctx, ALLOW, nr, 0);
	}
}

/* The args program's rules for call nr: each of the n values at t. */
static int
add_argvals(scmp_filter_ctx ctx, int nr, const struct argval *t, size_t n)
{
	size_t i;
	int r = 0;

	for (i = 0; r == 0 && i < n; i++) {
		uint32_t act = t[i].what == I_NOTSUP ?
		    SCMP_ACT_ERRNO(EOPNOTSUPP) : EPERM_;

		if (t[i].two)
			r = seccomp_rule_add(ctx, act, nr, 2,
			    BITS32(1, t[i].mask, t[i].v1), EQ32(2, t[i].v2));
		else
			r = seccomp_rule_add(ctx, act, nr, 1,
			    BITS32(1, t[i].mask, t[i].v1));
	}
	return r;
}

#define ARGVALS(t) (t), sizeof(t) / sizeof((t)[0])

/* The args program's ioctl rules: ioctl_rules[], and TCSBRK 0 (it sends
 * a break; any other value is tcdrain(3)). */
static int
add_ioctl(scmp_filter_ctx ctx, int nr)
{
	int r = add_argvals(ctx, nr, ARGVALS(ioctl_rules));

	if (r == 0)
		r = seccomp_rule_add(ctx, EPERM_, nr, 2, EQ32(1, TCSBRK),
		    SCMP_CMP(2, SCMP_CMP_EQ, 0, 0));
	return r;
}

/* The args program's rules for call nr of group g (default ALLOW). */
static int
add_args(scmp_filter_ctx ctx, const struct sf_group *g, int nr,
    unsigned variant)
{
	static const uint32_t creat_fl[] = {O_CREAT, O_TMPFILE};
	static const uint32_t setid[] = {S_ISUID, S_ISGID};
	size_t i;
	int r = 0;

	switch (g->rule) {
	case R_META:
		return seccomp_rule_add(ctx, (variant & SF_NO_NOTIFY) ? EPERM_ :
		    SCMP_ACT_NOTIFY, nr, 0);
	case R_HOSTNET:
		return (variant & SF_HOST_NET) ?
		    seccomp_rule_add(ctx, (variant & SF_NO_NOTIFY) ? EPERM_ :
		    SCMP_ACT_NOTIFY, nr, 0) : 0;
	case R_FLAGBIT:
		return seccomp_rule_add(ctx, EPERM_, nr, 1,
		    BITS32(g->a, g->v, g->v));
	case R_SOCKOPT:
		return add_argvals(ctx, nr, ARGVALS(sockopt_rules));
	case R_FCNTL:
		return seccomp_rule_add(ctx, EPERM_, nr, 1,
		    EQ32(1, F_SETLEASE));
	case R_IOCTL:
		return add_ioctl(ctx, nr);
	case R_OPEN:
		/* flags at .a, the mode after them; the mode counts only
		 * with O_CREAT or O_TMPFILE. */
		for (i = 0; r == 0 && i < 4; i++)
			r = seccomp_rule_add(ctx, EPERM_, nr, 2,
			    BITS32(g->a, creat_fl[i / 2], creat_fl[i / 2]),
			    BITS32(g->a + 1, setid[i % 2], setid[i % 2]));
		return r;
	case R_CREATMODE:
	case R_CHMOD:
		for (i = 0; r == 0 && i < 2; i++)
			r = seccomp_rule_add(ctx, EPERM_, nr, 1,
			    BITS32(g->a, setid[i], setid[i]));
		return r;
	case R_SECCOMP:
		return seccomp_rule_add(ctx, EPERM_, nr, 2,
		    EQ32(0, SECCOMP_SET_MODE_FILTER),
		    BITS32(1, SECCOMP_FILTER_FLAG_NEW_LISTENER,
			SECCOMP_FILTER_FLAG_NEW_LISTENER));
	default:
		return 0;
	}
}

unsigned
sf_variant(unsigned sock, int abi, int own_ipc, int host_net)
{
	return (sock & (PLAN_SOCK_UNIX | PLAN_SOCK_TCP)) |
	    (abi < 3 ? SF_DENY_TRUNCATE : 0) | (own_ipc ? SF_OWN_IPC : 0) |
	    (host_net ? SF_HOST_NET : 0);
}

/* Export ctx into a malloc'd program. */
static int
export(scmp_filter_ctx ctx, struct sock_fprog *prog)
{
	off_t len;
	void *m;
	int mfd, r;

	mfd = memfd_create("borne-seccomp", MFD_CLOEXEC);
	if (mfd == -1)
		return -errno;
	r = seccomp_export_bpf(ctx, mfd);
	if (r < 0)
		goto out;
	len = lseek(mfd, 0, SEEK_END);
	if (len <= 0 || len % sizeof(struct sock_filter) != 0 ||
	    len / sizeof(struct sock_filter) > BPF_MAXINSNS) {
		r = -E2BIG;
		goto out;
	}
	m = malloc((size_t)len);
	if (m == NULL) {
		r = -ENOMEM;
		goto out;
	}
	if (pread(mfd, m, (size_t)len, 0) != len) {
		free(m);
		r = -EIO;
		goto out;
	}
	prog->filter = m;
	prog->len = (unsigned short)(len / sizeof(struct sock_filter));
out:
	close(mfd);
	return r;
}

static scmp_filter_ctx
new_ctx(uint32_t def, int *r)
{
	scmp_filter_ctx ctx = seccomp_init(def);

	if (ctx == NULL) {
		*r = -ENOMEM;
		return NULL;
	}
	/* Any other architecture (i386 int 0x80) and every x32 number
	 * (libseccomp sends those to the bad-arch action) kill the
	 * process.  The child sets no_new_privs itself, in SPEC's order. */
	*r = seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH,
	    SCMP_ACT_KILL_PROCESS);
	if (*r == 0)
		*r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_NNP, 0);
	if (*r == 0)
		*r = seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, 2);
	return ctx;
}

/* One program from two: args runs first, and each of its ALLOW returns
 * becomes a jump to the start of base.  So a value args picks out gets
 * its action (EPERM, EACCES or NOTIFY), everything else base's. */
static int
join_programs(const struct sock_fprog *args, const struct sock_fprog *base,
    struct sock_fprog *out)
{
	size_t n = (size_t)args->len + base->len, i;
	struct sock_filter *f;

	if (n > BPF_MAXINSNS)
		return -E2BIG;
	f = malloc(n * sizeof(*f));
	if (f == NULL)
		return -ENOMEM;
	memcpy(f, args->filter, args->len * sizeof(*f));
	memcpy(f + args->len, base->filter, base->len * sizeof(*f));
	for (i = 0; i < args->len; i++)
		if (f[i].code == (BPF_RET | BPF_K) &&
		    f[i].k == SECCOMP_RET_ALLOW) {
			f[i].code = BPF_JMP | BPF_JA;
			f[i].jt = f[i].jf = 0;
			f[i].k = (uint32_t)(args->len - i - 1);
		}
	out->filter = f;
	out->len = (unsigned short)n;
	return 0;
}

/* The rules of both programs: every number up to SF_NR_KNOWN outside the
 * table allowed in the base, then each table entry's.  *what names the
 * step. */
static int
add_rules(scmp_filter_ctx bctx, scmp_filter_ctx actx, unsigned variant,
    const char **what)
{
	size_t i, j;
	int r = 0, nr;

	for (nr = 0; r == 0 && nr <= SF_NR_KNOWN; nr++) {
		*what = "allow rules";
		if (lookup(nr) == NULL)
			r = seccomp_rule_add(bctx, ALLOW, nr, 0);
	}
	for (i = 0; r == 0 && i < NGROUPS; i++)
		for (j = 0; r == 0 && j < table[i].n; j++) {
			*what = "table rules";
			nr = table[i].calls[j];
			r = add_base(bctx, &table[i], nr, variant);
			if (r == 0)
				r = add_args(actx, &table[i], nr, variant);
		}
	return r;
}

/* Empty prog; 0 if variant is one, else -1 with errno and err set. */
static int
variant_check(unsigned variant, struct sock_fprog *prog, char *err,
    size_t errlen)
{
	prog->filter = NULL;
	prog->len = 0;
	if (variant < SF_NVARIANTS)
		return 0;
	snprintf(err, errlen, "seccomp: no program variant %u", variant);
	errno = EINVAL;
	return -1;
}

int
sf_compile(unsigned variant, struct sock_fprog *prog, char *err,
    size_t errlen)
{
	struct sock_fprog base = {0, NULL}, args = {0, NULL};
	scmp_filter_ctx bctx = NULL, actx = NULL;
	const char *what = "init";
	int r = 0;

	if (variant_check(variant, prog, err, errlen) == -1)
		return -1;
	/* Base: default EPERM so that rules can allow conditionally
	 * (libseccomp refuses an ALLOW rule under an ALLOW default). */
	bctx = new_ctx(SCMP_ACT_ERRNO(EPERM), &r);
	if (r == 0)
		actx = new_ctx(SCMP_ACT_ALLOW, &r);
	if (r == 0)
		r = add_rules(bctx, actx, variant, &what);
	if (r == 0) {
		what = "export";
		r = export(bctx, &base);
	}
	if (r == 0)
		r = export(actx, &args);
	if (r == 0) {
		what = "join";
		r = join_programs(&args, &base, prog);
	}
	if (bctx != NULL)
		seccomp_release(bctx);
	if (actx != NULL)
		seccomp_release(actx);
	sf_free(&base);
	sf_free(&args);
	if (r < 0) {
		snprintf(err, errlen, "seccomp: %s: %s", what, strerror(-r));
		errno = -r;
		return -1;
	}
	return 0;
}

#ifndef SF_GENERATOR
/* The programs compiled by common/gen/sysfilter-gen at build time:
 * sf_prog_<variant>[] and sf_prog_len[]. */
#include "sysfilter-bpf.h"

int
sf_build(unsigned variant, struct sock_fprog *prog, char *err,
    size_t errlen)
{
	size_t n;

	if (variant_check(variant, prog, err, errlen) == -1)
		return -1;
	n = sf_prog_len[variant] * sizeof(struct sock_filter);
	prog->filter = malloc(n);
	if (prog->filter == NULL) {
		snprintf(err, errlen, "seccomp: %s", strerror(errno));
		return -1;
	}
	memcpy(prog->filter, sf_progs[variant], n);
	prog->len = (unsigned short)sf_prog_len[variant];
	return 0;
}
#endif

int
sf_load(const struct sock_fprog *prog)
{
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, prog);
}

int
sf_load_listener(const struct sock_fprog *prog)
{
	long fd;

	/* WAIT_KILLABLE_RECV (Linux 5.19): once the supervisor has received
	 * a notification, only a fatal signal interrupts the waiting call,
	 * so a signal handler cannot make the payload restart (and the
	 * supervisor act twice on) a call under review. */
	fd = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER |
	    SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV, prog);
	if (fd == -1 && errno == EINVAL)
		fd = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, prog);
	return (int)fd;
}

void
sf_free(struct sock_fprog *prog)
{
	free(prog->filter);
	prog->filter = NULL;
	prog->len = 0;
}
