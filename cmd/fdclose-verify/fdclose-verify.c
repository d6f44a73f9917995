/* SPDX-License-Identifier: ISC */
/* fdclose-verify: close every fd not kept, verify, then exec. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <unistd.h>

#include "err.h"
#include "fd.h"

#define USAGE "fdclose-verify [-k|--keep FD[,FD...]] [--] program [arg...]"

static const struct option longopts[] = {
	{ "keep", required_argument, NULL, 'k' },	/* keep these fds open */
	{ "help", no_argument, NULL, 'h' },		/* print usage, exit 0 */
	{ NULL, 0, NULL, 0 },
};

int
main(int argc, char *argv[])
{
	struct fdset keep = FDSET_STDIO;
	struct fd_leak leak;
	int c, r;

	prog_set("fdclose-verify");
	usage_code_set(EXIT_FAIL);
	while ((c = getopt_long(argc, argv, "+hk:", longopts, NULL)) != -1) {
		switch (c) {
		case 'k':
			if (fdset_parse(&keep, optarg) == -1)
				die_sys(EXIT_FAIL, "invalid keep list: %s",
				    optarg);
			break;
		case 'h':
			puts("usage: " USAGE);
			return EXIT_OK;
		default:
			die_usage(USAGE);
		}
	}
	/* validation: a program is required; nothing has been touched yet */
	if (optind >= argc)
		die_usage(USAGE);

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
