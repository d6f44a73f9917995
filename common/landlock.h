/* SPDX-License-Identifier: ISC */
/* landlock: a plan's filesystem and TCP domain built as a ruleset fd ahead
 * of time (in the parent) from the ABI table of llabi.h, applied by
 * landlock_restrict_self() in the child.  Nothing here prints. */
#ifndef BORNE_LANDLOCK_H
#define BORNE_LANDLOCK_H

#include <stddef.h>
#include <stdint.h>

#include "llabi.h"
#include "plan.h"

/* Rights an intent grants beneath a directory, and on a non-directory
 * (Landlock refuses directory-only rights on files), masked to what the
 * ABI handles.
 *   ro  = read_file | read_dir
 *   rox = ro | execute
 *   rw  = every handled right except execute, make_char and make_block
 *         (no device nodes even where a capability would allow them)
 *   rwx = rw | execute. */
uint64_t ll_intent_rights(enum plan_intent in, int is_dir, int abi);

/* Build the plan's ruleset for abi: the fs domain handles every fs right
 * of the ABI, with one rule per plan path (opened O_PATH|O_CLOEXEC); the
 * net domain (ABI >= 4) handles TCP bind and connect, with one rule per
 * granted port (port 0 of bind-tcp: an ephemeral port); scopes (ABI >= 6)
 * cover abstract unix sockets and signals.
 * A rule path is opened one component at a time without following a
 * symbolic link in any component (ELOOP, err naming the link and its
 * target), unless the plan lists it under follow.  A rox and a rw rule
 * that nest once resolved are refused (EPERM).  A path that cannot be
 * opened or a rule the kernel refuses fails the whole ruleset: -1 with
 * errno and err naming the path; nothing is left open.  On success *rfd
 * is the ruleset fd (close-on-exec). */
int ll_build(const struct plan *p, int abi, int *rfd, char *err,
    size_t errlen);

/* As ll_build(), and *real an array of p->nfs malloc'd strings: the path
 * each rule resolved to (the plan's own, but where a followed symlink
 * led).  Release *real with ll_real_free(*real, p->nfs), whatever the
 * result.  With fds non-NULL, *fds gets an array of p->nfs descriptors
 * (O_PATH, close-on-exec): each rule's path as its walk opened it, the
 * one lookup of that path (the mount view binds them, mountview.h);
 * -1 where none was opened.  Release with ll_fds_free(*fds, p->nfs). */
int ll_build_real(const struct plan *p, int abi, int *rfd, char ***real,
    int **fds, char *err, size_t errlen);
void ll_fds_free(int *fds, size_t n);
void ll_real_free(char **real, size_t n);

/* One more rule, on the directory open at dirfd (the run's private tmp,
 * made by the supervisor: no path to resolve), with the rights of in.
 * 0, or -1 with errno and err. */
int ll_add_fd(int rfd, int dirfd, enum plan_intent in, int abi, char *err,
    size_t errlen);

/* One more rule: TCP connect to port (the run's egress broker) where
 * the ABI restricts TCP (4 and later); with an older ABI nothing to add
 * (returns 0).  0, or -1 with errno and err. */
int ll_add_connect(int rfd, int abi, uint16_t port, char *err,
    size_t errlen);

/* Whether the plan's rules (real: their resolved paths, from
 * ll_build_real) grant need (PLAN_RO: read, PLAN_ROX: execute, PLAN_RW:
 * write) on path (absolute, resolved).  1: granted, buf names the rule
 * ("rox /usr"); 0: not, buf has the flag that would grant it ("--rox
 * /usr/lib/x86_64-linux-gnu, or --preset sys" when the preset covers
 * it).  Uses realpath(3) on the preset's paths: call it in the parent. */
int ll_grant_hint(const struct plan *p, char *const *real, const char *path,
    enum plan_intent need, char *buf, size_t size);

/* The same, the flag naming target (path itself, or the directory a
 * name is made in) instead of path's directory. */
int ll_grant_hint_at(const struct plan *p, char *const *real,
    const char *path, const char *target, enum plan_intent need, char *buf,
    size_t size);

/* The same question without the hint (no realpath: cheap, for every
 * call the supervisor observes): the index of the first rule that
 * grants need on path, or -1. */
long ll_granted(const struct plan *p, char *const *real, const char *path,
    enum plan_intent need);

/* In the child, after PR_SET_NO_NEW_PRIVS: enforce the ruleset on the
 * calling thread.  Returns 0 or -1 with errno (only raw syscalls). */
int ll_enforce(int rfd, int abi);

#endif
