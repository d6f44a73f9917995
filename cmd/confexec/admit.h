/* SPDX-License-Identifier: ISC */
/* admit (--registry FILE, confexec(1) REGISTRY): admit_want before the
 * run; admit_open once the plan is decoded, before anything is made:
 * the registry read once (bounded), refused (0, or -1 with err) when
 * someone besides root and the caller may write or replace it or a rw
 * rule of the plan reaches it; admit_check once the program (and a
 * pinned script) is sealed: the run ends (126) naming each file whose
 * SHA-256 is not listed and the line that would admit it; admit_json:
 * the start record's "registry" (null without). */
#ifndef CONFEXEC_ADMIT_H
#define CONFEXEC_ADMIT_H

#include <stddef.h>

#include <jansson.h>

#include "run.h"

void admit_want(const char *path);
int admit_open(struct run *r, char *err, size_t len);
void admit_check(struct run *r);
json_t *admit_json(void);

#endif
