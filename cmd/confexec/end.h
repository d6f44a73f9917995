/* SPDX-License-Identifier: ISC */
/* end: ending the run.  end_kill: SIGKILL to the payload's whole tree;
 * end_run, after the loop (the payload exited, timed out, was cancelled,
 * or the supervisor failed): reap, drain, remove, the end record;
 * end_child_failed, after a child's report (or none): the stage named,
 * the same end; each returns confexec's exit status.  end_early: a run
 * that ends before execveat, after the plan decoded (one line on stderr,
 * a start and end record), exits with code.  end_host_oom_kills: the
 * host's OOM kills so far (/proc/vmstat oom_kill), -1 when unknown. */
#ifndef CONFEXEC_END_H
#define CONFEXEC_END_H

#include <stdint.h>

#include "run.h"

int64_t end_host_oom_kills(void);
void end_kill(struct run *r);
int end_run(struct run *r);
int end_child_failed(struct run *r, const struct report *rep);
_Noreturn void end_early(struct run *r, int code, const char *msg);

#endif
