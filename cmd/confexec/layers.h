/* SPDX-License-Identifier: ISC */
/* layers: what the plan asks for against what the host can enforce
 * (struct layer, L_*: run.h).  layers_init and layers_select decide each
 * layer's verdict; layers_refused: a refusal's lines, 1 when refused;
 * layers_loud: a degrade-mode warning, printed and journaled with the
 * start record; layers_on: layer i is wanted and enforced. */
#ifndef CONFEXEC_LAYERS_H
#define CONFEXEC_LAYERS_H

#include <stddef.h>

#include "run.h"

void layers_init(struct run *r);
void layers_select(struct run *r);
int layers_refused(const struct run *r, char *msg, size_t len);
void layers_loud(struct run *r, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void layers_say_warnings(const struct run *r);
void layers_warn_degraded(struct run *r);
int layers_on(const struct run *r, int i);
/* The run records the payload's connections to privileged daemons'
 * sockets (confexec(1), Handoff records): it grants AF_UNIX and has a
 * seccomp listener. */
int layers_handoff(const struct run *r);

#endif
