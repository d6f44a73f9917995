/* SPDX-License-Identifier: ISC */
/* walk: race-free parallel directory walk and fd-based file operations. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "io.h"
#include "walk.h"

#define CAP_XATTR "security.capability"
#define RESOLVE_WALK (RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | \
	RESOLVE_NO_MAGICLINKS | RESOLVE_NO_XDEV)
#define STX_BASE (STATX_TYPE | STATX_MODE | STATX_INO | STATX_MNT_ID)
#define CHECK_EVERY 256		/* entries between two budget checks */

/* ---- system calls, chosen once ---- */

static int have_fchmodat2, have_getxattrat, have_removexattrat;
static atomic_int use_removexattrat;

static int
sys_openat2(int dirfd, const char *name, uint64_t flags, uint64_t resolve)
{
	struct open_how how = { .flags = flags, .resolve = resolve };

	return (int)syscall(__NR_openat2, dirfd, name, &how, sizeof how);
}

int
walk_statx(int dirfd, const char *path, int flags, unsigned mask,
    struct statx *st)
{
	return (int)syscall(__NR_statx, dirfd, path, flags, mask, st);
}

int
walk_probe(void)
{
	struct borne_xattr_args a = { 0 };
	long r;

	/* openat2 on a bad fd: EBADF when the call exists. */
	r = sys_openat2(-1, "x", O_PATH, RESOLVE_WALK);
	if (r == -1 && errno == ENOSYS)
		return -1;
	if (r >= 0)
		close((int)r);
	/* The probes below pass fd -1 with AT_EMPTY_PATH: a kernel that knows
	 * the call and the flag answers EBADF; EINVAL or ENOSYS otherwise. */
	r = syscall(__NR_fchmodat2, -1, "", 0, AT_EMPTY_PATH);
	have_fchmodat2 = r == -1 && errno == EBADF;
	r = syscall(__NR_getxattrat, -1, "", AT_EMPTY_PATH, CAP_XATTR, &a,
	    sizeof a);
	have_getxattrat = r == -1 && errno == EBADF;
	r = syscall(__NR_removexattrat, -1, "", AT_EMPTY_PATH, CAP_XATTR);
	have_removexattrat = r == -1 && errno == EBADF;
	atomic_store(&use_removexattrat, have_removexattrat);
	/* Tests prove the fallbacks of older kernels on this one. */
	if (getenv("BORNE_WALK_FALLBACK") != NULL) {
		have_fchmodat2 = have_getxattrat = have_removexattrat = 0;
		atomic_store(&use_removexattrat, 0);
	}
	return 0;
}

const char *
walk_methods(void)
{
	static char buf[160];

	snprintf(buf, sizeof buf, "openat2, %s, %s, %s, fchownat(AT_EMPTY_PATH)",
	    have_fchmodat2 ? "fchmodat2(AT_EMPTY_PATH)" : "chmod(/proc/self/fd)",
	    have_getxattrat ? "getxattrat" : "lgetxattr(/proc/self/fd)",
	    atomic_load(&use_removexattrat) ? "removexattrat(AT_EMPTY_PATH)" :
	    "removexattr(/proc/self/fd)");
	return buf;
}

static int
same_file(const struct statx *a, const struct statx *b)
{
	return ((a->stx_mode ^ b->stx_mode) & S_IFMT) == 0 &&
	    a->stx_ino == b->stx_ino && a->stx_dev_major == b->stx_dev_major &&
	    a->stx_dev_minor == b->stx_dev_minor &&
	    (!(a->stx_mask & b->stx_mask & STATX_MNT_ID) ||
	    a->stx_mnt_id == b->stx_mnt_id);
}

int
walk_open(int dirfd, const char *name, const struct statx *seen,
    struct statx *fresh)
{
	struct statx st;
	int fd;

	fd = sys_openat2(dirfd, name, O_PATH | O_NOFOLLOW | O_CLOEXEC,
	    RESOLVE_WALK);
	if (fd == -1)
		return -1;
	if (walk_statx(fd, "", AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW, STX_BASE |
	    STATX_NLINK | STATX_UID | STATX_GID, &st) == -1)
		goto fail;
	if (!same_file(seen, &st)) {
		errno = ESTALE;
		goto fail;
	}
	if (fresh != NULL)
		*fresh = st;
	return fd;
fail:
	return close_errno(fd);
}

int
walk_chmod(int fd, mode_t mode)
{
	char p[32];

	if (have_fchmodat2)
		return (int)syscall(__NR_fchmodat2, fd, "", mode, AT_EMPTY_PATH);
	/* The magic link resolves to the very inode fd refers to. */
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	return chmod(p, mode);
}

int
walk_chown(int fd, uid_t uid, gid_t gid)
{
	/* AT_EMPTY_PATH on an O_PATH fd works since Linux 2.6.39 and acts on
	 * a symlink itself when fd was opened O_PATH|O_NOFOLLOW on one. */
	return fchownat(fd, "", uid, gid, AT_EMPTY_PATH | AT_SYMLINK_NOFOLLOW);
}

ssize_t
walk_getcap(int dirfd, const char *name, void *buf, size_t size)
{
	struct borne_xattr_args a = { .value = (uintptr_t)buf, .size =
	    (uint32_t)size };
	char p[64 + NAME_MAX];

	if (have_getxattrat)
		return syscall(__NR_getxattrat, dirfd, name, AT_SYMLINK_NOFOLLOW,
		    CAP_XATTR, &a, sizeof a);
	if (strchr(name, '/') != NULL)
		return errno = EINVAL, -1;
	snprintf(p, sizeof p, "/proc/self/fd/%d/%s", dirfd, name);
	return lgetxattr(p, CAP_XATTR, buf, size);
}

int
walk_removecap(int fd)
{
	char p[32];

	/* removexattrat(AT_EMPTY_PATH) refuses O_PATH fds (EBADF) on the
	 * kernels that have it; the first refusal switches to the magic link,
	 * which resolves to the very inode fd refers to. */
	if (atomic_load_explicit(&use_removexattrat, memory_order_relaxed)) {
		if (syscall(__NR_removexattrat, fd, "", AT_EMPTY_PATH,
		    CAP_XATTR) == 0)
			return 0;
		if (errno != EBADF)
			return -1;
		atomic_store(&use_removexattrat, 0);
	}
	snprintf(p, sizeof p, "/proc/self/fd/%d", fd);
	return removexattr(p, CAP_XATTR);
}

/* ---- the walk ---- */

struct dnode {
	int fd;
	int owned;		/* close fd when the last reference goes */
	atomic_int ref;
	uint64_t mnt;
	char *path;		/* relative to the root; "" for the root */
};

struct item {
	struct item *next;
	struct dnode *parent;
	char name[];
};

struct walk {
	const struct walk_ops *ops;
	void *ctx;
	pthread_mutex_t mu;
	pthread_cond_t cv;	/* workers: work or the end */
	pthread_cond_t done_cv;	/* controller: the end */
	struct item *stack;
	int active;
	int done;
	atomic_int stop;
	atomic_int budget_hit;
	atomic_uint_fast64_t scanned;
	uint64_t deadline;	/* CLOCK_MONOTONIC ns, 0: none */
	int inline_;		/* no worker threads: the caller walks */
};

struct ldirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

static void
over_budget(struct walk *w)
{
	if (w->deadline != 0 && now_ns(CLOCK_MONOTONIC) >= w->deadline) {
		atomic_store(&w->budget_hit, 1);
		atomic_store(&w->stop, 1);
	}
}

static void
node_put(struct dnode *n)
{
	if (atomic_fetch_sub(&n->ref, 1) != 1)
		return;
	if (n->owned)
		close(n->fd);
	free(n->path);
	free(n);
}

static int
push(struct walk *w, struct dnode *parent, const char *name, size_t len)
{
	struct item *it;

	if ((it = malloc(sizeof *it + len + 1)) == NULL)
		return -1;
	memcpy(it->name, name, len + 1);
	it->parent = parent;
	atomic_fetch_add(&parent->ref, 1);
	pthread_mutex_lock(&w->mu);
	it->next = w->stack;
	w->stack = it;
	pthread_cond_signal(&w->cv);
	pthread_mutex_unlock(&w->mu);
	return 0;
}

static char *
join(const char *dpath, const char *name)
{
	size_t a = strlen(dpath), b = strlen(name);
	char *p;

	if ((p = malloc(a + b + 2)) == NULL)
		return NULL;
	if (a > 0) {
		memcpy(p, dpath, a);
		p[a++] = '/';
	}
	memcpy(p + a, name, b + 1);
	return p;
}

/* nm, a subdirectory of n, queued for a worker (an error said when it
 * cannot be). */
static void
queue(struct walk *w, struct dnode *n, const char *nm)
{
	if (push(w, n, nm, strlen(nm)) == -1)
		w->ops->error(w->ctx, n->path, nm, errno, "queue");
}

/* The entry nm of directory n, of getdents type t: a directory queued,
 * another mount reported, a file of a wanted type handed to ops->ent
 * with its statx. */
static void
entry(struct walk *w, struct dnode *n, const char *nm, unsigned t)
{
	const struct walk_ops *ops = w->ops;
	struct walk_ent e = { .dirfd = n->fd, .fd = -1, .dpath = n->path };
	struct statx st;

	if (t == DT_DIR) {
		queue(w, n, nm);
		return;
	}
	if (t != DT_UNKNOWN && !(ops->want & WALK_DT(t)))
		return;
	if (walk_statx(n->fd, nm, AT_SYMLINK_NOFOLLOW | AT_NO_AUTOMOUNT,
	    STX_BASE | ops->stx_mask, &st) == -1) {
		ops->error(w->ctx, n->path, nm, errno, "stat");
		return;
	}
	/* A file bind-mounted on a file: another mount, whatever its type
	 * (a socket on a regular file's name). */
	if ((st.stx_mask & STATX_MNT_ID) && st.stx_mnt_id != n->mnt) {
		ops->mount(w->ctx, n->path, nm);
		return;
	}
	if (t == DT_UNKNOWN) {
		t = IFTODT(st.stx_mode);
		if (t == DT_DIR) {
			queue(w, n, nm);
			return;
		}
		if (!(ops->want & WALK_DT(t)))
			return;
	} else if (IFTODT(st.stx_mode) != t) {
		/* Replaced between getdents and statx. */
		ops->error(w->ctx, n->path, nm, ESTALE, "stat");
		return;
	}
	e.name = nm;
	e.stx = &st;
	ops->ent(w->ctx, &e);
}

/* Read directory n, handing its entries to the callbacks and pushing its
 * subdirectories. */
static void
read_dir(struct walk *w, struct dnode *n, char *buf, size_t bufsz)
{
	unsigned since = 0;
	long got;

	while ((got = syscall(SYS_getdents64, n->fd, buf, bufsz)) > 0) {
		long off = 0;

		while (off < got) {
			struct ldirent64 *d = (struct ldirent64 *)(buf + off);
			const char *nm = d->d_name;

			off += d->d_reclen;
			if (nm[0] == '.' && (nm[1] == '\0' ||
			    (nm[1] == '.' && nm[2] == '\0')))
				continue;
			if (++since >= CHECK_EVERY) {
				/* One shared counter update per batch. */
				atomic_fetch_add_explicit(&w->scanned, since,
				    memory_order_relaxed);
				since = 0;
				over_budget(w);
				if (atomic_load(&w->stop))
					return;	/* counted above */
			}
			entry(w, n, nm, d->d_type);
		}
	}
	atomic_fetch_add_explicit(&w->scanned, since, memory_order_relaxed);
	if (got == -1)
		w->ops->error(w->ctx, n->path, "", errno, "read");
}

/* The subdirectory name of p opened (never following a link, never
 * crossing a mount: another mount is reported, not walked), *st its
 * statx.  The fd, or -1 once reported. */
static int
dir_open(struct walk *w, struct dnode *p, const char *name,
    struct statx *st)
{
	const struct walk_ops *ops = w->ops;
	int fd;

	fd = sys_openat2(p->fd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC, RESOLVE_WALK);
	if (fd == -1) {
		if (errno == EXDEV)
			ops->mount(w->ctx, p->path, name);
		else
			ops->error(w->ctx, p->path, name,
			    errno == ELOOP || errno == ENOTDIR ? ESTALE : errno,
			    "open");
		return -1;
	}
	if (walk_statx(fd, "", AT_EMPTY_PATH, STX_BASE | ops->stx_mask, st) ==
	    -1) {
		ops->error(w->ctx, p->path, name, errno, "stat");
		close(fd);
		return -1;
	}
	if ((st->stx_mask & STATX_MNT_ID) && st->stx_mnt_id != p->mnt) {
		ops->mount(w->ctx, p->path, name);
		close(fd);
		return -1;
	}
	return fd;
}

static void
visit(struct walk *w, struct item *it, char *buf, size_t bufsz)
{
	const struct walk_ops *ops = w->ops;
	struct dnode *p = it->parent, *n;
	struct walk_ent e;
	struct statx st;
	int fd;

	if (atomic_load(&w->stop))
		goto out;
	over_budget(w);
	if ((fd = dir_open(w, p, it->name, &st)) == -1)
		goto out;
	if ((n = calloc(1, sizeof *n)) == NULL ||
	    (n->path = join(p->path, it->name)) == NULL) {
		ops->error(w->ctx, p->path, it->name, ENOMEM, "open");
		free(n);
		close(fd);
		goto out;
	}
	n->fd = fd;
	n->owned = 1;
	n->mnt = st.stx_mnt_id;
	atomic_init(&n->ref, 1);
	e.dirfd = p->fd;
	e.fd = fd;
	e.dpath = p->path;
	e.name = it->name;
	e.stx = &st;
	ops->ent(w->ctx, &e);
	node_put(p);
	p = NULL;
	read_dir(w, n, buf, bufsz);
	node_put(n);
out:
	if (p != NULL)
		node_put(p);
	free(it);
}

static void *
worker(void *arg)
{
	struct walk *w = arg;
	static const size_t bufsz = 32768;
	char *buf;
	struct item *it;

	buf = malloc(bufsz);
	pthread_mutex_lock(&w->mu);
	for (;;) {
		if (w->inline_)
			over_budget(w);
		while (w->stack == NULL && w->active > 0)
			pthread_cond_wait(&w->cv, &w->mu);
		if (w->stack == NULL)
			break;
		it = w->stack;
		w->stack = it->next;
		w->active++;
		pthread_mutex_unlock(&w->mu);
		if (buf == NULL) {
			w->ops->error(w->ctx, it->parent->path, it->name,
			    ENOMEM, "read");
			node_put(it->parent);
			free(it);
		} else
			visit(w, it, buf, bufsz);
		pthread_mutex_lock(&w->mu);
		w->active--;
	}
	w->done = 1;
	pthread_cond_broadcast(&w->cv);
	pthread_cond_broadcast(&w->done_cv);
	pthread_mutex_unlock(&w->mu);
	free(buf);
	return NULL;
}

#define WALK_BUF 32768	/* the root's getdents buffer */

/* The root's node: rootfd (not owned: the caller closes it), its mount
 * st's; *buf the buffer it is read with.  NULL when out of memory. */
static struct dnode *
root_node(int rootfd, const struct statx *st, char **buf)
{
	struct dnode *root;

	if ((root = calloc(1, sizeof *root)) == NULL ||
	    (root->path = strdup("")) == NULL ||
	    (*buf = malloc(WALK_BUF)) == NULL) {
		if (root != NULL)
			free(root->path);
		free(root);
		return NULL;
	}
	root->fd = rootfd;
	root->mnt = st->stx_mnt_id;
	atomic_init(&root->ref, 1);
	return root;
}

/* The root read by the caller (its subdirectories go to the workers),
 * then released. */
static void
root_read(struct walk *w, struct dnode *root, char *buf)
{
	read_dir(w, root, buf, WALK_BUF);
	node_put(root);
	free(buf);
	pthread_mutex_lock(&w->mu);
	w->active--;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->mu);
}

/* The controller, until the workers are done: every 250 ms the budget
 * checked and the progress told. */
static void
watch(struct walk *w, uint64_t start)
{
	const struct walk_ops *ops = w->ops;
	struct timespec ts;
	uint64_t t, last = start;

	pthread_mutex_lock(&w->mu);
	while (!w->done) {
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += 250000000;
		if (ts.tv_nsec >= 1000000000) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&w->done_cv, &w->mu, &ts);
		if (w->done)
			break;
		pthread_mutex_unlock(&w->mu);
		over_budget(w);
		t = now_ns(CLOCK_MONOTONIC);
		if (ops->progress != NULL && t - last >= 250000000u) {
			last = t;
			ops->progress(w->ctx, atomic_load(&w->scanned),
			    (double)(t - start) / 1e9);
		}
		pthread_mutex_lock(&w->mu);
	}
	pthread_mutex_unlock(&w->mu);
}

/* The walk's state before its start: deadline CLOCK_MONOTONIC ns (0:
 * none). */
static void
walk_init(struct walk *w, uint64_t deadline)
{
	w->deadline = deadline;
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->cv, NULL);
	pthread_cond_init(&w->done_cv, NULL);
	atomic_init(&w->stop, 0);
	atomic_init(&w->budget_hit, 0);
	atomic_init(&w->scanned, 0);
}

/* The walk's end: its locks destroyed, *scanned told; the result. */
static int
walk_end(struct walk *w, uint64_t *scanned)
{
	pthread_mutex_destroy(&w->mu);
	pthread_cond_destroy(&w->cv);
	pthread_cond_destroy(&w->done_cv);
	if (scanned != NULL)
		*scanned = atomic_load(&w->scanned);
	return atomic_load(&w->budget_hit) ? WALK_BUDGET : WALK_DONE;
}

int
walk_run(int rootfd, const struct walk_ops *ops, void *ctx, int nthreads,
    uint64_t budget_ns, uint64_t *scanned)
{
	pthread_t tid[16];
	struct walk w = { .ops = ops, .ctx = ctx };
	struct dnode *root;
	struct statx st;
	uint64_t start;
	char *buf;
	int i, started = 0;

	if (nthreads < 0 || nthreads > 16)
		return errno = EINVAL, -1;
	if (walk_statx(rootfd, "", AT_EMPTY_PATH, STX_BASE | ops->stx_mask,
	    &st) == -1)
		return -1;
	if (!S_ISDIR(st.stx_mode))
		return errno = ENOTDIR, -1;
	/* The same fd may be walked twice (restore, then strip). */
	if (lseek(rootfd, 0, SEEK_SET) == -1)
		return -1;
	start = now_ns(CLOCK_MONOTONIC);
	walk_init(&w, budget_ns ? start + budget_ns : 0);
	if ((root = root_node(rootfd, &st, &buf)) == NULL)
		return -1;
	ops->ent(ctx, &(struct walk_ent){ .dirfd = -1, .fd = rootfd,
	    .dpath = "", .name = "", .stx = &st });
	w.active = 1;
	/* No thread: the caller walks, the budget checked between
	 * directories (a process that must not make threads: confexec's
	 * supervisor before its clones). */
	if (nthreads == 0) {
		w.inline_ = 1;
		root_read(&w, root, buf);
		worker(&w);
		return walk_end(&w, scanned);
	}
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&tid[started], NULL, worker, &w) == 0)
			started++;
	if (started == 0) {
		node_put(root);
		free(buf);
		return errno = EAGAIN, -1;
	}
	root_read(&w, root, buf);
	watch(&w, start);
	for (i = 0; i < started; i++)
		pthread_join(tid[i], NULL);
	return walk_end(&w, scanned);
}
