/* SPDX-License-Identifier: ISC */
/* Unit tests of common/mountview: what mv_prepare chooses (binds, their
 * order, devices, /proc rules, the sticky refusal, the tmpfs options),
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
#include "plan.h"
#include "tap.h"

static char dir[] = "/tmp/borne-mv-XXXXXX";

static void
path(char *buf, size_t n, const char *rel)
{
	snprintf(buf, n, "%s/%s", dir, rel);
}

/* A plan of rules (intent, path); real paths are the paths. */
static void
mkplan(struct plan *p, struct plan_fsrule *fs, size_t n)
{
	memset(p, 0, sizeof(*p));
	p->fs = fs;
	p->nfs = n;
}

static void
test_prepare(void)
{
	char rw[256], rwdeep[256], ro[256], sticky[256], err[512];
	struct plan_fsrule fs[5];
	char *real[5];
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
	mkplan(&p, fs, 5);
	is_int(mv_prepare(&mv, &p, real, -1, 6, "/tmp/t", 1000, 1001,
	    4096, "/", err, sizeof(err)), 0, "prepare: %s", err);
	is_int(mv.nbind, 3, "binds: the rw, the rwx and the device rule");
	is_str(mv.bind[0].path, "/dev/null", "shortest path first");
	is_str(mv.bind[1].path, rw, "then the enclosing rw rule");
	is_str(mv.bind[2].path, rwdeep, "the nested one last (it stacks)");
	ok(mv.bind[0].device && !mv.bind[1].device, "/dev/null is a device "
	    "bind, the directory is not");
	is_int(mv.nproc, 1, "one rule beneath /proc, added on the run's");
	is_str(mv.proc[0].path, "/proc/self", "by the plan's own path");
	ok(mv.proc[0].access != 0, "with its rights");
	ok(!mv.proc_rw, "/proc read-only (no rw rule there)");
	is_str(mv.tmpopts, "mode=0700,uid=1000,gid=1001,size=4096",
	    "tmpfs options: mode, owner, size");
	ok(mv.ndev >= 1, "the device file systems found (%zu)", mv.ndev);
	mv_free(&mv);

	fs[0] = (struct plan_fsrule){PLAN_RW, sticky};
	real[0] = sticky;
	mkplan(&p, fs, 1);
	err[0] = '\0';
	is_int(mv_prepare(&mv, &p, real, -1, 6, NULL, getuid(), 0, 0, "",
	    err, sizeof(err)), -1, "rw on a sticky directory the payload "
	    "owns: refused");
	ok(strstr(err, "sticky") != NULL && strstr(err, "--tmp") != NULL,
	    "the refusal says why and what to use: %s", err);
	mv_free(&mv);
	fs[0] = (struct plan_fsrule){PLAN_RO, sticky};
	is_int(mv_prepare(&mv, &p, real, -1, 6, NULL, getuid(), 0, 0, "",
	    err, sizeof(err)), 0, "ro on it: fine");
	is_int(mv.nbind, 0, "and no bind for a ro rule");
	mv_free(&mv);
	is_int(mv_prepare(&mv, &p, real, -1, 6, NULL, getuid() + 1, 0, 0,
	    "", err, sizeof(err)), 0, "rw on one another uid owns: fine");
	mv_free(&mv);
	fs[0] = (struct plan_fsrule){PLAN_RW, "/"};
	real[0] = fs[0].path;
	is_int(mv_prepare(&mv, &p, real, -1, 6, NULL, getuid(), 0, 0, "",
	    err, sizeof(err)), 0, "rw on / prepares");
	ok(mv.rw_root && mv.nbind == 0, "as no bind: / is left writable");
	mv_free(&mv);
}

/* In a child: a mount namespace, the view, then each answer written to
 * the pipe as errno numbers. */
static void
test_apply(void)
{
	char rw[256], out[256], f_in[256], f_out[256], err[512];
	struct plan_fsrule fs[1];
	struct stat st;
	struct mountview mv;
	struct plan p;
	char *real[1];
	int res[5], pfd[2], status;
	pid_t pid;

	if (geteuid() != 0) {
		skip("mv_apply in a mount namespace", "needs root");
		return;
	}
	path(rw, sizeof(rw), "rw");
	path(out, sizeof(out), "out");
	mkdir(out, 0755);
	path(f_in, sizeof(f_in), "rw/f");
	path(f_out, sizeof(f_out), "out/f");
	close(open(f_in, O_WRONLY | O_CREAT, 0644));
	close(open(f_out, O_WRONLY | O_CREAT, 0644));
	chmod(f_out, 0644);
	fs[0] = (struct plan_fsrule){PLAN_RW, rw};
	real[0] = rw;
	mkplan(&p, fs, 1);
	if (mv_prepare(&mv, &p, real, -1, 6, NULL, 0, 0, 0, rw, err,
		sizeof(err)) == -1 || pipe(pfd) == -1) {
		ok(0, "prepare: %s", err);
		return;
	}
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
	is_int(res[1], EROFS, "chmod outside the rw rule: EROFS");
	is_int(res[2], 0, "chmod beneath it: done");
	is_int(res[3], 0, "the working directory entered again");
	is_int(res[4], 0, "/dev/null still opens for writing (devices)");
	ok(stat(f_out, &st) == 0 && (st.st_mode & 07777) == 0644,
	    "host side: the outside file still 0644");
	ok(stat(f_in, &st) == 0 && (st.st_mode & 07777) == 0600,
	    "host side: the rw file is 0600");
	mv_free(&mv);
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
