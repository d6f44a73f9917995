/* SPDX-License-Identifier: ISC */
/* libFuzzer target: arbitrary bytes as what verify --checkpoint and
 * consistent read from files others may have written: a signed note
 * (opened with a fixed key), the checkpoint text inside it, a proof, a
 * checkpoint state (checkpoint --state), a verifier or signer key text,
 * base64.  Each accepted input must survive
 * its round trip: base64 and checkpoint texts re-encode to the same
 * bytes, and a valid note text signed then opened gives it back. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "merkle.h"
#include "note.h"
#include "tlog.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* sumdb/note's example key (golang.org/x/mod/sumdb/note, example_test) */
static const char skey[] = "PRIVATE+KEY+PeterNeumann+c74f20a3+"
    "AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz";

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static struct note_signer s;
	static int ready;
	static uint8_t p[MERKLE_PROOF_MAX][SHA256_LEN];
	const char *t = (const char *)data;
	struct tlog_checkpoint c;
	struct note_verifier v;
	struct note_signer s2;
	size_t tl, n, k, l2;
	uint64_t old;
	uint8_t *out;
	char *buf, *note;

	if (!ready) {
		if (note_signer_parse(skey, strlen(skey), &s, NULL, 0) != 0)
			abort();
		ready = 1;
	}
	if (note_open(t, size, &s.v, &tl, NULL, 0) == 0) {
		if (tl == 0 || tl >= size || t[tl - 1] != '\n' ||
		    t[tl] != '\n')
			abort();
		(void)tlog_parse(t, tl, &c, NULL, 0);
	}
	if (tlog_parse(t, size, &c, NULL, 0) == 0) {
		char txt[TLOG_ORIGIN_MAX + 128];
		int w = tlog_format(&c, txt, sizeof(txt));

		/* the first three lines are canonical */
		if (w <= 0 || (size_t)w > size || memcmp(txt, t, (size_t)w))
			abort();
	}
	(void)tlog_proof_parse(t, size, &old, p, &k, NULL, 0);
	{
		struct tlog_state st;
		char *o;
		size_t ol;

		/* a state accepted is written back the same way */
		if (tlog_state_parse(t, size, &st, NULL, 0) == 0) {
			if (st.note < t || st.note + st.note_len != t + size ||
			    tlog_state_format(&st, st.note, st.note_len, &o,
			    &ol) != 0)
				abort();
			if (ol != size || memcmp(o, t, size) != 0)
				abort();
			free(o);
		}
	}
	(void)note_verifier_parse(t, size, &v, NULL, 0);
	(void)note_signer_parse(t, size, &s2, NULL, 0);
	(void)note_name_ok(t, size);

	/* base64 round trip */
	out = malloc(size / 4 * 3 + 3);
	buf = malloc(B64_LEN(size) + 1);
	if (out == NULL || buf == NULL)
		abort();
	if (b64_decode(t, size, out, size / 4 * 3 + 3, &n) == 0) {
		b64_encode(out, n, buf);
		if (strlen(buf) != size || memcmp(buf, t, size) != 0)
			abort();
	}
	free(out);
	free(buf);

	/* a valid note text: signed, then opened, gives itself back */
	if (size > 0 && size < 4096 && t[size - 1] == '\n' &&
	    (size < 2 || t[size - 2] != '\n') && note_text_ok(t, size)) {
		if (note_sign(t, size, &s, &note, &l2, NULL, 0) != 0)
			abort();
		if (note_open(note, l2, &s.v, &tl, NULL, 0) != 0 ||
		    tl != size || memcmp(note, t, size) != 0)
			abort();
		free(note);
	}
	return 0;
}
