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

enum { OPT_IMGCACHE = USAGE_LONG_ONLY, OPT_NO_IMGCACHE, OPT_VERSION,
	OPT_EXPLAIN, OPT_NO_DENIALS, OPT_CANARY, OPT_JSON, OPT_REGISTRY,
	OPT_TIMINGS };

/* Every option, its value and its one help line (--help prints them). */
static const struct usage_opt options[] = {
	{ "journal", required_argument, 'j', "FILE",
	    "append start and end records to the journal FILE" },
	{ "control", required_argument, 'c', "PATH",
	    "serve the run on a control socket at PATH" },
	{ "dry-run", no_argument, 'n', NULL,
	    "print the plan and each layer's verdict; run nothing" },
	{ "outlive-caller", no_argument, 'o', NULL,
	    "do not cancel the run when the parent dies" },
	{ "reap", no_argument, 'r', NULL,
	    "read no plan: reap the stale run cgroups" },
	{ "image-cache", required_argument, OPT_IMGCACHE, "DIR",
	    "keep sealed images in DIR" },
	{ "no-image-cache", no_argument, OPT_NO_IMGCACHE, NULL,
	    "copy the program into a sealed memfd at every launch" },
	{ "explain-denials", no_argument, OPT_EXPLAIN, NULL,
	    "name each path the rules denied, after the run (costs a "
	    "round-trip per path call)" },
	{ "no-denials", no_argument, OPT_NO_DENIALS, NULL,
	    "observe no path call: name no denied write or exec" },
	{ "canary", no_argument, OPT_CANARY, NULL,
	    "run the built-in probes under the plan's boundary instead of "
	    "its program; one line each" },
	{ "timings", no_argument, OPT_TIMINGS, NULL,
	    "after the run, say where the launch's time went, stage by "
	    "stage" },
	{ "json", no_argument, OPT_JSON, NULL,
	    "with --canary: one JSON object instead of the lines" },
	{ "registry", required_argument, OPT_REGISTRY, "FILE",
	    "run only programs whose SHA-256 FILE lists (sha256sum format)" },
	USAGE_STD_ROWS(OPT_VERSION),
};

struct opts {
	const char *journal, *control, *imgcache, *registry;
	int dry, outlive, reap_only, explain, no_denials, canary, json;
	int timings;
	int seen_j, seen_c, seen_cache, no_cache, seen_reg;
};

/* The option's flag, for those without a value; NULL for the others. */
static int *
flag_of(struct opts *o, int c)
{
	switch (c) {
	case 'n':
		return &o->dry;
	case 'o':
		return &o->outlive;
	case 'r':
		return &o->reap_only;
	case OPT_EXPLAIN:
		return &o->explain;
	case OPT_NO_DENIALS:
		return &o->no_denials;
	case OPT_CANARY:
		return &o->canary;
	case OPT_JSON:
		return &o->json;
	case OPT_TIMINGS:
		return &o->timings;
	default:
		return NULL;
	}
}

static void
parse(struct opts *o, int argc, char *argv[])
{
	struct option longopts[sizeof(options) / sizeof(options[0])];
	char shorts[16];
	int c, *flag;

	usage_getopt_init(options, longopts, sizeof(options) /
	    sizeof(options[0]), "+", shorts, sizeof(shorts));
	while ((c = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
		if ((flag = flag_of(o, c)) != NULL) {
			*flag = 1;
			continue;
		}
		switch (c) {
		case 'j':
			usage_once(&o->seen_j, EXIT_FAIL, "journal", optarg);
			o->journal = optarg;
			break;
		case 'c':
			usage_once(&o->seen_c, EXIT_FAIL, "control", optarg);
			o->control = optarg;
			break;
		case OPT_IMGCACHE:
			usage_once(&o->seen_cache, EXIT_FAIL, "image-cache",
			    optarg);
			o->imgcache = optarg;
			break;
		case OPT_NO_IMGCACHE:
			o->no_cache = 1;
			o->imgcache = NULL;
			break;
		case OPT_REGISTRY:
			usage_once(&o->seen_reg, EXIT_FAIL, "registry", optarg);
			o->registry = optarg;
			break;
		default:
			usage_std(c, USAGE, options, OPT_VERSION, EXIT_FAIL,
			    argv);
			abort();	/* every option of the table is handled */
		}
	}
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
	if (o->seen_cache && o->no_cache)
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
	struct opts o = {.imgcache = IMGCACHE_DIR};
	char e[ESC_SIZE(64)];

	parse(&o, argc, argv);
	if (optind != argc) {
		esc_name(argv[optind], e, sizeof(e));
		die_usage_hint(EXIT_FAIL, "unexpected operand: %s (the plan "
		    "comes on stdin)", e);
	}
	check(&o);
	r->journal = o.journal;
	r->imgcache = o.imgcache;
	r->control = o.dry ? NULL : o.control;
	r->timings = o.timings;
	r->outlive_caller = o.outlive;
	r->explain = o.explain;
	r->no_denials = o.no_denials;
	r->reap_only = o.reap_only;
	return o.dry;
}
