/* SPDX-License-Identifier: ISC */
/* suidstrip: strip setuid/setgid bits and file capabilities from sandbox
 * bind-mount directories, host-side, without ever following a symlink.
 * main: options, one validation block, then the steps in order (guards,
 * targets, ownership restore, strip, summaries).  See suidstrip.h. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "err.h"
#include "scan.h"
#include "suidstrip.h"

#define USAGE "suidstrip [--dry-run | --check] [--json] [--chown UID:GID] " \
	"[--budget SECONDS] [--jobs N] [--within ROOT]... [--guard ROOT]... " \
	"[--inspect FILE|-] [DIR...]"

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

static const struct option longopts[] = {
	{ "budget", required_argument, NULL, 'b' },	/* seconds per step */
	{ "check", no_argument, NULL, 'c' },		/* audit, change nothing */
	{ "chown", required_argument, NULL, 'o' },	/* restore owner first */
	{ "dry-run", no_argument, NULL, 'n' },		/* list, change nothing */
	{ "guard", required_argument, NULL, 'g' },	/* nosuid,nodev bind */
	{ "help", no_argument, NULL, 'h' },
	{ "inspect", required_argument, NULL, 'i' },	/* docker inspect JSON */
	{ "jobs", required_argument, NULL, 'j' },	/* walker threads */
	{ "json", no_argument, NULL, 'J' },		/* one record a line */
	{ "within", required_argument, NULL, 'w' },	/* allowed root */
	{ NULL, 0, NULL, 0 },
};

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
		deadline = now_ns() + opt.budget * 1000000000u;
		for (i = 0; i < n; i++)
			if (tg[i].fd != -1)
				step_run(&tg[i], STEP_RESTORE, deadline);
	}
	deadline = now_ns() + opt.budget * 1000000000u;
	for (i = 0; i < n; i++)
		if (tg[i].fd != -1)
			step_run(&tg[i], STEP_STRIP, deadline);
}

int
main(int argc, char *argv[])
{
	struct roots within = { .n = 0 }, guard = { .n = 0 };
	struct inspect_sources src = { 0 };
	const char *inspect = NULL;
	struct target *tg;
	size_t ntg;
	int c, dry = 0, check = 0, rc;
	uint64_t v;
	long np;

	prog_set("suidstrip");
	opt.budget = 10;
	/* Two workers a CPU, 2 to 4: the walk is system-call bound, and with
	 * a cold cache a spare worker keeps the disk busy. */
	np = sysconf(_SC_NPROCESSORS_ONLN);
	opt.jobs = np < 1 ? 2 : np >= 2 ? 4 : 2;
	while ((c = getopt_long(argc, argv, "+hn", longopts, NULL)) != -1) {
		switch (c) {
		case 'b':
			if (scan_u64(optarg, 1, 86400, &opt.budget) == -1)
				die(EXIT_USAGE, "--budget %s: not 1 to 86400 seconds",
				    optarg);
			break;
		case 'c': check = 1; break;
		case 'o':
			if (parse_owner(optarg, &opt.uid, &opt.gid) == -1)
				die(EXIT_USAGE, "--chown %s: not UID:GID (numeric, "
				    "UID not 0)", optarg);
			opt.chown = 1;
			break;
		case 'n': dry = 1; break;
		case 'g': roots_add(&guard, optarg, "--guard"); break;
		case 'h': printf("usage: %s\n", USAGE); return EXIT_OK;
		case 'i':
			if (inspect != NULL)
				die(EXIT_USAGE, "--inspect given twice");
			inspect = optarg;
			break;
		case 'j':
			if (scan_u64(optarg, 1, 16, &v) == -1)
				die(EXIT_USAGE, "--jobs %s: not 1 to 16", optarg);
			opt.jobs = (int)v;
			break;
		case 'J': opt.json = 1; break;
		case 'w': roots_add(&within, optarg, "--within"); break;
		default: die_usage(USAGE);
		}
	}
	/* One validation block, before any side effect. */
	if (dry && check)
		die(EXIT_USAGE, "--dry-run and --check exclude each other");
	if (check && opt.chown)
		die(EXIT_USAGE, "--check changes nothing: --chown makes no sense");
	/* Without a root, docker inspect JSON (which the container's owner
	 * partly controls) could name any host directory: fail closed. */
	if (inspect != NULL && within.n == 0)
		die(EXIT_USAGE, "--inspect needs at least one --within ROOT");
	if (optind == argc && inspect == NULL && guard.n == 0)
		die_usage(USAGE);
	opt.mode = check ? MODE_CHECK : dry ? MODE_DRYRUN : MODE_STRIP;
	opt.tty = isatty(2);

	prepare();
	if (inspect != NULL)
		inspect_read(inspect, &src);
	/* --guard first: from then on new setuid files are inert there. */
	rc = guards_run(&guard);
	tg = targets_open(argv + optind, (size_t)(argc - optind), &src,
	    &within, &ntg);
	inspect_free(&src);
	steps_run(tg, ntg);
	if (summaries(tg, ntg) != EXIT_OK)
		rc = EXIT_NO;
	targets_free(tg, ntg);
	roots_free(&within);
	roots_free(&guard);
	if (fflush(stdout) == EOF || ferror(stdout))
		die_sys(EXIT_NO, "unable to write the report");
	return rc;
}
