/* SPDX-License-Identifier: ISC */
/* landlock-abi: print the running kernel's Landlock ABI version (0 when
 * Landlock is unavailable), straight from the syscall. */
#include <linux/landlock.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "uapi.h"

int
main(void)
{
	long v = syscall(__NR_landlock_create_ruleset, NULL, 0,
	    LANDLOCK_CREATE_RULESET_VERSION);

	printf("%ld\n", v < 0 ? 0L : v);
	return 0;
}
