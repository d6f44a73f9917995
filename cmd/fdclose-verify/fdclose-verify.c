/* SPDX-License-Identifier: ISC */
/* fdclose-verify: close every fd not kept, verify, then exec. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "err.h"
#include "esc.h"
#include "fd.h"
#include "usage.h"

#define USAGE "fdclose-verify [-k|--keep FD[,FD...]] [--] program [arg...]"

/* Every option, its value and its one help line (--help prints them). */
static const struct usage_opt options[] = {
	USAGE_OPT("keep", 'k', "FD[,FD...]", "also keep these descriptors open (repeatable)"),
	USAGE_STD_ROWS,
};

/* A malformed --keep list: a usage error, 125 like every failure of a
 * chain-loader, naming what is wrong with it. */
static _Noreturn void
die_keep(const char *list)
{
	char e[ESC_SIZE(64)];
	int why = errno;

	esc_name(list, e, sizeof(e));	/* may set errno */
	if (why == E2BIG)
		die_usage_hint(EXIT_FAIL, "invalid keep list: %s: more than "
		    "%d descriptors, counting 0, 1 and 2", e, FDSET_MAX);
	if (why == ERANGE)
		die_usage_hint(EXIT_FAIL, "invalid keep list: %s: a "
		    "descriptor out of range", e);
	die_usage_hint(EXIT_FAIL, "invalid keep list: %s: not decimal "
	    "descriptors, comma-separated, each once", e);
}

/* Options end at the first operand (the leading '+'): from the program
 * on, every word is the program's, options or not.  A first word that
 * looks like an option is taken as one; a program whose name starts with
 * '-' follows "--". */
static void
parse(struct fdset *keep, int argc, char *argv[])
{
	struct usage_cli u = USAGE_CLI(options, "+", USAGE, EXIT_FAIL, NULL);

	/* --keep, the one option of the table not usage_next's */
	while (usage_next(&u, argc, argv) != -1)
		if (fdset_parse(keep, optarg) == -1)
			die_keep(optarg);
	/* validation: a program is required; nothing has been touched yet */
	if (optind >= argc)
		die_usage_hint(EXIT_FAIL, "no program to execute");
}

int
main(int argc, char *argv[])
{
	struct fdset keep = FDSET_STDIO;
	struct fd_leak leak;
	int r;

	prog_set("fdclose-verify");
	parse(&keep, argc, argv);

	if (fd_close_except(&keep) == -1)
		die_sys(EXIT_FAIL, "unable to close descriptors");
	/* Trust the kernel's view, not the return value of close_range. */
	r = fd_verify(&keep, &leak);
	if (r == -1 && errno == EXDEV)
		die(EXIT_FAIL, "unable to verify descriptors: /proc/self/fd: "
		    "not on procfs (refusing to exec)");
	if (r == -1)
		die_sys(EXIT_FAIL, "unable to verify descriptors: "
		    "/proc/self/fd");
	if (r == 1 && leak.count > 1)
		die(EXIT_FAIL, "fd %d still open after close: %s (and %d more "
		    "fds) (refusing to exec)", leak.fd, leak.target,
		    leak.count - 1);
	if (r == 1)
		die(EXIT_FAIL, "fd %d still open after close: %s "
		    "(refusing to exec)", leak.fd, leak.target);

	execvp(argv[optind], argv + optind);
	die_sys(errno == ENOENT || errno == ENOTDIR ? EXIT_NOTFOUND :
	    EXIT_NOEXEC, "unable to execute: %s", argv[optind]);
}
