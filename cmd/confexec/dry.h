/* SPDX-License-Identifier: ISC */
/* dry: --dry-run, the layers' verdicts and what a real run would meet,
 * said; its exit status.  dry_checks: past the layers, what a real run
 * would meet before it creates anything; 0, or its exit status (125,
 * 126, 127) with why said. */
#ifndef CONFEXEC_DRY_H
#define CONFEXEC_DRY_H

#include <stddef.h>

#include "run.h"

int dry_run(struct run *r);
int dry_checks(struct run *r, char *why, size_t len);

#endif
