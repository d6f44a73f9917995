/* SPDX-License-Identifier: ISC */
/* imgcache: a content-addressed cache of sealed program images, so that a
 * launch does not copy (and, with a pin, hash) the whole program every
 * time.  A cached image is a root-owned, mode 0555, FS_IMMUTABLE_FL file
 * named by the SHA-256 of its bytes, one per distinct content; it is
 * found by the source's path and identity (device, inode, size, mtime,
 * ctime) through an index entry that is itself immutable.  An entry is
 * named only under a write lease that proves nobody opened it before it
 * was sealed, and its bytes are hashed once sealed.  The design and its
 * reasoning are at the top of imgcache.c.  Nothing here prints: a reason
 * the cache was not used is left in c->note for the caller. */
#ifndef BORNE_IMGCACHE_H
#define BORNE_IMGCACHE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>

#define IMGCACHE_DIR "/var/cache/borne/images"
#define IMGCACHE_MAX ((uint64_t)1 << 30)	/* bytes on disk, default */
#define IMGCACHE_GRACE 60	/* seconds: an unindexed image this young stays */

struct imgcache {
	int dirfd;		/* the verified directory, or -1 */
	uint64_t max;		/* bound on the bytes the cache holds */
	unsigned grace;		/* seconds an image no index entry names
				 * stays (IMGCACHE_GRACE) */
	char note[200];		/* why the cache was not used, or "" */
};

/* Open dir (created 0700 when missing, its parent 0755) for use as the
 * cache, bounded to max bytes (0: IMGCACHE_MAX).  The directory must be
 * root:root, mode 0700, on a filesystem mounted neither read-only nor
 * noexec, and the caller must be uid 0.  Returns 0, or -1 with errno and
 * c->note saying why; c->dirfd is -1 then and every other call is a
 * miss. */
int imgcache_open(struct imgcache *c, const char *dir, uint64_t max);
void imgcache_close(struct imgcache *c);

/* The cached image of the source at path with status *st: an fd
 * (O_RDONLY|O_CLOEXEC, holding a read lease until it is closed: no writer
 * existed when it was checked, and one that appears later makes the
 * payload's execve fail with ETXTBSY) for execveat(AT_EMPTY_PATH), its
 * digest (verified when it was sealed) and *img its status.  No byte of
 * the source or the image is read.  Returns the fd, or -1 with errno
 * ENOENT (not cached or no longer valid: fill it). */
int imgcache_lookup(struct imgcache *c, const char *path,
    const struct stat *st, uint8_t digest[32], struct stat *img);

/* Copy src (opened from path, the path the index keeps)
 * into the cache under a read lease (no writer can open the
 * source while it is copied), hashing the bytes as written, and check
 * them: an ELF executable, not a #! script, digest equal to pin when pin
 * is not NULL.  An image of that digest already cached is used once its
 * bytes hash to it; otherwise the copy is fsync'ed, linked by digest
 * under a write lease, made immutable and hashed again (a lease broken
 * meanwhile: EAGAIN, nothing kept).  The path is indexed unless the
 * source's identity is too recent to tell a later write apart (ctime
 * within the last seconds).  Then drops the index entries of sources
 * deleted or changed, the images no entry names, and the least recently
 * used images (by atime) beyond the bound.
 * Returns the fd as imgcache_lookup, or -1 with errno:
 *   ENOEXEC  not an ELF executable (*what: why)
 *   EBADMSG  the digest differs from pin (*digest is the copy's)
 *   EAGAIN   the source is open for writing or changed while copied,
 *            or the new entry was opened before it was sealed
 *   other    the cache cannot take it (c->note says why when it is the
 *            cache's fault, e.g. no immutable flag on its filesystem)
 * After EAGAIN or another errno the caller seals a private copy. */
int imgcache_fill(struct imgcache *c, int src, const struct stat *st,
    const char *path, const uint8_t *pin, uint8_t digest[32],
    const char **what);

/* imgcache_lookup, then imgcache_fill on a miss; on a hit the pin is
 * compared with the cached digest.  Returns the fd, or -1 with errno
 * ENOEXEC or EBADMSG (refuse the program; *what says why), or another
 * errno (seal a private copy instead). */
int imgcache_get(struct imgcache *c, int src, const struct stat *st,
    const char *path, const uint8_t *pin, uint8_t digest[32],
    const char **what);

/* Let a Landlock ruleset (rfd, handling execute and read_file) execute
 * the cached image fd: one path_beneath rule on that file.  Returns 0,
 * or -1 with errno. */
int imgcache_grant(int rfd, int fd);

/* Whether fd is a cached image (a file, not a memfd): 1, 0, or -1. */
int imgcache_is_file(int fd);

#endif
