/* SPDX-License-Identifier: ISC */
/* denials: the observer of the payload's path calls (notify.h; by
 * default the writes and execs, every one with --explain-denials),
 * judged against the plan's rules; at most DENIALS_LISTED distinct
 * (path, access) pairs are kept, each path shown (stderr, end record)
 * cut at DENIAL_SHOWN bytes.  denials_count: the pairs kept, the denied
 * calls seen and those on pairs past the bound; denials_get: pair i (its
 * path in full); denials_ignored: the payload exited 0 (went on without
 * them); denials_argv (in the parent, before the clone; not with
 * --explain-denials, whose observer sees the reads): the payload's
 * arguments that name an existing host path no rule lets it read, kept
 * for denials_say; denials_say: after the run, one line per pair on
 * stderr (by default only when the payload failed), one for the rest,
 * one per argument kept (when the payload failed), and on a failure not
 * fully observed the line saying how to rerun with every denial named. */
#ifndef CONFEXEC_DENIALS_H
#define CONFEXEC_DENIALS_H

#include <stddef.h>
#include <stdint.h>

#include "run.h"

#define OBSERVE_WRITES 1
#define OBSERVE_ALL 2
#define DENIALS_LISTED 32
#define DENIAL_SHOWN 256
struct obs_seen;
void denials_seen(void *run, const struct obs_seen *s);
size_t denials_count(uint64_t *calls, uint64_t *unlisted);
int denials_get(size_t i, const char **path, const char **access,
    const char **grant, uint64_t *count);
int denials_ignored(const struct outcome *o);
void denials_argv(const struct run *r);
void denials_say(const struct run *r, const struct outcome *o);

#endif
