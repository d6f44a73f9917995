/* SPDX-License-Identifier: ISC */
/* suidstrip report: text and JSON output (one lock, so that worker threads
 * never interleave lines), per-target failures, guards and summaries. */
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "err.h"
#include "esc.h"
#include "suidstrip.h"

static pthread_mutex_t out_mu = PTHREAD_MUTEX_INITIALIZER;

static void
rel_path(const char *dpath, const char *name, char *out, size_t size)
{
	if (dpath[0] != '\0' && name[0] != '\0')
		snprintf(out, size, "%s/%s", dpath, name);
	else
		snprintf(out, size, "%s", dpath[0] != '\0' ? dpath : name);
}

void
disp_path(const struct target *t, const char *dpath, const char *name,
    char *out, size_t size)
{
	char rel[PATH_MAX + NAME_MAX + 2], full[PATH_MAX * 2 + NAME_MAX + 4];

	rel_path(dpath, name, rel, sizeof rel);
	if (rel[0] != '\0')
		snprintf(full, sizeof full, "%s/%s",
		    strcmp(t->base, "/") == 0 ? "" : t->base, rel);
	else
		snprintf(full, sizeof full, "%s", t->base);
	esc_name(full, out, size);
}

void
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
vout_line(FILE *f, const char *fmt, va_list ap)
{
	pthread_mutex_lock(&out_mu);
	if (f == stderr)
		fprintf(f, "%s: ", prog_name());
	vfprintf(f, fmt, ap);
	fputc('\n', f);
	if (f == stderr)
		fflush(f);
	pthread_mutex_unlock(&out_mu);
}

void
out_line(FILE *f, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vout_line(f, fmt, ap);
	va_end(ap);
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

json_t *
rec_new(const struct target *t, const char *dpath, const char *name,
    const char *step, const char *action, const struct statx *st,
    long mode_after)
{
	char rel[PATH_MAX + NAME_MAX + 2], esc[ESC_SIZE(PATH_MAX + NAME_MAX + 2)];
	char tesc[ESC_SIZE(PATH_MAX)], m[24];
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

void
report_entry(struct target *t, const char *dpath, const char *name,
    const char *step, const char *action, const struct statx *st,
    const char *note, const char *fmt, ...)
{
	char p[ESC_SIZE(PATH_MAX * 2)], text[512];
	va_list ap;
	json_t *o;

	va_start(ap, fmt);
	vsnprintf(text, sizeof text, fmt, ap);
	va_end(ap);
	disp_path(t, dpath, name, p, sizeof p);
	out_line(stderr, "%s: %s", p, text);
	atomic_fetch_add(&t->reported, 1);
	if (opt.json && (o = rec_new(t, dpath, name, step, action, st,
	    -1)) != NULL) {
		if (note != NULL)
			json_object_set_new(o, "note", json_string(note));
		emit_json(o);
	}
}

/* ---- failures: one WARNING per target, printed at the end ---- */

void
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

void
budget_spent(struct target *t, enum step s)
{
	pthread_mutex_lock(&out_mu);
	snprintf(t->cause[s], sizeof t->cause[s], "budget of %llu s spent",
	    (unsigned long long)opt.budget);
	t->failed[s]++;
	pthread_mutex_unlock(&out_mu);
}

void
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

void
progress_show(struct target *t, uint64_t scanned, double secs)
{
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

void
progress_end(struct target *t)
{
	if (!t->progressed)
		return;
	pthread_mutex_lock(&out_mu);
	fputc('\n', stderr);
	pthread_mutex_unlock(&out_mu);
}

void
guard_report(const char *root, int in)
{
	char p[ESC_SIZE(PATH_MAX)];
	json_t *o;

	esc_name(root, p, sizeof p);
	if (opt.json) {
		if ((o = json_pack("{s:s, s:b}", "guard", p, "in_place",
		    in)) != NULL)
			emit_json(o);
	} else
		out_line(stdout, "guard: %s: %s", p,
		    in ? "in place (nosuid,nodev)" :
		    opt.mode == MODE_DRYRUN ? "absent (would bind "
		    "nosuid,nodev)" : "absent");
}

/* ---- summaries ---- */

static void
summary_json(const struct target *t, const char *p, const char *why, int bad)
{
	json_t *o = json_pack("{s:s, s:s, s:s, s:s, s:I, s:I, s:I, s:I}",
	    "target", p, "status", bad ? "incomplete" : "complete",
	    "mode", opt.mode == MODE_CHECK ? "check" :
	    opt.mode == MODE_DRYRUN ? "dry-run" : "strip",
	    "restore", !opt.chown ? "not-requested" :
	    t->failed[STEP_RESTORE] || t->unopened ? "incomplete" : "complete",
	    "scanned", (json_int_t)t->scanned[STEP_STRIP],
	    "privileged", (json_int_t)atomic_load(&t->found),
	    "changed", (json_int_t)atomic_load(&t->changed),
	    "reported", (json_int_t)atomic_load(&t->reported));

	if (o == NULL)
		return;
	if (bad)
		json_object_set_new(o, "warning", json_string(why));
	emit_json(o);
}

int
summaries(struct target *tg, size_t n)
{
	int rc = EXIT_OK, found = 0;
	size_t i;

	fflush(stdout);
	for (i = 0; i < n; i++) {
		struct target *t = &tg[i];
		char p[ESC_SIZE(PATH_MAX)], why[2 * CAUSE_MAX + 64] = "";
		int bad = t->failed[0] || t->failed[1] || t->unopened;

		esc_name(t->path, p, sizeof p);
		if (t->unopened)
			snprintf(why, sizeof why, "%s", t->cause[STEP_STRIP]);
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
		if (opt.json)
			summary_json(t, p, why, bad);
	}
	if (opt.mode == MODE_CHECK && found)
		rc = EXIT_NO;
	return rc;
}
