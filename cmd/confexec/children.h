/* SPDX-License-Identifier: ISC */
/* children: fn(pid, arg) for every child of ours until fn returns
 * nonzero, without allocation; how many were given to fn, -1 when /proc
 * lists none. */
#ifndef CONFEXEC_CHILDREN_H
#define CONFEXEC_CHILDREN_H

#include <sys/types.h>

int children_each(int (*fn)(pid_t, void *), void *arg);

#endif
