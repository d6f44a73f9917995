/* SPDX-License-Identifier: ISC */
/* planwire: a value's escaping on the wire (launchplan(5)), both ways:
 * printable ASCII as itself, every other byte, a backslash and a leading
 * or trailing space as \ooo; one canonical form, so the decoder refuses
 * any other. */
#include <stddef.h>

#include "planint.h"

int
plan_wire_must_escape(unsigned char b, size_t i, size_t n)
{
	if (b == '\\' || b < 0x20 || b >= 0x7f)
		return 1;
	return b == ' ' && (i == 0 || i + 1 == n);
}

size_t
plan_wire_escape(const char *s, size_t n, char *out)
{
	static const char oct[] = "01234567";
	size_t i, k = 0;

	for (i = 0; i < n; i++) {
		unsigned char b = (unsigned char)s[i];

		if (plan_wire_must_escape(b, i, n)) {
			if (out) {
				out[k] = '\\';
				out[k + 1] = oct[b >> 6];
				out[k + 2] = oct[(b >> 3) & 7];
				out[k + 3] = oct[b & 7];
			}
			k += 4;
		} else {
			if (out)
				out[k] = (char)b;
			k++;
		}
	}
	return k;
}

long
plan_wire_unescape_len(const unsigned char *v, size_t n, const char **why)
{
	size_t i = 0, k = 0;

	while (i < n) {
		unsigned char b = v[i];

		if (b == '\\') {
			unsigned d;

			if (n - i < 4 || v[i + 1] < '0' || v[i + 1] > '3' ||
			    v[i + 2] < '0' || v[i + 2] > '7' ||
			    v[i + 3] < '0' || v[i + 3] > '7') {
				*why = "bad escape (want \\ooo, 000 to 377)";
				return -1;
			}
			d = (unsigned)(v[i + 1] - '0') << 6 |
			    (unsigned)(v[i + 2] - '0') << 3 |
			    (unsigned)(v[i + 3] - '0');
			if (d == 0) {
				*why = "NUL byte (\\000) not allowed";
				return -1;
			}
			if (!plan_wire_must_escape((unsigned char)d, k,
			    i + 4 == n ? k + 1 : k + 2)) {
				*why = "escape of a byte written literally "
				    "(not canonical)";
				return -1;
			}
			i += 4;
		} else {
			if (b < 0x20 || b >= 0x7f) {
				*why = "raw byte outside printable ASCII "
				    "(must be \\ooo)";
				return -1;
			}
			if (b == ' ' && (i == 0 || i + 1 == n)) {
				*why = "leading or trailing space must be "
				    "\\040";
				return -1;
			}
			i++;
		}
		k++;
	}
	return (long)k;
}


void
plan_wire_unescape(const unsigned char *v, size_t n, char *out)
{
	size_t i = 0, k = 0;

	while (i < n) {
		if (v[i] == '\\') {
			out[k++] = (char)((v[i + 1] - '0') << 6 |
			    (v[i + 2] - '0') << 3 | (v[i + 3] - '0'));
			i += 4;
		} else
			out[k++] = (char)v[i++];
	}
	out[k] = '\0';
}

