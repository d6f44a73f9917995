/* SPDX-License-Identifier: ISC */
/* usage: the command line every tool shares: one option table with one
 * help line per option (it feeds getopt_long and --help), --version, and
 * usage errors: one line saying what was wrong, then one hint line
 * "try 'PROG --help'", never the whole usage. */
#ifndef BORNE_USAGE_H
#define BORNE_USAGE_H

#include <getopt.h>
#include <stddef.h>

/* The version, embedded at build from the repository (git describe) by
 * the Makefile for cmd/ objects only; "unknown" elsewhere. */
#ifndef BORNE_VERSION
#define BORNE_VERSION "unknown"
#endif

#define USAGE_LONG_ONLY 256

struct usage_opt {
	const char *name;	/* long name, without "--"; NULL ends the table */
	int has_arg;		/* no_argument or required_argument */
	int val;		/* getopt_long's return: an ASCII letter is
				 * also the short option (-n); long-only
				 * options use values from USAGE_LONG_ONLY */
	const char *arg;	/* the value's name in --help, or NULL */
	const char *help;	/* one line */
};

/* The rows that end every tool's table: --help, --version (its getopt
 * value version_opt), and the end. */
#define USAGE_STD_ROWS(version_opt) \
	{ "help", no_argument, 'h', NULL, "print this help and exit" }, \
	{ "version", no_argument, (version_opt), NULL, \
	    "print the version and exit" }, \
	{ NULL, 0, 0, NULL, NULL }

/* Fill out (room for n entries) with tab's options and the terminating
 * zero entry.  Returns 0, or -1 (ENOBUFS) when out is too small. */
int usage_longopts(const struct usage_opt *tab, struct option *out,
    size_t n);

/* Write prefix ("+", "-" or "", then ':' so that getopt_long reports a
 * missing value as ':') and the short options of tab into out.  Returns 0,
 * or -1 (ENOBUFS) when out is too small. */
int usage_optstring(const struct usage_opt *tab, const char *prefix,
    char *out, size_t size);

/* --help: "usage: USAGE" then one line per option of tab, on stdout. */
void usage_help(const char *usage, const struct usage_opt *tab);

/* --version: "PROG VERSION" on stdout. */
void version_print(const char *version);
#define print_version() version_print(BORNE_VERSION)

/* "prog: <fmt>" then "try 'prog --help'", in one write(2) on stderr, then
 * exit(code). */
_Noreturn void die_usage_hint(int code, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The usage error for what getopt_long returned as c, ':' (a missing
 * value; the option string must start with ':' after any '+' or '-') or
 * '?' (unknown, ambiguous, or a value given to a flag); argv as given to
 * getopt_long.  Calls die_usage_hint(code, ...). */
_Noreturn void die_getopt(int code, const struct usage_opt *tab, int c,
    char *const argv[]);

/* A single-value option (long name, without "--") seen: the first time
 * *seen is set; a second time is the usage error naming the option and
 * its second value ("--journal b: given twice; it takes one value"):
 * a later value never silently wins over an earlier one. */
void usage_once(int *seen, int code, const char *name, const char *value);

/* usage_longopts and usage_optstring at once (a table that does not
 * fit its arrays is a bug: abort). */
void usage_getopt_init(const struct usage_opt *tab, struct option *longopts,
    size_t n, const char *prefix, char *shorts, size_t size);

/* The options every tool's getopt loop has, for its default case: 'h'
 * (--help: usage_help, exit 0), version_opt (--version: version_print,
 * exit 0), ':' and '?' (die_getopt with code); any other c returns.
 * usage_other: the same with the version given. */
void usage_other(int c, const char *usage, const struct usage_opt *tab,
    int version_opt, const char *version, int code, char *const argv[]);
#define usage_std(c, usage, tab, version_opt, code, argv) \
	usage_other(c, usage, tab, version_opt, BORNE_VERSION, code, argv)

#endif
