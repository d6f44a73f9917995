/* SPDX-License-Identifier: ISC */
/* suidstrip strip: the per-file work of both steps, run by the walk's
 * worker threads: the ownership restore (--chown) and the strip of
 * setuid/setgid bits and file capabilities, each change made through an
 * fd whose statx matches what the walk saw (common/walk.h). */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <sys/capability.h>

#include "clock.h"
#include "err.h"
#include "esc.h"
#include "suidstrip.h"

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
		report_entry(t, e->dpath, e->name, "restore",
		    "not-chowned-hardlink", st, NULL,
		    "not chowned: hard link (%u links)", st->stx_nlink);
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

/* Directories and device nodes are never changed, only reported. */
static void
strip_report_only(struct target *t, const struct walk_ent *e)
{
	const struct statx *st = e->stx;
	char what[96];

	if (S_ISDIR(st->stx_mode)) {
		if (st->stx_mode & S_ISGID)
			snprintf(what, sizeof what, "setgid directory");
		else if (st->stx_mode & S_ISUID)
			snprintf(what, sizeof what, "setuid directory");
		else
			return;
	} else
		snprintf(what, sizeof what, "device node (%s %u:%u)",
		    S_ISCHR(st->stx_mode) ? "char" : "block",
		    st->stx_rdev_major, st->stx_rdev_minor);
	report_entry(t, e->dpath, e->name, "strip", "reported", st, what,
	    "%s left in place", what);
}

/* What strip_ent found in a privileged file. */
struct found {
	ssize_t capn;		/* size of security.capability, 0: none */
	char ctext[512];	/* the capability as getcap prints it */
	int ver;		/* its version (1, 2, 3) */
	long long rootid;	/* version 3: its root id, else -1 */
	unsigned after;		/* the mode once stripped */
	struct statx fresh;	/* the file as last seen */
};

static void
strip_print(struct target *t, const struct walk_ent *e, const struct found *f)
{
	const char *action = opt.mode == MODE_CHECK ? "privileged" :
	    opt.mode == MODE_DRYRUN ? "would-strip" : "stripped";
	char p[ESC_SIZE(PATH_MAX * 2)], caps[600] = "";
	json_t *o;

	disp_path(t, e->dpath, e->name, p, sizeof p);
	if (f->fresh.stx_nlink > 1)
		/* Mode and xattrs belong to the inode, shared by every link. */
		report_entry(t, e->dpath, e->name, "strip", "reported",
		    &f->fresh, "hard link", "hard link (%u links): %s the "
		    "shared inode; another link may lie outside the target",
		    f->fresh.stx_nlink,
		    opt.mode == MODE_STRIP ? "stripped" : "would strip");
	if (opt.json) {
		if ((o = rec_new(t, e->dpath, e->name, "strip", action, &f->fresh,
		    opt.mode == MODE_CHECK ? -1 : (long)f->after)) == NULL)
			return;
		if (f->capn > 0) {
			json_object_set_new(o, "cap", json_string(f->ctext));
			json_object_set_new(o, "cap_version",
			    json_integer(f->ver));
			if (f->rootid >= 0)
				json_object_set_new(o, "cap_rootid",
				    json_integer(f->rootid));
		}
		emit_json(o);
		return;
	}
	if (opt.mode == MODE_STRIP)
		return;
	if (f->capn > 0)
		snprintf(caps, sizeof caps, " capability %s", f->ctext);
	if (f->rootid >= 0)
		snprintf(caps + strlen(caps), sizeof caps - strlen(caps),
		    " [rootid=%lld]", f->rootid);
	if (opt.mode == MODE_CHECK)
		out_line(stdout, "privileged: %s: mode %05o%s", p,
		    f->fresh.stx_mode & 07777, caps);
	else
		out_line(stdout, "would strip: %s: mode %05o -> %05o%s", p,
		    f->fresh.stx_mode & 07777, f->after, caps);
}

/* Strip the file e through a verified fd; NULL, or the failed operation
 * with errno set. */
static const char *
strip_file(const struct walk_ent *e, struct found *f)
{
	const char *op;
	int fd, err;

	if ((fd = walk_open(e->dirfd, e->name, e->stx, &f->fresh)) == -1)
		return "open";
	f->after = f->fresh.stx_mode & 07777 & ~(S_ISUID | S_ISGID);
	op = NULL;
	if ((f->fresh.stx_mode & (S_ISUID | S_ISGID)) != 0 &&
	    walk_chmod(fd, f->after) == -1)
		op = "chmod";
	else if (f->capn > 0 && walk_removecap(fd) == -1 && errno != ENODATA)
		op = "remove capability";
	err = errno;
	close(fd);
	errno = err;
	return op;
}

/* A privileged file that could not be stripped: the target's WARNING,
 * and a record, so that the summary's count of privileged files is the
 * number of records about them. */
static void
strip_failed(struct target *t, const struct walk_ent *e, const struct found *f,
    const char *op, int err)
{
	char p[ESC_SIZE(PATH_MAX * 2)], why[256];
	json_t *o;

	snprintf(why, sizeof why, "%s: %s", op, err == ESTALE || err == ENOENT ||
	    err == ELOOP ? "changed during the walk" : strerror(err));
	disp_path(t, e->dpath, e->name, p, sizeof p);
	fail_target(t, STEP_STRIP, "%s: %s", p, why);
	if (opt.json && (o = rec_new(t, e->dpath, e->name, "strip",
	    "strip-failed", e->stx, -1)) != NULL) {
		json_object_set_new(o, "error", json_string(why));
		emit_json(o);
	}
}

static void
strip_ent(void *ctx, const struct walk_ent *e)
{
	struct target *t = ctx;
	const struct statx *st = e->stx;
	unsigned char cap[64];
	char p[ESC_SIZE(PATH_MAX * 2)];
	struct found f;
	const char *failed_op;

	if (S_ISDIR(st->stx_mode) || S_ISCHR(st->stx_mode) ||
	    S_ISBLK(st->stx_mode)) {
		strip_report_only(t, e);
		return;
	}
	if (!S_ISREG(st->stx_mode))
		return;
	/* The hot path: one statx (done by the walk) and one xattr read. */
	f.capn = walk_getcap(e->dirfd, e->name, cap, sizeof cap);
	if (f.capn == -1) {
		if (errno == ENODATA || errno == EOPNOTSUPP)
			f.capn = 0;
		else if (errno == ERANGE)
			f.capn = sizeof cap;	/* oversized: still a capability */
		else {
			disp_path(t, e->dpath, e->name, p, sizeof p);
			fail_target(t, STEP_STRIP, "%s: read capability: %s", p,
			    errno == ENOENT ? "changed during the walk" :
			    strerror(errno));
			return;
		}
	}
	if ((st->stx_mode & (S_ISUID | S_ISGID)) == 0 && f.capn == 0)
		return;
	atomic_fetch_add(&t->found, 1);
	f.ctext[0] = '\0';
	f.ver = 0;
	f.rootid = -1;
	if (f.capn > 0)
		cap_text(cap, f.capn, f.ctext, sizeof f.ctext, &f.ver, &f.rootid);
	f.after = st->stx_mode & 07777 & ~(S_ISUID | S_ISGID);
	f.fresh = *st;
	if (opt.mode == MODE_STRIP) {
		if ((failed_op = strip_file(e, &f)) != NULL) {
			strip_failed(t, e, &f, failed_op, errno);
			return;
		}
		atomic_fetch_add(&t->changed, 1);
	}
	strip_print(t, e, &f);
}

/* ---- walk callbacks shared by both steps ---- */

static void
on_mount(void *ctx, const char *dpath, const char *name)
{
	report_entry(ctx, dpath, name, "walk", "pruned-mount", NULL, NULL,
	    "nested mount pruned (not entered)");
}

/* The restore step prunes the same mounts the strip step will report. */
static void
on_mount_quiet(void *ctx, const char *dpath, const char *name)
{
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
	progress_show(ctx, scanned, secs);
}

static const struct walk_ops restore_ops = {
	.want = WALK_DT(DT_REG) | WALK_DT(DT_LNK),
	.stx_mask = STATX_UID | STATX_GID | STATX_NLINK,
	.ent = restore_ent,
	.mount = on_mount_quiet,
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

/* A single-file bind mount: the file alone, in its parent. */
static void
step_file(struct target *t, enum step s, const struct walk_ops *ops)
{
	struct walk_ent e;
	struct statx st;

	if (walk_statx(t->fd, t->file, AT_SYMLINK_NOFOLLOW, STATX_BASIC_STATS |
	    STATX_MNT_ID, &st) == -1) {
		fail_target(t, s, "%s: %s", s == STEP_RESTORE ?
		    "ownership restore" : "strip", strerror(errno));
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
}

void
step_run(struct target *t, enum step s, uint64_t deadline)
{
	const struct walk_ops *ops = s == STEP_RESTORE ? &restore_ops : &strip_ops;
	uint64_t now = now_ns(CLOCK_MONOTONIC);
	int r;

	if (now >= deadline) {
		fail_target(t, s, "budget of %llu s spent",
		    (unsigned long long)opt.budget);
		return;
	}
	if (t->file != NULL) {
		step_file(t, s, ops);
		return;
	}
	t->progressed = 0;
	r = walk_run(t->fd, ops, t, opt.jobs, deadline - now, &t->scanned[s]);
	progress_end(t);
	if (r == -1)
		fail_target(t, s, "%s", strerror(errno));
	else if (r == WALK_BUDGET)
		budget_spent(t, s);
}
