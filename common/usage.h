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

/* What an option does.  usage_next does the common kinds itself; the
 * tool's own switch sees only USAGE_OWN and USAGE_OWN_ONCE options. */
enum usage_kind {
	USAGE_OWN,	/* the tool's switch handles it (getopt value: val) */
	USAGE_OWN_ONCE,	/* the same, a value given once: usage_next refuses
			 * a second as USAGE_ONE does, before the switch */
	USAGE_SET,	/* no value: the int field at off becomes 1 */
	USAGE_ONE,	/* one value, once: the const char * field at off,
			 * NULL until given; given twice is a usage error
			 * ("--x b: given twice; it takes one value") */
	USAGE_HELP,	/* --help: usage_help, exit 0 */
	USAGE_VERSION,	/* --version: version_print, exit 0 */
};

struct usage_opt {
	const char *name;	/* long name, without "--"; NULL ends the table */
	int has_arg;		/* no_argument or required_argument */
	int val;		/* getopt_long's return: an ASCII letter is
				 * also the short option (-n); long-only
				 * options use values from USAGE_LONG_ONLY, or
				 * 0 for one the tool's switch never sees
				 * (usage_val gives it one by its row) */
	const char *arg;	/* the value's name in --help, or NULL */
	const char *help;	/* one line */
	enum usage_kind kind;
	size_t off;		/* USAGE_SET, USAGE_ONE: the field's offset in
				 * the struct given to usage_next */
	int tag;		/* USAGE_OWN: a value of the tool's that the
				 * option stands for (planenc: a path rule's
				 * intent), read with usage_row */
};

/* The getopt value of tab[i]: its val, or USAGE_AUTO + i. */
#define USAGE_AUTO 0x10000
int usage_val(const struct usage_opt *tab, size_t i);
/* The row of tab whose getopt value is val, or NULL. */
const struct usage_opt *usage_row(const struct usage_opt *tab, int val);

/* Rows, one per line: what the option is and does, and its help line.
 * key: the short letter, or 0 (long only).  The field's type is checked
 * (an int for a flag, a const char * for a value). */
#define USAGE_FIELD_(type, field, want) \
	(offsetof(type, field) + 0 * sizeof(*(want *)0 = ((type *)0)->field))
/* A flag that sets an int field of type to 1. */
#define USAGE_FLAG(name, key, type, field, help) \
	{ name, no_argument, key, NULL, help, USAGE_SET, \
	    USAGE_FIELD_(type, field, int), 0 }
/* A value given once, kept in a const char * field of type. */
#define USAGE_STR(name, key, arg, type, field, help) \
	{ name, required_argument, key, arg, help, USAGE_ONE, \
	    USAGE_FIELD_(type, field, const char *), 0 }
/* An option with a value (arg) for the tool's switch, as code; it may
 * be given again. */
#define USAGE_OPT(name, code, arg, help) \
	{ name, required_argument, code, arg, help, USAGE_OWN, 0, 0 }
/* The same, given once. */
#define USAGE_ONCE(name, code, arg, help) \
	{ name, required_argument, code, arg, help, USAGE_OWN_ONCE, 0, 0 }
/* The same, standing for tag (a value of the tool's). */
#define USAGE_TAG(name, code, arg, tag, help) \
	{ name, required_argument, code, arg, help, USAGE_OWN, 0, tag }
/* A flag for the tool's switch, as code. */
#define USAGE_SW(name, code, help) \
	{ name, no_argument, code, NULL, help, USAGE_OWN, 0, 0 }

/* The rows that end every tool's table: --help, --version, the end. */
#define USAGE_STD_ROWS \
	{ "help", no_argument, 'h', NULL, "print this help and exit", \
	    USAGE_HELP, 0, 0 }, \
	{ "version", no_argument, 0, NULL, "print the version and exit", \
	    USAGE_VERSION, 0, 0 }, \
	{ NULL, 0, 0, NULL, NULL, USAGE_OWN, 0, 0 }

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

/* A tool's command line, read with its table: usage_next does the
 * common kinds and the common errors, the tool's switch the rest. */
#define USAGE_MAX 48	/* rows of a table, its end included */
struct usage_cli {
	const struct usage_opt *tab;
	const char *prefix;	/* getopt's: "+", "-" or "" */
	const char *usage;	/* --help's usage line(s) */
	const char *version;	/* --version's */
	int code;		/* the exit status of a usage error */
	void *opts;		/* the struct the rows' fields are in */
	struct option longopts[USAGE_MAX];
	char shorts[2 * USAGE_MAX + 4];
	unsigned char seen[USAGE_MAX];	/* USAGE_OWN_ONCE rows, by row */
};
#define USAGE_CLI(tab, prefix, usage, code, opts) \
	{ (tab), (prefix), (usage), BORNE_VERSION, (code), (opts), { { 0 } }, \
	    "", { 0 } }

/* getopt_long over u's table (built on the first call; a table larger
 * than USAGE_MAX is a bug: abort): its return, as it is. */
int usage_getopt(struct usage_cli *u, int argc, char *argv[]);

/* What every tool does with getopt_long's c first: --help (usage_help,
 * exit 0), --version (version_print, exit 0), ':' and '?' (die_getopt
 * with u->code); any other c returns. */
void usage_std(const struct usage_cli *u, int c, char *const argv[]);

/* The next option the tool's switch handles (its val; a USAGE_OWN_ONCE
 * one given twice is the usage error), 1 for an operand in place (prefix
 * "-"), or -1 at the end (optind at the first operand left); usage_std
 * and the USAGE_SET and USAGE_ONE rows on the way. */
int usage_next(struct usage_cli *u, int argc, char *argv[]);

#endif
