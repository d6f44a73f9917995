/* SPDX-License-Identifier: ISC */
/* imgcache_store: the cache's entries (imgcache.c, "Layout" and "Named
 * only once sealed"): their names and identities, the checks every use
 * makes, leases, sealing a new entry, and the index entries.  Nothing
 * here prints: a reason is left in c->note. */
#ifndef BORNE_IMGCACHE_STORE_H
#define BORNE_IMGCACHE_STORE_H

#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "hash.h"
#include "imgcache.h"

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
int imgcache_store_note(struct imgcache *c, int e, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* A source's identity: what changes with any change of its bytes. */
void imgcache_store_src_id(char out[ID_MAX], const struct stat *st);

/* The index entry's name for path: "i-" and the SHA-256 of the path. */
void imgcache_store_idx_name(char out[IDX_NAME_LEN + 1], const char *path);

/* Whether name is an image's (64 lower-case hex digits); its digest.
 * 0 or -1. */
int imgcache_store_digest(const char *name, uint8_t d[32]);

/* An entry as confexec leaves it: regular, root's, exactly mode, one link,
 * size when size >= 0, immutable.  0, or -1 with errno ENOENT. */
int imgcache_store_entry_ok(int fd, mode_t mode, off_t size,
    struct stat *out);

/* A lease of type t on fd, its owner cleared: a break signals nobody (a
 * broken lease is seen with F_GETLEASE, never by a signal). */
int imgcache_store_lease(int fd, int t);

/* The SHA-256 of the size bytes of fd, read from its own pages, without
 * touching its atime (relatime would not update it again for a day: the
 * bound evicts by atime).  0 or -1. */
int imgcache_store_hash(int fd, off_t size, uint8_t d[32]);

/* Open the image called name and check it (entry_ok, its identity equal
 * to id when id is not NULL), then take a read lease on the fd: refused
 * while anyone holds the image open for writing, and held until the fd is
 * closed.  The fd, or -1 with errno ENOENT; *st its status. */
int imgcache_store_open(struct imgcache *c, const char *name, off_t size,
    const char *id, struct stat *st);

/* Remove an entry: clear its immutable flag, unlink it. */
void imgcache_store_drop(int dirfd, const char *name);

/* Name the O_TMPFILE tmp (O_RDWR, size bytes whose SHA-256 is want) as
 * name, sealed: under a write lease, linked, made immutable, then checked
 * (the name is still tmp's inode, root's, mode, one link; its sealed
 * bytes hash to want; the lease never broken).  0; 1 when name exists
 * (nothing done); -1 with errno and the note (EAGAIN: the new entry was
 * opened or changed before it was sealed, and is gone). */
int imgcache_store_publish(struct imgcache *c, int tmp, const char *name,
    mode_t mode, off_t size, const uint8_t want[32]);

/* Parse an index entry's content (len bytes of buf, NUL added): *sid the
 * source's identity, *img the image's name, *iid its identity, *path.
 * 0 or -1. */
int imgcache_store_idx_parse(char *buf, size_t len, char **sid, char **img,
    char **iid, char **path);

/* Read the index entry called name (checked) into buf; its length, or -1
 * with errno ENOENT. */
ssize_t imgcache_store_idx_read(int dirfd, const char *name,
    char buf[IDX_MAX + 1]);

/* Index path (status *st) as served by the image hex (status *img):
 * a new entry, sealed, replacing one for another version.  0 or -1. */
int imgcache_store_index(struct imgcache *c, const char *path,
    const struct stat *st, const char *hex, const struct stat *img);

#endif
