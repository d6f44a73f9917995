/* SPDX-License-Identifier: ISC */
/* planbad.h: the plan unit tests' refusal check, shared: a plan that
 * must not decode.  Include after plan.h, esc.h and tap.h. */
#ifndef BORNE_TESTS_PLANBAD_H
#define BORNE_TESTS_PLANBAD_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Decode s (n bytes): refused, with an error holding want, and the plan
 * left all zero (nothing read stays behind a refusal). */
static void
bad(const char *s, size_t n, const char *want, const char *desc)
{
	static const struct plan zero;
	struct plan p;
	char d[128], e[512] = "";
	int r;

	esc_name(desc, d, sizeof(d));
	r = plan_decode((const unsigned char *)s, n, &p, e, sizeof(e));
	ok(r == -1 && strstr(e, want) != NULL, "refused: %s", d);
	if (r != -1 || strstr(e, want) == NULL)
		printf("#   r=%d err='%s' want '%s'\n", r, e, want);
	ok(memcmp(&p, &zero, sizeof(p)) == 0, "%s: plan left empty", d);
}

/* Every strict prefix of a valid encoded plan (enc, n bytes) is
 * refused, and every single-bit flip of it is refused or decodes to a
 * plan that encodes to exactly the flipped bytes (canonical). */
static void
prefixes_and_flips(unsigned char *enc, size_t n)
{
	struct plan d;
	size_t i, bit, nacc = 0, nbad = 0;
	unsigned char *re;
	size_t rn;

	for (i = 0; i < n; i++)
		if (plan_decode(enc, i, &d, NULL, 0) == 0) {
			nbad++;
			plan_free(&d);
			printf("#   prefix %zu accepted\n", i);
		}
	ok(nbad == 0, "every one of %zu prefixes refused", n);
	nbad = 0;
	for (i = 0; i < n; i++)
		for (bit = 0; bit < 8; bit++) {
			enc[i] ^= (unsigned char)(1u << bit);
			if (plan_decode(enc, n, &d, NULL, 0) == 0) {
				nacc++;
				if (plan_encode(&d, &re, &rn) == -1 ||
				    rn != n || memcmp(re, enc, n) != 0) {
					nbad++;
					printf("#   flip %zu.%zu\n", i, bit);
				} else
					free(re);
				plan_free(&d);
			}
			enc[i] ^= (unsigned char)(1u << bit);
		}
	ok(nbad == 0, "all %zu bit flips refused or canonical (%zu accepted)",
	    n * 8, nacc);
}

#endif
