/* SPDX-License-Identifier: ISC */
/* landlock: a plan's ruleset, from the ABI table of llabi.c. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "err.h"
#include "io.h"
#include "landlock.h"
#include "uapi.h"

/* Rights that may appear in a rule on a non-directory. */
#define FS_FILE                                                        \
	(LANDLOCK_ACCESS_FS_EXECUTE | LANDLOCK_ACCESS_FS_WRITE_FILE |  \
	    LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_TRUNCATE | \
	    LANDLOCK_ACCESS_FS_IOCTL_DEV)

uint64_t
ll_intent_rights(enum plan_intent in, int is_dir, int abi)
{
	const struct ll_abi_rights *r = ll_rights(abi);
	uint64_t ro = LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR;
	uint64_t v;

	if (r == NULL)
		return 0;
	switch (in) {
	case PLAN_RO:
		v = ro;
		break;
	case PLAN_ROX:
		v = ro | LANDLOCK_ACCESS_FS_EXECUTE;
		break;
	case PLAN_RW:
		v = r->fs & ~(uint64_t)(LANDLOCK_ACCESS_FS_EXECUTE |
				    LANDLOCK_ACCESS_FS_MAKE_CHAR |
				    LANDLOCK_ACCESS_FS_MAKE_BLOCK);
		break;
	case PLAN_RWX:
		v = r->fs & ~(uint64_t)(LANDLOCK_ACCESS_FS_MAKE_CHAR |
				    LANDLOCK_ACCESS_FS_MAKE_BLOCK);
		break;
	default:
		return 0;
	}
	v &= r->fs;
	if (!is_dir)
		v &= FS_FILE;
	return v;
}

/* A link directly in /, owned by root, with a relative target that
 * does not climb, in a / that only root owns and can write: the links of
 * a merged /usr (/lib -> usr/lib, /lib64, /bin, /sbin).  Only a plan that
 * granted write on / itself could have let a payload plant one, so they
 * are followed, once, from /; the resolved path is what the start record
 * shows.  Returns 1 when the link at comp (opened as fd) is one. */
static int
system_link(int rootfd, const char *to, int fd)
{
	struct stat ls, rs;

	if (to[0] == '\0' || to[0] == '/' || strstr(to, "..") != NULL)
		return 0;
	if (fstat(fd, &ls) == -1 || fstat(rootfd, &rs) == -1)
		return 0;
	return ls.st_uid == 0 && rs.st_uid == 0 &&
	    (rs.st_mode & (S_IWGRP | S_IWOTH)) == 0;
}

/* The directory the last walk ended in, kept for the next rule's walk
 * when it names a sibling (a listed /etc: one openat a rule). */
struct walk_cache {
	int fd;			/* O_PATH, or -1 */
	char dir[PATH_MAX];	/* its path as the plan wrote it */
};

/* dfd, the directory a component was opened from: with keep, kept in wc
 * as the directory of path's last component (its first plen bytes),
 * for that component's siblings; else closed. */
static void
dir_done(struct walk_cache *wc, int dfd, const char *path, size_t plen,
    int keep)
{
	if (!keep || plen >= sizeof(wc->dir)) {
		close(dfd);
		return;
	}
	if (wc->fd != -1)
		close(wc->fd);
	wc->fd = dfd;
	memcpy(wc->dir, path, plen);
	wc->dir[plen] = '\0';
}

/* fd, the symbolic link at the component c (len bytes) of path, closed.
 * The first component of a walk from / (top) that is a system link
 * (system_link) is followed: 0, the path it leads to in redo and *dfd /
 * again.  Else -1, errno ELOOP, link naming the component and its
 * target. */
static int
link_at(int rootfd, int fd, const char *path, const char *c, size_t len,
    int top, int *dfd, char *redo, size_t redosz, char *link,
    size_t linksz)
{
	char to[256];
	ssize_t n;

	n = readlinkat(fd, "", to, sizeof(to) - 1);
	to[n < 0 ? 0 : n] = '\0';
	if (top && c == path + 1 && system_link(rootfd, to, fd) &&
	    (size_t)snprintf(redo, redosz, "/%s%s", to, c + len) < redosz &&
	    (*dfd = dup(rootfd)) != -1) {
		close(fd);
		return 0;
	}
	snprintf(link, linksz, "%.*s -> %s", (int)(c - path + (ptrdiff_t)len),
	    path, to);
	close(fd);
	return errno = ELOOP, -1;
}

/* Open path O_PATH one component at a time, none followed if it is a
 * symbolic link: a payload that wrote beneath a rule path in an earlier
 * run cannot point a later rule elsewhere (WORK/cache -> /root/.ssh).
 * The one exception is a system link of / (system_link), followed once.
 * rootfd is / (O_PATH), opened once for all the rules; st gets the
 * result's stat.  -1 with errno (ELOOP: link names the first component
 * that is a link, and its target). */
static int
open_nofollow(int rootfd, struct walk_cache *wc, const char *path,
    struct stat *st, char *link, size_t linksz, int *moved)
{
	const char *c = path + 1, *last = strrchr(path, '/');
	char comp[NAME_MAX + 1], redo[PATH_MAX + 1];
	int dfd, fd, top = 1, e;
	size_t len, plen = (size_t)(last - path);

	*moved = 0;
	/* A sibling of the last rule (/etc/passwd after /etc/group): from
	 * the directory that walk reached, nothing re-followed. */
	if (wc->fd != -1 && plen > 0 && plen == strlen(wc->dir) &&
	    memcmp(path, wc->dir, plen) == 0) {
		dfd = wc->fd;	/* kept open: never closed here */
		c = last + 1;
		top = 0;
	} else if ((dfd = dup(rootfd)) == -1)
		return -1;
	if (*c == '\0' && fstat(dfd, st) == -1)
		goto fail_dfd;
	while (*c != '\0') {
		len = strcspn(c, "/");
		if (len > NAME_MAX) {
			if (dfd != wc->fd)
				close(dfd);
			return errno = ENAMETOOLONG, -1;
		}
		memcpy(comp, c, len);
		comp[len] = '\0';
		fd = openat(dfd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
		/* The last component's directory, kept for its siblings
		 * (not after a system link: the plan's path is not where it
		 * led). */
		if (dfd != wc->fd)
			dir_done(wc, dfd, path, plen, c[len] == '\0' &&
			    !*moved && plen > 0 && fd != -1);
		if (fd == -1 || fstat(fd, st) == -1)
			goto fail;
		if (S_ISLNK(st->st_mode)) {
			if (link_at(rootfd, fd, path, c, len, top, &dfd, redo,
			    sizeof(redo), link, linksz) == -1)
				return -1;
			top = 0;
			*moved = 1;
			path = redo;	/* from / again, once */
			c = redo + 1;
			continue;
		}
		c += len + (c[len] == '/');
		dfd = fd;
	}
	return dfd;
fail_dfd:
	fd = dfd;
fail:
	e = errno;
	if (fd != -1)
		close(fd);
	errno = e;
	return -1;
}

static int
follows(const struct plan *p, const char *path)
{
	size_t i;

	for (i = 0; i < p->nfollow; i++)
		if (strcmp(p->follow[i], path) == 0)
			return 1;
	return 0;
}

/* The rule's path as opened: where the plan's path led (a followed
 * symlink, or a system link of /), from /proc/self/fd; a malloc'd
 * string or NULL (errno). */
static char *
real_path(int fd)
{
	char proc[64], buf[PATH_MAX];
	ssize_t n;

	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	if ((n = readlink(proc, buf, sizeof(buf) - 1)) == -1)
		return NULL;
	buf[n] = '\0';
	return strdup(buf);
}

static int
add_path(int rfd, int rootfd, struct walk_cache *wc, const struct plan *p,
    size_t i, int abi, char **real, int *fds, char *err, size_t errlen)
{
	const struct plan_fsrule *fr = &p->fs[i];
	const char *k = plan_intent_name(fr->intent);
	struct landlock_path_beneath_attr pb;
	int fd, e, fol = follows(p, fr->path), moved = 1;
	char link[PATH_MAX + 300];
	struct stat st;

	/* O_PATH: no read access needed to name the hierarchy; the rule
	 * binds to this inode, so a later rename cannot move it. */
	link[0] = '\0';
	fd = fol ? open(fr->path, O_PATH | O_CLOEXEC) :
	    open_nofollow(rootfd, wc, fr->path, &st, link, sizeof(link),
	    &moved);
	if (fd == -1 && errno == ELOOP && link[0] != '\0')
		return err_set(err, errlen, "landlock: %s %s: symbolic link "
		    "%s refused (the plan does not follow symlinks for this "
		    "rule)", k, fr->path, link);
	if (fd == -1)
		return err_set_sys(err, errlen, "landlock: %s %s", k,
		    fr->path);
	/* Walked without a link: the inode's path is the plan's. */
	if ((fol && fstat(fd, &st) == -1) ||
	    (real != NULL && (real[i] = moved ? real_path(fd) :
	    strdup(fr->path)) == NULL)) {
		err_set_sys(err, errlen, "landlock: %s %s", k, fr->path);
		goto fail;
	}
	memset(&pb, 0, sizeof(pb));
	pb.parent_fd = fd;
	pb.allowed_access = ll_intent_rights(fr->intent, S_ISDIR(st.st_mode),
	    abi);
	if (syscall(__NR_landlock_add_rule, rfd, LANDLOCK_RULE_PATH_BENEATH,
		&pb, 0) == -1) {
		err_set_sys(err, errlen, "landlock: rule for %s refused",
		    fr->path);
		goto fail;
	}
	if (fds != NULL)
		fds[i] = fd;
	else
		close(fd);
	return 0;
fail:
	e = errno;
	close(fd);
	errno = e;
	return -1;
}

/* Write-xor-execute on the paths as resolved: a followed symlink may
 * land a rw rule inside a rox one (or the reverse), which the plan's
 * own check (planrules.c) could not see. */
static int
check_wx(const struct plan *p, char **real, char *err, size_t errlen)
{
	const struct plan_fsrule *f, *g;
	size_t i, j;

	for (i = 0; i < p->nfs; i++)
		for (j = 0; j < p->nfs; j++) {
			f = &p->fs[i], g = &p->fs[j];
			if (f->intent != PLAN_ROX || g->intent != PLAN_RW)
				continue;
			if (!plan_path_within(real[i], real[j]) &&
			    !plan_path_within(real[j], real[i]))
				continue;
			errno = EPERM;
			return err_set(err, errlen, "landlock: rox %s (%s) and "
			    "rw %s (%s) nest once resolved: write and execute "
			    "would both apply (use rwx to mean it)", f->path,
			    real[i], g->path, real[j]);
		}
	return 0;
}

static int
add_port(int rfd, uint16_t port, uint64_t access, char *err, size_t errlen)
{
	struct borne_landlock_net_port_attr np;

	np.allowed_access = access;
	np.port = port;
	if (syscall(__NR_landlock_add_rule, rfd, LANDLOCK_RULE_NET_PORT, &np,
		0) == -1)
		return err_set_sys(err, errlen, "landlock: rule for tcp port "
		    "%u refused", (unsigned)port);
	return 0;
}

int
ll_add_connect(int rfd, int abi, uint16_t port, char *err, size_t errlen)
{
	const struct ll_abi_rights *r = ll_rights(abi);

	if (r == NULL || !r->net)
		return 0;
	return add_port(rfd, port, LANDLOCK_ACCESS_NET_CONNECT_TCP, err,
	    errlen);
}

void
ll_real_free(char **real, size_t n)
{
	size_t i;

	if (real == NULL)
		return;
	for (i = 0; i < n; i++)
		free(real[i]);
	free(real);
}

int
ll_build(const struct plan *p, int abi, int *rfd, char *err, size_t errlen)
{
	char **real = NULL;
	int r;

	r = ll_build_real(p, abi, rfd, &real, NULL, err, errlen);
	ll_real_free(real, p->nfs);
	return r;
}

void
ll_fds_free(int *fds, size_t n)
{
	size_t i;

	if (fds == NULL)
		return;
	for (i = 0; i < n; i++)
		if (fds[i] != -1)
			close(fds[i]);
	free(fds);
}

/* A ruleset handling every right of r, created with the struct size the
 * ABI knows: older kernels reject a larger struct with non-zero unknown
 * fields (E2BIG).  Its fd, or -1 with errno. */
static int
ruleset_new(const struct ll_abi_rights *r)
{
	struct borne_landlock_ruleset_attr attr;
	size_t attrsz;

	memset(&attr, 0, sizeof(attr));
	attr.handled_access_fs = r->fs;
	attr.handled_access_net = r->net;
	attr.scoped = r->scoped;
	if (r->scoped)
		attrsz = sizeof(attr);
	else if (r->net)
		attrsz = offsetof(struct borne_landlock_ruleset_attr, scoped);
	else
		attrsz = offsetof(struct borne_landlock_ruleset_attr,
		    handled_access_net);
	return (int)syscall(__NR_landlock_create_ruleset, &attr, attrsz, 0);
}

/* Each of the plan's file rules added to the ruleset fd (add_path), from
 * / opened once.  0, or -1 with errno and err. */
static int
add_paths(int fd, const struct plan *p, int abi, char **real, int *fds,
    char *err, size_t errlen)
{
	struct walk_cache wc;
	int rootfd, r = 0;
	size_t i;

	if (p->nfs == 0)
		return 0;
	if ((rootfd = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return err_set_sys(err, errlen, "landlock: /");
	wc.fd = -1;
	for (i = 0; r == 0 && i < p->nfs; i++)
		r = add_path(fd, rootfd, &wc, p, i, abi, real, fds, err,
		    errlen);
	close_errno(rootfd);
	if (wc.fd != -1)
		close_errno(wc.fd);
	return r;
}

/* The plan's TCP ports, to connect to and to bind. */
static int
add_ports(int fd, const struct plan *p, char *err, size_t errlen)
{
	size_t i;

	for (i = 0; i < p->nconnect; i++)
		if (add_port(fd, p->connect_tcp[i],
		    LANDLOCK_ACCESS_NET_CONNECT_TCP, err, errlen) == -1)
			return -1;
	for (i = 0; i < p->nbind; i++)
		if (add_port(fd, p->bind_tcp[i], LANDLOCK_ACCESS_NET_BIND_TCP,
		    err, errlen) == -1)
			return -1;
	return 0;
}

int
ll_build_real(const struct plan *p, int abi, int *rfd, char ***realp,
    int **fdsp, char *err, size_t errlen)
{
	char **real;
	int *fds = NULL;
	const struct ll_abi_rights *r = ll_rights(abi);
	size_t i;
	int fd;

	*rfd = -1;
	*realp = NULL;
	if ((real = calloc(p->nfs + 1, sizeof(char *))) == NULL)
		return err_set_sys(err, errlen, "landlock: rule paths");
	*realp = real;
	if (fdsp != NULL) {
		*fdsp = NULL;
		if ((fds = malloc((p->nfs + 1) * sizeof(int))) == NULL)
			return err_set_sys(err, errlen, "landlock: rule paths");
		for (i = 0; i <= p->nfs; i++)
			fds[i] = -1;
		*fdsp = fds;
	}
	if (r == NULL) {
		errno = EOPNOTSUPP;
		return err_set(err, errlen, "landlock: not available");
	}
	if ((fd = ruleset_new(r)) == -1)
		return err_set_sys(err, errlen, "landlock: create ruleset");
	if (add_paths(fd, p, abi, real, fds, err, errlen) == -1 ||
	    check_wx(p, real, err, errlen) == -1 ||
	    (r->net && (p->sock & PLAN_SOCK_TCP) &&
	    add_ports(fd, p, err, errlen) == -1))
		return close_errno(fd);
	*rfd = fd;
	return 0;
}

int
ll_add_fd(int rfd, int dirfd, enum plan_intent in, int abi, char *err,
    size_t errlen)
{
	struct landlock_path_beneath_attr pb;

	memset(&pb, 0, sizeof(pb));
	pb.parent_fd = dirfd;
	pb.allowed_access = ll_intent_rights(in, 1, abi);
	if (syscall(__NR_landlock_add_rule, rfd, LANDLOCK_RULE_PATH_BENEATH,
		&pb, 0) == -1)
		return err_set_sys(err, errlen, "landlock: rule for the tmp "
		    "directory refused");
	return 0;
}

/* Whether intent has grants need (read, execute or write). */
static int
grants(enum plan_intent has, enum plan_intent need)
{
	switch (need) {
	case PLAN_ROX:
		return has == PLAN_ROX || has == PLAN_RWX;
	case PLAN_RW:
		return has == PLAN_RW || has == PLAN_RWX;
	case PLAN_RO:
		return 1;
	default:
		return has == PLAN_RWX;
	}
}

long
ll_granted(const struct plan *p, char *const *real, const char *path,
    enum plan_intent need)
{
	size_t i;

	for (i = 0; i < p->nfs; i++)
		if (grants(p->fs[i].intent, need) &&
		    plan_path_within(path, real ? real[i] : p->fs[i].path))
			return (long)i;
	return -1;
}

int
ll_grant_hint(const struct plan *p, char *const *real, const char *path,
    enum plan_intent need, char *buf, size_t size)
{
	char dir[PATH_MAX];
	char *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	if ((slash = strrchr(dir, '/')) != NULL)
		*(slash == dir ? slash + 1 : slash) = '\0';
	return ll_grant_hint_at(p, real, path, dir, need, buf, size);
}

int
ll_grant_hint_at(const struct plan *p, char *const *real, const char *path,
    const char *dir, enum plan_intent need, char *buf, size_t size)
{
	const struct plan_preset_entry *sys;
	char rp[PATH_MAX];
	size_t i, n;
	long g;

	if ((g = ll_granted(p, real, path, need)) >= 0) {
		snprintf(buf, size, "%s %s",
		    plan_intent_name(p->fs[g].intent), p->fs[g].path);
		return 1;
	}
	sys = plan_preset_sys(&n);
	for (i = 0; i < n; i++)
		if (grants(sys[i].intent, need) &&
		    realpath(sys[i].path, rp) != NULL &&
		    plan_path_within(path, rp) &&
		    !(sys[i].withhold && plan_preset_withheld(path)))
			break;
	snprintf(buf, size, "--%s %s%s", plan_intent_name(need), dir,
	    i < n ? ", or --preset sys" : "");
	return 0;
}

int
ll_enforce(int rfd, int abi)
{
	(void)abi;	/* default logging: no restrict_self flags */
	if (syscall(__NR_landlock_restrict_self, rfd, 0) == -1)
		return -1;
	return 0;
}
