/* SPDX-License-Identifier: ISC */
/* clock: a clock read as nanoseconds, written once. */
#ifndef BORNE_CLOCK_H
#define BORNE_CLOCK_H

#include <stdint.h>
#include <time.h>

/* clock_gettime(c) in nanoseconds (CLOCK_MONOTONIC for deadlines,
 * CLOCK_REALTIME for records).  Never fails for the clocks above. */
uint64_t now_ns(clockid_t c);

#endif
