/* SPDX-License-Identifier: ISC */
/* mv_tree: the mount API calls the view is made with (mountview.h):
 * detached clones and their attributes, a walk that never follows a
 * link, and user namespaces that map one id for idmapped mounts.
 * System calls only, safe in the payload between its clone and exec. */
#ifndef BORNE_MV_TREE_H
#define BORNE_MV_TREE_H

#include <stdint.h>
#include <sys/types.h>

#include "mountview.h"

/* path is dir or lies beneath it (both normalised). */
int mv_tree_beneath(const char *path, const char *dir);

/* open_tree(dfd, path, flags): a detached clone's descriptor, or -1. */
long mv_tree_clone(int dfd, const char *path, unsigned flags);

/* mount_setattr(dfd, path, flags) setting set, clearing clr, with
 * propagation (0: unchanged).  0, or -1 with errno. */
int mv_tree_setattr(int dfd, const char *path, unsigned flags, uint64_t set,
    uint64_t clr, uint64_t propagation);

/* The rule's clone of src in b->tree, detached, recursive, with b's
 * attributes, private: nothing mounted beneath the host's path reaches
 * it, nothing mounted beneath it reaches the host.  0, or -1 with errno. */
int mv_tree_bind(struct mv_bind *b, int src);

/* path from dfd (absolute, normalised), one component at a time, none
 * followed if it is a symbolic link (ELOOP).  With mk, a component
 * missing in a directory of the file system mkdev (the view's own root)
 * is made: a directory (its mode and owner the host's directory's there,
 * looked up from host unless -1), or for the last one an empty file
 * unless dir.  The descriptor (O_PATH), or -1 with errno. */
int mv_tree_walk(int dfd, const char *path, dev_t mkdev, int mk, int dir,
    int host);

/* A user namespace whose only mapping takes on-disk uid:gid to
 * touid:togid, as a descriptor: a child born in it waits while its maps
 * are written and its namespace opened, then leaves.  The last one made
 * is kept for the next call with the same ids (stdout and stderr in files
 * of one owner, /etc).  -1 with errno. */
int mv_tree_idmap_ns(uid_t uid, gid_t gid, uid_t touid, gid_t togid);

#endif
