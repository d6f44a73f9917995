/* SPDX-License-Identifier: ISC */
/* libFuzzer target: confexec's control request lines (common/ctlreq). */
#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "ctlreq.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ctl_req q;
	char err[256];
	size_t i;
	json_t *s;

	if (ctlreq_parse((const char *)data, size, &q, err, sizeof(err)) ==
	    0) {
		/* A request is one of the ops, within its bounds. */
		if ((unsigned)q.op > CTL_CANCEL || q.limit == 0 ||
		    q.limit > CTL_LIMIT_MAX || q.offset > INT64_MAX ||
		    (q.follow != 0 && q.follow != 1))
			abort();
		if (q.op != CTL_SUBSCRIBE &&
		    (q.offset != 0 || q.follow || q.limit != CTL_LIMIT_MAX))
			abort();
	} else {
		/* Refused: a reason (one line of printable text), a known
		 * errno, nothing left over. */
		for (i = 0; err[i] != '\0'; i++)
			if ((unsigned char)err[i] < 0x20 || err[i] == 0x7f)
				abort();
		s = json_string(err);	/* NULL: not valid UTF-8 */
		if (s == NULL)
			abort();
		json_decref(s);
		if (err[0] == '\0' ||
		    (errno != EINVAL && errno != EMSGSIZE &&
			errno != EPROTONOSUPPORT))
			abort();
		if (q.op != 0 || q.offset != 0 || q.limit != 0 || q.follow)
			abort();
		if (size > CTL_LINE_MAX && errno != EMSGSIZE)
			abort();
	}
	return 0;
}
