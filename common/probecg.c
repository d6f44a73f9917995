/* SPDX-License-Identifier: ISC */
/* probecg: the cgroup v2 part of the host probe: which cgroup2 mount shows
 * the caller's cgroup, whether the caller may create a child there, which
 * controllers it has, cgroup.kill and clone3(CLONE_INTO_CGROUP).  Reads
 * only; the one syscall probe cannot create a process. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io.h"
#include "mountinfo.h"
#include "probeint.h"
#include "uapi.h"

struct cgscan {
	struct probe *p;
	const char *self;
	char root[PATH_MAX];	/* root field of the chosen cgroup2 mount */
	int exact;		/* chosen mount's root is a prefix of self */
};

/* 1 when root ("/" or "/a/b") is a path prefix of self. */
static int
path_prefix(const char *root, const char *self)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(root, self, n) == 0 &&
	    (self[n] == '\0' || self[n] == '/');
}

static int
cg_mount(const struct mountinfo *m, void *arg)
{
	struct cgscan *c = arg;
	int pre;

	if (strcmp(m->fstype, "cgroup") == 0)
		c->p->cg2_v1++;
	if (strcmp(m->fstype, "cgroup2") != 0)
		return 0;
	pre = c->self[0] != '\0' && path_prefix(m->root, c->self);
	/* The first mount that shows the caller's cgroup wins; else the
	 * first cgroup2 mount at all. */
	if (c->p->cg2 && (c->exact || !pre))
		return 0;
	c->p->cg2 = 1;
	c->exact = pre;
	snprintf(c->p->cg2_mount, sizeof(c->p->cg2_mount), "%s",
	    m->mountpoint);
	snprintf(c->root, sizeof(c->root), "%s", m->root);
	return 0;
}

/* The "0::/path" line of /proc/self/cgroup into self ("" when absent). */
static void
cg_self(char *self, size_t size)
{
	char buf[8192], *line, *save = NULL;

	self[0] = '\0';
	if (read_small("/proc/self/cgroup", buf, sizeof(buf)) == -1)
		return;
	for (line = strtok_r(buf, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "0::", 3) == 0 && line[3] == '/') {
			if (strlen(line + 3) < size)
				strcpy(self, line + 3);
			return;
		}
	}
}

int
probe_kernel_at_least(int maj, int min)
{
	struct utsname u;
	int a = 0, b = 0;

	if (uname(&u) == -1 || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return 0;
	return a > maj || (a == maj && b >= min);
}

static int
child_has_kill(const char *dir)
{
	char path[PATH_MAX + 300];
	struct dirent *d;
	DIR *dp;
	int found = 0;

	dp = opendir(dir);
	if (dp == NULL)
		return 0;
	while (!found && (d = readdir(dp)) != NULL) {
		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/cgroup.kill", dir,
		    d->d_name);
		found = access(path, F_OK) == 0;
	}
	closedir(dp);
	return found;
}

/* clone3(CLONE_INTO_CGROUP) with an fd that cannot be open: a kernel that
 * knows the flag fails with EBADF when it looks the fd up; one that does
 * not answers EINVAL (unknown flag) or ENOSYS (no clone3).  No process can
 * come out of it. */
static int
clone_into_works(void)
{
	struct borne_clone_args ca;
	long r;

	memset(&ca, 0, sizeof(ca));
	ca.flags = CLONE_INTO_CGROUP;
	ca.exit_signal = SIGCHLD;
	ca.cgroup = INT_MAX;
	r = syscall(__NR_clone3, &ca, sizeof(ca));
	if (r == 0)
		_exit(0);	/* cannot happen; never run on */
	if (r > 0) {
		waitpid((pid_t)r, NULL, 0);
		return 1;
	}
	return errno == EBADF;
}

/* cgroup.controllers and cgroup.subtree_control of the caller's dir. */
static void
probe_controllers(struct probe *p)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/cgroup.controllers", p->cg2_dir);
	if (read_small(path, p->cg2_available, sizeof(p->cg2_available)) ==
	    -1)
		p->cg2_available[0] = '\0';
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", p->cg2_dir);
	if (read_small(path, p->cg2_enabled, sizeof(p->cg2_enabled)) == -1)
		p->cg2_enabled[0] = '\0';
}

/* The root cgroup has no cgroup.kill (CFTYPE_NOT_ON_ROOT), but every child
 * has it from Linux 5.14: look at the caller's dir, then at an existing
 * child, then at the kernel release (exact: the child before the
 * release). */
static void
kill_evidence(struct probe *p, int exact)
{
	char path[PATH_MAX + 64];

	snprintf(path, sizeof(path), "%s/cgroup.kill", p->cg2_dir);
	if (access(path, F_OK) == 0) {
		p->cg2_kill = 1;
		strcpy(p->cg2_kill_how, "file");
	} else if (exact && child_has_kill(p->cg2_dir)) {
		p->cg2_kill = 1;
		strcpy(p->cg2_kill_how, "child");
	} else if (strcmp(p->cg2_self, "/") == 0 && 
	    probe_kernel_at_least(5, 14)) {
		p->cg2_kill = 1;
		strcpy(p->cg2_kill_how, "kernel");
	} else if (!exact && child_has_kill(p->cg2_dir)) {
		p->cg2_kill = 1;
		strcpy(p->cg2_kill_how, "child");
	}
}

void
probe_cgroup(struct probe *p, int exact, int ctl)
{
	struct cgscan c = { .p = p, .self = p->cg2_self };
	const char *rest;

	cg_self(p->cg2_self, sizeof(p->cg2_self));
	if (mountinfo_each("/proc/self/mountinfo", cg_mount, &c) == -1) {
		p->cg2 = 0;
		p->cg2_mount[0] = '\0';
		return;
	}
	p->cg2_pure = p->cg2 && p->cg2_v1 == 0;
	if (!p->cg2 || !c.exact)
		return;
	/* dir = mount + (self without the mount's root) */
	rest = p->cg2_self + (strcmp(c.root, "/") == 0 ? 0 : strlen(c.root));
	if (strcmp(rest, "/") == 0 || rest[0] == '\0')
		rest = "";
	if (snprintf(p->cg2_dir, sizeof(p->cg2_dir), "%s%s",
	    strcmp(p->cg2_mount, "/") == 0 && rest[0] ? "" : p->cg2_mount,
	    rest) >= (int)sizeof(p->cg2_dir)) {
		p->cg2_dir[0] = '\0';
		return;
	}
	/* Creating a child cgroup needs write and search on the directory;
	 * access(2) asks, mkdir would create. */
	p->cg2_writable = faccessat(AT_FDCWD, p->cg2_dir, W_OK | X_OK,
	    AT_EACCESS) == 0;
	p->cg2_werrno = p->cg2_writable ? 0 : errno;
	p->cg2_ro = p->cg2_werrno == EROFS;
	if (ctl)
		probe_controllers(p);
	kill_evidence(p, exact);
	if (!exact) {
		/* The caller does clone3(CLONE_INTO_CGROUP) itself and
		 * fails closed when it fails. */
		p->cg2_clone_into = probe_kernel_at_least(5, 7);
		return;
	}
	p->cg2_clone_into = clone_into_works();
}
