/* SPDX-License-Identifier: ISC */
/* tmpdir: a run's private temporary directory. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "tmpdir.h"

#define MAX_DEPTH 256	/* deeper trees are left, and said so */

int
tmpdir_make(const char *base, uid_t uid, gid_t gid, char *path,
    size_t pathsz, int *fd, char *err, size_t errlen)
{
	unsigned char rnd[16];
	char hex[33];
	size_t i;
	int e;

	*fd = -1;
	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		return err_set_sys(err, errlen, "tmp: random name");
	for (i = 0; i < sizeof(rnd); i++)
		snprintf(hex + 2 * i, 3, "%02x", rnd[i]);
	if ((size_t)snprintf(path, pathsz, "%s/borne-tmp-%s", base, hex) >=
	    pathsz)
		return errno = ENAMETOOLONG, err_set_sys(err, errlen, "tmp: %s",
		    base);
	if (mkdir(path, 0700) == -1)
		return err_set_sys(err, errlen, "tmp: mkdir %s", path);
	*fd = open(path, O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (*fd == -1 || ((uid != (uid_t)-1 || gid != (gid_t)-1) &&
	    fchownat(*fd, "", uid, gid, AT_EMPTY_PATH) == -1)) {
		err_set_sys(err, errlen, "tmp: %s", path);
		e = errno;
		if (*fd != -1)
			close(*fd);
		*fd = -1;
		rmdir(path);
		errno = e;
		return -1;
	}
	return 0;
}

/* Empty the directory open at dfd (on device dev), depth levels down. */
static int
empty(int dfd, dev_t dev, int depth)
{
	struct dirent *de;
	struct stat st;
	int sub, rc = 0;
	DIR *d;

	if (depth > MAX_DEPTH)
		return errno = ELOOP, -1;
	if ((sub = dup(dfd)) == -1 || (d = fdopendir(sub)) == NULL) {
		if (sub != -1)
			close(sub);
		return -1;
	}
	while ((errno = 0, de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 ||
		    strcmp(de->d_name, "..") == 0)
			continue;
		if (fstatat(dfd, de->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1) {
			rc = -1;
			continue;
		}
		if (S_ISDIR(st.st_mode)) {
			if (st.st_dev != dev) {
				rc = -1;	/* a mount point: not ours */
				errno = EXDEV;
				continue;
			}
			/* Searchable again if the payload took that away
			 * (checked a directory just above, nothing runs). */
			(void)fchmodat(dfd, de->d_name, 0700, 0);
			sub = openat(dfd, de->d_name, O_RDONLY | O_DIRECTORY |
			    O_NOFOLLOW | O_CLOEXEC);
			if (sub == -1 || empty(sub, dev, depth + 1) == -1)
				rc = -1;
			if (sub != -1)
				close(sub);
			if (unlinkat(dfd, de->d_name, AT_REMOVEDIR) == -1)
				rc = -1;
		} else if (unlinkat(dfd, de->d_name, 0) == -1)
			rc = -1;
	}
	if (errno != 0)
		rc = -1;
	closedir(d);
	return rc;
}

int
tmpdir_remove(const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd, e;

	fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd == -1)
		return err_set_sys(err, errlen, "tmp: %s", path);
	/* The directory may have lost its owner's write bit (chmod by the
	 * payload): give it back before emptying it. */
	if (fstat(fd, &st) == -1 || fchmod(fd, 0700) == -1 ||
	    empty(fd, st.st_dev, 0) == -1) {
		e = errno;
		close(fd);
		errno = e;
		return err_set_sys(err, errlen, "tmp: removing %s", path);
	}
	close(fd);
	if (rmdir(path) == -1)
		return err_set_sys(err, errlen, "tmp: rmdir %s", path);
	return 0;
}
