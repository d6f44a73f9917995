/* SPDX-License-Identifier: ISC */
/* mountview: the run's read-only view of the host (mountview.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "landlock.h"
#include "mountview.h"
#include "mv_secrets.h"
#include "mv_tree.h"
#include "uapi.h"

static int
by_length(const void *a, const void *b)
{
	size_t la = strlen(((const struct mv_bind *)a)->path);
	size_t lb = strlen(((const struct mv_bind *)b)->path);

	return la < lb ? -1 : la > lb;
}

/* The links of a merged /usr in / (/lib -> usr/lib, /bin, /lib64): root's,
 * relative, not climbing, in a / only root may write, leading to or into
 * a bound path.  The view has them too, as the same links. */
static void
root_links(struct mountview *mv)
{
	struct dirent *de;
	struct stat st, rs;
	char to[sizeof(mv->link[0].to)], abs[sizeof(to) + 1];
	ssize_t n;
	size_t i;
	DIR *d;

	if (stat("/", &rs) == -1 || rs.st_uid != 0 ||
	    (rs.st_mode & (S_IWGRP | S_IWOTH)) || (d = opendir("/")) == NULL)
		return;
	while ((de = readdir(d)) != NULL && mv->nlink < MV_LINK_MAX) {
		if (de->d_type != DT_LNK || strlen(de->d_name) >=
		    sizeof(mv->link[0].name))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1 || !S_ISLNK(st.st_mode) || st.st_uid != 0)
			continue;
		n = readlinkat(dirfd(d), de->d_name, to, sizeof(to) - 1);
		if (n <= 0)
			continue;
		to[n] = '\0';
		if (to[0] == '/' || strstr(to, "..") != NULL)
			continue;
		snprintf(abs, sizeof(abs), "/%s", to);
		for (i = 0; i < mv->nbind; i++)
			if (mv_tree_beneath(mv->bind[i].path, abs) ||
			    mv_tree_beneath(abs, mv->bind[i].path))
				break;
		if (i == mv->nbind)
			continue;
		memcpy(mv->link[mv->nlink].name, de->d_name,
		    strlen(de->d_name) + 1);
		memcpy(mv->link[mv->nlink].to, to, (size_t)n + 1);
		mv->nlink++;
	}
	closedir(d);
}

/* The rule's refusals: rw beneath /sys, rw on a /dev directory, rw on a
 * shared sticky directory the payload owns.  0, or -1 with errno and
 * err. */
static int
rule_refused(const struct mv_args *a, size_t i, const struct stat *st,
    char *err, size_t errlen)
{
	const struct plan_fsrule *fr = &a->plan->fs[i];
	const char *k = plan_intent_name(fr->intent);

	if (fr->intent != PLAN_RW && fr->intent != PLAN_RWX)
		return 0;
	if (mv_tree_beneath(a->real[i], "/sys"))
		return errno = EPERM, err_set(err, errlen, "%s %s: "
		    "/sys is read-only in the view (its files act on "
		    "the host's kernel and devices)", k, fr->path);
	if (mv_tree_beneath(a->real[i], "/dev") && !S_ISCHR(st->st_mode) &&
	    !S_ISBLK(st->st_mode))
		return errno = EPERM, err_set(err, errlen, "%s %s: "
		    "beneath /dev only single device nodes may be "
		    "granted rw (a device directory is the host's)",
		    k, fr->path);
	/* A shared sticky directory (/tmp) the payload owns: its mode and
	 * ACLs, which the kernel leaves to the owner, are every user's. */
	if (S_ISDIR(st->st_mode) && (st->st_mode & S_ISVTX) &&
	    st->st_uid == a->uid)
		return errno = EPERM, err_set(err, errlen, "%s %s: a "
		    "shared sticky directory owned by uid %lu, the "
		    "payload's: its mode and ACLs would be the "
		    "payload's (use --tmp for a private temporary "
		    "directory, or --uid)", k, fr->path,
		    (unsigned long)a->uid);
	return 0;
}

/* A rule at or beneath /proc: the run's own procfs replaces the host's,
 * read-only whatever the rules (its controls, /proc/sys and
 * sysrq-trigger, are the host's); the rule is added again on it.  0, or
 * -1 with errno and err. */
static int
rule_proc(struct mountview *mv, const struct mv_args *a, size_t i,
    const struct stat *st, char *err, size_t errlen)
{
	const struct plan_fsrule *fr = &a->plan->fs[i];

	if (fr->intent == PLAN_RW || fr->intent == PLAN_RWX)
		return errno = EPERM, err_set(err, errlen, "%s "
		    "%s: /proc is read-only in the view (its "
		    "/proc/sys and sysrq-trigger act on the "
		    "host)", plan_intent_name(fr->intent), fr->path);
	mv->proc[mv->nproc].path = fr->path;
	mv->proc[mv->nproc++].access = ll_intent_rights(fr->intent,
	    S_ISDIR(st->st_mode), a->abi);
	return 0;
}

/* The rule's bind (and its alias, when the plan's path led through a
 * link): nosuid and nodev, read-only unless rw or rwx; a device node
 * read-only with devices (a write to a device is not a write to its file
 * system: its mode, owner and times stay the host's).  As root the clone
 * is made here, from the descriptor the rule's walk opened: nothing is
 * looked up again; in a user namespace of its own the payload clones it
 * (mv_apply).  0, or -1 with errno and err. */
static int
rule_bind(struct mountview *mv, const struct mv_args *a, size_t i,
    const struct stat *st, char *err, size_t errlen)
{
	const struct plan_fsrule *fr = &a->plan->fs[i];
	int rw = fr->intent == PLAN_RW || fr->intent == PLAN_RWX;
	struct mv_bind *b;

	if (strcmp(fr->path, a->real[i]) != 0) {
		mv->alias[mv->nalias].path = fr->path;
		mv->alias[mv->nalias++].to = a->real[i];
	}
	b = &mv->bind[mv->nbind];
	b->path = a->real[i];
	b->dev = st->st_dev;
	b->ino = st->st_ino;
	b->dir = S_ISDIR(st->st_mode);
	b->tree = -1;
	b->set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
	b->clr = 0;
	if (S_ISCHR(st->st_mode) || S_ISBLK(st->st_mode)) {
		b->set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID;
		b->clr = MOUNT_ATTR_NODEV;
	} else if (!rw)
		b->set |= MOUNT_ATTR_RDONLY;
	if (!a->userns && mv_tree_bind(b, a->rulefd[i]) == -1)
		return err_set_sys(err, errlen, "mount view: a clone "
		    "of %s %s", plan_intent_name(fr->intent), a->real[i]);
	mv->nbind++;
	return 0;
}

/* The private tmp's mount options, as the strings fsconfig takes. */
static int
tmp_options(struct mountview *mv, const struct mv_args *a, char *err,
    size_t errlen)
{
	mv->tmp = a->tmp;
	mv->tmp_access = ll_intent_rights(PLAN_RW, 1, a->abi);
	if (snprintf(mv->tmpuid, sizeof(mv->tmpuid), "%lu",
	    (unsigned long)a->uid) >= (int)sizeof(mv->tmpuid) ||
	    snprintf(mv->tmpgid, sizeof(mv->tmpgid), "%lu",
	    (unsigned long)a->gid) >= (int)sizeof(mv->tmpgid) ||
	    snprintf(mv->tmpsize, sizeof(mv->tmpsize), "%llu",
	    (unsigned long long)a->tmp_bytes) >= (int)sizeof(mv->tmpsize))
		return errno = ENAMETOOLONG,
		    err_set_sys(err, errlen, "mount view: tmp");
	return 0;
}

int
mv_prepare(struct mountview *mv, const struct mv_args *a, char *err,
    size_t errlen)
{
	const struct plan *p = a->plan;
	struct stat st;
	size_t i;

	memset(mv, 0, sizeof(*mv));
	mv->rulesetfd = a->rulesetfd;
	mv->cwd = a->cwd;
	mv->userns = a->userns;
	mv->bind = calloc(p->nfs + 2, sizeof(*mv->bind));	/* /etc's own */
	mv->proc = calloc(p->nfs + 1, sizeof(*mv->proc));
	mv->alias = calloc(p->nfs + 1, sizeof(*mv->alias));
	if (mv->bind == NULL || mv->proc == NULL || mv->alias == NULL)
		return err_set_sys(err, errlen, "mount view");
	for (i = 0; i < p->nfs; i++) {
		if (fstat(a->rulefd[i], &st) == -1)
			return err_set_sys(err, errlen, "mount view: %s",
			    a->real[i]);
		if (mv_tree_beneath(a->real[i], "/proc") ||
		    mv_tree_beneath(p->fs[i].path, "/proc")) {
			if (rule_proc(mv, a, i, &st, err, errlen) == -1)
				return -1;
			continue;
		}
		if (rule_refused(a, i, &st, err, errlen) == -1 ||
		    rule_bind(mv, a, i, &st, err, errlen) == -1)
			return -1;
	}
	if (!a->userns && mv_secrets_withhold(mv, a->uid, err, errlen) == -1)
		return -1;
	qsort(mv->bind, mv->nbind, sizeof(*mv->bind), by_length);
	root_links(mv);
	if (a->tmp != NULL && tmp_options(mv, a, err, errlen) == -1)
		return -1;
	return 0;
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
		if (!dev && (ns = mv_tree_idmap_ns(st.st_uid, st.st_gid, to,
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

/* The clones the payload did not take (it failed before, or the run
 * never started). */
static void
trees_close(struct mountview *mv)
{
	size_t i;

	for (i = 0; i < mv->nbind; i++)
		if (mv->bind[i].tree != -1) {
			close(mv->bind[i].tree);
			mv->bind[i].tree = -1;
		}
}

void
mv_spawned(struct mountview *mv)
{
	trees_close(mv);
}

void
mv_free(struct mountview *mv)
{
	size_t i;

	trees_close(mv);
	for (i = 0; i < mv->ncover; i++)
		free(mv->cover[i].path);
	free(mv->cover);
	free(mv->bind);
	free(mv->alias);
	free(mv->proc);
	memset(mv, 0, sizeof(*mv));
}

