/* SPDX-License-Identifier: ISC */
/* planenc: what its files share.
 *   planenc.c  main: the plan the options build, --decode/--check/--reencode
 *   options.c  each option and what it adds to the plan (options.h)
 *   profile.c  --profile FILE: the same options, one a line
 *   resolve.c  --preset and the PATH lookup of PROGRAM, done at encode
 *              time so the plan holds only explicit, absolute paths
 *   script.c   a #! PROGRAM: its interpreter becomes the program */
#ifndef BORNE_PLANENC_H
#define BORNE_PLANENC_H

#include <stddef.h>

#include "options.h"
#include "plan.h"

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
