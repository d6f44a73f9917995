/* SPDX-License-Identifier: ISC */
/* denials (--explain-denials): the observer of the payload's path calls
 * (notify.h), judged against the plan's rules; at most DENIALS_LISTED
 * distinct (path, access) pairs are kept, each path shown (stderr, end
 * record) cut at DENIAL_SHOWN bytes.  denials_count: the pairs kept,
 * the denied calls seen and those on pairs past the bound; denials_get:
 * pair i (its path in full); denials_say: after the run, one line per
 * pair on stderr, and one for the rest. */
#ifndef CONFEXEC_DENIALS_H
#define CONFEXEC_DENIALS_H

#include <stddef.h>
#include <stdint.h>

#include "run.h"

#define DENIALS_LISTED 32
#define DENIAL_SHOWN 256
struct obs_seen;
void denials_seen(void *run, const struct obs_seen *s);
size_t denials_count(uint64_t *calls, uint64_t *unlisted);
int denials_get(size_t i, const char **path, const char **access,
    const char **grant, uint64_t *count);
void denials_say(const struct run *r);

#endif
