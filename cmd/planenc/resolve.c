/* SPDX-License-Identifier: ISC */
/* planenc: what is resolved on this host when the plan is encoded, so
 * that confexec reads only explicit rules and an absolute program: the
 * system preset and the PATH lookup of PROGRAM. */
#include <dirent.h>
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

static void
add(struct opts *o, const char *path, enum plan_intent in)
{
	struct plan *p = &o->p;

	p->fs = push(p->fs, &p->nfs, sizeof(*p->fs));
	p->fs[p->nfs - 1].intent = in;
	p->fs[p->nfs - 1].path = xstrdup(path);
	origin_note(o, PLAN_AT_FS);
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

/* How deep beneath a withholding entry the listing goes, and how many
 * entries it looks at in all: past either, what is left is left out. */
#define WITHHOLD_DEPTH 4
#define WITHHOLD_LOOK 20000

static int
by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The names in directory path, sorted (the plan is the same whatever
 * order the directory gives), or NULL with *n 0 when it cannot be read. */
static char **
names(const char *path, size_t *n)
{
	struct dirent *de;
	char **v = NULL;
	DIR *d;

	*n = 0;
	if ((d = opendir(path)) == NULL)
		return NULL;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		v = push(v, n, sizeof(*v));
		v[*n - 1] = xstrdup(de->d_name);
	}
	closedir(d);
	if (*n > 0)
		qsort(v, *n, sizeof(*v), by_name);
	return v;
}

/* Whether everything beneath directory path may be granted whole: no
 * entry the preset withholds, within the look budget. */
static int
clean(const char *path, int depth, size_t *look)
{
	char **v, child[PATH_MAX];
	struct stat st;
	size_t i, n;
	int ok = 1;

	if (depth > WITHHOLD_DEPTH * 4)
		return 0;
	v = names(path, &n);
	for (i = 0; i < n; i++) {
		if (ok && (++*look > WITHHOLD_LOOK ||
		    (size_t)snprintf(child, sizeof(child), "%s/%s", path,
		    v[i]) >= sizeof(child) || lstat(child, &st) == -1 ||
		    plan_preset_withheld(child) ||
		    (S_ISDIR(st.st_mode) && !clean(child, depth + 1, look))))
			ok = 0;
		free(v[i]);
	}
	free(v);
	return ok;
}

/* Whether a symlink's target may be a rule of its own: not a process's
 * view (/proc, /sys: their "self" is planenc's), not beneath a
 * withholding entry (judged there), not covered already. */
static int
link_target_ok(struct opts *o, const char *real, enum plan_intent in)
{
	const struct plan_preset_entry *sys;
	size_t i, nsys;

	if (plan_path_within(real, "/proc") || plan_path_within(real, "/sys"))
		return 0;
	sys = plan_preset_sys(&nsys);
	for (i = 0; i < nsys; i++)
		if (sys[i].withhold && plan_path_within(real, sys[i].path))
			return 0;
	/* What read and execute covers, read alone needs no rule of its
	 * own (/etc/os-release -> /usr/lib/os-release). */
	return !covered_by_sys(real, in) && !covered(&o->p, real, in) &&
	    (in != PLAN_RO || (!covered_by_sys(real, PLAN_ROX) &&
	    !covered(&o->p, real, PLAN_ROX) &&
	    !covered(&o->p, real, PLAN_RWX)));
}

/* Whether others may read path: search every directory above it, read
 * it, and, for a directory, read everything beneath it (searching each
 * directory), within the look budget and WITHHOLD_DEPTH * 4 levels.  A
 * symbolic link beneath it grants nothing: Landlock judges the path it
 * names where that lies. */
static int
others_read(const char *path, int depth, size_t *look)
{
	char **v, part[PATH_MAX];
	struct stat st;
	size_t i, n, len;
	int ok = 1;

	if (depth == 0) {
		len = strlen(path);
		if (len >= sizeof(part))
			return 0;
		for (n = 1; n < len; n++) {
			if (path[n] != '/')
				continue;
			memcpy(part, path, n);
			part[n] = '\0';
			if (stat(part, &st) == -1 || !(st.st_mode & S_IXOTH))
				return 0;
		}
	}
	if (depth > WITHHOLD_DEPTH * 4 || ++*look > WITHHOLD_LOOK ||
	    lstat(path, &st) == -1)
		return 0;
	if (S_ISLNK(st.st_mode) && depth > 0)
		return 1;
	if (!(st.st_mode & S_IROTH) ||
	    (S_ISDIR(st.st_mode) && !(st.st_mode & S_IXOTH)))
		return 0;
	if (!S_ISDIR(st.st_mode))
		return 1;
	v = names(path, &n);
	for (i = 0; i < n; i++) {
		if (ok && ((size_t)snprintf(part, sizeof(part), "%s/%s", path,
		    v[i]) >= sizeof(part) || !others_read(part, depth + 1,
		    look)))
			ok = 0;
		free(v[i]);
	}
	free(v);
	return ok;
}

/* A withholding entry: each entry beneath path a rule of its own, but
 * for what the preset withholds; a directory that holds something
 * withheld is listed in turn, down to WITHHOLD_DEPTH. */
static void
withhold(struct opts *o, const char *path, enum plan_intent in, int depth,
    size_t *look)
{
	char **v, child[PATH_MAX], real[PATH_MAX];
	struct stat st;
	size_t i, n;

	v = names(path, &n);
	for (i = 0; i < n; i++) {
		if (++*look > WITHHOLD_LOOK ||
		    (size_t)snprintf(child, sizeof(child), "%s/%s", path,
		    v[i]) >= sizeof(child) || lstat(child, &st) == -1 ||
		    plan_preset_withheld(child) ||
		    covered(&o->p, child, (enum plan_intent)-1))
			goto next;
		if (S_ISLNK(st.st_mode)) {
			if (realpath(child, real) != NULL &&
			    link_target_ok(o, real, in) &&
			    others_read(real, 0, look))
				add(o, real, in);
		} else if (!S_ISDIR(st.st_mode) || clean(child, 0, look))
			add(o, child, in);
		else if (depth < WITHHOLD_DEPTH)
			withhold(o, child, in, depth + 1, look);
next:
		free(v[i]);
	}
	free(v);
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
	preset_path(o);
	sys = plan_preset_sys(&nsys);
	for (i = 0; i < nsys; i++) {
		if (lstat(sys[i].path, &st) == -1)
			continue;
		if (!S_ISLNK(st.st_mode)) {
			size_t look = 0;

			if (covered(&o->p, sys[i].path, (enum plan_intent)-1))
				continue;
			if (sys[i].withhold && S_ISDIR(st.st_mode))
				withhold(o, sys[i].path, sys[i].intent, 0,
				    &look);
			else
				add(o, sys[i].path, sys[i].intent);
			continue;
		}
		if (realpath(sys[i].path, real) == NULL ||
		    covered_by_sys(real, sys[i].intent) ||
		    covered(&o->p, real, sys[i].intent))
			continue;
		add(o, real, sys[i].intent);
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
