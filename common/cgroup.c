/* SPDX-License-Identifier: ISC */
/* cgroup: per-run cgroup v2 lifecycle. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "err.h"
#include "io.h"
#include "scan.h"
#include "uapi.h"

#define PREFIX "borne-"

static ssize_t
read_file(int dirfd, const char *name, char *buf, size_t size)
{
	ssize_t r;
	int fd, e;

	fd = openat(dirfd, name, O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return -1;
	r = read(fd, buf, size - 1);
	e = errno;
	close(fd);
	if (r < 0) {
		errno = e;
		return -1;
	}
	buf[r] = '\0';
	return r;
}

static void
close_all(struct cg *cg)
{
	if (cg->dirfd != -1)
		close(cg->dirfd);
	if (cg->killfd != -1)
		close(cg->killfd);
	if (cg->eventsfd != -1)
		close(cg->eventsfd);
	cg->dirfd = cg->killfd = cg->eventsfd = -1;
}

int
cg_list_has(const char *list, const char *word)
{
	static const char blank[] = " \t\n";
	size_t n = strlen(word);
	const char *p = list;

	if (n == 0 || word[strcspn(word, blank)] != '\0')
		return 0;
	while ((p = strstr(p, word)) != NULL) {
		if ((p == list || strchr(blank, p[-1]) != NULL) &&
		    (p[n] == '\0' || strchr(blank, p[n]) != NULL))
			return 1;
		p += n;
	}
	return 0;
}

/* Make controller ctl available to children of the parent cgroup. */
/* v in decimal, written to dirfd's file. */
static int
write_u64(int dirfd, const char *file, uint64_t v)
{
	char val[24];

	snprintf(val, sizeof(val), "%llu", (unsigned long long)v);
	return write_small(dirfd, file, val);
}

static int
enable_ctl(int pfd, const char *ctl, char *err, size_t errlen)
{
	char buf[512], op[64];

	if (read_file(pfd, "cgroup.subtree_control", buf, sizeof(buf)) == -1)
		goto fail;
	if (cg_list_has(buf, ctl))
		return 0;
	snprintf(op, sizeof(op), "+%s", ctl);
	if (write_small(pfd, "cgroup.subtree_control", op) == 0)
		return 0;
fail:
	return err_set_sys(err, errlen, "cgroup: enabling the %s controller",
	    ctl);
}

/* The run cgroup's modes.  Fresh: between mkdir and the lock, mode 0
 * (no process without CAP_DAC_OVERRIDE or CAP_DAC_READ_SEARCH can open
 * it, so none but another confexec can lock it; kernfs checks the mode),
 * or 0700 for a caller without those (a delegated cgroup it owns).
 * Armed: set once its supervisor holds the lock, 0111 (0711 for the
 * owner who needs to open it again): cg_reap reads "armed and free" as
 * "its supervisor is gone", and "fresh and free" as "maybe a supervisor
 * between mkdir and lock", judged by the pid of the name only in the
 * supervisor's own pid namespace.  Nobody without those capabilities
 * can open an armed one for reading (flock needs such a descriptor: an
 * O_PATH one gets EBADF), and its files stay readable by the run. */
#define MODE_FRESH 0
#define MODE_FRESH_OWNER 0700
#define MODE_ARMED 0111
#define MODE_ARMED_OWNER 0711
#define armed(mode) (((mode) & 077) == 011)

/* How long cg_create tries the lock of a fresh cgroup (a reaper judging
 * it holds it for an instant), and how many names it tries. */
#define LOCK_TRIES 200
#define LOCK_PAUSE_NS 1000000L
#define NAME_TRIES 5

/* The inode of our pid namespace: part of each run cgroup's name, so
 * that a reaper in another namespace never judges its pid. */
static int
pidns_ino(unsigned long long *ino)
{
	struct stat st;

	if (stat("/proc/self/ns/pid", &st) == -1)
		return -1;
	*ino = (unsigned long long)st.st_ino;
	return 0;
}

/* mkdir a fresh run cgroup under pfd, open it and lock it (never
 * waiting: bounded retries).  0 with cg->dirfd and name set; 1 when
 * the name exists, 2 when it could not be had (lock held, removed under
 * us): try another; -1 with errno on an error. */
static int
make_locked(struct cg *cg, int pfd, char *name, size_t namelen,
    unsigned long long ns, const char **what)
{
	static unsigned seq;
	struct timespec ts, pause = {0, LOCK_PAUSE_NS};
	int i, e, owner = 0;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	snprintf(name, namelen, PREFIX "%ld-ns%llu-%lx%u", (long)getpid(), ns,
	    (unsigned long)ts.tv_nsec, seq++);
	*what = "mkdir";
	if (mkdirat(pfd, name, MODE_FRESH) == -1)
		return errno == EEXIST ? 1 : -1;
	*what = "open";
	cg->dirfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->dirfd == -1 && errno == EACCES) {
		/* No DAC override: a cgroup we own (delegated). */
		owner = 1;
		if (fchmodat(pfd, name, MODE_FRESH_OWNER, 0) == 0)
			cg->dirfd = openat(pfd, name, O_RDONLY | O_DIRECTORY |
			    O_CLOEXEC);
	}
	if (cg->dirfd == -1)
		goto fail;
	*what = "lock";
	for (i = 0; flock(cg->dirfd, LOCK_EX | LOCK_NB) == -1; i++) {
		if (errno != EWOULDBLOCK || i == LOCK_TRIES)
			goto fail;
		nanosleep(&pause, NULL);
	}
	*what = "chmod";
	if (fchmod(cg->dirfd, owner ? MODE_ARMED_OWNER : MODE_ARMED) == -1)
		goto fail;
	return 0;
fail:
	e = errno;
	unlinkat(pfd, name, AT_REMOVEDIR);
	close_all(cg);
	errno = e;
	return e == EWOULDBLOCK || e == ENOENT ? 2 : -1;
}

/* The controllers the limits need, enabled in the parent's subtree. */
static int
enable_limits(int pfd, const struct cg_limits *lim, char *err,
    size_t errlen)
{
	if ((lim->mem_max && enable_ctl(pfd, "memory", err, errlen) == -1) ||
	    (lim->pids_max && enable_ctl(pfd, "pids", err, errlen) == -1) ||
	    (lim->cpu_quota_us && enable_ctl(pfd, "cpu", err, errlen) == -1))
		return -1;
	return 0;
}

/* A new run cgroup under pfd, locked (make_locked), at most 100 names
 * tried and NAME_TRIES lost to another process (*names counts them).
 * 0; 1 no free name; 2 each lost; -1 with errno and *what. */
static int
make_any(struct cg *cg, int pfd, char name[96], unsigned long long ns,
    int *names, const char **what)
{
	int n, r = 2;

	for (n = 0; n < 100 && *names < NAME_TRIES; n++) {
		r = make_locked(cg, pfd, name, 96, ns, what);
		if (r == 2)
			(*names)++;
		else if (r != 1)
			break;
	}
	return r;
}

/* The limits, before any process is inside.  -1 with errno and *what. */
static int
set_limits(struct cg *cg, const struct cg_limits *lim, const char **what)
{
	char val[64];

	if (lim->mem_max) {
		*what = "memory.max";
		if (write_u64(cg->dirfd, *what, lim->mem_max) == -1)
			return -1;
		*what = "memory.swap.max";
		if (write_small(cg->dirfd, *what, "0") == -1 && errno != ENOENT)
			return -1;
	}
	if (lim->pids_max) {
		*what = "pids.max";
		if (write_u64(cg->dirfd, *what, lim->pids_max) == -1)
			return -1;
	}
	if (lim->cpu_quota_us) {
		*what = "cpu.max";
		snprintf(val, sizeof(val), "%llu %llu",
		    (unsigned long long)lim->cpu_quota_us,
		    (unsigned long long)(lim->cpu_period_us ?
			lim->cpu_period_us : 100000));
		if (write_small(cg->dirfd, "cpu.max", val) == -1)
			return -1;
	}
	return 0;
}

/* The run's cgroup under pfd (parent_dir, parent_rel), locked, its
 * cgroup.kill open: a name lost to another process before it was opened
 * (a reaper removed it) is tried again.  0; -1 with errno and err; -2
 * with errno when cgroup.kill cannot be opened (*what). */
static int
make_run(struct cg *cg, int pfd, const char *parent_dir,
    const char *parent_rel, unsigned long long ns, char name[96],
    const char **what, char *err, size_t errlen)
{
	int r, names = 0;

	for (;;) {
		r = make_any(cg, pfd, name, ns, &names, what);
		if (r == -1)
			return err_set_sys(err, errlen, "cgroup: %s %s/%s",
			    *what, parent_dir, name);
		if (r != 0) {
			err_set(err, errlen, "cgroup: no run cgroup under %s: "
			    "%s", parent_dir, names == NAME_TRIES ? "another "
			    "process locked or removed each new one" :
			    "no free name");
			return errno = names == NAME_TRIES ? EWOULDBLOCK :
			    EEXIST, -1;
		}
		snprintf(cg->path, sizeof(cg->path), "%s/%s", parent_dir, name);
		snprintf(cg->rel, sizeof(cg->rel), "%s/%s",
		    strcmp(parent_rel, "/") == 0 ? "" : parent_rel, name);
		/* Locked: no reaper removes it from here on (they remove
		 * only what they hold locked).  It is ours if it was still
		 * there. */
		*what = "cgroup.kill";
		cg->killfd = openat(cg->dirfd, "cgroup.kill", O_WRONLY |
		    O_CLOEXEC);
		if (cg->killfd != -1)
			return 0;
		if (errno != ENOENT || names >= NAME_TRIES)
			return -2;
		close_all(cg);
		names++;
	}
}

int
cg_create(struct cg *cg, const char *parent_dir, const char *parent_rel,
    const struct cg_limits *lim, char *err, size_t errlen)
{
	unsigned long long ns;
	char name[96];
	const char *what = NULL;
	int pfd, e, r;

	cg->dirfd = cg->killfd = cg->eventsfd = -1;
	if (pidns_ino(&ns) == -1)
		return err_set_sys(err, errlen, "cgroup: /proc/self/ns/pid");
	pfd = open(parent_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd == -1)
		return err_set_sys(err, errlen, "cgroup: %s", parent_dir);
	if (enable_limits(pfd, lim, err, errlen) == -1)
		return close_errno(pfd);
	r = make_run(cg, pfd, parent_dir, parent_rel, ns, name, &what, err,
	    errlen);
	if (r == -1)
		goto out;
	if (r == 0) {
		what = "cgroup.events";
		cg->eventsfd = openat(cg->dirfd, "cgroup.events", O_RDONLY |
		    O_CLOEXEC);
		if (cg->eventsfd != -1 && set_limits(cg, lim, &what) == 0) {
			close(pfd);
			return 0;
		}
	}
	err_set_sys(err, errlen, "cgroup: %s: %s", cg->path, what);
	/* Removed while we hold the lock: no reaper can have done it. */
	unlinkat(pfd, name, AT_REMOVEDIR);
out:
	e = errno;
	close_all(cg);
	close(pfd);
	errno = e;
	return -1;
}

int
cg_is_member(const struct cg *cg)
{
	char buf[4096], *line, *end;
	size_t n;

	if (read_file(AT_FDCWD, "/proc/self/cgroup", buf, sizeof(buf)) == -1)
		return -1;
	n = strlen(cg->rel);
	for (line = buf; *line != '\0'; line = end + 1) {
		end = strchr(line, '\n');
		if (end == NULL)
			end = line + strlen(line);
		if (strncmp(line, "0::", 3) == 0 &&
		    (size_t)(end - line - 3) == n &&
		    memcmp(line + 3, cg->rel, n) == 0)
			return 0;
		if (*end == '\0')
			break;
	}
	errno = ESRCH;
	return -1;
}

int
cg_kill(const struct cg *cg)
{
	ssize_t w = pwrite(cg->killfd, "1", 1, 0);

	if (w == 1)
		return 0;
	if (w >= 0)
		errno = EIO;
	return -1;
}

static int
populated(int fd)
{
	char buf[256], *p;
	ssize_t r;

	r = pread(fd, buf, sizeof(buf) - 1, 0);
	if (r < 0)
		return -1;
	buf[r] = '\0';
	p = strstr(buf, "populated ");
	if (p == NULL) {
		errno = EPROTO;
		return -1;
	}
	return p[10] == '1';
}

int
cg_wait_empty(const struct cg *cg, int timeout_ms)
{
	struct timespec t0, t;
	struct pollfd pfd;
	int fd = cg->eventsfd, p, left;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		p = populated(fd);
		if (p <= 0)
			return p;
		clock_gettime(CLOCK_MONOTONIC, &t);
		left = timeout_ms - (int)((t.tv_sec - t0.tv_sec) * 1000 +
					  (t.tv_nsec - t0.tv_nsec) / 1000000);
		if (left <= 0)
			break;
		/* kernfs signals a change of cgroup.events as POLLPRI. */
		pfd.fd = fd;
		pfd.events = POLLPRI;
		pfd.revents = 0;
		if (poll(&pfd, 1, left > 50 ? 50 : left) == -1 &&
		    errno != EINTR)
			break;
	}
	errno = ETIMEDOUT;
	return -1;
}

int
cg_cpu_usec(const struct cg *cg, uint64_t *usec)
{
	char buf[1024], *p;
	size_t n;

	if (read_file(cg->dirfd, "cpu.stat", buf, sizeof(buf)) == -1)
		return -1;
	p = strstr(buf, "usage_usec ");
	if (p == NULL) {
		errno = EPROTO;
		return -1;
	}
	p += 11;
	n = strspn(p, "0123456789");
	p[n] = '\0';
	if (scan_u64(p, 0, UINT64_MAX, usec) == -1) {
		errno = EPROTO;
		return -1;
	}
	return 0;
}

int
cg_oom_kills(const struct cg *cg, uint64_t *n)
{
	char buf[1024], *line, *save = NULL;

	if (read_file(cg->dirfd, "memory.events", buf, sizeof(buf)) == -1)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line != NULL;
	    line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "oom_kill ", 9) == 0)
			return scan_u64(line + 9, 0, UINT64_MAX, n) == -1 ?
			    (errno = EPROTO, -1) : 0;
	errno = EPROTO;
	return -1;
}

int
cg_remove(struct cg *cg)
{
	int i, e = 0;

	/* rmdir before the lock goes (closing the directory): a reaper
	 * never finds it armed and free while it is still there.  rmdir
	 * can race the last exit notification: retry briefly. */
	for (i = 0; i < 50; i++) {
		if (rmdir(cg->path) == 0 || errno == ENOENT) {
			e = 0;
			break;
		}
		e = errno;
		if (e != EBUSY)
			break;
		usleep(2000);
	}
	close_all(cg);
	errno = e;
	return e == 0 ? 0 : -1;
}

int
cg_name_parse(const char *name, long *pid, unsigned long long *ns)
{
	const char *p = name + sizeof(PREFIX) - 1;
	unsigned long long v;
	char *end;

	if (strncmp(name, PREFIX, sizeof(PREFIX) - 1) != 0 || *p < '0' ||
	    *p > '9')
		return -1;
	errno = 0;
	v = strtoull(p, &end, 10);
	if (end == p || *end != '-' || errno != 0 || v == 0 || v > INT32_MAX)
		return -1;
	*pid = (long)v;
	*ns = 0;
	p = end + 1;
	if (strncmp(p, "ns", 2) == 0 && p[2] >= '0' && p[2] <= '9') {
		v = strtoull(p + 2, &end, 10);
		if (errno == 0 && *end == '-' && end[1] != '\0' && v != 0)
			*ns = v;
	}
	return 0;
}

/* Whether pid names a process of our pid namespace: pidfd_open looks in
 * the caller's namespace whatever /proc is mounted.  1 unless it says
 * ESRCH (an error counts as alive: it only delays a reaping). */
static int
pid_alive(long pid)
{
	long fd = syscall(__NR_pidfd_open, (pid_t)pid, 0);

	if (fd >= 0) {
		close((int)fd);
		return 1;
	}
	return errno != ESRCH;
}

/* For cg_reap: a descriptor of the run cgroup called name, locked by
 * us, when its supervisor is gone (-1 otherwise: alive, or maybe, or not
 * a run cgroup's name).  Alive: its supervisor holds the lock (taken
 * before the cgroup is armed, released when it ends, however it ends).
 * Free and armed: gone.  Free and fresh: a supervisor between mkdir and
 * lock, or one that died there; gone only when the name is of our pid
 * namespace (or an older name, which has none) and no process has its
 * pid (a reused pid only delays reaping it).  A cgroup we cannot open
 * (mode 0 without DAC override) is not ours to judge. */
static int
stale_fd(int pfd, const char *name, unsigned long long ourns)
{
	unsigned long long ns;
	struct stat st;
	long pid;
	int fd;

	if (cg_name_parse(name, &pid, &ns) == -1)
		return -1;
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == -1 || fstat(fd, &st) == -1)
		goto alive;
	if (armed(st.st_mode))
		return fd;
	if (ns != 0 && ns != ourns)
		goto alive;	/* another namespace's pid */
	if (pid_alive(pid))
		goto alive;
	return fd;
alive:
	close(fd);
	return -1;
}

/* rmdir a cgroup and its children (depth-first, bounded depth). */
static int
rmdir_tree(int pfd, const char *name, int depth)
{
	struct dirent *d;
	DIR *dir;
	int fd;

	if (depth > 16) {
		errno = ELOOP;
		return -1;
	}
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		return errno == ENOENT ? 0 : -1;
	dir = fdopendir(fd);
	if (dir == NULL) {
		close(fd);
		return -1;
	}
	while ((d = readdir(dir)) != NULL)
		if (d->d_type == DT_DIR && strcmp(d->d_name, ".") != 0 &&
		    strcmp(d->d_name, "..") != 0)
			rmdir_tree(dirfd(dir), d->d_name, depth + 1);
	closedir(dir);
	if (unlinkat(pfd, name, AT_REMOVEDIR) == 0 || errno == ENOENT)
		return 0;
	return -1;
}

/* Kill what is left in a stale cgroup, wait up to wait_ms for it to
 * empty, remove it.  *was_populated says whether anything was inside. */
static int
reap_one(int pfd, int lockfd, const char *name, int wait_ms,
    int *was_populated)
{
	struct cg cg;
	int i, p, e;

	memset(&cg, 0, sizeof(cg));
	cg.killfd = cg.eventsfd = -1;
	cg.dirfd = lockfd;	/* held locked until removed */
	cg.eventsfd = openat(cg.dirfd, "cgroup.events", O_RDONLY | O_CLOEXEC);
	cg.killfd = openat(cg.dirfd, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	p = cg.eventsfd == -1 ? 1 : populated(cg.eventsfd);
	*was_populated = p != 0;
	if (p != 0 && cg.killfd != -1) {
		cg_kill(&cg);
		if (wait_ms > 0 && cg.eventsfd != -1)
			cg_wait_empty(&cg, wait_ms);
	}
	if (cg.killfd != -1)
		close(cg.killfd);
	if (cg.eventsfd != -1)
		close(cg.eventsfd);
	/* Removed while we hold its lock (cg_create relies on it). */
	for (i = 0; i < (wait_ms > 0 ? 50 : 3); i++) {
		if (rmdir_tree(pfd, name, 0) == 0) {
			close(lockfd);
			return 0;
		}
		if (errno != EBUSY)
			break;
		usleep(2000);
	}
	e = errno;
	close(lockfd);
	errno = e;
	return -1;
}

int
cg_reap(const char *parent_dir, int wait_ms,
    void (*fn)(void *arg, const struct cg_reaped *rp), void *arg)
{
	unsigned long long ourns = 0;
	struct cg_reaped rp;
	struct dirent *d;
	DIR *dir;
	int pfd, fd, n = 0, failed = 0;

	/* Our namespace unknown (ourns 0): a fresh cgroup whose name holds
	 * a namespace is left alone; one of an older name, which holds
	 * none, is judged by its pid alone (stale_fd). */
	(void)pidns_ino(&ourns);
	pfd = open(parent_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd == -1)
		return -1;
	dir = fdopendir(pfd);
	if (dir == NULL) {
		close(pfd);
		return -1;
	}
	while ((d = readdir(dir)) != NULL) {
		if (strncmp(d->d_name, PREFIX, sizeof(PREFIX) - 1) != 0 ||
		    (fd = stale_fd(dirfd(dir), d->d_name, ourns)) == -1)
			continue;
		memset(&rp, 0, sizeof(rp));
		snprintf(rp.path, sizeof(rp.path), "%s/%s", parent_dir,
		    d->d_name);
		rp.removed = reap_one(dirfd(dir), fd, d->d_name, wait_ms,
		    &rp.populated) == 0;
		rp.err = rp.removed ? 0 : errno;
		failed += !rp.removed;
		n++;
		if (fn != NULL)
			fn(arg, &rp);
	}
	closedir(dir);
	if (failed) {
		errno = EBUSY;
		return -1;
	}
	return n;
}
