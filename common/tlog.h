/* SPDX-License-Identifier: ISC */
/* tlog: the text of a C2SP tlog-checkpoint, and the consistency
 * proof of the C2SP tlog-witness protocol, written and read strictly.
 *
 * A checkpoint text is three lines, then optional extension lines:
 *   ORIGIN\n            the log's name (non-empty, no control character)
 *   SIZE\n              the tree size: decimal, no sign, no leading zero
 *   ROOT\n              base64 of the 32-byte RFC 6962 root hash
 * A proof text is "old SIZE\n", then one base64 hash a line. */
#ifndef BORNE_TLOG_H
#define BORNE_TLOG_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "merkle.h"

/* Longest origin line, in bytes. */
#define TLOG_ORIGIN_MAX 256
/* Extension lines after the root, at most. */
#define TLOG_EXT_MAX 16

struct tlog_checkpoint {
	char origin[TLOG_ORIGIN_MAX + 1];
	uint64_t size;
	uint8_t root[SHA256_LEN];
};

/* Whether origin[0..len) may be an origin line: 1 to TLOG_ORIGIN_MAX
 * bytes of UTF-8, no control character. */
int tlog_origin_ok(const char *origin, size_t len);

/* The checkpoint text of c into buf[bufsz] (NUL-terminated); its length,
 * or -1 with errno ENAMETOOLONG. */
int tlog_format(const struct tlog_checkpoint *c, char *buf, size_t bufsz);

/* Parse a checkpoint text (the signed text of a note, text[0..len)).
 * Extension lines are allowed (at most TLOG_EXT_MAX, each non-empty) and
 * ignored.  Returns 0, or -1 with errno EINVAL and err. */
int tlog_parse(const char *text, size_t len, struct tlog_checkpoint *c, char *err,
    size_t errlen);

/* Parse a proof text buf[0..len): *old gets SIZE, p[0..*k) the hashes
 * (at most MERKLE_PROOF_MAX).  Returns 0, or -1 with errno EINVAL and
 * err. */
int tlog_proof_parse(const char *buf, size_t len, uint64_t *old,
    uint8_t (*p)[SHA256_LEN], size_t *k, char *err, size_t errlen);

/* The signer's state between two checkpoints of one journal
 * (journalchain checkpoint --state), text:
 *   borne-checkpoint-state 1\n
 *   offset OFF\n          the byte just after the last record checkpointed
 *   head HEX\n            that record's hash (64 lower-case hex digits)
 *   frontier N[ HASH]...\n the tree's right edge: N records, then one
 *                         base64 hash per 1 bit of N, the largest subtree
 *                         first (merkle_frontier)
 * then the signed checkpoint of those N records, to the end.  Nothing
 * in it is trusted before the checkpoint's signature is verified and
 * the frontier's root found equal to its root. */
struct tlog_state {
	uint64_t off;
	uint8_t head[SHA256_LEN];
	struct merkle_frontier f;
	const char *note;		/* in the parsed buffer */
	size_t note_len;
};

/* The state text of s with the signed note note[0..len): a malloc'ed
 * *out of *outlen bytes.  Returns 0, or -1 with errno ENOMEM. */
int tlog_state_format(const struct tlog_state *s, const char *note,
    size_t len, char **out, size_t *outlen);

/* Parse a state text buf[0..len) (s->note points into buf).  Returns 0,
 * or -1 with errno EINVAL and err. */
int tlog_state_parse(const char *buf, size_t len, struct tlog_state *s,
    char *err, size_t errlen);

#endif
