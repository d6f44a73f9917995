/* SPDX-License-Identifier: ISC */
/* events: the records' builders.  Each source adds its keys to the
 * start and end records (loop_report, loop.h): the callers do. */
#ifndef CONFEXEC_EVENTS_H
#define CONFEXEC_EVENTS_H

#include <signal.h>
#include <stdint.h>

#include <jansson.h>

#include "cgroup.h"
#include "run.h"

json_t *events_start(const struct run *r);
json_t *events_start_refused(const struct run *r);
json_t *events_end(const struct run *r, const struct outcome *o);
json_t *events_reaped(const struct cg_reaped *rp);
json_t *events_layers(const struct run *r, enum verdict v);
/* v as a decimal string (a journal's 64-bit counts). */
json_t *events_u64(uint64_t v);
/* A string that may not be UTF-8 (a path): itself, or {"escaped": ...}
 * in common/esc's lossless form. */
json_t *events_str(const char *s);

#endif
