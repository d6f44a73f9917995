/* SPDX-License-Identifier: ISC */
/* registry: a workspace registry of admitted programs, in the format
 * sha256sum(1) writes (`sha256sum PROGRAM >> FILE`), parsed strictly.
 *
 * Each line is HASH, a space, a space or '*' (text or binary mode), and a
 * name; or, as sha256sum writes a name holding a backslash or a newline,
 * a backslash, then the same with the name escaped (\\, \n).  HASH is 64
 * hexadecimal digits.  Blank lines are allowed; anything else is an
 * error naming its line.  A program is admitted by its hash alone: the
 * name says what the line was written for. */
#ifndef BORNE_REGISTRY_H
#define BORNE_REGISTRY_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

/* Longest registry file read, and most entries. */
#define REGISTRY_MAX (1u << 20)
#define REGISTRY_ENTRIES 8192

struct registry {
	uint8_t (*hash)[SHA256_LEN];	/* sorted, for a binary search */
	size_t n;
};

/* Parse buf[0..len) into *reg (malloc'ed; registry_free).  Returns 0,
 * or -1 with errno EINVAL (err names the line and what is wrong), E2BIG
 * (more than REGISTRY_MAX bytes or REGISTRY_ENTRIES entries) or ENOMEM. */
int registry_parse(const char *buf, size_t len, struct registry *reg,
    char *err, size_t errlen);

/* Whether d is listed. */
int registry_has(const struct registry *reg, const uint8_t d[SHA256_LEN]);

void registry_free(struct registry *reg);

#endif
