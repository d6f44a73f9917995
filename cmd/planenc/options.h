/* SPDX-License-Identifier: ISC */
/* options: planenc's options, what each one adds to the plan it builds,
 * and where each list entry came from.  Usage errors exit 2. */
#ifndef BORNE_PLANENC_OPTIONS_H
#define BORNE_PLANENC_OPTIONS_H

#include <stddef.h>

#include "plan.h"
#include "usage.h"

/* Option codes (getopt_long values, from USAGE_LONG_ONLY). */
enum {
	O_RO = USAGE_LONG_ONLY, O_RW, O_ROX, O_RWX, O_FOLLOW, O_TMP, O_PRESET,
	O_UNIX, O_TCP, O_CONNECT, O_BIND, O_EGRESS, O_ENV, O_SETENV, O_RLIMIT,
	O_MEMORY, O_PIDS, O_CPU, O_TIMEOUT, O_UID, O_GID, O_SHA256, O_PROMPT,
	O_ACK, O_KEEP, O_STRICT, O_DEGRADE, O_ARGV0, O_PROFILE,
	O_DECODE, O_CHECK, O_REENCODE, O_END,
};
#define O_FIRST_PLAN O_RO	/* O_RO..O_PROFILE build a plan */
#define O_LAST_PLAN O_PROFILE

/* Every option and its help line (common/usage.h): an option a code
 * (O_RO..O_REENCODE), then --help, --version and the end. */
#define PLANENC_NOPTS (O_END - O_RO + 3)
extern const struct usage_opt planenc_opts[PLANENC_NOPTS];

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
	const char *once[O_END];
	int mode_opt;		/* O_STRICT or O_DEGRADE, once given */
	struct origins from[PLAN_AT_ARG + 1];
};

/* Apply option c (its argument arg, kept) to o; --profile is the
 * caller's (profile_load), refused here: a profile names no other. */
void opt_apply(struct opts *o, int c, const char *arg);
/* Add the rule "in path" to the plan, from o->where. */
void opt_add_fs(struct opts *o, enum plan_intent in, const char *path);
/* Record that the last entry of list `at` came from o->where. */
void origin_note(struct opts *o, enum plan_at at);
/* Append one element to a malloc'd array, dying on ENOMEM. */
void *push(void *arr, size_t *n, size_t sz);
char *xstrdup(const char *s);

#endif
