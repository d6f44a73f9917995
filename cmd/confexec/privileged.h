/* SPDX-License-Identifier: ISC */
/* privileged: before the payload starts, every rw and rwx tree walked
 * for setuid, setgid and file-capability files (confexec(1), PRIVILEGED
 * FILES): one stderr line each; strict mode refuses (-1, err set), degrade
 * mode strips them (a file with several links, or past 64, refused too).
 * privileged_json: the start record's "privileged" (null when no tree was
 * walked). */
#ifndef CONFEXEC_PRIVILEGED_H
#define CONFEXEC_PRIVILEGED_H

#include <stddef.h>

#include <jansson.h>

#include "run.h"

int privileged_check(struct run *r, char *err, size_t len);
json_t *privileged_json(void);

#endif
