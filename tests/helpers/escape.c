/* SPDX-License-Identifier: ISC */
/* escape: tries ONE forbidden (or allowed) thing from inside a confexec
 * boundary and prints what it got: "OK" or the errno name (EACCES, EPERM,
 * ...).  A seccomp kill shows as the signal to whoever waits for it.
 *   escape connect PORT | bind PORT          TCP on 127.0.0.1
 *   escape socket DOM TYPE PROTO             raw syscall, 64-bit args
 *   escape socketpair DOM TYPE PROTO
 *   escape read PATH | write PATH | exec PATH [ARGS] | mkdir PATH
 *   escape unlink PATH | rmdir PATH
 *   escape mknod PATH TYPE                   TYPE c (1:3), b (7:0), p
 *                                            (a FIFO), s (a socket) or
 *                                            f (a regular file), 0600
 *   escape truncate PATH                     truncate(2) to 0 bytes
 *   escape open-trunc MODE PATH              openat, then open, with
 *                                            O_TRUNC and access mode MODE
 *                                            (rdonly, wronly, rdwr, 3):
 *                                            "openat:X open:Y"
 *   escape ftruncate PATH                    open O_WRONLY|O_CREAT, then
 *                                            ftruncate(fd, 0)
 *   escape openat2 PATH                      openat2 O_RDONLY
 *   escape ptrace | vmread | vmwrite | pidfd_getfd | unshare FLAGS |
 *          setns | clone FLAGS | clone3 | pthread | int80 | x32 |
 *          io_uring | memfd-exec | bpf | mount
 *   escape ids | securebits | status | exe | fds | stdin | environ
 *   escape stdin-dev                         "char MAJ:MIN" of fd 0
 *   escape tcp-udp PORT                      connect, then a UDP socket
 *   escape listen FILE | unix-bind PATH | unix-listen PATH
 *                                            fixtures (outside confexec)
 *   escape unix-connect PATH                 connect to a unix socket
 *   escape unix-request PATH LINE [GO]       (once the file GO exists)
 *                                            connect, send LINE and a
 *                                            newline (then create
 *                                            GO.sent), read the answer:
 *                                            "socket:E", "connect:E",
 *                                            "write:E", "read:E", "eof"
 *                                            or "answer:TEXT"
 *   escape readfd N                          read an inherited fd
 *   escape grandchild[-sleep] PIDFILE        setsid child that sleeps
 *                                            (-sleep: the parent too);
 *                                            it holds an exclusive flock
 *                                            on PIDFILE.lock (released
 *                                            when it dies: the host's
 *                                            proof), then PIDFILE gets
 *                                            its pid (the run's)
 *   escape session                           "leader" or "member", then
 *                                            the errno of open(/dev/tty)
 *   escape pid                               getpid(), getppid()
 *   escape signal PID                        SIGTERM to another process
 *   escape kill SIG | exit N | sleep SEC
 *   escape swap GOOD BAD N                   N opens of a path another
 *                                            thread swaps between GOOD
 *                                            and BAD: "opened:G leaked:L"
 *                                            (L opens reached BAD) */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/sendfile.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include <dirent.h>
#include <arpa/inet.h>

#include "ename.h"
#include "scan.h"
#include "uapi.h"

static int
report(long rc)
{
	if (rc != -1) {
		puts("OK");
		return 0;
	}
	puts(ename(errno));
	return 0;
}

/* A unix stream socket (with flags) and u set to PATH: the socket, or
 * -1 with errno. */
static int
unix_socket(const char *path, struct sockaddr_un *u, int flags)
{
	int l = socket(AF_UNIX, SOCK_STREAM | flags, 0);

	memset(u, 0, sizeof(*u));
	u->sun_family = AF_UNIX;
	snprintf(u->sun_path, sizeof(u->sun_path), "%s", path);
	return l;
}

static unsigned long long
num(const char *s)
{
	uint64_t v;

	if (strncmp(s, "0x", 2) == 0) {
		const char *h = "0123456789abcdef", *q;

		if (s[2] == '\0' || strlen(s + 2) > 16)
			exit(2);
		for (v = 0, s += 2; *s != '\0'; s++) {
			q = strchr(h, *s);
			if (q == NULL || *s == '\0')
				exit(2);
			v = v << 4 | (uint64_t)(q - h);
		}
		return v;
	}
	if (scan_u64(s, 0, UINT64_MAX, &v) == -1)
		exit(2);
	return v;
}

static int
tcp(const char *port, int bind_it)
{
	struct sockaddr_in a;
	int s;

	s = socket(AF_INET, SOCK_STREAM, 0);
	if (s == -1) {
		printf("socket:");
		return report(-1);
	}
	memset(&a, 0, sizeof(a));
	a.sin_family = AF_INET;
	a.sin_port = htons((uint16_t)num(port));
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	return report(bind_it ? bind(s, (struct sockaddr *)&a, sizeof(a)) :
			      connect(s, (struct sockaddr *)&a, sizeof(a)));
}

static void *
thread_fn(void *arg)
{
	return arg;
}

/* swap GOOD BAD N: a thread rewrites the path buffer between GOOD and
 * BAD while the main thread opens it N times: what the supervisor copies
 * of the path (--explain-denials) may be either; the kernel must still
 * refuse every open that reaches BAD.  Prints "opened:G leaked:L", L the
 * opens that got BAD's inode. */
static struct {
	char path[4096];
	const char *good, *bad;
	volatile int stop;
} sw;

static void *
swap_fn(void *arg)
{
	size_t g = strlen(sw.good) + 1, b = strlen(sw.bad) + 1;

	while (!sw.stop) {
		memcpy(sw.path, sw.bad, b);
		memcpy(sw.path, sw.good, g);
	}
	return arg;
}

static int
swap_opens(const char *good, const char *bad, long n)
{
	struct stat bst, st;
	pthread_t t;
	long i, opened = 0, leaked = 0;
	int fd;

	if (stat(bad, &bst) == -1)
		return report(-1);
	sw.good = good;
	sw.bad = bad;
	memcpy(sw.path, good, strlen(good) + 1);
	if ((errno = pthread_create(&t, NULL, swap_fn, NULL)) != 0)
		return report(-1);
	for (i = 0; i < n; i++) {
		fd = open(sw.path, O_RDONLY | O_CLOEXEC);
		if (fd == -1)
			continue;
		opened++;
		if (fstat(fd, &st) == 0 && st.st_ino == bst.st_ino &&
		    st.st_dev == bst.st_dev)
			leaked++;
		close(fd);
	}
	sw.stop = 1;
	pthread_join(t, NULL);
	printf("opened:%ld leaked:%ld\n", opened, leaked);
	return 0;
}

static int
memfd_exec(void)
{
	char *argv[] = {"true", NULL}, *envp[] = {NULL};
	struct stat st;
	int src, m;

	src = open("/bin/true", O_RDONLY | O_CLOEXEC);
	if (src == -1 || fstat(src, &st) == -1) {
		printf("open:");
		return report(-1);
	}
	m = memfd_create("self", 0);
	if (m == -1 || sendfile(m, src, NULL, (size_t)st.st_size) !=
	    st.st_size) {
		printf("memfd:");
		return report(-1);
	}
	syscall(SYS_execveat, m, "", argv, envp, AT_EMPTY_PATH);
	return report(-1);
}

static int
status_lines(void)
{
	char buf[8192];
	ssize_t n;
	int fd;

	fd = open("/proc/self/status", O_RDONLY);
	if (fd == -1)
		return report(-1);
	n = read(fd, buf, sizeof(buf) - 1);
	if (n < 0)
		return report(-1);
	buf[n] = '\0';
	fputs(buf, stdout);
	return 0;
}

int
main(int argc, char *argv[])
{
	const char *c = argc > 1 ? argv[1] : "";
	char buf[4096];
	ssize_t n;

	setvbuf(stdout, NULL, _IONBF, 0);
	if (strcmp(c, "connect") == 0 && argc == 3)
		return tcp(argv[2], 0);
	if (strcmp(c, "bind") == 0 && argc == 3)
		return tcp(argv[2], 1);
	if (strcmp(c, "tcp-udp") == 0 && argc == 3) {
		/* The two-layer proof in one process, under one plan. */
		printf("connect:");
		tcp(argv[2], 0);
		printf("udp:");
		return report(socket(AF_INET, SOCK_DGRAM, 0));
	}
	if (strcmp(c, "listen") == 0 && argc == 3) {
		/* Test fixture: listen on 127.0.0.1:0, write the port to
		 * FILE, wait to be killed. */
		struct sockaddr_in a;
		socklen_t al = sizeof(a);
		FILE *f;
		int l = socket(AF_INET, SOCK_STREAM, 0);

		memset(&a, 0, sizeof(a));
		a.sin_family = AF_INET;
		a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (l == -1 || bind(l, (struct sockaddr *)&a, sizeof(a)) ||
		    listen(l, 8) || getsockname(l, (struct sockaddr *)&a, &al))
			return report(-1);
		f = fopen(argv[2], "w");
		if (f == NULL)
			return report(-1);
		fprintf(f, "%u\n", (unsigned)ntohs(a.sin_port));
		fclose(f);
		for (;;)
			pause();
	}
	if ((strcmp(c, "unix-connect") == 0 || strcmp(c, "unix-listen") == 0) &&
	    argc == 3) {
		/* unix-listen: test fixture (listen at PATH, wait to be
		 * killed); unix-connect: connect to it from inside. */
		struct sockaddr_un u;
		int l = unix_socket(argv[2], &u, 0);

		if (l == -1) {
			printf("socket:");
			return report(-1);
		}
		if (strcmp(c, "unix-connect") == 0)
			return report(connect(l, (struct sockaddr *)&u,
			    sizeof(u)));
		if (bind(l, (struct sockaddr *)&u, sizeof(u)) || listen(l, 8))
			return report(-1);
		for (;;)
			pause();
	}
	if (strcmp(c, "unix-request") == 0 && (argc == 4 || argc == 5)) {
		/* A control socket's client, from inside. */
		struct sockaddr_un u;
		char ans[4096];
		int l = unix_socket(argv[2], &u, SOCK_CLOEXEC);
		size_t len = strlen(argv[3]);

		if (l == -1) {
			printf("socket:");
			return report(-1);
		}
		for (n = 0; argc == 5 && access(argv[4], F_OK) == -1 &&
		     n < 3000; n++)
			usleep(10000);
		if (connect(l, (struct sockaddr *)&u, sizeof(u)) == -1) {
			printf("connect:");
			return report(-1);
		}
		if (send(l, argv[3], len, MSG_NOSIGNAL) != (ssize_t)len ||
		    send(l, "\n", 1, MSG_NOSIGNAL) != 1) {
			printf("write:");
			return report(-1);
		}
		if (argc == 5) {
			snprintf(ans, sizeof(ans), "%s.sent", argv[4]);
			close(open(ans, O_WRONLY | O_CREAT | O_CLOEXEC, 0600));
		}
		n = read(l, ans, sizeof(ans) - 1);
		if (n < 0) {
			printf("read:");
			return report(-1);
		}
		if (n == 0) {
			puts("eof");
			return 0;
		}
		ans[n] = '\0';
		printf("answer:%s", ans);
		return 0;
	}
	if (strcmp(c, "unix-bind") == 0 && argc == 3) {
		/* Test fixture: leave a unix socket inode at PATH. */
		struct sockaddr_un u;
		int l = socket(AF_UNIX, SOCK_STREAM, 0);

		memset(&u, 0, sizeof(u));
		u.sun_family = AF_UNIX;
		snprintf(u.sun_path, sizeof(u.sun_path), "%s", argv[2]);
		return report(l == -1 ? -1 :
		    bind(l, (struct sockaddr *)&u, sizeof(u)));
	}
	if (strcmp(c, "readfd") == 0 && argc == 3) {
		n = read((int)num(argv[2]), buf, sizeof(buf) - 1);
		if (n < 0)
			return report(-1);
		buf[n] = '\0';
		fputs(buf, stdout);
		return 0;
	}
	if (strcmp(c, "socket") == 0 && argc == 5)
		return report(syscall(SYS_socket, num(argv[2]), num(argv[3]),
		    num(argv[4])));
	if (strcmp(c, "socketpair") == 0 && argc == 5) {
		int sv[2];

		return report(syscall(SYS_socketpair, num(argv[2]),
		    num(argv[3]), num(argv[4]), sv));
	}
	if (strcmp(c, "read") == 0 && argc == 3)
		return report(open(argv[2], O_RDONLY));
	if (strcmp(c, "write") == 0 && argc == 3)
		return report(open(argv[2], O_WRONLY | O_CREAT, 0644));
	if (strcmp(c, "truncate") == 0 && argc == 3)
		return report(truncate(argv[2], 0));
	if (strcmp(c, "open-trunc") == 0 && argc == 4) {
		static const char *const modes[] = {"rdonly", "wronly", "rdwr",
			"3"};
		long fd;
		int m;

		for (m = 0; m < 4; m++)
			if (strcmp(argv[2], modes[m]) == 0)
				break;
		if (m == 4)
			return 2;
		/* Raw syscalls: the flags reach the kernel as given. */
		printf("openat:");
		fd = syscall(SYS_openat, AT_FDCWD, argv[3], m | O_TRUNC);
		report(fd);
		if (fd >= 0)
			close((int)fd);
		printf("open:");
		fd = syscall(SYS_open, argv[3], m | O_TRUNC);
		report(fd);
		if (fd >= 0)
			close((int)fd);
		return 0;
	}
	if (strcmp(c, "ftruncate") == 0 && argc == 3) {
		int fd = open(argv[2], O_WRONLY | O_CREAT | O_CLOEXEC, 0644);

		if (fd == -1) {
			printf("open:");
			return report(-1);
		}
		return report(ftruncate(fd, 0));
	}
	if (strcmp(c, "openat2") == 0 && argc == 3) {
		uint64_t how[3] = {O_RDONLY, 0, 0};	/* struct open_how */

		return report(syscall(__NR_openat2, AT_FDCWD, argv[2], how,
		    sizeof(how)));
	}
	if (strcmp(c, "mkdir") == 0 && argc == 3)
		return report(mkdir(argv[2], 0755));
	if (strcmp(c, "unlink") == 0 && argc == 3)
		return report(unlink(argv[2]));
	if (strcmp(c, "rmdir") == 0 && argc == 3)
		return report(rmdir(argv[2]));
	if (strcmp(c, "mknod") == 0 && argc == 4 && argv[3][0] != '\0' &&
	    argv[3][1] == '\0' && strchr("cbpsf", argv[3][0]) != NULL) {
		static const struct {
			char t;
			mode_t m;
			unsigned maj, min;
		} ty[] = {{'c', S_IFCHR, 1, 3}, {'b', S_IFBLK, 7, 0},
		    {'p', S_IFIFO, 0, 0}, {'s', S_IFSOCK, 0, 0},
		    {'f', S_IFREG, 0, 0}};
		size_t i;

		for (i = 0; ty[i].t != argv[3][0]; i++)
			;
		return report(mknod(argv[2], ty[i].m | 0600,
		    makedev(ty[i].maj, ty[i].min)));
	}
	if (strcmp(c, "exec") == 0 && argc >= 3) {
		execv(argv[2], argv + 2);
		return report(-1);
	}
	if (strcmp(c, "ptrace") == 0)
		return report(ptrace(PTRACE_ATTACH, getppid(), 0, 0));
	if (strcmp(c, "vmread") == 0 || strcmp(c, "vmwrite") == 0) {
		char a[8] = "x", b[8];
		struct iovec l = {b, 1}, r = {a, 1};

		return report(syscall(strcmp(c, "vmread") == 0 ?
			SYS_process_vm_readv : SYS_process_vm_writev,
		    getpid(), &l, 1, &r, 1, 0));
	}
	if (strcmp(c, "pidfd_getfd") == 0) {
		int pfd = (int)syscall(__NR_pidfd_open, getpid(), 0);

		if (pfd == -1) {
			printf("pidfd_open:");
			return report(-1);
		}
		return report(syscall(__NR_pidfd_getfd, pfd, 0, 0));
	}
	if (strcmp(c, "unshare") == 0 && argc == 3)
		return report(unshare((int)num(argv[2])));
	if (strcmp(c, "setns") == 0) {
		int fd = open("/proc/self/ns/net", O_RDONLY);

		/* An fd is not needed for the filter to answer: -1 gives
		 * EBADF when allowed, EPERM when denied. */
		return report(setns(fd, 0));
	}
	if (strcmp(c, "clone") == 0 && argc == 3) {
		long pid = syscall(SYS_clone, num(argv[2]) | SIGCHLD, 0, 0, 0,
		    0);

		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid((pid_t)pid, NULL, 0);
		return report(pid);
	}
	if (strcmp(c, "clone3") == 0) {
		struct borne_clone_args ca;
		long pid;

		memset(&ca, 0, sizeof(ca));
		ca.exit_signal = SIGCHLD;
		pid = syscall(__NR_clone3, &ca, sizeof(ca));
		if (pid == 0)
			_exit(0);
		if (pid > 0)
			waitpid((pid_t)pid, NULL, 0);
		return report(pid);
	}
	if (strcmp(c, "swap") == 0 && argc == 5)
		return swap_opens(argv[2], argv[3], strtol(argv[4], NULL, 10));
	if (strcmp(c, "pthread") == 0) {
		pthread_t t;
		int e = pthread_create(&t, NULL, thread_fn, NULL);

		if (e == 0)
			pthread_join(t, NULL);
		errno = e;
		return report(e == 0 ? 0 : -1);
	}
	if (strcmp(c, "int80") == 0) {
		long r;

		/* i386 getpid (20) through the 32-bit entry point. */
		__asm__ volatile("int $0x80" : "=a"(r) : "a"(20L) : "memory");
		printf("int80 returned %ld\n", r);
		return 0;
	}
	if (strcmp(c, "x32") == 0)
		return report(syscall(0x40000000L | SYS_getpid));
	if (strcmp(c, "io_uring") == 0) {
		char params[120];

		memset(params, 0, sizeof(params));
		return report(syscall(425, 1, params));
	}
	if (strcmp(c, "bpf") == 0)
		return report(syscall(SYS_bpf, 0, NULL, 0));
	if (strcmp(c, "mount") == 0)
		return report(syscall(SYS_mount, "none", "/tmp", "tmpfs", 0,
		    NULL));
	if (strcmp(c, "memfd-exec") == 0)
		return memfd_exec();
	if (strcmp(c, "ids") == 0) {
		uid_t r, e, s;
		gid_t rg, eg, sg;

		getresuid(&r, &e, &s);
		getresgid(&rg, &eg, &sg);
		printf("uid %lu %lu %lu gid %lu %lu %lu groups %d\n",
		    (unsigned long)r, (unsigned long)e, (unsigned long)s,
		    (unsigned long)rg, (unsigned long)eg, (unsigned long)sg,
		    getgroups(0, NULL));
		return 0;
	}
	if (strcmp(c, "securebits") == 0) {
		printf("securebits 0x%x\n", prctl(PR_GET_SECUREBITS));
		return 0;
	}
	if (strcmp(c, "status") == 0)
		return status_lines();
	if (strcmp(c, "stdin-dev") == 0) {
		struct stat st;

		if (fstat(0, &st) == -1)
			return report(-1);
		if (S_ISCHR(st.st_mode))
			printf("char %u:%u\n", major(st.st_rdev),
			    minor(st.st_rdev));
		else
			puts("other");
		return 0;
	}
	if (strcmp(c, "exe") == 0 || strcmp(c, "stdin") == 0) {
		n = readlink(strcmp(c, "exe") == 0 ? "/proc/self/exe" :
					"/proc/self/fd/0", buf, sizeof(buf) - 1);
		if (n < 0)
			return report(-1);
		buf[n] = '\0';
		puts(buf);
		return 0;
	}
	if (strcmp(c, "fds") == 0) {
		DIR *d = opendir("/proc/self/fd");
		struct dirent *de;

		if (d == NULL)
			return report(-1);
		while ((de = readdir(d)) != NULL) {
			int fd;

			if (scan_int(de->d_name, 0, 1 << 20, &fd) == 0 &&
			    fd != dirfd(d))
				printf("%d ", fd);
		}
		printf("\n");
		return 0;
	}
	if ((strcmp(c, "grandchild") == 0 || strcmp(c, "grandchild-sleep") ==
		0) && argc == 3) {
		pid_t p = fork();

		if (p == 0) {
			char tmp[4096];
			FILE *f;
			int lk;

			setsid();
			snprintf(tmp, sizeof(tmp), "%s.lock", argv[2]);
			lk = open(tmp, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
			if (lk == -1 || flock(lk, LOCK_EX) == -1)
				_exit(1);
			/* Complete or absent: the parent waits for it. */
			snprintf(tmp, sizeof(tmp), "%s.tmp", argv[2]);
			f = fopen(tmp, "w");
			if (f == NULL)
				_exit(1);
			fprintf(f, "%ld\n", (long)getpid());
			if (fclose(f) != 0 || rename(tmp, argv[2]) != 0)
				_exit(1);
			for (;;)
				pause();
		}
		/* Wait until the pid file is there, then leave. */
		for (n = 0; n < 500; n++) {
			if (access(argv[2], F_OK) == 0)
				break;
			usleep(10000);
		}
		if (strcmp(c, "grandchild-sleep") == 0)
			for (;;)
				pause();
		return 0;
	}
	if (strcmp(c, "session") == 0) {
		int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);

		printf("%s ", getsid(0) == getpid() ? "leader" : "member");
		return report(fd);
	}
	if (strcmp(c, "pid") == 0) {
		printf("%ld %ld\n", (long)getpid(), (long)getppid());
		return 0;
	}
	if (strcmp(c, "signal") == 0 && argc == 3)
		return report(kill((pid_t)num(argv[2]), SIGTERM));
	if (strcmp(c, "kill") == 0 && argc == 3) {
		kill(getpid(), (int)num(argv[2]));
		return 3;
	}
	if (strcmp(c, "exit") == 0 && argc == 3)
		return (int)num(argv[2]);
	if (strcmp(c, "sleep") == 0 && argc == 3) {
		sleep((unsigned)num(argv[2]));
		return 0;
	}
	fprintf(stderr, "escape: unknown probe\n");
	return 2;
}
