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
#include <time.h>
#include <unistd.h>

#include "cgroup.h"
#include "err.h"
#include "io.h"
#include "scan.h"

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

int
cg_create(struct cg *cg, const char *parent_dir, const char *parent_rel,
    const struct cg_limits *lim, char *err, size_t errlen)
{
	static unsigned seq;
	struct timespec ts;
	char name[80], val[64];
	const char *what = NULL;
	int pfd = -1, e, n;

	cg->dirfd = cg->killfd = cg->eventsfd = -1;
	pfd = open(parent_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (pfd == -1)
		return err_set_sys(err, errlen, "cgroup: %s", parent_dir);
	if ((lim->mem_max && enable_ctl(pfd, "memory", err, errlen) == -1) ||
	    (lim->pids_max && enable_ctl(pfd, "pids", err, errlen) == -1) ||
	    (lim->cpu_quota_us && enable_ctl(pfd, "cpu", err, errlen) == -1)) {
		e = errno;
		close(pfd);
		errno = e;
		return -1;
	}
	clock_gettime(CLOCK_MONOTONIC, &ts);
	for (n = 0; n < 100; n++) {
		snprintf(name, sizeof(name), "borne-%ld-%lx%u", (long)getpid(),
		    (unsigned long)ts.tv_nsec, seq++);
		if (mkdirat(pfd, name, 0755) == 0)
			break;
		if (errno != EEXIST) {
			err_set_sys(err, errlen, "cgroup: mkdir %s/%s",
			    parent_dir, name);
			e = errno;
			close(pfd);
			errno = e;
			return -1;
		}
	}
	if (n == 100) {
		close(pfd);
		errno = EEXIST;
		return err_set(err, errlen, "cgroup: no free name under %s",
		    parent_dir);
	}
	snprintf(cg->path, sizeof(cg->path), "%s/%s", parent_dir, name);
	snprintf(cg->rel, sizeof(cg->rel), "%s/%s",
	    strcmp(parent_rel, "/") == 0 ? "" : parent_rel, name);
	cg->dirfd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (cg->dirfd == -1) {
		what = "open";
		goto fail;
	}
	/* The proof that a live supervisor owns it, for cg_reap (blocking:
	 * a reaper may hold it for the instant it takes to see our pid). */
	what = "lock";
	if (flock(cg->dirfd, LOCK_EX) == -1)
		goto fail;
	what = "cgroup.kill";
	cg->killfd = openat(cg->dirfd, "cgroup.kill", O_WRONLY | O_CLOEXEC);
	if (cg->killfd == -1)
		goto fail;
	what = "cgroup.events";
	cg->eventsfd = openat(cg->dirfd, "cgroup.events", O_RDONLY |
	    O_CLOEXEC);
	if (cg->eventsfd == -1)
		goto fail;
	/* Limits before any process is inside. */
	if (lim->mem_max) {
		what = "memory.max";
		snprintf(val, sizeof(val), "%llu",
		    (unsigned long long)lim->mem_max);
		if (write_small(cg->dirfd, "memory.max", val) == -1)
			goto fail;
		what = "memory.swap.max";
		if (write_small(cg->dirfd, "memory.swap.max", "0") == -1 &&
		    errno != ENOENT)
			goto fail;
	}
	if (lim->pids_max) {
		what = "pids.max";
		snprintf(val, sizeof(val), "%llu",
		    (unsigned long long)lim->pids_max);
		if (write_small(cg->dirfd, "pids.max", val) == -1)
			goto fail;
	}
	if (lim->cpu_quota_us) {
		what = "cpu.max";
		snprintf(val, sizeof(val), "%llu %llu",
		    (unsigned long long)lim->cpu_quota_us,
		    (unsigned long long)(lim->cpu_period_us ?
			lim->cpu_period_us : 100000));
		if (write_small(cg->dirfd, "cpu.max", val) == -1)
			goto fail;
	}
	close(pfd);
	return 0;
fail:
	err_set_sys(err, errlen, "cgroup: %s: %s", cg->path, what);
	e = errno;
	close_all(cg);
	unlinkat(pfd, name, AT_REMOVEDIR);
	close(pfd);
	errno = e;
	return -1;
}

int
cg_is_member(const struct cg *cg)
{
	char buf[4096], *line, *end;
	ssize_t r;
	size_t n;
	int fd, e;

	fd = open("/proc/self/cgroup", O_RDONLY | O_CLOEXEC);
	if (fd == -1)
		return -1;
	r = read(fd, buf, sizeof(buf) - 1);
	e = errno;
	close(fd);
	if (r < 0) {
		errno = e;
		return -1;
	}
	buf[r] = '\0';
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
	int i;

	close_all(cg);
	/* rmdir can race the last exit notification: retry briefly. */
	for (i = 0; i < 50; i++) {
		if (rmdir(cg->path) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -1;
		usleep(2000);
	}
	return -1;
}

/* For cg_reap: a descriptor of the run cgroup called name, locked by
 * us, when its supervisor is gone (-1 otherwise: alive, or maybe, or not
 * a run cgroup's name).  Alive: its supervisor holds the lock (taken at
 * creation, released when it ends, however it ends).  Free and the pid
 * of its name alive: a supervisor between mkdir and flock, or a reused
 * pid; left alone either way. */
static int
stale_fd(int pfd, const char *name)
{
	unsigned long long pid;
	const char *p = name + sizeof(PREFIX) - 1;
	char *end, path[48];
	int fd;

	errno = 0;
	pid = strtoull(p, &end, 10);
	if (end == p || *end != '-' || errno != 0 || pid == 0 ||
	    pid > INT32_MAX)
		return -1;
	fd = openat(pfd, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd == -1)
		return -1;
	if (flock(fd, LOCK_EX | LOCK_NB) == -1) {
		close(fd);
		return -1;
	}
	snprintf(path, sizeof(path), "/proc/%llu", pid);
	if (access(path, F_OK) == 0 || errno != ENOENT) {
		close(fd);
		return -1;
	}
	return fd;
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
	int i, p;

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
	close_all(&cg);
	for (i = 0; i < (wait_ms > 0 ? 50 : 3); i++) {
		if (rmdir_tree(pfd, name, 0) == 0)
			return 0;
		if (errno != EBUSY)
			return -1;
		usleep(2000);
	}
	return -1;
}

int
cg_reap(const char *parent_dir, int wait_ms,
    void (*fn)(void *arg, const struct cg_reaped *rp), void *arg)
{
	struct cg_reaped rp;
	struct dirent *d;
	DIR *dir;
	int pfd, fd, n = 0, failed = 0;

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
		    (fd = stale_fd(dirfd(dir), d->d_name)) == -1)
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
