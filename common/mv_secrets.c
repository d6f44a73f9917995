/* SPDX-License-Identifier: ISC */
/* mv_secrets: the host's secrets beneath /etc withheld (mv_secrets.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "mv_secrets.h"
#include "mv_tree.h"
#include "uapi.h"

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
		if (mv_tree_beneath(mv->bind[i].path, path))
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

/* The bind that holds /etc in the view, when it is read-only (NULL
 * otherwise): the rule on /etc itself, or for /etc beneath a wider rule a
 * clone of its own, added to mv->bind.  -1 in *fail with errno when that
 * clone cannot be made. */
static struct mv_bind *
etc_bind(struct mountview *mv, int *fail)
{
	struct mv_bind *b = NULL, *etc;
	size_t i;
	int fd, e;

	*fail = 0;
	for (i = 0; i < mv->nbind; i++)
		if (mv_tree_beneath("/etc", mv->bind[i].path) && (b == NULL ||
		    strlen(mv->bind[i].path) > strlen(b->path)))
			b = &mv->bind[i];
	if (b == NULL || !(b->set & MOUNT_ATTR_RDONLY))
		return NULL;
	if (strcmp(b->path, "/etc") == 0)
		return b;
	etc = &mv->bind[mv->nbind];
	*etc = *b;
	etc->path = "/etc";
	etc->tree = -1;
	fd = open("/etc", O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1 || mv_tree_bind(etc, fd) == -1) {
		e = errno;
		if (fd != -1)
			close(fd);
		errno = e;
		*fail = -1;
		return NULL;
	}
	close(fd);
	mv->nbind++;
	return etc;
}

/* The clone tree idmapped so that the host's uid and gid 0 are to, an
 * id no payload has.  0, or -1 with errno. */
static int
etc_idmap(int tree, uid_t to)
{
	struct borne_mount_attr a = {MOUNT_ATTR_IDMAP, 0, 0, 0};
	int ns, r, e;

	ns = mv_tree_idmap_ns(0, 0, to, (gid_t)to);
	if (ns == -1)
		return -1;
	a.userns_fd = (uint64_t)ns;
	r = (int)syscall(__NR_mount_setattr, tree, "",
	    AT_EMPTY_PATH | AT_RECURSIVE, &a, sizeof(a));
	e = errno;
	close(ns);
	errno = e;
	return r;
}

int
mv_secrets_withhold(struct mountview *mv, uid_t uid, char *err,
    size_t errlen)
{
	uid_t to = uid == 4294967293u ? 4294967292u : 4294967293u;
	struct mv_bind *etc;
	size_t seen = 0;
	int r;

	if ((etc = etc_bind(mv, &r)) == NULL)
		return r == -1 ? err_set_sys(err, errlen, "mount view: a "
		    "clone of /etc") : 0;
	r = etc_idmap(etc->tree, to);
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

int
mv_secrets_cover(struct mountview *mv, int m, int root)
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

		if ((fd = mv_tree_walk(root, c->path, 0, 0, 0, -1)) == -1)
			continue;
		if (fstat(fd, &st) == -1 || S_ISDIR(st.st_mode) != c->dir) {
			close(fd);
			continue;
		}
		t = mv_tree_clone(m, src[c->dir], OPEN_TREE_CLONE |
		    OPEN_TREE_CLOEXEC);
		if (t == -1 || mv_tree_setattr((int)t, "", AT_EMPTY_PATH,
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
