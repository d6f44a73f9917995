/* SPDX-License-Identifier: ISC */
/* hash: SHA-256 (nettle) over buffers and files, and hex conversions.
 * The only module that calls nettle: everything else hashes through it. */
#ifndef BORNE_HASH_H
#define BORNE_HASH_H

#include <stddef.h>
#include <stdint.h>

#define SHA256_LEN 32
#define SHA256_HEX_LEN 64

/* out = SHA-256(buf[0..len)); buf may be NULL when len is 0.  Safe to
 * call from several threads at once (no shared state). */
void sha256_buf(const void *buf, size_t len, uint8_t out[SHA256_LEN]);

/* out = SHA-256 of everything read from fd until EOF (read(2) loop, EINTR
 * retried).  *total gets the byte count if total is not NULL.
 * Returns 0, or -1 with errno from read(2). */
int sha256_fd(int fd, uint8_t out[SHA256_LEN], uint64_t *total);

/* Lower-case hex of a digest into hex[65] (NUL-terminated). */
void sha256_hex(const uint8_t d[SHA256_LEN], char hex[SHA256_HEX_LEN + 1]);

/* Parse exactly 64 hex digits (either case) into d.  Returns 0, or -1
 * with errno EINVAL. */
int sha256_unhex(const char *hex, size_t len, uint8_t d[SHA256_LEN]);

#endif
