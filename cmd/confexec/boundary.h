/* SPDX-License-Identifier: ISC */
/* boundary: the boundary's contents, assembled before the clone, in
 * run()'s order; each 0, or -1 with err set.  Everything the payload's
 * boundary holds is decided here: the sources serve it. */
#ifndef CONFEXEC_BOUNDARY_H
#define CONFEXEC_BOUNDARY_H

#include <stddef.h>
#include <sys/stat.h>

#include "run.h"

int boundary_inherited(struct run *r, char *err, size_t len);
int boundary_journal(struct run *r, char *err, size_t len);
/* The first rw or rwx rule that holds the directory dfd (names it or a
 * directory above it) or names the file (NULL: none): its index, or -1. */
int boundary_rw_over(const struct run *r, int dfd, const struct stat *file);
int boundary_rules(struct run *r, char *err, size_t len);
int boundary_tmp(struct run *r, char *err, size_t len);
int boundary_filter(struct run *r, char *err, size_t len);
int boundary_image(struct run *r, char *err, size_t len);
int boundary_view(struct run *r, char *err, size_t len);
int boundary_env(struct run *r, char *err, size_t len);
int boundary_kept(struct run *r, char *err, size_t len);
/* A plan with egress: the run's network and the broker's listener in it
 * (r->egressfd, r->egress_port, r->netnsfd), TCP connect to that port,
 * the proxy variables naming it; before the loop opens. */
int boundary_egress(struct run *r, char *err, size_t len);

#endif
