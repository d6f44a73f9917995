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

static const struct sf_entry {
	int nr;
	unsigned char rule;
	unsigned char a;	/* the argument the rule reads */
	uint32_t v;		/* its value (R_FLAGBIT) */
	const char *why;
} table[] = {
	/* -- other processes and the kernel -- */
	{__NR_ptrace, R_EPERM, 0, 0, "reads and writes other processes"},
	{__NR_process_vm_readv, R_EPERM, 0, 0, "reads other processes"},
	{__NR_process_vm_writev, R_EPERM, 0, 0, "writes other processes"},
	{__NR_pidfd_getfd, R_EPERM, 0, 0, "steals other processes' fds"},
	{__NR_kcmp, R_EPERM, 0, 0, "probes other processes' fds and mm"},
	{440 /* process_madvise */, R_EPERM, 0, 0, "acts on another mm"},
	{448 /* process_mrelease */, R_EPERM, 0, 0, "acts on another mm"},
	{__NR_prlimit64, R_PRLIMIT, 0, 0,
	    "sets limits by pid (RLIMIT_NOFILE 0 on the supervisor)"},
	{__NR_setpriority, R_WHO0, 0, 0,
	    "renices by pid, pgrp or uid (PRIO_USER 0: every uid-0 process)"},
	{__NR_ioprio_set, R_WHO0, 0, 0, "same, for I/O priority"},
	{__NR_sched_setaffinity, R_PID0, 0, 0, "pins another process"},
	{__NR_sched_setscheduler, R_PID0, 0, 0, "reschedules by pid"},
	{__NR_sched_setparam, R_PID0, 0, 0, "reschedules by pid"},
	{__NR_sched_setattr, R_PID0, 0, 0, "reschedules by pid"},
	{__NR_migrate_pages, R_PID0, 0, 0, "moves another's memory"},
	{__NR_move_pages, R_PID0, 0, 0, "moves another's memory"},
	{__NR_get_robust_list, R_PID0, 0, 0, "reads another's futex list"},
	{__NR_unshare, R_EPERM, 0, 0, "new namespaces"},
	{__NR_setns, R_EPERM, 0, 0, "other namespaces"},
	{__NR_clone, R_CLONE, 0, 0, "no CLONE_NEW* flag"},
	{__NR_clone3, R_ENOSYS, 0, 0,
	    "flags in memory BPF cannot read; libcs fall back to clone"},
	{425 /* io_uring_setup */, R_EPERM, 0, 0, "bypasses this table"},
	{426 /* io_uring_enter */, R_EPERM, 0, 0, "bypasses this table"},
	{427 /* io_uring_register */, R_EPERM, 0, 0, "bypasses this table"},
	{__NR_seccomp, R_SECCOMP, 0, 0,
	    "a listener of its own would answer our notifications"},
	{__NR_kexec_load, R_EPERM, 0, 0, "defence in depth (capability)"},
	{__NR_kexec_file_load, R_EPERM, 0, 0, "defence in depth"},
	{__NR_init_module, R_EPERM, 0, 0, "defence in depth"},
	{__NR_finit_module, R_EPERM, 0, 0, "defence in depth"},
	{__NR_delete_module, R_EPERM, 0, 0, "defence in depth"},
	{__NR_bpf, R_EPERM, 0, 0, "defence in depth"},
	{__NR_perf_event_open, R_EPERM, 0, 0, "observes other processes"},
	{__NR_keyctl, R_EPERM, 0, 0, "uid-0 keyrings are the host's"},
	{__NR_add_key, R_EPERM, 0, 0, "uid-0 keyrings are the host's"},
	{__NR_request_key, R_EPERM, 0, 0, "uid-0 keyrings are the host's"},
	{__NR_userfaultfd, R_EPERM, 0, 0, "stalls the kernel on faults"},
	{__NR_syslog, R_EPERM, 0, 0, "the host's kernel log"},
	{__NR_mount, R_EPERM, 0, 0, "defence in depth"},
	{__NR_umount2, R_EPERM, 0, 0, "defence in depth"},
	{__NR_pivot_root, R_EPERM, 0, 0, "defence in depth"},
	{__NR_open_by_handle_at, R_EPERM, 0, 0, "opens beside Landlock"},
	{428 /* open_tree */, R_EPERM, 0, 0, "mount API"},
	{429 /* move_mount */, R_EPERM, 0, 0, "mount API"},
	{430 /* fsopen */, R_EPERM, 0, 0, "mount API"},
	{431 /* fsconfig */, R_EPERM, 0, 0, "mount API"},
	{432 /* fsmount */, R_EPERM, 0, 0, "mount API"},
	{433 /* fspick */, R_EPERM, 0, 0, "mount API"},
	{442 /* mount_setattr */, R_EPERM, 0, 0, "mount API"},
	{467 /* open_tree_attr */, R_EPERM, 0, 0, "mount API"},
	{457 /* statmount */, R_EPERM, 0, 0,
	    "the host's mount table (as /proc/self/mountinfo, unruled)"},
	{458 /* listmount */, R_EPERM, 0, 0, "the host's mount table"},
	{460 /* lsm_set_self_attr */, R_EPERM, 0, 0, "LSM context changes"},
	{__NR_swapon, R_EPERM, 0, 0, "defence in depth"},
	{__NR_swapoff, R_EPERM, 0, 0, "defence in depth"},
	{__NR_reboot, R_EPERM, 0, 0, "defence in depth"},
	{__NR_acct, R_EPERM, 0, 0, "defence in depth"},
	{__NR_quotactl, R_EPERM, 0, 0, "defence in depth"},
	{443 /* quotactl_fd */, R_EPERM, 0, 0, "defence in depth"},
	{__NR_fanotify_init, R_EPERM, 0, 0,
	    "watches files outside the rules (read access only)"},
	{__NR_fanotify_mark, R_EPERM, 0, 0, "same"},
	/* -- IPC outside every file rule -- */
	{__NR_shmget, R_SYSV, 0, 0,
	    "SysV IPC: the host's segments, unless the run has its own"},
	{__NR_shmat, R_SYSV, 0, 0, "SysV IPC"},
	{__NR_shmctl, R_SYSV, 0, 0, "SysV IPC"},
	{__NR_shmdt, R_SYSV, 0, 0, "SysV IPC"},
	{__NR_msgget, R_SYSV, 0, 0, "SysV IPC: the host's queues"},
	{__NR_msgsnd, R_SYSV, 0, 0, "SysV IPC"},
	{__NR_msgrcv, R_SYSV, 0, 0, "SysV IPC"},
	{__NR_msgctl, R_SYSV, 0, 0, "SysV IPC"},
	{__NR_semget, R_SYSV, 0, 0, "SysV IPC: the host's semaphores"},
	{__NR_semop, R_SYSV, 0, 0, "SysV IPC"},
	{__NR_semtimedop, R_SYSV, 0, 0, "SysV IPC"},
	{__NR_semctl, R_SYSV, 0, 0, "SysV IPC"},
	{__NR_mq_open, R_EPERM, 0, 0,
	    "POSIX queues: mqueue's internal mount, no Landlock path walk"},
	{__NR_mq_unlink, R_EPERM, 0, 0, "POSIX queues"},
	{__NR_mq_timedsend, R_EPERM, 0, 0, "POSIX queues"},
	{__NR_mq_timedreceive, R_EPERM, 0, 0, "POSIX queues"},
	{__NR_mq_notify, R_EPERM, 0, 0, "POSIX queues"},
	{__NR_mq_getsetattr, R_EPERM, 0, 0, "POSIX queues"},
	/* -- file metadata: Landlock has no right for it.  Owner, xattr,
	 * times and inode flags are the kernel's: the run's mount view
	 * refuses them outside the rw rules (EROFS), and inside them a
	 * capability-less caller may only change its own files.  The
	 * mode is in a register: no setuid or setgid file, ever (a
	 * planted one is itself the hazard, seeds/000). -- */
	{__NR_chmod, R_CHMOD, 1, 0, "no setuid or setgid mode"},
	{__NR_fchmod, R_CHMOD, 1, 0, "same"},
	{__NR_fchmodat, R_CHMOD, 2, 0, "same"},
	{__NR_fchmodat2, R_CHMOD, 2, 0, "same"},
	{__NR_inotify_add_watch, R_META, 0, 0,
	    "watches: only beneath a rule, resolved by the supervisor"},
	{__NR_ioctl, R_IOCTL, 1, 0, "see ioctl_rules[]"},
	{__NR_fcntl, R_FCNTL, 1, 0,
	    "F_SETLEASE blocks host writers of files outside the rules"},
	{__NR_open, R_OPEN, 1, 0,
	    "access mode 3: ioctls and leases without read or write; "
	    "O_CREAT with a setuid or setgid mode, as chmod"},
	{__NR_openat, R_OPEN, 2, 0, "same"},
	{__NR_creat, R_CREATMODE, 1, 0, "a setuid or setgid file, as chmod"},
	{__NR_mknod, R_CREATMODE, 1, 0, "same (S_IFREG)"},
	{__NR_mknodat, R_CREATMODE, 2, 0, "same"},
	{__NR_openat2, R_ENOSYS, 0, 0,
	    "flags in memory BPF cannot read; libcs fall back to openat"},
	{__NR_truncate, R_TRUNCATE, 0, 0, "truncate stand-in (ABI < 3)"},
	/* -- sockets -- */
	{__NR_socket, R_SOCKET, 0, 0, "the plan's socket shapes only"},
	{__NR_socketpair, R_SOCKET, 0, 0, "same"},
	{__NR_sendto, R_FLAGBIT, 3, MSG_FASTOPEN,
	    "TCP fast open connects beside Landlock's connect check"},
	{__NR_sendmsg, R_FLAGBIT, 2, MSG_FASTOPEN, "same"},
	{__NR_sendmmsg, R_FLAGBIT, 3, MSG_FASTOPEN, "same"},
	{__NR_setsockopt, R_SOCKOPT, 1, 0, "see sockopt_rules[]"},
	{__NR_bind, R_HOSTNET, 0, 0,
	    "in the host's network, abstract and autobound unix names "
	    "(inherited sockets too): the supervisor binds"},
	{__NR_listen, R_HOSTNET, 0, 0,
	    "in the host's network, listen() autobinds an unbound TCP "
	    "socket (inherited too): the supervisor checks"},
};

/* ioctl requests (compared on the low 32 bits, how the kernel reads
 * them, under mask).  What they answer: */
enum { I_EPERM, I_NOTSUP };
static const struct {
	uint32_t req, mask;
	int what;
} ioctl_rules[] = {
#define ONE(r, w) {(r), 0xffffffffu, (w)}
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
	{0x9400, 0xff00, I_NOTSUP},
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
static const struct {
	uint32_t level, name;
} sockopt_rules[] = {
	{IPPROTO_TCP, 30 /* TCP_FASTOPEN_CONNECT */},
	{SOL_SOCKET, 16 /* SO_PASSCRED: autobinds an abstract name */},
	{SOL_SOCKET, 76 /* SO_PASSPIDFD: same */},
};

static const struct sf_entry *
lookup(int nr)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (table[i].nr == nr)
			return &table[i];
	return NULL;
}

const char *
sf_why(int nr)
{
	const struct sf_entry *e = lookup(nr);

	return e == NULL ? NULL : e->why;
}

int
sf_is_notified(int nr, unsigned variant)
{
	const struct sf_entry *e = lookup(nr);

	if (e == NULL || (variant & SF_NO_NOTIFY))
		return 0;
	return e->rule == R_META ||
	    (e->rule == R_HOSTNET && (variant & SF_HOST_NET));
}

int
sf_notifies(unsigned variant)
{
	size_t i;

	for (i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (sf_is_notified(table[i].nr, variant))
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

/* The base program's rule for one table entry. */
static int
add_base(scmp_filter_ctx ctx, const struct sf_entry *e, unsigned variant)
{
	int trunc = (variant & SF_DENY_TRUNCATE) != 0, r = 0;

	switch (e->rule) {
	case R_EPERM:
		return 0;	/* the default */
	case R_ENOSYS:
		return seccomp_rule_add(ctx, SCMP_ACT_ERRNO(ENOSYS), e->nr, 0);
	case R_PID0:
		return seccomp_rule_add(ctx, ALLOW, e->nr, 1, EQ32(0, 0));
	case R_PRLIMIT:
		r = seccomp_rule_add(ctx, ALLOW, e->nr, 1, EQ32(0, 0));
		if (r == 0)
			r = seccomp_rule_add(ctx, ALLOW, e->nr, 1,
			    SCMP_CMP(2, SCMP_CMP_EQ, 0, 0));
		return r;
	case R_WHO0:
		return add_who0(ctx, e->nr);
	case R_CLONE:
		return seccomp_rule_add(ctx, ALLOW, e->nr, 1,
		    SCMP_CMP(0, SCMP_CMP_MASKED_EQ, CLONE_NEW_MASK, 0));
	case R_SOCKET:
		return e->nr == __NR_socket ? add_sock_rules(ctx, variant) : 0;
	case R_OPEN:
		return add_open_rules(ctx, e->nr, e->a, trunc);
	case R_TRUNCATE:
		return seccomp_rule_add(ctx, trunc ? SCMP_ACT_ERRNO(EACCES) :
		    ALLOW, e->nr, 0);
	case R_SYSV:
		return (variant & SF_OWN_IPC) ?
		    seccomp_rule_add(ctx, ALLOW, e->nr, 0) : 0;
	default:
		/* Decided in the args program. */
		return seccomp_rule_add(ctx, ALLOW, e->nr, 0);
	}
}

/* The args program's setsockopt rules: each of sockopt_rules[]. */
static int
add_sockopt(scmp_filter_ctx ctx, int nr)
{
	size_t i;
	int r = 0;

	for (i = 0; r == 0 && i < sizeof(sockopt_rules) /
	    sizeof(sockopt_rules[0]); i++)
		r = seccomp_rule_add(ctx, EPERM_, nr, 2,
		    EQ32(1, sockopt_rules[i].level),
		    EQ32(2, sockopt_rules[i].name));
	return r;
}

/* The args program's ioctl rules: each of ioctl_rules[], and TCSBRK 0
 * (it sends a break; any other value is tcdrain(3)). */
static int
add_ioctl(scmp_filter_ctx ctx, int nr)
{
	size_t i;
	int r = 0;

	for (i = 0; r == 0 && i < sizeof(ioctl_rules) /
	    sizeof(ioctl_rules[0]); i++)
		r = seccomp_rule_add(ctx, ioctl_rules[i].what == I_NOTSUP ?
		    SCMP_ACT_ERRNO(EOPNOTSUPP) : EPERM_, nr, 1,
		    BITS32(1, ioctl_rules[i].mask, ioctl_rules[i].req));
	if (r == 0)
		r = seccomp_rule_add(ctx, EPERM_, nr, 2, EQ32(1, TCSBRK),
		    SCMP_CMP(2, SCMP_CMP_EQ, 0, 0));
	return r;
}

/* The args program's rules for one entry (default ALLOW). */
static int
add_args(scmp_filter_ctx ctx, const struct sf_entry *e, unsigned variant)
{
	static const uint32_t creat_fl[] = {O_CREAT, O_TMPFILE};
	static const uint32_t setid[] = {S_ISUID, S_ISGID};
	size_t i;
	int r = 0;

	switch (e->rule) {
	case R_META:
		return seccomp_rule_add(ctx, (variant & SF_NO_NOTIFY) ? EPERM_ :
		    SCMP_ACT_NOTIFY, e->nr, 0);
	case R_HOSTNET:
		return (variant & SF_HOST_NET) ?
		    seccomp_rule_add(ctx, (variant & SF_NO_NOTIFY) ? EPERM_ :
		    SCMP_ACT_NOTIFY, e->nr, 0) : 0;
	case R_FLAGBIT:
		return seccomp_rule_add(ctx, EPERM_, e->nr, 1,
		    BITS32(e->a, e->v, e->v));
	case R_SOCKOPT:
		return add_sockopt(ctx, e->nr);
	case R_FCNTL:
		return seccomp_rule_add(ctx, EPERM_, e->nr, 1,
		    EQ32(1, F_SETLEASE));
	case R_IOCTL:
		return add_ioctl(ctx, e->nr);
	case R_OPEN:
		/* flags at .a, the mode after them; the mode counts only
		 * with O_CREAT or O_TMPFILE. */
		for (i = 0; r == 0 && i < 4; i++)
			r = seccomp_rule_add(ctx, EPERM_, e->nr, 2,
			    BITS32(e->a, creat_fl[i / 2], creat_fl[i / 2]),
			    BITS32(e->a + 1, setid[i % 2], setid[i % 2]));
		return r;
	case R_CREATMODE:
	case R_CHMOD:
		for (i = 0; r == 0 && i < 2; i++)
			r = seccomp_rule_add(ctx, EPERM_, e->nr, 1,
			    BITS32(e->a, setid[i], setid[i]));
		return r;
	case R_SECCOMP:
		return seccomp_rule_add(ctx, EPERM_, e->nr, 2,
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
	size_t i;
	int r = 0, nr;

	for (nr = 0; r == 0 && nr <= SF_NR_KNOWN; nr++) {
		*what = "allow rules";
		if (lookup(nr) == NULL)
			r = seccomp_rule_add(bctx, ALLOW, nr, 0);
	}
	for (i = 0; r == 0 && i < sizeof(table) / sizeof(table[0]); i++) {
		*what = "table rules";
		r = add_base(bctx, &table[i], variant);
		if (r == 0)
			r = add_args(actx, &table[i], variant);
	}
	return r;
}

int
sf_compile(unsigned variant, struct sock_fprog *prog, char *err,
    size_t errlen)
{
	struct sock_fprog base = {0, NULL}, args = {0, NULL};
	scmp_filter_ctx bctx = NULL, actx = NULL;
	const char *what = "init";
	int r = 0;

	prog->filter = NULL;
	prog->len = 0;
	if (variant >= SF_NVARIANTS) {
		snprintf(err, errlen, "seccomp: no program variant %u",
		    variant);
		errno = EINVAL;
		return -1;
	}
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

	prog->filter = NULL;
	prog->len = 0;
	if (variant >= SF_NVARIANTS) {
		snprintf(err, errlen, "seccomp: no program variant %u",
		    variant);
		errno = EINVAL;
		return -1;
	}
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
