/* SPDX-License-Identifier: ISC */
/* canary: the module's state, one run's (canary_int.h), shared by its
 * files; defined apart from them, so that each depends on it and none
 * on another through it. */
#include "canary_int.h"

struct canary canary_state = {
	.fname = {"write", "chmod", "utimes", "read", "exec"},
	.rfd = -1, .wfd = -1, .tcpfd = -1, .absfd = -1, .target = -1,
	.targetfd = -1, .lifefd = -1, .msqid = -1,
};
