/* SPDX-License-Identifier: ISC */
/* planenc: encode a typed, bounded LaunchPlan on stdout; decode, check or
 * re-encode one read on stdin.  The options are options.c, profiles
 * profile.c, presets and the PATH lookup resolve.c (planenc.h). */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "err.h"
#include "io.h"
#include "plan.h"
#include "planenc.h"
#include "usage.h"

#define USAGE								\
	"planenc [--profile FILE] [--preset sys] [--tmp]\n"		\
	"\t[--ro PATH] [--rw PATH] [--rox PATH] [--rwx PATH]\n"	\
	"\t[--follow-symlinks PATH] [--unix] [--tcp]\n"		\
	"\t[--connect-tcp PORT] [--bind-tcp PORT] [--egress HOST:PORT]\n" \
	"\t[--env NAME] [--setenv NAME=VALUE] [--rlimit NAME=SOFT[:HARD]]\n" \
	"\t[--memory-max SIZE] [--pids-max N] [--cpu-max QUOTA[/PERIOD]]\n" \
	"\t[--timeout DURATION] [--uid UID] [--gid GID] [--sha256 HEX]\n" \
	"\t[--prompt-file FILE] [--ack-daemon NAME] [--keep-fd FD]\n"	\
	"\t[--argv0 NAME] [--strict | --degrade] -- PROGRAM [ARG...]\n"		\
	"       planenc --decode | --check | --reencode\n"			\
	"       planenc --help | --version"

/* Read the whole prompt file, refusing more than the bound. */
static void
read_prompt(const char *path, struct plan *p)
{
	int fd;

	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		die_sys(EXIT_USAGE, "--prompt-file %s", path);
	if (read_bounded(fd, PLAN_MAX_PROMPT, &p->prompt, &p->prompt_len) ==
	    -1) {
		if (errno == EFBIG)
			die(EXIT_USAGE, "--prompt-file %s: prompt longer than "
			    "%u bytes", path, PLAN_MAX_PROMPT);
		if (errno == ENOMEM)
			die_sys(EXIT_USAGE, "--prompt-file %s", path);
		die_sys(EXIT_USAGE, "--prompt-file %s: read", path);
	}
	close(fd);
	p->has_prompt = 1;
}

static void
emit_plan(const struct plan *p)
{
	unsigned char *out;
	size_t n;

	if (plan_encode(p, &out, &n) == -1)
		die_sys(EXIT_USAGE, "encoding the plan");
	if (write_all(STDOUT_FILENO, out, n) == -1)
		die_sys(EXIT_USAGE, "writing the plan to stdout");
	free(out);
}

/* Parse argv into *o; returns at the first operand (optind): the "+"
 * stops at PROGRAM, whose own options follow it. */
static void
parse(struct opts *o, int argc, char *argv[])
{
	struct usage_cli u = USAGE_CLI(planenc_opts, "+", USAGE, EXIT_USAGE,
	    NULL);
	int c;

	/* Not usage_next: a second value of a USAGE_ONCE option is refused
	 * by opt_apply (once), which names where the first came from. */
	while ((c = usage_getopt(&u, argc, argv)) != -1) {
		usage_std(&u, c, argv);
		o->building |= c >= O_FIRST_PLAN && c <= O_LAST_PLAN;
		switch (c) {
		case O_DECODE:
		case O_CHECK:
		case O_REENCODE:
			if (o->op != 0 && o->op != c)
				die_usage_hint(EXIT_USAGE, "--decode, --check "
				    "and --reencode exclude each other");
			o->op = c;
			break;
		case O_PROFILE:
			profile_load(o, optarg);
			break;
		default:
			opt_apply(o, c, optarg);
			break;
		}
	}
}

/* Validation: every combination, before any side effect. */
static void
check(const struct opts *o, int argc)
{
	if (o->op != 0 && (o->building || optind < argc))
		die_usage_hint(EXIT_USAGE, "--%s reads a plan on stdin and "
		    "takes no plan options nor program", o->op == O_DECODE ? "decode" :
		    o->op == O_CHECK ? "check" : "reencode");
	if (o->op == 0 && optind >= argc)
		die_usage_hint(EXIT_USAGE, "no PROGRAM (after --)");
	if ((o->op == 0 || o->op == O_REENCODE) && isatty(STDOUT_FILENO))
		die(EXIT_USAGE, "refusing to write a plan to a terminal "
		    "(redirect or pipe stdout)");
}

/* --decode, --check, --reencode: one plan read on stdin. */
static int
from_stdin(int op)
{
	struct plan p;
	char err[512];
	json_t *j;

	if (plan_read_fd(STDIN_FILENO, &p, err, sizeof(err)) == -1)
		die(EXIT_USAGE, "stdin: %s", err);
	switch (op) {
	case O_CHECK:
		break;
	case O_REENCODE:
		emit_plan(&p);
		break;
	case O_DECODE:
		if ((j = plan_to_json(&p)) == NULL)
			die_sys(EXIT_USAGE, "converting to JSON");
		if (json_dumpf(j, stdout, JSON_COMPACT) == -1 ||
		    putchar('\n') == EOF || fflush(stdout) == EOF)
			die_sys(EXIT_USAGE, "writing JSON to stdout");
		json_decref(j);
		break;
	default:
		abort();	/* check() let only these three through */
	}
	plan_free(&p);
	return EXIT_OK;
}

/* Resolve each --env NAME now, from the caller's environment. */
static void
resolve_env(struct opts *o)
{
	struct plan *p = &o->p;
	const char *n, *why, *v;
	size_t i;
	char *nv;

	for (i = 0; i < o->nenvnames; i++) {
		n = o->envnames[i];
		if ((why = plan_envname_why(n, strlen(n))) != NULL)
			die(EXIT_USAGE, "--env %s: %s", n, why);
		if ((v = getenv(n)) == NULL)
			die(EXIT_USAGE, "--env %s: not set in the caller's "
			    "environment (use --setenv NAME=VALUE)", n);
		if (asprintf(&nv, "%s=%s", n, v) == -1)
			die_sys(EXIT_USAGE, "out of memory");
		p->env = push(p->env, &p->nenv, sizeof(char *));
		p->env[p->nenv - 1] = nv;
		o->where = o->envfrom[i];
		origin_note(o, PLAN_AT_ENV);
	}
	o->where = NULL;
	free(o->envnames);
	free(o->envfrom);
	o->envnames = NULL;
	o->envfrom = NULL;
}

/* Beneath /dev a rw or rwx rule grants a single device node, never a
 * directory of them (a device directory is the host's: /dev/shm, /dev/mqueue
 * are shared with every process of the host).  0, or -1 with err and *at
 * the rule's index. */
static int
dev_dirs(const struct plan *p, size_t *at, char *err, size_t len)
{
	struct stat st;
	size_t i;

	err[0] = '\0';
	for (i = 0; i < p->nfs; i++) {
		const struct plan_fsrule *f = &p->fs[i];

		if ((f->intent != PLAN_RW && f->intent != PLAN_RWX) ||
		    !plan_path_within(f->path, "/dev") ||
		    strcmp(f->path, "/") == 0)
			continue;
		if (stat(f->path, &st) == 0 && (S_ISCHR(st.st_mode) ||
		    S_ISBLK(st.st_mode)))
			continue;
		*at = i;
		snprintf(err, len, "%s %s: beneath /dev only a single device "
		    "node may be granted write (a directory there is the "
		    "host's, shared with its other processes)",
		    plan_intent_name(f->intent), f->path);
		return -1;
	}
	return 0;
}

/* Check the whole plan; a refusal names the profile line (or preset) the
 * faulty entry came from. */
static void
validate(const struct opts *o)
{
	enum plan_at at;
	const char *w = NULL;
	char err[512];
	size_t i;

	at = PLAN_AT_NONE;
	if (plan_validate_at(&o->p, &at, &i, err, sizeof(err)) == 0) {
		if (dev_dirs(&o->p, &i, err, sizeof(err)) == 0)
			return;
		at = PLAN_AT_FS;
	}
	if (at != PLAN_AT_NONE && i < o->from[at].n)
		w = o->from[at].at[i];
	if (w != NULL)
		die(EXIT_USAGE, "%s: refusing the plan: %s", w, err);
	die(EXIT_USAGE, "refusing the plan: %s", err);
}

/* Build the plan from the options and PROGRAM [ARG...], check it, print
 * it. */
static int
build(struct opts *o, int argc, char *argv[])
{
	struct plan *p = &o->p;
	const char *prog = argv[optind];
	size_t i;

	p->argc = (size_t)(argc - optind);
	if ((p->argv = calloc(p->argc + 1, sizeof(char *))) == NULL)
		die_sys(EXIT_USAGE, "out of memory");
	for (i = 0; i < p->argc; i++)
		p->argv[i] = xstrdup(i == 0 && o->argv0 ? o->argv0 :
		    argv[optind + (int)i]);
	resolve_env(o);
	o->where = "--preset sys";
	preset_apply(o);
	o->where = NULL;
	/* A name without a slash is looked up now, in the plan's PATH (the
	 * preset's, when it set one): the plan records the absolute path
	 * confexec will seal. */
	p->program = strchr(prog, '/') != NULL ? xstrdup(prog) :
	    program_lookup(p, prog);
	script_apply(o);
	validate(o);
	if (o->prompt_file != NULL)
		read_prompt(o->prompt_file, p);
	emit_plan(p);
	plan_free(p);
	for (i = 0; i <= PLAN_AT_ARG; i++)
		free(o->from[i].at);
	return EXIT_OK;
}

int
main(int argc, char *argv[])
{
	struct opts o;

	prog_set("planenc");
	memset(&o, 0, sizeof(o));
	parse(&o, argc, argv);
	check(&o, argc);
	if (o.op != 0)
		return from_stdin(o.op);
	return build(&o, argc, argv);
}
