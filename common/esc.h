/* SPDX-License-Identifier: ISC */
/* esc: print attacker-controlled names (file names from a container) safely:
 * valid, printable UTF-8 out, every other byte as \xNN, losslessly. */
#ifndef BORNE_ESC_H
#define BORNE_ESC_H

#include <stddef.h>

/* Worst case: every input byte becomes 4 output bytes. */
#define ESC_SIZE(n) (4 * (n) + 1)

/* Escape the NUL-terminated s into out (size outsz, always terminated).
 * Copied as is: printable ASCII other than backslash, and well-formed
 * UTF-8 sequences for code points >= U+00A0 (no overlongs, no surrogates,
 * nothing above U+10FFFF).  Everything else (control bytes, DEL, C1
 * controls, backslash, invalid or truncated UTF-8) becomes "\xNN" per byte,
 * so the original bytes can always be recovered.  The result is valid
 * UTF-8 (JSON-safe).  Returns 0, or -1 (ENAMETOOLONG) when out was too
 * small and the result was truncated (still terminated, ending in "..."). */
int esc_name(const char *s, char *out, size_t outsz);

#endif
