/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <string.h>

#include "scan.h"

static int
scan_digits(const char *s, size_t n, uint64_t *out)
{
	uint64_t v = 0;
	size_t i;

	if (n == 0)
		return errno = EINVAL, -1;
	/* "0" alone is fine; leading zeros are not canonical. */
	if (n > 1 && s[0] == '0')
		return errno = EINVAL, -1;
	for (i = 0; i < n; i++) {
		unsigned d;

		if (s[i] < '0' || s[i] > '9')
			return errno = EINVAL, -1;
		d = (unsigned)(s[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return errno = ERANGE, -1;
		v = v * 10 + d;
	}
	*out = v;
	return 0;
}

int
scan_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	uint64_t v;

	if (s == NULL)
		return errno = EINVAL, -1;
	if (scan_digits(s, strlen(s), &v) == -1)
		return -1;
	if (v < min || v > max)
		return errno = ERANGE, -1;
	*out = v;
	return 0;
}

int
scan_int(const char *s, int min, int max, int *out)
{
	uint64_t v;

	if (min < 0)
		return errno = EINVAL, -1;	/* negative ranges unsupported */
	if (scan_u64(s, (uint64_t)min, (uint64_t)max, &v) == -1)
		return -1;
	*out = (int)v;
	return 0;
}

int
scan_size(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	size_t n;
	unsigned shift = 0;
	uint64_t v;

	if (s == NULL)
		return errno = EINVAL, -1;
	n = strlen(s);
	if (n > 0) {
		switch (s[n - 1]) {
		case 'K': shift = 10; n--; break;
		case 'M': shift = 20; n--; break;
		case 'G': shift = 30; n--; break;
		case 'T': shift = 40; n--; break;
		default: break;
		}
	}
	if (scan_digits(s, n, &v) == -1)
		return -1;
	if (shift && v > (UINT64_MAX >> shift))
		return errno = ERANGE, -1;
	v <<= shift;
	if (v < min || v > max)
		return errno = ERANGE, -1;
	*out = v;
	return 0;
}
