/* SPDX-License-Identifier: ISC */
/* buf: a byte buffer's room, grown by doubling, written once for every
 * buffer that is appended to. */
#ifndef BORNE_BUF_H
#define BORNE_BUF_H

#include <stddef.h>

/* Make *buf (*cap bytes; NULL and 0 at first) hold at least need bytes:
 * its capacity, first (>= 1) when it is 0, doubled until it does.  0,
 * or -1 with errno ENOMEM (need over PTRDIFF_MAX, or realloc(3)'s), *buf
 * and *cap then as they were. */
int buf_reserve(char **buf, size_t *cap, size_t need, size_t first);

#endif
