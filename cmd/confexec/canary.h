/* SPDX-License-Identifier: ISC */
/* canary (--canary): canary_want before the run; canary_prepare
 * once the layers are decided (the host's side of the probes made, the
 * plan's program replaced by the probe program and its probes, a pipe
 * kept for its answers).  Its source (src_canary.c) polls
 * canary_answers_fd and calls canary_read when it is readable (bounded,
 * never blocking), canary_finish when the run has ended (before the end
 * record: the lines or JSON on stdout, the canary record) and
 * canary_summary for the end record's "canary" key (null without a
 * verdict).  canary_exit, in end.c, the run's exit status: 0 every probe
 * matched, 1 one did not, 125 the probe program did not answer them all
 * (or ended before its first: si, how it ended), or the run failed;
 * code as it was when the program never ran (si NULL).  What
 * canary_prepare made is removed at exit, whatever the end.
 * canary_own: the file is the canary's own privileged file (its probe). */
#ifndef CONFEXEC_CANARY_H
#define CONFEXEC_CANARY_H

#include <signal.h>
#include <stddef.h>

#include <jansson.h>

#include "run.h"

void canary_want(int json);
int canary_on(void);
int canary_prepare(struct run *r, char *err, size_t len);
const int *canary_answers_fd(void);
void canary_read(void);
void canary_finish(struct run *r);
json_t *canary_summary(void);
int canary_exit(int code, const siginfo_t *si);

struct statx;
int canary_own(const struct statx *stx);

#endif
