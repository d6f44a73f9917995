/* SPDX-License-Identifier: ISC */
/* libFuzzer target: arbitrary bytes as a registry of admitted programs
 * (confexec --registry, common/registry.h).  An accepted registry lists
 * exactly the hashes of its non-blank lines: each is found, in either
 * case of hex. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "registry.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *p = (const char *)data, *end = p + size, *nl;
	struct registry reg;
	uint8_t d[SHA256_LEN];
	size_t lines = 0;

	if (registry_parse(p, size, &reg, NULL, 0) == -1)
		return 0;
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		if (nl == NULL)
			abort();	/* accepted: every line ends */
		if (nl == p)
			continue;
		lines++;
		if (sha256_unhex(p + (*p == '\\'), SHA256_HEX_LEN, d) == -1 ||
		    !registry_has(&reg, d))
			abort();
	}
	if (lines != reg.n)
		abort();
	registry_free(&reg);
	return 0;
}
