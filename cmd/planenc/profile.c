/* SPDX-License-Identifier: ISC */
/* planenc --profile FILE: planenc's own options, one a line, applied in
 * order where --profile stands, by the same code as the command line. */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "planenc.h"

/* Where make install puts the profiles (PREFIX/share/borne/profiles). */
#ifndef BORNE_PROFILE_DIR
#define BORNE_PROFILE_DIR "/usr/local/share/borne/profiles"
#endif

#define PROFILE_MAX_LINE 65536	/* bytes of one line */
#define PROFILE_MAX_LINES 4096

/* The option named n bytes at name, or NULL. */
static const struct usage_opt *
lookup(const char *name, size_t n)
{
	const struct usage_opt *lo;

	for (lo = planenc_opts; lo->name != NULL; lo++)
		if (strlen(lo->name) == n && memcmp(lo->name, name, n) == 0)
			return lo;
	return NULL;
}

/* Strip blanks at both ends of s, in place. */
static char *
trim(char *s)
{
	size_t n;

	s += strspn(s, " \t");
	n = strlen(s);
	while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
		s[--n] = '\0';
	return s;
}

/* What the profile's lines allocate (each value, each FILE:LINE origin)
 * lives as long as the process: the options keep pointers into them
 * until the plan is written.  Held here, so that nothing is lost. */
static char **kept;
static size_t nkept;

static char *
keep(char *s)
{
	kept = push(kept, &nkept, sizeof(*kept));
	kept[nkept - 1] = s;
	return s;
}

/* One line "--FLAG" or "--FLAG VALUE" (or "--FLAG=VALUE"); every error
 * message of the option's own code then names FILE:LINE, through the
 * message prefix. */
static void
apply_line(struct opts *o, char *s)
{
	const struct usage_opt *lo;
	size_t n;
	char *v;

	if (strncmp(s, "--", 2) != 0)
		die(EXIT_USAGE, "%s: want --FLAG [VALUE]", s);
	n = strcspn(s + 2, " \t=");
	if ((lo = lookup(s + 2, n)) == NULL)
		die(EXIT_USAGE, "%.*s: unknown flag", (int)(n + 2), s);
	if (lo->val < O_FIRST_PLAN || lo->val > O_LAST_PLAN)
		die(EXIT_USAGE, "--%s: not a plan option (not allowed in a "
		    "profile)", lo->name);
	v = s + 2 + n;
	if (*v != '\0')
		v = trim(v + 1);
	if (lo->has_arg == required_argument && *v == '\0')
		die(EXIT_USAGE, "--%s: missing value", lo->name);
	if (lo->has_arg == no_argument && *v != '\0')
		die(EXIT_USAGE, "--%s takes no value", lo->name);
	o->building = 1;
	opt_apply(o, lo->val, lo->has_arg == no_argument ? NULL :
	    keep(xstrdup(v)));
}

/* A profile found by name is trusted as the binaries are: the file and
 * every directory from / down to it owned by root or by the caller and
 * writable by no one else (a directory with the sticky bit may be
 * writable by all: nobody renames another's entry there), so that nobody
 * else can have planted or swapped it.  The file is the one opened (its
 * device and inode are the path's).  Exit 2 naming what is refused. */
static void
profile_trusted(const char *name, const char *path, FILE *f)
{
	char real[PATH_MAX], *p;
	struct stat fst, st;
	uid_t me = geteuid();

	if (fstat(fileno(f), &fst) == -1)
		die_sys(EXIT_USAGE, "--profile %s: %s", name, path);
	if (realpath(path, real) == NULL)
		die_sys(EXIT_USAGE, "--profile %s: %s", name, path);
	if (stat(real, &st) == -1)
		die_sys(EXIT_USAGE, "--profile %s: %s", name, real);
	if (st.st_dev != fst.st_dev || st.st_ino != fst.st_ino)
		die(EXIT_USAGE, "--profile %s: %s changed while it was read",
		    name, real);
	if (!S_ISREG(fst.st_mode))
		die(EXIT_USAGE, "--profile %s: %s is not a regular file",
		    name, real);
	p = real + strlen(real);
	for (;;) {
		if (stat(real, &st) == -1)
			die_sys(EXIT_USAGE, "--profile %s: %s", name, real);
		if (st.st_uid != 0 && st.st_uid != me)
			die(EXIT_USAGE, "--profile %s: refused: %s belongs to "
			    "uid %u, neither root nor you (a profile found by "
			    "name must be as trusted as planenc)", name, real,
			    (unsigned)st.st_uid);
		if ((st.st_mode & (S_IWGRP | S_IWOTH)) != 0 &&
		    !(S_ISDIR(st.st_mode) && (st.st_mode & S_ISVTX)))
			die(EXIT_USAGE, "--profile %s: refused: others may "
			    "write %s (mode %04o; a profile found by name must "
			    "be as trusted as planenc: chmod go-w it)", name,
			    real, (unsigned)(st.st_mode & 07777));
		if (p == real)
			break;
		while (p > real && *p != '/')
			p--;
		*p = '\0';
		if (p == real) {
			/* the root itself, then stop */
			real[0] = '/';
			real[1] = '\0';
		}
	}
}

/* An installed profile: NAME (no slash) as NAME.profile in the profiles
 * directory beside this planenc (BIN/../share/borne/profiles, wherever
 * it was installed), else in the one make install was given.  A file
 * of the current directory is ./NAME: a name never reads the current
 * directory, where a profile could have been planted.  Exit 2 naming
 * where it looked. */
static FILE *
profile_named(const char *name, char *path, size_t size)
{
	char exe[PATH_MAX], dirs[2][PATH_MAX], *slash;
	ssize_t n;
	size_t i, nd = 0;
	FILE *f;

	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n > 0) {
		exe[n] = '\0';
		if ((slash = strrchr(exe, '/')) != NULL) {
			*slash = '\0';
			if ((size_t)snprintf(dirs[nd], sizeof(dirs[nd]),
			    "%s/../share/borne/profiles", exe) <
			    sizeof(dirs[nd]))
				nd++;
		}
	}
	snprintf(dirs[nd++], sizeof(dirs[0]), "%s", BORNE_PROFILE_DIR);
	for (i = 0; i < nd; i++) {
		if ((size_t)snprintf(path, size, "%s/%s.profile", dirs[i],
		    name) >= size)
			continue;
		if ((f = fopen(path, "re")) != NULL) {
			profile_trusted(name, path, f);
			return f;
		}
		if (errno != ENOENT)
			die_sys(EXIT_USAGE, "--profile %s: %s", name, path);
	}
	die(EXIT_USAGE, "--profile %s: no profile of that name (looked for "
	    "%s.profile in %s%s%s; a file in this directory is given as "
	    "./%s)", name, name, dirs[0], nd > 1 ? " and " : "",
	    nd > 1 ? dirs[1] : "", name);
}

void
profile_load(struct opts *o, const char *file)
{
	const char *prog = prog_name();
	char *line = NULL, *s, *where, *pfx, named[PATH_MAX + NAME_MAX + 16];
	size_t cap = 0, lineno = 0;
	ssize_t n;
	FILE *f;

	if (*file == '\0')
		die(EXIT_USAGE, "--profile: empty name");
	if (strchr(file, '/') == NULL) {
		f = profile_named(file, named, sizeof(named));
		file = keep(xstrdup(named));
	} else if ((f = fopen(file, "re")) == NULL)
		die_sys(EXIT_USAGE, "--profile %s", file);
	while ((n = getline(&line, &cap, f)) != -1) {
		if (++lineno > PROFILE_MAX_LINES)
			die(EXIT_USAGE, "%s: more than %d lines", file,
			    PROFILE_MAX_LINES);
		if (n > PROFILE_MAX_LINE)
			die(EXIT_USAGE, "%s:%zu: line longer than %d bytes",
			    file, lineno, PROFILE_MAX_LINE);
		if (memchr(line, '\0', (size_t)n) != NULL)
			die(EXIT_USAGE, "%s:%zu: NUL byte", file, lineno);
		if (line[n - 1] == '\n')
			line[n - 1] = '\0';
		s = trim(line);
		if (*s == '\0' || *s == '#')
			continue;
		if (asprintf(&where, "%s:%zu", file, lineno) == -1 ||
		    asprintf(&pfx, "%s: %s", prog, where) == -1)
			die_sys(EXIT_USAGE, "out of memory");
		/* where is kept: the origin of what this line adds to the
		 * plan.  The prefix names the line in every message. */
		o->where = keep(where);
		prog_set(pfx);
		apply_line(o, s);
		prog_set(prog);
		free(pfx);
		o->where = NULL;
	}
	if (ferror(f))
		die_sys(EXIT_USAGE, "--profile %s: read", file);
	free(line);
	fclose(f);
}
