/* SPDX-License-Identifier: ISC */
/* tmp: make the private tmp and TMPDIR; remove it once the payload's
 * tree is gone (any end). */
#ifndef CONFEXEC_TMP_H
#define CONFEXEC_TMP_H

#include <stddef.h>

#include "run.h"

int tmp_make(struct run *r, char *err, size_t errlen);
void tmp_end(struct run *r);

#endif
