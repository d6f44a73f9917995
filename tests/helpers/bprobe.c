/* SPDX-License-Identifier: ISC */
/* bprobe: the boundary probed from inside a confexec run, many probes a
 * run, one line each: "NAME ERRNO" ("NAME OK" when the call succeeded,
 * "NAME SIGn" when it killed the probe).  Every probe runs in a child of
 * its own.
 *   bprobe sys       each call the payload's seccomp table refuses (but
 *                    the SysV rows), each ioctl request and socket option
 *                    it refuses.  The call is made under a filter of the
 *                    probe's own that answers it SECCOMP_RET_TRACE: with
 *                    no tracer that is ENOSYS, and the call never runs.
 *                    confexec's refusal (EPERM, EACCES, EOPNOTSUPP) takes
 *                    precedence over it; a call confexec's filter lets
 *                    through prints ENOSYS, whatever the capabilities,
 *                    and changes nothing.
 *   bprobe sysv      the SysV IPC calls, the same way
 *   bprobe fs DIR RW Landlock's file system rights, in a run without
 *                    the mount view (Landlock alone answers): calls on
 *                    names in DIR, a directory outside every rule (DIR/f
 *                    a file, DIR/sub a directory, DIR/x a script); RW a
 *                    --rw directory (RW/x a script, RW/a/f a file, RW/b)
 *   bprobe net FD PORT    an inherited TCP socket FD bound (to
 *                    127.0.0.1:0) and connected (to 127.0.0.1:PORT)
 *   bprobe tcp PORT  the same on a socket of the payload's own
 *   bprobe meta RW   metadata beneath a --rw rule, what the kernel leaves
 *                    a caller without capabilities: RW/mine its own file
 *                    (chown, chgrp to another id, a trusted. xattr, the
 *                    immutable and append-only flags, a setuid mode), RW/other another's (a hard link),
 *                    RW/sticky/theirs another's in another's sticky
 *                    directory (unlink)
 *   bprobe host RO RW OUT PORT NAME PID
 *                    the supervisor's checks in the host's network and
 *                    Landlock's scopes: binds (TCP port 0, abstract, autobind,
 *                    pathname in RO, in RW, in RW/other), a listen, a
 *                    connect to PORT, a connect to the abstract NAME,
 *                    signal 0 to PID, watches (OUT/f, RO/other, RO/link)
 *   bprobe pid PID   the pid namespace: signal 0 to PID
 *   bprobe abstract-listen NAME READY   fixture (outside confexec): listen
 *                    on the abstract unix NAME, create READY, pause
 *   bprobe with-tcp FD PROG [ARG...]    fixture: a TCP socket on FD,
 *                    then exec PROG */
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/random.h>
#include <linux/seccomp.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <termios.h>
#include <unistd.h>
#include <linux/fs.h>

#include "ename.h"
#include "uapi.h"

/* The call fn(arg) in a child; its line.  fn returns -1 with errno, or
 * anything else for success. */
static void
probe(const char *name, long (*fn)(const void *), const void *arg)
{
	pid_t pid;
	int st;
	long r;

	fflush(stdout);
	pid = fork();
	if (pid == -1) {
		printf("%s fork:%s\n", name, ename(errno));
		return;
	}
	if (pid == 0) {
		r = fn(arg);
		_exit(r == -1 ? (errno & 0xff ? errno : 255) : 0);
	}
	while (waitpid(pid, &st, 0) == -1)
		if (errno != EINTR) {
			printf("%s wait:%s\n", name, ename(errno));
			return;
		}
	if (WIFSIGNALED(st))
		printf("%s SIG%d\n", name, WTERMSIG(st));
	else if (WEXITSTATUS(st) == 0)
		printf("%s OK\n", name);
	else
		printf("%s %s\n", name, ename(WEXITSTATUS(st)));
}

/* ---- sys: the seccomp table ---- */

struct call {
	const char *name;
	long nr;
	unsigned long a[6];
	int net;	/* under the probe's TRACE filter */
};

/* The probe's own filter: nr answered SECCOMP_RET_TRACE (ENOSYS with no
 * tracer, the call not made), everything else allowed. */
static int
trace_net(long nr)
{
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
		    offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (unsigned)nr, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRACE),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog p = {sizeof(f) / sizeof(f[0]), f};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) == -1)
		return -1;
	return (int)syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &p);
}

static long
do_call(const void *arg)
{
	const struct call *c = arg;

	if (c->net && trace_net(c->nr) == -1) {
		fprintf(stderr, "bprobe: %s: the probe's filter: %s\n",
		    c->name, ename(errno));
		_exit(254);
	}
	return syscall(c->nr, c->a[0], c->a[1], c->a[2], c->a[3], c->a[4],
	    c->a[5]);
}

static struct rlimit rl = {1, 1};
static char pathx[] = "bprobe-none";
#define U(v) ((unsigned long)(v))
#define P(p) ((unsigned long)(uintptr_t)(p))
#define CALL(n, nr, ...) {n, nr, {__VA_ARGS__}, 1}
#define BARE(n, nr, ...) {n, nr, {__VA_ARGS__}, 0}
#define NEG U(-1)

static const struct call sys_calls[] = {
	CALL("ptrace", __NR_ptrace, 0),
	CALL("process_vm_readv", __NR_process_vm_readv, 0),
	CALL("process_vm_writev", __NR_process_vm_writev, 0),
	CALL("pidfd_getfd", __NR_pidfd_getfd, 0),
	CALL("kcmp", __NR_kcmp, 0),
	CALL("process_madvise", 440, 0),
	CALL("process_mrelease", 448, 0),
	CALL("prlimit64", __NR_prlimit64, 1, RLIMIT_NOFILE, P(&rl), 0),
	CALL("setpriority", __NR_setpriority, PRIO_USER, 0, 0),
	CALL("ioprio_set", __NR_ioprio_set, 3 /* IOPRIO_WHO_USER */, 0, 0),
	CALL("sched_setaffinity", __NR_sched_setaffinity, 1, 0, 0),
	CALL("sched_setscheduler", __NR_sched_setscheduler, 1, 0, 0),
	CALL("sched_setparam", __NR_sched_setparam, 1, 0),
	CALL("sched_setattr", __NR_sched_setattr, 1, 0, 0),
	CALL("migrate_pages", __NR_migrate_pages, 1, 0, 0, 0),
	CALL("move_pages", __NR_move_pages, 1, 0, 0, 0, 0, 0),
	CALL("get_robust_list", __NR_get_robust_list, 1, 0, 0),
	CALL("unshare", __NR_unshare, CLONE_NEWUSER),
	CALL("setns", __NR_setns, NEG, 0),
	CALL("clone", __NR_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0),
	/* Refused as absent (ENOSYS): made for real, with a size the
	 * kernel would refuse (EINVAL). */
	BARE("clone3", __NR_clone3, 0, 0),
	BARE("openat2", __NR_openat2, U(AT_FDCWD), P("/"), 0, 0),
	CALL("io_uring_setup", 425, 0),
	CALL("io_uring_enter", 426, 0),
	CALL("io_uring_register", 427, 0),
	CALL("seccomp-listener", __NR_seccomp, SECCOMP_SET_MODE_FILTER,
	    SECCOMP_FILTER_FLAG_NEW_LISTENER, 0),
	CALL("kexec_load", __NR_kexec_load, 0),
	CALL("kexec_file_load", __NR_kexec_file_load, 0),
	CALL("init_module", __NR_init_module, 0),
	CALL("finit_module", __NR_finit_module, 0),
	CALL("delete_module", __NR_delete_module, 0),
	CALL("bpf", __NR_bpf, 0),
	CALL("perf_event_open", __NR_perf_event_open, 0),
	CALL("keyctl", __NR_keyctl, 0),
	CALL("add_key", __NR_add_key, 0),
	CALL("request_key", __NR_request_key, 0),
	CALL("userfaultfd", __NR_userfaultfd, 0),
	CALL("syslog", __NR_syslog, 0),
	CALL("mount", __NR_mount, 0),
	CALL("umount2", __NR_umount2, 0),
	CALL("pivot_root", __NR_pivot_root, 0),
	CALL("open_by_handle_at", __NR_open_by_handle_at, 0),
	CALL("open_tree", 428, 0),
	CALL("move_mount", 429, 0),
	CALL("fsopen", 430, 0),
	CALL("fsconfig", 431, 0),
	CALL("fsmount", 432, 0),
	CALL("fspick", 433, 0),
	CALL("mount_setattr", 442, 0),
	CALL("open_tree_attr", 467, 0),
	CALL("statmount", 457, 0),
	CALL("listmount", 458, 0),
	CALL("lsm_set_self_attr", 460, 0),
	CALL("swapon", __NR_swapon, 0),
	CALL("swapoff", __NR_swapoff, 0),
	CALL("reboot", __NR_reboot, 0),
	CALL("acct", __NR_acct, 0),
	CALL("quotactl", __NR_quotactl, 0),
	CALL("quotactl_fd", 443, 0),
	CALL("fanotify_init", __NR_fanotify_init, 0),
	CALL("fanotify_mark", __NR_fanotify_mark, 0),
	CALL("mq_open", __NR_mq_open, 0),
	CALL("mq_unlink", __NR_mq_unlink, 0),
	CALL("mq_timedsend", __NR_mq_timedsend, 0),
	CALL("mq_timedreceive", __NR_mq_timedreceive, 0),
	CALL("mq_notify", __NR_mq_notify, 0),
	CALL("mq_getsetattr", __NR_mq_getsetattr, 0),
	/* setuid and setgid modes */
	CALL("chmod-setuid", __NR_chmod, P(pathx), 04755),
	CALL("fchmod-setgid", __NR_fchmod, NEG, 02755),
	CALL("fchmodat-setuid", __NR_fchmodat, U(AT_FDCWD), P(pathx), 04755),
	CALL("fchmodat2-setgid", 452, U(AT_FDCWD), P(pathx), 02755, 0),
	CALL("open-creat-setuid", __NR_open, P(pathx), O_CREAT | O_WRONLY,
	    04755),
	CALL("open-accmode3", __NR_open, P(pathx), 3, 0),
	CALL("openat-creat-setgid", __NR_openat, U(AT_FDCWD), P(pathx),
	    O_CREAT | O_WRONLY, 02755),
	CALL("openat-tmpfile-setuid", __NR_openat, U(AT_FDCWD), P("."),
	    O_TMPFILE | O_WRONLY, 04755),
	CALL("creat-setuid", __NR_creat, P(pathx), 04755),
	CALL("mknod-setgid", __NR_mknod, P(pathx), S_IFREG | 02755, 0),
	CALL("mknodat-setuid", __NR_mknodat, U(AT_FDCWD), P(pathx),
	    S_IFREG | 04755, 0),
	/* sockets */
	CALL("socket-raw", __NR_socket, AF_INET, SOCK_RAW, IPPROTO_RAW),
	CALL("socketpair-inet", __NR_socketpair, AF_INET, SOCK_STREAM, 0, 0),
	CALL("sendto-fastopen", __NR_sendto, NEG, 0, 0, MSG_FASTOPEN, 0, 0),
	CALL("sendmsg-fastopen", __NR_sendmsg, NEG, 0, MSG_FASTOPEN),
	CALL("sendmmsg-fastopen", __NR_sendmmsg, NEG, 0, 0, MSG_FASTOPEN),
	CALL("setsockopt-tcp-fastopen-connect", __NR_setsockopt, NEG,
	    IPPROTO_TCP, 30, 0, 0),
	CALL("setsockopt-passcred", __NR_setsockopt, NEG, SOL_SOCKET, 16, 0,
	    0),
	CALL("setsockopt-passpidfd", __NR_setsockopt, NEG, SOL_SOCKET, 76, 0,
	    0),
	CALL("fcntl-setlease", __NR_fcntl, NEG, F_SETLEASE, F_WRLCK),
	CALL("ioctl-tcsbrk-0", __NR_ioctl, NEG, TCSBRK, 0),
};

static const struct call sysv_calls[] = {
	CALL("shmget", __NR_shmget, 0),
	CALL("shmat", __NR_shmat, 0),
	CALL("shmctl", __NR_shmctl, 0),
	CALL("shmdt", __NR_shmdt, 0),
	CALL("msgget", __NR_msgget, 0),
	CALL("msgsnd", __NR_msgsnd, 0),
	CALL("msgrcv", __NR_msgrcv, 0),
	CALL("msgctl", __NR_msgctl, 0),
	CALL("semget", __NR_semget, 0),
	CALL("semop", __NR_semop, 0),
	CALL("semtimedop", __NR_semtimedop, 0),
	CALL("semctl", __NR_semctl, 0),
};

/* The ioctl requests refused, each probed on its own. */
static const struct {
	const char *name;
	unsigned long req;
} ioctls[] = {
	{"FS_IOC_SETVERSION", FS_IOC_SETVERSION},
	{"FS_IOC32_SETVERSION", FS_IOC32_SETVERSION},
	{"EXT4_IOC_SETVERSION", 0x40086604},
	{"FS_IOC_SET_ENCRYPTION_POLICY", 0x800c6613},
	{"FS_IOC_ADD_ENCRYPTION_KEY", 0xc0506617},
	{"FS_IOC_REMOVE_ENCRYPTION_KEY", 0xc0406618},
	{"FS_IOC_REMOVE_ENCRYPTION_KEY_ALL_USERS", 0xc0406619},
	{"FS_IOC_ENABLE_VERITY", 0x40806685},
	{"EXT4_IOC_MIGRATE", 0x6609},
	{"BTRFS_IOC_SNAP_CREATE", 0x50009401},
	{"FICLONE", 0x40049409},
	{"TCSETS", TCSETS}, {"TCSETSW", TCSETSW}, {"TCSETSF", TCSETSF},
	{"TCSETA", TCSETA}, {"TCSETAW", TCSETAW}, {"TCSETAF", TCSETAF},
	{"TCSETS2", 0x402c542b}, {"TCSETSW2", 0x402c542c},
	{"TCSETSF2", 0x402c542d},
	{"TCSETX", 0x5433}, {"TCSETXF", 0x5434}, {"TCSETXW", 0x5435},
	{"TIOCSWINSZ", TIOCSWINSZ}, {"TIOCEXCL", TIOCEXCL},
	{"TIOCNXCL", TIOCNXCL}, {"TIOCSCTTY", TIOCSCTTY},
	{"TIOCCONS", TIOCCONS}, {"TIOCSETD", TIOCSETD},
	{"TIOCSTI", TIOCSTI}, {"TIOCLINUX", TIOCLINUX},
	{"TIOCSPGRP", TIOCSPGRP}, {"TIOCVHANGUP", TIOCVHANGUP},
	{"TCXONC", TCXONC}, {"TCFLSH", TCFLSH}, {"TCSBRKP", TCSBRKP},
	{"TIOCSBRK", TIOCSBRK}, {"TIOCCBRK", TIOCCBRK},
	{"TIOCMSET", TIOCMSET}, {"TIOCMBIS", TIOCMBIS},
	{"TIOCMBIC", TIOCMBIC}, {"TIOCSSOFTCAR", TIOCSSOFTCAR},
	{"TIOCSSERIAL", TIOCSSERIAL}, {"TIOCSLCKTRMIOS", TIOCSLCKTRMIOS},
	{"TIOCSRS485", TIOCSRS485}, {"TIOCNOTTY", TIOCNOTTY},
};

static void
run_calls(const struct call *c, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		probe(c[i].name, do_call, &c[i]);
}

static int
sys(void)
{
	struct call c;
	char name[64];
	size_t i;

	run_calls(sys_calls, sizeof(sys_calls) / sizeof(sys_calls[0]));
	for (i = 0; i < sizeof(ioctls) / sizeof(ioctls[0]); i++) {
		memset(&c, 0, sizeof(c));
		snprintf(name, sizeof(name), "ioctl-%s", ioctls[i].name);
		c.name = name;
		c.nr = __NR_ioctl;
		c.a[0] = NEG;
		c.a[1] = ioctls[i].req;
		c.net = 1;
		probe(name, do_call, &c);
	}
	return 0;
}

/* ---- fs: Landlock's rights ---- */

static int dirfd_ = -1;
static const char *rw_;

static long
p_open(const void *a)
{
	const int *fl = a;

	return openat(dirfd_, fl[0] & O_DIRECTORY ? "sub" : "f", fl[0]);
}

static long p_rmdir(const void *a) { (void)a; return unlinkat(dirfd_, "sub", AT_REMOVEDIR); }
static long p_unlink(const void *a) { (void)a; return unlinkat(dirfd_, "f", 0); }
static long p_mkdir(const void *a) { (void)a; return mkdirat(dirfd_, "newdir", 0755); }
static long p_symlink(const void *a) { (void)a; return symlinkat("f", dirfd_, "newlink"); }

static long
p_mknod(const void *a)
{
	const mode_t *m = a;
	dev_t d = S_ISCHR(*m) ? makedev(1, 3) : S_ISBLK(*m) ? makedev(7, 0) :
	    0;

	if (S_ISCHR(*m) || S_ISBLK(*m)) {
		char p[4096];

		/* Devices beneath the --rw rule: every right but these. */
		snprintf(p, sizeof(p), "%s/newdev", rw_);
		return mknod(p, *m, d);
	}
	return mknodat(dirfd_, S_ISFIFO(*m) ? "newfifo" : S_ISSOCK(*m) ?
	    "newsock" : "newreg", *m, d);
}

static long
p_truncate(const void *a)
{
	(void)a;
	if (fchdir(dirfd_) == -1)
		return -1;
	return truncate("f", 0);
}

static long
p_exec(const void *a)
{
	char *argv[] = {"x", NULL}, *envp[] = {NULL};
	char p[4096];
	pid_t pid;
	int st;

	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		if (a == NULL)
			syscall(__NR_execveat, dirfd_, "x", argv, envp, 0);
		else {
			snprintf(p, sizeof(p), "%s/x", rw_);
			execve(p, argv, envp);
		}
		_exit(errno);
	}
	if (waitpid(pid, &st, 0) == -1)
		return -1;
	if (WIFEXITED(st) && WEXITSTATUS(st) != 0) {
		errno = WEXITSTATUS(st);
		return -1;
	}
	return 0;
}

/* A reparenting rename beneath one --rw rule (REFER granted): made. */
static long
p_refer(const void *a)
{
	char from[4096], to[4096];

	(void)a;
	snprintf(from, sizeof(from), "%s/a/f", rw_);
	snprintf(to, sizeof(to), "%s/b/f", rw_);
	return rename(from, to);
}

/* A device's ioctl without the right (/dev/urandom: read-only in the
 * system preset). */
static long
p_ioctl_dev(const void *a)
{
	int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC), n;

	(void)a;
	if (fd == -1)
		return -1;
	return ioctl(fd, RNDGETENTCNT, &n);
}

static int
fs(const char *dir, const char *rw)
{
	static const int wr = O_WRONLY, rd = O_RDONLY,
	    rdir = O_RDONLY | O_DIRECTORY;
	static const mode_t chr = S_IFCHR | 0600, blk = S_IFBLK | 0600,
	    fifo = S_IFIFO | 0600, reg = S_IFREG | 0600,
	    sock = S_IFSOCK | 0600;

	/* O_PATH: no Landlock right is asked to name it. */
	if ((dirfd_ = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1) {
		printf("open %s\n", ename(errno));
		return 1;
	}
	rw_ = rw;
	probe("execute", p_exec, NULL);
	probe("execute-rw", p_exec, rw);
	probe("write_file", p_open, &wr);
	probe("read_file", p_open, &rd);
	probe("read_dir", p_open, &rdir);
	probe("remove_dir", p_rmdir, NULL);
	probe("remove_file", p_unlink, NULL);
	probe("make_char-rw", p_mknod, &chr);
	probe("make_dir", p_mkdir, NULL);
	probe("make_reg", p_mknod, &reg);
	probe("make_sock", p_mknod, &sock);
	probe("make_fifo", p_mknod, &fifo);
	probe("make_block-rw", p_mknod, &blk);
	probe("make_sym", p_symlink, NULL);
	probe("refer-rw", p_refer, NULL);
	probe("truncate", p_truncate, NULL);
	probe("ioctl_dev", p_ioctl_dev, NULL);
	return 0;
}

/* ---- net, host, pid ---- */

static struct sockaddr_in lo4;

static long
p_tcp_bind(const void *a)
{
	const int *fd = a;
	struct sockaddr_in any = lo4;
	int s = fd != NULL ? *fd : socket(AF_INET, SOCK_STREAM, 0);

	/* Port 0: an ephemeral port, granted by no plan here. */
	any.sin_port = 0;
	return s == -1 ? -1 : bind(s, (struct sockaddr *)&any, sizeof(any));
}

static long
p_tcp_connect(const void *a)
{
	const int *fd = a;
	int s = fd != NULL ? *fd : socket(AF_INET, SOCK_STREAM, 0);

	return s == -1 ? -1 : connect(s, (struct sockaddr *)&lo4,
	    sizeof(lo4));
}

static long
p_listen(const void *a)
{
	int s = socket(AF_INET, SOCK_STREAM, 0);

	(void)a;
	return s == -1 ? -1 : listen(s, 1);
}

/* A unix name: "@x" abstract, "" autobind, else a path. */
static long
unix_addr(const char *name, struct sockaddr_un *sun, socklen_t *len)
{
	memset(sun, 0, sizeof(*sun));
	sun->sun_family = AF_UNIX;
	if (strlen(name) >= sizeof(sun->sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sun->sun_path, name, strlen(name));
	if (name[0] == '@')
		sun->sun_path[0] = '\0';
	*len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
	    strlen(name) + (name[0] == '@' ? 0 : name[0] != '\0'));
	return 0;
}

/* A new stream socket bound (or connected) to the unix address a. */
static long
unix_at(const void *a, int (*op)(int, const struct sockaddr *, socklen_t))
{
	struct sockaddr_un sun;
	socklen_t len;
	int s;

	if (unix_addr(a, &sun, &len) == -1 ||
	    (s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1)
		return -1;
	return op(s, (struct sockaddr *)&sun, len);
}

static long
p_unix_bind(const void *a)
{
	return unix_at(a, bind);
}

static long
p_unix_connect(const void *a)
{
	return unix_at(a, connect);
}

static long
p_kill(const void *a)
{
	return kill((pid_t)atoi(a), 0);
}

/* inotify_add_watch of a path ("-" first: IN_DONT_FOLLOW). */
static long
p_watch(const void *a)
{
	const char *p = a;
	int fd = inotify_init1(IN_CLOEXEC);
	uint32_t m = IN_MODIFY;

	if (*p == '-') {
		p++;
		m |= IN_DONT_FOLLOW;
	}
	return fd == -1 ? -1 : inotify_add_watch(fd, p, m);
}

static void
set_port(const char *port)
{
	lo4.sin_family = AF_INET;
	lo4.sin_port = htons((uint16_t)atoi(port));
	lo4.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
}

static char *
cat(const char *a, const char *b)
{
	char *s = malloc(strlen(a) + strlen(b) + 1);

	if (s == NULL)
		exit(2);
	return strcat(strcpy(s, a), b);
}

static int
host(char **v)
{
	const char *ro = v[0], *rw = v[1], *out = v[2], *name = v[4],
	    *pid = v[5];

	set_port(v[3]);
	probe("bind-tcp", p_tcp_bind, NULL);
	probe("listen-unbound", p_listen, NULL);
	probe("connect-tcp", p_tcp_connect, NULL);
	probe("bind-abstract", p_unix_bind, "@borne-bprobe-own");
	probe("bind-autobind", p_unix_bind, "");
	probe("bind-path-ro", p_unix_bind, cat(ro, "/sock"));
	probe("bind-path-rw-other", p_unix_bind, cat(rw, "/other/sock"));
	probe("bind-path-rw", p_unix_bind, cat(rw, "/sock"));
	probe("connect-abstract-host", p_unix_connect, cat("@", name));
	probe("signal-host", p_kill, pid);
	probe("watch-outside", p_watch, cat(out, "/f"));
	probe("watch-unreadable", p_watch, cat(ro, "/other"));
	probe("watch-symlink", p_watch, cat(cat("-", ro), "/link"));
	probe("watch-ro", p_watch, cat(ro, "/f"));
	return 0;
}

static int
net(const char *fd, const char *port)
{
	int s = atoi(fd);

	set_port(port);
	probe("bind-inherited", p_tcp_bind, &s);
	probe("connect-inherited", p_tcp_connect, &s);
	return 0;
}

static const char *meta_;

static char *cat(const char *a, const char *b);

static long
p_meta(const void *a)
{
	const char *what = a;
	char *mine = cat(meta_, "/mine");
	int fd, fl;

	if (strcmp(what, "chown") == 0)
		return chown(mine, 4242, (gid_t)-1);
	if (strcmp(what, "chgrp") == 0)
		return chown(mine, (uid_t)-1, 4242);
	if (strcmp(what, "xattr-trusted") == 0)
		return setxattr(mine, "trusted.borne", "1", 1, 0);
	if (strcmp(what, "setuid-mode") == 0)
		return chmod(mine, 04755);
	if (strcmp(what, "hardlink-other") == 0)
		return link(cat(meta_, "/other"), cat(meta_, "/newlink"));
	if (strcmp(what, "sticky-unlink") == 0)
		return unlink(cat(meta_, "/sticky/theirs"));
	if ((fd = open(mine, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	if (ioctl(fd, FS_IOC_GETFLAGS, &fl) == -1)
		return -1;
	fl |= strcmp(what, "immutable") == 0 ? FS_IMMUTABLE_FL :
	    FS_APPEND_FL;
	return ioctl(fd, FS_IOC_SETFLAGS, &fl);
}

static int
meta(const char *rw)
{
	static const char *const what[] = {"chown", "chgrp",
	    "xattr-trusted", "immutable", "append-only", "setuid-mode",
	    "hardlink-other", "sticky-unlink"};
	size_t i;

	meta_ = rw;
	for (i = 0; i < sizeof(what) / sizeof(what[0]); i++)
		probe(what[i], p_meta, what[i]);
	return 0;
}

static int
tcp(const char *port)
{
	set_port(port);
	probe("bind-tcp", p_tcp_bind, NULL);
	probe("connect-tcp", p_tcp_connect, NULL);
	return 0;
}

static int
pidns(const char *pid)
{
	probe("signal-host", p_kill, pid);
	return 0;
}

/* ---- fixtures ---- */

static int
abstract_listen(const char *name, const char *ready)
{
	struct sockaddr_un sun;
	socklen_t len;
	char *n = cat("@", name);
	int s, fd;

	if (unix_addr(n, &sun, &len) == -1 ||
	    (s = socket(AF_UNIX, SOCK_STREAM, 0)) == -1 ||
	    bind(s, (struct sockaddr *)&sun, len) == -1 || listen(s, 8) == -1 ||
	    (fd = open(ready, O_WRONLY | O_CREAT | O_CLOEXEC, 0644)) == -1) {
		fprintf(stderr, "bprobe: abstract-listen: %s\n", ename(errno));
		return 1;
	}
	close(fd);
	for (;;)
		pause();
}

static int
with_tcp(const char *fd, char **argv)
{
	int s = socket(AF_INET, SOCK_STREAM, 0), want = atoi(fd);

	if (s == -1 || (s != want && (dup2(s, want) == -1 || close(s) == -1))) {
		fprintf(stderr, "bprobe: with-tcp: %s\n", ename(errno));
		return 1;
	}
	execvp(argv[0], argv);
	fprintf(stderr, "bprobe: with-tcp: %s: %s\n", argv[0], ename(errno));
	return 127;
}

int
main(int argc, char *argv[])
{
	const char *c = argc > 1 ? argv[1] : "";

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(c, "sys") == 0 && argc == 2)
		return sys();
	if (strcmp(c, "sysv") == 0 && argc == 2) {
		run_calls(sysv_calls, sizeof(sysv_calls) /
		    sizeof(sysv_calls[0]));
		return 0;
	}
	if (strcmp(c, "fs") == 0 && argc == 4)
		return fs(argv[2], argv[3]);
	if (strcmp(c, "net") == 0 && argc == 4)
		return net(argv[2], argv[3]);
	if (strcmp(c, "host") == 0 && argc == 8)
		return host(argv + 2);
	if (strcmp(c, "meta") == 0 && argc == 3)
		return meta(argv[2]);
	if (strcmp(c, "tcp") == 0 && argc == 3)
		return tcp(argv[2]);
	if (strcmp(c, "pid") == 0 && argc == 3)
		return pidns(argv[2]);
	if (strcmp(c, "abstract-listen") == 0 && argc == 4)
		return abstract_listen(argv[2], argv[3]);
	if (strcmp(c, "with-tcp") == 0 && argc >= 4)
		return with_tcp(argv[2], argv + 3);
	fprintf(stderr, "usage: bprobe sys | sysv | fs DIR RW | net FD PORT | "
	    "tcp PORT | meta RW |\n       host RO RW OUT PORT NAME PID | pid PID |\n"
	    "       abstract-listen NAME READY | with-tcp FD PROG [ARG...]\n");
	return 2;
}
