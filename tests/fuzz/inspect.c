/* SPDX-License-Identifier: ISC */
/* libFuzzer target: docker inspect JSON -> mount sources (common/inspect),
 * plus the name escaper every reported path goes through. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "esc.h"
#include "inspect.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct inspect_sources s;
	char err[256], *name, *out;
	size_t i;

	if (inspect_parse((const char *)data, size, &s, err, sizeof err) == 0) {
		for (i = 0; i < s.n; i++) {
			/* Every source is absolute, unique, NUL-free. */
			if (s.v[i][0] != '/')
				abort();
			if (i > 0 && strcmp(s.v[i], s.v[i - 1]) == 0)
				abort();
		}
		inspect_free(&s);
	} else if (s.n != 0 || s.v != NULL || err[0] == '\0')
		abort();
	/* The raw bytes as a file name: the escape must be lossless ASCII
	 * or valid UTF-8 and fit ESC_SIZE. */
	if ((name = malloc(size + 1)) == NULL)
		return 0;
	memcpy(name, data, size);
	name[size] = '\0';
	if ((out = malloc(ESC_SIZE(size))) != NULL) {
		if (esc_name(name, out, ESC_SIZE(size)) != 0)
			abort();
		for (i = 0; out[i] != '\0'; i++)
			if ((unsigned char)out[i] < 0x20 || out[i] == 0x7f)
				abort();
		free(out);
	}
	free(name);
	return 0;
}
