/* SPDX-License-Identifier: ISC */
/* journal_tree: a journal's records as the leaves of an RFC 6962 Merkle
 * tree (common/merkle), for signed checkpoints and consistency proofs
 * (journalchain(1), checkpoint, prove, verify --checkpoint).
 *
 * Leaf i (from 0) is record i + 1's line exactly as stored, its newline
 * included: the same bytes its chain hash covers, so that a leaf is
 * SHA-256(0x00 || line) and the record's hash is SHA-256(line). */
#ifndef BORNE_JOURNAL_TREE_H
#define BORNE_JOURNAL_TREE_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

/* Called for each leaf in order: its index and its leaf hash. */
typedef void journal_leaf_fn(void *arg, uint64_t i,
    const uint8_t leaf[SHA256_LEN]);

/* A place in a journal: just after record seq (0: the start), at byte
 * off, head the SHA-256 of that record's line (zeros for seq 0). */
struct journal_pos {
	uint64_t seq;
	uint64_t off;
	uint8_t head[SHA256_LEN];
};

/* The records of the journal open on fd after *pos, read in one
 * streaming pass (pread(2) in chunks of a few MiB, never mapped nor held
 * whole) up to byte limit (UINT64_MAX: its end) and max records at
 * most: each one checked by the journal's one record checker (its seq
 * and its link to the one before), then its leaf hash given to fn; *pos
 * follows the last one given.  The two hashes of each line (the chain's
 * and the leaf's) are computed on two threads for a big batch, the
 * checks made in order on this one.  Stops without error at the limit,
 * at max, or before an unterminated last line (pos->off then short of
 * the end: a torn tail, for the caller to judge).  Returns 0; or -1
 * with errno EBADMSG (record *bad, from 1, fails the check: err says
 * why), ENOMEM, or pread(2)'s. */
int journal_leaves_from(int fd, struct journal_pos *pos, uint64_t limit,
    uint64_t max, journal_leaf_fn *fn, void *arg, uint64_t *bad, char *err,
    size_t errlen);

/* The first n records: journal_leaves_from the start; fewer than n is
 * EBADMSG too (*bad the first missing). */
int journal_leaves(int fd, uint64_t n, journal_leaf_fn *fn, void *arg,
    uint64_t *bad, char *err, size_t errlen);

/* Whether the journal open on fd still holds record pos->seq ending at
 * byte pos->off with hash pos->head (the line before pos->off read,
 * hashed and parsed).  Returns 0, or -1 with errno EBADMSG (it does not:
 * err says how) or pread(2)'s. */
int journal_pos_check(int fd, const struct journal_pos *pos, char *err,
    size_t errlen);

/* The RFC 6962 root of the first n records (journal_leaves into a
 * frontier: O(log n) memory).  Returns 0, or -1 as journal_leaves. */
int journal_tree_root(int fd, uint64_t n, uint8_t root[SHA256_LEN],
    uint64_t *bad, char *err, size_t errlen);

#endif
