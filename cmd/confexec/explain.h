/* SPDX-License-Identifier: ISC */
/* explain: read the image's interpreter (in the parent, before the
 * clone); the reason of an execveat failure with errno e. */
#ifndef CONFEXEC_EXPLAIN_H
#define CONFEXEC_EXPLAIN_H

#include <stddef.h>

#include "run.h"

void explain_interp(struct run *r);
void explain_why(const struct run *r, int e, char *why, size_t size);

#endif
