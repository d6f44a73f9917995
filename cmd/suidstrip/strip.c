/* SPDX-License-Identifier: ISC */
/* suidstrip strip: the per-file work of both steps, run by the walk's
 * worker threads: the ownership restore (--chown) and the strip of
 * setuid/setgid bits and file capabilities: what is looked at and
 * changed is common/privfile's (shared with confexec), the reports are
 * suidstrip's own. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "esc.h"
#include "privfile.h"
#include "suidstrip.h"

/* ---- the restore step (--chown) ---- */

static void
restore_ent(void *ctx, const struct walk_ent *e)
{
	struct target *t = ctx;
	const struct statx *st = e->stx;
	char p[ESC_SIZE(PATH_MAX * 2)];
	json_t *o;
	int r;

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
	if (priv_chown(e, opt.uid, opt.gid) == -1)
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
	    r == ESTALE || r == EMLINK ? "changed during the walk" :
	    strerror(r));
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

static void
strip_print(struct target *t, const struct walk_ent *e, const struct priv_file *f)
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

/* A privileged file that could not be stripped: the target's WARNING,
 * and a record, so that the summary's count of privileged files is the
 * number of records about them. */
static void
strip_failed(struct target *t, const struct walk_ent *e, const struct priv_file *f,
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
	char p[ESC_SIZE(PATH_MAX * 2)];
	struct priv_file f;
	const char *failed_op;
	int r;

	if (S_ISDIR(st->stx_mode) || S_ISCHR(st->stx_mode) ||
	    S_ISBLK(st->stx_mode)) {
		strip_report_only(t, e);
		return;
	}
	if (!S_ISREG(st->stx_mode))
		return;
	if ((r = priv_look(e, &f)) == -1) {
		disp_path(t, e->dpath, e->name, p, sizeof p);
		fail_target(t, STEP_STRIP, "%s: read capability: %s", p,
		    errno == ENOENT ? "changed during the walk" :
		    strerror(errno));
		return;
	}
	if (r == 0)
		return;
	atomic_fetch_add(&t->found, 1);
	if (opt.mode == MODE_STRIP) {
		if ((failed_op = priv_strip(e, &f)) != NULL) {
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
	.stx_mask = PRIV_STX_MASK,
	.ent = restore_ent,
	.mount = on_mount_quiet,
	.error = restore_error,
	.progress = on_progress,
};

static const struct walk_ops strip_ops = {
	.want = WALK_DT(DT_REG) | WALK_DT(DT_CHR) | WALK_DT(DT_BLK),
	.stx_mask = PRIV_STX_MASK,
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
