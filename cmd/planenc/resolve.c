/* SPDX-License-Identifier: ISC */
/* planenc: what is resolved on this host when the plan is encoded, so
 * that confexec reads only explicit rules and an absolute program: the
 * system preset and the PATH lookup of PROGRAM. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "planenc.h"

/* Whether the plan already has a rule for path (any intent), or one of
 * the same intent above it. */
static int
covered(const struct plan *p, const char *path, enum plan_intent in)
{
	size_t i;

	for (i = 0; i < p->nfs; i++)
		if (strcmp(p->fs[i].path, path) == 0 ||
		    (p->fs[i].intent == in &&
		    plan_path_within(path, p->fs[i].path)))
			return 1;
	return 0;
}

/* Whether path is a system entry that is not a symlink here and covers
 * target with the same intent (/bin -> usr/bin: /usr covers it). */
static int
covered_by_sys(const char *target, enum plan_intent in)
{
	const struct plan_preset_entry *sys;
	struct stat st;
	size_t i, nsys;

	sys = plan_preset_sys(&nsys);
	for (i = 0; i < nsys; i++)
		if (sys[i].intent == in &&
		    plan_path_within(target, sys[i].path) &&
		    lstat(sys[i].path, &st) == 0 && !S_ISLNK(st.st_mode))
			return 1;
	return 0;
}

/* The preset's PATH: the usual command directories that exist here,
 * each once (on a merged-/usr system /bin and /sbin are /usr's), unless
 * the plan sets or passes PATH itself. */
static void
preset_path(struct opts *o)
{
	static const char *const dirs[] = {
		"/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin",
		"/sbin", "/bin",
	};
	char real[sizeof(dirs) / sizeof(dirs[0])][PATH_MAX];
	char path[sizeof("PATH=") + sizeof(dirs) / sizeof(dirs[0]) * PATH_MAX];
	struct plan *p = &o->p;
	size_t i, j, n = 0, len = 0;
	struct stat st;

	for (i = 0; i < p->nenv; i++)
		if (strncmp(p->env[i], "PATH=", 5) == 0)
			return;
	len = (size_t)snprintf(path, sizeof(path), "PATH=");
	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (realpath(dirs[i], real[n]) == NULL ||
		    stat(real[n], &st) == -1 || !S_ISDIR(st.st_mode))
			continue;
		for (j = 0; j < n && strcmp(real[j], real[n]) != 0; j++)
			;
		if (j < n)
			continue;
		len += (size_t)snprintf(path + len, sizeof(path) - len, "%s%s",
		    n > 0 ? ":" : "", dirs[i]);
		n++;
	}
	if (n == 0)
		return;
	p->env = push(p->env, &p->nenv, sizeof(char *));
	p->env[p->nenv - 1] = xstrdup(path);
	origin_note(o, PLAN_AT_ENV);
}

/* Each path only if it exists here.  A symlinked one (/bin -> usr/bin on
 * a merged-/usr system) is not a rule path confexec would accept: it is
 * left out when another entry covers its target, else its target is
 * the rule.  A path the options name themselves is theirs. */
void
preset_apply(struct opts *o)
{
	const struct plan_preset_entry *sys;
	char real[PATH_MAX];
	struct stat st;
	size_t i, nsys;

	if (!o->preset_sys)
		return;
	o->p.preset = PLAN_PRESET_SYS;
	preset_path(o);
	sys = plan_preset_sys(&nsys);
	for (i = 0; i < nsys; i++) {
		if (lstat(sys[i].path, &st) == -1)
			continue;
		/* /etc whole: its secrets are withheld by confexec's view,
		 * whatever /etc holds (mountview.h). */
		if (!S_ISLNK(st.st_mode)) {
			if (!covered(&o->p, sys[i].path, (enum plan_intent)-1))
				opt_add_fs(o, sys[i].intent, sys[i].path);
			continue;
		}
		if (realpath(sys[i].path, real) == NULL ||
		    covered_by_sys(real, sys[i].intent) ||
		    covered(&o->p, real, sys[i].intent))
			continue;
		opt_add_fs(o, sys[i].intent, real);
	}
}

/* One PATH entry, made absolute and normalised ("/usr/bin/" and
 * "/usr//bin" are /usr/bin), or NULL: relative, empty (the current
 * directory) or with a . or .. component: not searched. */
static char *
path_dir(const char *e, size_t n)
{
	char *d, *w;
	size_t i;

	if (n == 0 || e[0] != '/')
		return NULL;
	if ((d = malloc(n + 1)) == NULL)
		die_sys(EXIT_USAGE, "out of memory");
	for (i = 0, w = d; i < n; i++)
		if (e[i] != '/' || w == d || w[-1] != '/')
			*w++ = e[i];
	while (w - d > 1 && w[-1] == '/')
		w--;
	*w = '\0';
	if (plan_path_why(d) != NULL) {
		free(d);
		return NULL;
	}
	return d;
}

char *
path_search(const struct plan *p, const char *name, const char **whose,
    const char **pathp)
{
	const char *path = NULL, *e;
	struct stat st;
	char *d, *full;
	size_t i, n;

	*whose = "the plan's";
	for (i = 0; i < p->nenv; i++)
		if (strncmp(p->env[i], "PATH=", 5) == 0)
			path = p->env[i] + 5;
	if (path == NULL) {
		path = getenv("PATH");
		*whose = "planenc's";
	}
	*pathp = path;
	if (path == NULL)
		return NULL;
	for (e = path;; e += n + 1) {
		n = strcspn(e, ":");
		if ((d = path_dir(e, n)) != NULL) {
			if (asprintf(&full, "%s/%s", strcmp(d, "/") == 0 ?
			    "" : d, name) == -1)
				die_sys(EXIT_USAGE, "out of memory");
			free(d);
			if (stat(full, &st) == 0 && S_ISREG(st.st_mode) &&
			    (st.st_mode & 0111))
				return full;
			free(full);
		}
		if (e[n] == '\0')
			break;
	}
	return NULL;
}

char *
program_lookup(const struct plan *p, const char *name)
{
	const char *path, *whose;
	char *full;

	if ((full = path_search(p, name, &whose, &path)) != NULL)
		return full;
	if (path == NULL)
		die(EXIT_USAGE, "program %s: not an absolute path, and no PATH "
		    "to search (neither the plan's nor planenc's)", name);
	die(EXIT_USAGE, "program %s: not found in %s PATH %s", name, whose,
	    path);
}
