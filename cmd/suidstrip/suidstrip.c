/* SPDX-License-Identifier: ISC */
/* suidstrip: strip setuid/setgid bits and file capabilities from sandbox
 * bind-mount directories, host-side, without ever following a symlink.
 * main: options, one validation block, then the steps in order (guards,
 * targets, ownership restore, strip, summaries).  See suidstrip.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "clock.h"
#include "err.h"
#include "scan.h"
#include "suidstrip.h"
#include "usage.h"

#define USAGE "suidstrip [--dry-run | --check] [--json] [--chown UID:GID] " \
	"[--budget SECONDS] [--jobs N] [--within ROOT]... [--guard ROOT]... " \
	"[--inspect FILE|-] [--missing-ok] [--] [DIR...]"

struct options opt;

static int
parse_owner(const char *s, uid_t *uid, gid_t *gid)
{
	const char *colon = strchr(s, ':');
	char u[16];
	uint64_t a, b;

	if (colon == NULL || (size_t)(colon - s) >= sizeof u)
		return -1;
	memcpy(u, s, (size_t)(colon - s));
	u[colon - s] = '\0';
	/* 0 would be no restore at all; -1 (4294967295) means "unchanged". */
	if (scan_u64(u, 1, 4294967294u, &a) == -1 ||
	    scan_u64(colon + 1, 0, 4294967294u, &b) == -1)
		return -1;
	*uid = (uid_t)a;
	*gid = (gid_t)b;
	return 0;
}

/* What the command line asked for, before it is checked. */
struct cmdline {
	struct roots within, guard;
	const char *inspect;
	char **operands;	/* targets, in the order given */
	size_t nops;
	int dry, check, json, missing_ok;
};

/* The options with a value that parse_option reads. */
enum { OPT_CHOWN = USAGE_LONG_ONLY, OPT_BUDGET, OPT_JOBS, OPT_WITHIN,
	OPT_GUARD };

/* Every option, what it does and its one help line (--help prints them). */
/* clang-format off */
static const struct usage_opt options[] = {
	USAGE_FLAG("dry-run", 'n', struct cmdline, dry, "change nothing; list what would change"),
	USAGE_FLAG("check", 0, struct cmdline, check, "audit: change nothing; exit 1 if anything is privileged"),
	USAGE_FLAG("json", 0, struct cmdline, json, "one JSON record a line on stdout instead of text"),
	USAGE_ONCE("chown", OPT_CHOWN, "UID:GID", "first give root-owned entries to UID:GID (numeric, UID not 0)"),
	USAGE_ONCE("budget", OPT_BUDGET, "SECONDS", "time budget of each step, 1 to 86400 (default 10)"),
	USAGE_ONCE("jobs", OPT_JOBS, "N", "walker threads, 1 to 16 (default 4; 2 on one CPU)"),
	USAGE_OPT("within", OPT_WITHIN, "ROOT", "only targets at or below ROOT (repeatable; needed by --inspect)"),
	USAGE_OPT("guard", OPT_GUARD, "ROOT", "bind ROOT on itself nosuid,nodev first (repeatable)"),
	USAGE_STR("inspect", 0, "FILE", struct cmdline, inspect, "targets from docker inspect JSON in FILE (-: stdin)"),
	USAGE_FLAG("missing-ok", 0, struct cmdline, missing_ok, "a missing target is skipped with a note, not a failure"),
	USAGE_STD_ROWS,
};
/* clang-format on */

/* The steps need many fds (one per directory being read) and the walk. */
static void
prepare(void)
{
	struct rlimit rl;

	if (walk_probe() == -1)
		die_sys(EXIT_NO, "unable to walk safely: openat2");
	/* A wide tree keeps one fd per directory being read. */
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
		rl.rlim_cur = rl.rlim_max;
		setrlimit(RLIMIT_NOFILE, &rl);
	}
}

/* Step 1, ownership restore, then step 2, strip: each its own budget. */
static void
steps_run(struct target *tg, size_t n)
{
	uint64_t deadline;
	size_t i;

	if (opt.chown) {
		deadline = now_ns(CLOCK_MONOTONIC) + opt.budget * 1000000000u;
		for (i = 0; i < n; i++)
			if (tg[i].fd != -1)
				step_run(&tg[i], STEP_RESTORE, deadline);
	}
	deadline = now_ns(CLOCK_MONOTONIC) + opt.budget * 1000000000u;
	for (i = 0; i < n; i++)
		if (tg[i].fd != -1)
			step_run(&tg[i], STEP_STRIP, deadline);
}

static void
parse_option(struct cmdline *cl, int c)
{
	uint64_t v;

	switch (c) {
	case OPT_BUDGET:
		if (scan_u64(optarg, 1, 86400, &opt.budget) == -1)
			die_usage_hint(EXIT_USAGE, "--budget %s: not 1 to 86400 "
			    "seconds", optarg);
		break;
	case OPT_CHOWN:
		if (parse_owner(optarg, &opt.uid, &opt.gid) == -1)
			die_usage_hint(EXIT_USAGE, "--chown %s: not UID:GID "
			    "(numeric, UID not 0)", optarg);
		opt.chown = 1;
		break;
	case OPT_GUARD: roots_add(&cl->guard, optarg, "--guard"); break;
	case OPT_JOBS:
		if (scan_u64(optarg, 1, 16, &v) == -1)
			die_usage_hint(EXIT_USAGE, "--jobs %s: not 1 to 16", optarg);
		opt.jobs = (int)v;
		break;
	case OPT_WITHIN: roots_add(&cl->within, optarg, "--within"); break;
	default: abort();	/* every option of the table is handled */
	}
}

/* Options anywhere (GNU style): the leading '-' makes getopt_long hand
 * over each operand in place (c == 1), whatever POSIXLY_CORRECT says, so
 * that "DIR --dry-run" is a dry run, never a second target; after "--"
 * everything is an operand. */
static void
parse(struct cmdline *cl, int argc, char *argv[])
{
	struct usage_cli u = USAGE_CLI(options, "-", USAGE, EXIT_USAGE, cl);
	int c;

	if ((cl->operands = calloc((size_t)argc + 1, sizeof *cl->operands)) ==
	    NULL)
		die_sys(EXIT_NO, "unable to allocate");
	for (;;) {
		while ((c = usage_next(&u, argc, argv)) != -1) {
			if (c == 1)
				cl->operands[cl->nops++] = optarg;
			else
				parse_option(cl, c);
		}
		/* musl's getopt stops at a lone "-" (glibc hands it over as
		 * an operand): take it and go on, unless it follows "--". */
		if (optind < argc && strcmp(argv[optind], "-") == 0 &&
		    strcmp(argv[optind - 1], "--") != 0) {
			cl->operands[cl->nops++] = argv[optind++];
			continue;
		}
		break;
	}
	while (optind < argc)
		cl->operands[cl->nops++] = argv[optind++];
}

/* One validation block, before any side effect. */
static void
validate(const struct cmdline *cl)
{
	if (cl->dry && cl->check)
		die_usage_hint(EXIT_USAGE, "--dry-run and --check exclude each "
		    "other");
	if (cl->check && opt.chown)
		die_usage_hint(EXIT_USAGE, "--check changes nothing: --chown "
		    "makes no sense");
	/* Without a root, docker inspect JSON (which the container's owner
	 * partly controls) could name any host directory: fail closed. */
	if (cl->inspect != NULL && cl->within.n == 0)
		die_usage_hint(EXIT_USAGE, "--inspect needs at least one "
		    "--within ROOT");
	if (cl->nops == 0 && cl->inspect == NULL && cl->guard.n == 0)
		die_usage_hint(EXIT_USAGE, "nothing to do: no DIR, --inspect "
		    "or --guard");
}

int
main(int argc, char *argv[])
{
	struct cmdline cl = { .inspect = NULL };
	struct inspect_sources src = { 0 };
	struct target *tg;
	size_t ntg;
	int rc;
	long np;

	prog_set("suidstrip");
	opt.budget = 10;
	/* Two workers a CPU, 2 to 4: the walk is system-call bound, and with
	 * a cold cache a spare worker keeps the disk busy. */
	np = sysconf(_SC_NPROCESSORS_ONLN);
	opt.jobs = np < 1 ? 2 : np >= 2 ? 4 : 2;
	parse(&cl, argc, argv);
	validate(&cl);
	opt.json = cl.json;
	opt.missing_ok = cl.missing_ok;
	opt.mode = cl.check ? MODE_CHECK : cl.dry ? MODE_DRYRUN : MODE_STRIP;
	opt.tty = isatty(2);

	prepare();
	if (cl.inspect != NULL)
		inspect_read(cl.inspect, &src);
	/* --guard first: from then on new setuid files are inert there. */
	rc = guards_run(&cl.guard);
	tg = targets_open(cl.operands, cl.nops, &src, &cl.within, &ntg);
	inspect_free(&src);
	steps_run(tg, ntg);
	if (summaries(tg, ntg) != EXIT_OK)
		rc = EXIT_NO;
	targets_free(tg, ntg);
	roots_free(&cl.within);
	roots_free(&cl.guard);
	free(cl.operands);
	if (fflush(stdout) == EOF || ferror(stdout))
		die_sys(EXIT_NO, "unable to write the report");
	return rc;
}
