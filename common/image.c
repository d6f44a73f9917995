/* SPDX-License-Identifier: ISC */
/* image: sealed program image and sealed prompt (memfd). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "hash.h"
#include "image.h"
#include "imgcache.h"
#include "io.h"
#include "uapi.h"

#define SEALS (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL)

/* memfd_create with extra flags, dropping the ones an older kernel does
 * not know (EINVAL) but never the semantics asked for. */
static int
memfd_new(const char *name, unsigned flags, unsigned newflag)
{
	int fd;

	fd = memfd_create(name, flags | newflag);
	if (fd == -1 && errno == EINVAL && newflag != 0)
		fd = memfd_create(name, flags);	/* kernel < 6.3 */
	return fd;
}

static enum image_err
fail(enum image_err k, int e, char *err, size_t errlen, const char *path,
    const char *what)
{
	if (e > 0)
		snprintf(err, errlen, "%s: %s: %s", path, what, strerror(e));
	else
		snprintf(err, errlen, "%s: %s", path, what);
	errno = e > 0 ? e : EINVAL;
	return k;
}

/* size bytes of src copied into mfd, sealed, mapped in *m (left as it is
 * when size is 0) and hashed into digest, mfd's offset back at 0.
 * Returns 0, or an errno with *what naming the step. */
static int
copy_sealed(int src, int mfd, off_t size, unsigned char **m,
    uint8_t digest[32], const char **what)
{
	off_t done = 0;
	ssize_t n;

	while (done < size) {
		n = sendfile(mfd, src, NULL, (size_t)(size - done));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			*what = n == 0 ? "file shrank while copying" : "copy";
			return n == 0 ? EIO : errno;
		}
		done += n;
	}
	if (fcntl(mfd, F_ADD_SEALS, SEALS) == -1 ||
	    lseek(mfd, 0, SEEK_SET) == -1) {
		*what = "seal";
		return errno;
	}
	if (size > 0 && (*m = mmap(NULL, (size_t)size, PROT_READ,
	    MAP_PRIVATE, mfd, 0)) == MAP_FAILED) {
		*what = "mmap";
		return errno;
	}
	sha256_buf(size > 0 ? *m : NULL, (size_t)size, digest);
	return 0;
}

/* A seal's end: the map of size bytes (MAP_FAILED: none) and src
 * released; mfd given in *memfd (k IMAGE_OK), else closed (-1: none)
 * and the failure said in err. */
static enum image_err
seal_end(enum image_err k, int e, unsigned char *m, off_t size, int src,
    int mfd, int *memfd, char *err, size_t errlen, const char *path,
    const char *what)
{
	if (m != MAP_FAILED)
		munmap(m, (size_t)size);
	close(src);
	if (k == IMAGE_OK) {
		*memfd = mfd;
		return IMAGE_OK;
	}
	if (mfd != -1)
		close(mfd);
	return fail(k, e, err, errlen, path, what);
}

enum image_err
image_seal(const char *path, const uint8_t *pin, int *memfd,
    uint8_t digest[32], char *err, size_t errlen)
{
	return image_seal_cached(NULL, path, pin, memfd, digest, err, errlen);
}

/* path opened as a regular file, *st its status.  A FIFO would block in
 * open(2) and a device act on it: the inode is named first (O_PATH), and
 * only a regular file opened, without blocking, then checked to be that
 * same inode.  Another regular file there by then: the name was replaced
 * (a rename over it, as an install does), and both steps are taken
 * again.  IMAGE_OK with *srcp, or the failure said in err. */
static enum image_err
src_open(const char *path, int *srcp, struct stat *st, char *err,
    size_t errlen)
{
	int src, e, tries;
	dev_t dev;
	ino_t ino;

	for (tries = 0;; tries++) {
		src = open(path, O_PATH | O_CLOEXEC);
		if (src != -1 && fstat(src, st) == 0 &&
		    !S_ISREG(st->st_mode)) {
			close(src);
			return fail(IMAGE_NOEXEC, EACCES, err, errlen, path,
			    "not a regular file");
		}
		if (src != -1) {
			close(src);
			src = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
			    O_NONBLOCK);
		}
		if (src == -1) {
			e = errno;
			return fail(e == ENOENT || e == ENOTDIR ?
			    IMAGE_NOTFOUND : e == EACCES ? IMAGE_NOEXEC :
			    IMAGE_FAIL, e, err, errlen, path, "open");
		}
		dev = st->st_dev;
		ino = st->st_ino;
		if (fstat(src, st) == -1) {
			e = errno;
			close(src);
			return fail(IMAGE_FAIL, e, err, errlen, path, "fstat");
		}
		if (!S_ISREG(st->st_mode)) {
			close(src);
			return fail(IMAGE_NOEXEC, EACCES, err, errlen, path,
			    "not a regular file");
		}
		if (st->st_dev == dev && st->st_ino == ino)
			break;
		close(src);
		if (tries == 7)
			return fail(IMAGE_FAIL, EAGAIN, err, errlen, path,
			    "replaced while it was opened, 8 times");
	}
	*srcp = src;
	return IMAGE_OK;
}

/* The sealed copy's size bytes at m: an ELF executable (not #!), whose
 * digest is the pinned one when pin is not NULL.  IMAGE_OK, or the
 * failure with *e its errno and *what its words. */
static enum image_err
image_check(const unsigned char *m, off_t size, const uint8_t *pin,
    const uint8_t digest[32], int *e, const char **what)
{
	if (size < 2 || (m[0] == '#' && m[1] == '!') ||
	    (m[0] != 0x7f || size < 4 || memcmp(m, "\177ELF", 4) != 0)) {
		*e = ENOEXEC;
		*what = size >= 2 && m[0] == '#' && m[1] == '!' ?
		    "scripts (#!) cannot run from a sealed image; planenc "
		    "makes a #! PROGRAM's interpreter the program (encode "
		    "the plan with planenc)" : "not an ELF executable";
		return IMAGE_NOEXEC;
	}
	if (pin != NULL && memcmp(pin, digest, 32) != 0) {
		*e = 0;
		*what = "SHA-256 differs from the pinned digest";
		return IMAGE_MISMATCH;
	}
	return IMAGE_OK;
}

enum image_err
image_seal_cached(struct imgcache *c, const char *path, const uint8_t *pin,
    int *memfd, uint8_t digest[32], char *err, size_t errlen)
{
	struct stat st;
	enum image_err k = IMAGE_FAIL;
	const char *what = NULL;
	unsigned char *m = MAP_FAILED;
	int src = -1, mfd = -1, e = 0;

	*memfd = -1;
	if ((k = src_open(path, &src, &st, err, errlen)) != IMAGE_OK)
		return k;
	k = IMAGE_FAIL;
	if ((st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH)) == 0) {
		k = IMAGE_NOEXEC;
		e = EACCES;
		what = "no execute permission";
		goto out;
	}
	/* The cached immutable image when there is one (imgcache.c). */
	if (c != NULL && (mfd = imgcache_get(c, src, &st, path, pin,
	    digest, &what)) != -1) {
		close(src);
		*memfd = mfd;
		return IMAGE_OK;
	}
	if (c != NULL && (errno == ENOEXEC || errno == EBADMSG)) {
		k = errno == ENOEXEC ? IMAGE_NOEXEC : IMAGE_MISMATCH;
		e = errno == ENOEXEC ? ENOEXEC : 0;
		goto out;
	}
	mfd = memfd_new("borne-image", MFD_CLOEXEC | MFD_ALLOW_SEALING,
	    MFD_EXEC);
	if (mfd == -1) {
		e = errno;
		what = e == EACCES ? "an executable memfd is forbidden "
				     "(vm.memfd_noexec=2)" : "memfd_create";
		goto out;
	}
	/* The digest is the sealed copy's: the bytes that will execute. */
	if ((e = copy_sealed(src, mfd, st.st_size, &m, digest, &what)) != 0)
		goto out;
	k = image_check(m, st.st_size, pin, digest, &e, &what);
out:
	return seal_end(k, e, m, st.st_size, src, mfd, memfd, err, errlen,
	    path, what);
}

/* The script open at src: *st its status, a regular file of at most
 * SCRIPT_MAX bytes.  IMAGE_OK, or the failure with *e its errno and
 * *what its words. */
static enum image_err
script_stat(int src, struct stat *st, int *e, const char **what)
{
	if (fstat(src, st) == -1) {
		*e = errno;
		*what = "script: fstat";
		return IMAGE_FAIL;
	}
	if (!S_ISREG(st->st_mode)) {
		*e = EACCES;
		*what = "script: not a regular file";
		return IMAGE_NOEXEC;
	}
	if ((uint64_t)st->st_size > SCRIPT_MAX) {
		*e = EFBIG;
		*what = "script: larger than 64 MiB";
		return IMAGE_FAIL;
	}
	return IMAGE_OK;
}

enum image_err
script_seal(const char *path, const uint8_t pin[32], int *memfd,
    uint8_t digest[32], char *err, size_t errlen)
{
	enum image_err k = IMAGE_FAIL;
	unsigned char *m = MAP_FAILED;
	const char *what = NULL;
	int src = -1, mfd = -1, e = 0;
	struct stat st;
	char step[64];

	*memfd = -1;
	/* O_NONBLOCK: a FIFO there would block the open; it is refused by
	 * its type right after. */
	if ((src = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) == -1) {
		e = errno;
		return fail(e == ENOENT || e == ENOTDIR ? IMAGE_NOTFOUND :
		    IMAGE_FAIL, e, err, errlen, path, "script: open");
	}
	if ((k = script_stat(src, &st, &e, &what)) != IMAGE_OK)
		goto out;
	k = IMAGE_FAIL;
	mfd = memfd_new("borne-script", MFD_CLOEXEC | MFD_ALLOW_SEALING,
	    MFD_NOEXEC_SEAL);
	if (mfd == -1) {
		e = errno;
		what = "script: memfd_create";
		goto out;
	}
	/* The digest is the sealed copy's: the bytes the interpreter reads
	 * (what the file grew by meanwhile is not in it). */
	if ((e = copy_sealed(src, mfd, st.st_size, &m, digest, &what)) !=
	    0) {
		snprintf(step, sizeof(step), "script: %s", what);
		what = step;
		goto out;
	}
	if (memcmp(pin, digest, 32) != 0) {
		k = IMAGE_MISMATCH;
		e = 0;
		what = "script: SHA-256 differs from the pinned digest";
		goto out;
	}
	k = IMAGE_OK;
out:
	return seal_end(k, e, m, st.st_size, src, mfd, memfd, err, errlen,
	    path, what);
}

int
prompt_memfd(const unsigned char *buf, size_t len)
{
	size_t off = 0;
	ssize_t n;
	int fd;

	fd = memfd_new("borne-prompt", MFD_CLOEXEC | MFD_ALLOW_SEALING,
	    MFD_NOEXEC_SEAL);
	if (fd == -1)
		return -1;
	while (off < len) {
		n = write(fd, buf + off, len - off);
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0)
			goto fail;
		off += (size_t)n;
	}
	if (fcntl(fd, F_ADD_SEALS, SEALS) == -1 ||
	    lseek(fd, 0, SEEK_SET) == -1)
		goto fail;
	return fd;
fail:
	return close_errno(fd);
}
