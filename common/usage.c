/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "err.h"
#include "esc.h"
#include "usage.h"

int
usage_val(const struct usage_opt *tab, size_t i)
{
	return tab[i].val != 0 ? tab[i].val : USAGE_AUTO + (int)i;
}

int
usage_longopts(const struct usage_opt *tab, struct option *out, size_t n)
{
	size_t i;

	for (i = 0; tab[i].name != NULL; i++) {
		if (i + 1 >= n)
			return errno = ENOBUFS, -1;
		out[i].name = tab[i].name;
		out[i].has_arg = tab[i].has_arg;
		out[i].flag = NULL;
		out[i].val = usage_val(tab, i);
	}
	if (i >= n)
		return errno = ENOBUFS, -1;
	memset(&out[i], 0, sizeof out[i]);
	return 0;
}

static int
is_short(int val)
{
	return (val >= 'a' && val <= 'z') || (val >= 'A' && val <= 'Z');
}

int
usage_optstring(const struct usage_opt *tab, const char *prefix, char *out,
    size_t size)
{
	size_t i, n;

	n = (size_t)snprintf(out, size, "%s:", prefix);
	for (i = 0; tab[i].name != NULL && n < size; i++)
		if (is_short(tab[i].val))
			n += (size_t)snprintf(out + n, size - n, "%c%s",
			    tab[i].val, tab[i].has_arg == required_argument ?
			    ":" : "");
	if (n >= size)
		return errno = ENOBUFS, -1;
	return 0;
}

void
usage_help(const char *usage, const struct usage_opt *tab)
{
	char left[64];
	size_t i;

	printf("usage: %s\n", usage);
	for (i = 0; tab[i].name != NULL; i++) {
		snprintf(left, sizeof left, "%s%c%s--%s%s%s",
		    is_short(tab[i].val) ? "-" : " ",
		    is_short(tab[i].val) ? tab[i].val : ' ',
		    is_short(tab[i].val) ? ", " : "  ", tab[i].name,
		    tab[i].arg != NULL ? " " : "",
		    tab[i].arg != NULL ? tab[i].arg : "");
		printf("  %-24s %s\n", left, tab[i].help);
	}
}

void
version_print(const char *version)
{
	printf("%s %s\n", prog_name(), version);
}

static _Noreturn void
vdie_usage_hint(int code, const char *fmt, va_list ap)
{
	char buf[2048];
	size_t n;
	ssize_t w;

	err_format(buf, sizeof buf, -1, fmt, ap);
	n = strlen(buf);
	snprintf(buf + n, sizeof buf - n, "try '%s --help'\n", prog_name());
	w = write(STDERR_FILENO, buf, strlen(buf));
	(void)w;
	exit(code);
}

void
die_usage_hint(int code, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vdie_usage_hint(code, fmt, ap);
}

void
usage_once(int *seen, int code, const char *name, const char *value)
{
	char e[ESC_SIZE(64)];

	if (!*seen) {
		*seen = 1;
		return;
	}
	esc_name(value, e, sizeof e);	/* cut with "..." past 64 bytes */
	die_usage_hint(code, "--%s %s: given twice; it takes one value", name,
	    e);
}

const struct usage_opt *
usage_row(const struct usage_opt *tab, int val)
{
	size_t i;

	for (i = 0; tab[i].name != NULL; i++)
		if (usage_val(tab, i) == val)
			return &tab[i];
	return NULL;
}

void
die_getopt(int code, const struct usage_opt *tab, int c, char *const argv[])
{
	const struct usage_opt *o = usage_row(tab, optopt);
	const char *arg = "";
	char e[ESC_SIZE(64)], a[64];
	int i;

	/* The word getopt_long stopped at.  musl leaves optind past the end
	 * of argv after a short option's missing value, so find the end
	 * rather than trust optind - 1 to be within argv. */
	for (i = 0; i < optind && argv[i] != NULL; i++)
		arg = argv[i];

	/* The word as typed, up to any "=VALUE", escaped: it may be
	 * anything, pasted from anywhere. */
	snprintf(a, sizeof a, "%.*s", (int)strcspn(arg, "="), arg);
	esc_name(a, e, sizeof e);
	if (c == ':' && o != NULL)
		die_usage_hint(code, "--%s needs a value (%s)", o->name,
		    o->arg != NULL ? o->arg : "VALUE");
	if (c == ':')
		die_usage_hint(code, "-%c needs a value", optopt);
	if (optopt != 0 && o != NULL && strncmp(arg, "--", 2) == 0 &&
	    strchr(arg, '=') != NULL)
		die_usage_hint(code, "--%s takes no value", o->name);
	if (optopt > ' ' && optopt < 0x7f)
		die_usage_hint(code, "unknown option: -%c", optopt);
	die_usage_hint(code, "unknown or ambiguous option: %s", e);
}

int
usage_getopt(struct usage_cli *u, int argc, char *argv[])
{
	/* A table that does not fit is a bug. */
	if (u->shorts[0] == '\0' && (usage_longopts(u->tab, u->longopts,
	    USAGE_MAX) == -1 || usage_optstring(u->tab, u->prefix, u->shorts,
	    sizeof u->shorts) == -1))
		abort();
	return getopt_long(argc, argv, u->shorts, u->longopts, NULL);
}

void
usage_std(const struct usage_cli *u, int c, char *const argv[])
{
	const struct usage_opt *o = usage_row(u->tab, c);

	if (o != NULL && o->kind == USAGE_HELP) {
		usage_help(u->usage, u->tab);
		exit(EXIT_OK);
	}
	if (o != NULL && o->kind == USAGE_VERSION) {
		version_print(u->version);
		exit(EXIT_OK);
	}
	if (c == ':' || c == '?')
		die_getopt(u->code, u->tab, c, argv);
}

int
usage_next(struct usage_cli *u, int argc, char *argv[])
{
	const struct usage_opt *o;
	const char **value;
	int c, seen;

	while ((c = usage_getopt(u, argc, argv)) != -1) {
		usage_std(u, c, argv);
		if ((o = usage_row(u->tab, c)) == NULL ||
		    o->kind == USAGE_OWN)
			return c;
		if (o->kind == USAGE_OWN_ONCE) {
			seen = u->seen[o - u->tab];
			usage_once(&seen, u->code, o->name, optarg);
			u->seen[o - u->tab] = 1;
			return c;
		}
		if (o->kind == USAGE_SET) {
			*(int *)(void *)((char *)u->opts + o->off) = 1;
			continue;
		}
		value = (const char **)(void *)((char *)u->opts + o->off);
		seen = *value != NULL;
		usage_once(&seen, u->code, o->name, optarg);
		*value = optarg;
	}
	return -1;
}
