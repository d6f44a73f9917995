/* SPDX-License-Identifier: ISC */
/* mountview: the run's read-only view of the host (mountview.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "io.h"
#include "landlock.h"
#include "mountinfo.h"
#include "mountview.h"
#include "uapi.h"

/* path is dir or lies beneath it (both normalised). */
static int
beneath(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	if (strcmp(dir, "/") == 0)
		return 1;
	return strncmp(path, dir, n) == 0 && (path[n] == '\0' ||
	    path[n] == '/');
}

static int
by_length(const void *a, const void *b)
{
	size_t la = strlen(((const struct mv_bind *)a)->path);
	size_t lb = strlen(((const struct mv_bind *)b)->path);

	return la < lb ? -1 : la > lb;
}

/* Device file systems, and whatever is mounted on /dev (a container's
 * tmpfs): their devices stay usable (mountview.h, step 7). */
static int
dev_mount(const struct mountinfo *m, void *arg)
{
	struct mountview *mv = arg;
	char **n;
	size_t i;

	if (strcmp(m->fstype, "devtmpfs") != 0 &&
	    strcmp(m->fstype, "devpts") != 0 &&
	    strcmp(m->mountpoint, "/dev") != 0)
		return 0;
	for (i = 0; i < mv->ndev; i++)
		if (strcmp(mv->dev[i], m->mountpoint) == 0)
			return 0;
	n = realloc(mv->dev, (mv->ndev + 1) * sizeof(*n));
	if (n == NULL)
		return 1;
	mv->dev = n;
	if ((mv->dev[mv->ndev] = strdup(m->mountpoint)) == NULL)
		return 1;
	mv->ndev++;
	return 0;
}

int
mv_prepare(struct mountview *mv, const struct plan *p, char *const *real,
    int rulesetfd, int abi, const char *tmp, uid_t uid, gid_t gid,
    uint64_t tmp_bytes, const char *cwd, char *err, size_t errlen)
{
	struct stat st;
	size_t i;
	int r;

	memset(mv, 0, sizeof(*mv));
	mv->rulesetfd = rulesetfd;
	mv->cwd = cwd;
	mv->bind = calloc(p->nfs + 1, sizeof(*mv->bind));
	mv->proc = calloc(p->nfs + 1, sizeof(*mv->proc));
	if (mv->bind == NULL || mv->proc == NULL)
		return err_set_sys(err, errlen, "mount view");
	for (i = 0; i < p->nfs; i++) {
		const struct plan_fsrule *fr = &p->fs[i];
		int rw = fr->intent == PLAN_RW || fr->intent == PLAN_RWX;

		if (beneath(fr->path, "/proc")) {
			/* The run's own procfs replaces the host's. */
			if (stat(real[i], &st) == -1)
				return err_set_sys(err, errlen, "mount view: %s",
				    fr->path);
			mv->proc[mv->nproc].path = fr->path;
			mv->proc[mv->nproc++].access = ll_intent_rights(
			    fr->intent, S_ISDIR(st.st_mode), abi);
			mv->proc_rw |= rw;
			continue;
		}
		if (stat(real[i], &st) == -1)
			return err_set_sys(err, errlen, "mount view: %s",
			    real[i]);
		/* A shared sticky directory (/tmp) the payload owns: its
		 * mode and ACLs, which the kernel leaves to the owner, are
		 * every user's. */
		if (rw && S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) &&
		    st.st_uid == uid)
			return errno = EPERM, err_set(err, errlen, "%s %s: a "
			    "shared sticky directory owned by uid %lu, the "
			    "payload's: its mode and ACLs would be the "
			    "payload's (use --tmp for a private temporary "
			    "directory, or --uid)", plan_intent_name(fr->intent),
			    fr->path, (unsigned long)uid);
		/* rw on / itself: nothing to make read-only (a clone moved
		 * onto / would lie above the process's own root). */
		if (rw && strcmp(fr->path, "/") == 0) {
			mv->rw_root = 1;
			continue;
		}
		if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))
			mv->bind[mv->nbind].device = 1;
		else if (!rw)
			continue;
		mv->bind[mv->nbind].path = real[i];
		mv->bind[mv->nbind++].fd = -1;
	}
	qsort(mv->bind, mv->nbind, sizeof(*mv->bind), by_length);
	r = mountinfo_each("/proc/self/mountinfo", dev_mount, mv);
	if (r != 0)
		return err_set_sys(err, errlen, "mount view: "
		    "/proc/self/mountinfo");
	if (tmp != NULL) {
		mv->tmp = tmp;
		mv->tmp_access = ll_intent_rights(PLAN_RW, 1, abi);
		if (snprintf(mv->tmpopts, sizeof(mv->tmpopts),
		    "mode=0700,uid=%lu,gid=%lu,size=%llu", (unsigned long)uid,
		    (unsigned long)gid, (unsigned long long)tmp_bytes) >=
		    (int)sizeof(mv->tmpopts))
			return errno = ENAMETOOLONG,
			    err_set_sys(err, errlen, "mount view: tmp");
	}
	return 0;
}

static long
tree_clone(int dfd, const char *path, unsigned flags)
{
	return syscall(__NR_open_tree, dfd, path, flags);
}

static int
setattr(int dfd, const char *path, unsigned flags, uint64_t set,
    uint64_t clr)
{
	struct borne_mount_attr a = {set, clr, 0, 0};

	return (int)syscall(__NR_mount_setattr, dfd, path, flags, &a,
	    sizeof(a));
}

/* One more Landlock rule, on path as this namespace resolves it. */
static int
add_rule(int rfd, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb;
	int fd, r, e;

	if (rfd == -1 || access == 0)
		return 0;
	fd = open(path, O_PATH | O_CLOEXEC);
	if (fd == -1)
		return -1;
	memset(&pb, 0, sizeof(pb));
	pb.parent_fd = fd;
	pb.allowed_access = access;
	r = (int)syscall(__NR_landlock_add_rule, rfd,
	    LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	e = errno;
	close(fd);
	errno = e;
	return r;
}

#define FAIL(step, p)                                                    \
	do {                                                             \
		mv->failed = (step);                                     \
		mv->failed_path = (p);                                   \
		goto fail;                                               \
	} while (0)

int
mv_apply(struct mountview *mv)
{
	uint64_t attr;
	size_t i;
	long fd;
	int e;

	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL) == -1)
		FAIL("propagation", "/");
	for (i = 0; i < mv->nbind; i++) {
		fd = tree_clone(AT_FDCWD, mv->bind[i].path, OPEN_TREE_CLONE |
		    OPEN_TREE_CLOEXEC | AT_RECURSIVE);
		if (fd == -1)
			FAIL("clone", mv->bind[i].path);
		mv->bind[i].fd = (int)fd;
	}
	attr = (mv->rw_root ? 0 : MOUNT_ATTR_RDONLY) | MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV;
	if (setattr(AT_FDCWD, "/", AT_RECURSIVE, attr, 0) == -1)
		FAIL("read-only", "/");
	for (i = 0; i < mv->nbind; i++) {
		struct mv_bind *b = &mv->bind[i];

		attr = b->device ? MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID :
		    MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
		if (setattr(b->fd, "", AT_EMPTY_PATH | AT_RECURSIVE, attr,
			b->device ? MOUNT_ATTR_NODEV : 0) == -1)
			FAIL("bind attributes", b->path);
		if (syscall(__NR_move_mount, b->fd, "", AT_FDCWD, b->path,
			MOVE_MOUNT_F_EMPTY_PATH) == -1)
			FAIL("bind", b->path);
		close(b->fd);
		b->fd = -1;
	}
	if (mv->tmp != NULL) {
		if (mount("tmpfs", mv->tmp, "tmpfs", MS_NOSUID | MS_NODEV,
			mv->tmpopts) == -1)
			FAIL("tmpfs", mv->tmp);
		if (add_rule(mv->rulesetfd, mv->tmp, mv->tmp_access) == -1)
			FAIL("tmp rule", mv->tmp);
	}
	if (mount("proc", "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC |
		(mv->proc_rw ? 0 : MS_RDONLY), NULL) == -1)
		FAIL("procfs", "/proc");
	for (i = 0; i < mv->nproc; i++)
		if (add_rule(mv->rulesetfd, mv->proc[i].path,
			mv->proc[i].access) == -1)
			FAIL("proc rule", mv->proc[i].path);
	/* Devices back where they live: a mount point gone or covered
	 * stays nodev, which only narrows. */
	for (i = 0; i < mv->ndev; i++)
		(void)setattr(AT_FDCWD, mv->dev[i], 0, 0, MOUNT_ATTR_NODEV);
	/* A cwd gone or out of reach stays where it was: on the read-only
	 * mount beneath, never a wider one. */
	if (mv->cwd != NULL && mv->cwd[0] != '\0')
		(void)chdir(mv->cwd);
	/* dup3 by number: musl's dup3(.., 0) is a dup2, which the stage
	 * tests count for stdin. */
	for (i = 0; i < mv->nhand; i++)
		if (syscall(SYS_dup3, mv->hand[i].newfd, mv->hand[i].fd, 0) ==
		    -1)
			FAIL("handed descriptor", "");
	return 0;
fail:
	e = errno;
	for (i = 0; i < mv->nbind; i++)
		if (mv->bind[i].fd != -1) {
			close(mv->bind[i].fd);
			mv->bind[i].fd = -1;
		}
	errno = e;
	return -1;
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

/* A user namespace whose only mapping takes on-disk uid:gid to
 * touid:togid, as a descriptor: a child enters it, says so on one pipe
 * and waits on another while its maps are written, then leaves. */
static int
idmap_ns(uid_t uid, gid_t gid, uid_t touid, gid_t togid)
{
	char p[64], c = 1;
	int ready[2], go[2], fd = -1, e = 0;
	pid_t pid;

	if (pipe2(ready, O_CLOEXEC) == -1)
		return -1;
	if (pipe2(go, O_CLOEXEC) == -1) {
		e = errno;
		close(ready[0]);
		close(ready[1]);
		errno = e;
		return -1;
	}
	pid = fork();
	if (pid == 0) {
		c = unshare(CLONE_NEWUSER) == 0 ? 0 : 1;
		(void)write(ready[1], &c, 1);
		close(go[1]);
		(void)read(go[0], &c, 1);
		_exit(0);
	}
	close(ready[1]);
	close(go[0]);
	if (pid == -1 || read(ready[0], &c, 1) != 1 || c != 0) {
		e = pid == -1 ? errno : EPERM;
		goto out;
	}
	if (proc_write(pid, "uid_map", uid, touid) == -1 ||
	    proc_write(pid, "setgroups", 0, 0) == -1 ||
	    proc_write(pid, "gid_map", gid, togid) == -1)
		goto fail;
	snprintf(p, sizeof(p), "/proc/%ld/ns/user", (long)pid);
	fd = open(p, O_RDONLY | O_CLOEXEC);
fail:
	e = fd == -1 ? errno : 0;
out:
	close(ready[0]);
	close(go[1]);	/* the child leaves */
	if (pid > 0)
		waitpid(pid, NULL, 0);
	errno = e;
	return fd;
}

/* A descriptor opened in another mount namespace (a caller's "> log"
 * before its unshare -m) has no mount of ours to clone: its path here,
 * when that names the same inode, does. */
static long
tree_by_path(int fd)
{
	char p[64], path[PATH_MAX];
	struct stat a, b;
	ssize_t n;
	long t;

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	n = readlink(p, path, sizeof(path) - 1);
	if (n <= 0 || path[0] != '/' || fstat(fd, &a) == -1)
		return errno = EINVAL, -1;
	path[n] = '\0';
	t = syscall(__NR_open_tree, AT_FDCWD, path, OPEN_TREE_CLONE |
	    OPEN_TREE_CLOEXEC);
	if (t == -1)
		return -1;
	if (fstat((int)t, &b) == -1 || a.st_dev != b.st_dev ||
	    a.st_ino != b.st_ino) {
		close((int)t);
		return errno = EINVAL, -1;
	}
	return t;
}

/* fd reopened through a detached clone of its own mount, read-only
 * (a device) or idmapped by userns (a regular file), with addfl added
 * to its flags. */
static int
reopen(int fd, int rdonly, int userns, int addfl)
{
	struct borne_mount_attr a = {MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
	    MOUNT_ATTR_NOEXEC, 0, 0, 0};
	char p[64];
	long t;
	int fl, nfd, e;

	fl = fcntl(fd, F_GETFL);
	if (fl == -1)
		return -1;
	t = syscall(__NR_open_tree, fd, "", OPEN_TREE_CLONE |
	    OPEN_TREE_CLOEXEC | AT_EMPTY_PATH);
	if (t == -1 && errno == EINVAL)
		t = tree_by_path(fd);
	if (t == -1)
		return -1;
	if (rdonly) {
		a.attr_set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID |
		    MOUNT_ATTR_NOEXEC;
	} else {
		a.attr_set |= MOUNT_ATTR_IDMAP;
		a.userns_fd = (uint64_t)userns;
	}
	nfd = -1;
	if (syscall(__NR_mount_setattr, (int)t, "", AT_EMPTY_PATH, &a,
		sizeof(a)) == 0) {
		snprintf(p, sizeof(p), "/proc/self/fd/%ld", t);
		nfd = open(p, (fl & (O_ACCMODE | O_APPEND | O_NONBLOCK |
		    O_DSYNC | O_SYNC)) | addfl | O_CLOEXEC | O_NOCTTY);
	}
	e = errno;
	close((int)t);
	errno = e;
	return nfd;
}

int
mv_handed(struct mountview *mv, const int *fds, size_t n, uid_t uid,
    char *err, size_t errlen)
{
	/* Ids no payload has: a plan's uid is at most 2^32-2. */
	uid_t to = uid == 4294967293u ? 4294967292u : 4294967293u;
	struct mv_hand *h;
	struct stat st;
	size_t i;
	int ns, dev, fl, add;

	for (i = 0; i < n && mv->nhand < MV_HAND_MAX; i++) {
		if (fstat(fds[i], &st) == -1)
			continue;
		dev = S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode);
		if (!dev && !S_ISREG(st.st_mode))
			continue;	/* pipes, sockets: no metadata */
		h = &mv->hand[mv->nhand];
		h->fd = fds[i];
		h->seek = 0;
		/* Standard output and error in a regular file: the payload's
		 * copy is a description of its own, so both it and confexec
		 * (whose lines during the run go there too) append, and
		 * neither writes over the other's bytes. */
		fl = fcntl(fds[i], F_GETFL);
		add = !dev && (fds[i] == STDOUT_FILENO ||
		    fds[i] == STDERR_FILENO) && fl != -1 &&
		    (fl & O_ACCMODE) != O_RDONLY && !(fl & O_APPEND) ?
		    O_APPEND : 0;
		h->append = add != 0;
		ns = -1;
		if (!dev && (ns = idmap_ns(st.st_uid, st.st_gid, to,
		    (gid_t)to)) == -1)
			return err_set_sys(err, errlen, "fd %d: an id map for "
			    "it", fds[i]);
		h->newfd = reopen(fds[i], dev, ns, add);
		if (ns != -1)
			close(ns);
		if (h->newfd == -1)
			return err_set_sys(err, errlen, "fd %d: reopening it "
			    "off the host's mount (EINVAL: a file system "
			    "without idmapped mounts, or a file this mount "
			    "namespace cannot name; its metadata would be the "
			    "payload's: hand it a pipe instead)", fds[i]);
		if (!dev && !add && !(fcntl(fds[i], F_GETFL) & O_APPEND)) {
			off_t o = lseek(fds[i], 0, SEEK_CUR);

			h->seek = o != -1 && lseek(h->newfd, o, SEEK_SET) != -1;
		}
		mv->nhand++;
	}
	return 0;
}

void
mv_end(struct mountview *mv)
{
	size_t i;
	off_t o;

	for (i = 0; i < mv->nhand; i++) {
		if (mv->hand[i].newfd == -1)
			continue;
		/* Appended to: the caller's description goes on after all
		 * of it (its own writes later, and confexec's). */
		if (mv->hand[i].append)
			(void)lseek(mv->hand[i].fd, 0, SEEK_END);
		/* Forward only: what confexec wrote there meanwhile (its own
		 * diagnostics on stderr) stays. */
		else if (mv->hand[i].seek &&
		    (o = lseek(mv->hand[i].newfd, 0, SEEK_CUR)) != -1 &&
		    o > lseek(mv->hand[i].fd, 0, SEEK_CUR))
			(void)lseek(mv->hand[i].fd, o, SEEK_SET);
		close(mv->hand[i].newfd);
		mv->hand[i].newfd = -1;
	}
	mv->nhand = 0;
}

void
mv_free(struct mountview *mv)
{
	size_t i;

	for (i = 0; i < mv->ndev; i++)
		free(mv->dev[i]);
	free(mv->dev);
	free(mv->bind);
	free(mv->proc);
	memset(mv, 0, sizeof(*mv));
}
