/* SPDX-License-Identifier: ISC */
/* Unit tests of common/usage: the option table feeds getopt_long, the
 * short options and --help alike; usage errors are one line and a hint. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "err.h"
#include "usage.h"
#include "tap.h"

/* What the rows of tab set. */
struct cl {
	int dry, json;
	const char *keep;
};

enum { OPT_BUDGET = USAGE_LONG_ONLY };

static const struct usage_opt tab[] = {
	USAGE_FLAG("dry-run", 'n', struct cl, dry, "change nothing"),
	USAGE_FLAG("json", 0, struct cl, json, "JSON lines"),
	USAGE_ONCE("budget", OPT_BUDGET, "SECONDS", "time budget"),
	USAGE_STR("keep", 'k', "FD", struct cl, keep, "keep FD open"),
	USAGE_STD_ROWS,
};

/* Run f in a child with stdout and stderr in one pipe; its output in buf,
 * its exit status returned. */
static int
capture(void (*f)(void *), void *arg, char *buf, size_t size)
{
	int p[2], st;
	ssize_t n, got = 0;
	pid_t pid;

	fflush(stdout);	/* or the child prints our TAP lines again */
	if (pipe(p) == -1 || (pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		dup2(p[1], 1);
		dup2(p[1], 2);
		close(p[0]);
		f(arg);
		fflush(stdout);
		_exit(0);
	}
	close(p[1]);
	while ((n = read(p[0], buf + got, size - 1 - (size_t)got)) > 0)
		got += n;
	buf[got] = '\0';
	close(p[0]);
	waitpid(pid, &st, 0);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

static void
help(void *arg)
{
	usage_help("tool [--dry-run] [DIR...]", tab);
}

static void
version(void *arg)
{
	version_print("1.2-3-gabc");
}

static void
hint(void *arg)
{
	die_usage_hint(EXIT_USAGE, "--budget %s: not a number", "x");
}

/* usage_next over argv (NULL-terminated, prefix "-"): what it returned,
 * one a line ("budget VALUE", "operand VALUE"), then the fields. */
static void
next(void *arg)
{
	char **argv = arg;
	struct cl cl = { 0 };
	struct usage_cli u = USAGE_CLI(tab, "-", "tool [OPTION...]", EXIT_USAGE,
	    &cl);
	int argc = 0, c;

	setvbuf(stdout, NULL, _IONBF, 0);	/* in order with stderr */
	while (argv[argc] != NULL)
		argc++;
	optind = 1;
	while ((c = usage_next(&u, argc, argv)) != -1)
		printf("%s %s\n", c == OPT_BUDGET ? "budget" : c == 1 ?
		    "operand" : "?", optarg);
	printf("dry %d json %d keep %s\n", cl.dry, cl.json,
	    cl.keep != NULL ? cl.keep : "-");
}

static void
check_next(const char *what, char **argv, int code, const char *want)
{
	char buf[1024];

	is_int(capture(next, argv, buf, sizeof buf), code, "%s: exit %d",
	    what, code);
	is_str(buf, want, "%s: its output", what);
}

/* getopt_long over argv (NULL-terminated), then die_getopt on the error. */
static void
bad(void *arg)
{
	char **argv = arg;
	struct option lo[8];
	char shorts[16];
	int argc = 0, c;

	while (argv[argc] != NULL)
		argc++;
	usage_longopts(tab, lo, 8);
	usage_optstring(tab, "-", shorts, sizeof shorts);
	optind = 1;
	while ((c = getopt_long(argc, argv, shorts, lo, NULL)) != -1)
		if (c == ':' || c == '?')
			die_getopt(EXIT_USAGE, tab, c, argv);
	_exit(0);
}

static void
check_bad(const char *what, const char *a1, const char *a2, const char *want)
{
	char *argv[] = { "tool", (char *)a1, (char *)a2, NULL };
	char buf[512], exp[512];

	snprintf(exp, sizeof exp, "tool: %s\ntry 'tool --help'\n", want);
	is_int(capture(bad, argv, buf, sizeof buf), 2, "%s: exit 2", what);
	is_str(buf, exp, "%s: one line, then the hint", what);
}

int
main(void)
{
	struct option lo[8];
	char s[16], buf[2048];
	char *a1[] = { "tool", "-n", "x", "--keep=3", "--budget", "5",
		"--json", NULL };
	char *a2[] = { "tool", "--keep", "a", "-k", "b", NULL };
	char *a3[] = { "tool", "--budget", "1", "--budget", "2", NULL };
	char *a4[] = { "tool", "--json", "--version", NULL };
	char *a5[] = { "tool", "--version=1", NULL };
	int n;

	prog_set("tool");
	is_int(usage_optstring(tab, "-", s, sizeof s), 0, "optstring built");
	is_str(s, "-:nk:h", "only letters are short options; ':' after a value");
	is_int(usage_optstring(tab, "", s, sizeof s), 0, "without prefix");
	is_str(s, ":nk:h", "':' first: missing values come back as ':'");
	errno = 0;
	is_int(usage_optstring(tab, "+", s, 4), -1, "too small a buffer fails");
	is_int(errno, ENOBUFS, "with ENOBUFS");

	is_int(usage_longopts(tab, lo, 8), 0, "longopts built");
	is_str(lo[2].name, "budget", "names in table order");
	is_int(lo[2].has_arg, required_argument, "has_arg copied");
	is_int(lo[2].val, OPT_BUDGET, "val copied");
	is_int(lo[1].val, USAGE_AUTO + 1, "val 0: a code by the row");
	ok(lo[6].name == NULL && lo[6].val == 0, "zero entry at the end");
	errno = 0;
	is_int(usage_longopts(tab, lo, 6), -1, "no room for the zero entry");
	is_int(errno, ENOBUFS, "with ENOBUFS");

	is_int(capture(help, NULL, buf, sizeof buf), 0, "--help output");
	n = 0;
	for (char *p = buf; (p = strchr(p, '\n')) != NULL; p++)
		n++;
	is_int(n, 7, "--help: the usage line and one line per option");
	ok(strncmp(buf, "usage: tool [--dry-run] [DIR...]\n", 33) == 0,
	    "--help starts with the usage line");
	ok(strstr(buf, "\n  -n, --dry-run  ") != NULL, "a short option shown");
	ok(strstr(buf, "\n      --budget SECONDS  ") != NULL,
	    "a long-only option and its value shown");
	ok(strstr(buf, "time budget\n") != NULL, "with its help line");

	is_int(capture(version, NULL, buf, sizeof buf), 0, "--version output");
	is_str(buf, "tool 1.2-3-gabc\n", "--version: one line, name and version");

	is_int(capture(hint, NULL, buf, sizeof buf), 2, "die_usage_hint exits 2");
	is_str(buf, "tool: --budget x: not a number\ntry 'tool --help'\n",
	    "die_usage_hint: one line, then the hint");

	check_bad("unknown long option", "--frobnicate", NULL,
	    "unknown or ambiguous option: --frobnicate");
	check_bad("unknown, with a value", "--d", "--x=1",
	    "unknown or ambiguous option: --x");
	check_bad("unknown short option", "-x", NULL, "unknown option: -x");
	check_bad("a value to a long-only flag", "--json=1", NULL,
	    "--json takes no value");
	check_bad("a value to a flag", "--dry-run=yes", NULL,
	    "--dry-run takes no value");
	check_bad("no value, long", "--budget", NULL,
	    "--budget needs a value (SECONDS)");
	check_bad("no value, short", "-k", NULL, "--keep needs a value (FD)");
	check_bad("an escape sequence in an option", "DIR", "--bogus\033[2J",
	    "unknown or ambiguous option: --bogus\\x1b[2J");

	check_next("flags, values, an operand in place", a1, 0,
	    "operand x\nbudget 5\ndry 1 json 1 keep 3\n");
	check_next("a value given twice", a2, 2,
	    "tool: --keep b: given twice; it takes one value\n"
	    "try 'tool --help'\n");
	check_next("a switch's value given twice, before the switch", a3, 2,
	    "budget 1\ntool: --budget 2: given twice; it takes one value\n"
	    "try 'tool --help'\n");
	check_next("--version from its row", a4, 0, "tool unknown\n");
	check_next("a value to --version", a5, 2,
	    "tool: --version takes no value\ntry 'tool --help'\n");
	return done_testing();
}
