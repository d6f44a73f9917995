/* SPDX-License-Identifier: ISC */
/* mv_place: the view built in the payload (mv_apply, mountview.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "landlock.h"
#include "mountview.h"
#include "mv_secrets.h"
#include "mv_tree.h"
#include "uapi.h"

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

/* The step that failed and its path in mv, then -1 (errno kept). */
#define FAIL(step, p)                                                    \
	do {                                                             \
		mv->failed = (step);                                     \
		mv->failed_path = (p);                                   \
		return -1;                                               \
	} while (0)

/* What mv_apply holds while it builds the view; view_close closes what
 * is still open.  The payload shares the parent's memory, not its
 * descriptors: its clones are its own, never written into mv. */
struct view {
	int tree[PLAN_MAX_PATHS + 1];	/* the rules, /etc's own clone */
	size_t n;		/* tree[0..n) taken */
	int m;			/* the view's own root (a tmpfs) */
	int root;		/* m, or the clone of a rule on / */
	int t;			/* a tmpfs or procfs being placed */
	int host;		/* the host's root as copied */
	dev_t dev;		/* m's file system */
};

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

	if ((t = mv_tree_walk(root, path, rootdev, 1, dir, host)) == -1)
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
	if ((d = mv_tree_walk(root, dir, rootdev, 1, 1, -1)) == -1)
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
	r = mv_tree_walk(fd, b->path, 0, 0, 0, -1);
	e = errno;
	close(fd);
	if ((fd = r) == -1)
		return errno = e, -1;
	if (fstat(fd, &st) == -1 || st.st_dev != b->dev ||
	    st.st_ino != b->ino) {
		close(fd);
		return errno = ESTALE, -1;
	}
	r = mv_tree_bind(&c, fd);
	e = errno;
	close(fd);
	errno = e;
	return r == -1 ? -1 : c.tree;
}

/* Each rule's clone: as root, the one mv_prepare made; in a user
 * namespace of its own, made here, from the host's tree as this
 * namespace copied it. */
static int
clones(struct mountview *mv, struct view *v)
{
	size_t i;

	if (mv->nbind > PLAN_MAX_PATHS + 1) {
		errno = E2BIG;
		FAIL("clone", "");
	}
	for (i = 0; i < mv->nbind; i++) {
		v->tree[i] = mv->userns ? bind_here(&mv->bind[i]) :
		    mv->bind[i].tree;
		v->n = i + 1;
		if (v->tree[i] == -1)
			FAIL("clone", mv->bind[i].path);
	}
	return 0;
}

/* The view's own root: an empty tmpfs over the copied /, whose mount
 * stops taking part in the host's propagation first, with the links of
 * a merged /usr.  The host's root as copied is kept, for the modes of
 * the directories on the way to a rule (like_host). */
static int
root_make(struct mountview *mv, struct view *v)
{
	static const char *const rootopt[] = { "mode", "0755", "size", "1m",
		NULL };
	struct stat st;
	size_t i;

	if ((v->host = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		FAIL("root", "/");
	if (mount(NULL, "/", NULL, MS_PRIVATE, NULL) == -1)
		FAIL("propagation", "/");
	if ((v->m = fs_new("tmpfs", rootopt, MOUNT_ATTR_NOSUID |
	    MOUNT_ATTR_NODEV | MOUNT_ATTR_NOEXEC)) == -1)
		FAIL("root", "/");
	if (syscall(__NR_move_mount, v->m, "", AT_FDCWD, "/",
	    MOVE_MOUNT_F_EMPTY_PATH) == -1 || fstat(v->m, &st) == -1)
		FAIL("root", "/");
	v->dev = st.st_dev;
	v->root = v->m;
	for (i = 0; i < mv->nlink; i++)
		if (symlinkat(mv->link[i].to, v->m, mv->link[i].name) == -1)
			FAIL("link", mv->link[i].name);
	return 0;
}

/* Each rule's clone at its own path, shortest first: nested rules
 * stack.  One on / itself becomes the root.  Then the aliases and the
 * covers of the host's secrets. */
static int
binds_place(struct mountview *mv, struct view *v)
{
	size_t i;

	for (i = 0; i < mv->nbind; i++) {
		struct mv_bind *b = &mv->bind[i];

		if (place(v->tree[i], v->root, v->dev, b->path, b->dir,
		    v->host) == -1)
			FAIL("bind", b->path);
		if (strcmp(b->path, "/") == 0)
			v->root = v->tree[i];
		else
			close(v->tree[i]);
		v->tree[i] = -1;
	}
	for (i = 0; i < mv->nalias; i++)
		alias(v->root, v->dev, &mv->alias[i]);
	return mv_secrets_cover(mv, v->m, v->root);
}

/* The private tmp (when the plan has one), with its Landlock rule, and
 * the run's own procfs, read-only. */
static int
filesystems_place(struct mountview *mv, struct view *v)
{
	const char *tmpopt[] = { "mode", "0700", "uid", mv->tmpuid, "gid",
		mv->tmpgid, "size", mv->tmpsize, NULL };

	if (mv->tmp != NULL) {
		if ((v->t = fs_new("tmpfs", tmpopt, MOUNT_ATTR_NOSUID |
		    MOUNT_ATTR_NODEV)) == -1 ||
		    place(v->t, v->root, v->dev, mv->tmp, 1, v->host) == -1)
			FAIL("tmpfs", mv->tmp);
		if (add_rule(mv->rulesetfd, v->t, NULL, mv->tmp_access) == -1)
			FAIL("tmp rule", mv->tmp);
		close(v->t);
		v->t = -1;
	}
	if ((v->t = fs_new("proc", NULL, MOUNT_ATTR_NOSUID | MOUNT_ATTR_NODEV |
	    MOUNT_ATTR_NOEXEC | MOUNT_ATTR_RDONLY)) == -1 ||
	    place(v->t, v->root, v->dev, "/proc", 1, -1) == -1)
		FAIL("procfs", "/proc");
	close(v->t);
	v->t = -1;
	return 0;
}

/* The view's own root made read-only (nothing more is made in it), then
 * entered; the /proc rules added again on the run's procfs, the working
 * directory entered again, the handed descriptors put in place. */
static int
enter(struct mountview *mv, struct view *v)
{
	size_t i;

	if (mv_tree_setattr(v->m, "", AT_EMPTY_PATH, MOUNT_ATTR_RDONLY, 0,
	    0) == -1)
		FAIL("read-only", "/");
	close(v->host);
	v->host = -1;
	if (fchdir(v->root) == -1 || chroot(".") == -1 || chdir("/") == -1)
		FAIL("root", "/");
	if (v->root != v->m)
		close(v->root);
	close(v->m);
	v->m = v->root = -1;
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
}

/* What a failed step left open, closed; errno kept. */
static void
view_close(struct view *v)
{
	size_t i;
	int e = errno;

	for (i = 0; i < v->n; i++)
		if (v->tree[i] != -1 && v->tree[i] != v->root)
			close(v->tree[i]);
	if (v->t != -1)
		close(v->t);
	if (v->host != -1)
		close(v->host);
	if (v->root != -1 && v->root != v->m)
		close(v->root);
	if (v->m != -1)
		close(v->m);
	errno = e;
}

int
mv_apply(struct mountview *mv)
{
	struct view v;

	v.n = 0;
	v.m = v.root = v.t = v.host = -1;
	if (clones(mv, &v) == -1 || root_make(mv, &v) == -1 ||
	    binds_place(mv, &v) == -1 || filesystems_place(mv, &v) == -1 ||
	    enter(mv, &v) == -1) {
		view_close(&v);
		return -1;
	}
	return 0;
}
