/* SPDX-License-Identifier: ISC */
/* probe: read-only host probes.  Every syscall probe is made with
 * arguments the kernel rejects before doing anything, and the errno tells
 * whether the call exists; nothing is created outside this process. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/seccomp.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/capability.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "llabi.h"
#include "mountinfo.h"
#include "probe.h"
#include "scan.h"
#include "uapi.h"

#ifndef __NR_seccomp
#define __NR_seccomp 317
#endif
#ifndef __NR_memfd_create
#define __NR_memfd_create 319
#endif
#ifndef __NR_execveat
#define __NR_execveat 322
#endif
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif
#ifndef MFD_ALLOW_SEALING
#define MFD_ALLOW_SEALING 0x0002U
#endif
#ifndef F_ADD_SEALS
#define F_ADD_SEALS 1033
#define F_SEAL_SEAL 0x0001
#define F_SEAL_SHRINK 0x0002
#define F_SEAL_GROW 0x0004
#define F_SEAL_WRITE 0x0008
#endif

/* ---- small readers ---- */

/* Read a small file into buf (terminated, trailing newline dropped).
 * 0 or -1 with errno. */
static int
read_small(const char *path, char *buf, size_t size)
{
	size_t len = 0;
	ssize_t r;
	int fd, e;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd == -1)
		return -1;
	while (len < size - 1) {
		r = read(fd, buf + len, size - 1 - len);
		if (r == -1 && errno == EINTR)
			continue;
		if (r == -1) {
			e = errno;
			close(fd);
			return errno = e, -1;
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	buf[len] = '\0';
	if (len > 0 && buf[len - 1] == '\n')
		buf[--len] = '\0';
	return 0;
}

static long
read_long(const char *path)
{
	char buf[64];
	uint64_t v;

	if (read_small(path, buf, sizeof(buf)) == -1)
		return -1;
	if (scan_u64(buf, 0, LONG_MAX, &v) == -1)
		return -1;
	return (long)v;
}

/* ---- cgroup v2 ---- */

struct cgscan {
	struct probe *p;
	const char *self;
	char root[PATH_MAX];	/* root field of the chosen cgroup2 mount */
	int exact;		/* chosen mount's root is a prefix of self */
};

/* 1 when root ("/" or "/a/b") is a path prefix of self. */
static int
path_prefix(const char *root, const char *self)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(root, self, n) == 0 &&
	    (self[n] == '\0' || self[n] == '/');
}

static int
cg_mount(const struct mountinfo *m, void *arg)
{
	struct cgscan *c = arg;
	int pre;

	if (strcmp(m->fstype, "cgroup") == 0)
		c->p->cg2_v1++;
	if (strcmp(m->fstype, "cgroup2") != 0)
		return 0;
	pre = c->self[0] != '\0' && path_prefix(m->root, c->self);
	/* The first mount that shows the caller's cgroup wins; else the
	 * first cgroup2 mount at all. */
	if (c->p->cg2 && (c->exact || !pre))
		return 0;
	c->p->cg2 = 1;
	c->exact = pre;
	snprintf(c->p->cg2_mount, sizeof(c->p->cg2_mount), "%s",
	    m->mountpoint);
	snprintf(c->root, sizeof(c->root), "%s", m->root);
	return 0;
}

/* The "0::/path" line of /proc/self/cgroup into self ("" when absent). */
static void
cg_self(char *self, size_t size)
{
	char buf[8192], *line, *save = NULL;

	self[0] = '\0';
	if (read_small("/proc/self/cgroup", buf, sizeof(buf)) == -1)
		return;
	for (line = strtok_r(buf, "\n", &save); line;
	    line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "0::", 3) == 0 && line[3] == '/') {
			if (strlen(line + 3) < size)
				strcpy(self, line + 3);
			return;
		}
	}
}

/* A kernel release at least maj.min (uname -r). */
static int
kernel_at_least(int maj, int min)
{
	struct utsname u;
	int a = 0, b = 0;

	if (uname(&u) == -1 || sscanf(u.release, "%d.%d", &a, &b) != 2)
		return 0;
	return a > maj || (a == maj && b >= min);
}

static int
child_has_kill(const char *dir)
{
	char path[PATH_MAX + 300];
	struct dirent *d;
	DIR *dp;
	int found = 0;

	dp = opendir(dir);
	if (dp == NULL)
		return 0;
	while (!found && (d = readdir(dp)) != NULL) {
		if (d->d_type != DT_DIR || d->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "%s/%s/cgroup.kill", dir,
		    d->d_name);
		found = access(path, F_OK) == 0;
	}
	closedir(dp);
	return found;
}

static void
probe_cgroup(struct probe *p, int exact)
{
	struct cgscan c = { .p = p, .self = p->cg2_self };
	char path[PATH_MAX + 64];
	const char *rest;
	long r;

	cg_self(p->cg2_self, sizeof(p->cg2_self));
	if (mountinfo_each("/proc/self/mountinfo", cg_mount, &c) == -1) {
		p->cg2 = 0;
		p->cg2_mount[0] = '\0';
		return;
	}
	p->cg2_pure = p->cg2 && p->cg2_v1 == 0;
	if (!p->cg2 || !c.exact)
		return;
	/* dir = mount + (self without the mount's root) */
	rest = p->cg2_self + (strcmp(c.root, "/") == 0 ? 0 : strlen(c.root));
	if (strcmp(rest, "/") == 0 || rest[0] == '\0')
		rest = "";
	if (snprintf(p->cg2_dir, sizeof(p->cg2_dir), "%s%s",
	    strcmp(p->cg2_mount, "/") == 0 && rest[0] ? "" : p->cg2_mount,
	    rest) >= (int)sizeof(p->cg2_dir)) {
		p->cg2_dir[0] = '\0';
		return;
	}
	/* Creating a child cgroup needs write and search on the directory;
	 * access(2) asks, mkdir would create. */
	p->cg2_writable = faccessat(AT_FDCWD, p->cg2_dir, W_OK | X_OK,
	    AT_EACCESS) == 0;
	snprintf(path, sizeof(path), "%s/cgroup.controllers", p->cg2_dir);
	if (read_small(path, p->cg2_available, sizeof(p->cg2_available)) ==
	    -1)
		p->cg2_available[0] = '\0';
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", p->cg2_dir);
	if (read_small(path, p->cg2_enabled, sizeof(p->cg2_enabled)) == -1)
		p->cg2_enabled[0] = '\0';
	/* The root cgroup has no cgroup.kill (CFTYPE_NOT_ON_ROOT), but every
	 * child has it from Linux 5.14: look at the caller's dir, then at an
	 * existing child, then at the kernel release. */
	snprintf(path, sizeof(path), "%s/cgroup.kill", p->cg2_dir);
	if (access(path, F_OK) == 0) {
		p->cg2_kill = 1;
		strcpy(p->cg2_kill_how, "file");
	} else if (exact && child_has_kill(p->cg2_dir)) {
		p->cg2_kill = 1;
		strcpy(p->cg2_kill_how, "child");
	} else if (strcmp(p->cg2_self, "/") == 0 && kernel_at_least(5, 14)) {
		p->cg2_kill = 1;
		strcpy(p->cg2_kill_how, "kernel");
	} else if (!exact && child_has_kill(p->cg2_dir)) {
		p->cg2_kill = 1;
		strcpy(p->cg2_kill_how, "child");
	}
	if (!exact) {
		/* The caller does clone3(CLONE_INTO_CGROUP) itself and
		 * fails closed when it fails. */
		p->cg2_clone_into = kernel_at_least(5, 7);
		return;
	}
	/* clone3(CLONE_INTO_CGROUP) with an fd that cannot be open: a kernel
	 * that knows the flag fails with EBADF when it looks the fd up; one
	 * that does not answers EINVAL (unknown flag) or ENOSYS (no clone3).
	 * No process can come out of it. */
	{
		struct borne_clone_args ca;

		memset(&ca, 0, sizeof(ca));
		ca.flags = CLONE_INTO_CGROUP;
		ca.exit_signal = SIGCHLD;
		ca.cgroup = INT_MAX;
		r = syscall(__NR_clone3, &ca, sizeof(ca));
		if (r == 0)
			_exit(0);	/* cannot happen; never run on */
		if (r > 0) {
			waitpid((pid_t)r, NULL, 0);
			p->cg2_clone_into = 1;
		} else {
			p->cg2_clone_into = errno == EBADF;
		}
	}
}

/* ---- seccomp ---- */

static int
action_avail(uint32_t action)
{
	return syscall(__NR_seccomp, SECCOMP_GET_ACTION_AVAIL, 0, &action) ==
	    0;
}

static void
probe_seccomp(struct probe *p)
{
	struct seccomp_notif_sizes sz;
	struct utsname u;
	long r;

	r = prctl(PR_GET_SECCOMP, 0, 0, 0, 0);
	p->seccomp_mode = r < 0 ? -1 : (int)r;
	/* A NULL program is rejected with EFAULT by a kernel with filter
	 * support, before any filter is installed. */
	r = syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, NULL);
	p->seccomp_filter = r == -1 && errno == EFAULT;
	p->seccomp_kill_process = action_avail(SECCOMP_RET_KILL_PROCESS);
	p->seccomp_kill_thread = action_avail(SECCOMP_RET_KILL_THREAD);
	p->seccomp_trap = action_avail(SECCOMP_RET_TRAP);
	p->seccomp_errno = action_avail(SECCOMP_RET_ERRNO);
	p->seccomp_user_notif = action_avail(SECCOMP_RET_USER_NOTIF) &&
	    syscall(__NR_seccomp, SECCOMP_GET_NOTIF_SIZES, 0, &sz) == 0;
	p->seccomp_trace = action_avail(SECCOMP_RET_TRACE);
	p->seccomp_log = action_avail(SECCOMP_RET_LOG);
	if (uname(&u) == 0)
		snprintf(p->arch, sizeof(p->arch), "%s", u.machine);
#if defined(__x86_64__) && !defined(__ILP32__)
	p->arch_x86_64 = strcmp(p->arch, "x86_64") == 0;
#else
	p->arch_x86_64 = 0;
#endif
}

/* ---- syscalls probed by errno ---- */

/* 1 when a call made with arguments it must reject failed with one of the
 * errnos that prove it exists (ENOSYS: missing; EPERM: filtered). */
static int
exists(long r, int want1, int want2)
{
	if (r != -1)
		return 1;
	return errno == want1 || errno == want2;
}

static void
probe_syscalls(struct probe *p)
{
	long r;

	/* NULL filename: EFAULT before anything is opened. */
	r = syscall(__NR_execveat, -1, NULL, NULL, NULL, 0);
	p->execveat = exists(r, EFAULT, EBADF);
	/* fd > max_fd: EINVAL, nothing closed. */
	r = syscall(__NR_close_range, 1U, 0U, 0U);
	p->close_range = exists(r, EINVAL, EINVAL);
	/* negative pid, unknown flag: EINVAL. */
	r = syscall(__NR_pidfd_open, -1, 1U);
	p->pidfd = exists(r, EINVAL, EINVAL);
}

static void
probe_newcalls(struct probe *p)
{
	long r;

	/* size 0 is below OPEN_HOW_SIZE_VER0: EINVAL. */
	r = syscall(__NR_openat2, -1, NULL, NULL, 0);
	p->openat2 = exists(r, EINVAL, EINVAL);
	/* bad fd with AT_EMPTY_PATH: EBADF (Linux 6.6). */
	r = syscall(__NR_fchmodat2, -1, "", 0, AT_EMPTY_PATH);
	p->fchmodat2 = exists(r, EBADF, EBADF);
	/* usize 0 is below XATTR_ARGS_SIZE_VER0: EINVAL (Linux 6.13). */
	r = syscall(__NR_getxattrat, -1, NULL, 0, NULL, NULL, 0);
	p->xattrat = exists(r, EINVAL, EINVAL);
}

/* ---- memfd ---- */

static void
probe_memfd(struct probe *p)
{
	long fd;

	fd = syscall(__NR_memfd_create, "cgprobe", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING);
	if (fd >= 0) {
		p->memfd_seal = fcntl((int)fd, F_ADD_SEALS, F_SEAL_SHRINK |
		    F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) == 0;
		close((int)fd);
	}
	/* MFD_EXEC (6.3): EINVAL on older kernels, EACCES when
	 * vm.memfd_noexec=2 forbids executable memfds. */
	fd = syscall(__NR_memfd_create, "cgprobe", MFD_CLOEXEC |
	    MFD_ALLOW_SEALING | MFD_EXEC);
	if (fd >= 0) {
		p->memfd_exec_flag = 1;
		close((int)fd);
	}
	p->memfd_noexec = (int)read_long("/proc/sys/vm/memfd_noexec");
	if (p->memfd_noexec > 2)
		p->memfd_noexec = -1;
}

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
		probe_cgroup(p, (what & PROBE_EXACT) != 0);

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

	if (what & PROBE_USERNS) {
		p->userns_max =
		    read_long("/proc/sys/user/max_user_namespaces");
		r = read_long("/proc/sys/kernel/unprivileged_userns_clone");
		p->userns_unpriv = r < 0 ? -1 : (int)r;
		p->userns = p->userns_max > 0 &&
		    (p->root || p->userns_unpriv != 0);
	}

	if (what & PROBE_MEMFD)
		probe_memfd(p);
	if (what & PROBE_SYSCALLS)
		probe_syscalls(p);
	if (what & PROBE_NEWCALLS)
		probe_newcalls(p);
	if (what & PROBE_SUBID)
		probe_subid(p);
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
	NULL,
};

/* 1 when word is one of the space-separated words of list. */
static int
has_word(const char *list, const char *word)
{
	size_t n = strlen(word);
	const char *s = list;

	while ((s = strstr(s, word)) != NULL) {
		if ((s == list || s[-1] == ' ') &&
		    (s[n] == '\0' || s[n] == ' '))
			return 1;
		s += n;
	}
	return 0;
}

#define WHY(...) (why ? (void)snprintf(why, whylen, __VA_ARGS__) : (void)0)

static int
can_cgroup(const struct probe *p, char *why, size_t whylen)
{
	if (!p->cg2)
		return WHY("no cgroup2 mount in /proc/self/mountinfo"), 0;
	if (p->cg2_dir[0] == '\0')
		return WHY("caller's cgroup %s is not visible under %s",
		    p->cg2_self[0] ? p->cg2_self : "(none)", p->cg2_mount), 0;
	if (!p->cg2_writable)
		return WHY("cgroup %s is not writable by the caller",
		    p->cg2_dir), 0;
	return 1;
}

static int
can_controller(const struct probe *p, const char *ctl, char *why,
    size_t whylen)
{
	if (!can_cgroup(p, why, whylen))
		return 0;
	if (!has_word(p->cg2_available, ctl))
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

int
probe_can(const struct probe *p, const char *m, char *why, size_t whylen)
{
	int r;

	if (why && whylen)
		why[0] = '\0';
	if (m == NULL)
		return errno = EINVAL, -1;
	if (strncmp(m, "landlock", 8) == 0 &&
	    (r = can_landlock(p, m, why, whylen)) != -1)
		return r;
	if (strcmp(m, "cgroup2") == 0)
		return can_cgroup(p, why, whylen);
	if (strcmp(m, "cgroup-kill") == 0) {
		if (!can_cgroup(p, why, whylen))
			return 0;
		return p->cg2_kill ? 1 : (WHY("no cgroup.kill (Linux 5.14)"),
		    0);
	}
	if (strcmp(m, "clone-into-cgroup") == 0) {
		if (!can_cgroup(p, why, whylen))
			return 0;
		return p->cg2_clone_into ? 1 :
		    (WHY("clone3(CLONE_INTO_CGROUP) unavailable (Linux 5.7)"),
		    0);
	}
	if (strcmp(m, "memory") == 0 || strcmp(m, "pids") == 0 ||
	    strcmp(m, "cpu") == 0 || strcmp(m, "io") == 0)
		return can_controller(p, m, why, whylen);
	if (strcmp(m, "seccomp") == 0) {
		if (!p->arch_x86_64)
			return WHY("architecture %s is not supported (x86_64 "
			    "only)", p->arch[0] ? p->arch : "unknown"), 0;
		return p->seccomp_filter ? 1 :
		    (WHY("seccomp filter mode unavailable"), 0);
	}
	if (strcmp(m, "seccomp-kill-process") == 0)
		return p->seccomp_filter && p->seccomp_kill_process ? 1 :
		    (WHY("SECCOMP_RET_KILL_PROCESS unavailable (Linux 4.14)"),
		    0);
	if (strcmp(m, "seccomp-user-notif") == 0)
		return p->seccomp_filter && p->seccomp_user_notif ? 1 :
		    (WHY("seccomp user notification unavailable (Linux 5.0)"),
		    0);
	if (strcmp(m, "no-new-privs") == 0)
		return p->no_new_privs ? 1 :
		    (WHY("PR_GET_NO_NEW_PRIVS unknown (Linux 3.5)"), 0);
	if (strcmp(m, "userns") == 0) {
		if (p->userns)
			return 1;
		if (p->userns_max <= 0)
			WHY("user.max_user_namespaces is %ld", p->userns_max);
		else
			WHY("kernel.unprivileged_userns_clone is 0");
		return 0;
	}
	if (strcmp(m, "subuid") == 0)
		return p->subuid_n > 0 ? 1 :
		    (WHY("no /etc/subuid range for uid %u", (unsigned)p->uid),
		    0);
	if (strcmp(m, "subgid") == 0)
		return p->subgid_n > 0 ? 1 :
		    (WHY("no /etc/subgid range for uid %u", (unsigned)p->uid),
		    0);
	if (strcmp(m, "memfd-seal") == 0)
		return p->memfd_seal ? 1 :
		    (WHY("memfd_create with sealing unavailable"), 0);
	if (strcmp(m, "memfd-exec") == 0) {
		if (!p->memfd_seal)
			return WHY("memfd_create with sealing unavailable"), 0;
		if (p->memfd_exec_flag)
			return 1;
		if (p->memfd_noexec == 2)
			return WHY("vm.memfd_noexec is 2: executable memfds "
			    "are refused"), 0;
		return WHY("memfd_create(MFD_EXEC) refused (Linux 6.3)"), 0;
	}
#define SYSCALL_MECH(name, field, since)				\
	if (strcmp(m, name) == 0)					\
		return p->field ? 1 : (WHY(name " unavailable (Linux "	\
		    since ")"), 0);
	SYSCALL_MECH("execveat", execveat, "3.19")
	SYSCALL_MECH("close-range", close_range, "5.9")
	SYSCALL_MECH("pidfd", pidfd, "5.3")
	SYSCALL_MECH("openat2", openat2, "5.6")
	SYSCALL_MECH("fchmodat2", fchmodat2, "6.6")
	SYSCALL_MECH("xattrat", xattrat, "6.13")
#undef SYSCALL_MECH
	return errno = EINVAL, -1;
}

/* ---- privileged daemons ---- */

struct daemon_path {
	const char *name;
	const char *path;	/* absolute, or relative to XDG_RUNTIME_DIR */
	int xdg;
};

static const struct daemon_path daemon_paths[] = {
	{ "docker", "/run/docker.sock", 0 },
	{ "docker", "/var/run/docker.sock", 0 },
	{ "containerd", "/run/containerd/containerd.sock", 0 },
	{ "containerd", "/var/run/containerd/containerd.sock", 0 },
	{ "containerd-k3s", "/run/k3s/containerd/containerd.sock", 0 },
	{ "podman", "/run/podman/podman.sock", 0 },
	{ "buildkit", "/run/buildkit/buildkitd.sock", 0 },
	{ "crio", "/run/crio/crio.sock", 0 },
	{ "cri-dockerd", "/run/cri-dockerd.sock", 0 },
	{ "libvirt", "/run/libvirt/libvirt-sock", 0 },
	{ "libvirt-ro", "/run/libvirt/libvirt-sock-ro", 0 },
	{ "libvirt-admin", "/run/libvirt/libvirt-admin-sock", 0 },
	{ "virtqemud", "/run/libvirt/virtqemud-sock", 0 },
	{ "dbus-system", "/run/dbus/system_bus_socket", 0 },
	{ "dbus-system", "/var/run/dbus/system_bus_socket", 0 },
	{ "systemd", "/run/systemd/private", 0 },
	{ "snapd", "/run/snapd.socket", 0 },
	{ "snapd-snap", "/run/snapd-snap.socket", 0 },
	{ "lxd", "/var/snap/lxd/common/lxd/unix.socket", 0 },
	{ "lxd", "/var/lib/lxd/unix.socket", 0 },
	{ "incus", "/var/lib/incus/unix.socket", 0 },
	{ "docker-rootless", "docker.sock", 1 },
	{ "podman-rootless", "podman/podman.sock", 1 },
	{ "buildkit-rootless", "buildkit/buildkitd.sock", 1 },
	{ NULL, NULL, 0 },
};

/* DAC for credentials uid/gid without supplementary groups.  With a POSIX
 * ACL, a non-owner may be granted anything the mask (group bits) allows:
 * answer yes then, erring towards "reachable". */
static int
dac_allows(const char *path, const struct stat *st, uid_t uid, gid_t gid,
    unsigned want)
{
	unsigned m = (unsigned)st->st_mode;

	if (st->st_uid == uid)
		return ((m >> 6) & want) == want;
	if (lgetxattr(path, "system.posix_acl_access", NULL, 0) > 0 &&
	    (((m >> 3) & want) == want || (m & want) == want))
		return 1;
	if (st->st_gid == gid)
		return ((m >> 3) & want) == want;
	return (m & want) == want;
}

static int
connectable(const char *path, const struct stat *sst, uid_t uid, gid_t gid)
{
	char dir[PATH_MAX], *real, *s, c;
	struct stat st;
	int ok = 1;

	if (uid == 0)
		return 1;	/* root passes DAC (CAP_DAC_OVERRIDE) */
	if (!dac_allows(path, sst, uid, gid, 2))
		return 0;
	snprintf(dir, sizeof(dir), "%s", path);
	s = strrchr(dir, '/');
	if (s == NULL)
		return 0;
	if (s == dir)
		s[1] = '\0';
	else
		*s = '\0';
	real = realpath(dir, NULL);
	if (real == NULL)
		return 1;	/* cannot tell: say reachable */
	/* search permission on "/", then on every prefix of the real path
	 * (a prefix that vanished meanwhile is not held against it) */
	if (stat("/", &st) == 0 && !dac_allows("/", &st, uid, gid, 1))
		ok = 0;
	for (s = real + 1; ok && *s != '\0'; s++) {
		if (s[1] != '/' && s[1] != '\0')
			continue;
		c = s[1];
		s[1] = '\0';
		if (stat(real, &st) == 0 && !dac_allows(real, &st, uid, gid, 1))
			ok = 0;
		s[1] = c;
	}
	free(real);
	return ok;
}

int
probe_daemons(uid_t uid, gid_t gid, struct daemon_hit *hits, size_t max,
    size_t *n)
{
	const struct daemon_path *d;
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	dev_t devs[64];
	ino_t inos[64];
	size_t seen = 0, i;
	int over = 0;

	*n = 0;
	for (d = daemon_paths; d->name != NULL; d++) {
		char path[PATH_MAX];
		struct stat st;
		int dup = 0;

		if (d->xdg) {
			if (xdg == NULL || xdg[0] != '/')
				continue;
			if (snprintf(path, sizeof(path), "%s/%s", xdg,
			    d->path) >= (int)sizeof(path))
				continue;
		} else {
			snprintf(path, sizeof(path), "%s", d->path);
		}
		if (lstat(path, &st) == -1 || !S_ISSOCK(st.st_mode))
			continue;
		for (i = 0; i < seen; i++)
			if (devs[i] == st.st_dev && inos[i] == st.st_ino)
				dup = 1;
		if (dup)
			continue;
		if (seen < sizeof(devs) / sizeof(devs[0])) {
			devs[seen] = st.st_dev;
			inos[seen++] = st.st_ino;
		}
		if (*n >= max) {
			over = 1;
			continue;
		}
		hits[*n].name = d->name;
		snprintf(hits[*n].path, sizeof(hits[*n].path), "%s", path);
		hits[*n].connectable = connectable(path, &st, uid, gid);
		(*n)++;
	}
	if (over)
		return errno = E2BIG, -1;
	return 0;
}
