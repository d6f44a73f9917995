/* SPDX-License-Identifier: ISC */
/* landlock-abi: print the running kernel's Landlock ABI version (0 when
 * Landlock is unavailable), straight from the syscall. */
#include <linux/landlock.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef __NR_landlock_create_ruleset
#define __NR_landlock_create_ruleset 444
#endif

int
main(void)
{
	long v = syscall(__NR_landlock_create_ruleset, NULL, 0, 1U);

	printf("%ld\n", v < 0 ? 0L : v);
	return 0;
}
