/* SPDX-License-Identifier: ISC */
/* timings: where a launch's time goes (timings.h). */
#include <stdio.h>
#include <time.h>

#include "say.h"
#include "timings.h"

void
timings_mark(uint64_t *stamp, enum timing t)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts) == 0)
		stamp[t] = (uint64_t)ts.tv_sec * 1000000000u +
		    (uint64_t)ts.tv_nsec;
}

void
timings_say(const uint64_t *stamp)
{
	static const char *const name[TM_N] = {
		[TM_PLAN] = "plan", [TM_RULES] = "rules",
		[TM_CGROUP] = "cgroup", [TM_SEAL] = "seal",
		[TM_VIEW] = "view", [TM_PRIV] = "privileged",
		[TM_START] = "start",
		[TM_CLONE] = "clone", [TM_MOUNT] = "mount",
		[TM_LANDLOCK] = "landlock", [TM_SECCOMP] = "seccomp",
		[TM_EXEC] = "exec", [TM_RUN] = "run", [TM_END] = "end",
	};
	char line[512];
	size_t n = 0;
	uint64_t prev = stamp[TM_BEGIN];
	int t;

	if (prev == 0)
		return;
	n += (size_t)snprintf(line + n, sizeof(line) - n,
	    "timings (us):");
	for (t = TM_PLAN; t < TM_N && n < sizeof(line); t++) {
		if (stamp[t] == 0 || stamp[t] < prev)
			continue;
		n += (size_t)snprintf(line + n, sizeof(line) - n, " %s %llu",
		    name[t], (unsigned long long)((stamp[t] - prev) / 1000));
		prev = stamp[t];
	}
	if (n < sizeof(line))
		n += (size_t)snprintf(line + n, sizeof(line) - n, " total %llu",
		    (unsigned long long)((prev - stamp[TM_BEGIN]) / 1000));
	say_line("%s", line);	/* after the run: never waited on */
}
