/* SPDX-License-Identifier: ISC */
/* llabi: the one Landlock ABI table.  Each row says what one ABI version
 * handles in all (rights are cumulative), and names the feature the
 * version added: cgprobe reports from it (probe_can(), "landlock.*"
 * keys), confexec builds its ruleset from it (landlock.c).  Nothing here
 * prints. */
#ifndef BORNE_LLABI_H
#define BORNE_LLABI_H

#include <stdint.h>

/* What one Landlock ABI version can handle (one row of the table). */
struct ll_abi_rights {
	int abi;
	const char *key;	/* cgprobe "landlock.<key>", e.g. "truncate" */
	const char *mechanism;	/* probe_can() name, e.g. "landlock-tcp" */
	uint64_t fs;		/* every filesystem right the ABI knows */
	uint64_t net;		/* TCP bind/connect (ABI >= 4) */
	uint64_t scoped;	/* abstract unix + signal scopes (ABI >= 6) */
	uint32_t restrict_flags; /* flags landlock_restrict_self() knows */
};

/* The rows for ABI 1, 2, ... in order; a row with abi 0 ends the table. */
extern const struct ll_abi_rights ll_abi_table[];

/* The running ABI version (landlock_create_ruleset VERSION); 0 when
 * Landlock is unavailable or disabled, errno then says why. */
int ll_abi(void);

/* The table row for abi (a newer ABI gets the newest row we know); NULL
 * for abi < 1. */
const struct ll_abi_rights *ll_rights(int abi);

#endif
