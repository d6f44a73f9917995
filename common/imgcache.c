/* SPDX-License-Identifier: ISC */
/* imgcache: content-addressed cache of sealed program images.
 *
 * Why.  The memfd seal copies (and with a pin hashes) the whole program on
 * every launch: 33 MB for gcc's cc1.  The seal's guarantee is that the
 * bytes that execute are the bytes admitted, and that no writer, inside or
 * outside the run, can change them between the check and the exec.  A file
 * gives the same guarantee when nobody can change it: FS_IMMUTABLE_FL
 * forbids opening for writing, truncate, chmod, rename, link and unlink to
 * every process without CAP_LINUX_IMMUTABLE, owner or not -- and the
 * payload never has a capability.  So each distinct content is copied
 * once, hashed once it is sealed, and executed from then on through an
 * O_RDONLY fd of the immutable copy (execveat AT_EMPTY_PATH).
 *
 * Layout: one flat directory, root:root 0700, checked with fstat on the
 * opened fd at every use.  Entries:
 *   <hex>       an image: the bytes whose SHA-256 is <hex> (64 digits),
 *               one per distinct content whatever the names it is
 *               launched by; 0555 (a uid-switched payload must be able to
 *               execute it), never set-id, immutable, one link
 *   i-<hex>     an index entry: <hex> is the SHA-256 of a source path;
 *               content "SRCID IMG IMGID\nPATH\n": the source's identity
 *               (dev, ino, size, mtime.ns, ctime.ns), the image's digest,
 *               the image's identity when its bytes were hashed (ino,
 *               ctime.ns, mtime.ns), the path; 0444, immutable, one link
 * Every entry is checked at every use: regular, uid 0, exact mode, one
 * link, immutable.  A file planted by a capability-less process cannot be
 * immutable and cannot be a link to an immutable file, and an immutable
 * file cannot be renamed: an entry that passes was sealed by confexec.
 *
 * Named only once sealed.  The kernel refuses a link to an immutable
 * file (vfs_link: EPERM), O_TMPFILE's included, so an entry must have its
 * name before its flag.  The window between the two is closed by a write
 * lease (F_SETLEASE F_WRLCK) taken on the unnamed O_TMPFILE, where nobody
 * else can hold it open: any open(2) or truncate(2) of the inode by anyone
 * breaks the lease, and that open does not return before we let go.  So:
 * fill the O_TMPFILE, take the lease, link it, set FS_IMMUTABLE_FL, then
 * check that the name still is that inode with the mode and the one link
 * it was given, that its bytes hash (after sealing) to what it is named
 * by, and that the lease was never broken: nobody opened it while it had
 * a name and no flag.  Otherwise the entry is unsealed and unlinked, and
 * this launch seals a private memfd.  (Needed where the flag does not
 * stop writers that opened before it was set: tmpfs lets them write on.)
 *
 * Using an image: open it, check it, and take a read lease on the fd
 * (F_RDLCK, refused while anyone holds the inode open for writing), held
 * until that fd is closed, i.e. past the payload's execve.  A writer that
 * appears after the check (only possible if the flag is cleared: eviction
 * by another confexec) blocks in open(2) on the lease with its write
 * access already counted, and the payload's execve then fails with
 * ETXTBSY: the run fails, it never executes changed bytes.  The image's
 * identity (ino, ctime, mtime) must also be the one the index recorded
 * when its bytes were hashed: changing a file's flags, mode or bytes
 * changes its ctime, which userspace cannot set.  A hit reads no byte:
 * the digest is the one verified when the entry was sealed (hashing cc1
 * again on every launch costs 70 ms; its launch costs 58).
 *
 * Filling: the source is copied under a read lease (F_SETLEASE F_RDLCK,
 * refused while anyone holds it open for writing; an open for writing or
 * a truncate by anyone else blocks until we release it), so the copy is a
 * complete version, not a torn mix; its identity is re-checked under the
 * lease.  The copy goes to an O_TMPFILE, is hashed from its own pages and
 * checked (ELF, not #!, pin).  An image of that digest already there is
 * used instead once its bytes hash to it; otherwise the copy is sealed
 * and named as above.  The source's path is indexed only when its ctime
 * is older than IMGCACHE_RACY seconds: a write in the same timestamp tick
 * as our stat (coarse timestamps) would otherwise leave the identity
 * unchanged and a stale entry (the rule git uses for its index).
 *
 * Bound, under flock on .lock (LOCK_NB: another launch is at it; a mode
 * 0000 immutable file no capability-less process can open), after each
 * fill: index entries whose path no longer names the version
 * they record (deleted, replaced, rewritten) go; images no index entry
 * names, older than IMGCACHE_GRACE seconds (a concurrent fill names its
 * own within that; c->grace), go; then the least recently used images (by atime:
 * exec updates it, at relatime's once a day granularity) beyond
 * IMGCACHE_MAX bytes, and the index entries naming them.  Removing clears
 * the flag (confexec has CAP_LINUX_IMMUTABLE) and unlinks.  A process
 * already holding a removed image's fd still executes the same bytes.
 *
 * Executing a file (not a memfd) is seen by Landlock: execveat re-opens
 * the fd's path, so confexec adds one rule (execute, read_file) for that
 * one image to the payload's ruleset (imgcache_grant).  No rule covers the
 * directory; a plan that grants write access over it lets the payload
 * add files and open entries (every fill it races then seals a private
 * copy instead), never change an entry (tested).
 *
 * Not fs-verity: it needs the verity feature on the filesystem (not set on
 * this host's ext4 by default), and a verity file's digest is a Merkle
 * root, not the plain SHA-256 a pin names. */
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
#define IDX_NAME_LEN (2 + SHA256_HEX_LEN)
#define ID_MAX 128		/* a source's or an image's identity, text */
#define PATH_MAX_IDX 4096	/* a longer path is not indexed */
#define IDX_MAX (2 * ID_MAX + SHA256_HEX_LEN + PATH_MAX_IDX + 4)
#define NAME_MAX_ENT 256
#define LOCK_NAME ".lock"
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
	c->grace = IMGCACHE_GRACE;
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

/* A source's identity: what changes with any change of its bytes. */
static void
src_id(char out[ID_MAX], const struct stat *st)
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

/* The index entry's name for path: "i-" and the SHA-256 of the path. */
static void
idx_name(char out[IDX_NAME_LEN + 1], const char *path)
{
	uint8_t d[SHA256_LEN];

	sha256_buf(path, strlen(path), d);
	out[0] = 'i';
	out[1] = '-';
	sha256_hex(d, out + 2);
}

/* Whether name is an image's (64 lower-case hex digits); its digest. */
static int
img_digest(const char *name, uint8_t d[32])
{
	if (strlen(name) != SHA256_HEX_LEN ||
	    strspn(name, "0123456789abcdef") != SHA256_HEX_LEN)
		return -1;
	return sha256_unhex(name, SHA256_HEX_LEN, d);
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

/* A lease of type t on fd, its owner cleared: a break signals nobody (a
 * broken lease is seen with F_GETLEASE, never by a signal). */
static int
lease(int fd, int t)
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

/* The SHA-256 of the size bytes of fd, read from its own pages, without
 * touching its atime (relatime would not update it again for a day: the
 * bound evicts by atime). */
static int
hash_fd(int fd, off_t size, uint8_t d[32])
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

/* Open the image called name and check it (entry_ok, its identity equal
 * to id when id is not NULL), then take a read lease on the fd: refused
 * while anyone holds the image open for writing, and held until the fd is
 * closed.  The fd, or -1 with errno ENOENT; *st its status. */
static int
image_open(struct imgcache *c, const char *name, off_t size, const char *id,
    struct stat *st)
{
	char now[ID_MAX];
	int fd;

	fd = openat(c->dirfd, name, OPEN_RO);
	if (fd == -1) {
		errno = ENOENT;
		return -1;
	}
	if (entry_ok(fd, IMG_MODE, size, st) == -1)
		goto bad;
	img_id(now, st);
	if ((id != NULL && strcmp(now, id) != 0) || lease(fd, F_RDLCK) == -1)
		goto bad;
	return fd;
bad:
	close(fd);
	errno = ENOENT;
	return -1;
}

/* Remove an entry: clear its immutable flag, unlink it. */
static void
drop(int dirfd, const char *name)
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

/* Name the O_TMPFILE tmp (O_RDWR, size bytes whose SHA-256 is want) as
 * name, sealed: under a write lease, linked, made immutable, then checked
 * (the name is still tmp's inode, root's, mode, one link; its sealed
 * bytes hash to want; the lease never broken).  0; 1 when name exists
 * (nothing done); -1 with errno and the note (EAGAIN: the new entry was
 * opened or changed before it was sealed, and is gone). */
static int
publish(struct imgcache *c, int tmp, const char *name, mode_t mode,
    off_t size, const uint8_t want[32])
{
	uint8_t got[32];
	int e;

	if (lease(tmp, F_WRLCK) == -1)
		return note(c, errno, "image cache: no lease on a new entry");
	if (linkat(tmp, "", c->dirfd, name, AT_EMPTY_PATH) == -1) {
		e = errno;
		(void)fcntl(tmp, F_SETLEASE, F_UNLCK);
		if (e == EEXIST)
			return 1;
		return note(c, e, "image cache: link");
	}
	if (set_immutable(tmp, 1) == -1) {
		e = errno;
		if (is_ours(c, tmp, name))
			(void)unlinkat(c->dirfd, name, 0);
		(void)fcntl(tmp, F_SETLEASE, F_UNLCK);
		if (e == EPERM)
			return note(c, e, "image cache: the immutable flag "
			    "needs CAP_LINUX_IMMUTABLE");
		return note(c, e, "image cache: its filesystem has no "
		    "immutable flag");
	}
	if (!is_ours(c, tmp, name) || entry_ok(tmp, mode, size, NULL) == -1 ||
	    hash_fd(tmp, size, got) == -1 || memcmp(got, want, 32) != 0 ||
	    fcntl(tmp, F_GETLEASE) != F_WRLCK) {
		(void)set_immutable(tmp, 0);
		if (is_ours(c, tmp, name))
			(void)unlinkat(c->dirfd, name, 0);
		(void)fcntl(tmp, F_SETLEASE, F_UNLCK);
		return note(c, EAGAIN, "image cache: a new entry was opened "
		    "or changed before it was sealed, not used");
	}
	(void)fcntl(tmp, F_SETLEASE, F_UNLCK);
	return 0;
}

/* Parse an index entry's content (len bytes of buf, NUL added): *img the
 * image's name, *iid its identity, *path.  0 or -1. */
static int
idx_parse(char *buf, size_t len, char **sid, char **img, char **iid,
    char **path)
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

/* Read the index entry called name (checked) into buf; its length, or -1
 * with errno ENOENT. */
static ssize_t
idx_read(int dirfd, const char *name, char buf[IDX_MAX + 1])
{
	struct stat st;
	ssize_t n = -1;
	int fd, ok;

	fd = openat(dirfd, name, OPEN_RO);
	if (fd == -1) {
		errno = ENOENT;
		return -1;
	}
	ok = entry_ok(fd, IDX_MODE, -1, &st) == 0 && st.st_size <= IDX_MAX &&
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
imgcache_lookup(struct imgcache *c, const char *path, const struct stat *st,
    uint8_t digest[32], struct stat *img)
{
	char name[IDX_NAME_LEN + 1], buf[IDX_MAX + 1], id[ID_MAX];
	char *sid, *hex, *iid, *p;
	ssize_t n;
	int fd;

	if (c->dirfd == -1) {
		errno = ENOENT;
		return -1;
	}
	idx_name(name, path);
	n = idx_read(c->dirfd, name, buf);
	src_id(id, st);
	if (n == -1 || idx_parse(buf, (size_t)n, &sid, &hex, &iid, &p) == -1 ||
	    strcmp(p, path) != 0 || strcmp(sid, id) != 0 ||
	    img_digest(hex, digest) == -1) {
		errno = ENOENT;	/* not indexed, or another version: fill */
		return -1;
	}
	fd = image_open(c, hex, st->st_size, iid, img);
	if (fd == -1) {
		/* It names an image that is gone or not as it was hashed. */
		drop(c->dirfd, name);
		errno = ENOENT;
		return -1;
	}
	return fd;
}

/* Index path (status *st) as served by the image hex (status *img):
 * a new entry, sealed, replacing one for another version.  0 or -1. */
static int
index_put(struct imgcache *c, const char *path, const struct stat *st,
    const char *hex, const struct stat *img)
{
	char name[IDX_NAME_LEN + 1], buf[IDX_MAX + 1], old[IDX_MAX + 1];
	char sid[ID_MAX], iid[ID_MAX];
	uint8_t want[32];
	ssize_t on;
	int fd, r = 1, tries, len;

	if (strlen(path) > PATH_MAX_IDX || strchr(path, '\n') != NULL)
		return 0;	/* not indexed: every launch fills */
	src_id(sid, st);
	img_id(iid, img);
	len = snprintf(buf, sizeof(buf), "%s %s %s\n%s\n", sid, hex, iid,
	    path);
	if (len < 0 || len >= (int)sizeof(buf))
		return 0;
	sha256_buf(buf, (size_t)len, want);
	idx_name(name, path);
	fd = openat(c->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, IDX_MODE);
	if (fd == -1)
		return -1;
	if (fchmod(fd, IDX_MODE) == -1 ||
	    write_all(fd, buf, (size_t)len) == -1 || fsync(fd) == -1) {
		close(fd);
		return -1;
	}
	for (tries = 0; tries < 3; tries++) {
		r = publish(c, fd, name, IDX_MODE, (off_t)len, want);
		if (r != 1)
			break;
		/* Another launch's entry: kept when it says the same. */
		on = idx_read(c->dirfd, name, old);
		if (on == len && memcmp(old, buf, (size_t)len) == 0) {
			r = 0;
			break;
		}
		drop(c->dirfd, name);
	}
	close(fd);
	return r == 0 ? 0 : -1;
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
	if (lease(src, F_RDLCK) == -1) {
		e = errno;
		goto out;
	}
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
		*what = "scripts (#!) cannot run from a sealed image; planenc "
			"makes a #! PROGRAM's interpreter the program (encode "
			"the plan with planenc)";
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
	time_t ctime;
	uint64_t bytes;
	int image;		/* 1: an image (or a stray), 0: an index entry */
	int gone;
	char name[NAME_MAX_ENT];
	char img[SHA256_HEX_LEN + 1];	/* an index entry's image */
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
	DIR *dp;
	int fd;

	*total = 0;
	fd = openat(dirfd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1 || (dp = fdopendir(fd)) == NULL) {
		if (fd != -1)
			close(fd);
		return -1;
	}
	while ((d = readdir(dp)) != NULL) {
		if (strcmp(d->d_name, ".") == 0 ||
		    strcmp(d->d_name, "..") == 0 ||
		    strcmp(d->d_name, LOCK_NAME) == 0 ||
		    strlen(d->d_name) >= NAME_MAX_ENT ||
		    fstatat(dirfd, d->d_name, &st, AT_SYMLINK_NOFOLLOW) == -1)
			continue;
		if (n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (nv == NULL)
				break;
			v = nv;
		}
		memset(&v[n], 0, sizeof(v[n]));
		v[n].atime = st.st_atim;
		v[n].ctime = st.st_ctim.tv_sec;
		v[n].bytes = (uint64_t)st.st_blocks * 512;
		/* A name neither kind has (another version's, or planted)
		 * goes like an image no index entry names. */
		v[n].image = strncmp(d->d_name, "i-", 2) != 0 ||
		    strlen(d->d_name) != IDX_NAME_LEN;
		strcpy(v[n].name, d->d_name);
		*total += v[n].bytes;
		n++;
	}
	closedir(dp);
	*out = v;
	return (ssize_t)n;
}

/* Whether a live index entry names the image called name. */
static int
named(struct ent *v, size_t n, const char *name)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (!v[i].image && !v[i].gone && strcmp(v[i].img, name) == 0)
			return 1;
	return 0;
}

/* The lock the sweep takes: .lock, mode 0000, immutable, empty, made as
 * any entry.  Not the directory itself: any process that can open the
 * directory (a root payload under --ro /) could hold a lock on it, and no
 * launch would sweep again.  Without CAP_DAC_OVERRIDE nobody can open a
 * mode 0000 file, its owner included, nor chmod an immutable one.  The
 * fd, or -1. */
static int
lock_open(struct imgcache *c)
{
	char keep[sizeof(c->note)];
	uint8_t empty[32];
	int fd, tmp, r;

	fd = openat(c->dirfd, LOCK_NAME, OPEN_RO);
	if (fd != -1 && entry_ok(fd, 0, 0, NULL) == 0)
		return fd;
	if (fd != -1) {
		close(fd);
		drop(c->dirfd, LOCK_NAME);
	}
	memcpy(keep, c->note, sizeof(keep));	/* not the launch's concern */
	sha256_buf(NULL, 0, empty);
	tmp = openat(c->dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0);
	r = tmp == -1 || fchmod(tmp, 0) == -1 ? -1 :
	    publish(c, tmp, LOCK_NAME, 0, 0, empty);
	if (tmp != -1)
		close(tmp);
	memcpy(c->note, keep, sizeof(keep));
	if (r == -1)
		return -1;
	fd = openat(c->dirfd, LOCK_NAME, OPEN_RO);
	if (fd != -1 && entry_ok(fd, 0, 0, NULL) == -1) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* The index entries whose path no longer names the version they record
 * go, then the images no entry names (older than IMGCACHE_GRACE), then
 * the least recently used images (never keep) beyond the bound and the
 * entries naming them. */
static void
sweep(struct imgcache *c, const char *keep)
{
	char buf[IDX_MAX + 1], id[ID_MAX], *sid, *hex, *iid, *p;
	struct timespec now;
	struct ent *v = NULL;
	struct stat st;
	uint64_t total;
	ssize_t n, i, len;
	int lk;

	lk = lock_open(c);
	if (lk == -1 || flock(lk, LOCK_EX | LOCK_NB) == -1) {
		if (lk != -1)
			close(lk);
		return;		/* another launch is at it */
	}
	clock_gettime(CLOCK_REALTIME, &now);
	n = list(c->dirfd, &v, &total);
	for (i = 0; i < n; i++) {
		if (v[i].image)
			continue;
		len = idx_read(c->dirfd, v[i].name, buf);
		if (len != -1 && idx_parse(buf, (size_t)len, &sid, &hex, &iid,
		    &p) == 0 && stat(p, &st) == 0) {
			src_id(id, &st);
			if (strcmp(id, sid) == 0) {
				strcpy(v[i].img, hex);
				continue;
			}
		}
		if (len == -1 && v[i].ctime + (time_t)c->grace > now.tv_sec) {
			v[i].gone = 1;	/* another launch's, being sealed */
			continue;
		}
		drop(c->dirfd, v[i].name);	/* deleted, or changed */
		v[i].gone = 1;
		total -= v[i].bytes;
	}
	for (i = 0; i < n; i++) {
		if (!v[i].image || strcmp(v[i].name, keep) == 0 ||
		    named(v, (size_t)n, v[i].name) ||
		    v[i].ctime + (time_t)c->grace > now.tv_sec)
			continue;
		drop(c->dirfd, v[i].name);
		v[i].gone = 1;
		total -= v[i].bytes;
	}
	if (n > 0 && total > c->max) {
		qsort(v, (size_t)n, sizeof(*v), by_atime);
		for (i = 0; i < n && total > c->max; i++) {
			if (!v[i].image || v[i].gone ||
			    strcmp(v[i].name, keep) == 0)
				continue;
			drop(c->dirfd, v[i].name);
			v[i].gone = 1;
			total -= v[i].bytes;
		}
		for (i = 0; i < n; i++) {
			if (v[i].image || v[i].gone ||
			    faccessat(c->dirfd, v[i].img, F_OK,
			    AT_SYMLINK_NOFOLLOW) == 0)
				continue;
			drop(c->dirfd, v[i].name);
		}
	}
	free(v);
	close(lk);
}

/* The image of digest d already in the cache, checked and its bytes
 * hashed (it may be another source's); its fd, or -1.  One that is there
 * but not valid is removed. */
static int
existing(struct imgcache *c, const char *hex, off_t size, const uint8_t d[32],
    struct stat *st)
{
	uint8_t got[32];
	int fd;

	fd = image_open(c, hex, size, NULL, st);
	if (fd != -1 && hash_fd(fd, size, got) == 0 &&
	    memcmp(got, d, 32) == 0)
		return fd;
	if (fd != -1)
		close(fd);
	if (faccessat(c->dirfd, hex, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		drop(c->dirfd, hex);
	return -1;
}

int
imgcache_fill(struct imgcache *c, int src, const struct stat *st,
    const char *path, const uint8_t *pin, uint8_t digest[32],
    const char **what)
{
	char hex[SHA256_HEX_LEN + 1];
	struct timespec now;
	struct stat img;
	int tmp, fd = -1, r, e, tries;

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
	sha256_hex(digest, hex);
	for (tries = 0; fd == -1 && tries < 3; tries++) {
		fd = existing(c, hex, st->st_size, digest, &img);
		if (fd != -1)
			break;
		r = publish(c, tmp, hex, IMG_MODE, st->st_size, digest);
		if (r == -1)
			goto fail;
		if (r == 0) {
			/* Our write access gone, the read lease can hold. */
			close(tmp);
			tmp = -1;
			fd = image_open(c, hex, st->st_size, NULL, &img);
			if (fd == -1) {
				note(c, EAGAIN, "image cache: a new image was "
				    "opened for writing as it was sealed, not "
				    "used");
				goto fail;
			}
		}
	}
	if (fd == -1) {
		errno = EAGAIN;
		goto fail;
	}
	if (tmp != -1)
		close(tmp);
	/* Indexed only when a later write cannot hide in the same tick. */
	if (st->st_ctim.tv_sec + IMGCACHE_RACY < now.tv_sec)
		(void)index_put(c, path, st, hex, &img);
	sweep(c, hex);
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
	struct stat img;
	int fd;

	*what = NULL;
	if (c->dirfd == -1) {
		errno = ENOENT;
		return -1;
	}
	fd = imgcache_lookup(c, path, st, digest, &img);
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
