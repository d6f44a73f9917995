/* SPDX-License-Identifier: ISC */
/* clock: now_ns. */
#include "clock.h"

uint64_t
now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}
