/* SPDX-License-Identifier: ISC */
/* cgroup: one fresh cgroup v2 per run, under the caller's cgroup2
 * directory (found by the probe from mountinfo and /proc/self/cgroup),
 * with its limits written before any process is inside; the child is
 * placed in it by clone3(CLONE_INTO_CGROUP).  Ends with cgroup.kill, a
 * bounded wait for "populated 0" and rmdir.  Nothing here prints. */
#ifndef BORNE_CGROUP_H
#define BORNE_CGROUP_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cg_limits {
	uint64_t mem_max;	/* memory.max bytes; 0: not written */
	uint64_t pids_max;	/* pids.max; 0: not written */
	uint64_t cpu_quota_us;	/* cpu.max quota; 0: not written */
	uint64_t cpu_period_us;
};

struct cg {
	char path[PATH_MAX];	/* absolute directory of the run's cgroup */
	char rel[PATH_MAX];	/* as /proc/self/cgroup shows it: "/name" */
	int dirfd;		/* O_PATH|O_DIRECTORY|O_CLOEXEC, for clone3 */
	int killfd;		/* cgroup.kill, open for writing */
	int eventsfd;		/* cgroup.events, open for reading */
};

/* Create parent_dir/borne-<pid>-ns<pid namespace inode>-<n> (parent_rel
 * is the caller's cgroup as /proc/self/cgroup names it), enable in
 * parent_dir/cgroup.subtree_control the controllers the limits need,
 * write them, and open the directory, cgroup.kill and cgroup.events:
 * ending the run (cg_kill, cg_wait_empty) then needs no new descriptor.
 * The directory is made with mode 0 and locked (flock, never waiting:
 * bounded retries, then another name), then armed (mode 0111): the lock
 * is the proof for cg_reap that its supervisor lives, held until
 * cg_remove or the supervisor's end, and nobody without DAC override can
 * open the directory to take or block it.  A caller without DAC override
 * (a delegated cgroup it owns) uses 0700 and 0711: other uids cannot
 * open it, the owner's processes can.  Returns 0, or -1 with errno and
 * err set (EWOULDBLOCK: every new name was locked or removed by another
 * process); on failure the directory is removed again. */
int cg_create(struct cg *cg, const char *parent_dir, const char *parent_rel,
    const struct cg_limits *lim, char *err, size_t errlen);

/* In the child: 0 when /proc/self/cgroup's "0::" line names cg->rel,
 * -1 otherwise (errno ESRCH, or the read error).  Only syscalls. */
int cg_is_member(const struct cg *cg);

/* Kill every process in the cgroup (cgroup.kill, SIGKILL to the whole
 * tree, escaped setsid grandchildren included), through the descriptor
 * cg_create opened: no allocation, no new descriptor.  Returns 0 or -1. */
int cg_kill(const struct cg *cg);

/* Wait until cgroup.events says "populated 0", at most timeout_ms
 * (poll on the events descriptor).  Returns 0, or -1 with errno
 * ETIMEDOUT (or the read error). */
int cg_wait_empty(const struct cg *cg, int timeout_ms);

/* CPU time used by the run (cpu.stat usage_usec, always present in v2).
 * Returns 0 or -1 with errno. */
int cg_cpu_usec(const struct cg *cg, uint64_t *usec);

/* Processes of the run the OOM killer killed: the "oom_kill" line of
 * memory.events (this cgroup and its descendants).  Returns 0, or -1
 * with errno (ENOENT without the memory controller; EPROTO when the line
 * is missing or malformed). */
int cg_oom_kills(const struct cg *cg, uint64_t *n);

/* 1 when word is one of the words of list, a cgroup interface file's
 * content such as cgroup.controllers ("cpu io memory pids\n"): words
 * are separated by blanks (space, tab, newline), the ends count as
 * blanks.  0 otherwise, and for an empty word or one holding a blank. */
int cg_list_has(const char *list, const char *word);

/* rmdir the cgroup (its lock still held), then close the descriptors.
 * Returns 0, or -1 with errno when the directory stays (a residue the
 * caller reports). */
int cg_remove(struct cg *cg);

/* The pid and pid namespace inode a run cgroup's name holds:
 * borne-PID-nsINO-SUFFIX; an older name (borne-PID-SUFFIX) has no
 * namespace (*ns 0).  0, or -1 when name is not a run cgroup's. */
int cg_name_parse(const char *name, long *pid, unsigned long long *ns);

/* One run cgroup found stale by cg_reap. */
struct cg_reaped {
	char path[PATH_MAX];
	int populated;	/* processes were still inside (killed) */
	int removed;	/* rmdir succeeded */
	int err;	/* errno when not removed */
};

/* Find the run cgroups under parent_dir whose supervisor is gone and
 * remove them: whatever is inside killed (cgroup.kill), waited for at
 * most wait_ms (0: not at all; a populated one then stays for the next
 * reaper), each removed with its children, its lock held until then.
 * A run cgroup (borne-PID-...) is stale when nothing holds the lock its
 * supervisor takes at creation (cg_create) and it is armed, or, still
 * fresh (a supervisor between mkdir and flock, or one that died there),
 * when its name is of our pid namespace and no process has PID there
 * (pidfd_open): a live run's cgroup is never touched, a reused pid cannot
 * pass for a live one (it only delays reaping a stale one), and a reaper
 * in another pid namespace never judges a fresh one.  Cgroups it cannot
 * open are left alone.  fn (may be NULL) is called for each.
 * Returns how many were found stale, or -1 with errno (EBUSY: some
 * could not be removed). */
int cg_reap(const char *parent_dir, int wait_ms,
    void (*fn)(void *arg, const struct cg_reaped *rp), void *arg);

#endif
