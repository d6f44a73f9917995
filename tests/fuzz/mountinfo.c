/* SPDX-License-Identifier: ISC */
/* libFuzzer target: mountinfo_parse and mountinfo_unescape on any bytes. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "mountinfo.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct mountinfo m;
	char *s, out[64];

	s = malloc(size + 1);
	if (s == NULL)
		return 0;
	memcpy(s, data, size);
	s[size] = '\0';
	(void)mountinfo_parse(s, &m);
	(void)mountinfo_unescape(out, sizeof(out), s, strlen(s));
	free(s);
	return 0;
}
