/* SPDX-License-Identifier: ISC */
/* imgcache_store: the cache's entries (imgcache_store.h). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/fs.h>

#include "hash.h"
#include "imgcache_store.h"
#include "io.h"

int
imgcache_store_note(struct imgcache *c, int e, const char *fmt, ...)
{
	char m[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(m, sizeof(m), fmt, ap);
	va_end(ap);
	if (e > 0)
		snprintf(c->note, sizeof(c->note), "%s: %s", m, strerror(e));
	else
		snprintf(c->note, sizeof(c->note), "%s", m);
	errno = e > 0 ? e : EPERM;
	return -1;
}

void
imgcache_store_src_id(char out[ID_MAX], const struct stat *st)
{
	snprintf(out, ID_MAX, "%jx-%jx-%jx-%jx.%lx-%jx.%lx",
	    (uintmax_t)st->st_dev, (uintmax_t)st->st_ino,
	    (uintmax_t)st->st_size, (uintmax_t)st->st_mtim.tv_sec,
	    (unsigned long)st->st_mtim.tv_nsec, (uintmax_t)st->st_ctim.tv_sec,
	    (unsigned long)st->st_ctim.tv_nsec);
}

/* An image's identity: the inode and its change and modification times
 * (any change of its flags, mode or bytes moves the ctime). */
static void
img_id(char out[ID_MAX], const struct stat *st)
{
	snprintf(out, ID_MAX, "%jx-%jx.%lx-%jx.%lx", (uintmax_t)st->st_ino,
	    (uintmax_t)st->st_ctim.tv_sec, (unsigned long)st->st_ctim.tv_nsec,
	    (uintmax_t)st->st_mtim.tv_sec, (unsigned long)st->st_mtim.tv_nsec);
}

void
imgcache_store_idx_name(char out[IDX_NAME_LEN + 1], const char *path)
{
	uint8_t d[SHA256_LEN];

	sha256_buf(path, strlen(path), d);
	out[0] = 'i';
	out[1] = '-';
	sha256_hex(d, out + 2);
}

int
imgcache_store_digest(const char *name, uint8_t d[32])
{
	if (strlen(name) != SHA256_HEX_LEN ||
	    strspn(name, "0123456789abcdef") != SHA256_HEX_LEN)
		return -1;
	return sha256_unhex(name, SHA256_HEX_LEN, d);
}

int
imgcache_store_entry_ok(int fd, mode_t mode, off_t size, struct stat *out)
{
	struct stat st;
	int fl = 0;

	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode) || st.st_uid != 0 ||
	    (st.st_mode & 07777) != mode || st.st_nlink != 1 ||
	    (size >= 0 && st.st_size != size) ||
	    ioctl(fd, FS_IOC_GETFLAGS, &fl) == -1 ||
	    (fl & FS_IMMUTABLE_FL) == 0) {
		errno = ENOENT;
		return -1;
	}
	if (out != NULL)
		*out = st;
	return 0;
}

/* Set or clear FS_IMMUTABLE_FL on fd; 0 or -1 with errno. */
static int
set_immutable(int fd, int on)
{
	int fl = 0;

	if (ioctl(fd, FS_IOC_GETFLAGS, &fl) == -1)
		return -1;
	if (on)
		fl |= FS_IMMUTABLE_FL;
	else
		fl &= ~FS_IMMUTABLE_FL;
	return ioctl(fd, FS_IOC_SETFLAGS, &fl);
}

int
imgcache_store_lease(int fd, int t)
{
	struct sigaction ign, old;
	int r, e;

	/* A break before F_SETOWN signals us (SIGIO, fatal by default). */
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	if (sigaction(SIGIO, &ign, &old) == -1)
		return -1;
	r = fcntl(fd, F_SETLEASE, t);
	e = errno;
	if (r != -1)
		(void)fcntl(fd, F_SETOWN, 0);
	(void)sigaction(SIGIO, &old, NULL);
	errno = e;
	return r == -1 ? -1 : 0;
}

int
imgcache_store_hash(int fd, off_t size, uint8_t d[32])
{
	void *m;
	int fl;

	fl = fcntl(fd, F_GETFL);
	if (fl == -1 || fcntl(fd, F_SETFL, fl | O_NOATIME) == -1)
		return -1;

	if (size == 0) {
		sha256_buf(NULL, 0, d);
		return 0;
	}
	m = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, fd, 0);
	if (m == MAP_FAILED)
		return -1;
	sha256_buf(m, (size_t)size, d);
	munmap(m, (size_t)size);
	return 0;
}

int
imgcache_store_open(struct imgcache *c, const char *name, off_t size,
    const char *id, struct stat *st)
{
	char now[ID_MAX];
	int fd;

	fd = openat(c->dirfd, name, OPEN_RO);
	if (fd == -1) {
		errno = ENOENT;
		return -1;
	}
	if (imgcache_store_entry_ok(fd, IMG_MODE, size, st) == -1)
		goto bad;
	img_id(now, st);
	if ((id != NULL && strcmp(now, id) != 0) ||
	    imgcache_store_lease(fd, F_RDLCK) == -1)
		goto bad;
	return fd;
bad:
	close(fd);
	errno = ENOENT;
	return -1;
}

void
imgcache_store_drop(int dirfd, const char *name)
{
	int fd, fl = 0;

	fd = openat(dirfd, name, OPEN_RO);
	if (fd != -1) {
		if (ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0 &&
		    (fl & FS_IMMUTABLE_FL))
			(void)set_immutable(fd, 0);
		close(fd);
	}
	(void)unlinkat(dirfd, name, 0);
}

/* Whether name in the directory is the inode fd is. */
static int
is_ours(struct imgcache *c, int fd, const char *name)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 &&
	    fstatat(c->dirfd, name, &b, AT_SYMLINK_NOFOLLOW) == 0 &&
	    a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int
imgcache_store_publish(struct imgcache *c, int tmp, const char *name,
    mode_t mode, off_t size, const uint8_t want[32])
{
	uint8_t got[32];
	int e;

	if (imgcache_store_lease(tmp, F_WRLCK) == -1)
		return imgcache_store_note(c, errno, "image cache: no lease on "
		    "a new entry");
	if (linkat(tmp, "", c->dirfd, name, AT_EMPTY_PATH) == -1) {
		e = errno;
		(void)fcntl(tmp, F_SETLEASE, F_UNLCK);
		if (e == EEXIST)
			return 1;
		return imgcache_store_note(c, e, "image cache: link");
	}
	if (set_immutable(tmp, 1) == -1) {
		e = errno;
		if (is_ours(c, tmp, name))
			(void)unlinkat(c->dirfd, name, 0);
		(void)fcntl(tmp, F_SETLEASE, F_UNLCK);
		if (e == EPERM)
			return imgcache_store_note(c, e, "image cache: the "
			    "immutable flag "
			    "needs CAP_LINUX_IMMUTABLE");
		return imgcache_store_note(c, e, "image cache: its "
		    "filesystem has no "
		    "immutable flag");
	}
	if (!is_ours(c, tmp, name) ||
	    imgcache_store_entry_ok(tmp, mode, size, NULL) == -1 ||
	    imgcache_store_hash(tmp, size, got) == -1 ||
	    memcmp(got, want, 32) != 0 ||
	    fcntl(tmp, F_GETLEASE) != F_WRLCK) {
		(void)set_immutable(tmp, 0);
		if (is_ours(c, tmp, name))
			(void)unlinkat(c->dirfd, name, 0);
		(void)fcntl(tmp, F_SETLEASE, F_UNLCK);
		return imgcache_store_note(c, EAGAIN, "image cache: a new "
		    "entry was opened "
		    "or changed before it was sealed, not used");
	}
	(void)fcntl(tmp, F_SETLEASE, F_UNLCK);
	return 0;
}

int
imgcache_store_idx_parse(char *buf, size_t len, char **sid, char **img,
    char **iid, char **path)
{
	char *sp1, *sp2, *nl;

	if (len < 2 || buf[len - 1] != '\n')
		return -1;
	buf[len - 1] = '\0';
	nl = strchr(buf, '\n');
	sp1 = strchr(buf, ' ');
	sp2 = sp1 != NULL ? strchr(sp1 + 1, ' ') : NULL;
	if (nl == NULL || sp1 == NULL || sp2 == NULL || sp2 > nl ||
	    sp2 - sp1 - 1 != SHA256_HEX_LEN || strchr(nl + 1, '\n') != NULL)
		return -1;
	*sp1 = *sp2 = *nl = '\0';
	*sid = buf;
	*img = sp1 + 1;
	*iid = sp2 + 1;
	*path = nl + 1;
	return 0;
}

ssize_t
imgcache_store_idx_read(int dirfd, const char *name, char buf[IDX_MAX + 1])
{
	struct stat st;
	ssize_t n = -1;
	int fd, ok;

	fd = openat(dirfd, name, OPEN_RO);
	if (fd == -1) {
		errno = ENOENT;
		return -1;
	}
	ok = imgcache_store_entry_ok(fd, IDX_MODE, -1, &st) == 0 &&
	    st.st_size <= IDX_MAX &&
	    (n = pread(fd, buf, (size_t)st.st_size, 0)) == st.st_size;
	close(fd);
	if (!ok) {
		errno = ENOENT;
		return -1;
	}
	buf[n] = '\0';
	return n;
}

int
imgcache_store_index(struct imgcache *c, const char *path,
    const struct stat *st, const char *hex, const struct stat *img)
{
	char name[IDX_NAME_LEN + 1], buf[IDX_MAX + 1], old[IDX_MAX + 1];
	char sid[ID_MAX], iid[ID_MAX];
	uint8_t want[32];
	ssize_t on;
	int fd, r = 1, tries, len;

	if (strlen(path) > PATH_MAX_IDX || strchr(path, '\n') != NULL)
		return 0;	/* not indexed: every launch fills */
	imgcache_store_src_id(sid, st);
	img_id(iid, img);
	len = snprintf(buf, sizeof(buf), "%s %s %s\n%s\n", sid, hex, iid,
	    path);
	if (len < 0 || len >= (int)sizeof(buf))
		return 0;
	sha256_buf(buf, (size_t)len, want);
	imgcache_store_idx_name(name, path);
	fd = openat(c->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, IDX_MODE);
	if (fd == -1)
		return -1;
	if (fchmod(fd, IDX_MODE) == -1 ||
	    write_all(fd, buf, (size_t)len) == -1 || fsync(fd) == -1) {
		close(fd);
		return -1;
	}
	for (tries = 0; tries < 3; tries++) {
		r = imgcache_store_publish(c, fd, name, IDX_MODE, (off_t)len,
		    want);
		if (r != 1)
			break;
		/* Another launch's entry: kept when it says the same. */
		on = imgcache_store_idx_read(c->dirfd, name, old);
		if (on == len && memcmp(old, buf, (size_t)len) == 0) {
			r = 0;
			break;
		}
		imgcache_store_drop(c->dirfd, name);
	}
	close(fd);
	return r == 0 ? 0 : -1;
}
