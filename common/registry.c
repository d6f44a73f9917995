/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "registry.h"

static int
cmp(const void *a, const void *b)
{
	return memcmp(a, b, SHA256_LEN);
}

/* One line (no newline): 0 with its hash in d, or -1 with why. */
static int
line_parse(const char *s, size_t n, uint8_t d[SHA256_LEN], const char **why)
{
	size_t i;

	if (n > 0 && s[0] == '\\') {
		s++;
		n--;
		/* the name, escaped: \\ and \n only, no bare backslash */
		for (i = SHA256_HEX_LEN + 2; i < n; i++) {
			if (s[i] != '\\')
				continue;
			if (i + 1 == n || (s[i + 1] != '\\' && s[i + 1] != 'n'))
				return *why = "a bad escape in the name", -1;
			i++;
		}
	}
	if (n < SHA256_HEX_LEN || sha256_unhex(s, SHA256_HEX_LEN, d) == -1)
		return *why = "not 64 hexadecimal digits first", -1;
	if (n < SHA256_HEX_LEN + 3 || s[SHA256_HEX_LEN] != ' ' ||
	    (s[SHA256_HEX_LEN + 1] != ' ' && s[SHA256_HEX_LEN + 1] != '*'))
		return *why = "not HASH, two spaces (or a space and '*') and "
		    "a name", -1;
	if (memchr(s, '\0', n) != NULL)
		return *why = "a NUL byte", -1;
	return 0;
}

int
registry_parse(const char *buf, size_t len, struct registry *reg,
    char *err, size_t errlen)
{
	const char *p = buf, *end = buf + len, *nl, *why;
	size_t line = 0, n;

	memset(reg, 0, sizeof(*reg));
	if (len > REGISTRY_MAX)
		return errno = E2BIG, err_set(err, errlen, "more than %u "
		    "bytes", REGISTRY_MAX);
	if (len > 0 && end[-1] != '\n')
		return errno = EINVAL, err_set(err, errlen, "no newline at "
		    "its end");
	n = len / (SHA256_HEX_LEN + 4) + 1;
	if (n > REGISTRY_ENTRIES)
		n = REGISTRY_ENTRIES;
	reg->hash = malloc(n * SHA256_LEN);
	if (reg->hash == NULL)
		return err_set_sys(err, errlen, "registry");
	for (; p < end; p = nl + 1) {
		nl = memchr(p, '\n', (size_t)(end - p));
		line++;
		if (nl == p)
			continue;	/* a blank line */
		if (reg->n == REGISTRY_ENTRIES) {
			registry_free(reg);
			return errno = E2BIG, err_set(err, errlen, "more than "
			    "%u entries", REGISTRY_ENTRIES);
		}
		if (line_parse(p, (size_t)(nl - p), reg->hash[reg->n],
		    &why) == -1) {
			registry_free(reg);
			return errno = EINVAL, err_set(err, errlen, "line %zu: "
			    "%s", line, why);
		}
		reg->n++;
	}
	qsort(reg->hash, reg->n, SHA256_LEN, cmp);
	return 0;
}

int
registry_has(const struct registry *reg, const uint8_t d[SHA256_LEN])
{
	return reg->n > 0 &&
	    bsearch(d, reg->hash, reg->n, SHA256_LEN, cmp) != NULL;
}

void
registry_free(struct registry *reg)
{
	free(reg->hash);
	reg->hash = NULL;
	reg->n = 0;
}
