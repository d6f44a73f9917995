/* SPDX-License-Identifier: ISC */
/* mv_secrets: the host's secrets beneath /etc withheld from the view
 * (mountview.h, "The host's secrets"). */
#ifndef BORNE_MV_SECRETS_H
#define BORNE_MV_SECRETS_H

#include <stddef.h>
#include <sys/types.h>

#include "mountview.h"

/* In the parent, as root: where a read-only rule puts /etc in the view,
 * its clone idmapped (a clone of its own when a wider rule holds it),
 * else the entries others may not read listed as covers (mv->cover);
 * the secrets by name listed too.  mv->etc_how says which.  0, or -1
 * with errno and err. */
int mv_secrets_withhold(struct mountview *mv, uid_t uid, char *err,
    size_t errlen);

/* In the payload: each cover placed over its secret in the view (from
 * root), an empty file or directory of mode 0 cloned from the view's own
 * root m (made there, removed once cloned); one gone since is left.  0,
 * or -1 with mv->failed set. */
int mv_secrets_cover(struct mountview *mv, int m, int root);

#endif
