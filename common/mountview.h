/* SPDX-License-Identifier: ISC */
/* mountview: the run's world, a mount namespace of its own that holds
 * only what the plan names; the kernel, not a supervisor, refuses writes
 * and metadata changes outside the plan's rw and rwx rules (EROFS), and
 * what no rule names is not there (ENOENT): host sockets, /run, other
 * mounts, the host's mount table.  Prepared in the parent (mv_prepare:
 * allocation, the clones), applied by the payload between its clone
 * (CLONE_NEWNS) and the capability drop (mv_apply: system calls only).
 * Nothing here prints.  mountview.c prepares and hands descriptors in,
 * mv_place.c builds the view, mv_secrets.c withholds /etc's secrets,
 * mv_tree.c holds the mount API calls they share.
 *
 * Every rule's path was opened once, by the Landlock walk that never
 * follows a symbolic link (landlock.h); that descriptor is what is
 * bound.  As root the clone (open_tree OPEN_TREE_CLONE, AT_EMPTY_PATH,
 * recursive: the host's read-only mounts beneath stay read-only) is made
 * by mv_prepare from it; in a user namespace of its own (a caller that
 * is not root) the payload walks the path again in its copy of the
 * host's mounts, never following a link, and binds it only if it is the
 * inode the rule's walk opened (ESTALE otherwise).  Each clone is private
 * (no propagation either way), nosuid and nodev; read-only for ro and rox,
 * writable for rw and rwx; a device node's read-only with devices (a
 * write to a device is not a write to its file system; its mode, owner
 * and times stay the host's).  No device works anywhere else.
 *
 * The view, in the order mv_apply builds it:
 *  1. the copied / leaves the host's propagation (private);
 *  2. an empty tmpfs (nosuid, nodev, noexec) over it: the view's root;
 *  3. the links of a merged /usr in / that lead into a bound path (/lib,
 *     /lib64, /bin), as the same links;
 *  4. each rule's clone at its resolved path, shortest path first so nested
 *     rules stack; each mount point found from the view's root by a walk
 *     that never follows a link, made in the view's own root where it is
 *     missing (a directory, or an empty file for a file), never in a
 *     host file system; a rule on / itself becomes the root;
 *     then, for a rule named through a link the plan follows, its
 *     plan's path as a link to the resolved one (where the view's own
 *     root has no entry of that name);
 *     then the host's secrets beneath /etc (below);
 *  5. the run's private tmp, a tmpfs, on its mount point (tmp);
 *  6. a procfs of the run's pid namespace on /proc, nosuid, nodev, noexec
 *     and read-only whatever the rules (its /proc/sys, sysrq-trigger, irq
 *     and bus would act on the host); each Landlock rule at or beneath
 *     /proc added again on it (a rule binds to an inode);
 *  7. the root tmpfs made read-only, then entered (chroot: the copied
 *     host tree beneath is out of every path's reach, and its mounts are
 *     out of the run's mount table);
 *  8. the working directory entered again inside the view (/ when it is
 *     not there);
 *  9. the descriptors handed in (mv_handed) replaced by their reopened
 *     copies.
 *
 * The host's secrets.  Where a ro or rox rule puts /etc in the view (the
 * preset's /etc, --ro /), as root: /etc's clone is idmapped so that the
 * host's uid and gid 0 are an id no payload has, and the payload, root
 * without a capability, is "others" for every file there: what others
 * may not read on the host (shadow, sudoers, private keys, mode 0600
 * files) it may not read either (EACCES), whatever /etc holds, with no
 * walk of it.  A rule on / itself gets a clone of /etc of its own for
 * that.  On a file system without idmapped mounts /etc is walked once
 * instead (at most MV_SCAN_MAX entries, else refused), and each entry
 * others may not read is covered.  Either way the secrets by name
 * (plan_preset_secret_globs: shadow, gshadow, sudoers, sudoers.d, ssh
 * host keys, ...) that others may read (or, without the id map, all of
 * them) are covered by an empty file or directory of mode 0, unless a
 * rule names one of them or a path beneath it.  Not withheld: a
 * rw or rwx rule's /etc (the plan grants writing it), and a payload in a
 * user namespace of its own (a caller that is not root: the payload has
 * the caller's uid, which the host's file modes already hold back).
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
	dev_t dev;		/* the identity of the rule's descriptor */
	ino_t ino;
	int dir;		/* a directory */
	uint64_t set, clr;	/* its MOUNT_ATTR_* */
	int tree;		/* its detached clone, -1 once placed */
};

struct mv_proc {
	const char *path;	/* the plan's path, at or beneath /proc */
	uint64_t access;	/* its Landlock rights */
};

#define MV_LINK_MAX 16
#define MV_SCAN_MAX 20000	/* entries of /etc walked without idmaps */
struct mv_link {
	char name[64];		/* in / */
	char to[192];		/* relative */
};

#define MV_HAND_MAX 67	/* stdin, stdout, stderr, PLAN_MAX_KEEP kept fds */
struct mv_hand {
	int fd;			/* the caller's descriptor */
	int newfd;		/* its reopened copy (close-on-exec) */
	int seek;		/* a regular file without O_APPEND */
	int append;		/* stdout or stderr in a regular file: newfd
				 * appends (so does confexec's say) */
};

/* A rule named through a symbolic link the plan follows: the plan's path
 * is a link to where it led, in the view too. */
struct mv_alias {
	const char *path;	/* the plan's */
	const char *to;		/* as resolved */
};

/* A host secret beneath /etc, covered in the view by an empty file or
 * directory of mode 0 (no payload opens it: it has no capability). */
struct mv_cover {
	char *path;
	int dir;
};

struct mountview {
	struct mv_bind *bind;	/* sorted by path length */
	size_t nbind;
	struct mv_cover *cover;
	size_t ncover;
	const char *etc_how;	/* how /etc's secrets are withheld (NULL:
				 * /etc is not in the view read-only) */
	struct mv_alias *alias;
	size_t nalias;
	struct mv_proc *proc;
	size_t nproc;
	struct mv_link link[MV_LINK_MAX];
	size_t nlink;
	int userns;		/* the payload clones (mv_apply) */
	const char *tmp;	/* the private tmp's mount point, or NULL */
	char tmpuid[24], tmpgid[24], tmpsize[24];	/* its options */
	const char *cwd;	/* entered again at the end ("" none) */
	int rulesetfd;		/* where the /proc and tmp rules go */
	uint64_t tmp_access;	/* the tmp rule's rights */
	struct mv_hand hand[MV_HAND_MAX];
	size_t nhand;
	const char *failed;	/* mv_apply: the step that failed */
	const char *failed_path;
};

/* What the view is made from: plan's rules as resolved (real, from
 * ll_build_real) and as opened (rulefd, its descriptors); userns, the
 * payload in a user namespace of its own; rulesetfd the run's Landlock
 * ruleset (-1: none), abi its ABI; tmp the private tmp's mount point
 * (NULL: none), owned by uid:gid, at most tmp_bytes large; cwd the
 * directory to enter again. */
struct mv_args {
	const struct plan *plan;
	char *const *real;
	const int *rulefd;
	int userns;
	int rulesetfd;
	int abi;
	const char *tmp;
	uid_t uid;
	gid_t gid;
	uint64_t tmp_bytes;
	const char *cwd;
};

/* The view for a->plan.  Refused (EPERM, err naming the rule): a rw or
 * rwx rule at or beneath /proc or /sys, or beneath /dev on anything but a
 * device node; one on a sticky directory uid owns (/tmp for a uid-0
 * payload: its mode and ACLs are the owner's to change).  0, or -1 with
 * errno and err set. */
int mv_prepare(struct mountview *mv, const struct mv_args *a, char *err,
    size_t errlen);

/* After mv_prepare: reopen each of fds[0..n) that is a device node or a
 * regular file (above), for a payload running as uid.  0, or -1 with
 * errno and err naming the descriptor (a file system without idmapped
 * mounts: EINVAL); what was reopened stays in mv either way. */
int mv_handed(struct mountview *mv, const int *fds, size_t n, uid_t uid,
    char *err, size_t errlen);

/* After the run: each reopened file's offset back on the caller's
 * descriptor, the copies closed. */
void mv_end(struct mountview *mv);

/* Once the payload has its view (or failed): the parent's clones closed. */
void mv_spawned(struct mountview *mv);

/* In the payload, inside its new mount namespace and still capable: build
 * the view (mv_place.c).  0, or -1 with errno, mv->failed naming the step and
 * mv->failed_path its path.  System calls only. */
int mv_apply(struct mountview *mv);

void mv_free(struct mountview *mv);

#endif
