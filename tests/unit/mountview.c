/* SPDX-License-Identifier: ISC */
/* Unit tests of common/mountview: what mv_prepare chooses (binds, their
 * order and attributes, devices, /proc rules, the refusals: a sticky
 * directory, /proc, /sys and /dev writable; the tmpfs options),
 * then, as root, mv_apply in a child of its own mount namespace: what
 * the kernel answers there, and the host's file unchanged. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "mountview.h"
#include "uapi.h"
#include "plan.h"
#include "tap.h"

static char dir[] = "/tmp/borne-mv-XXXXXX";

static void
path(char *buf, size_t n, const char *rel)
{
	snprintf(buf, n, "%s/%s", dir, rel);
}

/* A plan of rules (intent, path); real paths are the paths, each opened
 * O_PATH as the rule's walk would (fd[i], -1 when missing). */
static void
mkplan(struct plan *p, struct plan_fsrule *fs, size_t n, int *fd)
{
	size_t i;

	memset(p, 0, sizeof(*p));
	p->fs = fs;
	p->nfs = n;
	for (i = 0; i < n; i++)
		fd[i] = open(fs[i].path, O_PATH | O_NOFOLLOW | O_CLOEXEC);
}

static void
unplan(int *fd, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (fd[i] != -1)
			close(fd[i]);
}

static int
prepare(struct mountview *mv, struct plan *p, char **real, int *fd,
    uid_t uid, const char *tmp, char *err, size_t len)
{
	struct mv_args a = { p, real, fd, geteuid() != 0, -1, 6, tmp, uid,
		1001, 4096, "/" };

	return mv_prepare(mv, &a, err, len);
}

/* prepare with one rule (intent, path), as uid 0, no tmp: its result,
 * errno as it left it. */
static int
prepare_one(enum plan_intent intent, const char *path, char *err, size_t len)
{
	struct plan_fsrule fs[1] = {{intent, (char *)path}};
	char *real[1] = {(char *)path};
	struct mountview mv;
	struct plan p;
	int fd[1], r, e;

	mkplan(&p, fs, 1, fd);
	r = prepare(&mv, &p, real, fd, 0, NULL, err, len);
	e = errno;
	mv_free(&mv);
	unplan(fd, 1);
	errno = e;
	return r;
}

static const struct mv_bind *
bind_of(const struct mountview *mv, const char *path)
{
	size_t i;

	for (i = 0; i < mv->nbind; i++)
		if (strcmp(mv->bind[i].path, path) == 0)
			return &mv->bind[i];
	return NULL;
}

static void
test_prepare(void)
{
	char rw[256], rwdeep[256], ro[256], sticky[256], err[512];
	struct plan_fsrule fs[5];
	const struct mv_bind *b;
	char *real[5];
	int fd[5];
	struct mountview mv;
	struct plan p;
	size_t i;

	path(rw, sizeof(rw), "rw");
	path(rwdeep, sizeof(rwdeep), "rw/deep");
	path(ro, sizeof(ro), "ro");
	path(sticky, sizeof(sticky), "sticky");
	mkdir(rw, 0755);
	mkdir(rwdeep, 0755);
	mkdir(ro, 0755);
	mkdir(sticky, 01777);
	chmod(sticky, 01777);
	fs[0] = (struct plan_fsrule){PLAN_RW, rwdeep};
	fs[1] = (struct plan_fsrule){PLAN_RO, ro};
	fs[2] = (struct plan_fsrule){PLAN_RWX, rw};
	fs[3] = (struct plan_fsrule){PLAN_RW, "/dev/null"};
	fs[4] = (struct plan_fsrule){PLAN_RO, "/proc/self"};
	for (i = 0; i < 5; i++)
		real[i] = fs[i].path;
	mkplan(&p, fs, 5, fd);
	is_int(prepare(&mv, &p, real, fd, 1000, "/tmp/t", err, sizeof(err)),
	    0, "prepare: %s", err);
	is_int(mv.nbind, 4, "binds: every rule but /proc's (ro ones too)");
	is_str(mv.bind[0].path, "/dev/null", "shortest path first");
	is_str(mv.bind[mv.nbind - 1].path, rwdeep,
	    "the nested one last (it stacks)");
	b = bind_of(&mv, "/dev/null");
	ok(b != NULL && (b->set & MOUNT_ATTR_RDONLY) &&
	    (b->clr & MOUNT_ATTR_NODEV), "/dev/null: read-only, with devices");
	b = bind_of(&mv, ro);
	ok(b != NULL && (b->set & MOUNT_ATTR_RDONLY) &&
	    (b->set & MOUNT_ATTR_NOSUID) && (b->set & MOUNT_ATTR_NODEV),
	    "ro: read-only, nosuid, nodev");
	b = bind_of(&mv, rw);
	ok(b != NULL && !(b->set & MOUNT_ATTR_RDONLY) &&
	    (b->set & MOUNT_ATTR_NOSUID) && (b->set & MOUNT_ATTR_NODEV) &&
	    b->clr == 0, "rwx: writable, nosuid, nodev");
	ok(b != NULL && b->dir, "a directory's bind says so");
	if (geteuid() == 0)
		ok(b != NULL && b->tree != -1, "as root the clone is made here, "
		    "from the rule's descriptor");
	else
		skip("the clone made by mv_prepare", "needs root");
	is_int(mv.nproc, 1, "one rule beneath /proc, added on the run's");
	is_str(mv.proc[0].path, "/proc/self", "by the plan's own path");
	ok(mv.proc[0].access != 0, "with its rights");
	ok(strcmp(mv.tmpuid, "1000") == 0 && strcmp(mv.tmpgid, "1001") == 0 &&
	    strcmp(mv.tmpsize, "4096") == 0, "tmpfs options: owner, size");
	mv_free(&mv);
	unplan(fd, 5);

	fs[0] = (struct plan_fsrule){PLAN_RW, sticky};
	real[0] = sticky;
	mkplan(&p, fs, 1, fd);
	err[0] = '\0';
	is_int(prepare(&mv, &p, real, fd, getuid(), NULL, err, sizeof(err)),
	    -1, "rw on a sticky directory the payload owns: refused");
	ok(strstr(err, "sticky") != NULL && strstr(err, "--tmp") != NULL,
	    "the refusal says why and what to use: %s", err);
	mv_free(&mv);
	fs[0] = (struct plan_fsrule){PLAN_RO, sticky};
	is_int(prepare(&mv, &p, real, fd, getuid(), NULL, err, sizeof(err)),
	    0, "ro on it: fine");
	mv_free(&mv);
	fs[0] = (struct plan_fsrule){PLAN_RW, sticky};
	is_int(prepare(&mv, &p, real, fd, getuid() + 1, NULL, err,
	    sizeof(err)), 0, "rw on one another uid owns: fine");
	mv_free(&mv);
	unplan(fd, 1);

	/* The host's controls: never writable, whatever the plan says. */
	errno = 0;
	is_int(prepare_one(PLAN_RW, "/proc/sys", err, sizeof(err)), -1,
	    "rw /proc/sys: refused");
	ok(errno == EPERM && strstr(err, "read-only") != NULL, "EPERM, "
	    "saying why: %s", err);
	is_int(prepare_one(PLAN_RWX, "/sys", err, sizeof(err)), -1,
	    "rwx /sys: refused");
	is_int(prepare_one(PLAN_RW, "/dev", err, sizeof(err)), -1,
	    "rw /dev (a directory of devices): refused");
	ok(strstr(err, "device node") != NULL, "saying why: %s", err);
}

/* In a child: a mount namespace, the view, then each answer written to
 * the pipe as errno numbers. */
static void
test_apply(void)
{
	char rw[256], ro[256], out[256], f_in[256], f_ro[256], f_out[256];
	char err[512];
	struct plan_fsrule fs[3];
	struct stat st;
	struct mountview mv;
	struct plan p;
	char *real[3];
	int fd[3], res[7], pfd[2], status;
	pid_t pid;

	if (geteuid() != 0) {
		skip("mv_apply in a mount namespace", "needs root");
		return;
	}
	path(rw, sizeof(rw), "rw");
	path(ro, sizeof(ro), "ro");
	path(out, sizeof(out), "out");
	mkdir(out, 0755);
	path(f_in, sizeof(f_in), "rw/f");
	path(f_ro, sizeof(f_ro), "ro/f");
	path(f_out, sizeof(f_out), "out/f");
	close(open(f_in, O_WRONLY | O_CREAT, 0644));
	close(open(f_ro, O_WRONLY | O_CREAT, 0644));
	close(open(f_out, O_WRONLY | O_CREAT, 0644));
	chmod(f_out, 0644);
	chmod(f_ro, 0644);
	fs[0] = (struct plan_fsrule){PLAN_RW, rw};
	fs[1] = (struct plan_fsrule){PLAN_RO, ro};
	fs[2] = (struct plan_fsrule){PLAN_RW, "/dev/null"};
	real[0] = rw;
	real[1] = ro;
	real[2] = fs[2].path;
	mkplan(&p, fs, 3, fd);
	if (prepare(&mv, &p, real, fd, 0, NULL, err, sizeof(err)) == -1 ||
	    pipe(pfd) == -1) {
		ok(0, "prepare: %s", err);
		return;
	}
	mv.cwd = rw;
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		memset(res, 0, sizeof(res));
		if (unshare(CLONE_NEWNS) == -1)
			_exit(2);
		res[0] = mv_apply(&mv) == 0 ? 0 : errno;
		res[1] = chmod(f_out, 0600) == 0 ? 0 : errno;
		res[2] = chmod(f_in, 0600) == 0 ? 0 : errno;
		res[3] = open("f", O_RDONLY) >= 0 ? 0 : errno;	/* cwd */
		res[4] = open("/dev/null", O_WRONLY) >= 0 ? 0 : errno;
		res[5] = chmod(f_ro, 0600) == 0 ? 0 : errno;
		res[6] = open("/dev/zero", O_RDONLY) >= 0 ? 0 : errno;
		if (write(pfd[1], res, sizeof(res)) != sizeof(res))
			_exit(3);
		_exit(0);
	}
	close(pfd[1]);
	memset(res, -1, sizeof(res));
	if (read(pfd[0], res, sizeof(res)) != sizeof(res))
		res[0] = -1;
	close(pfd[0]);
	waitpid(pid, &status, 0);
	is_int(res[0], 0, "mv_apply in a new mount namespace (%s %s)",
	    mv.failed ? mv.failed : "", mv.failed_path ? mv.failed_path : "");
	is_int(res[1], ENOENT, "chmod outside every rule: ENOENT (not there)");
	is_int(res[2], 0, "chmod beneath the rw rule: done");
	is_int(res[3], 0, "the working directory entered again");
	is_int(res[4], 0, "/dev/null, a device rule, opens for writing");
	is_int(res[5], EROFS, "chmod beneath the ro rule: EROFS");
	is_int(res[6], ENOENT, "/dev/zero, no rule: not there");
	ok(stat(f_out, &st) == 0 && (st.st_mode & 07777) == 0644,
	    "host side: the outside file still 0644");
	ok(stat(f_ro, &st) == 0 && (st.st_mode & 07777) == 0644,
	    "host side: the ro file still 0644");
	ok(stat(f_in, &st) == 0 && (st.st_mode & 07777) == 0600,
	    "host side: the rw file is 0600");
	mv_free(&mv);
	unplan(fd, 3);
}

int
main(void)
{
	if (mkdtemp(dir) == NULL) {
		printf("Bail out! mkdtemp: %s\n", strerror(errno));
		return 1;
	}
	test_prepare();
	test_apply();
	if (fork() == 0)
		execlp("rm", "rm", "-rf", dir, (char *)NULL);
	wait(NULL);
	return done_testing();
}
