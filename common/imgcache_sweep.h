/* SPDX-License-Identifier: ISC */
/* imgcache_sweep: the cache's bound (imgcache.c, "Bound"). */
#ifndef BORNE_IMGCACHE_SWEEP_H
#define BORNE_IMGCACHE_SWEEP_H

#include "imgcache.h"

/* Under flock on .lock (LOCK_NB: nothing when another launch is at it):
 * the index entries whose path no longer names the version they record
 * go, then the images no entry names (older than c->grace), then the
 * least recently used images (never keep) beyond c->max and the entries
 * naming them.  c->note is left as it was. */
void imgcache_sweep(struct imgcache *c, const char *keep);

#endif
