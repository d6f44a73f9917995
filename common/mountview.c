/* SPDX-License-Identifier: ISC */
/* mountview: the run's read-only view of the host (mountview.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
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

static long
tree_clone(int dfd, const char *path, unsigned flags)
{
	return syscall(__NR_open_tree, dfd, path, flags);
}

static int
setattr(int dfd, const char *path, unsigned flags, uint64_t set,
    uint64_t clr, uint64_t propagation)
{
	struct borne_mount_attr a = {set, clr, propagation, 0};

	return (int)syscall(__NR_mount_setattr, dfd, path, flags, &a,
	    sizeof(a));
}

/* The rule's clone, detached, with its attributes, private: nothing
 * mounted beneath the host's path reaches it, nothing mounted beneath it
 * reaches the host. */
static int
bind_tree(struct mv_bind *b, int src)
{
	long t;
	int e;

	t = tree_clone(src, "", OPEN_TREE_CLONE | OPEN_TREE_CLOEXEC |
	    AT_EMPTY_PATH | AT_RECURSIVE);
	if (t == -1)
		return -1;
	if (setattr((int)t, "", AT_EMPTY_PATH | AT_RECURSIVE, b->set, b->clr,
	    MS_PRIVATE) == -1) {
		e = errno;
		close((int)t);
		errno = e;
		return -1;
	}
	b->tree = (int)t;
	return 0;
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
			if (beneath(mv->bind[i].path, abs) ||
			    beneath(abs, mv->bind[i].path))
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

static int secrets(struct mountview *mv, uid_t uid, char *err,
    size_t errlen);

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
		const struct plan_fsrule *fr = &p->fs[i];
		int rw = fr->intent == PLAN_RW || fr->intent == PLAN_RWX;
		const char *k = plan_intent_name(fr->intent);
		struct mv_bind *b;

		if (fstat(a->rulefd[i], &st) == -1)
			return err_set_sys(err, errlen, "mount view: %s",
			    a->real[i]);
		if (beneath(a->real[i], "/proc") || beneath(fr->path, "/proc")) {
			/* The run's own procfs replaces the host's, read-only
			 * whatever the rules: its controls (/proc/sys,
			 * sysrq-trigger) are the host's. */
			if (rw)
				return errno = EPERM, err_set(err, errlen, "%s "
				    "%s: /proc is read-only in the view (its "
				    "/proc/sys and sysrq-trigger act on the "
				    "host)", k, fr->path);
			mv->proc[mv->nproc].path = fr->path;
			mv->proc[mv->nproc++].access = ll_intent_rights(
			    fr->intent, S_ISDIR(st.st_mode), a->abi);
			continue;
		}
		if (rw && beneath(a->real[i], "/sys"))
			return errno = EPERM, err_set(err, errlen, "%s %s: "
			    "/sys is read-only in the view (its files act on "
			    "the host's kernel and devices)", k, fr->path);
		if (rw && beneath(a->real[i], "/dev") && !S_ISCHR(st.st_mode) &&
		    !S_ISBLK(st.st_mode))
			return errno = EPERM, err_set(err, errlen, "%s %s: "
			    "beneath /dev only single device nodes may be "
			    "granted rw (a device directory is the host's)",
			    k, fr->path);
		/* A shared sticky directory (/tmp) the payload owns: its
		 * mode and ACLs, which the kernel leaves to the owner, are
		 * every user's. */
		if (rw && S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX) &&
		    st.st_uid == a->uid)
			return errno = EPERM, err_set(err, errlen, "%s %s: a "
			    "shared sticky directory owned by uid %lu, the "
			    "payload's: its mode and ACLs would be the "
			    "payload's (use --tmp for a private temporary "
			    "directory, or --uid)", k, fr->path,
			    (unsigned long)a->uid);
		if (strcmp(fr->path, a->real[i]) != 0) {
			mv->alias[mv->nalias].path = fr->path;
			mv->alias[mv->nalias++].to = a->real[i];
		}
		b = &mv->bind[mv->nbind];
		b->path = a->real[i];
		b->dev = st.st_dev;
		b->ino = st.st_ino;
		b->dir = S_ISDIR(st.st_mode);
		b->tree = -1;
		b->set = MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV;
		b->clr = 0;
		/* A device node: read-only (a write to a device is not a
		 * write to its file system: its mode, owner and times stay
		 * the host's), with devices. */
		if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
			b->set = MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID;
			b->clr = MOUNT_ATTR_NODEV;
		} else if (!rw)
			b->set |= MOUNT_ATTR_RDONLY;
		/* As root, the clone is made here, from the descriptor the
		 * rule's walk opened: nothing is looked up again.  In a user
		 * namespace of its own the payload clones it (mv_apply). */
		if (!a->userns && bind_tree(b, a->rulefd[i]) == -1)
			return err_set_sys(err, errlen, "mount view: a clone "
			    "of %s %s", k, a->real[i]);
		mv->nbind++;
	}
	if (!a->userns && secrets(mv, a->uid, err, errlen) == -1)
		return -1;
	qsort(mv->bind, mv->nbind, sizeof(*mv->bind), by_length);
	root_links(mv);
	if (a->tmp != NULL) {
		mv->tmp = a->tmp;
		mv->tmp_access = ll_intent_rights(PLAN_RW, 1, a->abi);
		if (snprintf(mv->tmpuid, sizeof(mv->tmpuid), "%lu",
		    (unsigned long)a->uid) >= (int)sizeof(mv->tmpuid) ||
		    snprintf(mv->tmpgid, sizeof(mv->tmpgid), "%lu",
		    (unsigned long)a->gid) >= (int)sizeof(mv->tmpgid) ||
		    snprintf(mv->tmpsize, sizeof(mv->tmpsize), "%llu",
		    (unsigned long long)a->tmp_bytes) >=
		    (int)sizeof(mv->tmpsize))
			return errno = ENAMETOOLONG,
			    err_set_sys(err, errlen, "mount view: tmp");
	}
	return 0;
}

static int idmap_ns(uid_t uid, gid_t gid, uid_t touid, gid_t togid);

static int
cover_add(struct mountview *mv, const char *path, int dir)
{
	struct mv_cover *c;

	c = realloc(mv->cover, (mv->ncover + 1) * sizeof(*c));
	if (c == NULL)
		return -1;
	mv->cover = c;
	if ((c[mv->ncover].path = strdup(path)) == NULL)
		return -1;
	c[mv->ncover++].dir = dir;
	return 0;
}

/* Whether a rule's path lies at or beneath path (it names a secret, or
 * something inside one: no cover over it). */
static int
named(const struct mountview *mv, const char *path)
{
	size_t i;

	for (i = 0; i < mv->nbind; i++)
		if (beneath(mv->bind[i].path, path))
			return 1;
	return 0;
}

/* The secrets by name beneath /etc, covered where they exist (never
 * through a link: a link's target is judged where it lies); with
 * readable_only (/etc idmapped: the payload is "others" there), only
 * those others may read or search. */
static int
secrets_by_name(struct mountview *mv, int readable_only)
{
	const char *const *g;
	char pat[PATH_MAX];
	struct stat st;
	glob_t gl;
	size_t i, j, n;

	g = plan_preset_secret_globs(&n);
	for (i = 0; i < n; i++) {
		snprintf(pat, sizeof(pat), "/etc/%s", g[i]);
		memset(&gl, 0, sizeof(gl));
		if (glob(pat, GLOB_NOSORT, NULL, &gl) != 0) {
			globfree(&gl);
			continue;
		}
		for (j = 0; j < gl.gl_pathc; j++)
			if (lstat(gl.gl_pathv[j], &st) == 0 &&
			    !S_ISLNK(st.st_mode) && !named(mv, gl.gl_pathv[j]) &&
			    (!readable_only || (st.st_mode & (S_IROTH |
			    (S_ISDIR(st.st_mode) ? S_IXOTH : 0)))) &&
			    cover_add(mv, gl.gl_pathv[j],
			    S_ISDIR(st.st_mode)) == -1) {
				globfree(&gl);
				return -1;
			}
		globfree(&gl);
	}
	return 0;
}

/* Without idmapped mounts: every entry beneath dir others may not read
 * (a directory: read and search) covered, its inside not walked.  -1
 * with errno (E2BIG: past MV_SCAN_MAX entries). */
static int
scan(struct mountview *mv, const char *dir, size_t *seen, int depth)
{
	char path[PATH_MAX];
	struct dirent *de;
	struct stat st;
	DIR *d;
	int r = 0;

	if (depth > 16 || (d = opendir(dir)) == NULL)
		return 0;
	while (r == 0 && (de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") ==
		    0)
			continue;
		if (++*seen > MV_SCAN_MAX) {
			r = -1;
			errno = E2BIG;
			break;
		}
		if ((size_t)snprintf(path, sizeof(path), "%s/%s", dir,
		    de->d_name) >= sizeof(path) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) ==
		    -1 || S_ISLNK(st.st_mode) || named(mv, path))
			continue;
		if (!(st.st_mode & S_IROTH) || (S_ISDIR(st.st_mode) &&
		    !(st.st_mode & S_IXOTH)))
			r = cover_add(mv, path, S_ISDIR(st.st_mode));
		else if (S_ISDIR(st.st_mode))
			r = scan(mv, path, seen, depth + 1);
	}
	closedir(d);
	return r;
}

/* The host's secrets beneath /etc withheld (mountview.h).  0, or -1
 * with errno and err. */
static int
secrets(struct mountview *mv, uid_t uid, char *err, size_t errlen)
{
	struct borne_mount_attr a = {MOUNT_ATTR_IDMAP, 0, 0, 0};
	struct mv_bind *b = NULL, *etc;
	uid_t to = uid == 4294967293u ? 4294967292u : 4294967293u;
	size_t i, seen = 0;
	int fd, ns, r, e;

	for (i = 0; i < mv->nbind; i++)
		if (beneath("/etc", mv->bind[i].path) && (b == NULL ||
		    strlen(mv->bind[i].path) > strlen(b->path)))
			b = &mv->bind[i];
	if (b == NULL || !(b->set & MOUNT_ATTR_RDONLY))
		return 0;
	etc = b;
	if (strcmp(b->path, "/etc") != 0) {
		/* /etc beneath a wider rule: a clone of its own. */
		etc = &mv->bind[mv->nbind];
		*etc = *b;
		etc->path = "/etc";
		etc->tree = -1;
		fd = open("/etc", O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
		if (fd == -1 || bind_tree(etc, fd) == -1) {
			e = errno;
			if (fd != -1)
				close(fd);
			errno = e;
			return err_set_sys(err, errlen, "mount view: a clone "
			    "of /etc");
		}
		close(fd);
		mv->nbind++;
	}
	ns = idmap_ns(0, 0, to, (gid_t)to);
	r = -1;
	if (ns != -1) {
		a.userns_fd = (uint64_t)ns;
		r = (int)syscall(__NR_mount_setattr, etc->tree, "",
		    AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof(a));
		e = errno;
		close(ns);
		errno = e;
	}
	if (r == 0)
		mv->etc_how = "idmapped";
	else if (errno == EINVAL || errno == EOPNOTSUPP || errno == EPERM ||
	    errno == ENOSYS) {
		if (scan(mv, "/etc", &seen, 0) == -1)
			return err_set_sys(err, errlen, "mount view: /etc "
			    "cannot be idmapped here, and walking it for what "
			    "others may not read stopped (at most %d "
			    "entries)", MV_SCAN_MAX);
		mv->etc_how = "covered";
	} else
		return err_set_sys(err, errlen, "mount view: idmapping /etc");
	if (secrets_by_name(mv, r == 0) == -1)
		return err_set_sys(err, errlen, "mount view: the secrets of "
		    "/etc");
	return 0;
}

/* One more Landlock rule, on path as this namespace resolves it (fd -1),
 * or on fd. */
static int
add_rule(int rfd, int fd, const char *path, uint64_t access)
{
	struct landlock_path_beneath_attr pb;
	int own = -1, r, e;

	if (rfd == -1 || access == 0)
		return 0;
	if (fd == -1 && (fd = own = open(path, O_PATH | O_CLOEXEC)) == -1)
		return -1;
	memset(&pb, 0, sizeof(pb));
	pb.parent_fd = fd;
	pb.allowed_access = access;
	r = (int)syscall(__NR_landlock_add_rule, rfd,
	    LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
	e = errno;
	if (own != -1)
		close(own);
	errno = e;
	return r;
}

#define FAIL(step, p)                                                    \
	do {                                                             \
		mv->failed = (step);                                     \
		mv->failed_path = (p);                                   \
		goto fail;                                               \
	} while (0)

static int walk_at(int dfd, const char *path, dev_t mkdev, int mk, int dir,
    int host);

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
	if ((fd = walk_at(host, part, 0, 0, 0, -1)) == -1)
		return;
	if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
		(void)fchown(dir, st.st_uid, st.st_gid);
		(void)fchmod(dir, st.st_mode & 01777);
	}
	close(fd);
}

/* path from dfd (absolute, normalised), one component at a time, none
 * followed if it is a symbolic link (ELOOP).  With mk, a component
 * missing in a directory of the file system mkdev (the view's own root)
 * is made: a directory (its mode and owner the host's directory's there,
 * looked up from host unless -1), or for the last one an empty file
 * unless dir.  The descriptor (O_PATH), or -1 with errno. */
static int
walk_at(int dfd, const char *path, dev_t mkdev, int mk, int dir, int host)
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

/* A new file system, detached: type with its string options (name,
 * value pairs, NULL-ended), mounted with attr. */
static int
fs_new(const char *type, const char *const *opt, unsigned attr)
{
	long fs, m;
	int e;

	fs = syscall(__NR_fsopen, type, BORNE_FSOPEN_CLOEXEC);
	if (fs == -1)
		return -1;
	for (; opt != NULL && opt[0] != NULL; opt += 2)
		if (syscall(__NR_fsconfig, (int)fs, BORNE_FSCONFIG_SET_STRING,
		    opt[0], opt[1], 0) == -1)
			goto fail;
	if (syscall(__NR_fsconfig, (int)fs, BORNE_FSCONFIG_CMD_CREATE, NULL,
	    NULL, 0) == -1)
		goto fail;
	m = syscall(__NR_fsmount, (int)fs, BORNE_FSMOUNT_CLOEXEC, attr);
	if (m == -1)
		goto fail;
	close((int)fs);
	return (int)m;
fail:
	e = errno;
	close((int)fs);
	errno = e;
	return -1;
}

/* tree onto path in the view (from root), its mount point made in the
 * view's own root where missing. */
static int
place(int tree, int root, dev_t rootdev, const char *path, int dir,
    int host)
{
	int t, r, e;

	if ((t = walk_at(root, path, rootdev, 1, dir, host)) == -1)
		return -1;
	r = (int)syscall(__NR_move_mount, tree, "", t, "",
	    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH);
	e = errno;
	close(t);
	errno = e;
	return r;
}

/* The plan's path of a rule named through a followed link, as a link to
 * where it led, unless the view has that name already (a system link
 * leads there, or the host's own link is in a bound directory).  Where
 * its directory cannot be made, nothing: the rule is still bound at its
 * resolved path. */
static void
alias(int root, dev_t rootdev, const struct mv_alias *al)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(al->path, '/');
	size_t n = slash != NULL ? (size_t)(slash - al->path) : 0;
	int d;

	if (slash == NULL || slash[1] == '\0' || n >= sizeof(dir))
		return;
	memcpy(dir, al->path, n);
	dir[n] = '\0';
	if ((d = walk_at(root, dir, rootdev, 1, 1, -1)) == -1)
		return;
	(void)symlinkat(al->to, d, slash + 1);
	close(d);
}

/* In a user namespace of its own: the rule's path walked here (this
 * namespace's copy of the host's mounts), never following a link, and
 * cloned only if it is still the inode the rule's walk opened (ESTALE).
 * The clone's descriptor, or -1 with errno. */
static int
bind_here(struct mv_bind *b)
{
	struct mv_bind c = *b;
	struct stat st;
	int fd, r, e;

	fd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		return -1;
	r = walk_at(fd, b->path, 0, 0, 0, -1);
	e = errno;
	close(fd);
	if ((fd = r) == -1)
		return errno = e, -1;
	if (fstat(fd, &st) == -1 || st.st_dev != b->dev ||
	    st.st_ino != b->ino) {
		close(fd);
		return errno = ESTALE, -1;
	}
	r = bind_tree(&c, fd);
	e = errno;
	close(fd);
	errno = e;
	return r == -1 ? -1 : c.tree;
}

/* Each secret covered by an empty file or directory of mode 0, cloned
 * from the view's own root (made there, removed once cloned); one gone
 * since is left.  0, or -1 with mv->failed set. */
static int
covers(struct mountview *mv, int m, int root)
{
	static const char *const src[2] = {".borne-cover-f", ".borne-cover-d"};
	struct stat st;
	size_t i;
	long t;
	int fd, e, r = 0;

	if (mv->ncover == 0)
		return 0;
	if (mknodat(m, src[0], S_IFREG, 0) == -1 || mkdirat(m, src[1], 0) ==
	    -1) {
		mv->failed = "cover";
		mv->failed_path = "/";
		return -1;
	}
	for (i = 0; r == 0 && i < mv->ncover; i++) {
		const struct mv_cover *c = &mv->cover[i];

		if ((fd = walk_at(root, c->path, 0, 0, 0, -1)) == -1)
			continue;
		if (fstat(fd, &st) == -1 || S_ISDIR(st.st_mode) != c->dir) {
			close(fd);
			continue;
		}
		t = tree_clone(m, src[c->dir], OPEN_TREE_CLONE |
		    OPEN_TREE_CLOEXEC);
		if (t == -1 || setattr((int)t, "", AT_EMPTY_PATH,
		    MOUNT_ATTR_RDONLY | MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
		    MOUNT_ATTR_NOEXEC, 0, MS_PRIVATE) == -1 ||
		    syscall(__NR_move_mount, (int)t, "", fd, "",
		    MOVE_MOUNT_F_EMPTY_PATH | MOVE_MOUNT_T_EMPTY_PATH) == -1) {
			mv->failed = "cover";
			mv->failed_path = c->path;
			r = -1;
		}
		e = errno;
		if (t != -1)
			close((int)t);
		close(fd);
		errno = e;
	}
	e = errno;
	(void)unlinkat(m, src[0], 0);
	(void)unlinkat(m, src[1], AT_REMOVEDIR);
	errno = e;
	return r;
}

int
mv_apply(struct mountview *mv)
{
	static const char *const rootopt[] = { "mode", "0755", "size", "1m",
		NULL };
	const char *tmpopt[] = { "mode", "0700", "uid", mv->tmpuid, "gid",
		mv->tmpgid, "size", mv->tmpsize, NULL };
	/* The payload shares the parent's memory, not its descriptors:
	 * its clones are its own, never written into mv. */
	int tree[PLAN_MAX_PATHS + 1];	/* the rules, /etc's own clone */
	struct stat st;
	size_t i, n = 0;
	int m = -1, root = -1, t = -1, host = -1, e;

	/* In a user namespace of its own, the clones are made here, from
	 * the host's tree as this namespace copied it. */
	if (mv->nbind > PLAN_MAX_PATHS + 1) {
		errno = E2BIG;
		FAIL("clone", "");
	}
	for (i = 0; i < mv->nbind; i++) {
		tree[i] = mv->userns ? bind_here(&mv->bind[i]) :
		    mv->bind[i].tree;
		n = i + 1;
		if (tree[i] == -1)
			FAIL("clone", mv->bind[i].path);
	}
	/* The host's root as copied, for the modes of the directories on
	 * the way to a rule (like_host). */
	if ((host = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		FAIL("root", "/");
	/* The view's own root: an empty tmpfs over the copied /, whose
	 * mount stops taking part in the host's propagation first. */
	if (mount(NULL, "/", NULL, MS_PRIVATE, NULL) == -1)
		FAIL("propagation", "/");
	if ((m = fs_new("tmpfs", rootopt, MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)) == -1)
		FAIL("root", "/");
	if (syscall(__NR_move_mount, m, "", AT_FDCWD, "/",
	    MOVE_MOUNT_F_EMPTY_PATH) == -1 || fstat(m, &st) == -1)
		FAIL("root", "/");
	root = m;
	for (i = 0; i < mv->nlink; i++)
		if (symlinkat(mv->link[i].to, m, mv->link[i].name) == -1)
			FAIL("link", mv->link[i].name);
	/* Each rule's clone at its own path, shortest first: nested rules
	 * stack.  One on / itself becomes the root. */
	for (i = 0; i < mv->nbind; i++) {
		struct mv_bind *b = &mv->bind[i];

		if (place(tree[i], root, st.st_dev, b->path, b->dir, host) == -1)
			FAIL("bind", b->path);
		if (strcmp(b->path, "/") == 0)
			root = tree[i];
		else
			close(tree[i]);
		tree[i] = -1;
	}
	for (i = 0; i < mv->nalias; i++)
		alias(root, st.st_dev, &mv->alias[i]);
	if (covers(mv, m, root) == -1)
		goto fail;
	if (mv->tmp != NULL) {
		if ((t = fs_new("tmpfs", tmpopt, MOUNT_ATTR_NOSUID |
		    MOUNT_ATTR_NODEV)) == -1 ||
		    place(t, root, st.st_dev, mv->tmp, 1, host) == -1)
			FAIL("tmpfs", mv->tmp);
		if (add_rule(mv->rulesetfd, t, NULL, mv->tmp_access) == -1)
			FAIL("tmp rule", mv->tmp);
		close(t);
		t = -1;
	}
	if ((t = fs_new("proc", NULL, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
	    MOUNT_ATTR_NOEXEC | MOUNT_ATTR_RDONLY)) == -1 ||
	    place(t, root, st.st_dev, "/proc", 1, -1) == -1)
		FAIL("procfs", "/proc");
	close(t);
	t = -1;
	/* Nothing more is made in the view's own root. */
	if (setattr(m, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY, 0, 0) == -1)
		FAIL("read-only", "/");
	close(host);
	host = -1;
	if (fchdir(root) == -1 || chroot(".") == -1 || chdir("/") == -1)
		FAIL("root", "/");
	if (root != m)
		close(root);
	close(m);
	m = root = -1;
	for (i = 0; i < mv->nproc; i++)
		if (add_rule(mv->rulesetfd, -1, mv->proc[i].path,
			mv->proc[i].access) == -1)
			FAIL("proc rule", mv->proc[i].path);
	/* A cwd gone or out of reach stays /: never a wider one. */
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
	for (i = 0; i < n; i++)
		if (tree[i] != -1 && tree[i] != root)
			close(tree[i]);
	if (t != -1)
		close(t);
	if (host != -1)
		close(host);
	if (root != -1 && root != m)
		close(root);
	if (m != -1)
		close(m);
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

/* The child of idmap_ns: born in its user namespace (CLONE_NEWUSER), in
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

/* A user namespace whose only mapping takes on-disk uid:gid to
 * touid:togid, as a descriptor: a child born in it waits while its maps
 * are written and its namespace opened, then leaves.  The last one made
 * is kept for the next call with the same ids (stdout and stderr in files
 * of one owner, /etc). */
static int
idmap_ns(uid_t uid, gid_t gid, uid_t touid, gid_t togid)
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
