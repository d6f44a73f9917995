/* SPDX-License-Identifier: ISC */
/* options: confexec's command line (confexec(1), OPTIONS) into the run:
 * every option, its one help line, and the options that exclude each
 * other.  Everything else comes from the plan. */
#include <getopt.h>
#include <stdlib.h>

#include "admit.h"
#include "canary.h"
#include "err.h"
#include "esc.h"
#include "imgcache.h"
#include "options.h"
#include "run.h"
#include "usage.h"

static const char USAGE[] = "confexec [--journal FILE] [--control PATH] "
			    "[--dry-run] [--outlive-caller]\n"
			    "\t[--image-cache DIR | --no-image-cache] "
			    "[--explain-denials | --no-denials]\n"
			    "\t[--registry FILE] [--timings] < PLAN\n"
			    "       confexec [--journal FILE] [--registry FILE] "
			    "--canary [--json] < PLAN\n"
			    "       confexec [--journal FILE] --reap\n"
			    "       confexec --help | --version";

/* What the options say, before it is checked. */
struct opts {
	const char *journal, *control, *imgcache, *registry;
	int dry, outlive, reap_only, explain, no_denials, canary, json;
	int timings, no_cache;
};

/* Every option, what it sets and its one help line (--help prints them). */
/* clang-format off */
static const struct usage_opt options[] = {
	USAGE_STR("journal", 'j', "FILE", struct opts, journal, "append start and end records to the journal FILE"),
	USAGE_STR("control", 'c', "PATH", struct opts, control, "serve the run on a control socket at PATH"),
	USAGE_FLAG("dry-run", 'n', struct opts, dry, "print the plan and each layer's verdict; run nothing"),
	USAGE_FLAG("outlive-caller", 'o', struct opts, outlive, "do not cancel the run when the parent dies"),
	USAGE_FLAG("reap", 'r', struct opts, reap_only, "read no plan: reap the stale run cgroups"),
	USAGE_STR("image-cache", 0, "DIR", struct opts, imgcache, "keep sealed images in DIR"),
	USAGE_FLAG("no-image-cache", 0, struct opts, no_cache, "copy the program into a sealed memfd at every launch"),
	USAGE_FLAG("explain-denials", 0, struct opts, explain, "name each path the rules denied, after the run (costs a round-trip per path call)"),
	USAGE_FLAG("no-denials", 0, struct opts, no_denials, "observe no path call: name no denied write or exec"),
	USAGE_FLAG("canary", 0, struct opts, canary, "run the built-in probes under the plan's boundary instead of its program; one line each"),
	USAGE_FLAG("timings", 0, struct opts, timings, "after the run, say where the launch's time went, stage by stage"),
	USAGE_FLAG("json", 0, struct opts, json, "with --canary: one JSON object instead of the lines"),
	USAGE_STR("registry", 0, "FILE", struct opts, registry, "run only programs whose SHA-256 FILE lists (sha256sum format)"),
	USAGE_STD_ROWS,
};
/* clang-format on */

static void
parse(struct opts *o, int argc, char *argv[])
{
	struct usage_cli u = USAGE_CLI(options, "+", USAGE, EXIT_FAIL, o);

	if (usage_next(&u, argc, argv) != -1)
		abort();	/* every option of the table is usage_next's */
}

/* The options that exclude each other, or a value that cannot be. */
static void
check(const struct opts *o)
{
	if (o->journal != NULL && o->journal[0] == '\0')
		die(EXIT_FAIL, "--journal: empty path");
	if (o->control != NULL && o->control[0] == '\0')
		die(EXIT_FAIL, "--control: empty path");
	if (o->reap_only && (o->dry || o->outlive || o->control != NULL ||
	    o->explain || o->registry != NULL))
		die_usage_hint(EXIT_FAIL, "--reap excludes --dry-run, "
		    "--outlive-caller, --control, --explain-denials and "
		    "--registry");
	if (o->explain && o->no_denials)
		die_usage_hint(EXIT_FAIL, "--explain-denials and --no-denials "
		    "exclude each other");
	if (o->registry != NULL && o->dry)
		die_usage_hint(EXIT_FAIL, "--registry excludes --dry-run (a "
		    "dry run seals no program)");
	if (o->registry != NULL && o->registry[0] == '\0')
		die(EXIT_FAIL, "--registry: empty path");
	admit_want(o->registry);
	if (o->imgcache != NULL && o->no_cache)
		die_usage_hint(EXIT_FAIL, "--image-cache and --no-image-cache "
		    "exclude each other");
	if (o->json && !o->canary)
		die_usage_hint(EXIT_FAIL, "--json goes with --canary");
	if (o->canary && (o->dry || o->reap_only))
		die_usage_hint(EXIT_FAIL, "--canary excludes --dry-run and "
		    "--reap");
	if (o->canary)
		canary_want(o->json);
	if (o->imgcache != NULL && o->imgcache[0] != '/')
		die(EXIT_FAIL, "--image-cache: not an absolute path");
}

int
options_read(struct run *r, int argc, char *argv[])
{
	struct opts o = { 0 };
	char e[ESC_SIZE(64)];

	parse(&o, argc, argv);
	if (optind != argc) {
		esc_name(argv[optind], e, sizeof(e));
		die_usage_hint(EXIT_FAIL, "unexpected operand: %s (the plan "
		    "comes on stdin)", e);
	}
	check(&o);
	r->journal = o.journal;
	r->imgcache = o.no_cache ? NULL : o.imgcache != NULL ? o.imgcache :
	    IMGCACHE_DIR;
	r->control = o.dry ? NULL : o.control;
	r->timings = o.timings;
	r->outlive_caller = o.outlive;
	r->explain = o.explain;
	r->no_denials = o.no_denials;
	r->reap_only = o.reap_only;
	return o.dry;
}
