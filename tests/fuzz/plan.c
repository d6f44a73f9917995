/* SPDX-License-Identifier: ISC */
/* libFuzzer target: plan_decode() of arbitrary bytes must fail cleanly or
 * give a plan whose canonical encoding is exactly the input.
 * Longer local runs: .build/fuzz/plan -dict=tests/fuzz/plan.dict
 *     -max_total_time=600 CORPUS_DIR tests/fuzz/seeds-plan */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "plan.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct plan p;
	unsigned char *out;
	size_t n;
	char err[256];
	json_t *j;

	err[0] = '\0';
	if (plan_decode(data, size, &p, err, sizeof(err)) == -1) {
		if (err[0] == '\0' || p.program != NULL || p.argv != NULL)
			abort();	/* a refusal always says why */
		return 0;
	}
	if (plan_validate(&p, err, sizeof(err)) == -1)
		abort();
	if (plan_encode(&p, &out, &n) == -1)
		abort();
	if (n != size || memcmp(out, data, size) != 0)
		abort();	/* not canonical: decode accepted a variant */
	free(out);
	if ((j = plan_to_json(&p)) == NULL)
		abort();
	json_decref(j);
	plan_free(&p);
	return 0;
}
