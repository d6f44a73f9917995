/* SPDX-License-Identifier: ISC */
/* esc: lossless escaping of untrusted bytes. */
#include <errno.h>
#include <string.h>

#include "esc.h"

/* Length of the well-formed, non-control UTF-8 sequence at p (at most
 * left bytes), or 0. */
static size_t
utf8_len(const unsigned char *p, size_t left, unsigned flags)
{
	unsigned c = p[0];
	unsigned long cp;
	size_t n, i;

	if (c >= 0x20 && c < 0x7f)
		return c == '\\' && !(flags & ESC_KEEP_BACKSLASH) ? 0 : 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && cp < 0x10000) ||
	    (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff || cp < 0xa0)
		return 0;	/* overlong, surrogate, too big, C1 control */
	return n;
}

int
esc_mem(const void *s, size_t len, char *out, size_t outsz, unsigned flags)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = s, *end = p + len;
	size_t o = 0, n, need = 1, room;

	if (outsz == 0)
		return errno = ENAMETOOLONG, -1;
	/* First the length, so that a result that fits is never cut. */
	while (p < end) {
		n = utf8_len(p, (size_t)(end - p), flags);
		need += n > 0 ? n : 4;
		p += n > 0 ? n : 1;
	}
	p = s;
	/* When it does not fit, keep room for "..." and the NUL. */
	room = need <= outsz ? outsz - 1 : outsz >= 4 ? outsz - 4 : 0;
	while (p < end) {
		n = utf8_len(p, (size_t)(end - p), flags);
		if (n > 0) {
			if (o + n > room)
				goto trunc;
			memcpy(out + o, p, n);
			o += n;
			p += n;
		} else {
			if (o + 4 > room)
				goto trunc;
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[*p >> 4];
			out[o++] = hex[*p & 15];
			p++;
		}
	}
	out[o] = '\0';
	return 0;
trunc:
	if (outsz >= 4) {
		memcpy(out + o, "...", 3);
		o += 3;
	}
	out[o < outsz ? o : outsz - 1] = '\0';
	return errno = ENAMETOOLONG, -1;
}

int
esc_name(const char *s, char *out, size_t outsz)
{
	return esc_mem(s, strlen(s), out, outsz, 0);
}
