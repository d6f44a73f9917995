/* SPDX-License-Identifier: ISC */
/* scan: strict number parsing.  No sign, no blanks, no base prefix, no
 * trailing bytes; the whole string is the number or it is an error. */
#ifndef BORNE_SCAN_H
#define BORNE_SCAN_H

#include <stdint.h>

/* Parse decimal s into *out, requiring min <= value <= max.
 * Returns 0, or -1 with errno EINVAL (not a number) or ERANGE. */
int scan_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Same for an int range (e.g. file descriptors). */
int scan_int(const char *s, int min, int max, int *out);

/* Parse a size with an optional binary suffix K, M, G or T (powers of
 * 1024), e.g. "512M".  Same errors as scan_u64. */
int scan_size(const char *s, uint64_t min, uint64_t max, uint64_t *out);

#endif
