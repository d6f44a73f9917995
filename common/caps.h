/* SPDX-License-Identifier: ISC */
/* caps: the payload's credentials: subordinate uid/gid switch, then every
 * capability dropped (libcap) and the securebits locked, so that even a
 * payload started by root without a uid switch holds no capability after
 * execve.  Used in the child between clone and exec: only syscalls and
 * libcap calls on objects prepared in the parent.  Nothing here prints.
 *
 * Order (capabilities(7)):
 *  1. caps_lock_securebits: NOROOT (exec grants no caps to uid 0),
 *     NO_SETUID_FIXUP (the uid switch below keeps, rather than reshuffles,
 *     the caps we still need for the next steps), NO_CAP_AMBIENT_RAISE,
 *     KEEP_CAPS off; each with its _LOCKED bit.  Needs CAP_SETPCAP.
 *  2. caps_drop_bounding: PR_CAPBSET_DROP for 0..cap_max_bits()-1 (read
 *     at run time), and the ambient set cleared.  Needs CAP_SETPCAP.
 *  3. creds_switch: setgroups(0), setresgid, setresuid; verified.
 *  4. caps_clear: permitted, effective, inheritable emptied (a cap_t
 *     built in the parent by caps_empty(), applied with cap_set_proc,
 *     which allocates nothing); verified with capget(2) into a buffer on
 *     the stack.
 * A caller holding no capability at all (not root) cannot and need not
 * do 1 and 2: with no_new_privs set later, exec cannot raise any. */
#ifndef BORNE_CAPS_H
#define BORNE_CAPS_H

#include <sys/capability.h>
#include <sys/types.h>

/* 1 when the calling process holds CAP_SETPCAP in its effective set. */
int caps_have_setpcap(void);

/* Steps 1-4 above; each returns 0 or -1 with errno. */
int caps_lock_securebits(void);
int caps_drop_bounding(void);
int creds_switch(int has_uid, uid_t uid, int has_gid, gid_t gid);
int caps_clear(cap_t empty);

/* In the parent: a cap_t with every set clear for caps_clear() (NULL with
 * errno on failure; cap_free() it after the child is gone). */
cap_t caps_empty(void);

/* 0 when the effective, permitted, inheritable and ambient sets are all
 * empty (and, when bounding is set, the bounding set too); -1 with errno
 * EPERM otherwise.  Allocates nothing. */
int caps_verify_empty(int bounding);

#endif
