/* SPDX-License-Identifier: ISC */
/* sysfilter: the payload's seccomp filter, compiled with libseccomp in the
 * parent and exported to a BPF program the child loads with seccomp(2)
 * (only a syscall after clone).  Nothing here prints.
 *
 * The policy is one table, table[] in sysfilter.c: groups of calls,
 * each call named once, with the group's rule and why.  In short (x86_64 only):
 *  - any other architecture (i386 int 0x80) and every x32 syscall number
 *    (nr | 0x40000000) kill the process;
 *  - numbers 0..SF_NR_KNOWN outside the table are allowed; numbers above
 *    (syscalls newer than this table) get EPERM;
 *  - EPERM: calls that reach other processes (ptrace, process_vm_*,
 *    pidfd_getfd, kcmp, process_madvise, process_mrelease), new or other
 *    namespaces, io_uring, the mount API, keyrings, SysV IPC (unless
 *    the run has its own IPC namespace: SF_OWN_IPC), POSIX message queues, fanotify, statmount/listmount, syslog, and (defence
 *    in depth) module, kexec, bpf, perf, swap, reboot, acct, quota;
 *  - pid-taking calls act on the caller only: prlimit64 (pid 0 or no new
 *    limit), setpriority and ioprio_set (process or own process group,
 *    who 0), sched_setaffinity/setscheduler/setparam/setattr,
 *    migrate_pages, move_pages, get_robust_list (pid 0); EPERM else;
 *  - ENOSYS: clone3 and openat2 (their flags live in memory the filter
 *    cannot read; libcs fall back to clone and openat);
 *  - EACCES: open/openat with access mode 3 (ioctls and leases without a
 *    read or write check); EPERM: a setuid or setgid mode at creation
 *    (open/openat with O_CREAT or O_TMPFILE, creat, mknod, mknodat) and in a mode
 *    change (chmod, fchmod, fchmodat, fchmodat2: the mode is a
 *    register; owner, xattrs, times and inode flags are left to the
 *    kernel and the run's read-only mount view, mountview.h), fcntl F_SETLEASE, the MSG_FASTOPEN bit
 *    on sendto/sendmsg/sendmmsg, setsockopt TCP_FASTOPEN_CONNECT,
 *    SO_PASSCRED and SO_PASSPIDFD (they autobind abstract unix names),
 *    seccomp(2) with SECCOMP_FILTER_FLAG_NEW_LISTENER (its listener would
 *    answer our notifications), and ioctls that change a terminal (TCSETS*,
 *    TIOCSWINSZ, TIOCEXCL, TIOCSTI, TCFLSH, TCXONC, ...) or inode
 *    metadata a capability-less owner could set (FS_IOC_SETVERSION,
 *    encryption policy, verity);
 *  - user notification (SECCOMP_RET_USER_NOTIF, answered by the
 *    supervisor, notify.h): inotify_add_watch in every variant; bind
 *    and listen only with SF_HOST_NET (the run shares the host's
 *    network: an inherited socket is one the plan did not grant).  The
 *    program must be loaded with sf_load_listener: without a listener
 *    those calls fail with ENOSYS;
 *  - clone with a CLONE_NEW* flag: EPERM;
 *  - socket/socketpair: EPERM unless the plan grants the shape: AF_UNIX
 *    with SOCK_STREAM/SOCK_DGRAM/SOCK_SEQPACKET and protocol 0 (unix), or
 *    AF_INET/AF_INET6 with SOCK_STREAM and protocol 0 or IPPROTO_TCP
 *    (tcp; socketpair never takes AF_INET).  Only the low 32 bits of int
 *    arguments are compared (the kernel reads them as int);
 *  - with SF_DENY_TRUNCATE (Landlock ABI < 3, which has no truncate
 *    right): truncate(2) and O_RDONLY|O_TRUNC opens answer EACCES
 *    (Landlock's write_file check at open covers O_WRONLY and O_RDWR).
 *    ftruncate(2) needs a descriptor open for writing. */
#ifndef BORNE_SYSFILTER_H
#define BORNE_SYSFILTER_H

#include <stddef.h>
#include <stdint.h>
#include <linux/filter.h>

#define SF_NR_MAX 511	/* x86_64 numbers below the x32 region */
#define SF_NR_KNOWN 469	/* file_setattr: the newest call judged here */

/* A program variant: the plan's socket grants (PLAN_SOCK_* bits 0..1)
 * plus SF_DENY_TRUNCATE, the stand-in for Landlock's truncate right,
 * SF_OWN_IPC, the run in an IPC namespace of its own (SysV IPC allowed),
 * SF_HOST_NET, the run in the host's network (bind and listen
 * notified), and SF_NO_NOTIFY, no listener (a seccomp filter above ours
 * refuses one, as a confexec payload's does): every call that would be
 * notified is refused EPERM instead. */
#define SF_DENY_TRUNCATE 0x4u
#define SF_OWN_IPC 0x8u
#define SF_HOST_NET 0x10u
#define SF_NO_NOTIFY 0x20u
#define SF_NVARIANTS 64

/* The variant for a plan's socket grants on a kernel of Landlock ABI abi:
 * SF_DENY_TRUNCATE below ABI 3 (LANDLOCK_ACCESS_FS_TRUNCATE); own_ipc and
 * host_net as the run's namespaces are. */
unsigned sf_variant(unsigned sock, int abi, int own_ipc, int host_net);

/* Compile the filter for a variant (sf_variant) with libseccomp into
 * prog (prog->filter malloc'd; free with sf_free).
 * Returns 0, or -1 with errno and err set.  Cold, libseccomp costs
 * several milliseconds per call, so this runs at build time (the
 * generator common/gen/sysfilter-gen.c) and in the unit test that checks
 * the built-in programs equal a fresh compile. */
int sf_compile(unsigned variant, struct sock_fprog *prog, char *err,
    size_t errlen);

/* The same program, from the table compiled at build time by sf_compile
 * (copied into a malloc'd prog->filter).  Returns 0, or -1 with errno
 * and err set. */
int sf_build(unsigned variant, struct sock_fprog *prog, char *err,
    size_t errlen);

/* Load prog on the calling thread (seccomp(2), mode filter, no flags);
 * needs no_new_privs or CAP_SYS_ADMIN.  Returns 0 or -1 with errno. */
int sf_load(const struct sock_fprog *prog);

/* The same, with a user-notification listener: the filter is loaded
 * with SECCOMP_FILTER_FLAG_NEW_LISTENER, and with
 * SECCOMP_FILTER_FLAG_WAIT_KILLABLE_RECV where the kernel accepts it
 * (5.19; retried without it on EINVAL).  Returns the listener fd
 * (close-on-exec), or -1 with errno.  Only system calls: usable between
 * clone and exec. */
int sf_load_listener(const struct sock_fprog *prog);

/* Rewrite prog (from sf_build) so that the calls nrs[0..n) it allows
 * are notified instead (SECCOMP_RET_USER_NOTIF), for a supervisor that
 * only observes them and lets them continue (observe.h): every "return
 * allow" becomes a jump to a tail that returns user notification for
 * those numbers on x86_64 and allow otherwise.  Every other verdict of
 * the program stays as it was, so the calls it refuses are refused
 * before any notification.  prog must then be loaded with
 * sf_load_listener.  Returns 0, or -1 with errno (EINVAL: a return
 * that is not a constant, or a program that would grow past
 * BPF_MAXINSNS) and prog unchanged. */
int sf_observe(struct sock_fprog *prog, const int *nrs, size_t n);

/* The same, each call notified only where its argument arg (0..5; -1:
 * always) has a bit of mask set in its low 32 bits (an int flags
 * argument as the kernel reads it): openat with the write and create
 * bits of its flags, say, while its read-only opens stay allowed in the
 * filter and never reach the supervisor.  One watch per number.
 * Returns 0, or -1 with errno (EINVAL: as above, or an argument out of
 * range, an empty mask, a tail past 255 instructions). */
struct sf_watch {
	int nr;
	int arg;
	uint32_t mask;
};
int sf_observe_watch(struct sock_fprog *prog, const struct sf_watch *w,
    size_t n);

/* 1 if variant answers syscall nr by user notification. */
int sf_is_notified(int nr, unsigned variant);

/* 1 if variant answers some call by user notification (it must be
 * loaded with sf_load_listener). */
int sf_notifies(unsigned variant);

/* The table's reason for nr, or NULL when nr is allowed plainly. */
const char *sf_why(int nr);

void sf_free(struct sock_fprog *prog);

#endif
