/* SPDX-License-Identifier: ISC */
/* imgcache: content-addressed cache of sealed program images.
 *
 * Why.  The memfd seal copies (and with a pin hashes) the whole program on
 * every launch: 33 MB for gcc's cc1.  The seal's guarantee is that the
 * bytes that execute are the bytes admitted, and that no writer, inside or
 * outside the run, can change them between the check and the exec.  A file
 * gives the same guarantee when nobody can change it: FS_IMMUTABLE_FL
 * forbids write, truncate, chmod, rename, link and unlink to every process
 * without CAP_LINUX_IMMUTABLE, owner or not -- and the payload never has a
 * capability.  So each image is copied once, hashed once (the copy, never
 * the source), and executed from then on through an O_RDONLY fd of the
 * immutable copy (execveat AT_EMPTY_PATH): no byte read per launch.
 *
 * Layout: one flat directory, root:root 0700, checked with fstat on the
 * opened fd at every use.  Entries:
 *   NAME-<hex>  an image: the bytes whose SHA-256 is <hex>; NAME is the
 *               source's base name (cosmetic: ps, /proc/PID/exe); 0555 (a
 *               uid-switched payload must be able to execute it), never
 *               set-id, immutable, one link
 *   i-<id>      an index entry: <id> is the source's full identity
 *               (dev, ino, size, mtime.ns, ctime.ns) in hex; content the
 *               image's name and a newline; 0444, immutable, one link
 * Every entry is checked at every use: regular, uid 0, exact mode, one
 * link, immutable.  A file planted by a capability-less process (e.g. the
 * uid-0 payload of a plan that grants write access over the directory)
 * cannot be immutable and cannot be a link to an immutable file, and an
 * immutable file cannot be renamed: an entry that passes was written by
 * a capable process, i.e. by confexec.  The index is protected like the
 * images because a forged index entry would send one path to another
 * program's image.
 *
 * Filling: the source is copied under a read lease (F_SETLEASE F_RDLCK,
 * refused while anyone holds it open for writing; an open for writing or
 * a truncate by anyone else blocks until we release it), so the copy is a
 * complete version, not a torn mix; its identity is re-checked under the
 * lease.  The copy goes to an O_TMPFILE (no name, nobody else can open
 * it), is hashed from the temp file's own pages, checked (ELF, not #!,
 * pin), fsync'ed, linked under its digest and made immutable.  Only then
 * is it indexed, and only when the source's ctime is older than
 * IMGCACHE_RACY seconds: a write in the same timestamp tick as our stat
 * (coarse timestamps, 1-2 s on some filesystems) would otherwise leave the
 * identity unchanged and a stale entry (the same rule git uses for its
 * index).  ctime cannot be set from userspace, so any later change of the
 * source changes its identity and the next launch fills again.
 *
 * Hit: read the index entry for the source's identity, open the image it
 * names, check both.  No hash: the immutable file still holds the bytes
 * hashed when it was filled.  A pin is compared with that digest.  The
 * worst a stale index can do is serve an older version of the source
 * (only where a filesystem lies about inode times, e.g. FUSE): a version
 * that was admitted when filled, and that still has to match a pin.
 *
 * Executing a file (not a memfd) is seen by Landlock: execveat re-opens
 * the fd's path, so confexec adds one rule (execute, read_file) for that
 * one image to the payload's ruleset (imgcache_grant).  No rule covers the
 * directory: the payload cannot list it, nor create or rename anything in
 * it, unless its plan grants write access over it -- and then it can still
 * not alter an image or an index entry (FS_IMMUTABLE_FL; tested).  An
 * immutable file cannot be opened for writing by anyone, so execve never
 * meets ETXTBSY from a writer.
 *
 * Bound: IMGCACHE_MAX bytes on disk by default.  Filling evicts the least
 * recently used images (by atime: exec updates it, at relatime's once a
 * day granularity; by creation order on a noatime mount), and the index
 * entries naming them, under flock on
 * the directory; evicting clears the immutable flag (confexec is root
 * with CAP_LINUX_IMMUTABLE) and unlinks.  A process already holding an
 * evicted image's fd still executes the same bytes.
 *
 * Not fs-verity: it needs the verity feature on the filesystem (not set on
 * this host's ext4 by default), and a verity file's digest is a Merkle
 * root, not the plain SHA-256 a pin names; it would also leave the file
 * where its owner can unlink and replace it. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <linux/fs.h>

#include "hash.h"
#include "imgcache.h"
#include "io.h"
#include "uapi.h"

#define IMGCACHE_RACY 3		/* seconds: a ctime this recent is not indexed */
#define IMG_MODE 0555
#define IDX_MODE 0444
#define BASE_MAX 32		/* bytes of the source's name in an image's */
#define IMG_NAME_MAX (BASE_MAX + 1 + SHA256_HEX_LEN)
#define IDX_MAX (IMG_NAME_MAX + 1)	/* an index entry: a name, '\n' */
#define NAME_CHARS "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
	"0123456789._+-"
#define NAME_MAX_ID 160
#define OPEN_RO (O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY)

/* c->note = the message, then ": strerror(e)" when e > 0; -1, errno e
 * (EPERM when e is 0). */
static int note(struct imgcache *c, int e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int
note(struct imgcache *c, int e, const char *fmt, ...)
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

int
imgcache_open(struct imgcache *c, const char *dir, uint64_t max)
{
	struct statvfs vfs;
	struct stat st;
	char parent[4096], *slash;
	int fd, e;

	c->dirfd = -1;
	c->max = max != 0 ? max : IMGCACHE_MAX;
	c->note[0] = '\0';
	if (geteuid() != 0) {
		errno = EPERM;	/* documented: no cache without root, quietly */
		return -1;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd == -1 && errno == ENOENT && dir[0] == '/' &&
	    strlen(dir) < sizeof(parent)) {
		/* Its parents as root makes them (mkdir -p, 0755): a host
		 * without /var/cache gets one; the directory itself is then
		 * judged below like any other. */
		strcpy(parent, dir);
		for (slash = strchr(parent + 1, '/'); slash != NULL;
		     slash = strchr(slash + 1, '/')) {
			*slash = '\0';
			(void)mkdir(parent, 0755);
			*slash = '/';
		}
		if (mkdir(dir, 0700) == -1 && errno != EEXIST)
			return note(c, errno, "image cache %s", dir);
		fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	}
	if (fd == -1)
		return note(c, errno, "image cache %s", dir);
	if (fstat(fd, &st) == -1 || fstatvfs(fd, &vfs) == -1) {
		e = errno;
		close(fd);
		return note(c, e, "image cache %s", dir);
	}
	if (st.st_uid != 0 || st.st_gid != 0 || (st.st_mode & 07777) != 0700) {
		close(fd);
		return note(c, 0, "image cache %s: owner %u:%u mode %04o, not "
		    "root:root 0700", dir, (unsigned)st.st_uid,
		    (unsigned)st.st_gid, (unsigned)(st.st_mode & 07777));
	}
	if (vfs.f_flag & ST_NOEXEC) {
		close(fd);
		return note(c, 0, "image cache %s: its filesystem is mounted "
		    "noexec", dir);
	}
	c->dirfd = fd;
	return 0;
}

void
imgcache_close(struct imgcache *c)
{
	if (c->dirfd != -1)
		close(c->dirfd);
	c->dirfd = -1;
}

static void
id_name(char *name, size_t len, const struct stat *st)
{
	snprintf(name, len, "i-%jx-%jx-%jx-%jx.%lx-%jx.%lx",
	    (uintmax_t)st->st_dev, (uintmax_t)st->st_ino,
	    (uintmax_t)st->st_size, (uintmax_t)st->st_mtim.tv_sec,
	    (unsigned long)st->st_mtim.tv_nsec, (uintmax_t)st->st_ctim.tv_sec,
	    (unsigned long)st->st_ctim.tv_nsec);
}

static int
same_id(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino &&
	    a->st_size == b->st_size &&
	    a->st_mtim.tv_sec == b->st_mtim.tv_sec &&
	    a->st_mtim.tv_nsec == b->st_mtim.tv_nsec &&
	    a->st_ctim.tv_sec == b->st_ctim.tv_sec &&
	    a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* An image's name: the source's base name (bytes outside NAME_CHARS as
 * '_', a leading '.' as '_', at most BASE_MAX bytes), '-', the digest in
 * hex.  The name shows in /proc/PID/exe and, from Linux 6.14, in the
 * payload's comm; only the digest in it means anything here. */
static void
img_name(char out[IMG_NAME_MAX + 1], const char *path, const uint8_t d[32])
{
	const char *b = strrchr(path, '/');
	char hex[SHA256_HEX_LEN + 1];
	size_t i;

	b = b != NULL ? b + 1 : path;
	for (i = 0; i < BASE_MAX && b[i] != '\0'; i++)
		out[i] = strchr(NAME_CHARS, b[i]) != NULL && b[i] != '\0' &&
		    (i > 0 || b[i] != '.') ? b[i] : '_';
	sha256_hex(d, hex);
	snprintf(out + i, IMG_NAME_MAX + 1 - i, "-%s", hex);
}

/* The digest an image's name ends with; 0, or -1 when the name is not one
 * img_name makes. */
static int
img_digest(const char *name, uint8_t d[32])
{
	size_t len = strlen(name), base;

	if (len < SHA256_HEX_LEN + 2 || len > IMG_NAME_MAX)
		return -1;
	base = len - SHA256_HEX_LEN - 1;
	if (name[0] == '.' || name[base] != '-' ||
	    strspn(name, NAME_CHARS) != len ||
	    strspn(name + base + 1, "0123456789abcdef") != SHA256_HEX_LEN)
		return -1;
	return sha256_unhex(name + base + 1, SHA256_HEX_LEN, d);
}

/* An entry as confexec leaves it: regular, root's, exactly mode, one link,
 * size when size >= 0, immutable.  0, or -1 with errno ENOENT. */
static int
entry_ok(int fd, mode_t mode, off_t size, struct stat *out)
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

/* Open the image called name and check it; fd or -1 (ENOENT). */
static int
image_open(struct imgcache *c, const char *name, off_t size)
{
	int fd;

	fd = openat(c->dirfd, name, OPEN_RO);
	if (fd == -1) {
		errno = ENOENT;
		return -1;
	}
	if (entry_ok(fd, IMG_MODE, size, NULL) == -1) {
		close(fd);
		errno = ENOENT;
		return -1;
	}
	return fd;
}

int
imgcache_lookup(struct imgcache *c, const struct stat *st,
    uint8_t digest[32])
{
	char name[NAME_MAX_ID], img[IDX_MAX + 1];
	struct stat is;
	ssize_t n = -1;
	int fd, ok;

	if (c->dirfd == -1) {
		errno = ENOENT;
		return -1;
	}
	id_name(name, sizeof(name), st);
	fd = openat(c->dirfd, name, OPEN_RO);
	if (fd == -1) {
		errno = ENOENT;
		return -1;
	}
	ok = entry_ok(fd, IDX_MODE, -1, &is) == 0 && is.st_size <= IDX_MAX &&
	    (n = pread(fd, img, (size_t)is.st_size, 0)) == is.st_size &&
	    n > 0 && img[n - 1] == '\n';
	close(fd);
	if (ok) {
		img[n - 1] = '\0';
		ok = img_digest(img, digest) == 0;
	}
	if (!ok) {
		errno = ENOENT;
		return -1;
	}
	return image_open(c, img, st->st_size);
}

/* Make fd (linked as name) immutable; on failure unlink name and say why
 * in the note. */
static int
seal_entry(struct imgcache *c, int fd, const char *name)
{
	int fl = 0, e;

	if (ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0) {
		fl |= FS_IMMUTABLE_FL;
		if (ioctl(fd, FS_IOC_SETFLAGS, &fl) == 0)
			return 0;
	}
	e = errno;
	(void)unlinkat(c->dirfd, name, 0);
	if (e == EPERM)
		return note(c, e, "image cache: the immutable flag needs "
		    "CAP_LINUX_IMMUTABLE");
	return note(c, e, "image cache: its filesystem has no immutable "
	    "flag");
}

/* Remove an entry: clear its immutable flag, unlink it. */
static void
drop(int dirfd, const char *name)
{
	int fd, fl = 0;

	fd = openat(dirfd, name, OPEN_RO);
	if (fd != -1) {
		if (ioctl(fd, FS_IOC_GETFLAGS, &fl) == 0 &&
		    (fl & FS_IMMUTABLE_FL)) {
			fl &= ~FS_IMMUTABLE_FL;
			(void)ioctl(fd, FS_IOC_SETFLAGS, &fl);
		}
		close(fd);
	}
	(void)unlinkat(dirfd, name, 0);
}

/* Link the O_TMPFILE fd as name, replacing an entry that is not valid
 * (never a valid one: those cannot be renamed over).  0, 1 when a valid
 * entry of that name already exists, or -1 with errno. */
static int
link_entry(struct imgcache *c, int fd, const char *name, mode_t mode,
    off_t size)
{
	int i, old;

	for (i = 0; i < 2; i++) {
		if (linkat(fd, "", c->dirfd, name, AT_EMPTY_PATH) == 0)
			return 0;
		if (errno != EEXIST)
			return note(c, errno, "image cache: link");
		old = openat(c->dirfd, name, OPEN_RO);
		if (old != -1 && entry_ok(old, mode, size, NULL) == 0) {
			close(old);
			return 1;
		}
		if (old != -1)
			close(old);
		drop(c->dirfd, name);
	}
	errno = EEXIST;
	return -1;
}

/* A new index entry holding exactly len bytes of buf, linked as name and
 * made immutable; 0 or -1. */
static int
index_add(struct imgcache *c, const char *name, const char *buf, size_t len)
{
	char back[IDX_MAX];
	int fd, r;

	fd = openat(c->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, IDX_MODE);
	if (fd == -1)
		return -1;
	if (fchmod(fd, IDX_MODE) == -1 || write_all(fd, buf, len) == -1 ||
	    fsync(fd) == -1 ||
	    (r = link_entry(c, fd, name, IDX_MODE, (off_t)len)) == -1) {
		close(fd);
		return -1;
	}
	if (r == 0 && seal_entry(c, fd, name) == -1) {
		close(fd);
		return -1;
	}
	/* What the name holds now, once immutable, is what we wrote. */
	if (r == 0 && (pread(fd, back, len, 0) != (ssize_t)len ||
	    memcmp(back, buf, len) != 0)) {
		drop(c->dirfd, name);
		close(fd);
		errno = EIO;
		return -1;
	}
	close(fd);
	return 0;
}

/* Copy src into the O_TMPFILE tmp under a read lease; 0 or -1 (EAGAIN when
 * a writer holds or opened it, or its identity moved). */
static int
copy_leased(int src, const struct stat *st, int tmp)
{
	struct sigaction ign, old;
	struct stat now;
	off_t off = 0;
	ssize_t n;
	int e = 0;

	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	/* A lease break is signalled (SIGIO, fatal by default) to the lease
	 * owner: ignored while we take it, then no owner at all. */
	if (sigaction(SIGIO, &ign, &old) == -1)
		return -1;
	if (fcntl(src, F_SETLEASE, F_RDLCK) == -1) {
		e = errno == EAGAIN ? EAGAIN : errno;
		goto out;
	}
	(void)fcntl(src, F_SETOWN, 0);
	if (fstat(src, &now) == -1 || !same_id(st, &now)) {
		e = EAGAIN;
		goto unlock;
	}
	while (off < st->st_size) {
		n = sendfile(tmp, src, &off, (size_t)(st->st_size - off));
		if (n == -1 && errno == EINTR)
			continue;
		if (n <= 0) {
			e = n == 0 ? EAGAIN : errno;
			goto unlock;
		}
	}
	/* The lease was never broken (a writer would block on it), and the
	 * identity has not moved: the copy is one complete version. */
	if (fstat(src, &now) == -1 || !same_id(st, &now) ||
	    fcntl(src, F_GETLEASE) != F_RDLCK)
		e = EAGAIN;
unlock:
	(void)fcntl(src, F_SETLEASE, F_UNLCK);
out:
	(void)sigaction(SIGIO, &old, NULL);
	errno = e;
	return e != 0 ? -1 : 0;
}

/* Hash the temp file's own pages and check them. */
static int
check_copy(int tmp, off_t size, const uint8_t *pin, uint8_t digest[32],
    const char **what)
{
	unsigned char *m;

	if (size < 4) {
		*what = "not an ELF executable";
		errno = ENOEXEC;
		return -1;
	}
	m = mmap(NULL, (size_t)size, PROT_READ, MAP_SHARED, tmp, 0);
	if (m == MAP_FAILED)
		return -1;
	sha256_buf(m, (size_t)size, digest);
	if (m[0] == '#' && m[1] == '!') {
		*what = "scripts (#!) cannot run from a sealed image; name the "
			"interpreter as the program";
		errno = ENOEXEC;
	} else if (memcmp(m, "\177ELF", 4) != 0) {
		*what = "not an ELF executable";
		errno = ENOEXEC;
	} else if (pin != NULL && memcmp(pin, digest, 32) != 0) {
		*what = "SHA-256 differs from the pinned digest";
		errno = EBADMSG;
	} else {
		munmap(m, (size_t)size);
		return 0;
	}
	munmap(m, (size_t)size);
	return -1;
}

struct ent {
	struct timespec atime;
	uint64_t bytes;
	int image;		/* 1: an image (or a stray), 0: an index entry */
	char name[NAME_MAX_ID];
};

static int
by_atime(const void *a, const void *b)
{
	const struct ent *x = a, *y = b;

	if (x->atime.tv_sec != y->atime.tv_sec)
		return x->atime.tv_sec < y->atime.tv_sec ? -1 : 1;
	if (x->atime.tv_nsec != y->atime.tv_nsec)
		return x->atime.tv_nsec < y->atime.tv_nsec ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* The directory's entries (images, index entries, strays) and *total
 * their bytes on disk.  Returns the count, or -1. */
static ssize_t
list(int dirfd, struct ent **out, uint64_t *total)
{
	struct dirent *d;
	struct ent *v = NULL, *nv;
	struct stat st;
	size_t n = 0, cap = 0;
	uint8_t dg[32];
	DIR *dp;
	int fd, image;

	*total = 0;
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1 || (dp = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return -1;
	}
	while ((d = readdir(dp)) != NULL) {
		/* A name neither kind has (another version's, or planted)
		 * counts and goes like an image. */
		image = img_digest(d->d_name, dg) == 0 ||
		    strncmp(d->d_name, "i-", 2) != 0;
		if (d->d_name[0] == '.' || strlen(d->d_name) >= NAME_MAX_ID ||
		    fstatat(dirfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (nv == NULL)
				break;
			v = nv;
		}
		v[n].atime = st.st_atim;
		v[n].bytes = (uint64_t)st.st_blocks * 512;
		v[n].image = image;
		strcpy(v[n].name, d->d_name);
		*total += v[n].bytes;
		n++;
	}
	closedir(dp);
	*out = v;
	return (ssize_t)n;
}

/* Index entries whose image is gone are dropped. */
static void
drop_dangling(int dirfd, struct ent *v, size_t n)
{
	char img[IDX_MAX + 1];
	ssize_t r;
	size_t i;
	int fd;

	for (i = 0; i < n; i++) {
		if (v[i].image)
			continue;
		fd = openat(dirfd, v[i].name, OPEN_RO);
		if (fd == -1)
			continue;
		r = pread(fd, img, IDX_MAX, 0);
		close(fd);
		if (r < 2 || img[r - 1] != '\n')
			continue;
		img[r - 1] = '\0';
		if (faccessat(dirfd, img, F_OK, AT_SYMLINK_NOFOLLOW) == -1 &&
		    errno == ENOENT)
			drop(dirfd, v[i].name);
	}
}

/* Least recently used images beyond the bound go (never keep), and the
 * index entries that named them. */
static void
evict(struct imgcache *c, const char *keep)
{
	struct ent *v = NULL;
	uint64_t total;
	ssize_t n, i;
	int any = 0;

	if (flock(c->dirfd, LOCK_EX | LOCK_NB) == -1)
		return;		/* another launch is evicting */
	n = list(c->dirfd, &v, &total);
	if (n > 0 && total > c->max) {
		qsort(v, (size_t)n, sizeof(*v), by_atime);
		for (i = 0; i < n && total > c->max; i++) {
			if (!v[i].image || strcmp(v[i].name, keep) == 0)
				continue;
			drop(c->dirfd, v[i].name);
			total -= v[i].bytes;
			v[i].name[0] = '-';
			any = 1;
		}
		if (any)
			drop_dangling(c->dirfd, v, (size_t)n);
	}
	free(v);
	(void)flock(c->dirfd, LOCK_UN);
}

int
imgcache_fill(struct imgcache *c, int src, const struct stat *st,
    const char *path, const uint8_t *pin, uint8_t digest[32],
    const char **what)
{
	char img[IDX_MAX + 1], name[NAME_MAX_ID];
	struct timespec now;
	size_t n;
	int tmp, fd, r, e;

	*what = NULL;
	if (c->dirfd == -1) {
		errno = ENOENT;
		return -1;
	}
	if ((uint64_t)st->st_size > c->max / 2) {
		errno = EFBIG;	/* documented: too large to cache */
		return -1;
	}
	clock_gettime(CLOCK_REALTIME, &now);
	tmp = openat(c->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, IMG_MODE);
	if (tmp == -1)
		return note(c, errno, "image cache: cannot add an image");
	if (fchmod(tmp, IMG_MODE) == -1 || copy_leased(src, st, tmp) == -1 ||
	    check_copy(tmp, st->st_size, pin, digest, what) == -1 ||
	    fsync(tmp) == -1)
		goto fail;
	img_name(img, path, digest);
	r = link_entry(c, tmp, img, IMG_MODE, st->st_size);
	if (r == -1 || (r == 0 && seal_entry(c, tmp, img) == -1))
		goto fail;
	close(tmp);
	tmp = -1;
	fd = image_open(c, img, st->st_size);
	if (fd == -1)
		goto fail;
	/* Indexed only when a later write cannot hide in the same tick. */
	if (st->st_ctim.tv_sec + IMGCACHE_RACY < now.tv_sec) {
		id_name(name, sizeof(name), st);
		n = strlen(img);
		img[n] = '\n';
		(void)index_add(c, name, img, n + 1);
		img[n] = '\0';
	}
	evict(c, img);
	return fd;
fail:
	e = errno;
	if (tmp != -1)
		close(tmp);
	errno = e;
	return -1;
}

int
imgcache_get(struct imgcache *c, int src, const struct stat *st,
    const char *path, const uint8_t *pin, uint8_t digest[32],
    const char **what)
{
	int fd;

	*what = NULL;
	if (c->dirfd == -1) {
		errno = ENOENT;
		return -1;
	}
	fd = imgcache_lookup(c, st, digest);
	if (fd == -1)
		return imgcache_fill(c, src, st, path, pin, digest, what);
	if (pin != NULL && memcmp(pin, digest, 32) != 0) {
		close(fd);
		*what = "SHA-256 differs from the pinned digest";
		errno = EBADMSG;
		return -1;
	}
	return fd;
}

int
imgcache_grant(int rfd, int fd)
{
	struct landlock_path_beneath_attr pb;

	memset(&pb, 0, sizeof(pb));
	pb.parent_fd = fd;
	pb.allowed_access = LANDLOCK_ACCESS_FS_EXECUTE |
	    LANDLOCK_ACCESS_FS_READ_FILE;
	return (int)syscall(__NR_landlock_add_rule, rfd,
	    LANDLOCK_RULE_PATH_BENEATH, &pb, 0);
}

int
imgcache_is_file(int fd)
{
	struct stat st;

	if (fstat(fd, &st) == -1)
		return -1;
	return S_ISREG(st.st_mode) && st.st_nlink > 0;
}
