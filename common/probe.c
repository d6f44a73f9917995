/* SPDX-License-Identifier: ISC */
/* probe: read-only host probes: the whole probe_host_mask(), the caller
 * (capabilities, subordinate ids) and the mechanism verdicts of
 * probe_can().  The cgroup probes are in probecg.c, the kernel mechanisms
 * in probesys.c, the privileged daemons in probedaemon.c.  Nothing is
 * created outside this process. */
#include <errno.h>
#include <stddef.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "cgroup.h"
#include "err.h"
#include "io.h"
#include "llabi.h"
#include "probeint.h"
#include "scan.h"

/* ---- caller ---- */

static void
probe_caps(struct probe *p)
{
	cap_t c;
	char *t;

	p->caps[0] = '\0';
	c = cap_get_proc();
	if (c == NULL)
		return;
	t = cap_to_text(c, NULL);
	if (t != NULL) {
		snprintf(p->caps, sizeof(p->caps), "%s", t);
		cap_free(t);
	}
	cap_free(c);
}

/* The caller's user name, looked up once and only when a line needs it
 * (the first lookup of a process reads nsswitch.conf and the passwd
 * database). */
struct subname {
	uid_t uid;
	int tried;
	const char *name;	/* NULL: no such user */
	struct passwd pw;
	char buf[4096];
};

static const char *
subname_get(struct subname *s)
{
	struct passwd *res = NULL;

	if (!s->tried) {
		s->tried = 1;
		if (getpwuid_r(s->uid, &s->pw, s->buf, sizeof(s->buf),
			&res) == 0 && res)
			s->name = res->pw_name;
	}
	return s->name;
}

/* Ranges of "name:start:count" lines for the caller's name or uid. */
static void
subid_read(const char *path, struct subname *sn, int *n,
    uint64_t *start, uint64_t *count, int *truncated)
{
	char buf[65536], *line, *save = NULL, ustr[24];
	const char *name;

	*n = 0;
	if (read_small(path, buf, sizeof(buf)) == -1)
		return;
	snprintf(ustr, sizeof(ustr), "%u", (unsigned)sn->uid);
	for (line = strtok_r(buf, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save)) {
		char *c1, *c2;
		uint64_t s, k;

		c1 = strchr(line, ':');
		if (c1 == NULL)
			continue;
		*c1++ = '\0';
		c2 = strchr(c1, ':');
		if (c2 == NULL)
			continue;
		*c2++ = '\0';
		if (strcmp(line, ustr) != 0 &&
		    ((name = subname_get(sn)) == NULL ||
			strcmp(line, name) != 0))
			continue;
		if (scan_u64(c1, 0, UINT32_MAX, &s) == -1 ||
		    scan_u64(c2, 1, UINT32_MAX, &k) == -1 ||
		    s + k > (uint64_t)UINT32_MAX + 1)
			continue;	/* malformed: shadow-utils skips too */
		if (*n >= 8) {
			*truncated = 1;
			continue;
		}
		start[*n] = s;
		count[*n] = k;
		(*n)++;
	}
}

static void
probe_subid(struct probe *p)
{
	struct subname sn;

	sn.uid = p->uid;
	sn.tried = 0;
	sn.name = NULL;
	subid_read("/etc/subuid", &sn, &p->subuid_n, p->subuid_start,
	    p->subuid_count, &p->subid_truncated);
	subid_read("/etc/subgid", &sn, &p->subgid_n, p->subgid_start,
	    p->subgid_count, &p->subid_truncated);
}

static int
id_in(int n, const uint64_t *start, const uint64_t *count, uint64_t id)
{
	int i;

	for (i = 0; i < n; i++)
		if (id >= start[i] && id - start[i] < count[i])
			return 1;
	return 0;
}

int
probe_subuid_ok(const struct probe *p, uint64_t id)
{
	return id_in(p->subuid_n, p->subuid_start, p->subuid_count, id);
}

int
probe_subgid_ok(const struct probe *p, uint64_t id)
{
	return id_in(p->subgid_n, p->subgid_start, p->subgid_count, id);
}

/* ---- the whole probe ---- */

int
probe_host(struct probe *p)
{
	return probe_host_mask(p, PROBE_ALL);
}

/* Whether the sysctls let the caller make a user namespace. */
static void
probe_userns(struct probe *p)
{
	long r;

	p->userns_max = probe_read_long("/proc/sys/user/max_user_namespaces");
	r = probe_read_long("/proc/sys/kernel/unprivileged_userns_clone");
	p->userns_unpriv = r < 0 ? -1 : (int)r;
	p->userns = p->userns_max > 0 && (p->root || p->userns_unpriv != 0);
}

int
probe_host_mask(struct probe *p, unsigned what)
{
	long r;

	if (p == NULL || (what & ~(unsigned)PROBE_ALL) != 0)
		return errno = EINVAL, -1;
	memset(p, 0, sizeof(*p));
	if (what & (PROBE_CALLER | PROBE_SUBID | PROBE_USERNS)) {
		p->uid = getuid();
		p->euid = geteuid();
		p->gid = getgid();
		p->egid = getegid();
		p->root = p->euid == 0;
	}
	if (what & PROBE_CAPS)
		probe_caps(p);
	if (what & PROBE_CGROUP)
		probe_cgroup(p, (what & PROBE_EXACT) != 0,
		    (what & PROBE_CONTROLLERS) != 0);
	if (what & PROBE_LANDLOCK) {
		p->landlock_abi = ll_abi();
		p->landlock_errno = p->landlock_abi > 0 ? 0 : errno;
	}
	if (what & PROBE_SECCOMP)
		probe_seccomp(p);
	if (what & PROBE_NNP) {
		r = prctl(PR_GET_NO_NEW_PRIVS, 0, 0, 0, 0);
		p->no_new_privs = r >= 0;
		p->no_new_privs_set = r == 1;
	}
	if (what & PROBE_USERNS)
		probe_userns(p);
	if (what & PROBE_MEMFD)
		probe_memfd(p);
	if (what & PROBE_SYSCALLS)
		probe_syscalls(p);
	if (what & PROBE_NEWCALLS)
		probe_newcalls(p);
	if (what & PROBE_SUBID)
		probe_subid(p);
	if (what & PROBE_NS)
		probe_ns(p, (what & PROBE_EXACT) != 0);
	return 0;
}

/* ---- mechanisms ---- */

const char *const probe_mechanisms[] = {
	"cgroup2", "cgroup-kill", "clone-into-cgroup",
	"memory", "pids", "cpu", "io",
	"landlock", "landlock-refer", "landlock-truncate", "landlock-tcp",
	"landlock-ioctl-dev", "landlock-scope", "landlock-log",
	"seccomp", "seccomp-kill-process", "seccomp-user-notif",
	"no-new-privs", "userns", "subuid", "subgid",
	"memfd-seal", "memfd-exec", "execveat", "close-range", "pidfd",
	"openat2", "fchmodat2", "xattrat",
	"clone3", "seccomp-listener", "pid-namespace", "mount-namespace",
	"ipc-namespace",
	"net-namespace",
	NULL,
};

#define WHY(...) ((void)err_set(why, whylen, __VA_ARGS__))

/* Why the caller cannot create a cgroup, with what would let it: root,
 * or a subtree delegated to it (the kernel's cgroup-v2.rst,
 * "Delegation": the directory and its cgroup.procs, cgroup.threads and
 * cgroup.subtree_control owned by the user), never the cgroup2 root or a
 * cgroup other users share: whoever may write those may move their
 * processes. */
static int
cant_write_cgroup(const struct probe *p, char *why, size_t whylen)
{
	const char *m = p->cg2_mount;
	unsigned long u = (unsigned long)p->euid;

	if (p->cg2_ro)
		return WHY("cgroup %.200s is on a read-only mount (container "
		    "runtimes mount cgroup2 read-only unless --privileged; "
		    "with CAP_SYS_ADMIN: mount -o remount,rw %.200s)",
		    p->cg2_dir, m), 0;
	if (p->root)
		return WHY("cgroup %.200s is not writable by the caller: %s "
		    "(root needs CAP_DAC_OVERRIDE or the directory's "
		    "ownership; inside a confexec run, whose payload has no "
		    "capability and a Landlock domain, it never is)",
		    p->cg2_dir, strerror(p->cg2_werrno)), 0;
	return WHY("uid %lu cannot create a cgroup under %.200s: run as root, "
	    "or from a cgroup delegated to uid %lu that holds the caller: "
	    "systemd-run --user --scope -p Delegate=yes COMMAND, or, as "
	    "root, mkdir %.100s/borne-%lu, chown %lu its directory and its "
	    "cgroup.procs, cgroup.threads and cgroup.subtree_control, and "
	    "write the caller's shell pid to its cgroup.procs", u,
	    p->cg2_dir, u, strcmp(m, "/") == 0 ? "" : m, u, u), 0;
}

static int
can_cgroup(const struct probe *p, char *why, size_t whylen)
{
	if (!p->cg2)
		return WHY("no cgroup2 mount in /proc/self/mountinfo (mount "
		    "one as root: mount -t cgroup2 cgroup2 DIR; in a "
		    "container: docker run --cgroupns=private on a cgroup v2 "
		    "host, writable with --privileged or once remounted "
		    "read-write with CAP_SYS_ADMIN; inside a confexec run the "
		    "view holds only what its plan names, and its payload "
		    "could not write one: it never is)"), 0;
	if (p->cg2_dir[0] == '\0')
		return WHY("caller's cgroup %s is not visible under %s",
		    p->cg2_self[0] ? p->cg2_self : "(none)", p->cg2_mount), 0;
	if (!p->cg2_writable)
		return cant_write_cgroup(p, why, whylen);
	return 1;
}

static int
can_controller(const struct probe *p, const char *ctl, char *why,
    size_t whylen)
{
	if (!can_cgroup(p, why, whylen))
		return 0;
	if (!cg_list_has(p->cg2_available, ctl))
		return WHY("cgroup2 at %s has no %s controller", p->cg2_dir,
		    ctl), 0;
	return 1;
}

static int
can_landlock(const struct probe *p, const char *m, char *why, size_t whylen)
{
	const struct ll_abi_rights *l;

	for (l = ll_abi_table; l->abi != 0; l++) {
		if (strcmp(l->mechanism, m) != 0)
			continue;
		if (p->landlock_abi >= l->abi)
			return 1;
		if (p->landlock_abi == 0)
			WHY("Landlock unavailable: %s",
			    strerror(p->landlock_errno));
		else
			WHY("needs Landlock ABI %d, kernel has %d", l->abi,
			    p->landlock_abi);
		return 0;
	}
	return -1;
}

static int
can_cgroup_mech(const struct probe *p, const char *m, char *why,
    size_t whylen)
{
	if (!can_cgroup(p, why, whylen))
		return 0;
	if (strcmp(m, "cgroup-kill") == 0 && !p->cg2_kill)
		return WHY("no cgroup.kill (Linux 5.14)"), 0;
	if (strcmp(m, "clone-into-cgroup") == 0 && !p->cg2_clone_into)
		return WHY("clone3(CLONE_INTO_CGROUP) unavailable (Linux "
		    "5.7)"), 0;
	return 1;
}

static int
can_seccomp(const struct probe *p, const char *m, char *why, size_t whylen)
{
	if (strcmp(m, "seccomp-kill-process") == 0)
		return p->seccomp_filter && p->seccomp_kill_process ? 1 :
		    (WHY("SECCOMP_RET_KILL_PROCESS unavailable (Linux 4.14)"),
		    0);
	if (strcmp(m, "seccomp-user-notif") == 0)
		return p->seccomp_filter && p->seccomp_user_notif ? 1 :
		    (WHY("seccomp user notification unavailable (Linux 5.0)"),
		    0);
	if (!p->arch_x86_64)
		return WHY("architecture %s is not supported (x86_64 only)",
		    p->arch[0] ? p->arch : "unknown"), 0;
	return p->seccomp_filter ? 1 :
	    (WHY("seccomp filter mode unavailable"), 0);
}

/* The first namespace call of the probe that failed for mechanism m
 * (*call names it), and its errno; 0 when none did. */
static int
ns_failed(const struct probe *p, const char *m, const char **call)
{
	int ipc = strcmp(m, "ipc-namespace") == 0, e;

	if ((e = p->ns_userns_errno) != 0)
		*call = "unshare(CLONE_NEWUSER)";
	else if ((e = p->ns_clone_errno) != 0 && !ipc)
		*call = "clone with namespace flags";
	else if ((e = p->ns_setns_errno) != 0 &&
	    strcmp(m, "pid-namespace") == 0)
		*call = "setns(CLONE_NEWPID)";
	else if ((e = p->ns_pid_errno) != 0)
		*call = "unshare(CLONE_NEWPID)";
	else if ((e = p->ns_ipc_errno) != 0 && ipc)
		*call = "unshare(CLONE_NEWIPC)";
	else
		return 0;
	return e;
}

/* What would provide a namespace call that failed with e: an EPERM from
 * clone or setns with arguments the kernel rejects can only come from a
 * seccomp filter.  "" when nothing is known to. */
static const char *
ns_fix(const struct probe *p, int e)
{
	int filt = p->ns_clone_errno == EPERM || p->ns_setns_errno == EPERM;

	if (e != EPERM)
		return "";
	if (p->ns_userns_errno != 0 && filt)
		return " (a seccomp filter refuses user namespaces to uid != "
		    "0: docker run --security-opt seccomp=unconfined on a host "
		    "that allows unprivileged user namespaces, or run as root "
		    "with CAP_SYS_ADMIN: docker run --cap-add SYS_ADMIN; "
		    "inside a confexec run, never: a nested confexec needs "
		    "--degrade)";
	if (p->ns_userns_errno != 0)
		return " (the host refuses user namespaces to this uid: run as "
		    "root, or allow them: sysctl user.max_user_namespaces, "
		    "kernel.unprivileged_userns_clone=1, "
		    "kernel.apparmor_restrict_unprivileged_userns=0)";
	if (!p->cap_sys_admin && filt)
		return " (needs CAP_SYS_ADMIN and a seccomp filter that allows "
		    "clone, unshare and setns with namespace flags: docker "
		    "run --cap-add SYS_ADMIN, whose default profile then "
		    "allows them (podman run --cap-add SYS_ADMIN too), or "
		    "--privileged; inside a confexec run, never: its payload "
		    "has no capability and its filter refuses them, so a "
		    "nested confexec needs --degrade)";
	if (!p->cap_sys_admin)
		return " (needs CAP_SYS_ADMIN: docker run --cap-add SYS_ADMIN)";
	if (filt)
		return " (a seccomp filter refuses it: docker run "
		    "--security-opt seccomp=unconfined, or a profile that "
		    "allows clone, unshare and setns with namespace flags)";
	return "";
}

/* Namespaces (probens.c), clone3 and a seccomp listener: the first call
 * that failed, and what would provide it. */
static int
can_ns(const struct probe *p, const char *m, char *why, size_t whylen)
{
	const char *call = NULL;
	int e;

	if (strcmp(m, "clone3") == 0) {
		if (p->clone3)
			return 1;
		return WHY("clone3: %s (a seccomp filter answers it so, as "
		    "the default profiles of docker and podman do without "
		    "CAP_SYS_ADMIN: confexec uses clone instead)",
		    strerror(p->clone3_errno)), 0;
	}
	if (strcmp(m, "seccomp-listener") == 0) {
		if (p->ns_probed && p->seccomp_listener_errno == 0)
			return 1;
		return WHY("a seccomp filter with a listener: %s (a filter "
		    "above refuses it, as a confexec payload's does: the calls "
		    "the supervisor would answer are refused instead)",
		    strerror(p->seccomp_listener_errno ?
		    p->seccomp_listener_errno : EPROTO)), 0;
	}
	if (!p->ns_probed)
		return WHY("the namespace probe failed: %s",
		    strerror(p->ns_pid_errno)), 0;
	if (p->ns_killed)
		return WHY("a seccomp filter killed the probe (signal %d) "
		    "trying clone, setns or unshare with namespace flags "
		    "(docker run --security-opt seccomp=unconfined, or a "
		    "profile that allows them)", p->ns_killed), 0;
	if ((e = ns_failed(p, m, &call)) == 0)
		return 1;
	return WHY("%s: %s%s", call, strerror(e), ns_fix(p, e)), 0;
}

static int
can_userns(const struct probe *p, const char *m, char *why, size_t whylen)
{
	/* The sysctls may allow what a seccomp filter refuses (a
	 * container runtime's default profile without CAP_SYS_ADMIN). */
	if (p->ns_probed && p->userns_errno > 0)
		return WHY("unshare(CLONE_NEWUSER): %s%s",
		    strerror(p->userns_errno), p->userns_errno != EPERM ? "" :
		    p->userns ? " (a seccomp filter refuses it: docker run "
		    "--security-opt seccomp=unconfined, or --cap-add "
		    "SYS_ADMIN, whose default profile then allows it)" :
		    " (the host or a seccomp filter refuses it)"), 0;
	if (p->userns)
		return 1;
	if (p->userns_max <= 0)
		WHY("user.max_user_namespaces is %ld", p->userns_max);
	else
		WHY("kernel.unprivileged_userns_clone is 0");
	return 0;
}

static int
can_subid(const struct probe *p, const char *m, char *why, size_t whylen)
{
	int gid = strcmp(m, "subgid") == 0;

	if ((gid ? p->subgid_n : p->subuid_n) > 0)
		return 1;
	return WHY("no /etc/sub%cid range for uid %u", gid ? 'g' : 'u',
	    (unsigned)p->uid), 0;
}

static int
can_memfd(const struct probe *p, const char *m, char *why, size_t whylen)
{
	if (!p->memfd_seal)
		return WHY("memfd_create with sealing unavailable"), 0;
	if (strcmp(m, "memfd-seal") == 0 || p->memfd_exec_flag)
		return 1;
	if (p->memfd_noexec == 2)
		return WHY("vm.memfd_noexec is 2: executable memfds are "
		    "refused"), 0;
	return WHY("memfd_create(MFD_EXEC) refused (Linux 6.3)"), 0;
}

/* Mechanisms that are one syscall: the field, and why it may be missing. */
#define SYSCALL_MECH(name, field, since) \
	{ name, offsetof(struct probe, field), name " unavailable (Linux " \
	    since ")" }
static const struct {
	const char *name;
	size_t off;
	const char *why;
} syscall_mechs[] = {
	{ "no-new-privs", offsetof(struct probe, no_new_privs),
	    "PR_GET_NO_NEW_PRIVS unknown (Linux 3.5)" },
	SYSCALL_MECH("execveat", execveat, "3.19"),
	SYSCALL_MECH("close-range", close_range, "5.9"),
	SYSCALL_MECH("pidfd", pidfd, "5.3"),
	SYSCALL_MECH("openat2", openat2, "5.6"),
	SYSCALL_MECH("fchmodat2", fchmodat2, "6.6"),
	SYSCALL_MECH("xattrat", xattrat, "6.13"),
};
#undef SYSCALL_MECH

static int
can_syscall(const struct probe *p, const char *m, char *why, size_t whylen)
{
	size_t i;

	for (i = 0; i < sizeof(syscall_mechs) / sizeof(syscall_mechs[0]); i++)
		if (strcmp(m, syscall_mechs[i].name) == 0) {
			if (*(const int *)((const char *)p +
			    syscall_mechs[i].off))
				return 1;
			return WHY("%s", syscall_mechs[i].why), 0;
		}
	return -1;
}

/* Every mechanism but Landlock's (llabi.c) and the one-syscall ones. */
static const struct {
	const char *name;
	int (*can)(const struct probe *, const char *, char *, size_t);
} mechs[] = {
	{ "cgroup2", can_cgroup_mech },
	{ "cgroup-kill", can_cgroup_mech },
	{ "clone-into-cgroup", can_cgroup_mech },
	{ "memory", can_controller },
	{ "pids", can_controller },
	{ "cpu", can_controller },
	{ "io", can_controller },
	{ "seccomp", can_seccomp },
	{ "seccomp-kill-process", can_seccomp },
	{ "seccomp-user-notif", can_seccomp },
	{ "userns", can_userns },
	{ "subuid", can_subid },
	{ "subgid", can_subid },
	{ "memfd-seal", can_memfd },
	{ "memfd-exec", can_memfd },
	{ "clone3", can_ns },
	{ "seccomp-listener", can_ns },
	{ "pid-namespace", can_ns },
	{ "mount-namespace", can_ns },
	{ "ipc-namespace", can_ns },
	{ "net-namespace", can_ns },
};

int
probe_can(const struct probe *p, const char *m, char *why, size_t whylen)
{
	size_t i;
	int r;

	if (why && whylen)
		why[0] = '\0';
	if (m == NULL)
		return errno = EINVAL, -1;
	if ((r = can_landlock(p, m, why, whylen)) != -1 ||
	    (r = can_syscall(p, m, why, whylen)) != -1)
		return r;
	for (i = 0; i < sizeof(mechs) / sizeof(mechs[0]); i++)
		if (strcmp(m, mechs[i].name) == 0)
			return mechs[i].can(p, m, why, whylen);
	return errno = EINVAL, -1;
}
