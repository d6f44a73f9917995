/* SPDX-License-Identifier: ISC */
/* tap.h: minimal TAP output for the C unit tests of common/. */
#ifndef BORNE_TAP_H
#define BORNE_TAP_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tap_n, tap_fail;

#define ok(cond, ...) do {						\
	tap_n++;							\
	if (cond) { printf("ok %d - ", tap_n); }			\
	else { tap_fail++; printf("not ok %d - ", tap_n); }		\
	printf(__VA_ARGS__); printf("\n");				\
	if (!(cond)) printf("#   failed at %s:%d: %s\n",		\
	    __FILE__, __LINE__, #cond);					\
} while (0)

#define is_int(got, want, ...) do {					\
	long long g_ = (long long)(got), w_ = (long long)(want);	\
	ok(g_ == w_, __VA_ARGS__);					\
	if (g_ != w_) printf("#   got %lld, want %lld\n", g_, w_);	\
} while (0)

#define is_str(got, want, ...) do {					\
	const char *g_ = (got), *w_ = (want);				\
	int e_ = g_ && w_ && strcmp(g_, w_) == 0;			\
	ok(e_, __VA_ARGS__);						\
	if (!e_) printf("#   got '%s', want '%s'\n",		\
	    g_ ? g_ : "(null)", w_ ? w_ : "(null)");			\
} while (0)

/* A loud skip, under the policy of tests/lib.sh: with CI=true a skip is a
 * gap, so it is a failure.  Unit tests skip only through this. */
static inline void
skip(const char *desc, const char *why)
{
	const char *ci = getenv("CI");

	tap_n++;
	if (ci != NULL && strcmp(ci, "true") == 0) {
		tap_fail++;
		printf("not ok %d - %s # skipped on CI: %s (a skip on CI is a "
		    "gap)\n", tap_n, desc, why);
	} else
		printf("ok %d - %s # SKIP %s\n", tap_n, desc, why);
}

static inline int
done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_fail ? 1 : 0;
}

#endif
