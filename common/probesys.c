/* SPDX-License-Identifier: ISC */
/* probesys: the kernel-mechanism part of the host probe: seccomp, the
 * syscalls confexec relies on, memfd sealing.  Each syscall probe passes
 * arguments the kernel rejects before doing anything, and the errno tells
 * whether the call exists. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "io.h"
#include "probeint.h"
#include "scan.h"
#include "uapi.h"

long
probe_read_long(const char *path)
{
	char buf[64];
	uint64_t v;

	if (read_small(path, buf, sizeof(buf)) == -1)
		return -1;
	if (scan_u64(buf, 0, LONG_MAX, &v) == -1)
		return -1;
	return (long)v;
}

/* ---- seccomp ---- */

static int
action_avail(uint32_t action)
{
	return syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) ==
	    0;
}

void
probe_seccomp(struct probe *p)
{
	struct seccomp_notif_sizes sz;
	struct utsname u;
	long r;

	r = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	p->seccomp_mode = r < 0 ? -1 : (int)r;
	/* A NULL program is rejected with EFAULT by a kernel with filter
	 * support, before any filter is installed. */
	r = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, NULL);
	p->seccomp_filter = r == -1 && errno == EFAULT;
	p->seccomp_kill_process = action_avail(SECCOMP_RET_KILL_PROCESS);
	p->seccomp_kill_thread = action_avail(SECCOMP_RET_KILL_THREAD);
	p->seccomp_trap = action_avail(SECCOMP_RET_TRAP);
	p->seccomp_errno = action_avail(SECCOMP_RET_ERRNO);
	p->seccomp_user_notif = action_avail(SECCOMP_RET_USER_NOTIF) &&
	    syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) == 0;
	p->seccomp_trace = action_avail(SECCOMP_RET_TRACE);
	p->seccomp_log = action_avail(SECCOMP_RET_LOG);
	if (uname(&u) == 0)
		snprintf(p->arch, sizeof(p->arch), "%s", u.machine);
#if defined(__x86_64__) && !defined(__ILP32__)
	p->arch_x86_64 = strcmp(p->arch, "x86_64") == 0;
#else
	p->arch_x86_64 = 0;
#endif
}

/* ---- syscalls probed by errno ---- */

/* 1 when a call made with arguments it must reject failed with one of the
 * errnos that prove it exists (ENOSYS: missing; EPERM: filtered). */
static int
exists(long r, int want1, int want2)
{
	if (r != -1)
		return 1;
	return errno == want1 || errno == want2;
}

void
probe_syscalls(struct probe *p)
{
	long r;

	/* NULL filename: EFAULT before anything is opened. */
	r = syscall(__NR_execveat, -1, NULL, NULL, NULL, 0);
	p->execveat = exists(r, EFAULT, EBADF);
	/* fd > max_fd: EINVAL, nothing closed. */
	r = syscall(__NR_close_range, 1U, 0U, 0U);
	p->close_range = exists(r, EINVAL, EINVAL);
	/* negative pid, unknown flag: EINVAL. */
	r = syscall(__NR_pidfd_open, -1, 1U);
	p->pidfd = exists(r, EINVAL, EINVAL);
}

void
probe_newcalls(struct probe *p)
{
	long r;

	/* size 0 is below OPEN_HOW_SIZE_VER0: EINVAL. */
	r = syscall(__NR_openat2, -1, NULL, NULL, 0);
	p->openat2 = exists(r, EINVAL, EINVAL);
	/* bad fd with AT_EMPTY_PATH: EBADF (Linux 6.6). */
	r = syscall(__NR_fchmodat2, -1, "", 0, AT_EMPTY_PATH);
	p->fchmodat2 = exists(r, EBADF, EBADF);
	/* usize 0 is below XATTR_ARGS_SIZE_VER0: EINVAL (Linux 6.13). */
	r = syscall(__NR_getxattrat, -1, NULL, 0, NULL, NULL, 0);
	p->xattrat = exists(r, EINVAL, EINVAL);
}

/* ---- memfd ---- */

void
probe_memfd(struct probe *p)
{
	long fd;

	fd = syscall(__NR_memfd_create, "cgprobe", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING);
	if (fd >= 0) {
		p->memfd_seal = fcntl((int)fd, F_ADD_SEALS, F_SEAL_SHRINK |
		    F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == 0;
		close((int)fd);
	}
	/* MFD_EXEC (6.3): EINVAL on older kernels, EACCES when
	 * vm.memfd_noexec=2 forbids executable memfds. */
	fd = syscall(__NR_memfd_create, "cgprobe", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING | MFD_EXEC);
	if (fd >= 0) {
		p->memfd_exec_flag = 1;
		close((int)fd);
	}
	p->memfd_noexec = (int)probe_read_long("/proc/sys/vm/memfd_noexec");
	if (p->memfd_noexec > 2)
		p->memfd_noexec = -1;
}

