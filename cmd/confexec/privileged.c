/* SPDX-License-Identifier: ISC */
/* confexec: no privileged file beneath a rw rule (confexec(1), PRIVILEGED
 * FILES).  A setuid, setgid or file-capability file already lying beneath
 * a rw or rwx rule keeps its privilege when the payload rewrites it
 * through a shared mapping (a page fault does not clear the bits as
 * write(2) does), replaces its name or links it: whoever runs it next
 * runs the payload's bytes with it.  So before the payload starts, every
 * rw and rwx tree is walked with suidstrip's walker and stripper
 * (common/walk.h, common/privfile.h: no symbolic link followed, nothing
 * resolved again from the top, each change through an fd matching what
 * the walk saw).  Strict mode refuses a plan whose trees hold such a
 * file, naming each with the suidstrip command that clears it; degrade
 * mode strips them first, loudly.  A file with several links is refused
 * in both (its strip would change every link, perhaps one outside the
 * rules).  Nested mounts, which the walk prunes as suidstrip does, are
 * walked as trees of their own, unless read-only (the view keeps them
 * so) or a kernel file system that holds no such file.  With nothing
 * privileged writable from the payload's start, how the run ends
 * (timeout, cancel, confexec killed) opens nothing. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "canary.h"
#include "clock.h"
#include "err.h"
#include "esc.h"
#include "events.h"
#include "layers.h"
#include "plan.h"
#include "privfile.h"
#include "privileged.h"
#include "run.h"
#include "uapi.h"
#include "walk.h"

#define PV_LISTED 32		/* files listed in the start record */
#define PV_SAID 200		/* lines on stderr, then one with the rest */
#define PV_STRIP_MAX 64		/* degrade: past this many, refused */
#define PV_TREES_MAX 256	/* rule trees and nested mounts walked */
#define PV_BUDGET_S 300		/* for every tree together */
#define PV_SHOWN 1024		/* a path as said, escaped and cut */

/* A test build without the check (the canary must catch it; the bench
 * compares launches with and without it): Makefile, confexec-weak-*. */
#ifdef BORNE_WEAK_PRIVCHECK
static const int weak = 1;
#else
static const int weak = 0;
#endif

/* What happened to one privileged file. */
enum pv_action { PV_REFUSED, PV_STRIPPED, PV_STRIP_FAILED, PV_HARDLINK,
	PV_OVER };
static const char *const pv_action_name[] = { "refused", "stripped",
	"strip-failed", "refused-hardlink", "refused-over-bound" };

struct pv_hit {
	char path[PV_SHOWN];
	char rule[PV_SHOWN];
	unsigned mode, after, nlink;
	unsigned long uid, gid;
	char cap[512];		/* "" none */
	enum pv_action action;
	char why[96];		/* PV_STRIP_FAILED: the failed operation */
};

/* One tree: a rule's, or a nested mount's beneath it. */
struct pv_tree {
	int fd;			/* the directory (or a file's parent) */
	const char *file;	/* a single file: its name in fd */
	char base[PATH_MAX];	/* its path on the host */
	const char *rule;	/* the rule's path, as the plan has it */
};

static struct {
	pthread_mutex_t mu;
	int degrade;
	struct pv_hit *hit;	/* the first PV_LISTED ... */
	size_t nhit;		/* all of them */
	size_t stripped, refused;
	uint64_t errors;
	char first_error[PV_SHOWN + 128];
	struct pv_tree tree[PV_TREES_MAX];
	size_t ntree, trees_over;
	const struct run *r;
	int ran;		/* the check ran: the start record has it */
} pv = { .mu = PTHREAD_MUTEX_INITIALIZER };

static void
shown(const struct pv_tree *t, const char *dpath, const char *name,
    char *out, size_t size)
{
	char full[PATH_MAX * 2 + NAME_MAX + 4];

	snprintf(full, sizeof(full), "%s%s%s%s%s", t->base,
	    dpath[0] && strcmp(t->base, "/") ? "/" : "", dpath,
	    name[0] && (dpath[0] || strcmp(t->base, "/")) ? "/" : "", name);
	esc_name(full, out, size);
}

/* Something not looked at: counted, the first kept (path escaped). */
static void
note_error(const char *p, int err, const char *what)
{
	pthread_mutex_lock(&pv.mu);
	if (pv.errors++ == 0)
		snprintf(pv.first_error, sizeof(pv.first_error), "%s: %s: %s",
		    p, what, err == ESTALE || err == ENOENT ?
		    "changed during the walk" : err == ETIME ? "the walk's "
		    "budget of 300 s ran out" : err == E2BIG ? "not all "
		    "walked" : strerror(err));
	pthread_mutex_unlock(&pv.mu);
}

static void
walk_error(void *ctx, const char *dpath, const char *name, int err,
    const char *what)
{
	char p[PV_SHOWN];

	shown(ctx, dpath, name, p, sizeof(p));
	note_error(p, err, what);
}

static void
path_error(const char *path, int err, const char *what)
{
	char p[PV_SHOWN];

	esc_name(path, p, sizeof(p));
	note_error(p, err, what);
}

/* A nested mount: walked after this tree, as one of its own. */
static void
walk_mount(void *ctx, const char *dpath, const char *name)
{
	const struct pv_tree *t = ctx;
	struct pv_tree *n;
	char rel[PATH_MAX];
	struct open_how how = { .flags = O_PATH | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC, .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
	    RESOLVE_NO_MAGICLINKS };
	int dfd;

	/* Its directory, in this tree's mount: beneath the tree's fd. */
	snprintf(rel, sizeof(rel), "%s", dpath[0] ? dpath : ".");
	dfd = (int)syscall(__NR_openat2, t->fd, rel, &how, sizeof(how));
	if (dfd == -1) {
		walk_error(ctx, dpath, name, errno, "open");
		return;
	}
	pthread_mutex_lock(&pv.mu);
	if (pv.ntree >= PV_TREES_MAX) {
		pv.trees_over++;
		pthread_mutex_unlock(&pv.mu);
		close(dfd);
		return;
	}
	n = &pv.tree[pv.ntree++];
	n->fd = dfd;
	n->file = NULL;
	n->rule = t->rule;
	if (snprintf(n->base, sizeof(n->base), "%s%s%s%s%s", t->base,
	    dpath[0] && strcmp(t->base, "/") ? "/" : "", dpath,
	    dpath[0] || strcmp(t->base, "/") ? "/" : "", name) >=
	    (int)sizeof(n->base))
		n->base[sizeof(n->base) - 1] = '\0';	/* said cut */
	/* Its name in dfd: opened when walked. */
	n->file = strdup(name);
	if (n->file == NULL) {
		pv.ntree--;
		close(dfd);
		pthread_mutex_unlock(&pv.mu);
		walk_error(ctx, dpath, name, ENOMEM, "queue");
		return;
	}
	pthread_mutex_unlock(&pv.mu);
}

static void
said(const struct pv_hit *h)
{
	char caps[600] = "";

	if (h->cap[0] != '\0')
		snprintf(caps, sizeof(caps), ", capability %s", h->cap);
	switch (h->action) {
	case PV_STRIPPED:
		warning("WARNING: privileged file beneath rw %s stripped "
		    "before the run: %s (mode %04o -> %04o, owner %lu:%lu%s%s)",
		    h->rule, h->path, h->mode, h->after, h->uid, h->gid, caps,
		    h->cap[0] ? " removed" : "");
		break;
	case PV_HARDLINK:
		warning("privileged file beneath rw %s: %s (mode %04o, owner "
		    "%lu:%lu%s): a hard link (%u links): its strip would "
		    "change every link, perhaps one outside the rules; remove "
		    "this link, or strip the shared file with: suidstrip -- "
		    "%s", h->rule, h->path, h->mode, h->uid, h->gid, caps,
		    h->nlink, h->path);
		break;
	case PV_STRIP_FAILED:
		warning("privileged file beneath rw %s: %s (mode %04o, owner "
		    "%lu:%lu%s): not stripped: %s; clear it with: suidstrip "
		    "-- %s", h->rule, h->path, h->mode, h->uid, h->gid, caps,
		    h->why, h->path);
		break;
	default:
		warning("privileged file beneath rw %s: %s (mode %04o, owner "
		    "%lu:%lu%s): clear it with: suidstrip -- %s", h->rule,
		    h->path, h->mode, h->uid, h->gid, caps, h->path);
	}
}

/* One regular file of a tree. */
static void
walk_ent(void *ctx, const struct walk_ent *e)
{
	const struct pv_tree *t = ctx;
	struct priv_file f;
	struct pv_hit h;
	const char *op = NULL;
	size_t n = 0;
	int own;

	if (!S_ISREG(e->stx->stx_mode))
		return;
	switch (priv_look(e, &f)) {
	case -1:
		walk_error(ctx, e->dpath, e->name, errno, "read capability");
		return;
	case 0:
		return;
	default:
		break;
	}
	memset(&h, 0, sizeof(h));
	shown(t, e->dpath, e->name, h.path, sizeof(h.path));
	esc_name(t->rule, h.rule, sizeof(h.rule));
	h.mode = e->stx->stx_mode & 07777;
	h.after = f.after;
	h.nlink = e->stx->stx_nlink;
	h.uid = e->stx->stx_uid;
	h.gid = e->stx->stx_gid;
	if (f.capn > 0)
		snprintf(h.cap, sizeof(h.cap), "%s", f.ctext);
	/* The canary's own privileged file (canary.c) is stripped as
	 * degrade mode would: its probe then shows the strip held. */
	own = canary_on() && canary_own(e->stx);
	pthread_mutex_lock(&pv.mu);
	if (!own)
		n = pv.nhit++;
	if (h.nlink > 1 && !own)
		h.action = PV_HARDLINK;
	else if (!pv.degrade && !own)
		h.action = PV_REFUSED;
	else if (!own && pv.stripped >= PV_STRIP_MAX)
		h.action = PV_OVER;
	else
		h.action = PV_STRIPPED;
	if (h.action == PV_STRIPPED && !own)
		pv.stripped++;	/* counted before the strip: the bound holds */
	pthread_mutex_unlock(&pv.mu);
	if (h.action == PV_STRIPPED) {
		op = priv_strip(e, &f);
		if (op != NULL) {
			h.action = PV_STRIP_FAILED;
			snprintf(h.why, sizeof(h.why), "%s: %s", op,
			    errno == ESTALE ? "changed during the walk" :
			    strerror(errno));
		} else
			h.after = f.after;
	}
	if (own) {
		if (h.action == PV_STRIP_FAILED)
			warning("canary: %s: %s", h.path, h.why);
		return;
	}
	pthread_mutex_lock(&pv.mu);
	if (h.action != PV_STRIPPED)
		pv.refused++;
	if (n < PV_LISTED)
		pv.hit[n] = h;
	if (n < PV_SAID)
		said(&h);
	pthread_mutex_unlock(&pv.mu);
}

static const struct walk_ops pv_ops = {
	.want = WALK_DT(DT_REG),
	.stx_mask = PRIV_STX_MASK,
	.ent = walk_ent,
	.mount = walk_mount,
	.error = walk_error,
};

/* Kernel file systems that hold no file a user made (and the run's own
 * /proc replaces the host's): not walked. */
static int
kernel_fs(long type)
{
	static const long skip[] = { PROC_SUPER_MAGIC, SYSFS_MAGIC,
		CGROUP2_SUPER_MAGIC, CGROUP_SUPER_MAGIC, DEVPTS_SUPER_MAGIC,
		SECURITYFS_MAGIC, DEBUGFS_MAGIC, TRACEFS_MAGIC, BPF_FS_MAGIC,
		PSTOREFS_MAGIC, EFIVARFS_MAGIC, 0x62656570 /* configfs */,
		0x65735543 /* fusectl */, 0x19800202 /* mqueue */, BINFMTFS_MAGIC,
		SELINUX_MAGIC, NSFS_MAGIC };
	size_t i;

	for (i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (type == skip[i])
			return 1;
	return 0;
}

/* Walk tree t within what is left before deadline.  A nested mount's
 * tree comes as its parent directory (t->fd, O_PATH) and name. */
static void
walk_tree(struct pv_tree *t, uint64_t deadline)
{
	struct open_how how = { .flags = O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
	    O_CLOEXEC,
	    .resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS |
	    RESOLVE_NO_MAGICLINKS };
	struct walk_ent e;
	struct statx st;
	struct statfs sf;
	struct statvfs vf;
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	const char *name = t->file;
	int fd, r;

	if (now >= deadline) {
		walk_error(t, "", "", ETIME, "walk");
		return;
	}
	if (walk_statx(t->fd, name ? name : "", name ? AT_SYMLINK_NOFOLLOW :
	    AT_EMPTY_PATH, STATX_BASIC_STATS | STATX_MNT_ID, &st) == -1) {
		walk_error(t, "", "", errno, "stat");
		return;
	}
	if (name != NULL && !S_ISDIR(st.stx_mode)) {
		/* A single file (a rule's, or a file bind-mounted on one). */
		if (!S_ISREG(st.stx_mode))
			return;
		if (walk_statx(t->fd, name, AT_SYMLINK_NOFOLLOW, STATX_TYPE |
		    STATX_MODE | STATX_INO | STATX_MNT_ID | PRIV_STX_MASK,
		    &st) == -1) {
			walk_error(t, "", "", errno, "stat");
			return;
		}
		e.dirfd = t->fd;
		e.fd = -1;
		e.dpath = "";
		e.name = name;
		e.stx = &st;
		/* Said as the whole path: the base already names the file. */
		{
			struct pv_tree one = *t;
			char *slash = strrchr(one.base, '/');

			if (slash != NULL && slash != one.base)
				*slash = '\0';
			else if (slash != NULL)
				slash[1] = '\0';
			walk_ent(&one, &e);
		}
		free((char *)name);
		t->file = NULL;
		return;
	}
	if (name != NULL) {
		fd = (int)syscall(__NR_openat2, t->fd, name, &how, sizeof(how));
		if (fd == -1) {
			walk_error(t, "", "", errno, "open");
			return;
		}
		close(t->fd);
		t->fd = fd;
		t->file = NULL;
		free((char *)name);
	}
	/* A nested mount read-only on the host stays so in the view (its
	 * clone is recursive); a kernel file system holds none. */
	if (fstatfs(t->fd, &sf) == 0 && kernel_fs((long)sf.f_type))
		return;
	if (fstatvfs(t->fd, &vf) == 0 && (vf.f_flag & ST_RDONLY))
		return;
	/* No thread: the supervisor makes none before its clones (its
	 * processes and their order are the run's; tests count them). */
	r = walk_run(t->fd, &pv_ops, t, 0, deadline - now, NULL);
	if (r == -1)
		walk_error(t, "", "", errno, "walk");
	else if (r == WALK_BUDGET)
		walk_error(t, "", "", ETIME, "walk");
}

/* The rule i's tree: a directory, or a regular file in its parent. */
static void
add_rule(const struct run *r, size_t i)
{
	const char *real = r->real[i];
	struct pv_tree *t;
	char dir[PATH_MAX];
	const char *slash;
	struct stat st;
	int fd;

	if (pv.ntree >= PV_TREES_MAX) {
		pv.trees_over++;
		return;
	}
	if (lstat(real, &st) == -1) {
		path_error(real, errno, "stat");
		return;
	}
	if (!S_ISDIR(st.st_mode) && !S_ISREG(st.st_mode))
		return;		/* a device node: the view keeps it nodev */
	t = &pv.tree[pv.ntree];
	memset(t, 0, sizeof(*t));
	t->rule = r->p.fs[i].path;
	snprintf(t->base, sizeof(t->base), "%s", real);
	if (S_ISDIR(st.st_mode)) {
		fd = open(real, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	} else {
		slash = strrchr(real, '/');
		snprintf(dir, sizeof(dir), "%.*s", slash == real ? 1 :
		    (int)(slash - real), real);
		fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
		if ((t->file = strdup(slash + 1)) == NULL) {
			if (fd != -1)
				close(fd);
			fd = -1;
			errno = ENOMEM;
		}
	}
	if (fd == -1) {
		path_error(real, errno, "open");
		free((char *)t->file);
		return;
	}
	t->fd = fd;
	pv.ntree++;
}

/* Whether rule i lies within an earlier rw rule (walked with it). */
static int
covered(const struct plan *p, size_t i)
{
	size_t j;

	for (j = 0; j < p->nfs; j++) {
		if (j == i || (p->fs[j].intent != PLAN_RW &&
		    p->fs[j].intent != PLAN_RWX))
			continue;
		if (plan_path_within(p->fs[i].path, p->fs[j].path) &&
		    (j < i || strcmp(p->fs[i].path, p->fs[j].path) != 0))
			return 1;
	}
	return 0;
}

int
privileged_check(struct run *r, char *err, size_t len)
{
	const struct plan *p = &r->p;
	uint64_t deadline;
	size_t i;

	if (weak)
		return 0;
	pv.r = r;
	pv.degrade = p->mode == PLAN_DEGRADE;
	for (i = 0; i < p->nfs; i++) {
		if (p->fs[i].intent != PLAN_RW && p->fs[i].intent != PLAN_RWX)
			continue;
		/* The run's own procfs replaces the host's /proc. */
		if (plan_path_within(p->fs[i].path, "/proc") &&
		    layers_on(r, L_MOUNTNS))
			continue;
		if (covered(p, i))
			continue;
		if (!pv.ran) {
			pv.ran = 1;
			if ((pv.hit = calloc(PV_LISTED, sizeof(*pv.hit))) ==
			    NULL)
				return err_set_sys(err, len, "privileged "
				    "files: list");
			if (walk_probe() == -1 && r->p.mode == PLAN_DEGRADE) {
				/* Inside a confexec run (its filter answers
				 * openat2 ENOSYS): the outer run walked its
				 * own rw trees, these among them. */
				layers_loud(r, "running without the check for "
				    "privileged files beneath the rw rules: no "
				    "safe walk (openat2: %s)", strerror(errno));
				return 0;
			}
			if (walk_probe() == -1)
				return err_set_sys(err, len, "privileged files "
				    "beneath the rw rules: no safe walk "
				    "(openat2)");
		}
		add_rule(r, i);
	}
	deadline = now_ns(CLOCK_MONOTONIC) + PV_BUDGET_S * 1000000000ull;
	/* Nested mounts add trees as they are found. */
	for (i = 0; i < pv.ntree; i++) {
		walk_tree(&pv.tree[i], deadline);
		free((char *)pv.tree[i].file);
		pv.tree[i].file = NULL;
		close(pv.tree[i].fd);
		pv.tree[i].fd = -1;
	}
	if (pv.nhit > PV_SAID)
		warning("privileged files beneath the rw rules: %zu more not "
		    "listed", pv.nhit - PV_SAID);
	if (pv.trees_over > 0)
		note_error("more than 256 nested mounts beneath the rw rules",
		    E2BIG, "walk");
	if (pv.refused > 0)
		return err_set(err, len, "%zu privileged file(s) beneath the "
		    "rw rules (listed above): the payload could rewrite them "
		    "and keep their setuid, setgid or capability%s",
		    pv.refused, pv.degrade ? " (degrade mode strips single "
		    "links only, at most 64)" : "");
	if (pv.errors > 0) {
		if (!pv.degrade)
			return err_set(err, len, "privileged files beneath the "
			    "rw rules: %llu place(s) could not be looked at, "
			    "the first %s", (unsigned long long)pv.errors,
			    pv.first_error);
		warning("WARNING: privileged files beneath the rw rules: "
		    "%llu place(s) could not be looked at, the first %s",
		    (unsigned long long)pv.errors, pv.first_error);
		layers_loud(r, "privileged files beneath the rw rules: %llu "
		    "place(s) not looked at, the first %s",
		    (unsigned long long)pv.errors, pv.first_error);
	}
	if (pv.stripped > 0)
		layers_loud(r, "%zu privileged file(s) beneath the rw rules "
		    "stripped before the run", pv.stripped);
	return 0;
}

json_t *
privileged_json(void)
{
	json_t *o, *a;
	size_t i, n;

	if (!pv.ran)
		return json_null();
	a = json_array();
	n = pv.nhit < PV_LISTED ? pv.nhit : PV_LISTED;
	for (i = 0; i < n; i++) {
		const struct pv_hit *h = &pv.hit[i];
		char m[8];

		snprintf(m, sizeof(m), "%04o", h->mode);
		o = json_pack("{s:s,s:s,s:s,s:o,s:o,s:I,s:s}", "path", h->path,
		    "rule", h->rule, "mode", m, "uid", events_u64(h->uid), "gid",
		    events_u64(h->gid), "links", (json_int_t)h->nlink, "action",
		    pv_action_name[h->action]);
		if (o != NULL && h->cap[0] != '\0')
			json_object_set_new(o, "capability",
			    json_string(h->cap));
		if (o != NULL)
			json_array_append_new(a, o);
	}
	return json_pack("{s:I,s:I,s:I,s:o,s:I,s:o}", "found",
	    (json_int_t)pv.nhit, "stripped", (json_int_t)pv.stripped,
	    "refused", (json_int_t)pv.refused, "files", a, "omitted",
	    (json_int_t)(pv.nhit - n), "errors", events_u64(pv.errors));
}
