/* SPDX-License-Identifier: ISC */
/* ename.h: errno names for the probes in tests/helpers/ (musl has no
 * strerrorname_np): common/err's err_name; an unnamed one prints as
 * "errnoN". */
#ifndef BORNE_TEST_ENAME_H
#define BORNE_TEST_ENAME_H

#include <errno.h>
#include <stdio.h>

#include "err.h"

static const char *
ename(int e)
{
	static char buf[32];
	const char *n = err_name(e);

	if (n != NULL)
		return n;
	snprintf(buf, sizeof(buf), "errno%d", e);
	return buf;
}

#endif
