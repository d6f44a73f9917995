/* SPDX-License-Identifier: ISC */
/* Unit tests of common/b64, common/note and common/tlog: strict base64,
 * key names and key texts, notes signed and opened (tampered, cosigned,
 * malformed), checkpoint and proof texts. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "b64.h"
#include "note.h"
#include "tap.h"
#include "tlog.h"

static int
dec(const char *s, size_t max)
{
	uint8_t out[64];
	size_t n;

	return b64_decode(s, strlen(s), out, max, &n) == 0 ? (int)n : -1;
}

/* open msg with v: 0, or errno */
static int
opens(const char *msg, const struct note_verifier *v)
{
	size_t tl;

	return note_open(msg, strlen(msg), v, &tl, NULL, 0) == 0 ? 0 : errno;
}

int
main(void)
{
	struct note_signer s, s2, sp;
	struct note_verifier v;
	struct tlog_checkpoint c;
	static uint8_t p[MERKLE_PROOF_MAX][SHA256_LEN];
	char st[512], vt[512], *note, *note2, buf[1024];
	size_t len, len2, tl, k;
	uint64_t old;

	setvbuf(stdout, NULL, _IOLBF, 0);
	/* base64: only the canonical spelling */
	is_int(dec("AAAA", 64), 3, "b64: AAAA is 3 bytes");
	is_int(dec("AQ==", 64), 1, "b64: AQ== is 1 byte");
	is_int(dec("AR==", 64), -1, "b64: unused bits set refused");
	is_int(dec("AQ=", 64), -1, "b64: short padding refused");
	is_int(dec("AQ", 64), -1, "b64: no padding refused");
	is_int(dec("AA AA", 64), -1, "b64: a blank refused");
	is_int(dec("AAAA\n", 64), -1, "b64: a newline refused");
	is_int(dec("AQ==AAAA", 64), -1, "b64: padding inside refused");
	is_int(dec("AA-_", 64), -1, "b64: the URL alphabet refused");
	is_int(dec("AAAAAAAA", 5), -1, "b64: more bytes than room refused");
	is_int(dec("", 64), 0, "b64: empty is nothing");

	/* names */
	ok(note_name_ok("example.org/log", 15), "name: a path-like name");
	ok(!note_name_ok("", 0), "name: empty refused");
	ok(!note_name_ok("a+b", 3), "name: '+' refused");
	ok(!note_name_ok("a b", 3), "name: a space refused");
	ok(!note_name_ok("a\xc2\xa0" "b", 4), "name: a no-break space refused");
	ok(!note_name_ok("a\xe3\x80\x80" "b", 5),
	    "name: an ideographic space refused");
	ok(!note_name_ok("a\xff", 2), "name: invalid UTF-8 refused");
	ok(!note_name_ok("a\xc0\xaf", 3), "name: an overlong refused");
	ok(note_name_ok("caf\xc3\xa9", 5), "name: UTF-8 letters kept");

	/* keys */
	is_int(note_keygen("example.org/t", &s, NULL, 0), 0, "keygen");
	is_int(note_keygen("bad name", &s2, NULL, 0), -1,
	    "keygen of a bad name refused");
	is_int(note_signer_text(&s, st, sizeof(st)), 0, "signer text");
	is_int(note_verifier_text(&s.v, vt, sizeof(vt)), 0, "verifier text");
	is_int(note_signer_parse(st, strlen(st), &sp, NULL, 0), 0,
	    "signer text parses");
	ok(memcmp(sp.v.pub, s.v.pub, NOTE_KEY_LEN) == 0 &&
	    sp.v.hash == s.v.hash, "  to the same key");
	is_int(note_verifier_parse(vt, strlen(vt), &v, NULL, 0), 0,
	    "verifier text parses");
	is_int(note_verifier_parse(st, strlen(st), &v, NULL, 0), -1,
	    "a signer text is not a verifier");
	is_int(note_signer_parse(vt, strlen(vt), &sp, NULL, 0), -1,
	    "a verifier text is not a signer");
	vt[strlen("example.org/t+")] ^= 1;
	is_int(note_verifier_parse(vt, strlen(vt), &v, NULL, 0), -1,
	    "a verifier whose hash is wrong refused");
	vt[strlen("example.org/t+")] ^= 1;
	/* Go's test vector (sumdb/note's example key) */
	is_int(note_verifier_parse("PeterNeumann+c74f20a3+ARpc2QcUPDhMQegwxbzhKqiBfsVkmqq/LDE4izWy10TW",
	    66, &v, NULL, 0), 0, "Go's example verifier key parses");
	is_int(note_signer_parse("PRIVATE+KEY+PeterNeumann+c74f20a3+AYEKFALVFGyNhPJEMzD1QIDr+Y7hfZx09iUvxdXHKDFz",
	    78, &sp, NULL, 0), 0, "Go's example signer key parses");
	ok(memcmp(sp.v.pub, v.pub, NOTE_KEY_LEN) == 0,
	    "  its public key is the verifier's");
	{
		static const char go_note[] = "If you think cryptography is "
		    "the answer to your problem,\nthen you don't know what your "
		    "problem is.\n\n\xe2\x80\x94 PeterNeumann x08go/ZJkuBS9UG/"
		    "SffcvIAQxVBtiFupLLr8pAcElZInNIuGUgYN1FFYC2pZSNXgKvqfqdngotp"
		    "RZb6KE6RyyBwJnAM=\n";
		static const char go_text[] = "If you think cryptography is "
		    "the answer to your problem,\nthen you don't know what your "
		    "problem is.\n";

		is_int(opens(go_note, &v), 0, "Go's example note opens");
		note = NULL;
		len = 0;
		is_int(note_sign(go_text, strlen(go_text), &sp, &note, &len,
		    NULL, 0), 0, "signing its text with Go's example key");
		ok(len == strlen(go_note) && memcmp(note, go_note, len) == 0,
		    "  gives Go's note, byte for byte");
		free(note);
	}

	/* notes */
	note_verifier_parse(vt, strlen(vt), &v, NULL, 0);
	is_int(note_sign("a\nb\n", 4, &s, &note, &len, NULL, 0), 0, "sign");
	is_int(note_open(note, len, &v, &tl, NULL, 0), 0, "open");
	is_int(tl, 4, "  the text's length");
	note[0] = 'A';
	is_int(opens(note, &v), EBADMSG, "a changed text: EBADMSG");
	note[0] = 'a';
	note_keygen("example.org/w", &s2, NULL, 0);
	is_int(note_sign("a\nb\n", 4, &s2, &note2, &len2, NULL, 0), 0,
	    "a second key signs the same text");
	snprintf(buf, sizeof(buf), "%.*s%s", (int)len, note, note2 + 5);
	is_int(opens(buf, &v), 0, "cosigned: opens with the first key");
	is_int(opens(note2, &v), ENOENT, "the second's alone: ENOENT");
	free(note2);
	is_int(note_sign("a\n\n", 3, &s, &note2, &len2, NULL, 0), -1,
	    "a text ending in a blank line refused");
	is_int(note_sign("a", 1, &s, &note2, &len2, NULL, 0), -1,
	    "a text without its newline refused");
	is_int(note_sign("a\tb\n", 4, &s, &note2, &len2, NULL, 0), -1,
	    "a text with a tab refused");
	is_int(opens("a\n\n", &v), EINVAL, "no signature line: EINVAL");
	is_int(opens("a\nb\n", &v), EINVAL, "no blank line: EINVAL");
	is_int(opens("a\n\n- x AAAA\n", &v), EINVAL,
	    "a hyphen for the em dash: EINVAL");
	is_int(opens("a\n\n\xe2\x80\x94 x AAAA\n", &v), EINVAL,
	    "a signature of 3 bytes: EINVAL");
	is_int(opens("a\n\n\xe2\x80\x94 x AAAAAAAA", &v), EINVAL,
	    "no newline at the end: EINVAL");
	is_int(opens("a\r\n\n\xe2\x80\x94 x AAAAAAAA\n", &v), EINVAL,
	    "a carriage return: EINVAL");
	free(note);

	/* checkpoints */
	memset(&c, 0, sizeof(c));
	strcpy(c.origin, "example.org/log");
	c.size = 42;
	is_int(tlog_format(&c, buf, sizeof(buf)), 64, "checkpoint text");
	is_str(buf, "example.org/log\n42\n"
	    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n", "  three lines");
	is_int(tlog_parse(buf, 64, &c, NULL, 0), 0, "parses");
	ok(c.size == 42 && strcmp(c.origin, "example.org/log") == 0,
	    "  origin and size");
#define BAD(t, d) is_int(tlog_parse(t, strlen(t), &c, NULL, 0), -1, d)
	BAD("o\n042\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
	    "a leading zero refused");
	BAD("o\n+1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
	    "a sign refused");
	BAD("o\n9223372036854775808\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
	    "2^63 refused");
	BAD("\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
	    "an empty origin refused");
	BAD("o\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA==\n",
	    "a 31-byte root refused");
	BAD("o\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=",
	    "no newline at the end refused");
	BAD("o\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n\n",
	    "an empty extension line refused");
	is_int(tlog_parse("o\n1\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n"
	    "ext\n", 53, &c, NULL, 0), 0, "an extension line kept apart");
	/* found by tests/fuzz/note.c: a NUL ended the number early */
	is_int(tlog_parse("o\n7\0\n"
	    "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n", 51, &c, NULL, 0),
	    -1, "a size with a NUL inside refused");

	/* proofs */
	is_int(tlog_proof_parse("old 3\nAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=\n",
	    51, &old, p, &k, NULL, 0), 0, "a proof parses");
	ok(old == 3 && k == 1, "  old 3, one hash");
	is_int(tlog_proof_parse("old 0\n", 6, &old, p, &k, NULL, 0), 0,
	    "old 0 alone parses");
	is_int(tlog_proof_parse("old 03\n", 7, &old, p, &k, NULL, 0), -1,
	    "old 03 refused");
	is_int(tlog_proof_parse("new 3\n", 6, &old, p, &k, NULL, 0), -1,
	    "new 3 refused");
	is_int(tlog_proof_parse("old 3\nAAAA\n", 11, &old, p, &k, NULL, 0),
	    -1, "a 3-byte hash refused");
	return done_testing();
}
