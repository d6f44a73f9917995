/* SPDX-License-Identifier: ISC */
/* Unit tests of the seccomp table (common/sysfilter.c): what the built-in
 * programs answer, asked through a classic-BPF evaluator, for each rule
 * added against issue 10: pid-taking calls, IPC, flag bits, socket
 * options, ioctl requests (with high bits set too), the notified calls,
 * and numbers past the table. */
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <linux/fs.h>
#include <linux/seccomp.h>

#include "plan.h"
#include "sysfilter.h"
#include "bpfrun.h"
#include "tap.h"
#include "observe.h"
#include "uapi.h"

#define X86_64 0xc000003eu
#define ERR(e) (0x00050000u | (e))
#define ALLOW 0x7fff0000u
#define NOTIF 0x7fc00000u
#define HI 0xffffffff00000000ull

static struct sock_fprog progs[SF_NVARIANTS];

static long long
ask6(unsigned v, int32_t nr, uint64_t a0, uint64_t a1, uint64_t a2,
    uint64_t a3)
{
	struct sdata d;

	sdata_set(&d, X86_64, nr, a0, a1, a2, a3);
	return bpf_run(&progs[v], &d);
}
#define ask(v, nr, a0, a1, a2) ask6(v, nr, a0, a1, a2, 0)

static void
test_processes(void)
{
	is_int(ask(0, __NR_prlimit64, 1234, RLIMIT_NOFILE, 0x1000), ERR(EPERM),
	    "prlimit64 of another pid with a new limit: EPERM");
	is_int(ask(0, __NR_prlimit64, 1234, RLIMIT_NOFILE, 0), ALLOW,
	    "prlimit64 of another pid, reading only: allowed");
	is_int(ask(0, __NR_prlimit64, 0, RLIMIT_NOFILE, 0x1000), ALLOW,
	    "prlimit64 of itself: allowed");
	is_int(ask(0, __NR_prlimit64, HI, RLIMIT_NOFILE, 0x1000), ALLOW,
	    "prlimit64: high bits of the pid ignored, as the kernel does");
	is_int(ask(0, __NR_setpriority, PRIO_PROCESS, 0, 19), ALLOW,
	    "setpriority(PRIO_PROCESS, 0): allowed");
	is_int(ask(0, __NR_setpriority, PRIO_PGRP, 0, 19), ALLOW,
	    "setpriority(PRIO_PGRP, 0): its own group, allowed");
	is_int(ask(0, __NR_setpriority, PRIO_USER, 0, 19), ERR(EPERM),
	    "setpriority(PRIO_USER, 0): EPERM");
	is_int(ask(0, __NR_setpriority, PRIO_PROCESS, 1, 19), ERR(EPERM),
	    "setpriority of pid 1: EPERM");
	is_int(ask(0, __NR_ioprio_set, 3, 0, 0), ERR(EPERM),
	    "ioprio_set(IOPRIO_WHO_USER): EPERM");
	is_int(ask(0, __NR_ioprio_set, 1, 0, 0), ALLOW,
	    "ioprio_set(IOPRIO_WHO_PROCESS, 0): allowed");
	is_int(ask(0, __NR_sched_setaffinity, 77, 8, 0), ERR(EPERM),
	    "sched_setaffinity of another pid: EPERM");
	is_int(ask(0, __NR_sched_setattr, 0, 0, 0), ALLOW,
	    "sched_setattr of itself: allowed");
	is_int(ask(0, __NR_kcmp, 0, 0, 0), ERR(EPERM), "kcmp: EPERM");
	is_int(ask(0, 440, 0, 0, 0), ERR(EPERM), "process_madvise: EPERM");
	is_int(ask(0, __NR_get_robust_list, 0, 0, 0), ALLOW,
	    "get_robust_list of itself: allowed");
}

static void
test_ipc_and_kernel(void)
{
	static const int perm[] = {__NR_shmget, __NR_shmat, __NR_shmctl,
	    __NR_shmdt, __NR_msgget, __NR_msgsnd, __NR_msgrcv, __NR_msgctl,
	    __NR_semget, __NR_semop, __NR_semtimedop, __NR_semctl,
	    __NR_mq_open, __NR_mq_unlink, __NR_mq_timedsend,
	    __NR_mq_timedreceive, __NR_mq_notify, __NR_mq_getsetattr,
	    __NR_keyctl, __NR_add_key, __NR_request_key, __NR_fanotify_init,
	    __NR_fanotify_mark, 457, 458, 460, __NR_syslog};
	size_t i;
	int n;

	for (i = 0; i < sizeof(perm) / sizeof(perm[0]); i++)
		is_int(ask(3, perm[i], 0, 0, 0), ERR(EPERM),
		    "syscall %d EPERM (%s)", perm[i], sf_why(perm[i]));
	for (i = 0; i < 12; i++) {
		is_int(ask(3 | SF_OWN_IPC, perm[i], 0, 0, 0), ALLOW,
		    "syscall %d allowed in the run's IPC namespace", perm[i]);
		is_int(ask(SF_HOST_NET, perm[i], 0, 0, 0), ERR(EPERM),
		    "syscall %d EPERM without it", perm[i]);
	}
	for (i = 12; i < 18; i++)
		is_int(ask(3 | SF_OWN_IPC, perm[i], 0, 0, 0), ERR(EPERM),
		    "POSIX queue %d EPERM in the run's IPC namespace too",
		    perm[i]);
	is_int(ask(0, 459, 0, 0, 0), ALLOW, "lsm_get_self_attr allowed");
	is_int(ask(0, 462, 0, 0, 0), ALLOW, "mseal allowed");
	is_int(ask(0, 468, 0, 0, 0), ALLOW, "file_getattr allowed");
	for (n = SF_NR_KNOWN + 1; n <= SF_NR_MAX; n += 7)
		is_int(ask(0, n, 0, 0, 0), ERR(EPERM),
		    "syscall %d beyond the table: EPERM", n);
	is_int(ask(0, __NR_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, 0), ERR(EPERM),
	    "seccomp with a listener of its own: EPERM");
	is_int(ask(0, __NR_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER | HI, 0), ERR(EPERM),
	    "... high bits of the flags ignored");
	is_int(ask(0, __NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, 0), ALLOW,
	    "seccomp, a filter of its own without a listener: allowed");
	is_int(ask(0, __NR_openat2, 0, 0, 0), ERR(ENOSYS), "openat2: ENOSYS");
	is_int(ask(0, __NR_open, 0, 3, 0), ERR(EACCES),
	    "open, access mode 3: EACCES");
	is_int(ask(0, __NR_openat, 0, 0, 3 | O_CLOEXEC), ERR(EACCES),
	    "openat, access mode 3: EACCES");
	is_int(ask(0, __NR_openat, 0, 0, O_RDWR | O_CREAT), ALLOW,
	    "openat O_RDWR: allowed");
	is_int(ask6(0, __NR_openat, 0, 0, O_WRONLY | O_CREAT, 04755),
	    ERR(EPERM), "openat O_CREAT with a setuid mode: EPERM");
	is_int(ask6(0, __NR_openat, 0, 0, O_RDWR | O_TMPFILE, 02700),
	    ERR(EPERM), "openat O_TMPFILE with a setgid mode: EPERM");
	is_int(ask6(0, __NR_openat, 0, 0, O_WRONLY | O_CREAT, 0755), ALLOW,
	    "openat O_CREAT 0755: allowed");
	is_int(ask6(0, __NR_openat, 0, 0, O_RDONLY, 04755), ALLOW,
	    "openat without O_CREAT: its mode argument is not read");
	is_int(ask(0, __NR_open, 0, O_WRONLY | O_CREAT, 04755), ERR(EPERM),
	    "open O_CREAT setuid: EPERM");
	is_int(ask(0, __NR_creat, 0, 02755, 0), ERR(EPERM),
	    "creat setgid: EPERM");
	is_int(ask(0, __NR_creat, 0, 0644, 0), ALLOW, "creat 0644: allowed");
	is_int(ask(0, __NR_mknodat, 0, 0, 0100000 | 04755), ERR(EPERM),
	    "mknodat S_IFREG setuid: EPERM");
	is_int(ask(0, __NR_fcntl, 3, F_SETLEASE, F_RDLCK), ERR(EPERM),
	    "fcntl F_SETLEASE: EPERM");
	is_int(ask(0, __NR_fcntl, 3, HI | F_SETLEASE, F_RDLCK), ERR(EPERM),
	    "fcntl F_SETLEASE, high bits: EPERM");
	is_int(ask(0, __NR_fcntl, 3, F_SETFL, 0), ALLOW, "fcntl F_SETFL allowed");
}

static void
test_sockets(void)
{
	const unsigned T = PLAN_SOCK_TCP, U = PLAN_SOCK_UNIX, H = SF_HOST_NET;

	is_int(ask6(T, __NR_sendto, 3, 0, 1, MSG_FASTOPEN), ERR(EPERM),
	    "sendto MSG_FASTOPEN: EPERM");
	is_int(ask6(T, __NR_sendto, 3, 0, 1, MSG_FASTOPEN | MSG_NOSIGNAL |
	    HI), ERR(EPERM), "sendto MSG_FASTOPEN among flags: EPERM");
	is_int(ask6(T, __NR_sendto, 3, 0, 1, MSG_NOSIGNAL), ALLOW,
	    "sendto without it: allowed");
	is_int(ask(T, __NR_sendmsg, 3, 0, MSG_FASTOPEN), ERR(EPERM),
	    "sendmsg MSG_FASTOPEN: EPERM");
	is_int(ask6(T, __NR_sendmmsg, 3, 0, 1, MSG_FASTOPEN), ERR(EPERM),
	    "sendmmsg MSG_FASTOPEN: EPERM");
	is_int(ask(T, __NR_setsockopt, 3, IPPROTO_TCP, 30), ERR(EPERM),
	    "TCP_FASTOPEN_CONNECT: EPERM");
	is_int(ask(U, __NR_setsockopt, 3, SOL_SOCKET, SO_PASSCRED), ERR(EPERM),
	    "SO_PASSCRED: EPERM");
	is_int(ask(U, __NR_setsockopt, 3, SOL_SOCKET, SO_REUSEADDR), ALLOW,
	    "SO_REUSEADDR: allowed");
	is_int(ask(U | H, __NR_bind, 3, 0, 2), NOTIF,
	    "host network, unix grant: bind notified");
	is_int(ask(T | H, __NR_bind, 3, 0, 16), NOTIF,
	    "host network, tcp only: bind notified too (an inherited unix "
	    "socket)");
	is_int(ask(H, __NR_bind, 3, 0, 2), NOTIF,
	    "host network, no socket grant: bind notified (inherited "
	    "sockets)");
	is_int(ask(T | H, __NR_listen, 3, 1, 0), NOTIF,
	    "host network, tcp grant: listen notified");
	is_int(ask(H, __NR_listen, 3, 1, 0), NOTIF,
	    "host network, no grant: listen notified (an inherited TCP "
	    "socket)");
	is_int(ask(U, __NR_bind, 3, 0, 2), ALLOW,
	    "the run's own network: bind is the kernel's");
	is_int(ask(T, __NR_listen, 3, 1, 0), ALLOW,
	    "the run's own network: listen is the kernel's");
	ok(sf_is_notified(__NR_bind, H) && sf_is_notified(__NR_listen, U | H) &&
	    !sf_is_notified(__NR_bind, U) && !sf_is_notified(__NR_listen, 0),
	    "sf_is_notified agrees for bind and listen");
}

static void
test_ioctl_and_meta(void)
{
	static const uint32_t tty[] = {TCSETS, TCSETSW, TCSETSF, TIOCSWINSZ,
	    TIOCEXCL, TIOCSTI, TCFLSH, TCXONC, TIOCSETD, 0x402c542b};
	static const int meta[] = {__NR_chown, __NR_fchown, __NR_lchown,
	    __NR_fchownat, __NR_setxattr, __NR_lsetxattr, __NR_fsetxattr,
	    __NR_setxattrat, __NR_removexattr, __NR_lremovexattr,
	    __NR_fremovexattr, __NR_removexattrat, __NR_utime, __NR_utimes,
	    __NR_futimesat, __NR_utimensat, 469};
	/* The mode's argument: chmod, fchmod 1; fchmodat, fchmodat2 2. */
	static const struct {
		int nr, a;
	} chm[] = {{__NR_chmod, 1}, {__NR_fchmod, 1}, {__NR_fchmodat, 2},
	    {__NR_fchmodat2, 2}};
	uint64_t m[3];
	size_t i;
	unsigned v;
	int nr, agree = 1;

	for (i = 0; i < sizeof(tty) / sizeof(tty[0]); i++) {
		is_int(ask(0, __NR_ioctl, 0, tty[i], 0), ERR(EPERM),
		    "ioctl 0x%x on any fd: EPERM", tty[i]);
		is_int(ask(0, __NR_ioctl, 0, HI | tty[i], 0), ERR(EPERM),
		    "ioctl 0x%x with high bits (musl's int): EPERM", tty[i]);
	}
	is_int(ask(0, __NR_ioctl, 0, TCGETS, 0), ALLOW, "TCGETS allowed");
	is_int(ask(0, __NR_ioctl, 1, TCSBRK, 0), ERR(EPERM),
	    "TCSBRK 0 (a break): EPERM");
	is_int(ask(0, __NR_ioctl, 1, TCSBRK, 1), ALLOW,
	    "TCSBRK 1 (tcdrain): allowed");
	is_int(ask(0, __NR_ioctl, 0, TIOCGWINSZ, 0), ALLOW,
	    "TIOCGWINSZ allowed");
	is_int(ask(0, __NR_ioctl, 3, FS_IOC_SETFLAGS, 0), ALLOW,
	    "FS_IOC_SETFLAGS allowed (the mount view and the kernel's owner "
	    "rule)");
	is_int(ask(0, __NR_ioctl, 3, FS_IOC_FSSETXATTR, 0), ALLOW,
	    "FS_IOC_FSSETXATTR allowed");
	is_int(ask(0, __NR_ioctl, 3, FS_IOC_GETFLAGS, 0), ALLOW,
	    "FS_IOC_GETFLAGS allowed");
	is_int(ask(0, __NR_ioctl, 3, FS_IOC_SETVERSION, 0), ERR(EPERM),
	    "FS_IOC_SETVERSION EPERM");
	is_int(ask(0, __NR_ioctl, 3, 0x50009417 /* BTRFS_IOC_SNAP_CREATE_V2 */,
	    0), ERR(EOPNOTSUPP), "btrfs snapshot: EOPNOTSUPP");
	is_int(ask(0, __NR_ioctl, 3, 0x40049409 /* FICLONE */, 0),
	    ERR(EOPNOTSUPP), "FICLONE: EOPNOTSUPP (cp copies instead)");
	for (i = 0; i < sizeof(meta) / sizeof(meta[0]); i++)
		is_int(ask(0, meta[i], 0, 0, 0), ALLOW,
		    "metadata call %d allowed (the mount view bounds it)",
		    meta[i]);
	for (i = 0; i < 4; i++) {
		memset(m, 0, sizeof(m));
		m[chm[i].a] = 0755;
		is_int(ask(0, chm[i].nr, m[0], m[1], m[2]), ALLOW,
		    "mode call %d, 0755: allowed", chm[i].nr);
		m[chm[i].a] = 04755;
		is_int(ask(0, chm[i].nr, m[0], m[1], m[2]), ERR(EPERM),
		    "mode call %d, 04755: EPERM", chm[i].nr);
		m[chm[i].a] = 02775 | HI;
		is_int(ask(0, chm[i].nr, m[0], m[1], m[2]), ERR(EPERM),
		    "mode call %d, 02775 with high bits: EPERM", chm[i].nr);
		m[chm[i].a] = 01777;
		is_int(ask(0, chm[i].nr, m[0], m[1], m[2]), ALLOW,
		    "mode call %d, sticky 01777: allowed", chm[i].nr);
	}
	is_int(ask(0, __NR_inotify_add_watch, 3, 0, 0), NOTIF,
	    "inotify_add_watch notified (Landlock does not see watches)");
	/* The table and the programs agree, in every variant. */
	for (v = 0; v < SF_NVARIANTS; v++)
		for (nr = 0; nr <= SF_NR_KNOWN; nr++)
			if (sf_is_notified(nr, v) &&
			    ask(v, nr, 0, 0, 0) != NOTIF)
				agree = 0;
	ok(agree, "every call sf_is_notified names is notified");
}

/* sf_observe: every verdict of the program is kept, except that the
 * observed calls it allowed are notified; for every variant, every
 * number and a few argument shapes (modes, flags, socket families), and
 * the x32 and i386 entries. */
static void
test_observe(void)
{
	static const uint64_t shapes[][4] = {
		{0, 0, 0, 0}, {AT_FDCWD, 0x1000, O_RDONLY, 0},
		{AT_FDCWD, 0x1000, 3, 0}, {AT_FDCWD, 0x1000, O_CREAT, 04755},
		{0x1000, O_CREAT | O_WRONLY, 02755, 0}, {0x1000, 3, 0, 0},
		{AF_INET, SOCK_RAW, 0, 0}, {HI | 1, HI | 2, HI | 3, HI},
	};
	struct sock_fprog o;
	struct sdata d;
	char err[256];
	unsigned v;
	size_t k;
	long long r0, r1;
	int nr, bad = 0, notified = 0;

	for (v = 0; v < SF_NVARIANTS; v++) {
		if (sf_build(v, &o, err, sizeof(err)) == -1 ||
		    sf_observe(&o, obs_calls, obs_ncalls) == -1) {
			ok(0, "sf_observe on variant %u", v);
			return;
		}
		for (nr = 0; nr <= SF_NR_MAX; nr++)
			for (k = 0; k < sizeof(shapes) / sizeof(shapes[0]);
			    k++) {
				memset(&d, 0, sizeof(d));
				d.nr = nr;
				d.arch = X86_64;
				memcpy(d.args, shapes[k], sizeof(shapes[k]));
				r0 = bpf_run(&progs[v], &d);
				r1 = bpf_run(&o, &d);
				if (r0 == ALLOW && obs_is_observed(nr)) {
					bad += r1 != NOTIF;
					notified += r1 == NOTIF;
				} else
					bad += r1 != r0;
				d.nr = nr | 0x40000000;	/* x32 */
				bad += bpf_run(&o, &d) != bpf_run(&progs[v],
				    &d);
				d.nr = nr;
				d.arch = 0x40000003u;	/* i386 */
				bad += bpf_run(&o, &d) != bpf_run(&progs[v],
				    &d);
			}
		sf_free(&o);
	}
	is_int(bad, 0, "sf_observe: every verdict kept but allowed observed "
	    "calls, all variants, x32 and i386 included");
	ok(notified > 0, "sf_observe: allowed observed calls are notified");
	memset(&d, 0, sizeof(d));
	d.arch = X86_64;
	d.nr = __NR_openat;
	d.args[2] = 3;
	(void)sf_build(0, &o, err, sizeof(err));
	(void)sf_observe(&o, obs_calls, obs_ncalls);
	is_int(bpf_run(&o, &d), ERR(EACCES),
	    "sf_observe: openat with access mode 3 still EACCES");
	d.args[2] = O_RDONLY;
	is_int(bpf_run(&o, &d), NOTIF, "sf_observe: openat O_RDONLY notified");
	d.nr = __NR_getpid;
	is_int(bpf_run(&o, &d), ALLOW, "sf_observe: getpid allowed");
	d.nr = __NR_execveat;
	is_int(bpf_run(&o, &d), ALLOW,
	    "sf_observe: execveat not observed (the supervisor's own)");
	sf_free(&o);
}

/* The watched number's argument flag bits of obs_writes, -1: always. */
static long long
watch_of(int nr, uint64_t args[6])
{
	size_t i;

	for (i = 0; i < obs_nwrites; i++)
		if (obs_writes[i].nr == nr)
			return obs_writes[i].arg < 0 ? 1 :
			    (uint32_t)args[obs_writes[i].arg] &
			    obs_writes[i].mask ? 1 : 0;
	return 0;
}

/* sf_observe_watch with the cheap observer's watches: every verdict of
 * the program kept, except the allowed calls a watch matches, notified:
 * open and openat only with a write, create or truncate bit in their
 * flags' low word; every variant, number and shape, x32 and i386. */
static void
test_observe_writes(void)
{
	static const uint64_t shapes[][4] = {
		{0, 0, 0, 0}, {AT_FDCWD, 0x1000, O_RDONLY, 0},
		{AT_FDCWD, 0x1000, O_WRONLY, 0}, {AT_FDCWD, 0x1000, O_RDWR, 0},
		{AT_FDCWD, 0x1000, O_CREAT, 0644}, {AT_FDCWD, 0x1000, O_TRUNC, 0},
		{0x1000, O_WRONLY, 0, 0}, {0x1000, O_TRUNC, 0, 0},
		{AT_FDCWD, 0x1000, O_RDONLY | O_DIRECTORY | O_NOFOLLOW, 0},
		{AT_FDCWD, 0x1000, HI | O_RDONLY, 0}, {0x1000, HI, 0, 0},
		{AT_FDCWD, 0x1000, 3, 0},
	};
	struct sock_fprog o;
	struct sdata d;
	struct sf_watch bad_w = {__NR_openat, 6, 1};
	char err[256];
	unsigned v;
	size_t k;
	long long r0, r1;
	int nr, bad = 0, notified = 0, ro_notified = 0;

	for (v = 0; v < SF_NVARIANTS; v++) {
		if (sf_build(v, &o, err, sizeof(err)) == -1 ||
		    sf_observe_watch(&o, obs_writes, obs_nwrites) == -1) {
			ok(0, "sf_observe_watch on variant %u", v);
			return;
		}
		for (nr = 0; nr <= SF_NR_MAX; nr++)
			for (k = 0; k < sizeof(shapes) / sizeof(shapes[0]);
			    k++) {
				memset(&d, 0, sizeof(d));
				d.nr = nr;
				d.arch = X86_64;
				memcpy(d.args, shapes[k], sizeof(shapes[k]));
				r0 = bpf_run(&progs[v], &d);
				r1 = bpf_run(&o, &d);
				if (r0 == ALLOW && watch_of(nr, d.args)) {
					bad += r1 != NOTIF;
					notified += r1 == NOTIF;
				} else
					bad += r1 != r0;
				ro_notified += (nr == __NR_openat ||
				    nr == __NR_open) && r1 == NOTIF &&
				    !watch_of(nr, d.args);
				d.nr = nr | 0x40000000;	/* x32 */
				bad += bpf_run(&o, &d) != bpf_run(&progs[v],
				    &d);
				d.nr = nr;
				d.arch = 0x40000003u;	/* i386 */
				bad += bpf_run(&o, &d) != bpf_run(&progs[v],
				    &d);
			}
		sf_free(&o);
	}
	is_int(bad, 0, "sf_observe_watch: every verdict kept but the "
	    "watched allowed calls, all variants, x32 and i386 included");
	ok(notified > 0, "sf_observe_watch: watched calls are notified");
	is_int(ro_notified, 0, "sf_observe_watch: no read-only open notified");
	memset(&d, 0, sizeof(d));
	d.arch = X86_64;
	(void)sf_build(0, &o, err, sizeof(err));
	(void)sf_observe_watch(&o, obs_writes, obs_nwrites);
	d.nr = __NR_openat;
	d.args[2] = O_RDONLY;
	is_int(bpf_run(&o, &d), ALLOW, "openat O_RDONLY: allowed, never "
	    "notified");
	d.args[2] = O_WRONLY | O_CREAT;
	is_int(bpf_run(&o, &d), NOTIF, "openat O_WRONLY|O_CREAT: notified");
	d.args[2] = HI | O_RDONLY;
	is_int(bpf_run(&o, &d), ALLOW, "openat: the high word of the flags "
	    "is not read");
	d.nr = __NR_execve;
	is_int(bpf_run(&o, &d), NOTIF, "execve: notified");
	d.nr = __NR_newfstatat;
	is_int(bpf_run(&o, &d), ALLOW, "newfstatat: allowed (a lookup)");
	d.nr = __NR_getpid;
	is_int(bpf_run(&o, &d), ALLOW, "getpid: allowed");
	is_int(sf_observe_watch(&o, &bad_w, 1), -1, "an argument past the "
	    "sixth refused");
	sf_free(&o);
}

int
main(void)
{
	char err[256];
	unsigned v;

	for (v = 0; v < SF_NVARIANTS; v++)
		if (sf_build(v, &progs[v], err, sizeof(err)) == -1) {
			printf("Bail out! %s\n", err);
			return 1;
		}
	test_processes();
	test_ipc_and_kernel();
	test_sockets();
	test_ioctl_and_meta();
	test_observe();
	test_observe_writes();
	for (v = 0; v < SF_NVARIANTS; v++)
		sf_free(&progs[v]);
	return done_testing();
}
