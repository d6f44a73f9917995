/* SPDX-License-Identifier: ISC */
/* probe: read-only probe of what this host can enforce for this caller.
 * cgprobe prints it; confexec consults it (mode selection, trust handoff).
 * Probing never writes anything anywhere. */
#ifndef BORNE_PROBE_H
#define BORNE_PROBE_H

#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct probe {
	/* cgroup v2 */
	int cg2;			/* a cgroup2 mount was found */
	int cg2_pure;			/* pure v2 (no v1 hierarchy mounted) */
	char cg2_mount[PATH_MAX];	/* e.g. /sys/fs/cgroup/unified */
	char cg2_self[PATH_MAX];	/* caller's cgroup, relative ("/...") */
	char cg2_dir[PATH_MAX];		/* mount + self: the caller's dir */
	int cg2_writable;		/* caller may create a child cgroup */
	char cg2_available[256];	/* cgroup.controllers of caller's dir */
	char cg2_enabled[256];		/* cgroup.subtree_control */
	int cg2_kill;			/* cgroup.kill exists */
	int cg2_clone_into;		/* clone3(CLONE_INTO_CGROUP) usable */

	/* Landlock */
	int landlock_abi;		/* 0: unavailable */

	/* seccomp */
	int seccomp_filter;		/* SECCOMP_MODE_FILTER available */
	int seccomp_kill_process;	/* SECCOMP_RET_KILL_PROCESS */
	int seccomp_kill_thread;
	int seccomp_trap;
	int seccomp_errno;
	int seccomp_user_notif;
	int seccomp_trace;
	int seccomp_log;
	int arch_x86_64;		/* native architecture is x86_64 */

	/* process and file mechanisms */
	int no_new_privs;		/* PR_SET_NO_NEW_PRIVS known */
	int userns;			/* user namespaces can be created */
	int memfd_seal;			/* memfd_create + F_ADD_SEALS */
	int memfd_exec_flag;		/* MFD_EXEC understood by the kernel */
	int memfd_noexec;		/* vm.memfd_noexec (0,1,2; -1 unknown) */
	int execveat;
	int close_range;
	int pidfd;			/* pidfd_open */
	int openat2;
	int fchmodat2;			/* fchmodat2 with AT_EMPTY_PATH */
	int xattrat;			/* getxattrat/removexattrat (6.13+) */

	/* caller */
	uid_t uid, euid;
	gid_t gid, egid;
	int root;			/* euid == 0 */
	char caps[512];			/* cap_to_text() of the caller */
	int subuid_n;			/* ranges of the caller in /etc/subuid */
	uint64_t subuid_start[8], subuid_count[8];
	int subgid_n;
	uint64_t subgid_start[8], subgid_count[8];
};

/* Fill *p.  Individual probes that fail leave their field 0 (meaning
 * "cannot be enforced"); only a failure to probe at all returns -1. */
int probe_host(struct probe *p);

/* Mechanism names understood by cgprobe --require and by confexec's mode
 * selection (NULL-terminated), e.g. "cgroup2", "cgroup-kill",
 * "clone-into-cgroup", "memory", "pids", "cpu", "landlock",
 * "landlock-truncate", "landlock-tcp", "landlock-ioctl-dev",
 * "landlock-scope", "seccomp", "seccomp-kill-process", "no-new-privs",
 * "memfd-exec", "execveat", "close-range", "pidfd", "userns"; see
 * cgprobe(1) for the full list. */
extern const char *const probe_mechanisms[];

/* 1 when mechanism name can be enforced on this host, 0 when not, -1 with
 * errno EINVAL for an unknown name.  On 0, why (if not NULL) gets a short
 * reason, e.g. "cgroup2 at /sys/fs/cgroup/unified has no memory
 * controller". */
int probe_can(const struct probe *p, const char *mechanism, char *why,
    size_t whylen);

/* 1 when [id, id+count) lies inside one of the caller's subuid (or subgid)
 * ranges, else 0. */
int probe_subuid_ok(const struct probe *p, uint64_t id);
int probe_subgid_ok(const struct probe *p, uint64_t id);

/* Privileged local daemons (the trust handoff): one entry per known socket
 * path that exists on this host. */
struct daemon_hit {
	const char *name;		/* "docker", "containerd", "podman",
					 * "buildkit", "libvirt", "dbus-system",
					 * ... (stable, documented) */
	char path[PATH_MAX];		/* the socket found */
	int connectable;		/* the given credentials could connect */
};

/* Look for the known daemon sockets and decide, for credentials uid/gid
 * with no supplementary groups, whether each could be connected to (DAC on
 * the socket and every directory above it; root passes DAC).  Fills at
 * most max entries; *n gets the count.  Returns 0 or -1 with errno. */
int probe_daemons(uid_t uid, gid_t gid, struct daemon_hit *hits, size_t max,
    size_t *n);

#endif
