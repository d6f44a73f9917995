/* SPDX-License-Identifier: ISC */
/* confexec-canary: the probe program of confexec --canary (confexec(1),
 * CANARIES).  confexec seals it and runs it as the payload of the plan
 * under test, in place of the plan's program, with the probes to try as
 * its arguments:
 *
 *	confexec-canary FD OP ARG [OP ARG]...
 *
 * Each OP ARG pair is tried in order and answered with one line on the
 * descriptor FD (a pipe confexec reads): "N ok", "N errno E",
 * "N signal S", "N http CODE", "N timeout" or "N error WHY", N counting
 * the pairs from 0; "start" before the first, "end" after the last.  An
 * OP and its function are a probe's row in probes.def.  It judges
 * nothing: confexec holds the plan's expectations (the rest of the row)
 * and looks at the host's side.  Run as "confexec-canary exit",
 * it exits 0 (the exec probe's target, a copy of this program).
 *
 * Linked statically with no library but libc: inside the boundary it
 * needs no file the plan does not grant. */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define EGRESS_WAIT_S 10	/* the broker's answer, at most */
#define CHUNK (1u << 20)

static int out = -1;
static unsigned idx;

static void
say(const char *fmt, ...)
{
	char line[512];
	va_list ap;
	int n, m;

	n = snprintf(line, sizeof(line), "%u ", idx);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	n += m;
	if ((size_t)n > sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	while (write(out, line, (size_t)n) == -1 && errno == EINTR)
		;
}

/* 0: "ok"; -1: errno. */
static void
result(int rc)
{
	if (rc == -1)
		say("errno %d", errno);
	else
		say("ok");
}

static int
p_read(const char *path)
{
	char c;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd == -1)
		return -1;
	if (read(fd, &c, 1) == -1) {
		close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

/* A directory's entries listed (Landlock's read-dir right). */
static int
p_list(const char *path)
{
	struct dirent *de;
	DIR *d = opendir(path);
	int e;

	if (d == NULL)
		return -1;
	errno = 0;
	de = readdir(d);
	e = errno;
	closedir(d);
	errno = e;
	return de == NULL && e != 0 ? -1 : 0;
}

/* flags: O_APPEND (an existing file: one byte added) or O_CREAT|O_EXCL
 * (a new file); 0: opened for writing, nothing written (a file the plan
 * grants, the user's: left as it was). */
static int
p_write(const char *path, int flags)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC | flags, 0644);
	ssize_t n = 0;

	if (fd == -1)
		return -1;
	if (flags != 0)
		n = write(fd, "canary\n", 7);
	close(fd);
	return n == -1 ? -1 : 0;
}

/* A privileged file beneath a rw rule rewritten as an attacker would:
 * through a shared mapping, a page fault and msync (write(2) would have
 * the kernel clear setuid; a page fault does not). */
static int
p_mmapw(const char *path)
{
	static const char mark[] = "borne canary rewrote this";
	char *m;
	int fd = open(path, O_RDWR | O_CLOEXEC), e;

	if (fd == -1)
		return -1;
	m = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED) {
		e = errno;
		close(fd);
		errno = e;
		return -1;
	}
	memcpy(m + 64, mark, sizeof(mark) - 1);
	e = msync(m, 4096, MS_SYNC) == -1 ? errno : 0;
	munmap(m, 4096);
	close(fd);
	errno = e;
	return e != 0 ? -1 : 0;
}

static int
p_utimes(const char *path)
{
	struct timespec ts[2] = {{1, 0}, {1, 0}};

	return utimensat(AT_FDCWD, path, ts, 0);
}

/* A copy of this program, placed outside the rox rules: run as
 * "confexec-canary exit".  Its execve's errno comes back on a pipe. */
static void
p_exec(const char *path)
{
	char *argv[] = {"confexec-canary", "exit", NULL};
	char *envp[] = {NULL};
	int p[2], e = 0, st;
	ssize_t n;
	pid_t pid;

	if (pipe2(p, O_CLOEXEC) == -1) {
		result(-1);
		return;
	}
	if ((pid = fork()) == -1) {
		result(-1);
		close(p[0]);
		close(p[1]);
		return;
	}
	if (pid == 0) {
		close(p[0]);
		execve(path, argv, envp);
		e = errno;
		(void)!write(p[1], &e, sizeof(e));
		_exit(127);
	}
	close(p[1]);
	do
		n = read(p[0], &e, sizeof(e));
	while (n == -1 && errno == EINTR);
	close(p[0]);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (n == (ssize_t)sizeof(e)) {
		errno = e;
		result(-1);
	} else if (WIFSIGNALED(st))
		say("signal %d", WTERMSIG(st));
	else if (WEXITSTATUS(st) != 0)
		say("error the copy exited %d", WEXITSTATUS(st));
	else
		say("ok");
}

static int
p_tcp(const char *port)
{
	struct sockaddr_in sa;
	int fd, rc;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)atoi(port));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	rc = connect(fd, (struct sockaddr *)&sa, sizeof(sa));
	close(fd);
	return rc;
}

/* A path, or an abstract name (abstract set: a NUL first). */
static int
p_unix(const char *name, int abstract)
{
	struct sockaddr_un sa;
	size_t n = strlen(name);
	int fd, rc;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (n + 1 + (size_t)abstract > sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	memcpy(sa.sun_path + abstract, name, n);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	rc = connect(fd, (struct sockaddr *)&sa, (socklen_t)(
	    offsetof(struct sockaddr_un, sun_path) + (size_t)abstract + n +
	    (abstract ? 0 : 1)));
	close(fd);
	return rc;
}

static int
p_ptrace(const char *pid)
{
	pid_t p = (pid_t)atoi(pid);

	if (ptrace(PTRACE_ATTACH, p, NULL, NULL) == -1)
		return -1;
	(void)waitpid(p, NULL, __WALL);
	(void)ptrace(PTRACE_DETACH, p, NULL, NULL);
	return 0;
}

static int
p_sysv(const char *id)
{
	struct {
		long type;
		char text[8];
	} m = {1, "canary"};

	return msgsnd(atoi(id), &m, 7, IPC_NOWAIT);
}

/* The egress broker's port, from the proxy variable the run was given. */
static int
proxy_port(void)
{
	const char *v = getenv("https_proxy"), *c;

	if (v == NULL)
		v = getenv("HTTPS_PROXY");
	if (v == NULL || (c = strrchr(v, ':')) == NULL)
		return -1;
	return atoi(c + 1);
}

/* CONNECT HOST:PORT through the broker: its status code. */
static void
p_egress(const char *dest)
{
	struct timeval tv = {EGRESS_WAIT_S, 0};
	struct sockaddr_in sa;
	char req[600], buf[64];
	int fd, port, code;
	ssize_t n;
	size_t got = 0;

	if ((port = proxy_port()) <= 0) {
		say("error no proxy variable (https_proxy)");
		return;
	}
	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t)port);
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if ((fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1) {
		result(-1);
		return;
	}
	(void)setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
	n = snprintf(req, sizeof(req), "CONNECT %s HTTP/1.1\r\nHost: %s\r\n\r\n",
	    dest, dest);
	if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
	    write(fd, req, (size_t)n) != n) {
		result(-1);
		close(fd);
		return;
	}
	while (got < sizeof(buf) - 1 && memchr(buf, '\n', got) == NULL) {
		n = read(fd, buf + got, sizeof(buf) - 1 - got);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	close(fd);
	buf[got] = '\0';
	if (got == 0 && n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK))
		say("timeout");
	else if (sscanf(buf, "HTTP/1.%*d %d", &code) == 1)
		say("http %d", code);
	else if (n == -1)
		result(-1);
	else
		say("error no status line from the broker");
}

/* body(arg) in a child of its own, its end the answer: killed, or
 * exited 0 ok, 1 to 99 an errno, 100 out of memory for its own list. */
static void
in_child(void (*body)(const char *), const char *arg)
{
	pid_t pid;
	int st;

	if ((pid = fork()) == -1) {
		result(-1);
		return;
	}
	if (pid == 0)
		body(arg);
	while (waitpid(pid, &st, 0) == -1 && errno == EINTR)
		;
	if (WIFSIGNALED(st))
		say("signal %d", WTERMSIG(st));
	else if (WEXITSTATUS(st) == 0)
		say("ok");
	else if (WEXITSTATUS(st) < 100)
		say("errno %d", WEXITSTATUS(st));
	else if (WEXITSTATUS(st) == 100)
		say("error no memory for the list");
	else
		say("error the child exited %d", WEXITSTATUS(st));
}

/* Touch arg bytes of memory. */
static void __attribute__((noreturn))
touch(const char *arg)
{
	unsigned long long want = strtoull(arg, NULL, 10), done;
	char *m;

	for (done = 0; done < want; done += CHUNK) {
		m = mmap(NULL, CHUNK, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			_exit(ENOMEM);
		memset(m, 0x5a, CHUNK);
	}
	_exit(0);
}

/* Arg processes more, each paused until they are ended: the first
 * fork's errno. */
static void __attribute__((noreturn))
forks(const char *arg)
{
	long n = atol(arg), i;
	pid_t *kids;
	int e = 0;

	if ((kids = calloc((size_t)n + 1, sizeof(pid_t))) == NULL)
		_exit(100);
	for (i = 0; i < n; i++) {
		if ((kids[i] = fork()) == -1) {
			e = errno;
			break;
		}
		if (kids[i] == 0) {
			pause();
			_exit(0);
		}
	}
	while (i-- > 0) {
		kill(kids[i], SIGKILL);
		(void)waitpid(kids[i], NULL, 0);
	}
	_exit(e > 0 && e < 100 ? e : 0);
}

static int
p_append(const char *path)
{
	return p_write(path, O_APPEND);
}

static int
p_openw(const char *path)
{
	return p_write(path, 0);
}

static int
p_create(const char *path)
{
	return p_write(path, O_CREAT | O_EXCL);
}

static int
p_chmod(const char *path)
{
	return chmod(path, 0600);
}

static int
p_udp(const char *arg)
{
	return socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
}

static int
p_path(const char *path)
{
	return p_unix(path, 0);
}

static int
p_abstract(const char *name)
{
	return p_unix(name, 1);
}

static int
p_signal(const char *pid)
{
	return kill((pid_t)atoi(pid), SIGUSR1);
}

/* The ops, from the probes' rows (probes.def): what each does with its
 * argument. */
#define TRIES(f) f, NULL, NULL
#define ANSWERS(f) NULL, f, NULL
#define CHILD(f) NULL, NULL, f
#define PROBE(name, op, function, ...) {op, function},
static const struct op {
	const char *name;
	int (*tries)(const char *arg);	/* "ok", or "errno E" (-1) */
	void (*answers)(const char *arg);
	void (*child)(const char *arg);	/* in_child */
} ops[] = {
#include "probes.def"
};
#undef PROBE

static void
probe(const char *op, const char *arg)
{
	size_t i;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (strcmp(op, ops[i].name) != 0)
			continue;
		if (ops[i].tries != NULL)
			result(ops[i].tries(arg));
		else if (ops[i].answers != NULL)
			ops[i].answers(arg);
		else
			in_child(ops[i].child, arg);
		return;
	}
	say("error unknown probe %.64s", op);
}

int
main(int argc, char *argv[])
{
	int i;

	if (argc == 2 && strcmp(argv[1], "exit") == 0)
		return 0;
	if (argc < 2 || argc % 2 != 0) {
		fprintf(stderr, "confexec-canary: run by confexec --canary "
		    "(confexec(1), CANARIES)\n");
		return 2;
	}
	out = atoi(argv[1]);
	if (out < 3 || fcntl(out, F_GETFD) == -1) {
		fprintf(stderr, "confexec-canary: no descriptor %s to report "
		    "on\n", argv[1]);
		return 2;
	}
	signal(SIGPIPE, SIG_IGN);
	/* Running, under the plan's boundary: confexec prints no line for a
	 * run that never got here. */
	while (write(out, "start\n", 6) == -1 && errno == EINTR)
		;
	for (i = 2; i + 1 < argc; i += 2, idx++)
		probe(argv[i], argv[i + 1]);
	/* Every probe answered: confexec judges nothing without this. */
	while (write(out, "end\n", 4) == -1 && errno == EINTR)
		;
	return 0;
}
