/* SPDX-License-Identifier: ISC */
/* Unit tests for common/cgroup: the run cgroup's name (cg_name_parse),
 * and, as root on a host with cgroup2, the liveness rules cg_reap reads
 * from a run cgroup's lock, mode and name: a live run's cgroup is never
 * reaped, an armed free one is, a fresh free one only when its name is
 * of our pid namespace and its pid is gone; and a process without
 * capabilities cannot open a run cgroup to lock it. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/capability.h>

#include "cgroup.h"
#include "tap.h"

static void
names(void)
{
	unsigned long long ns;
	long pid;

	is_int(cg_name_parse("borne-123-ns4026531836-1fa0", &pid, &ns), 0,
	    "a name with a namespace");
	is_int(pid, 123, "its pid");
	ok(ns == 4026531836ull, "its namespace inode");
	is_int(cg_name_parse("borne-77-1fa0", &pid, &ns), 0, "an older name");
	ok(pid == 77 && ns == 0, "pid 77, no namespace");
	is_int(cg_name_parse("borne-77-ns12", &pid, &ns), 0,
	    "ns without a suffix: an older name");
	ok(ns == 0, "no namespace read from it");
	is_int(cg_name_parse("borne-77-t1-0", &pid, &ns), 0,
	    "a test's older name");
	ok(ns == 0, "no namespace");
	is_int(cg_name_parse("borne-0-ns1-a", &pid, &ns), -1, "pid 0");
	is_int(cg_name_parse("borne-x-1", &pid, &ns), -1, "no pid");
	is_int(cg_name_parse("borne-99999999999-1", &pid, &ns), -1,
	    "a pid past 2^31");
	is_int(cg_name_parse("borne-12", &pid, &ns), -1, "no dash after pid");
	is_int(cg_name_parse("bornetest-1-1", &pid, &ns), -1, "other prefix");
}

/* The cgroup2 directory of this process, in buf. */
static int
cg2_self(char *buf, size_t size)
{
	char line[4096], mnt[PATH_MAX] = "", rel[PATH_MAX] = "";
	FILE *f = fopen("/proc/self/mountinfo", "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		char *sep = strstr(line, " - cgroup2 ");
		char m[PATH_MAX];

		if (sep != NULL && sscanf(line, "%*s %*s %*s %*s %4095s", m) ==
		    1) {
			snprintf(mnt, sizeof(mnt), "%s", m);
			break;
		}
	}
	if (f != NULL)
		fclose(f);
	f = fopen("/proc/self/cgroup", "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (strncmp(line, "0::", 3) == 0) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(rel, sizeof(rel), "%s", line + 3);
		}
	if (f != NULL)
		fclose(f);
	if (mnt[0] == '\0' || rel[0] == '\0')
		return -1;
	snprintf(buf, size, "%s%s", mnt, strcmp(rel, "/") == 0 ? "" : rel);
	return 0;
}

/* The errno a process without capabilities gets opening dir for
 * reading (0: it opened it). */
static int
capless_open(const char *dir)
{
	struct __user_cap_header_struct h = {_LINUX_CAPABILITY_VERSION_3, 0};
	struct __user_cap_data_struct d[2];
	int st;
	pid_t p = fork();

	if (p == 0) {
		memset(d, 0, sizeof(d));
		if (syscall(SYS_capset, &h, d) == -1)
			_exit(100);
		_exit(open(dir, O_RDONLY | O_DIRECTORY) == -1 ? errno : 0);
	}
	if (p == -1 || waitpid(p, &st, 0) == -1 || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

static int nreaped;
static void
count(void *arg, const struct cg_reaped *rp)
{
	nreaped += rp->removed;
}

static void
lifecycle(void)
{
	struct cg_limits lim = {0, 0, 0, 0};
	char self[PATH_MAX], parent[PATH_MAX + 64], path[PATH_MAX + 160];
	char err[512];
	unsigned long long ns;
	struct stat st;
	struct cg cg;
	long pid;
	pid_t dead;
	int fd, r;

	if (geteuid() != 0 || cg2_self(self, sizeof(self)) == -1) {
		skip("run cgroup lifecycle", "needs root and cgroup2");
		return;
	}
	snprintf(parent, sizeof(parent), "%s/bornetest-unit-cg-%ld", self,
	    (long)getpid());
	if (mkdir(parent, 0755) == -1) {
		skip("run cgroup lifecycle", "cannot make a test cgroup");
		return;
	}
	r = cg_create(&cg, parent, "/x", &lim, err, sizeof(err));
	is_int(r, 0, "cg_create");
	if (r != 0) {
		printf("#   %s\n", err);
		rmdir(parent);
		return;
	}
	ok(fstat(cg.dirfd, &st) == 0 && (st.st_mode & 07777) == 0111,
	    "the run cgroup is armed: mode 0111");
	ok(cg_name_parse(strrchr(cg.path, '/') + 1, &pid, &ns) == 0 &&
	    pid == getpid() && ns != 0, "named with our pid and namespace");
	r = capless_open(cg.path);
	is_int(r, EACCES,
	    "a process without capabilities cannot open it: EACCES");
	nreaped = 0;
	r = cg_reap(parent, 0, count, NULL);
	is_int(r, 0, "a live run: nothing stale");
	ok(access(cg.path, F_OK) == 0, "and its cgroup is still there");
	/* Stale ones: a dead pid, our namespace. */
	dead = fork();
	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	snprintf(path, sizeof(path), "%s/borne-%ld-ns%llu-a0", parent,
	    (long)dead, ns);
	r = mkdir(path, 0);
	is_int(r, 0, "a fresh cgroup, dead pid, our namespace");
	snprintf(path, sizeof(path), "%s/borne-%ld-ns1-a1", parent,
	    (long)dead);
	r = mkdir(path, 0);
	is_int(r, 0, "a fresh cgroup, dead pid, another namespace");
	snprintf(path, sizeof(path), "%s/borne-%ld-ns1-a2", parent,
	    (long)getpid());
	r = mkdir(path, 0111) == 0 ? chmod(path, 0111) : -1;
	is_int(r, 0, "an armed cgroup, free, a live pid of another namespace");
	snprintf(path, sizeof(path), "%s/borne-%ld-ns%llu-a3", parent,
	    (long)getpid(), ns);
	r = mkdir(path, 0);
	is_int(r, 0, "a fresh cgroup, our live pid (in its window)");
	/* A fresh one locked by someone (a creator): alive. */
	snprintf(path, sizeof(path), "%s/borne-%ld-ns%llu-a4", parent,
	    (long)dead, ns);
	fd = mkdir(path, 0) == 0 ? open(path, O_RDONLY | O_DIRECTORY) : -1;
	r = fd == -1 ? -1 : flock(fd, LOCK_EX | LOCK_NB);
	is_int(r, 0, "a fresh cgroup of a dead pid, locked");
	nreaped = 0;
	r = cg_reap(parent, 0, count, NULL);
	is_int(r, 2, "two stale");
	is_int(nreaped, 2, "both removed");
	snprintf(path, sizeof(path), "%s/borne-%ld-ns%llu-a0", parent,
	    (long)dead, ns);
	ok(access(path, F_OK) == -1, "the fresh one of our namespace");
	snprintf(path, sizeof(path), "%s/borne-%ld-ns1-a2", parent,
	    (long)getpid());
	ok(access(path, F_OK) == -1, "the armed one (whatever its pid)");
	snprintf(path, sizeof(path), "%s/borne-%ld-ns1-a1", parent,
	    (long)dead);
	ok(access(path, F_OK) == 0, "another namespace's fresh one stays");
	r = rmdir(path);
	is_int(r, 0, "(removed by hand)");
	snprintf(path, sizeof(path), "%s/borne-%ld-ns%llu-a3", parent,
	    (long)getpid(), ns);
	ok(access(path, F_OK) == 0, "a fresh one with a live pid stays");
	rmdir(path);
	snprintf(path, sizeof(path), "%s/borne-%ld-ns%llu-a4", parent,
	    (long)dead, ns);
	ok(access(path, F_OK) == 0, "a locked one stays");
	close(fd);
	rmdir(path);
	ok(access(cg.path, F_OK) == 0, "the live run's cgroup stays");
	r = cg_remove(&cg);
	is_int(r, 0, "cg_remove");
	ok(access(cg.path, F_OK) == -1, "and it is gone");
	rmdir(parent);
}

int
main(void)
{
	names();
	lifecycle();
	printf("1..%d\n", tap_n);
	return tap_fail != 0;
}
