/* SPDX-License-Identifier: ISC */
/* libFuzzer target: fdset_parse on any bytes; the set stays sorted,
 * unique and bounded whatever the input. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fd.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct fdset set = FDSET_STDIO;
	char *s;
	size_t i;

	s = malloc(size + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	(void)fdset_parse(&set, s);
	if (set.n > FDSET_MAX)
		abort();
	for (i = 1; i < set.n; i++)
		if (set.fd[i - 1] >= set.fd[i] || set.fd[i] < 0)
			abort();
	free(s);
	return 0;
}
