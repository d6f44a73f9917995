/* SPDX-License-Identifier: ISC */
/* canary: confexec --canary (confexec(1), CANARIES).  The plan's
 * boundary, built as for a run, around confexec-canary (canary/canary.c)
 * in place of the plan's program; its answers judged against what the
 * plan says each probe should get, and the host's side of each looked at
 * by confexec.  The module's files, by job:
 *
 *   canary.c         this interface: the run's steps, the program replaced
 *   canary_setup.c   what the probes aim at on the host, made and removed
 *   canary_probes.c  the probes' table: one row a probe, its lines derived
 *   canary_expect.c  what the plan says a probe should get
 *   canary_host.c    the host's side of a probe, read after the run
 *   canary_judge.c   the answers read, each probe judged
 *   canary_out.c     the lines (or JSON) on stdout, the canary record
 *   canary_state.c   the state they share (canary_int.h, for them only)
 *
 * The probes themselves are rows of canary/probes.def. */
#ifndef CANARY_H
#define CANARY_H

#include <signal.h>
#include <stddef.h>

#include <jansson.h>

struct run;
struct statx;

/* canary_want before the run (json: one object instead of lines);
 * canary_on: whether it was asked. */
void canary_want(int json);
int canary_on(void);

/* Once the layers are decided: the host's side of the probes made, the
 * plan's program replaced by the probe program and its probes, a pipe
 * kept for its answers.  0, or -1 with err set.  What it made is removed
 * at exit, whatever the end. */
int canary_prepare(struct run *r, char *err, size_t len);

/* The answers' pipe (src_canary.c polls it) and its read when readable
 * (bounded, never blocking). */
const int *canary_answers_fd(void);
void canary_read(void);

/* The run ended (before the end record): every probe judged, the lines
 * or the object on stdout, the mismatches on stderr, the canary record.
 * Nothing when the probe program never said "start". */
void canary_finish(struct run *r);

/* The end record's "canary": the counts and the exit, or null without a
 * verdict. */
json_t *canary_summary(void);

/* The run's exit status (end.c): 0 every probe matched, 1 one did not,
 * 125 the probe program did not answer them all (or ended before its
 * first: si, how it ended), or the run failed; code as it was when the
 * program never ran (si NULL). */
int canary_exit(int code, const siginfo_t *si);

/* Whether the file is the canary's own privileged file (its probe): the
 * check of the rw trees (privileged.c) strips it without a refusal. */
int canary_own(const struct statx *stx);

#endif
