/* SPDX-License-Identifier: ISC */
/* suidstrip: strip setuid/setgid bits and file capabilities from sandbox
 * bind-mount directories, host-side, without ever following a symlink. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <linux/openat2.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/sysmacros.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <sys/capability.h>

#include "err.h"
#include "esc.h"
#include "inspect.h"
#include "scan.h"
#include "uapi.h"
#include "walk.h"

#define USAGE "suidstrip [--dry-run | --check] [--json] [--chown UID:GID] " \
	"[--budget SECONDS] [--jobs N] [--within ROOT]... [--guard ROOT]... " \
	"[--inspect FILE|-] [DIR...]"

#define MAX_ROOTS 64
#define MAX_INSPECT (64u << 20)	/* bytes of docker inspect JSON accepted */
#define CAUSE_MAX 512

enum mode { MODE_STRIP, MODE_DRYRUN, MODE_CHECK };
enum step { STEP_RESTORE, STEP_STRIP };

/* Options, set once in main and read-only afterwards. */
static struct {
	enum mode mode;
	int json;
	int chown;
	uid_t uid;
	gid_t gid;
	uint64_t budget;	/* seconds */
	int jobs;
	int tty;
} opt;

struct target {
	char *path;		/* real path, as displayed */
	char *base;		/* prefix of every reported path */
	int fd;			/* the directory (or, for a file, its parent) */
	const char *file;	/* a single-file target: its name in fd */
	char cause[2][CAUSE_MAX];	/* per step: the first failure */
	int failed[2];
	uint64_t scanned[2];
	int progressed;
	atomic_uint_fast64_t changed, found, reported;
};

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;

/* ---- output ---- */

static void
rel_path(const char *dpath, const char *name, char *out, size_t size)
{
	if (dpath[0] != '\0' && name[0] != '\0')
		snprintf(out, size, "%s/%s", dpath, name);
	else
		snprintf(out, size, "%s", dpath[0] != '\0' ? dpath : name);
}

/* The escaped display path of dpath/name in t. */
static void
disp_path(const struct target *t, const char *dpath, const char *name,
    char *out, size_t size)
{
	char rel[PATH_MAX + NAME_MAX + 2], full[PATH_MAX * 2 + NAME_MAX + 4];

	rel_path(dpath, name, rel, sizeof rel);
	if (rel[0] != '\0')
		snprintf(full, sizeof full, "%s/%s", t->base, rel);
	else
		snprintf(full, sizeof full, "%s", t->base);
	esc_name(full, out, size);
}

static void
emit_json(json_t *o)
{
	char *s = json_dumps(o, JSON_COMPACT | JSON_ENSURE_ASCII);

	if (s != NULL) {
		pthread_mutex_lock(&out_mu);
		fputs(s, stdout);
		fputc('\n', stdout);
		pthread_mutex_unlock(&out_mu);
		free(s);
	}
	json_decref(o);
}

static void
out_line(FILE *f, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void
out_line(FILE *f, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_mu);
	if (f == stderr)
		fprintf(f, "%s: ", prog_name());
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	if (f == stderr)
		fflush(f);
	pthread_mutex_unlock(&out_mu);
}

static const char *
type_name(mode_t m)
{
	switch (m & S_IFMT) {
	case S_IFREG: return "file";
	case S_IFDIR: return "dir";
	case S_IFLNK: return "symlink";
	case S_IFCHR: return "char";
	case S_IFBLK: return "block";
	case S_IFIFO: return "fifo";
	case S_IFSOCK: return "socket";
	default: return "unknown";
	}
}

/* A per-file JSON record; mode_after < 0 means unchanged/not applicable. */
static json_t *
rec_new(const struct target *t, const char *dpath, const char *name,
    const char *step, const char *action, const struct statx *st,
    long mode_after)
{
	char rel[PATH_MAX + NAME_MAX + 2], esc[ESC_SIZE(PATH_MAX + NAME_MAX + 2)];
	char tesc[ESC_SIZE(PATH_MAX)], m[16];
	json_t *o;

	rel_path(dpath, name, rel, sizeof rel);
	esc_name(rel[0] != '\0' ? rel : ".", esc, sizeof esc);
	if (t->file != NULL)
		esc_name(t->path, tesc, sizeof tesc);
	else
		esc_name(t->base, tesc, sizeof tesc);
	o = json_pack("{s:s, s:s, s:s, s:s}", "target", tesc, "path", esc,
	    "step", step, "action", action);
	if (o == NULL)
		return NULL;
	if (st != NULL) {
		json_object_set_new(o, "type", json_string(type_name(st->stx_mode)));
		snprintf(m, sizeof m, "%05o", st->stx_mode & 07777);
		json_object_set_new(o, "mode_before", json_string(m));
		if (mode_after >= 0) {
			snprintf(m, sizeof m, "%05lo", (unsigned long)mode_after);
			json_object_set_new(o, "mode_after", json_string(m));
		}
		json_object_set_new(o, "uid", json_integer(st->stx_uid));
		json_object_set_new(o, "gid", json_integer(st->stx_gid));
		json_object_set_new(o, "nlink", json_integer(st->stx_nlink));
	}
	return o;
}

/* ---- failures: one WARNING per target, printed at the end ---- */

static void
fail_target(struct target *t, enum step s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void
fail_target(struct target *t, enum step s, const char *fmt, ...)
{
	va_list ap;

	pthread_mutex_lock(&out_mu);
	if (!t->failed[s]++) {
		va_start(ap, fmt);
		vsnprintf(t->cause[s], sizeof t->cause[s], fmt, ap);
		va_end(ap);
	}
	pthread_mutex_unlock(&out_mu);
}

/* ---- capabilities ---- */

/* Decode a vfs_cap_data xattr (v1, v2 or v3) into getcap-like text, plus
 * the v3 root id (-1 when none).  Never fails: unknown data is "invalid". */
static void
cap_text(const unsigned char *b, ssize_t n, char *out, size_t size,
    int *version, long long *rootid)
{
	uint32_t magic, perm[2] = { 0, 0 }, inh[2] = { 0, 0 };
	int words, i, bit;
	cap_t c;
	char *s;

	*version = 0;
	*rootid = -1;
	snprintf(out, size, "invalid");
	if (n < 4)
		return;
#define LE32(p) ((uint32_t)(p)[0] | (uint32_t)(p)[1] << 8 | \
	(uint32_t)(p)[2] << 16 | (uint32_t)(p)[3] << 24)
	magic = LE32(b);
	switch (magic & 0xff000000u) {
	case 0x01000000u: if (n != 12) return; words = 1; *version = 1; break;
	case 0x02000000u: if (n != 20) return; words = 2; *version = 2; break;
	case 0x03000000u: if (n != 24) return; words = 2; *version = 3;
		*rootid = LE32(b + 20); break;
	default: return;
	}
	for (i = 0; i < words; i++) {
		perm[i] = LE32(b + 4 + 8 * i);
		inh[i] = LE32(b + 8 + 8 * i);
	}
#undef LE32
	if ((c = cap_init()) == NULL)
		return;
	for (bit = 0; bit < 64; bit++) {
		cap_value_t v = bit;
		uint32_t m = 1u << (bit % 32);

		if (perm[bit / 32] & m) {
			cap_set_flag(c, CAP_PERMITTED, 1, &v, CAP_SET);
			if (magic & 1)
				cap_set_flag(c, CAP_EFFECTIVE, 1, &v, CAP_SET);
		}
		if (inh[bit / 32] & m)
			cap_set_flag(c, CAP_INHERITABLE, 1, &v, CAP_SET);
	}
	if ((s = cap_to_text(c, NULL)) != NULL) {
		snprintf(out, size, "%s", s);
		cap_free(s);
	}
	cap_free(c);
}

/* ---- the restore step (--chown) ---- */

static void
restore_ent(void *ctx, const struct walk_ent *e)
{
	struct target *t = ctx;
	const struct statx *st = e->stx;
	char p[ESC_SIZE(PATH_MAX * 2)];
	struct statx fresh;
	json_t *o;
	int fd, r;

	if (st->stx_uid != 0)
		return;
	if (S_ISREG(st->stx_mode) && st->stx_nlink > 1) {
		/* chown would move every link, some perhaps outside. */
		disp_path(t, e->dpath, e->name, p, sizeof p);
		out_line(stderr, "%s: not chowned: hard link (%u links)", p,
		    st->stx_nlink);
		atomic_fetch_add(&t->reported, 1);
		if (opt.json && (o = rec_new(t, e->dpath, e->name, "restore",
		    "not-chowned-hardlink", st, -1)) != NULL)
			emit_json(o);
		return;
	}
	if (opt.mode != MODE_STRIP) {
		if (opt.json) {
			if ((o = rec_new(t, e->dpath, e->name, "restore",
			    "would-chown", st, -1)) != NULL)
				emit_json(o);
		} else {
			disp_path(t, e->dpath, e->name, p, sizeof p);
			out_line(stdout, "would chown: %s: 0:%u -> %u:%u", p,
			    st->stx_gid, opt.uid, opt.gid);
		}
		return;
	}
	if (e->fd >= 0) {
		/* A directory: its own fd was opened by the walk. */
		r = fchown(e->fd, opt.uid, opt.gid);
	} else {
		if ((fd = walk_open(e->dirfd, e->name, st, &fresh)) == -1)
			goto fail;
		if (fresh.stx_uid != 0 || (S_ISREG(fresh.stx_mode) &&
		    fresh.stx_nlink > 1)) {
			close(fd);
			errno = ESTALE;
			goto fail;
		}
		r = walk_chown(fd, opt.uid, opt.gid);
		close(fd);
	}
	if (r == -1)
		goto fail;
	atomic_fetch_add(&t->changed, 1);
	if (opt.json && (o = rec_new(t, e->dpath, e->name, "restore",
	    "chowned", st, -1)) != NULL)
		emit_json(o);
	return;
fail:
	r = errno;
	disp_path(t, e->dpath, e->name, p, sizeof p);
	fail_target(t, STEP_RESTORE, "%s: chown: %s", p,
	    r == ESTALE ? "changed during the walk" : strerror(r));
}

/* ---- the strip step ---- */

static void
report(struct target *t, const struct walk_ent *e, const char *what)
{
	char p[ESC_SIZE(PATH_MAX * 2)];
	json_t *o;

	disp_path(t, e->dpath, e->name, p, sizeof p);
	out_line(stderr, "%s: %s left in place", p, what);
	atomic_fetch_add(&t->reported, 1);
	if (opt.json && (o = rec_new(t, e->dpath, e->name, "strip", "reported",
	    e->stx, -1)) != NULL) {
		json_object_set_new(o, "note", json_string(what));
		emit_json(o);
	}
}

static void
strip_ent(void *ctx, const struct walk_ent *e)
{
	struct target *t = ctx;
	const struct statx *st = e->stx;
	unsigned char cap[64];
	char p[ESC_SIZE(PATH_MAX * 2)], what[96], ctext[512];
	struct statx fresh;
	ssize_t capn;
	unsigned bits, after;
	long long rootid;
	int fd, ver, err;
	const char *action, *failed_op = NULL;
	json_t *o;

	if (S_ISDIR(st->stx_mode)) {
		if (st->stx_mode & S_ISGID)
			report(t, e, "setgid directory");
		else if (st->stx_mode & S_ISUID)
			report(t, e, "setuid directory");
		return;
	}
	if (S_ISCHR(st->stx_mode) || S_ISBLK(st->stx_mode)) {
		snprintf(what, sizeof what, "device node (%s %u:%u)",
		    S_ISCHR(st->stx_mode) ? "char" : "block",
		    st->stx_rdev_major, st->stx_rdev_minor);
		report(t, e, what);
		return;
	}
	if (!S_ISREG(st->stx_mode))
		return;
	/* The hot path: one statx (done by the walk) and one xattr read. */
	bits = st->stx_mode & (S_ISUID | S_ISGID);
	capn = walk_getcap(e->dirfd, e->name, cap, sizeof cap);
	if (capn == -1) {
		if (errno == ENODATA || errno == EOPNOTSUPP)
			capn = 0;
		else if (errno == ERANGE)
			capn = sizeof cap;	/* oversized: still a capability */
		else {
			err = errno;
			disp_path(t, e->dpath, e->name, p, sizeof p);
			fail_target(t, STEP_STRIP, "%s: read capability: %s", p,
			    err == ENOENT ? "changed during the walk" :
			    strerror(err));
			return;
		}
	}
	if (bits == 0 && capn == 0)
		return;
	atomic_fetch_add(&t->found, 1);
	ctext[0] = '\0';
	ver = 0;
	rootid = -1;
	if (capn > 0)
		cap_text(cap, capn, ctext, sizeof ctext, &ver, &rootid);
	after = st->stx_mode & 07777 & ~(S_ISUID | S_ISGID);
	fresh = *st;
	action = opt.mode == MODE_CHECK ? "privileged" :
	    opt.mode == MODE_DRYRUN ? "would-strip" : "stripped";
	if (opt.mode == MODE_STRIP) {
		if ((fd = walk_open(e->dirfd, e->name, st, &fresh)) == -1) {
			failed_op = "open";
			goto fail;
		}
		after = fresh.stx_mode & 07777 & ~(S_ISUID | S_ISGID);
		if ((fresh.stx_mode & (S_ISUID | S_ISGID)) != 0 &&
		    walk_chmod(fd, after) == -1) {
			failed_op = "chmod";
			goto fail_fd;
		}
		if (capn > 0 && walk_removecap(fd) == -1 && errno != ENODATA) {
			failed_op = "remove capability";
			goto fail_fd;
		}
		close(fd);
		atomic_fetch_add(&t->changed, 1);
	}
	disp_path(t, e->dpath, e->name, p, sizeof p);
	if (fresh.stx_nlink > 1) {
		/* Mode and xattrs belong to the inode, shared by every link. */
		out_line(stderr, "%s: hard link (%u links): %s the shared inode; "
		    "another link may lie outside the target", p, fresh.stx_nlink,
		    opt.mode == MODE_STRIP ? "stripped" : "would strip");
		atomic_fetch_add(&t->reported, 1);
	}
	if (opt.json) {
		if ((o = rec_new(t, e->dpath, e->name, "strip", action, &fresh,
		    opt.mode == MODE_CHECK ? -1 : (long)after)) != NULL) {
			if (capn > 0) {
				json_object_set_new(o, "cap", json_string(ctext));
				json_object_set_new(o, "cap_version",
				    json_integer(ver));
				if (rootid >= 0)
					json_object_set_new(o, "cap_rootid",
					    json_integer(rootid));
			}
			emit_json(o);
		}
	} else if (opt.mode != MODE_STRIP) {
		char caps[600] = "";

		if (capn > 0)
			snprintf(caps, sizeof caps, " capability %s%s", ctext,
			    rootid >= 0 ? "" : "");
		if (rootid >= 0)
			snprintf(caps + strlen(caps), sizeof caps - strlen(caps),
			    " [rootid=%lld]", rootid);
		if (opt.mode == MODE_CHECK)
			out_line(stdout, "privileged: %s: mode %05o%s", p,
			    fresh.stx_mode & 07777, caps);
		else
			out_line(stdout, "would strip: %s: mode %05o -> %05o%s", p,
			    fresh.stx_mode & 07777, after, caps);
	}
	return;
fail_fd:
	err = errno;
	close(fd);
	errno = err;
fail:
	err = errno;
	disp_path(t, e->dpath, e->name, p, sizeof p);
	fail_target(t, STEP_STRIP, "%s: %s: %s", p, failed_op,
	    err == ESTALE || err == ENOENT || err == ELOOP ?
	    "changed during the walk" : strerror(err));
}

/* ---- walk callbacks shared by both steps ---- */

static void
on_mount(void *ctx, const char *dpath, const char *name)
{
	struct target *t = ctx;
	char p[ESC_SIZE(PATH_MAX * 2)];
	json_t *o;

	disp_path(t, dpath, name, p, sizeof p);
	out_line(stderr, "%s: nested mount pruned (not entered)", p);
	atomic_fetch_add(&t->reported, 1);
	if (opt.json && (o = rec_new(t, dpath, name, "walk", "pruned-mount",
	    NULL, -1)) != NULL)
		emit_json(o);
}

static void
on_error(struct target *t, enum step s, const char *dpath, const char *name,
    int err, const char *what)
{
	char p[ESC_SIZE(PATH_MAX * 2)];

	disp_path(t, dpath, name, p, sizeof p);
	fail_target(t, s, "%s: %s: %s", p, what,
	    err == ESTALE || err == ENOENT ? "changed during the walk" :
	    strerror(err));
}

static void
restore_error(void *ctx, const char *dpath, const char *name, int err,
    const char *what)
{
	on_error(ctx, STEP_RESTORE, dpath, name, err, what);
}

static void
strip_error(void *ctx, const char *dpath, const char *name, int err,
    const char *what)
{
	on_error(ctx, STEP_STRIP, dpath, name, err, what);
}

static void
on_progress(void *ctx, uint64_t scanned, double secs)
{
	struct target *t = ctx;
	char p[ESC_SIZE(PATH_MAX)];

	if (!opt.tty || secs < 1.0)
		return;
	esc_name(t->path, p, sizeof p);
	pthread_mutex_lock(&out_mu);
	fprintf(stderr, "\r%s: %s: %llu entries scanned, %.0f/s   ",
	    prog_name(), p, (unsigned long long)scanned, scanned / secs);
	fflush(stderr);
	t->progressed = 1;
	pthread_mutex_unlock(&out_mu);
}

static const struct walk_ops restore_ops = {
	.want = WALK_DT(DT_REG) | WALK_DT(DT_LNK),
	.stx_mask = STATX_UID | STATX_GID | STATX_NLINK,
	.ent = restore_ent,
	.mount = on_mount,
	.error = restore_error,
	.progress = on_progress,
};

static const struct walk_ops strip_ops = {
	.want = WALK_DT(DT_REG) | WALK_DT(DT_CHR) | WALK_DT(DT_BLK),
	.stx_mask = STATX_UID | STATX_GID | STATX_NLINK,
	.ent = strip_ent,
	.mount = on_mount,
	.error = strip_error,
	.progress = on_progress,
};

static uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Run one step over one target within what is left of the step budget. */
static void
run_step(struct target *t, enum step s, uint64_t deadline)
{
	const struct walk_ops *ops = s == STEP_RESTORE ? &restore_ops : &strip_ops;
	const char *sname = s == STEP_RESTORE ? "ownership restore" : "strip";
	uint64_t now = now_ns();
	struct walk_ent e;
	struct statx st;
	int r;

	if (now >= deadline) {
		fail_target(t, s, "budget of %llu s spent",
		    (unsigned long long)opt.budget);
		return;
	}
	if (t->file != NULL) {
		/* A single-file bind mount: the file alone, in its parent. */
		if (statx(t->fd, t->file, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS |
		    STATX_MNT_ID, &st) == -1) {
			fail_target(t, s, "%s: %s", sname, strerror(errno));
			return;
		}
		if (!S_ISREG(st.stx_mode) && !S_ISLNK(st.stx_mode))
			return;
		e.dirfd = t->fd;
		e.fd = -1;
		e.dpath = "";
		e.name = t->file;
		e.stx = &st;
		ops->ent(t, &e);
		t->scanned[s] = 1;
		return;
	}
	t->progressed = 0;
	r = walk_run(t->fd, ops, t, opt.jobs, deadline - now, &t->scanned[s]);
	if (t->progressed) {
		pthread_mutex_lock(&out_mu);
		fputc('\n', stderr);
		pthread_mutex_unlock(&out_mu);
	}
	if (r == -1)
		fail_target(t, s, "%s", strerror(errno));
	else if (r == WALK_BUDGET) {
		/* The budget message wins over any earlier cause. */
		pthread_mutex_lock(&out_mu);
		snprintf(t->cause[s], sizeof t->cause[s], "budget of %llu s spent",
		    (unsigned long long)opt.budget);
		t->failed[s]++;
		pthread_mutex_unlock(&out_mu);
	}
}

/* ---- targets ---- */

struct roots {
	char *v[MAX_ROOTS];
	int n;
};

/* Is real (a real path) root itself or below it, by whole components? */
static int
path_within(const char *real, const char *root)
{
	size_t n = strlen(root);

	if (strcmp(root, "/") == 0)
		return 1;
	return strncmp(real, root, n) == 0 && (real[n] == '\0' || real[n] == '/');
}

static int
open_beneath(int dirfd, const char *path, int flags, uint64_t resolve)
{
	struct open_how how = { .flags = (uint64_t)flags | O_CLOEXEC,
		.resolve = resolve };

	return (int)syscall(__NR_openat2, dirfd, path, &how, sizeof how);
}

/* Note a target that is skipped without being a failure. */
static void
skip_target(const char *src, const char *why)
{
	char p[ESC_SIZE(PATH_MAX)];
	json_t *o;

	esc_name(src, p, sizeof p);
	out_line(stderr, "%s: skipped: %s", p, why);
	if (opt.json && (o = json_pack("{s:s, s:s, s:s}", "target", p,
	    "status", "skipped", "reason", why)) != NULL)
		emit_json(o);
}

/* Resolve src and open it as a target.  Returns 0 (t filled), 1 when the
 * target is skipped (reported), -1 when it failed (t->cause[STEP_STRIP]
 * says why, t->path is set). */
static int
target_open(struct target *t, const char *src, const struct roots *roots)
{
	char *real, *slash, *rel;
	const char *root = NULL;
	struct statx st;
	int i, rfd, fd;
	uint64_t res = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;

	memset(t, 0, sizeof *t);
	t->fd = -1;
	if ((real = realpath(src, NULL)) == NULL) {
		if (errno == ENOENT || errno == ENOTDIR) {
			skip_target(src, "missing (not recreated)");
			return 1;
		}
		t->path = strdup(src);
		snprintf(t->cause[STEP_STRIP], CAUSE_MAX, "resolve: %s",
		    strerror(errno));
		return -1;
	}
	t->path = real;
	for (i = 0; i < roots->n; i++)
		if (path_within(real, roots->v[i]) && (root == NULL ||
		    strlen(roots->v[i]) > strlen(root)))
			root = roots->v[i];
	if (roots->n > 0 && root == NULL) {
		skip_target(real, "outside every --within root");
		return 1;
	}
	if (root != NULL) {
		/* Open beneath the root so that a path changed since
		 * realpath() cannot lead out of it. */
		rfd = open_beneath(AT_FDCWD, root, O_PATH | O_DIRECTORY, res);
		if (rfd == -1)
			goto fail;
		rel = real + strlen(root);
		while (*rel == '/')
			rel++;
		fd = open_beneath(rfd, *rel ? rel : ".", O_PATH, res |
		    RESOLVE_BENEATH);
		close(rfd);
	} else
		fd = open_beneath(AT_FDCWD, real, O_PATH, res);
	if (fd == -1)
		goto fail;
	if (statx(fd, "", AT_EMPTY_PATH, STATX_TYPE, &st) == -1) {
		close(fd);
		goto fail;
	}
	if (S_ISDIR(st.stx_mode)) {
		t->fd = open_beneath(fd, ".", O_RDONLY | O_DIRECTORY, res |
		    RESOLVE_BENEATH);
		close(fd);
		if (t->fd == -1)
			goto fail;
		t->base = strdup(real);
		return t->base == NULL ? -1 : 0;
	}
	close(fd);
	if (!S_ISREG(st.stx_mode)) {
		skip_target(real, "not a directory or a regular file");
		return 1;
	}
	/* A file bind mount: open its parent, keep its name. */
	if ((t->base = strdup(real)) == NULL)
		return -1;
	slash = strrchr(t->base, '/');
	t->file = slash + 1;
	*slash = '\0';
	if (root != NULL && strlen(t->base) < strlen(root)) {
		skip_target(real, "a file cannot be a --within root");
		return 1;
	}
	if (root != NULL) {
		rfd = open_beneath(AT_FDCWD, root, O_PATH | O_DIRECTORY, res);
		if (rfd == -1)
			goto fail;
		rel = t->base + strlen(root);
		while (*rel == '/')
			rel++;
		t->fd = open_beneath(rfd, *rel ? rel : ".", O_PATH | O_DIRECTORY,
		    res | RESOLVE_BENEATH);
		close(rfd);
	} else
		t->fd = open_beneath(AT_FDCWD, t->base[0] ? t->base : "/",
		    O_PATH | O_DIRECTORY, res);
	if (t->fd == -1)
		goto fail;
	return 0;
fail:
	snprintf(t->cause[STEP_STRIP], CAUSE_MAX, "open: %s",
	    errno == ELOOP ? "a symlink appeared in the path" : strerror(errno));
	return -1;
}

/* ---- --guard ---- */

/* 1 when root is a mount point with nosuid and nodev, 0 when not, -1. */
static int
guard_in_place(const char *root)
{
	struct statx a, b;
	struct statvfs v;
	int fd, r;

	if ((fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	r = statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &a);
	if (r == 0)
		r = statx(fd, "..", 0, STATX_MNT_ID, &b);
	if (r == 0)
		r = fstatvfs(fd, &v);
	close(fd);
	if (r == -1)
		return -1;
	if (!(a.stx_mask & STATX_MNT_ID) || !(b.stx_mask & STATX_MNT_ID))
		return errno = ENOSYS, -1;
	/* "/" is its own parent: a mount point all the same. */
	if (a.stx_mnt_id == b.stx_mnt_id && strcmp(root, "/") != 0)
		return 0;
	return (v.f_flag & ST_NOSUID) && (v.f_flag & ST_NODEV);
}

/* Bind-mount root on itself (unless it is a mount point already) and set
 * nosuid,nodev on it and everything below.  0, or -1 with errno. */
static int
guard_apply(const char *root)
{
	struct borne_mount_attr a = { .attr_set = MOUNT_ATTR_NOSUID |
		MOUNT_ATTR_NODEV };
	struct statx x, y;
	int fd, r, mp;

	if ((fd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC)) == -1)
		return -1;
	r = statx(fd, "", AT_EMPTY_PATH, STATX_MNT_ID, &x);
	if (r == 0)
		r = statx(fd, "..", 0, STATX_MNT_ID, &y);
	close(fd);
	if (r == -1)
		return -1;
	mp = x.stx_mnt_id != y.stx_mnt_id || strcmp(root, "/") == 0;
	if (!mp && mount(root, root, NULL, MS_BIND | MS_REC, NULL) == -1)
		return -1;
	if (syscall(__NR_mount_setattr, AT_FDCWD, root, AT_RECURSIVE, &a,
	    sizeof a) == 0)
		return 0;
	if (errno != ENOSYS)
		return -1;
	/* Before Linux 5.12: remount the top mount only. */
	{
		struct statvfs v;
		unsigned long keep = MS_REMOUNT | MS_BIND | MS_NOSUID | MS_NODEV;

		if (statvfs(root, &v) == -1)
			return -1;
		if (v.f_flag & ST_RDONLY)
			keep |= MS_RDONLY;
		if (v.f_flag & ST_NOEXEC)
			keep |= MS_NOEXEC;
		return mount(NULL, root, NULL, keep, NULL);
	}
}

/* ---- input ---- */

static char *
read_all(const char *file, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf, *nb;
	ssize_t r;
	int fd;

	if (strcmp(file, "-") == 0)
		fd = 0;
	else if ((fd = open(file, O_RDONLY | O_CLOEXEC)) == -1)
		die_sys(EXIT_USAGE, "unable to open inspect input: %s", file);
	if ((buf = malloc(cap)) == NULL)
		die_sys(EXIT_NO, "unable to read inspect input");
	for (;;) {
		if (n == cap) {
			if (cap >= MAX_INSPECT)
				die(EXIT_USAGE, "inspect input: larger than %u bytes",
				    MAX_INSPECT);
			cap *= 2;
			if ((nb = realloc(buf, cap)) == NULL)
				die_sys(EXIT_NO, "unable to read inspect input");
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r == 0)
			break;
		if (r == -1) {
			if (errno == EINTR)
				continue;
			die_sys(EXIT_USAGE, "unable to read inspect input");
		}
		n += (size_t)r;
	}
	if (fd != 0)
		close(fd);
	*len = n;
	return buf;
}

static int
parse_owner(const char *s, uid_t *uid, gid_t *gid)
{
	const char *colon = strchr(s, ':');
	char u[16];
	uint64_t a, b;

	if (colon == NULL || (size_t)(colon - s) >= sizeof u)
		return -1;
	memcpy(u, s, (size_t)(colon - s));
	u[colon - s] = '\0';
	/* 0 would be no restore at all; -1 (4294967295) means "unchanged". */
	if (scan_u64(u, 1, 4294967294u, &a) == -1 ||
	    scan_u64(colon + 1, 0, 4294967294u, &b) == -1)
		return -1;
	*uid = (uid_t)a;
	*gid = (gid_t)b;
	return 0;
}

static void
add_root(struct roots *r, const char *path, const char *what)
{
	char *real;
	struct stat sb;

	if (r->n >= MAX_ROOTS)
		die(EXIT_USAGE, "%s: more than %d roots", what, MAX_ROOTS);
	if ((real = realpath(path, NULL)) == NULL)
		die_sys(EXIT_USAGE, "%s %s", what, path);
	if (stat(real, &sb) == -1 || !S_ISDIR(sb.st_mode))
		die(EXIT_USAGE, "%s %s: not a directory", what, path);
	r->v[r->n++] = real;
}

static const struct option longopts[] = {
	{ "budget", required_argument, NULL, 'b' },	/* seconds per step */
	{ "check", no_argument, NULL, 'c' },		/* audit, change nothing */
	{ "chown", required_argument, NULL, 'o' },	/* restore owner first */
	{ "dry-run", no_argument, NULL, 'n' },		/* list, change nothing */
	{ "guard", required_argument, NULL, 'g' },	/* nosuid,nodev bind */
	{ "help", no_argument, NULL, 'h' },
	{ "inspect", required_argument, NULL, 'i' },	/* docker inspect JSON */
	{ "jobs", required_argument, NULL, 'j' },	/* walker threads */
	{ "json", no_argument, NULL, 'J' },		/* one record a line */
	{ "within", required_argument, NULL, 'w' },	/* allowed root */
	{ NULL, 0, NULL, 0 },
};

int
main(int argc, char *argv[])
{
	struct roots within = { .n = 0 }, guard = { .n = 0 };
	const char *inspect = NULL;
	struct inspect_sources src = { 0 };
	struct target *tg;
	size_t ntg = 0, i, cap;
	int c, dry = 0, check = 0, rc = EXIT_OK, found = 0;
	uint64_t v, deadline;
	long np;
	struct rlimit rl;

	prog_set("suidstrip");
	opt.budget = 10;
	np = sysconf(_SC_NPROCESSORS_ONLN);
	opt.jobs = np < 2 ? 2 : np > 4 ? 4 : (int)np;
	while ((c = getopt_long(argc, argv, "+hn", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (scan_u64(optarg, 1, 86400, &opt.budget) == -1)
				die(EXIT_USAGE, "--budget %s: not 1 to 86400 seconds",
				    optarg);
			break;
		case 'c': check = 1; break;
		case 'o':
			if (parse_owner(optarg, &opt.uid, &opt.gid) == -1)
				die(EXIT_USAGE, "--chown %s: not UID:GID (numeric, "
				    "UID not 0)", optarg);
			opt.chown = 1;
			break;
		case 'n': dry = 1; break;
		case 'g': add_root(&guard, optarg, "--guard"); break;
		case 'h': printf("usage: %s\n", USAGE); return EXIT_OK;
		case 'i':
			if (inspect != NULL)
				die(EXIT_USAGE, "--inspect given twice");
			inspect = optarg;
			break;
		case 'j':
			if (scan_u64(optarg, 1, 16, &v) == -1)
				die(EXIT_USAGE, "--jobs %s: not 1 to 16", optarg);
			opt.jobs = (int)v;
			break;
		case 'J': opt.json = 1; break;
		case 'w': add_root(&within, optarg, "--within"); break;
		default: die_usage(USAGE);
		}
	}
	/* One validation block, before any side effect. */
	if (dry && check)
		die(EXIT_USAGE, "--dry-run and --check exclude each other");
	if (check && opt.chown)
		die(EXIT_USAGE, "--check changes nothing: --chown makes no sense");
	/* Without a root, docker inspect JSON (which the container's owner
	 * partly controls) could name any host directory: fail closed. */
	if (inspect != NULL && within.n == 0)
		die(EXIT_USAGE, "--inspect needs at least one --within ROOT");
	if (optind == argc && inspect == NULL && guard.n == 0)
		die_usage(USAGE);
	opt.mode = check ? MODE_CHECK : dry ? MODE_DRYRUN : MODE_STRIP;
	opt.tty = isatty(2);

	if (walk_probe() == -1)
		die_sys(EXIT_NO, "unable to walk safely: openat2");
	/* A wide tree keeps one fd per directory being read. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
	if (inspect != NULL) {
		char err[256];
		size_t len;
		char *buf = read_all(inspect, &len);

		if (inspect_parse(buf, len, &src, err, sizeof err) == -1)
			die(EXIT_USAGE, "invalid docker inspect input: %s", err);
		free(buf);
	}

	/* --guard first: from then on new setuid files are inert there. */
	for (c = 0; c < guard.n; c++) {
		char p[ESC_SIZE(PATH_MAX)];
		int in = guard_in_place(guard.v[c]);

		esc_name(guard.v[c], p, sizeof p);
		if (in == -1) {
			warning_sys("WARNING: %s: guard", p);
			rc = EXIT_NO;
			continue;
		}
		if (opt.mode == MODE_STRIP && !in) {
			if (guard_apply(guard.v[c]) == -1) {
				warning_sys("WARNING: %s: guard: unable to bind "
				    "nosuid,nodev", p);
				rc = EXIT_NO;
				continue;
			}
			in = 1;
		}
		if (opt.mode != MODE_STRIP && !in)
			rc = EXIT_NO;
		if (opt.json) {
			json_t *o = json_pack("{s:s, s:b}", "guard", p,
			    "in_place", in);

			if (o != NULL)
				emit_json(o);
		} else
			out_line(stdout, "guard: %s: %s", p,
			    in ? "in place (nosuid,nodev)" :
			    opt.mode == MODE_DRYRUN ? "absent (would bind "
			    "nosuid,nodev)" : "absent");
	}

	cap = (size_t)(argc - optind) + src.n;
	if ((tg = calloc(cap ? cap : 1, sizeof *tg)) == NULL)
		die_sys(EXIT_NO, "unable to allocate targets");
	for (i = 0; i < cap; i++) {
		const char *s = i < (size_t)(argc - optind) ? argv[optind + i] :
		    src.v[i - (size_t)(argc - optind)];
		size_t k;
		int r = target_open(&tg[ntg], s, &within);

		if (r == 1) {
			free(tg[ntg].path);
			free(tg[ntg].base);
			continue;
		}
		if (r == 0) {
			/* Merge duplicates (same real path). */
			for (k = 0; k < ntg; k++)
				if (strcmp(tg[k].path, tg[ntg].path) == 0)
					break;
			if (k < ntg) {
				close(tg[ntg].fd);
				free(tg[ntg].path);
				free(tg[ntg].base);
				continue;
			}
		}
		if (r == -1)
			tg[ntg].failed[STEP_STRIP] = 1;
		ntg++;
	}
	inspect_free(&src);

	/* Step 1, ownership restore, then step 2, strip: each its budget. */
	if (opt.chown) {
		deadline = now_ns() + opt.budget * 1000000000u;
		for (i = 0; i < ntg; i++)
			if (tg[i].fd != -1)
				run_step(&tg[i], STEP_RESTORE, deadline);
	}
	deadline = now_ns() + opt.budget * 1000000000u;
	for (i = 0; i < ntg; i++)
		if (tg[i].fd != -1)
			run_step(&tg[i], STEP_STRIP, deadline);

	/* One WARNING per failed target, and a summary per target. */
	fflush(stdout);
	for (i = 0; i < ntg; i++) {
		struct target *t = &tg[i];
		char p[ESC_SIZE(PATH_MAX)], why[2 * CAUSE_MAX + 64] = "";
		int bad = t->failed[0] || t->failed[1];

		esc_name(t->path, p, sizeof p);
		if (t->failed[STEP_RESTORE])
			snprintf(why, sizeof why, "ownership restore incomplete: %s",
			    t->cause[STEP_RESTORE]);
		if (t->failed[STEP_STRIP])
			snprintf(why + strlen(why), sizeof why - strlen(why),
			    "%s%s incomplete: %s", why[0] ? "; " : "",
			    opt.mode == MODE_STRIP ? "strip" : "scan",
			    t->cause[STEP_STRIP]);
		if (bad) {
			warning("WARNING: %s: %s", p, why);
			rc = EXIT_NO;
		}
		if (atomic_load(&t->found) > 0)
			found = 1;
		if (opt.json) {
			json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, "
			    "s:I}", "target", p, "status",
			    bad ? "incomplete" : "complete", "mode",
			    opt.mode == MODE_CHECK ? "check" :
			    opt.mode == MODE_DRYRUN ? "dry-run" : "strip",
			    "restore", !opt.chown ? "not-requested" :
			    t->failed[STEP_RESTORE] ? "incomplete" : "complete",
			    "scanned", (json_int_t)t->scanned[STEP_STRIP],
			    "privileged", (json_int_t)atomic_load(&t->found),
			    "changed", (json_int_t)atomic_load(&t->changed),
			    "reported", (json_int_t)atomic_load(&t->reported));

			if (o != NULL) {
				if (bad)
					json_object_set_new(o, "warning",
					    json_string(why));
				emit_json(o);
			}
		}
		if (t->fd != -1)
			close(t->fd);
		free(t->path);
		free(t->base);
	}
	free(tg);
	if (opt.mode == MODE_CHECK && found)
		rc = EXIT_NO;
	if (fflush(stdout) == EOF || ferror(stdout))
		die_sys(EXIT_NO, "unable to write the report");
	return rc;
}
