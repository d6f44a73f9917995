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
	int cg2_werrno;			/* not: why (access(2)'s errno) */
	int cg2_ro;			/* not: its mount is read-only (EROFS) */
	char cg2_available[256];	/* cgroup.controllers of caller's dir */
	char cg2_enabled[256];		/* cgroup.subtree_control */
	int cg2_kill;			/* cgroup.kill exists (see cgprobe(1):
					 * the root cgroup has none, so a child
					 * or the kernel version tells) */
	char cg2_kill_how[8];		/* "file", "child", "kernel" or "" */
	int cg2_v1;			/* number of cgroup v1 hierarchies */
	int cg2_clone_into;		/* clone3(CLONE_INTO_CGROUP) usable */

	/* Landlock */
	int landlock_abi;		/* 0: unavailable */
	int landlock_errno;		/* errno of the version query, or 0 */

	/* seccomp */
	int seccomp_filter;		/* SECCOMP_MODE_FILTER available */
	int seccomp_mode;		/* caller's current mode (PR_GET_SECCOMP) */
	int seccomp_kill_process;	/* SECCOMP_RET_KILL_PROCESS */
	int seccomp_kill_thread;
	int seccomp_trap;
	int seccomp_errno;
	int seccomp_user_notif;
	int seccomp_trace;
	int seccomp_log;
	int arch_x86_64;		/* native architecture is x86_64 */
	char arch[65];			/* uname(2) machine */

	/* process and file mechanisms */
	int no_new_privs;		/* PR_SET_NO_NEW_PRIVS known */
	int no_new_privs_set;		/* already set on the caller */
	int userns;			/* user namespaces can be created */
	long userns_max;		/* user.max_user_namespaces, -1 unknown */
	int userns_unpriv;		/* kernel.unprivileged_userns_clone,
					 * -1 when the sysctl does not exist */
	int memfd_seal;			/* memfd_create + F_ADD_SEALS */
	int memfd_exec_flag;		/* MFD_EXEC understood by the kernel */
	int memfd_noexec;		/* vm.memfd_noexec (0,1,2; -1 unknown) */
	int execveat;
	int close_range;
	int pidfd;			/* pidfd_open */
	int openat2;
	int fchmodat2;			/* fchmodat2 with AT_EMPTY_PATH */
	int xattrat;			/* getxattrat/removexattrat (6.13+) */

	/* namespaces (PROBE_NS: a throwaway child tries each call) */
	int ns_probed;			/* the child answered */
	int clone3;			/* clone3 answers (not ENOSYS) */
	int clone3_errno;		/* else its errno */
	int ns_clone_errno;		/* clone with namespace flags: 0 passes
					 * the seccomp filter, else its errno */
	int ns_setns_errno;		/* setns: the same */
	int ns_userns_errno;		/* not root: unshare(CLONE_NEWUSER) */
	int userns_errno;		/* unshare(CLONE_NEWUSER) tried for any
					 * caller: 0, its errno, -1 untried */
	int ns_pid_errno;		/* unshare(CLONE_NEWPID): 0 or errno */
	int ns_ipc_errno;		/* unshare(CLONE_NEWIPC): 0 or errno */
	int ns_killed;			/* the child died of this signal */
	int seccomp_listener_errno;	/* SECCOMP_FILTER_FLAG_NEW_LISTENER:
					 * 0 allowed, else the errno */
	int ns_root;			/* probed as euid 0 (no user namespace) */
	int cap_sys_admin;		/* CAP_SYS_ADMIN in the effective set */

	/* caller */
	uid_t uid, euid;
	gid_t gid, egid;
	int root;			/* euid == 0 */
	char caps[512];			/* cap_to_text() of the caller */
	int subuid_n;			/* ranges of the caller in /etc/subuid */
	int subid_truncated;		/* more than 8 ranges: rest ignored */
	uint64_t subuid_start[8], subuid_count[8];
	int subgid_n;
	uint64_t subgid_start[8], subgid_count[8];
};

/* Fill *p.  Individual probes that fail leave their field 0 (meaning
 * "cannot be enforced"); only a failure to probe at all returns -1. */
int probe_host(struct probe *p);

/* What probe_host_mask() probes: fields outside the mask stay 0. */
enum {
	PROBE_CALLER = 1u << 0,		/* uid, euid, gid, egid, root */
	PROBE_CAPS = 1u << 1,		/* caps (cap_to_text) */
	PROBE_CGROUP = 1u << 2,		/* cg2*, except what PROBE_EXACT and
					 * PROBE_CONTROLLERS add */
	PROBE_LANDLOCK = 1u << 3,	/* landlock_abi, landlock_errno */
	PROBE_SECCOMP = 1u << 4,	/* seccomp_*, arch */
	PROBE_NNP = 1u << 5,		/* no_new_privs* */
	PROBE_USERNS = 1u << 6,		/* userns* */
	PROBE_MEMFD = 1u << 7,		/* memfd_* */
	PROBE_SYSCALLS = 1u << 8,	/* execveat, close_range, pidfd */
	PROBE_NEWCALLS = 1u << 9,	/* openat2, fchmodat2, xattrat */
	PROBE_SUBID = 1u << 10,		/* subuid_*, subgid_* (reads passwd) */
	/* With PROBE_CGROUP: answer cg2_clone_into by a clone3 dry run
	 * (about a process copy's cost) and cg2_kill in cgprobe's order
	 * (file, child cgroup, kernel release).  Without it, from the kernel
	 * release (clone3 with CLONE_INTO_CGROUP: 5.7, on a cgroup2 mount)
	 * and cg2_kill as file, kernel release, child cgroup: the same
	 * yes/no, a cheaper "how".  A caller that relies on the cheap answer
	 * must still fail closed when the real call fails. */
	PROBE_EXACT = 1u << 11,
	/* With PROBE_CGROUP: cg2_available and cg2_enabled (the caller's
	 * cgroup.controllers and cgroup.subtree_control), which only the
	 * controller mechanisms ("memory", "pids", "cpu", "io") use.
	 * Without it both stay "" and those mechanisms answer 0. */
	PROBE_CONTROLLERS = 1u << 12,
	/* clone3, ns_*, cap_sys_admin: the calls confexec makes for the
	 * run's namespaces, tried in a throwaway child (a process copy's
	 * cost); without PROBE_EXACT a root caller makes no process: the
	 * seccomp filter's answers in-process, CAP_SYS_ADMIN for the rest
	 * (probens.c). */
	PROBE_NS = 1u << 13,
	PROBE_ALL = (1u << 14) - 1,
};

/* probe_host() restricted to the probes in what (PROBE_* bits); the
 * probes themselves are the same.  probe_host(p) is
 * probe_host_mask(p, PROBE_ALL).  0, or -1 with errno EINVAL. */
int probe_host_mask(struct probe *p, unsigned what);

/* Mechanism names understood by cgprobe --require and by confexec's mode
 * selection (NULL-terminated), e.g. "cgroup2", "cgroup-kill",
 * "clone-into-cgroup", "memory", "pids", "cpu", "landlock",
 * "landlock-truncate", "landlock-tcp", "landlock-ioctl-dev",
 * "landlock-scope", "seccomp", "seccomp-kill-process", "no-new-privs",
 * "memfd-exec", "execveat", "close-range", "pidfd", "userns", "clone3",
 * "seccomp-listener", "pid-namespace", "mount-namespace", "ipc-namespace", "net-namespace"; see
 * cgprobe(1) for the full list. */
extern const char *const probe_mechanisms[];

/* 1 when mechanism name can be enforced on this host, 0 when not, -1 with
 * errno EINVAL for an unknown name.  On 0, why (if not NULL) gets a short
 * reason, e.g. "cgroup2 at /sys/fs/cgroup/unified has no memory
 * controller". */
int probe_can(const struct probe *p, const char *mechanism, char *why,
    size_t whylen);

/* 1 when id lies inside one of the caller's subuid (or subgid) ranges,
 * else 0. */
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
	dev_t dev;			/* the socket file's (lstat) */
	ino_t ino;
};

/* Look for the known daemon sockets (lstat: only sockets count, the same
 * inode reached twice is listed once; plus the rootless docker and podman
 * sockets under $XDG_RUNTIME_DIR when it is set and absolute) and decide,
 * for credentials uid/gid with no supplementary groups, whether each could
 * be connected to (write on the socket and search on every directory of
 * its real path; root passes DAC; a POSIX ACL is read as granting what its
 * mask allows, so the answer errs towards "connectable").  Fills at most
 * max entries; *n gets the count.  Returns 0 or -1 with errno (E2BIG when
 * more than max were found: the first max are filled). */
int probe_daemons(uid_t uid, gid_t gid, struct daemon_hit *hits, size_t max,
    size_t *n);

#endif
