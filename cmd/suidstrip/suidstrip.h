/* SPDX-License-Identifier: ISC */
/* suidstrip's parts and what they share.  Split by what changes together:
 *   suidstrip.c  options, the one validation block, the steps in order
 *   guard.c      --within roots (path scoping) and --guard mounts
 *   targets.c    targets: command line and docker inspect JSON, opened
 *   strip.c      the per-file work of both steps (walk callbacks, budget)
 *   report.c     text and JSON output, per-target failures, summaries
 * Everything here is internal to suidstrip; only main() exits, apart from
 * the option helpers that report a usage error (roots_add). */
#ifndef SUIDSTRIP_H
#define SUIDSTRIP_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include <jansson.h>

#include "inspect.h"
#include "walk.h"

#define MAX_ROOTS 64
#define CAUSE_MAX 512

enum mode { MODE_STRIP, MODE_DRYRUN, MODE_CHECK };
enum step { STEP_RESTORE, STEP_STRIP };

/* Options, set once in main and read-only afterwards. */
struct options {
	enum mode mode;
	int json;
	int chown;
	uid_t uid;
	gid_t gid;
	uint64_t budget;	/* seconds */
	int jobs;
	int tty;
	int missing_ok;		/* a missing target is skipped, not failed */
};
extern struct options opt;

struct target {
	char *path;		/* real path, as displayed */
	char *base;		/* prefix of every reported path */
	int fd;			/* the directory (or, for a file, its parent) */
	const char *file;	/* a single-file target: its name in fd */
	char cause[2][CAUSE_MAX];	/* per step: the first failure */
	int failed[2];
	int unopened;		/* could not be resolved or opened: cause[1] */
	uint64_t scanned[2];
	int progressed;
	atomic_uint_fast64_t changed, found, reported;
};

struct roots {
	char *v[MAX_ROOTS];	/* real paths of directories */
	int n;
};

/* ---- guard.c ---- */

/* Add path's real path to r; on a bad root, a usage error (exits 2). */
void roots_add(struct roots *r, const char *path, const char *what);
void roots_free(struct roots *r);
/* The longest root that real (a real path) is or lies below, by whole
 * components, or NULL. */
const char *roots_match(const struct roots *r, const char *real);
/* openat2(2) with O_CLOEXEC and the given RESOLVE_* flags; fd or -1. */
int open_beneath(int dirfd, const char *path, int flags, uint64_t resolve);
/* Check (and in strip mode apply) every guard, one line or record each.
 * Returns 0, or 1 when a guard is absent or failed. */
int guards_run(const struct roots *guard);

/* ---- targets.c ---- */

/* Read and parse the docker inspect JSON in file ("-": stdin) into src;
 * on invalid input, an error (exits 2). */
void inspect_read(const char *file, struct inspect_sources *src);
/* Open every target: the operands, then the inspect sources.  Skipped
 * targets are reported and left out, duplicates merged; a target that
 * could not be opened is kept with fd -1 and failed[STEP_STRIP] set.  *n
 * gets the count; free with targets_free. */
struct target *targets_open(char *const *operands, size_t nops,
    const struct inspect_sources *src, const struct roots *within, size_t *n);
void targets_free(struct target *t, size_t n);

/* ---- strip.c ---- */

/* Run step s over t within what is left before deadline (a CLOCK_MONOTONIC
 * time in nanoseconds, common/clock.h); failures are recorded in t. */
void step_run(struct target *t, enum step s, uint64_t deadline);

/* ---- report.c ---- */

/* One line on f (stderr lines get the "suidstrip: " prefix). */
void out_line(FILE *f, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
/* Print o as one JSON line and release it. */
void emit_json(json_t *o);
/* The escaped display path of dpath/name in t. */
void disp_path(const struct target *t, const char *dpath, const char *name,
    char *out, size_t size);
/* A per-file JSON record; mode_after < 0 means unchanged/not applicable. */
json_t *rec_new(const struct target *t, const char *dpath, const char *name,
    const char *step, const char *action, const struct statx *st,
    long mode_after);
/* Note an entry left in place: one stderr line "PATH: <fmt>", one record
 * (with note when not NULL), and the target's reported count. */
void report_entry(struct target *t, const char *dpath, const char *name,
    const char *step, const char *action, const struct statx *st,
    const char *note, const char *fmt, ...)
    __attribute__((format(printf, 8, 9)));
/* Record the first failure of step s in t (later ones only count). */
void fail_target(struct target *t, enum step s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Replace t's cause for step s: the budget message wins. */
void budget_spent(struct target *t, enum step s);
/* A target skipped without being a failure: one line, one record. */
void skip_target(const char *src, const char *why);
/* Progress on a terminal, and the line end once the walk is over. */
void progress_show(struct target *t, uint64_t scanned, double secs);
void progress_end(struct target *t);
/* One line or record per guard. */
void guard_report(const char *root, int in_place);
/* One WARNING per failed target and a JSON summary per target.  Returns
 * the exit status they make: 0, or 1 (a failure; with --check, also a
 * privileged file found). */
int summaries(struct target *t, size_t n);

#endif
