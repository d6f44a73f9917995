/* SPDX-License-Identifier: ISC */
/* landlock: the Landlock ABI -> rights table, and a plan's filesystem and
 * TCP domain built as a ruleset fd ahead of time (in the parent), applied
 * by landlock_restrict_self() in the child.  Nothing here prints. */
#ifndef BORNE_LANDLOCK_H
#define BORNE_LANDLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/* What one Landlock ABI version can handle (one row of the table). */
struct ll_abi_rights {
	int abi;
	uint64_t fs;		/* every filesystem right the ABI knows */
	uint64_t net;		/* TCP bind/connect (ABI >= 4) */
	uint64_t scoped;	/* abstract unix + signal scopes (ABI >= 6) */
	uint32_t restrict_flags; /* flags landlock_restrict_self() knows */
};

/* The running ABI version (landlock_create_ruleset VERSION); 0 when
 * Landlock is unavailable or disabled. */
int ll_abi(void);

/* The table row for abi (a newer ABI gets the newest row we know); NULL
 * for abi < 1. */
const struct ll_abi_rights *ll_rights(int abi);

/* Rights an intent grants beneath a directory, and on a non-directory
 * (Landlock refuses directory-only rights on files), masked to what the
 * ABI handles.
 *   ro  = read_file | read_dir
 *   rox = ro | execute
 *   rw  = every handled right except execute, make_char and make_block
 *         (no device nodes even where a capability would allow them). */
uint64_t ll_intent_rights(enum plan_intent in, int is_dir, int abi);

/* Build the plan's ruleset for abi: the fs domain handles every fs right
 * of the ABI, with one rule per plan path (opened O_PATH|O_CLOEXEC); the
 * net domain (ABI >= 4) handles TCP bind and connect, with one rule per
 * granted port; scopes (ABI >= 6) cover abstract unix sockets and signals.
 * A path that cannot be opened or a rule the kernel refuses fails the
 * whole ruleset: -1 with errno and err naming the path; nothing is left
 * open.  On success *rfd is the ruleset fd (close-on-exec). */
int ll_build(const struct plan *p, int abi, int *rfd, char *err,
    size_t errlen);

/* In the child, after PR_SET_NO_NEW_PRIVS: enforce the ruleset on the
 * calling thread.  Returns 0 or -1 with errno (only raw syscalls). */
int ll_enforce(int rfd, int abi);

#endif
