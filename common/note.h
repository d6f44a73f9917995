/* SPDX-License-Identifier: ISC */
/* note: C2SP signed notes with Ed25519 keys (nettle's hogweed), read and
 * written as Go's golang.org/x/mod/sumdb/note does.
 *
 * A key has a name (non-empty UTF-8, no '+', no space of any kind, no
 * control character) and a 32-bit key hash: the first four bytes, big
 * endian, of SHA-256(name || "\n" || 0x01 || public key), 0x01 naming
 * Ed25519.  Key texts:
 *   verifier  NAME+HASH8+base64(0x01 || 32-byte public key)
 *   signer    PRIVATE+KEY+NAME+HASH8+base64(0x01 || 32-byte seed)
 * HASH8 is the key hash in 8 lower-case hex digits; the seed is RFC 8032's
 * private key.
 *
 * A note is a text (UTF-8, no control character but newline, ending in a
 * newline), a blank line, then signature lines
 *   "\u2014 " NAME " " base64(key hash || 64-byte signature) "\n"
 * each signing the text. */
#ifndef BORNE_NOTE_H
#define BORNE_NOTE_H

#include <stddef.h>
#include <stdint.h>

/* Longest key name, in bytes. */
#define NOTE_NAME_MAX 256
/* Longest note read or written, in bytes. */
#define NOTE_MAX 65536
/* Most signature lines a note may carry (Go's limit too). */
#define NOTE_SIGS_MAX 100

#define NOTE_ED25519 0x01
#define NOTE_KEY_LEN 32
#define NOTE_SIG_LEN 64

struct note_verifier {
	char name[NOTE_NAME_MAX + 1];
	uint32_t hash;
	uint8_t pub[NOTE_KEY_LEN];
};

struct note_signer {
	struct note_verifier v;		/* its verifier, derived */
	uint8_t seed[NOTE_KEY_LEN];
};

/* Whether name[0..len) is a valid key name. */
int note_name_ok(const char *name, size_t len);

/* Whether s[0..len) is valid UTF-8 without a control character other
 * than newline (what a note may hold). */
int note_text_ok(const char *s, size_t len);

/* A new key named name from getrandom(2): *s filled.  Returns 0, or -1
 * with errno (EINVAL: a bad name) and err. */
int note_keygen(const char *name, struct note_signer *s, char *err,
    size_t errlen);

/* The key texts (no newline) into buf[bufsz]: 0, or -1 with errno
 * ENAMETOOLONG when buf is too small. */
int note_verifier_text(const struct note_verifier *v, char *buf,
    size_t bufsz);
int note_signer_text(const struct note_signer *s, char *buf, size_t bufsz);

/* Parse a key text (text[0..len), no newline): the algorithm must be
 * Ed25519, the hash must match the name and public key (for a signer,
 * the one derived from its seed).  Returns 0, or -1 with errno EINVAL and
 * err. */
int note_verifier_parse(const char *text, size_t len, struct note_verifier *v,
    char *err, size_t errlen);
int note_signer_parse(const char *text, size_t len, struct note_signer *s,
    char *err, size_t errlen);

/* The note of text[0..len) signed by s: a malloc'ed *out of *outlen
 * bytes.  The text must be a valid note text (note_text_ok, ending in a
 * newline, no blank line at its end).  Returns 0, or -1 with errno
 * (EINVAL, ENOMEM) and err. */
int note_sign(const char *text, size_t len, const struct note_signer *s,
    char **out, size_t *outlen, char *err, size_t errlen);

/* Open the note msg[0..len): check its shape as Go's note.Open does
 * (the whole note valid, at most NOTE_MAX bytes and NOTE_SIGS_MAX
 * signature lines, each well formed), and find a good signature by v;
 * signatures by other keys (a witness's cosignature) are left alone.
 * *textlen gets the length of the signed text (msg[0..*textlen)).
 * Returns 0; or -1 with errno EINVAL (malformed), EBADMSG (a signature
 * line of v's name and hash that does not verify) or ENOENT (no
 * signature by v), and err. */
int note_open(const char *msg, size_t len, const struct note_verifier *v,
    size_t *textlen, char *err, size_t errlen);

#endif
