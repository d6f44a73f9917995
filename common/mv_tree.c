/* SPDX-License-Identifier: ISC */
/* mv_tree: the mount API calls the view is made with (mv_tree.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "io.h"
#include "mv_tree.h"
#include "uapi.h"

int
mv_tree_beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' ||
	    path[n] == '/');
}

long
mv_tree_clone(int dfd, const char *path, unsigned flags)
{
	return syscall(__NR_open_tree, dfd, path, flags);
}

int
mv_tree_setattr(int dfd, const char *path, unsigned flags, uint64_t set,
    uint64_t clr, uint64_t propagation)
{
	struct borne_mount_attr a = {set, clr, propagation, 0};

	return (int)syscall(__NR_mount_setattr, dfd, path, flags, &a,
	    sizeof(a));
}

int
mv_tree_bind(struct mv_bind *b, int src)
{
	long t;
	int e;

	t = mv_tree_clone(src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	    AT_EMPTY_PATH | AT_RECURSIVE);
	if (t == -1)
		return -1;
	if (mv_tree_setattr((int)t, "", AT_EMPTY_PATH | AT_RECURSIVE, b->set,
	    b->clr, MS_PRIVATE) == -1) {
		e = errno;
		close((int)t);
		errno = e;
		return -1;
	}
	b->tree = (int)t;
	return 0;
}

/* The host's directory at the first n bytes of path (from its root
 * host, never following a link): its mode and owner on the directory dir
 * just made in the view's own root, so that the way to a rule is no
 * wider than the host's (a --uid payload searches it as it would there).
 * Where the host has none, dir stays root's, 0755. */
static void
like_host(int host, const char *path, size_t n, int dir)
{
	char part[PATH_MAX];
	struct stat st;
	int fd;

	if (host == -1 || n >= sizeof(part))
		return;
	memcpy(part, path, n);
	part[n] = '\0';
	if ((fd = mv_tree_walk(host, part, 0, 0, 0, -1)) == -1)
		return;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		(void)fchown(dir, st.st_uid, st.st_gid);
		(void)fchmod(dir, st.st_mode & 01777);
	}
	close(fd);
}

int
mv_tree_walk(int dfd, const char *path, dev_t mkdev, int mk, int dir,
    int host)
{
	char comp[NAME_MAX + 1];
	const char *c = path;
	struct stat st;
	size_t len;
	int cur, fd, last, e, made;

	if ((cur = fcntl(dfd, F_DUPFD_CLOEXEC, 0)) == -1)
		return -1;
	while (*c == '/')
		c++;
	while (*c != '\0') {
		len = strcspn(c, "/");
		if (len > NAME_MAX) {
			close(cur);
			return errno = ENAMETOOLONG, -1;
		}
		memcpy(comp, c, len);
		comp[len] = '\0';
		c += len;
		while (*c == '/')
			c++;
		last = *c == '\0';
		made = 0;
		fd = openat(cur, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		if (fd == -1 && errno == ENOENT && mk &&
		    fstat(cur, &st) == 0 && st.st_dev == mkdev) {
			if (!last || dir)
				made = mkdirat(cur, comp, 0755) == 0;
			else
				(void)mknodat(cur, comp, S_IFREG | 0644, 0);
			fd = openat(cur, comp, (made ? O_RDONLY | O_DIRECTORY :
			    O_PATH) | O_NOFOLLOW | O_CLOEXEC);
			if (fd != -1 && made)
				like_host(host, path, (size_t)(c - path), fd);
		}
		e = errno;
		close(cur);
		if (fd == -1)
			return errno = e, -1;
		if (fstat(fd, &st) == -1 || S_ISLNK(st.st_mode)) {
			e = S_ISLNK(st.st_mode) ? ELOOP : errno;
			close(fd);
			return errno = e, -1;
		}
		cur = fd;
	}
	return cur;
}

/* /proc/PID/FILE written: "deny" for setgroups, else the map of one id,
 * from in pid's user namespace to to outside it. */
static int
proc_write(pid_t pid, const char *file, unsigned long from,
    unsigned long to)
{
	char p[64], m[64];

	snprintf(p, sizeof(p), "/proc/%ld/%s", (long)pid, file);
	if (strcmp(file, "setgroups") == 0)
		snprintf(m, sizeof(m), "deny");
	else
		snprintf(m, sizeof(m), "%lu %lu 1\n", from, to);
	return write_small(AT_FDCWD, p, m);
}

/* The child of mv_tree_idmap_ns: born in its user namespace (CLONE_NEWUSER), in
 * the caller's memory (CLONE_VM: no copy of its pages), on a stack of its
 * own and a copy of the caller's descriptors; it waits until the pipe's
 * other end closes, then leaves.  System calls only. */
static char idmap_stack[16384] __attribute__((aligned(16)));

static int
idmap_wait(void *arg)
{
	const int *go = arg;
	char c;

	/* Its copy of the write end closed: the caller's close is the end. */
	(void)syscall(SYS_close, go[1]);
	(void)syscall(SYS_read, go[0], &c, 1);
	syscall(SYS_exit, 0);
	return 0;
}

int
mv_tree_idmap_ns(uid_t uid, gid_t gid, uid_t touid, gid_t togid)
{
	static int cached = -1;
	static uid_t cu, ctu;
	static gid_t cg, ctg;
	char p[64];
	int go[2], fd = -1, e = 0;
	pid_t pid;

	if (cached != -1 && cu == uid && cg == gid && ctu == touid &&
	    ctg == togid)
		return fcntl(cached, F_DUPFD_CLOEXEC, 0);
	if (pipe2(go, O_CLOEXEC) == -1)
		return -1;
	pid = clone(idmap_wait, idmap_stack + sizeof(idmap_stack),
	    CLONE_VM | CLONE_NEWUSER | SIGCHLD, go);
	if (pid == -1) {
		e = errno;
		goto out;
	}
	if (proc_write(pid, "uid_map", uid, touid) == -1 ||
	    proc_write(pid, "setgroups", 0, 0) == -1 ||
	    proc_write(pid, "gid_map", gid, togid) == -1) {
		e = errno;
		goto out;
	}
	snprintf(p, sizeof(p), "/proc/%ld/ns/user", (long)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	e = fd == -1 ? errno : 0;
out:
	close(go[1]);	/* the child leaves */
	close(go[0]);
	if (pid > 0)
		while (waitpid(pid, NULL, __WALL) == -1 && errno == EINTR)
			;
	if (fd != -1) {
		if (cached != -1)
			close(cached);
		cached = fcntl(fd, F_DUPFD_CLOEXEC, 0);
		cu = uid, cg = gid, ctu = touid, ctg = togid;
	}
	errno = e;
	return fd;
}
