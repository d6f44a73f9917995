/* SPDX-License-Identifier: ISC */
/* suidstrip guard: the --within roots that scope every target (compared by
 * whole path components, then opened beneath the root) and the --guard
 * mounts (nosuid,nodev) that make whatever is planted later inert. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "esc.h"
#include "suidstrip.h"
#include "uapi.h"
#include "usage.h"

/* ---- --within ---- */

void
roots_add(struct roots *r, const char *path, const char *what)
{
	char *real;
	struct stat sb;

	if (r->n >= MAX_ROOTS)
		die_usage_hint(EXIT_USAGE, "%s: more than %d roots", what,
		    MAX_ROOTS);
	if ((real = realpath(path, NULL)) == NULL)
		die_usage_hint(EXIT_USAGE, "%s %s: %s", what, path,
		    strerror(errno));
	if (stat(real, &sb) == -1 || !S_ISDIR(sb.st_mode))
		die_usage_hint(EXIT_USAGE, "%s %s: not a directory", what, path);
	r->v[r->n++] = real;
}

void
roots_free(struct roots *r)
{
	while (r->n > 0)
		free(r->v[--r->n]);
}

/* Is real (a real path) root itself or below it, by whole components? */
static int
path_within(const char *real, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(real, root, n) == 0 && (real[n] == '\0' || real[n] == '/');
}

const char *
roots_match(const struct roots *r, const char *real)
{
	const char *root = NULL;
	int i;

	for (i = 0; i < r->n; i++)
		if (path_within(real, r->v[i]) && (root == NULL ||
		    strlen(r->v[i]) > strlen(root)))
			root = r->v[i];
	return root;
}

int
open_beneath(int dirfd, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = { .flags = (uint64_t)flags | O_CLOEXEC,
		.resolve = resolve };

	return (int)syscall(__NR_openat2, dirfd, path, &how, sizeof how);
}

/* ---- --guard ---- */

/* The mount ids of root and of its parent.  0 or -1 with errno. */
static int
mount_ids(int fd, struct statx *self, struct statx *parent)
{
	if (walk_statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, self) == -1 ||
	    walk_statx(fd, "..", 0, STATX_MNT_ID, parent) == -1)
		return -1;
	return 0;
}

/* 1 when root is a mount point with nosuid and nodev, 0 when not, -1. */
static int
guard_in_place(const char *root)
{
	struct statx a, b;
	struct statvfs v;
	int fd, r;

	if ((fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	r = mount_ids(fd, &a, &b);
	if (r == 0)
		r = fstatvfs(fd, &v);
	close(fd);
	if (r == -1)
		return -1;
	if (!(a.stx_mask & STATX_MNT_ID) || !(b.stx_mask & STATX_MNT_ID))
		return errno = ENOSYS, -1;
	/* "/" is its own parent: a mount point all the same. */
	if (a.stx_mnt_id == b.stx_mnt_id && strcmp(root, "/") != 0)
		return 0;
	return (v.f_flag & ST_NOSUID) && (v.f_flag & ST_NODEV);
}

/* Bind-mount root on itself (unless it is a mount point already) and set
 * nosuid,nodev on it and everything below.  0, or -1 with errno. */
static int
guard_apply(const char *root)
{
	struct borne_mount_attr a = { .attr_set = MOUNT_ATTR_NOSUID |
		MOUNT_ATTR_NODEV };
	struct statx x, y;
	struct statvfs v;
	unsigned long keep = MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV;
	int fd, r, mp;

	if ((fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	r = mount_ids(fd, &x, &y);
	close(fd);
	if (r == -1)
		return -1;
	mp = x.stx_mnt_id != y.stx_mnt_id || strcmp(root, "/") == 0;
	if (!mp && mount(root, root, NULL, MS_BIND | MS_REC, NULL) == -1)
		return -1;
	if (syscall(__NR_mount_setattr, AT_FDCWD, root, AT_RECURSIVE, &a,
	    sizeof a) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	/* Before Linux 5.12: remount the top mount only. */
	if (statvfs(root, &v) == -1)
		return -1;
	if (v.f_flag & ST_RDONLY)
		keep |= MS_RDONLY;
	if (v.f_flag & ST_NOEXEC)
		keep |= MS_NOEXEC;
	return mount(NULL, root, NULL, keep, NULL);
}

int
guards_run(const struct roots *guard)
{
	char p[ESC_SIZE(PATH_MAX)];
	int i, in, rc = 0;

	for (i = 0; i < guard->n; i++) {
		esc_name(guard->v[i], p, sizeof p);
		if ((in = guard_in_place(guard->v[i])) == -1) {
			warning_sys("WARNING: %s: guard", p);
			rc = 1;
			continue;
		}
		if (opt.mode == MODE_STRIP && !in) {
			if (guard_apply(guard->v[i]) == -1) {
				warning_sys("WARNING: %s: guard: unable to bind "
				    "nosuid,nodev", p);
				rc = 1;
				continue;
			}
			in = 1;
		}
		if (!in)
			rc = 1;
		guard_report(guard->v[i], in);
	}
	return rc;
}
