/* SPDX-License-Identifier: ISC */
/* observe: what the payload's path calls ask for (observe.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/openat2.h>

#include "observe.h"

/* How each call names its paths: the argument index of a directory fd
 * (-1: AT_FDCWD) and of the path, and what it asks there. */
enum kind {
	K_OPEN,		/* flags in arg f */
	K_CREAT,	/* open(O_CREAT | O_WRONLY | O_TRUNC) */
	K_EXEC,
	K_MAKE,		/* a new name: the target must be missing */
	K_REMOVE,	/* an existing name, not followed */
	K_RENAME,	/* remove (d, p), create (d2, p2) */
	K_TRUNC,
	K_LOOKUP,	/* a name looked up only (stat, access, chdir) */
};

struct call {
	int nr;
	enum kind k;
	int d, p, f;		/* dirfd, path, flags arguments */
	int d2, p2;		/* rename's, link's new name */
};

static const struct call calls[] = {
	{__NR_open, K_OPEN, -1, 0, 1, 0, 0},
	{__NR_openat, K_OPEN, 0, 1, 2, 0, 0},
	{__NR_creat, K_CREAT, -1, 0, 0, 0, 0},
	{__NR_execve, K_EXEC, -1, 0, 0, 0, 0},
	{__NR_mkdir, K_MAKE, -1, 0, 0, 0, 0},
	{__NR_mkdirat, K_MAKE, 0, 1, 0, 0, 0},
	{__NR_mknod, K_MAKE, -1, 0, 0, 0, 0},
	{__NR_mknodat, K_MAKE, 0, 1, 0, 0, 0},
	{__NR_symlink, K_MAKE, -1, 1, 0, 0, 0},
	{__NR_symlinkat, K_MAKE, 1, 2, 0, 0, 0},
	{__NR_link, K_MAKE, -1, 1, 0, 0, 0},
	{__NR_linkat, K_MAKE, 2, 3, 0, 0, 0},
	{__NR_unlink, K_REMOVE, -1, 0, 0, 0, 0},
	{__NR_unlinkat, K_REMOVE, 0, 1, 0, 0, 0},
	{__NR_rmdir, K_REMOVE, -1, 0, 0, 0, 0},
	{__NR_rename, K_RENAME, -1, 0, 0, -1, 1},
	{__NR_renameat, K_RENAME, 0, 1, 0, 2, 3},
	{__NR_renameat2, K_RENAME, 0, 1, 0, 2, 3},
	{__NR_truncate, K_TRUNC, -1, 0, 0, 0, 0},
	{__NR_stat, K_LOOKUP, -1, 0, 0, 0, 0},
	{__NR_lstat, K_LOOKUP, -1, 0, 0, 0, 0},
	{__NR_newfstatat, K_LOOKUP, 0, 1, 0, 0, 0},
	{__NR_statx, K_LOOKUP, 0, 1, 0, 0, 0},
	{__NR_access, K_LOOKUP, -1, 0, 0, 0, 0},
	{__NR_faccessat, K_LOOKUP, 0, 1, 0, 0, 0},
	{__NR_faccessat2, K_LOOKUP, 0, 1, 0, 0, 0},
	{__NR_chdir, K_LOOKUP, -1, 0, 0, 0, 0},
	{__NR_readlink, K_LOOKUP, -1, 0, 0, 0, 0},
	{__NR_readlinkat, K_LOOKUP, 0, 1, 0, 0, 0},
};
#define NCALLS (sizeof(calls) / sizeof(calls[0]))

const int obs_calls[] = {
	__NR_open, __NR_openat, __NR_creat, __NR_execve, __NR_mkdir,
	__NR_mkdirat, __NR_mknod, __NR_mknodat, __NR_symlink, __NR_symlinkat,
	__NR_link, __NR_linkat, __NR_unlink, __NR_unlinkat, __NR_rmdir,
	__NR_rename, __NR_renameat, __NR_renameat2, __NR_truncate,
	__NR_stat, __NR_lstat, __NR_newfstatat, __NR_statx, __NR_access,
	__NR_faccessat, __NR_faccessat2, __NR_chdir, __NR_readlink,
	__NR_readlinkat,
};
const size_t obs_ncalls = sizeof(obs_calls) / sizeof(obs_calls[0]);
_Static_assert(sizeof(obs_calls) / sizeof(obs_calls[0]) == NCALLS,
    "obs_calls lists the calls of calls[]");

#define OBS_WRITE_BITS ((uint32_t)(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC))
const struct sf_watch obs_writes[] = {
	{__NR_open, 1, OBS_WRITE_BITS}, {__NR_openat, 2, OBS_WRITE_BITS},
	{__NR_creat, -1, 0}, {__NR_execve, -1, 0}, {__NR_mkdir, -1, 0},
	{__NR_mkdirat, -1, 0}, {__NR_mknod, -1, 0}, {__NR_mknodat, -1, 0},
	{__NR_symlink, -1, 0}, {__NR_symlinkat, -1, 0}, {__NR_link, -1, 0},
	{__NR_linkat, -1, 0}, {__NR_unlink, -1, 0}, {__NR_unlinkat, -1, 0},
	{__NR_rmdir, -1, 0}, {__NR_rename, -1, 0}, {__NR_renameat, -1, 0},
	{__NR_renameat2, -1, 0}, {__NR_truncate, -1, 0},
};
const size_t obs_nwrites = sizeof(obs_writes) / sizeof(obs_writes[0]);

static const struct call *
lookup(int nr)
{
	size_t i;

	for (i = 0; i < NCALLS; i++)
		if (calls[i].nr == nr)
			return &calls[i];
	return NULL;
}

int
obs_is_observed(int nr)
{
	return lookup(nr) != NULL;
}

const char *
obs_access_name(enum obs_access a)
{
	static const char *const name[OBS_NACCESS] = {
		[OBS_READ] = "read", [OBS_WRITE] = "write",
		[OBS_RDWR] = "read-write", [OBS_TRUNCATE] = "truncate",
		[OBS_EXEC] = "exec", [OBS_CREATE] = "create",
		[OBS_REMOVE] = "remove",
	};

	return (unsigned)a < OBS_NACCESS ? name[a] : "?";
}

/* ---- the caller's strings and directories ---- */

struct ctx {
	const struct seccomp_notif *n;
};

/* A NUL-terminated string from the caller's memory, page by page. */
static int
mem_str(const struct ctx *c, uint64_t addr, char *buf, size_t size)
{
	struct iovec l, r;
	size_t got = 0, chunk;

	if (addr == 0)
		return -1;
	while (got < size) {
		chunk = 4096 - ((addr + got) & 4095);
		if (chunk > size - got)
			chunk = size - got;
		l.iov_base = buf + got;
		l.iov_len = chunk;
		r.iov_base = (void *)(uintptr_t)(addr + got);
		r.iov_len = chunk;
		if (process_vm_readv((pid_t)c->n->pid, &l, 1, &r, 1, 0) !=
		    (ssize_t)chunk)
			return -1;
		if (memchr(buf + got, '\0', chunk) != NULL)
			return 0;
		got += chunk;
	}
	return -1;
}

/* The absolute path the magic link p names, in buf: 0, or -1 (none). */
static int
link_path(const char *p, char *buf, size_t size)
{
	ssize_t k = readlink(p, buf, size - 1);

	if (k <= 0 || buf[0] != '/')
		return -1;
	buf[k] = '\0';
	return 0;
}

/* The kernel's name of the caller's "cwd", "root" or "fd/N". */
static int
caller_link(const struct ctx *c, const char *which, char *buf, size_t size)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/%u/%s", c->n->pid, which);
	return link_path(p, buf, size);
}

/* The absolute name of path for dirfd dfd (-1 in the table: AT_FDCWD),
 * in the caller's terms (its cwd and fds named by the kernel). */
static int
absolute(const struct ctx *c, int dfd, const char *path, char *out,
    size_t size)
{
	char base[PATH_MAX], which[32];

	if (path[0] == '\0')
		return -1;	/* AT_EMPTY_PATH: a descriptor, not a path */
	if (path[0] == '/')
		return snprintf(out, size, "%s", path) < (int)size ? 0 : -1;
	if (dfd == AT_FDCWD)
		snprintf(which, sizeof(which), "cwd");
	else if (dfd >= 0)
		snprintf(which, sizeof(which), "fd/%d", dfd);
	else
		return -1;
	if (caller_link(c, which, base, sizeof(base)) == -1)
		return -1;
	return snprintf(out, size, "%s%s%s", base,
	    strcmp(base, "/") ? "/" : "", path) < (int)size ? 0 : -1;
}

/* The callers' root (their mount view), opened from the first caller
 * and kept: every process of a run shares it, and none can change it
 * (chroot needs a capability the payload does not hold; pivot_root and
 * the mount API are refused).  Checked against the caller's id after
 * use (obs_see), like everything read through /proc/PID. */
static int rootfd = -1;
static int host_names;

void
obs_host_names(int on)
{
	host_names = on;
}

void
obs_end(void)
{
	if (rootfd != -1)
		close(rootfd);
	rootfd = -1;
}

/* Resolve abs beneath the caller's root without magic links: an O_PATH
 * descriptor, or -1 with errno (ENOENT: missing).  With host, a name
 * missing in a view (obs_host_names) as the host has it. */
static int
resolve_in(const struct ctx *c, const char *abs, int nofollow, int host)
{
	struct open_how how;
	char root[64];
	int fd;

	if (rootfd == -1) {
		snprintf(root, sizeof(root), "/proc/%u/root", c->n->pid);
		rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if (rootfd == -1)
			return -1;
	}
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0);
	how.resolve = RESOLVE_IN_ROOT | RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(__NR_openat2, rootfd, abs, &how, sizeof(how));
	if (fd != -1 || errno != ENOENT || !host || !host_names ||
	    abs[0] != '/')
		return fd;
	/* Not in the view: the host's name, if it has one. */
	how.resolve = RESOLVE_NO_MAGICLINKS;
	fd = (int)syscall(__NR_openat2, AT_FDCWD, abs, &how, sizeof(how));
	if (fd == -1)
		errno = ENOENT;
	return fd;
}

static int
resolve(const struct ctx *c, const char *abs, int nofollow)
{
	return resolve_in(c, abs, nofollow, 1);
}

/* The kernel's name of fd (the path Landlock walks). */
static int
fd_name(int fd, char *buf, size_t size)
{
	char p[64];

	snprintf(p, sizeof(p), "/proc/self/fd/%d", fd);
	return link_path(p, buf, size);
}

/* One path seen, with access a: the existing target's name. */
static int
see_existing(struct obs_seen *s, int fd, enum obs_access a)
{
	if (fd_name(fd, s->at[s->n].path, sizeof(s->at[s->n].path)) == -1)
		return -1;
	s->at[s->n++].access = a;
	return 0;
}

/* A new name in an existing directory: the directory's name and the
 * last component. */
static int
see_new(const struct ctx *c, struct obs_seen *s, const char *abs,
    enum obs_access a)
{
	char dir[PATH_MAX], *slash, *name;
	const char *last;
	int fd, rc;

	snprintf(dir, sizeof(dir), "%s", abs);
	while ((slash = strrchr(dir, '/')) != NULL && slash != dir &&
	    slash[1] == '\0')
		*slash = '\0';	/* "a/b/" names b */
	if ((slash = strrchr(dir, '/')) == NULL)
		return -1;
	last = slash + 1;
	if (*last == '\0' || strcmp(last, ".") == 0 || strcmp(last, "..") == 0)
		return -1;
	name = s->at[s->n].path;
	if (slash == dir) {
		fd = resolve(c, "/", 0);
	} else {
		*slash = '\0';
		fd = resolve(c, dir, 0);
	}
	if (fd == -1)
		return -1;	/* no parent: ENOENT first */
	rc = fd_name(fd, name, PATH_MAX);
	close(fd);
	if (rc == -1 || strlen(name) + 1 + strlen(last) >= PATH_MAX)
		return -1;
	if (strcmp(name, "/") != 0)
		strcat(name, "/");
	strcat(name, last);
	s->at[s->n++].access = a;
	return 0;
}

static void
see_open(const struct ctx *c, struct obs_seen *s, const char *abs, int fl)
{
	struct stat st;
	enum obs_access a;
	int fd, nofollow = (fl & O_NOFOLLOW) != 0;

	if ((fl & O_PATH) || (fl & O_TMPFILE) == O_TMPFILE)
		return;	/* no access right checked; a tmpfile: not judged */
	fd = resolve(c, abs, nofollow);
	if (fd == -1) {
		if (errno == ENOENT && (fl & O_CREAT))
			(void)see_new(c, s, abs, OBS_CREATE);
		return;
	}
	if (fstat(fd, &st) == -1 ||
	    (fl & (O_CREAT | O_EXCL)) == (O_CREAT | O_EXCL) ||	/* EEXIST */
	    (nofollow && S_ISLNK(st.st_mode)) ||		/* ELOOP */
	    ((fl & O_DIRECTORY) && !S_ISDIR(st.st_mode))) {	/* ENOTDIR */
		close(fd);
		return;
	}
	switch (fl & O_ACCMODE) {
	case O_RDONLY:
		a = (fl & O_TRUNC) ? OBS_TRUNCATE : OBS_READ;
		break;
	case O_WRONLY:
		a = OBS_WRITE;
		break;
	case O_RDWR:
		a = OBS_RDWR;
		break;
	default:
		close(fd);
		return;
	}
	(void)see_existing(s, fd, a);
	close(fd);
}

/* An existing target (followed or not) seen with access a. */
static void
see_target(const struct ctx *c, struct obs_seen *s, const char *abs,
    int nofollow, enum obs_access a)
{
	int fd = resolve(c, abs, nofollow);

	if (fd == -1)
		return;
	(void)see_existing(s, fd, a);
	close(fd);
}

/* The kinds whose one path is an existing target: followed or not, and
 * the access it is seen with (rename's new name: see_new). */
static const struct {
	int nofollow;
	enum obs_access a;
} target[] = {
	[K_EXEC] = {0, OBS_EXEC},
	[K_REMOVE] = {1, OBS_REMOVE},
	[K_RENAME] = {1, OBS_REMOVE},
	[K_TRUNC] = {0, OBS_TRUNCATE},
};

/* A name to be made: seen only when it is missing (else EEXIST). */
static void
see_make(const struct ctx *c, struct obs_seen *s, const char *abs)
{
	int fd = resolve(c, abs, 1);

	if (fd != -1) {
		close(fd);
		return;
	}
	if (errno == ENOENT)
		(void)see_new(c, s, abs, OBS_CREATE);
}

/* A name only looked up: seen where the view has nothing there but the
 * host has (the payload got ENOENT for want of a rule), as a read. */
static void
see_lookup(const struct ctx *c, struct obs_seen *s, const char *abs)
{
	int fd = resolve_in(c, abs, 0, 0);

	if (fd != -1) {
		close(fd);
		return;
	}
	if (errno != ENOENT || !host_names ||
	    (fd = resolve_in(c, abs, 0, 1)) == -1)
		return;
	(void)see_existing(s, fd, OBS_READ);
	close(fd);
}

#define ARG(i) (c.n->data.args[i])
#define DFD(i) ((i) < 0 ? AT_FDCWD : (int)(uint32_t)ARG(i))

size_t
obs_see(const struct seccomp_notif *n, int listenfd, struct obs_seen *s)
{
	const struct call *k;
	struct ctx c = {n};
	char path[PATH_MAX], abs[PATH_MAX], path2[PATH_MAX], abs2[PATH_MAX];
	int two, fresh;

	s->n = 0;
	if (n->data.arch != AUDIT_ARCH_X86_64 ||
	    (k = lookup(n->data.nr)) == NULL)
		return 0;
	fresh = rootfd == -1;
	two = k->k == K_RENAME;
	/* The strings once, then the caller's links: all before checking
	 * that /proc/PID still is the caller (a pid reused meanwhile
	 * would name another process). */
	if (mem_str(&c, ARG(k->p), path, sizeof(path)) == -1 ||
	    absolute(&c, DFD(k->d), path, abs, sizeof(abs)) == -1)
		return 0;
	if (two && (mem_str(&c, ARG(k->p2), path2, sizeof(path2)) == -1 ||
	    absolute(&c, DFD(k->d2), path2, abs2, sizeof(abs2)) == -1))
		two = 0;
	switch (k->k) {
	case K_OPEN:
		see_open(&c, s, abs, (int)(uint32_t)ARG(k->f));
		break;
	case K_CREAT:
		see_open(&c, s, abs, O_CREAT | O_WRONLY | O_TRUNC);
		break;
	case K_EXEC:
	case K_REMOVE:
	case K_RENAME:
	case K_TRUNC:
		see_target(&c, s, abs, target[k->k].nofollow, target[k->k].a);
		if (two && s->n == 1)	/* rename: the old name exists */
			(void)see_new(&c, s, abs2, OBS_CREATE);
		break;
	case K_MAKE:
		see_make(&c, s, abs);
		break;
	case K_LOOKUP:
		see_lookup(&c, s, abs);
		break;
	default:
		break;
	}
	if ((s->n > 0 || fresh) && ioctl(listenfd,
	    SECCOMP_IOCTL_NOTIF_ID_VALID, &n->id) != 0) {
		s->n = 0;
		if (fresh)	/* its pid may have been another's */
			obs_end();
	}
	return s->n;
}
