/* SPDX-License-Identifier: ISC */
/* timings: where a launch's time goes, stage by stage (confexec
 * --timings): a CLOCK_MONOTONIC stamp at the end of each stage, taken by
 * the supervisor and, for the payload's stages before execveat, by the
 * payload in the supervisor's memory (the vDSO's clock: no system call,
 * nothing its filter sees).  Said on standard error after the run, one
 * line; never journaled. */
#ifndef BORNE_TIMINGS_H
#define BORNE_TIMINGS_H

#include <stdint.h>

/* The stages, in the order a launch meets them; each stamp ends its
 * stage. */
enum timing {
	TM_BEGIN,	/* confexec's main */
	TM_PLAN,	/* the plan read, the host probed, the layers decided */
	TM_RULES,	/* the Landlock rules (one walk a path), the seccomp
			 * program built */
	TM_CGROUP,	/* the run's cgroup made */
	TM_SEAL,	/* the program (and script) sealed */
	TM_VIEW,	/* the view prepared: the rules' clones, /etc's id
			 * map, the descriptors handed in */
	TM_PRIV,	/* the rw trees walked for privileged files */
	TM_START,	/* the supervisor's sources, the start record */
	TM_CLONE,	/* init, and the payload cloned into the cgroup */
	TM_MOUNT,	/* the payload built its view (mv_apply) */
	TM_LANDLOCK,	/* credentials, descriptors, rlimits, capabilities,
			 * Landlock enforced */
	TM_SECCOMP,	/* the filter loaded: execveat next */
	TM_EXEC,	/* execveat done (the supervisor resumed) */
	TM_RUN,		/* the payload ended */
	TM_END,		/* the end record written, the run cleaned up */
	TM_N
};

/* A stamp now for stage t (in the payload too: no system call). */
void timings_mark(uint64_t *stamp, enum timing t);

/* "confexec: timings (us): plan N rules N ..." on standard error, each
 * stage the time since the one before it that was stamped. */
void timings_say(const uint64_t *stamp);

#endif
