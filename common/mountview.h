/* SPDX-License-Identifier: ISC */
/* mountview: the run's view of the host, a mount namespace of its own in
 * which the kernel, not a supervisor, refuses writes and metadata changes
 * outside the plan's rw and rwx rules (EROFS).  Prepared in the parent
 * (mv_prepare: allocation, lookups), applied by the payload between its
 * clone (CLONE_NEWNS) and the capability drop (mv_apply: system calls
 * only).  Nothing here prints.
 *
 * The view, in the order mv_apply builds it:
 *  1. every mount becomes a slave of the host's: mounts propagate into
 *     the run, never out of it;
 *  2. each rw and rwx rule path, and each rule naming a device node, is
 *     cloned (open_tree OPEN_TREE_CLONE, recursive: the host's own
 *     read-only mounts beneath it stay read-only) before the next step;
 *  3. every mount is made read-only, nosuid and nodev (mount_setattr,
 *     AT_RECURSIVE);
 *  4. each clone goes back onto its own path (move_mount), shortest path
 *     first so nested rules stack: nosuid and nodev, writable where the
 *     host's mount was; a device node's clone read-only and with devices
 *     (a write to a device node is not a write to its file system; its
 *     mode, owner and times stay the host's);
 *  5. the run's private tmp, a tmpfs, on its mount point (tmp);
 *  6. a procfs of the run's pid namespace on /proc (nosuid, nodev,
 *     noexec, read-only unless a rw rule lies at or beneath /proc), and
 *     each Landlock rule at or beneath /proc added again on it (a rule
 *     binds to an inode: the host's /proc is no longer reachable);
 *  7. devices again on the host's device file systems (devtmpfs, devpts,
 *     whatever is mounted on /dev), still read-only: /dev/null works
 *     under --ro /, and a device node planted anywhere else does not;
 *  8. the working directory entered again, so that it names the top
 *     mount (a rw clone over it);
 *  9. the descriptors handed in (mv_handed) replaced by their reopened
 *     copies.
 *
 * A descriptor the caller hands the run (stdout, stderr, a kept fd) is
 * on the host's mount, outside the view.  mv_handed reopens each device
 * node through a read-only clone of its mount (writes to a device are
 * not its file system's; its mode, owner and times are EROFS), and each
 * regular file through a clone idmapped so that its owner and group are
 * ids no payload has (the payload is not its owner: EPERM for mode,
 * owner, flags and ACLs, EACCES for times and xattrs unless its mode
 * grants others write).  The copy has the descriptor's access mode and
 * flags and its offset; mv_end gives the offset back (a caller's
 * "{ confexec; echo done; } > log" goes on where the payload stopped). */
#ifndef BORNE_MOUNTVIEW_H
#define BORNE_MOUNTVIEW_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "plan.h"

struct mv_bind {
	const char *path;	/* as resolved (ll_build_real) */
	int device;		/* a device node: read-only, devices */
	int fd;			/* the detached clone (mv_apply) */
};

struct mv_proc {
	const char *path;	/* the plan's path, at or beneath /proc */
	uint64_t access;	/* its Landlock rights */
};

#define MV_HAND_MAX 67	/* stdin, stdout, stderr, PLAN_MAX_KEEP kept fds */
struct mv_hand {
	int fd;			/* the caller's descriptor */
	int newfd;		/* its reopened copy (close-on-exec) */
	int seek;		/* a regular file without O_APPEND */
	int append;		/* stdout or stderr in a regular file: newfd
				 * appends (so does confexec's say) */
};

struct mountview {
	struct mv_bind *bind;	/* sorted by path length */
	size_t nbind;
	struct mv_proc *proc;
	size_t nproc;
	int proc_rw;		/* a rw rule at or beneath /proc */
	int rw_root;		/* a rw rule on / itself: nosuid and nodev
				 * only, the host's read-only mounts kept */
	char **dev;		/* mount points of device file systems */
	size_t ndev;
	const char *tmp;	/* the private tmp's mount point, or NULL */
	char tmpopts[128];	/* its tmpfs options */
	const char *cwd;	/* entered again at the end ("" none) */
	int rulesetfd;		/* where the /proc and tmp rules go */
	uint64_t tmp_access;	/* the tmp rule's rights */
	struct mv_hand hand[MV_HAND_MAX];
	size_t nhand;
	const char *failed;	/* mv_apply: the step that failed */
	const char *failed_path;
};

/* The view for plan p: real are its rule paths as resolved (ll_build_real),
 * rulesetfd the run's Landlock ruleset (-1: none), abi its ABI; tmp the
 * private tmp's mount point (NULL: none), owned by uid:gid, at most
 * tmp_bytes large; cwd the directory to enter again.  A rw or rwx rule on
 * a sticky directory uid owns (/tmp for a uid-0 payload) is refused
 * (EPERM): its mode and ACLs are the owner's to change.  0, or -1 with
 * errno and err set. */
int mv_prepare(struct mountview *mv, const struct plan *p, char *const *real,
    int rulesetfd, int abi, const char *tmp, uid_t uid, gid_t gid,
    uint64_t tmp_bytes, const char *cwd, char *err, size_t errlen);

/* After mv_prepare: reopen each of fds[0..n) that is a device node or a
 * regular file (above), for a payload running as uid.  0, or -1 with
 * errno and err naming the descriptor (a file system without idmapped
 * mounts: EINVAL); what was reopened stays in mv either way. */
int mv_handed(struct mountview *mv, const int *fds, size_t n, uid_t uid,
    char *err, size_t errlen);

/* After the run: each reopened file's offset back on the caller's
 * descriptor, the copies closed. */
void mv_end(struct mountview *mv);

/* In the payload, inside its new mount namespace and still capable: build
 * the view.  0, or -1 with errno, mv->failed naming the step and
 * mv->failed_path its path.  System calls only. */
int mv_apply(struct mountview *mv);

void mv_free(struct mountview *mv);

#endif
