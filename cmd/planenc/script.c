/* SPDX-License-Identifier: ISC */
/* planenc: a #! PROGRAM becomes a plan that runs its interpreter with the
 * script, as the kernel would (fs/binfmt_script.c), since confexec runs
 * only a sealed ELF image.  The #! line is read here, once, within the
 * kernel's bound; "#!/usr/bin/env NAME" is resolved on the plan's PATH. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "err.h"
#include "landlock.h"
#include "planenc.h"

/* The kernel reads this much of a file to find its #! line
 * (BINPRM_BUF_SIZE): a line without its newline within it is refused
 * here (the kernel accepts some such lines, cut short). */
#define SHEBANG_MAX 256
/* At most this many words in an "env -S" line. */
#define ENV_S_WORDS 16

/* The first bytes of path (up to SHEBANG_MAX), read once.  Returns how
 * many, or -1 when it cannot be opened or read (errno).  Only a regular
 * file is read (0 bytes for anything else: the kernel runs no other
 * kind, and confexec says so): opened without waiting, so that a FIFO
 * or a device named as PROGRAM never holds planenc. */
static ssize_t
head(const char *path, char *buf)
{
	ssize_t n, done = 0;
	struct stat st;
	int fd, e;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY |
	    O_NONBLOCK)) == -1)
		return -1;
	if (fstat(fd, &st) == -1 || !S_ISREG(st.st_mode)) {
		close(fd);
		return 0;
	}
	while (done < SHEBANG_MAX) {
		n = read(fd, buf + done, (size_t)(SHEBANG_MAX - done));
		if (n == -1 && errno == EINTR)
			continue;
		if (n == -1) {
			e = errno;
			close(fd);
			errno = e;
			return -1;
		}
		if (n == 0)
			break;
		done += n;
	}
	close(fd);
	return done;
}

static int
blank(char c)
{
	return c == ' ' || c == '\t';
}

/* The interpreter a #! line names must be an ELF program here: absolute,
 * normalised, an executable regular file, and not a script itself
 * (planenc resolves one level; a sealed image cannot be a script). */
static void
interp_check(const char *script, const char *line, const char *interp)
{
	char buf[SHEBANG_MAX];
	const char *why;
	struct stat st;
	ssize_t n;

	if (interp[0] != '/')
		die(EXIT_USAGE, "program %s: %s: the interpreter is not an "
		    "absolute path", script, line);
	if ((why = plan_path_why(interp)) != NULL)
		die(EXIT_USAGE, "program %s: %s: interpreter %s: %s", script,
		    line, interp, why);
	if (stat(interp, &st) == -1)
		die_sys(EXIT_USAGE, "program %s: %s: interpreter %s", script,
		    line, interp);
	if (!S_ISREG(st.st_mode) || !(st.st_mode & 0111))
		die(EXIT_USAGE, "program %s: %s: interpreter %s is not an "
		    "executable file", script, line, interp);
	if ((n = head(interp, buf)) >= 2 && buf[0] == '#' && buf[1] == '!')
		die(EXIT_USAGE, "program %s: %s: interpreter %s is itself a "
		    "script (#!): planenc resolves one level; name its "
		    "interpreter as PROGRAM", script, line, interp);
}

/* "#!/usr/bin/env ARG": the words env would run (env -S splits ARG on
 * blanks; plain env takes it whole as the name), in w; returns how many.
 * Only what can be resolved exactly is taken: no other env option, no
 * NAME=VALUE, no quotes, escapes or variables. */
static size_t
env_words(const char *script, const char *line, char *arg, char **w)
{
	size_t n = 0;
	char *s;

	if (strncmp(arg, "-S", 2) == 0) {
		if (strpbrk(arg + 2, "\\'\"$#") != NULL)
			die(EXIT_USAGE, "program %s: %s: env -S with quotes, "
			    "escapes, variables or comments is not resolved; "
			    "name the interpreter as PROGRAM", script, line);
		for (s = arg + 2;;) {
			while (blank(*s))
				s++;
			if (*s == '\0')
				break;
			if (n == ENV_S_WORDS)
				die(EXIT_USAGE, "program %s: %s: more than %d "
				    "words after env -S", script, line,
				    ENV_S_WORDS);
			w[n++] = s;
			while (*s != '\0' && !blank(*s))
				s++;
			if (*s != '\0')
				*s++ = '\0';
		}
		if (n == 0)
			die(EXIT_USAGE, "program %s: %s: no program after "
			    "env -S", script, line);
	} else {
		if (arg[0] != '-' && strcspn(arg, "=") < strcspn(arg, " \t"))
			die(EXIT_USAGE, "program %s: %s: env settings are not "
			    "resolved; give them with --setenv and name the "
			    "interpreter as PROGRAM", script, line);
		if (arg[0] != '-' && strpbrk(arg, " \t") != NULL)
			die(EXIT_USAGE, "program %s: %s: env takes \"%s\" as "
			    "one program name (the kernel passes one "
			    "argument; env -S splits it)", script, line, arg);
		w[n++] = arg;
	}
	if (w[0][0] == '-')
		die(EXIT_USAGE, "program %s: %s: env options other than -S "
		    "are not resolved; name the interpreter as PROGRAM", script,
		    line);
	if (strchr(w[0], '=') != NULL)
		die(EXIT_USAGE, "program %s: %s: env settings are not "
		    "resolved; give them with --setenv and name the "
		    "interpreter as PROGRAM", script, line);
	return n;
}

/* Whether interp is an env(1): "#!/usr/bin/env NAME". */
static int
is_env(const char *interp)
{
	const char *b = strrchr(interp, '/');

	return strcmp(b != NULL ? b + 1 : interp, "env") == 0;
}

/* Whether the plan's rules grant read on path (resolved), each rule path
 * resolved as confexec resolves it (a followed symlink); else hint has
 * the flag that would grant it. */
static int
readable(const struct plan *p, const char *path, char *hint, size_t size)
{
	char **real, rp[PATH_MAX];
	size_t i;
	int r;

	if ((real = calloc(p->nfs + 1, sizeof(char *))) == NULL)
		die_sys(EXIT_USAGE, "out of memory");
	for (i = 0; i < p->nfs; i++)
		real[i] = xstrdup(realpath(p->fs[i].path, rp) != NULL ? rp :
		    p->fs[i].path);
	r = ll_grant_hint(p, real, path, PLAN_RO, hint, size);
	for (i = 0; i < p->nfs; i++)
		free(real[i]);
	free(real);
	return r == 1;
}

/* The #! line of script, its first bytes read into buf (SHEBANG_MAX + 1)
 * and kept whole in line for messages: *name the interpreter, up to the
 * first blank; *arg the rest past blanks, blanks and all (one optional
 * argument, maybe empty).  1, or 0 when script is no #! script or cannot
 * be read here. */
static int
shebang(const char *script, char *buf, char *line, char **name, char **arg)
{
	ssize_t len;
	char *e, *n, *a;

	if ((len = head(script, buf)) < 2 || buf[0] != '#' || buf[1] != '!')
		return 0;
	buf[len] = '\0';
	/* The line ends at its newline, or at the end of a short file;
	 * like the kernel, at a NUL too. */
	if ((e = memchr(buf, '\n', (size_t)len)) == NULL) {
		if (len == SHEBANG_MAX)
			die(EXIT_USAGE, "program %s: its #! line is longer "
			    "than %d bytes (the kernel's limit, "
			    "BINPRM_BUF_SIZE)", script, SHEBANG_MAX - 1);
		e = buf + len;
	}
	*e = '\0';
	snprintf(line, SHEBANG_MAX + 1, "%s", buf);
	e = buf + strlen(buf);
	while (e > buf + 2 && blank(e[-1]))
		*--e = '\0';
	for (n = buf + 2; blank(*n); n++)
		;
	if (*n == '\0')
		die(EXIT_USAGE, "program %s: its #! line names no "
		    "interpreter", script);
	for (a = n; *a != '\0' && !blank(*a); a++)
		;
	if (*a != '\0') {
		*a++ = '\0';
		while (blank(*a))
			a++;
	}
	*name = n, *arg = a;
	return 1;
}

/* The interpreter the #! line of script names (name, arg as shebang()
 * split them), an absolute path (env NAME: found on the plan's PATH);
 * the words it puts before the script in w, *nw of them (env: the name
 * looked up first). */
static char *
interp_find(const struct plan *p, const char *script, const char *line,
    const char *name, char *arg, char *w[ENV_S_WORDS], size_t *nw)
{
	const char *whose, *path;
	char *interp;

	*nw = 0;
	interp_check(script, line, name);
	if (!is_env(name)) {
		if (*arg != '\0')
			w[(*nw)++] = arg;
		return xstrdup(name);
	}
	if (*arg == '\0')
		die(EXIT_USAGE, "program %s: %s: env without a program name",
		    script, line);
	*nw = env_words(script, line, arg, w);
	if (w[0][0] == '/')
		interp = xstrdup(w[0]);
	else if (strchr(w[0], '/') != NULL)
		die(EXIT_USAGE, "program %s: %s: %s is a relative path",
		    script, line, w[0]);
	else if ((interp = path_search(p, w[0], &whose, &path)) == NULL)
		die(EXIT_USAGE, "program %s: %s: %s not found in %s PATH %s",
		    script, line, w[0], whose, path != NULL ? path : "(none)");
	interp_check(script, line, interp);
	return interp;
}

/* argv: the interpreter as the #! line names it (env: the name it looks
 * up), or --argv0; the #! argument (env -S: its words); the script's
 * path; then PROGRAM's own arguments. */
static void
script_argv(struct opts *o, const char *script, const char *name,
    char *const w[], size_t nw)
{
	struct plan *p = &o->p;
	size_t i, n = 0;
	char **argv;

	argv = calloc(p->argc + nw + (is_env(name) ? 0 : 1) + 1,
	    sizeof(char *));
	if (argv == NULL)
		die_sys(EXIT_USAGE, "out of memory");
	argv[n++] = o->argv0 != NULL ? xstrdup(o->argv0) :
	    xstrdup(is_env(name) ? w[0] : name);
	for (i = is_env(name) ? 1 : 0; i < nw; i++)
		argv[n++] = xstrdup(w[i]);
	/* --sha256 pins the script, which confexec hands over sealed; the
	 * interpreter is sealed unpinned (launchplan(5), "script"). */
	if (p->has_sha256) {
		p->script_arg = n;
		memcpy(p->script_sha256, p->sha256, sizeof(p->sha256));
		p->has_sha256 = 0;
	}
	argv[n++] = xstrdup(script);
	for (i = 1; i < p->argc; i++)
		argv[n++] = p->argv[i];
	free(p->argv[0]);
	free(p->argv);
	p->argv = argv;
	p->argc = n;
}

void
script_apply(struct opts *o)
{
	struct plan *p = &o->p;
	char buf[SHEBANG_MAX + 1], line[SHEBANG_MAX + 1], real[PATH_MAX];
	char hint[PATH_MAX + 64], *w[ENV_S_WORDS], *name, *arg, *interp;
	const char *script = p->program;
	size_t nw;

	/* A relative PROGRAM is the plan's check to refuse. */
	if (script[0] != '/' || !shebang(script, buf, line, &name, &arg))
		return;		/* not a script, or not readable here */
	interp = interp_find(p, script, line, name, arg, w, &nw);
	/* The payload reads the script by path (the kernel would hand the
	 * interpreter its path too): a rule must grant it, never added in
	 * silence. */
	if (realpath(script, real) == NULL)
		die_sys(EXIT_USAGE, "program %s", script);
	if (!readable(p, real, hint, sizeof(hint)))
		die(EXIT_USAGE, "program %s is a script (%s): its "
		    "interpreter reads it by path, and no rule grants read on "
		    "%s (grant it with %s)", script, line, real, hint);
	script_argv(o, script, name, w, nw);
	p->program = interp;
	free((char *)script);
}
