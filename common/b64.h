/* SPDX-License-Identifier: ISC */
/* b64: standard base64 with padding (RFC 4648 section 4) through nettle,
 * decoded strictly: only the one canonical encoding of some bytes is
 * accepted (no blank, no line break, no stray padding or unused bits), so
 * that a signed text has one spelling. */
#ifndef BORNE_B64_H
#define BORNE_B64_H

#include <stddef.h>
#include <stdint.h>

/* Encoded length of n bytes (without a NUL). */
#define B64_LEN(n) ((((n) + 2) / 3) * 4)

/* Encode src[0..n) into dst[B64_LEN(n) + 1], NUL-terminated. */
void b64_encode(const uint8_t *src, size_t n, char *dst);

/* Decode src[0..len) into dst[0..max); *n gets the byte count.  Returns
 * 0, or -1 with errno EINVAL (not canonical base64) or ERANGE (more than
 * max bytes). */
int b64_decode(const char *src, size_t len, uint8_t *dst, size_t max,
    size_t *n);

#endif
