/* SPDX-License-Identifier: ISC */
/* planenc: what its three files share.
 *   planenc.c  options, the plan they build, --decode/--check/--reencode
 *   profile.c  --profile FILE: the same options, one a line
 *   resolve.c  --preset and the PATH lookup of PROGRAM, done at encode
 *              time so the plan holds only explicit, absolute paths
 *   script.c   a #! PROGRAM: its interpreter becomes the program */
#ifndef BORNE_PLANENC_H
#define BORNE_PLANENC_H

#include <stddef.h>

#include "plan.h"
#include "usage.h"

/* Option codes (getopt_long values, from USAGE_LONG_ONLY). */
enum {
	O_RO = USAGE_LONG_ONLY, O_RW, O_ROX, O_RWX, O_FOLLOW, O_TMP, O_PRESET,
	O_UNIX, O_TCP, O_CONNECT, O_BIND, O_EGRESS, O_ENV, O_SETENV, O_RLIMIT,
	O_MEMORY, O_PIDS, O_CPU, O_TIMEOUT, O_UID, O_GID, O_SHA256, O_PROMPT,
	O_ACK, O_KEEP, O_STRICT, O_DEGRADE, O_ARGV0, O_PROFILE,
	O_DECODE, O_CHECK, O_REENCODE, O_VERSION,
};
#define O_FIRST_PLAN O_RO	/* O_RO..O_PROFILE build a plan */
#define O_LAST_PLAN O_PROFILE

/* planenc.c: every option and its help line (common/usage.h). */
extern const struct usage_opt planenc_opts[];

/* Where each list entry of the plan came from (a profile's "FILE:LINE",
 * "--preset sys", or NULL: the command line), by enum plan_at, in the
 * plan's own order: a refusal names it. */
struct origins {
	const char **at;
	size_t n;
};

/* Everything the options ask for, before it is checked. */
struct opts {
	struct plan p;
	char **envnames;	/* --env NAME, resolved after parsing */
	const char **envfrom;	/* where each --env came from */
	size_t nenvnames;
	const char *prompt_file;
	const char *argv0;
	int preset_sys;		/* --preset sys */
	int op;			/* O_DECODE, O_CHECK, O_REENCODE or 0 */
	int building;		/* a plan option was given */
	const char *where;	/* the profile line being applied, or NULL */
	/* Where each single-value option was first given ("the command
	 * line" or a profile's FILE:LINE), or NULL: a second one is refused,
	 * never last-wins. */
	const char *once[O_VERSION + 1];
	int mode_opt;		/* O_STRICT or O_DEGRADE, once given */
	struct origins from[PLAN_AT_ARG + 1];
};

/* planenc.c: apply option c (its argument arg, kept) to o. */
void opt_apply(struct opts *o, int c, const char *arg);
/* Record that the last entry of list `at` came from o->where. */
void origin_note(struct opts *o, enum plan_at at);
/* Append one element to a malloc'd array, dying on ENOMEM. */
void *push(void *arr, size_t *n, size_t sz);
char *xstrdup(const char *s);

/* profile.c: apply the options of FILE, in order (errors name FILE:LINE;
 * exit 2). */
void profile_load(struct opts *o, const char *file);

/* resolve.c: add the rules of the presets asked for (each path only if
 * it exists here; a symlinked one as its target unless another entry
 * covers it; a path the options name themselves is left to them), and
 * PATH=, the usual command directories that exist here, unless the plan
 * sets or passes PATH. */
void preset_apply(struct opts *o);
/* The absolute path of PROGRAM name (no slash), searched in the plan's
 * PATH, else planenc's; exit 2 naming both when not found. */
char *program_lookup(const struct plan *p, const char *name);
/* The same search without dying: the path, or NULL; *whose ("the
 * plan's" or "planenc's") and *path (NULL: no PATH at all) say where it
 * looked. */
char *path_search(const struct plan *p, const char *name, const char **whose,
    const char **path);

/* script.c: when p->program is a #! script, make the plan run its
 * interpreter (the #! line read within the kernel's bound, one optional
 * argument, "env NAME" and "env -S" resolved on the plan's PATH) with
 * the script's path; exit 2 naming the problem (no interpreter, one not
 * found or itself a script, no rule granting read on the script). */
void script_apply(struct opts *o);

#endif
