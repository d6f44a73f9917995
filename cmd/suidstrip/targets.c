/* SPDX-License-Identifier: ISC */
/* suidstrip targets: from the command line and from docker inspect JSON
 * (common/inspect.h), resolved on the host, scoped by the --within roots,
 * opened without following any symlink, duplicates merged. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/openat2.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "inspect.h"
#include "suidstrip.h"

#define MAX_INSPECT (64u << 20)	/* bytes of docker inspect JSON accepted */

static const uint64_t res = RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;

/* ---- input ---- */

static char *
read_all(const char *file, size_t *len)
{
	size_t cap = 65536, n = 0;
	char *buf, *nb;
	ssize_t r;
	int fd;

	if (strcmp(file, "-") == 0)
		fd = 0;
	else if ((fd = open(file, O_RDONLY | O_CLOEXEC)) == -1)
		die_sys(EXIT_USAGE, "unable to open inspect input: %s", file);
	if ((buf = malloc(cap)) == NULL)
		die_sys(EXIT_NO, "unable to read inspect input");
	for (;;) {
		if (n == cap) {
			if (cap >= MAX_INSPECT)
				die(EXIT_USAGE, "inspect input: larger than %u bytes",
				    MAX_INSPECT);
			cap *= 2;
			if ((nb = realloc(buf, cap)) == NULL)
				die_sys(EXIT_NO, "unable to read inspect input");
			buf = nb;
		}
		r = read(fd, buf + n, cap - n);
		if (r == 0)
			break;
		if (r == -1) {
			if (errno == EINTR)
				continue;
			die_sys(EXIT_USAGE, "unable to read inspect input");
		}
		n += (size_t)r;
	}
	if (fd != 0)
		close(fd);
	*len = n;
	return buf;
}

void
inspect_read(const char *file, struct inspect_sources *src)
{
	char err[256];
	size_t len;
	char *buf = read_all(file, &len);

	if (inspect_parse(buf, len, src, err, sizeof err) == -1)
		die(EXIT_USAGE, "invalid docker inspect input: %s", err);
	free(buf);
}

/* ---- opening ---- */

/* Open rel (a real path below root, or root itself) beneath root, so that
 * a path changed since realpath() cannot lead out of it; without a root,
 * open real as it is (still never following a symlink). */
static int
open_scoped(const char *real, const char *root, int flags)
{
	const char *rel;
	int rfd, fd;

	if (root == NULL)
		return open_beneath(AT_FDCWD, real[0] ? real : "/", flags, res);
	if ((rfd = open_beneath(AT_FDCWD, root, O_PATH | O_DIRECTORY, res)) == -1)
		return -1;
	rel = real + strlen(root);
	while (*rel == '/')
		rel++;
	fd = open_beneath(rfd, *rel ? rel : ".", flags, res | RESOLVE_BENEATH);
	close(rfd);
	return fd;
}

/* A single-file target (a file bind mount): open its parent, keep its
 * name.  0, 1 when skipped, -1 with errno. */
static int
target_file(struct target *t, const char *real, const char *root)
{
	char *slash;

	if ((t->base = strdup(real)) == NULL)
		return -1;
	slash = strrchr(t->base, '/');
	t->file = slash + 1;
	*slash = '\0';
	if (root != NULL && strlen(t->base) < strlen(root)) {
		skip_target(real, "a file cannot be a --within root");
		return 1;
	}
	t->fd = open_scoped(t->base, root, O_PATH | O_DIRECTORY);
	return t->fd == -1 ? -1 : 0;
}

/* src, whose realpath(3) failed (errno): skipped (1) when it is missing
 * and --missing-ok, else failed (-1, t->cause and t->path set). */
static int
target_unresolved(struct target *t, const char *src)
{
	int missing = errno == ENOENT || errno == ENOTDIR;

	if (missing && opt.missing_ok) {
		skip_target(src, "missing (not recreated)");
		return 1;
	}
	snprintf(t->cause[STEP_STRIP], CAUSE_MAX, "%s%s", missing ?
	    "missing (not recreated; --missing-ok if expected)" :
	    "resolve: ", missing ? "" : strerror(errno));
	if ((t->path = strdup(src)) == NULL)
		die_sys(EXIT_NO, "unable to allocate");
	return -1;
}

/* Resolve src and open it as a target.  Returns 0 (t filled), 1 when the
 * target is skipped (reported), -1 when it failed (t->cause[STEP_STRIP]
 * says why, t->path is set).  A missing target is a
 * failure unless --missing-ok: a typo must not pass for a clean strip. */
static int
target_open(struct target *t, const char *src, const struct roots *roots)
{
	const char *root;
	struct statx st;
	int fd, r;

	memset(t, 0, sizeof *t);
	t->fd = -1;
	if ((t->path = realpath(src, NULL)) == NULL)
		return target_unresolved(t, src);
	root = roots_match(roots, t->path);
	if (roots->n > 0 && root == NULL) {
		skip_target(t->path, "outside every --within root");
		return 1;
	}
	if ((fd = open_scoped(t->path, root, O_PATH)) == -1)
		goto fail;
	if (walk_statx(fd, "", AT_EMPTY_PATH, STATX_TYPE, &st) == -1) {
		close(fd);
		goto fail;
	}
	if (S_ISDIR(st.stx_mode)) {
		t->fd = open_beneath(fd, ".", O_RDONLY | O_DIRECTORY, res |
		    RESOLVE_BENEATH);
		close(fd);
		if (t->fd == -1)
			goto fail;
		t->base = strdup(t->path);
		return t->base == NULL ? -1 : 0;
	}
	close(fd);
	if (!S_ISREG(st.stx_mode)) {
		skip_target(t->path, "not a directory or a regular file");
		return 1;
	}
	if ((r = target_file(t, t->path, root)) != -1)
		return r;
fail:
	snprintf(t->cause[STEP_STRIP], CAUSE_MAX, "open: %s",
	    errno == ELOOP ? "a symlink appeared in the path" : strerror(errno));
	return -1;
}

/* Is t (just opened) the same real path as one of the n before it? */
static int
duplicate(const struct target *tg, size_t n, const struct target *t)
{
	size_t k;

	for (k = 0; k < n; k++)
		if (strcmp(tg[k].path, t->path) == 0)
			return 1;
	return 0;
}

static void
target_drop(struct target *t)
{
	if (t->fd != -1)
		close(t->fd);
	free(t->path);
	free(t->base);
}

struct target *
targets_open(char *const *operands, size_t nops,
    const struct inspect_sources *src, const struct roots *within, size_t *n)
{
	struct target *tg;
	size_t i, cap, ntg = 0;
	int r;

	cap = nops + src->n;
	if ((tg = calloc(cap ? cap : 1, sizeof *tg)) == NULL)
		die_sys(EXIT_NO, "unable to allocate targets");
	for (i = 0; i < cap; i++) {
		r = target_open(&tg[ntg], i < nops ? operands[i] :
		    src->v[i - nops], within);
		if (r == 1 || (r == 0 && duplicate(tg, ntg, &tg[ntg]))) {
			target_drop(&tg[ntg]);
			continue;
		}
		if (r == -1)
			tg[ntg].unopened = 1;
		ntg++;
	}
	*n = ntg;
	return tg;
}

void
targets_free(struct target *tg, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		target_drop(&tg[i]);
	free(tg);
}
