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
 * Layout (imgcache_store.c): one flat directory, root:root 0700, checked
 * with fstat on the opened fd at every use.  Entries:
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
 * fill (imgcache_sweep.c): index entries whose path no longer names the
 * version they record (deleted, replaced, rewritten) go; images no index
 * entry names, older than IMGCACHE_GRACE seconds (a concurrent fill names
 * its own within that; c->grace), go; then the least recently used images
 * (by atime: exec updates it, at relatime's once a day granularity)
 * beyond IMGCACHE_MAX bytes, and the index entries naming them.
 * Removing clears the flag (confexec has CAP_LINUX_IMMUTABLE) and
 * unlinks.  A process already holding a removed image's fd still
 * executes the same bytes.
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
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "hash.h"
#include "imgcache.h"
#include "imgcache_store.h"
#include "imgcache_sweep.h"
#include "uapi.h"

#define IMGCACHE_RACY 3		/* seconds: a ctime this recent is not indexed */

/* dir opened; where it is missing, made (0700), its parents as root
 * makes them (mkdir -p, 0755): a host without /var/cache gets one; the
 * directory itself is then judged like any other.  The fd, or -1 with
 * errno. */
static int
dir_open(const char *dir)
{
	char parent[4096], *slash;
	int fd;

	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
	if (fd != -1 || errno != ENOENT || dir[0] != '/' ||
	    strlen(dir) >= sizeof(parent))
		return fd;
	strcpy(parent, dir);
	for (slash = strchr(parent + 1, '/'); slash != NULL;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		(void)mkdir(parent, 0755);
		*slash = '/';
	}
	if (mkdir(dir, 0700) == -1 && errno != EEXIST)
		return -1;
	return open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
}

int
imgcache_open(struct imgcache *c, const char *dir, uint64_t max)
{
	struct statvfs vfs;
	struct stat st;
	int fd, e;

	c->dirfd = -1;
	c->max = max != 0 ? max : IMGCACHE_MAX;
	c->grace = IMGCACHE_GRACE;
	c->note[0] = '\0';
	if (geteuid() != 0) {
		errno = EPERM;	/* documented: no cache without root, quietly */
		return -1;
	}
	if ((fd = dir_open(dir)) == -1)
		return imgcache_store_note(c, errno, "image cache %s", dir);
	if (fstat(fd, &st) == -1 || fstatvfs(fd, &vfs) == -1) {
		e = errno;
		close(fd);
		return imgcache_store_note(c, e, "image cache %s", dir);
	}
	if (st.st_uid != 0 || st.st_gid != 0 || (st.st_mode & 07777) != 0700) {
		close(fd);
		return imgcache_store_note(c, 0, "image cache %s: owner "
		    "%u:%u mode %04o, not "
		    "root:root 0700", dir, (unsigned)st.st_uid,
		    (unsigned)st.st_gid, (unsigned)(st.st_mode & 07777));
	}
	if (vfs.f_flag & ST_NOEXEC) {
		close(fd);
		return imgcache_store_note(c, 0, "image cache %s: its "
		    "filesystem is mounted "
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
	imgcache_store_idx_name(name, path);
	n = imgcache_store_idx_read(c->dirfd, name, buf);
	imgcache_store_src_id(id, st);
	if (n == -1 ||
	    imgcache_store_idx_parse(buf, (size_t)n, &sid, &hex, &iid, &p) ==
	    -1 ||
	    strcmp(p, path) != 0 || strcmp(sid, id) != 0 ||
	    imgcache_store_digest(hex, digest) == -1) {
		errno = ENOENT;	/* not indexed, or another version: fill */
		return -1;
	}
	fd = imgcache_store_open(c, hex, st->st_size, iid, img);
	if (fd == -1) {
		/* It names an image that is gone or not as it was hashed. */
		imgcache_store_drop(c->dirfd, name);
		errno = ENOENT;
		return -1;
	}
	return fd;
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
	if (imgcache_store_lease(src, F_RDLCK) == -1) {
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

/* The image of digest d already in the cache, checked and its bytes
 * hashed (it may be another source's); its fd, or -1.  One that is there
 * but not valid is removed. */
static int
existing(struct imgcache *c, const char *hex, off_t size, const uint8_t d[32],
    struct stat *st)
{
	uint8_t got[32];
	int fd;

	fd = imgcache_store_open(c, hex, size, NULL, st);
	if (fd != -1 && imgcache_store_hash(fd, size, got) == 0 &&
	    memcmp(got, d, 32) == 0)
		return fd;
	if (fd != -1)
		close(fd);
	if (faccessat(c->dirfd, hex, F_OK, AT_SYMLINK_NOFOLLOW) == 0)
		imgcache_store_drop(c->dirfd, hex);
	return -1;
}

/* The sealed copy tmp (*tmp, closed and -1 once published) as the
 * image of digest hex: one already there when its bytes hash to it,
 * else tmp named and sealed, then opened as any image.  The image's fd,
 * *img its status; or -1 with errno (EAGAIN after three tries). */
static int
seal(struct imgcache *c, int *tmp, const char *hex, off_t size,
    const uint8_t digest[32], struct stat *img)
{
	int fd, r, tries;

	for (tries = 0; tries < 3; tries++) {
		fd = existing(c, hex, size, digest, img);
		if (fd != -1)
			return fd;
		r = imgcache_store_publish(c, *tmp, hex, IMG_MODE, size,
		    digest);
		if (r == -1)
			return -1;
		if (r == 0) {
			/* Our write access gone, the read lease can hold. */
			close(*tmp);
			*tmp = -1;
			fd = imgcache_store_open(c, hex, size, NULL, img);
			if (fd == -1)
				return imgcache_store_note(c, EAGAIN, "image "
				    "cache: a new image was opened for "
				    "writing as it was sealed, not used");
			return fd;
		}
	}
	errno = EAGAIN;
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
	int tmp, fd, e;

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
		return imgcache_store_note(c, errno, "image cache: cannot add "
		    "an image");
	if (fchmod(tmp, IMG_MODE) == -1 || copy_leased(src, st, tmp) == -1 ||
	    check_copy(tmp, st->st_size, pin, digest, what) == -1 ||
	    fsync(tmp) == -1)
		fd = -1;
	else {
		sha256_hex(digest, hex);
		fd = seal(c, &tmp, hex, st->st_size, digest, &img);
	}
	e = errno;
	if (tmp != -1)
		close(tmp);
	if (fd == -1)
		return errno = e, -1;
	/* Indexed only when a later write cannot hide in the same tick. */
	if (st->st_ctim.tv_sec + IMGCACHE_RACY < now.tv_sec)
		(void)imgcache_store_index(c, path, st, hex, &img);
	imgcache_sweep(c, hex);
	return fd;
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
