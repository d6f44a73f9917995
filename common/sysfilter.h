/* SPDX-License-Identifier: ISC */
/* sysfilter: the payload's seccomp filter, compiled with libseccomp in the
 * parent and exported to a BPF program the child loads with seccomp(2)
 * (only a syscall after clone).  Nothing here prints.
 *
 * The filter (x86_64 only):
 *  - any other architecture (i386 int 0x80) and every x32 syscall number
 *    (nr | 0x40000000) kill the process: libseccomp's x86_64 filter sends
 *    x32 numbers to the bad-architecture action, set to KILL_PROCESS;
 *  - syscall numbers 0..SF_NR_MAX are allowed except those below; numbers
 *    above (syscalls newer than this table) get EPERM;
 *  - EPERM: ptrace, process_vm_readv/writev, pidfd_getfd, unshare, setns,
 *    clone with a CLONE_NEW* flag, io_uring_setup/enter/register, and
 *    (defence in depth; capabilities are dropped anyway) kexec_load,
 *    kexec_file_load, init_module, finit_module, delete_module, bpf,
 *    perf_event_open, keyctl, add_key, request_key, userfaultfd, mount,
 *    umount2, pivot_root, open_by_handle_at, fsopen, fsmount, fsconfig,
 *    move_mount, open_tree, mount_setattr, swapon, swapoff, reboot,
 *    acct, quotactl;
 *  - ENOSYS: clone3 (its flags live in memory the filter cannot read, so
 *    libcs fall back to clone, whose flags it can);
 *  - socket/socketpair: EPERM unless the plan grants the shape: AF_UNIX
 *    with SOCK_STREAM/SOCK_DGRAM/SOCK_SEQPACKET and protocol 0 (unix), or
 *    AF_INET/AF_INET6 with SOCK_STREAM and protocol 0 or IPPROTO_TCP
 *    (tcp; socketpair never takes AF_INET).  SOCK_NONBLOCK/SOCK_CLOEXEC
 *    are masked out of the type; only the low 32 bits of each argument
 *    are compared (the kernel reads them as int);
 *  - with SF_DENY_TRUNCATE (Landlock ABI < 3, which has no truncate
 *    right): truncate(2) answers EACCES; open/openat with O_TRUNC answer
 *    EACCES unless the access mode is O_WRONLY or O_RDWR (Landlock's
 *    write_file check at open covers those; O_RDONLY|O_TRUNC and access
 *    mode 3 with O_TRUNC truncate without any Landlock write check);
 *    openat2 answers ENOSYS (its flags are in memory the filter cannot
 *    read; libcs fall back to openat).  ftruncate(2) needs a descriptor
 *    open for writing, which Landlock's write_file right bounds. */
#ifndef BORNE_SYSFILTER_H
#define BORNE_SYSFILTER_H

#include <stddef.h>
#include <linux/filter.h>

#define SF_NR_MAX 511	/* x86_64 numbers below the x32 region */

/* A program variant: the plan's socket grants (PLAN_SOCK_* bits 0..1)
 * plus SF_DENY_TRUNCATE, the stand-in for Landlock's truncate right. */
#define SF_DENY_TRUNCATE 0x4u
#define SF_NVARIANTS 8

/* The variant for a plan's socket grants on a kernel of Landlock ABI abi:
 * SF_DENY_TRUNCATE below ABI 3 (LANDLOCK_ACCESS_FS_TRUNCATE). */
unsigned sf_variant(unsigned sock, int abi);

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

void sf_free(struct sock_fprog *prog);

#endif
