/* SPDX-License-Identifier: ISC */
/* merkle: the RFC 6962 Merkle tree hash (section 2.1) over SHA-256, as
 * C2SP tlog-checkpoint and tlog-witness use it, built one leaf at a time
 * in O(log n) memory, and its consistency proofs (section 2.1.2).
 *
 *   leaf hash  SHA-256(0x00 || data)
 *   node hash  SHA-256(0x01 || left || right)
 *   MTH of n leaves: the leaf hash for n = 1; for n > 1, with k the
 *   largest power of two smaller than n, node(MTH(D[0:k]), MTH(D[k:n]));
 *   SHA-256 of nothing for n = 0. */
#ifndef BORNE_MERKLE_H
#define BORNE_MERKLE_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

/* Most hashes in a consistency proof: two per level of a tree of 2^63
 * leaves. */
#define MERKLE_PROOF_MAX 128

void merkle_leaf_hash(const void *data, size_t len, uint8_t out[SHA256_LEN]);
void merkle_node_hash(const uint8_t l[SHA256_LEN], const uint8_t r[SHA256_LEN],
    uint8_t out[SHA256_LEN]);

/* The right edge of a tree being built: for each 1 bit of n, the root of
 * one complete subtree, the largest first.  2 KiB, no allocation. */
struct merkle_frontier {
	uint64_t n;			/* leaves pushed */
	unsigned k;			/* subtree roots held */
	uint8_t h[64][SHA256_LEN];
};

void merkle_init(struct merkle_frontier *f);
/* Add one leaf, given its leaf hash. */
void merkle_push(struct merkle_frontier *f, const uint8_t leaf[SHA256_LEN]);
/* The MTH of the leaves pushed so far (the frontier is unchanged). */
void merkle_root(const struct merkle_frontier *f, uint8_t out[SHA256_LEN]);

/* A range of leaves [lo, hi) whose MTH is one hash of a proof. */
struct merkle_range {
	uint64_t lo, hi;
};

/* The ranges of the consistency proof from size m to size n, in the
 * order the proof lists their hashes (RFC 6962 SUBPROOF(m, D[0:n],
 * true)): disjoint, each within [0, n).  0 <= m <= n; m = 0 and m = n
 * give an empty proof.  Returns the count (at most MERKLE_PROOF_MAX), or
 * -1 with errno EINVAL when m > n. */
int merkle_proof_ranges(uint64_t m, uint64_t n, struct merkle_range *r);

/* Check that proof p[0..k) shows the tree of size n with root new_root
 * extends the tree of size m with root old_root (RFC 9162 section
 * 2.1.4.2, the same verdicts as RFC 6962's prover).  m = 0: any tree
 * extends the empty one, with an empty proof; m = n: the roots must be
 * equal, with an empty proof.  Returns 0, or -1 with errno EINVAL (m > n)
 * or EBADMSG (a proof of the wrong length, or one that does not take
 * old_root to new_root). */
int merkle_proof_check(uint64_t m, const uint8_t old_root[SHA256_LEN],
    uint64_t n, const uint8_t new_root[SHA256_LEN],
    const uint8_t (*p)[SHA256_LEN], size_t k);

#endif
