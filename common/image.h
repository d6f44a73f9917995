/* SPDX-License-Identifier: ISC */
/* image: the sealed program image and the sealed prompt.  The bytes that
 * execute are exactly the bytes admitted: the program is copied into a
 * memfd, sealed against any change, hashed from the sealed copy, checked
 * against the pinned SHA-256, and executed with execveat(AT_EMPTY_PATH).
 * Nothing here prints. */
#ifndef BORNE_IMAGE_H
#define BORNE_IMAGE_H

#include <stddef.h>
#include <stdint.h>

enum image_err {
	IMAGE_OK = 0,
	IMAGE_NOTFOUND,		/* open: ENOENT/ENOTDIR (exit 127) */
	IMAGE_NOEXEC,		/* not a regular file, no execute bit, or
				 * an #! script (exit 126) */
	IMAGE_MISMATCH,		/* digest differs from the pin (125) */
	IMAGE_FAIL,		/* anything else, e.g. vm.memfd_noexec=2
				 * forbids an executable memfd (125) */
};

/* Copy path (opened O_RDONLY|O_CLOEXEC, fstat'ed: a regular file with an
 * execute bit) into a memfd created MFD_CLOEXEC|MFD_ALLOW_SEALING (and
 * MFD_EXEC where the kernel knows it), seal it (shrink, grow, write,
 * seal), compute digest over the sealed bytes and compare with pin (when
 * pin is not NULL).  Scripts (#!) are refused: the interpreter would be
 * handed /dev/fd/N of a close-on-exec fd that no longer exists.  When
 * vm.memfd_noexec=2 forbids executable memfds the image is refused; there
 * is no fallback to executing the unsealed path.  On IMAGE_OK *memfd is
 * the sealed image; otherwise err says why and errno is set. */
enum image_err image_seal(const char *path, const uint8_t *pin, int *memfd,
    uint8_t digest[32], char *err, size_t errlen);

/* image_seal through the sealed-image cache c (common/imgcache.h) when c
 * is not NULL and usable: *memfd is then an O_RDONLY fd of an immutable
 * cached file (see imgcache_is_file; Landlock must grant it, see
 * imgcache_grant) or, when the cache cannot serve this program, a sealed
 * memfd as above (c->note says why when it is the cache's fault).  The
 * same errors as image_seal; a pin is compared with the cached digest. */
struct imgcache;
enum image_err image_seal_cached(struct imgcache *c, const char *path,
    const uint8_t *pin, int *memfd, uint8_t digest[32], char *err,
    size_t errlen);

/* The most bytes a pinned script may hold (it is copied into memory). */
#define SCRIPT_MAX (64u << 20)

/* A script its interpreter reads (plan "script"): path (a regular file,
 * at most SCRIPT_MAX bytes) copied into a sealed, non-executable memfd,
 * hashed from the sealed copy and compared with pin.  The interpreter is
 * handed that memfd, so the bytes checked are the bytes it reads,
 * whatever happens to the file afterwards.  On IMAGE_OK *memfd is the
 * copy (close-on-exec, offset 0); otherwise err says why, errno set:
 * IMAGE_NOTFOUND, IMAGE_NOEXEC (not a regular file), IMAGE_MISMATCH,
 * IMAGE_FAIL. */
enum image_err script_seal(const char *path, const uint8_t pin[32],
    int *memfd, uint8_t digest[32], char *err, size_t errlen);

/* A sealed, non-executable memfd (MFD_NOEXEC_SEAL where known) holding
 * len bytes of buf, offset 0, close-on-exec (dup2 to 0 clears that).
 * Returns the fd or -1 with errno. */
int prompt_memfd(const unsigned char *buf, size_t len);

#endif
