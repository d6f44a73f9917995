/* SPDX-License-Identifier: ISC */
/* admit: --registry FILE, the workspace registry of admitted programs
 * (confexec(1), REGISTRY).  The registry (common/registry.h, sha256sum
 * format) is read once, before anything is made, from a file that no rw
 * rule of the plan reaches and that no one but root and the caller may
 * write (nor replace: its directory likewise); the program sealed (and a
 * pinned script, with its interpreter) runs only if its SHA-256 is
 * listed.  The start record names the registry and its own SHA-256. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "admit.h"
#include "boundary.h"
#include "end.h"
#include "err.h"
#include "esc.h"
#include "events.h"
#include "hash.h"
#include "plan.h"
#include "registry.h"
#include "run.h"

static struct {
	const char *path;	/* as given, or NULL: no registry */
	char real[PATH_MAX];	/* the file read, its real path */
	char hex[SHA256_HEX_LEN + 1];
	struct registry reg;
	int read;
} ad;

void
admit_want(const char *path)
{
	ad.path = path;
}

/* Root and the caller may write what the caller trusts; anyone else
 * who may is refused.  0, or -1 with err set (what names the file). */
static int
writers(const char *what, const char *path, const struct stat *st,
    int dir, char *err, size_t len)
{
	if (st->st_uid != 0 && st->st_uid != geteuid())
		return err_set(err, len, "registry %s: %s %s is owned by uid "
		    "%u, who may change it: refused", ad.path, what, path,
		    (unsigned)st->st_uid);
	/* A directory others may write, unless sticky (/tmp), lets them
	 * replace the file; a file others may write, they may change. */
	if ((st->st_mode & 022) != 0 && !(dir && (st->st_mode & S_ISVTX)))
		return err_set(err, len, "registry %s: %s %s has mode %04o: "
		    "others may %s it: refused", ad.path, what, path,
		    (unsigned)(st->st_mode & 07777), dir ? "replace what is "
		    "in" : "write");
	return 0;
}

/* The registry opened, a regular file, its real path in ad.real: its
 * descriptor, or -1 with err. */
static int
open_registry(struct stat *st, char *err, size_t len)
{
	char proc[64];
	ssize_t n;
	int fd;

	fd = open(ad.path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	if (fd == -1)
		return err_set_sys(err, len, "registry %s", ad.path);
	if (fstat(fd, st) == -1 || !S_ISREG(st->st_mode)) {
		close(fd);
		return err_set(err, len, "registry %s: not a regular file",
		    ad.path);
	}
	/* The file read is the one the descriptor holds: its real path
	 * from /proc, its directory looked at as it is now. */
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, ad.real, sizeof(ad.real) - 1);
	if (n <= 0 || ad.real[0] != '/') {
		close(fd);
		return err_set(err, len, "registry %s: its real path cannot "
		    "be read", ad.path);
	}
	ad.real[n] = '\0';
	return fd;
}

/* Nobody besides root and the caller may write the file (st) or replace
 * it in its directory, and no rw rule of the plan reaches it: 0, or -1
 * with err. */
static int
guarded(struct run *r, const struct stat *st, char *err, size_t len)
{
	char dir[PATH_MAX], *slash;
	struct stat dst;
	int dfd, i;

	snprintf(dir, sizeof(dir), "%s", ad.real);
	slash = strrchr(dir, '/');
	if (slash == dir)
		dir[1] = '\0';
	else
		*slash = '\0';
	dfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (dfd == -1 || fstat(dfd, &dst) == -1) {
		if (dfd != -1)
			close(dfd);
		return err_set_sys(err, len, "registry %s: directory %s",
		    ad.path, dir);
	}
	if (writers("file", ad.real, st, 0, err, len) == -1 ||
	    writers("directory", dir, &dst, 1, err, len) == -1) {
		close(dfd);
		return -1;
	}
	/* Another name of the same file could lie under a rw rule, where
	 * no check below would see it. */
	if (st->st_nlink != 1) {
		close(dfd);
		return err_set(err, len, "registry %s: file %s has %ju links: "
		    "another name of it could be written: refused", ad.path,
		    ad.real, (uintmax_t)st->st_nlink);
	}
	/* The payload must not write it either: a rw rule over the file or
	 * a directory it is in (the same check as the journal's). */
	i = boundary_rw_over(r, dfd, st);
	close(dfd);
	if (i >= 0) {
		return err_set(err, len, "registry %s: the payload may write "
		    "%s (rule %s %s) and could admit programs of its own; "
		    "keep the registry where no rw or rwx rule reaches",
		    ad.path, stat(r->p.fs[i].path, &dst) == 0 &&
		    S_ISDIR(dst.st_mode) ? "a directory it is in" : "it",
		    plan_intent_name(r->p.fs[i].intent), r->p.fs[i].path);
	}
	return 0;
}

/* The registry read once, bounded, and parsed: 0, or -1 with err. */
static int
read_registry(int fd, char *err, size_t len)
{
	uint8_t d[SHA256_LEN];
	size_t have = 0;
	ssize_t n;
	char *buf;

	if ((buf = malloc(REGISTRY_MAX + 1)) == NULL)
		return err_set_sys(err, len, "registry");
	for (;;) {
		n = read(fd, buf + have, REGISTRY_MAX + 1 - have);
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			free(buf);
			return err_set_sys(err, len, "registry %s", ad.path);
		}
		if (n == 0)
			break;
		have += (size_t)n;
		if (have > REGISTRY_MAX)
			break;
	}
	sha256_buf(buf, have, d);
	sha256_hex(d, ad.hex);
	if (registry_parse(buf, have, &ad.reg, err, len) == -1) {
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		free(buf);
		return err_set(err, len, "registry %s: %s", ad.path, why);
	}
	free(buf);
	ad.read = 1;
	return 0;
}

int
admit_open(struct run *r, char *err, size_t len)
{
	struct stat st;
	int fd, rc;

	if (ad.path == NULL)
		return 0;
	if ((fd = open_registry(&st, err, len)) == -1)
		return -1;
	rc = guarded(r, &st, err, len) == -1 ||
	    read_registry(fd, err, len) == -1 ? -1 : 0;
	close(fd);
	return rc;
}

/* One refused file into msg: its name, its hash, the admitting line. */
static void
refused(char *msg, size_t len, const char *what, const char *path,
    const char *hex)
{
	char e[ESC_SIZE(PATH_MAX)];
	size_t at = strlen(msg);

	esc_name(path, e, sizeof(e));
	snprintf(msg + at, len - at, "%s%s %s is not admitted by the "
	    "registry %s: its SHA-256 is %s; the line that would admit it: "
	    "%s  %s", at ? "; " : "", what, e, ad.path, hex, hex, e);
}

void
admit_check(struct run *r)
{
	char msg[2 * (ESC_SIZE(PATH_MAX) * 2 + 256)] = "";
	uint8_t d[SHA256_LEN];

	if (!ad.read)
		return;
	/* The program that execs: the plan's, or a script's interpreter. */
	if (!registry_has(&ad.reg, r->prog_digest))
		refused(msg, sizeof(msg), r->p.script_arg ? "interpreter" :
		    "program", r->p.program, r->prog_hex);
	if (r->p.script_arg && (sha256_unhex(r->script_hex, SHA256_HEX_LEN,
	    d) == -1 || !registry_has(&ad.reg, d)))
		refused(msg, sizeof(msg), "script",
		    r->p.argv[r->p.script_arg], r->script_hex);
	if (msg[0] != '\0')
		end_early(r, EXIT_NOEXEC, msg);
}

json_t *
admit_json(void)
{
	json_t *o;

	if (!ad.read)
		return json_null();
	o = json_object();
	json_object_set_new(o, "path", events_str(ad.real));
	json_object_set_new(o, "sha256", json_string(ad.hex));
	json_object_set_new(o, "entries", json_integer((json_int_t)ad.reg.n));
	return o;
}
