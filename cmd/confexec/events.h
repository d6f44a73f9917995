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

/* What the end record says. */
struct outcome {
	int code;		/* confexec's exit status */
	int have_status;	/* the payload was waited for */
	siginfo_t si;
	const char *refused;	/* why the run ended before execveat */
	uint64_t wall_ns;
	uint64_t cpu_usec;
	int residue;
	int have_oom;
	uint64_t oom;
	const char *signal_by;	/* who killed the payload: "confexec",
				 * "oom", "outside", "outside-init" (its
				 * init was killed), or NULL (no signal) */
	int init_killed;	/* init was killed by SIGKILL first */
};

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
