/* SPDX-License-Identifier: ISC */
/* canary: what the probes aim at on the host (canary.h), made before the
 * clone and removed at the end: a directory outside every rule with a
 * file per probe and a copy of the probe program, a TCP and an abstract
 * unix listener, a paused process, a SysV queue, the privileged file
 * beneath the first rw directory rule; the probe program found and the
 * pipe it answers on kept for the payload. */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ipc.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "canary_int.h"
#include "clock.h"
#include "run.h"
#include "err.h"
#include "io.h"

static int
inside_rule(const struct run *r, const char *path)
{
	size_t i;

	for (i = 0; i < r->p.nfs; i++)
		if (plan_path_within(path, r->p.fs[i].path) ||
		    plan_path_within(r->p.fs[i].path, path))
			return 1;
	return 0;
}

static int
copy_file(const char *from, int dfd, const char *to, mode_t mode)
{
	char buf[65536];
	ssize_t n;
	int in, o, rc = 0;

	if ((in = open(from, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	o = openat(dfd, to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
	if (o == -1) {
		close(in);
		return -1;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write_all(o, buf, (size_t)n) == -1) {
			rc = -1;
			break;
		}
	if (n == -1 || fchmod(o, mode) == -1)
		rc = -1;
	close(in);
	if (close(o) == -1)
		rc = -1;
	return rc;
}

/* A fresh directory beneath the first base outside every rule. */
static void
fresh_dir(const struct run *r)
{
	static const char *const bases[] = {"/tmp", "/var/tmp", "/dev/shm",
		"/run"};
	char real[PATH_MAX - 32], path[PATH_MAX];
	size_t i;

	for (i = 0; i < sizeof(bases) / sizeof(bases[0]); i++) {
		if (realpath(bases[i], real) == NULL)
			continue;
		snprintf(path, sizeof(path), "%s/borne-canary.XXXXXX", real);
		if (inside_rule(r, path) || mkdtemp(path) == NULL)
			continue;
		snprintf(canary_state.dir, sizeof(canary_state.dir), "%s",
		    path);
		return;
	}
	snprintf(canary_state.nodir, sizeof(canary_state.nodir),
	    "no directory outside the rules could be made (/tmp, /var/tmp, "
	    "/dev/shm, /run each lie beneath a rule or refuse one)");
}

/* File i of the directory: the probe program's copy, or the bytes. */
static int
make_file(int dfd, size_t i)
{
	const char *b = CANARY_FILE_BYTES;
	int fd;

	if (i == F_EXEC)
		return copy_file(canary_state.prog, dfd, canary_state.fname[i],
		    0755);
	fd = openat(dfd, canary_state.fname[i], O_WRONLY | O_CREAT | O_EXCL |
	    O_CLOEXEC, 0644);
	if (fd == -1 || write_all(fd, b, strlen(b)) == -1 ||
	    fchmod(fd, 0644) == -1 || close(fd) == -1)
		return -1;
	return 0;
}

/* The directory outside every rule, each probe's file in it, owned by
 * the run's ids (only the boundary stands in the way); none (nodir says
 * why) when every base lies beneath a rule. */
int
canary_setup_dir(const struct run *r, char *err, size_t len)
{
	size_t i;
	int dfd;

	fresh_dir(r);
	if (canary_state.dir[0] == '\0')
		return 0;
	if ((dfd = open(canary_state.dir, O_RDONLY | O_DIRECTORY |
	    O_CLOEXEC)) == -1)
		return err_set_sys(err, len, "canary: %s", canary_state.dir);
	for (i = 0; i < F_N; i++)
		if (make_file(dfd, i) == -1 ||
		    fchownat(dfd, canary_state.fname[i], r->final_uid,
		    r->final_gid, AT_SYMLINK_NOFOLLOW) == -1 ||
		    fstatat(dfd, canary_state.fname[i], &canary_state.st[i],
		    AT_SYMLINK_NOFOLLOW) == -1)
			goto fail;
	if (fchown(dfd, r->final_uid, r->final_gid) == -1 ||
	    fchmod(dfd, 0755) == -1)
		goto fail;
	close(dfd);
	return 0;
fail:
	err_set_sys(err, len, "canary: %s/%s", canary_state.dir,
	    canary_state.fname[i]);
	close(dfd);
	return -1;
}

/* A TCP listener on 127.0.0.1 at a port the plan does not grant. */
static int
listen_tcp(const struct run *r)
{
	struct sockaddr_in sa;
	socklen_t sl = sizeof(sa);
	size_t i, tries;
	int fd, taken;

	for (tries = 0; tries < 8; tries++) {
		fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC |
		    SOCK_NONBLOCK, 0);
		if (fd == -1)
			return -1;
		memset(&sa, 0, sizeof(sa));
		sa.sin_family = AF_INET;
		sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
		if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1 ||
		    listen(fd, 4) == -1 ||
		    getsockname(fd, (struct sockaddr *)&sa, &sl) == -1) {
			close(fd);
			return -1;
		}
		canary_state.tcpport = ntohs(sa.sin_port);
		for (taken = 0, i = 0; i < r->p.nconnect; i++)
			taken |= r->p.connect_tcp[i] == canary_state.tcpport;
		if (!taken) {
			canary_state.tcpfd = fd;
			snprintf(canary_state.tcparg,
			    sizeof(canary_state.tcparg), "%u",
			    (unsigned)canary_state.tcpport);
			return 0;
		}
		close(fd);	/* a port the plan grants: another */
	}
	errno = EADDRINUSE;
	return -1;
}

static int
listen_abstract(void)
{
	struct sockaddr_un sa;
	size_t n;
	int fd;

	snprintf(canary_state.absname, sizeof(canary_state.absname),
	    "borne-canary.%ld.%lx", (long)getpid(),
	    (unsigned long)now_ns(CLOCK_MONOTONIC));
	n = strlen(canary_state.absname);
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	memcpy(sa.sun_path + 1, canary_state.absname, n);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd == -1)
		return -1;
	if (bind(fd, (struct sockaddr *)&sa, (socklen_t)(offsetof(struct
	    sockaddr_un, sun_path) + 1 + n)) == -1 || listen(fd, 4) == -1) {
		close(fd);
		return -1;
	}
	canary_state.absfd = fd;
	return 0;
}

/* The listeners, and the SysV queue. */
int
canary_setup_listeners(const struct run *r, char *err, size_t len)
{
	if (listen_tcp(r) == -1)
		return err_set_sys(err, len, "canary: TCP listener on "
		    "127.0.0.1");
	if (listen_abstract() == -1)
		return err_set_sys(err, len, "canary: abstract unix listener");
	return 0;
}

/* The paused process's fork: every signal blocked, until its pipe's
 * other end closes; its pid on pp. */
static void
target_child(int life, int pp)
{
	sigset_t all;
	pid_t b;
	char c;

	sigfillset(&all);
	sigprocmask(SIG_BLOCK, &all, NULL);
	if ((b = fork()) == 0) {
		dup2(life, 0);
		syscall(SYS_close_range, 1u, ~0u, 0u);
		while (read(0, &c, 1) == -1 && errno == EINTR)
			;
		_exit(0);
	}
	(void)!write(pp, &b, sizeof(b));
	_exit(b == -1);
}

/* The paused host process: a grandchild (never a child of confexec's,
 * whose children a run without a pid namespace kills), until confexec
 * ends; and the SysV queue. */
int
canary_setup_target(char *err, size_t len)
{
	int life[2], pp[2], st;
	pid_t a, b;

	if (pipe2(life, O_CLOEXEC) == -1)
		return err_set_sys(err, len, "canary: the host process");
	if (pipe2(pp, O_CLOEXEC) == -1) {
		close(life[0]);
		close(life[1]);
		return err_set_sys(err, len, "canary: the host process");
	}
	fflush(NULL);
	if ((a = fork()) == -1)
		return err_set_sys(err, len, "canary: the host process");
	if (a == 0)
		target_child(life[0], pp[1]);
	close(life[0]);
	close(pp[1]);
	while (waitpid(a, &st, 0) == -1 && errno == EINTR)
		;
	if (read(pp[0], &b, sizeof(b)) != (ssize_t)sizeof(b) || b <= 0) {
		close(pp[0]);
		close(life[1]);
		errno = ECHILD;
		return err_set_sys(err, len, "canary: the host process");
	}
	close(pp[0]);
	canary_state.lifefd = life[1];
	canary_state.target = b;
	snprintf(canary_state.targetarg, sizeof(canary_state.targetarg), "%ld",
	    (long)b);
	canary_state.targetfd = (int)syscall(SYS_pidfd_open, b, 0);
	if (canary_state.targetfd == -1)
		return err_set_sys(err, len, "canary: the host process");
	if ((canary_state.msqid = msgget(IPC_PRIVATE, IPC_CREAT | 0666)) == -1)
		return err_set_sys(err, len, "canary: SysV queue");
	snprintf(canary_state.queuearg, sizeof(canary_state.queuearg), "%d",
	    canary_state.msqid);
	return 0;
}

int
canary_setup_listens(uint16_t port)
{
	char line[256], want1[32], want2[32];
	FILE *f = fopen("/proc/net/tcp", "re");
	unsigned st;
	int found = 0;

	if (f == NULL)
		return 0;
	snprintf(want1, sizeof(want1), "0100007F:%04X", port);
	snprintf(want2, sizeof(want2), "00000000:%04X", port);
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		char local[64];

		if (sscanf(line, " %*d: %63s %*s %x", local, &st) != 2)
			continue;
		found = st == 0x0a && (strcmp(local, want1) == 0 ||
		    strcmp(local, want2) == 0);
	}
	fclose(f);
	return found;
}

/* Its first page, read through dfd. */
static ssize_t
first_page(int dfd, const char *name)
{
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	ssize_t n;

	if (fd == -1)
		return -1;
	n = read(fd, canary_state.privpage, sizeof(canary_state.privpage));
	close(fd);
	return n;
}

/* A privileged file beneath the first rw directory rule, as a root
 * container leaves one: a copy of the probe program, the run's own (so
 * that only the boundary stands in the way), setuid and setgid, with a
 * file capability when confexec may set one (root: CAP_SETFCAP).  The
 * check of the rw trees (privileged.c) strips it before the run. */
int
canary_setup_priv(const struct run *r, const char *dir, char *why,
    size_t len)
{
	/* cap_net_raw=ep, vfs_cap_data v2 (tests/helpers/fcapset.c). */
	static const unsigned char cap[20] = { 0x01, 0, 0, 0x02, 0x00, 0x20 };
	char name[64];
	int dfd;

	snprintf(name, sizeof(name), ".borne-canary-priv.%ld", (long)getpid());
	if ((dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC)) == -1)
		goto fail;
	if (copy_file(canary_state.prog, dfd, name, 0755) == -1 ||
	    fchownat(dfd, name, r->final_uid, r->final_gid,
	    AT_SYMLINK_NOFOLLOW) == -1 ||
	    fchmodat(dfd, name, 06755, 0) == -1) {
		snprintf(why, len, "not run: a setuid file could not be made "
		    "there: %s", strerror(errno));
		(void)unlinkat(dfd, name, 0);
		close(dfd);
		return -1;
	}
	snprintf(canary_state.priv, sizeof(canary_state.priv), "%s%s%s", dir,
	    strcmp(dir, "/") == 0 ? "" : "/", name);
	(void)lsetxattr(canary_state.priv, "security.capability", cap,
	    sizeof(cap), 0);
	canary_state.privlen = first_page(dfd, name);
	close(dfd);
	if (canary_state.privlen != -1 && lstat(canary_state.priv,
	    &canary_state.privst) == 0)
		return 0;
fail:
	snprintf(why, len, "not run: %s", strerror(errno));
	return -1;
}

/* The answers' write end moved to a descriptor the payload keeps: the
 * plan's keep list gets it, in order. */
int
canary_setup_pipe(struct run *r, char *err, size_t len)
{
	struct plan *p = &r->p;
	int fds[2], *k;
	size_t i;

	if (p->nkeep >= PLAN_MAX_KEEP)
		return err_set(err, len, "canary: the plan keeps %d "
		    "descriptors already: none is left for the probes' "
		    "answers", PLAN_MAX_KEEP);
	if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) == -1)
		return err_set_sys(err, len, "canary: pipe");
	canary_state.rfd = fds[0];
	canary_state.wfd = fds[1];
	/* Blocking for the writer: the answers fit in the pipe. */
	if (fcntl(canary_state.wfd, F_SETFL, 0) == -1 ||
	    fcntl(canary_state.wfd, F_SETFD, 0) == -1)
		return err_set_sys(err, len, "canary: pipe");
	if ((k = realloc(p->keep_fds, (p->nkeep + 1) * sizeof(int))) == NULL)
		return err_set_sys(err, len, "canary: keep list");
	for (i = p->nkeep; i > 0 && k[i - 1] > canary_state.wfd; i--)
		k[i] = k[i - 1];
	k[i] = canary_state.wfd;
	p->keep_fds = k;
	p->nkeep++;
	return 0;
}

/* The probe program, beside confexec's own executable. */
int
canary_setup_prog(char *err, size_t len)
{
	char self[PATH_MAX - 32], *slash;
	struct stat st;
	ssize_t n;

	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n <= 0)
		return err_set_sys(err, len, "canary: /proc/self/exe");
	self[n] = '\0';
	if ((slash = strrchr(self, '/')) == NULL)
		return err_set(err, len, "canary: /proc/self/exe: %s", self);
	*slash = '\0';
	snprintf(canary_state.prog, sizeof(canary_state.prog), "%s/%s", self,
	    CANARY_PROG);
	if (stat(canary_state.prog, &st) == -1)
		return err_set_sys(err, len, "canary: the probe program %s",
		    canary_state.prog);
	if (!S_ISREG(st.st_mode))
		return err_set(err, len, "canary: the probe program %s is not "
		    "a regular file", canary_state.prog);
	return 0;
}

void
canary_setup_clean(void)
{
	char path[PATH_MAX + 16];
	size_t i;

	if (canary_state.dir[0] != '\0') {
		for (i = 0; i < F_N; i++) {
			snprintf(path, sizeof(path), "%s/%s", canary_state.dir,
			    canary_state.fname[i]);
			(void)unlink(path);
		}
		if (rmdir(canary_state.dir) == -1)
			warning_sys("canary: residue: %s", canary_state.dir);
		canary_state.dir[0] = '\0';
	}
	for (i = 0; i < canary_state.n; i++)
		if (canary_state.pl[i].h == H_LEFT)
			(void)unlink(canary_state.pl[i].arg);
	if (canary_state.priv[0] != '\0')
		(void)unlink(canary_state.priv);
	canary_state.priv[0] = '\0';
	if (canary_state.msqid != -1)
		(void)msgctl(canary_state.msqid, IPC_RMID, NULL);
	canary_state.msqid = -1;
	if (canary_state.lifefd != -1)
		close(canary_state.lifefd);	/* the target ends */
	canary_state.lifefd = -1;
}
