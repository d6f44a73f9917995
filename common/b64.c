/* SPDX-License-Identifier: ISC */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <nettle/base64.h>

#include "b64.h"

void
b64_encode(const uint8_t *src, size_t n, char *dst)
{
	base64_encode_raw(dst, n, src);
	dst[B64_LEN(n)] = '\0';
}

/* Decoded at most this many bytes at a time on the stack. */
#define CHUNK 3072

int
b64_decode(const char *src, size_t len, uint8_t *dst, size_t max, size_t *n)
{
	struct base64_decode_ctx ctx;
	char re[B64_LEN(CHUNK) + 1];
	size_t out, at, i;

	/* Canonical input is a whole number of 4-character groups, each
	 * decoded on its own: 4 characters, at most 3 bytes. */
	if (len % 4 != 0)
		return errno = EINVAL, -1;
	if (len / 4 * 3 > max + 2)
		return errno = ERANGE, -1;
	base64_decode_init(&ctx);
	out = 0;
	for (at = 0; at < len;) {
		size_t take = len - at < B64_LEN(CHUNK) ? len - at :
		    B64_LEN(CHUNK), got = BASE64_DECODE_LENGTH(take);
		uint8_t tmp[BASE64_DECODE_LENGTH(B64_LEN(CHUNK))];

		/* nettle skips blanks; re-encoding below refuses them. */
		for (i = at; i < at + take; i++)
			if (src[i] == ' ' || src[i] == '\t' || src[i] == '\n' ||
			    src[i] == '\r' || src[i] == '\v' || src[i] == '\f')
				return errno = EINVAL, -1;
		if (!base64_decode_update(&ctx, &got, tmp, take, src + at))
			return errno = EINVAL, -1;
		if (out + got > max)
			return errno = ERANGE, -1;
		/* The canonical form: what encoding these bytes gives back. */
		b64_encode(tmp, got, re);
		if (strlen(re) != take || memcmp(re, src + at, take) != 0)
			return errno = EINVAL, -1;
		memcpy(dst + out, tmp, got);
		out += got;
		at += take;
		/* Padding may only end the input. */
		if (at < len && src[at - 1] == '=')
			return errno = EINVAL, -1;
	}
	if (!base64_decode_final(&ctx))
		return errno = EINVAL, -1;
	*n = out;
	return 0;
}
