/* SPDX-License-Identifier: ISC */
/* esc: the one escaper for untrusted bytes (file names from a container,
 * paths, argv, env names, JSON from outside) that reach a message or a
 * report: valid, printable UTF-8 out, every other byte as \xNN. */
#ifndef BORNE_ESC_H
#define BORNE_ESC_H

#include <stddef.h>

/* Worst case: every input byte becomes 4 output bytes. */
#define ESC_SIZE(n) (4 * (n) + 1)

/* esc_mem() flags. */
enum {
	/* Copy backslash as is instead of "\x5c".  Only for text that was
	 * already escaped piece by piece (err.c's whole messages): the
	 * result is still one line of printable text, but no longer
	 * lossless. */
	ESC_KEEP_BACKSLASH = 1u << 0,
};

/* Escape the n bytes at s (NULs included) into out (size outsz, always
 * terminated).  Copied as is: printable ASCII other than backslash, and
 * well-formed UTF-8 sequences for code points >= U+00A0 (no overlongs, no
 * surrogates, nothing above U+10FFFF).  Everything else (control bytes
 * such as \n, \r and ESC, DEL, C1 controls, backslash, invalid or
 * truncated UTF-8) becomes "\xNN" per byte, so the original bytes can
 * always be recovered.  The result is valid UTF-8 (JSON-safe) and holds
 * no control byte.  Returns 0, or -1 (ENAMETOOLONG) when out was too small
 * and the result was truncated (still terminated, ending in "..." when
 * outsz >= 4).  Only stack memory: safe between fork and exec. */
int esc_mem(const void *s, size_t n, char *out, size_t outsz,
    unsigned flags);

/* esc_mem() of the NUL-terminated s, no flags. */
int esc_name(const char *s, char *out, size_t outsz);

#endif
