/* SPDX-License-Identifier: ISC */
/* root-attack: tries ONE thing a capability-less uid-0 payload could do
 * to the host beside Landlock, and prints what it got: "OK" or the errno
 * name (EACCES, EPERM, ...).  Exit 0 for OK, 1 otherwise, 2 for usage.
 * Metadata (PATH any file, FD an inherited descriptor, MODE octal):
 *   chmod|lchmod|fchmod|fchmodat2-opath PATH MODE   fchmod-fd FD MODE
 *   chown|lchown|fchown|fchownat PATH UID GID       fchown-fd FD UID GID
 *   setxattr|lsetxattr|fsetxattr|setxattrat PATH NAME VALUE
 *   removexattr|fremovexattr|removexattrat PATH NAME
 *   acl PATH          a POSIX ACL granting uid 65534 read-write
 *   acl-default PATH  a default ACL: rw for owner, group and others
 *   utimensat|utimes|utime|futimesat|futimens PATH   to 2001-09-09
 *   touch-now PATH    utimensat(NULL)             futimens-fd FD
 *   setflags PATH     FS_IOC_SETFLAGS (+noatime) through an O_RDONLY fd
 *   setflags-hi PATH  the same, high bits set in the request
 *   fssetxattr PATH | file_setattr PATH            (+noatime)
 *   open3 PATH        open(PATH, 3) then openat    "open:X openat:Y"
 *   lease PATH        F_SETLEASE F_RDLCK on an O_RDONLY fd
 *   link SRC DST | inotify PATH
 *   creat-suid|creat-sgid|mknod-suid PATH  a new file, mode 04755/02755
 *   race-path IN OUT N   chmod(buf, 0604) N times while a thread flips
 *                        buf between IN and OUT: "ok=A denied=B other=C"
 *                        (ENOENT from a path torn mid-flip is not counted)
 *   race-link LINK OUT N chmod(LINK, 0604) N times while a thread swaps
 *                        LINK between a file and a symlink to OUT
 * Other processes (PID; 0 is the caller itself):
 *   prlimit|setpriority|sched_setaffinity|sched_setscheduler|
 *   sched_setparam|sched_setattr|ioprio_set|migrate_pages|move_pages|
 *   get_robust_list|kcmp|process_madvise|process_mrelease PID
 *   setpriority-user | ioprio-user               who 0 of PRIO_USER
 * Network and IPC (PORT on 127.0.0.1 or ::1):
 *   tfo-sendto|tfo-sendmsg|tfo-sendmmsg|tfo6-sendto|tfo-connectopt PORT
 *   listen-unbound | listen-unbound6 | listen-bound PORT | bind-tcp PORT
 *   listen-after-connect PORT  connect (refused), then listen
 *   listen-after-unspec PORT   connect, connect(AF_UNSPEC), then listen
 *   bind-abstract NAME | bind-autobind | passcred |
 *   bind-unix PATH             (bind, then listen)
 *   bind-unix-len PATH LEN     bind with addrlen LEN (up to 128)
 *   bind-abstract-fd FD NAME | listen-fd FD   on an inherited socket
 *   shmget KEY | shmat ID | shmrm ID | msgget KEY | msgrcv ID |
 *   semget KEY | mq_open NAME  (O_CREAT)
 * Terminal (FD a tty; -hi: the request with its high 32 bits set):
 *   tty FD tcsets|tcsetsw|tcsetsf|tcsets2|tiocswinsz|tiocexcl|tcflsh|
 *          tcxonc|tiocsti|tiocspgrp|tiocsctty|tioccons|tiocsetd|tiocnxcl
 *   tty-hi FD OP
 * Kernel:
 *   keyctl | add_key | request_key | fanotify | listmount | statmount |
 *   seccomp-listener | syslog
 * With ROOT_ATTACK_HOLD=SECS in the environment, it sleeps SECS before
 * exiting, its descriptors open (for checks from the host meanwhile). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/resource.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <linux/filter.h>
#include <linux/fs.h>
#include <linux/ioprio.h>
#include <linux/seccomp.h>
#include <utime.h>

#include "uapi.h"

#include "ename.h"

static char **av;
static int ac;


static int
report(long r)
{
	if (r < 0) {
		puts(ename(errno));
		return 1;
	}
	puts("OK");
	return 0;
}

static long
num(int i)
{
	if (i >= ac) {
		fprintf(stderr, "root-attack: missing argument\n");
		exit(2);
	}
	return strtol(av[i], NULL, 0);
}

static const char *
str(int i)
{
	if (i >= ac) {
		fprintf(stderr, "root-attack: missing argument\n");
		exit(2);
	}
	return av[i];
}

static mode_t
mode(int i)
{
	return (mode_t)strtoul(str(i), NULL, 8);
}

/* An fd on PATH (O_RDONLY, O_NONBLOCK: FIFOs and ttys too); exits with
 * "open:ERR" when refused. */
static int
open_ro(const char *p)
{
	int fd = open(p, O_RDONLY | O_NONBLOCK | O_NOCTTY);

	if (fd == -1) {
		printf("open:%s\n", ename(errno));
		exit(1);
	}
	return fd;
}

/* ---- metadata ---- */

static int
meta(const char *op)
{
	const char *p = ac > 2 ? av[2] : "";
	struct timespec ts[2] = {{1000000000, 0}, {1000000000, 0}};
	struct timeval tv[2] = {{1000000000, 0}, {1000000000, 0}};
	struct utimbuf ub = {1000000000, 1000000000};
	int fd, fl = FS_NOATIME_FL;

	if (!strcmp(op, "chmod"))
		return report(chmod(p, mode(3)));
	if (!strcmp(op, "lchmod"))
		return report(syscall(__NR_fchmodat2, AT_FDCWD, p, mode(3),
		    AT_SYMLINK_NOFOLLOW));
	if (!strcmp(op, "fchmod"))
		return report(fchmod(open_ro(p), mode(3)));
	if (!strcmp(op, "fchmod-fd"))
		return report(fchmod((int)num(2), mode(3)));
	if (!strcmp(op, "fchmodat2-opath")) {
		fd = open(p, O_PATH);
		return report(syscall(__NR_fchmodat2, fd, "", mode(3),
		    AT_EMPTY_PATH));
	}
	if (!strcmp(op, "chown"))
		return report(chown(p, (uid_t)num(3), (gid_t)num(4)));
	if (!strcmp(op, "lchown"))
		return report(lchown(p, (uid_t)num(3), (gid_t)num(4)));
	if (!strcmp(op, "fchown"))
		return report(fchown(open_ro(p), (uid_t)num(3),
		    (gid_t)num(4)));
	if (!strcmp(op, "fchown-fd"))
		return report(fchown((int)num(2), (uid_t)num(3),
		    (gid_t)num(4)));
	if (!strcmp(op, "fchownat"))
		return report(fchownat(AT_FDCWD, p, (uid_t)num(3),
		    (gid_t)num(4), AT_SYMLINK_NOFOLLOW));
	if (!strcmp(op, "setxattr"))
		return report(setxattr(p, str(3), str(4), strlen(str(4)), 0));
	if (!strcmp(op, "lsetxattr"))
		return report(lsetxattr(p, str(3), str(4), strlen(str(4)),
		    0));
	if (!strcmp(op, "fsetxattr"))
		return report(fsetxattr(open_ro(p), str(3), str(4),
		    strlen(str(4)), 0));
	if (!strcmp(op, "setxattrat")) {
		struct borne_xattr_args xa = {(uintptr_t)str(4),
		    (uint32_t)strlen(str(4)), 0};
		return report(syscall(__NR_setxattrat, AT_FDCWD, p, 0, str(3),
		    &xa, sizeof(xa)));
	}
	if (!strcmp(op, "removexattr"))
		return report(removexattr(p, str(3)));
	if (!strcmp(op, "fremovexattr"))
		return report(fremovexattr(open_ro(p), str(3)));
	if (!strcmp(op, "removexattrat"))
		return report(syscall(__NR_removexattrat, AT_FDCWD, p, 0,
		    str(3)));
	if (!strcmp(op, "acl")) {
		/* version 2; USER_OBJ rw, USER 65534 rw, GROUP_OBJ r,
		 * MASK rw, OTHER none */
		uint32_t acl[11] = {2, 0x00060001, 0xffffffff, 0x00060002,
		    65534, 0x00040004, 0xffffffff, 0x00060010, 0xffffffff,
		    0x00000020, 0xffffffff};
		return report(setxattr(p, "system.posix_acl_access", acl,
		    sizeof(acl), 0));
	}
	if (!strcmp(op, "acl-default")) {
		/* version 2; USER_OBJ, GROUP_OBJ and OTHER rw */
		uint32_t acl[7] = {2, 0x00060001, 0xffffffff, 0x00060004,
		    0xffffffff, 0x00060020, 0xffffffff};
		return report(setxattr(p, "system.posix_acl_default", acl,
		    sizeof(acl), 0));
	}
	if (!strcmp(op, "utimensat"))
		return report(utimensat(AT_FDCWD, p, ts, 0));
	if (!strcmp(op, "touch-now"))
		return report(utimensat(AT_FDCWD, p, NULL, 0));
	if (!strcmp(op, "utimes"))
		return report(utimes(p, tv));
	if (!strcmp(op, "utime"))
		return report(utime(p, &ub));
	if (!strcmp(op, "futimesat"))
		return report(syscall(__NR_futimesat, AT_FDCWD, p, tv));
	if (!strcmp(op, "futimens"))
		return report(futimens(open_ro(p), ts));
	if (!strcmp(op, "futimens-fd"))
		return report(futimens((int)num(2), ts));
	if (!strcmp(op, "setflags"))
		return report(ioctl(open_ro(p), FS_IOC_SETFLAGS, &fl));
	if (!strcmp(op, "setflags-hi"))
		return report(syscall(__NR_ioctl, open_ro(p),
		    0xffffffff00000000ul | FS_IOC_SETFLAGS, &fl));
	if (!strcmp(op, "fssetxattr")) {
		struct fsxattr fx;

		fd = open_ro(p);
		if (ioctl(fd, FS_IOC_FSGETXATTR, &fx) == -1)
			return report(-1);
		fx.fsx_xflags |= FS_XFLAG_NOATIME;
		return report(ioctl(fd, FS_IOC_FSSETXATTR, &fx));
	}
	if (!strcmp(op, "file_setattr")) {
		struct borne_file_attr fa;

		if (syscall(__NR_file_getattr, AT_FDCWD, p, &fa, sizeof(fa),
		    0) == -1)
			return report(-1);
		fa.fa_xflags |= FS_XFLAG_NOATIME;
		return report(syscall(__NR_file_setattr, AT_FDCWD, p, &fa,
		    sizeof(fa), 0));
	}
	if (!strcmp(op, "open3")) {
		int a = open(p, 3), b = openat(AT_FDCWD, p, 3);

		printf("open:%s openat:%s\n", a == -1 ? ename(errno) : "OK",
		    b == -1 ? ename(errno) : "OK");
		return 0;
	}
	if (!strcmp(op, "lease"))
		return report(fcntl(open_ro(p), F_SETLEASE, F_RDLCK));
	if (!strcmp(op, "creat-suid") || !strcmp(op, "creat-sgid"))
		return report(open(p, O_WRONLY | O_CREAT | O_EXCL,
		    op[6] == 'u' ? 04755 : 02755));
	if (!strcmp(op, "mknod-suid"))
		return report(mknod(p, S_IFREG | 04755, 0));
	if (!strcmp(op, "link"))
		return report(link(p, str(3)));
	if (!strcmp(op, "inotify"))
		return report(inotify_add_watch(inotify_init1(0), p,
		    IN_ALL_EVENTS));
	return -1;
}

/* ---- races: the supervisor must act on what it checked ---- */

static char race_buf[4096];
static const char *race_a, *race_b;
static volatile int race_stop;

static void *
flip_path(void *arg)
{
	size_t i;

	(void)arg;
	for (i = 0; !race_stop; i++)
		strcpy(race_buf, i & 1 ? race_b : race_a);
	return NULL;
}

static void *
swap_link(void *arg)
{
	char f[4096], l[4096];
	int fd;

	(void)arg;
	snprintf(f, sizeof(f), "%s.f", race_a);
	snprintf(l, sizeof(l), "%s.l", race_a);
	while (!race_stop) {
		if ((fd = open(f, O_WRONLY | O_CREAT, 0644)) != -1)
			close(fd);
		rename(f, race_a);
		unlink(l);
		if (symlink(race_b, l) == 0)
			rename(l, race_a);
	}
	return NULL;
}

static int
race(const char *op)
{
	pthread_t t;
	long i, n, ok = 0, denied = 0, other = 0;
	int r;

	race_a = str(2);
	race_b = str(3);
	n = num(4);
	strcpy(race_buf, race_a);
	if (pthread_create(&t, NULL, !strcmp(op, "race-path") ? flip_path :
	    swap_link, NULL) != 0)
		return report(-1);
	for (i = 0; i < n; i++) {
		r = chmod(!strcmp(op, "race-path") ? race_buf : race_a, 0604);
		if (r == 0)
			ok++;
		else if (errno == EACCES || errno == EPERM || errno == EROFS)
			denied++;
		else if (!strcmp(op, "race-path") &&
		    (errno == ENOENT || errno == ENOTDIR))
			;	/* a path torn mid-flip names nothing */
		else
			other++;
	}
	race_stop = 1;
	pthread_join(t, NULL);
	printf("ok=%s denied=%s other=%ld\n", ok ? "some" : "none",
	    denied ? "some" : "none", other);
	return 0;
}

/* ---- other processes ---- */

static int
procs(const char *op)
{
	struct rlimit rl = {1, 1};
	struct sched_param sp = {0};
	cpu_set_t cs;
	unsigned long mask = 1;
	void *page = NULL;
	int st = 0, node = 0;
	pid_t pid;
	struct iovec iov;
	char attr[56];

	if (!strcmp(op, "setpriority-user"))
		return report(setpriority(PRIO_USER, 0, 19));
	if (!strcmp(op, "ioprio-user"))
		return report(syscall(__NR_ioprio_set, IOPRIO_WHO_USER, 0,
		    IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)));
	pid = ac > 2 ? (pid_t)strtol(av[2], NULL, 0) : 0;
	if (!strcmp(op, "prlimit"))
		return report(prlimit(pid, RLIMIT_NOFILE, &rl, NULL));
	if (!strcmp(op, "setpriority"))
		return report(setpriority(PRIO_PROCESS, (id_t)pid, 19));
	if (!strcmp(op, "sched_setaffinity")) {
		CPU_ZERO(&cs);
		CPU_SET(0, &cs);
		return report(sched_setaffinity(pid, sizeof(cs), &cs));
	}
	if (!strcmp(op, "sched_setscheduler"))
		/* raw calls: musl's wrappers answer ENOSYS themselves */
		return report((int)syscall(SYS_sched_setscheduler, pid,
		    SCHED_IDLE, &sp));
	if (!strcmp(op, "sched_setparam"))
		return report((int)syscall(SYS_sched_setparam, pid, &sp));
	if (!strcmp(op, "sched_setattr")) {
		memset(attr, 0, sizeof(attr));
		attr[0] = 48;			/* size */
		attr[4] = SCHED_IDLE;		/* policy */
		return report(syscall(__NR_sched_setattr, pid, attr, 0));
	}
	if (!strcmp(op, "ioprio_set"))
		return report(syscall(__NR_ioprio_set, IOPRIO_WHO_PROCESS,
		    pid, IOPRIO_PRIO_VALUE(IOPRIO_CLASS_IDLE, 0)));
	if (!strcmp(op, "migrate_pages"))
		return report(syscall(__NR_migrate_pages, pid, 64, &mask,
		    &mask));
	if (!strcmp(op, "move_pages"))
		return report(syscall(__NR_move_pages, pid, 1, &page, &node,
		    &st, 0));
	if (!strcmp(op, "get_robust_list")) {
		void *head;
		size_t len;

		return report(syscall(__NR_get_robust_list, pid, &head,
		    &len));
	}
	if (!strcmp(op, "kcmp"))
		return report(syscall(__NR_kcmp, getpid(), pid, 0, 0, 0));
	if (!strcmp(op, "process_madvise")) {
		iov.iov_base = &rl;
		iov.iov_len = 4096;
		return report(syscall(440, (int)syscall(__NR_pidfd_open, pid,
		    0), &iov, 1, 21 /* MADV_COLD */, 0));
	}
	if (!strcmp(op, "process_mrelease"))
		return report(syscall(448, (int)syscall(__NR_pidfd_open, pid,
		    0), 0));
	return -1;
}

/* ---- network and IPC ---- */

static int
tcp_to(int fam, long port, struct sockaddr_storage *ss, socklen_t *len)
{
	struct sockaddr_in *a = (struct sockaddr_in *)ss;
	struct sockaddr_in6 *b = (struct sockaddr_in6 *)ss;

	memset(ss, 0, sizeof(*ss));
	if (fam == AF_INET) {
		a->sin_family = AF_INET;
		a->sin_port = htons((uint16_t)port);
		a->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		*len = sizeof(*a);
	} else {
		b->sin6_family = AF_INET6;
		b->sin6_port = htons((uint16_t)port);
		b->sin6_addr = in6addr_loopback;
		*len = sizeof(*b);
	}
	return socket(fam, SOCK_STREAM, 0);
}

static int
unix_bind(const char *name, int abstract, int autob)
{
	struct sockaddr_un u;
	socklen_t len;
	int s = socket(AF_UNIX, SOCK_STREAM, 0);

	memset(&u, 0, sizeof(u));
	u.sun_family = AF_UNIX;
	if (autob)
		len = sizeof(sa_family_t);
	else {
		memcpy(u.sun_path + abstract, name, strlen(name));
		len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) +
		    abstract + strlen(name) + !abstract);
	}
	if (s == -1 || bind(s, (struct sockaddr *)&u, len) == -1 ||
	    listen(s, 1) == -1)
		return report(-1);
	return report(0);
}

static int
net(const char *op)
{
	struct sockaddr_storage ss;
	struct msghdr m;
	struct mmsghdr mm;
	struct iovec iov = {"x", 1};
	socklen_t len;
	int s, one = 1;

	if (!strcmp(op, "listen-unbound") || !strcmp(op, "listen-unbound6")) {
		s = socket(op[14] ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
		return report(s == -1 ? -1 : listen(s, 1));
	}
	if (!strcmp(op, "listen-after-connect") ||
	    !strcmp(op, "listen-after-unspec")) {
		struct sockaddr_in sin = {AF_INET, htons((uint16_t)num(2)),
		    {htonl(INADDR_LOOPBACK)}, {0}};
		struct sockaddr unspec = {AF_UNSPEC, {0}};
		int c;

		s = socket(AF_INET, SOCK_STREAM, 0);
		if (s == -1)
			return report(-1);
		c = connect(s, (struct sockaddr *)&sin, sizeof(sin));
		if (op[13] == 'u') {	/* connected: disconnect */
			if (c == -1 || connect(s, &unspec, sizeof(unspec)))
				return report(-1);
		} else if (c == 0) {
			fputs("root-attack: the connect worked\n", stderr);
			return 2;
		}
		return report(listen(s, 1));
	}
	if (!strcmp(op, "bind-abstract"))
		return unix_bind(str(2), 1, 0);
	if (!strcmp(op, "bind-autobind"))
		return unix_bind("", 0, 1);
	if (!strcmp(op, "bind-unix"))
		return unix_bind(str(2), 0, 0);
	if (!strcmp(op, "bind-abstract-fd")) {
		struct sockaddr_un u = {AF_UNIX, {0}};

		memcpy(u.sun_path + 1, str(3), strlen(str(3)));
		return report(bind((int)num(2), (struct sockaddr *)&u,
		    (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 +
		    strlen(str(3)))));
	}
	if (!strcmp(op, "listen-fd"))
		return report(listen((int)num(2), 1));
	if (!strcmp(op, "bind-unix-len")) {
		memset(&ss, 'a', sizeof(ss));
		ss.ss_family = AF_UNIX;
		memcpy((char *)&ss + 2, str(2), strlen(str(2)));
		s = socket(AF_UNIX, SOCK_STREAM, 0);
		return report(bind(s, (struct sockaddr *)&ss,
		    (socklen_t)num(3)));
	}
	if (!strcmp(op, "passcred")) {
		s = socket(AF_UNIX, SOCK_DGRAM, 0);
		return report(setsockopt(s, SOL_SOCKET, SO_PASSCRED, &one,
		    sizeof(one)));
	}
	if (!strncmp(op, "tfo", 3) || !strcmp(op, "listen-bound") ||
	    !strcmp(op, "bind-tcp")) {
		s = tcp_to(strncmp(op, "tfo6", 4) ? AF_INET : AF_INET6,
		    num(2), &ss, &len);
		if (s == -1)
			return report(-1);
		if (!strcmp(op, "listen-bound"))
			return report(bind(s, (struct sockaddr *)&ss, len) ==
			    -1 ? -1 : listen(s, 1));
		if (!strcmp(op, "bind-tcp"))
			return report(bind(s, (struct sockaddr *)&ss, len));
		if (!strcmp(op, "tfo-connectopt"))
			return report(setsockopt(s, IPPROTO_TCP,
			    TCP_FASTOPEN_CONNECT, &one, sizeof(one)));
		if (!strcmp(op, "tfo-sendto") || !strcmp(op, "tfo6-sendto"))
			return report(sendto(s, "x", 1, MSG_FASTOPEN,
			    (struct sockaddr *)&ss, len));
		memset(&m, 0, sizeof(m));
		m.msg_name = &ss;
		m.msg_namelen = len;
		m.msg_iov = &iov;
		m.msg_iovlen = 1;
		if (!strcmp(op, "tfo-sendmsg"))
			return report(sendmsg(s, &m, MSG_FASTOPEN));
		mm.msg_hdr = m;
		mm.msg_len = 0;
		return report(sendmmsg(s, &mm, 1, MSG_FASTOPEN));
	}
	return -1;
}

static int
ipc(const char *op)
{
	char buf[64];

	if (!strcmp(op, "shmget"))
		return report(shmget((key_t)num(2), 0, 0));
	if (!strcmp(op, "shmat"))
		return report(shmat((int)num(2), NULL, 0) == (void *)-1 ? -1 :
		    0);
	if (!strcmp(op, "shmrm"))
		return report(shmctl((int)num(2), IPC_RMID, NULL));
	if (!strcmp(op, "msgget"))
		return report(msgget((key_t)num(2), 0));
	if (!strcmp(op, "msgrcv"))
		return report(msgrcv((int)num(2), buf, sizeof(buf) - 8, 0,
		    IPC_NOWAIT));
	if (!strcmp(op, "semget"))
		return report(semget((key_t)num(2), 0, 0));
	if (!strcmp(op, "mq_open"))
		return report(syscall(__NR_mq_open, str(2),
		    O_RDWR | O_CREAT, 0600, NULL));
	return -1;
}

/* ---- terminal ---- */

static int
tty(const char *op)
{
	static const struct {
		const char *name;
		unsigned long req;
	} reqs[] = {
		{"tcsets", TCSETS}, {"tcsetsw", TCSETSW}, {"tcsetsf", TCSETSF},
		{"tcsets2", 0x402c542b}, {"tiocswinsz", TIOCSWINSZ},
		{"tiocexcl", TIOCEXCL}, {"tiocnxcl", TIOCNXCL},
		{"tcflsh", TCFLSH}, {"tcxonc", TCXONC}, {"tiocsti", TIOCSTI},
		{"tiocspgrp", TIOCSPGRP}, {"tiocsctty", TIOCSCTTY},
		{"tioccons", TIOCCONS}, {"tiocsetd", TIOCSETD},
	};
	struct termios t;
	char buf[64];
	unsigned long hi = strcmp(op, "tty-hi") ? 0 : 0xffffffff00000000ul;
	int fd = (int)num(2);
	size_t i;
	long arg;

	memset(buf, 0, sizeof(buf));
	if (tcgetattr(fd, &t) == 0) {
		t.c_lflag &= ~(tcflag_t)ECHO;	/* a visible change */
		memcpy(buf, &t, sizeof(t) < sizeof(buf) ? sizeof(t) :
		    sizeof(buf));
	}
	for (i = 0; i < sizeof(reqs) / sizeof(reqs[0]); i++) {
		if (strcmp(str(3), reqs[i].name))
			continue;
		if (reqs[i].req == TIOCSWINSZ) {
			struct winsize ws = {11, 22, 0, 0};
			memcpy(buf, &ws, sizeof(ws));
		}
		arg = reqs[i].req == TCFLSH ? TCIOFLUSH :
		    reqs[i].req == TCXONC ? TCOOFF :
		    reqs[i].req == TIOCSETD ? (long)buf :
		    reqs[i].req == TIOCSTI ? (long)"x" : (long)buf;
		if (reqs[i].req == TIOCSETD)
			memset(buf, 0, sizeof(int));
		return report(syscall(__NR_ioctl, fd, hi | reqs[i].req, arg));
	}
	return -1;
}

static int
kernel(const char *op)
{
	struct sock_fprog p;
	struct sock_filter f = {BPF_RET | BPF_K, 0, 0, SECCOMP_RET_ALLOW};
	uint64_t req[4] = {0, 0, 0, 0};
	uint64_t ids[4];
	char buf[256];

	if (!strcmp(op, "keyctl"))
		return report(syscall(__NR_keyctl, 0 /* GET_KEYRING_ID */,
		    -4 /* user */, 0));
	if (!strcmp(op, "add_key"))
		return report(syscall(__NR_add_key, "user", "borne", "x", 1,
		    -4));
	if (!strcmp(op, "request_key"))
		return report(syscall(__NR_request_key, "user", "borne", NULL,
		    0));
	if (!strcmp(op, "fanotify"))
		return report(syscall(__NR_fanotify_init, 0x00000200 /* FID */,
		    O_RDONLY));
	if (!strcmp(op, "listmount")) {
		req[0] = 32;		/* size */
		req[1] = 0;		/* mnt_id: the root (LSMT_ROOT) */
		req[1] = 0xffffffffffffffffull;
		return report(syscall(458, req, ids, 4, 0));
	}
	if (!strcmp(op, "statmount")) {
		req[0] = 32;
		req[1] = 0xffffffffffffffffull;
		req[2] = 1;
		return report(syscall(457, req, buf, sizeof(buf), 0));
	}
	if (!strcmp(op, "seccomp-listener")) {
		p.len = 1;
		p.filter = &f;
		return report(syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER,
		    SECCOMP_FILTER_FLAG_NEW_LISTENER, &p));
	}
	if (!strcmp(op, "syslog"))
		return report(syscall(__NR_syslog, 3 /* READ_ALL */, buf,
		    sizeof(buf)));
	return -1;
}

int
main(int argc, char *argv[])
{
	int r;

	av = argv;
	ac = argc;
	setvbuf(stdout, NULL, _IONBF, 0);
	if (argc < 2) {
		fprintf(stderr, "usage: root-attack ROUTE [ARG...]\n");
		return 2;
	}
	if (!strcmp(argv[1], "tty") || !strcmp(argv[1], "tty-hi"))
		r = tty(argv[1]);
	else if (!strncmp(argv[1], "race-", 5))
		r = race(argv[1]);
	else if ((r = meta(argv[1])) == -1 && (r = procs(argv[1])) == -1 &&
	    (r = net(argv[1])) == -1 && (r = ipc(argv[1])) == -1)
		r = kernel(argv[1]);
	if (r == -1) {
		fprintf(stderr, "root-attack: unknown route %s\n", argv[1]);
		return 2;
	}
	if (getenv("ROOT_ATTACK_HOLD") != NULL)
		sleep((unsigned)atoi(getenv("ROOT_ATTACK_HOLD")));
	return r;
}
