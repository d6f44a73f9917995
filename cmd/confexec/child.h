/* SPDX-License-Identifier: ISC */
/* child: the two processes between clone3 and execveat, on memory
 * shared with confexec: the run's init (pid 1 of its pid namespace,
 * child_init) and the payload (child_payload), each failing once at a
 * stage (enum stage, run.h) named by child_stage_name; and the egress
 * broker's network, made by child_netns in a process of its own. */
#ifndef CONFEXEC_CHILD_H
#define CONFEXEC_CHILD_H

#include <stdint.h>

#include "run.h"

#define CHILD_STACK (1u << 20)

extern const char *const child_stage_name[S_NSTAGES];

/* What child_netns made: -1 / NULL until made. */
struct netns_made {
	int listenfd, nsfd;
	uint16_t port;
	const char *what;	/* the step that failed, NULL: none */
	int err;
};

/* clone3 (ca: struct borne_clone_args), or clone where clone3 answers
 * ENOSYS (then for good: child_clone_name() says which), without the
 * flags only clone3 has (CLONE_INTO_CGROUP: EINVAL). */
long child_clone(void *ca, void (*fn)(void *), void *arg);
const char *child_clone_name(void);
/* clone from now on: the probe found clone3 refused (any errno). */
void child_clone3_off(void);
/* arg: the run (struct run); child_netns's: a struct netns_made. */
_Noreturn void child_init(void *arg);
_Noreturn void child_payload(void *arg);
_Noreturn void child_netns(void *arg);

#endif
